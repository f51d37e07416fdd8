//! H-TCP (Leith & Shorten, "H-TCP: TCP for high-speed and long-distance networks",
//! PFLDnet 2004). The increase grows with the time Δ since the last congestion event:
//! - α(Δ) = 1 for Δ ≤ Δ_L = 1 s, else 1 + 10·(Δ − Δ_L) + ((Δ − Δ_L)/2)² (Δ in seconds);
//! - adaptive backoff: β = RTT_min/RTT_max of the last congestion epoch, kept in [0.5, 0.8],
//!   so the queue just drains after a cut;
//! - adaptive reset: β = 0.5 when the throughput of the epoch moved by more than 20% from the
//!   previous epoch's (|B(k+1) − B(k)|/B(k) > Δ_B = 0.2), so a new flow is not starved;
//! - α ← 2·(1 − β)·α(Δ), which keeps the average rate of flows with different β alike;
//! - cwnd += α/cwnd per ACK (α segments per round trip), cwnd ← β·cwnd on congestion.
//!
//! The epoch's throughput B is the data acknowledged outside recovery since the last
//! congestion event over the time since it (the paper leaves how B is measured open).
//!
//! `ns3 = 1` (the `ns3` profile's default) follows ns-3.44's `TcpHtcp`: β = RTT_min/RTT_max
//! of the SRTTs it is handed at every ACK, without the [0.5, 0.8] bounds and only when the
//! throughput rose (0.5 when it fell) by less than 100% (its 20% test divides in integers),
//! α at least 1, each ACK adding α bytes plus SMSS²/cwnd (not α segments per round trip), and
//! Δ of the first epoch counted from time zero.

use super::{AckInfo, CcState, CongestionControl, CongestionEvent, ParamSpec, Params, Reaction};
use crate::engine::{Time, SEC};

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "delta_l",
        1.0,
        "Delta_L (s): standard increase for this long after a congestion event",
    ),
    ParamSpec::new(
        "throughput_ratio",
        0.2,
        "Delta_B: a larger relative change of the epoch's throughput resets beta to 0.5",
    ),
    ParamSpec::new("beta_min", 0.5, "lower bound of the adaptive backoff"),
    ParamSpec::new("beta_max", 0.8, "upper bound of the adaptive backoff"),
    ParamSpec::ns3(
        "ns3",
        0.0,
        1.0,
        "1: ns-3's TcpHtcp (no beta bounds, alpha bytes per ACK, alpha >= 1)",
    ),
];

#[derive(Clone, Debug)]
pub struct Htcp {
    delta_l: f64,
    throughput_ratio: f64,
    beta_min: f64,
    beta_max: f64,
    ns3: bool,
    pub beta: f64,
    last_con: Option<Time>,
    min_rtt: Option<Time>,
    max_rtt: Option<Time>,
    acked: u64,
    last_throughput: f64,
    carry: f64,
}

impl Htcp {
    pub fn new(p: &mut Params) -> Result<Self, (String, String)> {
        let delta_l = p.spec(PARAMS, "delta_l")?;
        let throughput_ratio = p.spec(PARAMS, "throughput_ratio")?;
        let beta_min = p.spec(PARAMS, "beta_min")?;
        let beta_max = p.spec(PARAMS, "beta_max")?;
        let ns3 = p.flag(PARAMS, "ns3")?;
        if delta_l < 0.0 {
            return Err(("delta_l".into(), format!("must be >= 0, got {delta_l}")));
        }
        if !(0.0 < beta_min && beta_min <= beta_max && beta_max < 1.0) {
            return Err((
                "beta_max".into(),
                format!("need 0 < beta_min <= beta_max < 1, got {beta_min}, {beta_max}"),
            ));
        }
        Ok(Htcp {
            delta_l,
            throughput_ratio,
            beta_min,
            beta_max,
            ns3,
            beta: 0.5,
            last_con: if ns3 { Some(0) } else { None },
            min_rtt: None,
            max_rtt: None,
            acked: 0,
            last_throughput: 0.0,
            carry: 0.0,
        })
    }

    /// α(Δ) before the 2(1 − β) scaling, Δ in seconds.
    pub fn alpha_of_delta(&self, delta: f64) -> f64 {
        if delta <= self.delta_l {
            1.0
        } else {
            let d = delta - self.delta_l;
            1.0 + 10.0 * d + (d / 2.0).powi(2)
        }
    }

