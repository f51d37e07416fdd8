//! DCTCP (RFC 8257). Routers mark CE when the instantaneous queue exceeds K (the
//! `ecn_threshold` queue); the receiver echoes each segment's mark, and the sender estimates
//! the fraction α of marked data once per window (section 3.3):
//! - per ACK, BytesAcked += newly acknowledged bytes, and BytesMarked too if the ACK echoes CE;
//! - when the ACK passes WindowEnd: M = BytesMarked/BytesAcked, α ← (1 − g)·α + g·M,
//!   WindowEnd = SND.NXT, both counts reset; g = 1/16;
//! - on an ACK echoing CE, at most once per window: cwnd ← cwnd·(1 − α/2), ssthresh = cwnd;
//! - window growth and the reaction to loss are standard TCP's (section 3.5: halving).
//!
//! α starts at 1 (the conservative choice: the first marked window halves, as a standard ECN
//! sender would). Marks are read from each ACK's echoed codepoint; the receiver runs RFC 8257
//! section 3.2's state machine (`ce_state_acks`: an ACK at once at each change of CE state,
//! the one owed before it with the old state; ns-3's variant under `ns3`).
//!
//! `ns3 = 1` (the `ns3` profile's default) follows ns-3.44's `TcpDctcp`: `GetSsThresh`
//! answers a loss with the same (1 − α/2) cut instead of halving; the window grows as its
//! parent `TcpLinuxReno` grows it (slow start by every ACKed segment, congestion avoidance one
//! segment per window of ACKed segments, counted in whole segments: with delayed ACKs twice
//! the rate of SMSS²/cwnd per ACK); and it does not grow while the reduction's window (ns-3's
//! CA_CWR state, until the ACK passes the data sent at the cut) lasts. Its observation window
//! (`PktsAcked`) ends at an ACK that reaches the sequence number sent at its start (RFC 8257
//! step 4: one that passes it), and an ACK that does not advance counts one segment
//! (`ProcessAck` calls `PktsAcked` with 1 for it), marked if it echoes CE.

use super::{
    half_flight, reno_increase, AckInfo, CcState, CongestionControl, CongestionEvent, ParamSpec,
    Params, Reaction,
};
use crate::engine::Time;

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::new("g", 0.0625, "g, the gain of the marked-fraction EWMA"),
    ParamSpec::new("alpha_init", 1.0, "initial alpha"),
    ParamSpec::ns3(
        "ns3",
        0.0,
        1.0,
        "1: ns-3's TcpDctcp (a loss cuts by alpha/2 too, TcpLinuxReno growth, none while cutting; the observation window ends at the ACK that reaches its end, an ACK that does not advance counts a segment)",
    ),
];

/// The echoed codepoint of a CE-marked segment.
const CE: u8 = 0b11;

#[derive(Clone, Debug)]
pub struct Dctcp {
    g: f64,
    ns3: bool,
    pub alpha: f64,
    bytes_acked: u64,
    bytes_marked: u64,
    window_end: Option<u64>,
    /// No cut until the ACK passes this (the data sent when the last cut was made).
    cut_end: Option<u64>,
    ce: bool,
    /// The highest cumulative ACK seen (`ns3`: an ACK that does not advance it counts a
    /// segment).
    last_ack: u64,
    pub reductions: u64,
    /// ACKed segments counted toward the next segment of growth (`ns3`).
    cnt: u64,
}

impl Dctcp {
    pub fn new(p: &mut Params) -> Result<Self, (String, String)> {
        let g = p.spec(PARAMS, "g")?;
        let alpha = p.spec(PARAMS, "alpha_init")?;
        let ns3 = p.flag(PARAMS, "ns3")?;
        if !(0.0 < g && g <= 1.0) {
            return Err(("g".into(), format!("must be in (0, 1], got {g}")));
        }
        if !(0.0..=1.0).contains(&alpha) {
            return Err((
                "alpha_init".into(),
                format!("must be in [0, 1], got {alpha}"),
            ));
        }
        Ok(Dctcp {
            g,
            ns3,
            alpha,
            bytes_acked: 0,
            bytes_marked: 0,
            window_end: None,
            cut_end: None,
            ce: false,
            last_ack: 0,
            reductions: 0,
            cnt: 0,
        })
    }
}

impl Dctcp {
    /// ns-3's `TcpLinuxReno::IncreaseWindow`: whole ACKed segments, slow start up to ssthresh,
    /// then a segment each time the count reaches the window in segments.
    fn linux_reno_increase(&mut self, ack: &AckInfo, st: &mut CcState) {
        if ack.no_growth() {
            return;
        }
        let segs = ((ack.acked_bytes as f64 / st.mss as f64).round() as u64).max(1);
        if st.cwnd < st.ssthresh {
            st.cwnd = (st.cwnd + segs * st.mss).min(st.ssthresh.max(st.cwnd));
            return;
        }
        let w = (st.cwnd / st.mss).max(1);
        if self.cnt >= w {
            self.cnt = 0;
            st.cwnd += st.mss;
        }
        self.cnt += segs;
        if self.cnt >= w {
            let delta = self.cnt / w;
            self.cnt -= delta * w;
            st.cwnd += delta * st.mss;
        }
    }
}

