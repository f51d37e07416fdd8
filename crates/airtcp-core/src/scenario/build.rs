//! Validation and construction of a simulation from a scenario. Every check names the field
//! path and the offending value.

use std::collections::BTreeMap;

use super::files::FileAccess;
use super::params_meta;
use super::schema::*;
use super::units::Duration;
use super::wifi::{fading, wifi_params};
use super::ScenarioError;
use crate::app::App;
use crate::device::wifi::{Hear, Station};
use crate::device::{AnyDevice, Arq, P2p, Tdma, TdmaDev, TdmaOwner, WifiDev, WifiNet};
use crate::engine::{tx_time, Rng, Scheduler, Time, MS, SEC};
use crate::hook::{Drai, DraiParams, Eln, ExplicitRate, Hook, Snoop, SnrGate};
use crate::ids::{DevId, FlowId, HookId, NodeId};
use crate::link::{ErrorKind, ErrorModel, GilbertElliott, SnrErrors, SnrSeries};
use crate::medium::radio;
use crate::medium::Wire;
use crate::queue::mecn::Thresholds;
use crate::queue::{
    droptail::Limit, AnyQueue, CongestionWarning, DropTail, Mecn, QueuePolicy, Red, ThresholdMark,
    Wmecn,
};
use crate::sim::{Ev, Flow, FlowLosses, HookSlot, Sim, TcpFlow, Transport, UdpFlow};
use crate::tcp::{cc, TcpConfig, TcpReceiver, TcpSender};
use crate::topology::routing::Adjacency;
use crate::topology::{Node, Routes};
use crate::util::unknown_name;
use std::cell::RefCell;
use std::rc::Rc;

pub(super) type R<T> = Result<T, ScenarioError>;

/// Most samples a synthesized or traced series may hold (memory is proportional to it).
const MAX_SERIES: usize = 10_000_000;
/// Most samples all the series of a run may hold together (a scenario can list many links
/// and queues): 400 MB of SNR samples, or of queue samples.
const MAX_SERIES_TOTAL: usize = 25_000_000;
/// Longest interface queue: 10^7 packets, or 10^11 bytes.
const MAX_QUEUE_PACKETS: u64 = 10_000_000;
const MAX_QUEUE_BYTES: u64 = 100_000_000_000;
/// Event budget when the scenario sets none (about ten minutes of a fast core).
pub const DEFAULT_MAX_EVENTS: u64 = 5_000_000_000;

pub(super) fn err<T>(path: impl Into<String>, msg: impl Into<String>) -> R<T> {
    Err(ScenarioError::new(path, msg))
}

/// `v` within the range the key table declares for `table.key` (taken by `variant`), else an
/// error at `path` quoting that range (as `airtcp params` lists it).
fn ranged(table: &str, variant: &str, key: &str, v: f64, path: String) -> R<f64> {
    params_meta::check(table, variant, key, v).map_err(|m| ScenarioError::new(path, m))
}

const ERRORS: &str = "links[].error";
const QUEUES: &str = "links[].queue";
const AGENTS: &str = "agents[]";

/// Build a channel's error model; SNR series it needs are appended to `snr`. Public so that
/// other backends (the real-time emulator) run the same models from the same scenario.
pub fn error_model(
    spec: Option<&ErrorSpec>,
    path: &str,
    seed: u64,
    stream: &str,
    end: Time,
    snr: &mut Vec<SnrSeries>,
    files: &FileAccess,
) -> R<ErrorModel> {
    let Some(e) = spec else {
        return Ok(ErrorModel::none());
    };
    let rng = || Rng::for_component(seed, stream);
    let (applies_to, kind) = match e {
        ErrorSpec::None { applies_to } => (*applies_to, ErrorKind::None),
        ErrorSpec::Bernoulli { per, applies_to } => (
            *applies_to,
            ErrorKind::Bernoulli {
                per: ranged(ERRORS, "bernoulli", "per", *per, format!("{path}.per"))?,
                rng: rng(),
            },
        ),
        ErrorSpec::Ber { ber, applies_to } => (
            *applies_to,
            ErrorKind::Ber {
                ber: ranged(ERRORS, "ber", "ber", *ber, format!("{path}.ber"))?,
                rng: rng(),
            },
        ),
        ErrorSpec::GilbertElliott {
            mean_good,
            mean_bad,
            per_good,
            per_bad,
            applies_to,
        } => {
            for (k, d) in [("mean_good", mean_good), ("mean_bad", mean_bad)] {
                if d.0 <= 0.0 {
                    return err(format!("{path}.{k}"), format!("must be > 0, got {}", d.0));
                }
            }
            let mut r = rng();
            // Start in the stationary distribution so the loss rate holds from t = 0.
            let pi_bad = mean_bad.0 / (mean_good.0 + mean_bad.0);
            let bad = r.bernoulli(pi_bad);
            let first = r.exponential(if bad { mean_bad.0 } else { mean_good.0 });
            (
                *applies_to,
                ErrorKind::GilbertElliott(Box::new(GilbertElliott {
                    mean_good: mean_good.0,
                    mean_bad: mean_bad.0,
                    per_good: ranged(
                        ERRORS,
                        "gilbert_elliott",
                        "per_good",
                        *per_good,
                        format!("{path}.per_good"),
                    )?,
                    per_bad: ranged(
                        ERRORS,
                        "gilbert_elliott",
                        "per_bad",
                        *per_bad,
                        format!("{path}.per_bad"),
                    )?,
                    bad,
                    next_switch: ((first * SEC as f64) as Time).max(1),
                    rng: r,
                })),
            )
        }
        ErrorSpec::List {
            packets,
            applies_to,
        } => {
            let mut packets = packets.clone();
            packets.sort_unstable();
            packets.dedup();
            (
                *applies_to,
                ErrorKind::List {
                    packets,
                    seen: 0,
                    next: 0,
                },
            )
        }
        ErrorSpec::Hashed { per, seed } => (
            AppliesTo::Data,
            ErrorKind::Hashed {
                per: ranged(ERRORS, "hashed", "per", *per, format!("{path}.per"))?,
                seed: *seed,
                copies: std::collections::BTreeMap::new(),
            },
        ),
        ErrorSpec::Snr {
            modulation,
            trace,
            samples,
            synth,
            interval,
            applies_to,
            shared,
            per_size,
        } => {
            let iv = interval.ns();
            if per_size == &Some(0) {
                let m = params_meta::check("links[].error", "snr", "per_size", 0.0);
                return err(format!("{path}.per_size"), m.unwrap_err());
            }
            if iv == 0 {
                return err(format!("{path}.interval"), "must be > 0");
            }
            let given = [trace.is_some(), samples.is_some(), synth.is_some()];
            if given.iter().filter(|g| **g).count() != 1 {
                return err(
                    path.to_string(),
                    "an snr model needs exactly one of `trace`, `samples` or `synth`",
                );
            }
            let series = if let Some(file) = trace {
                let text = files
                    .read_text(file)
                    .map_err(|m| ScenarioError::new(format!("{path}.trace"), m))?;
                let series = SnrSeries::parse_csv(&text, iv).map_err(|m| {
                    ScenarioError::new(format!("{path}.trace"), format!("'{file}': {m}"))
                })?;
                if series.samples_db.len() > MAX_SERIES {
                    return err(
                        format!("{path}.trace"),
                        format!("'{file}' holds more than {MAX_SERIES} samples"),
                    );
                }
                series
            } else if let Some(v) = samples {
                if v.is_empty() || v.iter().any(|x| !x.is_finite()) {
                    return err(format!("{path}.samples"), "needs finite SNR values (dB)");
                }
                SnrSeries {
                    interval: iv,
                    samples_db: v.clone(),
                }
            } else {
                let sy = synth.as_ref().expect("one source checked");
                sy.check()
                    .map_err(|(k, m)| ScenarioError::new(format!("{path}.synth.{k}"), m))?;
                let n = (end / iv) as usize + 1;
                if n > MAX_SERIES {
                    return err(
                        format!("{path}.interval"),
                        format!(
                        "{} s over the run's {} s would make {n} SNR samples (limit {MAX_SERIES})",
                        interval.0,
                        end as f64 / SEC as f64
                    ),
                    );
                }
                // A shared trace is the a->b direction's, drawn from that direction's stream.
                let own = format!("{stream}/snr");
                let from = if *shared {
                    own.replace("/ba/error/snr", "/ab/error/snr")
                } else {
                    own
                };
                sy.generate(n, iv, &mut Rng::for_component(seed, &from))
            };
            let total: usize = snr.iter().map(|s| s.samples_db.len()).sum();
            if total + series.samples_db.len() > MAX_SERIES_TOTAL {
                return err(
                    path.to_string(),
                    format!(
                        "its {} SNR samples would bring the run's SNR series to {} samples, \
                         more than the {MAX_SERIES_TOTAL} all series may hold together",
                        series.samples_db.len(),
                        total + series.samples_db.len()
                    ),
                );
            }
            snr.push(series);
            (
                *applies_to,
                ErrorKind::Snr(Box::new(SnrErrors {
                    series: snr.len() - 1,
                    modulation: *modulation,
                    rng: rng(),
                    cache: None,
                    per_size: *per_size,
                })),
            )
        }
    };
    Ok(ErrorModel { applies_to, kind })
}

