//! HighSpeed TCP (RFC 3649, Floyd 2003). Above Low_Window segments the window grows by
//! a(w)/w per ACK and is cut to (1 − b(w))·w on congestion, with
//! - b(w) = (High_Decrease − 0.5)·(ln w − ln Low_Window)/(ln High_Window − ln Low_Window) + 0.5
//!   (section 5),
//! - p(w) = 0.078/w^1.2, the response function w = 0.12/p^0.835 (sections 5 and 6),
//! - a(w) = w²·p(w)·2·b(w)/(2 − b(w)) (section 5),
//!
//! and Low_Window = 38, High_Window = 83000, High_P = 10⁻⁷, High_Decrease = 0.1. At or below
//! Low_Window it is standard TCP (a = 1, b = 0.5). Windows are in segments.
//!
//! `table = 1` uses instead the rounded a(w), b(w) table of RFC 3649 Appendix B (72
//! intervals, as Linux's `hstcp_aimd_vals` and ns-3.44's `TcpHighSpeed::TableLookupA/B`),
//! the default under the `ns3` profile, with ns-3's arithmetic: the window counted in whole
//! segments (a(W) per ACKed segment, W truncated; a segment added when the count reaches W)
//! and ssthresh in whole segments of the flight.

use super::{AckInfo, CcState, CongestionControl, CongestionEvent, ParamSpec, Params, Reaction};

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::new("low_window", 38.0, "Low_Window: standard TCP at or below this many segments"),
    ParamSpec::new("high_window", 83000.0, "High_Window: the window (segments) where b reaches high_decrease"),
    ParamSpec::new("high_decrease", 0.1, "High_Decrease: b(High_Window)"),
    ParamSpec::ns3("table", 0.0, 1.0, "1: the rounded a(w)/b(w) table of RFC 3649 Appendix B (ns-3's and Linux's) instead of the formulas, counted in whole segments as ns-3"),
];

/// Upper window bounds (segments) of RFC 3649 Appendix B's intervals; interval i has
/// a = i + 1 and b = TABLE_B[i]; past the last bound a = 73, b = 0.09.
const TABLE_W: [u32; 72] = [
    38, 118, 221, 347, 495, 663, 851, 1058, 1284, 1529, 1793, 2076, 2378, 2699, 3039, 3399, 3778,
    4177, 4596, 5036, 5497, 5979, 6483, 7009, 7558, 8130, 8726, 9346, 9991, 10661, 11358, 12082,
    12834, 13614, 14424, 15265, 16137, 17042, 17981, 18955, 19965, 21013, 22101, 23230, 24402,
    25618, 26881, 28193, 29557, 30975, 32450, 33986, 35586, 37253, 38992, 40808, 42707, 44694,
    46776, 48961, 51258, 53667, 56230, 58932, 61799, 64851, 68113, 71617, 75401, 79517, 84035,
    89053,
];
const TABLE_B: [f64; 72] = [
    0.50, 0.44, 0.41, 0.38, 0.37, 0.35, 0.34, 0.33, 0.32, 0.31, 0.30, 0.29, 0.28, 0.28, 0.27, 0.27,
    0.26, 0.26, 0.25, 0.25, 0.24, 0.24, 0.23, 0.23, 0.22, 0.22, 0.22, 0.21, 0.21, 0.21, 0.20, 0.20,
    0.20, 0.19, 0.19, 0.19, 0.19, 0.18, 0.18, 0.18, 0.17, 0.17, 0.17, 0.17, 0.16, 0.16, 0.16, 0.16,
    0.15, 0.15, 0.15, 0.15, 0.14, 0.14, 0.14, 0.14, 0.13, 0.13, 0.13, 0.13, 0.13, 0.12, 0.12, 0.12,
    0.12, 0.11, 0.11, 0.11, 0.10, 0.10, 0.10, 0.10,
];
/// Beyond the table's last bound (ns-3 continues one more interval with a = 73, b = 0.09).
const TABLE_LAST: (u32, f64, f64) = (94717, 73.0, 0.09);

#[derive(Clone, Debug)]
pub struct HighSpeed {
    low_window: f64,
    high_window: f64,
    high_decrease: f64,
    table: bool,
    /// Fractional growth carried between ACKs (segments).
    carry: f64,
}

