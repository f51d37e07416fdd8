//! The loss-cause oracle: NewReno's window rules, told by the simulator why each loss
//! happened. A loss to the channel (bit errors, MAC) is repaired without touching the window;
//! a loss to congestion gets NewReno's normal cut. It is the upper bound that loss
//! differentiation can reach: no real scheme can know the cause, so no real scheme may use
//! what this one is given (`CongestionControl::oracle`).
//!
//! After a timeout caused by a channel loss the ACK clock is gone, so the sender still
//! restarts from one segment, but ssthresh keeps the window it had (slow start climbs back to
//! it at once) instead of halving it. A loss the simulator has no record of (a spurious
//! retransmission) gets the normal cut.

use super::{
    half_flight, reno_increase, AckInfo, CcState, CongestionControl, CongestionEvent,
    CongestionKind, LossClass, Reaction,
};

#[derive(Default, Clone, Debug)]
pub struct Oracle;

impl CongestionControl for Oracle {
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        reno_increase(ack, st);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        let normal = Reaction::cut(half_flight(ev.in_flight, st.mss));
        let Some(cause) = ev.true_cause else {
            return normal;
        };
        if cause.is_congestion() {
            return normal.judged(LossClass::Congestion);
        }
        match ev.kind {
            CongestionKind::Timeout => Reaction {
                ssthresh: st.cwnd.max(2 * st.mss),
                cwnd: None,
                verdict: Some(LossClass::Wireless),
                keep_window: false,
            },
            _ => Reaction::keep().judged(LossClass::Wireless),
        }
    }

    fn oracle(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::DropCause;

    fn ev(kind: CongestionKind, cause: Option<DropCause>) -> CongestionEvent {
        CongestionEvent {
            now: 0,
            kind,
            in_flight: 10_000,
            flight_size: 10_000,
            min_rtt: None,
            true_cause: cause,
        }
    }

    const ST: CcState = CcState {
        cwnd: 10_000,
        ssthresh: 50_000,
        mss: 1000,
    };

    #[test]
    fn channel_losses_keep_the_window_congestion_losses_halve_it() {
        let r = Oracle.on_congestion(
            &ev(CongestionKind::DupAcks, Some(DropCause::ChannelError)),
            &ST,
        );
        assert!(r.keep_window);
        assert_eq!(r.verdict, Some(LossClass::Wireless));
        let r = Oracle.on_congestion(
            &ev(CongestionKind::DupAcks, Some(DropCause::QueueOverflow)),
            &ST,
        );
        assert!(!r.keep_window);
        assert_eq!(
            (r.ssthresh, r.verdict),
            (5_000, Some(LossClass::Congestion))
        );
        let r = Oracle.on_congestion(&ev(CongestionKind::DupAcks, Some(DropCause::Aqm)), &ST);
        assert_eq!(r.verdict, Some(LossClass::Congestion));
    }

    #[test]
    fn a_timeout_on_a_channel_loss_keeps_ssthresh_at_the_window() {
        let r = Oracle.on_congestion(
            &ev(CongestionKind::Timeout, Some(DropCause::ChannelError)),
            &ST,
        );
        assert_eq!((r.ssthresh, r.cwnd), (10_000, None));
        assert_eq!(r.verdict, Some(LossClass::Wireless));
    }

    #[test]
    fn an_unknown_cause_gets_the_normal_cut_and_no_verdict() {
        let r = Oracle.on_congestion(&ev(CongestionKind::DupAcks, None), &ST);
        assert_eq!((r.ssthresh, r.verdict, r.keep_window), (5_000, None, false));
    }
}
