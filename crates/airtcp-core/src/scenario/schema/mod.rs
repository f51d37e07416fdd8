//! The scenario file format (see docs/scenario.md). Every table rejects unknown keys.

use super::units::{Duration, Rate, Size};
pub use crate::link::error::AppliesTo;
pub use crate::topology::{LinkKind, NodeKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod queue;

use queue::{queue_spec, queue_spec_opt};
pub use queue::{QueueSpec, QueueUnit, RedParams};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default = "default_name")]
    pub name: String,
    pub duration: Duration,
    #[serde(default = "default_seed", deserialize_with = "seed")]
    pub seed: u64,
    /// Start of the steady state: loss-cause verdicts from then on are also scored apart
    /// (the `steady_*` columns). Default 0.
    pub warmup: Option<Duration>,
    /// Event budget of the run: a run that would process more events stops with an error
    /// naming this key (protects sweeps from a scenario that would run for days).
    pub max_events: Option<u64>,
    /// Memory budget of the run ("2GiB"): a run whose queued packets, drop records, series
    /// and per-flow state outgrow it stops with an error naming the field that drives them.
    pub memory_budget: Option<Size>,
    #[serde(default)]
    pub tcp: TcpOptions,
    #[serde(default)]
    pub nodes: Vec<NodeSpec>,
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// Shared media: 802.11 radio channels and TDMA slot frames.
    #[serde(default)]
    pub media: Vec<MediumSpec>,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    #[serde(default)]
    pub agents: Vec<AgentSpec>,
    #[serde(default)]
    pub trace: TraceSpec,
    /// The mobility model of every node with a `position` that has none of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mobility: Option<super::mobility::MobilitySpec>,
    /// Routing of every node (default: static shortest paths); a node's own `routing`
    /// overrides it key by key (docs/routing.md).
    pub routing: Option<RoutingSpec>,
    /// Free-form notes carried through to results (e.g. which paper figure this is).
    #[serde(default)]
    pub meta: BTreeMap<String, serde_json::Value>,
}

fn default_name() -> String {
    "scenario".into()
}
fn default_seed() -> u64 {
    1
}

/// A seed is an integer of 64 bits; say so rather than serde's "expected u64" for a larger or
/// negative one (JSON turns an integer beyond 2^64 into a float).
fn seed<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    use serde::de::Error;
    let v = serde_json::Value::deserialize(d)?;
    v.as_u64().ok_or_else(|| {
        D::Error::custom(format!(
            "must be an integer from 0 to 2^64 - 1 (18446744073709551615), got {v}"
        ))
    })
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
    #[serde(default = "default_node_kind")]
    pub kind: NodeKind,
    /// Coordinates in metres, for radio media.
    pub position: Option<[f64; 2]>,
    /// How the node moves (docs/mobility.md); without it, it stays at `position`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mobility: Option<super::mobility::MobilitySpec>,
    /// This node's routing, over the scenario's `routing` key by key.
    pub routing: Option<RoutingSpec>,
}

/// Which routing protocol a node runs.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RoutingProtocol {
    Static,
    Aodv,
    Olsr,
}

