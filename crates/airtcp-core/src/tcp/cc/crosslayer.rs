//! NewReno with the MEMBRANE cross-layer notifications (seed paper 001):
//!
//! - `newreno-ern`: the routers' explicit rate notification (the smallest rate the hops of the
//!   path offer, echoed by the receiver) caps cwnd at rate × smoothed RTT: the data in flight
//!   that the path can carry at that rate with the delay it has now (on a TDMA path the wait
//!   for each hop's slot is part of that delay, so the minimum RTT would starve the pipe).
//!   ELN marks are ignored.
//! - `newreno-adaptive`: NewReno that uses ERN while the path's packet error rate is below a
//!   threshold (1%, the paper's) and ELN above it. The lower layers pass the error rate up
//!   through the ELN notifications themselves: the sender counts its segments reported lost to
//!   channel errors (each hole an ELN-marked ACK reports, once) against the segments it sent,
//!   over a window that decays with each segment sent (`per_window`, 500 segments). It goes
//!   back to ERN only when the rate falls 20% below the threshold (`hysteresis`), so the mode
//!   does not flap with each loss while the estimate sits at the threshold.
//!
//! Plain `newreno` honours ELN marks whenever ELN agents put them there (NewReno + ELN).

use super::newreno::reno_increase;
use super::{half_flight, AckInfo, CcState, CongestionControl, CongestionEvent, Params, Reaction};
use crate::engine::{Time, SEC};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    Ern,
    Adaptive { threshold: f64 },
}

#[derive(Clone, Debug)]
pub struct CrossLayer {
    pub mode: Mode,
    /// Decay per segment sent of the loss-rate window.
    decay: f64,
    /// Decayed counts of channel losses reported and segments sent.
    lost: f64,
    sent: f64,
    /// The hole the last ELN-marked ACK reported (each hole counts once).
    last_eln_hole: Option<u64>,
    /// The adaptive scheme is using ELN (above the threshold).
    pub using_eln: bool,
    pub switches: u64,
    /// Relative band below the threshold before switching back to ERN.
    hysteresis: f64,
    /// ACKs on which the ERN cap lowered cwnd.
    pub capped: u64,
    mss: u64,
}

impl CrossLayer {
    pub fn new(mode: Mode, p: &mut Params) -> Result<Self, (String, String)> {
        let mode = match mode {
            Mode::Adaptive { threshold } => {
                let t = p.get("threshold", threshold)?;
                if !(t > 0.0 && t < 1.0) {
                    return Err(("threshold".into(), format!("must be in (0, 1), got {t}")));
                }
                Mode::Adaptive { threshold: t }
            }
            m => m,
        };
        let hysteresis = p.get("hysteresis", 0.2)?;
        if !(0.0..1.0).contains(&hysteresis) {
            return Err((
                "hysteresis".into(),
                format!("must be in [0, 1), got {hysteresis}"),
            ));
        }
        let window = p.get("per_window", 500.0)?;
        if window < 1.0 {
            return Err(("per_window".into(), format!("must be >= 1, got {window}")));
        }
        Ok(CrossLayer {
            mode,
            decay: 1.0 - 1.0 / window,
            lost: 0.0,
            sent: 0.0,
            last_eln_hole: None,
            using_eln: false,
            switches: 0,
            hysteresis,
            capped: 0,
            mss: 0,
        })
    }

    /// Channel-loss rate of the connection's segments, as the ELN notifications report it.
    pub fn per(&self) -> f64 {
        if self.sent > 0.0 {
            self.lost / self.sent
        } else {
            0.0
        }
    }

    fn ern_active(&self) -> bool {
        match self.mode {
            Mode::Ern => true,
            Mode::Adaptive { .. } => !self.using_eln,
        }
    }

    /// cwnd capped at the echoed explicit rate × smoothed RTT (never below two segments).
    pub fn cap(rate_bps: f64, srtt: Time, mss: u64) -> u64 {
        ((rate_bps / 8.0 * srtt as f64 / SEC as f64) as u64).max(2 * mss)
    }
}

