//! Multi-level ECN queues. Both read the two ECN bits as congestion levels: '01' no congestion
//! (what an MECN sender sends), '10' incipient/mild, '11' moderate/severe; '00' is a packet
//! that is not ECN-capable. Both use RED's average queue ([`RedAverage`]).
//!
//! * [`Mecn`] (Durresi et al. 2001, as summarised in seed paper 000 §2.1): between min_th and
//!   max_th a packet is marked '10' with probability p1, rising linearly from 0 at min_th to
//!   `max_p` at max_th; between mid_th and max_th it is first marked '11' with probability p2,
//!   rising from 0 at mid_th to `max_p2` at max_th; above max_th packets are dropped.
//! * [`Wmecn`] (seed paper 000 §3.1): between min_th and mid_th '10' with a probability rising
//!   to `max_p` at mid_th; between mid_th and max_th '11' with a probability rising to `max_p`
//!   at max_th and '10' for every packet not marked '11'; above max_th every packet '11'.
//!   Packets are dropped only when the buffer overflows.

use super::droptail::Limit;
use super::red::{mark, occupancy, RedAverage};
use super::QueuePolicy;
use super::{Fifo, MarkCounts, Verdict};
use crate::engine::{Rng, Time};
use crate::packet::{DropCause, Wire};

/// Codepoints of the congestion levels.
pub const MILD: u8 = 0b10;
pub const SEVERE: u8 = 0b11;

/// Thresholds shared by both queues (in the queue's unit).
#[derive(Clone, Copy, Debug)]
pub struct Thresholds {
    pub min: f64,
    pub mid: f64,
    pub max: f64,
}

fn note(counts: &mut MarkCounts, level: u8) {
    if level == SEVERE {
        counts.severe += 1;
    } else {
        counts.mild += 1;
    }
}

fn ramp(avg: f64, from: f64, to: f64, top: f64) -> f64 {
    (top * (avg - from) / (to - from)).clamp(0.0, top)
}

/// What a multi-level queue decided for one packet before the overflow check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Pass,
    Mark(u8),
    Drop,
}

pub struct Mecn {
    pub limit: Limit,
    pub th: Thresholds,
    pub max_p1: f64,
    pub max_p2: f64,
    pub est: RedAverage,
    rng: Rng,
    pub counts: MarkCounts,
}

impl Mecn {
    pub fn new(
        limit: Limit,
        th: Thresholds,
        max_p1: f64,
        max_p2: f64,
        weight: f64,
        typical_tx: Time,
        rng: Rng,
    ) -> Self {
        Mecn {
            limit,
            th,
            max_p1,
            max_p2,
            est: RedAverage::new(weight, typical_tx),
            rng,
            counts: MarkCounts::default(),
        }
    }

    /// (p1, p2) at average `avg` below max_th.
    pub fn probabilities(&self, avg: f64) -> (f64, f64) {
        let t = self.th;
        if avg < t.min {
            return (0.0, 0.0);
        }
        let p1 = ramp(avg, t.min, t.max, self.max_p1);
        let p2 = if avg >= t.mid {
            ramp(avg, t.mid, t.max, self.max_p2)
        } else {
            0.0
        };
        (p1, p2)
    }

    pub fn decide(&mut self, avg: f64) -> Decision {
        if avg >= self.th.max {
            return Decision::Drop;
        }
        let (p1, p2) = self.probabilities(avg);
        if p2 > 0.0 && self.rng.uniform() < p2 {
            Decision::Mark(SEVERE)
        } else if p1 > 0.0 && self.rng.uniform() < p1 {
            Decision::Mark(MILD)
        } else {
            Decision::Pass
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
        match self.decide(avg) {
            Decision::Drop => {
                self.counts.early_drops += 1;
                return Verdict::Drop(DropCause::Aqm);
            }
            // A packet that cannot carry the mark is dropped instead, as RED does.
            Decision::Mark(_) if !pkt.ip.ecn.is_ect() => {
                self.counts.early_drops += 1;
                return Verdict::Drop(DropCause::Aqm);
            }
            Decision::Mark(level) => {
                mark(pkt, level);
                note(&mut self.counts, level);
            }
            Decision::Pass => {}
        }
        if !self.limit.fits(fifo, pkt.size) {
            return Verdict::Drop(DropCause::QueueOverflow);
        }
        Verdict::Accept
    }
}

pub struct Wmecn {
    pub limit: Limit,
    pub th: Thresholds,
    pub max_p: f64,
    pub est: RedAverage,
    rng: Rng,
    pub counts: MarkCounts,
}

impl Wmecn {
    pub fn new(
        limit: Limit,
        th: Thresholds,
        max_p: f64,
        weight: f64,
        typical_tx: Time,
        rng: Rng,
    ) -> Self {
        Wmecn {
            limit,
            th,
            max_p,
            est: RedAverage::new(weight, typical_tx),
            rng,
            counts: MarkCounts::default(),
        }
    }

