//! Congestion control plug-in interface. A scheme owns the window-growth rule and the reaction
//! to congestion signals; loss recovery (which segments to retransmit, window inflation during
//! fast recovery) is shared and lives in the sender.
//!
//! Adding a scheme: one file here implementing [`CongestionControl`] and one entry in
//! [`SCHEMES`] (name, description, default recovery, constructor).

pub mod bbr;
mod bbr_rate;
pub mod bic;
pub mod crosslayer;
pub mod cubic;
pub mod dctcp;
#[cfg(test)]
mod event_tests;
pub mod ewr;
pub mod highspeed;
pub mod htcp;
pub mod hybla;
pub mod illinois;
pub mod jersey;
pub mod ledbat;
pub mod lp;
pub mod mecn;
pub mod muzha;
pub mod newreno;
pub mod ns3state;
pub mod oracle;
pub mod params;
pub mod rttround;
pub mod scalable;
pub mod tibet;
pub mod vegas;
pub mod veno;
pub mod westwood;
pub mod wmecn;
pub mod yeah;

pub use bbr::Bbr;
pub use bic::Bic;
pub use crosslayer::{CrossLayer, Mode as CrossLayerMode};
pub use cubic::Cubic;
pub use dctcp::Dctcp;
pub use ewr::{Ewr, EwrReceiver};
pub use highspeed::HighSpeed;
pub use htcp::Htcp;
pub use hybla::Hybla;
pub use illinois::Illinois;
pub use jersey::Jersey;
pub use ledbat::Ledbat;
pub use lp::Lp;
pub use mecn::Mecn;
pub use muzha::Muzha;
pub use newreno::{reno_increase, NewReno};
pub use oracle::Oracle;
pub use scalable::Scalable;
pub use tibet::Tibet;
pub use vegas::Vegas;
pub use veno::Veno;
pub use westwood::Westwood;
pub use wmecn::Wmecn;
pub use yeah::Yeah;

pub use params::{ParamSpec, Params};
use serde::Serialize;
use std::collections::BTreeMap;

use super::receiver::RwndPolicy;
use crate::engine::Time;

/// Window state a scheme reads and writes, in bytes.
#[derive(Clone, Copy, Debug)]
pub struct CcState {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
}

