//! Congestion control plug-in interface. A scheme owns the window-growth rule and the reaction
//! to congestion signals; loss recovery (which segments to retransmit, window inflation during
//! fast recovery) is shared and lives in the sender.
//!
//! Adding a scheme: one file here implementing [`CongestionControl`], one variant in [`Cc`],
//! one entry in [`SCHEMES`].

pub mod cubic;
pub mod mecn;
pub mod newreno;
pub mod rttround;
pub mod vegas;
pub mod veno;
pub mod westwood;
pub mod wmecn;

pub use cubic::Cubic;
pub use mecn::Mecn;
pub use newreno::NewReno;
pub use vegas::Vegas;
pub use veno::Veno;
pub use westwood::Westwood;
pub use wmecn::Wmecn;

use serde::Serialize;
use std::collections::BTreeMap;

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
    pub min_rtt: Option<Time>,
    pub srtt: Option<Time>,
    /// Bytes outstanding after processing this ACK.
    pub in_flight: u64,
    pub dup_ack: bool,
    /// The sender is in fast recovery (window growth rules are suspended).
    pub in_recovery: bool,
    /// ECN-Echo flag set.
    pub ece: bool,
    /// Multi-level ECN codepoint echoed by the receiver (two bits).
    pub ecn_echo: u8,
    /// Receiver's advertised window in bytes.
    pub rwnd: u64,
    /// Router-written rate index echoed by the receiver, if any.
    pub rate_index: Option<f32>,
    /// Router-written explicit rate (bits/s) echoed by the receiver, if any.
    pub explicit_rate: Option<f64>,
    /// Explicit Loss Notification: the reported hole was lost to a channel error.
    pub eln: bool,
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
    pub in_flight: u64,
    pub min_rtt: Option<Time>,
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
    /// A segment of `bytes` left the sender.
    fn on_sent(&mut self, _now: Time, _bytes: u64, _st: &mut CcState) {}
    /// Every ACK, new or duplicate. Grows the window outside recovery.
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState);
    /// A congestion signal: return the new ssthresh (and optionally cwnd).
    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction;
    /// Fast recovery ended (a full ACK arrived).
    fn on_recovery_exit(&mut self, _now: Time, _st: &mut CcState) {}
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
    /// Window reductions the scheme made on ECN marks it read itself.
    fn mark_reductions(&self) -> u64 {
        0
    }
}

/// A scheme's parameters from the scenario (`cc_params`), read with defaults; keys nobody
/// read are reported as errors.
pub struct Params<'a> {
    map: &'a BTreeMap<String, f64>,
    used: Vec<&'static str>,
}

impl<'a> Params<'a> {
    pub fn new(map: &'a BTreeMap<String, f64>) -> Self {
        Params { map, used: vec![] }
    }

    pub fn get(&mut self, key: &'static str, default: f64) -> Result<f64, (String, String)> {
        self.used.push(key);
        match self.map.get(key) {
            None => Ok(default),
            Some(v) if v.is_finite() => Ok(*v),
            Some(v) => Err((key.into(), format!("must be finite, got {v}"))),
        }
    }

    /// Error for the first key the scheme does not know.
    pub fn finish(&self, scheme: &str) -> Result<(), (String, String)> {
        for k in self.map.keys() {
            if !self.used.contains(&k.as_str()) {
                let msg = if self.used.is_empty() {
                    format!("'{scheme}' takes no parameters")
                } else {
                    crate::util::unknown_name("parameter", k, &self.used).replacen(
                        "unknown parameter",
                        &format!("'{scheme}' has no parameter"),
                        1,
                    )
                };
                return Err((k.clone(), msg));
            }
        }
        Ok(())
    }
}

/// Standard ssthresh after a loss: max(FlightSize / 2, 2 * SMSS) (RFC 5681 eq. 4).
pub fn half_flight(in_flight: u64, mss: u64) -> u64 {
    (in_flight / 2).max(2 * mss)
}

/// Enum dispatch over the schemes.
pub enum Cc {
    NewReno(NewReno),
    Westwood(Westwood),
    Vegas(Vegas),
    Veno(Veno),
    Cubic(Cubic),
    Mecn(Mecn),
    Wmecn(Wmecn),
}

impl Cc {
    pub fn as_dyn(&mut self) -> &mut dyn CongestionControl {
        match self {
            Cc::NewReno(c) => c,
            Cc::Westwood(c) => c,
            Cc::Vegas(c) => c,
            Cc::Veno(c) => c,
            Cc::Cubic(c) => c,
            Cc::Mecn(c) => c,
            Cc::Wmecn(c) => c,
        }
    }

