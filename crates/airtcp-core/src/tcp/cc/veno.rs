//! TCP Veno (Fu & Liew, IEEE JSAC 21(2), 2003): Reno whose reactions depend on the backlog
//! N = (Expected − Actual) × BaseRTT. A loss with N < β is taken as random (wireless) and cuts
//! the window to 4/5; otherwise it is congestive and halves it. In congestion avoidance, with
//! N ≥ β the window grows by one segment every other RTT instead of every RTT.

use super::rttround::RttRounds;
use super::{
    half_flight, AckInfo, CcState, CongestionControl, CongestionEvent, CongestionKind, LossClass,
    Params, Reaction,
};

#[derive(Clone, Debug)]
pub struct Veno {
    beta: f64,
    rounds: RttRounds,
    /// Every other ACK is skipped for growth while backlogged.
    skip: bool,
    /// Losses judged random / congestive (for reporting).
    pub random_losses: u64,
    pub congestive_losses: u64,
}

impl Veno {
    pub fn new(p: &mut Params) -> Result<Self, (String, String)> {
        let beta = p.get("beta", 3.0)?;
        if beta < 0.0 {
            return Err(("beta".into(), format!("must be >= 0, got {beta}")));
        }
        Ok(Veno {
            beta,
            rounds: RttRounds::default(),
            skip: false,
            random_losses: 0,
            congestive_losses: 0,
        })
    }

    fn backlogged(&self, st: &CcState) -> bool {
        self.rounds
            .backlog(st.cwnd as f64 / st.mss as f64)
            .is_some_and(|n| n >= self.beta)
    }
}

impl CongestionControl for Veno {
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        self.rounds.on_ack(ack);
        if ack.in_recovery || ack.acked_bytes == 0 {
            return;
        }
        if st.cwnd < st.ssthresh {
            st.cwnd += ack.acked_bytes.min(st.mss);
        } else if self.backlogged(st) {
            // Near the knee: half the Reno rate (one segment per two RTTs).
            self.skip = !self.skip;
            if !self.skip {
                st.cwnd += (st.mss * st.mss / st.cwnd).max(1);
            }
        } else {
            st.cwnd += (st.mss * st.mss / st.cwnd).max(1);
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        if ev.kind == CongestionKind::DupAcks && !self.backlogged(st) {
            self.random_losses += 1;
            Reaction::cut((st.cwnd * 4 / 5).max(2 * st.mss)).judged(LossClass::Wireless)
        } else {
            let r = Reaction::cut(half_flight(ev.in_flight, st.mss));
            // Veno judges only losses found by duplicate ACKs; a timeout is plain congestion.
            if ev.kind == CongestionKind::DupAcks {
                self.congestive_losses += 1;
                r.judged(LossClass::Congestion)
            } else {
                r
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Time, MS};
    use std::collections::BTreeMap;

    fn veno_with_rtts(base: Time, rtt: Time) -> Veno {
        let m = BTreeMap::new();
        let mut v = Veno::new(&mut Params::new(&m)).unwrap();
        let mut st = CcState {
            cwnd: 10_000,
            ssthresh: 5_000,
            mss: 1000,
        };
        let a = |now, r| AckInfo {
            now,
            rtt: Some(r),
            srtt: Some(100 * MS),
            ..Default::default()
        };
        v.on_ack(&a(0, base), &mut st);
        v.on_ack(&a(200 * MS, base), &mut st);
        v.on_ack(&a(250 * MS, rtt), &mut st);
        v.on_ack(&a(400 * MS, rtt), &mut st);
        v
    }

    fn loss(v: &mut Veno, cwnd: u64) -> u64 {
        let st = CcState {
            cwnd,
            ssthresh: 1 << 30,
            mss: 1000,
        };
        let ev = CongestionEvent {
            now: 0,
            kind: CongestionKind::DupAcks,
            in_flight: cwnd,
            flight_size: cwnd,
            min_rtt: None,
            true_cause: None,
        };
        v.on_congestion(&ev, &st).ssthresh
    }

    #[test]
    fn random_loss_cuts_to_four_fifths() {
        // cwnd 10, RTT 110 vs base 100: N = 10*10/110 = 0.9 < 3.
        let mut v = veno_with_rtts(100 * MS, 110 * MS);
        assert_eq!(loss(&mut v, 10_000), 8_000);
        assert_eq!(v.random_losses, 1);
    }

    #[test]
    fn congestive_loss_halves() {
        // cwnd 10, RTT 200 vs base 100: N = 5 >= 3.
        let mut v = veno_with_rtts(100 * MS, 200 * MS);
        assert_eq!(loss(&mut v, 10_000), 5_000);
        assert_eq!(v.congestive_losses, 1);
    }

    #[test]
    fn boundary_n_equal_beta_is_congestive() {
        // cwnd 10, RTT 100/0.7: N = 10*(1-0.7) = 3 exactly -> congestive.
        let mut v = veno_with_rtts(70 * MS, 100 * MS);
        assert_eq!(loss(&mut v, 10_000), 5_000);
    }

    #[test]
    fn backlogged_growth_is_halved() {
        let mut v = veno_with_rtts(100 * MS, 200 * MS);
        let mut st = CcState {
            cwnd: 10_000,
            ssthresh: 5_000,
            mss: 1000,
        };
        let a = AckInfo {
            now: 450 * MS,
            acked_bytes: 1000,
            srtt: Some(100 * MS),
            ..Default::default()
        };
        for _ in 0..10 {
            v.on_ack(&a, &mut st);
        }
        // Five growth steps of about 100 bytes instead of ten.
        assert!((10_450..=10_500).contains(&st.cwnd), "{}", st.cwnd);
    }
}
