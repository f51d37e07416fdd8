//! Choosing the next segment to send: new data within the windows, the SYN, pacing, and
//! the header fields every segment gets.

use super::{Frto, Segment, TcpSender};
use crate::engine::{Time, SEC};
use crate::packet::flags;
use crate::tcp::cc::RecoveryKind;

impl TcpSender {
    /// Next segment to transmit now, if any (sequence space only).
    pub fn next_segment(&mut self, now: Time) -> Option<Segment> {
        if let Some(syn) = &mut self.syn {
            // Only the SYN goes out until the SYN-ACK arrives.
            if !syn.due || self.app_end == 0 {
                return None;
            }
            syn.due = false;
            syn.retransmitted |= syn.sent_at.is_some();
            syn.sent_at = Some(now);
            syn.sends += 1;
            syn.first_sent = syn.first_sent.or(Some(now));
            if self.cfg.syn_timeout > 0 {
                // ns-3's SendEmptyPacket: m_rto = ConnTimeout × 2^retries.
                let backoff = 1u64 << (syn.sends - 1).min(20);
                self.rto_deadline = Some(now + self.cfg.syn_timeout * backoff);
            } else if self.rto_deadline.is_none() {
                self.arm_rto(now);
            }
            // RFC 3168 6.1.1: an ECN-setup SYN carries ECE and CWR.
            let ecn = if self.cfg.ecn {
                flags::ECE | flags::CWR
            } else {
                0
            };
            return Some(Segment {
                seq: 0,
                len: 0,
                retx: false,
                flags: flags::SYN | ecn,
            });
        }
        if std::mem::take(&mut self.handshake_ack_due) {
            // The handshake's third segment, ahead of the first data (no sequence space).
            return Some(Segment {
                seq: 0,
                len: 0,
                retx: false,
                flags: flags::ACK,
            });
        }
        if std::mem::take(&mut self.probe_due) {
            // Zero-length probe at snd_una: the receiver answers with its current window.
            return Some(Segment {
                seq: self.snd_una,
                len: 0,
                retx: false,
                flags: flags::ACK,
            });
        }
        if let Some(seq) = self.pending_retx.take() {
            if seq < self.snd_max && seq >= self.snd_una {
                return Some(self.emit(now, seq, true));
            }
        }
        match self.frto {
            // RFC 5682 step 1: only the first unacknowledged segment until the first ACK.
            Frto::First | Frto::Second { left: 0 } => return None,
            Frto::Second { left } => {
                // Step 2b: up to two new segments (whatever the window after the timeout).
                let seg = self.send_new(now, true);
                if seg.is_some() {
                    self.frto = Frto::Second { left: left - 1 };
                }
                return seg;
            }
            Frto::Off => {}
        }
        if std::mem::take(&mut self.tlp.new_due) {
            // RFC 8985 7.3: a probe of new data goes regardless of cwnd.
            if let Some(seg) = self.send_new(now, true) {
                self.tlp.end = Some(self.snd_nxt);
                return Some(seg);
            }
        }
        if self.rack.is_some() && (self.in_recovery || self.loss_state) {
            return self.rack_next(now);
        }
        if self.in_recovery && self.recovery_kind == RecoveryKind::Sack {
            if std::mem::take(&mut self.nextseg_due) {
                if let Some(seg) = self.nextseg_unlimited(now) {
                    return Some(seg);
                }
            }
            return self.sack_next(now);
        }
        if self.recovery_kind == RecoveryKind::Sack && self.loss_state {
            return self.loss_next(now);
        }
        if self.recovery_kind == RecoveryKind::Sack {
            // Go-back-N after a timeout skips what the receiver already holds.
            while self.snd_nxt < self.snd_max && self.board.is_sacked(self.snd_nxt) {
                self.snd_nxt += self.seg_len(self.snd_nxt) as u64;
            }
        }
        self.send_new(now, false)
    }

