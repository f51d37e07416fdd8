//! Router queues, one file per policy. A queue decides, per arriving packet, whether to accept
//! it (possibly rewriting header fields such as ECN codepoints) or drop it.

pub mod droptail;
pub mod mecn;
pub mod red;
pub mod threshold;

pub use droptail::DropTail;
pub use mecn::{Mecn, Wmecn};
pub use red::Red;
pub use threshold::ThresholdMark;

use crate::engine::Time;
use crate::ids::PacketId;
use crate::packet::{DropCause, Packet};
use std::collections::VecDeque;

/// What a queue policy decided for an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Accept,
    Drop(DropCause),
}

/// FIFO storage shared by every policy, with occupancy in packets and bytes.
#[derive(Default)]
pub struct Fifo {
    items: VecDeque<(PacketId, u32)>,
    bytes: u64,
}

impl Fifo {
    pub fn push(&mut self, id: PacketId, size: u32) {
        self.items.push_back((id, size));
        self.bytes += size as u64;
    }
    /// Put a packet at the head (a local retransmission that must go first).
    pub fn push_front(&mut self, id: PacketId, size: u32) {
        self.items.push_front((id, size));
        self.bytes += size as u64;
    }
    pub fn pop(&mut self) -> Option<PacketId> {
        let (id, size) = self.items.pop_front()?;
        self.bytes -= size as u64;
        Some(id)
    }
    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    pub fn iter(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.items.iter().map(|(id, _)| *id)
    }
}

/// Queue policies, dispatched by enum (fast, and every policy is visible in one place).
pub enum QueuePolicy {
    DropTail(DropTail),
    ThresholdMark(ThresholdMark),
    Red(Box<Red>),
    Mecn(Box<Mecn>),
    Wmecn(Box<Wmecn>),
}

/// Marks and early drops a policy made: (marks '10', marks '11' or CE, AQM drops).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MarkCounts {
    pub mild: u64,
    pub severe: u64,
    pub early_drops: u64,
}

impl QueuePolicy {
    /// Decide on `pkt` arriving at a queue holding `fifo`; may rewrite header fields.
    pub fn admit(&mut self, now: Time, pkt: &mut Packet, fifo: &Fifo) -> Verdict {
        match self {
            QueuePolicy::DropTail(q) => q.admit(now, pkt, fifo),
            QueuePolicy::ThresholdMark(q) => q.admit(now, pkt, fifo),
            QueuePolicy::Red(q) => q.admit(now, pkt, fifo),
            QueuePolicy::Mecn(q) => q.admit(now, pkt, fifo),
            QueuePolicy::Wmecn(q) => q.admit(now, pkt, fifo),
        }
    }

    /// The channel went idle (nothing queued or sending) at `now`: RED-family averages decay
    /// over idle time.
    pub fn on_idle(&mut self, now: Time) {
        match self {
            QueuePolicy::DropTail(_) | QueuePolicy::ThresholdMark(_) => {}
            QueuePolicy::Red(q) => q.est.on_idle(now),
            QueuePolicy::Mecn(q) => q.est.on_idle(now),
            QueuePolicy::Wmecn(q) => q.est.on_idle(now),
        }
    }

    /// The RED-family average queue, for policies that keep one.
    pub fn average(&self) -> Option<f64> {
        match self {
            QueuePolicy::DropTail(_) | QueuePolicy::ThresholdMark(_) => None,
            QueuePolicy::Red(q) => Some(q.est.avg),
            QueuePolicy::Mecn(q) => Some(q.est.avg),
            QueuePolicy::Wmecn(q) => Some(q.est.avg),
        }
    }

    /// Marks by level and early drops so far.
    pub fn marks(&self) -> MarkCounts {
        match self {
            QueuePolicy::DropTail(_) => MarkCounts::default(),
            QueuePolicy::ThresholdMark(q) => MarkCounts {
                severe: q.marked,
                ..Default::default()
            },
            QueuePolicy::Red(q) => MarkCounts {
                mild: 0,
                severe: q.marked,
                early_drops: q.early_drops,
            },
            QueuePolicy::Mecn(q) => q.counts,
            QueuePolicy::Wmecn(q) => q.counts,
        }
    }

    /// Packets this policy marked (any level).
    pub fn ecn_marks(&self) -> u64 {
        let m = self.marks();
        m.mild + m.severe
    }
}
