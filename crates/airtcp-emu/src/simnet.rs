//! The media path: the core's simulator itself, run in real time, carries the packets. The
//! scenario is built as for a simulated run (every device and medium: 802.11 DCF with its
//! reception models, RTS/CTS and retries, TDMA, point-to-point links with ARQ, static or
//! dynamic routing, mobility); its own TCP senders never start. A packet read from a host's TUN
//! device becomes a packet of the arena, with the real header's fields in its `Wire`, put in
//! at the host's node at the time it was read; a hook at each host node takes what reaches
//! the node and hands it back with the time it arrived. The real bytes wait beside the
//! simulation, named by `Wire::udp_seq` (as routing control packets name their messages),
//! and go out with the ECN codepoint the path left in the `Wire`.
//!
//! Like the point-to-point engine (`engine.rs`) this takes no clock: `advance(now)` runs
//! every event due by `now` at its own time, so a late wake-up delays a release but changes
//! no schedule and no fate.

use crate::engine::Ignored;
use crate::ip;
use airtcp_core::engine::Time;
use airtcp_core::hook::{Hook, HookCtx, LocalEnd, Metric, Points, Verdict};
use airtcp_core::ids::{FlowId, NodeId};
use airtcp_core::packet::{Packet, Wire};
use airtcp_core::scenario::{FileAccess, Scenario, ScenarioError};
use airtcp_core::stats::RunResult;
use airtcp_core::Sim;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

type R<T> = Result<T, ScenarioError>;

const SUPPORTED: &str = "the emulator runs 802.11 media, TDMA media and point-to-point links \
     (with or without ARQ), with static or dynamic routing";

/// What the media path needs from a scenario: the hosts (flow endpoints) that become
/// namespaces, in order of first mention, as the point-to-point planner lists them.
pub struct SimPlan {
    pub hosts: Vec<String>,
}

/// Check that the simulator can carry `sc` for real stacks and list its hosts.
pub fn plan(sc: &Scenario, files: &FileAccess) -> R<SimPlan> {
    // Everything the simulator checks holds here too.
    airtcp_core::scenario::build_with(sc, files)?;
    if !sc.agents.is_empty() {
        return Err(ScenarioError::new(
            "agents[0].kind",
            format!(
                "node agents are not emulated on a path with a shared medium, ARQ or a host \
                 with several links (the SNR gate runs on point-to-point paths): {SUPPORTED}"
            ),
        ));
    }
    // A host with several devices (links or media) keeps one interface in its namespace:
    // its node in the simulation picks the device for each packet, as its routing does for
    // the simulator's own endpoints.
    let mut hosts: Vec<String> = Vec::new();
    for f in &sc.flows {
        for h in [&f.src, &f.dst] {
            if !hosts.contains(h) {
                hosts.push(h.clone());
            }
        }
    }
    Ok(SimPlan { hosts })
}

/// A packet that reached a host: which host, when, its name, the ECN codepoint it carries.
#[derive(Clone, Copy)]
struct Out {
    host: usize,
    due: Time,
    tag: u64,
    ecn: u8,
}

/// The hook at a host node: takes every packet for the node out of the simulation.
struct Endpoint {
    host: usize,
    out: Rc<RefCell<Vec<Out>>>,
}

