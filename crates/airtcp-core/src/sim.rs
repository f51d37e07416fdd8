//! The simulation: arenas of nodes, devices, hooks and flows, and the node layer that moves
//! packets between endpoints, hooks and devices. Devices run their own transmitters and MACs;
//! the node layer only routes, runs hooks and hands packets to endpoints.

use crate::app::App;
use crate::device::{AnyDevice, DevCtx, DevEv, DevOut, DevSched, LinkLoss, LossNote};
use crate::engine::{Scheduler, Tie, Time, TimerSlot};
use crate::hook::{Hook, HookAction, HookCtx, LocalEnd, Verdict};
use crate::ids::{DevId, FlowId, HookId, NodeId, PacketId};
use crate::link::SnrSeries;
use crate::packet::{DropCause, Packet, PacketPool, Proto, Wire};
use crate::stats::scoring;
use crate::tcp::{TcpReceiver, TcpSender};
use crate::topology::{Node, Routes};

mod dynamic;
mod external;
mod flows;

#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// A device's own event (transmission done, arrival, MAC timers).
    Dev(DevId, DevEv),
    /// A TCP sender's timer (RTO, persist, pacing).
    SenderTimer(FlowId),
    /// A TCP receiver's timer (delayed ACK, DDA).
    ReceiverTimer(FlowId),
    HookTimer(HookId),
    FlowStart(FlowId),
    FlowStop(FlowId),
    UdpSend(FlowId),
    QueueSample,
    /// A node learns of a lost frame (a held [`LossNote`]).
    LossNote(u32),
    /// A node's routing protocol timer (dynamic routing).
    Routing(NodeId),
}

pub struct TcpFlow {
    pub tx: TcpSender,
    pub rx: TcpReceiver,
    pub(crate) tx_timer: TimerSlot,
    pub(crate) rx_timer: TimerSlot,
    /// In-order delivery check made by the application sink, independent of the receiver.
    pub sink_next: u64,
    pub order_violations: u64,
}

pub struct UdpFlow {
    pub sent_packets: u64,
    pub sent_bytes: u64,
    pub received_packets: u64,
    pub received_bytes: u64,
    pub next_seq: u64,
}

pub enum Transport {
    Tcp(Box<TcpFlow>),
    Udp(UdpFlow),
}

#[derive(Clone, Debug, Default)]
pub struct FlowLosses {
    /// Data packets dropped, by cause.
    pub data: [u64; DropCause::ALL.len()],
    /// Pure ACKs dropped, by cause.
    pub acks: [u64; DropCause::ALL.len()],
}

