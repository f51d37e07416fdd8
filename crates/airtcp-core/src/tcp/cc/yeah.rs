//! YeAH-TCP (Baiocchi, Castellani & Vacirca, "YeAH-TCP: yet another highspeed TCP",
//! PFLDnet 2007). Once per round trip, from the round's minimum RTT and the base RTT:
//! - Q = (RTT_min − RTT_base)·cwnd/RTT_min, the segments the flow keeps queued, and
//!   L = (RTT_min − RTT_base)/RTT_base, the queueing delay relative to the path's;
//! - Fast mode while Q < Q_max = 80 and L < 1/φ (φ = 8): Scalable TCP's increase
//!   (0.01 segment per ACK);
//! - Slow mode otherwise: Reno's increase, and when Q > Q_max a precautionary decongestion
//!   removes min(Q/γ, cwnd/2^ε) segments (γ = 1, ε = 1), not below the Reno estimate
//!   reno_count, with ssthresh = cwnd;
//! - reno_count estimates a competing Reno flow's window (halved at each loss, grown by one
//!   per slow round, reset to 2 after ζ = 50 fast rounds); more than ρ = 16 slow rounds in a
//!   row mean Reno flows share the queue;
//! - on loss, when not competing with Reno: cwnd less max(Q, cwnd/2^δ) (δ = 3), at most half;
//!   when competing: halving.
//!
//! The rounds need more than two RTT samples (so one is not a delayed ACK's).
//!
//! `ns3 = 1` (the `ns3` profile's default) takes Fast mode's increase as ns-3.44's `TcpYeah`
//! does through `TcpScalable` with `StcpAiFactor` 100: one segment per min(cwnd, 100) ACKs
//! (Reno's rate below 100 segments); and, as there, the RTTs of the rounds are the SRTT at
//! every ACK (the socket hands `PktsAcked` its SRTT), so the base and round minimum are the
//! smallest SRTTs and Q and L follow the smoothed delay; and Slow mode starts at any
//! queueing delay (`L > 1/φ` with φ an integer, where 1/φ is 0) and Q is compared in whole
//! segments; on loss ssthresh is the flight less the reduction (half the flight, at least 2
//! segments, when competing with Reno) subtracted in 32 bits, which wraps to about 4 GB when
//! the reduction exceeds the flight. The round (its end, RTT count and minimum) is not
//! restarted by a loss but whenever the sender returns to the open state (`TcpYeah::
//! CongestionStateSet`'s `EnableYeah` on `CA_OPEN`: the end of a recovery or of the
//! retransmissions after a timeout, or an ACK without new SACK information after duplicates),
//! and a round ends at the highest sequence sent.

use super::ns3state::Ns3State;
use super::{
    half_flight, reno_increase, AckInfo, CcState, CongestionControl, CongestionEvent, ParamSpec,
    Params, Reaction,
};
use crate::engine::Time;

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "q_max",
        80.0,
        "Q_max, the segments the flow may keep queued in Fast mode",
    ),
    ParamSpec::new(
        "phi",
        8.0,
        "phi: Fast mode while the queueing delay is below RTT_base/phi",
    ),
    ParamSpec::new("gamma", 1.0, "gamma: decongestion removes Q/gamma"),
    ParamSpec::new(
        "epsilon",
        1.0,
        "epsilon: decongestion removes at most cwnd/2^epsilon",
    ),
    ParamSpec::new("delta", 3.0, "delta: a loss removes at least cwnd/2^delta"),
    ParamSpec::new(
        "rho",
        16.0,
        "rho: slow rounds in a row that mean Reno competition",
    ),
    ParamSpec::new(
        "zeta",
        50.0,
        "zeta: fast rounds after which reno_count resets",
    ),
    ParamSpec::new(
        "stcp_a",
        0.01,
        "Fast mode's Scalable increase per ACK (segments)",
    ),
    ParamSpec::ns3(
        "ns3",
        0.0,
        1.0,
        "1: ns-3's TcpYeah (Fast mode a segment per min(cwnd, 100) ACKs, RTTs from the SRTT, Slow mode at any queueing delay)",
    ),
];