    /// The increase now (segments per round trip; with `ns3`, bytes per ACK).
    pub fn alpha(&self, now: Time) -> f64 {
        let delta = now.saturating_sub(self.last_con.unwrap_or(now)) as f64 / SEC as f64;
        let a = 2.0 * (1.0 - self.beta) * self.alpha_of_delta(delta);
        if self.ns3 {
            a.max(1.0)
        } else {
            a
        }
    }

    fn throughput(&self, now: Time) -> f64 {
        let since = now.saturating_sub(self.last_con.unwrap_or(now)) as f64 / SEC as f64;
        if since > 0.0 {
            self.acked as f64 / since
        } else {
            0.0
        }
    }

    /// The backoff for an epoch with throughput `b` after one with `b_prev`.
    pub fn backoff(
        &self,
        b: f64,
        b_prev: f64,
        min_rtt: Option<Time>,
        max_rtt: Option<Time>,
    ) -> f64 {
        let ratio = match (min_rtt, max_rtt) {
            (Some(lo), Some(hi)) if hi > 0 => lo as f64 / hi as f64,
            _ => return 0.5,
        };
        if self.ns3 {
            // ns-3 divides the two throughputs (whole bytes/s) in integers, so any rise of
            // less than 100 % passes its 20 % test (and a ratio below 1 passes whatever it is).
            let (b, b_prev) = (b as u64, b_prev as u64);
            let rise = b.saturating_sub(b_prev);
            if b > b_prev && b_prev > 0 && (rise / b_prev) as f64 <= self.throughput_ratio {
                return ratio;
            }
            return 0.5;
        }
        if b_prev > 0.0 && ((b - b_prev) / b_prev).abs() > self.throughput_ratio {
            return 0.5;
        }
        ratio.clamp(self.beta_min, self.beta_max)
    }
}

impl CongestionControl for Htcp {
    fn on_sent(&mut self, now: Time, _bytes: u64, _st: &mut CcState) {
        // The first epoch runs from the first segment sent.
        self.last_con.get_or_insert(now);
    }

    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        // ns-3 hands PktsAcked the SRTT, at every ACK.
        let sample = if self.ns3 { ack.srtt } else { ack.rtt };
        if let Some(r) = sample {
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
            self.max_rtt = Some(self.max_rtt.map_or(r, |m| m.max(r)));
        }
        if ack.no_growth() {
            return;
        }
        self.acked += ack.acked_bytes;
        if st.cwnd < st.ssthresh {
            st.cwnd += ack.acked_bytes.min(st.mss);
            return;
        }
        let mss = st.mss as f64;
        let alpha = self.alpha(ack.now);
        if self.ns3 {
            // ns-3: (SMSS² + cwnd·α)/cwnd bytes, at least one, per ACK.
            let cwnd = st.cwnd as f64;
            st.cwnd += ((mss * mss + (cwnd * alpha).floor()) / cwnd).max(1.0) as u64;
            return;
        }
        let w = st.cwnd as f64 / mss;
        self.carry += alpha / w * (ack.acked_bytes as f64 / mss) * mss;
        let whole = self.carry.floor();
        self.carry -= whole;
        st.cwnd += whole as u64;
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        let b = self.throughput(ev.now);
        self.beta = self.backoff(b, self.last_throughput, self.min_rtt, self.max_rtt);
        self.last_throughput = b;
        self.last_con = Some(ev.now);
        self.min_rtt = None;
        self.max_rtt = None;
        self.acked = 0;
        self.carry = 0.0;
        let ss = ((ev.in_flight as f64 * self.beta) as u64).max(2 * st.mss);
        Reaction::cut(ss)
    }
}

#[cfg(test)]
mod tests {
    use super::super::CongestionKind;
    use super::*;
    use crate::engine::MS;
    use std::collections::BTreeMap;

    fn htcp(ns3: bool) -> Htcp {
        let mut m = BTreeMap::new();
        m.insert("ns3".to_string(), ns3 as u8 as f64);
        Htcp::new(&mut Params::new(&m)).unwrap()
    }

    #[test]
    fn alpha_of_delta_is_the_papers_polynomial() {
        let h = htcp(false);
        assert_eq!(h.alpha_of_delta(0.5), 1.0);
        assert_eq!(h.alpha_of_delta(1.0), 1.0);
        // Delta = 3 s: 1 + 10 x 2 + (2/2)^2 = 22.
        assert_eq!(h.alpha_of_delta(3.0), 22.0);
        // Scaled by 2(1 - beta): beta 0.5 leaves it, beta 0.8 takes 0.4 of it.
        let mut h = htcp(false);
        h.last_con = Some(0);
        assert_eq!(h.alpha(3 * SEC), 22.0);
        h.beta = 0.8;
        assert!((h.alpha(3 * SEC) - 8.8).abs() < 1e-12);
    }

