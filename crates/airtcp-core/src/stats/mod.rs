//! Run results: per-flow and per-channel tables, time series, and summary figures.

pub mod scoring;

pub use scoring::Scoring;

use serde::Serialize;
use std::collections::BTreeMap;

use crate::engine::{secs, SEC};
use crate::packet::DropCause;
use crate::sim::{Sim, Transport};

/// Jain's fairness index (Σx)² / (n·Σx²); 1 when all equal, 1/n when one takes all.
pub fn jain(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return 1.0;
    }
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if s2 == 0.0 {
        1.0
    } else {
        s * s / (xs.len() as f64 * s2)
    }
}

#[derive(Serialize, Debug, Clone)]
pub struct FlowResult {
    pub name: String,
    pub src: String,
    pub dst: String,
    pub transport: &'static str,
    pub cc: String,
    pub app: &'static str,
    pub start_s: f64,
    pub goodput_bps: f64,
    pub throughput_bps: f64,
    pub delivered_bytes: u64,
    pub sent_bytes: u64,
    pub sent_packets: u64,
    pub received_packets: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub ecn_reductions: u64,
    pub eln_retransmits: u64,
    /// Fast retransmits the scheme made without a window reduction.
    pub uncut_retransmits: u64,
    pub window_probes: u64,
    /// Tail loss probes sent (RFC 8985), and those that repaired a loss (a reduction each).
    pub tlp_probes: u64,
    pub tlp_recoveries: u64,
    /// Timeouts F-RTO found spurious and undid.
    pub spurious_timeouts: u64,
    /// Final bandwidth estimate of schemes that keep one (Westwood family), bits/s.
    pub bwe_bps: Option<f64>,
    pub avg_cwnd_segments: f64,
    pub rtt_min_s: Option<f64>,
    pub rtt_mean_s: Option<f64>,
    pub srtt_s: Option<f64>,
    pub rto_s: Option<f64>,
    pub rto_mean_s: Option<f64>,
    pub completion_time_s: Option<f64>,
    pub lost_packets: u64,
    pub lost_congestion: u64,
    pub lost_channel_error: u64,
    pub lost_acks: u64,
    pub order_violations: u64,
    /// The scheme's verdicts on loss causes scored against the ground truth (all zero for
    /// schemes that do not judge).
    #[serde(flatten)]
    pub scoring: Scoring,
    /// The same for the verdicts made after the scenario's `warmup`.
    pub steady_verdicts_on_wireless_loss: u64,
    pub steady_verdicts_on_congestion_loss: u64,
    pub steady_type1_errors: u64,
    pub steady_type2_errors: u64,
    pub steady_type1_rate: Option<f64>,
    pub steady_type2_rate: Option<f64>,
    #[serde(skip)]
    pub steady: Scoring,
    /// Scheme-specific figures (`CongestionControl::metrics`), one column each.
    #[serde(flatten)]
    pub extra: BTreeMap<&'static str, f64>,
}

#[derive(Serialize, Debug, Clone)]
pub struct LinkResult {
    pub name: String,
    pub link: String,
    pub from: String,
    pub to: String,
    pub kind: &'static str,
    pub rate_bps: u64,
    pub utilization: f64,
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub mean_queue_packets: f64,
    pub max_queue_packets: u64,
    pub drops_queue_overflow: u64,
    pub drops_aqm: u64,
    pub drops_channel_error: u64,
    pub ecn_marks: u64,
    /// Multi-level ECN: marks '10' (mild) and '11' (severe; CE for RED and step marking).
    pub ecn_marks_mild: u64,
    pub ecn_marks_severe: u64,
    /// RED-family average queue at the end of the run.
    pub red_avg_queue: Option<f64>,
    pub arq_retransmissions: u64,
}

#[derive(Serialize, Debug, Clone, Default)]
pub struct PacketTotals {
    pub sent: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_flight: u64,
    /// Live packets in the arena: must equal `in_flight` (a leak check).
    pub live_in_arena: u64,
}

#[derive(Serialize, Debug, Clone)]
pub struct CwndSeries {
    pub t: Vec<f64>,
    pub cwnd: Vec<f64>,
    pub ssthresh: Vec<f64>,
}

/// A scheme's state (e.g. BBR's `startup`, `drain`, `probe_bw`, `probe_rtt`) from each time
/// it changed.
#[derive(Serialize, Debug, Clone)]
pub struct StateSeries {
    pub t: Vec<f64>,
    pub state: Vec<&'static str>,
}

