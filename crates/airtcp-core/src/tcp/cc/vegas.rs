//! TCP Vegas (Brakmo & Peterson, IEEE JSAC 13(8), 1995). Once per round trip:
//! diff = (Expected − Actual) × BaseRTT = cwnd × (RTT − BaseRTT) / RTT segments, with BaseRTT
//! the minimum RTT seen and RTT the minimum of the last round.
//! - Congestion avoidance: diff < α → cwnd += 1 segment; diff > β → cwnd −= 1 segment.
//! - Modified slow start: the window doubles only every other RTT, and slow start ends when
//!   diff > γ (cwnd is then set to the window that would keep γ queued).
//!
//! Defaults α = 1, β = 3, γ = 1 as in ns-2's Agent/TCP/Vegas (the paper evaluates α=1, β=3 and
//! α=2, β=4). Loss reactions are Reno's (as in ns-2 and Linux).
//!
//! `ns3 = 1` (the `ns3` profile's default) runs ns-3.44's `TcpVegas` instead: see [`Ns3Vegas`].

use super::newreno::reno_increase;
use super::rttround::RttRounds;
use super::{
    half_flight, AckInfo, CcState, CongestionControl, CongestionEvent, CongestionKind, Params,
    Reaction,
};
use crate::engine::Time;

#[derive(Clone, Debug)]
pub struct Vegas {
    alpha: f64,
    beta: f64,
    gamma: f64,
    rounds: RttRounds,
    /// Slow start grows only in every other round.
    grow_this_round: bool,
    /// Last computed diff, for tests and reporting.
    pub last_diff: Option<f64>,
    /// ns-3.44's rules, replacing the above when `ns3 = 1`.
    ns3: Option<Ns3Vegas>,
}

/// ns-3.44's `TcpVegas` (tcp-vegas.cc, with the calls of tcp-socket-base.cc), which departs
/// from the paper and from ns-2 and Linux:
///
/// - its RTT "samples" are the SRTT (`PktsAcked` is handed `m_srtt`), one per ACK, duplicates
///   included; BaseRTT is the smallest SRTT, the round's RTT the smallest SRTT of the round;
/// - a round ends with the first ACK at or above the next sequence number to send when it
///   began; the adjustment needs more than two samples in the round, else the ACK grows the
///   window as NewReno does;
/// - diff = cwnd − ⌊cwnd × BaseRTT / RTT⌋ in whole segments; slow start is NewReno's (every
///   ACK, not every other round); past γ it sets cwnd to min(cwnd, target + 1) and ssthresh
///   as below; in congestion avoidance diff > β takes one segment off and sets ssthresh as
///   below, diff < α adds one; after each adjustment ssthresh = max(ssthresh, 3/4 cwnd);
/// - Vegas is off outside the open state (recovery and after a timeout until the recovery
///   point is acknowledged): ACKs there grow the window as NewReno does; it restarts with a
///   fresh round when the open state returns;
/// - a loss sets ssthresh = max(min(ssthresh, cwnd − 1 segment), 2 segments) (its
///   `GetSsThresh`), not half the flight: one segment less, or the last 3/4-cwnd floor;
/// - α = 2, β = 4, γ = 1 (its attribute defaults; set by the builder for this variant).
#[derive(Clone, Debug, Default)]
pub struct Ns3Vegas {
    base_rtt: Option<Time>,
    round_min: Option<Time>,
    samples: u32,
    /// Sequence number that ends the round (ns-3's `m_begSndNxt`).
    round_end: u64,
    /// Off in recovery and after a timeout; `off_until` is the timeout's recovery point.
    off: bool,
    off_until: Option<u64>,
    /// snd_max as the last ACK left it (ack number + flight).
    snd_max: u64,
}

impl Ns3Vegas {
    fn restart(&mut self) {
        self.off = false;
        self.off_until = None;
        self.round_end = self.snd_max;
        self.samples = 0;
        self.round_min = None;
    }

