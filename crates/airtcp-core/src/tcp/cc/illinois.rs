//! TCP-Illinois (Liu, Başar & Srikant, "TCP-Illinois: a loss- and delay-based congestion
//! control algorithm for high-speed networks", VALUETOOLS 2006). AIMD whose increase α and
//! decrease β are set once per round trip from the average queueing delay d_a (the round's mean
//! RTT less the base RTT) against the largest seen, d_m (max RTT less base RTT):
//! - α = α_max if d_a ≤ d₁, else κ₁/(κ₂ + d_a), with κ₁ = (d_m − d₁)·α_min·α_max/(α_max − α_min)
//!   and κ₂ = (d_m − d₁)·α_min/(α_max − α_min) − d₁ (so α(d_m) = α_min);
//! - β = β_min if d_a ≤ d₂, β_max if d_a ≥ d₃, else κ₃ + κ₄·d_a with
//!   κ₃ = (β_min·d₃ − β_max·d₂)/(d₃ − d₂), κ₄ = (β_max − β_min)/(d₃ − d₂);
//! - d_i = η_i·d_m with η₁ = 0.01, η₂ = 0.1, η₃ = 0.8; α_max = 10, α_min = 0.3,
//!   β_min = 1/8, β_max = 1/2;
//! - α returns to α_max only after d_a stayed below d₁ for θ = 5 round trips (at once while
//!   no delay above d₁ has been seen since the last timeout);
//! - cwnd += α/cwnd per ACK, cwnd ← (1 − β)·cwnd on loss; below W_thresh = 15 segments, and
//!   after a timeout until the next update, α = 1 and β = 1/2 (standard TCP).
//!
//! `ns3 = 1` (the `ns3` profile's default) follows ns-3.44's `TcpIllinois`: d_a and d_m in
//! whole milliseconds (`RecalcParam`, `Time::GetMilliSeconds`); the delays taken from the SRTT
//! at every ACK, duplicates included (the socket hands `PktsAcked` its SRTT, not the sample);
//! no standard-TCP regime at small windows (`RecalcParam` compares the window in bytes with
//! W_thresh = 15, which no window is below); and congestion avoidance in whole segments
//! (α per ACKed segment against the window truncated to segments, a segment added when the
//! count reaches it), the count an integer that loses the fraction of α at every ACK and is
//! kept across losses; a round ends at the highest sequence sent when it began (`Reset` with
//! `m_nextTxSequence`), and a timeout starts one that runs to the highest sequence sent before
//! it (`CongestionStateSet` on `CA_LOSS`), so α and β stay at 1 and 1/2 until the
//! retransmissions after the timeout are acknowledged; and an ACK that leaves the socket in
//! `CA_DISORDER` (one with new SACK information) neither grows the window nor ends a round
//! (`TcpSocketBase::ProcessAck` calls `IncreaseWindow` only in `CA_OPEN` and `CA_LOSS`).

use super::ns3state::Ns3State;
use super::{
    AckInfo, CcState, CongestionControl, CongestionEvent, CongestionKind, ParamSpec, Params,
    Reaction,
};
use crate::engine::{Time, SEC};

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::new("alpha_max", 10.0, "largest increase (segments per RTT)"),
    ParamSpec::new("alpha_min", 0.3, "smallest increase (segments per RTT)"),
    ParamSpec::new("beta_min", 0.125, "smallest decrease fraction"),
    ParamSpec::new("beta_max", 0.5, "largest decrease fraction"),
    ParamSpec::new(
        "win_thresh",
        15.0,
        "standard TCP below this window (segments)",
    ),
    ParamSpec::new(
        "theta",
        5.0,
        "round trips below d1 before alpha returns to alpha_max",
    ),
    ParamSpec::ns3(
        "ns3",
        0.0,
        1.0,
        "1: ns-3's TcpIllinois (SRTT delays in whole ms, no small-window regime, growth in whole segments)",
    ),
];

#[derive(Clone, Debug)]
pub struct Illinois {
    alpha_max: f64,
    alpha_min: f64,
    beta_min: f64,
    beta_max: f64,
    win_thresh: f64,
    theta: u32,
    ns3: bool,
    pub alpha: f64,
    pub beta: f64,
    base_rtt: Option<Time>,
    max_rtt: Option<Time>,
    sum_rtt: f64,
    cnt_rtt: u32,
    round_end: Option<u64>,
    rtt_above: bool,
    rtt_low: u32,
    carry: f64,
    /// `ns3`: a timeout's round starts at the next ACK, which names the highest sequence sent.
    round_from_next_ack: bool,
    ns3_state: Ns3State,
}