impl CongestionControl for CrossLayer {
    fn on_ack_header(&mut self, ack: &AckInfo) {
        if ack.eln && self.last_eln_hole != Some(ack.ack_seq) {
            self.lost += 1.0;
            self.last_eln_hole = Some(ack.ack_seq);
        }
        if let Mode::Adaptive { threshold } = self.mode {
            // Until the window holds enough segments to see a loss at the threshold's rate,
            // the estimate says nothing: stay with ERN, the low-loss mode.
            if self.sent < 1.0 / threshold {
                return;
            }
            // A band below the threshold keeps the mode from flapping on each loss while the
            // estimate sits near it.
            let per = self.per();
            let want = if self.using_eln {
                per > threshold * (1.0 - self.hysteresis)
            } else {
                per > threshold
            };
            if want != self.using_eln {
                self.using_eln = want;
                self.switches += 1;
            }
        }
    }

    fn honours_eln(&self) -> bool {
        !self.ern_active()
    }

    fn on_sent(&mut self, _now: Time, bytes: u64, st: &mut CcState) {
        self.mss = st.mss;
        let segs = (bytes as f64 / st.mss.max(1) as f64).max(1.0);
        // Decay once per segment.
        self.sent = self.sent * self.decay.powf(segs) + segs;
        self.lost *= self.decay.powf(segs);
    }

    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        reno_increase(ack, st);
        if self.ern_active() {
            if let (Some(rate), Some(srtt)) = (ack.explicit_rate, ack.srtt) {
                let cap = Self::cap(rate as f64, srtt, st.mss);
                if st.cwnd > cap && !ack.in_recovery {
                    st.cwnd = cap;
                    self.capped += 1;
                }
            }
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        Reaction::cut(half_flight(ev.in_flight, st.mss))
    }

    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("xl_per_estimate", self.per()));
        out.push(("xl_switches", self.switches as f64));
        out.push(("xl_ern_capped_acks", self.capped as f64));
        out.push(("xl_using_eln_at_end", f64::from(u8::from(self.using_eln))));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use std::collections::BTreeMap;

    fn xl(mode: Mode) -> CrossLayer {
        let m = BTreeMap::new();
        CrossLayer::new(mode, &mut Params::new(&m)).unwrap()
    }

    #[test]
    fn ern_caps_cwnd_at_rate_times_srtt() {
        // 1 Mbit/s × 80 ms = 10,000 bytes.
        assert_eq!(CrossLayer::cap(1e6, 80 * MS, 1000), 10_000);
        assert_eq!(CrossLayer::cap(1e3, 80 * MS, 1000), 2_000);
        let mut c = xl(Mode::Ern);
        let mut st = CcState {
            cwnd: 30_000,
            ssthresh: 20_000,
            mss: 1000,
        };
        c.on_ack(
            &AckInfo {
                acked_bytes: 1000,
                explicit_rate: Some(1e6),
                srtt: Some(80 * MS),
                ..Default::default()
            },
            &mut st,
        );
        assert_eq!(st.cwnd, 10_000);
        assert!(!c.honours_eln());
    }

    #[test]
    fn adaptive_switches_to_eln_above_the_threshold() {
        let mut c = xl(Mode::Adaptive { threshold: 0.01 });
        let mut st = CcState {
            cwnd: 10_000,
            ssthresh: 20_000,
            mss: 1000,
        };
        let eln = |on, hole: u64| AckInfo {
            eln: on,
            dup_ack: on,
            ack_seq: hole,
            ..Default::default()
        };
        // 2000 segments, 5 channel losses (0.25%): stays with ERN.
        for k in 0..2000 {
            c.on_sent(0, 1000, &mut st);
            let lost = k % 400 == 0;
            c.on_ack_header(&eln(lost, k));
            if lost {
                // Further marked duplicates for the same hole count once.
                c.on_ack_header(&eln(true, k));
                c.on_ack_header(&eln(false, k + 1));
            }
        }
        assert!(c.per() < 0.01 && c.per() > 0.0, "{}", c.per());
        assert!(!c.using_eln && !c.honours_eln());
        assert_eq!(c.switches, 0);
        // Then 3% for a while: switches to ELN.
        for k in 0..1000 {
            c.on_sent(0, 1000, &mut st);
            let lost = k % 33 == 0;
            c.on_ack_header(&eln(lost, 10_000 + k));
            if lost {
                c.on_ack_header(&eln(false, 10_000 + k + 1));
            }
        }
        assert!(c.per() > 0.02, "{}", c.per());
        assert!(c.using_eln && c.honours_eln());
        assert_eq!(c.switches, 1);
    }
}
