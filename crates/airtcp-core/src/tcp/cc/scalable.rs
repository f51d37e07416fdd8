//! Scalable TCP (Kelly, "Scalable TCP: improving performance in highspeed wide area
//! networks", CCR 33(2), 2003). Above the legacy window (lwnd = 16 segments) each ACK adds
//! a = 0.01 segments (cwnd ← cwnd + 0.01) and a congestion event takes b = 0.125 of the
//! window (cwnd ← cwnd − 0.125·cwnd); at or below lwnd it is standard TCP. The response is
//! multiplicative both ways, so the time to recover from a loss does not grow with the window
//! (about log(1 − b)/log(1 + a) ≈ 13.4 round trips).
//!
//! `ns3 = 1` (the `ns3` profile's default) follows ns-3.44's `TcpScalable`: one segment per
//! min(cwnd, AIFactor = 50) acknowledged segments (Reno below 50 segments, a = 0.02 above),
//! counted whole with the remainder dropped at each increase, and the 0.125 cut at every
//! window size.

use super::{
    half_flight, AckInfo, CcState, CongestionControl, CongestionEvent, ParamSpec, Params, Reaction,
};

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::new("a", 0.01, "segments added per ACK above the legacy window"),
    ParamSpec::new(
        "b",
        0.125,
        "fraction of the window taken on a congestion event",
    ),
    ParamSpec::new(
        "low_window",
        16.0,
        "legacy window (segments): standard TCP at or below it",
    ),
    ParamSpec::ns3(
        "ns3",
        0.0,
        1.0,
        "1: ns-3's TcpScalable (a segment per min(cwnd, 50) ACKs, the b cut at every size)",
    ),
];

#[derive(Clone, Debug)]
pub struct Scalable {
    a: f64,
    b: f64,
    low_window: f64,
    ns3: bool,
    /// Fractional growth (segments), or with `ns3` acknowledged segments counted.
    carry: f64,
}

/// ns-3's TcpScalable::AIFactor.
const NS3_AI_FACTOR: f64 = 50.0;

/// ns-3's `TcpScalable::CongestionAvoidance`: `count` adds the ACKed segments; once it
/// reaches w = min(cwnd in whole segments, `ai_factor`), cwnd gains count/w whole segments
/// (snapped to whole segments) and the count restarts from zero, the remainder dropped (a
/// count left at w or above by a smaller window adds one segment first). Never reset by a
/// loss.
pub fn ns3_increase(count: &mut f64, st: &mut CcState, acked_segments: f64, ai_factor: f64) {
    let mut segs = (st.cwnd / st.mss).max(1);
    let old = segs;
    let w = (segs as f64).min(ai_factor);
    if *count >= w {
        *count = 0.0;
        segs += 1;
    }
    *count += acked_segments;
    if *count >= w {
        segs += (*count / w).floor() as u64;
        *count = 0.0;
    }
    if segs != old {
        st.cwnd = segs * st.mss;
    }
}

impl Scalable {
    pub fn new(p: &mut Params) -> Result<Self, (String, String)> {
        let a = p.spec(PARAMS, "a")?;
        let b = p.spec(PARAMS, "b")?;
        let low_window = p.spec(PARAMS, "low_window")?;
        let ns3 = p.flag(PARAMS, "ns3")?;
        if a <= 0.0 {
            return Err(("a".into(), format!("must be > 0, got {a}")));
        }
        if !(0.0 < b && b < 1.0) {
            return Err(("b".into(), format!("must be in (0, 1), got {b}")));
        }
        Ok(Scalable {
            a,
            b,
            low_window,
            ns3,
            carry: 0.0,
        })
    }
}

