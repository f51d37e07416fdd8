//! Congestion warning (CW), the router configuration of TCP Jersey and TCP New Jersey (Xu,
//! Tian & Ansari, IEEE JSAC 22(4), 2004; Computer Networks 47(2), 2005): while the average
//! queue is at or above a threshold, every ECN-capable packet is marked CE. There is no
//! probability and no early drop: the mark is a warning of incipient congestion that lets the
//! sender tell a loss in a congested period from one to the channel. Drops happen only on
//! overflow.
//!
//! The average is RED's EWMA over arrivals with its idle-time decay (`RedAverage`), as the
//! Jersey paper prescribes; `weight = 1` makes it the instantaneous queue. Packets that are not
//! ECN-capable pass unmarked (RFC 3168 §5), so flows of other schemes see a DropTail queue.

use super::droptail::Limit;
use super::red::{mark, occupancy, RedAverage};
use super::{Fifo, MarkCounts, QueuePolicy, Verdict};
use crate::engine::Time;
use crate::packet::{DropCause, Ecn, Wire};

pub struct CongestionWarning {
    pub limit: Limit,
    /// Mark while the average is at or above this, in the queue's unit.
    pub threshold: f64,
    pub est: RedAverage,
    pub marked: u64,
}

impl CongestionWarning {
    pub fn new(limit: Limit, threshold: f64, weight: f64, typical_tx: Time) -> Self {
        CongestionWarning {
            limit,
            threshold,
            est: RedAverage::new(weight, typical_tx),
            marked: 0,
        }
    }
}

impl QueuePolicy for CongestionWarning {
    fn admit(&mut self, now: Time, pkt: &mut Wire, fifo: &Fifo) -> Verdict {
        // The average counts every arrival, also one the queue then refuses (as RED does).
        let avg = self.est.on_arrival(now, occupancy(self.limit, fifo));
        if !self.limit.fits(fifo, pkt.size) {
            self.est.refused(now);
            return Verdict::Drop(DropCause::QueueOverflow);
        }
        if avg >= self.threshold && pkt.ip.ecn.is_ect() {
            mark(pkt, Ecn::CE.bits());
            self.marked += 1;
        }
        Verdict::Accept
    }

    fn on_idle(&mut self, now: Time) {
        self.est.on_idle(now);
    }

    fn tracks_idle(&self) -> bool {
        true
    }

    fn average(&self) -> Option<f64> {
        Some(self.est.avg)
    }

    fn marks(&self) -> MarkCounts {
        MarkCounts {
            severe: self.marked,
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use crate::queue::red::tests::{fifo, pkt};

    #[test]
    fn instantaneous_marks_every_ect_packet_at_or_above_the_threshold() {
        let mut q = CongestionWarning::new(Limit::Packets(10), 3.0, 1.0, MS);
        let mut p = pkt(Ecn::ECT1);
        assert_eq!(q.admit(0, &mut p, &fifo(2)), Verdict::Accept);
        assert_eq!(p.ip.ecn, Ecn::ECT1, "below the threshold");
        for _ in 0..5 {
            let mut p = pkt(Ecn::ECT1);
            q.admit(0, &mut p, &fifo(3));
            assert_eq!(p.ip.ecn, Ecn::CE, "every packet, not a random share");
        }
        let mut p = pkt(Ecn::NOT_ECT);
        q.admit(0, &mut p, &fifo(5));
        assert_eq!(p.ip.ecn, Ecn::NOT_ECT, "non-ECT passes unmarked");
        assert_eq!(q.marked, 5);
        assert_eq!(
            q.admit(0, &mut pkt(Ecn::ECT1), &fifo(10)),
            Verdict::Drop(DropCause::QueueOverflow)
        );
        assert_eq!(q.marked, 5, "a dropped packet is not counted as marked");
    }

    #[test]
    fn the_average_lags_the_queue() {
        // w = 0.25: after arrivals to a queue of 8 the average climbs 2, 3.5, 4.6 ...
        let mut q = CongestionWarning::new(Limit::Packets(20), 4.0, 0.25, MS);
        let marks: Vec<bool> = (0..3)
            .map(|_| {
                let mut p = pkt(Ecn::ECT0);
                q.admit(0, &mut p, &fifo(8));
                p.ip.ecn == Ecn::CE
            })
            .collect();
        assert_eq!(marks, [false, false, true]);
        assert!((q.est.avg - (8.0 - 8.0 * 0.75f64.powi(3))).abs() < 1e-9);
        // An idle period decays it: 40 ms idle at 1 ms per packet is (0.75)^40.
        q.on_idle(MS);
        let mut p = pkt(Ecn::ECT0);
        q.admit(41 * MS, &mut p, &fifo(0));
        assert_eq!(p.ip.ecn, Ecn::ECT0);
        assert!(q.est.avg < 1e-3, "{}", q.est.avg);
    }
}