impl CongestionControl for Dctcp {
    fn multilevel_ecn(&self) -> bool {
        // Reads each ACK's echoed codepoint itself instead of RFC 3168's sticky ECN-Echo.
        true
    }

    fn ce_state_acks(&self) -> Option<crate::tcp::receiver::CeAcks> {
        use crate::tcp::receiver::CeAcks;
        Some(if self.ns3 { CeAcks::Ns3 } else { CeAcks::Rfc })
    }

    fn on_feedback(&mut self, _now: Time, codepoint: u8) {
        self.ce = codepoint == CE;
    }

    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        let snd_nxt = ack.ack_seq + ack.in_flight;
        // ns-3's ProcessAck hands PktsAcked one segment for an ACK that does not advance.
        let counted = if self.ns3 && ack.ack_seq <= self.last_ack && ack.in_flight > 0 {
            st.mss
        } else {
            ack.acked_bytes
        };
        self.last_ack = self.last_ack.max(ack.ack_seq);
        if counted > 0 {
            self.bytes_acked += counted;
            if self.ce {
                self.bytes_marked += counted;
            }
            // The first window ends at what was sent when the first ACK came.
            let end = *self.window_end.get_or_insert(snd_nxt);
            match end {
                // RFC 8257 3.3 step 4: the window ends once the ACK passes its end; ns-3's
                // PktsAcked once it reaches it.
                end if ack.ack_seq > end || (self.ns3 && ack.ack_seq >= end) => {
                    let m = self.bytes_marked as f64 / self.bytes_acked as f64;
                    self.alpha = (1.0 - self.g) * self.alpha + self.g * m;
                    self.window_end = Some(snd_nxt);
                    self.bytes_acked = 0;
                    self.bytes_marked = 0;
                }
                _ => {}
            }
        }
        if self.ce && !ack.in_recovery && self.cut_end.is_none_or(|e| ack.ack_seq > e) {
            let cwnd = ((st.cwnd as f64 * (1.0 - self.alpha / 2.0)) as u64).max(2 * st.mss);
            st.cwnd = cwnd;
            st.ssthresh = cwnd;
            self.cut_end = Some(snd_nxt);
            self.reductions += 1;
            return;
        }
        if self.ns3 {
            if self.cut_end.is_none_or(|e| ack.ack_seq > e) {
                self.linux_reno_increase(ack, st);
            }
            return;
        }
        reno_increase(ack, st);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        if self.ns3 {
            let ss = (st.cwnd as f64 * (1.0 - self.alpha / 2.0)) as u64;
            return Reaction::cut(ss.max(2 * st.mss));
        }
        Reaction::cut(half_flight(ev.in_flight, st.mss))
    }

    fn mark_reductions(&self) -> u64 {
        self.reductions
    }

    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("dctcp_alpha", self.alpha));
    }
}

#[cfg(test)]
mod tests {
    use super::super::CongestionKind;
    use super::*;
    use std::collections::BTreeMap;

    fn dctcp(ns3: bool) -> Dctcp {
        let mut m = BTreeMap::new();
        m.insert("ns3".to_string(), ns3 as u8 as f64);
        Dctcp::new(&mut Params::new(&m)).unwrap()
    }

    /// One window of `n` one-segment ACKs from `seq`, the first `marked` echoing CE.
    fn window(d: &mut Dctcp, st: &mut CcState, seq: &mut u64, n: u64, marked: u64) {
        for k in 0..n {
            d.on_feedback(0, if k < marked { CE } else { 0b01 });
            *seq += 1000;
            d.on_ack(
                &AckInfo {
                    acked_bytes: 1000,
                    ack_seq: *seq,
                    in_flight: n * 1000,
                    ..Default::default()
                },
                st,
            );
        }
    }

    #[test]
    fn alpha_is_an_ewma_of_the_marked_fraction_with_gain_one_sixteenth() {
        let mut d = dctcp(false);
        let mut st = CcState {
            cwnd: 10_000,
            ssthresh: 1,
            mss: 1000,
        };
        let mut seq = 0;
        // Opening ACK sets WindowEnd; then unmarked windows decay alpha by 15/16 each.
        window(&mut d, &mut st, &mut seq, 1, 0);
        let mut want = 1.0;
        for _ in 0..5 {
            window(&mut d, &mut st, &mut seq, 10, 0);
            want *= 15.0 / 16.0;
        }
        assert!((d.alpha - want).abs() < 0.02, "{} vs {want}", d.alpha);
        // A window with 4 of 10 segments marked: alpha = 15/16 alpha + 0.4/16 (measured
        // on the window's ACKs as closed by the next ACK past WindowEnd).
        let a0 = d.alpha;
        window(&mut d, &mut st, &mut seq, 10, 4);
        window(&mut d, &mut st, &mut seq, 1, 0);
        let want = 15.0 / 16.0 * a0 + 0.4 / 16.0;
        assert!((d.alpha - want).abs() < 0.01, "{} vs {want}", d.alpha);
    }