#[derive(Clone, Debug)]
pub struct Yeah {
    q_max: f64,
    phi: f64,
    gamma: f64,
    epsilon: u32,
    delta: u32,
    rho: u32,
    zeta: u32,
    stcp_a: f64,
    ns3: bool,
    base_rtt: Option<Time>,
    round_min: Option<Time>,
    cnt_rtt: u32,
    round_end: Option<u64>,
    /// Consecutive slow rounds (the paper's doing_reno_now).
    pub slow_rounds: u32,
    pub reno_count: u64,
    fast_count: u32,
    last_q: u64,
    pub decongestions: u64,
    carry: f64,
    ns3_state: Ns3State,
}

impl Yeah {
    pub fn new(p: &mut Params) -> Result<Self, (String, String)> {
        let q_max = p.spec(PARAMS, "q_max")?;
        let phi = p.spec(PARAMS, "phi")?;
        let gamma = p.spec(PARAMS, "gamma")?;
        let epsilon = p.spec(PARAMS, "epsilon")?;
        let delta = p.spec(PARAMS, "delta")?;
        let rho = p.spec(PARAMS, "rho")?;
        let zeta = p.spec(PARAMS, "zeta")?;
        let stcp_a = p.spec(PARAMS, "stcp_a")?;
        let ns3 = p.flag(PARAMS, "ns3")?;
        for (k, v) in [
            ("q_max", q_max),
            ("phi", phi),
            ("gamma", gamma),
            ("stcp_a", stcp_a),
        ] {
            if v <= 0.0 {
                return Err((k.into(), format!("must be > 0, got {v}")));
            }
        }
        for (k, v) in [("epsilon", epsilon), ("delta", delta)] {
            if !(0.0..=16.0).contains(&v) {
                return Err((k.into(), format!("must be in [0, 16], got {v}")));
            }
        }
        Ok(Yeah {
            q_max,
            phi,
            gamma,
            epsilon: epsilon as u32,
            delta: delta as u32,
            rho: rho.max(0.0) as u32,
            zeta: zeta.max(0.0) as u32,
            stcp_a,
            ns3,
            base_rtt: None,
            round_min: None,
            cnt_rtt: 0,
            round_end: None,
            slow_rounds: 0,
            reno_count: 2,
            fast_count: 0,
            last_q: 0,
            decongestions: 0,
            carry: 0.0,
            ns3_state: Ns3State::Open,
        })
    }

    /// (Q, L) for a round with minimum `rtt_min`, base `base` and window `w` segments.
    pub fn queue(w: f64, rtt_min: Time, base: Time) -> (f64, f64) {
        let q_delay = rtt_min.saturating_sub(base) as f64;
        (q_delay * w / rtt_min as f64, q_delay / base as f64)
    }

    /// Slow mode above this queueing delay (relative to the base RTT): the paper's 1/φ; ns-3
    /// divides 1 by its integer φ in integers, 0 for any φ above 1, so any queueing delay
    /// at all means Slow mode there.
    pub fn l_max(&self) -> f64 {
        if self.ns3 {
            (1.0 / self.phi).floor()
        } else {
            1.0 / self.phi
        }
    }

    /// ns-3's reduction on loss, in segments of a flight of `w` (`TcpYeah::GetSsThresh`):
    /// the paper's when not competing with Reno, else half the flight, at least 2.
    fn ns3_reduction(&self, w: u64) -> u64 {
        if self.slow_rounds < self.rho {
            self.last_q.max(w >> self.delta).min((w >> 1).max(2))
        } else {
            (w >> 1).max(2)
        }
    }

    /// ns-3's ssthresh: the flight less the reduction, at least 2 segments, subtracted in 32
    /// bits, so a reduction larger than the flight (2 segments of a 1-segment flight) wraps
    /// to about 4 GB, which ends recovery with a window only the receiver's limits.
    pub fn ns3_ssthresh(flight: u64, mss: u64, reduction: u64) -> u64 {
        let left = (flight as u32).wrapping_sub((reduction * mss) as u32);
        u64::from(left).max(2 * mss)
    }

