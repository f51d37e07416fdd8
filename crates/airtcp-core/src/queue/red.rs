//! Random Early Detection (Floyd & Jacobson, IEEE/ACM ToN 1(4), 1993), with ECN marking of
//! ECN-capable packets (RFC 3168 §7) and the optional "gentle" ramp above max_th.
//!
//! The average queue is an EWMA over arrivals, `avg ← (1−w)·avg + w·q`; after an idle period
//! it is first decayed as if `m` small packets had arrived to an empty queue, where `m` is the
//! idle time over the transmission time of a typical packet (§4 of the paper). Between the
//! thresholds a packet is chosen with `pa = pb / (1 − count·pb)`, `pb = max_p·(avg−min)/(max−min)`,
//! which spreads the chosen packets evenly instead of in clusters (§7).

use super::droptail::Limit;
use super::{Fifo, Verdict};
use super::{MarkCounts, QueuePolicy};
use crate::engine::{Rng, Time};
use crate::packet::{DropCause, Ecn, Wire};

/// The RED average queue estimator, shared by RED and the multi-level ECN queues.
#[derive(Clone, Debug)]
pub struct RedAverage {
    /// EWMA weight w_q.
    pub weight: f64,
    /// Average queue, in the queue's unit (packets or bytes).
    pub avg: f64,
    /// Transmission time of a typical packet, for the idle-time correction.
    pub typical_tx: Time,
    /// When the queue last went idle (link idle and queue empty), if it is idle now.
    idle_since: Option<Time>,
    /// Whether the latest arrival found the queue idle.
    arrived_idle: bool,
}

impl RedAverage {
    pub fn new(weight: f64, typical_tx: Time) -> Self {
        RedAverage {
            weight,
            avg: 0.0,
            typical_tx: typical_tx.max(1),
            // The queue starts idle at time zero.
            idle_since: Some(0),
            arrived_idle: false,
        }
    }

    /// Update on an arrival that finds `q` queued (packets or bytes, the queue's unit).
    pub fn on_arrival(&mut self, now: Time, q: f64) -> f64 {
        self.arrived_idle = self.idle_since.is_some();
        if let Some(since) = self.idle_since.take() {
            let m = now.saturating_sub(since) as f64 / self.typical_tx as f64;
            self.avg *= (1.0 - self.weight).powf(m);
        }
        self.avg += self.weight * (q - self.avg);
        self.avg
    }

    /// The link finished sending and nothing is queued.
    pub fn on_idle(&mut self, now: Time) {
        self.idle_since = Some(now);
    }

    /// The latest arrival was refused. If it found the queue idle, the queue is still empty
    /// and the link still idle, so the idle period goes on from `now` (the average has been
    /// decayed up to here): otherwise, with no departure to mark the queue idle again, later
    /// arrivals would never decay an average left above max_th, and every packet would be
    /// refused (Floyd & Jacobson §4 decay at every arrival to an empty queue; Linux's
    /// red_dequeue restarts the idle period whenever it finds the queue empty).
    pub fn refused(&mut self, now: Time) {
        if self.arrived_idle {
            self.idle_since = Some(now);
        }
    }
}

/// The occupancy RED averages: packets, or bytes in byte mode.
pub fn occupancy(limit: Limit, fifo: &Fifo) -> f64 {
    match limit {
        Limit::Packets(_) => fifo.len() as f64,
        Limit::Bytes(_) => fifo.bytes() as f64,
    }
}

/// Mark an ECN-capable packet with `level` (0b10 or 0b11), never lowering a mark an earlier
/// router set.
pub fn mark(pkt: &mut Wire, level: u8) {
    if level > pkt.ip.ecn.bits() {
        pkt.ip.ecn = Ecn(level);
    }
}

pub struct Red {
    pub limit: Limit,
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub gentle: bool,
    /// Mark ECN-capable packets CE instead of dropping them.
    pub ecn: bool,
    /// Byte mode: the probability scales with packet size over this size (bytes).
    pub mean_packet_size: u32,
    pub est: RedAverage,
    /// Packets since the last chosen one while avg was between the thresholds (−1: below).
    count: i64,
    rng: Rng,
    pub marked: u64,
    pub early_drops: u64,
}

