//! TDMA mesh MAC: a repeating frame of equal slots, each owned by one link direction, in
//! round-robin order. A link sends only inside its own slots, minus a guard time at the end
//! of each; a frame that does not fit in what is left of a slot continues in the link's next
//! slot (fragmentation; the error model judges the packet once, as a whole). Links are
//! point-to-point (directional antennas): slots keep them from interfering, so there are no
//! collisions, only the per-link bit rate and error model.
//!
//! There are no link acknowledgements: a damaged frame is noted for the receiving node (a
//! [`LinkLoss::Damaged`] one propagation delay after the frame ends, which ELN hooks there
//! hear of), never for the sender. The device offers its slot share of the link rate to
//! explicit-rate hooks through its [`DeviceView`].

use super::{DevCtx, DevEv, DevOut, Device, DeviceView, LinkLoss, LossNote};
use crate::engine::{tx_time, Time};
use crate::ids::{DevId, NodeId, PacketId};
use crate::link::ErrorModel;
use crate::medium::Wire;
use crate::packet::DropCause;
use crate::queue::{AnyQueue, Fifo, QueuePolicy, Verdict};
use crate::stats::LinkResult;
use crate::topology::{LinkKind, Node};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use super::p2p::P2pStats;

/// Who owns a slot: one link direction, or one node (whose link directions then share it,
/// one frame at a time: a node has one radio).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    Link(DevId),
    Node(NodeId),
}

/// The slot frame of one TDMA medium.
#[derive(Clone, Debug)]
pub struct Tdma {
    pub name: String,
    pub slot: Time,
    pub guard: Time,
    /// The owner of each slot, in frame order.
    pub owners: Vec<Owner>,
    /// With node-owned slots: when each node's radio is next free.
    pub node_busy: std::collections::BTreeMap<NodeId, Time>,
}

impl Tdma {
    pub fn new(name: String, slot: Time, guard: Time) -> Tdma {
        Tdma {
            name,
            slot,
            guard,
            owners: Vec::new(),
            node_busy: Default::default(),
        }
    }

    pub fn frame(&self) -> Time {
        self.slot * self.owners.len() as Time
    }

    /// Slot indices link direction `dev` of node `node` may send in.
    pub fn slots_of(&self, dev: DevId, node: NodeId) -> Vec<u32> {
        (0..self.owners.len() as u32)
            .filter(|&k| {
                let o = self.owners[k as usize];
                o == Owner::Link(dev) || o == Owner::Node(node)
            })
            .collect()
    }

    /// Share of the time `dev` may send (its slots, less the guard times; with node-owned
    /// slots, its node's, which its other links share).
    pub fn share(&self, dev: DevId, node: NodeId) -> f64 {
        if self.owners.is_empty() {
            return 0.0;
        }
        let n = self.slots_of(dev, node).len() as f64;
        n * (self.slot - self.guard) as f64 / self.frame() as f64
    }

    /// When `need` of sending time, starting no earlier than `t`, is done inside `slots`.
    /// Returns (start, end): the start is the first instant it actually sends.
    pub fn schedule(&self, slots: &[u32], t: Time, need: Time) -> (Time, Time) {
        let frame = self.frame();
        let usable = self.slot - self.guard;
        let mut t = t;
        let mut rem = need;
        let mut start = None;
        loop {
            // The next window of ours that ends after t.
            let base = t / frame * frame;
            let mut best: Option<(Time, Time)> = None;
            for cycle in [base, base + frame] {
                for &k in slots {
                    let ws = cycle + k as Time * self.slot;
                    let we = ws + usable;
                    if we > t && best.is_none_or(|b| ws < b.0) {
                        best = Some((ws, we));
                    }
                }
                if best.is_some() {
                    break;
                }
            }
            let (ws, we) = best.expect("a link with slots has a window in every frame");
            let from = t.max(ws);
            start.get_or_insert(from);
            if rem <= we - from {
                return (start.expect("set"), from + rem);
            }
            rem -= we - from;
            t = we;
        }
    }
}

