//! Per-segment record of what was sent and what the receiver reported: send times (for RTT
//! samples under Karn's rule) and, with SACK, the RFC 6675 scoreboard (SACKed segments, the
//! IsLost() rule, pipe, and the NextSeg() retransmission choices).
//!
//! Segments are aligned on multiples of the MSS from sequence 0 (the sender always sends
//! whole segments except possibly the last), so segment i covers base + i·mss.

use std::collections::VecDeque;

use crate::engine::Time;
use crate::packet::SackBlock;

#[derive(Clone, Copy, Debug)]
struct Seg {
    sent: Time,
    /// Ever retransmitted (Karn).
    retx: bool,
    sacked: bool,
    /// Recovery episode in which it was last retransmitted (0: never).
    rexmit_epoch: u32,
}

#[derive(Clone, Debug)]
pub struct Scoreboard {
    segs: VecDeque<Seg>,
    base: u64,
    mss: u64,
}

/// What an advancing cumulative ACK removed from the scoreboard.
pub struct Acked {
    /// Send time of the newest removed segment.
    pub newest_sent: Option<Time>,
    /// Some removed segment had been retransmitted.
    pub any_retx: bool,
}

impl Scoreboard {
    pub fn new(mss: u64) -> Self {
        Scoreboard {
            segs: VecDeque::with_capacity(64),
            base: 0,
            mss,
        }
    }

    fn idx(&self, seq: u64) -> usize {
        ((seq - self.base) / self.mss) as usize
    }

    pub fn seq_of(&self, i: usize) -> u64 {
        self.base + i as u64 * self.mss
    }