pub struct Flow {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    pub start: Time,
    pub stop: Option<Time>,
    pub cc_name: String,
    pub app_kind: &'static str,
    pub app: App,
    pub transport: Transport,
    pub stopped: bool,
    pub losses: FlowLosses,
    /// Ground truth of lost data packets: TCP sequence number or UDP datagram number, cause,
    /// time. A TCP flow's log lets go of the drops no loss verdict can still name
    /// (`scoring::prune`); a UDP flow's keeps every drop.
    pub loss_log: Vec<scoring::LossRecord>,
    pub trace_cwnd: bool,
    pub cwnd_series: Vec<(Time, u64, u64)>,
    /// The scheme's state at each change (schemes with a state machine), traced with cwnd.
    pub state_series: Vec<(Time, &'static str)>,
    /// Flows that start when this flow's file has all been delivered to its receiver.
    pub then: Vec<FlowId>,
    /// Waits for another flow's delivery before starting.
    pub waiting: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Counters {
    pub events: u64,
    pub packet_hops: u64,
    pub injected: u64,
    pub delivered: u64,
    pub dropped: [u64; DropCause::ALL.len()],
}

/// A hook installed at a node, with its timer.
pub struct HookSlot {
    pub node: NodeId,
    pub hook: Box<dyn Hook>,
    pub timer: TimerSlot,
}

pub struct Sim {
    pub name: String,
    pub seed: u64,
    pub end: Time,
    pub sched: Scheduler<Ev>,
    pub pool: PacketPool,
    pub nodes: Vec<Node>,
    pub devices: Vec<AnyDevice>,
    pub routes: Routes,
    /// Dynamic routing protocols (None: every node routes statically by `routes`).
    pub routing: Option<Box<crate::routing::Layer>>,
    pub flows: Vec<Flow>,
    pub hooks: Vec<HookSlot>,
    pub counters: Counters,
    pub queue_trace: Vec<(DevId, Vec<(Time, u32)>)>,
    pub queue_interval: Time,
    /// Report every loss-cause verdict in the results' series.
    pub trace_verdicts: bool,
    /// Record the flows' routes (`trace.routes`): with dynamic routing in
    /// `routing.paths`, with static routing once per flow from `routes`.
    pub trace_routes: bool,
    /// Verdicts from this time on are also scored as the steady state.
    pub warmup: Time,
    /// SNR series of SNR-driven channels (indexed by their error models).
    pub snr: Vec<SnrSeries>,
    pub finished: bool,
    /// Event budget; `budget_exceeded` is set when a run stopped on it.
    pub max_events: u64,
    pub budget_exceeded: bool,
    /// The other budgets, the stop flag and progress reports (`budget.rs`).
    pub watch: crate::budget::Watch,
    /// Scratch buffers, reused so the steady state allocates nothing per event.
    dev_out: Vec<DevOut>,
    hook_actions: Vec<HookAction>,
    notes: Vec<LossNote>,
    /// Notes a node learns later, by slot (`Ev::LossNote`), and the free slots.
    held_notes: Vec<LossNote>,
    free_notes: Vec<u32>,
    /// Packet traces (`trace.pcap`): the packets traced nodes send and receive.
    pub capture: Option<Box<crate::pcap::Capture>>,
    /// Position samples (taken when the result is built) and received-power logs of the
    /// radio nodes (`trace.positions`, `trace.rssi`).
    pub radio_trace: Option<Box<crate::mobility::series::RadioTrace>>,
    /// The flows' endpoints live outside (real stacks, `sim/external.rs`): the simulator's
    /// own senders never start.
    external_endpoints: bool,
}

impl DevSched for Scheduler<Ev> {
    #[inline(always)]
    fn dev_at(&mut self, at: Time, tie: Tie, dev: DevId, ev: DevEv) {
        self.at_tied(at, tie, Ev::Dev(dev, ev));
    }
    #[inline(always)]
    fn reserve(&mut self) -> u64 {
        Scheduler::reserve(self)
    }
}

/// The context a device is called with, borrowing the simulation's fields one by one (a
/// method would borrow all of it, the device array included).
macro_rules! dev_ctx {
    ($sim:ident) => {
        DevCtx {
            now: $sim.sched.now(),
            sched: &mut $sim.sched,
            pool: &mut $sim.pool,
            snr: &$sim.snr,
            out: &mut $sim.dev_out,
            notes: &mut $sim.notes,
            packet_hops: &mut $sim.counters.packet_hops,
        }
    };
}

/// Where in the node a packet is when its hooks run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Point {
    PreRouting,
    LocalIn(LocalEnd),
    Forward,
    PostRouting,
    LocalOut(LocalEnd),
}

impl Sim {
    /// Assemble a simulation from its parts (the scenario builder and tests use this); timers
    /// of hooks are armed here.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        seed: u64,
        end: Time,
        sched: Scheduler<Ev>,
        nodes: Vec<Node>,
        devices: Vec<AnyDevice>,
        routes: Routes,
        flows: Vec<Flow>,
        hooks: Vec<HookSlot>,
        snr: Vec<SnrSeries>,
    ) -> Sim {
        let mut sim = Sim {
            name,
            seed,
            end,
            sched,
            pool: PacketPool::default(),
            nodes,
            devices,
            routes,
            routing: None,
            flows,
            hooks,
            counters: Counters::default(),
            queue_trace: Vec::new(),
            queue_interval: 0,
            trace_verdicts: false,
            trace_routes: false,
            warmup: 0,
            snr,
            finished: false,
            max_events: u64::MAX,
            budget_exceeded: false,
            watch: Default::default(),
            dev_out: Vec::new(),
            hook_actions: Vec::new(),
            notes: Vec::new(),
            held_notes: Vec::new(),
            free_notes: Vec::new(),
            capture: None,
            radio_trace: None,
            external_endpoints: false,
        };
        for h in 0..sim.hooks.len() {
            sim.sync_hook_timer(HookId(h as u32));
            sim.fit_devices_to_hook(HookId(h as u32));
        }
        sim
    }

    pub fn now(&self) -> Time {
        self.sched.now()
    }