fn drai_params(
    p: &str,
    queue_low: f64,
    queue_mid: f64,
    queue_high: f64,
    busy_low: f64,
    weight: f64,
    window: Duration,
) -> R<DraiParams> {
    let queue_low = ranged(
        AGENTS,
        "drai",
        "queue_low",
        queue_low,
        format!("{p}.queue_low"),
    )?;
    if !(queue_mid.is_finite() && queue_mid >= queue_low) {
        return err(
            format!("{p}.queue_mid"),
            format!("must be >= queue_low ({queue_low}), got {queue_mid}"),
        );
    }
    if !(queue_high.is_finite() && queue_high >= queue_mid) {
        return err(
            format!("{p}.queue_high"),
            format!("must be >= queue_mid ({queue_mid}), got {queue_high}"),
        );
    }
    let busy_low = ranged(
        AGENTS,
        "drai",
        "busy_low",
        busy_low,
        format!("{p}.busy_low"),
    )?;
    ranged(AGENTS, "drai", "weight", weight, format!("{p}.weight"))?;
    let window = window.ns();
    if window == 0 {
        return err(format!("{p}.window"), "must be > 0");
    }
    Ok(DraiParams {
        queue_low,
        queue_mid,
        queue_high,
        busy_low,
        weight,
        window,
        drop_memory: window,
        drop_memory_rtts: 0.0,
    })
}

fn check_queue_limit(q: &QueueSpec, path: &str) -> R<()> {
    if q.limit() == 0 {
        return err(format!("{path}.limit"), "must be >= 1, got 0");
    }
    let cap = match q.unit() {
        QueueUnit::Packets => MAX_QUEUE_PACKETS,
        QueueUnit::Bytes => MAX_QUEUE_BYTES,
    };
    if q.limit() > cap {
        return err(
            format!("{path}.limit"),
            format!("must be at most {cap}, got {}", q.limit()),
        );
    }
    Ok(())
}

pub(super) fn finite_in(v: f64, lo: f64, hi: f64, path: String) -> R<f64> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(v)
    } else {
        err(path, format!("must be in [{lo}, {hi}], got {v}"))
    }
}

/// A queue's probability or weight `key` (`default` if unset), in its declared range.
fn probability(q: &QueueSpec, key: &str, v: Option<f64>, default: f64, path: &str) -> R<f64> {
    let v = v.unwrap_or(default);
    ranged(QUEUES, q.kind_name(), key, v, format!("{path}.{key}"))
}

/// The queue policy of one link direction (public for the same reason as [`error_model`]).
pub fn queue_policy(
    q: &QueueSpec,
    path: &str,
    rate_bps: u64,
    rng: impl FnOnce() -> Rng,
) -> R<AnyQueue> {
    let limit = match q.unit() {
        QueueUnit::Packets => Limit::Packets(q.limit()),
        QueueUnit::Bytes => Limit::Bytes(q.limit()),
    };
    let boxed: Box<dyn QueuePolicy> = match q {
        QueueSpec::Droptail { .. } => return Ok(AnyQueue::DropTail(DropTail { limit })),
        QueueSpec::EcnThreshold {
            mark_threshold,
            count_starting,
            ..
        } => Box::new(ThresholdMark {
            limit,
            mark_at: *mark_threshold,
            marked: 0,
            count_starting: *count_starting,
        }),
        QueueSpec::Red { gentle, ecn, .. } => {
            let r = red_family(q, limit, path, rate_bps)?;
            Box::new(Red::new(
                limit,
                r.th.min,
                r.th.max,
                r.max_p,
                r.weight,
                gentle.unwrap_or(false),
                ecn.unwrap_or(true),
                r.size,
                r.typical_tx,
                rng(),
            ))
        }
        QueueSpec::Mecn { max_p2, .. } => {
            let r = red_family(q, limit, path, rate_bps)?;
            let max_p2 = probability(q, "max_p2", *max_p2, r.max_p, path)?;
            Box::new(Mecn::new(
                limit,
                r.th,
                r.max_p,
                max_p2,
                r.weight,
                r.typical_tx,
                rng(),
            ))
        }
        QueueSpec::Wmecn { .. } => {
            let r = red_family(q, limit, path, rate_bps)?;
            Box::new(Wmecn::new(
                limit,
                r.th,
                r.max_p,
                r.weight,
                r.typical_tx,
                rng(),
            ))
        }
        QueueSpec::Cw {
            threshold,
            weight,
            mean_packet_size,
            ..
        } => {
            let size = mean_packet_size.unwrap_or(1000);
            if size == 0 {
                ranged(
                    QUEUES,
                    "cw",
                    "mean_packet_size",
                    0.0,
                    format!("{path}.mean_packet_size"),
                )?;
            }
            let cap = q.limit() as f64;
            // Half the buffer by default: a warning well before the queue overflows.
            let th = threshold.unwrap_or(cap / 2.0);
            if !(th.is_finite() && th > 0.0 && th <= cap) {
                return err(
                    format!("{path}.threshold"),
                    format!("must be in (0, limit = {cap}], got {th}"),
                );
            }
            let w = probability(q, "weight", *weight, 0.002, path)?;
            Box::new(CongestionWarning::new(
                limit,
                th,
                w,
                tx_time(size as u64, rate_bps),
            ))
        }
    };
    Ok(AnyQueue::Other(boxed))
}

