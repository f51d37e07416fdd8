//! The retransmission timeout (RFC 6298) with F-RTO (RFC 5682), and the persist timer
//! (RFC 9293 3.8.6.1).

use super::{Frto, TcpSender, Tlp};
use crate::engine::Time;
use crate::tcp::cc::CongestionKind;

impl TcpSender {
    pub(super) fn persist_interval(&self) -> Time {
        (self
            .rtt
            .rto
            .saturating_mul(1 << self.persist_backoff.min(16)))
        .min(self.cfg.max_rto)
    }

    /// Start the persist timer when the peer's window holds no segment, nothing is in flight
    /// and data waits; stop it otherwise.
    pub(super) fn update_persist(&mut self, now: Time) {
        let waiting = self.syn.is_none()
            && self.snd_una == self.snd_max
            && self.snd_nxt < self.app_end
            && self.rwnd < self.seg_len(self.snd_nxt) as u64;
        if !waiting {
            self.persist_deadline = None;
            self.persist_backoff = 0;
        } else if self.persist_deadline.is_none() {
            self.persist_deadline = Some(now + self.persist_interval());
        }
    }

    /// RFC 5682 steps 2 and 3, on each ACK after a timeout while F-RTO runs.
    pub(super) fn frto_on_ack(&mut self, dup: bool, advanced: bool, acked: u64) {
        if self.in_recovery {
            self.frto_revert();
            return;
        }
        let covers_recover = self.recover.is_none_or(|r| self.snd_una >= r);
        match self.frto {
            Frto::First if dup || covers_recover => self.frto_revert(),
            Frto::First if advanced => {
                // Step 2b: the window moved; send new data if there is any the receiver takes.
                let len = self.seg_len(self.snd_max.min(self.app_end.saturating_sub(1))) as u64;
                if self.snd_max < self.app_end && self.snd_max + len <= self.snd_una + self.rwnd {
                    self.snd_nxt = self.snd_max;
                    self.frto = Frto::Second { left: 2 };
                } else {
                    self.frto_revert();
                }
            }
            Frto::Second { .. } if dup => {
                // Step 3a: a real loss after all; slow start from at most three segments.
                self.st.cwnd = self.st.cwnd.min(3 * self.mss());
                self.frto_revert();
            }
            Frto::Second { .. } if advanced => {
                // Step 3b: data never resent was acknowledged, so the timeout was spurious.
                // RFC 4015's response: cwnd = FlightSize + min(bytes_acked, IW), ssthresh =
                // pipe_prev, and no more go-back-N.
                self.frto = Frto::Off;
                self.stats.spurious_timeouts += 1;
                let iw = self.cfg.initial_cwnd as u64 * self.mss();
                self.st.cwnd = self.in_flight() + acked.min(iw);
                self.st.ssthresh = self.pipe_prev.max(2 * self.mss());
                self.recover = Some(self.snd_una);
                self.ecn_recover = Some(self.snd_una);
                self.loss_state = false;
                self.board.clear_lost();
                self.snd_nxt = self.snd_max;
            }
            _ => {}
        }
    }

    /// F-RTO gives way to the conventional recovery after a timeout: go back N from after
    /// the segment step 1 already resent (or, with RACK, resend what the timeout marked
    /// lost).
    fn frto_revert(&mut self) {
        self.frto = Frto::Off;
        if self.rack.is_none() {
            self.snd_nxt = self.snd_una.max(self.frto_head_end).min(self.snd_max);
        }
    }

    /// The retransmission timer fired at `now` (the caller checks it is due).
    pub fn on_timeout(&mut self, now: Time) {
        match self.rto_deadline {
            Some(d) if d <= now => {}
            _ => return,
        }
        if let Some(syn) = &mut self.syn {
            // SYN lost (or its SYN-ACK): send it again with the backed-off timer.
            syn.due = true;
            if self.cfg.syn_timeout == 0 {
                self.rtt.backoff();
            }
            self.rto_deadline = None;
            return;
        }
        self.account(now);
        self.stats.timeouts += 1;
        // ns-3's ReTxTimeout empties its RTT history (`rtt_sampling = "ns3"`) and, without
        // SACK, forgets the guessed marks (`reno_sack`, ResetRenoSack).
        self.rtt_history.clear(self.snd_max);
        if !self.cfg.sack && self.cfg.reno_sack {
            self.board.clear_sacks();
        }
        // RFC 4015 pipe_prev, kept in case F-RTO finds the timeout spurious.
        let pipe_prev = self.in_flight().max(self.st.ssthresh);
        // RFC 5682 step 1: not when a timeout's recovery is already under way.
        let frto = self.cfg.frto && !self.loss_state && self.snd_una < self.snd_max;
        // A timeout of the head already resent after an earlier timeout belongs to the same
        // loss episode: Linux keeps that episode's ssthresh (tcp_enter_loss recomputes only
        // on a new episode).
        let repeated = self.cfg.timeout_keeps_ssthresh
            && self.loss_state
            && self.board.retransmitted(self.snd_una);
        // The scheme still hears of the timeout (ns-3 still enters CA_LOSS, which resets
        // CUBIC's history); only its ssthresh is ignored.
        let r = self.react(now, CongestionKind::Timeout);
        if !repeated {
            self.st.ssthresh = r.ssthresh.max(2 * self.mss());
        }
        // Loss window of one segment (RFC 5681 eq. 5 context).
        self.st.cwnd = r.cwnd.unwrap_or(self.mss());
        self.in_recovery = false;
        self.eln_saved = None;
        self.dupacks = 0;
        self.recover = Some(self.snd_max);
        self.ecn_recover = Some(self.snd_max);
        self.pending_retx = None;
        self.tlp = Tlp::default();
        self.loss_state = self.snd_una < self.snd_max;
        // A timeout starts a recovery of its own (RFC 6675 5.1; ns-3's SetSentListLost
        // clears every retransmitted flag): what it resends is flagged anew.
        self.recovery_epoch += 1;
        if let Some(r) = &mut self.rack {
            r.deadline = None;
            self.board.mark_all_lost();
        }
        if frto {
            // Resend only the first unacknowledged segment and wait for its ACK.
            self.frto = Frto::First;
            self.pipe_prev = pipe_prev;
            self.pending_retx = Some(self.snd_una);
            self.frto_head_end = self.snd_una + self.seg_len(self.snd_una) as u64;
        } else {
            self.frto = Frto::Off;
            if self.rack.is_none() {
                // Go back N: resend from the first unacknowledged byte.
                self.snd_nxt = self.snd_una;
            }
        }
        if self.cfg.pacing_ns3 {
            // ns-3's `ReTxTimeout` cancels the pacing timer before it sends again.
            self.pacer.next_send = now;
            self.pacer.armed = false;
        }
        self.rtt.backoff();
        self.rto_deadline = None;
        if self.snd_una < self.snd_max {
            self.arm_rto(now);
        }
        if self.cc.wants_scoreboard() {
            // ns-3 reads the lost count afresh at each ACK, so the marks a timeout sets are
            // no ACK's change.
            self.lost_prev = self.lost_marked(0);
        }
    }
}
