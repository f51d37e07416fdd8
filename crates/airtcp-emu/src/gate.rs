//! The SNR gate (`hook/snr_gate.rs`, seed paper 004) at an emulated host. The gate sits
//! between the host's IP and its TCP senders; here it sits just below the host's interface,
//! which sees the same packets: the core's `SnrGate` decides from the measured SNR, its window
//! filter runs on every packet delivered to one of the host's own connections (closed: the
//! window field of the real header becomes 0, so the kernel's sender stops and probes), and
//! when it opens, the last real ACK of each connection is delivered again as the window update.
//! A connection is the host's own when the host sent its SYN: what a layer in the host sees.

use crate::ip::{self, Parsed};
use airtcp_core::engine::Time;
use airtcp_core::hook::snr_gate::{GateChange, SnrGate};
use airtcp_core::hook::{Hook, Metric};
use airtcp_core::ids::{FlowId, NodeId};
use airtcp_core::link::snr::SnrSeries;
use airtcp_core::packet::flags;
use std::collections::HashMap;

/// A gate of the scenario, resolved against the emulator's hosts and SNR series.
#[derive(Clone, Debug)]
pub struct GateSpec {
    pub node: String,
    pub host: usize,
    pub series: usize,
    pub threshold_db: f64,
    pub interval: Time,
    pub delay: Time,
    pub ewma_weight: f64,
    pub hysteresis_db: f64,
}

struct Conn {
    flow: FlowId,
    isn: u32,
    /// The last packet delivered on it as it arrived (real window), for the window update.
    last: Option<Vec<u8>>,
}

pub struct HostGate {
    pub spec: GateSpec,
    gate: SnrGate,
    /// (local port, peer address, peer port) of the connections the host opened.
    conns: HashMap<(u16, u32, u16), Conn>,
}

impl HostGate {
    pub fn new(spec: GateSpec) -> Self {
        let gate = SnrGate::new(
            NodeId(spec.host as u32),
            spec.series,
            spec.threshold_db,
            spec.interval,
            spec.delay,
            spec.ewma_weight,
        )
        .with_hysteresis(spec.hysteresis_db);
        HostGate {
            spec,
            gate,
            conns: HashMap::new(),
        }
    }

    pub fn is_open(&self) -> bool {
        self.gate.open
    }

    /// A packet the host sends: note the connections it opens, and new data sent while the
    /// gate is closed (the hook's check that the senders did stop).
    pub fn outgoing(&mut self, buf: &[u8], p: &Parsed) {
        let Some((sport, dport)) = ip::ports(buf) else {
            return;
        };
        let key = (sport, p.dst, dport);
        let tcp = &p.wire.tcp;
        if tcp.has(flags::SYN) && !tcp.has(flags::ACK) {
            let flow = FlowId(self.conns.len() as u32);
            let isn = tcp.seq as u32;
            self.conns.insert(
                key,
                Conn {
                    flow,
                    isn,
                    last: None,
                },
            );
        }
        if let Some(c) = self.conns.get(&key) {
            let mut w = p.wire;
            w.flow = c.flow;
            // Sequence numbers from the connection's start, so they do not wrap in a run.
            w.tcp.seq = (tcp.seq as u32).wrapping_sub(c.isn) as u64;
            self.gate.on_send(&w);
        }
    }

    /// A packet about to be delivered to the host: one on a connection the host opened
    /// passes the gate's window filter.
    pub fn incoming(&mut self, buf: &mut [u8], p: &Parsed) {
        let Some((sport, dport)) = ip::ports(buf) else {
            return;
        };
        let Some(c) = self.conns.get_mut(&(dport, p.src, sport)) else {
            return;
        };
        let mut w = p.wire;
        w.flow = c.flow;
        c.last = Some(buf.to_vec());
        self.gate.filter_ack(&mut w);
        if w.tcp.wnd == 0 && !self.gate.open {
            ip::set_tcp_window(buf, 0);
        }
    }

    /// Read what has been measured by `t` and decide; the window updates to deliver when
    /// the gate opened (each connection's last packet, real window, no ECN echo).
    pub fn sample(&mut self, t: Time, snr: &[SnrSeries]) -> Vec<Vec<u8>> {
        let m = snr[self.spec.series].measured(t, self.spec.delay);
        if self.gate.measure(t, m) != GateChange::Opened {
            return Vec::new();
        }
        let mut out: Vec<(FlowId, Vec<u8>)> = self
            .conns
            .values()
            .filter_map(|c| c.last.clone().map(|b| (c.flow, b)))
            .collect();
        out.sort_by_key(|(f, _)| *f);
        out.into_iter()
            .map(|(_, mut b)| {
                ip::clear_ece(&mut b);
                b
            })
            .collect()
    }

    /// The gate's row of the `agents` table, as the simulator reports it.
    pub fn row(&mut self, end: Time) -> serde_json::Value {
        self.gate.finish(end);
        let mut m = Vec::new();
        self.gate.metrics(&mut m);
        let mut row = serde_json::Map::new();
        row.insert("kind".into(), "snr_gate".into());
        row.insert("node".into(), self.spec.node.clone().into());
        for (k, v) in m {
            let v = match v {
                Metric::Count(n) => serde_json::Value::from(n),
                Metric::Real(x) => serde_json::Value::from(x),
            };
            row.insert(k.into(), v);
        }
        serde_json::Value::Object(row)
    }
}