/// What the sender knows when an ACK arrives. Grows with new schemes; construct with
/// `..Default::default()` outside this crate.
#[derive(Clone, Copy, Debug, Default)]
#[non_exhaustive]
pub struct AckInfo {
    pub now: Time,
    /// Bytes newly acknowledged cumulatively by this ACK.
    pub acked_bytes: u64,
    /// Bytes newly reported held by SACK blocks.
    pub sacked_bytes: u64,
    /// RTT sample from this ACK (Karn's rule applied), if any.
    pub rtt: Option<Time>,
    /// The sample the RTT estimator took from this ACK: `rtt`, or under `rtt_sampling =
    /// "ns3"` ns-3's (the timestamp echo in whole ticks once the oldest segment is covered),
    /// which is also its `m_lastRtt`.
    pub estimator_rtt: Option<Time>,
    pub min_rtt: Option<Time>,
    pub srtt: Option<Time>,
    /// Bytes outstanding after processing this ACK.
    pub in_flight: u64,
    pub dup_ack: bool,
    /// The sender is in fast recovery (window growth rules are suspended).
    pub in_recovery: bool,
    /// `disorder_acks = "hold"`: this ACK advanced while it brought new SACK information
    /// outside recovery; the window does not grow on it (ns-3's CA_DISORDER).
    pub hold_growth: bool,
    /// ECN-Echo flag set.
    pub ece: bool,
    /// Multi-level ECN codepoint echoed by the receiver (two bits).
    pub ecn_echo: u8,
    /// Receiver's advertised window in bytes.
    pub rwnd: u64,
    /// Router-written rate index echoed by the receiver, if any.
    pub rate_index: Option<f32>,
    /// Router-written explicit rate (bits/s) echoed by the receiver, if any.
    pub explicit_rate: Option<f32>,
    /// Explicit Loss Notification: the reported hole was lost to a channel error.
    pub eln: bool,
    /// The ACK's cumulative acknowledgment number (the hole it reports, when duplicate).
    pub ack_seq: u64,
    /// The ACK's timestamp value (RFC 7323 TSval: the receiver's clock when it sent the ACK),
    /// when the option is on.
    pub ts_val: Option<Time>,
    /// The ACK's timestamp echo (TSecr: the sender's clock, in its `ts_tick`s, when it sent
    /// the segment echoed), when the option is on.
    pub ts_ecr: Option<Time>,
    /// Reno-family and Linux CUBIC growth count `delivered_bytes`, as Linux's
    /// `tcp_reno_cong_avoid` and `tcp_cong_avoid_ai` do (`window_growth = "linux"`), rather
    /// than the ACKs (RFC 5681) or `acked_bytes`.
    pub linux_growth: bool,
    /// Bytes an advancing ACK newly delivered: cumulatively acknowledged and not SACKed
    /// before, plus newly SACKed (Linux's `acked_sacked`); 0 for an ACK that does not advance.
    pub delivered_bytes: u64,
    /// One past the highest sequence number sent when the ACK arrives (Linux's `snd_nxt`).
    pub snd_nxt: u64,
    /// For a scheme that asks (`wants_scoreboard`), with SACK: RFC 6675 pipe after this ACK,
    /// before anything is sent on it (`pipe`), and the same with the head a fast retransmit
    /// presumed lost left out (`pipe_marked`, ns-3's `BytesInFlight` with its lost marks).
    pub pipe: u64,
    pub pipe_marked: u64,
    /// For a scheme that asks: bytes whose lost mark this ACK changed, marked lost (by
    /// IsLost(), as the head of a fast retransmit, or after a timeout every segment sent
    /// before it) less those SACKed or acknowledged while
    /// marked, as a magnitude (ns-3's `TcpRateSample::m_bytesLoss`).
    pub lost_change: u64,
    /// For a scheme that asks: what resending the first unacknowledged segment would add to
    /// the flight, ns-3's way: its length, unless it is already counted as resent (since the
    /// last timeout, with `pipe_keeps_retransmissions`) and not a head forced lost.
    pub head_resend_adds: u64,
    /// For a scheme that asks: the latest (last) send time among the segments this ACK newly
    /// delivered, cumulatively or by SACK; the sender knows it from its retransmission queue.
    pub newest_delivered_sent: Option<Time>,
    /// `pipe`, `pipe_marked`, `lost_change`, `head_resend_adds` and `newest_delivered_sent`
    /// were filled in from the scoreboard.
    pub scoreboard: bool,
}

impl AckInfo {
    /// The window may not grow on this ACK: fast recovery, nothing newly acknowledged, or
    /// held (`hold_growth`).
    pub fn no_growth(&self) -> bool {
        self.in_recovery || self.acked_bytes == 0 || self.hold_growth
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CongestionKind {
    /// Loss inferred from duplicate ACKs (fast retransmit).
    DupAcks,
    /// Retransmission timeout.
    Timeout,
    /// ECN-Echo received (at most once per RTT).
    Ecn,
}

#[derive(Clone, Copy, Debug)]
pub struct CongestionEvent {
    pub now: Time,
    pub kind: CongestionKind,
    /// The data a halving rule cuts from: FlightSize, or the pipe under `cut_basis = "pipe"`.
    pub in_flight: u64,
    /// snd_max − snd_una, whatever `cut_basis` says.
    pub flight_size: u64,
    pub min_rtt: Option<Time>,
    /// The simulator's record of why the segment at snd_una was lost: given only to a scheme
    /// that declares itself an oracle (`CongestionControl::oracle`), never to a real scheme.
    pub true_cause: Option<crate::packet::DropCause>,
}

/// What a scheme that tells losses apart decided a loss was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LossClass {
    /// Lost to the channel (bit errors): no congestion to react to.
    Wireless,
    /// Lost to congestion (a full or managed queue).
    Congestion,
}

/// A scheme's reaction to a congestion event: the new ssthresh and, if the scheme wants other
/// than the standard (ssthresh + dupthresh*MSS after dupacks, one segment after a timeout,
/// ssthresh after ECN), the cwnd.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reaction {
    pub ssthresh: u64,
    pub cwnd: Option<u64>,
    /// The scheme's verdict on the loss's cause, for schemes that judge it (scored against
    /// the simulator's ground truth).
    pub verdict: Option<LossClass>,
    /// After duplicate ACKs: repair the loss and leave the window as it was (ssthresh and
    /// cwnd are then ignored, and the window is restored when recovery ends).
    pub keep_window: bool,
}

