//! BIC TCP (Xu, Harfoush & Rhee, "Binary Increase Congestion Control for Fast, Long Distance
//! Networks", INFOCOM 2004). After a loss the window is cut to (1 − β)·W, W_max = W; then,
//! once per round trip:
//! - binary search increase below W_max: the window jumps to the midpoint (W_max + cwnd)/2,
//!   by at most S_max (additive increase while far away) and at least S_min;
//! - max probing above W_max: the step starts at S_min and doubles with the distance past
//!   W_max (the step is cwnd − W_max), up to S_max (slow start, then additive increase);
//! - fast convergence: a loss below the previous W_max sets W_max to the midpoint of the
//!   window before and after the cut, (2 − β)/2·W, to release bandwidth to new flows;
//! - below low_window (14 segments) it is standard TCP (Reno increase, halving).
//!
//! Paper values: β = 0.125, S_max = 32, S_min = 0.01, low_window = 14. The step is spread
//! over the ACKs of a round trip (step/cwnd per acknowledged segment).
//!
//! `ns3 = 1` (the `ns3` profile's default) follows ns-3.44's `TcpBic` (from Linux's
//! `tcp_bic.c`): cwnd counted in whole segments, one segment added once more than `cnt`
//! segments were acknowledged, with cnt = cwnd/MaxIncr (16) far below W_max, cwnd/dist with
//! dist = (W_max − cwnd)/B (B = 4) in the binary search, cwnd·SmoothPart/B (5/4 of a window)
//! within one B of W_max, cwnd·(B − 1)/(cwnd − W_max) in max probing, cnt ≤ 20 while W_max = 0;
//! ssthresh = 0.8·cwnd (halving below 14 segments), and fast convergence W_max = 0.8·cwnd.

use super::{
    half_flight, AckInfo, CcState, CongestionControl, CongestionEvent, ParamSpec, Params, Reaction,
};

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::ns3("beta", 0.125, 0.2, "window fraction taken on a loss (ns-3: its Beta 0.8 is the fraction kept)"),
    ParamSpec::ns3("s_max", 32.0, 16.0, "S_max, the largest step per round trip (segments; ns-3: MaxIncr)"),
    ParamSpec::new("s_min", 0.01, "S_min, the smallest step per round trip (segments)"),
    ParamSpec::new("low_window", 14.0, "standard TCP below this window (segments)"),
    ParamSpec::new("fast_convergence", 1.0, "1: fast convergence on"),
    ParamSpec::ns3("ns3", 0.0, 1.0, "1: ns-3's TcpBic arithmetic (Linux tcp_bic.c: B = 4, SmoothPart 5, counted whole segments)"),
];

/// ns-3's TcpBic::BinarySearchCoefficient and SmoothPart.
const NS3_B: f64 = 4.0;
const NS3_SMOOTH: f64 = 5.0;

#[derive(Clone, Debug)]
pub struct Bic {
    beta: f64,
    s_max: f64,
    s_min: f64,
    low_window: f64,
    fast_convergence: bool,
    ns3: bool,
    /// W_max (segments), 0 before the first loss.
    pub w_max: f64,
    /// Fractional growth (segments), or with `ns3` the acknowledged-segment count.
    carry: f64,
    /// The current round's (step, window at its start) and segments left to acknowledge.
    round: (f64, f64),
    round_left: f64,
}

impl Bic {
    pub fn new(p: &mut Params) -> Result<Self, (String, String)> {
        let beta = p.spec(PARAMS, "beta")?;
        let s_max = p.spec(PARAMS, "s_max")?;
        let s_min = p.spec(PARAMS, "s_min")?;
        let low_window = p.spec(PARAMS, "low_window")?;
        let fast_convergence = p.flag(PARAMS, "fast_convergence")?;
        let ns3 = p.flag(PARAMS, "ns3")?;
        if !(0.0 < beta && beta < 1.0) {
            return Err(("beta".into(), format!("must be in (0, 1), got {beta}")));
        }
        if !(0.0 < s_min && s_min <= s_max) {
            return Err((
                "s_max".into(),
                format!("need 0 < s_min <= s_max, got {s_min}, {s_max}"),
            ));
        }
        Ok(Bic {
            beta,
            s_max,
            s_min,
            low_window,
            fast_convergence,
            ns3,
            w_max: 0.0,
            carry: 0.0,
            round: (0.0, 1.0),
            round_left: 0.0,
        })
    }

    /// The paper's step for one round trip at window w (segments).
    pub fn step(&self, w: f64) -> f64 {
        if w < self.low_window {
            return 1.0;
        }
        let raw = if w < self.w_max {
            (self.w_max - w) / 2.0
        } else {
            w - self.w_max
        };
        raw.clamp(self.s_min, self.s_max)
    }