/// Checked RED-family settings.
struct RedFamily {
    th: Thresholds,
    max_p: f64,
    weight: f64,
    size: u32,
    typical_tx: Time,
}

/// RED, MECN and WMECN: thresholds in the queue's unit (defaults 5/10/15 packets, or that many
/// typical packets in bytes), w_q 0.002, max_p 0.1 (see docs/scenario.md for the sources).
fn red_family(q: &QueueSpec, limit: Limit, path: &str, rate_bps: u64) -> R<RedFamily> {
    let p = q.red_params().expect("a RED-family queue");
    let size = p.mean_packet_size.unwrap_or(1000);
    if size == 0 {
        let key = "mean_packet_size";
        ranged(QUEUES, q.kind_name(), key, 0.0, format!("{path}.{key}"))?;
    }
    let (scale, cap) = match limit {
        Limit::Packets(n) => (1.0, n as f64),
        Limit::Bytes(b) => (size as f64, b as f64),
    };
    let min = p.min_threshold.unwrap_or(5.0 * scale);
    let mid = p.mid_threshold.unwrap_or(10.0 * scale);
    let max = p.max_threshold.unwrap_or(15.0 * scale);
    let multi = !matches!(q, QueueSpec::Red { .. });
    for (f, v) in [
        ("min_threshold", min),
        ("mid_threshold", mid),
        ("max_threshold", max),
    ] {
        if f != "mid_threshold" || multi {
            ranged(QUEUES, q.kind_name(), f, v, format!("{path}.{f}"))?;
        }
    }
    if multi && !(min < mid && mid < max) {
        return err(
            format!("{path}.mid_threshold"),
            format!("thresholds must satisfy min < mid < max, got {min} / {mid} / {max}"),
        );
    }
    if min >= max {
        return err(
            format!("{path}.max_threshold"),
            format!("must be above min_threshold ({min}), got {max}"),
        );
    }
    if max > cap {
        return err(
            format!("{path}.max_threshold"),
            format!("{max} is above the queue limit ({cap}): the average could never reach it"),
        );
    }
    Ok(RedFamily {
        th: Thresholds { min, mid, max },
        max_p: probability(q, "max_p", p.max_p, 0.1, path)?,
        weight: probability(q, "weight", p.weight, 0.002, path)?,
        size,
        typical_tx: tx_time(size as u64, rate_bps),
    })
}

fn tcp_config(opts: &TcpOptions, path: &str) -> R<TcpConfig> {
    super::tcp_options::tcp_config(opts)
        .map_err(|(k, m)| ScenarioError::new(format!("{path}.{k}"), m))
}

/// Building a simulation, one step per part of the scenario: global settings, nodes, links
/// (devices and media), routes, flows, hooks, traces. Each step validates its part and names
/// the field of any bad value.
struct Builder<'a> {
    sc: &'a Scenario,
    files: &'a FileAccess,
    end: Time,
    by_name: BTreeMap<&'a str, NodeId>,
    nodes: Vec<Node>,
    devices: Vec<AnyDevice>,
    adjacency: Vec<Adjacency>,
    snr: Vec<SnrSeries>,
    /// Link name -> (index, [device a->b, device b->a]).
    link_names: BTreeMap<String, (usize, [DevId; 2])>,
    /// TDMA media by name: (index in `media`, slot frame, schedule, member devices).
    tdma: BTreeMap<String, TdmaBuild>,
    sched: Scheduler<Ev>,
    /// Each 802.11 station's device and the index of its medium.
    stations: Vec<(DevId, usize)>,
    /// Each node's mobility model (None: no position).
    models: Vec<Option<crate::mobility::Model>>,
}

struct TdmaBuild {
    index: usize,
    frame: Rc<RefCell<Tdma>>,
    schedule: TdmaSchedule,
    devices: Vec<DevId>,
}

/// Build a simulation; a file the scenario names is read relative to the working directory
/// and only below it (see [`build_with`]).
pub fn build(sc: &Scenario) -> R<Sim> {
    build_with(sc, &FileAccess::default())
}

/// Build a simulation, reading the files the scenario names as `files` allows.
pub fn build_with(sc: &Scenario, files: &FileAccess) -> R<Sim> {
    let end = globals(sc)?;
    let mut b = Builder {
        sc,
        files,
        end,
        by_name: BTreeMap::new(),
        nodes: Vec::new(),
        // Two directions per link (stations of media come on top): no doubling as it grows,
        // which for large networks would be the run's peak memory.
        devices: Vec::with_capacity(2 * sc.links.len()),
        adjacency: Vec::with_capacity(2 * sc.links.len()),
        snr: Vec::new(),
        link_names: BTreeMap::new(),
        stations: Vec::new(),
        tdma: BTreeMap::new(),
        sched: Scheduler::new(),
        models: Vec::new(),
    };
    b.nodes()?;
    b.models = super::mobility::Models::new(sc, files).all()?;
    b.media()?;
    b.links()?;
    b.wifi()?;
    let routes = b.routes();
    let flows = b.flows(&routes)?;
    b.tdma_schedules(&routes, &flows);
    let hooks = b.hooks()?;
    let routing = super::routing::layer(sc, &b.nodes, &b.stations, &routes)?;
    // The scenario path of each device's link or medium, for the memory budget's error.
    let mut dev_fields = vec![String::new(); b.devices.len()];
    for (i, ds) in b.link_names.values() {
        for d in ds {
            if let Some(f) = dev_fields.get_mut(d.idx()) {
                *f = format!("links[{i}]");
            }
        }
    }
    for (d, m) in &b.stations {
        dev_fields[d.idx()] = format!("media[{m}]");
    }
    let models = std::mem::take(&mut b.models);
    let mut sim = Sim::new(
        sc.name.clone(),
        sc.seed,
        end,
        b.sched,
        b.nodes,
        b.devices,
        routes,
        flows,
        hooks,
        b.snr,
    );
    if let Some(layer) = routing {
        sim.set_routing(layer);
    }
    sim.trace_verdicts = sc.trace.verdicts;
    sim.trace_routes = sc.trace.routes;
    if sc.trace.routes {
        if let Some(l) = sim.routing.as_mut() {
            let ends = sim.flows.iter().map(|f| (f.src, f.dst)).collect();
            l.paths = Some(Box::new(crate::routing::paths::PathLog::new(ends)));
        }
    }
    sim.max_events = sc.max_events.unwrap_or(DEFAULT_MAX_EVENTS);
    if let Some(m) = sc.memory_budget {
        if m.bytes() == 0 {
            return err("memory_budget", "must be > 0 bytes");
        }
        sim.watch.memory = m.bytes();
        sim.watch.memory_source = crate::budget::BudgetSource::Scenario;
    }
    sim.watch.dev_fields = dev_fields;
    sim.warmup = sc.warmup.map_or(0, |w| w.ns());
    traces(sc, &mut sim)?;
    super::mobility::traces(sc, &mut sim, &models)?;
    if !sc.trace.pcap.is_empty() {
        super::pcap::captures(sc, &mut sim)?;
    }
    Ok(sim)
}

