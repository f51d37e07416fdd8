//! Point-to-point device: one direction of a link. A transmitter serializes one frame at a
//! time at the link rate, an interface queue with its admission policy holds the rest, the
//! error model may corrupt a frame, optional selective-repeat ARQ resends corrupted frames,
//! and the wire delivers to the node at the other end after the propagation delay.
//!
//! Without ARQ, and unless a hook of the node puts packets ahead of the queue, the device
//! schedules each frame when it accepts it: a link serializes frames one after another in the
//! order they were queued, so a frame's start is the end of the one before (or now, on an
//! idle link), and its fate (corrupted or not, decided at the end of its serialization as
//! always) and arrival time follow. The transmitter then needs no event of its own: the queue
//! is brought up to date (frames whose start has come leave it) whenever it is looked at, and
//! a frame has one event, its arrival at the other end (or, if corrupted, its loss at the end
//! of its serialization). At equal times a transmission's end comes before anything else.
//! With ARQ (a corrupted frame goes back ahead of the queue) or a hook that sends ahead of
//! the queue, a frame's start cannot be known when it is queued, and the transmitter has a
//! transmission-done event per frame.

use super::{DevCtx, DevEv, DevOut, DevSched, Device, DeviceView, LinkLoss, LossNote};
use crate::engine::{tx_time, Time};
use crate::ids::{DevId, NodeId, PacketId};
use crate::link::ErrorModel;
use crate::medium::Wire;
use crate::packet::{DropCause, PacketList};
use crate::queue::{AnyQueue, Fifo, QueuePolicy, Verdict};
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
    /// Who the wire delivers to, and after how long (asked once: a wire does not change).
    peer: NodeId,
    delay: Time,
    pub link_name: Box<str>,
    pub kind: LinkKind,
    pub rate_bps: u64,
    pub fifo: Fifo,
    pub policy: AnyQueue,
    pub error: ErrorModel,
    pub arq: Option<Arq>,
    /// Frame being serialized, if any.
    pub tx: Option<PacketId>,
    /// The policy keeps an average that decays while the link is idle (RED family).
    idle_hook: bool,
    /// Frames on the wire, each with its arrival time (`Meta::due`), in order (the delay is
    /// constant, so they arrive in the order they left); only the head has an event.
    wire_fifo: PacketList,
    /// Frames waiting for an ARQ resend.
    awaiting_retry: u32,
    /// Frames are scheduled when accepted (no transmission-done events); see the module text.
    scheduled: bool,
    /// Scheduled mode: the start of each frame in `fifo`, in order (its serialization time
    /// follows from its size).
    starts: std::collections::VecDeque<Time>,
    /// Scheduled mode: the end of the last accepted frame's serialization.
    busy_until: Time,
    /// Scheduled mode: the policy has heard of the idle period that began at `busy_until`.
    idle_told: bool,
    /// Scheduled mode: corrupted frames whose loss event is pending.
    lost_pending: u32,
    /// The size of the last frame accepted and its serialization time.
    last_size: u32,
    last_tx_time: Time,
    pub stats: P2pStats,
    pub name: Box<str>,
}