    pub fn as_shared(&self) -> &dyn CongestionControl {
        match self {
            Cc::NewReno(c) => c,
            Cc::Westwood(c) => c,
            Cc::Vegas(c) => c,
            Cc::Veno(c) => c,
            Cc::Cubic(c) => c,
            Cc::Mecn(c) => c,
            Cc::Wmecn(c) => c,
        }
    }
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

pub struct SchemeInfo {
    pub name: &'static str,
    pub description: &'static str,
}

pub const SCHEMES: &[SchemeInfo] = &[
    SchemeInfo {
        name: "reno",
        description:
            "TCP Reno: RFC 5681 congestion control and fast recovery (no partial-ACK handling)",
    },
    SchemeInfo {
        name: "newreno",
        description: "TCP NewReno: RFC 5681 congestion control with RFC 6582 partial-ACK recovery",
    },
    SchemeInfo {
        name: "sack",
        description: "TCP SACK: NewReno window rules with RFC 2018 SACK blocks and RFC 6675 loss recovery",
    },
    SchemeInfo {
        name: "westwood",
        description: "TCP Westwood (Casetti et al. 2002): per-ACK filtered bandwidth estimate sets ssthresh = BWE x RTTmin after loss",
    },
    SchemeInfo {
        name: "westwood+",
        description: "TCP Westwood+ (Grieco & Mascolo 2004): per-RTT bandwidth samples, ssthresh = BWE x RTTmin after loss",
    },
    SchemeInfo {
        name: "vegas",
        description: "TCP Vegas (Brakmo & Peterson 1995): keeps alpha..beta segments queued from expected vs actual rate",
    },
    SchemeInfo {
        name: "veno",
        description: "TCP Veno (Fu & Liew 2003): backlog N < beta marks a loss random (cwnd x 4/5) instead of congestive (x 1/2)",
    },
    SchemeInfo {
        name: "cubic",
        description: "CUBIC (RFC 9438): cubic window growth in time since the last loss, Reno-friendly region, beta 0.7",
    },
    SchemeInfo {
        name: "mecn",
        description: "MECN-TCP (Durresi et al. 2001): Reno cutting cwnd by beta1 on '10' marks, beta2 on '11' marks (once per RTT), by half on a drop; needs a mecn queue",
    },
    SchemeInfo {
        name: "wmecn",
        description: "Wireless MECN (seed paper 000): the sum of the last 10 multi-level ECN feedbacks decides whether a loss is wireless (no cut) or congestion (x0.8/0.6/0.5); needs a wmecn queue",
    },
];

/// Build scheme `name` with its parameters. Errors are (parameter or "", message).
pub fn build(
    name: &str,
    params: &BTreeMap<String, f64>,
) -> Result<(Cc, RecoveryKind), (String, String)> {
    let mut p = Params::new(params);
    let built = match name {
        // Reno shares NewReno's window rules; only its recovery differs.
        "reno" => (Cc::NewReno(NewReno), RecoveryKind::Reno),
        "newreno" => (Cc::NewReno(NewReno), RecoveryKind::NewReno),
        "sack" => (Cc::NewReno(NewReno), RecoveryKind::Sack),
        "westwood" => (
            Cc::Westwood(Westwood::new(false, &mut p)?),
            RecoveryKind::NewReno,
        ),
        "westwood+" => (
            Cc::Westwood(Westwood::new(true, &mut p)?),
            RecoveryKind::NewReno,
        ),
        "vegas" => (Cc::Vegas(Vegas::new(&mut p)?), RecoveryKind::NewReno),
        "veno" => (Cc::Veno(Veno::new(&mut p)?), RecoveryKind::NewReno),
        "cubic" => (Cc::Cubic(Cubic::new(&mut p)?), RecoveryKind::NewReno),
        // Both were built as modifications of ns-2's Reno agent.
        "mecn" => (Cc::Mecn(Mecn::new(&mut p)?), RecoveryKind::Reno),
        "wmecn" => (Cc::Wmecn(Wmecn::new(&mut p)?), RecoveryKind::Reno),
        _ => {
            let names: Vec<&str> = SCHEMES.iter().map(|s| s.name).collect();
            return Err((
                String::new(),
                crate::util::unknown_name("scheme", name, &names),
            ));
        }
    };
    p.finish(name)?;
    Ok(built)
}

/// Build a scheme with default parameters (tests, examples).
pub fn build_default(name: &str) -> (Cc, RecoveryKind) {
    build(name, &BTreeMap::new()).unwrap_or_else(|(_, m)| panic!("{m}"))
}
