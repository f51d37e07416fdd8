//! TCP-LP (Kuzmanovic & Knightly, "TCP-LP: a distributed algorithm for low priority data
//! transfer", INFOCOM 2003), a low-priority sender that yields to standard TCP flows by
//! reacting to one-way delay before they see loss:
//! - one-way delay d from timestamps (receiver's stamp less send time; a clock offset
//!   cancels), smoothed sd ← (1 − γ)·sd + γ·d with γ = 1/8;
//! - early congestion indication when sd > d_min + δ·(d_max − d_min), δ = 0.15, with d_min and
//!   d_max the smallest and largest delays seen;
//! - on an indication: cwnd ← cwnd/2 and an inference phase of itt = 3 RTT starts; an
//!   indication within it sets cwnd = 1 segment; while it lasts the window does not grow;
//! - slow start and losses as standard TCP.
//!
//! An indication is acted on at most once per window of data (only ACKs for data sent after
//! the last reaction carry news of it; the paper does not say how often the test runs).
//! Delays are taken at the timestamp clock's granularity, 1 ms (Linux's and ns-3's tick).
//!
//! `ns3 = 1` (the `ns3` profile's default) follows ns-3.44's `TcpLp` (from Linux's
//! `tcp_lp.c`): tested on every ACK, and after each reaction
//! d_min and d_max restart from the smoothed delay (d_min = sd, d_max = 2·sd); its integer
//! arithmetic in whole milliseconds (8·sd as a fixed point, the threshold's 15% of the range
//! truncated, a zero delay taken for no sample); the delay is the ACK's TSval less its
//! TSecr, both in whole milliseconds, taken from every ACK; the inference phase lasts
//! 3·(now − TSecr) of the latest ACK; and the ACK that cuts the window still grows it (slow
//! start, or congestion avoidance outside the inference phase), as `IncreaseWindow` runs
//! after `PktsAcked`.

use super::{
    half_flight, reno_increase, AckInfo, CcState, CongestionControl, CongestionEvent, ParamSpec,
    Params, Reaction,
};
use crate::engine::{Time, MS};

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "delta",
        0.15,
        "delta, the threshold's place between d_min and d_max",
    ),
    ParamSpec::new("gamma", 0.125, "gamma, the one-way delay smoothing gain"),
    ParamSpec::new("itt_rtts", 3.0, "inference phase length in RTTs"),
    ParamSpec::ns3(
        "ns3",
        0.0,
        1.0,
        "1: ns-3's TcpLp (every ACK tested, d_min/d_max reset after a reaction, integer ms)",
    ),
];

#[derive(Clone, Debug)]
pub struct Lp {
    delta: f64,
    gamma: f64,
    itt_rtts: f64,
    ns3: bool,
    /// Smoothed one-way delay (ns; with `ns3` eight times it, as ns-3's fixed point), min
    /// and max seen.
    pub sowd: Option<f64>,
    d_min: f64,
    d_max: f64,
    /// ns-3's reserve for the maximum (a new maximum is taken one sample late).
    d_max_rsv: f64,
    /// End of the inference phase.
    inference_until: Option<Time>,
    /// Only ACKs beyond this (data sent after the last reaction) may cause a reaction.
    react_after: u64,
    /// ns-3's inference phase: the time of the last cut and 3·(now − TSecr) of the last ACK.
    last_drop: Option<Time>,
    inference: Time,
    pub early_indications: u64,
}