impl Illinois {
    pub fn new(p: &mut Params) -> Result<Self, (String, String)> {
        let alpha_max = p.spec(PARAMS, "alpha_max")?;
        let alpha_min = p.spec(PARAMS, "alpha_min")?;
        let beta_min = p.spec(PARAMS, "beta_min")?;
        let beta_max = p.spec(PARAMS, "beta_max")?;
        let win_thresh = p.spec(PARAMS, "win_thresh")?;
        let theta = p.spec(PARAMS, "theta")?;
        let ns3 = p.flag(PARAMS, "ns3")?;
        if !(0.0 < alpha_min && alpha_min < alpha_max) {
            return Err((
                "alpha_max".into(),
                format!("need 0 < alpha_min < alpha_max, got {alpha_min}, {alpha_max}"),
            ));
        }
        if !(0.0 < beta_min && beta_min <= beta_max && beta_max < 1.0) {
            return Err((
                "beta_max".into(),
                format!("need 0 < beta_min <= beta_max < 1, got {beta_min}, {beta_max}"),
            ));
        }
        if theta < 0.0 {
            return Err(("theta".into(), format!("must be >= 0, got {theta}")));
        }
        Ok(Illinois {
            alpha_max,
            alpha_min,
            beta_min,
            beta_max,
            win_thresh,
            theta: theta as u32,
            ns3,
            alpha: alpha_max,
            beta: 0.5,
            base_rtt: None,
            max_rtt: None,
            sum_rtt: 0.0,
            cnt_rtt: 0,
            round_end: None,
            rtt_above: false,
            rtt_low: 0,
            carry: 0.0,
            round_from_next_ack: false,
            ns3_state: Ns3State::Open,
        })
    }

    /// α for average queueing delay `da` and largest `dm` (any unit), before the θ rule.
    pub fn alpha_of(&self, da: f64, dm: f64) -> f64 {
        let d1 = 0.01 * dm;
        if da <= d1 {
            return self.alpha_max;
        }
        let span = self.alpha_max - self.alpha_min;
        let k1 = (dm - d1) * self.alpha_min * self.alpha_max / span;
        let k2 = (dm - d1) * self.alpha_min / span - d1;
        k1 / (k2 + da)
    }

    pub fn beta_of(&self, da: f64, dm: f64) -> f64 {
        let (d2, d3) = (0.1 * dm, 0.8 * dm);
        if da <= d2 {
            self.beta_min
        } else if da >= d3 {
            self.beta_max
        } else {
            let k3 = (self.beta_min * d3 - self.beta_max * d2) / (d3 - d2);
            let k4 = (self.beta_max - self.beta_min) / (d3 - d2);
            k3 + k4 * da
        }
    }

    fn delay(&self, t: f64) -> f64 {
        if self.ns3 {
            (t * 1000.0 / SEC as f64).floor()
        } else {
            t / SEC as f64
        }
    }

    /// The once-per-round update.
    fn recalc(&mut self, cwnd_segments: f64) {
        if cwnd_segments < self.win_thresh && !self.ns3 {
            self.alpha = 1.0;
            self.beta = 0.5;
        } else if self.cnt_rtt > 0 {
            let (Some(base), Some(max)) = (self.base_rtt, self.max_rtt) else {
                return;
            };
            let dm = self.delay((max - base) as f64);
            let da = self.delay(self.sum_rtt / self.cnt_rtt as f64 - base as f64);
            if da <= 0.01 * dm {
                if !self.rtt_above {
                    self.alpha = self.alpha_max;
                }
                self.rtt_low += 1;
                if self.rtt_low >= self.theta {
                    self.rtt_low = 0;
                    self.rtt_above = false;
                    self.alpha = self.alpha_max;
                }
            } else {
                self.rtt_above = true;
                self.alpha = self.alpha_of(da, dm);
            }
            self.beta = self.beta_of(da, dm);
        }
        self.sum_rtt = 0.0;
        self.cnt_rtt = 0;
    }
}