#[derive(Serialize, Debug, Clone)]
pub struct QueueSeries {
    pub t: Vec<f64>,
    pub packets: Vec<u32>,
}

/// A flow's loss-cause verdicts, one entry per verdict.
#[derive(Serialize, Debug, Clone)]
pub struct VerdictSeries {
    pub t: Vec<f64>,
    /// The segment judged lost (its first byte).
    pub seq: Vec<u64>,
    /// How the loss was found: "dup_acks" or "timeout".
    pub kind: Vec<&'static str>,
    pub verdict: Vec<crate::tcp::cc::LossClass>,
    pub truth: Vec<scoring::Truth>,
}

#[derive(Serialize, Debug, Clone, Default)]
pub struct Series {
    pub cwnd: BTreeMap<String, CwndSeries>,
    pub queue: BTreeMap<String, QueueSeries>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub verdicts: BTreeMap<String, VerdictSeries>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub cc_state: BTreeMap<String, StateSeries>,
    /// Radio nodes' positions (`trace.positions`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub positions: BTreeMap<String, crate::mobility::series::PositionSeries>,
    /// Power of each frame each station sensed (`trace.rssi`), by station.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub rssi: BTreeMap<String, crate::mobility::series::RssiSeries>,
}

#[derive(Serialize, Debug, Clone)]
pub struct RunResult {
    pub name: String,
    pub seed: u64,
    pub duration_s: f64,
    pub events: u64,
    pub packet_hops: u64,
    pub packets: PacketTotals,
    pub drops: BTreeMap<&'static str, u64>,
    /// Jain's index over the goodput of TCP flows.
    pub fairness: f64,
    /// Loss-cause verdicts of all flows, scored against the ground truth.
    pub loss_classification: Scoring,
    /// The same for the verdicts made after the scenario's `warmup`.
    pub loss_classification_steady: Scoring,
    pub flows: Vec<FlowResult>,
    pub links: Vec<LinkResult>,
    pub agents: Vec<crate::hook::HookResult>,
    /// One row per station of a shared medium (absent from wired-only runs).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub macs: Vec<crate::device::MacResult>,
    /// One row per node that runs a routing protocol (`kind` is the protocol): control
    /// overhead by message type, discoveries, breaks (absent with static routing).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub routing: Vec<crate::hook::HookResult>,
    /// The route each flow's data took, one row per change (`trace.routes`; absent
    /// otherwise).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub routes: Vec<RouteRow>,
    pub series: Series,
    /// Set when the run stopped before its end (a budget, an interruption): everything
    /// above covers [0, `reached_s`) only. Absent from a complete run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<Partial>,
}

/// From time `t` on, `flow`'s data went along `path` (node names from the source; a path
/// that stops before the destination ends where the data was held or dropped for lack of a
/// route).
#[derive(Serialize, Debug, Clone)]
pub struct RouteRow {
    pub flow: String,
    pub t: f64,
    pub path: Vec<String>,
}

/// How far a run that stopped early got.
#[derive(Clone, Debug, Serialize)]
pub struct Partial {
    /// `interrupted`, `timeout`, `memory_budget` or `max_events`.
    pub reason: &'static str,
    /// Simulated time reached, and the scenario's duration, in seconds.
    pub reached_s: f64,
    pub duration_s: f64,
    /// The budget's error, for a run stopped by one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl RunResult {
    /// The result of a simulation that may go on being inspected.
    pub fn from_sim(sim: &Sim) -> RunResult {
        let totals = (sim.packets_in_network(), sim.pool.live() as u64);
        let (flows, series) = Self::flow_rows(sim);
        let routes = Self::route_rows(sim);
        Self::assemble(sim, totals, flows, series, routes)
    }

    /// The result of a finished simulation, letting go of its packets, events and flows
    /// before the link rows are built: with hundreds of flows and thousands of link
    /// directions the rows would otherwise be the run's peak memory.
    pub fn from_finished(mut sim: Sim) -> RunResult {
        let totals = (sim.packets_in_network(), sim.pool.live() as u64);
        sim.pool = Default::default();
        sim.sched = Default::default();
        let (flows, series) = Self::flow_rows(&sim);
        let routes = Self::route_rows(&sim);
        sim.flows = Vec::new();
        Self::assemble(&sim, totals, flows, series, routes)
    }