/// A node's routing protocol and its settings (docs/routing.md); unset keys take the RFC's
/// defaults.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RoutingSpec {
    pub protocol: Option<RoutingProtocol>,
    /// AODV: send HELLOs and declare links lost when they stop (RFC 3561 6.9).
    pub hello: Option<bool>,
    /// AODV: declare a link broken when the MAC gives up on a frame (RFC 3561 6.10).
    pub link_feedback: Option<bool>,
    /// AODV: which nodes send HELLOs: `active` (on an active route, RFC 3561 6.9) or `all`.
    pub hello_from: Option<crate::routing::aodv::HelloFrom>,
    /// AODV: data packets keep the link to the neighbour they came from alive (6.10).
    pub data_liveness: Option<bool>,
    /// AODV: RREQ_RATELIMIT, originated RREQs per second at most (0: no limit).
    pub rreq_ratelimit: Option<u32>,
    /// AODV: gratuitous RREPs (the G flag, RFC 3561 6.6.3).
    pub gratuitous_rrep: Option<bool>,
    /// AODV: a broken or reported route takes a new sequence number (RFC 3561 6.11).
    pub seq_on_break: Option<bool>,
    /// AODV: relays pass on every RREP, not only those that updated their route (ns-3).
    pub relay_every_rrep: Option<bool>,
    /// AODV: hearing from a neighbour refreshes the route to it (RFC 3561 6.2); false: only
    /// its RREQs and HELLOs do (ns-3).
    pub hear_revives: Option<bool>,
    /// AODV: a RREQ makes the route back to its originator valid (RFC 3561 6.5); false
    /// leaves an invalid or searched-for entry so (ns-3).
    pub rreq_revives: Option<bool>,
    /// AODV: drop a RREQ whose destination's entry has its sender as next hop (ns-3).
    pub rreq_loop_drop: Option<bool>,
    /// AODV: ns-3's jitter: whole milliseconds, on the RREQs a node originates as well.
    pub jitter_ns3: Option<bool>,
    /// AODV: unicast control messages are routed as data, waiting for a discovery (ns-3).
    pub control_routed: Option<bool>,
    /// AODV: intermediate replies for a one-hop destination ask for a RREP-ACK (ns-3).
    pub rrep_ack: Option<bool>,
    /// AODV: which broadcasts stand in for a HELLO: `broadcast` (any, RFC 3561 6.9) or
    /// `rreq_defer` (RREQs, the HELLO moved to an interval after them; ns-3).
    pub hello_suppress: Option<crate::routing::aodv::HelloSuppress>,
    /// AODV: a relay's RERR for a packet it has no route for goes to the route's
    /// `precursors` (RFC 3561 6.11) or `toward_source` (ns-3).
    pub rerr_no_route: Option<crate::routing::aodv::RerrNoRoute>,
    /// AODV: a break or a RERR reports the `active` routes it invalidated (RFC 3561 6.11) or
    /// `all` routes through the neighbour, at every MAC give-up (ns-3).
    pub rerr_routes: Option<crate::routing::aodv::RerrRoutes>,
    /// AODV: what happens to the MAC's packets for a broken link: `drop`, `salvage` or `keep`.
    pub on_break: Option<crate::routing::OnBreak>,
    /// AODV: data packets held during a discovery, and for how long.
    pub buffer: Option<u32>,
    pub buffer_timeout: Option<Duration>,
    pub active_route_timeout: Option<Duration>,
    /// HELLO_INTERVAL (AODV and OLSR).
    pub hello_interval: Option<Duration>,
    pub allowed_hello_loss: Option<u32>,
    pub net_diameter: Option<u32>,
    pub node_traversal_time: Option<Duration>,
    pub rreq_retries: Option<u32>,
    pub ttl_start: Option<u32>,
    pub ttl_increment: Option<u32>,
    pub ttl_threshold: Option<u32>,
    /// OLSR: TC_INTERVAL.
    pub tc_interval: Option<Duration>,
    /// OLSR: the node's willingness to carry traffic for others (0..7; RFC 3626 18.8).
    pub willingness: Option<u8>,
    /// Largest broadcast jitter.
    pub jitter: Option<Duration>,
    /// OLSR: messages waiting together leave in one packet (RFC 3626 3.4).
    pub bundle: Option<bool>,
    /// OLSR: link hysteresis (RFC 3626 14).
    pub hysteresis: Option<bool>,
}