    /// ns-3's cnt: acknowledged segments per one-segment increase at whole window w.
    pub fn ns3_cnt(&self, w: f64) -> f64 {
        let (b, max_incr, last) = (NS3_B, self.s_max, self.w_max);
        let mut cnt = if w < self.low_window {
            w
        } else if w < last {
            let dist = ((last - w) / b).floor();
            if dist > max_incr {
                (w / max_incr).floor()
            } else if dist <= 1.0 {
                (w * NS3_SMOOTH / b).floor()
            } else {
                (w / dist).floor()
            }
        } else if w < last + b {
            (w * NS3_SMOOTH / b).floor()
        } else if w < last + max_incr * (b - 1.0) {
            (w * (b - 1.0) / (w - last)).floor()
        } else {
            (w / max_incr).floor()
        };
        if last == 0.0 && cnt > 20.0 {
            cnt = 20.0;
        }
        cnt.max(1.0)
    }
}

impl CongestionControl for Bic {
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        if ack.no_growth() {
            return;
        }
        let mss = st.mss as f64;
        let mut acked = ack.acked_bytes as f64 / mss;
        if st.cwnd < st.ssthresh {
            st.cwnd += ack.acked_bytes.min(st.mss);
            // ns-3's `TcpBic::IncreaseWindow` hands the segments left over once slow start
            // reaches ssthresh to congestion avoidance in the same call.
            if !self.ns3 || st.cwnd < st.ssthresh {
                return;
            }
            acked = (acked - 1.0).max(0.0);
            if acked == 0.0 {
                return;
            }
        }
        if self.ns3 {
            let w = (st.cwnd / st.mss) as f64;
            self.carry += acked;
            if self.carry > self.ns3_cnt(w) {
                st.cwnd += st.mss;
                self.carry = 0.0;
            }
            return;
        }
        let w = st.cwnd as f64 / mss;
        if self.round_left <= 0.0 {
            // A round trip is a window of acknowledged segments; its step is fixed at its
            // start, so the window reaches the midpoint in one round.
            self.round = (self.step(w), w);
            self.round_left = w;
        }
        self.round_left -= acked;
        self.carry += self.round.0 / self.round.1 * acked * mss;
        let whole = self.carry.floor();
        self.carry -= whole;
        st.cwnd += whole as u64;
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        let mss = st.mss as f64;
        self.round_left = 0.0;
        if self.ns3 {
            // ns-3's `GetSsThresh` leaves `m_cWndCnt` as it is (only a window increase
            // clears it).
            // ns-3 takes the window from cwnd in whole segments.
            let w = (st.cwnd / st.mss) as f64;
            let kept = 1.0 - self.beta;
            self.w_max = if w < self.w_max && self.fast_convergence {
                (kept * w).floor()
            } else {
                w
            };
            if w < self.low_window {
                return Reaction::cut(half_flight(ev.in_flight, st.mss));
            }
            return Reaction::cut(((w * kept).max(2.0) * mss) as u64);
        }
        self.carry = 0.0;
        let w = ev.in_flight as f64 / mss;
        self.w_max = if self.fast_convergence && w < self.w_max {
            w * (2.0 - self.beta) / 2.0
        } else {
            w
        };
        if w < self.low_window {
            return Reaction::cut(half_flight(ev.in_flight, st.mss));
        }
        Reaction::cut(((w * (1.0 - self.beta)).max(2.0) * mss) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::super::CongestionKind;
    use super::*;
    use std::collections::BTreeMap;

    fn bic(ns3: bool) -> Bic {
        let mut m = BTreeMap::new();
        if ns3 {
            for (k, v) in [("ns3", 1.0), ("beta", 0.2), ("s_max", 16.0)] {
                m.insert(k.to_string(), v);
            }
        }
        Bic::new(&mut Params::new(&m)).unwrap()
    }

    fn loss(b: &mut Bic, w: u64) -> u64 {
        let st = CcState {
            cwnd: w * 1000,
            ssthresh: 1,
            mss: 1000,
        };
        let ev = CongestionEvent::at(0, CongestionKind::DupAcks, w * 1000);
        b.on_congestion(&ev, &st).ssthresh
    }

    /// One round trip of ACKs (one per segment of the window).
    fn round(b: &mut Bic, st: &mut CcState) {
        for _ in 0..st.cwnd / st.mss {
            b.on_ack(
                &AckInfo {
                    acked_bytes: st.mss,
                    ..Default::default()
                },
                st,
            );
        }
    }

    #[test]
    fn binary_search_halves_the_distance_to_w_max_each_round() {
        let mut b = bic(false);
        // Loss at 1000 segments: cut to 875, W_max = 1000.
        let ss = loss(&mut b, 1000);
        assert_eq!(ss, 875_000);
        assert_eq!(b.w_max, 1000.0);
        let mut st = CcState {
            cwnd: ss,
            ssthresh: 1,
            mss: 1000,
        };
        // Distance 125: first steps are S_max = 32 (additive increase) while (W_max-w)/2 > 32.
        round(&mut b, &mut st);
        let w1 = st.cwnd as f64 / 1000.0;
        assert!((w1 - 907.0).abs() < 1.0, "{w1}");
        round(&mut b, &mut st);
        let w2 = st.cwnd as f64 / 1000.0;
        assert!((w2 - 939.0).abs() < 1.5, "{w2}");
        // Then binary search: each round takes about half the remaining distance.
        round(&mut b, &mut st);
        let w3 = st.cwnd as f64 / 1000.0;
        let want = w2 + (1000.0 - w2) / 2.0;
        assert!((w3 - want).abs() < 1.5, "{w3} vs {want}");
        assert_eq!(b.step(999.99), 0.01, "S_min near W_max");
    }

    #[test]
    fn max_probing_grows_slowly_then_exponentially_then_linearly() {
        let mut b = bic(false);
        b.w_max = 100.0;
        assert_eq!(b.step(100.0), 0.01);
        assert_eq!(b.step(104.0), 4.0);
        assert_eq!(b.step(116.0), 16.0);
        assert_eq!(b.step(200.0), 32.0);
        // Below low_window: Reno's one segment per round.
        assert_eq!(b.step(10.0), 1.0);
    }

    #[test]
    fn fast_convergence_and_low_window() {
        let mut b = bic(false);
        loss(&mut b, 1000);
        // Loss again below W_max: W_max = (2 - 0.125)/2 x 900.
        loss(&mut b, 900);
        assert!((b.w_max - 843.75).abs() < 1e-9);
        assert_eq!(loss(&mut b, 10), 5000, "standard halving below low_window");
    }

    #[test]
    fn ns3_counts_as_tcp_bic() {
        let mut b = bic(true);
        assert_eq!(loss(&mut b, 100), 80_000, "kept 0.8");
        assert_eq!(b.w_max, 100.0);
        // cwnd 80, W_max 100: dist = 20/4 = 5, cnt = 80/5 = 16.
        assert_eq!(b.ns3_cnt(80.0), 16.0);
        // dist = 1: cnt = 80 x 5/4.
        assert_eq!(b.ns3_cnt(96.0), 120.0);
        // Far: dist 100/4 = 25 > 16: cnt = w/16.
        b.w_max = 400.0;
        assert_eq!(b.ns3_cnt(300.0), 18.0);
        // Max probing: w 110 vs W_max 100: cnt = 110 x 3/10 = 33.
        b.w_max = 100.0;
        assert_eq!(b.ns3_cnt(110.0), 33.0);
        // Fast convergence keeps 0.8 of the window.
        loss(&mut b, 90);
        assert_eq!(b.w_max, 72.0);
        // An increase needs more than cnt acknowledged segments.
        let mut b = bic(true);
        b.w_max = 100.0;
        let mut st = CcState {
            cwnd: 80_000,
            ssthresh: 1,
            mss: 1000,
        };
        for _ in 0..16 {
            b.on_ack(
                &AckInfo {
                    acked_bytes: 1000,
                    ..Default::default()
                },
                &mut st,
            );
        }
        assert_eq!(st.cwnd, 80_000);
        b.on_ack(
            &AckInfo {
                acked_bytes: 1000,
                ..Default::default()
            },
            &mut st,
        );
        assert_eq!(st.cwnd, 81_000);
    }

    #[test]
    fn ns3_keeps_its_count_through_a_loss_and_passes_on_slow_starts_remainder() {
        // `TcpBic::GetSsThresh` leaves `m_cWndCnt`: 10 segments counted before a loss count
        // after it (cnt = 16 at cwnd 80 against W_max 100), so 7 more make the increase.
        let mut b = bic(true);
        b.w_max = 100.0;
        let mut st = CcState {
            cwnd: 80_000,
            ssthresh: 1,
            mss: 1000,
        };
        let one = AckInfo {
            acked_bytes: 1000,
            ..Default::default()
        };
        for _ in 0..10 {
            b.on_ack(&one, &mut st);
        }
        loss(&mut b, 100);
        assert_eq!(b.carry, 10.0, "the count survives the loss");
        // The paper's BIC starts its count again.
        let mut p = bic(false);
        p.carry = 0.5;
        loss(&mut p, 100);
        assert_eq!(p.carry, 0.0);
        // Slow start that reaches ssthresh hands the rest of the ACK on: from 1 segment with
        // ssthresh 2, an ACK of 10 segments gives 2, then 9 counted against cnt(2) = 2.
        let mut b = bic(true);
        let mut st = CcState {
            cwnd: 1000,
            ssthresh: 2000,
            mss: 1000,
        };
        b.on_ack(
            &AckInfo {
                acked_bytes: 10_000,
                ..Default::default()
            },
            &mut st,
        );
        assert_eq!(st.cwnd, 3000, "1 -> 2 in slow start, then one increase");
        let mut p = bic(false);
        let mut st = CcState {
            cwnd: 1000,
            ssthresh: 2000,
            mss: 1000,
        };
        p.on_ack(
            &AckInfo {
                acked_bytes: 10_000,
                ..Default::default()
            },
            &mut st,
        );
        assert_eq!(st.cwnd, 2000);
    }
}