    fn on_ack(&mut self, v: (f64, f64, f64), ack: &AckInfo, st: &mut CcState) {
        let (alpha, beta, gamma) = v;
        self.snd_max = ack.ack_seq + ack.in_flight;
        if let Some(r) = ack.srtt.filter(|&r| r > 0) {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
            self.round_min = Some(self.round_min.map_or(r, |m| m.min(r)));
            self.samples += 1;
        }
        if ack.in_recovery {
            self.off = true;
            return;
        }
        if self.off && self.off_until.is_none_or(|r| ack.ack_seq >= r) {
            // ns-3's CongestionStateSet(CA_OPEN) runs before this ACK's growth.
            self.restart();
        }
        if ack.acked_bytes == 0 {
            return;
        }
        let mss = st.mss;
        if self.off {
            reno_increase(ack, st);
            return;
        }
        if ack.ack_seq >= self.round_end {
            self.round_end = self.snd_max;
            if self.samples <= 2 {
                reno_increase(ack, st);
            } else if let (Some(base), Some(rtt)) = (self.base_rtt, self.round_min) {
                let seg = st.cwnd / mss;
                let target = (seg as f64 * (base as f64 / rtt as f64)) as u64;
                let diff = seg.saturating_sub(target) as f64;
                if diff > gamma && st.cwnd < st.ssthresh {
                    st.cwnd = seg.min(target + 1) * mss;
                    st.ssthresh = Self::ssthresh(st);
                } else if st.cwnd < st.ssthresh {
                    reno_increase(ack, st);
                } else if diff > beta {
                    st.cwnd = seg.saturating_sub(1) * mss;
                    st.ssthresh = Self::ssthresh(st);
                } else if diff < alpha {
                    st.cwnd = (seg + 1) * mss;
                }
                st.ssthresh = st.ssthresh.max(3 * st.cwnd / 4);
            }
            self.samples = 0;
            self.round_min = None;
        } else if st.cwnd < st.ssthresh {
            reno_increase(ack, st);
        }
    }

    /// `TcpVegas::GetSsThresh`: one segment below cwnd, never above the current ssthresh.
    fn ssthresh(st: &CcState) -> u64 {
        st.ssthresh
            .min(st.cwnd.saturating_sub(st.mss))
            .max(2 * st.mss)
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        self.off = true;
        if ev.kind == CongestionKind::Timeout {
            self.off_until = Some(self.snd_max);
        }
        Reaction::cut(Self::ssthresh(st))
    }
}

impl Vegas {
    pub fn new(p: &mut Params) -> Result<Self, (String, String)> {
        let ns3 = p.get("ns3", 0.0)?;
        if ns3 != 0.0 && ns3 != 1.0 {
            return Err(("ns3".into(), format!("must be 0 or 1, got {ns3}")));
        }
        // The ns3 profile's defaults are ns-3's attributes, 2 and 4 (params.rs).
        let alpha = p.get("alpha", 1.0)?;
        let beta = p.get("beta", 3.0)?;
        let gamma = p.get("gamma", 1.0)?;
        if !(alpha >= 0.0 && beta >= alpha) {
            return Err((
                "beta".into(),
                format!("need 0 <= alpha <= beta, got alpha {alpha}, beta {beta}"),
            ));
        }
        Ok(Vegas {
            alpha,
            beta,
            gamma,
            rounds: RttRounds::default(),
            grow_this_round: true,
            last_diff: None,
            ns3: (ns3 == 1.0).then(Ns3Vegas::default),
        })
    }
}

impl CongestionControl for Vegas {
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        if let Some(n) = &mut self.ns3 {
            n.on_ack((self.alpha, self.beta, self.gamma), ack, st);
            return;
        }
        let round_closed = self.rounds.on_ack(ack);
        if ack.no_growth() {
            return;
        }
        let mss = st.mss;
        if st.cwnd < st.ssthresh {
            if round_closed {
                self.grow_this_round = !self.grow_this_round;
                if let Some(diff) = self.rounds.backlog(st.cwnd as f64 / mss as f64) {
                    self.last_diff = Some(diff);
                    if diff > self.gamma {
                        // Leave slow start at the window that keeps about gamma queued.
                        let base = self.rounds.base_rtt.unwrap_or(1) as f64;
                        let rtt = self.rounds.last_round_min.unwrap_or(1) as f64;
                        let target = (st.cwnd as f64 * base / rtt) as u64 + mss;
                        st.cwnd = st.cwnd.min(target).max(2 * mss);
                        st.ssthresh = st.cwnd.saturating_sub(mss).max(2 * mss);
                        return;
                    }
                }
            }
            if self.grow_this_round {
                st.cwnd += ack.acked_bytes.min(mss);
            }
            return;
        }
        if round_closed {
            if let Some(diff) = self.rounds.backlog(st.cwnd as f64 / mss as f64) {
                self.last_diff = Some(diff);
                if diff < self.alpha {
                    st.cwnd += mss;
                } else if diff > self.beta {
                    st.cwnd = st.cwnd.saturating_sub(mss).max(2 * mss);
                    // Keep ssthresh below cwnd so the decrease does not re-enter slow start.
                    st.ssthresh = st.ssthresh.min(st.cwnd.saturating_sub(mss)).max(2 * mss);
                }
            }
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        if let Some(n) = &mut self.ns3 {
            return n.on_congestion(ev, st);
        }
        Reaction::cut(half_flight(ev.in_flight, st.mss))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Time, MS};
    use std::collections::BTreeMap;