impl RoutingSpec {
    /// `self` with the keys `over` sets replaced.
    pub fn merged(&self, over: &RoutingSpec) -> RoutingSpec {
        macro_rules! pick {
            ($($f:ident),*) => { RoutingSpec { $($f: over.$f.or(self.$f),)* } };
        }
        pick!(
            protocol,
            hello,
            hello_from,
            data_liveness,
            rreq_ratelimit,
            gratuitous_rrep,
            seq_on_break,
            relay_every_rrep,
            hear_revives,
            rreq_revives,
            rreq_loop_drop,
            jitter_ns3,
            control_routed,
            rrep_ack,
            hello_suppress,
            rerr_no_route,
            rerr_routes,
            link_feedback,
            on_break,
            buffer,
            buffer_timeout,
            active_route_timeout,
            hello_interval,
            allowed_hello_loss,
            net_diameter,
            node_traversal_time,
            rreq_retries,
            ttl_start,
            ttl_increment,
            ttl_threshold,
            tc_interval,
            willingness,
            jitter,
            bundle,
            hysteresis
        )
    }
}
fn default_node_kind() -> NodeKind {
    NodeKind::Host
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub name: Option<String>,
    pub a: String,
    pub b: String,
    #[serde(default)]
    pub kind: LinkKind,
    pub rate: Rate,
    pub delay: Duration,
    #[serde(default, deserialize_with = "queue_spec")]
    pub queue: QueueSpec,
    // Boxed: most links have no error model, and a scenario of a thousand links otherwise
    // holds three inline ones each while the simulation is built beside it.
    pub error: Option<Box<ErrorSpec>>,
    pub error_ab: Option<Box<ErrorSpec>>,
    pub error_ba: Option<Box<ErrorSpec>>,
    /// Link-layer retransmission on both directions of this link.
    pub arq: Option<ArqSpec>,
    /// A TDMA medium whose slot frame this link's two directions send in.
    pub medium: Option<String>,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MediumKind {
    /// IEEE 802.11 DCF, ad hoc, on a radio channel shared by the listed nodes.
    Wifi,
    /// A TDMA slot frame shared by the links that name this medium.
    Tdma,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum WifiPreset {
    /// ns-2's Mac/802_11 and Phy/WirelessPhy defaults (2 Mbps, 250 m / 550 m).
    Ns2,
    /// 802.11b at 11 Mbps with a 1 Mbps basic rate, log-distance indoor propagation.
    #[serde(rename = "80211b")]
    Dot11b,
    /// ns-3.44's YansWifiPhy and AdhocWifiMac defaults for 802.11b, `sinr` reception.
    Ns3,
    /// 802.11g ERP-OFDM at 54 Mbps: 9 µs slots, 20 µs OFDM preamble, `sinr` reception.
    #[serde(rename = "80211g")]
    Dot11g,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FadingModel {
    Rayleigh,
    Rician,
    Nakagami,
}

/// Small-scale fading drawn per frame from per-pair streams, correlated in time through the
/// Doppler spread (give at most one of `doppler_hz`, `speed`, `coherence_time`; none: a gain
/// fixed per pair for the run).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FadingSpec {
    pub model: FadingModel,
    /// Rician K factor, dB.
    pub k_db: Option<f64>,
    /// Nakagami m (≥ 0.5, in steps of 0.5).
    pub m: Option<f64>,
    pub doppler_hz: Option<f64>,
    /// Relative node speed, m/s (Doppler v/λ).
    pub speed: Option<f64>,
    /// Coherence time (Doppler 0.423/T_c).
    pub coherence_time: Option<Duration>,
}

/// How each station picks the rate of its data frames (`rate_control = { manager = ... }`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RateControlSpec {
    pub manager: RateManagerKind,
    /// Target bit error rate of `ideal` (default 1e-6).
    pub ber: Option<f64>,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RateManagerKind {
    Constant,
    Arf,
    Aarf,
    Ideal,
    Minstrel,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ReceptionKind {
    /// Capture over the sum of every overlapping signal (airtcp's first rule).
    Summed,
    /// ns-2's lock-and-capture receiver.
    Ns2,
    /// ns-3's SINR chunks and error-rate curves.
    Sinr,
}

/// How a station contends for the medium (docs/mac.md).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AccessKind {
    /// ns-2's MAC: DIFS and a fresh backoff before every packet's first attempt.
    Ns2,
    /// ns-3's DCF: a backoff drawn at the end of every transmission counts down whether or
    /// not a packet waits; a packet reaching an empty queue after it, on an idle medium, goes
    /// after DIFS without one.
    Ns3,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PropagationKind {
    FreeSpace,
    TwoRayGround,
    LogDistance,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum TdmaSchedule {
    /// One slot per link direction that carries a flow (data or ACKs), round robin.
    #[default]
    Flows,
    /// One slot per link direction of the medium.
    AllLinks,
    /// One slot per node with a link direction that carries a flow; the node's links share
    /// it (one radio per node).
    Nodes,
}

/// A shared medium. Keys not listed for a kind are refused by the builder, naming the kind.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MediumSpec {
    pub name: String,
    pub kind: MediumKind,
    // --- wifi ---
    /// Nodes with a radio on this medium (default: every node with a position).
    pub nodes: Option<Vec<String>>,
    pub preset: Option<WifiPreset>,
    pub rate: Option<Rate>,
    pub basic_rate: Option<Rate>,
    pub propagation: Option<PropagationKind>,
    pub frequency_hz: Option<f64>,
    pub tx_power_dbm: Option<f64>,
    pub antenna_height: Option<f64>,
    pub system_loss: Option<f64>,
    pub path_loss_exponent: Option<f64>,
    pub reference_distance: Option<f64>,
    /// Standard deviation of log-normal shadowing, fixed per node pair (dB).
    pub shadowing_db: Option<f64>,
    /// Transmission and carrier-sense ranges (m): thresholds set to the power at them.
    pub range: Option<f64>,
    pub cs_range: Option<f64>,
    pub rx_threshold_dbm: Option<f64>,
    pub cs_threshold_dbm: Option<f64>,
    pub capture_db: Option<f64>,
    pub noise_dbm: Option<f64>,
    /// How a receiver decides a frame was decoded (`summed`, `ns2`, `sinr`).
    pub reception: Option<ReceptionKind>,
    /// Receiver noise figure (dB): noise = kTB raised by it (`sinr`; instead of `noise_dbm`).
    pub noise_figure_db: Option<f64>,
    /// Minimum SNR for a preamble to be detected (`sinr`).
    pub preamble_snr_db: Option<f64>,
    /// Weakest signal that still counts as interference (`sinr`; below carrier sense).
    pub rx_sensitivity_dbm: Option<f64>,
    /// Energy that holds the medium busy without a detected preamble (`sinr`; ns-3's
    /// `CcaEdThreshold`).
    pub cca_ed_threshold_dbm: Option<f64>,
    /// Channel access rules (`ns2`, `ns3`; default: the preset's).
    pub access: Option<AccessKind>,
    /// Rate of ACK frames (default: the preset's rule).
    pub ack_rate: Option<Rate>,
    /// Per-frame fading of every pair (off by default).
    pub fading: Option<FadingSpec>,
    /// Per-station rate adaptation (default: constant `rate`).
    pub rate_control: Option<RateControlSpec>,
    /// Slot time (wifi) or slot length (tdma).
    pub slot: Option<Duration>,
    pub sifs: Option<Duration>,
    pub difs: Option<Duration>,
    pub plcp: Option<Duration>,
    pub cw_min: Option<u32>,
    pub cw_max: Option<u32>,
    pub rts_threshold: Option<Size>,
    pub short_retry_limit: Option<u8>,
    pub long_retry_limit: Option<u8>,
    pub mac_overhead: Option<Size>,
    #[serde(default, deserialize_with = "queue_spec_opt")]
    pub queue: Option<QueueSpec>,
    pub error: Option<ErrorSpec>,
    // --- tdma ---
    pub guard: Option<Duration>,
    pub schedule: Option<TdmaSchedule>,
}

impl MediumSpec {
    /// The keys that were given, with whether `kind` takes them (the key table's variants:
    /// `airtcp params media`).
    pub fn given_keys(&self) -> Vec<(&'static str, bool)> {
        let kind = match self.kind {
            MediumKind::Wifi => "wifi",
            MediumKind::Tdma => "tdma",
        };
        let mut v = Vec::new();
        macro_rules! key {
            ($($f:ident),*) => {$(
                if self.$f.is_some() {
                    let k = stringify!($f);
                    v.push((k, super::params_meta::medium_takes(kind, k)));
                }
            )*};
        }
        key!(
            nodes,
            preset,
            rate,
            basic_rate,
            propagation,
            frequency_hz,
            tx_power_dbm,
            antenna_height,
            system_loss,
            path_loss_exponent,
            reference_distance,
            shadowing_db,
            range,
            cs_range,
            rx_threshold_dbm,
            cs_threshold_dbm,
            capture_db,
            noise_dbm,
            reception,
            noise_figure_db,
            preamble_snr_db,
            rx_sensitivity_dbm,
            cca_ed_threshold_dbm,
            access,
            ack_rate,
            fading,
            rate_control,
            slot,
            sifs,
            difs,
            plcp,
            cw_min,
            cw_max,
            rts_threshold,
            short_retry_limit,
            long_retry_limit,
            mac_overhead,
            queue,
            error,
            guard,
            schedule
        );
        v
    }
}

/// Per-hop ARQ: a corrupted frame is resent after the link-level ACK timeout (one link round
/// trip plus the ACK's serialization), at most `retry_limit` times; other frames keep going
/// meanwhile (selective repeat), so TCP can see reordering.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ArqSpec {
    #[serde(default = "default_retry_limit")]
    pub retry_limit: u8,
    /// Size of the link-level ACK frame, whose serialization is charged to every frame.
    #[serde(default = "default_ack_bytes")]
    pub ack_bytes: u32,
}
fn default_retry_limit() -> u8 {
    3
}
fn default_ack_bytes() -> u32 {
    14
}

tagged_enum! {
    /// A channel's error model.
    pub enum ErrorSpec (tag = "model") {
        None = "none" {
            #[serde(default)]
            applies_to: AppliesTo,
        },
        /// Independent packet losses with probability `per`.
        Bernoulli = "bernoulli" {
            #[serde(default)]
            per: f64,
            #[serde(default)]
            applies_to: AppliesTo,
        },
        /// Independent bit errors at rate `ber`; the packet error rate follows its size.
        Ber = "ber" {
            ber: f64,
            #[serde(default)]
            applies_to: AppliesTo,
        },
        /// Gilbert–Elliott bursts: exponential good/bad sojourns, a loss rate in each state.
        GilbertElliott = "gilbert_elliott" {
            mean_good: Duration,
            mean_bad: Duration,
            #[serde(default)]
            per_good: f64,
            #[serde(default = "one")]
            per_bad: f64,
            #[serde(default)]
            applies_to: AppliesTo,
        },
        /// Drop the packets with the listed indices (0-based, counting the packets the model
        /// applies to on this channel), for tests and controlled experiments.
        List = "list" {
            packets: Vec<u64>,
            #[serde(default)]
            applies_to: AppliesTo,
        },
        /// Each copy of a TCP data segment is lost with probability `per`, decided by a hash
        /// of (`seed`, sequence number, copy count) instead of a random stream: another
        /// simulator with the same rule loses the same segments whatever its timing. Packets
        /// without TCP payload pass. For one flow (flows share sequence numbers).
        Hashed = "hashed" {
            per: f64,
            #[serde(default)]
            seed: u64,
        },
        /// Packet errors from an SNR time series through an 802.11b modulation's error curve.
        Snr = "snr" {
            modulation: crate::link::Modulation,
            /// CSV file of SNR samples (dB), one per `interval`; a relative path is read from
            /// the scenario file's directory (see `scenario::FileAccess`).
            trace: Option<String>,
            /// Inline SNR samples (dB), one per `interval`.
            samples: Option<Vec<f64>>,
            /// Synthesized trace parameters.
            synth: Option<crate::link::SnrSynth>,
            #[serde(default = "snr_interval")]
            interval: Duration,
            #[serde(default)]
            applies_to: AppliesTo,
            /// Both directions of the link read one synthesized trace, the a->b direction's
            /// (default: each direction draws its own).
            #[serde(default)]
            shared: bool,
            /// Every frame's PER is the curve's at this many bytes (a trace's PER computed
            /// for one frame size); default: each frame's own size.
            #[serde(default)]
            per_size: Option<u32>,
        },
    }
}

fn one() -> f64 {
    1.0
}
fn snr_interval() -> Duration {
    Duration(0.1)
}

tagged_enum! {
    /// What a flow sends.
    pub enum AppSpec (tag = "kind") {
        /// TCP bulk transfer that never runs dry (FTP-like).
        Bulk = "bulk" {},
        /// TCP transfer of `size` bytes; records completion time.
        File = "file" { size: Size },
        /// UDP constant bit rate.
        Cbr = "cbr" {
            rate: Rate,
            #[serde(default = "default_udp_size")]
            packet_size: u32,
        },
        /// UDP exponential on/off: sends at `rate` during exponentially distributed on
        /// periods.
        Onoff = "onoff" {
            rate: Rate,
            on_mean: Duration,
            off_mean: Duration,
            #[serde(default = "default_udp_size")]
            packet_size: u32,
        },
    }
}
fn default_udp_size() -> u32 {
    1000
}

impl AppSpec {
    pub fn is_tcp(&self) -> bool {
        matches!(self, AppSpec::Bulk {} | AppSpec::File { .. })
    }
    pub fn kind_name(&self) -> &'static str {
        match self {
            AppSpec::Bulk {} => "bulk",
            AppSpec::File { .. } => "file",
            AppSpec::Cbr { .. } => "cbr",
            AppSpec::Onoff { .. } => "onoff",
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub name: Option<String>,
    pub src: String,
    pub dst: String,
    #[serde(default)]
    pub start: Option<Duration>,
    /// The flow starts at `start` plus a uniform draw from [0, start_jitter), from the run's
    /// seed: repeated runs of an otherwise deterministic scenario then differ in phase. A flow
    /// with `after` starts that draw after the flow it follows is delivered.
    pub start_jitter: Option<Duration>,
    pub stop: Option<Duration>,
    /// Start when the named TCP flow's file has all reached its receiver (a response that
    /// follows a request), instead of at `start`.
    pub after: Option<String>,
    pub cc: Option<String>,
    /// Parameters of the congestion-control scheme (see `airtcp schemes`).
    #[serde(default)]
    pub cc_params: BTreeMap<String, f64>,
    pub app: AppSpec,
    #[serde(default)]
    pub tcp: TcpOptions,
}

/// TCP settings; every key is optional so a flow can override only what it changes.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TcpOptions {
    /// Take every default from a stack: "ns2", "ns3" or "linux" (docs/tcp_profiles.md).
    pub profile: Option<String>,
    pub segment_size: Option<u32>,
    pub header_size: Option<u32>,
    pub initial_cwnd: Option<u32>,
    pub initial_ssthresh: Option<Size>,
    pub rcv_window: Option<Size>,
    pub min_rto: Option<Duration>,
    pub initial_rto: Option<Duration>,
    pub syn_timeout: Option<Duration>,
    pub max_rto: Option<Duration>,
    pub delayed_ack: Option<bool>,
    pub delack_count: Option<u32>,
    pub delack_timeout: Option<Duration>,
    pub sack: Option<bool>,
    pub timestamps: Option<bool>,
    pub ecn: Option<bool>,
    pub dupack_threshold: Option<u32>,
    pub handshake: Option<bool>,
    /// Bytes the SYN and SYN-ACK carry beyond header_size.
    pub syn_options: Option<u32>,
    /// Complete the handshake with a pure ACK ahead of the first data segment.
    pub handshake_ack: Option<bool>,
    /// "slots" or "ns3" (docs/tcp_profiles.md).
    pub pacing: Option<String>,
    /// "all" or "below_sack": what a timeout resends before new data (docs/tcp_profiles.md).
    pub timeout_resend: Option<String>,
    /// "grow" or "hold": an advancing ACK with new SACK information outside recovery
    /// (docs/tcp_profiles.md).
    pub disorder_acks: Option<String>,
    /// "ranges" or "ns3": the receiver's SACK blocks (docs/tcp_profiles.md).
    pub sack_list: Option<String>,
    /// "none", "ns3" or "linux": what SACK blocks add to an ACK's size.
    pub ack_options: Option<String>,
    pub dda_delay: Option<Duration>,
    pub limited_transmit: Option<bool>,
    pub prr: Option<bool>,
    pub rack: Option<bool>,
    pub tlp: Option<bool>,
    pub frto: Option<bool>,
    /// "careful", "ack", "timestamp" or "off" (RFC 6582; docs/tcp_profiles.md).
    pub recover_guard: Option<String>,
    /// "rfc6298" (min_rto a floor) or "linux" (min_rto added to SRTT).
    pub rto_formula: Option<String>,
    /// RFC 6298's clock granularity G.
    pub clock_granularity: Option<Duration>,
    /// Tick of the timestamp clock, "0s" for exact (ns-3: "1ms").
    pub ts_tick: Option<Duration>,
    /// What a window cut halves: "flight" (RFC 5681 FlightSize) or "pipe" (ns-3).
    pub cut_basis: Option<String>,
    /// How PRR counts: "rfc6937" or "ns3" (ns-3.44's TcpPrrRecovery).
    pub prr_variant: Option<String>,
    /// RFC 6675 NextSeg() rule 4.
    pub rescue_retransmit: Option<bool>,
    /// Restart the RTO timer when the fast retransmission is sent.
    pub fast_retransmit_restarts_rto: Option<bool>,
    /// "keep_backoff" (RFC 6298 5.7) or "estimate" (ns-3: every new ACK that restarts the
    /// timer sets the RTO from the estimate).
    pub rto_on_new_ack: Option<String>,
    /// Which ACKs feed the RTT estimator: "rfc" (RFC 7323 / Karn) or "ns3" (ns-3's history).
    pub rtt_sampling: Option<String>,
    /// Without SACK, mark one segment SACKed per duplicate ACK and recover on those marks
    /// (ns-3).
    pub reno_sack: Option<bool>,
    /// In SACK recovery, resend the new head on a partial ACK (ns-3).
    pub partial_ack_retransmit: Option<bool>,
    /// A repeated timeout of one loss episode keeps ssthresh (ns-3, Linux).
    pub timeout_keeps_ssthresh: Option<bool>,
    /// The ACK that ends a fast recovery grows the window (ns-3, Linux).
    pub exit_ack_grows: Option<bool>,
    /// With delayed ACKs, acknowledge the first data segment at once (ns-3).
    pub ack_first_segment: Option<bool>,
    /// RFC 7323 4.3: echo the timestamp of the earliest segment an ACK answers (ns-3).
    pub ts_echo_earliest: Option<bool>,
    /// Retransmissions stay counted in pipe until a timeout (ns-3).
    pub pipe_keeps_retransmissions: Option<bool>,
    /// What the scheme's growth counts: "advance" (the cumulative ACK's) or "delivered".
    pub acked_count: Option<String>,
    /// Reno-family and Linux CUBIC growth: "rfc5681" (per ACK) or "linux" (per segment the
    /// ACK delivered).
    pub window_growth: Option<String>,
    /// "scheme" (the scheme's own loss recovery), "reno" or "newreno".
    pub recovery: Option<String>,
}

impl TcpOptions {
    /// `self` with every unset key taken from `base`.
    pub fn or(&self, base: &TcpOptions) -> TcpOptions {
        // Copy fields take `Option::or`; the string choices are cloned.
        macro_rules! pick {
            ($($f:ident),*; $($c:ident),*) => { TcpOptions {
                $($f: self.$f.or(base.$f),)*
                $($c: self.$c.clone().or_else(|| base.$c.clone()),)*
            } };
        }
        pick!(
            segment_size,
            header_size,
            initial_cwnd,
            initial_ssthresh,
            rcv_window,
            min_rto,
            initial_rto,
            syn_timeout,
            max_rto,
            delayed_ack,
            delack_count,
            delack_timeout,
            sack,
            timestamps,
            ecn,
            dupack_threshold,
            handshake,
            syn_options,
            handshake_ack,
            dda_delay,
            limited_transmit,
            prr,
            rack,
            tlp,
            frto,
            clock_granularity,
            ts_tick,
            rescue_retransmit,
            fast_retransmit_restarts_rto,
            reno_sack,
            partial_ack_retransmit,
            timeout_keeps_ssthresh,
            exit_ack_grows,
            ack_first_segment,
            ts_echo_earliest,
            pipe_keeps_retransmissions;
            profile,
            recover_guard,
            rto_formula,
            cut_basis,
            acked_count,
            window_growth,
            recovery,
            rto_on_new_ack,
            rtt_sampling,
            pacing,
            timeout_resend,
            disorder_acks,
            sack_list,
            ack_options,
            prr_variant
        )
    }
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    #[serde(default)]
    pub cwnd: bool,
    /// Record every loss-cause verdict (time, segment, verdict, true cause) per flow.
    #[serde(default)]
    pub verdicts: bool,
    #[serde(default)]
    pub queue: Vec<String>,
    #[serde(default = "default_queue_interval")]
    pub queue_interval: Duration,
    /// Packet traces (pcap files): node names (the IP packets each sends and receives) and
    /// 802.11 medium names (every frame on the medium); `"*"` for all of them.
    #[serde(default)]
    pub pcap: Vec<String>,
    /// Where the pcap files go (`<name>.pcap`), relative to the working directory; "pcap".
    #[serde(default)]
    pub pcap_dir: Option<String>,
    /// Sample every radio node's position at this interval (`series.positions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub positions: Option<Duration>,
    /// 802.11 media (or `"*"`) whose stations record the power of every frame they sense
    /// (`series.rssi`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rssi: Vec<String>,
    /// Record the route each flow's data takes, at each change (the `routes` table).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub routes: bool,
}
fn default_queue_interval() -> Duration {
    Duration(0.01)
}
impl Default for TraceSpec {
    fn default() -> Self {
        TraceSpec {
            cwnd: false,
            verdicts: false,
            queue: vec![],
            queue_interval: default_queue_interval(),
            pcap: vec![],
            pcap_dir: None,
            positions: None,
            rssi: vec![],
            routes: false,
        }
    }
}

tagged_enum! {
    /// A node agent.
    pub enum AgentSpec (tag = "kind") {
        /// SNR-driven activation/deactivation of the node's TCP senders (seed paper 004).
        SnrGate = "snr_gate" {
            node: String,
            /// The wireless link whose SNR (in the direction leaving `node`) is sampled; its
            /// error model must be `snr`.
            link: String,
            threshold_db: f64,
            /// How often the gate reads the measured SNR.
            #[serde(default = "snr_interval")]
            interval: Duration,
            /// How old the gate's reading is: it reads the sample the channel held this long
            /// ago. Default: the channel's SNR sample interval (the gate knows the interval
            /// that has just ended); shorter (> 0) reads into the sample still running.
            #[serde(default)]
            measurement_delay: Option<Duration>,
            /// Weight of the newest sample in an EWMA of the measured SNR, in (0, 1]; 1 (the
            /// default) decides on the last sample alone.
            #[serde(default = "one")]
            ewma_weight: f64,
            /// The gate reopens only above threshold_db + hysteresis_db (>= 0; 0: one
            /// threshold).
            #[serde(default)]
            hysteresis_db: f64,
        },
        /// Explicit Loss Notification: duplicate ACKs for segments this node learned were
        /// lost on a link (a damaged frame it received, or its MAC giving up) carry the ELN
        /// bit back to the sender.
        Eln = "eln" { node: String },
        /// Snoop at a base station: local retransmission of segments it forwarded onto its
        /// wireless links, duplicate-ACK suppression.
        Snoop = "snoop" {
            node: String,
            /// Floor of the local retransmission timeout.
            #[serde(default = "snoop_min_rto")]
            min_rto: Duration,
        },
        /// Explicit rate notification at a router: data segments leaving it carry the
        /// smallest rate offered along their path (`share` of each output device's rate);
        /// receivers echo it to the sender.
        ExplicitRate = "explicit_rate" {
            node: String,
            #[serde(default = "one")]
            share: f64,
            /// Divide the offer among the flows the node forwards (those that sent a data
            /// segment through it within `active`): the rate available to each flow.
            #[serde(default)]
            per_flow: bool,
            #[serde(default = "explicit_rate_active")]
            active: Duration,
        },
        /// TCP Muzha's router side: the node stamps the smallest Data Rate Adjustment Index
        /// of its output interfaces into data segments' MRAI field (docs/schemes/muzha.md).
        /// `node = "*"` installs it at every node.
        Drai = "drai" {
            node: String,
            #[serde(default = "drai_queue_low")]
            queue_low: f64,
            #[serde(default = "drai_queue_mid")]
            queue_mid: f64,
            #[serde(default = "drai_queue_high")]
            queue_high: f64,
            #[serde(default = "drai_busy_low")]
            busy_low: f64,
            #[serde(default = "drai_weight")]
            weight: f64,
            #[serde(default = "drai_window")]
            window: Duration,
            /// How long a drop decelerates; by default the window.
            #[serde(default)]
            drop_memory: Option<Duration>,
            /// > 0: that many of the node's smoothed round trips instead.
            #[serde(default)]
            drop_memory_rtts: f64,
        },
    }
}

fn drai_queue_low() -> f64 {
    1.0
}
fn drai_queue_mid() -> f64 {
    3.0
}
fn drai_queue_high() -> f64 {
    6.0
}
fn drai_busy_low() -> f64 {
    0.5
}
fn drai_weight() -> f64 {
    0.1
}
fn drai_window() -> Duration {
    Duration(0.1)
}

fn snoop_min_rto() -> Duration {
    Duration(0.02)
}

fn explicit_rate_active() -> Duration {
    Duration(1.0)
}
