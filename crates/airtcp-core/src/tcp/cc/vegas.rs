//! TCP Vegas (Brakmo & Peterson, IEEE JSAC 13(8), 1995). Once per round trip:
//! diff = (Expected − Actual) × BaseRTT = cwnd × (RTT − BaseRTT) / RTT segments, with BaseRTT
//! the minimum RTT seen and RTT the minimum of the last round.
//! - Congestion avoidance: diff < α → cwnd += 1 segment; diff > β → cwnd −= 1 segment.
//! - Modified slow start: the window doubles only every other RTT, and slow start ends when
//!   diff > γ (cwnd is then set to the window that would keep γ queued).
//!
//! Defaults α = 1, β = 3, γ = 1 as in ns-2's Agent/TCP/Vegas (the paper evaluates α=1, β=3 and
//! α=2, β=4). Loss reactions are Reno's (as in ns-2 and Linux).

use super::rttround::RttRounds;
use super::{half_flight, AckInfo, CcState, CongestionControl, CongestionEvent, Params, Reaction};

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
}

impl Vegas {
    pub fn new(p: &mut Params) -> Result<Self, (String, String)> {
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
        })
    }
}

impl CongestionControl for Vegas {
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        let round_closed = self.rounds.on_ack(ack);
        if ack.in_recovery || ack.acked_bytes == 0 {
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
}
