//! Processing an ACK: advancing snd_una, duplicate ACKs, SACK blocks and RTT samples
//! (timestamps, RFC 7323; ns-3's sampling rule).

use super::{Frto, TcpSender};
use crate::engine::Time;
use crate::packet::{flags, TcpHeader};
use crate::tcp::cc::{AckInfo, RecoveryKind};
use crate::tcp::rto_rules::{Front, Ns3History};

impl TcpSender {
    /// Process an ACK segment.
    pub fn on_ack(&mut self, now: Time, h: &TcpHeader) {
        self.account(now);
        if let Some(syn) = self.syn {
            if h.has(flags::SYN) && h.has(flags::ACK) {
                // Open: ECN only if the receiver agreed (RFC 3168 6.1.1: SYN-ACK with ECE).
                self.syn = None;
                self.handshake_ack_due = self.cfg.handshake_ack;
                self.ecn_ok = self.cfg.ecn && h.has(flags::ECE);
                self.rwnd = h.wnd;
                self.rto_deadline = None;
                // Karn: no sample from a resent SYN, except in ns-3 (`syn_timeout`), whose
                // history keeps the first SYN's entry unmarked (`UpdateRttHistory` with a
                // count of 0 matches no entry), so it times the SYN-ACK from the first SYN,
                // or by the echo with timestamps.
                let timed = !syn.retransmitted || self.cfg.syn_timeout > 0;
                if let (Some(sent), Some(first), true) = (syn.sent_at, syn.first_sent, timed) {
                    // With timestamps the SYN is timed by its echo, in whole ticks as every
                    // later sample (ns-3's EstimateRtt on the SYN-ACK), at least 1 µs.
                    let r = if self.cfg.timestamps && self.cfg.ts_tick > 0 {
                        (self.ts_clock(now) - self.ts_clock(sent)).max(1_000)
                    } else {
                        now - first
                    };
                    self.rtt.sample(r);
                }
            }
            return;
        }
        self.cc.on_feedback(now, h.ecn_echo);
        let entries_at_start = self.recovery_entries;
        if self.cfg.timestamps {
            self.ts_recent = self.ts_recent.max(h.ts_val);
        }
        // A window update is not a duplicate ACK (RFC 5681 2, condition (e)).
        let window_changed = h.wnd != self.rwnd;
        self.rwnd = h.wnd;
        let ack = h.ack.min(self.snd_max);
        self.ack_delivered = 0;
        self.ack_covers_retx = false;
        self.ack_newest_delivered = None;
        self.ack_delivered_sends.clear();
        let mut info = AckInfo {
            now,
            rwnd: h.wnd,
            ece: h.has(flags::ECE),
            ecn_echo: h.ecn_echo,
            eln: h.has(flags::ELN),
            rate_index: h.rate_index_echo,
            explicit_rate: h.explicit_rate_echo,
            ack_seq: h.ack,
            ts_val: self.cfg.timestamps.then_some(h.ts_val),
            ts_ecr: (self.cfg.timestamps && h.ts_ecr > 0).then_some(h.ts_ecr),
            linux_growth: self.cfg.linux_growth,
            snd_nxt: self.snd_max,
            ..Default::default()
        };
        self.cc.on_ack_header(&info);

        if self.recovery_kind == RecoveryKind::Sack {
            info.sacked_bytes = if !self.cfg.sack {
                // `reno_sack`: a duplicate ACK marks the next segment; ns-3 ignores the
                // duplicates that come after a timeout (DupAck returns in CA_LOSS).
                let dup = ack == self.snd_una
                    && h.len == 0
                    && self.snd_max > self.snd_una
                    && !window_changed
                    && !self.loss_state;
                if dup {
                    self.board.add_reno_sack(self.app_end)
                } else {
                    0
                }
            } else if self.rack.is_some() {
                let buf = &mut self.delivered;
                self.board
                    .on_sack_with(h.sack_blocks(), self.app_end, |t, e, r| buf.push((t, e, r)))
            } else if self.cc.wants_scoreboard() {
                let newest = &mut self.ack_newest_delivered;
                let sends = &mut self.ack_delivered_sends;
                self.board
                    .on_sack_with(h.sack_blocks(), self.app_end, |t, _, _| {
                        *newest = (*newest).max(Some(t));
                        sends.push(t);
                    })
            } else {
                self.board.on_sack(h.sack_blocks(), self.app_end)
            };
        }
        let ts_ecr = (self.cfg.timestamps && h.ts_ecr > 0).then_some(h.ts_ecr);
        let advanced = ack > self.snd_una;
        if ack > self.snd_una {
            let acked = ack - self.snd_una;
            self.prev_highest_ack = self.snd_una;
            info.acked_bytes = acked;
            let front = self.ns3_front();
            info.rtt = self.take_rtt_sample(now, ack, h);
            // Linux's acked_sacked: new data cumulatively acknowledged (not SACKed before)
            // plus newly SACKed.
            info.delivered_bytes = self.ack_delivered + info.sacked_bytes;
            let estimator_sample = if self.cfg.rtt_sample_ns3 {
                Ns3History::sample(front, ack, self.ts_sample(now, h), now)
            } else {
                info.rtt
            };
            if let Some(r) = estimator_sample {
                self.rtt.sample(r);
            }
            info.estimator_rtt = estimator_sample;
            self.snd_una = ack;
            self.snd_nxt = self.snd_nxt.max(ack);
            let was_in_loss = self.loss_state;
            if self.loss_state && self.recover.is_none_or(|r| ack >= r) {
                self.loss_state = false;
                if self.cfg.acked_delivered {
                    // ns-3 leaves CA_LOSS counting only what lies above its recovery point.
                    info.acked_bytes = ack - self.recover.unwrap_or(ack).min(ack);
                }
            } else if self.cfg.acked_delivered && !self.in_recovery {
                // ns-3.44 (ProcessAck's segsAcked from the rate sample's delivered count):
                // what this ACK newly delivered, not the SACKed data it only covers.
                info.acked_bytes = self.ack_delivered + info.sacked_bytes;
            }
            if let Some(m) = &mut self.oracle {
                *m = m.split_off(&ack);
            }
            let was_in_recovery = self.in_recovery;
            let mut restart_timer = true;
            if self.in_recovery {
                let recover = self.recover.unwrap_or(0);
                if ack >= recover || self.recovery_kind == RecoveryKind::Reno {
                    self.exit_recovery(now);
                } else if self.recovery_kind == RecoveryKind::Sack {
                    // The scoreboard and pipe decide what to send; the timer restarts only
                    // on the first partial ACK, as with NewReno.
                    if self.cfg.partial_ack_retransmit
                        && self.board.resendable(self.snd_una, self.recovery_epoch)
                    {
                        // ns-3's DoRetransmit: one NextSeg() (rules 1 and 2) at once,
                        // outside cwnd, unless the new head was already resent.
                        self.nextseg_due = true;
                    }
                    restart_timer = !self.partial_seen;
                    self.partial_seen = true;
                } else {
                    // Partial ACK (RFC 6582 3.2 step 5): retransmit the next hole, deflate by
                    // the amount acked, add back one SMSS if at least that much was acked.
                    self.pending_retx = Some(self.snd_una);
                    let back = if acked >= self.mss() { self.mss() } else { 0 };
                    self.st.cwnd = (self.st.cwnd.saturating_sub(acked) + back).max(self.mss());
                    // Impatient variant: only the first partial ACK restarts the timer.
                    restart_timer = !self.partial_seen;
                    self.partial_seen = true;
                }
            } else if self.recovery_kind == RecoveryKind::Sack && info.sacked_bytes > 0 {
                // RFC 6675 5: an ACK with new SACK information is a duplicate whatever its
                // cumulative point; the advance reset the count first.
                self.dupacks = 1;
                if self.cfg.disorder_hold && !was_in_loss {
                    // ns-3's DupAck moves the socket to CA_DISORDER before ProcessAck sees
                    // the advance, and there it calls neither IncreaseWindow nor NewAck.
                    info.hold_growth = true;
                    restart_timer = false;
                }
            } else {
                self.dupacks = 0;
            }
            if !self.cfg.sack
                && self.recovery_kind == RecoveryKind::Sack
                && self.board.move_head_mark(self.app_end)
                && !self.in_recovery
                && self.snd_nxt > self.snd_una
            {
                // ns-3 marks such a head lost and resends it (in recovery the partial ACK
                // does; after a timeout only if go-back-N has passed it).
                self.pending_retx = Some(self.snd_una);
            }
            // With `exit_ack_grows` the ACK that ended the recovery is an ordinary one.
            info.in_recovery = was_in_recovery && (self.in_recovery || !self.cfg.exit_ack_grows);
            if restart_timer && self.cfg.rto_reset_on_new_ack {
                self.rtt.reset_to_estimate();
            }
            if self.snd_una >= self.snd_max {
                self.rto_deadline = None;
            } else if restart_timer {
                self.arm_rto(now);
            }
            if self.is_done() && self.stats.completed_at.is_none() && !self.app_cut {
                self.stats.completed_at = Some(now);
            }
        } else if ack == self.snd_una
            && h.len == 0
            && self.snd_max > self.snd_una
            && !window_changed
            // RFC 6675 2: with SACK, a duplicate must bring new SACK information.
            && (self.recovery_kind != RecoveryKind::Sack || info.sacked_bytes > 0)
        {
            info.dup_ack = true;
            self.dupacks += 1;
            if self.in_recovery {
                if self.recovery_kind != RecoveryKind::Sack {
                    // Each further duplicate means a segment left the network (RFC 5681 3.2
                    // step 4); with SACK, pipe accounts for it instead.
                    self.st.cwnd += self.mss();
                }
            } else if self.dupacks == self.cfg.dupack_threshold {
                self.maybe_fast_retransmit(now, h.has(flags::ELN) && self.cc.honours_eln());
            }
            info.in_recovery = self.in_recovery;
        }
        if self.rack.is_some() {
            self.rack_update(now, ts_ecr);
            info.in_recovery = self.in_recovery;
        }
        if self.recovery_kind == RecoveryKind::Sack
            && !self.in_recovery
            // RFC 6675 5 asks IsLost only of a duplicate: with SACK, an ACK that brings new
            // SACK information, whatever its cumulative point (ns-3's ProcessAck, Linux's
            // FLAG_DATA_SACKED); without SACK (ns-3's guessed marks) one that does not advance.
            && (if self.cfg.sack {
                info.sacked_bytes > 0
            } else {
                info.dup_ack
            })
            && self.frto == Frto::Off
            && self.snd_una < self.snd_max
            && self.board.is_lost(self.snd_una, self.cfg.dupack_threshold)
        {
            // RFC 6675 5 (a): enough SACKed data above the first hole.
            self.maybe_fast_retransmit(now, h.has(flags::ELN) && self.cc.honours_eln());
            info.in_recovery = self.in_recovery;
            if info.hold_growth && self.in_recovery {
                // ns-3 entered recovery on it: the advance is then the recovery's first
                // partial ACK, which restarts the timer (NewAck with m_isFirstPartialAck).
                info.hold_growth = false;
                self.partial_seen = true;
                if self.cfg.rto_reset_on_new_ack {
                    self.rtt.reset_to_estimate();
                }
                self.arm_rto(now);
            }
        }
        if self.in_recovery
            && self.cfg.prr
            && self.recovery_kind == RecoveryKind::Sack
            && self.eln_saved.is_none()
        {
            // RFC 6937 DeliveredData: the cumulative advance less what was already SACKed,
            // plus what this ACK newly SACKs.
            let delivered = self.ack_delivered + info.sacked_bytes;
            let entered = self.recovery_entries != entries_at_start;
            if self.cfg.prr_ns3 {
                // ns-3 runs DoRecovery from DupAck for an ACK with new SACK information, and
                // again for a partial ACK of at least one segment (ProcessAck).
                let pipe = if entered {
                    self.pipe_head_lost()
                } else {
                    self.pipe()
                };
                // Guessed marks (`reno_sack`) are not delivery to ns-3's rate sampler: a
                // duplicate delivers nothing, and a cumulative ACK delivers all it covers,
                // marked or not (SkbDelivered). DupAck adds the mark after ReceivedAck took
                // BytesInFlight, so on a duplicate in recovery ns-3's PRR sees the in-flight
                // count from before the mark (EnterRecovery takes it afresh).
                let (delivered, stale) = if self.cfg.sack {
                    (delivered, 0)
                } else {
                    let stale = if entered { 0 } else { info.sacked_bytes };
                    (if advanced { info.acked_bytes } else { 0 }, stale)
                };
                if info.sacked_bytes > 0 || entered {
                    self.prr_step_ns3(delivered, true, pipe + stale);
                }
                if advanced && info.acked_bytes >= self.mss() && !entered {
                    self.prr_step_ns3(delivered, false, pipe);
                }
            } else {
                self.prr_step(delivered);
            }
        }
        if self.recovery_kind == RecoveryKind::Sack
            && self.rack.is_none()
            && self.cc.wants_scoreboard()
        {
            self.scoreboard_info(&mut info);
            info.newest_delivered_sent = self.ack_newest_delivered;
            info.scoreboard = true;
            self.cc.on_delivered_sends(&self.ack_delivered_sends);
        }
        info.in_flight = self.in_flight();
        info.min_rtt = self.rtt.min_rtt;
        info.srtt = self.rtt.srtt;
        self.cc.on_ack(&info, &mut self.st);
        self.last_ack = info;
        // After the scheme's growth step, so the reduced window is what the ACK leaves.
        if info.ece && self.ecn_ok && !self.multilevel {
            self.on_ece(now);
        }
        if self.frto != Frto::Off {
            self.frto_on_ack(info.dup_ack, advanced, info.acked_bytes);
        }
        if self.cfg.tlp {
            self.tlp_on_ack(now, ack, advanced, !h.sack_blocks().is_empty());
            if advanced || self.tlp.pto.is_none() {
                self.arm_pto(now);
            }
        }
        self.st.cwnd = self.st.cwnd.max(self.mss());
        self.update_persist(now);
    }

