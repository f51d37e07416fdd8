//! TCP sender: sequence space, RTO timer (RFC 6298), fast retransmit and fast recovery
//! (RFC 5681, with RFC 6582 partial-ACK handling for NewReno). The window growth rule and the
//! reaction to congestion are delegated to the congestion-control scheme.

mod ack;
mod rack;
mod recovery;
mod send;
mod timers;

use super::cc::{AckInfo, CcState, CongestionControl, CongestionKind, LossClass, RecoveryKind};
use super::rto_rules::Ns3History;
use super::rtt::RttEstimator;
use super::scoreboard::Scoreboard;
use super::TcpConfig;
use crate::engine::{Time, Timed};
use crate::packet::{flags, Ecn, TcpHeader};

/// A segment the sender wants transmitted now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    pub len: u32,
    pub retx: bool,
    pub flags: u8,
}

/// A segment as it goes on the wire: the whole TCP header and the IP ECN codepoint, plus the
/// sender's own note that it is a retransmission (statistics only, not on the wire).
#[derive(Clone, Copy, Debug)]
pub struct Outgoing {
    pub tcp: TcpHeader,
    pub ecn: Ecn,
    pub retx: bool,
}

/// Proportional rate reduction (RFC 6937) bookkeeping for one recovery episode.
#[derive(Clone, Copy, Debug, Default)]
struct Prr {
    recover_fs: u64,
    delivered: u64,
    out: u64,
}

/// RFC 8985 RACK state: the most recently sent segment known delivered, the RTT it measured,
/// and whether the path has been seen to reorder.
#[derive(Clone, Copy, Debug, Default)]
struct Rack {
    xmit_ts: Time,
    end_seq: u64,
    rtt: Time,
    /// Highest end of a delivered segment (RACK.fack).
    fack: u64,
    /// A segment never retransmitted was delivered below `fack`: reordering (RACK.reord).
    reord: bool,
    /// Reordering timer: when a segment still inside the window would be judged lost.
    deadline: Option<Time>,
}

/// RFC 8985 7 tail loss probe state.
#[derive(Clone, Copy, Debug, Default)]
struct Tlp {
    /// Probe timeout (PTO) deadline.
    pto: Option<Time>,
    /// TLP.end_seq of the probe awaiting its ACK.
    end: Option<u64>,
    is_retrans: bool,
    /// A probe of new data is due: it goes regardless of cwnd.
    new_due: bool,
}

/// RFC 5682 F-RTO progress after a timeout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Frto {
    #[default]
    Off,
    /// The first unacknowledged segment was resent; waiting for the first ACK (step 2).
    First,
    /// New segments may go (`left` of the two still to send); waiting for the second ACK
    /// (step 3).
    Second { left: u8 },
}

/// Spaces segments at the scheme's pacing rate: a segment may leave once the previous one's
/// serialization at that rate has passed.
#[derive(Clone, Copy, Debug, Default)]
struct Pacer {
    next_send: Time,
    /// A segment the window allows is waiting for `next_send`.
    blocked: bool,
    /// `pacing = "ns3"`: ns-3's pacing timer was started for `next_send` and its own event
    /// has not fired (nor was it cancelled). At `next_send` itself an ACK handled before
    /// that event, scheduled earlier, still finds the timer running.
    armed: bool,
}

/// A scheme's verdict on one loss: the segment it took as lost (the first unacknowledged
/// one), when, how the loss was found, and what the scheme decided it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LossDecision {
    pub seq: u64,
    pub at: Time,
    pub kind: CongestionKind,
    pub class: LossClass,
}

#[derive(Clone, Copy, Debug)]
struct SynState {
    /// A SYN is due to be (re)sent.
    due: bool,
    sent_at: Option<Time>,
    retransmitted: bool,
    /// SYNs sent so far, and when the first went.
    sends: u32,
    first_sent: Option<Time>,
}