    /// Run to the end of the scenario.
    pub fn run(&mut self) {
        self.watch.planned_end = self.end;
        self.run_until(self.end);
        if self.watch.stopped.is_some() {
            self.end_early();
        }
        self.finish();
    }

    /// Process the events before `until` (capped at the scenario's end: a run covers
    /// [0, duration)).
    pub fn run_until(&mut self, until: Time) {
        let until = until.min(self.end);
        // Every 4096 events the budgets and the stop flag are checked (`budget.rs`): they
        // guard against runaway runs, and a check per event would cost more than the rest
        // of the loop's bookkeeping.
        while self.run_batch(until) {
            if self.checkpoint() {
                return;
            }
        }
        self.sched.set_now(until);
    }

    /// Process events before `until` until the event count reaches a multiple of 4096
    /// (true) or none is left (false). A function of its own: with the checkpoint's call in
    /// the same body, the compiler stopped inlining the scheduler into this loop (4 % more
    /// instructions per packet-hop).
    #[inline(never)]
    fn run_batch(&mut self, until: Time) -> bool {
        while let Some((_, ev)) = self.sched.pop_before(until) {
            self.counters.events += 1;
            self.dispatch(ev);
            if self.counters.events & 0xfff == 0 {
                return true;
            }
        }
        false
    }

    /// Process the next event, if there is one before the end; returns its time.
    pub fn step(&mut self) -> Option<Time> {
        let (t, ev) = self.sched.pop_before(self.end)?;
        self.counters.events += 1;
        self.dispatch(ev);
        Some(t)
    }

    fn dispatch(&mut self, ev: Ev) {
        match ev {
            Ev::Dev(d, e) => self.device_event(d, e),
            Ev::SenderTimer(f) => self.on_sender_timer(f),
            Ev::ReceiverTimer(f) => self.on_receiver_timer(f),
            Ev::HookTimer(h) => self.on_hook_timer(h),
            Ev::FlowStart(f) => self.start_flow(f),
            Ev::FlowStop(f) => self.stop_flow(f),
            Ev::UdpSend(f) => self.udp_send(f),
            Ev::QueueSample => self.sample_queues(),
            Ev::LossNote(k) => {
                let n = self.held_notes[k as usize];
                self.free_notes.push(k);
                self.tell_link_loss(n.node, n.loss, &n.wire);
            }
            Ev::Routing(n) => self.on_routing_timer(n),
        }
    }

    // ---- devices -----------------------------------------------------------------------

    /// Run `f` on device `d` with a context, then act on what it reports. Reports are
    /// appended to one shared buffer and handled in order; a nested device call (a received
    /// packet forwarded on) handles and removes its own before this one goes on.
    #[inline]
    fn with_device(
        &mut self,
        d: DevId,
        f: impl FnOnce(&mut AnyDevice, DevId, &mut DevCtx<Scheduler<Ev>>),
    ) {
        let start = self.dev_out.len();
        {
            let mut ctx = dev_ctx!(self);
            f(&mut self.devices[d.idx()], d, &mut ctx);
        }
        self.handle_reports(d, start);
    }

    /// Act on what device `d` reported from `start` on in the shared buffer, in order, then
    /// remove it.
    #[inline]
    fn handle_reports(&mut self, d: DevId, start: usize) {
        let mut i = start;
        while i < self.dev_out.len() {
            let o = self.dev_out[i];
            i += 1;
            match o {
                DevOut::Drop(p, cause) => self.device_dropped(d, p, cause),
                DevOut::Receive(node, p) => self.receive(node, p),
                DevOut::Sent(p) => self.control_sent(p),
            }
        }
        self.dev_out.truncate(start);
        if !self.notes.is_empty() {
            self.deliver_notes();
        }
    }

    /// Hand what devices noted of lost frames to the hooks that listen at those nodes: now,
    /// or when the node learns it. In the order noted, except that notes made by device calls
    /// a hook starts from here are handed on inside that call, before the rest of these (the
    /// order is still fixed by the run, so runs stay deterministic).
    #[cold]
    #[inline(never)]
    fn deliver_notes(&mut self) {
        let mut notes = std::mem::take(&mut self.notes);
        for n in notes.drain(..) {
            if self.routing.is_some() {
                self.routing_note(&n);
            }
            if !self.hears_losses(n.node) {
                continue;
            }
            if n.at <= self.now() {
                self.tell_link_loss(n.node, n.loss, &n.wire);
                continue;
            }
            let k = match self.free_notes.pop() {
                Some(k) => {
                    self.held_notes[k as usize] = n;
                    k
                }
                None => {
                    self.held_notes.push(n);
                    (self.held_notes.len() - 1) as u32
                }
            };
            self.sched.at(n.at, Ev::LossNote(k));
        }
        if self.notes.is_empty() {
            // Keep the buffer's allocation.
            self.notes = notes;
        }
    }