    /// The timestamp clock: `now` in whole `ts_tick`s.
    pub(super) fn ts_clock(&self, now: Time) -> Time {
        match self.cfg.ts_tick {
            0 => now,
            t => now / t * t,
        }
    }

    /// The round trip the ACK's timestamp echo gives, if it carries one.
    fn ts_sample(&self, now: Time, h: &TcpHeader) -> Option<Time> {
        if !(self.cfg.timestamps && h.ts_ecr > 0) {
            return None;
        }
        // ns-3 takes a zero sample (within one tick) as 1 µs.
        let r = self.ts_clock(now).saturating_sub(h.ts_ecr);
        Some(if self.cfg.ts_tick > 0 {
            r.max(1_000)
        } else {
            r
        })
    }

    /// `rtt_sampling = "ns3"`: the oldest segment the history holds, before the ACK.
    fn ns3_front(&self) -> Option<Front> {
        if !self.cfg.rtt_sample_ns3 {
            return None;
        }
        let start = self.rtt_history.front_start(self.snd_una, self.snd_max)?;
        let (sent, retx) = self.board.sent_at(start)?;
        Some(Front {
            end: start + self.seg_len(start) as u64,
            sent,
            retx,
        })
    }

    /// RTT sample for an ACK advancing snd_una to `ack`: from the timestamp echo when
    /// timestamps are on (valid even for retransmissions, RFC 7323), else from the newest
    /// fully acknowledged segment that was never retransmitted (Karn's rule).
    fn take_rtt_sample(&mut self, now: Time, ack: u64, h: &TcpHeader) -> Option<Time> {
        let acked = if self.rack.is_some() {
            let buf = &mut self.delivered;
            self.board
                .on_cumulative_ack_with(ack, self.app_end, |t, e, r| buf.push((t, e, r)))
        } else if self.cc.wants_scoreboard() {
            let newest = &mut self.ack_newest_delivered;
            let sends = &mut self.ack_delivered_sends;
            self.board
                .on_cumulative_ack_with(ack, self.app_end, |t, _, _| {
                    *newest = (*newest).max(Some(t));
                    sends.push(t);
                })
        } else {
            self.board.on_cumulative_ack(ack, self.app_end)
        };
        let (newest, any_retx) = (acked.newest_sent, acked.any_retx);
        self.ack_delivered = acked.delivered;
        self.ack_covers_retx = any_retx;
        self.last_acked_ts = newest;
        self.last_ack_ecr = (self.cfg.timestamps && h.ts_ecr > 0).then_some(h.ts_ecr);
        if let Some(r) = self.ts_sample(now, h) {
            return Some(r);
        }
        // An ACK that covers a retransmitted segment may have waited for that repair, so it
        // times nothing (Karn's rule applied to the whole ACK, as Linux does).
        if any_retx {
            None
        } else {
            newest.map(|t| now - t)
        }
    }

