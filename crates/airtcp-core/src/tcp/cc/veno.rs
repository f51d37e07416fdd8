//! TCP Veno (Fu & Liew, IEEE JSAC 21(2), 2003): Reno whose reactions depend on the backlog
//! N = (Expected − Actual) × BaseRTT. A loss with N < β is taken as random (wireless) and cuts
//! the window to 4/5; otherwise it is congestive and halves it. In congestion avoidance, with
//! N ≥ β the window grows by one segment every other RTT instead of every RTT.
//!
//! `ns3 = 1` (the `ns3` profile's default) runs ns-3.44's `TcpVeno` instead: see [`Ns3Veno`].

use super::newreno::reno_increase;
use super::rttround::RttRounds;
use super::{
    half_flight, AckInfo, CcState, CongestionControl, CongestionEvent, CongestionKind, LossClass,
    Params, Reaction,
};
use crate::engine::Time;

#[derive(Clone, Debug)]
pub struct Veno {
    beta: f64,
    rounds: RttRounds,
    /// Every other ACK is skipped for growth while backlogged.
    skip: bool,
    /// Losses judged random / congestive (for reporting).
    pub random_losses: u64,
    pub congestive_losses: u64,
    /// ns-3.44's rules, replacing the backlog and growth above when `ns3 = 1`.
    ns3: Option<Ns3Veno>,
}

/// ns-3.44's `TcpVeno` (tcp-veno.cc, with the calls of tcp-socket-base.cc):
///
/// - the backlog N = cwnd − ⌊cwnd × BaseRTT / RTT⌋ in whole segments is computed on every ACK
///   that grows the window, from SRTTs (`PktsAcked` is handed `m_srtt`): BaseRTT the smallest
///   SRTT, RTT the smallest SRTT since the previous such ACK (normally this ACK's own), not
///   the round minimum of RTT samples;
/// - the every-other-RTT growth needs more than two samples since the previous growing ACK,
///   which with one ACK per growth step happens only on the first ACK after a recovery: the
///   window otherwise grows as NewReno's;
/// - a loss with N < β, by the last N computed, sets ssthresh to 4/5 of the data in flight
///   (`bytesInFlight`, the pipe under `cut_basis = "pipe"`), not of cwnd, and so does a
///   timeout; otherwise ssthresh is half the data in flight.
#[derive(Clone, Debug, Default)]
pub struct Ns3Veno {
    base_rtt: Option<Time>,
    min_rtt: Option<Time>,
    samples: u32,
    /// The last backlog computed, in segments.
    diff: u64,
    /// Alternates the growth of a backlogged window.
    inc: bool,
    off: bool,
    off_until: Option<u64>,
    snd_max: u64,
}

impl Ns3Veno {
    fn on_ack(&mut self, beta: f64, ack: &AckInfo, st: &mut CcState) {
        self.snd_max = ack.ack_seq + ack.in_flight;
        if let Some(r) = ack.srtt.filter(|&r| r > 0) {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
            self.samples += 1;
        }
        if ack.in_recovery {
            self.off = true;
            return;
        }
        if self.off && self.off_until.is_none_or(|r| ack.ack_seq >= r) {
            // CongestionStateSet(CA_OPEN) forgets the RTT minimum (after this ACK's sample).
            self.off = false;
            self.off_until = None;
            self.min_rtt = None;
        }
        if ack.acked_bytes == 0 {
            return;
        }
        let seg = st.cwnd / st.mss;
        // Without a sample since the reset ns-3 divides by Time::Max: the target is zero.
        let target = match (self.base_rtt, self.min_rtt) {
            (Some(b), Some(m)) if m > 0 => (seg as f64 * (b as f64 / m as f64)) as u64,
            _ => 0,
        };
        self.diff = seg.saturating_sub(target);
        if self.off {
            reno_increase(ack, st);
            return;
        }
        if self.samples <= 2 || st.cwnd < st.ssthresh || (self.diff as f64) < beta {
            reno_increase(ack, st);
        } else {
            if !self.inc {
                reno_increase(ack, st);
            }
            self.inc = !self.inc;
        }
        self.samples = 0;
        self.min_rtt = None;
    }

    fn on_congestion(&mut self, beta: f64, ev: &CongestionEvent, st: &CcState) -> Reaction {
        self.off = true;
        if ev.kind == CongestionKind::Timeout {
            self.off_until = Some(self.snd_max);
        }
        let (r, class) = if (self.diff as f64) < beta {
            ((ev.in_flight * 4 / 5).max(2 * st.mss), LossClass::Wireless)
        } else {
            (half_flight(ev.in_flight, st.mss), LossClass::Congestion)
        };
        // As in the paper's rule, only a loss found by duplicate ACKs counts as judged.
        if ev.kind == CongestionKind::DupAcks {
            Reaction::cut(r).judged(class)
        } else {
            Reaction::cut(r)
        }
    }
}