impl Lp {
    pub fn new(p: &mut Params) -> Result<Self, (String, String)> {
        let delta = p.spec(PARAMS, "delta")?;
        let gamma = p.spec(PARAMS, "gamma")?;
        let itt_rtts = p.spec(PARAMS, "itt_rtts")?;
        let ns3 = p.flag(PARAMS, "ns3")?;
        if !(0.0..1.0).contains(&delta) {
            return Err(("delta".into(), format!("must be in [0, 1), got {delta}")));
        }
        if !(0.0 < gamma && gamma <= 1.0) {
            return Err(("gamma".into(), format!("must be in (0, 1], got {gamma}")));
        }
        if itt_rtts < 0.0 {
            return Err(("itt_rtts".into(), format!("must be >= 0, got {itt_rtts}")));
        }
        Ok(Lp {
            delta,
            gamma,
            itt_rtts,
            ns3,
            sowd: None,
            d_min: f64::INFINITY,
            d_max: 0.0,
            d_max_rsv: 0.0,
            inference_until: None,
            react_after: 0,
            last_drop: None,
            inference: 0,
            early_indications: 0,
        })
    }

    /// Feed a one-way delay sample (ns).
    pub fn sample(&mut self, owd: f64) {
        // At the TCP timestamp clock's granularity (1 ms, as Linux and ns-3 tick).
        let owd = (owd / MS as f64).floor() * MS as f64;
        if self.ns3 && owd <= 0.0 {
            // ns-3 (as Linux) takes a zero delay for no sample.
            return;
        }
        self.d_min = self.d_min.min(owd);
        if self.ns3 {
            if owd > self.d_max {
                if owd > self.d_max_rsv {
                    self.d_max = if self.d_max_rsv == 0.0 {
                        owd
                    } else {
                        self.d_max_rsv
                    };
                    self.d_max_rsv = owd;
                } else {
                    self.d_max = owd;
                }
            }
        } else {
            self.d_max = self.d_max.max(owd);
        }
        self.sowd = Some(match self.sowd {
            // ns-3 keeps 8·sd in whole milliseconds: 8·sd += owd − ⌊8·sd / 8⌋.
            Some(s) if self.ns3 => {
                let (s8, d) = (s / MS as f64, owd / MS as f64);
                (s8 + d - (s8 / 8.0).floor()) * MS as f64
            }
            Some(s) => (1.0 - self.gamma) * s + self.gamma * owd,
            None if self.ns3 => 8.0 * owd,
            None => owd,
        });
    }

    /// The smoothed delay is past the threshold.
    pub fn early_indication(&self) -> bool {
        if self.ns3 {
            // ns-3's integer test: ⌊sd⌋ > d_min + ⌊15·(d_max − d_min)/100⌋, in milliseconds.
            let Some(s8) = self.sowd else {
                return false;
            };
            let ms = MS as f64;
            let (lo, hi) = (self.d_min / ms, self.d_max / ms);
            let s = (s8 / ms / 8.0).floor();
            return s > lo + (15.0 * (hi - lo) / 100.0).floor();
        }
        match self.sowd {
            Some(s) => s > self.d_min + self.delta * (self.d_max - self.d_min),
            None => false,
        }
    }
}

impl Lp {
    /// ns-3's step at every ACK (`TcpLp::PktsAcked`, then the socket's `IncreaseWindow`).
    fn on_ack_ns3(&mut self, ack: &AckInfo, st: &mut CcState) {
        if let (Some(tsv), Some(ecr)) = (ack.ts_val, ack.ts_ecr) {
            // Both stamps in whole milliseconds: the receiver's TSval less the echoed TSecr,
            // from every ACK's option (duplicates too), not only ACKs with an RTT sample.
            let owd = (tsv / MS * MS).abs_diff(ecr);
            self.sample(owd as f64);
            if ack.now / MS * MS > ecr {
                self.inference = 3 * (ack.now - ecr);
            }
        }
        let within = self.last_drop.is_some_and(|t| ack.now - t < self.inference);
        if !ack.in_recovery && self.early_indication() {
            self.early_indications += 1;
            let s8 = self.sowd.unwrap_or(0.0) / MS as f64;
            self.d_min = (s8 / 8.0).floor() * MS as f64;
            self.d_max = (s8 / 4.0).floor() * MS as f64;
            self.d_max_rsv = self.d_max;
            st.cwnd = if within {
                st.mss
            } else {
                (st.cwnd / 2).max(st.mss)
            };
            self.last_drop = Some(ack.now);
        }
        // The ACK that cut the window still grows it (the socket's IncreaseWindow follows
        // PktsAcked): slow start always, congestion avoidance unless within inference as
        // judged before the cut.
        if ack.no_growth() || (st.cwnd >= st.ssthresh && within) {
            return;
        }
        reno_increase(ack, st);
    }
}

