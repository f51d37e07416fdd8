//! Router queues, one file per policy. A queue decides, per arriving packet, whether to accept
//! it (possibly rewriting header fields such as ECN codepoints) or drop it.

pub mod cw;
pub mod droptail;
pub mod mecn;
pub mod red;
pub mod threshold;

pub use cw::CongestionWarning;
pub use droptail::DropTail;
pub use mecn::{Mecn, Wmecn};
pub use red::Red;
pub use threshold::ThresholdMark;

use crate::engine::Time;
use crate::ids::PacketId;
use crate::packet::{DropCause, Wire};
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
    /// Packets with their sizes, head first.
    pub fn items(&self) -> impl Iterator<Item = &(PacketId, u32)> + '_ {
        self.items.iter()
    }
    pub fn iter(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.items.iter().map(|(id, _)| *id)
    }
}

/// Marks and early drops a policy made: (marks '10', marks '11' or CE, AQM drops).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MarkCounts {
    pub mild: u64,
    pub severe: u64,
    pub early_drops: u64,
}

/// An interface queue's admission policy. Adding a kind: one file implementing this trait,
/// one variant in `scenario::schema::QueueSpec`, one arm in `scenario::build::queue_policy`.
pub trait QueuePolicy {
    /// Decide on `pkt` arriving at a queue holding `fifo`; may rewrite header fields (ECN
    /// codepoints, rate fields). Called for every arrival, also one that finds the link idle.
    fn admit(&mut self, now: Time, pkt: &mut Wire, fifo: &Fifo) -> Verdict;

    /// The link went idle (nothing queued or sending) at `now`: RED-family averages decay
    /// over idle time.
    fn on_idle(&mut self, _now: Time) {}

    /// The policy wants `on_idle` (the device skips the call otherwise).
    fn tracks_idle(&self) -> bool {
        false
    }

    /// On a point-to-point link, a packet whose transmission starts at the very instant of
    /// an arrival is still in `fifo` when the arrival is admitted, as in ns-3, which handles
    /// events of equal time in the order they were scheduled (the arrival, scheduled a link
    /// delay earlier, before the device's dequeue). By default the transmission starts first.
    fn counts_starting(&self) -> bool {
        false
    }

    /// The RED-family average queue, for policies that keep one.
    fn average(&self) -> Option<f64> {
        None
    }

    /// Marks by level and early drops so far.
    fn marks(&self) -> MarkCounts {
        MarkCounts::default()
    }

    /// Packets this policy marked (any level).
    fn ecn_marks(&self) -> u64 {
        let m = self.marks();
        m.mild + m.severe
    }
}

/// A device's queue policy. DropTail, by far the most common, is held inline: every arriving
/// packet consults the policy, and inline it costs no indirect call and no allocation of
/// its own per link direction.
pub enum AnyQueue {
    DropTail(DropTail),
    Other(Box<dyn QueuePolicy>),
}

impl AnyQueue {
    #[inline]
    fn get(&self) -> &dyn QueuePolicy {
        match self {
            AnyQueue::DropTail(q) => q,
            AnyQueue::Other(q) => &**q,
        }
    }
}

impl QueuePolicy for AnyQueue {
    #[inline]
    fn admit(&mut self, now: Time, pkt: &mut Wire, fifo: &Fifo) -> Verdict {
        match self {
            AnyQueue::DropTail(q) => q.admit(now, pkt, fifo),
            AnyQueue::Other(q) => q.admit(now, pkt, fifo),
        }
    }

    #[inline]
    fn on_idle(&mut self, now: Time) {
        match self {
            AnyQueue::DropTail(q) => q.on_idle(now),
            AnyQueue::Other(q) => q.on_idle(now),
        }
    }

    fn tracks_idle(&self) -> bool {
        self.get().tracks_idle()
    }

    #[inline]
    fn counts_starting(&self) -> bool {
        // Asked at every enqueue: no virtual call for the common DropTail.
        match self {
            AnyQueue::DropTail(_) => false,
            AnyQueue::Other(q) => q.counts_starting(),
        }
    }

    fn average(&self) -> Option<f64> {
        self.get().average()
    }

    fn marks(&self) -> MarkCounts {
        self.get().marks()
    }

    fn ecn_marks(&self) -> u64 {
        self.get().ecn_marks()
    }
}