impl Red {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        limit: Limit,
        min_th: f64,
        max_th: f64,
        max_p: f64,
        weight: f64,
        gentle: bool,
        ecn: bool,
        mean_packet_size: u32,
        typical_tx: Time,
        rng: Rng,
    ) -> Self {
        Red {
            limit,
            min_th,
            max_th,
            max_p,
            gentle,
            ecn,
            mean_packet_size: mean_packet_size.max(1),
            est: RedAverage::new(weight, typical_tx),
            count: -1,
            rng,
            marked: 0,
            early_drops: 0,
        }
    }

    /// The base probability pb at average `avg`, or None above the region where RED chooses
    /// packets at random (every packet is then dropped).
    pub fn base_probability(&self, avg: f64) -> Option<f64> {
        if avg < self.min_th {
            Some(0.0)
        } else if avg < self.max_th {
            Some(self.max_p * (avg - self.min_th) / (self.max_th - self.min_th))
        } else if self.gentle && avg < 2.0 * self.max_th {
            Some(self.max_p + (1.0 - self.max_p) * (avg - self.max_th) / self.max_th)
        } else {
            None
        }
    }

    /// Probability of choosing this packet, given `pb` and the count since the last choice.
    pub fn choice_probability(pb: f64, count: i64) -> f64 {
        let denom = 1.0 - count.max(0) as f64 * pb;
        if denom <= 0.0 {
            1.0
        } else {
            (pb / denom).min(1.0)
        }
    }

    pub fn admit(&mut self, now: Time, pkt: &mut Wire, fifo: &Fifo) -> Verdict {
        let v = self.judge(now, pkt, fifo);
        if matches!(v, Verdict::Drop(_)) {
            self.est.refused(now);
        }
        v
    }

    fn judge(&mut self, now: Time, pkt: &mut Wire, fifo: &Fifo) -> Verdict {
        let avg = self.est.on_arrival(now, occupancy(self.limit, fifo));
        let chosen = match self.base_probability(avg) {
            Some(pb) if pb <= 0.0 => {
                self.count = -1;
                false
            }
            Some(mut pb) => {
                self.count += 1;
                if matches!(self.limit, Limit::Bytes(_)) {
                    pb *= pkt.size as f64 / self.mean_packet_size as f64;
                }
                let pa = Self::choice_probability(pb, self.count);
                let hit = self.rng.uniform() < pa;
                if hit {
                    self.count = 0;
                }
                hit
            }
            None => {
                // Above the random region: every packet is dropped, ECN-capable or not
                // (RFC 3168 §7: marking cannot help a queue this long).
                self.count = 0;
                self.early_drops += 1;
                return Verdict::Drop(DropCause::Aqm);
            }
        };
        if chosen {
            if self.ecn && pkt.ip.ecn.is_ect() {
                mark(pkt, Ecn::CE.bits());
                self.marked += 1;
            } else {
                self.early_drops += 1;
                return Verdict::Drop(DropCause::Aqm);
            }
        }
        if !self.limit.fits(fifo, pkt.size) {
            return Verdict::Drop(DropCause::QueueOverflow);
        }
        Verdict::Accept
    }
}

