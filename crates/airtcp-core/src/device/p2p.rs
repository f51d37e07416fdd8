//! Point-to-point device: one direction of a link. A transmitter serializes one frame at a
//! time at the link rate, an interface queue with its admission policy holds the rest, the
//! error model may corrupt a frame, optional selective-repeat ARQ resends corrupted frames,
//! and the wire delivers to the node at the other end after the propagation delay.

use super::{DevCtx, DevEv, DevOut, Device, DeviceView};
use crate::engine::{tx_time, Time};
use crate::ids::{DevId, NodeId, PacketId};
use crate::link::ErrorModel;
use crate::medium::Wire;
use crate::packet::DropCause;
use crate::queue::{Fifo, QueuePolicy, Verdict};
use crate::stats::LinkResult;
use crate::topology::{LinkKind, Node};

/// Per-direction counters.
#[derive(Clone, Debug, Default)]
pub struct P2pStats {
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

impl P2pStats {
    /// The `links` table row of a link direction with these counters.
    #[allow(clippy::too_many_arguments)]
    pub fn link_row(
        &self,
        name: &str,
        link: &str,
        from: &str,
        to: &str,
        kind: LinkKind,
        rate_bps: u64,
        policy: &dyn QueuePolicy,
        end: Time,
    ) -> LinkResult {
        LinkResult {
            name: name.to_string(),
            link: link.to_string(),
            from: from.to_string(),
            to: to.to_string(),
            kind: kind.name(),
            rate_bps,
            // Busy time counts whole transmissions, some of which may end after the run
            // stops; cap at 1.
            utilization: (self.busy_time as f64 / end.max(1) as f64).min(1.0),
            tx_packets: self.tx_packets,
            tx_bytes: self.tx_bytes,
            mean_queue_packets: self.queue_area as f64 / end.max(1) as f64,
            max_queue_packets: self.max_queue,
            drops_queue_overflow: self.drops[DropCause::QueueOverflow.index()],
            drops_aqm: self.drops[DropCause::Aqm.index()],
            drops_channel_error: self.drops[DropCause::ChannelError.index()],
            ecn_marks: policy.ecn_marks(),
            ecn_marks_mild: policy.marks().mild,
            ecn_marks_severe: policy.marks().severe,
            red_avg_queue: policy.average(),
            arq_retransmissions: self.arq_retransmissions,
        }
    }

    /// Account for a queue of `len` packets changing at `now` (call before the change).
    #[inline]
    pub fn note_queue(&mut self, len: usize, now: Time) {
        let dt = now.saturating_sub(self.queue_last_change) as u128;
        self.queue_area += len as u128 * dt;
        self.queue_last_change = now;
    }
}

/// Link-layer retransmission (per-hop ARQ).
#[derive(Clone, Copy, Debug)]
pub struct Arq {
    /// Retransmissions allowed after the first attempt.
    pub retry_limit: u8,
    /// Serialization time of the link-level ACK, charged to every frame.
    pub ack_time: Time,
}

pub struct P2p {
    pub node: NodeId,
    pub wire: Wire,
    /// Who the wire delivers to, and after how long (asked once: a wire does not change).
    peer: NodeId,
    delay: Time,
    pub link_name: String,
    pub kind: LinkKind,
    pub rate_bps: u64,
    pub fifo: Fifo,
    pub policy: Box<dyn QueuePolicy>,
    pub error: ErrorModel,
    pub arq: Option<Arq>,
    /// Frame being serialized, if any.
    pub tx: Option<PacketId>,
    /// The policy keeps an average that decays while the link is idle (RED family).
    idle_hook: bool,
    /// Frames on the wire with their arrival times, in order (the delay is constant, so they
    /// arrive in the order they left); only the head has an event.
    wire_fifo: std::collections::VecDeque<(Time, PacketId)>,
    /// Frames waiting for an ARQ resend.
    awaiting_retry: u64,
    pub stats: P2pStats,
    pub name: String,
}

impl P2p {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        node: NodeId,
        wire: Wire,
        link_name: String,
        kind: LinkKind,
        rate_bps: u64,
        policy: Box<dyn QueuePolicy>,
        error: ErrorModel,
        arq: Option<Arq>,
        name: String,
    ) -> P2p {
        let me = if wire.ends[0].0 == node {
            wire.ends[0].1
        } else {
            wire.ends[1].1
        };
        let (peer, delay) = wire.receiver(me);
        P2p {
            node,
            wire,
            peer,
            delay,
            link_name,
            kind,
            rate_bps,
            fifo: Fifo::default(),
            idle_hook: policy.tracks_idle(),
            policy,
            error,
            arq,
            tx: None,
            wire_fifo: std::collections::VecDeque::new(),
            awaiting_retry: 0,
            stats: P2pStats::default(),
            name,
        }
    }

    /// Account for the queue length changing at `now` (call before the change).
    #[inline]
    fn note_queue(&mut self, now: Time) {
        self.stats.note_queue(self.fifo.len(), now);
    }

    #[inline]
    fn idle(&self) -> bool {
        self.tx.is_none() && self.fifo.is_empty()
    }

