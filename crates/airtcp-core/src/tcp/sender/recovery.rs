//! Loss recovery: RFC 6675 NextSeg() selection, the window cut and the scheme's reaction,
//! fast retransmit (RFC 5681, RFC 6582's guard), ECN-Echo, and PRR (RFC 6937).

use super::{LossDecision, Prr, Segment, TcpSender, Tlp};
use crate::engine::Time;
use crate::tcp::cc::{CongestionEvent, CongestionKind, Reaction, RecoveryKind};
use crate::tcp::RecoverGuard;

impl TcpSender {
    /// RFC 6675 recovery: send while cwnd - pipe >= 1 SMSS, choosing by NextSeg().
    pub(super) fn sack_next(&mut self, now: Time) -> Option<Segment> {
        let dt = self.cfg.dupack_threshold;
        let pipe = self.pipe();
        if self.st.cwnd < pipe + self.mss() || self.pacing_holds(now) {
            return None;
        }
        if let Some(seq) = self.board.next_lost(dt, self.recovery_epoch) {
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
        if let Some(seq) = self.board.next_unsacked(self.recovery_epoch) {
            return Some(self.emit(now, seq, true));
        }
        // NextSeg() rule 4: one rescue retransmission per recovery, of the highest
        // outstanding un-SACKed segment (RFC 6675 4), so a lost tail does not wait for the RTO.
        if self.cfg.rescue_retransmit && self.rescue_rxt.is_none_or(|r| self.snd_una > r) {
            let seq = self.board.highest_unsacked()?;
            self.rescue_rxt = self.recover;
            return Some(self.emit(now, seq, true));
        }
        None
    }

    /// After a timeout with SACK (RFC 6675 5.1, as ns-3 and Linux do it): the scoreboard is
    /// kept, so what the receiver holds is neither resent nor counted in flight; resend the
    /// lowest segment presumed lost, then new data, while cwnd leaves room.
    pub(super) fn loss_next(&mut self, now: Time) -> Option<Segment> {
        let dt = self.cfg.dupack_threshold;
        let recover = self.recover.unwrap_or(self.snd_max);
        let epoch = self.recovery_epoch;
        let below = self.cfg.timeout_resend_below_sack && self.cfg.sack;
        let seq = self.board.loss_next(dt, epoch, recover, below);
        let len = self.seg_len(seq.unwrap_or(self.snd_max)) as u64;
        let in_net = self.board.in_flight_in_loss(
            dt,
            epoch,
            recover,
            self.app_end,
            self.cfg.pipe_keeps_retransmissions,
        );
        if in_net + len > self.st.cwnd || self.pacing_holds(now) {
            return None;
        }
        if let Some(seq) = seq {
            return Some(self.emit(now, seq, true));
        }
        if self.snd_max >= self.app_end || self.snd_max + len > self.snd_una + self.rwnd {
            return None;
        }
        self.snd_nxt = self.snd_max;
        Some(self.send_at_nxt(now, false))
    }

    /// NextSeg() rules 1 and 2 without the cwnd test: a segment judged lost and not resent
    /// in this recovery, else new data the receiver's window takes.
    pub(super) fn nextseg_unlimited(&mut self, now: Time) -> Option<Segment> {
        let dt = self.cfg.dupack_threshold;
        if let Some(seq) = self.board.next_lost(dt, self.recovery_epoch) {
            return Some(self.emit(now, seq, true));
        }
        let len = self.seg_len(self.snd_nxt.min(self.app_end.saturating_sub(1))) as u64;
        if self.snd_nxt < self.app_end && self.snd_nxt + len <= self.snd_una + self.rwnd {
            return Some(self.send_at_nxt(now, false));
        }
        None
    }

    /// What a window cut starts from (`cut_basis`).
    fn cut_base(&self, kind: CongestionKind) -> u64 {
        if self.cfg.linux_growth && !self.cfg.cut_from_pipe {
            // Linux's ssthresh hooks (`tcp_reno_ssthresh`: max(cwnd >> 1, 2)) cut from cwnd
            // in whole segments, not from the flight, which limited transmit has raised
            // above cwnd by the time the loss is found.
            let mss = self.mss();
            return self.st.cwnd / mss * mss;
        }
        if !self.cfg.cut_from_pipe {
            return self.in_flight();
        }
        if kind == CongestionKind::Timeout && self.loss_state {
            // A repeated timeout: ns-3's BytesInFlight (ReTxTimeout's inFlightBeforeRto)
            // counts only what was sent since the last one, which marked every segment lost.
            let recover = self.recover.unwrap_or(self.snd_max);
            return self.board.in_flight_in_loss(
                self.cfg.dupack_threshold,
                self.recovery_epoch,
                recover,
                self.app_end,
                self.cfg.pipe_keeps_retransmissions,
            );
        }
        if kind != CongestionKind::DupAcks {
            return self.pipe();
        }
        if !self.cfg.sack && self.cfg.reno_sack {
            // ns-3's EnterRecovery without SACK counts the lost head in flight as well
            // ("for compatibility with old ns-3 versions").
            return self.pipe_head_lost() + self.mss();
        }
        self.pipe_head_lost()
    }

    /// Pipe with the head presumed lost, as a fast retransmit presumes it even with fewer
    /// than DupThresh segments SACKed above it (ns-3's EnterRecovery marks it so before
    /// taking BytesInFlight).
    pub(super) fn pipe_head_lost(&self) -> u64 {
        let pipe = self.pipe();
        if self.rack.is_some() {
            return pipe;
        }
        let dt = self.cfg.dupack_threshold;
        if self.snd_una < self.snd_max && !self.board.is_lost(self.snd_una, dt) {
            let head = self.seg_len(self.snd_una) as u64;
            pipe.saturating_sub(head)
        } else {
            pipe
        }
    }

    pub(super) fn react(&mut self, now: Time, kind: CongestionKind) -> Reaction {
        let ev = CongestionEvent {
            now,
            kind,
            in_flight: self.cut_base(kind),
            flight_size: self.in_flight(),
            min_rtt: self.rtt.min_rtt,
            true_cause: self
                .oracle
                .as_ref()
                .and_then(|m| m.get(&self.snd_una).copied()),
        };
        let mut r = self.cc.on_congestion(&ev, &self.st);
        if self.cfg.linux_growth {
            // Linux keeps snd_ssthresh in whole segments (`cwnd >> 1` rounds down).
            let mss = self.mss();
            r.ssthresh = r.ssthresh / mss * mss;
        }
        if let Some(class) = r.verdict {
            self.decisions.push(LossDecision {
                seq: self.snd_una,
                at: now,
                kind,
                class,
            });
        }
        r
    }

    /// ECN-Echo: reduce like a loss, but without retransmitting, at most once per window of
    /// data (RFC 3168 6.1.2), and not while loss recovery has already reduced the window.
    pub(super) fn on_ece(&mut self, now: Time) {
        if self.in_recovery || self.ecn_recover.is_some_and(|r| self.snd_una <= r) {
            return;
        }
        let r = self.react(now, CongestionKind::Ecn);
        self.st.ssthresh = r.ssthresh.max(2 * self.mss());
        self.st.cwnd = r.cwnd.unwrap_or(self.st.ssthresh);
        self.ecn_recover = Some(self.snd_max);
        self.cwr_pending = true;
        self.stats.ecn_reductions += 1;
    }

    /// Enter fast retransmit / fast recovery. With `eln` the hole is known to be a channel
    /// error: the same repair runs (partial ACKs included) but the window is not reduced, and
    /// the pre-loss window is restored when recovery ends. A scheme may ask for the same
    /// (`Reaction::keep_window`).
    pub(super) fn maybe_fast_retransmit(&mut self, now: Time, eln: bool) {
        // RFC 6582 3.2 step 2: only if the ACK covers more than `recover`, so duplicate ACKs
        // caused by retransmissions after a timeout do not trigger a second reduction.
        if let Some(rec) = self.recover {
            if self.snd_una <= rec
                && self.recovery_kind != RecoveryKind::Reno
                && !self.guard_lets_through()
            {
                return;
            }
        }
        let pipe_at_entry = self.pipe_head_lost();
        let inflation = if self.recovery_kind == RecoveryKind::Sack {
            // RFC 6675: no inflation; pipe tracks what left the network.
            0
        } else {
            self.cfg.dupack_threshold as u64 * self.mss()
        };
        let keep = if eln {
            self.stats.eln_retransmits += 1;
            true
        } else {
            self.stats.fast_retransmits += 1;
            let r = self.react(now, CongestionKind::DupAcks);
            if r.keep_window {
                self.stats.uncut_retransmits += 1;
            } else {
                self.st.ssthresh = r.ssthresh.max(2 * self.mss());
                self.st.cwnd = r.cwnd.unwrap_or(self.st.ssthresh + inflation);
                self.ecn_recover = Some(self.snd_max);
            }
            r.keep_window
        };
        if keep {
            self.eln_saved = Some(self.st.cwnd);
            self.st.cwnd += inflation;
        } else {
            self.eln_saved = None;
        }
        if !self.cfg.pipe_keeps_retransmissions || self.recovery_epoch == 0 {
            self.recovery_epoch += 1;
        }
        self.recovery_entries += 1;
        self.recover = Some(self.snd_max);
        self.prr = Prr {
            // RFC 6937: RecoverFS = FlightSize; ns-3.44 takes BytesInFlight (pipe).
            recover_fs: if self.cfg.prr_ns3 {
                pipe_at_entry
            } else {
                self.snd_max - self.snd_una
            },
            delivered: 0,
            out: 0,
        };
        self.in_recovery = true;
        self.partial_seen = false;
        self.pending_retx = Some(self.snd_una);
        // ns-3's EnterRecovery marks the head lost if IsLost() does not already.
        self.forced_lost = (self.recovery_kind == RecoveryKind::Sack
            && !self.board.is_lost(self.snd_una, self.cfg.dupack_threshold))
        .then_some(self.snd_una);
        if self.rack.is_some() {
            // The resent head counts as lost-and-resent in RACK's pipe.
            self.board.mark_lost(self.snd_una);
        }
        self.tlp = Tlp::default();
        // The retransmission leaves now: restart the timer from it (ns-2's dupack_action
        // and Linux do), or the old timer fires about one RTT later on the segment just
        // resent, a spurious timeout when the RTO is short. (ns-3 keeps the old timer.)
        if self.cfg.fast_retransmit_restarts_rto || self.rto_deadline.is_none() {
            self.arm_rto(now);
        }
    }

    /// RFC 6582 4: may duplicate ACKs that do not cover `recover` still mean a new loss?
    fn guard_lets_through(&self) -> bool {
        match self.cfg.recover_guard {
            RecoverGuard::Careful => false,
            // RFC 2582 6: an ACK that reaches `recover` itself (all data sent before the last
            // reduction) is enough.
            RecoverGuard::LessCareful => self.recover.is_some_and(|r| self.snd_una >= r),
            RecoverGuard::Off => true,
            // 4.1: ACKs of needless resends follow a cumulative jump of more than 4 SMSS.
            RecoverGuard::Ack => {
                self.st.cwnd > self.mss() && self.snd_una - self.prev_highest_ack <= 4 * self.mss()
            }
            // 4.2: after a lost retransmission the last advancing ACK was sent for the last
            // segment it covers, so it echoes that segment's timestamp.
            RecoverGuard::Timestamp => {
                self.last_ack_ecr.is_some() && self.last_ack_ecr == self.last_acked_ts
            }
        }
    }

    /// RFC 6937 3.1, on each ACK in recovery: spread the window reduction over the recovery
    /// in proportion to the data delivered, and once pipe is below ssthresh grow back no
    /// faster than slow start (PRR-SSRB).
    pub(super) fn prr_step(&mut self, delivered: u64) {
        let mss = self.mss();
        self.prr.delivered += delivered;
        let pipe = self.pipe();
        let ss = self.st.ssthresh;
        let sndcnt = if pipe > ss {
            (self.prr.delivered * ss)
                .div_ceil(self.prr.recover_fs.max(1))
                .saturating_sub(self.prr.out)
        } else {
            let limit = self
                .prr
                .delivered
                .saturating_sub(self.prr.out)
                .max(delivered)
                + mss;
            (ss - pipe).min(limit)
        };
        self.st.cwnd = pipe + sndcnt;
    }

    /// ns-3.44's `TcpPrrRecovery::DoRecovery`, for the `ns3` profile: RFC 6937 with
    /// RecoverFS = pipe at entry, one extra segment counted delivered for each `dup` ACK
    /// (an ACK with new SACK information) until RecoverFS is reached, even with SACK, nothing
    /// done when nothing was delivered, and below ssthresh the conservative bound with one
    /// segment more only when the ACK covers a retransmission.
    pub(super) fn prr_step_ns3(&mut self, mut delivered: u64, dup: bool, pipe: u64) {
        let mss = self.mss();
        if dup && self.prr.delivered < self.prr.recover_fs {
            delivered += mss;
        }
        if delivered == 0 {
            return;
        }
        self.prr.delivered += delivered;
        let ss = self.st.ssthresh;
        let (prr_del, prr_out) = (self.prr.delivered as i64, self.prr.out as i64);
        let mut send = if pipe > ss {
            // The product is taken in 32 bits there, as ns-3.44 does.
            let prod = (self.prr.delivered as u32).wrapping_mul(ss as u32) as u64;
            prod.div_ceil(self.prr.recover_fs.max(1)) as i64 - prr_out
        } else {
            // An unsigned difference in ns-3: a deficit stays negative however much this
            // ACK delivered.
            let mut limit = if prr_del >= prr_out {
                (prr_del - prr_out).max(delivered as i64)
            } else {
                prr_del - prr_out
            };
            if self.ack_covers_retx {
                limit += mss as i64;
            }
            limit.min(ss as i64 - pipe as i64)
        };
        // The fast retransmission goes out whatever the count.
        send = send.max(if prr_out > 0 { 0 } else { mss as i64 });
        self.st.cwnd = pipe + send as u64;
    }

    pub(super) fn exit_recovery(&mut self, now: Time) {
        self.in_recovery = false;
        self.dupacks = 0;
        // RFC 6582 3.2 step 6 option (1): min(ssthresh, max(FlightSize, SMSS) + SMSS), which
        // avoids a burst when little is in flight.
        let flight = self.in_flight().max(self.mss());
        if let Some(saved) = self.eln_saved.take() {
            // A channel-loss repair: the window goes back to what it was.
            self.st.cwnd = saved;
            return;
        }
        self.st.cwnd = match self.recovery_kind {
            // RFC 6937 3.1: PRR ends recovery with cwnd = ssthresh.
            RecoveryKind::Sack if self.cfg.prr => self.st.ssthresh,
            RecoveryKind::NewReno | RecoveryKind::Sack => self.st.ssthresh.min(flight + self.mss()),
            // RFC 5681 3.2 step 6: deflate to ssthresh.
            RecoveryKind::Reno => self.st.ssthresh,
        };
        self.cc.on_recovery_exit(now, &mut self.st);
    }
}