pub struct TdmaDev {
    pub node: NodeId,
    peer: NodeId,
    delay: Time,
    pub link_name: String,
    pub kind: LinkKind,
    pub rate_bps: u64,
    pub fifo: Fifo,
    pub policy: AnyQueue,
    pub error: ErrorModel,
    pub sched: Rc<RefCell<Tdma>>,
    /// This link's slots (read from the schedule on first use: the schedule is completed
    /// after routing).
    slots: Option<Vec<u32>>,
    tx: Option<PacketId>,
    wire_fifo: VecDeque<(Time, PacketId)>,
    pub stats: P2pStats,
    pub name: String,
}

impl TdmaDev {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        node: NodeId,
        wire: Wire,
        link_name: String,
        kind: LinkKind,
        rate_bps: u64,
        policy: AnyQueue,
        error: ErrorModel,
        sched: Rc<RefCell<Tdma>>,
        name: String,
    ) -> TdmaDev {
        let me = if wire.ends[0].0 == node {
            wire.ends[0].1
        } else {
            wire.ends[1].1
        };
        let (peer, delay) = wire.receiver(me);
        TdmaDev {
            node,
            peer,
            delay,
            link_name,
            kind,
            rate_bps,
            fifo: Fifo::default(),
            policy,
            error,
            sched,
            slots: None,
            tx: None,
            wire_fifo: VecDeque::new(),
            stats: P2pStats::default(),
            name,
        }
    }

    fn note_queue(&mut self, now: Time) {
        self.stats.note_queue(self.fifo.len(), now);
    }

    fn slots(&mut self, me: DevId) -> &[u32] {
        if self.slots.is_none() {
            self.slots = Some(self.sched.borrow().slots_of(me, self.node));
        }
        self.slots.as_deref().expect("set")
    }

    fn start_tx(&mut self, me: DevId, ctx: &mut DevCtx, id: PacketId) {
        let size = ctx.pool.get(id).size as u64;
        let need = tx_time(size, self.rate_bps);
        let slots = self.slots(me).to_vec();
        if slots.is_empty() {
            // Routing never sends here; a hook might. Without a slot it cannot send.
            self.stats.drops[DropCause::NoRoute.index()] += 1;
            ctx.out.push(DevOut::Drop(id, DropCause::NoRoute));
            return;
        }
        let end = {
            let mut sched = self.sched.borrow_mut();
            // A node's links share its radio: a frame waits for the one before it.
            let free = sched.node_busy.get(&self.node).copied().unwrap_or(0);
            let (_, end) = sched.schedule(&slots, ctx.now.max(free), need);
            if sched.owners.contains(&Owner::Node(self.node)) {
                sched.node_busy.insert(self.node, end);
            }
            end
        };
        self.tx = Some(id);
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += size;
        self.stats.busy_time += need;
        *ctx.packet_hops += 1;
        ctx.at(end, me, DevEv::TxDone);
    }

    fn next(&mut self, me: DevId, ctx: &mut DevCtx) {
        while self.tx.is_none() {
            if self.fifo.is_empty() {
                return;
            }
            self.note_queue(ctx.now);
            let id = self.fifo.pop().expect("non-empty");
            self.start_tx(me, ctx, id);
        }
    }
}

impl Device for TdmaDev {
    fn node(&self) -> NodeId {
        self.node
    }

    fn enqueue(&mut self, me: DevId, ctx: &mut DevCtx, id: PacketId, _next_hop: NodeId) {
        let now = ctx.now;
        match self.policy.admit(now, ctx.pool.get_mut(id), &self.fifo) {
            Verdict::Accept => {
                self.note_queue(now);
                let size = ctx.pool.get(id).size;
                self.fifo.push(id, size);
                self.stats.max_queue = self.stats.max_queue.max(self.fifo.len() as u64);
                self.next(me, ctx);
            }
            Verdict::Drop(cause) => {
                self.stats.drops[cause.index()] += 1;
                ctx.out.push(DevOut::Drop(id, cause));
            }
        }
    }

    fn enqueue_front(&mut self, me: DevId, ctx: &mut DevCtx, id: PacketId, _next_hop: NodeId) {
        self.note_queue(ctx.now);
        let size = ctx.pool.get(id).size;
        self.fifo.push_front(id, size);
        self.stats.max_queue = self.stats.max_queue.max(self.fifo.len() as u64);
        self.next(me, ctx);
    }