impl CongestionControl for Scalable {
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        if ack.no_growth() {
            return;
        }
        if st.cwnd < st.ssthresh {
            st.cwnd += ack.acked_bytes.min(st.mss);
            return;
        }
        let mss = st.mss as f64;
        let w = st.cwnd as f64 / mss;
        let acked = ack.acked_bytes as f64 / mss;
        if self.ns3 {
            ns3_increase(&mut self.carry, st, acked.round(), NS3_AI_FACTOR);
            return;
        }
        let inc = if w <= self.low_window {
            acked / w
        } else {
            self.a * acked
        };
        self.carry += inc * mss;
        let whole = self.carry.floor();
        self.carry -= whole;
        st.cwnd += whole as u64;
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        let mss = st.mss as f64;
        let w = ev.in_flight as f64 / mss;
        if !self.ns3 && w <= self.low_window {
            return Reaction::cut(half_flight(ev.in_flight, st.mss));
        }
        let segs = if self.ns3 {
            // ns-3 keeps whole segments of the flight.
            (w.floor() * (1.0 - self.b)).max(2.0).floor()
        } else {
            (w * (1.0 - self.b)).max(2.0)
        };
        Reaction::cut((segs * mss) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::super::CongestionKind;
    use super::*;
    use std::collections::BTreeMap;

    fn scalable(ns3: bool) -> Scalable {
        let mut m = BTreeMap::new();
        m.insert("ns3".to_string(), ns3 as u8 as f64);
        Scalable::new(&mut Params::new(&m)).unwrap()
    }

    fn acks(s: &mut Scalable, st: &mut CcState, n: usize) {
        for _ in 0..n {
            s.on_ack(
                &AckInfo {
                    acked_bytes: st.mss,
                    ..Default::default()
                },
                st,
            );
        }
    }

    fn cut(s: &mut Scalable, w: u64) -> u64 {
        let st = CcState {
            cwnd: w * 1000,
            ssthresh: 1,
            mss: 1000,
        };
        let ev = CongestionEvent::at(0, CongestionKind::DupAcks, w * 1000);
        s.on_congestion(&ev, &st).ssthresh
    }

    #[test]
    fn each_ack_adds_a_hundredth_and_a_loss_takes_an_eighth() {
        let mut s = scalable(false);
        let mut st = CcState {
            cwnd: 200_000,
            ssthresh: 1,
            mss: 1000,
        };
        // 200 ACKs add 200 x 0.01 = 2 segments, whatever the window.
        acks(&mut s, &mut st, 200);
        assert_eq!(st.cwnd, 202_000);
        assert_eq!(cut(&mut s, 200), 175_000);
        // Legacy region: halving, and one segment per window of ACKs.
        assert_eq!(cut(&mut s, 10), 5_000);
        let mut st = CcState {
            cwnd: 10_000,
            ssthresh: 1,
            mss: 1000,
        };
        acks(&mut s, &mut st, 10);
        assert!((10_900..=11_000).contains(&st.cwnd), "{}", st.cwnd);
    }

    #[test]
    fn recovery_time_is_independent_of_the_window() {
        // Rounds for the window to regrow from (1 - b) w to w: log(1/(1-b)) / log(1+a).
        for w0 in [100u64, 1000] {
            let mut s = scalable(false);
            let mut st = CcState {
                cwnd: cut(&mut s, w0),
                ssthresh: 1,
                mss: 1000,
            };
            let mut rounds = 0;
            while st.cwnd < w0 * 1000 {
                let n = (st.cwnd / 1000) as usize;
                acks(&mut s, &mut st, n);
                rounds += 1;
            }
            let want = (1.0f64 / 0.875).ln() / 1.01f64.ln();
            assert!(
                (rounds as f64 - want).abs() <= 1.0,
                "w {w0}: {rounds} vs {want}"
            );
        }
    }

    #[test]
    fn ns3_counts_min_cwnd_50_acks_per_segment() {
        let mut s = scalable(true);
        let mut st = CcState {
            cwnd: 200_000,
            ssthresh: 1,
            mss: 1000,
        };
        acks(&mut s, &mut st, 100);
        assert_eq!(st.cwnd, 202_000, "one segment per 50 ACKs");
        let mut st = CcState {
            cwnd: 20_000,
            ssthresh: 1,
            mss: 1000,
        };
        acks(&mut s, &mut st, 20);
        assert_eq!(st.cwnd, 21_000, "one per cwnd ACKs below 50");
        assert_eq!(cut(&mut s, 10), 8_000, "floor(10 x 0.875) = 8 segments");
    }

    #[test]
    fn ns3_count_drops_the_remainder_at_each_increase() {
        // 5 segments, ACKs of 2: the count reads 2, 4, 6 ≥ 5 → 6 segments, count 0 (the
        // sixth segment's credit dropped, where a carried remainder would keep 1); then w = 6:
        // 2, 4, 6 → 7 segments. Six ACKs, two segments.
        let mut st = CcState {
            cwnd: 5000,
            ssthresh: 1,
            mss: 1000,
        };
        let mut count = 0.0;
        for _ in 0..6 {
            ns3_increase(&mut count, &mut st, 2.0, 50.0);
        }
        assert_eq!((st.cwnd, count), (7000, 0.0));
        // A count left at the window or above (by a cut) adds a segment first.
        let mut count = 7.0;
        st.cwnd = 5000;
        ns3_increase(&mut count, &mut st, 2.0, 50.0);
        assert_eq!((st.cwnd, count), (6000, 2.0));
        // Above AIFactor the step is AIFactor ACKed segments: 100 at 200 segments adds 2.
        let mut count = 0.0;
        st.cwnd = 200_000;
        ns3_increase(&mut count, &mut st, 100.0, 50.0);
        assert_eq!(st.cwnd, 202_000);
    }
}