    fn drop(&mut self, ctx: &mut DevCtx, id: PacketId, cause: DropCause) {
        self.stats.drops[cause.index()] += 1;
        ctx.out.push(DevOut::Drop(id, cause));
    }

    #[inline]
    fn start_tx(&mut self, me: DevId, ctx: &mut DevCtx, id: PacketId) {
        let size = ctx.pool.get(id).size as u64;
        // With ARQ every frame also holds the medium for its link-level ACK.
        let dt = tx_time(size, self.rate_bps) + self.arq.map_or(0, |a| a.ack_time);
        self.tx = Some(id);
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += size;
        self.stats.busy_time += dt;
        *ctx.packet_hops += 1;
        ctx.at(ctx.now + dt, me, DevEv::TxDone);
    }

    #[inline]
    fn on_tx_done(&mut self, me: DevId, ctx: &mut DevCtx) {
        let now = ctx.now;
        let id = self.tx.take().expect("TxDone on an idle device");
        if self.error.corrupts(now, ctx.pool.get(id), ctx.snr) {
            let tries = ctx.pool.get(id).meta.link_tries;
            match self.arq {
                Some(arq) if tries < arq.retry_limit => {
                    // The link ACK does not come: resend after the ACK timeout (one round
                    // trip on the link), ahead of the queue, while other frames go on.
                    ctx.pool.get_mut(id).meta.link_tries = tries + 1;
                    self.stats.arq_retransmissions += 1;
                    self.awaiting_retry += 1;
                    let wait = 2 * self.delay + arq.ack_time;
                    ctx.at(now + wait, me, DevEv::Retry(id));
                }
                _ => self.drop(ctx, id, DropCause::ChannelError),
            }
        } else {
            let at = now + self.delay;
            if self.wire_fifo.is_empty() {
                ctx.at(at, me, DevEv::Arrive(id));
            }
            self.wire_fifo.push_back((at, id));
        }
        if !self.fifo.is_empty() {
            self.note_queue(now);
            let next = self.fifo.pop().expect("non-empty");
            self.start_tx(me, ctx, next);
        } else if self.idle_hook {
            self.policy.on_idle(now);
        }
    }
}

impl Device for P2p {
    fn node(&self) -> NodeId {
        self.node
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    #[inline]
    fn enqueue(&mut self, me: DevId, ctx: &mut DevCtx, id: PacketId, _next_hop: NodeId) {
        let now = ctx.now;
        // Every arrival goes through the policy, even to an idle link: RED-family averages
        // count it, and an average above threshold marks it.
        match self.policy.admit(now, ctx.pool.get_mut(id), &self.fifo) {
            Verdict::Accept if self.idle() => self.start_tx(me, ctx, id),
            Verdict::Accept => {
                self.note_queue(now);
                let size = ctx.pool.get(id).size;
                self.fifo.push(id, size);
                self.stats.max_queue = self.stats.max_queue.max(self.fifo.len() as u64);
            }
            Verdict::Drop(cause) => self.drop(ctx, id, cause),
        }
    }

    #[inline]
    fn enqueue_front(&mut self, me: DevId, ctx: &mut DevCtx, id: PacketId, _next_hop: NodeId) {
        if self.idle() {
            self.start_tx(me, ctx, id);
        } else {
            self.note_queue(ctx.now);
            let size = ctx.pool.get(id).size;
            self.fifo.push_front(id, size);
            self.stats.max_queue = self.stats.max_queue.max(self.fifo.len() as u64);
        }
    }

    #[inline]
    fn handle(&mut self, me: DevId, ctx: &mut DevCtx, ev: DevEv) {
        match ev {
            DevEv::TxDone => self.on_tx_done(me, ctx),
            DevEv::Arrive(id) => {
                let head = self.wire_fifo.pop_front();
                debug_assert_eq!(head.map(|h| h.1), Some(id));
                if let Some(&(at, next)) = self.wire_fifo.front() {
                    ctx.at(at, me, DevEv::Arrive(next));
                }
                if self.arq.is_some() {
                    // Tries count per hop; only ARQ counts them.
                    ctx.pool.get_mut(id).meta.link_tries = 0;
                }
                ctx.out.push(DevOut::Receive(self.peer, id));
            }
            DevEv::Retry(id) => {
                self.awaiting_retry -= 1;
                self.enqueue_front(me, ctx, id, self.peer);
            }
            DevEv::Timer(_) => {}
        }
    }

    fn in_network(&self) -> u64 {
        self.fifo.len() as u64
            + u64::from(self.tx.is_some())
            + self.wire_fifo.len() as u64
            + self.awaiting_retry
    }

    fn queue_len(&self) -> usize {
        self.fifo.len()
    }

    fn view(&self, me: DevId, now: Time, next_hop: NodeId) -> DeviceView {
        DeviceView {
            dev: me,
            next_hop,
            rate_bps: self.rate_bps,
            offered_bps: self.rate_bps,
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

    fn snr_series(&self) -> Option<usize> {
        match self.error.kind {
            crate::link::ErrorKind::Snr { series, .. } => Some(series),
            _ => None,
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
            &*self.policy,
            end,
        ))
    }
}
