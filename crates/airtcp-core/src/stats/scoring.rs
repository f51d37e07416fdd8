//! Loss-cause scoring: each verdict a sender gave on a loss (wireless or congestion) is checked
//! against the simulator's ground truth, the recorded cause of that segment's drop.
//!
//! A verdict names the segment the sender took as lost (its first unacknowledged one) and the
//! time. Its true cause is that of the latest drop of that segment at or before the verdict.
//! A verdict with no such drop, or whose drop an earlier verdict already judged, is about a
//! loss that did not happen (reordering, a delayed or lost ACK, a timeout after the repair
//! was sent) and is counted apart.
//!
//! * type-1 error: a congestion loss judged wireless (the dangerous one: no back-off);
//! * type-2 error: a wireless loss judged congestion (a needless cut).
//!
//! Rates are conditional on the true cause: `type1_rate` = type-1 errors / verdicts on
//! congestion losses, `type2_rate` = type-2 errors / verdicts on wireless losses.

use serde::Serialize;
use std::collections::HashMap;

use crate::engine::Time;
use crate::packet::DropCause;
use crate::tcp::cc::LossClass;
use crate::tcp::sender::LossDecision;

/// One lost data packet in a flow's ground truth: its TCP sequence number (or UDP datagram
/// number), the cause and the time. Sixteen bytes: the cause rides in the top four bits of
/// the sequence number, which never comes near 2^60. A long lossy run logs many of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LossRecord {
    seq_cause: u64,
    pub at: Time,
}

impl LossRecord {
    const SHIFT: u32 = 60;

    pub fn new(seq: u64, cause: DropCause, at: Time) -> LossRecord {
        assert!(
            seq >> Self::SHIFT == 0,
            "sequence number {seq} out of range"
        );
        LossRecord {
            seq_cause: seq | (cause.index() as u64) << Self::SHIFT,
            at,
        }
    }

    pub fn seq(&self) -> u64 {
        self.seq_cause & ((1 << Self::SHIFT) - 1)
    }

    pub fn cause(&self) -> DropCause {
        DropCause::ALL[(self.seq_cause >> Self::SHIFT) as usize]
    }
}

/// Let go of the records no verdict can use: those of segments below `snd_una` that no
/// verdict given so far names. A verdict names the sender's first unacknowledged segment,
/// so every later one names a segment at or above `snd_una`; the scores come out the same.
pub fn prune(log: &mut Vec<LossRecord>, snd_una: u64, decisions: &[LossDecision]) {
    let mut named: Vec<u64> = decisions.iter().map(|d| d.seq).collect();
    named.sort_unstable();
    named.dedup();
    log.retain(|r| r.seq() >= snd_una || named.binary_search(&r.seq()).is_ok());
}

/// The true cause of the loss a verdict judged.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Truth {
    Wireless,
    Congestion,
    /// Dropped for another reason (no route, TTL).
    Other,
    /// The segment had not been dropped.
    NoLoss,
}

/// The true cause behind each verdict: that of the latest drop of the judged segment at or
/// before the verdict, unless an earlier verdict already judged that drop.
pub fn truths(decisions: &[LossDecision], loss_log: &[LossRecord]) -> Vec<Truth> {
    // Per segment: its drops in time order, and whether a verdict has claimed each.
    let mut by_seq: HashMap<u64, Vec<(Time, DropCause, bool)>> = HashMap::new();
    for r in loss_log {
        by_seq
            .entry(r.seq())
            .or_default()
            .push((r.at, r.cause(), false));
    }
    decisions
        .iter()
        .map(|d| {
            let cause = by_seq.get_mut(&d.seq).and_then(|drops| {
                let n = drops.partition_point(|(at, _, _)| *at <= d.at);
                let last = &mut drops[n.checked_sub(1)?];
                if last.2 {
                    return None;
                }
                last.2 = true;
                Some(last.1)
            });
            match cause {
                None => Truth::NoLoss,
                Some(DropCause::ChannelError) => Truth::Wireless,
                Some(c) if c.is_congestion() => Truth::Congestion,
                Some(_) => Truth::Other,
            }
        })
        .collect()
}