    /// `AckInfo::pipe`, `pipe_marked` and `lost_change`, for a scheme that reads them.
    fn scoreboard_info(&mut self, info: &mut AckInfo) {
        let dt = self.cfg.dupack_threshold;
        if self.forced_lost.is_some_and(|s| s < self.snd_una) {
            self.forced_lost = None;
        }
        let pipe = if self.loss_state {
            // After a timeout every segment sent before it counts as lost until resent.
            self.board.in_flight_in_loss(
                dt,
                self.recovery_epoch,
                self.recover.unwrap_or(self.snd_max),
                self.app_end,
                self.cfg.pipe_keeps_retransmissions,
            )
        } else {
            self.pipe()
        };
        // After a timeout the head counts as lost with every other segment sent before it.
        let forced = if self.loss_state {
            None
        } else {
            self.forced_lost
        };
        let forced = forced
            .filter(|&s| !self.board.is_sacked(s) && !self.board.is_lost(s, dt))
            .map_or(0, |s| self.seg_len(s) as u64);
        let lost = self.lost_marked(forced);
        info.pipe = pipe;
        info.pipe_marked = pipe.saturating_sub(forced);
        let head_counted = !self.board.resendable(self.snd_una, self.recovery_epoch);
        info.head_resend_adds = if forced > 0 || !head_counted {
            self.seg_len(self.snd_una) as u64
        } else {
            0
        };
        info.lost_change = lost.abs_diff(self.lost_prev);
        self.lost_prev = lost;
    }

    /// Bytes marked lost as ns-3 counts them (`TcpTxBuffer::GetLost`): IsLost's, the head a
    /// fast retransmit forced (`forced` bytes), and after a timeout every segment sent
    /// before it that is not SACKed.
    pub(super) fn lost_marked(&self, forced: u64) -> u64 {
        let dt = self.cfg.dupack_threshold;
        if self.loss_state {
            let recover = self.recover.unwrap_or(self.snd_max);
            self.board.lost_bytes_in_loss(dt, recover, self.app_end)
        } else {
            self.board.lost_bytes(dt, self.app_end) + forced
        }
    }
}