impl Reaction {
    /// A reduction to `ssthresh` with the standard cwnd.
    pub fn cut(ssthresh: u64) -> Self {
        Reaction {
            ssthresh,
            cwnd: None,
            verdict: None,
            keep_window: false,
        }
    }

    /// Repair without any window change.
    pub fn keep() -> Self {
        Reaction {
            ssthresh: 0,
            cwnd: None,
            verdict: None,
            keep_window: true,
        }
    }

    pub fn judged(mut self, class: LossClass) -> Self {
        self.verdict = Some(class);
        self
    }
}

pub trait CongestionControl {
    /// An ACK arrived carrying the echoed ECN codepoint `codepoint` (two bits; 0 when the
    /// acknowledged segment was not ECN-capable). Called before the ACK is processed, so a
    /// loss this ACK reveals is judged with its feedback included.
    fn on_feedback(&mut self, _now: Time, _codepoint: u8) {}
    /// Whether an ELN-marked loss is repaired without a window cut (the default); a scheme
    /// that decides for itself when to trust ELN says no while it does not.
    fn honours_eln(&self) -> bool {
        true
    }
    /// An ACK arrived: what its header says (rate index, explicit rate, ELN, ECN; the byte
    /// counts are not filled in yet). Called before the ACK is processed, like `on_feedback`,
    /// so a loss this ACK reveals is judged with its header's information.
    fn on_ack_header(&mut self, _ack: &AckInfo) {}
    /// A segment of `bytes` left the sender.
    fn on_sent(&mut self, _now: Time, _bytes: u64, _st: &mut CcState) {}
    /// Every ACK, new or duplicate. Grows the window outside recovery.
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState);
    /// A congestion signal: return the new ssthresh (and optionally cwnd).
    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction;
    /// Fast recovery ended (a full ACK arrived).
    fn on_recovery_exit(&mut self, _now: Time, _st: &mut CcState) {}
    /// The scheme reads `AckInfo::pipe`, `pipe_marked` and `lost_change` (a scan of the
    /// scoreboard per ACK, so only for schemes that ask).
    fn wants_scoreboard(&self) -> bool {
        false
    }
    /// For a scheme that reads the scoreboard: the last send times of the segments the ACK
    /// about to be handed over newly delivered, SACKed ones first (in the order of the
    /// blocks, each upward), then those the cumulative ACK covers, upward.
    fn on_delivered_sends(&mut self, _sends: &[Time]) {}
    /// The scheme's bandwidth estimate in bits/s, for schemes that keep one.
    fn bandwidth_estimate(&self) -> Option<f64> {
        None
    }
    /// The scheme reads multi-level ECN feedback (the two echoed codepoint bits) itself: the
    /// sender then sends new data as '01' (ECN-capable, no congestion) and leaves ECN-Echo
    /// alone.
    fn multilevel_ecn(&self) -> bool {
        false
    }
    /// The receiver must acknowledge each change of the CE state at once (DCTCP, RFC 8257
    /// 3.2), and how.
    fn ce_state_acks(&self) -> Option<crate::tcp::receiver::CeAcks> {
        None
    }
    /// Window reductions the scheme made on ECN marks it read itself.
    fn mark_reductions(&self) -> u64 {
        0
    }
    /// Scheme-specific figures, each reported as an extra column of the flow's result row
    /// (`<name>` as given; use the scheme's name as a prefix, e.g. `bbr_state_changes`).
    fn metrics(&self, _out: &mut Vec<(&'static str, f64)>) {}
    /// The scheme is the named oracle: the sender passes it the true cause of each loss
    /// (`CongestionEvent::true_cause`). Only for upper bounds; no real scheme may say yes.
    fn oracle(&self) -> bool {
        false
    }
    /// Pacing rate in bits/s for schemes that pace their sending (None: window-limited
    /// bursts, as classic TCP).
    fn pacing_rate(&self, _st: &CcState) -> Option<f64> {
        None
    }
    /// The scheme's current state, for schemes that run a state machine (e.g. BBR's
    /// `startup`); recorded with the window trace as the flow's `cc_state` series.
    fn state_label(&self) -> Option<&'static str> {
        None
    }
    /// A random stream of the flow's own (from the run's seed and the flow's name), given once
    /// before the flow starts, for schemes that draw random numbers.
    fn set_rng(&mut self, _rng: crate::engine::Rng) {}
}