    #[test]
    fn backoff_is_the_rtt_ratio_bounded_and_reset_by_throughput_change() {
        let h = htcp(false);
        let (lo, hi) = (Some(60 * MS), Some(100 * MS));
        assert_eq!(h.backoff(1.0e6, 1.05e6, lo, hi), 0.6);
        assert_eq!(
            h.backoff(1.0e6, 1.0e6, Some(10 * MS), hi),
            0.5,
            "bounded below"
        );
        assert_eq!(
            h.backoff(1.0e6, 1.0e6, Some(95 * MS), hi),
            0.8,
            "bounded above"
        );
        assert_eq!(h.backoff(1.0e6, 1.5e6, lo, hi), 0.5, "throughput fell 33%");
        let n = htcp(true);
        assert_eq!(
            n.backoff(1.0e6, 1.05e6, lo, hi),
            0.5,
            "ns-3: only a rise counts"
        );
        assert_eq!(
            n.backoff(1.1e6, 1.0e6, Some(95 * MS), hi),
            0.95,
            "ns-3: no bounds"
        );
        // ns-3's 20 % test divides whole numbers: a rise of 90 % passes, one of 100 % not.
        assert_eq!(n.backoff(1.9e6, 1.0e6, lo, hi), 0.6);
        assert_eq!(n.backoff(2.0e6, 1.0e6, lo, hi), 0.5);
        assert_eq!(
            h.backoff(1.9e6, 1.0e6, lo, hi),
            0.5,
            "the paper: 90 % is a change"
        );
    }

    #[test]
    fn ns3_takes_its_rtt_range_from_the_srtt() {
        // Two ACKs whose RTT samples (60, 140 ms) spread wider than their SRTTs (100, 104).
        let range = |ns3: bool| {
            let mut h = htcp(ns3);
            let mut st = CcState {
                cwnd: 20_000,
                ssthresh: 10_000,
                mss: 1000,
            };
            for (rtt, srtt) in [(60, 100), (140, 104)] {
                let a = AckInfo {
                    now: SEC,
                    acked_bytes: 1000,
                    rtt: Some(rtt * MS),
                    srtt: Some(srtt * MS),
                    ..Default::default()
                };
                h.on_ack(&a, &mut st);
            }
            (h.min_rtt, h.max_rtt)
        };
        assert_eq!(range(true), (Some(100 * MS), Some(104 * MS)));
        assert_eq!(range(false), (Some(60 * MS), Some(140 * MS)));
    }

    #[test]
    fn a_round_adds_alpha_segments_and_a_loss_keeps_beta() {
        let mut h = htcp(false);
        h.on_sent(
            0,
            1000,
            &mut CcState {
                cwnd: 0,
                ssthresh: 0,
                mss: 1000,
            },
        );
        let mut st = CcState {
            cwnd: 100_000,
            ssthresh: 1,
            mss: 1000,
        };
        for _ in 0..100 {
            h.on_ack(
                &AckInfo {
                    now: 3 * SEC,
                    acked_bytes: 1000,
                    rtt: Some(100 * MS),
                    ..Default::default()
                },
                &mut st,
            );
        }
        // alpha = 22 per window of ACKs, taken alpha/cwnd per ACK as cwnd grows:
        // w^2 grows by 2 alpha per ACK, sqrt(100^2 + 2 x 22 x 100) = 120.
        let grown = (st.cwnd - 100_000) as f64 / 1000.0;
        assert!((grown - 20.0).abs() < 0.1, "{grown}");
        let ev = CongestionEvent::at(3 * SEC, CongestionKind::DupAcks, 100_000);
        // First epoch: the RTT ratio is 1, bounded to 0.8.
        assert_eq!(h.on_congestion(&ev, &st).ssthresh, 80_000);
        // ns-3's per-ACK rule: alpha bytes plus SMSS^2/cwnd.
        let mut n = htcp(true);
        let mut st = CcState {
            cwnd: 100_000,
            ssthresh: 1,
            mss: 1000,
        };
        n.on_ack(
            &AckInfo {
                now: 3 * SEC,
                acked_bytes: 1000,
                ..Default::default()
            },
            &mut st,
        );
        assert_eq!(st.cwnd, 100_000 + 10 + 22);
    }
}