    fn vegas() -> Vegas {
        let m = BTreeMap::new();
        Vegas::new(&mut Params::new(&m)).unwrap()
    }

    fn ack(now: Time, rtt: Time) -> AckInfo {
        AckInfo {
            now,
            rtt: Some(rtt),
            srtt: Some(100 * MS),
            acked_bytes: 1000,
            ..Default::default()
        }
    }

    /// Run two rounds with the given RTT and return cwnd.
    fn ca_after(rtt: Time, cwnd: u64) -> u64 {
        let mut v = vegas();
        let mut st = CcState {
            cwnd,
            ssthresh: 1000,
            mss: 1000,
        };
        v.on_ack(&ack(0, 100 * MS), &mut st);
        v.on_ack(&ack(100 * MS, 100 * MS), &mut st); // round 1 closes: base 100, min 100
        let after_first = st.cwnd;
        v.on_ack(&ack(150 * MS, rtt), &mut st);
        v.on_ack(&ack(200 * MS, rtt), &mut st); // round 2 closes with min rtt
        st.cwnd + cwnd - after_first
    }

    #[test]
    fn diff_below_alpha_grows_one_segment() {
        // cwnd 10, RTT 105 vs 100: diff = 0.48 < 1 -> +1 segment.
        assert_eq!(ca_after(105 * MS, 10_000), 11_000);
    }

    #[test]
    fn diff_between_alpha_and_beta_holds() {
        // cwnd 10, RTT 125: diff = 2 -> unchanged.
        assert_eq!(ca_after(125 * MS, 10_000), 10_000);
    }

    #[test]
    fn diff_above_beta_shrinks_one_segment() {
        // cwnd 10, RTT 200: diff = 5 > 3 -> -1 segment.
        assert_eq!(ca_after(200 * MS, 10_000), 9_000);
    }

    #[test]
    fn decrease_does_not_reenter_slow_start() {
        let mut v = vegas();
        let mut st = CcState {
            cwnd: 10_000,
            ssthresh: 10_000,
            mss: 1000,
        };
        v.on_ack(&ack(0, 100 * MS), &mut st);
        v.on_ack(&ack(100 * MS, 100 * MS), &mut st);
        v.on_ack(&ack(150 * MS, 200 * MS), &mut st);
        v.on_ack(&ack(200 * MS, 200 * MS), &mut st);
        // Round 1 at the base RTT grows cwnd to 11 segments; round 2 at twice it has
        // diff = 11 (1 - 100/200) = 5.5 > beta: one segment less, back to 10.
        let cwnd = st.cwnd;
        assert_eq!(cwnd, 10_000);
        assert!(st.ssthresh < st.cwnd);
        // A further ACK in the same round must not grow the window (no slow start).
        v.on_ack(&ack(210 * MS, 200 * MS), &mut st);
        assert_eq!(st.cwnd, cwnd);
    }

    #[test]
    fn slow_start_exits_when_diff_exceeds_gamma() {
        let mut v = vegas();
        let mut st = CcState {
            cwnd: 20_000,
            ssthresh: 1 << 30,
            mss: 1000,
        };
        v.on_ack(&ack(0, 100 * MS), &mut st);
        v.on_ack(&ack(100 * MS, 100 * MS), &mut st);
        v.on_ack(&ack(150 * MS, 150 * MS), &mut st);
        let before = st.cwnd;
        v.on_ack(&ack(200 * MS, 150 * MS), &mut st); // diff = cwnd/3 > 1
        assert!(st.cwnd < before);
        assert!(st.ssthresh < st.cwnd, "slow start over");
    }

    fn ns3_vegas() -> Vegas {
        let mut m = BTreeMap::new();
        crate::tcp::cc::apply_ns3_defaults("vegas", &mut m);
        Vegas::new(&mut Params::new(&m)).unwrap()
    }