impl Hook for Endpoint {
    fn kind(&self) -> &'static str {
        "emu_endpoint"
    }
    fn local_in(&mut self, ctx: &mut HookCtx, pkt: &mut Wire, _end: LocalEnd) -> Verdict {
        self.out.borrow_mut().push(Out {
            host: self.host,
            due: ctx.now,
            tag: pkt.udp_seq,
            ecn: pkt.ip.ecn.0,
        });
        Verdict::Stolen
    }
    fn points(&self) -> Points {
        Points {
            local_in: true,
            ..Points::default()
        }
    }
    fn metrics(&self, _out: &mut Vec<(&'static str, Metric)>) {}
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The real bytes of a packet in the arena, and the name its `Wire` carries.
#[derive(Default)]
struct Held {
    tag: u64,
    buf: Vec<u8>,
}

pub struct SimEngine {
    sim: Sim,
    /// Each host's node.
    nodes: Vec<NodeId>,
    /// `flow_of[s * n + d]`: the flow a packet from host s to host d is accounted to (one
    /// between the two, either way; None when no flow joins them).
    flow_of: Vec<Option<FlowId>>,
    by_addr: HashMap<u32, usize>,
    /// By packet slot of the arena: a slot is reused only once its packet has left.
    held: Vec<Held>,
    serial: u64,
    out: Rc<RefCell<Vec<Out>>>,
    /// Packets that reached their host, with their bytes, to be released: taken out of
    /// `held` as soon as the simulation lets go of them, since their slots may be reused.
    ready: Vec<(usize, Time, Vec<u8>)>,
    /// Spent buffers, reused for packets read in.
    spare: Vec<Vec<u8>>,
    pub ignored_not_ipv4: u64,
    pub ignored_unknown_dst: u64,
    pub delivered: u64,
    /// Packets a host's hook took whose bytes were not found (none expected).
    pub unmatched: u64,
    /// Packets read in (the simulator's count of what was injected).
    pub injected: u64,
}

impl SimEngine {
    /// The scenario's simulation with its endpoints detached, for hosts `hosts` (as
    /// [`plan`] lists them) at IPv4 addresses `addrs`, run until `end` at the latest.
    pub fn new(sc: &Scenario, files: &FileAccess, addrs: &[u32], end: Time) -> R<SimEngine> {
        let hosts = plan(sc, files)?.hosts;
        assert_eq!(addrs.len(), hosts.len(), "one address per host");
        let mut sim = airtcp_core::scenario::build_with(sc, files)?;
        sim.detach_endpoints();
        // The run's own budgets stay; the event budget is for simulated runs' runaways.
        sim.max_events = u64::MAX;
        sim.end = end;
        sim.capture = None;
        let out = Rc::new(RefCell::new(Vec::new()));
        let nodes: Vec<NodeId> = hosts
            .iter()
            .map(|h| sim.node_named(h).expect("planned"))
            .collect();
        for (host, &node) in nodes.iter().enumerate() {
            sim.add_hook(
                node,
                Box::new(Endpoint {
                    host,
                    out: out.clone(),
                }),
            );
        }
        let n = hosts.len();
        let mut flow_of = vec![None; n * n];
        for (f, flow) in sim.flows.iter().enumerate().rev() {
            let s = nodes.iter().position(|&x| x == flow.src).expect("a host");
            let d = nodes.iter().position(|&x| x == flow.dst).expect("a host");
            flow_of[s * n + d] = Some(FlowId(f as u32));
            flow_of[d * n + s] = Some(FlowId(f as u32));
        }
        Ok(SimEngine {
            sim,
            nodes,
            flow_of,
            by_addr: addrs.iter().enumerate().map(|(i, &a)| (a, i)).collect(),
            held: Vec::new(),
            serial: 0,
            out,
            ready: Vec::new(),
            spare: Vec::new(),
            ignored_not_ipv4: 0,
            ignored_unknown_dst: 0,
            delivered: 0,
            unmatched: 0,
            injected: 0,
        })
    }

    /// A packet read at `now` from host `from`: the simulation runs up to `now`, then the
    /// packet enters the network at the host's node.
    pub fn ingress(&mut self, now: Time, from: usize, buf: &[u8]) -> Result<(), Ignored> {
        let Some(p) = ip::parse(buf) else {
            self.ignored_not_ipv4 += 1;
            return Err(Ignored::NotIpv4);
        };
        let n = self.nodes.len();
        let (to, flow) = match self.by_addr.get(&p.dst) {
            Some(&to) if to != from => match self.flow_of[from * n + to] {
                Some(f) => (to, f),
                None => {
                    self.ignored_unknown_dst += 1;
                    return Err(Ignored::UnknownDestination);
                }
            },
            _ => {
                self.ignored_unknown_dst += 1;
                return Err(Ignored::UnknownDestination);
            }
        };
        let t = now.max(self.sim.now());
        self.sim.run_until(t);
        self.collect();
        let mut wire = p.wire;
        wire.flow = flow;
        wire.src = self.nodes[from];
        wire.dst = self.nodes[to];
        let id = self.sim.pool.alloc(Packet::new(wire, t));
        let tag = self.serial << 32 | id.0 as u64;
        self.serial += 1;
        self.sim.pool.get_mut(id).wire.udp_seq = tag;
        let slot = id.0 as usize;
        if self.held.len() <= slot {
            self.held.resize_with(slot + 1, Held::default);
        }
        let mut bytes = self.spare.pop().unwrap_or_default();
        bytes.clear();
        bytes.extend_from_slice(&buf[..p.wire.size as usize]);
        self.held[slot] = Held { tag, buf: bytes };
        self.injected += 1;
        self.sim.inject_packet(self.nodes[from], id);
        Ok(())
    }

    /// Take the packets the simulation handed to hosts out of `held`, with their bytes.
    fn collect(&mut self) {
        let mut out = self.out.borrow_mut();
        for o in out.drain(..) {
            let h = &mut self.held[(o.tag & 0xffff_ffff) as usize];
            if h.tag != o.tag || h.buf.is_empty() {
                // Not bytes of ours (no device copies a unicast packet; counted, not sent).
                self.unmatched += 1;
                continue;
            }
            let mut buf = std::mem::take(&mut h.buf);
            if buf[1] & 3 != o.ecn & 3 {
                ip::set_ecn(&mut buf, o.ecn);
            }
            self.ready.push((o.host, o.due, buf));
        }
    }

    /// Run every event due by `now`; `release(host, packet, due)` gets each packet that
    /// reached its destination host, with the time it arrived there.
    pub fn advance(&mut self, now: Time, mut release: impl FnMut(usize, &[u8], Time)) {
        self.sim.run_until(now.saturating_add(1));
        self.collect();
        for (host, due, buf) in self.ready.drain(..) {
            release(host, &buf, due);
            self.delivered += 1;
            self.spare.push(buf);
        }
    }

    /// When the next event is due.
    pub fn next_due(&mut self) -> Option<Time> {
        if !self.ready.is_empty() {
            return Some(self.sim.now());
        }
        self.sim.next_event_time()
    }

    /// Events the simulation has run.
    pub fn events(&self) -> u64 {
        self.sim.counters.events
    }

    /// Packets inside the simulated network (queued, on a medium, waiting for a resend).
    pub fn in_flight(&self) -> u64 {
        self.sim.pool.live() as u64
    }

    /// The simulator's result tables over `[0, end)`: `links` (point-to-point and TDMA link
    /// directions), `macs` (802.11 stations), `routing` (nodes running a protocol) and drops
    /// by cause, each row marked as the emulator's.
    pub fn close(mut self, end: Time) -> serde_json::Value {
        self.sim.close_at(end);
        let r = RunResult::from_sim(&self.sim);
        let mut v = serde_json::to_value(&r).expect("results serialize");
        let mut rows = |key: &str| -> serde_json::Value {
            let mut t = v[key].take();
            if let Some(a) = t.as_array_mut() {
                for row in a {
                    row["backend"] = "linux".into();
                }
            } else {
                t = serde_json::Value::Array(Vec::new());
            }
            t
        };
        let links = rows("links");
        let macs = rows("macs");
        let routing = rows("routing");
        let mut drops = v["drops"].take();
        if let (Some(m), None) = (drops.as_object_mut(), &self.sim.routing) {
            // As the point-to-point path: no route breaks under static routing.
            m.remove("route_break");
        }
        serde_json::json!({"links": links, "macs": macs, "routing": routing, "drops": drops})
    }

    /// The simulation (tests).
    pub fn sim(&self) -> &Sim {
        &self.sim
    }
}
