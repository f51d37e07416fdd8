//! The simulation: arenas of nodes, channels and flows, and the event loop that moves packets
//! between them.

use crate::agent::snoop::AckAction;
use crate::agent::snr_gate::GateChange;
use crate::agent::Agent;
use crate::app::App;
use crate::engine::{tx_time, Scheduler, Time};
use crate::ids::{ChanId, FlowId, NodeId, PacketId};
use crate::link::{Channel, Link};
use crate::packet::{flags, DropCause, Ecn, IpHeader, Packet, PacketPool, Proto, TcpHeader};
use crate::queue::Verdict;
use crate::tcp::{TcpConfig, TcpReceiver, TcpSender};
use crate::topology::{Node, Routes};

#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// A channel finished serializing its current packet.
    TxDone(ChanId),
    /// A packet reached the far end of a channel.
    Arrive(ChanId, PacketId),
    Rto(FlowId),
    DelAck(FlowId),
    FlowStart(FlowId),
    FlowStop(FlowId),
    UdpSend(FlowId),
    QueueSample,
    AgentTick(usize),
    /// A frame the channel's ARQ must resend (its link ACK did not come).
    ArqRetry(ChanId, PacketId),
}

pub struct TcpFlow {
    pub cfg: TcpConfig,
    pub tx: TcpSender,
    pub rx: TcpReceiver,
    /// Earliest pending timer event, so re-arming a timer on every ACK does not schedule an
    /// event each time (a stale event finds its deadline moved and re-arms once).
    pub(crate) rto_event: Option<Time>,
    pub(crate) delack_event: Option<Time>,
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
    /// Ground truth of every lost data packet: (TCP sequence number or UDP datagram number,
    /// cause, time).
    pub loss_log: Vec<(u64, DropCause, Time)>,
    pub trace_cwnd: bool,
    pub cwnd_series: Vec<(Time, u64, u64)>,
}

#[derive(Clone, Debug, Default)]
pub struct Counters {
    pub events: u64,
    pub packet_hops: u64,
    pub injected: u64,
    pub delivered: u64,
    pub dropped: [u64; DropCause::ALL.len()],
}

pub struct Sim {
    pub name: String,
    pub seed: u64,
    pub end: Time,
    pub sched: Scheduler<Ev>,
    pub pool: PacketPool,
    pub nodes: Vec<Node>,
    pub links: Vec<Link>,
    pub chans: Vec<Channel>,
    pub routes: Routes,
    pub flows: Vec<Flow>,
    pub counters: Counters,
    pub queue_trace: Vec<(ChanId, Vec<(Time, u32)>)>,
    pub queue_interval: Time,
    /// Report every loss-cause verdict in the results' series.
    pub trace_verdicts: bool,
    /// Verdicts from this time on are also scored as the steady state.
    pub warmup: Time,
    /// SNR series of SNR-driven channels (indexed by their error models).
    pub snr: Vec<crate::link::SnrSeries>,
    pub agents: Vec<Agent>,
    /// The SNR gate at each node, if any.
    pub gate_at: Vec<Option<usize>>,
    /// The forwarding agent (ELN, Snoop) at each node, if any.
    pub relay_at: Vec<Option<usize>>,
    /// Earliest pending timer event of each agent (lazy timers, as for TCP).
    pub agent_event: Vec<Option<Time>>,
    pub finished: bool,
}

impl Sim {
    pub fn now(&self) -> Time {
        self.sched.now()
    }

    /// Run to the end of the scenario.
    pub fn run(&mut self) {
        self.run_until(self.end);
        self.finish();
    }

    /// Process the events before `until` (capped at the scenario's end: a run covers
    /// [0, duration)).
    pub fn run_until(&mut self, until: Time) {
        let until = until.min(self.end);
        while let Some((_, ev)) = self.sched.pop_before(until) {
            self.counters.events += 1;
            self.dispatch(ev);
        }
        self.sched.set_now(until);
    }