impl Veno {
    pub fn new(p: &mut Params) -> Result<Self, (String, String)> {
        let beta = p.get("beta", 3.0)?;
        let ns3 = p.get("ns3", 0.0)?;
        if ns3 != 0.0 && ns3 != 1.0 {
            return Err(("ns3".into(), format!("must be 0 or 1, got {ns3}")));
        }
        if beta < 0.0 {
            return Err(("beta".into(), format!("must be >= 0, got {beta}")));
        }
        Ok(Veno {
            beta,
            rounds: RttRounds::default(),
            skip: false,
            random_losses: 0,
            congestive_losses: 0,
            ns3: (ns3 == 1.0).then(Ns3Veno::default),
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
        if let Some(n) = &mut self.ns3 {
            n.on_ack(self.beta, ack, st);
            return;
        }
        self.rounds.on_ack(ack);
        if ack.no_growth() {
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
        if let Some(n) = &mut self.ns3 {
            let r = n.on_congestion(self.beta, ev, st);
            match r.verdict {
                Some(LossClass::Wireless) => self.random_losses += 1,
                Some(LossClass::Congestion) => self.congestive_losses += 1,
                None => {}
            }
            return r;
        }
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
        let ev = CongestionEvent::at(0, CongestionKind::DupAcks, cwnd);
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

    fn ns3_veno() -> Veno {
        let mut m = BTreeMap::new();
        m.insert("ns3".to_string(), 1.0);
        Veno::new(&mut Params::new(&m)).unwrap()
    }

    fn srtt_ack(srtt: Time) -> AckInfo {
        AckInfo {
            acked_bytes: 1000,
            rtt: Some(srtt),
            srtt: Some(srtt),
            ..Default::default()
        }
    }

    fn loss_event(kind: CongestionKind, in_flight: u64) -> CongestionEvent {
        CongestionEvent {
            now: 0,
            kind,
            in_flight,
            flight_size: 20_000,
            min_rtt: None,
            true_cause: None,
        }
    }

    #[test]
    fn ns3_random_loss_cuts_four_fifths_of_the_flight_timeouts_too() {
        let mut v = ns3_veno();
        let mut st = CcState {
            cwnd: 20_000,
            ssthresh: 10_000,
            mss: 1000,
        };
        // SRTT at its minimum: no backlog.
        v.on_ack(&srtt_ack(100 * MS), &mut st);
        let r = v.on_congestion(&loss_event(CongestionKind::DupAcks, 15_000), &st);
        assert_eq!(r.ssthresh, 12_000, "4/5 of the pipe, not of cwnd");
        assert_eq!(r.verdict, Some(LossClass::Wireless));
        let r = v.on_congestion(&loss_event(CongestionKind::Timeout, 15_000), &st);
        assert_eq!(r.ssthresh, 12_000);
        assert_eq!(r.verdict, None);
        // The paper's Veno halves at a timeout.
        let mut p = Veno::new(&mut Params::new(&BTreeMap::new())).unwrap();
        assert_eq!(
            p.on_congestion(&loss_event(CongestionKind::Timeout, 15_000), &st)
                .ssthresh,
            7_500
        );
    }

    #[test]
    fn ns3_backlog_is_from_the_last_acks_srtt_in_whole_segments() {
        let mut v = ns3_veno();
        let mut st = CcState {
            cwnd: 20_000,
            ssthresh: 10_000,
            mss: 1000,
        };
        v.on_ack(&srtt_ack(100 * MS), &mut st);
        // SRTT 118 ms: target floor(20 x 100/118) = 16, N = 4 >= beta: congestive.
        st.cwnd = 20_000;
        v.on_ack(&srtt_ack(118 * MS), &mut st);
        let r = v.on_congestion(&loss_event(CongestionKind::DupAcks, 20_000), &st);
        assert_eq!(
            (r.ssthresh, r.verdict),
            (10_000, Some(LossClass::Congestion))
        );
        // The first ACK after the loss re-enables Veno, which forgets the RTT minimum after
        // taking this ACK's sample: ns-3 divides by Time::Max, so N = cwnd (congestive).
        st.cwnd = 20_000;
        v.on_ack(&srtt_ack(110 * MS), &mut st);
        let r = v.on_congestion(&loss_event(CongestionKind::DupAcks, 20_000), &st);
        assert_eq!(r.verdict, Some(LossClass::Congestion));
        v.on_ack(&srtt_ack(110 * MS), &mut st);
        // The next: SRTT 110 ms, target floor(20 x 100/110) = 18, N = 2 < beta: random.
        st.cwnd = 20_000;
        v.on_ack(&srtt_ack(110 * MS), &mut st);
        let r = v.on_congestion(&loss_event(CongestionKind::DupAcks, 20_000), &st);
        assert_eq!(r.verdict, Some(LossClass::Wireless));
    }
}