/// Duration, the scenario-wide TCP options and the warm-up.
fn globals(sc: &Scenario) -> R<Time> {
    let end = sc.duration.ns();
    if end == 0 {
        return err("duration", format!("must be > 0, got {}", sc.duration.0));
    }
    tcp_config(&sc.tcp, "tcp")?;
    let warmup = sc.warmup.map_or(0, |w| w.ns());
    if warmup >= end {
        return err(
            "warmup",
            format!(
                "must be shorter than the duration ({} s), got {} s",
                sc.duration.0,
                sc.warmup.map_or(0.0, |w| w.0)
            ),
        );
    }
    Ok(end)
}

impl<'a> Builder<'a> {
    fn lookup(&self, name: &str, path: String) -> R<NodeId> {
        self.by_name.get(name).copied().ok_or_else(|| {
            let names: Vec<&str> = self.sc.nodes.iter().map(|n| n.name.as_str()).collect();
            ScenarioError::new(path, unknown_name("node", name, &names))
        })
    }

    fn nodes(&mut self) -> R<()> {
        let sc = self.sc;
        if sc.nodes.is_empty() {
            return err("nodes", "a scenario needs at least one node");
        }
        for (i, n) in sc.nodes.iter().enumerate() {
            if n.name.trim().is_empty() {
                return err(format!("nodes[{i}].name"), "must not be empty");
            }
            if let Some(prev) = self.by_name.insert(&n.name, NodeId(i as u32)) {
                return err(
                    format!("nodes[{i}].name"),
                    format!(
                        "duplicate node name '{}' (first at nodes[{}])",
                        n.name, prev.0
                    ),
                );
            }
            if let Some(pos) = n.position {
                if pos.iter().any(|x| !x.is_finite()) {
                    return err(
                        format!("nodes[{i}].position"),
                        format!("coordinates must be finite numbers, got {pos:?}"),
                    );
                }
            }
            self.nodes.push(Node {
                name: n.name.clone(),
                kind: n.kind,
                devices: vec![],
                hooks: vec![],
            });
        }
        Ok(())
    }

    /// Each point-to-point link: a wire and a device at each end.
    fn links(&mut self) -> R<()> {
        let sc = self.sc;
        for (i, l) in sc.links.iter().enumerate() {
            let p = format!("links[{i}]");
            let a = self.lookup(&l.a, format!("{p}.a"))?;
            let b = self.lookup(&l.b, format!("{p}.b"))?;
            if a == b {
                return err(
                    format!("{p}.b"),
                    format!("a link joins two different nodes, got '{}' twice", l.b),
                );
            }
            let name = l.name.clone().unwrap_or_else(|| format!("{}-{}", l.a, l.b));
            if let Some((prev, _)) = self.link_names.get(&name) {
                return err(
                    format!("{p}.name"),
                    format!("duplicate link name '{name}' (first at links[{prev}])"),
                );
            }
            if l.queue.limit() == 0 {
                return err(format!("{p}.queue.limit"), "must be >= 1, got 0");
            }
            let cap = match l.queue.unit() {
                QueueUnit::Packets => MAX_QUEUE_PACKETS,
                QueueUnit::Bytes => MAX_QUEUE_BYTES,
            };
            if l.queue.limit() > cap {
                return err(
                    format!("{p}.queue.limit"),
                    format!("must be at most {cap}, got {}", l.queue.limit()),
                );
            }
            let rate = l.rate.bps();
            if tx_time(1, rate) > 3600 * SEC {
                return err(
                    format!("{p}.rate"),
                    format!("{} bps is too slow to simulate", l.rate.0),
                );
            }
            let tdma = match &l.medium {
                None => None,
                Some(m) if self.tdma.contains_key(m) => {
                    if l.arq.is_some() {
                        return err(
                            format!("{p}.arq"),
                            "a TDMA link has no link-layer ARQ; remove `arq` or `medium`",
                        );
                    }
                    Some(m.clone())
                }
                Some(m) => {
                    let names: Vec<&str> = self.tdma.keys().map(|k| k.as_str()).collect();
                    let what = if sc.media.iter().any(|x| &x.name == m) {
                        format!("'{m}' is a wifi medium; a link can only join a TDMA medium")
                    } else {
                        unknown_name("TDMA medium", m, &names)
                    };
                    return err(format!("{p}.medium"), what);
                }
            };
            let first = DevId(self.devices.len() as u32);
            let wire = Wire {
                ends: [(a, first), (b, DevId(first.0 + 1))],
                delay: l.delay.ns(),
            };
            for (dir, from, to, spec, spath) in [
                (
                    "ab",
                    a,
                    b,
                    l.error_ab.as_deref().or(l.error.as_deref()),
                    if l.error_ab.is_some() {
                        "error_ab"
                    } else {
                        "error"
                    },
                ),
                (
                    "ba",
                    b,
                    a,
                    l.error_ba.as_deref().or(l.error.as_deref()),
                    if l.error_ba.is_some() {
                        "error_ba"
                    } else {
                        "error"
                    },
                ),
            ] {
                let dname = format!("{}->{}", sc.nodes[from.idx()].name, sc.nodes[to.idx()].name);
                let d = DevId(self.devices.len() as u32);
                let policy = queue_policy(&l.queue, &format!("{p}.queue"), rate, || {
                    Rng::for_component(sc.seed, &format!("link/{name}/{dir}/queue"))
                })?;
                let error = error_model(
                    spec,
                    &format!("{p}.{spath}"),
                    sc.seed,
                    &format!("link/{name}/{dir}/error"),
                    self.end,
                    &mut self.snr,
                    self.files,
                )?;
                let arq = l.arq.as_ref().map(|a| Arq {
                    retry_limit: a.retry_limit,
                    ack_time: tx_time(a.ack_bytes as u64, rate),
                });
                self.nodes[from.idx()].devices.push(d);
                self.adjacency.push(Adjacency { dev: d, from, to });
                if let Some(t) = tdma.as_ref() {
                    self.tdma.get_mut(t).expect("checked above").devices.push(d);
                    let frame = self.tdma[t].frame.clone();
                    self.devices.push(AnyDevice::Other(Box::new(TdmaDev::new(
                        from,
                        wire,
                        name.clone(),
                        l.kind,
                        rate,
                        policy,
                        error,
                        frame,
                        dname,
                    ))));
                    continue;
                }
                self.devices.push(AnyDevice::P2p(P2p::new(
                    from,
                    wire,
                    name.clone(),
                    l.kind,
                    rate,
                    policy,
                    error,
                    arq,
                    dname,
                )));
            }
            self.link_names
                .insert(name, (i, [first, DevId(first.0 + 1)]));
        }
        Ok(())
    }