    /// An ACK of `ack_seq` with `flight` bytes still out and the given SRTT (ns-3's sample).
    fn srtt_ack(ack_seq: u64, flight: u64, srtt: Time) -> AckInfo {
        AckInfo {
            now: 0,
            ack_seq,
            in_flight: flight,
            acked_bytes: 1000,
            rtt: Some(srtt),
            srtt: Some(srtt),
            ..Default::default()
        }
    }

    #[test]
    fn ns3_defaults_are_its_attributes() {
        let mut m = BTreeMap::new();
        crate::tcp::cc::apply_ns3_defaults("vegas", &mut m);
        assert_eq!(m.get("alpha"), Some(&2.0));
        assert_eq!(m.get("beta"), Some(&4.0));
        assert_eq!(m.get("ns3"), Some(&1.0));
        let v = Vegas::new(&mut Params::new(&m)).unwrap();
        assert_eq!((v.alpha, v.beta, v.gamma), (2.0, 4.0, 1.0));
        assert_eq!((vegas().alpha, vegas().beta), (1.0, 3.0));
    }

    #[test]
    fn ns3_rounds_end_at_the_sequence_sent_and_adjust_from_srtts() {
        let mut v = ns3_vegas();
        let mut st = CcState {
            cwnd: 20_000,
            ssthresh: 10_000,
            mss: 1000,
        };
        // First ACK: the round (ending at 0) closes with one sample: NewReno growth.
        v.on_ack(&srtt_ack(1000, 20_000, 100 * MS), &mut st);
        assert_eq!(st.cwnd, 20_050);
        // Three ACKs inside the round that ends at 21 000: no change in congestion avoidance.
        for k in 2..5 {
            v.on_ack(&srtt_ack(k * 1000, 20_000, 150 * MS), &mut st);
        }
        assert_eq!(st.cwnd, 20_050);
        // The ACK of 21 000 ends it with four samples; the round's smallest SRTT is 150 ms
        // against a base of 100: target = floor(20 x 100/150) = 13, diff = 7 > beta = 4:
        // one segment off, ssthresh = min(ssthresh, cwnd - 1 segment), then at least 3/4 cwnd.
        v.on_ack(&srtt_ack(21_000, 20_000, 150 * MS), &mut st);
        assert_eq!(st.cwnd, 19_000);
        assert_eq!(st.ssthresh, 14_250);
    }

    #[test]
    fn ns3_loss_takes_one_segment_off_not_half() {
        let mut v = ns3_vegas();
        let st = CcState {
            cwnd: 30_000,
            ssthresh: 1 << 30,
            mss: 1000,
        };
        let ev = |kind| CongestionEvent {
            now: 0,
            kind,
            in_flight: 30_000,
            flight_size: 30_000,
            min_rtt: None,
            true_cause: None,
        };
        assert_eq!(
            v.on_congestion(&ev(CongestionKind::DupAcks), &st).ssthresh,
            29_000
        );
        let low = CcState {
            ssthresh: 12_000,
            ..st
        };
        assert_eq!(
            v.on_congestion(&ev(CongestionKind::Timeout), &low).ssthresh,
            12_000
        );
        // The paper's Vegas halves the flight (Reno's reaction).
        assert_eq!(
            vegas()
                .on_congestion(&ev(CongestionKind::DupAcks), &st)
                .ssthresh,
            15_000
        );
    }

    #[test]
    fn ns3_vegas_is_off_until_the_timeout_recovery_point() {
        let mut v = ns3_vegas();
        let mut st = CcState {
            cwnd: 10_000,
            ssthresh: 20_000,
            mss: 1000,
        };
        v.on_ack(&srtt_ack(1000, 10_000, 100 * MS), &mut st);
        let ev = CongestionEvent::at(0, CongestionKind::Timeout, 10_000);
        v.on_congestion(&ev, &st);
        // Below the recovery point (11 000) it grows as NewReno in slow start.
        st.cwnd = 1000;
        v.on_ack(&srtt_ack(2000, 1000, 300 * MS), &mut st);
        assert_eq!(st.cwnd, 2000);
        assert!(v.ns3.as_ref().unwrap().off);
        v.on_ack(&srtt_ack(11_000, 2000, 300 * MS), &mut st);
        assert!(!v.ns3.as_ref().unwrap().off);
    }
}