#[derive(Serialize, Debug, Clone, Copy, Default, PartialEq)]
pub struct Scoring {
    /// Verdicts given.
    pub verdicts: u64,
    pub verdicts_wireless: u64,
    pub verdicts_congestion: u64,
    /// Verdicts by the true cause of the loss they judged.
    pub verdicts_on_wireless_loss: u64,
    pub verdicts_on_congestion_loss: u64,
    /// Verdicts on a segment that had not been dropped (spurious loss detection).
    pub verdicts_on_no_loss: u64,
    /// Verdicts on a segment dropped for another reason (no route, TTL).
    pub verdicts_on_other_loss: u64,
    pub type1_errors: u64,
    pub type2_errors: u64,
    pub type1_rate: Option<f64>,
    pub type2_rate: Option<f64>,
}

impl Scoring {
    /// Score `decisions` against `loss_log` (one flow's drops of data segments: sequence
    /// number, cause, time; in time order).
    pub fn score(decisions: &[LossDecision], loss_log: &[LossRecord]) -> Scoring {
        let mut s = Scoring::default();
        for (d, truth) in decisions.iter().zip(truths(decisions, loss_log)) {
            s.verdicts += 1;
            match d.class {
                LossClass::Wireless => s.verdicts_wireless += 1,
                LossClass::Congestion => s.verdicts_congestion += 1,
            }
            match truth {
                Truth::NoLoss => s.verdicts_on_no_loss += 1,
                Truth::Wireless => {
                    s.verdicts_on_wireless_loss += 1;
                    s.type2_errors += (d.class == LossClass::Congestion) as u64;
                }
                Truth::Congestion => {
                    s.verdicts_on_congestion_loss += 1;
                    s.type1_errors += (d.class == LossClass::Wireless) as u64;
                }
                Truth::Other => s.verdicts_on_other_loss += 1,
            }
        }
        s.finish()
    }

    /// Fill in the rates from the counts.
    pub fn finish(mut self) -> Scoring {
        let rate = |e: u64, n: u64| (n > 0).then(|| e as f64 / n as f64);
        self.type1_rate = rate(self.type1_errors, self.verdicts_on_congestion_loss);
        self.type2_rate = rate(self.type2_errors, self.verdicts_on_wireless_loss);
        self
    }
}

/// Sum of the counts of two scorings (rates recomputed).
impl std::ops::Add for Scoring {
    type Output = Scoring;

