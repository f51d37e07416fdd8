//! Per-segment record of what was sent and what the receiver reported: send times (for RTT
//! samples under Karn's rule) and, with SACK, the RFC 6675 scoreboard (SACKed segments, the
//! IsLost() rule, pipe, and the NextSeg() retransmission choices).
//!
//! Segments are aligned on multiples of the MSS from sequence 0 (the sender always sends
//! whole segments except possibly the last), so segment i covers base + i·mss.

use std::collections::VecDeque;

use crate::engine::Time;
use crate::packet::{SackBlock, MAX_SACK_BLOCKS};

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

impl Seg {
    /// What the segment adds to RACK's pipe, in segments: un-SACKed and not marked lost, plus
    /// a retransmission in flight.
    fn rack_weight(&self) -> u64 {
        if self.sacked {
            0
        } else {
            u64::from(!self.lost) + u64::from(self.retrans_out)
        }
    }

    /// Marked lost and not resent since: what RACK resends next.
    fn rack_resendable(&self) -> bool {
        !self.sacked && self.lost && !self.retrans_out
    }
}

#[derive(Clone, Debug)]
pub struct Scoreboard {
    segs: VecDeque<Seg>,
    base: u64,
    mss: u64,
    /// Segments currently SACKed (RACK's reordering window needs the count).
    sacked: usize,
    /// Sum of the segments' `rack_weight`, kept as they change: RACK's pipe is asked for on
    /// every send and would otherwise be a pass over the window each time.
    rack_weight: u64,
    /// No segment below this index is `rack_resendable` (a lower bound, lowered whenever a
    /// segment becomes so), where the search for the next one starts.
    rack_lost_from: usize,
    /// With RACK: each segment's first send time. Segments go out first in sequence order, so
    /// these never decrease, and a segment first sent after a time was (re)sent after it.
    first_sent: VecDeque<Time>,
    /// The sums above and `first_sent` are kept (RACK marks losses); without RACK nothing
    /// asks for them.
    rack: bool,
    /// The runs of whole segments the previous ACK's SACK blocks covered, as sequence ranges:
    /// all SACKed (only `clear_sacks` undoes a SACK, and it forgets them), so the blocks of
    /// the next ACK, which mostly repeat or extend them, step over them.
    sack_seen: [(u64, u64); MAX_SACK_BLOCKS],
    sack_seen_n: usize,
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
    /// Bytes held on the heap (per-segment records), for the run's memory budget.
    pub fn heap_bytes(&self) -> usize {
        self.segs.capacity() * std::mem::size_of::<Seg>()
            + self.first_sent.capacity() * std::mem::size_of::<Time>()
    }

    pub fn new(mss: u64) -> Self {
        Scoreboard {
            // Grown as the window needs: with many flows most windows stay small.
            segs: VecDeque::new(),
            base: 0,
            mss,
            sacked: 0,
            rack_weight: 0,
            rack_lost_from: 0,
            first_sent: VecDeque::new(),
            rack: false,
            sack_seen: [(0, 0); MAX_SACK_BLOCKS],
            sack_seen_n: 0,
        }
    }