impl HighSpeed {
    pub fn new(p: &mut Params) -> Result<Self, (String, String)> {
        let low_window = p.spec(PARAMS, "low_window")?;
        let high_window = p.spec(PARAMS, "high_window")?;
        let high_decrease = p.spec(PARAMS, "high_decrease")?;
        let table = p.flag(PARAMS, "table")?;
        if !(1.0 <= low_window && low_window < high_window) {
            return Err((
                "high_window".into(),
                format!("need 1 <= low_window < high_window, got {low_window}, {high_window}"),
            ));
        }
        if !(0.0 < high_decrease && high_decrease <= 0.5) {
            return Err((
                "high_decrease".into(),
                format!("must be in (0, 0.5], got {high_decrease}"),
            ));
        }
        Ok(HighSpeed {
            low_window,
            high_window,
            high_decrease,
            table,
            carry: 0.0,
        })
    }

    /// b(w): the fraction of the window a congestion event takes away.
    pub fn b(&self, w: f64) -> f64 {
        if self.table {
            return lookup(w).1;
        }
        if w <= self.low_window {
            return 0.5;
        }
        (self.high_decrease - 0.5) * (w.ln() - self.low_window.ln())
            / (self.high_window.ln() - self.low_window.ln())
            + 0.5
    }

    /// a(w): segments added per round trip.
    pub fn a(&self, w: f64) -> f64 {
        if self.table {
            return lookup(w).0;
        }
        if w <= self.low_window {
            return 1.0;
        }
        let b = self.b(w);
        w * w * p_of_w(w) * 2.0 * b / (2.0 - b)
    }
}

/// RFC 3649's response function inverted: the loss rate at which the average window is w.
pub fn p_of_w(w: f64) -> f64 {
    0.078 / w.powf(1.2)
}

/// (a, b) of the Appendix B interval holding w (whole segments, as ns-3 counts them).
fn lookup(w: f64) -> (f64, f64) {
    let w = w.floor() as u32;
    match TABLE_W.iter().position(|&hi| w <= hi) {
        Some(i) => ((i + 1) as f64, TABLE_B[i]),
        None if w <= TABLE_LAST.0 => (TABLE_LAST.1, TABLE_LAST.2),
        None => (TABLE_LAST.1, TABLE_LAST.2),
    }
}