/// Standard ssthresh after a loss: max(FlightSize / 2, 2 * SMSS) (RFC 5681 eq. 4).
pub fn half_flight(in_flight: u64, mss: u64) -> u64 {
    (in_flight / 2).max(2 * mss)
}

/// Loss recovery used with a scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryKind {
    /// RFC 5681 fast recovery: the first new ACK ends it.
    Reno,
    /// RFC 6582: partial ACKs retransmit the next hole and stay in recovery.
    NewReno,
    /// RFC 6675: SACK scoreboard, pipe-limited sending, several holes repaired per RTT.
    Sack,
}

/// A registered scheme: its name in scenarios, a one-line description, the loss recovery it
/// uses unless `tcp.sack` asks for SACK, and its constructor (parameters read through
/// [`Params`], so unknown keys are reported). A scheme with a receiver-side half names its
/// constructor in `receiver` (installed as the flow's receive-window policy, reading from the
/// same parameters); `timestamps` says the scheme needs the RFC 7323 timestamp option, which
/// the builder then turns on.
pub struct SchemeInfo {
    pub name: &'static str,
    pub description: &'static str,
    pub recovery: RecoveryKind,
    pub build: Constructor,
    pub receiver: Option<ReceiverConstructor>,
    pub timestamps: bool,
    /// Every `cc_params` key the scheme (both halves) reads, with its default.
    pub params: &'static [ParamSpec],
}

/// Builds a scheme from its parameters; errors are (parameter, message).
pub type Constructor = fn(&mut Params) -> Result<Box<dyn CongestionControl>, (String, String)>;

/// Builds the receiver-side half of a scheme from its parameters.
pub type ReceiverConstructor = fn(&mut Params) -> Result<Box<dyn RwndPolicy>, (String, String)>;

/// A scheme built for one flow: the sender's half, its loss recovery, the receiver's half if
/// it has one, and whether it needs timestamps.
pub struct BuiltScheme {
    pub cc: Box<dyn CongestionControl>,
    pub recovery: RecoveryKind,
    pub receiver: Option<Box<dyn RwndPolicy>>,
    pub timestamps: bool,
}

fn boxed<C: CongestionControl + 'static>(
    c: C,
) -> Result<Box<dyn CongestionControl>, (String, String)> {
    Ok(Box::new(c))
}