    /// Keep the sums RACK's pipe and its next lost segment are read from.
    pub fn with_rack(mut self) -> Self {
        self.rack = true;
        self
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
    #[inline]
    pub fn on_send(&mut self, now: Time, seq: u64, retx: bool, epoch: u32) {
        let i = self.idx(seq);
        if i < self.segs.len() {
            self.on_resend(i, now, retx, epoch);
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
            self.rack_weight += 1;
            if self.rack {
                self.first_sent.push_back(now);
            }
        }
    }

    /// A segment already on the board goes out again (a retransmission, or go-back-N).
    #[inline(never)]
    fn on_resend(&mut self, i: usize, now: Time, retx: bool, epoch: u32) {
        let s = &mut self.segs[i];
        let before = s.rack_weight();
        s.retx |= retx;
        s.sent = now;
        if retx {
            s.rexmit_epoch = epoch;
            s.retrans_out = true;
        }
        self.rack_weight = self.rack_weight + s.rack_weight() - before;
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
        if self.rack {
            self.rack_forget_acked(ack, app_end);
        }
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

    /// Take out of the RACK sums the segments a cumulative ACK to `ack` is about to drop.
    #[inline(never)]
    fn rack_forget_acked(&mut self, ack: u64, app_end: u64) {
        let mut dropped = 0;
        for (i, s) in self.segs.iter().enumerate() {
            if (self.seq_of(i) + self.mss).min(app_end) > ack {
                break;
            }
            self.rack_weight -= s.rack_weight();
            dropped += 1;
        }
        self.rack_lost_from = self.rack_lost_from.saturating_sub(dropped);
        self.first_sent.drain(..dropped);
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
        let (mut seen, mut n_seen) = ([(0, 0); MAX_SACK_BLOCKS], 0);
        for b in blocks {
            if b.end <= self.base {
                continue;
            }
            let (mut lo, mut hi) = (u64::MAX, 0);
            let mut i = self.idx(b.start.max(self.base));
            while i < self.segs.len() {
                let start = self.seq_of(i);
                let end = (start + self.mss).min(app_end);
                if start < b.start {
                    i += 1;
                    continue;
                }
                if end > b.end {
                    break;
                }
                lo = lo.min(start);
                let run = self.sack_seen[..self.sack_seen_n]
                    .iter()
                    .find(|&&(from, to)| from <= start && start < to);
                if let Some(&(_, to)) = run {
                    // SACKed already, up to `to` (the run may reach past this block: its
                    // segments are SACKed all the same).
                    let past = (to - self.base).div_ceil(self.mss) as usize;
                    let next = past.min(self.segs.len());
                    if next > i + 1 {
                        hi = self.seq_of(next);
                        i = next;
                        continue;
                    }
                }
                hi = end;
                let s = &mut self.segs[i];
                if !s.sacked {
                    self.rack_weight -= s.rack_weight();
                    s.sacked = true;
                    s.lost = false;
                    s.retrans_out = false;
                    self.sacked += 1;
                    newly += end - start;
                    delivered(s.sent, end, s.retx);
                }
                i += 1;
            }
            if lo < hi && n_seen < MAX_SACK_BLOCKS {
                seen[n_seen] = (lo, hi);
                n_seen += 1;
            }
        }
        (self.sack_seen, self.sack_seen_n) = (seen, n_seen);
        newly
    }

    /// ns-3's guess without SACK (`reno_sack`, `TcpTxBuffer::AddRenoSack`): a duplicate ACK
    /// marks the first segment above the head not yet marked as SACKed. Returns the bytes
    /// marked (0 when every segment above the head is marked already).
    pub fn add_reno_sack(&mut self, app_end: u64) -> u64 {
        let Some(i) = (1..self.segs.len()).find(|&i| !self.segs[i].sacked) else {
            return 0;
        };
        let start = self.seq_of(i);
        let s = &mut self.segs[i];
        self.rack_weight -= s.rack_weight();
        s.sacked = true;
        s.lost = false;
        s.retrans_out = false;
        self.sacked += 1;
        (start + self.mss).min(app_end) - start
    }

    /// A cumulative ACK left a marked segment at the head, which a receiver never SACKs: the
    /// mark moves on to the next unmarked segment (ns-3's `TcpTxBuffer::DiscardUpTo`).
    /// Returns whether the head had a mark.
    pub fn move_head_mark(&mut self, app_end: u64) -> bool {
        let Some(head) = self.segs.front_mut() else {
            return false;
        };
        if !head.sacked {
            return false;
        }
        head.sacked = false;
        self.rack_weight += head.rack_weight();
        self.sacked -= 1;
        self.add_reno_sack(app_end);
        true
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

    /// Bytes of the un-SACKed segments IsLost() judges lost (ns-3's `TcpTxBuffer` lost count,
    /// whose marks stay until the segment is SACKed or acknowledged, as these do).
    pub fn lost_bytes(&self, dupthresh: u32, app_end: u64) -> u64 {
        let lost = self.lost_below(dupthresh);
        (0..lost)
            .filter(|&i| !self.segs[i].sacked)
            .map(|i| {
                let start = self.seq_of(i);
                (start + self.mss).min(app_end) - start
            })
            .sum()
    }

    /// After a timeout: every un-SACKed segment sent before it (below `recover`) counts as
    /// lost, resent or not (ns-3's `SetSentListLost` marks them and a resend leaves the mark),
    /// and later data when IsLost says so.
    pub fn lost_bytes_in_loss(&self, dupthresh: u32, recover: u64, app_end: u64) -> u64 {
        let lost = self.lost_below(dupthresh);
        (0..self.segs.len())
            .filter(|&i| !self.segs[i].sacked && (self.seq_of(i) < recover || i < lost))
            .map(|i| {
                let start = self.seq_of(i);
                (start + self.mss).min(app_end) - start
            })
            .sum()
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

    /// Last send time of the outstanding segment at `seq`, and whether it was ever resent.
    pub fn sent_at(&self, seq: u64) -> Option<(Time, bool)> {
        if seq < self.base {
            return None;
        }
        self.segs.get(self.idx(seq)).map(|s| (s.sent, s.retx))
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
    /// resent since (in `epoch`) and later data not judged lost; with `sacked_retx` (as
    /// [`Self::pipe`]) what was resent since and then SACKed as well.
    pub fn in_flight_in_loss(
        &self,
        dupthresh: u32,
        epoch: u32,
        recover: u64,
        app_end: u64,
        sacked_retx: bool,
    ) -> u64 {
        let lost = self.lost_below(dupthresh);
        let mut bytes = 0;
        for (i, s) in self.segs.iter().enumerate() {
            let start = self.seq_of(i);
            let resent = epoch != 0 && s.rexmit_epoch == epoch;
            if (resent && sacked_retx) || (!s.sacked && (resent || (start >= recover && i >= lost)))
            {
                bytes += (start + self.mss).min(app_end) - start;
            }
        }
        bytes
    }

    /// NextSeg() rule 1 after a timeout: the lowest segment presumed lost (see
    /// [`Self::in_flight_in_loss`]) and not yet resent in `epoch`.
    /// With `below_sack`, only a segment below the highest SACKed one, when any is SACKed.
    pub fn loss_next(
        &self,
        dupthresh: u32,
        epoch: u32,
        recover: u64,
        below_sack: bool,
    ) -> Option<u64> {
        let lost = self.lost_below(dupthresh);
        let end = if below_sack {
            (0..self.segs.len())
                .rev()
                .find(|&i| self.segs[i].sacked)
                .unwrap_or(self.segs.len())
        } else {
            self.segs.len()
        };
        (0..end)
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
        self.sack_seen_n = 0;
        self.recount_rack();
    }

    /// Recompute the RACK sums from the segments (after a change to many of them).
    fn recount_rack(&mut self) {
        self.rack_weight = self.segs.iter().map(Seg::rack_weight).sum();
        self.rack_lost_from = 0;
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
        let (mut removed, mut first_marked) = (0, usize::MAX);
        // A segment first sent after `xmit_ts` was sent after it however often it was resent,
        // so it is not `sent_before`: only the segments first sent up to `xmit_ts` are looked at.
        debug_assert!(self.rack && self.first_sent.len() == self.segs.len());
        let upto = self.first_sent.partition_point(|&t| t <= xmit_ts);
        for (i, s) in self.segs.range_mut(..upto).enumerate() {
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
                removed += s.rack_weight();
                first_marked = first_marked.min(i);
                s.lost = true;
                s.retrans_out = false;
                newly += 1;
            } else {
                wait = wait.max(deadline - now);
            }
        }
        self.rack_weight -= removed;
        self.rack_lost_from = self.rack_lost_from.min(first_marked);
        (newly, wait)
    }

    /// Mark the segment starting at `seq` lost (the head of a fast retransmit).
    pub fn mark_lost(&mut self, seq: u64) {
        if seq < self.base {
            return;
        }
        let i = self.idx(seq);
        if let Some(s) = self.segs.get_mut(i).filter(|s| !s.sacked) {
            self.rack_weight -= s.rack_weight();
            self.rack_lost_from = self.rack_lost_from.min(i);
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
        self.recount_rack();
    }

    /// A timeout found spurious: the segments it marked lost are in flight after all.
    pub fn clear_lost(&mut self) {
        for s in &mut self.segs {
            s.lost = false;
        }
        self.recount_rack();
    }

    /// Pipe under RACK (the count Linux keeps as packets_out - sacked - lost + retrans):
    /// un-SACKed segments not marked lost, plus retransmissions in flight.
    pub fn rack_pipe(&self, app_end: u64) -> u64 {
        debug_assert!(self.rack, "a scoreboard without RACK keeps no RACK sums");
        // Every segment is whole but perhaps the last (see the module's note), so the sum of
        // weights in whole segments needs a correction for the last one only.
        let Some(last) = self.segs.back() else {
            return 0;
        };
        let start = self.seq_of(self.segs.len() - 1);
        let short = self.mss - ((start + self.mss).min(app_end) - start);
        self.rack_weight * self.mss - last.rack_weight() * short
    }

    /// The lowest segment marked lost that has not been retransmitted since.
    pub fn next_rack_lost(&mut self) -> Option<u64> {
        debug_assert!(self.rack, "a scoreboard without RACK keeps no RACK sums");
        let from = self.rack_lost_from.min(self.segs.len());
        match self.segs.range(from..).position(Seg::rack_resendable) {
            Some(p) => {
                self.rack_lost_from = from + p;
                Some(self.seq_of(from + p))
            }
            None => {
                self.rack_lost_from = self.segs.len();
                None
            }
        }
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
    fn after_a_timeout_every_unsacked_segment_sent_before_it_counts_lost() {
        // Six segments sent before a timeout (recover 6000), then 6 and 7 after it; 3 is
        // SACKed and 0 resent. ns-3's lost count: 0-2, 4 and 5 (the resend keeps 0's mark),
        // not 6 and 7, which IsLost does not judge lost (one SACKed segment above them).
        let mut b = board(8);
        b.on_send(1, 0, true, 1);
        b.on_sack(&[blk(3000, 4000)], 8000);
        assert_eq!(b.lost_bytes_in_loss(3, 6000, 8000), 5000);
        // IsLost alone (outside a timeout's loss state) finds none: one SACK above 0-2.
        assert_eq!(b.lost_bytes(3, 8000), 0);
    }

    #[test]
    fn lost_bytes_are_the_unsacked_segments_below_the_third_sack_from_the_top() {
        let mut b = board(10);
        // SACKs of 4000-6000 and 8000: three SACKed segments above 0-3000 and 7000 only
        // above 7000 in part; IsLost() holds below the third highest SACKed (5000).
        b.on_sack(&[blk(4000, 6000), blk(8000, 9000)], 10_000);
        assert_eq!(b.lost_bytes(3, 10_000), 4000);
        // The last segment ends the data short: a lost short segment counts what it holds.
        let mut b = board(4);
        b.on_sack(&[blk(1000, 4000)], 3500);
        assert_eq!(b.lost_bytes(3, 3500), 1000);
        assert_eq!(b.lost_bytes(4, 3500), 0);
    }

    #[test]
    fn reno_marks_fill_upwards_and_a_marked_head_passes_its_mark_on() {
        let mut b = Scoreboard::new(1000);
        for k in 0..5 {
            b.on_send(0, k * 1000, false, 0);
        }
        // The head is never marked: the first duplicate marks segment 1000, and so on.
        assert_eq!(b.add_reno_sack(u64::MAX), 1000);
        assert_eq!(b.add_reno_sack(u64::MAX), 1000);
        assert!(!b.is_sacked(0) && b.is_sacked(1000) && b.is_sacked(2000));
        assert!(!b.move_head_mark(u64::MAX), "the head has no mark");
        // The ACK of 0 leaves the marked 1000 at the head: its mark goes to 3000.
        b.on_cumulative_ack(1000, u64::MAX);
        assert!(b.move_head_mark(u64::MAX));
        assert!(!b.is_sacked(1000) && b.is_sacked(2000) && b.is_sacked(3000));
        assert_eq!(b.sacked_count(), 2);
        b.add_reno_sack(u64::MAX);
        assert_eq!(
            b.add_reno_sack(u64::MAX),
            0,
            "nothing above the head is left unmarked"
        );
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

    /// RACK's pipe and next lost segment straight from the definitions: a pass over all.
    fn rack_by_definition(b: &Scoreboard, app_end: u64) -> (u64, Option<u64>) {
        let mut pipe = 0;
        for (i, s) in b.segs.iter().enumerate() {
            if !s.sacked {
                let start = b.seq_of(i);
                let len = (start + b.mss).min(app_end) - start;
                pipe += len * (u64::from(!s.lost) + u64::from(s.retrans_out));
            }
        }
        let next = b
            .segs
            .iter()
            .position(|s| !s.sacked && s.lost && !s.retrans_out)
            .map(|i| b.seq_of(i));
        (pipe, next)
    }

    /// RFC 8985 6.2 step 5 over every outstanding segment, as the definition reads.
    fn detect_by_definition(
        b: &mut Scoreboard,
        now: Time,
        xmit_ts: Time,
        end_seq: u64,
        wnd: Time,
        app_end: u64,
    ) -> (usize, Time) {
        let (mut newly, mut wait) = (0, 0);
        let (base, mss) = (b.base, b.mss);
        for (i, s) in b.segs.iter_mut().enumerate() {
            let end = (base + (i as u64 + 1) * mss).min(app_end);
            let sent_before = xmit_ts > s.sent || (xmit_ts == s.sent && end_seq > end);
            if s.sacked || (s.lost && !s.retrans_out) || !sent_before {
                continue;
            }
            if s.sent + wnd <= now {
                (s.lost, s.retrans_out) = (true, false);
                newly += 1;
            } else {
                wait = wait.max(s.sent + wnd - now);
            }
        }
        (newly, wait)
    }

    #[test]
    fn rack_pipe_and_next_lost_kept_as_they_change_match_their_definition() {
        // Random sends, resends, SACKs, cumulative ACKs, RACK marks, timeouts and undone
        // timeouts, with a short last segment: the sums kept on the way equal a recount, and
        // RACK's loss detection, which looks only at segments first sent in time, marks what
        // a pass over every segment marks, and SACK processing that steps over the runs the
        // previous ACK covered finds what a board without that memory finds.
        let mut rng = crate::engine::rng::Rng::new(11);
        for round in 0..200 {
            let app_end = 40_000 + rng.below(1000) * (round % 2);
            let mut b = Scoreboard::new(1000).with_rack();
            let (mut nxt, mut una, mut now) = (0u64, 0u64, 1u64);
            for _ in 0..300 {
                now += 1;
                match rng.below(9) {
                    0 | 1 if nxt < app_end => {
                        b.on_send(now, nxt, false, 0);
                        nxt = (nxt + 1000).min(app_end);
                    }
                    2 if nxt > una => {
                        let seq = una + rng.below((nxt - una).div_ceil(1000)) * 1000;
                        b.on_send(now, seq, true, 1);
                    }
                    3 if nxt > una => {
                        // One to three blocks, often repeating or extending earlier ones.
                        let mut blocks = vec![];
                        for _ in 0..1 + rng.below(3) {
                            let start = una + rng.below((nxt - una).div_ceil(1000)) * 1000;
                            let end = (start + 1000 * (1 + rng.below(8))).min(nxt);
                            blocks.push(blk(start.saturating_sub(rng.below(2) * 300), end));
                        }
                        let mut fresh = b.clone();
                        fresh.sack_seen_n = 0;
                        let (mut want, mut got) = (vec![], vec![]);
                        let n_want =
                            fresh.on_sack_with(&blocks, app_end, |t, e, r| want.push((t, e, r)));
                        let n_got = b.on_sack_with(&blocks, app_end, |t, e, r| got.push((t, e, r)));
                        assert_eq!((n_got, &got), (n_want, &want), "round {round}");
                        let sacks = |b: &Scoreboard| -> Vec<bool> {
                            b.segs.iter().map(|s| s.sacked).collect()
                        };
                        assert_eq!(sacks(&b), sacks(&fresh), "round {round}");
                    }
                    4 if nxt > una => {
                        let ack = (una + 1000 * rng.below(3)).min(nxt);
                        b.on_cumulative_ack(ack, app_end);
                        una = ack;
                    }
                    5 => {
                        let xmit = now.saturating_sub(rng.below(5));
                        let end_seq = una + 1000 * rng.below(4);
                        let wnd = rng.below(20);
                        let mut whole = b.clone();
                        let want =
                            detect_by_definition(&mut whole, now, xmit, end_seq, wnd, app_end);
                        let got = b.rack_detect_loss(now, xmit, end_seq, wnd, app_end);
                        assert_eq!(got, want, "round {round}");
                        let marks = |b: &Scoreboard| -> Vec<(bool, bool)> {
                            b.segs.iter().map(|s| (s.lost, s.retrans_out)).collect()
                        };
                        assert_eq!(marks(&b), marks(&whole), "round {round}");
                    }
                    6 if nxt > una => b.mark_lost(una),
                    7 => match rng.below(10) {
                        0 => b.mark_all_lost(),
                        1 => b.clear_lost(),
                        2 => b.clear_sacks(),
                        _ => {}
                    },
                    _ => {}
                }
                let (pipe, next) = rack_by_definition(&b, app_end);
                assert_eq!(b.rack_pipe(app_end), pipe, "round {round}");
                assert_eq!(b.next_rack_lost(), next, "round {round}");
            }
        }
    }
}