    /// Whether a hook of `node` listens to link losses.
    fn hears_losses(&self, node: NodeId) -> bool {
        self.nodes[node.idx()]
            .hooks
            .iter()
            .any(|h| self.hooks[h.idx()].hook.points().link_loss)
    }

    fn tell_link_loss(&mut self, node: NodeId, loss: LinkLoss, wire: &Wire) {
        for k in 0..self.nodes[node.idx()].hooks.len() {
            let h = self.nodes[node.idx()].hooks[k];
            if self.hooks[h.idx()].hook.points().link_loss {
                self.call_hook(h, |hook, ctx| hook.on_link_loss(ctx, loss, wire));
            }
        }
    }

    #[inline]
    fn device_event(&mut self, d: DevId, e: DevEv) {
        if let (DevEv::Arrive(id), AnyDevice::P2p(p)) = (e, &mut self.devices[d.idx()]) {
            // A frame reaching the end of a wire reports nothing but its arrival: hand it on
            // without the report buffer.
            let mut ctx = dev_ctx!(self);
            let node = p.arrive(d, &mut ctx, id);
            self.receive(node, id);
            return;
        }
        self.with_device(d, |dev, me, ctx| dev.handle(me, ctx, e));
    }

    /// Hand a packet to the output device toward `next_hop`.
    #[inline(always)]
    fn transmit(&mut self, d: DevId, next_hop: NodeId, id: PacketId, front: bool) {
        if self.capture.is_some() {
            let node = self.devices[d.idx()].node();
            self.capture_packet(node, id);
        }
        if let (false, AnyDevice::P2p(p)) = (front, &mut self.devices[d.idx()]) {
            // The common case without the closure: a point-to-point link reports at most one
            // thing on accepting a packet, its drop.
            let start = self.dev_out.len();
            let noted = self.notes.len();
            let mut ctx = dev_ctx!(self);
            p.enqueue_in(d, &mut ctx, id, next_hop);
            // Accepting a frame notes no loss (a drop is reported, and handled below).
            debug_assert_eq!(self.notes.len(), noted);
            if self.dev_out.len() > start {
                self.handle_reports(d, start);
            }
            return;
        }
        self.with_device(d, |dev, me, ctx| {
            if front {
                dev.enqueue_front(me, ctx, id, next_hop)
            } else {
                dev.enqueue(me, ctx, id, next_hop)
            }
        });
    }

    fn device_dropped(&mut self, d: DevId, id: PacketId, cause: DropCause) {
        let node = self.devices[d.idx()].node();
        let wire = self.pool.get(id).wire;
        self.drop_packet(id, cause);
        // A node knows what its own queues discarded; of a frame lost on the link it knows
        // only what the device notes (a MAC that gave up, a damaged frame received).
        if matches!(cause, DropCause::QueueOverflow | DropCause::Aqm) && self.hears_losses(node) {
            self.tell_link_loss(node, LinkLoss::Queue(d), &wire);
        }
    }

    // ---- the node layer ----------------------------------------------------------------

    /// Run hook `h` with a context, then carry out what it asked for.
    fn call_hook<T>(&mut self, h: HookId, f: impl FnOnce(&mut dyn Hook, &mut HookCtx) -> T) -> T {
        let mut actions = std::mem::take(&mut self.hook_actions);
        let slot = &mut self.hooks[h.idx()];
        let node = slot.node;
        let r = {
            let mut ctx = HookCtx::new(self.sched.now(), node, &mut actions, &self.snr);
            f(&mut *slot.hook, &mut ctx)
        };
        for a in actions.drain(..) {
            match a {
                HookAction::Send { pkt, front } => self.hook_send(node, pkt, front),
                HookAction::DeliverLocal(w) => self.tcp_ack_arrived(w.flow, &w),
            }
        }
        self.hook_actions = actions;
        self.sync_hook_timer(h);
        r
    }