impl QueuePolicy for Red {
    fn admit(&mut self, now: Time, pkt: &mut Wire, fifo: &Fifo) -> Verdict {
        Red::admit(self, now, pkt, fifo)
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
            mild: 0,
            severe: self.marked,
            early_drops: self.early_drops,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::engine::MS;
    use crate::ids::{FlowId, NodeId, PacketId};
    use crate::packet::{IpHeader, Packet, Proto, TcpHeader};

    pub fn pkt(ecn: Ecn) -> Packet {
        Packet::new(
            Wire {
                flow: FlowId(0),
                src: NodeId(0),
                dst: NodeId(1),
                size: 1000,
                proto: Proto::Tcp,
                ip: IpHeader {
                    ecn,
                    ..Default::default()
                },
                tcp: TcpHeader::default(),
                udp_seq: 0,
            },
            0,
        )
    }

    pub fn fifo(n: u32) -> Fifo {
        let mut f = Fifo::default();
        for i in 0..n {
            f.push(PacketId(i), 1000);
        }
        f
    }

    fn red(gentle: bool, ecn: bool) -> Red {
        Red::new(
            Limit::Packets(50),
            5.0,
            15.0,
            0.1,
            0.002,
            gentle,
            ecn,
            1000,
            8 * MS,
            Rng::new(1),
        )
    }

    #[test]
    fn average_is_an_ewma_of_arrivals() {
        let mut e = RedAverage::new(0.002, 8 * MS);
        // An arrival at time 0 to an empty, just-idle queue.
        assert_eq!(e.on_arrival(0, 0.0), 0.0);
        // 10 arrivals each finding 10 packets: avg = 10 (1 - 0.998^10).
        let mut a = 0.0;
        for _ in 0..10 {
            a = e.on_arrival(MS, 10.0);
        }
        let want = 10.0 * (1.0 - 0.998f64.powi(10));
        assert!((a - want).abs() < 1e-12, "{a} vs {want}");
    }

    #[test]
    fn idle_time_decays_the_average() {
        let mut e = RedAverage::new(0.5, 10 * MS);
        e.avg = 8.0;
        e.on_idle(100 * MS);
        // 30 ms idle = 3 typical packets: 8 * 0.5^3 = 1, then the arrival: 0.5 * 1 = 0.5.
        let a = e.on_arrival(130 * MS, 0.0);
        assert!((a - 0.5).abs() < 1e-12, "{a}");
        // Not idle any more: a plain EWMA step.
        let a = e.on_arrival(131 * MS, 3.0);
        assert!((a - 1.75).abs() < 1e-12, "{a}");
    }

    #[test]
    fn a_refused_arrival_at_an_idle_queue_leaves_it_idle() {
        let mut r = red(false, false);
        r.est.avg = 20.0;
        r.est.on_idle(0);
        let empty = Fifo::default();
        // 80 ms idle = 10 typical packets: 20 * 0.998^10 is still above max_th: dropped.
        let v = r.admit(80 * MS, &mut pkt(Ecn::NOT_ECT), &empty);
        assert!(matches!(v, Verdict::Drop(DropCause::Aqm)));
        // The queue stayed empty and the link idle: the next arrival, 8 s later, decays the
        // average by another 1000 typical packets, where an arrival that ended the idle
        // period would have taken a single EWMA step.
        let before = r.est.avg;
        r.admit(8080 * MS, &mut pkt(Ecn::NOT_ECT), &empty);
        let want = before * 0.998f64.powf(1000.0) * 0.998;
        assert!((r.est.avg - want).abs() < 1e-9, "{} vs {want}", r.est.avg);
        assert!(r.est.avg < 5.0);
    }

    #[test]
    fn base_probability_by_region() {
        let r = red(false, true);
        assert_eq!(r.base_probability(4.9), Some(0.0));
        assert!((r.base_probability(10.0).unwrap() - 0.05).abs() < 1e-12);
        assert!((r.base_probability(14.0).unwrap() - 0.09).abs() < 1e-12);
        assert_eq!(r.base_probability(15.0), None);
        let g = red(true, true);
        // Gentle: from max_p at max_th to 1 at 2 max_th.
        assert!((g.base_probability(15.0).unwrap() - 0.1).abs() < 1e-12);
        assert!((g.base_probability(22.5).unwrap() - 0.55).abs() < 1e-12);
        assert_eq!(g.base_probability(30.0), None);
    }

    #[test]
    fn count_spreads_choices() {
        // pa = pb / (1 - count pb): 0.05, then 0.05/0.95, ... and 1 once count*pb >= 1.
        assert!((Red::choice_probability(0.05, 0) - 0.05).abs() < 1e-12);
        assert!((Red::choice_probability(0.05, 1) - 0.05 / 0.95).abs() < 1e-12);
        assert!((Red::choice_probability(0.05, 10) - 0.1).abs() < 1e-12);
        assert_eq!(Red::choice_probability(0.05, 20), 1.0);
        assert_eq!(Red::choice_probability(0.05, 25), 1.0);
    }

    #[test]
    fn marks_ect_drops_others_at_the_same_rate() {
        let mut marked = 0;
        let mut dropped = 0;
        let mut r = red(false, true);
        r.est.avg = 10.0;
        let f = fifo(10);
        for _ in 0..20_000 {
            let mut p = pkt(Ecn::ECT0);
            assert_eq!(r.admit(MS, &mut p, &f), Verdict::Accept);
            marked += (p.ip.ecn == Ecn::CE) as u32;
        }
        let mut r = red(false, true);
        r.est.avg = 10.0;
        for _ in 0..20_000 {
            let mut p = pkt(Ecn::NOT_ECT);
            if r.admit(MS, &mut p, &f) == Verdict::Drop(DropCause::Aqm) {
                dropped += 1;
            }
            assert_eq!(p.ip.ecn, Ecn::NOT_ECT);
        }
        // pb = 0.05; with the count rule a packet is chosen every ~1/(2 pb) = 10.5 packets
        // on average (uniform gap on 1..1/pb).
        for n in [marked, dropped] {
            let per = 20_000.0 / n as f64;
            assert!((9.5..11.5).contains(&per), "one in {per}");
        }
    }

    #[test]
    fn forced_drop_above_max_and_overflow() {
        let mut r = red(false, true);
        r.est.avg = 20.0;
        assert_eq!(
            r.admit(MS, &mut pkt(Ecn::ECT0), &fifo(20)),
            Verdict::Drop(DropCause::Aqm)
        );
        let mut r = red(false, true);
        r.est.avg = 0.0;
        r.est.weight = 0.0;
        assert_eq!(
            r.admit(MS, &mut pkt(Ecn::ECT0), &fifo(50)),
            Verdict::Drop(DropCause::QueueOverflow)
        );
    }

    #[test]
    fn without_ecn_ect_packets_are_dropped() {
        let mut r = red(false, false);
        r.est.avg = 14.9;
        r.est.weight = 0.0;
        let f = fifo(10);
        let drops = (0..1000)
            .filter(|_| r.admit(MS, &mut pkt(Ecn::ECT0), &f) != Verdict::Accept)
            .count();
        assert!(drops > 100, "{drops}");
        assert_eq!(r.marked, 0);
    }

    #[test]
    fn byte_mode_scales_with_packet_size() {
        let mut r = Red::new(
            Limit::Bytes(50_000),
            5000.0,
            15000.0,
            0.1,
            0.0,
            false,
            true,
            1000,
            8 * MS,
            Rng::new(3),
        );
        r.est.avg = 10_000.0;
        let f = fifo(10);
        let mut small = 0;
        for _ in 0..20_000 {
            let mut p = pkt(Ecn::ECT0);
            p.size = 100;
            r.admit(MS, &mut p, &f);
            small += (p.ip.ecn == Ecn::CE) as u32;
        }
        // pb = 0.05 * 100/1000 = 0.005: about one in 1/(2 * 0.005) = 100.
        let per = 20_000.0 / small as f64;
        assert!((85.0..115.0).contains(&per), "one in {per}");
    }
}
