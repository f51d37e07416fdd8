//! Every scenario key with its type, unit, default, range and description: the one table
//! `airtcp params`, docs/scenario.md's key reference and the validator's range messages come
//! from. Adding a key is one `p(...)` line in [`PARAMS`] (its table's block); the tests in
//! `params_check.rs` walk every key serde accepts and fail naming any key without a line here.

/// A table of the scenario format: where it is, the key naming its variant (`kind`/`model`;
/// "" if none), the section it is listed under, and the other places the same table appears.
pub struct Table {
    /// `links[].queue`: `[]` marks an array of tables.
    pub path: &'static str,
    pub tag: &'static str,
    pub section: &'static str,
    pub also: &'static [&'static str],
    /// The tag's values (the enum's own list), every one listed even if it takes no key.
    pub variants: &'static [&'static str],
}

/// The sections in listing order, with their titles.
pub const SECTIONS: &[(&str, &str)] = &[
    ("globals", "Top level"),
    ("budgets", "Budgets"),
    ("nodes", "Nodes"),
    ("links", "Links"),
    ("media", "Media (802.11 radio channels, TDMA slot frames)"),
    ("flows", "Flows"),
    ("apps", "Applications (flows[].app, by kind)"),
    ("tcp", "TCP options"),
    ("queues", "Queues and AQMs (by kind)"),
    ("errors", "Error models (by model)"),
    ("agents", "Agents: node hooks (by kind)"),
    ("routing", "Routing: AODV and OLSR (docs/routing.md)"),
    ("trace", "Traces"),
];

use super::mobility::MobilitySpec;
use super::schema::{AgentSpec, AppSpec, ErrorSpec, QueueSpec};
pub use super::wifi::preset_values;

/// Top-level keys listed under "budgets" rather than "globals".
const BUDGET_KEYS: &[&str] = &["max_events", "memory_budget"];

pub const TABLES: &[Table] = &[
    tbl("", "", "globals", &[]),
    tbl("nodes[]", "", "nodes", &[]),
    tbl("routing", "", "routing", &["nodes[].routing"]),
    tbl("nodes[].mobility", "model", "nodes", &["mobility"]).of(MobilitySpec::VARIANTS),
    tbl("links[]", "", "links", &[]),
    tbl("links[].arq", "", "links", &[]),
    tbl("media[]", "", "media", &[]).of(&["wifi", "tdma"]),
    tbl("media[].fading", "", "media", &[]),
    tbl("media[].rate_control", "", "media", &[]),
    tbl("flows[]", "", "flows", &[]),
    tbl("flows[].app", "kind", "apps", &[]).of(AppSpec::VARIANTS),
    tbl("tcp", "", "tcp", &["flows[].tcp"]),
    tbl("links[].queue", "kind", "queues", &["media[].queue"]).of(QueueSpec::VARIANTS),
    tbl(
        "links[].error",
        "model",
        "errors",
        &["links[].error_ab", "links[].error_ba", "media[].error"],
    )
    .of(ErrorSpec::VARIANTS),
    tbl("links[].error.synth", "", "errors", &[]),
    tbl("agents[]", "kind", "agents", &[]).of(AgentSpec::VARIANTS),
    tbl("trace", "", "trace", &[]),
];

/// What values a key takes beyond its type. Numeric ranges are enforced by the validator
/// through [`check`], whose message quotes [`Range::text`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Range {
    Any,
    /// Lower bound (value, inclusive).
    Min(f64, bool),
    /// Upper bound (value, inclusive).
    Max(f64, bool),
    /// Both bounds (each with whether it is inclusive).
    Within(f64, bool, f64, bool),
    /// The names the key takes.
    OneOf(&'static [&'static str]),
}

impl Range {
    /// The range as the listing and error messages write it: `[0, 1]`, `(0, 1]`, `>= 1`,
    /// `a | b`; "" for any value.
    pub fn text(&self) -> String {
        match *self {
            Range::Any => String::new(),
            Range::Min(v, inc) => format!("{} {}", if inc { ">=" } else { ">" }, num(v)),
            Range::Max(v, inc) => format!("{} {}", if inc { "<=" } else { "<" }, num(v)),
            Range::Within(a, ai, b, bi) => format!(
                "{}{}, {}{}",
                if ai { '[' } else { '(' },
                num(a),
                num(b),
                if bi { ']' } else { ')' }
            ),
            Range::OneOf(names) => names.join(" | "),
        }
    }

    /// Whether `v` is in a numeric range (always for `Any` and `OneOf`).
    pub fn contains(&self, v: f64) -> bool {
        let above = |lo: f64, inc: bool| if inc { v >= lo } else { v > lo };
        let below = |hi: f64, inc: bool| if inc { v <= hi } else { v < hi };
        match *self {
            Range::Any | Range::OneOf(_) => !v.is_nan(),
            Range::Min(lo, i) => above(lo, i),
            Range::Max(hi, i) => below(hi, i),
            Range::Within(lo, li, hi, hi_inc) => above(lo, li) && below(hi, hi_inc),
        }
    }
}

/// A number as a range writes it: integers without a fraction, large ones with an exponent.
fn num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e7 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// One scenario key.
pub struct Param {
    /// The table the key is in (a [`Table::path`]).
    pub table: &'static str,
    /// The variants (space-separated values of the table's tag, or for `media[]` its `kind`)
    /// that take the key; "" for every one.
    pub variants: &'static str,
    pub key: &'static str,
    /// duration, rate, size, int, float, bool, string, choice, list, table, map, [x, y].
    pub ty: &'static str,
    pub unit: &'static str,
    /// "required", "-" (unset: the key's feature is off or derived), or the value taken
    /// without the key (a literal, or a short phrase such as "preset").
    pub default: &'static str,
    pub range: Range,
    pub description: &'static str,
}

impl Param {
    /// The full path of the key: `links[].queue.limit`.
    pub fn path(&self) -> String {
        if self.table.is_empty() {
            self.key.to_string()
        } else {
            format!("{}.{}", self.table, self.key)
        }
    }

    /// Whether `variant` ("" for a table without variants) takes this key.
    pub fn takes(&self, variant: &str) -> bool {
        self.variants.is_empty() || self.variants.split(' ').any(|v| v == variant)
    }

    pub fn section(&self) -> &'static str {
        if self.table.is_empty() && BUDGET_KEYS.contains(&self.key) {
            return "budgets";
        }
        table(self.table).map_or("globals", |t| t.section)
    }
}

