//! Nodes and static routing.

pub mod routing;

pub use routing::Routes;

use crate::ids::ChanId;
use crate::scenario::schema::NodeKind;

pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    /// Outgoing channels, in link order.
    pub out: Vec<ChanId>,
}