    fn dispatch(&mut self, ev: Ev) {
        match ev {
            Ev::TxDone(c) => self.on_tx_done(c),
            Ev::Arrive(c, p) => {
                let node = self.chans[c.idx()].to;
                self.pool.get_mut(p).link_tries = 0;
                self.forward(node, p);
            }
            Ev::Rto(f) => self.on_rto_event(f),
            Ev::DelAck(f) => self.on_delack_event(f),
            Ev::FlowStart(f) => self.start_flow(f),
            Ev::FlowStop(f) => self.stop_flow(f),
            Ev::UdpSend(f) => self.udp_send(f),
            Ev::QueueSample => self.sample_queues(),
            Ev::AgentTick(a) => self.agent_tick(a),
            Ev::ArqRetry(c, p) => self.requeue_front(c, p),
        }
    }

    // ---- packets and links -------------------------------------------------------------

    /// A host puts a new packet into the network.
    fn inject(&mut self, node: NodeId, pkt: Packet) {
        self.counters.injected += 1;
        let id = self.pool.alloc(pkt);
        self.forward(node, id);
    }

    fn forward(&mut self, node: NodeId, id: PacketId) {
        let dst = self.pool.get(id).dst;
        if dst == node {
            self.deliver(id);
            return;
        }
        if let Some(a) = self.relay_at[node.idx()] {
            if !self.relay(a, node, id) {
                return;
            }
        }
        match self.routes.next_hop(node, dst) {
            Some(c) => self.enqueue(c, id),
            None => self.drop_packet(id, DropCause::NoRoute, None),
        }
    }

    /// A forwarding agent sees a packet passing `node`; false if it consumed the packet.
    fn relay(&mut self, a: usize, node: NodeId, id: PacketId) -> bool {
        let now = self.now();
        let pkt = self.pool.get_mut(id);
        if pkt.proto != Proto::Tcp || pkt.tcp.has(flags::SYN) {
            return true;
        }
        match &mut self.agents[a] {
            Agent::Eln(e) => {
                if pkt.tcp.len == 0 {
                    e.on_ack(pkt.flow, &mut pkt.tcp);
                }
                true
            }
            Agent::Snoop(sn) => {
                if pkt.tcp.len > 0 {
                    // Cache only what goes out on a wireless link.
                    let wireless = self.routes.next_hop(node, pkt.dst).is_some_and(|c| {
                        let l = self.chans[c.idx()].link;
                        self.links[l.idx()].kind == crate::scenario::schema::LinkKind::Wireless
                    });
                    if wireless {
                        sn.on_data(now, pkt);
                        self.sync_agent_timer(a);
                    }
                    return true;
                }
                let (flow, ack) = (pkt.flow, pkt.tcp.ack);
                match sn.on_ack(now, flow, ack) {
                    AckAction::Forward => true,
                    AckAction::Suppress(resend) => {
                        self.drop_packet(id, DropCause::Suppressed, None);
                        if let Some(p) = resend {
                            self.local_send(node, p);
                        }
                        self.sync_agent_timer(a);
                        false
                    }
                }
            }
            Agent::SnrGate(_) => true,
        }
    }

    /// An agent at `node` sends a copy of `p` again, ahead of what is queued.
    fn local_send(&mut self, node: NodeId, mut p: Packet) {
        let Some(c) = self.routes.next_hop(node, p.dst) else {
            return;
        };
        p.created = self.now();
        p.link_tries = 0;
        self.counters.injected += 1;
        let id = self.pool.alloc(p);
        self.requeue_front(c, id);
    }

    /// Put a packet at the head of a channel's queue (an ARQ retransmission).
    fn requeue_front(&mut self, c: ChanId, id: PacketId) {
        let now = self.now();
        let size = self.pool.get(id).size;
        let ch = &mut self.chans[c.idx()];
        if ch.tx.is_none() && ch.fifo.is_empty() {
            self.start_tx(c, id);
        } else {
            ch.note_queue(now);
            ch.fifo.push_front(id, size);
            ch.stats.max_queue = ch.stats.max_queue.max(ch.fifo.len() as u64);
        }
    }

