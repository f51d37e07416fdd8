//! Nodes, link kinds and static routing.

pub mod routing;

pub use routing::Routes;

use crate::ids::{DevId, HookId};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    Host,
    Router,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum LinkKind {
    #[default]
    Wired,
    Wireless,
}

impl LinkKind {
    pub fn name(self) -> &'static str {
        match self {
            LinkKind::Wired => "wired",
            LinkKind::Wireless => "wireless",
        }
    }
}

pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    /// Devices attached to this node, in link order.
    pub devices: Vec<DevId>,
    /// Node hooks, in the order they run.
    pub hooks: Vec<HookId>,
}