#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    pub sent_packets: u64,
    pub sent_bytes: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Window reductions in response to ECN-Echo.
    pub ecn_reductions: u64,
    /// Zero-window probes sent by the persist timer.
    pub window_probes: u64,
    /// Retransmissions on ELN-marked duplicate ACKs (no window reduction).
    pub eln_retransmits: u64,
    /// Fast retransmits the scheme chose to make without reducing the window (a loss judged
    /// wireless, or a second loss in the RTT of a reduction).
    pub uncut_retransmits: u64,
    /// Integral of cwnd (bytes) over time, for the time-averaged window.
    pub cwnd_area: u128,
    pub completed_at: Option<Time>,
    /// Tail loss probes sent (RFC 8985 7.3).
    pub tlp_probes: u64,
    /// Probes whose ACK showed they repaired a loss, each answered by a window reduction.
    pub tlp_recoveries: u64,
    /// Timeouts F-RTO found spurious, whose reduction was undone.
    pub spurious_timeouts: u64,
}

pub struct TcpSender {
    pub cfg: TcpConfig,
    pub st: CcState,
    cc: Box<dyn CongestionControl>,
    pacer: Pacer,
    recovery_kind: RecoveryKind,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    /// End of the data the application has written (u64::MAX for a bulk source).
    app_end: u64,
    pub rwnd: u64,
    dupacks: u32,
    in_recovery: bool,
    /// RFC 6582 `recover`: highest sequence sent when recovery (or a timeout) began.
    recover: Option<u64>,
    partial_seen: bool,
    pub rtt: RttEstimator,
    rto_deadline: Option<Time>,
    /// Per-segment records of [snd_una, snd_max): send times, retransmissions, SACKs.
    board: Scoreboard,
    /// Counts recovery episodes, so the scoreboard knows what was resent in this one (with
    /// `pipe_keeps_retransmissions`, counts timeouts instead).
    recovery_epoch: u32,
    /// Fast recoveries entered.
    recovery_entries: u32,
    /// A retransmission of this sequence number is due, regardless of the window.
    pending_retx: Option<u64>,
    /// ECN (RFC 3168): no further reaction to ECE until snd_una passes this point.
    ecn_recover: Option<u64>,
    /// Set CWR on the next new data segment.
    cwr_pending: bool,
    /// ECN in use: configured, and (with a handshake) agreed by the receiver.
    ecn_ok: bool,
    /// The scheme reads multi-level ECN codepoints itself.
    multilevel: bool,
    /// Handshake state: Some(sent_at, retransmitted) while the SYN awaits its SYN-ACK.
    syn: Option<SynState>,
    /// Persist timer (RFC 9293 3.8.6.1): probes a zero window when nothing is in flight.
    persist_deadline: Option<Time>,
    persist_backoff: u32,
    /// cwnd before an ELN-triggered recovery, restored at its end.
    eln_saved: Option<u64>,
    probe_due: bool,
    /// `handshake_ack`: the pure ACK that completes the handshake is owed.
    handshake_ack_due: bool,
    last_account: Time,
    pub stats: SenderStats,
    /// Every verdict of a scheme that judges the cause of losses, in order.
    pub decisions: Vec<LossDecision>,
    /// What the scheme was told on the latest ACK (for inspection).
    pub last_ack: AckInfo,
    /// The application stopped before writing all it meant to (a file app's `stop`).
    app_cut: bool,
    /// RFC 6937 state of the current recovery: RecoverFS, prr_delivered, prr_out (bytes).
    prr: Prr,
    /// RFC 6675 RescueRxt: the recovery point when the rescue retransmission was sent.
    rescue_rxt: Option<u64>,
    /// For the oracle scheme only: the simulator's record of lost segments and their causes.
    oracle: Option<std::collections::BTreeMap<u64, crate::packet::DropCause>>,
    /// RFC 7323 TS.Recent: the newest TSval of the peer's ACKs, echoed in TSecr of the
    /// segments sent, so the receiver can time a round trip too.
    ts_recent: Time,
    /// RACK loss detection, when on.
    rack: Option<Rack>,
    /// Newly delivered segments of the ACK being processed (send time, end, retransmitted),
    /// for RACK; kept to reuse its allocation.
    delivered: Vec<(Time, u64, bool)>,
    tlp: Tlp,
    /// Since the last timeout, until snd_una passes `recover` (RTO recovery).
    loss_state: bool,
    frto: Frto,
    /// RFC 4015 pipe_prev: max(FlightSize, ssthresh) when the timeout fired, restored if it
    /// proves spurious.
    pipe_prev: u64,
    /// End of the segment F-RTO resent at the timeout.
    frto_head_end: u64,
    /// RFC 6582 4.1: where the cumulative ACK stood before its latest advance.
    prev_highest_ack: u64,
    /// RFC 6582 4.2: the TSval of the last segment the latest advancing ACK covered, and the
    /// timestamp that ACK echoed.
    last_acked_ts: Option<Time>,
    last_ack_ecr: Option<Time>,
    /// What the ACK being processed delivered below its cumulative point (not SACKed
    /// before), and whether it covered a retransmission.
    ack_delivered: u64,
    ack_covers_retx: bool,
    /// For a scheme that reads the scoreboard: the latest send time among the segments the
    /// ACK being processed newly delivered (`AckInfo::newest_delivered_sent`).
    ack_newest_delivered: Option<Time>,
    /// The same segments' send times in the order the ACK delivered them (reused buffer).
    ack_delivered_sends: Vec<Time>,
    /// For a scheme that reads the scoreboard (`wants_scoreboard`): the head a fast
    /// retransmit presumed lost without IsLost() saying so, and the lost bytes the last ACK
    /// left (`AckInfo::lost_change`).
    forced_lost: Option<u64>,
    lost_prev: u64,
    /// `partial_ack_retransmit`: one NextSeg() is due regardless of cwnd.
    nextseg_due: bool,
    /// `rtt_sampling = "ns3"`: which segments the RTT estimator may still time.
    rtt_history: Ns3History,
}