    /// The once-per-round decision; may lower the window.
    fn end_round(&mut self, st: &mut CcState) {
        let (Some(rmin), Some(base)) = (self.round_min, self.base_rtt) else {
            return;
        };
        let mut w = st.cwnd / st.mss;
        let (mut q, l) = Yeah::queue(w as f64, rmin, base);
        let q_whole = q as u64;
        if self.ns3 {
            // ns-3 keeps the backlog as a whole number of segments.
            q = q.floor();
        }
        if q > self.q_max || l > self.l_max() {
            // Slow mode.
            if q > self.q_max && w > self.reno_count {
                let reduction = ((q / self.gamma) as u64).min(w >> self.epsilon);
                w = (w - reduction).max(self.reno_count);
                st.cwnd = w * st.mss;
                st.ssthresh = st.cwnd;
                self.decongestions += 1;
            }
            if self.reno_count <= 2 {
                self.reno_count = (w >> 1).max(2);
            } else {
                self.reno_count += 1;
            }
            self.slow_rounds += 1;
        } else {
            self.fast_count += 1;
            if self.fast_count > self.zeta {
                self.reno_count = 2;
                self.fast_count = 0;
            }
            self.slow_rounds = 0;
        }
        self.last_q = q_whole;
    }
}

impl CongestionControl for Yeah {
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        // ns-3 hands PktsAcked the SRTT, at every ACK.
        let sample = if self.ns3 { ack.srtt } else { ack.rtt };
        if let Some(r) = sample.filter(|&r| r > 0) {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
            self.round_min = Some(self.round_min.map_or(r, |m| m.min(r)));
            self.cnt_rtt += 1;
        }
        if self.ns3 && self.ns3_state.on_ack(ack) {
            // EnableYeah: a new round from the highest sequence sent, without this ACK's
            // sample.
            self.round_end = Some(ack.snd_nxt);
            self.cnt_rtt = 0;
            self.round_min = None;
        }
        // ns-3 grows the window (and checks the round) only in Open and Loss, not on an ACK
        // that leaves it in Disorder.
        let disorder = self.ns3 && self.ns3_state == Ns3State::Disorder;
        if ack.no_growth() || disorder {
            return;
        }
        let mss = st.mss as f64;
        if st.cwnd < st.ssthresh {
            st.cwnd += ack.acked_bytes.min(st.mss);
        } else if self.slow_rounds == 0 {
            // Fast mode: Scalable TCP.
            let acked = ack.acked_bytes as f64 / mss;
            if self.ns3 {
                super::scalable::ns3_increase(&mut self.carry, st, acked.round(), 100.0);
                self.round_check(ack, st);
                return;
            }
            let inc = self.stcp_a * acked;
            self.carry += inc * mss;
            let whole = self.carry.floor();
            self.carry -= whole;
            st.cwnd += whole as u64;
        } else {
            reno_increase(ack, st);
        }
        self.round_check(ack, st);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        self.ns3_state.on_congestion(ev.kind);
        self.on_loss(ev, st)
    }

    fn on_recovery_exit(&mut self, _now: Time, _st: &mut CcState) {
        // The ACK that ended the recovery arrives at on_ack next and restarts the round.
        self.ns3_state.on_recovery_exit();
    }

    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("yeah_decongestions", self.decongestions as f64));
    }
}

impl Yeah {
    /// Ends the round at the ACK that passes the data outstanding when it began.
    fn round_check(&mut self, ack: &AckInfo, st: &mut CcState) {
        if self.round_end.is_none_or(|e| ack.ack_seq >= e) {
            if self.round_end.is_some() && self.cnt_rtt > 2 {
                self.end_round(st);
            }
            self.round_end = Some(if self.ns3 {
                // ns-3's m_nextTxSequence.
                ack.snd_nxt
            } else {
                ack.ack_seq + ack.in_flight
            });
            self.cnt_rtt = 0;
            self.round_min = None;
        }
    }