    fn sync_hook_timer(&mut self, h: HookId) {
        let slot = &mut self.hooks[h.idx()];
        if let Some(t) = slot.timer.arm(slot.hook.poll_timeout()) {
            self.sched.at(t, Ev::HookTimer(h));
        }
    }

    fn on_hook_timer(&mut self, h: HookId) {
        let now = self.now();
        self.hooks[h.idx()].timer.fired(now);
        if self.hooks[h.idx()]
            .hook
            .poll_timeout()
            .is_some_and(|d| d <= now)
        {
            self.call_hook(h, |hook, ctx| hook.handle_timeout(ctx));
        } else {
            self.sync_hook_timer(h);
        }
    }

    /// Run the hooks of `node` at `point` on packet `id`; false if one took it out.
    fn run_hooks(
        &mut self,
        node: NodeId,
        point: Point,
        id: PacketId,
        out: Option<(DevId, NodeId)>,
    ) -> bool {
        let n = self.nodes[node.idx()].hooks.len();
        for k in 0..n {
            let h = self.nodes[node.idx()].hooks[k];
            let pts = self.hooks[h.idx()].hook.points();
            let used = match point {
                Point::PreRouting => pts.pre_routing,
                Point::LocalIn(_) => pts.local_in,
                Point::Forward => pts.forward,
                Point::PostRouting => pts.post_routing,
                Point::LocalOut(_) => pts.local_out,
            };
            if !used {
                continue;
            }
            let view = out.map(|(d, next)| self.devices[d.idx()].view(d, self.now(), next));
            let mut wire = self.pool.get(id).wire;
            let verdict = self.call_hook(h, |hook, ctx| match point {
                Point::PreRouting => hook.pre_routing(ctx, &mut wire),
                Point::LocalIn(end) => hook.local_in(ctx, &mut wire, end),
                Point::Forward => {
                    hook.forward(ctx, &mut wire, view.as_ref().expect("forward has a device"))
                }
                Point::PostRouting => hook.post_routing(
                    ctx,
                    &mut wire,
                    view.as_ref().expect("post-routing has a device"),
                ),
                Point::LocalOut(end) => hook.local_out(ctx, &mut wire, end),
            });
            self.pool.get_mut(id).wire = wire;
            match verdict {
                Verdict::Accept => {}
                Verdict::Drop(cause) => {
                    self.drop_packet(id, cause);
                    return false;
                }
                Verdict::Stolen => {
                    self.pool.free(id);
                    return false;
                }
            }
        }
        true
    }

    /// Which local TCP end a packet at its destination (or source) belongs to.
    fn local_end(&self, pkt: &Wire, at: NodeId) -> LocalEnd {
        if pkt.proto != Proto::Tcp {
            return LocalEnd::Other;
        }
        if self.flows[pkt.flow.idx()].src == at {
            LocalEnd::Sender
        } else {
            LocalEnd::Receiver
        }
    }

    /// An endpoint at `node` puts a new packet into the network.
    fn inject(&mut self, node: NodeId, pkt: Packet) {
        let id = self.pool.alloc(pkt);
        self.inject_id(node, id);
    }

    /// [`inject`](Self::inject) of a packet already in the arena.
    fn inject_id(&mut self, node: NodeId, id: PacketId) {
        self.counters.injected += 1;
        let hooks = !self.nodes[node.idx()].hooks.is_empty();
        if hooks {
            let end = self.local_end(&self.pool.get(id).wire, node);
            if !self.run_hooks(node, Point::LocalOut(end), id, None) {
                return;
            }
        }
        let dst = self.pool.get(id).dst;
        if dst == node {
            // A packet to itself never touches a device.
            self.deliver(id);
            return;
        }
        let route = if self.routing.is_none() {
            self.routes.next_hop(node, dst)
        } else {
            match self.route_dynamic(node, id) {
                Some(route) => Some(route),
                None => return, // held or dropped by the protocol
            }
        };
        match route {
            Some(route) => self.send_on(node, id, route, hooks),
            None => self.drop_packet(id, DropCause::NoRoute),
        }
    }

    /// A hook at `node` sends a packet (not through this node's hooks again).
    fn hook_send(&mut self, node: NodeId, wire: Wire, front: bool) {
        let Some((d, next)) = self.routes.next_hop(node, wire.dst) else {
            return;
        };
        self.counters.injected += 1;
        let id = self.pool.alloc(Packet::new(wire, self.now()));
        self.transmit(d, next, id, front);
    }