impl TcpSender {
    /// Bytes held on the heap: the scoreboard, the verdicts and RACK's scratch list (the
    /// oracle's map counted per entry), for the run's memory budget.
    pub fn heap_bytes(&self) -> usize {
        self.board.heap_bytes()
            + self.decisions.capacity() * std::mem::size_of::<LossDecision>()
            + self.delivered.capacity() * std::mem::size_of::<(Time, u64, bool)>()
            + self.oracle.as_ref().map_or(0, |m| m.len() * 48)
    }

    pub fn new(
        cfg: TcpConfig,
        cc: Box<dyn CongestionControl>,
        recovery_kind: RecoveryKind,
        now: Time,
    ) -> Self {
        let mss = cfg.mss as u64;
        let st = CcState {
            cwnd: cfg.initial_cwnd as u64 * mss,
            ssthresh: cfg.initial_ssthresh,
            mss,
        };
        let mut rtt = RttEstimator::new(cfg.initial_rto, cfg.min_rto, cfg.max_rto);
        rtt.min_rto_added = cfg.rto_min_added;
        rtt.granularity = cfg.clock_granularity;
        // With SACK on, every scheme recovers with the RFC 6675 scoreboard.
        // With SACK, or ns-3's guessed marks without it, every scheme recovers with the
        // RFC 6675 scoreboard.
        let recovery_kind = if cfg.sack || cfg.reno_sack {
            RecoveryKind::Sack
        } else {
            cfg.recovery.unwrap_or(recovery_kind)
        };
        let rwnd = cfg.rcv_window;
        let ecn_ok = cfg.ecn && !cfg.handshake;
        let multilevel = cc.multilevel_ecn();
        let wants_truth = cc.oracle();
        let rack = cfg.rack && cfg.sack;
        let syn = cfg.handshake.then_some(SynState {
            due: true,
            sent_at: None,
            retransmitted: false,
            sends: 0,
            first_sent: None,
        });
        TcpSender {
            cfg,
            st,
            cc,
            pacer: Pacer::default(),
            recovery_kind,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_end: 0,
            rwnd,
            dupacks: 0,
            in_recovery: false,
            recover: None,
            partial_seen: false,
            rtt,
            rto_deadline: None,
            board: if rack {
                Scoreboard::new(mss).with_rack()
            } else {
                Scoreboard::new(mss)
            },
            recovery_epoch: 0,
            recovery_entries: 0,
            pending_retx: None,
            ecn_recover: None,
            cwr_pending: false,
            ecn_ok,
            multilevel,
            syn,
            persist_deadline: None,
            persist_backoff: 0,
            eln_saved: None,
            probe_due: false,
            handshake_ack_due: false,
            last_account: now,
            stats: SenderStats::default(),
            decisions: Vec::new(),
            last_ack: AckInfo::default(),
            prr: Prr::default(),
            rescue_rxt: None,
            app_cut: false,
            oracle: wants_truth.then(Default::default),
            ts_recent: 0,
            rack: rack.then(Rack::default),
            delivered: Vec::new(),
            tlp: Tlp::default(),
            loss_state: false,
            frto: Frto::Off,
            pipe_prev: 0,
            frto_head_end: 0,
            prev_highest_ack: 0,
            last_acked_ts: None,
            last_ack_ecr: None,
            ack_delivered: 0,
            ack_covers_retx: false,
            ack_newest_delivered: None,
            ack_delivered_sends: Vec::new(),
            forced_lost: None,
            lost_prev: 0,
            nextseg_due: false,
            rtt_history: Ns3History::default(),
        }
    }

