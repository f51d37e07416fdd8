//! RFC 8985: RACK loss detection and the tail loss probe.

use super::{Frto, Rack, Segment, TcpSender};
use crate::engine::{Time, SEC};
use crate::tcp::cc::CongestionKind;

impl TcpSender {
    /// Recovery with RACK's marks (fast recovery, or after a timeout): while cwnd - pipe >= 1
    /// SMSS, resend the lowest segment marked lost, else send new data.
    pub(super) fn rack_next(&mut self, now: Time) -> Option<Segment> {
        if self.st.cwnd < self.pipe() + self.mss() || self.pacing_holds(now) {
            return None;
        }
        if let Some(seq) = self.board.next_rack_lost() {
            return Some(self.emit(now, seq, true));
        }
        let len = self.seg_len(self.snd_nxt.min(self.app_end.saturating_sub(1))) as u64;
        if self.snd_nxt < self.app_end && self.snd_nxt + len <= self.snd_una + self.rwnd {
            let seq = self.snd_nxt;
            let seg = self.emit(now, seq, false);
            self.snd_nxt = seq + len;
            self.snd_max = self.snd_max.max(self.snd_nxt);
            return Some(seg);
        }
        None
    }

    /// RFC 8985 7.2: (re)start the probe timer while nothing else would find a tail loss
    /// before the RTO: open state, data in flight, no probe outstanding.
    pub(super) fn arm_pto(&mut self, now: Time) {
        let open = !self.in_recovery && !self.loss_state && self.frto == Frto::Off;
        if !self.cfg.tlp || !open || self.tlp.end.is_some() || self.snd_una >= self.snd_max {
            self.tlp.pto = None;
            return;
        }
        let pto = match self.rtt.srtt {
            Some(srtt) => {
                // A lone segment may wait at the receiver for its delayed-ACK timer
                // (WCDelAckT, 200 ms).
                let lone = if self.in_flight() <= self.mss() {
                    200 * crate::engine::MS
                } else {
                    0
                };
                2 * srtt + lone
            }
            None => SEC,
        };
        let at = now + pto;
        self.tlp.pto = Some(self.rto_deadline.map_or(at, |r| at.min(r)));
    }

    /// RFC 8985 7.3: the probe timer fired. Send one new segment if there is one the
    /// receiver's window takes, else resend the highest segment sent; then run the RTO.
    pub(super) fn on_pto(&mut self, now: Time) {
        self.tlp.pto = None;
        if self.in_recovery || self.loss_state || self.snd_una >= self.snd_max {
            return;
        }
        let len = self.seg_len(self.snd_nxt.min(self.app_end.saturating_sub(1))) as u64;
        if self.snd_nxt < self.app_end && self.snd_nxt + len <= self.snd_una + self.rwnd {
            self.tlp.new_due = true;
            self.tlp.is_retrans = false;
        } else if let Some(seq) = self.board.last_seq() {
            self.pending_retx = Some(seq);
            self.tlp.is_retrans = true;
            self.tlp.end = Some(self.snd_max);
        } else {
            return;
        }
        self.stats.tlp_probes += 1;
        self.arm_rto(now);
    }

    /// RFC 8985 7.4.2, on each ACK while a probe is outstanding: did it repair a loss?
    pub(super) fn tlp_on_ack(&mut self, now: Time, ack: u64, advanced: bool, has_sack: bool) {
        let Some(end) = self.tlp.end else {
            return;
        };
        if ack < end {
            return;
        }
        if !self.tlp.is_retrans {
            // A probe of new data: losses before it are RACK's to find.
            self.tlp.end = None;
        } else if ack > end {
            // The probe resent the only loss and the window moved past it: a loss happened,
            // so the window is reduced once, as by a recovery that began and ended here. (The
            // receiver sends no DSACK that could show the original arrived too.)
            self.tlp.end = None;
            if !self.in_recovery && !self.loss_state {
                self.stats.tlp_recoveries += 1;
                let r = self.react(now, CongestionKind::DupAcks);
                if !r.keep_window {
                    self.st.ssthresh = r.ssthresh.max(2 * self.mss());
                    self.st.cwnd = r.cwnd.unwrap_or(self.st.ssthresh);
                    self.ecn_recover = Some(self.snd_max);
                }
            }
        } else if !advanced && !has_sack {
            // A duplicate ACK without SACK at TLP.end_seq: the resent copy arrived after the
            // original, nothing was lost.
            self.tlp.end = None;
        }
    }

    /// RFC 8985 6.2 on an ACK (or the reordering timer): learn from the newly delivered
    /// segments, then mark lost what was sent before the newest of them and is older than
    /// RACK.rtt + reo_wnd; enter recovery if that found a loss.
    pub(super) fn rack_update(&mut self, now: Time, ts_ecr: Option<Time>) {
        let Some(mut r) = self.rack else {
            return;
        };
        // Ascending sequence, so a late original below RACK.fack shows reordering.
        self.delivered.sort_unstable_by_key(|d| d.1);
        let min_rtt = self.rtt.min_rtt.unwrap_or(0);
        for &(sent, end, retx) in &self.delivered {
            let rtt = now.saturating_sub(sent);
            // Step 2: a retransmitted segment's ACK may belong to the original (Karn).
            let ambiguous = retx && (ts_ecr.is_some_and(|e| e < sent) || rtt < min_rtt);
            if !ambiguous && (sent > r.xmit_ts || (sent == r.xmit_ts && end > r.end_seq)) {
                r.rtt = rtt;
                r.xmit_ts = sent;
                r.end_seq = end;
            }
            // Step 3.
            if end > r.fack {
                r.fack = end;
            } else if end < r.fack && !retx {
                r.reord = true;
            }
        }
        self.delivered.clear();
        self.rack = Some(r);
        self.rack_detect(now);
    }

    /// RFC 8985 6.2 step 4: the reordering window. Zero once recovery runs or DupThresh
    /// segments are SACKed, unless reordering was seen; else a quarter of the minimum RTT,
    /// at most SRTT.
    fn reo_wnd(&self, r: &Rack) -> Time {
        if !r.reord
            && (self.in_recovery
                || self.loss_state
                || self.board.sacked_count() >= self.cfg.dupack_threshold as usize)
        {
            return 0;
        }
        let quarter = self.rtt.min_rtt.unwrap_or(0) / 4;
        self.rtt.srtt.map_or(quarter, |s| quarter.min(s))
    }

    /// RFC 8985 6.2 step 5 and the reordering timer.
    pub(super) fn rack_detect(&mut self, now: Time) {
        let Some(r) = self.rack else {
            return;
        };
        if r.xmit_ts == 0 && r.end_seq == 0 {
            return;
        }
        let wnd = r.rtt + self.reo_wnd(&r);
        let (newly, wait) =
            self.board
                .rack_detect_loss(now, r.xmit_ts, r.end_seq, wnd, self.app_end);
        if let Some(r) = &mut self.rack {
            r.deadline = (wait > 0).then_some(now + wait);
        }
        if newly > 0 && !self.in_recovery && !self.loss_state && self.frto == Frto::Off {
            self.maybe_fast_retransmit(now, false);
        }
    }
}