    /// Check every medium's keys and name; create the TDMA slot frames (their links are
    /// built with the other links, their slots assigned once routes are known).
    fn media(&mut self) -> R<()> {
        let sc = self.sc;
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, m) in sc.media.iter().enumerate() {
            let p = format!("media[{i}]");
            if m.name.trim().is_empty() {
                return err(format!("{p}.name"), "must not be empty");
            }
            if let Some(prev) = seen.insert(&m.name, i) {
                return err(
                    format!("{p}.name"),
                    format!(
                        "duplicate medium name '{}' (first at media[{prev}])",
                        m.name
                    ),
                );
            }
            let kind = match m.kind {
                MediumKind::Wifi => "wifi",
                MediumKind::Tdma => "tdma",
            };
            if let Some((k, _)) = m.given_keys().into_iter().find(|(_, ok)| !ok) {
                return err(
                    format!("{p}.{k}"),
                    format!("a {kind} medium does not take `{k}`"),
                );
            }
            if m.kind == MediumKind::Tdma {
                let Some(slot) = m.slot else {
                    return err(format!("{p}.slot"), "a tdma medium needs a slot length");
                };
                let slot = slot.ns();
                if slot == 0 {
                    return err(format!("{p}.slot"), "must be > 0");
                }
                let guard = m.guard.map_or(0, |g| g.ns());
                if guard >= slot {
                    return err(
                        format!("{p}.guard"),
                        format!(
                            "must be shorter than the slot ({} s), got {} s",
                            m.slot.map_or(0.0, |d| d.0),
                            m.guard.map_or(0.0, |d| d.0)
                        ),
                    );
                }
                self.tdma.insert(
                    m.name.clone(),
                    TdmaBuild {
                        index: i,
                        frame: Rc::new(RefCell::new(Tdma::new(m.name.clone(), slot, guard))),
                        schedule: m.schedule.unwrap_or_default(),
                        devices: Vec::new(),
                    },
                );
            }
        }
        Ok(())
    }

    /// Each 802.11 medium: its stations, who hears whom, and the adjacencies routing uses
    /// (pairs within the receive threshold).
    fn wifi(&mut self) -> R<()> {
        let sc = self.sc;
        for (i, m) in sc.media.iter().enumerate() {
            if m.kind != MediumKind::Wifi {
                continue;
            }
            let p = format!("media[{i}]");
            let (params, model) = wifi_params(m, &p)?;
            // Stations: the listed nodes, or every node with a position.
            let members: Vec<(NodeId, String)> = match &m.nodes {
                Some(list) => {
                    let mut v = Vec::new();
                    for (k, n) in list.iter().enumerate() {
                        let id = self.lookup(n, format!("{p}.nodes[{k}]"))?;
                        if v.iter().any(|(x, _)| *x == id) {
                            return err(
                                format!("{p}.nodes[{k}]"),
                                format!("node '{n}' is listed twice"),
                            );
                        }
                        v.push((id, format!("{p}.nodes[{k}]")));
                    }
                    v
                }
                None => self
                    .models
                    .iter()
                    .enumerate()
                    .filter(|(_, m)| m.is_some())
                    .map(|(k, _)| (NodeId(k as u32), format!("nodes[{k}].position")))
                    .collect(),
            };
            if members.len() < 2 {
                return err(
                    format!("{p}.nodes"),
                    format!(
                        "a wifi medium needs at least two nodes with a position, got {}",
                        members.len()
                    ),
                );
            }
            let mut pos = Vec::with_capacity(members.len());
            for (id, path) in &members {
                match self.models[id.idx()].as_mut() {
                    Some(m) => pos.push(m.position(0)),
                    None => {
                        return err(
                            path.clone(),
                            format!(
                                "node '{}' is on wifi medium '{}' but has no position",
                                sc.nodes[id.idx()].name,
                                m.name
                            ),
                        )
                    }
                }
            }
            let n = members.len();
            // Received power per ordered pair (shadowing drawn once per unordered pair).
            let sigma = m.shadowing_db.unwrap_or(0.0);
            if !sigma.is_finite() || sigma < 0.0 {
                return err(
                    format!("{p}.shadowing_db"),
                    format!("must be >= 0, got {sigma}"),
                );
            }
            let mut power = vec![0.0f64; n * n];
            let mut delay = vec![0 as Time; n * n];
            let mut shadow = vec![1.0f64; n * n];
            for a in 0..n {
                for b in (a + 1)..n {
                    let d = radio::distance(pos[a], pos[b]);
                    let mut w = model.rx_power(d);
                    if sigma > 0.0 {
                        let na = &sc.nodes[members[a].0.idx()].name;
                        let nb = &sc.nodes[members[b].0.idx()].name;
                        let mut rng = Rng::for_component(
                            sc.seed,
                            &format!("medium/{}/shadow/{na}/{nb}", m.name),
                        );
                        let f = 10f64.powf(sigma * radio::normal(&mut rng) / 10.0);
                        w *= f;
                        shadow[a * n + b] = f;
                        shadow[b * n + a] = f;
                    }
                    power[a * n + b] = w;
                    power[b * n + a] = w;
                    let t = radio::prop_delay(d);
                    delay[a * n + b] = t;
                    delay[b * n + a] = t;
                }
            }
            let first = self.devices.len() as u32;
            // Without a routing protocol, a moving station sends to each neighbour directly:
            // every pair is an adjacency (routes from the start positions would go stale).
            let moves = members.iter().any(|(id, _)| {
                self.models[id.idx()]
                    .as_ref()
                    .is_some_and(|m| !m.is_static())
            });
            let limit_spec = m.queue.clone().unwrap_or(QueueSpec::Droptail {
                limit: 50,
                unit: QueueUnit::Packets,
            });
            check_queue_limit(&limit_spec, &format!("{p}.queue"))?;
            let mut stations = Vec::with_capacity(n);
            for (k, (node, _)) in members.iter().enumerate() {
                let nname = &sc.nodes[node.idx()].name;
                // Stations it reaches: sensed above carrier sense; below it (down to the
                // interference floor, the `sinr` reception only) as interference alone.
                let hears: Vec<Hear> = (0..n)
                    .filter(|&j| j != k && power[k * n + j] >= params.interference_floor_w)
                    .map(|j| Hear {
                        to: j as u32,
                        power_w: power[k * n + j],
                        delay: delay[k * n + j],
                        sensed: power[k * n + j] >= params.cs_threshold_w,
                    })
                    .collect();
                for j in 0..n {
                    if j != k && (moves || power[k * n + j] >= params.rx_threshold_w) {
                        self.adjacency.push(Adjacency {
                            dev: DevId(first + k as u32),
                            from: *node,
                            to: members[j].0,
                        });
                    }
                }
                let stream = format!("medium/{}/{nname}", m.name);
                let policy =
                    queue_policy(&limit_spec, &format!("{p}.queue"), params.data_rate, || {
                        Rng::for_component(sc.seed, &format!("{stream}/queue"))
                    })?;
                let error = error_model(
                    m.error.as_ref(),
                    &format!("{p}.error"),
                    sc.seed,
                    &format!("{stream}/error"),
                    self.end,
                    &mut self.snr,
                    self.files,
                )?;
                stations.push(Station::new(
                    *node,
                    DevId(first + k as u32),
                    format!("{nname}@{}", m.name),
                    policy,
                    hears,
                    params.cw_min,
                    Rng::for_component(sc.seed, &format!("{stream}/backoff")),
                    Rng::for_component(sc.seed, &format!("{stream}/rx")),
                    error,
                ));
            }
            let fade = fading(m, model.frequency_hz, &p)?;
            let mut net = WifiNet::new(m.name.clone(), params, stations, self.nodes.len());
            if moves {
                let models = members
                    .iter()
                    .map(|(id, _)| self.models[id.idx()].clone().expect("members have a model"))
                    .collect();
                net.moving = Some(Box::new(crate::device::wifi::Moving::new(
                    models, model, shadow,
                )));
            }
            if let Some(f) = fade {
                net.set_fading(f, |a, b| {
                    let na = &sc.nodes[members[a].0.idx()].name;
                    let nb = &sc.nodes[members[b].0.idx()].name;
                    Rng::for_component(sc.seed, &format!("medium/{}/fading/{na}/{nb}", m.name))
                });
            }
            let net = Rc::new(RefCell::new(net));
            for (k, (node, _)) in members.iter().enumerate() {
                let d = DevId(first + k as u32);
                self.nodes[node.idx()].devices.push(d);
                self.stations.push((d, i));
                self.devices
                    .push(AnyDevice::Other(Box::new(WifiDev::new(net.clone(), k))));
            }
        }
        Ok(())
    }

    /// Assign the TDMA slots, round robin in link order, to the link directions the schedule
    /// covers.
    fn tdma_schedules(&mut self, routes: &Routes, flows: &[Flow]) {
        let mut used = std::collections::BTreeSet::new();
        for f in flows {
            for (a, b) in [(f.src, f.dst), (f.dst, f.src)] {
                used.extend(routes.path(a, b).unwrap_or_default());
            }
        }
        for t in self.tdma.values() {
            let links = t
                .devices
                .iter()
                .copied()
                .filter(|d| t.schedule == TdmaSchedule::AllLinks || used.contains(d));
            let owners: Vec<TdmaOwner> = if t.schedule == TdmaSchedule::Nodes {
                let mut nodes: Vec<NodeId> = links.map(|d| self.devices[d.idx()].node()).collect();
                nodes.sort();
                nodes.dedup();
                nodes.into_iter().map(TdmaOwner::Node).collect()
            } else {
                links.map(TdmaOwner::Link).collect()
            };
            let _ = t.index;
            t.frame.borrow_mut().owners = owners;
        }
    }

    /// Routes toward every host.
    fn routes(&self) -> Routes {
        let hosts: Vec<NodeId> = (0..self.nodes.len() as u32)
            .map(NodeId)
            .filter(|n| self.nodes[n.idx()].kind == NodeKind::Host)
            .collect();
        Routes::compute(self.nodes.len(), self.adjacency.clone(), &hosts)
    }

    fn flows(&mut self, routes: &Routes) -> R<Vec<Flow>> {
        let sc = self.sc;
        let end = self.end;
        let mut flows = Vec::with_capacity(sc.flows.len());
        let mut flow_names: BTreeMap<String, usize> = BTreeMap::new();
        for (i, f) in sc.flows.iter().enumerate() {
            let p = format!("flows[{i}]");
            let src = self.lookup(&f.src, format!("{p}.src"))?;
            let dst = self.lookup(&f.dst, format!("{p}.dst"))?;
            for (key, n, name) in [("src", src, &f.src), ("dst", dst, &f.dst)] {
                if self.nodes[n.idx()].kind != NodeKind::Host {
                    return err(
                        format!("{p}.{key}"),
                        format!("'{name}' is a router; flows start and end at hosts"),
                    );
                }
            }
            if src == dst {
                return err(
                    format!("{p}.dst"),
                    format!("'{}' is also the source", f.dst),
                );
            }
            for (a, b, key) in [(src, dst, "dst"), (dst, src, "src")] {
                if routes.path(a, b).is_none() {
                    return err(
                        format!("{p}.{key}"),
                        format!(
                            "'{}' is not reachable from '{}'",
                            self.nodes[b.idx()].name,
                            self.nodes[a.idx()].name
                        ),
                    );
                }
            }
            let name = f.name.clone().unwrap_or_else(|| format!("flow{i}"));
            if let Some(prev) = flow_names.insert(name.clone(), i) {
                return err(
                    format!("{p}.name"),
                    format!("duplicate flow name '{name}' (first at flows[{prev}])"),
                );
            }
            let mut start = f.start.map_or(0, |d| d.ns());
            if let Some(j) = f.start_jitter {
                if !(j.0.is_finite() && j.0 >= 0.0) {
                    return err(
                        format!("{p}.start_jitter"),
                        format!("must be >= 0, got {} s", j.0),
                    );
                }
                // Checked for the latest start, so the scenario is valid whatever the seed.
                if start.saturating_add(j.ns()) >= end {
                    return err(
                        format!("{p}.start_jitter"),
                        format!(
                            "start + start_jitter ({} s) is not before the end of the run ({} s)",
                            f.start.map_or(0.0, |d| d.0) + j.0,
                            sc.duration.0
                        ),
                    );
                }
                // A stream of its own, so the draw moves nothing else.
                let mut rng = Rng::for_component(sc.seed, &format!("flow/{name}/start"));
                start += (rng.uniform() * j.ns() as f64) as Time;
            }
            if start >= end {
                return err(
                    format!("{p}.start"),
                    format!(
                        "{} s is not before the end of the run ({} s)",
                        f.start.map_or(0.0, |d| d.0),
                        sc.duration.0
                    ),
                );
            }
            let stop = f.stop.map(|d| d.ns());
            if let Some(s) = stop {
                if s <= start {
                    return err(
                        format!("{p}.stop"),
                        format!("{} s is not after the start", f.stop.unwrap().0),
                    );
                }
            }
            let app = app(&f.app, &format!("{p}.app"), sc.seed, &name)?;
            let (transport, cc_name) = transport(sc, f, &p, &name, start)?;
            let fid = FlowId(i as u32);
            if f.after.is_some() {
                if f.start.is_some() {
                    return err(
                        format!("{p}.start"),
                        "a flow with `after` starts when that flow is delivered; remove `start`",
                    );
                }
            } else {
                self.sched.at(start, Ev::FlowStart(fid));
            }
            if let Some(s) = stop {
                self.sched.at(s, Ev::FlowStop(fid));
            }
            flows.push(Flow {
                name,
                src,
                dst,
                start,
                stop,
                cc_name,
                app_kind: f.app.kind_name(),
                app,
                transport,
                stopped: false,
                losses: FlowLosses::default(),
                loss_log: Vec::new(),
                trace_cwnd: sc.trace.cwnd,
                cwnd_series: Vec::new(),
                state_series: Vec::new(),
                then: Vec::new(),
                waiting: f.after.is_some(),
            });
        }
        // `after` names another flow, which must deliver a finite file over TCP.
        for (i, f) in sc.flows.iter().enumerate() {
            let Some(before) = &f.after else { continue };
            let p = format!("flows[{i}].after");
            let Some(&j) = flow_names.get(before) else {
                let names: Vec<&str> = flow_names.keys().map(|k| k.as_str()).collect();
                return err(p, unknown_name("flow", before, &names));
            };
            if j == i {
                return err(p, format!("a flow cannot wait for itself ('{before}')"));
            }
            let ok = matches!(flows[j].app, App::File { .. })
                && matches!(flows[j].transport, Transport::Tcp(_));
            if !ok {
                return err(
                    p,
                    format!("'{before}' must be a TCP flow with a `file` app (it never completes)"),
                );
            }
            flows[j].then.push(FlowId(i as u32));
        }
        Ok(flows)
    }

    /// The nodes an agent goes to: `"*"` is every node.
    fn agent_nodes(&self, node: &str, p: &str) -> R<Vec<NodeId>> {
        if node == "*" {
            Ok((0..self.nodes.len() as u32).map(NodeId).collect())
        } else {
            Ok(vec![self.lookup(node, format!("{p}.node"))?])
        }
    }

    fn install(&mut self, hooks: &mut Vec<HookSlot>, node: NodeId, hook: Box<dyn Hook>) {
        self.nodes[node.idx()]
            .hooks
            .push(HookId(hooks.len() as u32));
        hooks.push(HookSlot {
            node,
            hook,
            timer: Default::default(),
        });
    }

    /// Node hooks, in the order given; a node may have several.
    fn hooks(&mut self) -> R<Vec<HookSlot>> {
        let sc = self.sc;
        let mut hooks = Vec::new();
        for (i, a) in sc.agents.iter().enumerate() {
            let p = format!("agents[{i}]");
            let (node, hook): (NodeId, Box<dyn Hook>) = match a {
                AgentSpec::SnrGate {
                    node,
                    link,
                    threshold_db,
                    interval,
                    measurement_delay,
                    ewma_weight,
                    hysteresis_db,
                } => {
                    let n = self.lookup(node, format!("{p}.node"))?;
                    let Some(&(l, devs)) = self.link_names.get(link) else {
                        let known: Vec<&str> = self.link_names.keys().map(|k| k.as_str()).collect();
                        return err(format!("{p}.link"), unknown_name("link", link, &known));
                    };
                    let Some(&d) = devs.iter().find(|d| self.devices[d.idx()].node() == n) else {
                        return err(
                            format!("{p}.link"),
                            format!("link '{link}' does not touch node '{node}'"),
                        );
                    };
                    let _ = l;
                    let Some(series) = self.devices[d.idx()].snr_series() else {
                        return err(
                            format!("{p}.link"),
                            format!(
                                "the gate samples SNR, but {} has no `snr` error model",
                                self.devices[d.idx()].name()
                            ),
                        );
                    };
                    if !threshold_db.is_finite() {
                        return err(format!("{p}.threshold_db"), "must be finite");
                    }
                    if interval.ns() == 0 {
                        return err(format!("{p}.interval"), "must be > 0");
                    }
                    // A reading is of the past: any age above 0. Shorter than the channel's
                    // sample interval it reads into the sample still running, which the
                    // channel holds (the `reading-age` axis of docs/schemes/snr_gate.md).
                    let sample_iv = self.snr[series].interval;
                    let delay = measurement_delay.map_or(sample_iv, |d| d.ns());
                    if delay == 0 {
                        return err(
                            format!("{p}.measurement_delay"),
                            "must be > 0: a reading is of frames already received",
                        );
                    }
                    for (key, v) in [
                        ("hysteresis_db", hysteresis_db),
                        ("ewma_weight", ewma_weight),
                    ] {
                        ranged(AGENTS, "snr_gate", key, *v, format!("{p}.{key}"))?;
                    }
                    (
                        n,
                        Box::new(
                            SnrGate::new(
                                n,
                                series,
                                *threshold_db,
                                interval.ns(),
                                delay,
                                *ewma_weight,
                            )
                            .with_hysteresis(*hysteresis_db),
                        ),
                    )
                }
                AgentSpec::Eln { node } => {
                    let targets = self.agent_nodes(node, &p)?;
                    let last = targets.len() - 1;
                    for &n in &targets[..last] {
                        self.install(&mut hooks, n, Box::new(Eln::new(n)));
                    }
                    (targets[last], Box::new(Eln::new(targets[last])))
                }
                AgentSpec::Snoop { node, min_rto } => {
                    let n = self.lookup(node, format!("{p}.node"))?;
                    if min_rto.ns() == 0 {
                        return err(format!("{p}.min_rto"), "must be > 0");
                    }
                    (n, Box::new(Snoop::new(n, min_rto.ns())))
                }
                AgentSpec::ExplicitRate {
                    node,
                    share,
                    per_flow,
                    active,
                } => {
                    ranged(
                        AGENTS,
                        "explicit_rate",
                        "share",
                        *share,
                        format!("{p}.share"),
                    )?;
                    if active.ns() == 0 {
                        return err(format!("{p}.active"), "must be > 0");
                    }
                    let make = || -> Box<dyn Hook> {
                        if *per_flow {
                            Box::new(ExplicitRate::per_flow(*share, active.ns()))
                        } else {
                            Box::new(ExplicitRate::new(*share))
                        }
                    };
                    let targets = self.agent_nodes(node, &p)?;
                    let last = targets.len() - 1;
                    for &n in &targets[..last] {
                        self.install(&mut hooks, n, make());
                    }
                    (targets[last], make())
                }
                AgentSpec::Drai {
                    node,
                    queue_low,
                    queue_mid,
                    queue_high,
                    busy_low,
                    weight,
                    window,
                    drop_memory,
                    drop_memory_rtts,
                } => {
                    let mut params = drai_params(
                        &p,
                        *queue_low,
                        *queue_mid,
                        *queue_high,
                        *busy_low,
                        *weight,
                        *window,
                    )?;
                    if let Some(m) = drop_memory {
                        params.drop_memory = m.ns();
                    }
                    let key = "drop_memory_rtts";
                    params.drop_memory_rtts =
                        ranged(AGENTS, "drai", key, *drop_memory_rtts, format!("{p}.{key}"))?;
                    let targets = self.agent_nodes(node, &p)?;
                    let last = targets.len() - 1;
                    for &n in &targets[..last] {
                        self.install(&mut hooks, n, Box::new(Drai::new(params)));
                    }
                    (targets[last], Box::new(Drai::new(params)))
                }
            };
            self.install(&mut hooks, node, hook);
        }
        Ok(hooks)
    }
}