    #[test]
    fn a_marked_window_cuts_by_alpha_over_two_once() {
        let mut d = dctcp(false);
        d.alpha = 0.25;
        d.window_end = Some(1 << 40);
        let mut st = CcState {
            cwnd: 100_000,
            ssthresh: 1,
            mss: 1000,
        };
        let mut seq = 0;
        window(&mut d, &mut st, &mut seq, 10, 10);
        // One cut by alpha/2 = 12.5%, then Reno growth on the other ACKs of the window.
        assert_eq!(d.reductions, 1);
        assert!(
            (87_500..=87_500 + 10 * 12).contains(&st.cwnd),
            "{}",
            st.cwnd
        );
        assert_eq!(st.ssthresh, 87_500);
    }

    #[test]
    fn a_loss_halves_unless_ns3() {
        let st = CcState {
            cwnd: 100_000,
            ssthresh: 1,
            mss: 1000,
        };
        let ev = CongestionEvent::at(0, CongestionKind::DupAcks, 100_000);
        let mut d = dctcp(false);
        d.alpha = 0.2;
        assert_eq!(d.on_congestion(&ev, &st).ssthresh, 50_000);
        let mut n = dctcp(true);
        n.alpha = 0.2;
        assert_eq!(n.on_congestion(&ev, &st).ssthresh, 90_000);
    }

    #[test]
    fn ns3_grows_as_linux_reno_and_not_in_the_reduction_window() {
        let mut m = BTreeMap::new();
        m.insert("ns3".to_string(), 1.0);
        let mut d = Dctcp::new(&mut Params::new(&m)).unwrap();
        let mut st = CcState {
            cwnd: 10_000,
            ssthresh: 1 << 40,
            mss: 1000,
        };
        // Slow start: a delayed ACK of two segments adds two.
        let a = AckInfo {
            acked_bytes: 2000,
            ack_seq: 2000,
            in_flight: 10_000,
            ..Default::default()
        };
        d.on_ack(&a, &mut st);
        assert_eq!(st.cwnd, 12_000);
        // Congestion avoidance at 12 segments: six ACKs of two segments add one.
        st.ssthresh = 12_000;
        for k in 0..6 {
            let a = AckInfo {
                ack_seq: 4000 + 2000 * k,
                ..a
            };
            d.on_ack(&a, &mut st);
        }
        assert_eq!(st.cwnd, 13_000);
        // A marked ACK cuts; the next ones, for data sent before the cut, do not grow.
        d.on_feedback(0, CE);
        let a = AckInfo {
            ack_seq: 20_000,
            ..a
        };
        d.on_ack(&a, &mut st);
        let cut = st.cwnd;
        assert!(cut < 13_000);
        d.on_feedback(0, 0);
        // (The cut was made with 30_000 sent.)
        for k in 1..=5 {
            let a = AckInfo {
                ack_seq: 20_000 + 2000 * k,
                ..a
            };
            d.on_ack(&a, &mut st);
        }
        assert_eq!(st.cwnd, cut);
    }

    #[test]
    fn ns3_window_ends_when_the_ack_reaches_it_and_a_duplicate_counts_a_segment() {
        // RFC 8257 3.3 step 4 ends the observation window at an ACK that passes its end;
        // ns-3.44's PktsAcked at one that reaches it (m_lastAckedSeq >= m_nextSeq). One
        // unmarked window of 10 segments: ns-3 updates alpha on its last ACK.
        for ns3 in [false, true] {
            let mut d = dctcp(ns3);
            let mut st = CcState {
                cwnd: 10 * 1000,
                ssthresh: u64::MAX,
                mss: 1000,
            };
            for k in 1..=10u64 {
                let a = AckInfo {
                    ack_seq: k * 1000,
                    acked_bytes: 1000,
                    in_flight: (10 - k) * 1000,
                    ..Default::default()
                };
                d.on_ack(&a, &mut st);
            }
            let want = if ns3 { 1.0 - 1.0 / 16.0 } else { 1.0 };
            assert_eq!(d.alpha, want, "ns3 = {ns3}");
        }
        // ns-3's ProcessAck hands PktsAcked one segment for an ACK that does not advance.
        let mut d = dctcp(true);
        let mut st = CcState {
            cwnd: 10 * 1000,
            ssthresh: u64::MAX,
            mss: 1000,
        };
        let a = AckInfo {
            ack_seq: 1000,
            acked_bytes: 1000,
            in_flight: 9000,
            ..Default::default()
        };
        d.on_ack(&a, &mut st);
        let dup = AckInfo {
            ack_seq: 1000,
            in_flight: 9000,
            ..Default::default()
        };
        d.on_ack(&dup, &mut st);
        assert_eq!(d.bytes_acked, 2000);
    }
}