/// The table at `path`.
pub fn table(path: &str) -> Option<&'static Table> {
    TABLES.iter().find(|t| t.path == path)
}

/// The row of `key` in `table` for `variant`.
pub fn find(table: &str, variant: &str, key: &str) -> Option<&'static Param> {
    PARAMS
        .iter()
        .find(|p| p.table == table && p.key == key && p.takes(variant))
}

/// `v` checked against the declared range of `table.key` (for `variant`): the validator's
/// message names the range and unit as the listing does ("must be in (0, 1], got 2").
pub fn check(table: &str, variant: &str, key: &str, v: f64) -> Result<f64, String> {
    let p = find(table, variant, key)
        .unwrap_or_else(|| panic!("no params_meta row for {table}.{key} ({variant})"));
    if v.is_finite() && p.range.contains(v) {
        return Ok(v);
    }
    let unit = if p.unit.is_empty() {
        String::new()
    } else {
        format!(" {}", p.unit)
    };
    let what = match p.range {
        Range::Within(..) => format!("in {}", p.range.text()),
        _ => p.range.text(),
    };
    Err(format!("must be {what}{unit}, got {v}"))
}

/// Whether a `media[]` table of `kind` takes `key` (the builder refuses the others).
pub fn medium_takes(kind: &str, key: &str) -> bool {
    find("media[]", kind, key).is_some()
}

const fn tbl(
    path: &'static str,
    tag: &'static str,
    section: &'static str,
    also: &'static [&'static str],
) -> Table {
    Table {
        path,
        tag,
        section,
        also,
        variants: &[],
    }
}

impl Table {
    const fn of(self, variants: &'static [&'static str]) -> Table {
        Table { variants, ..self }
    }
}

#[allow(clippy::too_many_arguments)]
const fn p(
    table: &'static str,
    variants: &'static str,
    key: &'static str,
    ty: &'static str,
    unit: &'static str,
    default: &'static str,
    range: Range,
    description: &'static str,
) -> Param {
    Param {
        table,
        variants,
        key,
        ty,
        unit,
        default,
        range,
        description,
    }
}

// Shorthands that keep each declaration on one line.
const ANY: Range = Range::Any;
const PROB: Range = Range::Within(0.0, true, 1.0, true);
const FRAC: Range = Range::Within(0.0, false, 1.0, true);
const POS: Range = Range::Min(0.0, false);
const NONNEG: Range = Range::Min(0.0, true);
const ONE_UP: Range = Range::Min(1.0, true);
const fn one_of(names: &'static [&'static str]) -> Range {
    Range::OneOf(names)
}
const REQ: &str = "required";
const NONE: &str = "-";
const S: &str = "s";
const BPS: &str = "bit/s";
const B: &str = "bytes";

const G: &str = "";
const NODE: &str = "nodes[]";
const MOB: &str = "nodes[].mobility";
const LINK: &str = "links[]";
const ARQ: &str = "links[].arq";
const MED: &str = "media[]";
const FAD: &str = "media[].fading";
const RC: &str = "media[].rate_control";
const FLOW: &str = "flows[]";
const APP: &str = "flows[].app";
const TCP: &str = "tcp";
const Q: &str = "links[].queue";
const ERR: &str = "links[].error";
const SYN: &str = "links[].error.synth";
const AG: &str = "agents[]";
const TR: &str = "trace";
const RT: &str = "routing";

const RED3: &str = "red mecn wmecn";
const RED4: &str = "red mecn wmecn cw";
const ANYQ: &str = "droptail ecn_threshold red mecn wmecn cw";
const APPLIES: &str = "none bernoulli ber gilbert_elliott list snr";
const W: &str = "wifi";