/// The scheme registry: adding a scheme is one file plus one entry here.
pub const SCHEMES: &[SchemeInfo] = &[
    SchemeInfo {
        name: "reno",
        description:
            "TCP Reno: RFC 5681 congestion control and fast recovery (no partial-ACK handling)",
        // Reno shares NewReno's window rules; only its recovery differs.
        recovery: RecoveryKind::Reno,
        build: |_| boxed(NewReno),
        receiver: None,
        timestamps: false,
        params: &[],
    },
    SchemeInfo {
        name: "newreno",
        description: "TCP NewReno: RFC 5681 congestion control with RFC 6582 partial-ACK recovery",
        recovery: RecoveryKind::NewReno,
        build: |_| boxed(NewReno),
        receiver: None,
        timestamps: false,
        params: &[],
    },
    SchemeInfo {
        name: "sack",
        description: "TCP SACK: NewReno window rules with RFC 2018 SACK blocks and RFC 6675 loss recovery",
        recovery: RecoveryKind::Sack,
        build: |_| boxed(NewReno),
        receiver: None,
        timestamps: false,
        params: &[],
    },
    SchemeInfo {
        name: "westwood",
        description: "TCP Westwood (Casetti et al. 2002): per-ACK filtered bandwidth estimate sets ssthresh = BWE x RTTmin after loss",
        recovery: RecoveryKind::NewReno,
        build: |p| boxed(Westwood::new(false, p)?),
        receiver: None,
        timestamps: false,
        params: params::WESTWOOD,
    },
    SchemeInfo {
        name: "westwood+",
        description: "TCP Westwood+ (Grieco & Mascolo 2004): per-RTT bandwidth samples, ssthresh = BWE x RTTmin after loss",
        recovery: RecoveryKind::NewReno,
        build: |p| boxed(Westwood::new(true, p)?),
        receiver: None,
        timestamps: false,
        params: params::WESTWOOD,
    },
    SchemeInfo {
        name: "newreno-ern",
        description: "NewReno with explicit rate notification (seed paper 001): cwnd capped at the path's echoed explicit rate x smoothed RTT; needs explicit_rate agents",
        recovery: RecoveryKind::NewReno,
        build: |p| boxed(CrossLayer::new(crosslayer::Mode::Ern, p)?),
        receiver: None,
        timestamps: false,
        params: params::CROSSLAYER,
    },
    SchemeInfo {
        name: "newreno-adaptive",
        description: "Adaptive NewReno (seed paper 001): ERN while the path's channel-loss rate (from ELN reports) is below threshold (1%), ELN above; needs explicit_rate and eln agents",
        recovery: RecoveryKind::NewReno,
        build: |p| boxed(CrossLayer::new(crosslayer::Mode::Adaptive { threshold: 0.01 }, p)?),
        receiver: None,
        timestamps: false,
        params: params::ADAPTIVE,
    },
    SchemeInfo {
        name: "newreno-adaptive-online",
        description: "Adaptive NewReno with its threshold estimated online: ELN once the channel-loss rate exceeds the rate at which NewReno's loss-limited rate (Padhye's, with timeouts; Mathis's with online_model = 0) falls to the echoed explicit rate",
        recovery: RecoveryKind::NewReno,
        build: |p| boxed(CrossLayer::new(crosslayer::Mode::AdaptiveOnline, p)?),
        receiver: None,
        timestamps: false,
        params: params::CROSSLAYER,
    },
    SchemeInfo {
        name: "tibet",
        description: "TIBET (Capone, Fratta & Martignon 2004): bandwidth = filtered ACKed length / filtered ACK interval; ssthresh = BwE x RTTmin after loss",
        recovery: RecoveryKind::NewReno,
        build: |p| boxed(Tibet::new(p)?),
        receiver: None,
        timestamps: false,
        params: params::TIBET,
    },
    SchemeInfo {
        name: "vegas",
        description: "TCP Vegas (Brakmo & Peterson 1995): keeps alpha..beta segments queued from expected vs actual rate",
        recovery: RecoveryKind::NewReno,
        build: |p| boxed(Vegas::new(p)?),
        receiver: None,
        timestamps: false,
        params: params::VEGAS,
    },
    SchemeInfo {
        name: "veno",
        description: "TCP Veno (Fu & Liew 2003): backlog N < beta marks a loss random (cwnd x 4/5) instead of congestive (x 1/2)",
        recovery: RecoveryKind::NewReno,
        build: |p| boxed(Veno::new(p)?),
        receiver: None,
        timestamps: false,
        params: params::VENO,
    },
    SchemeInfo {
        name: "cubic",
        description: "CUBIC (RFC 9438): cubic window growth in time since the last loss, Reno-friendly region, beta 0.7; linux = 1: Linux's integer arithmetic (default under the linux profile), 2: as ns-3 ports it (default under ns3)",
        recovery: RecoveryKind::NewReno,
        build: cubic::build,
        receiver: None,
        timestamps: false,
        params: params::CUBIC,
    },
    SchemeInfo {
        name: "bbr",
        description: "BBR v1 (Cardwell et al. 2016): paces at gain x windowed-max delivery rate (10 rounds), cwnd 2 x BDP with the windowed-min RTT (10 s); STARTUP, DRAIN, PROBE_BW gain cycle, PROBE_RTT; no window cut on loss; SACK recovery",
        // Repairs every hole of a window in one round, as the Linux stacks BBR runs on.
        recovery: RecoveryKind::Sack,
        build: |p| boxed(Bbr::with_params(p)?),
        receiver: None,
        timestamps: false,
        params: bbr::PARAMS,
    },
    SchemeInfo {
        name: "mecn",
        description: "MECN-TCP (Durresi et al. 2001): Reno cutting cwnd by beta1 on '10' marks, beta2 on '11' marks (once per RTT), by half on a drop; needs a mecn queue",
        // Built as a modification of ns-2's Reno agent.
        recovery: RecoveryKind::Reno,
        build: |p| boxed(Mecn::new(p)?),
        receiver: None,
        timestamps: false,
        params: params::MECN,
    },
    SchemeInfo {
        name: "muzha",
        description: "TCP Muzha (seed paper 003): no slow start; once per RTT cwnd x2/+1/=/-1/x1/2 by the path's minimum router DRAI (needs drai agents); unmarked 3-dupACK losses kept as random",
        recovery: RecoveryKind::NewReno,
        build: |p| boxed(Muzha::new(p)?),
        receiver: None,
        timestamps: false,
        params: &[],
    },
    SchemeInfo {
        name: "wmecn",
        description: "Wireless MECN (seed paper 000): the sum of the last 10 multi-level ECN feedbacks decides whether a loss is wireless (no cut) or congestion (x0.8/0.6/0.5); needs a wmecn queue",
        recovery: RecoveryKind::Reno,
        build: |p| boxed(Wmecn::new(p)?),
        receiver: None,
        timestamps: false,
        params: params::WMECN,
    },
    SchemeInfo {
        name: "jersey",
        description: "TCP Jersey (Xu, Tian & Ansari 2004): ACK-rate bandwidth estimate sets ownd = RTT x ABE; CW-marked ACKs cap cwnd at ownd, a loss with a CW mark is congestion (ssthresh = ownd), without one wireless (no cut); needs cw queues",
        recovery: RecoveryKind::NewReno,
        build: |p| boxed(Jersey::new(false, p)?),
        receiver: None,
        timestamps: false,
        params: &[],
    },
    SchemeInfo {
        name: "newjersey",
        description: "TCP New Jersey (Xu, Tian & Ansari 2005): Jersey with the bandwidth estimate timed by the receiver's timestamps (TABE), immune to ACK loss and compression; needs cw queues",
        recovery: RecoveryKind::NewReno,
        build: |p| boxed(Jersey::new(true, p)?),
        receiver: None,
        timestamps: true,
        params: &[],
    },
    SchemeInfo {
        name: "ewr",
        description: "TCP EWR (seed paper 002): the receiver estimates the arrival rate (EWMA, delta 0.7) and advertises oCwnd = RTTmin x BwEst as its window; the sender sets cwnd = oCwnd per ACK and on a loss picks linear increase / wait-and-see / cwnd = 1 by the Vegas backlog (alpha 1, beta 9)",
        recovery: RecoveryKind::NewReno,
        build: |p| boxed(Ewr::new(p)?),
        receiver: Some(|p| Ok(Box::new(EwrReceiver::new(p)?))),
        timestamps: true,
        params: params::EWR,
    },
    SchemeInfo {
        name: "highspeed",
        description: "HighSpeed TCP (RFC 3649): above 38 segments grows a(w) and cuts b(w) of the window, from a(w) = 1, b = 0.5 at 38 to a = 72, b = 0.1 at 83000 (response w = 0.12/p^0.835)",
        recovery: RecoveryKind::NewReno,
        build: |p| boxed(HighSpeed::new(p)?),
        receiver: None,
        timestamps: false,
        params: highspeed::PARAMS,
    },
    SchemeInfo {
        name: "scalable",
        description: "Scalable TCP (Kelly 2003): above 16 segments cwnd += 0.01 per ACK and x 0.875 on loss, a recovery time independent of the window",
        recovery: RecoveryKind::NewReno,
        build: |p| boxed(Scalable::new(p)?),
        receiver: None,
        timestamps: false,
        params: scalable::PARAMS,
    },
    SchemeInfo {
        name: "bic",
        description: "BIC TCP (Xu, Harfoush & Rhee 2004): binary search toward the window of the last loss W_max (steps 0.01..32 segments per RTT), max probing past it, cut by 1/8, fast convergence; standard TCP below 14 segments",
        recovery: RecoveryKind::NewReno,
        build: |p| boxed(Bic::new(p)?),
        receiver: None,
        timestamps: false,
        params: bic::PARAMS,
    },
    SchemeInfo {
        name: "hybla",
        description: "TCP Hybla (Caini & Firrincieli 2004): rho = RTT/25 ms scales slow start (+2^rho - 1 per ACK) and congestion avoidance (+rho^2/cwnd), so long-delay paths gain window as a 25 ms one",
        recovery: RecoveryKind::NewReno,
        build: |p| boxed(Hybla::new(p)?),
        receiver: None,
        timestamps: false,
        params: hybla::PARAMS,
    },
    SchemeInfo {
        name: "illinois",
        description: "TCP-Illinois (Liu, Basar & Srikant 2006): AIMD with increase alpha 10..0.3 and decrease beta 1/8..1/2 set each RTT from the average queueing delay against the largest seen; standard TCP below 15 segments",
        recovery: RecoveryKind::NewReno,
        build: |p| boxed(Illinois::new(p)?),
        receiver: None,
        timestamps: false,
        params: illinois::PARAMS,
    },
    SchemeInfo {
        name: "htcp",
        description: "H-TCP (Leith & Shorten 2004): increase alpha = 1 + 10(D - 1) + ((D - 1)/2)^2 segments per RTT after D > 1 s without congestion, scaled 2(1 - beta); backoff beta = RTTmin/RTTmax in [0.5, 0.8], 0.5 when the throughput moved > 20%",
        recovery: RecoveryKind::NewReno,
        build: |p| boxed(Htcp::new(p)?),
        receiver: None,
        timestamps: false,
        params: htcp::PARAMS,
    },
    SchemeInfo {
        name: "ledbat",
        description: "LEDBAT (RFC 6817): less-than-best-effort; one-way delay from timestamps, cwnd += off_target x MSS/cwnd per ACK with off_target = (100 ms - queueing delay)/100 ms, so it yields to standard TCP",
        recovery: RecoveryKind::NewReno,
        build: |p| boxed(Ledbat::new(p)?),
        receiver: None,
        timestamps: true,
        params: ledbat::PARAMS,
    },
    SchemeInfo {
        name: "dctcp",
        description: "DCTCP (RFC 8257): alpha = EWMA (g = 1/16) of the fraction of CE-marked bytes per window; cwnd x (1 - alpha/2) once per window with marks; needs an ecn_threshold queue (marking above K)",
        recovery: RecoveryKind::NewReno,
        build: |p| boxed(Dctcp::new(p)?),
        receiver: None,
        timestamps: false,
        params: dctcp::PARAMS,
    },
    SchemeInfo {
        name: "lp",
        description: "TCP-LP (Kuzmanovic & Knightly 2003): low priority; a smoothed one-way delay past 15% of its min-max range halves cwnd and starts a 3-RTT inference phase (a second indication in it: 1 segment); yields to standard TCP",
        recovery: RecoveryKind::NewReno,
        build: |p| boxed(Lp::new(p)?),
        receiver: None,
        timestamps: true,
        params: lp::PARAMS,
    },
    SchemeInfo {
        name: "yeah",
        description: "YeAH-TCP (Baiocchi, Castellani & Vacirca 2007): Scalable increase while the estimated backlog Q < 80 segments and the queueing delay < RTTbase/8, Reno otherwise with precautionary decongestion; a loss removes max(Q, cwnd/8) unless competing with Reno",
        recovery: RecoveryKind::NewReno,
        build: |p| boxed(Yeah::new(p)?),
        receiver: None,
        timestamps: false,
        params: yeah::PARAMS,
    },
    SchemeInfo {
        name: "oracle",
        description: "Loss-cause oracle (upper bound): NewReno window rules told the true cause of each loss by the simulator; no cut on channel losses, the normal cut on congestion; SACK recovery",
        // An upper bound should not be held back by recovery that repairs one hole per RTT.
        recovery: RecoveryKind::Sack,
        build: |_| boxed(Oracle),
        receiver: None,
        timestamps: false,
        params: &[],
    },
];