    fn on_loss(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        let w = ev.in_flight / st.mss;
        let ss = if self.ns3 {
            Self::ns3_ssthresh(ev.in_flight, st.mss, self.ns3_reduction(w))
        } else if self.slow_rounds < self.rho {
            let reduction = self.last_q.max(w >> self.delta).min((w >> 1).max(2));
            (ev.in_flight.saturating_sub(reduction * st.mss)).max(2 * st.mss)
        } else {
            half_flight(ev.in_flight, st.mss)
        };
        self.fast_count = 0;
        self.reno_count = (self.reno_count >> 1).max(2);
        if !self.ns3 {
            self.round_end = None;
            self.cnt_rtt = 0;
            self.round_min = None;
            // ns-3's Scalable count is never told of a loss.
            self.carry = 0.0;
        }
        Reaction::cut(ss)
    }
}

#[cfg(test)]
mod tests {
    use super::super::CongestionKind;
    use super::*;
    use crate::engine::MS;
    use std::collections::BTreeMap;

    fn yeah() -> Yeah {
        Yeah::new(&mut Params::new(&BTreeMap::new())).unwrap()
    }

    #[test]
    fn queue_estimate_is_queueing_delay_times_rate() {
        // 100 segments, RTT 120 ms over a 100 ms base: 100 x 20/120 = 16.7 queued, L = 0.2.
        let (q, l) = Yeah::queue(100.0, 120 * MS, 100 * MS);
        assert!((q - 100.0 * 20.0 / 120.0).abs() < 1e-9);
        assert!((l - 0.2).abs() < 1e-12);
    }

    /// Four ACKs; a round closes on the ACK after four segments (the first of the next call).
    fn round(y: &mut Yeah, st: &mut CcState, seq: &mut u64, rtt: Time) {
        for _ in 0..4 {
            *seq += 1000;
            y.on_ack(
                &AckInfo {
                    acked_bytes: 1000,
                    ack_seq: *seq,
                    in_flight: 4000,
                    rtt: Some(rtt),
                    ..Default::default()
                },
                st,
            );
        }
    }

    #[test]
    fn fast_mode_is_scalable_and_a_long_queue_triggers_decongestion() {
        let mut y = yeah();
        let mut st = CcState {
            cwnd: 400_000,
            ssthresh: 1,
            mss: 1000,
        };
        let mut seq = 0;
        // Rounds at the base RTT: Fast mode, 0.01 segment per ACK.
        round(&mut y, &mut st, &mut seq, 100 * MS);
        round(&mut y, &mut st, &mut seq, 100 * MS);
        assert_eq!(y.slow_rounds, 0);
        assert_eq!(st.cwnd, 400_000 + 8 * 10);
        // A round at 150 ms (closed by the first ACK of the next call): Q = 400 x 50/150 = 133 > 80, L = 0.5 > 1/8: Slow mode and a
        // decongestion of min(133, 400/2) segments.
        round(&mut y, &mut st, &mut seq, 150 * MS);
        round(&mut y, &mut st, &mut seq, 150 * MS);
        assert_eq!(y.slow_rounds, 1);
        assert_eq!(y.decongestions, 1);
        let w = st.cwnd / 1000;
        assert!((266..=268).contains(&w), "{w}");
        assert_eq!(st.ssthresh, w * 1000);
    }

    #[test]
    fn loss_removes_the_queue_unless_competing_with_reno() {
        let mut y = yeah();
        let st = CcState {
            cwnd: 100_000,
            ssthresh: 1,
            mss: 1000,
        };
        let ev = CongestionEvent::at(0, CongestionKind::DupAcks, 100_000);
        // Not competing: remove max(Q = 20, 100/8 = 12) = 20 segments.
        y.last_q = 20;
        assert_eq!(y.on_congestion(&ev, &st).ssthresh, 80_000);
        // Small queue: remove cwnd/8.
        y.last_q = 3;
        assert_eq!(y.on_congestion(&ev, &st).ssthresh, 88_000);
        // Competing (rho slow rounds): halve.
        y.slow_rounds = 16;
        assert_eq!(y.on_congestion(&ev, &st).ssthresh, 50_000);
    }