    /// Write a packet `node` sends or receives to its trace, if it has one (out of line: runs
    /// without traces keep only the test of `capture` in the packet path).
    #[cold]
    #[inline(never)]
    fn capture_packet(&mut self, node: NodeId, id: PacketId) {
        let now = self.sched.now();
        if let Some(c) = self.capture.as_deref_mut() {
            c.packet(node.idx(), now, &self.pool.get(id).wire);
        }
    }

    /// A device of `node` received a packet.
    #[inline]
    fn receive(&mut self, node: NodeId, id: PacketId) {
        if self.capture.is_some() {
            self.capture_packet(node, id);
        }
        if self.routing.is_some() {
            return self.receive_dynamic(node, id);
        }
        let has_hooks = !self.nodes[node.idx()].hooks.is_empty();
        if has_hooks && !self.run_hooks(node, Point::PreRouting, id, None) {
            return;
        }
        let dst = self.pool.get(id).dst;
        if dst == node {
            if has_hooks {
                let end = self.local_end(&self.pool.get(id).wire, node);
                if !self.run_hooks(node, Point::LocalIn(end), id, None) {
                    return;
                }
            }
            self.deliver(id);
            return;
        }
        let Some(route) = self.routes.next_hop(node, dst) else {
            self.drop_packet(id, DropCause::NoRoute);
            return;
        };
        if has_hooks && !self.run_hooks(node, Point::Forward, id, Some(route)) {
            return;
        }
        self.send_on(node, id, route, has_hooks);
    }

    /// Hand a routed packet, through `node`'s post-routing hooks, to its output device.
    #[inline]
    fn send_on(&mut self, node: NodeId, id: PacketId, route: (DevId, NodeId), hooks: bool) {
        if hooks && !self.run_hooks(node, Point::PostRouting, id, Some(route)) {
            return;
        }
        self.transmit(route.0, route.1, id, false);
    }

    fn drop_packet(&mut self, id: PacketId, cause: DropCause) {
        let now = self.now();
        let pkt = *self.pool.get(id);
        if let Proto::Routing(_) = pkt.proto {
            // Control packets have their own counters (the `routing` table).
            self.drop_control(id);
            return;
        }
        self.pool.free(id);
        self.counters.dropped[cause.index()] += 1;
        let flow = &mut self.flows[pkt.flow.idx()];
        if pkt.is_data() {
            flow.losses.data[cause.index()] += 1;
            let seq = match pkt.proto {
                Proto::Tcp => pkt.tcp.seq,
                Proto::Udp | Proto::Routing(_) => pkt.udp_seq,
            };
            if let Transport::Tcp(t) = &flow.transport {
                // Before the log grows: a long lossy run would otherwise keep every drop.
                if flow.loss_log.len() == flow.loss_log.capacity() {
                    scoring::prune(&mut flow.loss_log, t.tx.snd_una, &t.tx.decisions);
                }
            }
            flow.loss_log
                .push(scoring::LossRecord::new(seq, cause, now));
            if let Transport::Tcp(t) = &mut flow.transport {
                // Only the oracle scheme hears of it (it is its definition).
                if t.tx.wants_oracle() {
                    t.tx.oracle_loss(seq, cause);
                }
            }
        } else {
            flow.losses.acks[cause.index()] += 1;
        }
    }

    #[inline]
    fn deliver(&mut self, id: PacketId) {
        let now = self.now();
        self.counters.delivered += 1;
        // The endpoints read the headers in the arena (a copy of the packet would cost more
        // than their work on a pure ACK); the slot is freed before anything is sent.
        let pkt = self.pool.get(id);
        let f = pkt.flow;
        let flow = &mut self.flows[f.idx()];
        match &mut flow.transport {
            Transport::Udp(u) => {
                u.received_packets += 1;
                u.received_bytes += pkt.size as u64;
                self.pool.free(id);
            }
            Transport::Tcp(t) if pkt.dst == flow.dst => {
                let out = t.rx.receive(now, &pkt.ip, &pkt.tcp);
                self.pool.free(id);
                self.tcp_data_arrived(f, out);
            }
            Transport::Tcp(t) => {
                t.tx.on_ack(now, &pkt.tcp);
                self.pool.free(id);
                self.after_sender_input(f);
            }
        }
    }