    pub fn decide(&mut self, avg: f64) -> Decision {
        let t = self.th;
        if avg < t.min {
            Decision::Pass
        } else if avg < t.mid {
            let p = ramp(avg, t.min, t.mid, self.max_p);
            if self.rng.uniform() < p {
                Decision::Mark(MILD)
            } else {
                Decision::Pass
            }
        } else if avg < t.max {
            // Every packet gets a mark from here on: '11' at random, '10' otherwise.
            let p = ramp(avg, t.mid, t.max, self.max_p);
            if self.rng.uniform() < p {
                Decision::Mark(SEVERE)
            } else {
                Decision::Mark(MILD)
            }
        } else {
            Decision::Mark(SEVERE)
        }
    }

    pub fn admit(&mut self, now: Time, pkt: &mut Wire, fifo: &Fifo) -> Verdict {
        let avg = self.est.on_arrival(now, occupancy(self.limit, fifo));
        if !self.limit.fits(fifo, pkt.size) {
            self.est.refused(now);
            return Verdict::Drop(DropCause::QueueOverflow);
        }
        // Packets that cannot carry a mark pass: this queue drops only on overflow.
        if pkt.ip.ecn.is_ect() {
            if let Decision::Mark(level) = self.decide(avg) {
                mark(pkt, level);
                note(&mut self.counts, level);
            }
        }
        Verdict::Accept
    }
}

impl QueuePolicy for Mecn {
    fn admit(&mut self, now: Time, pkt: &mut Wire, fifo: &Fifo) -> Verdict {
        Mecn::admit(self, now, pkt, fifo)
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
        self.counts
    }
}

impl QueuePolicy for Wmecn {
    fn admit(&mut self, now: Time, pkt: &mut Wire, fifo: &Fifo) -> Verdict {
        Wmecn::admit(self, now, pkt, fifo)
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
        self.counts
    }
}

#[cfg(test)]
mod tests {
    use super::super::red::tests::{fifo, pkt};
    use super::*;
    use crate::engine::MS;
    use crate::packet::Ecn;

    const TH: Thresholds = Thresholds {
        min: 5.0,
        mid: 10.0,
        max: 15.0,
    };

    fn mecn() -> Mecn {
        Mecn::new(Limit::Packets(50), TH, 0.1, 0.2, 0.002, 8 * MS, Rng::new(5))
    }

    fn wmecn() -> Wmecn {
        Wmecn::new(Limit::Packets(50), TH, 0.1, 0.002, 8 * MS, Rng::new(5))
    }

    /// Fractions of (pass, mild, severe, drop) over many decisions at `avg`.
    fn shares(mut decide: impl FnMut() -> Decision) -> [f64; 4] {
        let n = 40_000;
        let mut c = [0u32; 4];
        for _ in 0..n {
            c[match decide() {
                Decision::Pass => 0,
                Decision::Mark(MILD) => 1,
                Decision::Mark(_) => 2,
                Decision::Drop => 3,
            }] += 1;
        }
        c.map(|k| k as f64 / n as f64)
    }

    /// Within four binomial standard errors of `want` over the 40,000 draws of `shares`:
    /// tight enough to tell 0.9 · 0.075 from 0.075.
    fn near(got: f64, want: f64) -> bool {
        (got - want).abs() < 4.0 * (want * (1.0 - want) / 40_000.0).sqrt()
    }

    #[test]
    fn mecn_probabilities_by_region() {
        let q = mecn();
        assert_eq!(q.probabilities(4.0), (0.0, 0.0));
        let (p1, p2) = q.probabilities(7.5);
        assert!((p1 - 0.025).abs() < 1e-12 && p2 == 0.0);
        let (p1, p2) = q.probabilities(12.5);
        assert!((p1 - 0.075).abs() < 1e-12 && (p2 - 0.1).abs() < 1e-12);
    }