fn app(spec: &AppSpec, app_path: &str, seed: u64, flow: &str) -> R<App> {
    Ok(match spec {
        AppSpec::Bulk {} => App::Bulk,
        AppSpec::File { size } => {
            if size.bytes() == 0 {
                return err(format!("{app_path}.size"), "must be > 0");
            }
            App::File { size: size.bytes() }
        }
        AppSpec::Cbr { rate, packet_size } => {
            if *packet_size == 0 {
                return err(format!("{app_path}.packet_size"), packet_size_zero());
            }
            App::Cbr {
                interval: tx_time(*packet_size as u64, rate.bps()).max(1),
                packet_size: *packet_size,
            }
        }
        AppSpec::Onoff {
            rate,
            on_mean,
            off_mean,
            packet_size,
        } => {
            if *packet_size == 0 {
                return err(format!("{app_path}.packet_size"), packet_size_zero());
            }
            for (k, d) in [("on_mean", on_mean), ("off_mean", off_mean)] {
                if d.0 <= 0.0 {
                    return err(
                        format!("{app_path}.{k}"),
                        format!("must be > 0, got {}", d.0),
                    );
                }
            }
            App::OnOff {
                interval: tx_time(*packet_size as u64, rate.bps()).max(1),
                packet_size: *packet_size,
                on_mean: on_mean.0,
                off_mean: off_mean.0,
                rng: Rng::for_component(seed, &format!("flow/{flow}/app")),
                on_until: 0,
            }
        }
    })
}

