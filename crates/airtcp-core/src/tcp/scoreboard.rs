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
    /// RACK (RFC 8985): marked lost (by RACK or a timeout) and not delivered since.
    lost: bool,
    /// RACK: a retransmission sent since it was last marked lost is in flight.
    retrans_out: bool,
}

#[derive(Clone, Debug)]
pub struct Scoreboard {
    segs: VecDeque<Seg>,
    base: u64,
    mss: u64,
    /// Segments currently SACKed (RACK's reordering window needs the count).
    sacked: usize,
}

/// What an advancing cumulative ACK removed from the scoreboard.
pub struct Acked {
    /// Send time of the newest removed segment.
    pub newest_sent: Option<Time>,
    /// Some removed segment had been retransmitted.
    pub any_retx: bool,
    /// Bytes of the removed segments that were not SACKed before: what this ACK newly
    /// delivered below its cumulative point (RFC 6937's change in snd.una less the SACKed
    /// bytes it covers).
    pub delivered: u64,
}

impl Scoreboard {
    pub fn new(mss: u64) -> Self {
        Scoreboard {
            // Grown as the window needs: with many flows most windows stay small.
            segs: VecDeque::new(),
            base: 0,
            mss,
            sacked: 0,
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
                s.retrans_out = true;
            }
        } else {
            debug_assert_eq!(i, self.segs.len(), "segments are sent in order");
            self.segs.push_back(Seg {
                sent: now,
                retx,
                sacked: false,
                rexmit_epoch: if retx { epoch } else { 0 },
                lost: false,
                retrans_out: false,
            });
        }
    }

    /// Drop every segment ending at or below `ack` (`app_end` bounds the last, short one).
    pub fn on_cumulative_ack(&mut self, ack: u64, app_end: u64) -> Acked {
        self.on_cumulative_ack_with(ack, app_end, |_, _, _| {})
    }

    /// As [`Self::on_cumulative_ack`], calling `delivered(sent, end, retransmitted)` for each
    /// removed segment that was not already SACKed (newly delivered), in sequence order.
    pub fn on_cumulative_ack_with(
        &mut self,
        ack: u64,
        app_end: u64,
        mut delivered: impl FnMut(Time, u64, bool),
    ) -> Acked {
        let mut out = Acked {
            newest_sent: None,
            any_retx: false,
            delivered: 0,
        };
        while let Some(front) = self.segs.front() {
            let end = (self.base + self.mss).min(app_end);
            if end > ack {
                break;
            }
            out.any_retx |= front.retx;
            out.newest_sent = Some(front.sent);
            if front.sacked {
                self.sacked -= 1;
            } else {
                out.delivered += end - self.base.min(end);
                delivered(front.sent, end, front.retx);
            }
            self.segs.pop_front();
            self.base += self.mss;
        }
        out
    }

    /// Mark the segments wholly inside the blocks as SACKed; returns bytes newly SACKed.
    pub fn on_sack(&mut self, blocks: &[SackBlock], app_end: u64) -> u64 {
        self.on_sack_with(blocks, app_end, |_, _, _| {})
    }

    /// As [`Self::on_sack`], calling `delivered(sent, end, retransmitted)` for each newly
    /// SACKed segment.
    pub fn on_sack_with(
        &mut self,
        blocks: &[SackBlock],
        app_end: u64,
        mut delivered: impl FnMut(Time, u64, bool),
    ) -> u64 {
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
                let s = &mut self.segs[i];
                if !s.sacked {
                    s.sacked = true;
                    s.lost = false;
                    s.retrans_out = false;
                    self.sacked += 1;
                    newly += end - start;
                    delivered(s.sent, end, s.retx);
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

    /// RFC 6675 pipe in bytes: segments presumed still in the network. With
    /// `sacked_retx`, a segment resent in `epoch` counts as in flight even once SACKed
    /// (ns-3's `BytesInFlight` keeps its retransmitted flag until the cumulative ACK).
    pub fn pipe(&self, dupthresh: u32, epoch: u32, app_end: u64, sacked_retx: bool) -> u64 {
        let lost = self.lost_below(dupthresh);
        let mut pipe = 0;
        for (i, s) in self.segs.iter().enumerate() {
            let start = self.seq_of(i);
            let len = (start + self.mss).min(app_end) - start;
            if s.sacked {
                if sacked_retx && epoch != 0 && s.rexmit_epoch == epoch {
                    pipe += len;
                }
                continue;
            }
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

    /// The segment at `seq` is outstanding, not SACKed and not yet resent in recovery `epoch`.
    pub fn resendable(&self, seq: u64, epoch: u32) -> bool {
        if seq < self.base {
            return false;
        }
        let i = self.idx(seq);
        i < self.segs.len() && !self.segs[i].sacked && self.segs[i].rexmit_epoch != epoch
    }

    /// The segment at `seq` is outstanding and has been retransmitted.
    pub fn retransmitted(&self, seq: u64) -> bool {
        if seq < self.base {
            return false;
        }
        let i = self.idx(seq);
        i < self.segs.len() && self.segs[i].retx
    }

    /// After a timeout (RFC 6675 5.1), everything sent before it (below `recover`) and not
    /// SACKed is presumed lost, and later data when IsLost says so. In flight: what was
    /// resent since (in `epoch`) and later data not judged lost.
    pub fn in_flight_in_loss(&self, dupthresh: u32, epoch: u32, recover: u64, app_end: u64) -> u64 {
        let lost = self.lost_below(dupthresh);
        let mut bytes = 0;
        for (i, s) in self.segs.iter().enumerate() {
            let start = self.seq_of(i);
            let resent = epoch != 0 && s.rexmit_epoch == epoch;
            if !s.sacked && (resent || (start >= recover && i >= lost)) {
                bytes += (start + self.mss).min(app_end) - start;
            }
        }
        bytes
    }

    /// NextSeg() rule 1 after a timeout: the lowest segment presumed lost (see
    /// [`Self::in_flight_in_loss`]) and not yet resent in `epoch`.
    pub fn loss_next(&self, dupthresh: u32, epoch: u32, recover: u64) -> Option<u64> {
        let lost = self.lost_below(dupthresh);
        (0..self.segs.len())
            .find(|&i| {
                let s = &self.segs[i];
                !s.sacked && s.rexmit_epoch != epoch && (self.seq_of(i) < recover || i < lost)
            })
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
        self.sacked = 0;
    }

    // ---- RACK (RFC 8985) ------------------------------------------------------------------

    /// Segments currently SACKed.
    pub fn sacked_count(&self) -> usize {
        self.sacked
    }

    /// RFC 8985 6.2 step 5 over the outstanding segments: every un-SACKed segment sent before
    /// the most recently sent delivered one (`xmit_ts`, `end_seq`) is lost once
    /// `rtt + reo_wnd` has passed since it was sent. Marks those lost and returns how many it
    /// newly marked and the longest wait still to run for the others (0: none waits).
    pub fn rack_detect_loss(
        &mut self,
        now: Time,
        xmit_ts: Time,
        end_seq: u64,
        rtt_plus_reo: Time,
        app_end: u64,
    ) -> (usize, Time) {
        let (mut newly, mut wait) = (0, 0);
        let (base, mss) = (self.base, self.mss);
        for (i, s) in self.segs.iter_mut().enumerate() {
            // Already lost and not resent: nothing more to learn about it.
            if s.sacked || (s.lost && !s.retrans_out) {
                continue;
            }
            let end = (base + (i as u64 + 1) * mss).min(app_end);
            let sent_before = xmit_ts > s.sent || (xmit_ts == s.sent && end_seq > end);
            if !sent_before {
                continue;
            }
            let deadline = s.sent + rtt_plus_reo;
            if deadline <= now {
                s.lost = true;
                s.retrans_out = false;
                newly += 1;
            } else {
                wait = wait.max(deadline - now);
            }
        }
        (newly, wait)
    }

    /// Mark the segment starting at `seq` lost (the head of a fast retransmit).
    pub fn mark_lost(&mut self, seq: u64) {
        if seq < self.base {
            return;
        }
        let i = self.idx(seq);
        if let Some(s) = self.segs.get_mut(i).filter(|s| !s.sacked) {
            s.lost = true;
            s.retrans_out = false;
        }
    }

    /// A retransmission timeout: every un-SACKed segment is taken as lost (nothing of the
    /// window is known to be in flight any more).
    pub fn mark_all_lost(&mut self) {
        for s in &mut self.segs {
            if !s.sacked {
                s.lost = true;
                s.retrans_out = false;
            }
        }
    }

    /// A timeout found spurious: the segments it marked lost are in flight after all.
    pub fn clear_lost(&mut self) {
        for s in &mut self.segs {
            s.lost = false;
        }
    }

    /// Pipe under RACK (the count Linux keeps as packets_out - sacked - lost + retrans):
    /// un-SACKed segments not marked lost, plus retransmissions in flight.
    pub fn rack_pipe(&self, app_end: u64) -> u64 {
        let mut pipe = 0;
        for (i, s) in self.segs.iter().enumerate() {
            if s.sacked {
                continue;
            }
            let start = self.seq_of(i);
            let len = (start + self.mss).min(app_end) - start;
            pipe += len * (u64::from(!s.lost) + u64::from(s.retrans_out));
        }
        pipe
    }

    /// The lowest segment marked lost that has not been retransmitted since.
    pub fn next_rack_lost(&self) -> Option<u64> {
        self.segs
            .iter()
            .position(|s| !s.sacked && s.lost && !s.retrans_out)
            .map(|i| self.seq_of(i))
    }

    /// Start of the highest segment sent so far.
    pub fn last_seq(&self) -> Option<u64> {
        self.segs.len().checked_sub(1).map(|i| self.seq_of(i))
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
        assert_eq!(b.pipe(3, 1, u64::MAX, false), 5000);
        assert_eq!(b.next_lost(3, 1), Some(0));
        b.on_send(100, 0, true, 1);
        assert_eq!(
            b.pipe(3, 1, u64::MAX, false),
            6000,
            "retransmission in flight counts"
        );
        assert_eq!(b.next_lost(3, 1), None);
        assert_eq!(b.next_unsacked(1), Some(3000));
        // Resend 3 and have it SACKed: RFC 6675 no longer counts it; ns-3's count keeps it
        // (its retransmitted flag stays until the cumulative ACK).
        b.on_send(200, 3000, true, 1);
        b.on_sack(&[blk(3000, 4000)], u64::MAX);
        assert_eq!(b.pipe(3, 1, u64::MAX, false), 5000);
        assert_eq!(b.pipe(3, 1, u64::MAX, true), 6000);
        assert_eq!(b.pipe(3, 2, u64::MAX, true), 4000, "not resent in epoch 2");
        let a = b.on_cumulative_ack(3000, u64::MAX);
        assert!(a.any_retx);
        assert_eq!(b.seq_of(0), 3000);
    }
}