    #[test]
    fn mecn_marking_regions() {
        let mut q = mecn();
        assert_eq!(shares(|| q.decide(4.9)), [1.0, 0.0, 0.0, 0.0]);
        let s = shares(|| q.decide(7.5));
        assert!(near(s[1], 0.025) && s[2] == 0.0 && s[3] == 0.0, "{s:?}");
        // '11' with p2 = 0.1, else '10' with p1 = 0.075.
        let s = shares(|| q.decide(12.5));
        assert!(
            near(s[2], 0.1) && near(s[1], 0.9 * 0.075) && s[3] == 0.0,
            "{s:?}"
        );
        assert_eq!(shares(|| q.decide(15.0)), [0.0, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn mecn_drops_non_ect_where_it_would_mark() {
        let mut q = mecn();
        q.est.avg = 16.0;
        q.est.weight = 0.0;
        let f = fifo(16);
        assert_eq!(
            q.admit(MS, &mut pkt(Ecn::ECT1), &f),
            Verdict::Drop(DropCause::Aqm)
        );
        q.est.avg = 12.5;
        let n = 100_000;
        let mut drops = 0;
        for _ in 0..n {
            let mut p = pkt(Ecn::NOT_ECT);
            drops += (q.admit(MS, &mut p, &f) != Verdict::Accept) as u32;
        }
        // Chosen with probability 1 - (1 - 0.1)(1 - 0.075) = 0.1675: within four binomial
        // standard errors (about 470), which excludes 0.1 + 0.075 (17,500).
        let (p, n) = (0.1675, n as f64);
        let sd = (n * p * (1.0 - p)).sqrt();
        assert!((drops as f64 - n * p).abs() < 4.0 * sd, "{drops}");
    }

    #[test]
    fn wmecn_marking_regions() {
        let mut q = wmecn();
        assert_eq!(shares(|| q.decide(4.9)), [1.0, 0.0, 0.0, 0.0]);
        // Halfway from min to mid: '10' with 0.05.
        let s = shares(|| q.decide(7.5));
        assert!(near(s[1], 0.05) && s[2] == 0.0, "{s:?}");
        // Just below mid: close to max_p.
        let s = shares(|| q.decide(9.99));
        assert!(near(s[1], 0.1), "{s:?}");
        // From mid on, every packet is marked: '11' with a ramp to max_p, '10' otherwise.
        let s = shares(|| q.decide(10.0));
        assert_eq!(s, [0.0, 1.0, 0.0, 0.0]);
        let s = shares(|| q.decide(12.5));
        assert!(s[0] == 0.0 && near(s[2], 0.05) && near(s[1], 0.95), "{s:?}");
        assert_eq!(shares(|| q.decide(15.0)), [0.0, 0.0, 1.0, 0.0]);
        assert_eq!(shares(|| q.decide(40.0)), [0.0, 0.0, 1.0, 0.0]);
    }

    #[test]
    fn wmecn_drops_only_on_overflow() {
        let mut q = wmecn();
        q.est.avg = 40.0;
        q.est.weight = 0.0;
        let mut p = pkt(Ecn::ECT1);
        assert_eq!(q.admit(MS, &mut p, &fifo(49)), Verdict::Accept);
        assert_eq!(p.ip.ecn.bits(), SEVERE);
        let mut p = pkt(Ecn::NOT_ECT);
        assert_eq!(q.admit(MS, &mut p, &fifo(49)), Verdict::Accept);
        assert_eq!(p.ip.ecn, Ecn::NOT_ECT, "non-ECT passes unmarked");
        assert_eq!(
            q.admit(MS, &mut pkt(Ecn::ECT1), &fifo(50)),
            Verdict::Drop(DropCause::QueueOverflow)
        );
        assert_eq!(q.counts.early_drops, 0);
        assert_eq!(q.counts.severe, 1);
    }

    #[test]
    fn marks_never_lower_an_earlier_mark() {
        let mut q = wmecn();
        q.est.avg = 10.0;
        q.est.weight = 0.0;
        let mut p = pkt(Ecn(SEVERE));
        q.admit(MS, &mut p, &fifo(10));
        assert_eq!(p.ip.ecn.bits(), SEVERE, "'10' does not overwrite '11'");
    }
}
