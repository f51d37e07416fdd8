//! The node layer's side of the flows: TCP endpoints' segments and ACKs in and out, their
//! timers, the application's start, stop and triggers, and UDP sources.

use super::{Ev, Sim, TcpFlow, Transport};
use crate::app::App;
use crate::engine::Timed;
use crate::ids::{FlowId, NodeId};
use crate::packet::{Ecn, IpHeader, Packet, Proto, TcpHeader, Wire};
use crate::tcp::receiver::RxOutcome;

impl Sim {
    // ---- TCP ---------------------------------------------------------------------------

    pub(super) fn tcp(&mut self, f: FlowId) -> &mut TcpFlow {
        match &mut self.flows[f.idx()].transport {
            Transport::Tcp(t) => t,
            Transport::Udp(_) => unreachable!("flow {f:?} is not TCP"),
        }
    }

    /// What the receiver did with a segment: account for the delivered data, then ACK.
    pub(super) fn tcp_data_arrived(&mut self, f: FlowId, out: RxOutcome) {
        let t = self.tcp(f);
        if out.delivered > 0 {
            if out.delivered_from != t.sink_next {
                t.order_violations += 1;
            }
            t.sink_next = out.delivered_from + out.delivered;
            let got = t.sink_next;
            self.maybe_trigger(f, got);
        }
        self.after_receiver_input(f);
    }

    /// A segment a hook hands to the sender as if it had arrived (it is in no packet slot).
    pub(super) fn tcp_ack_arrived(&mut self, f: FlowId, pkt: &Wire) {
        let now = self.now();
        self.tcp(f).tx.on_ack(now, &pkt.tcp);
        self.after_sender_input(f);
    }

    /// Send the ACKs the receiver owes, then re-arm its timer.
    fn after_receiver_input(&mut self, f: FlowId) {
        let now = self.now();
        loop {
            let flow = &mut self.flows[f.idx()];
            let (src, dst) = (flow.dst, flow.src);
            let Transport::Tcp(t) = &mut flow.transport else {
                return;
            };
            let Some(hdr) = t.rx.poll_ack(now) else {
                break;
            };
            let cfg = &t.tx.cfg;
            let sack = cfg.sack_bytes.bytes(hdr.n_sack as usize, cfg.timestamps);
            let size = cfg.header + syn_options(cfg, &hdr) + sack;
            let id = self
                .pool
                .alloc_with(|| Packet::new(tcp_wire(f, src, dst, size, Ecn::NOT_ECT, hdr), now));
            self.inject_id(src, id);
        }
        let t = self.tcp(f);
        if let Some(d) = t.rx_timer.arm(t.rx.poll_timeout()) {
            self.sched.at(d, Ev::ReceiverTimer(f));
        }
    }

    /// After the sender saw an input: record cwnd, transmit what it allows, re-arm timers.
    pub(super) fn after_sender_input(&mut self, f: FlowId) {
        self.record_cwnd(f);
        self.pump(f);
        let t = self.tcp(f);
        if let Some(d) = t.tx_timer.arm(t.tx.poll_timeout()) {
            self.sched.at(d, Ev::SenderTimer(f));
        }
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
        if let Some(label) = t.tx.cc().state_label() {
            if flow.state_series.last().is_none_or(|&(_, l)| l != label) {
                flow.state_series.push((now, label));
            }
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
            let size = seg.tcp.len + t.tx.cfg.header + syn_options(&t.tx.cfg, &seg.tcp);
            let id = self.pool.alloc_with(|| {
                let mut pkt = Packet::new(tcp_wire(f, src, dst, size, seg.ecn, seg.tcp), now);
                pkt.meta.retx = seg.retx;
                pkt
            });
            self.inject_id(src, id);
        }
    }

    pub(super) fn on_sender_timer(&mut self, f: FlowId) {
        let now = self.now();
        let t = self.tcp(f);
        t.tx_timer.fired(now);
        if t.tx.handle_timeout(now) {
            self.after_sender_input(f);
        } else if let Some(d) = t.tx_timer.arm(t.tx.poll_timeout()) {
            self.sched.at(d, Ev::SenderTimer(f));
        }
    }

    pub(super) fn on_receiver_timer(&mut self, f: FlowId) {
        let now = self.now();
        let t = self.tcp(f);
        t.rx_timer.fired(now);
        t.rx.handle_timeout(now);
        self.after_receiver_input(f);
    }

    // ---- applications ------------------------------------------------------------------

    /// The receiver of `f` now has `got` bytes in order: when that is the whole file, start
    /// the flows waiting for it (a response after its request).
    fn maybe_trigger(&mut self, f: FlowId, got: u64) {
        let flow = &self.flows[f.idx()];
        if flow.then.is_empty() {
            return;
        }
        let App::File { size } = flow.app else {
            return;
        };
        if got < size {
            return;
        }
        let now = self.now();
        let deps = std::mem::take(&mut self.flows[f.idx()].then);
        for d in deps {
            let dep = &mut self.flows[d.idx()];
            dep.waiting = false;
            // A waiting flow's `start` holds its start-jitter draw (0 without one): the
            // response follows its request after that delay (a server's response time).
            let at = now + dep.start;
            dep.start = at;
            self.sched.at(at, Ev::FlowStart(d));
        }
    }

    pub(super) fn start_flow(&mut self, f: FlowId) {
        if self.external_endpoints {
            return;
        }
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

    pub(super) fn stop_flow(&mut self, f: FlowId) {
        let flow = &mut self.flows[f.idx()];
        flow.stopped = true;
        if let Transport::Tcp(t) = &mut flow.transport {
            // The application writes nothing more; what is in flight is still delivered.
            t.tx.stop_app();
        }
    }

    pub(super) fn udp_send(&mut self, f: FlowId) {
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
        let pkt = Packet::new(
            Wire {
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
            },
            now,
        );
        self.sched.at(next, Ev::UdpSend(f));
        self.inject(src, pkt);
    }
}

/// The option bytes a SYN or SYN-ACK carries beyond the data segments' header.
fn syn_options(cfg: &crate::tcp::TcpConfig, h: &TcpHeader) -> u32 {
    if h.has(crate::packet::flags::SYN) {
        cfg.syn_options
    } else {
        0
    }
}

/// A TCP segment on the wire (data or ACK) from `src` to `dst`.
fn tcp_wire(f: FlowId, src: NodeId, dst: NodeId, size: u32, ecn: Ecn, tcp: TcpHeader) -> Wire {
    Wire {
        flow: f,
        src,
        dst,
        size,
        proto: Proto::Tcp,
        ip: IpHeader {
            ecn,
            ttl: 64,
            ..Default::default()
        },
        tcp,
        udp_seq: 0,
    }
}
