//! MECN-TCP (Durresi et al. 2001; seed paper 000 §2.3): Reno whose reaction to congestion
//! depends on the level the routers signalled. The echoed codepoint '10' (incipient
//! congestion) cuts cwnd by β1, '11' (moderate) by β2, a packet drop by β3 = 50%. Reductions
//! on marks happen at most once per RTT and not during loss recovery.

use super::newreno::reno_increase;
use super::{half_flight, AckInfo, CcState, CongestionControl, CongestionEvent, Params, Reaction};
use crate::engine::Time;

/// Codepoints as echoed by the receiver.
pub const NO_CONGESTION: u8 = 0b01;
pub const MILD: u8 = 0b10;
pub const SEVERE: u8 = 0b11;

/// "At most one reduction per round-trip time": a reduction is allowed once an RTT (the
/// smoothed estimate at the time) has passed since the last one.
#[derive(Clone, Debug, Default)]
pub struct OncePerRtt {
    last: Option<(Time, Time)>,
}

impl OncePerRtt {
    pub fn allowed(&self, now: Time) -> bool {
        match self.last {
            None => true,
            Some((at, rtt)) => now >= at + rtt,
        }
    }

    /// A reduction happened at `now`; `srtt` is the RTT it blocks further reductions for.
    pub fn note(&mut self, now: Time, srtt: Option<Time>) {
        self.last = Some((now, srtt.unwrap_or(0)));
    }
}

/// The window a multiplicative cut applies to: cwnd, but never more than what is in flight
/// (cwnd may have grown past a receiver-limited flight; RFC 5681 eq. 4 uses FlightSize too).
pub fn cut_base(cwnd: u64, in_flight: u64, mss: u64) -> u64 {
    cwnd.min(in_flight.max(mss))
}

/// Apply a cut to `factor` of the window: ssthresh and cwnd both become factor × window.
pub fn cut_window(st: &mut CcState, in_flight: u64, factor: f64) {
    let w = cut_base(st.cwnd, in_flight, st.mss);
    st.ssthresh = ((w as f64 * factor) as u64).max(2 * st.mss);
    st.cwnd = st.ssthresh;
}

#[derive(Clone, Debug)]
pub struct Mecn {
    pub beta1: f64,
    pub beta2: f64,
    gate: OncePerRtt,
    srtt: Option<Time>,
    /// Reductions on '10' and on '11' marks.
    pub mild_reductions: u64,
    pub severe_reductions: u64,
}

/// Read β1 and β2 (fractions in [0, 1)).
pub fn betas(p: &mut Params) -> Result<(f64, f64), (String, String)> {
    let b1 = p.get("beta1", 0.2)?;
    let b2 = p.get("beta2", 0.4)?;
    for (k, v) in [("beta1", b1), ("beta2", b2)] {
        if !(0.0..1.0).contains(&v) {
            return Err((k.into(), format!("must be in [0, 1), got {v}")));
        }
    }
    Ok((b1, b2))
}

impl Mecn {
    pub fn new(p: &mut Params) -> Result<Self, (String, String)> {
        let (beta1, beta2) = betas(p)?;
        Ok(Mecn {
            beta1,
            beta2,
            gate: OncePerRtt::default(),
            srtt: None,
            mild_reductions: 0,
            severe_reductions: 0,
        })
    }
}

impl CongestionControl for Mecn {
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        self.srtt = ack.srtt.or(self.srtt);
        reno_increase(ack, st);
        if ack.in_recovery || !self.gate.allowed(ack.now) {
            return;
        }
        let beta = match ack.ecn_echo {
            MILD => {
                self.mild_reductions += 1;
                self.beta1
            }
            SEVERE => {
                self.severe_reductions += 1;
                self.beta2
            }
            _ => return,
        };
        cut_window(st, ack.in_flight, 1.0 - beta);
        self.gate.note(ack.now, self.srtt);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        self.gate.note(ev.now, self.srtt);
        Reaction::cut(half_flight(ev.in_flight, st.mss))
    }

    fn multilevel_ecn(&self) -> bool {
        true
    }

    fn mark_reductions(&self) -> u64 {
        self.mild_reductions + self.severe_reductions
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use crate::tcp::cc::CongestionKind;
    use std::collections::BTreeMap;

    fn mecn() -> Mecn {
        Mecn::new(&mut Params::new(&BTreeMap::new())).unwrap()
    }

    fn ack(now: Time, echo: u8) -> AckInfo {
        AckInfo {
            now,
            acked_bytes: 1000,
            ecn_echo: echo,
            srtt: Some(100 * MS),
            in_flight: 20_000,
            ..Default::default()
        }
    }

    fn st() -> CcState {
        CcState {
            cwnd: 20_000,
            ssthresh: 10_000,
            mss: 1000,
        }
    }

    #[test]
    fn mild_cuts_by_beta1_severe_by_beta2() {
        let mut c = mecn();
        let mut s = st();
        c.on_ack(&ack(0, MILD), &mut s);
        // Growth first (20000 + 50), then the cut to 80% of the 20000 in flight.
        assert_eq!((s.cwnd, s.ssthresh), (16_000, 16_000));
        let mut c = mecn();
        let mut s = st();
        c.on_ack(&ack(0, SEVERE), &mut s);
        assert_eq!((s.cwnd, s.ssthresh), (12_000, 12_000));
        assert_eq!((c.mild_reductions, c.severe_reductions), (0, 1));
    }

    #[test]
    fn no_congestion_or_no_feedback_only_grows() {
        let mut c = mecn();
        let mut s = st();
        c.on_ack(&ack(0, NO_CONGESTION), &mut s);
        c.on_ack(&ack(0, 0), &mut s);
        assert!(s.cwnd > 20_000);
    }

    #[test]
    fn marks_cut_once_per_rtt() {
        let mut c = mecn();
        let mut s = st();
        c.on_ack(&ack(0, MILD), &mut s);
        let after = s.cwnd;
        c.on_ack(&ack(99 * MS, SEVERE), &mut s);
        assert!(s.cwnd >= after, "within the RTT: no second cut");
        c.on_ack(&ack(100 * MS, SEVERE), &mut s);
        assert!(s.cwnd < after, "one RTT later: cut again");
    }

    #[test]
    fn drop_halves() {
        let mut c = mecn();
        let ev = CongestionEvent::at(0, CongestionKind::DupAcks, 20_000);
        assert_eq!(c.on_congestion(&ev, &st()), Reaction::cut(10_000));
    }

    #[test]
    fn betas_are_validated() {
        let m: BTreeMap<String, f64> = [("beta1".to_string(), 1.5)].into();
        let e = Mecn::new(&mut Params::new(&m)).unwrap_err();
        assert_eq!(e.0, "beta1");
        assert!(e.1.contains("[0, 1)"), "{}", e.1);
    }
}
