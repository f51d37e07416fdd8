//! Router queues, one file per policy. A queue decides, per arriving packet, whether to accept
//! it (possibly rewriting header fields such as ECN codepoints) or drop it.

pub mod droptail;
pub mod threshold;

pub use droptail::DropTail;
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
}

impl QueuePolicy {
    /// Decide on `pkt` arriving at a queue holding `fifo`; may rewrite header fields.
    pub fn admit(&mut self, now: Time, pkt: &mut Packet, fifo: &Fifo) -> Verdict {
        match self {
            QueuePolicy::DropTail(q) => q.admit(now, pkt, fifo),
            QueuePolicy::ThresholdMark(q) => q.admit(now, pkt, fifo),
        }
    }

    /// Packets this policy marked CE.
    pub fn ecn_marks(&self) -> u64 {
        match self {
            QueuePolicy::DropTail(_) => 0,
            QueuePolicy::ThresholdMark(q) => q.marked,
        }
    }
}
