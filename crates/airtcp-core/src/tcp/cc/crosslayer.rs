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
    Adaptive {
        threshold: f64,
    },
    /// The threshold estimated online: the loss rate at which NewReno's loss-limited rate
    /// (Mathis et al.: 1.22·MSS / (RTT·√p)) falls to the path's explicit rate. Below it the
    /// window cuts cost nothing the cap would not also cost, and ERN's cap avoids overload;
    /// above it each cut on a channel loss leaves the path idle, which ELN avoids.
    AdaptiveOnline,
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
    /// The online threshold estimate (AdaptiveOnline).
    pub online: Option<f64>,
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
            online: None,
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
            Mode::Adaptive { .. } | Mode::AdaptiveOnline => !self.using_eln,
        }
    }

    /// The crossing point for a path of `rate_bps` and round trip `srtt`: the loss rate p at
    /// which 1.22·MSS/(RTT·√p) = rate.
    #[cfg(test)]
    fn cross_check() -> f64 {
        Self::crossing(1e6, 100 * crate::engine::MS, 1000)
    }

    pub fn crossing(rate_bps: f64, srtt: Time, mss: u64) -> f64 {
        let rtt = srtt as f64 / SEC as f64;
        if rate_bps <= 0.0 || rtt <= 0.0 {
            return 1.0;
        }
        (1.22 * (mss * 8) as f64 / (rtt * rate_bps))
            .powi(2)
            .min(1.0)
    }

    /// The threshold in force.
    pub fn threshold(&self) -> Option<f64> {
        match self.mode {
            Mode::Ern => None,
            Mode::Adaptive { threshold } => Some(threshold),
            Mode::AdaptiveOnline => self.online,
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
        if let Some(threshold) = self.threshold() {
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
        if let (Mode::AdaptiveOnline, Some(rate), Some(srtt)) =
            (self.mode, ack.explicit_rate, ack.srtt)
        {
            let p = Self::crossing(rate as f64, srtt, st.mss);
            // Smoothed: RTT samples jump with the TDMA slot waits.
            self.online = Some(self.online.map_or(p, |o| 0.9 * o + 0.1 * p));
        }
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
        if let Some(t) = self.threshold() {
            out.push(("xl_threshold_at_end", t));
        }
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
    fn the_online_crossing_point_follows_rate_and_rtt() {
        // 1 Mbit/s, 100 ms, 1000-byte segments: 1.22·8000/(0.1·1e6) = 0.0976, squared.
        let p = CrossLayer::cross_check();
        assert!((p - 0.0976f64.powi(2)).abs() < 1e-9, "{p}");
        // Ten times the rate: a hundredth of the loss rate.
        let q = CrossLayer::crossing(10e6, 100 * MS, 1000);
        assert!((q / p - 0.01).abs() < 1e-9);
        let mut c = xl(Mode::AdaptiveOnline);
        let mut st = CcState {
            cwnd: 10_000,
            ssthresh: 20_000,
            mss: 1000,
        };
        c.on_ack(
            &AckInfo {
                explicit_rate: Some(1e6),
                srtt: Some(100 * MS),
                ..Default::default()
            },
            &mut st,
        );
        assert!((c.threshold().unwrap() - p).abs() < 1e-9);
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