    #[test]
    fn ns3_ssthresh_wraps_when_the_reduction_exceeds_the_flight() {
        // 10 segments less 3: 7. A 1-segment flight less 2 segments: 536 − 1072 in 32 bits.
        assert_eq!(Yeah::ns3_ssthresh(5360, 536, 3), 3752);
        assert_eq!(Yeah::ns3_ssthresh(536, 536, 2), (1u64 << 32) - 536);
        // Competing with Reno: 7 segments less max(7/2, 2) = 3, where the paper halves.
        let mut m = BTreeMap::new();
        m.insert("ns3".to_string(), 1.0);
        let mut y = Yeah::new(&mut Params::new(&m)).unwrap();
        y.slow_rounds = 16;
        let ev = CongestionEvent::at(0, CongestionKind::DupAcks, 7000);
        let st = CcState {
            cwnd: 7000,
            ssthresh: 1,
            mss: 1000,
        };
        assert_eq!(y.on_congestion(&ev, &st).ssthresh, 4000);
        // Not competing, last Q of 2 segments on a 1-segment flight: the wrap.
        y.slow_rounds = 0;
        y.last_q = 2;
        let ev = CongestionEvent {
            in_flight: 1000,
            flight_size: 1000,
            ..ev
        };
        assert_eq!(y.on_congestion(&ev, &st).ssthresh, (1u64 << 32) - 1000);
    }

    #[test]
    fn ns3_enters_slow_mode_at_any_queueing_delay() {
        // Rounds at 100 ms, then at 105 ms: L = 5/100 = 0.05, below the paper's 1/φ = 1/8
        // (Fast mode stays), above ns-3's integer 1/8 = 0 (Slow mode). Q = 20 x 5/105 < 80.
        for (ns3, slow) in [(false, 0), (true, 1)] {
            let mut m = BTreeMap::new();
            m.insert("ns3".to_string(), ns3 as u8 as f64);
            let mut y = Yeah::new(&mut Params::new(&m)).unwrap();
            assert_eq!(y.l_max(), if ns3 { 0.0 } else { 0.125 });
            let mut st = CcState {
                cwnd: 20_000,
                ssthresh: 1,
                mss: 1000,
            };
            let mut seq = 0;
            for rtt in [100 * MS, 100 * MS, 105 * MS, 105 * MS] {
                for _ in 0..4 {
                    seq += 1000;
                    let a = AckInfo {
                        acked_bytes: 1000,
                        ack_seq: seq,
                        in_flight: 4000,
                        snd_nxt: seq + 4000,
                        rtt: Some(rtt),
                        srtt: Some(rtt),
                        ..Default::default()
                    };
                    y.on_ack(&a, &mut st);
                }
            }
            assert_eq!(y.slow_rounds, slow, "ns3 = {ns3}");
            assert_eq!(y.decongestions, 0);
        }
    }