/// Build scheme `name` with its parameters, both halves. Errors are (parameter or "",
/// message).
pub fn build_flow(
    name: &str,
    params: &BTreeMap<String, f64>,
) -> Result<BuiltScheme, (String, String)> {
    let Some(info) = SCHEMES.iter().find(|s| s.name == name) else {
        let names: Vec<&str> = SCHEMES.iter().map(|s| s.name).collect();
        return Err((
            String::new(),
            crate::util::unknown_name("scheme", name, &names),
        ));
    };
    let given = params;
    let params = scoped(name, given);
    // An error names the key as the scenario gave it (`ewr.interval`, not `interval`).
    let key = |(k, m): (String, String)| {
        let full = format!("{name}.{k}");
        if !given.contains_key(&k) && given.contains_key(&full) {
            (full, m)
        } else {
            (k, m)
        }
    };
    let mut p = Params::declared(&params, info.params);
    let cc = (info.build)(&mut p).map_err(key)?;
    let receiver = match info.receiver {
        Some(make) => Some(make(&mut p).map_err(key)?),
        None => None,
    };
    p.finish(name).map_err(key)?;
    Ok(BuiltScheme {
        cc,
        recovery: info.recovery,
        receiver,
        timestamps: info.timestamps,
    })
}

/// A flow's parameters as scheme `name` reads them: a key `<scheme>.<param>` is `<param>` for
/// that scheme and ignored by every other registered scheme, so a sweep whose grid changes
/// the scheme can carry one scheme's parameter on every flow. Other keys pass as they are; a
/// scoped key wins over the same plain key (a profile's default filled in beside it).
fn scoped(name: &str, params: &BTreeMap<String, f64>) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    let mut mine = Vec::new();
    for (k, v) in params {
        match k.split_once('.') {
            Some((scheme, key)) if scheme == name => mine.push((key, *v)),
            Some((scheme, _)) if SCHEMES.iter().any(|s| s.name == scheme) => {}
            _ => {
                out.insert(k.clone(), *v);
            }
        }
    }
    for (k, v) in mine {
        out.insert(k.to_string(), v);
    }
    out
}

