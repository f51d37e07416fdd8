//! Reno (RFC 5681): the same window rules as NewReno, paired with RFC 5681 fast recovery, where
//! the first new ACK ends recovery, so several losses in one window cost several halvings or a
//! timeout.

use super::newreno::reno_increase;
use super::{half_flight, AckInfo, CcState, CongestionControl, CongestionEvent, Reaction};

#[derive(Default, Clone, Debug)]
pub struct Reno;

impl CongestionControl for Reno {
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        reno_increase(ack, st);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        Reaction {
            ssthresh: half_flight(ev.in_flight, st.mss),
            cwnd: None,
        }
    }
}