    #[test]
    fn ns3_restarts_the_round_on_returning_to_open_not_at_the_loss() {
        let ev = |kind| CongestionEvent {
            now: 0,
            kind,
            in_flight: 4000,
            flight_size: 4000,
            min_rtt: None,
            true_cause: None,
        };
        let ack = |seq: u64, snd_nxt: u64| AckInfo {
            acked_bytes: 1000,
            ack_seq: seq,
            in_flight: 3000,
            srtt: Some(120 * MS),
            rtt: Some(120 * MS),
            snd_nxt,
            ..Default::default()
        };
        for ns3 in [false, true] {
            let mut m = BTreeMap::new();
            m.insert("ns3".to_string(), ns3 as u8 as f64);
            let mut y = Yeah::new(&mut Params::new(&m)).unwrap();
            let mut st = CcState {
                cwnd: 4000,
                ssthresh: 2000,
                mss: 1000,
            };
            // The first ACK opens a round to the highest sequence sent (ns-3) or to the
            // ACK plus the flight (the paper); two more samples in it.
            y.on_ack(&ack(1000, 5000), &mut st);
            assert_eq!(y.round_end, Some(if ns3 { 5000 } else { 4000 }));
            y.on_ack(&ack(2000, 6000), &mut st);
            y.on_ack(&ack(3000, 7000), &mut st);
            assert_eq!(y.cnt_rtt, 2);
            // A timeout: the paper's round ends there, ns-3's goes on (GetSsThresh leaves it).
            y.on_congestion(&ev(CongestionKind::Timeout), &st);
            assert_eq!(y.cnt_rtt, if ns3 { 2 } else { 0 });
            if !ns3 {
                continue;
            }
            // The first ACK after the timeout names the recovery point (9000, the highest
            // sent); ACKs below it count samples into the same round.
            let mut a = ack(3000, 9000);
            a.acked_bytes = 0;
            a.dup_ack = true;
            y.on_ack(&a, &mut st);
            assert_eq!(y.ns3_state, Ns3State::Loss(Some(9000)));
            y.on_ack(&ack(4000, 9000), &mut st);
            assert_eq!((y.cnt_rtt, y.round_end), (4, Some(5000)));
            // ...and the round closes at 5000 as it would have without the timeout.
            y.on_ack(&ack(5000, 9000), &mut st);
            assert_eq!((y.cnt_rtt, y.round_end), (0, Some(9000)));
            y.on_ack(&ack(6000, 9000), &mut st);
            assert_eq!(y.cnt_rtt, 1);
            // The ACK of the recovery point returns to Open: a new round from the highest
            // sequence sent then, this ACK's sample not counted.
            y.on_ack(&ack(9000, 12_000), &mut st);
            assert_eq!(y.ns3_state, Ns3State::Open);
            assert_eq!(
                (y.cnt_rtt, y.round_end, y.round_min),
                (0, Some(12_000), None)
            );
            // Fast recovery: the round runs through it and restarts at the ACK that ends it.
            y.on_ack(&ack(10_000, 13_000), &mut st);
            y.on_congestion(&ev(CongestionKind::DupAcks), &st);
            assert_eq!(y.cnt_rtt, 1);
            y.on_recovery_exit(0, &mut st);
            y.on_ack(&ack(13_000, 15_000), &mut st);
            assert_eq!((y.cnt_rtt, y.round_end), (0, Some(15_000)));
            // Duplicates below the threshold, then an ACK without new SACK information.
            let mut d = ack(13_000, 15_000);
            d.acked_bytes = 0;
            d.dup_ack = true;
            y.on_ack(&d, &mut st);
            assert_eq!((y.ns3_state, y.cnt_rtt), (Ns3State::Disorder, 1));
            // An ACK that advances with new SACK information leaves ns-3 in Disorder, where
            // it does not call IncreaseWindow: no growth (slow start would add a segment).
            let mut sa = ack(13_500, 15_000);
            sa.sacked_bytes = 1000;
            st.ssthresh = 1 << 30;
            let before = st.cwnd;
            y.on_ack(&sa, &mut st);
            assert_eq!((y.ns3_state, st.cwnd), (Ns3State::Disorder, before));
            y.on_ack(&ack(14_000, 16_000), &mut st);
            assert_eq!(
                (y.ns3_state, y.cnt_rtt, y.round_end),
                (Ns3State::Open, 0, Some(16_000))
            );
        }
    }

    #[test]
    fn ns3_takes_the_rounds_rtts_from_the_srtt() {
        let mut m = BTreeMap::new();
        m.insert("ns3".to_string(), 1.0);
        let mut y = Yeah::new(&mut Params::new(&m)).unwrap();
        let mut st = CcState {
            cwnd: 10_000,
            ssthresh: 1,
            mss: 1000,
        };
        // A duplicate ACK without a sample still brings the SRTT.
        let a = AckInfo {
            rtt: None,
            srtt: Some(120 * MS),
            dup_ack: true,
            ..Default::default()
        };
        y.on_ack(&a, &mut st);
        assert_eq!((y.base_rtt, y.round_min), (Some(120 * MS), Some(120 * MS)));
        let a = AckInfo {
            rtt: Some(90 * MS),
            srtt: Some(110 * MS),
            dup_ack: true,
            ..Default::default()
        };
        y.on_ack(&a, &mut st);
        assert_eq!(y.base_rtt, Some(110 * MS));
    }
}