    fn flow_rows(sim: &Sim) -> (Vec<FlowResult>, Series) {
        let end = sim.end;
        let node = |n: crate::ids::NodeId| sim.nodes[n.idx()].name.clone();
        let mut flows = Vec::with_capacity(sim.flows.len());
        let mut series = Series::default();
        for flow in &sim.flows {
            let lost_by = |c: DropCause| flow.losses.data[c.index()];
            let lost_packets: u64 = flow.losses.data.iter().sum();
            let lost_congestion = DropCause::ALL
                .iter()
                .filter(|c| c.is_congestion())
                .map(|c| lost_by(*c))
                .sum();
            let mut r = FlowResult {
                name: flow.name.clone(),
                src: node(flow.src),
                dst: node(flow.dst),
                transport: "udp",
                cc: flow.cc_name.clone(),
                app: flow.app_kind,
                start_s: secs(flow.start),
                goodput_bps: 0.0,
                throughput_bps: 0.0,
                delivered_bytes: 0,
                sent_bytes: 0,
                sent_packets: 0,
                received_packets: 0,
                retransmissions: 0,
                timeouts: 0,
                fast_retransmits: 0,
                ecn_reductions: 0,
                eln_retransmits: 0,
                window_probes: 0,
                tlp_probes: 0,
                tlp_recoveries: 0,
                spurious_timeouts: 0,
                bwe_bps: None,
                avg_cwnd_segments: 0.0,
                rtt_min_s: None,
                rtt_mean_s: None,
                srtt_s: None,
                rto_s: None,
                rto_mean_s: None,
                completion_time_s: None,
                lost_packets,
                lost_congestion,
                lost_channel_error: lost_by(DropCause::ChannelError),
                lost_acks: flow.losses.acks.iter().sum(),
                order_violations: 0,
                uncut_retransmits: 0,
                scoring: Scoring::default(),
                steady_verdicts_on_wireless_loss: 0,
                steady_verdicts_on_congestion_loss: 0,
                steady_type1_errors: 0,
                steady_type2_errors: 0,
                steady_type1_rate: None,
                steady_type2_rate: None,
                steady: Scoring::default(),
                extra: BTreeMap::new(),
            };
            match &flow.transport {
                Transport::Tcp(t) => {
                    let s = &t.tx.stats;
                    let until = s.completed_at.unwrap_or(end).max(flow.start);
                    let active = (until - flow.start).max(1) as f64 / SEC as f64;
                    r.transport = "tcp";
                    r.delivered_bytes = t.rx.stats.delivered_bytes;
                    r.goodput_bps = t.rx.stats.delivered_bytes as f64 * 8.0 / active;
                    r.throughput_bps = t.rx.stats.received_bytes as f64 * 8.0 / active;
                    r.sent_bytes = s.sent_bytes;
                    r.sent_packets = s.sent_packets;
                    r.received_packets = t.rx.stats.received_packets;
                    r.retransmissions = s.retransmissions;
                    r.timeouts = s.timeouts;
                    r.fast_retransmits = s.fast_retransmits;
                    r.ecn_reductions = s.ecn_reductions + t.tx.cc().mark_reductions();
                    r.eln_retransmits = s.eln_retransmits;
                    r.uncut_retransmits = s.uncut_retransmits;
                    r.scoring = Scoring::score(&t.tx.decisions, &flow.loss_log);
                    let from = t.tx.decisions.partition_point(|d| d.at < sim.warmup);
                    let st = Scoring::score(&t.tx.decisions[from..], &flow.loss_log);
                    r.steady_verdicts_on_wireless_loss = st.verdicts_on_wireless_loss;
                    r.steady_verdicts_on_congestion_loss = st.verdicts_on_congestion_loss;
                    r.steady_type1_errors = st.type1_errors;
                    r.steady_type2_errors = st.type2_errors;
                    r.steady_type1_rate = st.type1_rate;
                    r.steady_type2_rate = st.type2_rate;
                    r.steady = st;
                    if sim.trace_verdicts && !t.tx.decisions.is_empty() {
                        let d = &t.tx.decisions;
                        series.verdicts.insert(
                            flow.name.clone(),
                            VerdictSeries {
                                t: d.iter().map(|x| secs(x.at)).collect(),
                                seq: d.iter().map(|x| x.seq).collect(),
                                kind: d
                                    .iter()
                                    .map(|x| match x.kind {
                                        crate::tcp::cc::CongestionKind::Timeout => "timeout",
                                        _ => "dup_acks",
                                    })
                                    .collect(),
                                verdict: d.iter().map(|x| x.class).collect(),
                                truth: scoring::truths(d, &flow.loss_log),
                            },
                        );
                    }
                    r.window_probes = s.window_probes;
                    r.tlp_probes = s.tlp_probes;
                    r.tlp_recoveries = s.tlp_recoveries;
                    r.spurious_timeouts = s.spurious_timeouts;
                    r.bwe_bps = t.tx.cc().bandwidth_estimate();
                    let mut extra = Vec::new();
                    t.tx.cc().metrics(&mut extra);
                    if let Some(p) = t.rx.window_policy() {
                        p.metrics(&mut extra);
                    }
                    r.extra.extend(extra);
                    r.avg_cwnd_segments = s.cwnd_area as f64
                        / (until - flow.start).max(1) as f64
                        / t.tx.st.mss as f64;
                    r.rtt_min_s = t.tx.rtt.min_rtt.map(secs);
                    r.rtt_mean_s = t.tx.rtt.mean().map(|m| m / SEC as f64);
                    r.srtt_s = t.tx.rtt.srtt.map(secs);
                    r.rto_s = Some(secs(t.tx.rtt.rto));
                    r.rto_mean_s = t.tx.rtt.mean_rto().map(|m| m / SEC as f64);
                    r.completion_time_s = s.completed_at.map(|c| secs(c - flow.start));
                    r.order_violations = t.order_violations;
                    if flow.trace_cwnd {
                        let mss = t.tx.st.mss as f64;
                        series.cwnd.insert(
                            flow.name.clone(),
                            CwndSeries {
                                t: flow.cwnd_series.iter().map(|x| secs(x.0)).collect(),
                                cwnd: flow.cwnd_series.iter().map(|x| x.1 as f64 / mss).collect(),
                                ssthresh: flow
                                    .cwnd_series
                                    .iter()
                                    .map(|x| x.2 as f64 / mss)
                                    .collect(),
                            },
                        );
                        if !flow.state_series.is_empty() {
                            series.cc_state.insert(
                                flow.name.clone(),
                                StateSeries {
                                    t: flow.state_series.iter().map(|x| secs(x.0)).collect(),
                                    state: flow.state_series.iter().map(|x| x.1).collect(),
                                },
                            );
                        }
                    }
                }
                Transport::Udp(u) => {
                    let active = (end.saturating_sub(flow.start)).max(1) as f64 / SEC as f64;
                    r.delivered_bytes = u.received_bytes;
                    r.goodput_bps = u.received_bytes as f64 * 8.0 / active;
                    r.throughput_bps = r.goodput_bps;
                    r.sent_bytes = u.sent_bytes;
                    r.sent_packets = u.sent_packets;
                    r.received_packets = u.received_packets;
                }
            }
            if sim.routing.is_some() {
                // Packet delivery ratio: data packets (with retransmissions) that reached the
                // receiver, of those the source sent.
                let pdr = r.received_packets as f64 / r.sent_packets.max(1) as f64;
                r.extra.insert("pdr", pdr);
            }
            flows.push(r);
        }
        (flows, series)
    }