impl P2p {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        node: NodeId,
        wire: Wire,
        link_name: String,
        kind: LinkKind,
        rate_bps: u64,
        policy: AnyQueue,
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
            peer,
            delay,
            link_name: link_name.into(),
            kind,
            rate_bps,
            fifo: Fifo::default(),
            idle_hook: policy.tracks_idle(),
            policy,
            error,
            arq,
            tx: None,
            wire_fifo: PacketList::default(),
            awaiting_retry: 0,
            scheduled: arq.is_none(),
            starts: std::collections::VecDeque::new(),
            busy_until: 0,
            idle_told: true,
            lost_pending: 0,
            last_size: u32::MAX,
            last_tx_time: 0,
            stats: P2pStats::default(),
            name: name.into(),
        }
    }

    /// Give every frame a transmission-done event (needed when packets may be put ahead of
    /// the queue). The device must carry nothing at that moment: frames already scheduled
    /// cannot be taken back.
    pub fn keep_transmission_events(&mut self) {
        if !self.scheduled {
            return;
        }
        assert!(
            self.wire_fifo.is_empty() && self.fifo.is_empty() && self.lost_pending == 0,
            "{}: frames are scheduled on this link already; add hooks that send ahead of the \
             queue before the run starts",
            self.name
        );
        self.scheduled = false;
    }

    /// Whether frames are scheduled when accepted (no transmission-done events).
    pub fn schedules_on_accept(&self) -> bool {
        self.scheduled
    }

    /// Scheduled mode: frames whose start has come (at `now`, or before it with `strict`)
    /// leave the queue, as a transmission-done event would have taken them out of it.
    #[inline]
    fn settle(&mut self, now: Time, strict: bool) {
        while let Some(&start) = self.starts.front() {
            if start > now || (strict && start == now) {
                break;
            }
            self.stats.note_queue(self.fifo.len(), start);
            self.fifo.pop();
            self.starts.pop_front();
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

    fn drop<S: DevSched + ?Sized>(&mut self, ctx: &mut DevCtx<S>, id: PacketId, cause: DropCause) {
        self.stats.drops[cause.index()] += 1;
        ctx.out.push(DevOut::Drop(id, cause));
    }

    /// The far end's receiver will see frame `id` arrive damaged, `at` (one propagation
    /// delay after its serialization ended). Only on a link without ARQ, where a damaged
    /// frame is a lost packet; with ARQ the sender's give-up is the loss.
    fn damaged<S: DevSched + ?Sized>(&self, ctx: &mut DevCtx<S>, id: PacketId, at: Time) {
        ctx.notes.push(LossNote {
            node: self.peer,
            at,
            loss: LinkLoss::Damaged { from: self.node },
            wire: ctx.pool.get(id).wire,
            next_hop: None,
        });
    }

    #[inline]
    fn start_tx<S: DevSched + ?Sized>(&mut self, me: DevId, ctx: &mut DevCtx<S>, id: PacketId) {
        let size = ctx.pool.get(id).size as u64;
        // With ARQ every frame also holds the medium for its link-level ACK.
        let dt = tx_time(size, self.rate_bps) + self.arq.map_or(0, |a| a.ack_time);
        self.tx = Some(id);
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += size;
        self.stats.busy_time += dt;
        *ctx.packet_hops += 1;
        ctx.at_end(ctx.now + dt, me, DevEv::TxDone);
    }

    #[inline]
    fn on_tx_done<S: DevSched + ?Sized>(&mut self, me: DevId, ctx: &mut DevCtx<S>) {
        let now = ctx.now;
        let id = self.tx.take().expect("TxDone on an idle device");
        if self.error.corrupts(now, ctx.pool.get(id), ctx.snr) {
            if self.arq.is_none() {
                self.damaged(ctx, id, now + self.delay);
            }
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
                Some(arq) => {
                    // The sender learns it gave up when the last ACK timeout runs out.
                    ctx.notes.push(LossNote {
                        node: self.node,
                        at: now + 2 * self.delay + arq.ack_time,
                        loss: LinkLoss::GaveUp(me),
                        wire: ctx.pool.get(id).wire,
                        next_hop: None,
                    });
                    self.drop(ctx, id, DropCause::ChannelError);
                }
                None => self.drop(ctx, id, DropCause::ChannelError),
            }
        } else {
            let at = now + self.delay;
            if self.wire_fifo.is_empty() {
                ctx.at_arrival(at, me, DevEv::Arrive(id));
            }
            self.wire_fifo.push_back(ctx.pool, id, at);
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

impl P2p {
    /// Accept (or not) a frame and schedule it: its start, its end, and then its loss or its
    /// arrival at the other end.
    #[inline]
    fn enqueue_scheduled<S: DevSched + ?Sized>(
        &mut self,
        me: DevId,
        ctx: &mut DevCtx<S>,
        id: PacketId,
    ) {
        let now = ctx.now;
        // A transmission starting now leaves the queue first, unless the policy counts it
        // (ns-3's order); it goes at the next settle either way.
        self.settle(now, self.policy.counts_starting());
        let idle = self.busy_until <= now;
        if idle && !self.idle_told {
            // The link went idle when its last frame ended.
            self.idle_told = true;
            if self.idle_hook {
                self.policy.on_idle(self.busy_until);
            }
        }
        match self.policy.admit(now, ctx.pool.get_mut(id), &self.fifo) {
            Verdict::Accept => {
                let size = ctx.pool.get(id).size;
                // A link direction mostly carries one size (segments one way, ACKs the
                // other): the last one's time saves a division.
                let dt = if size == self.last_size {
                    self.last_tx_time
                } else {
                    self.last_size = size;
                    self.last_tx_time = tx_time(size as u64, self.rate_bps);
                    self.last_tx_time
                };
                let start = if idle {
                    now
                } else {
                    self.note_queue(now);
                    self.fifo.push(id, size);
                    self.starts.push_back(self.busy_until);
                    self.stats.max_queue = self.stats.max_queue.max(self.fifo.len() as u64);
                    self.busy_until
                };
                let end = start + dt;
                self.busy_until = end;
                self.idle_told = false;
                self.stats.tx_packets += 1;
                self.stats.tx_bytes += size as u64;
                self.stats.busy_time += dt;
                *ctx.packet_hops += 1;
                if self.error.corrupts(end, ctx.pool.get(id), ctx.snr) {
                    self.lost_pending += 1;
                    ctx.at_end(end, me, DevEv::Lost(id));
                } else {
                    let at = end + self.delay;
                    if self.wire_fifo.is_empty() {
                        ctx.at_arrival(at, me, DevEv::Arrive(id));
                    }
                    self.wire_fifo.push_back(ctx.pool, id, at);
                }
            }
            Verdict::Drop(cause) => self.drop(ctx, id, cause),
        }
    }
}

impl P2p {
    /// Frame `id`, the head of the wire, reaches the far end: the node it is delivered to.
    /// (The engine calls this directly for the arrival events of point-to-point links, the
    /// most common event there is, rather than through `handle` and the report buffer.)
    #[inline(always)]
    pub fn arrive<S: DevSched + ?Sized>(
        &mut self,
        me: DevId,
        ctx: &mut DevCtx<S>,
        id: PacketId,
    ) -> NodeId {
        let head = self.wire_fifo.pop_front(ctx.pool);
        debug_assert_eq!(head, Some(id));
        if let Some((next, due)) = self.wire_fifo.front() {
            ctx.at_arrival(due, me, DevEv::Arrive(next));
        }
        if self.arq.is_some() {
            // Tries count per hop; only ARQ counts them.
            ctx.pool.get_mut(id).meta.link_tries = 0;
        }
        self.peer
    }
}

impl P2p {
    // The device calls with the context generic over the scheduler, so the engine's calls
    // to a point-to-point link are static; `Device` passes the dynamic one.
    #[inline]
    pub fn enqueue_in<S: DevSched + ?Sized>(
        &mut self,
        me: DevId,
        ctx: &mut DevCtx<S>,
        id: PacketId,
        _next_hop: NodeId,
    ) {
        if self.scheduled {
            return self.enqueue_scheduled(me, ctx, id);
        }
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
    pub fn enqueue_front_in<S: DevSched + ?Sized>(
        &mut self,
        me: DevId,
        ctx: &mut DevCtx<S>,
        id: PacketId,
        _next_hop: NodeId,
    ) {
        assert!(
            !self.scheduled,
            "{}: a packet ahead of the queue on a device that schedules frames on acceptance \
             (the node's hooks must declare sends_ahead_of_queue)",
            self.name
        );
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
    pub fn handle_in<S: DevSched + ?Sized>(&mut self, me: DevId, ctx: &mut DevCtx<S>, ev: DevEv) {
        match ev {
            DevEv::TxDone => self.on_tx_done(me, ctx),
            DevEv::Arrive(id) => {
                let peer = self.arrive(me, ctx, id);
                ctx.out.push(DevOut::Receive(peer, id));
            }
            DevEv::Retry(id) => {
                self.awaiting_retry -= 1;
                self.enqueue_front_in(me, ctx, id, self.peer);
            }
            DevEv::Lost(id) => {
                self.lost_pending -= 1;
                self.damaged(ctx, id, ctx.now + self.delay);
                self.drop(ctx, id, DropCause::ChannelError);
            }
            DevEv::Timer(_) => {}
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
    fn enqueue(&mut self, me: DevId, ctx: &mut DevCtx, id: PacketId, next_hop: NodeId) {
        self.enqueue_in(me, ctx, id, next_hop)
    }

    #[inline]
    fn enqueue_front(&mut self, me: DevId, ctx: &mut DevCtx, id: PacketId, next_hop: NodeId) {
        self.enqueue_front_in(me, ctx, id, next_hop)
    }

    #[inline]
    fn handle(&mut self, me: DevId, ctx: &mut DevCtx, ev: DevEv) {
        self.handle_in(me, ctx, ev)
    }

    fn in_network(&self) -> u64 {
        if self.scheduled {
            // Every accepted frame is on the wire's list (queued ones too) or awaits its loss.
            return self.wire_fifo.len() as u64 + self.lost_pending as u64;
        }
        self.fifo.len() as u64
            + u64::from(self.tx.is_some())
            + self.wire_fifo.len() as u64
            + self.awaiting_retry as u64
    }

    fn queue_len(&self) -> usize {
        self.fifo.len()
    }

    fn view(&self, me: DevId, now: Time, next_hop: NodeId) -> DeviceView {
        // Scheduled mode: the queue may hold frames whose start has come (not yet settled),
        // and the busy time counts every accepted frame; count only what has started.
        let (mut queue_packets, mut queue_bytes, mut busy) =
            (self.fifo.len(), self.fifo.bytes(), self.stats.busy_time);
        if self.scheduled {
            let started = self.starts.iter().take_while(|&&s| s <= now).count();
            for &(_, size) in self.fifo.items().take(started) {
                queue_packets -= 1;
                queue_bytes -= size as u64;
            }
            // Queued frames follow one another without a gap, the last ending at
            // `busy_until`: those not yet started hold the link from the first one's start.
            if let Some(&first) = self.starts.get(started) {
                busy -= self.busy_until - first;
            }
        }
        DeviceView {
            dev: me,
            next_hop,
            rate_bps: self.rate_bps,
            offered_bps: self.rate_bps,
            queue_packets,
            queue_bytes,
            utilization: if now == 0 {
                0.0
            } else {
                (busy as f64 / now as f64).min(1.0)
            },
            wireless: self.kind == LinkKind::Wireless,
        }
    }

    fn snr_series(&self) -> Option<usize> {
        match self.error.kind {
            crate::link::ErrorKind::Snr(ref e) => Some(e.series),
            _ => None,
        }
    }

    fn settle_to(&mut self, now: Time) {
        if self.scheduled {
            self.settle(now, false);
        }
    }

    fn unstarted(&self, end: Time) -> u64 {
        self.starts.iter().filter(|&&start| start >= end).count() as u64
    }

    fn allow_sends_ahead(&mut self) {
        self.keep_transmission_events();
    }

    fn finish(&mut self, end: Time) {
        if self.scheduled {
            // The run covers [0, end): a frame due to start at `end` or later never went out.
            self.settle(end, true);
            for &(_, size) in self.fifo.items() {
                self.stats.tx_packets -= 1;
                self.stats.tx_bytes -= size as u64;
            }
            if let Some(&first) = self.starts.front() {
                self.stats.busy_time -= self.busy_until - first;
            }
        }
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
}