/// The flow's transport: TCP endpoints with their scheme, or UDP counters.
fn transport(
    sc: &Scenario,
    f: &FlowSpec,
    p: &str,
    name: &str,
    start: Time,
) -> R<(Transport, String)> {
    if f.app.is_tcp() {
        let mut cfg = tcp_config(&f.tcp.or(&sc.tcp), &format!("{p}.tcp"))?;
        let cc_name = f.cc.clone().unwrap_or_else(|| "newreno".into());
        // A profile whose stack runs CUBIC in integer arithmetic makes that the default.
        let mut params = f.cc_params.clone();
        if cc_name == "cubic" && cfg.linux_cubic > 0 {
            params
                .entry("linux".into())
                .or_insert(f64::from(cfg.linux_cubic));
            if cfg.linux_cubic == 1 {
                // The kernel's clock: CONFIG_HZ = 250, the common distribution setting.
                params.entry("hz".into()).or_insert(250.0);
            }
        }
        if cfg.ns3_schemes {
            cc::apply_ns3_defaults(&cc_name, &mut params);
        }
        let mut scheme = cc::build_flow(&cc_name, &params).map_err(|(k, m)| {
            if k.is_empty() {
                ScenarioError::new(format!("{p}.cc"), m)
            } else {
                ScenarioError::new(format!("{p}.cc_params.{k}"), m)
            }
        })?;
        // A stream of its own, so a scheme's draws move nothing else.
        scheme
            .cc
            .set_rng(Rng::for_component(sc.seed, &format!("flow/{name}/cc")));
        let recovery = scheme.recovery;
        if recovery == cc::RecoveryKind::Sack {
            // A SACK scheme needs the receiver to send SACK blocks.
            cfg.sack = true;
        }
        if scheme.timestamps {
            // A scheme that reads the timestamp option needs both ends to carry it.
            cfg.timestamps = true;
        }
        let mut rx = TcpReceiver::new(&cfg);
        if let Some(mode) = scheme.cc.ce_state_acks() {
            rx.set_ce_state_acks(mode);
        }
        let tx = TcpSender::new(cfg, scheme.cc, recovery, start);
        if let Some(policy) = scheme.receiver {
            rx.set_window_policy(policy);
        }
        return Ok((
            Transport::Tcp(Box::new(TcpFlow {
                tx,
                rx,
                tx_timer: Default::default(),
                rx_timer: Default::default(),
                sink_next: 0,
                order_violations: 0,
            })),
            cc_name,
        ));
    }
    if !f.cc_params.is_empty() {
        return err(
            format!("{p}.cc_params"),
            "a UDP flow has no congestion control",
        );
    }
    if let Some(c) = &f.cc {
        return err(
            format!("{p}.cc"),
            format!(
                "'{c}' given, but a {} flow is UDP and has no congestion control",
                f.app.kind_name()
            ),
        );
    }
    Ok((
        Transport::Udp(UdpFlow {
            sent_packets: 0,
            sent_bytes: 0,
            received_packets: 0,
            received_bytes: 0,
            next_seq: 0,
        }),
        String::new(),
    ))
}