    fn sync_agent_timer(&mut self, a: usize) {
        let Agent::Snoop(sn) = &self.agents[a] else {
            return;
        };
        if let Some(d) = sn.next_deadline() {
            if self.agent_event[a].is_none_or(|e| d < e) {
                self.agent_event[a] = Some(d);
                self.sched.at(d, Ev::AgentTick(a));
            }
        }
    }

    fn enqueue(&mut self, c: ChanId, id: PacketId) {
        let now = self.now();
        let ch = &mut self.chans[c.idx()];
        // Every arrival goes through the policy, even to an idle link: RED-family averages
        // count it, and an average above threshold marks it.
        let verdict = ch.policy.admit(now, self.pool.get_mut(id), &ch.fifo);
        match verdict {
            Verdict::Accept if ch.tx.is_none() && ch.fifo.is_empty() => self.start_tx(c, id),
            Verdict::Accept => {
                ch.note_queue(now);
                let size = self.pool.get(id).size;
                ch.fifo.push(id, size);
                ch.stats.max_queue = ch.stats.max_queue.max(ch.fifo.len() as u64);
            }
            Verdict::Drop(cause) => self.drop_packet(id, cause, Some(c)),
        }
    }

    fn start_tx(&mut self, c: ChanId, id: PacketId) {
        let now = self.now();
        let size = self.pool.get(id).size as u64;
        let ch = &mut self.chans[c.idx()];
        // With ARQ every frame also holds the medium for its link-level ACK.
        let dt = tx_time(size, ch.rate_bps) + ch.arq.map_or(0, |a| a.ack_time);
        ch.tx = Some(id);
        ch.stats.tx_packets += 1;
        ch.stats.tx_bytes += size;
        ch.stats.busy_time += dt;
        self.counters.packet_hops += 1;
        self.sched.at(now + dt, Ev::TxDone(c));
    }

    fn on_tx_done(&mut self, c: ChanId) {
        let now = self.now();
        let ch = &mut self.chans[c.idx()];
        let id = ch.tx.take().expect("TxDone on an idle channel");
        if ch.error.corrupts(now, self.pool.get(id), &self.snr) {
            let tries = self.pool.get(id).link_tries;
            match ch.arq {
                Some(arq) if tries < arq.retry_limit => {
                    // The link ACK does not come: resend after the ACK timeout (one round
                    // trip on the link), ahead of the queue, while other frames go on.
                    self.pool.get_mut(id).link_tries = tries + 1;
                    ch.stats.arq_retransmissions += 1;
                    let wait = 2 * ch.delay + arq.ack_time;
                    self.sched.at(now + wait, Ev::ArqRetry(c, id));
                }
                _ => self.drop_packet(id, DropCause::ChannelError, Some(c)),
            }
        } else {
            let delay = self.chans[c.idx()].delay;
            self.sched.at(now + delay, Ev::Arrive(c, id));
        }
        let ch = &mut self.chans[c.idx()];
        if !ch.fifo.is_empty() {
            ch.note_queue(now);
            let next = ch.fifo.pop().expect("non-empty");
            self.start_tx(c, next);
        } else {
            ch.policy.on_idle(now);
        }
    }

    fn drop_packet(&mut self, id: PacketId, cause: DropCause, chan: Option<ChanId>) {
        let now = self.now();
        let pkt = *self.pool.get(id);
        self.pool.free(id);
        self.counters.dropped[cause.index()] += 1;
        if let Some(c) = chan {
            self.chans[c.idx()].stats.drops[cause.index()] += 1;
            let from = self.chans[c.idx()].from;
            if let (Some(a), DropCause::ChannelError, true) = (
                self.relay_at[from.idx()],
                cause,
                pkt.proto == Proto::Tcp && pkt.tcp.len > 0,
            ) {
                if let Agent::Eln(e) = &mut self.agents[a] {
                    e.on_channel_loss(pkt.flow, pkt.tcp.seq);
                }
            }
        }
        let flow = &mut self.flows[pkt.flow.idx()];
        if pkt.is_data() {
            flow.losses.data[cause.index()] += 1;
            let seq = match pkt.proto {
                Proto::Tcp => pkt.tcp.seq,
                Proto::Udp => pkt.udp_seq,
            };
            flow.loss_log.push((seq, cause, now));
        } else {
            flow.losses.acks[cause.index()] += 1;
        }
    }