    /// The `routes` table: the changes a dynamic run logged, or each flow's static route
    /// from its start.
    fn route_rows(sim: &Sim) -> Vec<RouteRow> {
        if !sim.trace_routes {
            return Vec::new();
        }
        let name = |n: crate::ids::NodeId| sim.nodes[n.idx()].name.clone();
        let flow = |f: crate::ids::FlowId| sim.flows.get(f.idx()).map(|f| f.name.clone());
        if let Some(log) = sim.routing.as_ref().and_then(|l| l.paths.as_ref()) {
            return log
                .rows
                .iter()
                .filter_map(|(t, f, path)| {
                    Some(RouteRow {
                        flow: flow(*f)?,
                        t: secs(*t),
                        path: path.iter().map(|&n| name(n)).collect(),
                    })
                })
                .collect();
        }
        let mut rows: Vec<RouteRow> = sim
            .flows
            .iter()
            .map(|f| RouteRow {
                flow: f.name.clone(),
                t: secs(f.start),
                path: static_path(sim, f.src, f.dst)
                    .into_iter()
                    .map(name)
                    .collect(),
            })
            .collect();
        rows.sort_by(|a, b| a.t.total_cmp(&b.t));
        rows
    }

    /// Everything but the flow rows; `totals` = (packets in the network, live in the arena).
    fn assemble(
        sim: &Sim,
        totals: (u64, u64),
        flows: Vec<FlowResult>,
        mut series: Series,
        routes: Vec<RouteRow>,
    ) -> RunResult {
        let end = sim.end;
        let links = sim
            .devices
            .iter()
            .filter_map(|d| d.link_result(&sim.nodes, end))
            .collect();
        if let Some(t) = sim.radio_trace.as_ref().and_then(|r| r.positions.as_ref()) {
            series.positions = t.series(end);
        }
        series.rssi = crate::mobility::series::rssi(sim);
        for (d, s) in &sim.queue_trace {
            series.queue.insert(
                sim.devices[d.idx()].name().to_string(),
                QueueSeries {
                    t: s.iter().map(|x| secs(x.0)).collect(),
                    packets: s.iter().map(|x| x.1).collect(),
                },
            );
        }
        let dropped: u64 = sim.counters.dropped.iter().sum();
        // `route_break` exists only where routes can break (runs with dynamic routing).
        let drops = DropCause::ALL
            .iter()
            .filter(|c| **c != DropCause::RouteBreak || sim.routing.is_some())
            .map(|c| (c.name(), sim.counters.dropped[c.index()]))
            .collect();
        let tcp_goodputs: Vec<f64> = flows
            .iter()
            .filter(|f| f.transport == "tcp")
            .map(|f| f.goodput_bps)
            .collect();
        RunResult {
            name: sim.name.clone(),
            seed: sim.seed,
            duration_s: secs(end),
            events: sim.counters.events,
            packet_hops: sim.counters.packet_hops,
            packets: PacketTotals {
                sent: sim.counters.injected,
                delivered: sim.counters.delivered,
                dropped,
                in_flight: totals.0,
                live_in_arena: totals.1,
            },
            drops,
            fairness: jain(&tcp_goodputs),
            loss_classification: flows
                .iter()
                .fold(Scoring::default(), |acc, f| acc + f.scoring),
            loss_classification_steady: flows
                .iter()
                .fold(Scoring::default(), |acc, f| acc + f.steady),
            flows,
            links,
            agents: sim
                .hooks
                .iter()
                .map(|h| {
                    let mut m = Vec::new();
                    h.hook.metrics(&mut m);
                    crate::hook::HookResult {
                        kind: h.hook.kind(),
                        node: sim.nodes[h.node.idx()].name.clone(),
                        metrics: m.into_iter().collect(),
                    }
                })
                .collect(),
            macs: sim
                .devices
                .iter()
                .filter_map(|d| d.mac_result(end))
                .collect(),
            routing: sim.routing.as_ref().map_or_else(Vec::new, |l| {
                (0..l.agents.len())
                    .filter_map(|n| {
                        Some(crate::hook::HookResult {
                            kind: l.agents[n].as_ref()?.name(),
                            node: sim.nodes[n].name.clone(),
                            metrics: l.row(n)?,
                        })
                    })
                    .collect()
            }),
            routes,
            series,
            partial: sim.watch.stopped.as_ref().map(|s| Partial {
                reason: s.reason(),
                reached_s: secs(sim.end),
                duration_s: secs(sim.watch.planned_end),
                error: sim.watch.error.as_ref().map(|e| e.to_string()),
            }),
        }
    }
}

/// The nodes of the static route from `src` toward `dst` (up to where it ends).
fn static_path(
    sim: &Sim,
    src: crate::ids::NodeId,
    dst: crate::ids::NodeId,
) -> Vec<crate::ids::NodeId> {
    let mut path = vec![src];
    let mut at = src;
    while at != dst && path.len() <= sim.nodes.len() {
        let Some((_, next)) = sim.routes.next_hop(at, dst) else {
            break;
        };
        path.push(next);
        at = next;
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index() {
        assert!((jain(&[1.0, 1.0, 1.0]) - 1.0).abs() < 1e-12);
        assert!((jain(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        // (1+2+3)^2 / (3 * 14) = 36/42
        assert!((jain(&[1.0, 2.0, 3.0]) - 36.0 / 42.0).abs() < 1e-12);
    }
}