    fn handle(&mut self, me: DevId, ctx: &mut DevCtx, ev: DevEv) {
        match ev {
            DevEv::TxDone => {
                let id = self.tx.take().expect("TxDone while sending");
                if self.error.corrupts(ctx.now, ctx.pool.get(id), ctx.snr) {
                    // No link acknowledgements: only the receiver learns of it, when the
                    // damaged frame reaches it.
                    ctx.notes.push(LossNote {
                        node: self.peer,
                        at: ctx.now + self.delay,
                        loss: LinkLoss::Damaged { from: self.node },
                        wire: ctx.pool.get(id).wire,
                        next_hop: None,
                    });
                    self.stats.drops[DropCause::ChannelError.index()] += 1;
                    ctx.out.push(DevOut::Drop(id, DropCause::ChannelError));
                } else {
                    let at = ctx.now + self.delay;
                    if self.wire_fifo.is_empty() {
                        ctx.at(at, me, DevEv::Arrive(id));
                    }
                    self.wire_fifo.push_back((at, id));
                }
                self.next(me, ctx);
            }
            DevEv::Arrive(id) => {
                self.wire_fifo.pop_front();
                if let Some(&(at, next)) = self.wire_fifo.front() {
                    ctx.at(at, me, DevEv::Arrive(next));
                }
                ctx.out.push(DevOut::Receive(self.peer, id));
            }
            DevEv::Retry(_) | DevEv::Lost(_) | DevEv::Timer(_) => {}
        }
    }

    fn in_network(&self) -> u64 {
        self.fifo.len() as u64 + u64::from(self.tx.is_some()) + self.wire_fifo.len() as u64
    }

    fn queue_len(&self) -> usize {
        self.fifo.len()
    }

    fn view(&self, me: DevId, now: Time, next_hop: NodeId) -> DeviceView {
        let share = self.sched.borrow().share(me, self.node);
        DeviceView {
            dev: me,
            next_hop,
            rate_bps: self.rate_bps,
            offered_bps: (self.rate_bps as f64 * share) as u64,
            queue_packets: self.fifo.len(),
            queue_bytes: self.fifo.bytes(),
            utilization: if now == 0 {
                0.0
            } else {
                (self.stats.busy_time as f64 / now as f64).min(1.0)
            },
            wireless: self.kind == LinkKind::Wireless,
        }
    }

    fn finish(&mut self, end: Time) {
        self.note_queue(end);
    }

    fn link_result(&self, nodes: &[Node], end: Time) -> Option<LinkResult> {
        Some(self.stats.link_row(
            &self.name,
            &self.link_name,
            &nodes[self.node.idx()].name,
            &nodes[self.peer.idx()].name,
            self.kind,
            self.rate_bps,
            &self.policy,
            end,
        ))
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame3() -> Tdma {
        let mut t = Tdma::new("m".into(), 100, 10);
        t.owners = vec![
            Owner::Link(DevId(0)),
            Owner::Link(DevId(1)),
            Owner::Link(DevId(2)),
        ];
        t
    }

    #[test]
    fn share_is_slots_less_guard_over_frame() {
        let t = frame3();
        assert_eq!(t.frame(), 300);
        assert!((t.share(DevId(1), NodeId(0)) - 90.0 / 300.0).abs() < 1e-12);
        assert_eq!(t.share(DevId(7), NodeId(0)), 0.0);
        // A node-owned slot serves every link direction of the node.
        let mut n = Tdma::new("n".into(), 100, 10);
        n.owners = vec![Owner::Node(NodeId(4)), Owner::Node(NodeId(5))];
        assert_eq!(n.slots_of(DevId(9), NodeId(5)), vec![1]);
        assert!((n.share(DevId(9), NodeId(5)) - 0.45).abs() < 1e-12);
    }

    #[test]
    fn sending_waits_for_the_own_slot_and_pauses_outside_it() {
        let t = frame3();
        // Device 1 owns [100, 190) in each 300 ns frame.
        assert_eq!(t.schedule(&[1], 0, 50), (100, 150));
        assert_eq!(t.schedule(&[1], 120, 50), (120, 170));
        // 80 needed from 150: 40 in this slot, 40 in the next frame's.
        assert_eq!(t.schedule(&[1], 150, 80), (150, 440));
        // Starting inside the guard waits for the next frame.
        assert_eq!(t.schedule(&[1], 195, 10), (400, 410));
        // Exactly filling the usable part ends at the guard.
        assert_eq!(t.schedule(&[1], 100, 90), (100, 190));
    }
}