impl CongestionControl for Illinois {
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        let sample = if self.ns3 { ack.srtt } else { ack.rtt };
        if let Some(r) = sample.filter(|&r| r > 0) {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
            self.max_rtt = Some(self.max_rtt.map_or(r, |m| m.max(r)));
            self.sum_rtt += r as f64;
            self.cnt_rtt += 1;
        }
        if self.round_from_next_ack {
            // Nothing new is sent between the timeout and its first ACK but the head's resend.
            self.round_end = Some(ack.snd_nxt);
            self.round_from_next_ack = false;
        }
        if self.ns3 {
            self.ns3_state.on_ack(ack);
        }
        let disorder = self.ns3 && self.ns3_state == Ns3State::Disorder;
        if ack.no_growth() || disorder {
            return;
        }
        let mss = st.mss as f64;
        let w = st.cwnd as f64 / mss;
        // A round ends when the data outstanding at its start is acknowledged.
        if self.round_end.is_none_or(|e| ack.ack_seq >= e) {
            if self.round_end.is_some() {
                self.recalc(w);
            }
            self.round_end = Some(if self.ns3 {
                // ns-3's m_nextTxSequence.
                ack.snd_nxt
            } else {
                ack.ack_seq + ack.in_flight
            });
        }
        if st.cwnd < st.ssthresh {
            st.cwnd += ack.acked_bytes.min(st.mss);
            return;
        }
        if self.ns3 {
            let mut segs = (st.cwnd / st.mss).max(1);
            // ns-3 adds α per ACKed segment to an integer count, which drops the fraction
            // at every ACK (α = 0.3 on an ACK of two segments adds nothing).
            self.carry = (self.carry + (ack.acked_bytes as f64 / mss).round() * self.alpha).floor();
            let old = segs;
            while self.carry >= segs as f64 {
                self.carry -= segs as f64;
                segs += 1;
            }
            if segs != old {
                st.cwnd = segs * st.mss;
            }
            return;
        }
        self.carry += self.alpha / w * (ack.acked_bytes as f64 / mss) * mss;
        let whole = self.carry.floor();
        self.carry -= whole;
        st.cwnd += whole as u64;
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        self.ns3_state.on_congestion(ev.kind);
        let mss = st.mss as f64;
        let w = ev.in_flight as f64 / mss;
        let keep = 1.0 - self.beta;
        let segs = if self.ns3 {
            (w.floor() * keep).max(2.0).floor()
        } else {
            (w * keep).max(2.0)
        };
        if ev.kind == CongestionKind::Timeout {
            // Standard TCP until the next update (the Loss state resets α and β).
            self.alpha = 1.0;
            self.beta = 0.5;
            self.rtt_low = 0;
            self.rtt_above = false;
            self.sum_rtt = 0.0;
            self.cnt_rtt = 0;
            self.round_end = None;
            self.round_from_next_ack = self.ns3;
        }
        if !self.ns3 {
            // ns-3 keeps its ACK count across losses: after a cut to fewer segments than it
            // holds, the first ACK of congestion avoidance adds a segment.
            self.carry = 0.0;
        }
        Reaction::cut((segs * mss) as u64)
    }

    fn on_recovery_exit(&mut self, _now: Time, _st: &mut CcState) {
        self.ns3_state.on_recovery_exit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use std::collections::BTreeMap;

    fn illinois(ns3: bool) -> Illinois {
        let mut m = BTreeMap::new();
        m.insert("ns3".to_string(), ns3 as u8 as f64);
        Illinois::new(&mut Params::new(&m)).unwrap()
    }

    #[test]
    fn alpha_and_beta_follow_the_delay_curves() {
        let i = illinois(false);
        let dm = 100.0;
        assert_eq!(i.alpha_of(1.0, dm), 10.0, "d_a <= d1: alpha_max");
        assert!(
            (i.alpha_of(dm, dm) - 0.3).abs() < 1e-12,
            "alpha(d_m) = alpha_min"
        );
        // In between: kappa1/(kappa2 + d_a), continuous at d1.
        assert!((i.alpha_of(1.0 + 1e-9, dm) - 10.0).abs() < 1e-6);
        let a50 = i.alpha_of(50.0, dm);
        let (k1, k2) = (99.0 * 0.3 * 10.0 / 9.7, 99.0 * 0.3 / 9.7 - 1.0);
        assert!((a50 - k1 / (k2 + 50.0)).abs() < 1e-12);
        assert_eq!(i.beta_of(10.0, dm), 0.125);
        assert_eq!(i.beta_of(80.0, dm), 0.5);
        // Linear between d2 = 10 and d3 = 80: midpoint 45 gives the mean of the bounds.
        assert!((i.beta_of(45.0, dm) - 0.3125).abs() < 1e-12);
    }

    fn ack(seq: u64, rtt: Time) -> AckInfo {
        AckInfo {
            acked_bytes: 1000,
            ack_seq: seq,
            in_flight: 100_000,
            rtt: Some(rtt),
            ..Default::default()
        }
    }

    #[test]
    fn per_round_update_sets_alpha_and_the_cut_uses_beta() {
        let mut i = illinois(false);
        let mut st = CcState {
            cwnd: 100_000,
            ssthresh: 1,
            mss: 1000,
        };
        // Round 1: base 100 ms, a 200 ms sample sets d_m = 100 ms.
        i.on_ack(&ack(1000, 100 * MS), &mut st);
        i.on_ack(&ack(2000, 200 * MS), &mut st);
        // Round 2 samples at 150 ms: d_a = 50 ms (the first closes round 1 with mean 150 too).
        for k in 0..100 {
            i.on_ack(&ack(101_000 + k * 1000, 150 * MS), &mut st);
        }
        i.on_ack(&ack(300_000, 150 * MS), &mut st);
        assert!(
            (i.alpha - i.alpha_of(50.0, 100.0)).abs() < 1e-9,
            "{}",
            i.alpha
        );
        assert!((i.beta - i.beta_of(50.0, 100.0)).abs() < 1e-9);
        let ev = CongestionEvent::at(0, CongestionKind::DupAcks, 100_000);
        let r = i.on_congestion(&ev, &st);
        assert!((r.ssthresh as f64 - 100_000.0 * (1.0 - i.beta)).abs() <= 1.0);
    }

    #[test]
    fn growth_is_alpha_per_round_and_small_windows_are_standard() {
        let mut i = illinois(false);
        let mut st = CcState {
            cwnd: 100_000,
            ssthresh: 1,
            mss: 1000,
        };
        i.alpha = 4.0;
        for k in 0..100 {
            // One round: no update inside it.
            i.on_ack(
                &AckInfo {
                    acked_bytes: 1000,
                    ack_seq: k * 1000,
                    in_flight: 1 << 30,
                    ..Default::default()
                },
                &mut st,
            );
        }
        let grown = (st.cwnd - 100_000) as f64 / 1000.0;
        assert!((grown - 4.0).abs() < 0.2, "{grown}");
        i.recalc(10.0);
        assert_eq!((i.alpha, i.beta), (1.0, 0.5));
    }

    #[test]
    fn ns3_truncates_delays_to_milliseconds() {
        let mut i = illinois(true);
        i.base_rtt = Some(10 * MS);
        i.max_rtt = Some(10 * MS + 1900 * MS / 1000);
        i.sum_rtt = (10 * MS + 900 * MS / 1000) as f64;
        i.cnt_rtt = 1;
        i.rtt_above = true;
        // d_m = 1.9 ms -> 1, d_a = 0.9 ms -> 0: below d1, alpha stays (no theta rounds yet).
        i.alpha = 2.0;
        i.recalc(100.0);
        assert_eq!(i.alpha, 2.0);
        assert_eq!(i.beta, 0.125);
    }

    #[test]
    fn ns3_samples_the_srtt_keeps_delay_rules_at_small_windows_and_counts_segments() {
        let mut i = illinois(true);
        let mut st = CcState {
            cwnd: 10_500,
            ssthresh: 1,
            mss: 1000,
        };
        // The SRTT is what is sampled, on duplicate ACKs too.
        let mut a = ack(0, 300 * MS);
        a.srtt = Some(100 * MS);
        a.acked_bytes = 0;
        a.dup_ack = true;
        i.on_ack(&a, &mut st);
        assert_eq!(
            (i.base_rtt, i.max_rtt, i.cnt_rtt),
            (Some(100 * MS), Some(100 * MS), 1)
        );
        // At 10 segments the delay rules still decide (no standard-TCP regime).
        i.recalc(10.0);
        assert_eq!((i.alpha, i.beta), (10.0, 0.125));
        // alpha = 10 per ACKed segment against the truncated window of 10: one segment per
        // ACK, the window snapped to whole segments.
        let mut a = ack(1000, 100 * MS);
        a.srtt = Some(100 * MS);
        a.in_flight = 1 << 30;
        i.on_ack(&a, &mut st);
        assert_eq!(st.cwnd, 11_000);
    }

    #[test]
    fn ns3_count_drops_the_fraction_of_alpha_at_every_ack() {
        // α = 0.3 on ACKs of two segments: ns-3's integer count adds ⌊0 + 0.6⌋ = 0 and never
        // grows (the paper's 0.6/w per ACK takes 10 segments to 14.8: w² = 100 + 1.2·ACKs).
        // α = 1.7 adds ⌊3.4⌋ = 3 a time: 3, 6, 9, 12 → 11 segments (count 2), 5, 8, 11 → 12
        // (count 0), 3, 6, 9; keeping the fraction would have reached 13.
        for (ns3, alpha, acks, want) in [
            (true, 0.3, 100, 10_000..=10_000),
            (false, 0.3, 100, 14_700..=14_900),
            (true, 1.7, 10, 12_000..=12_000),
        ] {
            let mut i = illinois(ns3);
            i.alpha = alpha;
            i.round_end = Some(u64::MAX);
            let mut st = CcState {
                cwnd: 10_000,
                ssthresh: 1,
                mss: 1000,
            };
            for k in 0..acks {
                let mut a = ack(2000 * (k + 1), 100 * MS);
                a.acked_bytes = 2000;
                i.on_ack(&a, &mut st);
            }
            assert!(
                want.contains(&st.cwnd),
                "ns3 = {ns3}, alpha = {alpha}: {}",
                st.cwnd
            );
        }
    }

    #[test]
    fn ns3_timeout_round_runs_to_the_highest_sequence_sent_before_it() {
        // A timeout sets α = 1, β = 1/2. The paper's round restarts at the next ACK and ends
        // one flight later (here at once: the flight is 1000 bytes), recomputing α from the
        // delays; ns-3's runs to the highest sequence sent before the timeout (9000), so α
        // stays 1 while the retransmissions below it are acknowledged.
        for ns3 in [false, true] {
            let mut i = illinois(ns3);
            let mut st = CcState {
                cwnd: 20_000,
                ssthresh: 1,
                mss: 1000,
            };
            let ev = CongestionEvent::at(0, CongestionKind::Timeout, 8000);
            i.base_rtt = Some(100 * MS);
            i.max_rtt = Some(200 * MS);
            i.on_congestion(&ev, &st);
            assert_eq!((i.alpha, i.beta), (1.0, 0.5));
            // (A window of 20 segments, above the paper's W_thresh.)
            for seq in [2000, 3000, 4000, 5000] {
                let a = AckInfo {
                    acked_bytes: 1000,
                    ack_seq: seq,
                    in_flight: 1000,
                    snd_nxt: 9000,
                    rtt: Some(100 * MS),
                    srtt: Some(100 * MS),
                    ..Default::default()
                };
                i.on_ack(&a, &mut st);
            }
            // The paper's round closed with d_a = 0 below d1: α back to α_max.
            assert_eq!(i.alpha, if ns3 { 1.0 } else { 10.0 }, "ns3 = {ns3}");
            if ns3 {
                assert_eq!(i.round_end, Some(9000));
                let a = AckInfo {
                    acked_bytes: 4000,
                    ack_seq: 9000,
                    in_flight: 1000,
                    snd_nxt: 12_000,
                    srtt: Some(100 * MS),
                    ..Default::default()
                };
                i.on_ack(&a, &mut st);
                assert_eq!((i.alpha, i.round_end), (10.0, Some(12_000)));
            }
        }
    }

    #[test]
    fn ns3_an_ack_with_new_sack_information_grows_nothing() {
        // In slow start: the paper's ACK of a segment adds one; ns-3's socket is in Disorder
        // after an ACK with new SACK information and does not call IncreaseWindow.
        for (ns3, want) in [(false, 11_000), (true, 10_000)] {
            let mut i = illinois(ns3);
            let mut st = CcState {
                cwnd: 10_000,
                ssthresh: 1 << 30,
                mss: 1000,
            };
            let mut a = ack(1000, 100 * MS);
            a.sacked_bytes = 1000;
            i.on_ack(&a, &mut st);
            assert_eq!(st.cwnd, want, "ns3 = {ns3}");
            // An ACK without new SACK information returns ns-3 to Open: growth again.
            i.on_ack(&ack(3000, 100 * MS), &mut st);
            assert_eq!(st.cwnd, want + 1000, "ns3 = {ns3}");
        }
    }

    #[test]
    fn ns3_keeps_the_ack_count_across_a_loss() {
        // A count of 12 at 20 segments; the loss cuts to 10 (β = 1/2): ns-3's first ACK of
        // congestion avoidance then finds 12 ≥ 10 and adds a segment; the paper's rule starts
        // from nothing and adds α/w = 0.3/10 of a segment.
        for (ns3, want) in [(true, 11_000), (false, 10_030)] {
            let mut i = illinois(ns3);
            i.carry = 12.0;
            i.alpha = 0.3;
            i.beta = 0.5;
            i.round_end = Some(u64::MAX);
            let ev = CongestionEvent::at(0, CongestionKind::DupAcks, 20_000);
            let mut st = CcState {
                cwnd: 20_000,
                ssthresh: 1,
                mss: 1000,
            };
            let r = i.on_congestion(&ev, &st);
            assert_eq!(r.ssthresh, 10_000);
            st.cwnd = r.ssthresh;
            st.ssthresh = r.ssthresh;
            i.on_ack(&ack(1000, 100 * MS), &mut st);
            assert_eq!(st.cwnd, want, "ns3 = {ns3}");
        }
    }
}