/// Under the `ns3` profile: the defaults of scheme `name`'s parameters where ns-3.44 departs
/// from the scheme's source, for every key the scenario leaves out.
pub fn apply_ns3_defaults(name: &str, params: &mut BTreeMap<String, f64>) {
    if let Some(info) = SCHEMES.iter().find(|s| s.name == name) {
        for spec in info.params {
            if let Some(v) = spec.ns3_default {
                params.entry(spec.name.to_string()).or_insert(v);
            }
        }
    }
}

/// Build the sender's half of scheme `name` (tests, examples). Errors are (parameter or "",
/// message).
pub fn build(
    name: &str,
    params: &BTreeMap<String, f64>,
) -> Result<(Box<dyn CongestionControl>, RecoveryKind), (String, String)> {
    let b = build_flow(name, params)?;
    Ok((b.cc, b.recovery))
}

/// Build a scheme with default parameters (tests, examples).
pub fn build_default(name: &str) -> (Box<dyn CongestionControl>, RecoveryKind) {
    build(name, &BTreeMap::new()).unwrap_or_else(|(_, m)| panic!("{m}"))
}

#[cfg(test)]
mod registry_tests {
    use super::*;

    #[test]
    fn every_scheme_builds_with_defaults_and_names_are_unique() {
        for (i, s) in SCHEMES.iter().enumerate() {
            let (_, rec) = build_default(s.name);
            assert_eq!(rec, s.recovery);
            assert!(
                SCHEMES[..i].iter().all(|o| o.name != s.name),
                "{} twice",
                s.name
            );
            assert!(!s.description.is_empty());
        }
    }