    fn sample_queues(&mut self) {
        let now = self.now();
        for (d, series) in &mut self.queue_trace {
            self.devices[d.idx()].settle_to(now);
            series.push((now, self.devices[d.idx()].queue_len() as u32));
        }
        if now + self.queue_interval < self.end {
            self.sched.at(now + self.queue_interval, Ev::QueueSample);
        }
    }

    /// Close time integrals at the end of the run.
    fn finish(&mut self) {
        if self.finished {
            return;
        }
        self.finished = true;
        let end = self.end;
        for d in &mut self.devices {
            // Frames due to start after the run were counted when accepted.
            self.counters.packet_hops -= d.unstarted(end);
            d.finish(end);
        }
        for h in &mut self.hooks {
            h.hook.finish(end);
        }
        for flow in &mut self.flows {
            if let Transport::Tcp(t) = &mut flow.transport {
                let until = t.tx.stats.completed_at.unwrap_or(end).max(flow.start);
                t.tx.account(until);
            }
        }
    }

    /// Packets still inside the network, counted by the devices that hold them (queues,
    /// transmitters, the medium, link-layer resends), independently of the packet arena;
    /// with dynamic routing, data packets held for a route count and control packets not.
    pub fn packets_in_network(&self) -> u64 {
        let on_devices: u64 = self.devices.iter().map(|d| d.in_network()).sum();
        match &self.routing {
            None => on_devices,
            // Data packets only: those routing protocols hold, not their own control packets.
            Some(l) => {
                let (held, control) = l.packets();
                on_devices - control + held
            }
        }
    }

    /// The device of `node` named `name` (`A->B` for a link direction).
    pub fn device_named(&self, name: &str) -> Option<DevId> {
        self.devices
            .iter()
            .position(|d| d.name() == name)
            .map(|i| DevId(i as u32))
    }

    /// Device `d` as its concrete type, for inspection.
    pub fn device<T: 'static>(&self, d: DevId) -> Option<&T> {
        self.devices[d.idx()].as_any().downcast_ref::<T>()
    }

    /// Hook `h` as its concrete type, for inspection.
    pub fn hook<T: 'static>(&self, h: HookId) -> Option<&T> {
        self.hooks[h.idx()].hook.as_any().downcast_ref::<T>()
    }

    /// Install `hook` at `node`, after the hooks it has (tests and tools may add hooks that
    /// no scenario kind names).
    pub fn add_hook(&mut self, node: NodeId, hook: Box<dyn Hook>) -> HookId {
        let h = HookId(self.hooks.len() as u32);
        self.hooks.push(HookSlot {
            node,
            hook,
            timer: TimerSlot::default(),
        });
        self.nodes[node.idx()].hooks.push(h);
        self.sync_hook_timer(h);
        self.fit_devices_to_hook(h);
        h
    }

    /// A hook that sends ahead of its node's queues: the node's devices are told (links then
    /// keep a transmission-done event per frame).
    fn fit_devices_to_hook(&mut self, h: HookId) {
        if !self.hooks[h.idx()].hook.sends_ahead_of_queue() {
            return;
        }
        let node = self.hooks[h.idx()].node;
        for d in &mut self.devices {
            if d.node() == node {
                d.allow_sends_ahead();
            }
        }
    }

    /// The TCP sender of flow `f` (panics for a UDP flow).
    pub fn sender(&self, f: FlowId) -> &TcpSender {
        match &self.flows[f.idx()].transport {
            Transport::Tcp(t) => &t.tx,
            Transport::Udp(_) => panic!("flow {f:?} is UDP"),
        }
    }

    /// Both TCP endpoints of flow `f`, to change them (e.g. install a receive-window policy).
    pub fn tcp_mut(&mut self, f: FlowId) -> &mut TcpFlow {
        self.tcp(f)
    }

    /// The TCP receiver of flow `f` (panics for a UDP flow).
    pub fn receiver(&self, f: FlowId) -> &TcpReceiver {
        match &self.flows[f.idx()].transport {
            Transport::Tcp(t) => &t.rx,
            Transport::Udp(_) => panic!("flow {f:?} is UDP"),
        }
    }

    pub fn node_named(&self, name: &str) -> Option<NodeId> {
        self.nodes
            .iter()
            .position(|n| n.name == name)
            .map(|i| NodeId(i as u32))
    }

    pub fn flow_named(&self, name: &str) -> Option<FlowId> {
        self.flows
            .iter()
            .position(|f| f.name == name)
            .map(|i| FlowId(i as u32))
    }
}