impl CongestionControl for Lp {
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        if self.ns3 {
            self.on_ack_ns3(ack, st);
            return;
        }
        if let (Some(tsv), Some(rtt)) = (ack.ts_val, ack.rtt) {
            self.sample(tsv.saturating_sub(ack.now.saturating_sub(rtt)) as f64);
        }
        let within = self.inference_until.is_some_and(|t| ack.now < t);
        if !ack.in_recovery && self.early_indication() && ack.ack_seq > self.react_after {
            self.early_indications += 1;
            st.cwnd = if within {
                st.mss
            } else {
                (st.cwnd / 2).max(st.mss)
            };
            let rtt = ack.rtt.or(ack.srtt).unwrap_or(0) as f64;
            self.inference_until = Some(ack.now + (self.itt_rtts * rtt) as Time);
            self.react_after = ack.ack_seq + ack.in_flight;
            return;
        }
        if st.cwnd >= st.ssthresh && within {
            // Inference phase: no additive increase.
            return;
        }
        reno_increase(ack, st);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        Reaction::cut(half_flight(ev.in_flight, st.mss))
    }

    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("lp_early_indications", self.early_indications as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SEC;
    use std::collections::BTreeMap;

    fn lp(ns3: bool) -> Lp {
        let mut m = BTreeMap::new();
        m.insert("ns3".to_string(), ns3 as u8 as f64);
        Lp::new(&mut Params::new(&m)).unwrap()
    }

    fn ack(now: Time, seq: u64, owd: Time) -> AckInfo {
        AckInfo {
            now,
            acked_bytes: 1000,
            ack_seq: seq,
            in_flight: 20_000,
            rtt: Some(2 * owd),
            ts_val: Some(now - owd),
            ts_ecr: Some(now - 2 * owd),
            ..Default::default()
        }
    }

    #[test]
    fn threshold_is_fifteen_percent_between_min_and_max_of_the_smoothed_delay() {
        let mut l = lp(false);
        let ms = MS as f64;
        l.sample(100.0 * ms);
        l.sample(200.0 * ms);
        // sd = 7/8 x 100 + 1/8 x 200 = 112.5 ms; threshold 100 + 0.15 x 100 = 115 ms.
        assert!((l.sowd.unwrap() - 112.5 * ms).abs() < 1e-3);
        assert!(!l.early_indication());
        l.sample(200.0 * ms);
        // sd = 7/8 x 112.5 + 25 = 123.4 ms > 115 ms.
        assert!(l.early_indication());
    }

    #[test]
    fn first_indication_halves_a_second_within_inference_sets_one_segment() {
        let mut l = lp(false);
        let mut st = CcState {
            cwnd: 20_000,
            ssthresh: 1,
            mss: 1000,
        };
        l.sample((10 * MS) as f64);
        l.sample((50 * MS) as f64);
        for _ in 0..20 {
            l.sample((50 * MS) as f64);
        }
        l.on_ack(&ack(SEC, 1000, 50 * MS), &mut st);
        assert_eq!(st.cwnd, 10_000, "halved");
        // Inference phase: 3 RTT = 300 ms. The next ACK is for data sent before the
        // reaction: no second reaction, and no growth.
        l.on_ack(&ack(SEC + 10 * MS, 2000, 50 * MS), &mut st);
        assert_eq!(st.cwnd, 10_000);
        // An ACK for later data, still in the inference phase: one segment.
        l.on_ack(&ack(SEC + 200 * MS, 30_000, 50 * MS), &mut st);
        assert_eq!(st.cwnd, 1000);
        assert_eq!(l.early_indications, 2);
    }

    #[test]
    fn growth_resumes_after_inference_without_indications() {
        let mut l = lp(false);
        let mut st = CcState {
            cwnd: 10_000,
            ssthresh: 1,
            mss: 1000,
        };
        l.inference_until = Some(SEC);
        l.sample((10 * MS) as f64);
        l.on_ack(&ack(SEC / 2, 1000, 10 * MS), &mut st);
        assert_eq!(st.cwnd, 10_000, "no increase within inference");
        l.on_ack(&ack(2 * SEC, 2000, 10 * MS), &mut st);
        assert_eq!(st.cwnd, 10_100, "Reno increase after it");
    }

    #[test]
    fn ns3_resets_min_and_max_after_a_reaction_and_the_cutting_ack_still_grows() {
        let mut l = lp(true);
        // Slow start (ssthresh not set yet), as on a path that has not lost a segment.
        let mut st = CcState {
            cwnd: 20_000,
            ssthresh: u64::MAX,
            mss: 1000,
        };
        l.sample((10 * MS) as f64);
        for _ in 0..20 {
            l.sample((50 * MS) as f64);
        }
        l.on_ack(&ack(SEC, 1000, 50 * MS), &mut st);
        // Halved, then the same ACK's slow start adds a segment.
        assert_eq!(st.cwnd, 11_000);
        let s = (l.sowd.unwrap() / 8.0 / MS as f64).floor() * MS as f64;
        assert_eq!((l.d_min, l.d_max), (s, 2.0 * s));
        // The inference phase is 3·(now − TSecr) = 300 ms: a second indication 100 ms later
        // sets one segment, and slow start adds one.
        for _ in 0..20 {
            l.sample((90 * MS) as f64);
        }
        l.on_ack(&ack(SEC + 100 * MS, 2000, 90 * MS), &mut st);
        assert_eq!(st.cwnd, 2000);
        assert_eq!(l.early_indications, 2);
    }

    #[test]
    fn ns3_delay_is_tsval_less_tsecr_in_whole_milliseconds_on_every_ack() {
        // TSval 30.9 ms after a TSecr of 10 ms: ns-3 stamps 30 ms, so 20 ms, where the exact
        // delay is 20.9 ms; a duplicate ACK (no RTT sample) is sampled too.
        let mut l = lp(true);
        let mut st = CcState {
            cwnd: 10_000,
            ssthresh: u64::MAX,
            mss: 1000,
        };
        let a = AckInfo {
            now: 50 * MS,
            dup_ack: true,
            ts_val: Some(30_900_000),
            ts_ecr: Some(10 * MS),
            ..Default::default()
        };
        l.on_ack(&a, &mut st);
        assert_eq!(l.sowd, Some((8 * 20 * MS) as f64));
        assert_eq!(l.inference, 3 * 40 * MS);
    }

    #[test]
    fn ns3_tests_in_whole_milliseconds() {
        // d_min 30, d_max 36 ms: 15% of the 6 ms range is 0 in integers, so the test is
        // sd > 30 ms on sd truncated: 30.9 ms passes, 31 ms indicates (the paper's 30.9 > 30.9
        // would not).
        let mut l = lp(true);
        l.d_min = (30 * MS) as f64;
        l.d_max = (36 * MS) as f64;
        l.sowd = Some(8.0 * 30.9 * MS as f64);
        assert!(!l.early_indication());
        l.sowd = Some(8.0 * 31.0 * MS as f64);
        assert!(l.early_indication());
        // The fixed point: 8·sd = 240 (30 ms) and a 38 ms sample give 240 + 38 − 30 = 248.
        let mut l = lp(true);
        l.sample((30 * MS) as f64);
        assert_eq!(l.sowd, Some((240 * MS) as f64));
        l.sample((38 * MS) as f64);
        assert_eq!(l.sowd, Some((248 * MS) as f64));
        // A zero delay is no sample.
        l.sample(0.5 * MS as f64);
        assert_eq!(l.sowd, Some((248 * MS) as f64));
    }
}