    /// The application has written data up to byte `end` (u64::MAX: never runs dry).
    /// The simulator tells an oracle sender that data segment `seq` was lost, and why.
    pub fn oracle_loss(&mut self, seq: u64, cause: crate::packet::DropCause) {
        if let Some(m) = &mut self.oracle {
            m.insert(seq, cause);
        }
    }

    pub fn wants_oracle(&self) -> bool {
        self.oracle.is_some()
    }

    pub fn set_app_end(&mut self, end: u64) {
        self.app_end = self.app_end.max(end);
    }

    /// The application writes nothing more: data not yet sent is withdrawn.
    pub fn stop_app(&mut self) {
        // A transfer cut short never completes: its completion time would be a lie.
        if self.app_end != u64::MAX && self.snd_max < self.app_end {
            self.app_cut = true;
        }
        self.app_end = self.app_end.min(self.snd_max);
    }

    pub fn app_end(&self) -> u64 {
        self.app_end
    }

    pub fn in_flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    pub fn cc(&self) -> &dyn CongestionControl {
        &*self.cc
    }

    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// Every byte the application wrote has been acknowledged.
    pub fn is_done(&self) -> bool {
        self.app_end != u64::MAX && self.snd_una >= self.app_end
    }

    /// When the retransmission timer fires, if it is running.
    pub fn rto_deadline(&self) -> Option<Time> {
        self.rto_deadline
    }