    fn deliver(&mut self, id: PacketId) {
        let pkt = *self.pool.get(id);
        self.pool.free(id);
        self.counters.delivered += 1;
        let f = pkt.flow;
        let flow = &mut self.flows[f.idx()];
        match &mut flow.transport {
            Transport::Udp(u) => {
                u.received_packets += 1;
                u.received_bytes += pkt.size as u64;
            }
            Transport::Tcp(_) if pkt.dst == flow.dst => self.tcp_data_arrived(f, &pkt),
            Transport::Tcp(_) => self.tcp_ack_arrived(f, &pkt),
        }
    }

    // ---- TCP ---------------------------------------------------------------------------

    fn tcp(&mut self, f: FlowId) -> &mut TcpFlow {
        match &mut self.flows[f.idx()].transport {
            Transport::Tcp(t) => t,
            Transport::Udp(_) => unreachable!("flow {f:?} is not TCP"),
        }
    }

    fn tcp_data_arrived(&mut self, f: FlowId, pkt: &Packet) {
        let now = self.now();
        let t = self.tcp(f);
        let out = t.rx.on_segment(now, &pkt.tcp, pkt.ip.ecn);
        if out.delivered > 0 {
            if out.delivered_from != t.sink_next {
                t.order_violations += 1;
            }
            t.sink_next = out.delivered_from + out.delivered;
        }
        if out.ack_now {
            self.send_ack(f);
        } else {
            self.sync_delack(f);
        }
    }

    fn send_ack(&mut self, f: FlowId) {
        let now = self.now();
        let flow = &mut self.flows[f.idx()];
        let (src, dst) = (flow.dst, flow.src);
        let Transport::Tcp(t) = &mut flow.transport else {
            return;
        };
        let hdr = t.rx.make_ack(now);
        let size = t.cfg.header;
        let pkt = Packet {
            flow: f,
            src,
            dst,
            size,
            proto: Proto::Tcp,
            ip: IpHeader {
                ttl: 64,
                ..Default::default()
            },
            tcp: hdr,
            udp_seq: 0,
            created: now,
            link_tries: 0,
        };
        self.inject(src, pkt);
    }

    fn tcp_ack_arrived(&mut self, f: FlowId, pkt: &Packet) {
        let now = self.now();
        let mut h = pkt.tcp;
        if let Some(a) = self.gate_at[pkt.dst.idx()] {
            if let Agent::SnrGate(g) = &mut self.agents[a] {
                g.filter_ack(f, &mut h);
            }
        }
        self.tcp(f).tx.on_ack(now, &h);
        self.after_sender_input(f);
    }

    fn agent_tick(&mut self, a: usize) {
        let now = self.now();
        if self.agent_event[a] == Some(now) {
            self.agent_event[a] = None;
        }
        if let Agent::Snoop(sn) = &mut self.agents[a] {
            let mut out = Vec::new();
            sn.on_timer(now, &mut out);
            let node = sn.node;
            for p in out {
                self.local_send(node, p);
            }
            self.sync_agent_timer(a);
            return;
        }
        let Agent::SnrGate(g) = &mut self.agents[a] else {
            return;
        };
        let snr = self.snr[g.series].at(now);
        let change = g.sample(now, snr);
        let interval = g.interval;
        if change == GateChange::Opened {
            let updates: Vec<(FlowId, TcpHeader)> = g.window_updates().collect();
            for (f, h) in updates {
                self.tcp(f).tx.on_ack(now, &h);
                self.after_sender_input(f);
            }
        }
        if now + interval < self.end {
            self.sched.at(now + interval, Ev::AgentTick(a));
        }
    }