    pub fn len(&self) -> usize {
        self.segs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    /// Record a (re)transmission of the segment starting at `seq`.
    pub fn on_send(&mut self, now: Time, seq: u64, retx: bool, epoch: u32) {
        let i = self.idx(seq);
        if i < self.segs.len() {
            let s = &mut self.segs[i];
            s.retx |= retx;
            s.sent = now;
            if retx {
                s.rexmit_epoch = epoch;
            }
        } else {
            debug_assert_eq!(i, self.segs.len(), "segments are sent in order");
            self.segs.push_back(Seg {
                sent: now,
                retx,
                sacked: false,
                rexmit_epoch: if retx { epoch } else { 0 },
            });
        }
    }

    /// Drop every segment ending at or below `ack` (`app_end` bounds the last, short one).
    pub fn on_cumulative_ack(&mut self, ack: u64, app_end: u64) -> Acked {
        let mut out = Acked {
            newest_sent: None,
            any_retx: false,
        };
        while let Some(front) = self.segs.front() {
            let end = (self.base + self.mss).min(app_end);
            if end > ack {
                break;
            }
            out.any_retx |= front.retx;
            out.newest_sent = Some(front.sent);
            self.segs.pop_front();
            self.base += self.mss;
        }
        out
    }

    /// Mark the segments wholly inside the blocks as SACKed; returns bytes newly SACKed.
    pub fn on_sack(&mut self, blocks: &[SackBlock], app_end: u64) -> u64 {
        let mut newly = 0;
        for b in blocks {
            if b.end <= self.base {
                continue;
            }
            let first = self.idx(b.start.max(self.base));
            for i in first..self.segs.len() {
                let start = self.seq_of(i);
                let end = (start + self.mss).min(app_end);
                if start < b.start {
                    continue;
                }
                if end > b.end {
                    break;
                }
                if !self.segs[i].sacked {
                    self.segs[i].sacked = true;
                    newly += end - start;
                }
            }
        }
        newly
    }

    pub fn is_sacked(&self, seq: u64) -> bool {
        seq >= self.base && self.segs.get(self.idx(seq)).is_some_and(|s| s.sacked)
    }

    /// Index below which every un-SACKed segment counts as lost: the position of the
    /// `dupthresh`-th highest SACKed segment (RFC 6675 IsLost(), counting segments).
    pub fn lost_below(&self, dupthresh: u32) -> usize {
        let mut seen = 0;
        for i in (0..self.segs.len()).rev() {
            if self.segs[i].sacked {
                seen += 1;
                if seen >= dupthresh {
                    return i;
                }
            }
        }
        0
    }

    pub fn is_lost(&self, seq: u64, dupthresh: u32) -> bool {
        if seq < self.base {
            return false;
        }
        let i = self.idx(seq);
        i < self.segs.len() && !self.segs[i].sacked && i < self.lost_below(dupthresh)
    }

    /// RFC 6675 pipe in bytes: segments presumed still in the network.
    pub fn pipe(&self, dupthresh: u32, epoch: u32, app_end: u64) -> u64 {
        let lost = self.lost_below(dupthresh);
        let mut pipe = 0;
        for (i, s) in self.segs.iter().enumerate() {
            if s.sacked {
                continue;
            }
            let start = self.seq_of(i);
            let len = (start + self.mss).min(app_end) - start;
            if i >= lost {
                pipe += len;
            }
            if epoch != 0 && s.rexmit_epoch == epoch {
                pipe += len;
            }
        }
        pipe
    }

    /// NextSeg() rule 1: the lowest lost, un-SACKed segment not yet retransmitted in this
    /// recovery.
    pub fn next_lost(&self, dupthresh: u32, epoch: u32) -> Option<u64> {
        let lost = self.lost_below(dupthresh);
        (0..lost)
            .find(|&i| !self.segs[i].sacked && self.segs[i].rexmit_epoch != epoch)
            .map(|i| self.seq_of(i))
    }

    /// NextSeg() rule 3: the lowest un-SACKed segment below the highest SACKed one not yet
    /// retransmitted in this recovery.
    pub fn next_unsacked(&self, epoch: u32) -> Option<u64> {
        let top = (0..self.segs.len()).rev().find(|&i| self.segs[i].sacked)?;
        (0..top)
            .find(|&i| !self.segs[i].sacked && self.segs[i].rexmit_epoch != epoch)
            .map(|i| self.seq_of(i))
    }

    /// NextSeg() rule 4 (rescue): the highest outstanding un-SACKed segment.
    pub fn highest_unsacked(&self) -> Option<u64> {
        (0..self.segs.len())
            .rev()
            .find(|&i| !self.segs[i].sacked)
            .map(|i| self.seq_of(i))
    }

    pub fn clear_sacks(&mut self) {
        for s in &mut self.segs {
            s.sacked = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::new(1000);
        for i in 0..n {
            b.on_send(i, i * 1000, false, 0);
        }
        b
    }

    fn blk(s: u64, e: u64) -> SackBlock {
        SackBlock { start: s, end: e }
    }

    #[test]
    fn sack_marks_whole_segments_only() {
        let mut b = board(10);
        assert_eq!(b.on_sack(&[blk(2000, 4500)], u64::MAX), 2000);
        assert!(b.is_sacked(2000) && b.is_sacked(3000) && !b.is_sacked(4000));
        assert_eq!(b.on_sack(&[blk(2000, 4000)], u64::MAX), 0, "already SACKed");
    }

    #[test]
    fn is_lost_needs_dupthresh_sacked_above() {
        let mut b = board(10);
        b.on_sack(&[blk(1000, 3000)], u64::MAX);
        assert!(!b.is_lost(0, 3), "two SACKed segments above: not yet lost");
        b.on_sack(&[blk(5000, 6000)], u64::MAX);
        assert!(b.is_lost(0, 3));
        assert!(!b.is_lost(3000, 3), "only one SACKed segment above it");
    }

    #[test]
    fn pipe_and_next_seg() {
        let mut b = board(10);
        // Holes at 0 and 3; SACKed 1, 2, 4, 5.
        b.on_sack(&[blk(1000, 3000), blk(4000, 6000)], u64::MAX);
        // Lost: segments below index of 3rd-highest SACK (index 2) not SACKed: 0.
        assert_eq!(b.lost_below(3), 2);
        // Pipe: 3, 6, 7, 8, 9 (not lost, not SACKed) = 5 segments.
        assert_eq!(b.pipe(3, 1, u64::MAX), 5000);
        assert_eq!(b.next_lost(3, 1), Some(0));
        b.on_send(100, 0, true, 1);
        assert_eq!(
            b.pipe(3, 1, u64::MAX),
            6000,
            "retransmission in flight counts"
        );
        assert_eq!(b.next_lost(3, 1), None);
        assert_eq!(b.next_unsacked(1), Some(3000));
        let a = b.on_cumulative_ack(3000, u64::MAX);
        assert!(a.any_retx);
        assert_eq!(b.seq_of(0), 3000);
    }
}
