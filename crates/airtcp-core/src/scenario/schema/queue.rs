//! A link's or medium's `queue` table: the kind and its parameters, and the reading that
//! names the kind a stray key was given to.

use crate::scenario::tagged::{split_inner_path, with_inner_path};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum QueueUnit {
    #[default]
    Packets,
    Bytes,
}

tagged_enum! {
    /// A link's interface queue: its kind and the kind's parameters (`kind` defaults to
    /// `droptail`). Adding a kind is one variant here and one arm in `build::queue_policy`; a
    /// key the kind does not take is an error naming it.
    pub enum QueueSpec (tag = "kind") {
        Droptail = "droptail" {
            #[serde(default = "default_queue_limit")]
            limit: u64,
            #[serde(default)]
            unit: QueueUnit,
        },
        /// Step ECN marking above a fixed occupancy.
        EcnThreshold = "ecn_threshold" {
            #[serde(default = "default_queue_limit")]
            limit: u64,
            #[serde(default)]
            unit: QueueUnit,
            mark_threshold: u64,
            /// A packet whose transmission starts at the arrival's instant still counts.
            #[serde(default)]
            count_starting: bool,
        },
        Red = "red" {
            #[serde(default = "default_queue_limit")]
            limit: u64,
            #[serde(default)]
            unit: QueueUnit,
            min_threshold: Option<f64>,
            max_threshold: Option<f64>,
            max_p: Option<f64>,
            weight: Option<f64>,
            mean_packet_size: Option<u32>,
            gentle: Option<bool>,
            ecn: Option<bool>,
        },
        Mecn = "mecn" {
            #[serde(default = "default_queue_limit")]
            limit: u64,
            #[serde(default)]
            unit: QueueUnit,
            min_threshold: Option<f64>,
            max_threshold: Option<f64>,
            max_p: Option<f64>,
            weight: Option<f64>,
            mean_packet_size: Option<u32>,
            mid_threshold: Option<f64>,
            max_p2: Option<f64>,
        },
        Wmecn = "wmecn" {
            #[serde(default = "default_queue_limit")]
            limit: u64,
            #[serde(default)]
            unit: QueueUnit,
            min_threshold: Option<f64>,
            max_threshold: Option<f64>,
            max_p: Option<f64>,
            weight: Option<f64>,
            mean_packet_size: Option<u32>,
            mid_threshold: Option<f64>,
        },
        /// Congestion warning (TCP Jersey): every ECN-capable packet marked CE while the
        /// average queue is at or above `threshold`.
        Cw = "cw" {
            #[serde(default = "default_queue_limit")]
            limit: u64,
            #[serde(default)]
            unit: QueueUnit,
            threshold: Option<f64>,
            weight: Option<f64>,
            mean_packet_size: Option<u32>,
        },
    }
}

/// Parameters the RED family shares: thresholds on the average queue in the queue's unit,
/// the mark/drop probability at max, the EWMA weight w_q, and the packet size that turns
/// idle time into packets (and thresholds into bytes for a byte queue).
#[derive(Clone, Copy, Debug, Default)]
pub struct RedParams {
    pub min_threshold: Option<f64>,
    pub mid_threshold: Option<f64>,
    pub max_threshold: Option<f64>,
    pub max_p: Option<f64>,
    pub weight: Option<f64>,
    pub mean_packet_size: Option<u32>,
}

impl QueueSpec {
    /// The RED-family parameters of a red, mecn or wmecn queue.
    pub fn red_params(&self) -> Option<RedParams> {
        match *self {
            QueueSpec::Red {
                min_threshold,
                max_threshold,
                max_p,
                weight,
                mean_packet_size,
                ..
            } => Some(RedParams {
                min_threshold,
                mid_threshold: None,
                max_threshold,
                max_p,
                weight,
                mean_packet_size,
            }),
            QueueSpec::Mecn {
                min_threshold,
                mid_threshold,
                max_threshold,
                max_p,
                weight,
                mean_packet_size,
                ..
            }
            | QueueSpec::Wmecn {
                min_threshold,
                mid_threshold,
                max_threshold,
                max_p,
                weight,
                mean_packet_size,
                ..
            } => Some(RedParams {
                min_threshold,
                mid_threshold,
                max_threshold,
                max_p,
                weight,
                mean_packet_size,
            }),
            _ => None,
        }
    }

    pub fn limit(&self) -> u64 {
        match self {
            QueueSpec::Droptail { limit, .. }
            | QueueSpec::EcnThreshold { limit, .. }
            | QueueSpec::Red { limit, .. }
            | QueueSpec::Mecn { limit, .. }
            | QueueSpec::Wmecn { limit, .. }
            | QueueSpec::Cw { limit, .. } => *limit,
        }
    }

    pub fn unit(&self) -> QueueUnit {
        match self {
            QueueSpec::Droptail { unit, .. }
            | QueueSpec::EcnThreshold { unit, .. }
            | QueueSpec::Red { unit, .. }
            | QueueSpec::Mecn { unit, .. }
            | QueueSpec::Wmecn { unit, .. }
            | QueueSpec::Cw { unit, .. } => *unit,
        }
    }

    pub fn kind_name(&self) -> &'static str {
        match self {
            QueueSpec::Droptail { .. } => "droptail",
            QueueSpec::EcnThreshold { .. } => "ecn_threshold",
            QueueSpec::Red { .. } => "red",
            QueueSpec::Mecn { .. } => "mecn",
            QueueSpec::Wmecn { .. } => "wmecn",
            QueueSpec::Cw { .. } => "cw",
        }
    }
}

fn default_queue_limit() -> u64 {
    100
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec::Droptail {
            limit: default_queue_limit(),
            unit: QueueUnit::Packets,
        }
    }
}

/// A queue table without `kind` is a DropTail queue; a key its kind does not take is
/// reported with the kind and the keys it does take.
pub(super) fn queue_spec<'de, D: serde::Deserializer<'de>>(d: D) -> Result<QueueSpec, D::Error> {
    use serde::de::Error;
    let mut v = serde_json::Value::deserialize(d)?;
    let kind = match v.as_object_mut() {
        Some(m) => m
            .entry("kind")
            .or_insert_with(|| "droptail".into())
            .as_str()
            .unwrap_or("?")
            .to_string(),
        None => {
            return Err(D::Error::custom(
                "expected a table such as { kind = \"droptail\", limit = 100 }",
            ))
        }
    };
    QueueSpec::deserialize(v).map_err(|e| {
        let whole = e.to_string();
        let (inner, msg) = split_inner_path(&whole).unwrap_or(("", &whole));
        // "unknown field `x`, expected ..." -> say which kind refused it.
        let msg = match msg
            .strip_prefix("unknown field `")
            .and_then(|r| r.split_once('`'))
        {
            Some((field, rest)) => {
                let takes = rest
                    .trim_start_matches(", expected ")
                    .replace("one of ", "");
                format!(
                    "unknown field `{field}`: a {kind} queue does not take it (it takes {takes})"
                )
            }
            None => msg.to_string(),
        };
        D::Error::custom(with_inner_path(inner, &msg))
    })
}

pub(super) fn queue_spec_opt<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<QueueSpec>, D::Error> {
    queue_spec(d).map(Some)
}