/// Every key of the scenario format, one line each, grouped by table.
#[rustfmt::skip]
pub const PARAMS: &[Param] = &[
    // --- top level ---
    p(G, "", "name", "string", "", "scenario", ANY, "Name carried into results."),
    p(G, "", "duration", "duration", S, REQ, POS, "Simulated time of the run."),
    p(G, "", "seed", "int", "", "1", ANY, "Seed of every random stream (0 to 2^64 - 1)."),
    p(G, "", "warmup", "duration", S, "0", ANY, "Start of the steady state: verdicts after it are also scored apart (steady_* columns); shorter than duration."),
    p(G, "", "max_events", "int", "events", "5000000000", ANY, "Event budget: a run that would process more stops with an error naming this key."),
    p(G, "", "memory_budget", "size", B, NONE, POS, "Memory budget (\"2GiB\"): a run whose queues, records and series outgrow it stops with an error."),
    p(G, "", "tcp", "table", "", "{}", ANY, "TCP options of every flow (see the tcp section); a flow's own tcp table overrides them key by key."),
    p(G, "", "nodes", "list", "", "[]", ANY, "Nodes (hosts and routers)."),
    p(G, "", "links", "list", "", "[]", ANY, "Point-to-point links between two nodes."),
    p(G, "", "media", "list", "", "[]", ANY, "Shared media: 802.11 radio channels and TDMA slot frames."),
    p(G, "", "flows", "list", "", "[]", ANY, "Traffic: a source, a destination and an application."),
    p(G, "", "agents", "list", "", "[]", ANY, "Node hooks (snr_gate, eln, snoop, explicit_rate, drai)."),
    p(G, "", "trace", "table", "", "{}", ANY, "What to record beyond the summary (cwnd, verdicts, queues, pcap)."),
    p(G, "", "routing", "table", "", NONE, ANY, "Routing protocol of every node (AODV or OLSR; docs/routing.md); without it, static shortest paths."),
    p(G, "", "mobility", "table", "", NONE, ANY, "Mobility model of every node with a position and none of its own (docs/mobility.md)."),
    p(G, "", "meta", "map", "", "{}", ANY, "Free-form notes carried through to results."),
    // --- nodes[] ---
    p(NODE, "", "name", "string", "", REQ, ANY, "Unique node name."),
    p(NODE, "", "kind", "choice", "", "host", one_of(&["host", "router"]), "A host ends flows; a router forwards."),
    p(NODE, "", "position", "[x, y]", "m", NONE, ANY, "Coordinates for radio media (finite numbers)."),
    p(NODE, "", "mobility", "table", "", NONE, ANY, "How the node moves (docs/mobility.md); without it, it stays at position."),
    p(NODE, "", "routing", "table", "", NONE, ANY, "This node's routing keys, over the top-level routing table key by key."),
    p(MOB, "constant_velocity", "velocity", "[x, y]", "m/s", REQ, ANY, "Velocity from position."),
    p(MOB, "random_waypoint random_walk gauss_markov", "area", "[x, y]", "m", REQ, ANY, "Area [w, h] the node moves in (sizes > 0)."),
    p(MOB, "random_waypoint random_walk", "speed", "[min, max]", "m/s", REQ, ANY, "Speed range drawn uniformly (0 <= min <= max)."),
    p(MOB, "gauss_markov", "speed", "float", "m/s", REQ, ANY, "Mean speed."),
    p(MOB, "random_waypoint", "pause", "duration or [min, max]", S, "0", ANY, "Pause at each waypoint: one duration or a uniform range."),
    p(MOB, "random_waypoint", "stationary", "bool", "", "true", ANY, "Start in the model's stationary distribution."),
    p(MOB, "random_walk", "time", "duration", S, NONE, ANY, "New direction and speed after this time (or distance)."),
    p(MOB, "random_walk", "distance", "float", "m", NONE, ANY, "New direction and speed after this distance."),
    p(MOB, "gauss_markov", "speed_std", "float", "m/s", "0", ANY, "Standard deviation of the speed."),
    p(MOB, "gauss_markov", "alpha", "float", "", "0.85", ANY, "Memory of the Gauss-Markov process."),
    p(MOB, "gauss_markov", "direction", "float", "degrees", "0", ANY, "Mean direction."),
    p(MOB, "gauss_markov", "direction_std", "float", "degrees", "0", ANY, "Standard deviation of the direction."),
    p(MOB, "gauss_markov", "step", "duration", S, "1", ANY, "Update interval."),
    p(MOB, "ns2", "file", "string", "", REQ, ANY, "ns-2 movement file."),
    p(MOB, "ns2", "node", "int", "", "node index", ANY, "The $node_(i) index to follow."),
    // --- links[] ---
    p(LINK, "", "name", "string", "", "<a>-<b>", ANY, "Link name (for traces, agents and results)."),
    p(LINK, "", "a", "string", "", REQ, ANY, "One end (a node name)."),
    p(LINK, "", "b", "string", "", REQ, ANY, "Other end (a node name)."),
    p(LINK, "", "kind", "choice", "", "wired", one_of(&["wired", "wireless"]), "Wireless links' losses count as wireless for the ground-truth scoring."),
    p(LINK, "", "rate", "rate", BPS, REQ, ANY, "Line rate of each direction (1 bit/s to 1 Pbit/s)."),
    p(LINK, "", "delay", "duration", S, REQ, ANY, "One-way propagation delay."),
    p(LINK, "", "queue", "table", "", "droptail, 100 packets", ANY, "Interface queue of each direction (see the queues section)."),
    p(LINK, "", "error", "table", "", NONE, ANY, "Error model of both directions (see the errors section)."),
    p(LINK, "", "error_ab", "table", "", "error", ANY, "Error model of the a->b direction only (overrides error)."),
    p(LINK, "", "error_ba", "table", "", "error", ANY, "Error model of the b->a direction only (overrides error)."),
    p(LINK, "", "arq", "table", "", NONE, ANY, "Link-layer retransmission on both directions (selective repeat)."),
    p(LINK, "", "medium", "string", "", NONE, ANY, "A TDMA medium whose slot frame this link sends in (no arq then)."),
    p(ARQ, "", "retry_limit", "int", "", "3", ANY, "Resends of a corrupted frame before it is given up."),
    p(ARQ, "", "ack_bytes", "int", B, "14", ANY, "Link-level ACK frame, whose serialization is charged to every frame."),
    // --- media[] ---
    p(MED, "", "name", "string", "", REQ, ANY, "Unique medium name."),
    p(MED, "", "kind", "choice", "", REQ, one_of(&["wifi", "tdma"]), "802.11 DCF on a radio channel, or a TDMA slot frame."),
    p(MED, W, "nodes", "list", "", "nodes with a position", ANY, "Stations with a radio on this medium."),
    p(MED, W, "preset", "choice", "", "ns2", one_of(&["ns2", "80211b", "ns3", "80211g"]), "Defaults of every MAC/PHY key below (docs/mac.md)."),
    p(MED, W, "rate", "rate", BPS, "preset", ANY, "Data frame rate."),
    p(MED, W, "basic_rate", "rate", BPS, "preset", ANY, "Rate of RTS/CTS (and ACKs, by the preset's rule)."),
    p(MED, W, "ack_rate", "rate", BPS, "preset", ANY, "Rate of ACK frames."),
    p(MED, W, "propagation", "choice", "", "preset", one_of(&["free_space", "two_ray_ground", "log_distance"]), "Path-loss model."),
    p(MED, W, "frequency_hz", "float", "Hz", "preset", Range::Within(1e6, true, 1e12, true), "Carrier frequency."),
    p(MED, W, "tx_power_dbm", "float", "dBm", "preset", Range::Within(-100.0, true, 100.0, true), "Transmit power."),
    p(MED, W, "antenna_height", "float", "m", "1.5", Range::Within(0.01, true, 1e4, true), "Antenna height (two-ray ground)."),
    p(MED, W, "system_loss", "float", "", "1", Range::Within(1.0, true, 1e6, true), "System loss factor L (linear)."),
    p(MED, W, "path_loss_exponent", "float", "", "3", Range::Within(1.0, true, 10.0, true), "Log-distance path-loss exponent."),
    p(MED, W, "reference_distance", "float", "m", "1", Range::Within(0.001, true, 1e6, true), "Log-distance reference distance."),
    p(MED, W, "shadowing_db", "float", "dB", "0", ANY, "Std. deviation of log-normal shadowing, fixed per node pair (>= 0)."),
    p(MED, W, "range", "float", "m", NONE, Range::Within(0.01, true, 1e7, true), "Transmission range: the receive threshold set to the power at it (instead of rx_threshold_dbm)."),
    p(MED, W, "cs_range", "float", "m", NONE, Range::Within(0.01, true, 1e7, true), "Carrier-sense range: the carrier-sense threshold set to the power at it (instead of cs_threshold_dbm)."),
    p(MED, W, "rx_threshold_dbm", "float", "dBm", "preset", Range::Within(-200.0, true, 100.0, true), "Receive threshold (instead of range)."),
    p(MED, W, "cs_threshold_dbm", "float", "dBm", "preset", Range::Within(-200.0, true, 100.0, true), "Carrier-sense threshold (instead of cs_range)."),
    p(MED, W, "capture_db", "float", "dB", "10", Range::Within(-50.0, true, 100.0, true), "Minimum SINR for a frame to be received (capture)."),
    p(MED, W, "noise_dbm", "float", "dBm", "preset", Range::Within(-250.0, true, 100.0, true), "Noise power (none in ns2)."),
    p(MED, W, "reception", "choice", "", "preset", one_of(&["summed", "ns2", "sinr"]), "How a receiver decides a frame was decoded."),
    p(MED, W, "noise_figure_db", "float", "dB", "preset", Range::Within(0.0, true, 100.0, true), "Receiver noise figure: noise = kTB raised by it (sinr)."),
    p(MED, W, "preamble_snr_db", "float", "dB", "4", Range::Within(-50.0, true, 100.0, true), "Minimum SNR for a preamble to be detected (sinr)."),
    p(MED, W, "rx_sensitivity_dbm", "float", "dBm", "preset", Range::Within(-250.0, true, 100.0, true), "Weakest signal that counts as interference (sinr)."),
    p(MED, W, "cca_ed_threshold_dbm", "float", "dBm", "preset", Range::Within(-250.0, true, 100.0, true), "A sensed signal whose preamble cannot be detected from its power holds the medium only from this energy up (sinr; ns-3 CcaEdThreshold)."),
    p(MED, W, "access", "choice", "", "preset", one_of(&["ns2", "ns3"]), "Channel access: ns2 draws a backoff for every packet; ns3 draws one after every transmission (post-backoff) and sends a packet reaching an empty queue on an idle medium after DIFS."),
    p(MED, W, "fading", "table", "", NONE, ANY, "Per-frame small-scale fading of every pair (off by default)."),
    p(MED, W, "rate_control", "table", "", NONE, ANY, "Per-station rate adaptation (default: every data frame at rate)."),
    p(MED, "wifi tdma", "slot", "duration", S, "preset", ANY, "Slot time (wifi, up to 1 s) or slot length (tdma: required, > 0)."),
    p(MED, W, "sifs", "duration", S, "10us", ANY, "Short interframe space (up to 1 s)."),
    p(MED, W, "difs", "duration", S, "sifs + 2 slots", ANY, "DCF interframe space (sifs to 1 s)."),
    p(MED, W, "plcp", "duration", S, "preset", ANY, "PLCP preamble and header time (up to 1 s)."),
    p(MED, W, "cw_min", "int", "slots", "preset", Range::Max(65535.0, true), "Minimum contention window."),
    p(MED, W, "cw_max", "int", "slots", "1023", ANY, "Maximum contention window (cw_min to 65535)."),
    p(MED, W, "rts_threshold", "size", B, "preset", ANY, "RTS/CTS for frames above this size (up to 1 MiB)."),
    p(MED, W, "short_retry_limit", "int", "", "7", ONE_UP, "Attempts of frames sent without RTS."),
    p(MED, W, "long_retry_limit", "int", "", "preset", ONE_UP, "Attempts of frames sent with RTS."),
    p(MED, W, "mac_overhead", "size", B, "preset", ANY, "MAC header and FCS bytes added to each frame (up to 1 MiB)."),
    p(MED, W, "queue", "table", "", "droptail, 100 packets", ANY, "Interface queue of each station (any queue kind)."),
    p(MED, W, "error", "table", "", NONE, ANY, "Error model per frame and receiver, on top of the radio's."),
    p(MED, "tdma", "guard", "duration", S, "0", ANY, "Guard time at the start of each slot (shorter than the slot)."),
    p(MED, "tdma", "schedule", "choice", "", "flows", one_of(&["flows", "all_links", "nodes"]), "Who gets a slot: link directions carrying a flow, every link direction, or nodes."),
    p(FAD, "", "model", "choice", "", REQ, one_of(&["rayleigh", "rician", "nakagami"]), "Fading distribution."),
    p(FAD, "", "k_db", "float", "dB", NONE, Range::Within(-50.0, true, 50.0, true), "Rician K factor (rician only, and required there)."),
    p(FAD, "", "m", "float", "", "1", Range::Within(0.5, true, 50.0, true), "Nakagami m, in steps of 0.5 (nakagami only)."),
    p(FAD, "", "doppler_hz", "float", "Hz", NONE, Range::Within(0.0, true, 1e6, true), "Doppler spread (one of doppler_hz, speed, coherence_time; none: fixed per pair)."),
    p(FAD, "", "speed", "float", "m/s", NONE, Range::Within(0.0, true, 1e4, true), "Relative node speed: Doppler v/lambda."),
    p(FAD, "", "coherence_time", "duration", S, NONE, ANY, "Coherence time: Doppler 0.423/T_c."),
    p(RC, "", "manager", "choice", "", REQ, one_of(&["constant", "arf", "aarf", "ideal", "minstrel"]), "Rate manager (arf, aarf, ideal and minstrel need the sinr reception)."),
    p(RC, "", "ber", "float", "", "1e-6", Range::Within(0.0, false, 0.5, false), "Target bit error rate of the ideal manager (ideal only)."),
    // --- flows[] ---
    p(FLOW, "", "name", "string", "", "flow<i>", ANY, "Flow name (results, after)."),
    p(FLOW, "", "src", "string", "", REQ, ANY, "Sending node."),
    p(FLOW, "", "dst", "string", "", REQ, ANY, "Receiving node."),
    p(FLOW, "", "start", "duration", S, "0", ANY, "Start time."),
    p(FLOW, "", "start_jitter", "duration", S, "0", ANY, "Start plus a uniform draw from [0, start_jitter) from the run's seed."),
    p(FLOW, "", "stop", "duration", S, "duration", ANY, "Stop time."),
    p(FLOW, "", "after", "string", "", NONE, ANY, "Start when this TCP flow's file has all reached its receiver, instead of at start."),
    p(FLOW, "", "cc", "string", "", "reno", ANY, "Congestion-control scheme (airtcp schemes)."),
    p(FLOW, "", "cc_params", "map", "", "{}", ANY, "Parameters of the scheme (airtcp schemes --params)."),
    p(FLOW, "", "app", "table", "", REQ, ANY, "What the flow sends (see the apps section)."),
    p(FLOW, "", "tcp", "table", "", "{}", ANY, "TCP options of this flow, over the top-level tcp table."),
    p(APP, "file", "size", "size", B, REQ, POS, "Bytes to transfer; completion time is recorded."),
    p(APP, "cbr onoff", "rate", "rate", BPS, REQ, ANY, "UDP sending rate (while on)."),
    p(APP, "cbr onoff", "packet_size", "int", B, "1000", ONE_UP, "UDP payload per packet."),
    p(APP, "onoff", "on_mean", "duration", S, REQ, POS, "Mean of the exponential on periods."),
    p(APP, "onoff", "off_mean", "duration", S, REQ, POS, "Mean of the exponential off periods."),
    // --- tcp (also flows[].tcp) ---
    p(TCP, "", "profile", "choice", "", NONE, one_of(&["ns2", "ns3", "linux"]), "Take every default from a stack (docs/tcp_profiles.md)."),
    p(TCP, "", "segment_size", "int", B, "1000", Range::Within(1.0, true, 65000.0, true), "MSS: payload bytes per segment."),
    p(TCP, "", "header_size", "int", B, "40", Range::Max(1000.0, true), "TCP/IP header bytes per segment."),
    p(TCP, "", "initial_cwnd", "int", "segments", "2", Range::Within(1.0, true, 1e6, true), "Initial congestion window."),
    p(TCP, "", "initial_ssthresh", "size", B, "1073741824", ANY, "Initial slow-start threshold (at least 2 segments)."),
    p(TCP, "", "rcv_window", "size", B, "65536", ANY, "Receiver window (one segment to 1 TiB)."),
    p(TCP, "", "min_rto", "duration", S, "0.2", ANY, "RTO floor (rfc6298) or addend (linux)."),
    p(TCP, "", "initial_rto", "duration", S, "1", POS, "RTO before the first RTT sample."),
    p(TCP, "", "syn_timeout", "duration", S, "0", ANY, "A SYN's own timer, doubled at each retry (ns-3's ConnTimeout: 3 s); 0: the SYN is timed by the RTO."),
    p(TCP, "", "max_rto", "duration", S, "60", ANY, "RTO ceiling (>= min_rto)."),
    p(TCP, "", "delayed_ack", "bool", "", "false", ANY, "Delayed ACKs (RFC 1122)."),
    p(TCP, "", "delack_count", "int", "segments", "2", ONE_UP, "Segments per delayed ACK."),
    p(TCP, "", "delack_timeout", "duration", S, "0.2", ANY, "Delayed-ACK timer."),
    p(TCP, "", "sack", "bool", "", "false", ANY, "Selective acknowledgments (RFC 2018, RFC 6675 recovery)."),
    p(TCP, "", "timestamps", "bool", "", "false", ANY, "Timestamps option (RFC 7323)."),
    p(TCP, "", "ecn", "bool", "", "false", ANY, "ECN-capable transport (RFC 3168)."),
    p(TCP, "", "dupack_threshold", "int", "ACKs", "3", ONE_UP, "Duplicate ACKs that trigger fast retransmit."),
    p(TCP, "", "handshake", "bool", "", "false", ANY, "Open with SYN/SYN-ACK (ns-2's agents start established)."),
    p(TCP, "", "syn_options", "int", B, "0", Range::Max(40.0, true), "Bytes the SYN and SYN-ACK carry beyond header_size (ns-3: 4)."),
    p(TCP, "", "handshake_ack", "bool", "", "false", ANY, "Complete the handshake with a pure ACK ahead of the first data (ns-3)."),
    p(TCP, "", "dda_delay", "duration", S, NONE, POS, "Delayed duplicate ACKs: the receiver holds dupACKs this long."),
    p(TCP, "", "limited_transmit", "bool", "", "false", ANY, "Limited transmit (RFC 3042)."),
    p(TCP, "", "prr", "bool", "", "false", ANY, "Proportional rate reduction (RFC 6937)."),
    p(TCP, "", "rack", "bool", "", "false", ANY, "RACK-TLP loss detection (RFC 8985)."),
    p(TCP, "", "tlp", "bool", "", "false", ANY, "Tail loss probes (RFC 8985)."),
    p(TCP, "", "frto", "bool", "", "false", ANY, "F-RTO spurious timeout detection (RFC 5682)."),
    p(TCP, "", "recover_guard", "choice", "", "careful", one_of(&["careful", "less_careful", "ack", "timestamp", "off"]), "Guard against spurious fast retransmits after a timeout (RFC 6582)."),
    p(TCP, "", "rto_formula", "choice", "", "rfc6298", one_of(&["rfc6298", "linux"]), "min_rto a floor (rfc6298) or added to SRTT (linux)."),
    p(TCP, "", "clock_granularity", "duration", S, "0.001", ANY, "RFC 6298's clock granularity G."),
    p(TCP, "", "ts_tick", "duration", S, "0", ANY, "Tick of the timestamp clock; 0 for exact (ns-3: 1ms)."),
    p(TCP, "", "cut_basis", "choice", "", "flight", one_of(&["flight", "pipe"]), "What a window cut halves: FlightSize (RFC 5681) or pipe (ns-3)."),
    p(TCP, "", "prr_variant", "choice", "", "rfc6937", one_of(&["rfc6937", "ns3"]), "How PRR counts."),
    p(TCP, "", "rescue_retransmit", "bool", "", "true", ANY, "RFC 6675 NextSeg() rule 4."),
    p(TCP, "", "fast_retransmit_restarts_rto", "bool", "", "true", ANY, "Restart the RTO timer when the fast retransmission is sent."),
    p(TCP, "", "rto_on_new_ack", "choice", "", "keep_backoff", one_of(&["keep_backoff", "estimate"]), "A timeout's backed-off RTO: kept until a valid RTT sample (RFC 6298), or reset to the estimate by every new ACK that restarts the timer (ns-3)."),
    p(TCP, "", "reno_sack", "bool", "", "false", ANY, "Without SACK, each duplicate ACK marks one more segment SACKed (kept until a timeout) and recovery runs on those marks (ns-3)."),
    p(TCP, "", "pacing", "choice", "", "slots", one_of(&["slots", "ns3"]), "A paced scheme's gaps: every transmission takes a slot of its packet's bytes at the pacing rate, or ns-3's timer (a gap of the payload's time, started only once the last one ran out; the initial window unpaced)."),
    p(TCP, "", "sack_list", "choice", "", "ranges", one_of(&["ranges", "ns3"]), "The receiver's SACK blocks: the ranges it holds, latest arrival's first (RFC 2018), or ns-3's list of recent blocks."),
    p(TCP, "", "disorder_acks", "choice", "", "grow", one_of(&["grow", "hold"]), "An ACK that advances while it brings new SACK information, outside recovery: a new ACK (window growth, timer restarted), or (ns-3, `hold`) neither."),
    p(TCP, "", "timeout_resend", "choice", "", "all", one_of(&["all", "below_sack"]), "After a timeout with SACK: resend every un-SACKed segment sent before it, or (ns-3) only those below the highest SACKed segment before new data."),
    p(TCP, "", "ack_options", "choice", "", "none", one_of(&["none", "ns3", "linux"]), "What an ACK's SACK blocks add to its size: nothing (ns-2's fixed-size ACKs), ns-3's packing (options summed, padded to 4 bytes) or Linux's (two NOPs, then the option)."),
    p(TCP, "", "rtt_sampling", "choice", "", "rfc", one_of(&["rfc", "ns3"]), "Which ACKs feed the RTT estimator: every advancing one (RFC 7323; Karn's rule without timestamps), or only one covering the oldest segment first sent since the last timeout (ns-3)."),
    p(TCP, "", "partial_ack_retransmit", "bool", "", "false", ANY, "In SACK recovery, resend the new head on a partial ACK (ns-3)."),
    p(TCP, "", "timeout_keeps_ssthresh", "bool", "", "false", ANY, "A repeated timeout of one loss episode keeps ssthresh (Linux)."),
    p(TCP, "", "exit_ack_grows", "bool", "", "false", ANY, "The ACK that ends fast recovery grows the window (ns-3, Linux)."),
    p(TCP, "", "ack_first_segment", "bool", "", "false", ANY, "With delayed ACKs, acknowledge the first data segment at once (ns-3)."),
    p(TCP, "", "ts_echo_earliest", "bool", "", "false", ANY, "Echo the timestamp of the earliest segment an ACK answers (RFC 7323 4.3)."),
    p(TCP, "", "pipe_keeps_retransmissions", "bool", "", "false", ANY, "Retransmissions stay counted in pipe until a timeout (ns-3)."),
    p(TCP, "", "acked_count", "choice", "", "advance", one_of(&["advance", "delivered"]), "What the scheme's growth counts: the cumulative ACK's advance, or delivered."),
    p(TCP, "", "recovery", "choice", "", "scheme", one_of(&["scheme", "reno", "newreno"]), "Loss recovery: the scheme's own, reno or newreno."),
    p(TCP, "", "window_growth", "choice", "", "rfc5681", one_of(&["rfc5681", "linux"]), "Reno-family and Linux CUBIC growth: per ACK (rfc5681) or per segment the ACK delivered (linux)."),
    // --- queues (links[].queue, media[].queue) ---
    p(Q, ANYQ, "limit", "int", "packets or bytes", "100", ONE_UP, "Buffer size in the queue's unit (at most 10^7 packets or 10^11 bytes)."),
    p(Q, ANYQ, "unit", "choice", "", "packets", one_of(&["packets", "bytes"]), "Unit of limit and thresholds."),
    p(Q, "ecn_threshold", "mark_threshold", "int", "packets or bytes", REQ, ANY, "Mark CE (drop if not ECN-capable) above this occupancy."),
    p(Q, "ecn_threshold", "count_starting", "bool", "", "false", ANY, "Point-to-point links: a packet whose transmission starts at an arrival's instant still counts toward the occupancy (ns-3's order of equal-time events)."),
    p(Q, RED3, "min_threshold", "float", "packets or bytes", "5", NONNEG, "Average queue where marking starts (x mean_packet_size in a byte queue)."),
    p(Q, "mecn wmecn", "mid_threshold", "float", "packets or bytes", "10", NONNEG, "Middle threshold: min < mid < max."),
    p(Q, RED3, "max_threshold", "float", "packets or bytes", "15", NONNEG, "Average queue where marking reaches max_p (above min, at most limit)."),
    p(Q, RED3, "max_p", "float", "", "0.1", FRAC, "Mark/drop probability at max_threshold."),
    p(Q, "mecn", "max_p2", "float", "", "max_p", FRAC, "MECN's second-level marking probability."),
    p(Q, RED4, "weight", "float", "", "0.002", FRAC, "EWMA weight w_q of the average queue."),
    p(Q, RED4, "mean_packet_size", "int", B, "1000", ONE_UP, "Typical packet: idle time in packets, thresholds in bytes."),
    p(Q, "red", "gentle", "bool", "", "false", ANY, "Gentle RED: probability rises to 1 between max and 2 max."),
    p(Q, "red", "ecn", "bool", "", "false", ANY, "Mark ECN-capable packets instead of dropping them."),
    p(Q, "cw", "threshold", "float", "packets or bytes", "limit / 2", ANY, "Congestion warning: mark every ECN packet while the average is at or above it (0 < t <= limit)."),
    // --- error models (links[].error, error_ab, error_ba, media[].error) ---
    p(ERR, APPLIES, "applies_to", "choice", "", "all", one_of(&["data", "ack", "all"]), "Which packets the model applies to."),
    p(ERR, "bernoulli", "per", "float", "", "0", PROB, "Independent packet loss probability."),
    p(ERR, "hashed", "per", "float", "", REQ, PROB, "Loss probability per copy of a data segment, by hash (same losses in any simulator)."),
    p(ERR, "hashed", "seed", "int", "", "0", ANY, "Seed of the hash."),
    p(ERR, "ber", "ber", "float", "", REQ, PROB, "Independent bit error rate; the PER follows the packet size."),
    p(ERR, "gilbert_elliott", "mean_good", "duration", S, REQ, POS, "Mean sojourn in the good state (exponential)."),
    p(ERR, "gilbert_elliott", "mean_bad", "duration", S, REQ, POS, "Mean sojourn in the bad state (exponential)."),
    p(ERR, "gilbert_elliott", "per_good", "float", "", "0", PROB, "Loss probability in the good state."),
    p(ERR, "gilbert_elliott", "per_bad", "float", "", "1", PROB, "Loss probability in the bad state."),
    p(ERR, "list", "packets", "list", "", REQ, ANY, "0-based indices of the packets to drop (among those the model applies to)."),
    p(ERR, "snr", "modulation", "choice", "", REQ, one_of(&["dsss1", "dsss2", "cck5.5", "cck11"]), "802.11b modulation whose error curve maps SNR to PER."),
    p(ERR, "snr", "trace", "string", "", NONE, ANY, "CSV file of SNR samples (dB), one per interval (one of trace, samples, synth)."),
    p(ERR, "snr", "samples", "list", "dB", NONE, ANY, "Inline SNR samples, one per interval."),
    p(ERR, "snr", "synth", "table", "", NONE, ANY, "A synthesized SNR trace (see synth keys)."),
    p(ERR, "snr", "interval", "duration", S, "0.1", POS, "Time each SNR sample holds."),
    p(ERR, "snr", "shared", "bool", "", "false", ANY, "Both directions read the a->b direction's synthesized trace."),
    p(ERR, "snr", "per_size", "int", B, "frame size", ONE_UP, "Compute every frame's PER at this size."),
    p(SYN, "", "tx_power_dbm", "float", "dBm", "15", ANY, "Transmit power."),
    p(SYN, "", "noise_dbm", "float", "dBm", "-93", ANY, "Noise floor."),
    p(SYN, "", "ref_loss_db", "float", "dB", "40", ANY, "Path loss at the 1 m reference distance."),
    p(SYN, "", "path_loss_exponent", "float", "", "3", ANY, "Log-distance path-loss exponent."),
    p(SYN, "", "waypoints", "list", "[s, m]", REQ, ANY, "Mobility: [time, distance] waypoints, linearly interpolated."),
    p(SYN, "", "shadowing_db", "float", "dB", "4", ANY, "Log-normal shadowing std. deviation (>= 0)."),
    p(SYN, "", "shadowing_corr", "float", "", "0.9", ANY, "AR(1) correlation of shadowing between samples, in [0, 1)."),
    p(SYN, "", "fading", "choice", "", "rayleigh", one_of(&["none", "rayleigh", "rician"]), "Small-scale fading of each sample."),
    p(SYN, "", "rician_k", "float", "", "6", ANY, "Rician K factor (linear)."),
    p(SYN, "", "doppler_hz", "float", "Hz", NONE, ANY, "Maximum Doppler shift: Clarke's model (up to 1e5)."),
    p(SYN, "", "coherence_time", "duration", S, NONE, ANY, "Gauss-Markov coherence time (none: independent samples)."),
    // --- agents (node hooks) ---
    p(AG, "snr_gate eln snoop explicit_rate drai", "node", "string", "", REQ, ANY, "Node the agent runs at (drai: \"*\" for every node)."),
    p(AG, "snr_gate", "link", "string", "", REQ, ANY, "Wireless link (snr error model) whose SNR leaving node is read."),
    p(AG, "snr_gate", "threshold_db", "float", "dB", REQ, ANY, "Senders are gated off below this SNR."),
    p(AG, "snr_gate", "interval", "duration", S, "0.1", POS, "How often the gate reads the SNR."),
    p(AG, "snr_gate", "measurement_delay", "duration", S, "sample interval", ANY, "Age of the reading (> 0)."),
    p(AG, "snr_gate", "ewma_weight", "float", "", "1", FRAC, "Weight of the newest sample in an EWMA of the SNR."),
    p(AG, "snr_gate", "hysteresis_db", "float", "dB", "0", NONNEG, "Reopen only above threshold_db + hysteresis_db."),
    p(AG, "snoop", "min_rto", "duration", S, "0.02", POS, "Floor of the local retransmission timeout."),
    p(AG, "explicit_rate", "share", "float", "", "1", FRAC, "Share of each output device's rate offered."),
    p(AG, "explicit_rate", "per_flow", "bool", "", "false", ANY, "Divide the offer among the flows active at the node."),
    p(AG, "explicit_rate", "active", "duration", S, "1", POS, "A flow is active if it sent a segment through the node this recently."),
    p(AG, "drai", "queue_low", "float", "packets", "1", Range::Within(0.0, true, 1e7, true), "Queue below which the index accelerates."),
    p(AG, "drai", "queue_mid", "float", "packets", "3", ANY, "Middle queue level (>= queue_low)."),
    p(AG, "drai", "queue_high", "float", "packets", "6", ANY, "Queue above which the index decelerates hardest (>= queue_mid)."),
    p(AG, "drai", "busy_low", "float", "", "0.5", PROB, "Channel busy fraction below which the index accelerates."),
    p(AG, "drai", "weight", "float", "", "0.1", FRAC, "EWMA weight of the measured queue."),
    p(AG, "drai", "window", "duration", S, "0.1", POS, "Measurement window."),
    p(AG, "drai", "drop_memory", "duration", S, "window", ANY, "How long a drop decelerates."),
    p(AG, "drai", "drop_memory_rtts", "float", "RTTs", "0", Range::Within(0.0, true, 1e3, true), "> 0: that many of the node's smoothed round trips instead."),
    // --- routing (top level, and nodes[].routing key by key) ---
    p(RT, "", "protocol", "choice", "", "static", one_of(&["static", "aodv", "olsr"]), "Routing protocol: static shortest paths, AODV (RFC 3561) or OLSR (RFC 3626)."),
    p(RT, "", "hello", "bool", "", "true", ANY, "AODV: send HELLOs and declare a link lost when they stop (RFC 3561 6.9)."),
    p(RT, "", "link_feedback", "bool", "", "aodv: true, olsr: false", ANY, "Declare a link broken when the MAC gives up on a frame (AODV 6.10, OLSR 13)."),
    p(RT, "", "hello_from", "choice", "", "active", one_of(&["active", "all"]), "AODV: HELLOs from nodes on an active route (RFC 3561 6.9) or from every node (ns-3)."),
    p(RT, "", "data_liveness", "bool", "", "false", ANY, "AODV: a data packet keeps the link to the previous hop alive, as control packets do (6.10)."),
    p(RT, "", "rreq_ratelimit", "int", "", "10", ANY, "AODV: RREQ_RATELIMIT, RREQs a node originates per second at most (0: no limit)."),
    p(RT, "", "gratuitous_rrep", "bool", "", "false", ANY, "AODV: originators set the G flag; an intermediate node that answers also sends a RREP to the destination (6.6.3)."),
    p(RT, "", "seq_on_break", "bool", "", "true", ANY, "AODV: a route broken or reported in a RERR takes a new destination sequence number (RFC 3561 6.11); false keeps its number (ns-3)."),
    p(RT, "", "relay_every_rrep", "bool", "", "false", ANY, "AODV: a relay passes on every RREP it can route back (ns-3), not only one that created or updated its forward route (RFC 3561 6.7)."),
    p(RT, "", "hear_revives", "bool", "", "true", ANY, "AODV: hearing from a neighbour refreshes or revives the route to it (RFC 3561 6.2); false leaves a one-hop route with a valid sequence number as it is, but for a RREQ or HELLO from it (ns-3)."),
    p(RT, "", "rreq_revives", "bool", "", "true", ANY, "AODV: a RREQ makes the route back to its originator valid (RFC 3561 6.5); false updates an existing entry but leaves it invalid, or in search, as it was, and a RREP goes back over such an entry (ns-3)."),
    p(RT, "", "jitter_ns3", "bool", "", "false", ANY, "AODV: ns-3's jitter, a whole number of milliseconds from 0 to `jitter`, also on originated RREQs and on a RERR unicast to its only precursor."),
    p(RT, "", "rreq_loop_drop", "bool", "", "false", ANY, "AODV: a RREQ for a destination whose entry (valid or not) has the RREQ's sender as next hop is dropped, neither answered nor relayed (ns-3; RFC 3561 has no such rule)."),
    p(RT, "", "control_routed", "bool", "", "false", ANY, "AODV: unicast RREPs, RERRs and RREP-ACKs are routed as data, one for a neighbour without an active route waiting for a discovery of it (ns-3)."),
    p(RT, "", "rrep_ack", "bool", "", "false", ANY, "AODV: an intermediate reply for a destination one hop away asks for a RREP-ACK, which the next node sends back (ns-3)."),
    p(RT, "", "hello_suppress", "choice", "", "broadcast", one_of(&["broadcast", "rreq_defer"]), "AODV: a HELLO is skipped after any broadcast within the last interval (RFC 3561 6.9), or moved to an interval after the last RREQ sent or relayed (ns-3)."),
    p(RT, "", "rerr_no_route", "choice", "", "precursors", one_of(&["precursors", "toward_source"]), "AODV: a relay's RERR for a data packet it has no route for goes to the route's precursors (RFC 3561 6.11), or to the next hop back to the packet's source, one per packet (ns-3)."),
    p(RT, "", "rerr_routes", "choice", "", "active", one_of(&["active", "all"]), "AODV: a break or a RERR reports the active routes it made invalid, to precursors then forgotten (RFC 3561 6.11), or every route through the neighbour, valid or not, at every MAC give-up, to precursors kept (ns-3)."),
    p(RT, "", "on_break", "choice", "", "drop", one_of(&["drop", "salvage", "keep"]), "AODV: the MAC's queued packets for a broken link are dropped (route_break), routed again, or left queued (ns-3)."),
    p(RT, "", "buffer", "int", "packets", "64", ANY, "AODV: data packets held per node during discoveries (>= 1)."),
    p(RT, "", "buffer_timeout", "duration", S, "30", ANY, "AODV: how long a held packet waits for a route (> 0)."),
    p(RT, "", "active_route_timeout", "duration", S, "3", ANY, "AODV: ACTIVE_ROUTE_TIMEOUT (> 0)."),
    p(RT, "", "hello_interval", "duration", S, "aodv: 1, olsr: 2", ANY, "HELLO_INTERVAL (> 0)."),
    p(RT, "", "allowed_hello_loss", "int", "", "2", ANY, "AODV: ALLOWED_HELLO_LOSS (>= 1)."),
    p(RT, "", "net_diameter", "int", "hops", "35", ANY, "AODV: NET_DIAMETER (>= 1, >= ttl_start)."),
    p(RT, "", "node_traversal_time", "duration", S, "0.04", ANY, "AODV: NODE_TRAVERSAL_TIME (> 0)."),
    p(RT, "", "rreq_retries", "int", "", "2", ANY, "AODV: RREQ_RETRIES after the expanding ring search."),
    p(RT, "", "ttl_start", "int", "hops", "1", ANY, "AODV: TTL_START of the expanding ring search (>= 1)."),
    p(RT, "", "ttl_increment", "int", "hops", "2", ANY, "AODV: TTL_INCREMENT (>= 1)."),
    p(RT, "", "ttl_threshold", "int", "hops", "7", ANY, "AODV: TTL_THRESHOLD (>= 1)."),
    p(RT, "", "tc_interval", "duration", S, "5", ANY, "OLSR: TC_INTERVAL (> 0)."),
    p(RT, "", "willingness", "int", "", "3", ANY, "OLSR: willingness to carry traffic for others (0..7; RFC 3626 18.8)."),
    p(RT, "", "jitter", "duration", S, "aodv: 0.01, olsr: hello_interval / 4", ANY, "Largest jitter of a broadcast (>= 0; OLSR: MAXJITTER, every message waits up to it)."),
    p(RT, "", "bundle", "bool", "", "true", ANY, "OLSR: messages waiting together leave in one packet (RFC 3626 3.4); false: a packet per message."),
    p(RT, "", "hysteresis", "bool", "", "false", ANY, "OLSR: link hysteresis (RFC 3626 14): a link is used once its quality passes 0.8 and dropped below 0.3."),
    // --- trace ---
    p(TR, "", "cwnd", "bool", "", "false", ANY, "Record every flow's cwnd series."),
    p(TR, "", "verdicts", "bool", "", "false", ANY, "Record every loss-cause verdict (time, segment, verdict, true cause)."),
    p(TR, "", "queue", "list", "", "[]", ANY, "Link names whose queue length is sampled."),
    p(TR, "", "queue_interval", "duration", S, "0.01", ANY, "Queue sampling interval (>= 1us)."),
    p(TR, "", "pcap", "list", "", "[]", ANY, "pcap files: node names and 802.11 medium names; \"*\" for all."),
    p(TR, "", "positions", "duration", S, NONE, ANY, "Sample every radio node's position at this interval (series.positions)."),
    p(TR, "", "rssi", "list", "", "[]", ANY, "802.11 media (or \"*\") whose stations record the power of every frame they sense (series.rssi)."),
    p(TR, "", "pcap_dir", "string", "", "pcap", ANY, "Directory of the pcap files (<name>.pcap)."),
    p(TR, "", "routes", "bool", "", "false", ANY, "Record the route each flow's data takes, at each change (the routes table)."),
];