    fn add(self, o: Scoring) -> Scoring {
        Scoring {
            verdicts: self.verdicts + o.verdicts,
            verdicts_wireless: self.verdicts_wireless + o.verdicts_wireless,
            verdicts_congestion: self.verdicts_congestion + o.verdicts_congestion,
            verdicts_on_wireless_loss: self.verdicts_on_wireless_loss + o.verdicts_on_wireless_loss,
            verdicts_on_congestion_loss: self.verdicts_on_congestion_loss
                + o.verdicts_on_congestion_loss,
            verdicts_on_no_loss: self.verdicts_on_no_loss + o.verdicts_on_no_loss,
            verdicts_on_other_loss: self.verdicts_on_other_loss + o.verdicts_on_other_loss,
            type1_errors: self.type1_errors + o.type1_errors,
            type2_errors: self.type2_errors + o.type2_errors,
            type1_rate: None,
            type2_rate: None,
        }
        .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::CongestionKind;

    fn d(seq: u64, at: Time, class: LossClass) -> LossDecision {
        LossDecision {
            seq,
            at,
            kind: CongestionKind::DupAcks,
            class,
        }
    }

    #[test]
    fn constructed_case_with_known_causes() {
        use DropCause::*;
        use LossClass::*;
        let log = [
            (1000, ChannelError, 10),
            (2000, QueueOverflow, 20),
            (3000, Aqm, 30),
            (4000, ChannelError, 40),
            // Segment 5000: first lost to the queue, its retransmission to the channel.
            (5000, QueueOverflow, 50),
            (5000, ChannelError, 70),
            (6000, NoRoute, 80),
        ]
        .map(|(s, c, t)| LossRecord::new(s, c, t));
        let decisions = [
            d(1000, 15, Wireless),   // right
            d(2000, 25, Congestion), // right
            d(3000, 35, Wireless),   // type 1
            d(4000, 45, Congestion), // type 2
            d(5000, 60, Congestion), // right: the drop at 50
            d(5000, 90, Congestion), // type 2: the latest drop, at 70
            d(7000, 95, Wireless),   // nothing was lost
            d(1000, 5, Wireless),    // before the drop: nothing lost yet
            d(6000, 85, Wireless),   // another cause
            d(2000, 26, Congestion), // the drop at 20 was judged already
        ];
        let s = Scoring::score(&decisions, &log);
        assert_eq!(s.verdicts, 10);
        assert_eq!((s.verdicts_wireless, s.verdicts_congestion), (5, 5));
        assert_eq!(s.verdicts_on_wireless_loss, 3);
        assert_eq!(s.verdicts_on_congestion_loss, 3);
        assert_eq!(s.verdicts_on_no_loss, 3);
        assert_eq!(s.verdicts_on_other_loss, 1);
        assert_eq!((s.type1_errors, s.type2_errors), (1, 2));
        assert_eq!(s.type1_rate, Some(1.0 / 3.0));
        assert_eq!(s.type2_rate, Some(2.0 / 3.0));
    }

    #[test]
    fn loss_records_keep_sequence_cause_and_time() {
        for (i, c) in DropCause::ALL.into_iter().enumerate() {
            let seq = (1u64 << 60) - 1 - i as u64;
            let r = LossRecord::new(seq, c, 7 + i as u64);
            assert_eq!((r.seq(), r.cause(), r.at), (seq, c, 7 + i as u64));
        }
        assert_eq!(std::mem::size_of::<LossRecord>(), 16);
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn loss_record_rejects_a_sequence_number_it_cannot_hold() {
        LossRecord::new(1 << 60, DropCause::Aqm, 0);
    }

    #[test]
    fn no_verdicts_no_rates() {
        let s = Scoring::score(&[], &[LossRecord::new(1, DropCause::ChannelError, 1)]);
        assert_eq!(s, Scoring::default());
        let t = s
            + (Scoring::score(
                &[d(1, 2, LossClass::Wireless)],
                &[LossRecord::new(1, DropCause::ChannelError, 1)],
            ));
        assert_eq!(
            (t.verdicts, t.type2_rate, t.type1_rate),
            (1, Some(0.0), None)
        );
    }

    /// Pruning as a run does (whenever the log is full, with the sender's state then) leaves
    /// every verdict's truth, and so both scorings, as the full log gives them: random
    /// senders whose first unacknowledged segment advances, drops of outstanding segments
    /// (some dropped again), verdicts on the first unacknowledged one.
    #[test]
    fn pruning_keeps_every_verdicts_truth() {
        let mut rng = crate::engine::Rng::new(11);
        let causes = [
            DropCause::ChannelError,
            DropCause::QueueOverflow,
            DropCause::Aqm,
        ];
        for case in 0..300 {
            let (mut full, mut pruned) = (Vec::new(), Vec::new());
            let mut decisions = Vec::new();
            let mut una = 0u64;
            for t in 0..200u64 {
                match rng.below(4) {
                    0 => una += rng.below(3),
                    1 | 2 => {
                        let r =
                            LossRecord::new(una + rng.below(4), causes[rng.below(3) as usize], t);
                        if pruned.len() == pruned.capacity() {
                            prune(&mut pruned, una, &decisions);
                        }
                        full.push(r);
                        pruned.push(r);
                    }
                    _ => {
                        let class = if rng.bernoulli(0.5) {
                            LossClass::Wireless
                        } else {
                            LossClass::Congestion
                        };
                        decisions.push(d(una, t, class));
                    }
                }
            }
            prune(&mut pruned, una, &decisions);
            assert_eq!(
                truths(&decisions, &full),
                truths(&decisions, &pruned),
                "case {case}"
            );
            let half = &decisions[decisions.len() / 2..];
            assert_eq!(Scoring::score(half, &full), Scoring::score(half, &pruned));
            if decisions.is_empty() {
                assert!(pruned.iter().all(|r| r.seq() >= una), "case {case}");
            }
        }
    }
}