impl CongestionControl for HighSpeed {
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        if ack.no_growth() {
            return;
        }
        if st.cwnd < st.ssthresh {
            st.cwnd += ack.acked_bytes.min(st.mss);
            return;
        }
        let mss = st.mss as f64;
        if self.table {
            // ns-3's counting: a(W) per ACKed segment against W, the window truncated to
            // whole segments, which grows a segment each time the count reaches it.
            let mut w = (st.cwnd / st.mss).max(1);
            self.carry += (ack.acked_bytes as f64 / mss).round() * self.a(w as f64);
            let old = w;
            while self.carry >= w as f64 {
                self.carry -= w as f64;
                w += 1;
            }
            if w != old {
                st.cwnd = w * st.mss;
            }
            return;
        }
        let w = st.cwnd as f64 / mss;
        // a(w) segments per window of ACKs: a(w)/w per acknowledged segment.
        self.carry += self.a(w) / w * (ack.acked_bytes as f64 / mss) * mss;
        let whole = self.carry.floor();
        self.carry -= whole;
        st.cwnd += whole as u64;
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        let mss = st.mss as f64;
        let w = ev.in_flight as f64 / mss;
        let ss = if self.table {
            // ns-3 counts whole segments of the flight and keeps whole segments.
            ((w.floor() * (1.0 - self.b(w))).max(2.0)).floor() * mss
        } else {
            (w * (1.0 - self.b(w))).max(2.0) * mss
        };
        // ns-3's `GetSsThresh` leaves its ACK count (`m_ackCnt`) as it is, so what was counted
        // before the loss counts against the smaller window after it.
        if !self.table {
            self.carry = 0.0;
        }
        Reaction::cut(ss as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::super::CongestionKind;
    use super::*;
    use std::collections::BTreeMap;

    fn hs(table: bool) -> HighSpeed {
        let mut m = BTreeMap::new();
        m.insert("table".to_string(), if table { 1.0 } else { 0.0 });
        HighSpeed::new(&mut Params::new(&m)).unwrap()
    }

    #[test]
    fn formulas_match_rfc_3649_appendix_b() {
        // Appendix B lists, e.g., w = 118: a = 2, b = 0.44; w = 1058: a = 8, b = 0.33;
        // w = 10661: a = 30, b = 0.21; w = 84035: a = 71, b = 0.10 (the table's values are
        // the formulas rounded, a at the interval's upper end).
        let h = hs(false);
        for (w, a, b) in [
            (118.0, 2.0, 0.44),
            (1058.0, 8.0, 0.33),
            (10661.0, 30.0, 0.21),
            (84035.0, 71.0, 0.10),
        ] {
            assert!((h.a(w) - a).abs() < 0.5, "a({w}) = {} vs {a}", h.a(w));
            assert!((h.b(w) - b).abs() < 0.006, "b({w}) = {} vs {b}", h.b(w));
        }
        // Standard TCP at and below Low_Window; b(High_Window) = High_Decrease.
        assert_eq!((h.a(38.0), h.b(38.0)), (1.0, 0.5));
        assert!((h.b(83000.0) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn response_function_is_w_equals_point12_over_p_to_0835() {
        // The RFC rounds the inversion (0.078, 1.2 for 0.0789, 1.1976): within 4% up to
        // High_Window, and the ends are Low_P = 10^-3 at 38 and High_P = 10^-7 at 83000.
        for w in [100.0, 1000.0, 38000.0, 83000.0] {
            let p = p_of_w(w);
            assert!((0.12 / p.powf(0.835) / w - 1.0).abs() < 0.04, "w {w}");
        }
        assert!((p_of_w(38.0) / 1e-3 - 1.0).abs() < 0.02);
        assert!((p_of_w(83000.0) / 1e-7 - 1.0).abs() < 0.05);
    }

    #[test]
    fn table_lookup_follows_the_intervals() {
        let h = hs(true);
        assert_eq!((h.a(38.0), h.b(38.0)), (1.0, 0.5));
        assert_eq!((h.a(39.0), h.b(39.0)), (2.0, 0.44));
        assert_eq!((h.a(1058.0), h.b(1058.0)), (8.0, 0.33));
        assert_eq!((h.a(1059.0), h.b(1059.0)), (9.0, 0.32));
        assert_eq!((h.a(1e6), h.b(1e6)), (73.0, 0.09));
    }

    #[test]
    fn a_window_of_acks_adds_a_w_segments_and_a_loss_cuts_by_b_w() {
        let mut h = hs(false);
        let mss = 1000;
        let mut st = CcState {
            cwnd: 1000 * mss,
            ssthresh: 1,
            mss,
        };
        let a = h.a(1000.0);
        for _ in 0..1000 {
            h.on_ack(
                &AckInfo {
                    acked_bytes: mss,
                    ..Default::default()
                },
                &mut st,
            );
        }
        let grown = (st.cwnd - 1000 * mss) as f64 / mss as f64;
        assert!((grown - a).abs() < 0.1, "grew {grown} vs a {a}");
        let ev = CongestionEvent::at(0, CongestionKind::DupAcks, 1000 * mss);
        let r = h.on_congestion(&ev, &st);
        let want = 1000.0 * (1.0 - h.b(1000.0)) * mss as f64;
        assert!((r.ssthresh as f64 - want).abs() < 1.0);
        // Below Low_Window: halving, as standard TCP.
        let ev = CongestionEvent {
            in_flight: 20 * mss,
            ..ev
        };
        assert_eq!(h.on_congestion(&ev, &st).ssthresh, 10 * mss);
    }

    #[test]
    fn table_counts_whole_segments_as_ns3() {
        // W = 100.5 segments counts as 100 (a = 2 up to 118): 50 ACKed segments add one
        // segment, and the window snaps to whole segments.
        let mut h = hs(true);
        let mss = 1000;
        let mut st = CcState {
            cwnd: 100_500,
            ssthresh: 1,
            mss,
        };
        let ack = AckInfo {
            acked_bytes: mss,
            ..Default::default()
        };
        for _ in 0..49 {
            h.on_ack(&ack, &mut st);
        }
        assert_eq!(st.cwnd, 100_500);
        h.on_ack(&ack, &mut st);
        assert_eq!(st.cwnd, 101_000);
    }

    #[test]
    fn table_keeps_its_count_through_a_loss_as_ns3() {
        // ns-3's `GetSsThresh` leaves `m_ackCnt`: the 30 counted from 15 ACKed segments (a = 2
        // at W = 100) survive a loss and count against the smaller window after it.
        let loss = |h: &mut HighSpeed| {
            let st = CcState {
                cwnd: 100_000,
                ssthresh: 1,
                mss: 1000,
            };
            let ev = CongestionEvent::at(0, CongestionKind::DupAcks, 100_000);
            h.on_congestion(&ev, &st).ssthresh
        };
        let ack = AckInfo {
            acked_bytes: 1000,
            ..Default::default()
        };
        for table in [true, false] {
            let mut h = hs(table);
            let mut st = CcState {
                cwnd: 100_000,
                ssthresh: 1,
                mss: 1000,
            };
            for _ in 0..15 {
                h.on_ack(&ack, &mut st);
            }
            let ss = loss(&mut h);
            assert!(ss < 60_000, "a cut by b(100), about 0.44");
            if table {
                assert_eq!(h.carry, 30.0);
            } else {
                assert_eq!(h.carry, 0.0);
            }
        }
    }
}
