//! Links. A point-to-point link is two independent channels (one per direction), each with a
//! transmitter, a queue and an error model. Shared-medium MACs (TDMA, CSMA/CA) will be further
//! `LinkKind`s whose channels contend for a medium.

pub mod error;
pub mod modulation;
pub mod snr;

pub use error::{ErrorKind, ErrorModel};
pub use modulation::Modulation;
pub use snr::{SnrSeries, SnrSynth};

use crate::engine::Time;
use crate::ids::{LinkId, NodeId, PacketId};
use crate::packet::DropCause;
use crate::queue::{Fifo, QueuePolicy};
use crate::scenario::schema::LinkKind;

/// Per-channel counters.
#[derive(Clone, Debug, Default)]
pub struct ChanStats {
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub busy_time: Time,
    pub drops: [u64; DropCause::ALL.len()],
    /// Integral of queue length (packets) over time, for the time-averaged queue.
    pub queue_area: u128,
    pub queue_last_change: Time,
    pub max_queue: u64,
    /// Link-layer retransmissions (ARQ).
    pub arq_retransmissions: u64,
}

/// Link-layer retransmission (per-hop ARQ) of a channel.
#[derive(Clone, Copy, Debug)]
pub struct Arq {
    /// Retransmissions allowed after the first attempt.
    pub retry_limit: u8,
    /// Serialization time of the link-level ACK, charged to every frame.
    pub ack_time: Time,
}

/// One direction of a link.
pub struct Channel {
    pub link: LinkId,
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: Time,
    pub fifo: Fifo,
    pub policy: QueuePolicy,
    pub error: ErrorModel,
    pub arq: Option<Arq>,
    /// Packet being serialized, if any.
    pub tx: Option<PacketId>,
    pub stats: ChanStats,
    pub name: String,
}

impl Channel {
    /// Account for the queue length changing at `now` (call before the change).
    pub fn note_queue(&mut self, now: Time) {
        let len = self.fifo.len() as u128;
        let dt = now.saturating_sub(self.stats.queue_last_change) as u128;
        self.stats.queue_area += len * dt;
        self.stats.queue_last_change = now;
    }
}

pub struct Link {
    pub name: String,
    pub kind: LinkKind,
    pub a: NodeId,
    pub b: NodeId,
}
