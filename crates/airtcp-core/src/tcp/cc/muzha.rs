//! TCP Muzha (Lien & Hsiao, seed paper 003): router-assisted congestion control. Routers stamp
//! the smallest Data Rate Adjustment Index (DRAI, 1-5) along the path into each data segment's
//! MRAI field (`hook::Drai`); the receiver echoes it; the sender, which starts directly in
//! congestion avoidance (no slow start), applies the paper's Table 3 once per round trip with
//! the MRAI of the latest ACK:
//!
//! | MRAI | cwnd |
//! |---|---|
//! | 5 aggressive acceleration | × 2 |
//! | 4 moderate acceleration | + 1 segment |
//! | 3 stabilizing | unchanged |
//! | 2 moderate deceleration | − 1 segment |
//! | 1 aggressive deceleration | × 1/2 |
//!
//! Losses (Table 1): three duplicate ACKs whose MRAI is a deceleration index (≤ 2, "marked")
//! are congestion: cwnd is halved and fast retransmit/recovery follows; unmarked duplicate
//! ACKs are a random loss: the segment is retransmitted and the window kept. A timeout sets
//! cwnd to one segment, back in congestion avoidance. An ACK without an MRAI (no Muzha router
//! on the path) counts as the maximum, 5, the value the sender writes.

use super::rttround::RttRounds;
use super::{
    half_flight, AckInfo, CcState, CongestionControl, CongestionEvent, CongestionKind, LossClass,
    Params, Reaction,
};
use crate::engine::Time;

#[derive(Clone, Debug)]
pub struct Muzha {
    rounds: RttRounds,
    /// MRAI of the latest ACK (1-5).
    pub mrai: u8,
    started: bool,
    /// Per-round adjustments made, by MRAI.
    pub adjustments: [u64; 5],
}

impl Muzha {
    pub fn new(_p: &mut Params) -> Result<Self, (String, String)> {
        Ok(Muzha {
            rounds: RttRounds::default(),
            mrai: 5,
            started: false,
            adjustments: [0; 5],
        })
    }

    /// Table 3 applied to `cwnd` (bytes).
    pub fn adjust(mrai: u8, cwnd: u64, mss: u64) -> u64 {
        let w = match mrai {
            5 => cwnd.saturating_mul(2),
            4 => cwnd + mss,
            3 => cwnd,
            2 => cwnd.saturating_sub(mss),
            _ => cwnd / 2,
        };
        w.max(mss)
    }
}

impl CongestionControl for Muzha {
    fn on_ack_header(&mut self, ack: &AckInfo) {
        self.mrai = ack
            .rate_index
            .map_or(5, |r| r.round().clamp(1.0, 5.0) as u8);
    }

    fn on_sent(&mut self, _now: Time, _bytes: u64, st: &mut CcState) {
        if !self.started {
            // Congestion avoidance from the first segment: no slow-start threshold above cwnd.
            self.started = true;
            st.ssthresh = st.cwnd;
        }
    }

    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        let closed = self.rounds.on_ack(ack);
        if !closed || ack.no_growth() {
            return;
        }
        self.adjustments[self.mrai as usize - 1] += 1;
        // The window can never be used beyond what the receiver advertises.
        let cap = ack.rwnd.max(st.mss);
        st.cwnd = Self::adjust(self.mrai, st.cwnd, st.mss).min(cap.max(st.cwnd));
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        match ev.kind {
            CongestionKind::DupAcks if self.mrai <= 2 => {
                Reaction::cut((st.cwnd / 2).max(2 * st.mss)).judged(LossClass::Congestion)
            }
            CongestionKind::DupAcks => Reaction::keep().judged(LossClass::Wireless),
            CongestionKind::Timeout => Reaction {
                ssthresh: half_flight(ev.in_flight, st.mss),
                cwnd: Some(st.mss),
                verdict: None,
                keep_window: false,
            },
            _ => Reaction::cut(half_flight(ev.in_flight, st.mss)),
        }
    }

    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        const NAMES: [&str; 5] = [
            "muzha_rounds_mrai1",
            "muzha_rounds_mrai2",
            "muzha_rounds_mrai3",
            "muzha_rounds_mrai4",
            "muzha_rounds_mrai5",
        ];
        for (k, n) in NAMES.iter().enumerate() {
            out.push((n, self.adjustments[k] as f64));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_3() {
        let m = 1000;
        assert_eq!(Muzha::adjust(5, 4000, m), 8000);
        assert_eq!(Muzha::adjust(4, 4000, m), 5000);
        assert_eq!(Muzha::adjust(3, 4000, m), 4000);
        assert_eq!(Muzha::adjust(2, 4000, m), 3000);
        assert_eq!(Muzha::adjust(1, 4000, m), 2000);
        // Never below one segment.
        assert_eq!(Muzha::adjust(2, 1000, m), 1000);
        assert_eq!(Muzha::adjust(1, 1000, m), 1000);
    }

    fn ev(kind: CongestionKind) -> CongestionEvent {
        CongestionEvent {
            now: 0,
            kind,
            in_flight: 8000,
            flight_size: 8000,
            min_rtt: None,
            true_cause: None,
        }
    }

    #[test]
    fn marked_duplicate_acks_halve_unmarked_keep_timeouts_reset() {
        let p = std::collections::BTreeMap::new();
        let mut c = Muzha::new(&mut Params::new(&p)).unwrap();
        let st = CcState {
            cwnd: 8000,
            ssthresh: 8000,
            mss: 1000,
        };
        let hdr = |r: Option<f32>| AckInfo {
            rate_index: r,
            ..Default::default()
        };
        c.on_ack_header(&hdr(Some(2.0)));
        let r = c.on_congestion(&ev(CongestionKind::DupAcks), &st);
        assert_eq!((r.ssthresh, r.keep_window), (4000, false));
        assert_eq!(r.verdict, Some(LossClass::Congestion));
        c.on_ack_header(&hdr(Some(3.0)));
        let r = c.on_congestion(&ev(CongestionKind::DupAcks), &st);
        assert!(r.keep_window);
        assert_eq!(r.verdict, Some(LossClass::Wireless));
        // No router on the path: the sender's own maximum, an unmarked loss.
        c.on_ack_header(&hdr(None));
        assert_eq!(c.mrai, 5);
        let r = c.on_congestion(&ev(CongestionKind::Timeout), &st);
        assert_eq!(r.cwnd, Some(1000));
    }
}