    /// The earliest of the retransmission, persist, probe and reordering timers.
    pub fn timer_deadline(&self) -> Option<Time> {
        let mut t = match (self.rto_deadline, self.persist_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        for d in [self.tlp.pto, self.rack.and_then(|r| r.deadline)]
            .into_iter()
            .flatten()
        {
            t = Some(t.map_or(d, |t| t.min(d)));
        }
        match self.pacing_release() {
            Some(p) => Some(t.map_or(p, |t| t.min(p))),
            None => t,
        }
    }

    /// When pacing holds back a segment the window would allow: the time it may leave.
    fn pacing_release(&self) -> Option<Time> {
        self.pacer.blocked.then_some(self.pacer.next_send)
    }

    /// A timer may have expired at `now`: run whichever is due.
    pub fn on_timer(&mut self, now: Time) {
        if self.pacer.blocked && self.pacer.next_send <= now {
            self.pacer.armed = false;
            // The held segment may leave now. If the window or loss recovery holds it instead,
            // no pacing timer may stay armed for it (it would fire again at once, forever).
            self.pacer.blocked = false;
        }
        if self.persist_deadline.is_some_and(|d| d <= now) {
            // Probe the zero window; back off like the retransmission timer.
            self.probe_due = true;
            self.persist_backoff = (self.persist_backoff + 1).min(16);
            self.persist_deadline = Some(now + self.persist_interval());
            self.stats.window_probes += 1;
        }
        if let Some(r) = self
            .rack
            .as_mut()
            .filter(|r| r.deadline.is_some_and(|d| d <= now))
        {
            r.deadline = None;
            self.rack_detect(now);
        }
        if self.tlp.pto.is_some_and(|d| d <= now) {
            self.on_pto(now);
        }
        if self.rto_deadline.is_some_and(|d| d <= now) {
            self.on_timeout(now);
        }
    }

    /// Bytes presumed in the network: RFC 6675's pipe, or RACK's count when RACK marks losses.
    fn pipe(&self) -> u64 {
        if self.rack.is_some() {
            self.board.rack_pipe(self.app_end)
        } else {
            self.board.pipe(
                self.cfg.dupack_threshold,
                self.recovery_epoch,
                self.app_end,
                self.cfg.pipe_keeps_retransmissions,
            )
        }
    }

    /// Accumulate the cwnd-time integral up to `now` (call before cwnd changes).
    pub fn account(&mut self, now: Time) {
        let dt = now.saturating_sub(self.last_account) as u128;
        self.stats.cwnd_area += self.st.cwnd as u128 * dt;
        self.last_account = self.last_account.max(now);
    }

    fn mss(&self) -> u64 {
        self.st.mss
    }

    fn seg_len(&self, seq: u64) -> u32 {
        (self.app_end - seq).min(self.mss()) as u32
    }

    fn arm_rto(&mut self, now: Time) {
        self.rto_deadline = Some(now + self.rtt.rto);
    }

    /// ECN (classic or multi-level) is in use on this connection.
    pub fn ecn_enabled(&self) -> bool {
        self.ecn_ok || self.multilevel
    }

    /// The ECN codepoint new data segments carry: '10' (ECT(0)) for RFC 3168 ECN, '01' (no
    /// congestion) for multi-level ECN, none without ECN.
    pub fn ect_codepoint(&self) -> Ecn {
        if self.multilevel {
            Ecn::ECT1
        } else if self.ecn_ok {
            Ecn::ECT0
        } else {
            Ecn::NOT_ECT
        }
    }

    /// The connection is open (handshake done or not used).
    pub fn is_established(&self) -> bool {
        self.syn.is_none()
    }

    /// Next segment to transmit now, with its whole header, if any. Call repeatedly until it
    /// returns None.
    pub fn poll_transmit(&mut self, now: Time) -> Option<Outgoing> {
        let seg = self.next_segment(now)?;
        // RFC 3168 6.1.5: retransmissions (and pure ACKs, probes, SYNs) are not ECN-capable.
        let ecn = if !seg.retx && seg.len > 0 {
            self.ect_codepoint()
        } else {
            Ecn::NOT_ECT
        };
        Some(Outgoing {
            tcp: TcpHeader {
                seq: seg.seq,
                len: seg.len,
                flags: seg.flags | flags::ACK,
                wnd: self.cfg.rcv_window,
                ts_val: if self.cfg.timestamps {
                    self.ts_clock(now)
                } else {
                    0
                },
                ts_ecr: if self.cfg.timestamps {
                    self.ts_recent
                } else {
                    0
                },
                ..Default::default()
            },
            ecn,
            retx: seg.retx,
        })
    }
}

impl Timed for TcpSender {
    fn poll_timeout(&self) -> Option<Time> {
        self.timer_deadline()
    }

    fn handle_timeout(&mut self, now: Time) -> bool {
        let due = self.timer_deadline().is_some_and(|d| d <= now);
        if due {
            self.on_timer(now);
        }
        due
    }
}

#[cfg(test)]
mod tests;
