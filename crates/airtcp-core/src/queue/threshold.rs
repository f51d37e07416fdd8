//! Step (threshold) ECN marking, as DCTCP's switches do: an ECN-capable packet arriving to a
//! queue of at least `mark_at` packets is marked CE; non-ECT packets pass unmarked. Drops
//! happen only on overflow. With `mark_at = 0` every ECN-capable packet is marked.

use super::{Fifo, MarkCounts, QueuePolicy, Verdict};
use crate::engine::Time;
use crate::packet::{DropCause, Ecn, Wire};
use crate::queue::droptail::Limit;

pub struct ThresholdMark {
    pub limit: Limit,
    pub mark_at: u64,
    pub marked: u64,
    /// `count_starting`: see [`QueuePolicy::counts_starting`].
    pub count_starting: bool,
}

impl QueuePolicy for ThresholdMark {
    fn admit(&mut self, _now: Time, pkt: &mut Wire, fifo: &Fifo) -> Verdict {
        if !self.limit.fits(fifo, pkt.size) {
            return Verdict::Drop(DropCause::QueueOverflow);
        }
        if fifo.len() as u64 >= self.mark_at && pkt.ip.ecn.is_ect() {
            pkt.ip.ecn = Ecn::CE;
            self.marked += 1;
        }
        Verdict::Accept
    }

    fn counts_starting(&self) -> bool {
        self.count_starting
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
    use crate::ids::PacketId;
    use crate::queue::red::tests::pkt;

    #[test]
    fn marks_ect_at_or_above_threshold_only() {
        let mut q = ThresholdMark {
            limit: Limit::Packets(3),
            mark_at: 1,
            marked: 0,
            count_starting: false,
        };
        let mut f = Fifo::default();
        let mut p = pkt(Ecn::ECT0);
        assert_eq!(q.admit(0, &mut p, &f), Verdict::Accept);
        assert_eq!(p.ip.ecn, Ecn::ECT0, "empty queue: below threshold");
        f.push(PacketId(0), 1040);
        let mut p = pkt(Ecn::ECT0);
        q.admit(0, &mut p, &f);
        assert_eq!(p.ip.ecn, Ecn::CE);
        let mut p = pkt(Ecn::NOT_ECT);
        q.admit(0, &mut p, &f);
        assert_eq!(p.ip.ecn, Ecn::NOT_ECT, "non-ECT is never marked");
        f.push(PacketId(1), 1040);
        f.push(PacketId(2), 1040);
        assert_eq!(
            q.admit(0, &mut pkt(Ecn::ECT0), &f),
            Verdict::Drop(DropCause::QueueOverflow)
        );
        assert_eq!(q.marked, 1);
    }
}