    /// After the sender saw an input: record cwnd, transmit what it allows, re-arm timers.
    fn after_sender_input(&mut self, f: FlowId) {
        self.record_cwnd(f);
        self.pump(f);
        self.sync_rto(f);
    }

    fn record_cwnd(&mut self, f: FlowId) {
        let now = self.now();
        let flow = &mut self.flows[f.idx()];
        if !flow.trace_cwnd {
            return;
        }
        let Transport::Tcp(t) = &flow.transport else {
            return;
        };
        let (cwnd, ss) = (t.tx.st.cwnd, t.tx.st.ssthresh);
        if flow
            .cwnd_series
            .last()
            .is_none_or(|&(_, c, s)| c != cwnd || s != ss)
        {
            flow.cwnd_series.push((now, cwnd, ss));
        }
    }

    /// Send every segment the sender's window allows.
    fn pump(&mut self, f: FlowId) {
        let now = self.now();
        loop {
            let flow = &mut self.flows[f.idx()];
            let (src, dst) = (flow.src, flow.dst);
            let Transport::Tcp(t) = &mut flow.transport else {
                return;
            };
            let Some(seg) = t.tx.poll_transmit(now) else {
                return;
            };
            if seg.len > 0 && !seg.retx {
                if let Some(a) = self.gate_at[src.idx()] {
                    if let Agent::SnrGate(g) = &mut self.agents[a] {
                        if !g.open {
                            g.new_data_while_closed += 1;
                        }
                    }
                }
            }
            // RFC 3168 6.1.5: retransmissions are not ECN-capable.
            let ecn = if !seg.retx && seg.len > 0 {
                t.tx.ect_codepoint()
            } else {
                Ecn::NOT_ECT
            };
            let pkt = Packet {
                flow: f,
                src,
                dst,
                size: seg.len + t.cfg.header,
                proto: Proto::Tcp,
                ip: IpHeader {
                    ecn,
                    ttl: 64,
                    ..Default::default()
                },
                tcp: TcpHeader {
                    seq: seg.seq,
                    len: seg.len,
                    flags: seg.flags | flags::ACK,
                    wnd: t.cfg.rcv_window,
                    ts_val: if t.cfg.timestamps { now } else { 0 },
                    retx: seg.retx,
                    ..Default::default()
                },
                udp_seq: 0,
                created: now,
                link_tries: 0,
            };
            self.inject(src, pkt);
        }
    }

    fn sync_rto(&mut self, f: FlowId) {
        let t = self.tcp(f);
        if let Some(d) = t.tx.timer_deadline() {
            if t.rto_event.is_none_or(|e| d < e) {
                t.rto_event = Some(d);
                self.sched.at(d, Ev::Rto(f));
            }
        }
    }

    fn on_rto_event(&mut self, f: FlowId) {
        let now = self.now();
        let t = self.tcp(f);
        if t.rto_event == Some(now) {
            t.rto_event = None;
        }
        if t.tx.timer_deadline().is_some_and(|d| d <= now) {
            t.tx.on_timer(now);
            self.after_sender_input(f);
        } else {
            self.sync_rto(f);
        }
    }

    fn sync_delack(&mut self, f: FlowId) {
        let t = self.tcp(f);
        if let Some(d) = t.rx.timer_deadline() {
            if t.delack_event.is_none_or(|e| d < e) {
                t.delack_event = Some(d);
                self.sched.at(d, Ev::DelAck(f));
            }
        }
    }

    fn on_delack_event(&mut self, f: FlowId) {
        let now = self.now();
        let t = self.tcp(f);
        if t.delack_event == Some(now) {
            t.delack_event = None;
        }
        for _ in 0..t.rx.on_timer(now) {
            self.send_ack(f);
        }
        self.sync_delack(f);
    }