    #[test]
    fn declared_parameters_are_exactly_those_read_with_their_defaults() {
        // Params::get panics on a key read but not declared (or with another default); an
        // undeclared key given here is refused by finish(); so every declared key is read.
        for s in SCHEMES {
            let all: BTreeMap<String, f64> = s
                .params
                .iter()
                .map(|p| (p.name.to_string(), p.default))
                .collect();
            if let Err((k, m)) = build_flow(s.name, &all) {
                panic!("{}: {k}: {m}", s.name);
            }
            let mut ns3 = BTreeMap::new();
            apply_ns3_defaults(s.name, &mut ns3);
            if let Err((k, m)) = build_flow(s.name, &ns3) {
                panic!("{} under ns3: {k}: {m}", s.name);
            }
        }
    }

    #[test]
    fn parameters_scoped_to_a_scheme_reach_only_that_scheme() {
        let mut m = BTreeMap::new();
        m.insert("ewr.interval".to_string(), 1.0);
        assert!(
            build("newreno", &m).is_ok(),
            "another scheme's parameter is ignored"
        );
        assert!(build("ewr", &m).is_ok());
        m.insert("ewr.intervl".to_string(), 1.0);
        let e = build("ewr", &m).err().unwrap();
        assert_eq!(e.0, "ewr.intervl");
        let mut m = BTreeMap::new();
        m.insert("nosuch.x".to_string(), 1.0);
        assert_eq!(build("newreno", &m).err().unwrap().0, "nosuch.x");
    }

    #[test]
    fn unknown_scheme_and_parameter_are_reported() {
        let e = build("nwereno", &BTreeMap::new()).err().unwrap();
        assert!(e.1.contains("did you mean 'newreno'"), "{}", e.1);
        let mut p = BTreeMap::new();
        p.insert("bogus".to_string(), 1.0);
        let e = build("vegas", &p).err().unwrap();
        assert_eq!(e.0, "bogus");
    }
}