/// Queue tracing.
fn traces(sc: &Scenario, sim: &mut Sim) -> R<()> {
    for (i, q) in sc.trace.queue.iter().enumerate() {
        let Some(d) = sim.device_named(q) else {
            let names: Vec<&str> = sim.devices.iter().map(|d| d.name()).collect();
            return err(
                format!("trace.queue[{i}]"),
                unknown_name("link direction", q, &names),
            );
        };
        if sim.queue_trace.iter().any(|(x, _)| *x == d) {
            return err(
                format!("trace.queue[{i}]"),
                format!("'{q}' is listed twice"),
            );
        }
        sim.queue_trace.push((d, Vec::new()));
    }
    sim.queue_interval = sc.trace.queue_interval.ns();
    if !sim.queue_trace.is_empty() {
        if sim.queue_interval < MS / 1000 {
            return err(
                "trace.queue_interval",
                format!("must be >= 1us, got {} s", sc.trace.queue_interval.0),
            );
        }
        let n = sim.end / sim.queue_interval + 1;
        if n as usize > MAX_SERIES {
            return err(
                "trace.queue_interval",
                format!(
                    "{} s over the run's {} s would make {n} samples per queue (limit {MAX_SERIES})",
                    sc.trace.queue_interval.0,
                    sc.duration.0
                ),
            );
        }
        let queues = sim.queue_trace.len();
        if n as usize * queues > MAX_SERIES_TOTAL {
            return err(
                "trace.queue",
                format!(
                    "{queues} queues of {n} samples each would make {} samples, more than \
                     the {MAX_SERIES_TOTAL} the queue traces may hold together (trace fewer \
                     queues or make trace.queue_interval longer)",
                    n as usize * queues
                ),
            );
        }
        sim.sched.at(0, Ev::QueueSample);
    }
    Ok(())
}

/// The error of a UDP app's `packet_size = 0`, worded from the key table.
fn packet_size_zero() -> String {
    params_meta::check("flows[].app", "cbr", "packet_size", 0.0).unwrap_err()
}