    // ---- applications ------------------------------------------------------------------

    fn start_flow(&mut self, f: FlowId) {
        let now = self.now();
        let flow = &mut self.flows[f.idx()];
        match (&flow.app, &mut flow.transport) {
            (App::Bulk, Transport::Tcp(t)) => {
                t.tx.account(now);
                t.tx.set_app_end(u64::MAX);
            }
            (App::File { size }, Transport::Tcp(t)) => {
                t.tx.account(now);
                t.tx.set_app_end(*size);
            }
            (App::OnOff { .. }, _) | (App::Cbr { .. }, _) => {
                self.udp_send(f);
                return;
            }
            _ => unreachable!("app and transport checked at build time"),
        }
        self.after_sender_input(f);
    }

    fn stop_flow(&mut self, f: FlowId) {
        let flow = &mut self.flows[f.idx()];
        flow.stopped = true;
        if let Transport::Tcp(t) = &mut flow.transport {
            // The application writes nothing more; what is in flight is still delivered.
            t.tx.stop_app();
        }
    }

    fn udp_send(&mut self, f: FlowId) {
        let now = self.now();
        let flow = &mut self.flows[f.idx()];
        if flow.stopped {
            return;
        }
        let (src, dst) = (flow.src, flow.dst);
        let (size, next) = match &mut flow.app {
            App::Cbr {
                interval,
                packet_size,
            } => (*packet_size, now + *interval),
            App::OnOff {
                interval,
                packet_size,
                on_mean,
                off_mean,
                rng,
                on_until,
            } => {
                if now >= *on_until && *on_until != 0 {
                    // The burst is over: stay silent for an off period, then start a new burst.
                    let off = App::draw(rng, *off_mean);
                    let on = App::draw(rng, *on_mean);
                    *on_until = now + off + on;
                    self.sched.at(now + off, Ev::UdpSend(f));
                    return;
                }
                if *on_until == 0 {
                    *on_until = now + App::draw(rng, *on_mean);
                }
                (*packet_size, now + *interval)
            }
            _ => return,
        };
        let Transport::Udp(u) = &mut flow.transport else {
            return;
        };
        u.sent_packets += 1;
        u.sent_bytes += size as u64;
        let seq = u.next_seq;
        u.next_seq += 1;
        let pkt = Packet {
            flow: f,
            src,
            dst,
            size,
            proto: Proto::Udp,
            ip: IpHeader {
                ttl: 64,
                ..Default::default()
            },
            tcp: TcpHeader::default(),
            udp_seq: seq,
            created: now,
            link_tries: 0,
        };
        self.sched.at(next, Ev::UdpSend(f));
        self.inject(src, pkt);
    }

    fn sample_queues(&mut self) {
        let now = self.now();
        for (c, series) in &mut self.queue_trace {
            series.push((now, self.chans[c.idx()].fifo.len() as u32));
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
        for ch in &mut self.chans {
            ch.note_queue(end);
        }
        for a in &mut self.agents {
            if let Agent::SnrGate(g) = a {
                g.finish(end);
            }
        }
        for flow in &mut self.flows {
            if let Transport::Tcp(t) = &mut flow.transport {
                let until = t.tx.stats.completed_at.unwrap_or(end).max(flow.start);
                t.tx.account(until);
            }
        }
    }

    /// Packets still inside the network, counted from where they are (queues, transmitters,
    /// pending arrivals), independently of the packet arena.
    pub fn packets_in_network(&self) -> u64 {
        let queued: usize = self.chans.iter().map(|c| c.fifo.len()).sum();
        let in_tx = self.chans.iter().filter(|c| c.tx.is_some()).count();
        let propagating = self
            .sched
            .pending()
            .filter(|e| matches!(e, Ev::Arrive(..) | Ev::ArqRetry(..)))
            .count();
        (queued + in_tx + propagating) as u64
    }
}