    /// Next segment at snd_nxt if the window allows it (with `probe`, the receive window
    /// alone: a loss probe or F-RTO's new segments).
    fn send_new(&mut self, now: Time, probe: bool) -> Option<Segment> {
        if self.snd_nxt >= self.app_end {
            return None;
        }
        let mut cwnd = if probe { u64::MAX } else { self.st.cwnd };
        let len = self.seg_len(self.snd_nxt) as u64;
        if !probe
            && self.cfg.limited_transmit
            && self.recovery_kind == RecoveryKind::Sack
            && !self.in_recovery
            && !self.loss_state
            && self.snd_nxt == self.snd_max
            && self.board.sacked_count() > 0
        {
            // RFC 6675 5 (3): with SACK, limited transmit sends while cwnd - pipe allows a
            // segment (SACKed data has left the network), not RFC 3042's one per dupack.
            if self.pipe() + len > self.st.cwnd
                || self.snd_nxt + len > self.snd_una + self.rwnd
                || self.pacing_holds(now)
            {
                return None;
            }
            return Some(self.send_at_nxt(now, false));
        }
        if self.cfg.limited_transmit
            && self.recovery_kind != RecoveryKind::Sack
            && !self.in_recovery
            && self.dupacks > 0
            && self.dupacks < self.cfg.dupack_threshold
            && self.snd_nxt == self.snd_max
        {
            // RFC 3042: each of the first two duplicate ACKs lets one new segment out
            // (outstanding data up to cwnd + 2 SMSS), cwnd itself unchanged.
            cwnd += self.dupacks.min(2) as u64 * self.mss();
        }
        let wnd = cwnd.min(self.rwnd);
        // Send only whole segments that fit in the window (no silly-window sends).
        if self.snd_nxt + len > self.snd_una + wnd {
            return None;
        }
        // A loss probe (or F-RTO's new data) goes at once; it still takes its pacing slot.
        if !probe && self.pacing_holds(now) {
            return None;
        }
        Some(self.send_at_nxt(now, probe))
    }

    /// Send the segment at snd_nxt (the window already checked).
    pub(super) fn send_at_nxt(&mut self, now: Time, probe: bool) -> Segment {
        let len = self.seg_len(self.snd_nxt) as u64;
        let seq = self.snd_nxt;
        // Below snd_max after a timeout's go-back-N: the segment is sent again.
        let retx = seq < self.snd_max;
        let mut seg = self.emit(now, seq, retx);
        if self.cwr_pending && !retx {
            // RFC 3168 6.1.2: CWR on the first new data segment after the reduction.
            seg.flags |= flags::CWR;
            self.cwr_pending = false;
        }
        self.snd_nxt = seq + len;
        self.snd_max = self.snd_max.max(self.snd_nxt);
        if !retx && !probe {
            // RFC 8985 7.2: new data (not itself a probe) restarts the probe timer.
            self.arm_pto(now);
        }
        seg
    }

    /// A paced scheme's next segment must wait (`pacing_release` then says until when).
    pub(super) fn pacing_holds(&mut self, now: Time) -> bool {
        self.pacer.blocked =
            self.paces() && self.cc.pacing_rate(&self.st).is_some() && self.pacer_running(now);
        self.pacer.blocked
    }

    /// The gap of the last paced segment has not run out at `now`. ns-3's timer is still
    /// running at its own expiry instant for an ACK whose arrival was scheduled before it
    /// (the event order of equal times), so there a tie holds the segment back until the
    /// timer's event has fired.
    fn pacer_running(&self, now: Time) -> bool {
        now < self.pacer.next_send
            || (self.cfg.pacing_ns3 && now == self.pacer.next_send && self.pacer.armed)
    }

    /// ns-3 paces only once more than the initial window has been sent
    /// (`TcpSocketBase::IsPacingEnabled` with `PaceInitialWindow` false).
    fn paces(&self) -> bool {
        !self.cfg.pacing_ns3 || self.snd_max >= self.cfg.initial_cwnd as u64 * self.mss()
    }

    pub(super) fn emit(&mut self, now: Time, seq: u64, retx: bool) -> Segment {
        let len = self.seg_len(seq);
        if let Some(rate) = self.cc.pacing_rate(&self.st).filter(|_| self.paces()) {
            if self.cfg.pacing_ns3 {
                // ns-3's timer: started only when it has run out, for the payload's time.
                if !self.pacer_running(now) {
                    let gap = (len as f64 * 8.0 / rate.max(1.0) * SEC as f64).round() as Time;
                    self.pacer.next_send = now + gap;
                    self.pacer.armed = true;
                }
            } else {
                // Every transmission, retransmissions included, takes its slot at the rate.
                let bits = (len as u64 + self.cfg.header as u64) as f64 * 8.0;
                let gap = (bits / rate.max(1.0) * SEC as f64).ceil() as Time;
                self.pacer.next_send = now.max(self.pacer.next_send) + gap;
            }
        }
        if self.in_recovery {
            self.prr.out += len as u64;
        }
        self.board.on_send(now, seq, retx, self.recovery_epoch);
        self.stats.sent_packets += 1;
        self.stats.sent_bytes += len as u64;
        if retx {
            self.stats.retransmissions += 1;
        }
        if self.rto_deadline.is_none() {
            self.arm_rto(now);
        }
        self.cc.on_sent(now, len as u64, &mut self.st);
        Segment {
            seq,
            len,
            retx,
            flags: flags::ACK,
        }
    }
}
