//! TCP sender: sequence space, RTO timer (RFC 6298), fast retransmit and fast recovery
//! (RFC 5681, with RFC 6582 partial-ACK handling for NewReno). The window growth rule and the
//! reaction to congestion are delegated to the congestion-control scheme.

use super::cc::{
    AckInfo, CcState, CongestionControl, CongestionEvent, CongestionKind, LossClass, Reaction,
    RecoveryKind,
};
use super::rto_rules::{Front, Ns3History};
use super::rtt::RttEstimator;
use super::scoreboard::Scoreboard;
use super::{RecoverGuard, TcpConfig};
use crate::engine::{Time, Timed, SEC};
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

    fn persist_interval(&self) -> Time {
        (self
            .rtt
            .rto
            .saturating_mul(1 << self.persist_backoff.min(16)))
        .min(self.cfg.max_rto)
    }

    /// Start the persist timer when the peer's window holds no segment, nothing is in flight
    /// and data waits; stop it otherwise.
    fn update_persist(&mut self, now: Time) {
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
            if self.rto_deadline.is_none() {
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
    fn send_at_nxt(&mut self, now: Time, probe: bool) -> Segment {
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

    /// Recovery with RACK's marks (fast recovery, or after a timeout): while cwnd - pipe >= 1
    /// SMSS, resend the lowest segment marked lost, else send new data.
    fn rack_next(&mut self, now: Time) -> Option<Segment> {
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
    fn arm_pto(&mut self, now: Time) {
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
    fn on_pto(&mut self, now: Time) {
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
    fn tlp_on_ack(&mut self, now: Time, ack: u64, advanced: bool, has_sack: bool) {
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
    fn rack_update(&mut self, now: Time, ts_ecr: Option<Time>) {
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
    fn rack_detect(&mut self, now: Time) {
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

    /// RFC 6675 recovery: send while cwnd - pipe >= 1 SMSS, choosing by NextSeg().
    fn sack_next(&mut self, now: Time) -> Option<Segment> {
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
    fn loss_next(&mut self, now: Time) -> Option<Segment> {
        let dt = self.cfg.dupack_threshold;
        let recover = self.recover.unwrap_or(self.snd_max);
        let epoch = self.recovery_epoch;
        let seq = self.board.loss_next(dt, epoch, recover);
        let len = self.seg_len(seq.unwrap_or(self.snd_max)) as u64;
        let in_net = self
            .board
            .in_flight_in_loss(dt, epoch, recover, self.app_end);
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
    fn nextseg_unlimited(&mut self, now: Time) -> Option<Segment> {
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

    /// A paced scheme's next segment must wait (`pacing_release` then says until when).
    fn pacing_holds(&mut self, now: Time) -> bool {
        self.pacer.blocked = self.cc.pacing_rate(&self.st).is_some() && now < self.pacer.next_send;
        self.pacer.blocked
    }

    fn emit(&mut self, now: Time, seq: u64, retx: bool) -> Segment {
        let len = self.seg_len(seq);
        if let Some(rate) = self.cc.pacing_rate(&self.st) {
            // Every transmission, retransmissions included, takes its slot at the pacing rate.
            let bits = (len as u64 + self.cfg.header as u64) as f64 * 8.0;
            let gap = (bits / rate.max(1.0) * SEC as f64).ceil() as Time;
            self.pacer.next_send = now.max(self.pacer.next_send) + gap;
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
            );
        }
        if kind != CongestionKind::DupAcks {
            return self.pipe();
        }
        self.pipe_head_lost()
    }

    /// Pipe with the head presumed lost, as a fast retransmit presumes it even with fewer
    /// than DupThresh segments SACKed above it (ns-3's EnterRecovery marks it so before
    /// taking BytesInFlight).
    fn pipe_head_lost(&self) -> u64 {
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

    fn react(&mut self, now: Time, kind: CongestionKind) -> Reaction {
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
                if let (Some(sent), false) = (syn.sent_at, syn.retransmitted) {
                    // With timestamps the SYN is timed by its echo, in whole ticks as every
                    // later sample (ns-3's EstimateRtt on the SYN-ACK), at least 1 µs.
                    let r = if self.cfg.timestamps && self.cfg.ts_tick > 0 {
                        (self.ts_clock(now) - self.ts_clock(sent)).max(1_000)
                    } else {
                        now - sent
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
            self.snd_una = ack;
            self.snd_nxt = self.snd_nxt.max(ack);
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
            && self.frto == Frto::Off
            && self.snd_una < self.snd_max
            && self.board.is_lost(self.snd_una, self.cfg.dupack_threshold)
        {
            // RFC 6675 5 (a): enough SACKed data above the first hole.
            self.maybe_fast_retransmit(now, h.has(flags::ELN) && self.cc.honours_eln());
            info.in_recovery = self.in_recovery;
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
                if info.sacked_bytes > 0 || entered {
                    self.prr_step_ns3(delivered, true, pipe);
                }
                if advanced && info.acked_bytes >= self.mss() && !entered {
                    self.prr_step_ns3(delivered, false, pipe);
                }
            } else {
                self.prr_step(delivered);
            }
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

    /// RFC 5682 steps 2 and 3, on each ACK after a timeout while F-RTO runs.
    fn frto_on_ack(&mut self, dup: bool, advanced: bool, acked: u64) {
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

    /// ECN-Echo: reduce like a loss, but without retransmitting, at most once per window of
    /// data (RFC 3168 6.1.2), and not while loss recovery has already reduced the window.
    fn on_ece(&mut self, now: Time) {
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
    fn maybe_fast_retransmit(&mut self, now: Time, eln: bool) {
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
    fn prr_step(&mut self, delivered: u64) {
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
    fn prr_step_ns3(&mut self, mut delivered: u64, dup: bool, pipe: u64) {
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

    fn exit_recovery(&mut self, now: Time) {
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

    /// The timestamp clock: `now` in whole `ts_tick`s.
    fn ts_clock(&self, now: Time) -> Time {
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

    /// The retransmission timer fired at `now` (the caller checks it is due).
    pub fn on_timeout(&mut self, now: Time) {
        match self.rto_deadline {
            Some(d) if d <= now => {}
            _ => return,
        }
        if let Some(syn) = &mut self.syn {
            // SYN lost (or its SYN-ACK): send it again with the backed-off timer.
            syn.due = true;
            self.rtt.backoff();
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
        self.rtt.backoff();
        self.rto_deadline = None;
        if self.snd_una < self.snd_max {
            self.arm_rto(now);
        }
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
mod tests {
    use super::*;
    use crate::engine::MS;
    use crate::tcp::cc;

    fn sender() -> TcpSender {
        let (c, r) = cc::build_default("newreno");
        let mut s = TcpSender::new(TcpConfig::default(), c, r, 0);
        s.set_app_end(u64::MAX);
        s
    }

    fn ack(n: u64) -> TcpHeader {
        TcpHeader {
            ack: n,
            wnd: 64 * 1024,
            flags: flags::ACK,
            ..Default::default()
        }
    }

    fn drain(s: &mut TcpSender, now: Time) -> Vec<Segment> {
        std::iter::from_fn(|| s.next_segment(now)).collect()
    }

    #[test]
    fn ts_tick_counts_the_timestamp_clock_in_whole_ticks() {
        let (c, r) = cc::build_default("newreno");
        let cfg = TcpConfig {
            timestamps: true,
            ts_tick: MS,
            ..TcpConfig::default()
        };
        let mut s = TcpSender::new(cfg, c, r, 0);
        s.set_app_end(u64::MAX);
        assert_eq!(s.ts_clock(100 * MS + 700_000), 100 * MS);
        drain(&mut s, 100 * MS + 700_000);
        // The echo of TSval 100 ms, back at 201.3 ms: a sample of 201 - 100 ms, as ns-3's
        // millisecond clock measures it.
        let mut h = ack(1000);
        h.ts_ecr = 100 * MS;
        s.on_ack(201 * MS + 300_000, &h);
        assert_eq!(s.rtt.srtt, Some(101 * MS));
    }

    #[test]
    fn established_sends_initial_window_and_arms_timer() {
        let mut s = sender();
        let segs = drain(&mut s, 0);
        assert_eq!(segs.len(), 2);
        assert_eq!(segs[1].seq, 1000);
        assert_eq!(s.rto_deadline(), Some(1000 * MS));
    }

    #[test]
    fn slow_start_doubles_per_rtt() {
        let mut s = sender();
        drain(&mut s, 0);
        s.on_ack(100 * MS, &ack(1000));
        s.on_ack(100 * MS, &ack(2000));
        assert_eq!(s.st.cwnd, 4000);
        assert_eq!(drain(&mut s, 100 * MS).len(), 4);
        assert_eq!(s.rtt.srtt, Some(100 * MS));
    }

    #[test]
    fn three_dupacks_fast_retransmit_then_partial_and_full_ack() {
        let mut s = sender();
        s.st.cwnd = 10_000;
        drain(&mut s, 0); // 0..10000 in flight
        for _ in 0..3 {
            s.on_ack(10 * MS, &ack(0));
        }
        assert!(s.in_recovery());
        assert_eq!(s.stats.fast_retransmits, 1);
        assert_eq!(s.st.ssthresh, 5_000);
        assert_eq!(s.st.cwnd, 8_000);
        let r = s.next_segment(10 * MS).unwrap();
        assert_eq!((r.seq, r.retx), (0, true));
        // Partial ACK up to 3000 (a second hole at 3000): retransmit it, stay in recovery.
        s.on_ack(20 * MS, &ack(3000));
        assert!(s.in_recovery());
        let r = s.next_segment(20 * MS).unwrap();
        assert_eq!((r.seq, r.retx), (3000, true));
        assert_eq!(s.st.cwnd, 8_000 - 3_000 + 1_000);
        // Full ACK: leave recovery with cwnd <= ssthresh.
        s.on_ack(30 * MS, &ack(10_000));
        assert!(!s.in_recovery());
        assert_eq!(
            s.st.cwnd, 2_000,
            "min(ssthresh, flight + mss) with nothing in flight"
        );
        assert_eq!(s.stats.retransmissions, 2);
    }

    #[test]
    fn dupacks_inflate_window_in_recovery() {
        let mut s = sender();
        s.st.cwnd = 10_000;
        drain(&mut s, 0);
        for _ in 0..3 {
            s.on_ack(1, &ack(0));
        }
        s.next_segment(1);
        let before = s.st.cwnd;
        s.on_ack(2, &ack(0));
        assert_eq!(s.st.cwnd, before + 1000);
        s.on_ack(2, &ack(0));
        assert!(
            drain(&mut s, 2).is_empty(),
            "cwnd 10000 still covers only the 10 in flight"
        );
        // The third extra duplicate inflates cwnd past the flight: one new segment goes out.
        s.on_ack(2, &ack(0));
        let n = drain(&mut s, 2);
        assert_eq!(n.len(), 1);
        assert_eq!(n[0].seq, 10_000);
    }

    #[test]
    fn timeout_goes_back_n_with_backoff() {
        let mut s = sender();
        s.st.cwnd = 5_000;
        drain(&mut s, 0);
        s.on_timeout(999 * MS); // not yet due
        assert_eq!(s.stats.timeouts, 0);
        s.on_timeout(1000 * MS);
        assert_eq!(s.stats.timeouts, 1);
        assert_eq!(s.st.cwnd, 1000);
        assert_eq!(s.st.ssthresh, 2_500);
        assert_eq!(s.rtt.rto, 2000 * MS);
        assert_eq!(s.rto_deadline(), Some(3000 * MS));
        let segs = drain(&mut s, 1000 * MS);
        assert_eq!(segs.len(), 1);
        assert_eq!((segs[0].seq, segs[0].retx), (0, true));
    }

    #[test]
    fn dupacks_after_timeout_do_not_reduce_again() {
        let mut s = sender();
        s.st.cwnd = 5_000;
        drain(&mut s, 0);
        s.on_timeout(1000 * MS);
        drain(&mut s, 1000 * MS);
        for _ in 0..3 {
            s.on_ack(1100 * MS, &ack(0));
        }
        assert_eq!(s.stats.fast_retransmits, 0, "ack does not cover recover");
    }

    #[test]
    fn karn_no_sample_from_retransmission() {
        let mut s = sender();
        drain(&mut s, 0);
        s.on_timeout(1000 * MS);
        drain(&mut s, 1000 * MS);
        s.on_ack(1050 * MS, &ack(1000));
        assert_eq!(s.rtt.srtt, None);
        assert_eq!(
            s.rtt.rto,
            2000 * MS,
            "backed-off RTO kept without a valid sample"
        );
    }

    #[test]
    fn ecn_echo_halves_once_per_window_and_sets_cwr() {
        let (c, r) = cc::build_default("newreno");
        let cfg = TcpConfig {
            ecn: true,
            ..Default::default()
        };
        let mut s = TcpSender::new(cfg, c, r, 0);
        s.set_app_end(u64::MAX);
        s.st.cwnd = 10_000;
        drain(&mut s, 0);
        let mut h = ack(1000);
        h.flags |= flags::ECE;
        s.on_ack(10 * MS, &h);
        assert_eq!(s.stats.ecn_reductions, 1);
        assert_eq!(s.st.cwnd, 4_500, "half of the 9000 bytes in flight");
        let segs = drain(&mut s, 10 * MS);
        assert!(segs.is_empty(), "nothing fits: 9000 in flight, cwnd 4500");
        // Further ECE for data sent before the reduction: ignored.
        for n in 2..=9 {
            let mut h = ack(n * 1000);
            h.flags |= flags::ECE;
            s.on_ack(20 * MS, &h);
        }
        assert_eq!(s.stats.ecn_reductions, 1);
        let segs = drain(&mut s, 20 * MS);
        assert!(
            segs[0].flags & flags::CWR != 0,
            "first new segment carries CWR"
        );
        assert!(segs[1..].iter().all(|g| g.flags & flags::CWR == 0));
        // ECE acknowledging data sent after the reduction: a new reduction.
        let mut h = ack(11_000);
        h.flags |= flags::ECE;
        s.on_ack(30 * MS, &h);
        assert_eq!(s.stats.ecn_reductions, 2);
    }

    fn handshake_sender(ecn: bool) -> TcpSender {
        let (c, r) = cc::build_default("newreno");
        let cfg = TcpConfig {
            ecn,
            handshake: true,
            ..Default::default()
        };
        let mut s = TcpSender::new(cfg, c, r, 0);
        s.set_app_end(u64::MAX);
        s
    }

    #[test]
    fn handshake_negotiates_ecn() {
        let mut s = handshake_sender(true);
        let segs = drain(&mut s, 0);
        assert_eq!(segs.len(), 1, "only the SYN before the SYN-ACK");
        assert_eq!(segs[0].flags, flags::SYN | flags::ECE | flags::CWR);
        assert!(!s.ecn_enabled());
        let synack = TcpHeader {
            flags: flags::SYN | flags::ACK | flags::ECE,
            wnd: 65_535,
            ..Default::default()
        };
        s.on_ack(100 * MS, &synack);
        assert!(s.is_established() && s.ecn_enabled());
        assert_eq!(s.rtt.srtt, Some(100 * MS), "the SYN is timed");
        assert_eq!(drain(&mut s, 100 * MS).len(), 2, "then the initial window");
    }

    #[test]
    fn with_a_timestamp_tick_the_syn_is_timed_by_its_echo_and_acked_alone() {
        // ns-3 (TcpSocketBase::ProcessSynSent) times the SYN from the echoed timestamp, in
        // whole milliseconds, and sends a pure ACK before its first data.
        let (c, r) = cc::build_default("newreno");
        let cfg = TcpConfig {
            handshake: true,
            timestamps: true,
            ts_tick: MS,
            handshake_ack: true,
            ..Default::default()
        };
        let mut s = TcpSender::new(cfg, c, r, 0);
        s.set_app_end(u64::MAX);
        drain(&mut s, 0);
        let synack = TcpHeader {
            flags: flags::SYN | flags::ACK,
            wnd: 65_535,
            ts_ecr: 0,
            ..Default::default()
        };
        s.on_ack(100 * MS + 278_400, &synack);
        assert_eq!(s.rtt.srtt, Some(100 * MS), "100.28 ms in whole ticks");
        let segs = drain(&mut s, 100 * MS + 278_400);
        assert_eq!((segs[0].len, segs[0].flags), (0, flags::ACK));
        assert_eq!(segs.len(), 3, "then the initial window");
        assert!(segs[1..].iter().all(|g| g.len > 0) && segs[1].seq == 0);
        // Without a tick the exact time is kept, and without handshake_ack data comes first.
        let mut s = handshake_sender(false);
        drain(&mut s, 0);
        s.on_ack(100 * MS + 278_400, &synack);
        assert_eq!(s.rtt.srtt, Some(100 * MS + 278_400));
        assert!(drain(&mut s, 100 * MS + 278_400).iter().all(|g| g.len > 0));
    }

    #[test]
    fn receiver_without_ecn_turns_it_off() {
        let mut s = handshake_sender(true);
        drain(&mut s, 0);
        let synack = TcpHeader {
            flags: flags::SYN | flags::ACK,
            wnd: 65_535,
            ..Default::default()
        };
        s.on_ack(100 * MS, &synack);
        assert!(s.is_established() && !s.ecn_enabled());
    }

    #[test]
    fn lost_syn_is_resent_after_rto() {
        let mut s = handshake_sender(false);
        assert_eq!(drain(&mut s, 0)[0].flags, flags::SYN);
        assert!(drain(&mut s, 10).is_empty());
        s.on_timeout(1000 * MS);
        let again = drain(&mut s, 1000 * MS);
        assert_eq!(again.len(), 1);
        assert_eq!(s.rto_deadline(), Some(3000 * MS), "backed off to 2 s");
        let synack = TcpHeader {
            flags: flags::SYN | flags::ACK,
            wnd: 65_535,
            ..Default::default()
        };
        s.on_ack(1100 * MS, &synack);
        assert_eq!(s.rtt.srtt, None, "a retransmitted SYN is not timed (Karn)");
    }

    #[test]
    fn window_update_is_not_a_dupack() {
        let mut s = sender();
        s.st.cwnd = 10_000;
        drain(&mut s, 0);
        let mut h = ack(0);
        for w in [1000, 2000, 3000, 4000] {
            h.wnd = w;
            s.on_ack(1, &h);
        }
        assert_eq!(s.stats.fast_retransmits, 0, "each ACK changed the window");
    }

    #[test]
    fn zero_window_persist_probes_then_resumes() {
        let mut s = sender();
        drain(&mut s, 0);
        let mut h = ack(2000);
        h.wnd = 0;
        s.on_ack(100 * MS, &h);
        assert!(
            drain(&mut s, 100 * MS).is_empty(),
            "zero window: nothing new"
        );
        assert_eq!(s.rto_deadline(), None, "nothing in flight");
        let d = s.timer_deadline().expect("persist timer armed");
        assert_eq!(d, 100 * MS + s.rtt.rto);
        s.on_timer(d);
        let probe = drain(&mut s, d);
        assert_eq!(probe.len(), 1);
        assert_eq!((probe[0].seq, probe[0].len), (2000, 0));
        assert_eq!(s.stats.window_probes, 1);
        let d2 = s.timer_deadline().unwrap();
        assert_eq!(d2 - d, 2 * s.rtt.rto, "backed off");
        // The window opens: the update is not a dupack, data flows, the persist timer stops.
        h.wnd = 64 * 1024;
        s.on_ack(d + MS, &h);
        assert_eq!(s.stats.fast_retransmits, 0);
        assert!(!drain(&mut s, d + MS).is_empty());
        assert_eq!(s.timer_deadline(), s.rto_deadline());
    }

    #[test]
    fn eln_dupacks_retransmit_without_reduction() {
        let mut s = sender();
        s.st.cwnd = 10_000;
        drain(&mut s, 0);
        let mut h = ack(0);
        h.flags |= flags::ELN;
        for _ in 0..3 {
            s.on_ack(10 * MS, &h);
        }
        assert_eq!(s.stats.eln_retransmits, 1);
        assert_eq!(s.stats.fast_retransmits, 0);
        assert_eq!(s.st.ssthresh, 1 << 30, "no reduction");
        let r = s.next_segment(10 * MS).unwrap();
        assert_eq!((r.seq, r.retx), (0, true));
        // A partial ACK repairs the next hole; the full ACK restores the window.
        s.on_ack(20 * MS, &ack(3000));
        assert_eq!(s.next_segment(20 * MS).unwrap().seq, 3000);
        s.on_ack(30 * MS, &ack(10_000));
        assert!(!s.in_recovery());
        assert_eq!(s.st.cwnd, 10_000, "window intact");
    }

    #[test]
    fn ece_ignored_without_ecn() {
        let mut s = sender();
        s.st.cwnd = 10_000;
        drain(&mut s, 0);
        let mut h = ack(1000);
        h.flags |= flags::ECE;
        s.on_ack(10 * MS, &h);
        assert_eq!(s.stats.ecn_reductions, 0);
    }

    #[test]
    fn reno_leaves_recovery_on_partial_ack() {
        let (c, r) = cc::build_default("reno");
        let mut s = TcpSender::new(TcpConfig::default(), c, r, 0);
        s.set_app_end(u64::MAX);
        s.st.cwnd = 10_000;
        drain(&mut s, 0);
        for _ in 0..3 {
            s.on_ack(1, &ack(0));
        }
        assert!(s.in_recovery());
        s.on_ack(2, &ack(3000));
        assert!(!s.in_recovery());
        assert_eq!(s.st.cwnd, s.st.ssthresh);
    }

    #[test]
    fn respects_receiver_window_and_app_end() {
        let (c, r) = cc::build_default("newreno");
        let mut s = TcpSender::new(TcpConfig::default(), c, r, 0);
        s.set_app_end(2500);
        s.st.cwnd = 100_000;
        let segs = drain(&mut s, 0);
        assert_eq!(
            segs.iter().map(|g| g.len).collect::<Vec<_>>(),
            vec![1000, 1000, 500]
        );
        let mut h = ack(2500);
        h.wnd = 0;
        s.on_ack(5, &h);
        assert!(s.is_done());
        assert_eq!(s.stats.completed_at, Some(5));
        assert_eq!(s.rto_deadline(), None);
    }

    /// NewReno's window rules, paced at a fixed rate.
    struct Paced(f64);

    impl CongestionControl for Paced {
        fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
            crate::tcp::cc::NewReno.on_ack(ack, st)
        }
        fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
            crate::tcp::cc::NewReno.on_congestion(ev, st)
        }
        fn pacing_rate(&self, _st: &CcState) -> Option<f64> {
            Some(self.0)
        }
    }

    #[test]
    fn pacing_spaces_segments_and_asks_for_the_clock() {
        let cfg = TcpConfig {
            initial_cwnd: 10,
            ..Default::default()
        };
        // 1040-byte packets at 8.32 Mb/s: one every millisecond.
        let mut s = TcpSender::new(cfg, Box::new(Paced(8.32e6)), RecoveryKind::NewReno, 0);
        s.set_app_end(u64::MAX);
        assert_eq!(drain(&mut s, 0).len(), 1);
        let rto = s.rto_deadline().unwrap();
        assert_eq!(s.poll_timeout(), Some(MS));
        assert!(drain(&mut s, MS - 1).is_empty());
        assert!(s.handle_timeout(MS));
        assert_eq!(drain(&mut s, MS).len(), 1);
        assert_eq!(s.poll_timeout(), Some(2 * MS));
        // Once the window is what holds it back, only the retransmission timer is left.
        for k in 2..10 {
            assert_eq!(drain(&mut s, k * MS).len(), 1);
        }
        assert!(drain(&mut s, 20 * MS).is_empty());
        assert_eq!(s.poll_timeout(), Some(rto));
    }

    #[test]
    fn pacing_timer_is_dropped_when_the_window_closes_first() {
        let cfg = TcpConfig {
            initial_cwnd: 10,
            ..Default::default()
        };
        let mut s = TcpSender::new(cfg, Box::new(Paced(8.32e6)), RecoveryKind::NewReno, 0);
        s.set_app_end(u64::MAX);
        assert_eq!(drain(&mut s, 0).len(), 1);
        assert_eq!(s.poll_timeout(), Some(MS), "held by pacing");
        // The window shrinks before the pacing release: at the release nothing may go, and
        // the timer must not stay due.
        s.st.cwnd = 1000;
        assert!(s.handle_timeout(MS));
        assert!(drain(&mut s, MS).is_empty());
        assert_eq!(s.poll_timeout(), s.rto_deadline());
    }

    #[test]
    fn fast_retransmit_restarts_the_retransmission_timer() {
        // RFC 6298 5.1 runs the timer for the oldest outstanding segment; once it is resent
        // the timer must run from that retransmission (ns-2 dupack_action, Linux).
        let mut s = sender();
        s.st.cwnd = 10_000;
        drain(&mut s, 0);
        assert_eq!(s.rto_deadline(), Some(SEC));
        for _ in 0..3 {
            s.on_ack(300 * MS, &ack(0));
        }
        assert_eq!(s.stats.fast_retransmits, 1);
        assert_eq!(s.rto_deadline(), Some(300 * MS + s.rtt.rto));
    }

    #[test]
    fn without_the_restart_the_timer_runs_from_the_last_new_ack() {
        // ns-3 arms the timer in SendDataPacket only when it is not running, so the fast
        // retransmission leaves the deadline set by the last new ACK.
        let mut s = sender();
        s.cfg.fast_retransmit_restarts_rto = false;
        s.st.cwnd = 10_000;
        drain(&mut s, 0);
        s.on_ack(100 * MS, &ack(1000));
        let before = s.rto_deadline();
        assert_eq!(before, Some(100 * MS + s.rtt.rto));
        for _ in 0..3 {
            s.on_ack(300 * MS, &ack(1000));
        }
        assert_eq!(s.stats.fast_retransmits, 1);
        assert_eq!(s.rto_deadline(), before);
    }

    #[test]
    fn a_repeated_timeout_of_one_episode_keeps_ssthresh_when_asked() {
        // CUBIC cuts from cwnd. Twenty segments out, all unanswered: the first timeout sets
        // ssthresh to 0.7 x 20 = 14 segments and cwnd to one; the second, of the head resent
        // after it, would cut from that one segment (2 segments, the floor), as ns-3 does
        // (its test of a resent head follows SetSentListLost, which clears the flag). Linux
        // keeps 14.
        for (keep, want) in [(false, 2_000), (true, 14_000)] {
            let (c, r) = cc::build_default("cubic");
            let mut s = TcpSender::new(TcpConfig::default(), c, r, 0);
            s.set_app_end(u64::MAX);
            s.cfg.timeout_keeps_ssthresh = keep;
            s.st.cwnd = 20_000;
            drain(&mut s, 0);
            let t1 = s.rto_deadline().unwrap();
            assert!(s.handle_timeout(t1));
            assert_eq!(s.st.ssthresh, 14_000);
            let resent = drain(&mut s, t1);
            assert_eq!(resent.iter().map(|g| g.seq).collect::<Vec<_>>(), [0]);
            let t2 = s.rto_deadline().unwrap();
            assert!(s.handle_timeout(t2));
            assert_eq!(s.st.ssthresh, want, "timeout_keeps_ssthresh = {keep}");
            assert_eq!(s.st.cwnd, 1000);
        }
    }

    /// `n` segments out (cwnd `n`), segment 0 lost; limited transmit sends two more on the
    /// first two duplicate ACKs, and the third (SACKing segments 1-3) starts recovery.
    fn recover_after_limited_transmit(s: &mut TcpSender, n: u64) {
        s.cfg.limited_transmit = true;
        s.set_app_end(u64::MAX);
        s.rwnd = 1 << 20;
        s.st.cwnd = n * 1000;
        assert_eq!(drain(s, 0).len() as u64, n);
        for k in 1..=3 {
            s.on_ack(10 * MS, &sack_ack(0, 1000 + k * 1000));
            drain(s, 10 * MS);
        }
        assert!(s.in_recovery());
        assert_eq!(s.snd_max, (n + 2) * 1000);
    }

    #[test]
    fn a_cut_from_pipe_halves_what_is_still_in_the_network() {
        // Ten segments out, segment 0 lost; limited transmit sends 10 and 11 on the first two
        // duplicates; the third SACKs segments 1-3. FlightSize is 12 segments, pipe 12 - 3
        // SACKed - 1 lost = 8: RFC 5681 gives ssthresh 6 segments, the pipe rule 4.
        for (from_pipe, want) in [(false, 6_000), (true, 4_000)] {
            let mut s = sack_sender(false);
            s.cfg.cut_from_pipe = from_pipe;
            recover_after_limited_transmit(&mut s, 10);
            assert_eq!(s.st.ssthresh, want, "cut_from_pipe = {from_pipe}");
        }
    }

    #[test]
    fn a_repeated_timeout_cuts_from_what_was_sent_since_the_first_with_cut_from_pipe() {
        // Ten segments out, none answered: the first timeout halves the ten (ssthresh 5
        // segments) and resends 0; its ACK opens cwnd to two, which resends 1 and 2. Both are
        // lost: at the second timeout the flight is nine segments (1-9), halved to 4.5; ns-3's
        // BytesInFlight, after the first timeout's SetSentListLost marked all ten lost,
        // counts only the two resent since: 1 segment, the floor of 2.
        for (from_pipe, want) in [(false, 4_500), (true, 2_000)] {
            let mut s = sack_sender(false);
            s.cfg.cut_from_pipe = from_pipe;
            s.set_app_end(u64::MAX);
            s.rwnd = 1 << 20;
            s.st.cwnd = 10_000;
            assert_eq!(drain(&mut s, 0).len(), 10);
            let t1 = s.rto_deadline().unwrap();
            s.on_timeout(t1);
            assert_eq!(s.st.ssthresh, 5_000);
            assert_eq!(drain(&mut s, t1).len(), 1);
            s.on_ack(t1 + 100 * MS, &ack(1000));
            let sent: Vec<(u64, bool)> = drain(&mut s, t1 + 100 * MS)
                .iter()
                .map(|g| (g.seq, g.retx))
                .collect();
            assert_eq!(sent, [(1000, true), (2000, true)]);
            let t2 = s.rto_deadline().unwrap();
            s.on_timeout(t2);
            assert_eq!(s.st.ssthresh, want, "cut_from_pipe = {from_pipe}");
        }
    }

    #[test]
    fn linux_growth_cuts_whole_segments_from_cwnd_not_the_flight() {
        // Eleven segments out (cwnd 11), segment 0 lost; limited transmit sends 11 and 12,
        // so the flight is 13 segments when the third duplicate starts recovery. RFC 5681
        // halves the flight: 6.5 segments; Linux's tcp_reno_ssthresh max(cwnd >> 1, 2): 5.
        for (linux, want) in [(false, 6_500), (true, 5_000)] {
            let mut s = sack_sender(false);
            s.cfg.linux_growth = linux;
            recover_after_limited_transmit(&mut s, 11);
            assert_eq!(s.st.ssthresh, want, "linux_growth = {linux}");
        }
    }

    #[test]
    fn a_partial_ack_sends_one_nextseg_outside_the_window_when_asked() {
        // Ten segments, 0 and 5 lost. SACKs of 1-3 start recovery (cwnd = ssthresh = 5000),
        // which resends 0; SACKs of 4, 6 and 7 leave room for new segment 10. With cwnd then
        // at pipe (four segments), the resent 0 brings a partial ACK up to 5000. Segment 5
        // has only two SACKed segments above it, so it is not yet lost, and the window has
        // no room; ns-3's DoRetransmit sends NextSeg() at once regardless of cwnd, which here
        // is new data.
        for (on, want) in [(false, vec![]), (true, vec![(11_000, false)])] {
            let mut s = sack_sender(false);
            s.cfg.partial_ack_retransmit = on;
            s.set_app_end(u64::MAX);
            s.rwnd = 1 << 20;
            s.st.cwnd = 10_000;
            assert_eq!(drain(&mut s, 0).len(), 10);
            for k in 1..=3 {
                s.on_ack(10 * MS, &sack_ack(0, 1000 + k * 1000));
            }
            assert!(s.in_recovery());
            assert_eq!(s.st.ssthresh, 5000);
            let mut sent: Vec<(u64, bool)> = drain(&mut s, 10 * MS)
                .iter()
                .map(|g| (g.seq, g.retx))
                .collect();
            for top in [5000, 7000, 8000] {
                let h = if top > 5000 {
                    ack_sacking(0, &[(6000, top), (1000, 5000)])
                } else {
                    sack_ack(0, top)
                };
                s.on_ack(11 * MS, &h);
                sent.extend(drain(&mut s, 11 * MS).iter().map(|g| (g.seq, g.retx)));
            }
            assert_eq!(sent, [(0, true), (10_000, false)]);
            s.st.cwnd = 4000;
            s.on_ack(20 * MS, &ack_sacking(5000, &[(6000, 8000)]));
            assert!(s.in_recovery());
            let sent: Vec<(u64, bool)> = drain(&mut s, 20 * MS)
                .iter()
                .map(|g| (g.seq, g.retx))
                .collect();
            assert_eq!(sent, want, "partial_ack_retransmit = {on}");
        }
    }

    #[test]
    fn limited_transmit_sends_one_new_segment_on_each_of_the_first_two_dupacks() {
        let (c, r) = cc::build_default("newreno");
        let cfg = TcpConfig {
            limited_transmit: true,
            ..Default::default()
        };
        let mut s = TcpSender::new(cfg, c, r, 0);
        s.set_app_end(u64::MAX);
        s.st.cwnd = 4_000;
        assert_eq!(drain(&mut s, 0).len(), 4);
        s.on_ack(10 * MS, &ack(0));
        let first = drain(&mut s, 10 * MS);
        assert_eq!(
            first.iter().map(|g| (g.seq, g.retx)).collect::<Vec<_>>(),
            [(4000, false)]
        );
        s.on_ack(11 * MS, &ack(0));
        let second = drain(&mut s, 11 * MS);
        assert_eq!(second.iter().map(|g| g.seq).collect::<Vec<_>>(), [5000]);
        // cwnd itself did not grow, and the third duplicate starts fast retransmit.
        assert_eq!(s.st.cwnd, 4_000);
        s.on_ack(12 * MS, &ack(0));
        assert!(s.in_recovery());
        assert_eq!(
            s.next_segment(12 * MS).map(|g| (g.seq, g.retx)),
            Some((0, true))
        );
        // Without the option the first duplicate sends nothing.
        let mut plain = sender();
        plain.st.cwnd = 4_000;
        drain(&mut plain, 0);
        plain.on_ack(10 * MS, &ack(0));
        assert!(drain(&mut plain, 10 * MS).is_empty());
    }

    fn sack_sender(prr: bool) -> TcpSender {
        let (c, r) = cc::build_default("sack");
        let cfg = TcpConfig {
            sack: true,
            prr,
            ..Default::default()
        };
        TcpSender::new(cfg, c, r, 0)
    }

    /// A duplicate ACK of `ack` SACKing [ack + 1000, top).
    /// An ACK of `ack` carrying the SACK blocks `blocks` (start, end), most recent first.
    fn ack_sacking(ack: u64, blocks: &[(u64, u64)]) -> TcpHeader {
        let mut h = self::ack(ack);
        for (k, &(start, end)) in blocks.iter().enumerate() {
            h.sack[k] = crate::packet::SackBlock { start, end };
        }
        h.n_sack = blocks.len() as u8;
        h
    }

    fn sack_ack(ack: u64, top: u64) -> TcpHeader {
        let mut h = TcpHeader {
            ack,
            wnd: 1 << 20,
            flags: flags::ACK,
            ..Default::default()
        };
        h.sack[0] = crate::packet::SackBlock {
            start: ack + 1000,
            end: top,
        };
        h.n_sack = 1;
        h
    }

    /// Segments sent in reply to each of the ACKs SACKing segments 4, 5, 6, ... in turn,
    /// after segment 0 of a 20-segment window was lost.
    fn sends_per_ack(prr: bool, acks: u64) -> Vec<usize> {
        sends_per_ack_with(prr, false, acks)
    }

    fn sends_per_ack_with(prr: bool, prr_ns3: bool, acks: u64) -> Vec<usize> {
        let mut s = sack_sender(prr);
        s.cfg.prr_ns3 = prr_ns3;
        s.set_app_end(u64::MAX);
        s.st.cwnd = 20_000;
        s.rwnd = 1 << 20;
        assert_eq!(drain(&mut s, 0).len(), 20);
        for k in 1..=3 {
            s.on_ack(10 * MS, &sack_ack(0, 1000 + k * 1000));
        }
        assert!(s.in_recovery());
        assert_eq!(s.st.ssthresh, 10_000);
        // The fast retransmission of segment 0 goes out regardless of the window.
        let first = drain(&mut s, 10 * MS);
        assert_eq!((first[0].seq, first[0].retx), (0, true));
        (0..acks)
            .map(|k| {
                s.on_ack(11 * MS, &sack_ack(0, 5000 + k * 1000));
                drain(&mut s, 11 * MS).len()
            })
            .collect()
    }

    #[test]
    fn prr_spreads_the_reduction_one_segment_per_two_acks() {
        // RFC 6937: with pipe above ssthresh the sender sends in proportion to what is
        // delivered, ssthresh/RecoverFS = 10/20, so one segment for every second ACK.
        let prr = sends_per_ack(true, 6);
        assert_eq!(prr, [0, 0, 1, 0, 1, 0]);
        // RFC 6675 alone sets cwnd = ssthresh at once: nothing until pipe falls below it.
        let plain = sends_per_ack(false, 6);
        assert_eq!(plain, [0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn ns3_prr_counts_an_extra_segment_per_sacking_ack() {
        // ns-3.44's TcpPrrRecovery adds one segment to prr_delivered for every ACK with new
        // SACK information until RecoverFS (pipe at entry, 16 segments here) is reached, so
        // early in the recovery it sends about one segment per ACK where RFC 6937 sends one
        // per two (prr_spreads_the_reduction_one_segment_per_two_acks).
        assert_eq!(sends_per_ack_with(true, true, 6), [1, 1, 2, 1, 1, 1]);
        assert_eq!(sends_per_ack_with(true, false, 6), [0, 0, 1, 0, 1, 0]);
    }

    #[test]
    fn prr_slow_start_bound_once_pipe_is_below_ssthresh() {
        // Later in the same recovery pipe falls below ssthresh: PRR-SSRB lets the window grow
        // back by at most the data delivered plus one segment per ACK.
        let sends = sends_per_ack(true, 16);
        assert!(sends.iter().all(|&n| n <= 2), "{sends:?}");
        assert!(
            sends[10..].iter().sum::<usize>() > sends[..6].iter().sum::<usize>(),
            "{sends:?}"
        );
    }

    #[test]
    fn prr_delivered_data_leaves_out_what_was_already_sacked() {
        // RFC 6937: DeliveredData = change in snd.una + change in SACKed bytes, so a partial
        // ACK over SACKed segments counts only the hole it fills.
        let mut s = sack_sender(true);
        s.set_app_end(u64::MAX);
        s.st.cwnd = 20_000;
        s.rwnd = 1 << 20;
        drain(&mut s, 0);
        for k in 1..=3 {
            s.on_ack(10 * MS, &sack_ack(0, 1000 + k * 1000));
        }
        drain(&mut s, 10 * MS);
        for k in 0..6 {
            s.on_ack(11 * MS, &sack_ack(0, 5000 + k * 1000));
        }
        assert_eq!(
            s.prr.delivered, 7_000,
            "one SACKed segment per ACK since entry"
        );
        // The resent segment 0 arrives and segments 1-9 were SACKed: the cumulative ACK to
        // 10000 moves snd.una by ten segments but delivers one.
        s.on_ack(12 * MS, &ack(10_000));
        assert!(s.in_recovery(), "recover is snd_max = 20000");
        assert_eq!(s.prr.delivered, 8_000);
    }

    #[test]
    fn the_ack_that_ends_recovery_grows_the_window_when_asked() {
        // ns-3's ProcessAck sets cwnd = ssthresh on the full ACK and then calls
        // IncreaseWindow; Linux's tcp_cong_control likewise. Without the switch the scheme
        // sees that ACK as part of the recovery.
        for grows in [false, true] {
            let mut s = sack_sender(true);
            s.cfg.exit_ack_grows = grows;
            s.set_app_end(u64::MAX);
            s.st.cwnd = 20_000;
            s.rwnd = 1 << 20;
            drain(&mut s, 0);
            for k in 1..=3 {
                s.on_ack(10 * MS, &sack_ack(0, 1000 + k * 1000));
            }
            assert!(s.in_recovery());
            drain(&mut s, 10 * MS);
            let recover = s.snd_max;
            s.on_ack(20 * MS, &ack(recover));
            assert!(!s.in_recovery());
            let ss = s.st.ssthresh;
            if grows {
                assert!(s.st.cwnd > ss, "cwnd {} ssthresh {ss}", s.st.cwnd);
            } else {
                assert_eq!(s.st.cwnd, ss);
            }
        }
    }

    #[test]
    fn retransmissions_after_a_timeout_stay_in_pipe_when_asked() {
        // Six segments; a timeout resends 0, then 1 and 2 in slow start. SACKs of 3-5 then
        // start a fast recovery (no recover guard), which resends 1 at once. Segment 2 is
        // lost by the SACKs above it: RFC 6675 counts only this recovery's retransmissions
        // in pipe and resends it; ns-3 keeps 2's retransmitted flag from the timeout's go-back-N,
        // counts it in flight and does not resend it.
        for (sticky, want) in [
            (false, vec![(1000, true), (2000, true)]),
            (true, vec![(1000, true)]),
        ] {
            let mut s = sack_sender(false);
            s.cfg.pipe_keeps_retransmissions = sticky;
            s.cfg.recover_guard = RecoverGuard::Off;
            s.set_app_end(6000);
            s.rwnd = 1 << 20;
            s.st.cwnd = 10_000;
            assert_eq!(drain(&mut s, 0).len(), 6);
            let rto = s.rto_deadline().unwrap();
            s.on_timeout(rto);
            let sent: Vec<(u64, bool)> =
                drain(&mut s, rto).iter().map(|g| (g.seq, g.retx)).collect();
            assert_eq!(sent, [(0, true)]);
            s.on_ack(rto + 10 * MS, &ack(1000));
            let sent: Vec<(u64, bool)> = drain(&mut s, rto + 10 * MS)
                .iter()
                .map(|g| (g.seq, g.retx))
                .collect();
            assert_eq!(sent, [(1000, true), (2000, true)]);
            let mut sent = Vec::new();
            for top in [4000, 5000, 6000] {
                s.on_ack(rto + 20 * MS, &ack_sacking(1000, &[(3000, top)]));
                sent.extend(drain(&mut s, rto + 20 * MS).iter().map(|g| (g.seq, g.retx)));
            }
            assert!(s.in_recovery());
            assert_eq!(sent, want, "pipe_keeps_retransmissions = {sticky}");
        }
    }

    #[test]
    fn after_a_timeout_sacked_data_does_not_count_against_the_window() {
        // RFC 6675 5.1: six segments, a timeout resends 0; its ACK SACKs 2-5, so only 1 is
        // missing. With cwnd = 2 after that ACK, the sender resends 1 and, since SACKed data
        // has left the network, also sends new segment 6.
        let mut s = sack_sender(false);
        s.set_app_end(u64::MAX);
        s.rwnd = 1 << 20;
        s.st.cwnd = 6000;
        assert_eq!(drain(&mut s, 0).len(), 6);
        let rto = s.rto_deadline().unwrap();
        s.on_timeout(rto);
        let sent: Vec<(u64, bool)> = drain(&mut s, rto).iter().map(|g| (g.seq, g.retx)).collect();
        assert_eq!(sent, [(0, true)]);
        s.on_ack(rto + 10 * MS, &ack_sacking(1000, &[(2000, 6000)]));
        assert_eq!(s.st.cwnd, 2000);
        let sent: Vec<(u64, bool)> = drain(&mut s, rto + 10 * MS)
            .iter()
            .map(|g| (g.seq, g.retx))
            .collect();
        assert_eq!(sent, [(1000, true), (6000, false)]);
    }

    #[test]
    fn the_scheme_counts_delivered_data_when_asked() {
        // Five segments; 1 is SACKed first, then a cumulative ACK covers all five. ns-3.44
        // hands the scheme what that ACK newly delivered (four segments), not its advance.
        for (delivered, want) in [(false, 5000), (true, 4000)] {
            let mut s = sack_sender(false);
            s.cfg.acked_delivered = delivered;
            s.set_app_end(5000);
            s.rwnd = 1 << 20;
            s.st.cwnd = 5000;
            drain(&mut s, 0);
            s.on_ack(10 * MS, &ack_sacking(0, &[(1000, 2000)]));
            s.on_ack(11 * MS, &ack(5000));
            assert_eq!(
                s.last_ack.acked_bytes, want,
                "acked_count delivered = {delivered}"
            );
        }
    }

    #[test]
    fn after_a_timeout_new_data_the_sacks_show_lost_is_resent_before_more_new_data() {
        // Eight segments; a timeout resends 0. Its ACK SACKs 3-7, so 1 and 2 go again. 1
        // arrives, 2 is lost again (already resent: it waits), and new segments 8-11 go out;
        // 8 is lost. Once three segments above it are SACKed it is resent at once, ahead of
        // new data, without another timeout (RFC 6675 5.1 with NextSeg() rule 1).
        let mut s = sack_sender(false);
        s.set_app_end(u64::MAX);
        s.rwnd = 1 << 20;
        s.st.cwnd = 8000;
        assert_eq!(drain(&mut s, 0).len(), 8);
        let rto = s.rto_deadline().unwrap();
        s.on_timeout(rto);
        let mut t = rto;
        let mut step = |s: &mut TcpSender, ack_no: u64, sacks: &[(u64, u64)]| {
            t += MS;
            s.on_ack(t, &ack_sacking(ack_no, sacks));
            drain(s, t)
                .iter()
                .map(|g| (g.seq, g.retx))
                .collect::<Vec<_>>()
        };
        assert_eq!(drain(&mut s, rto).len(), 1);
        assert_eq!(
            step(&mut s, 1000, &[(3000, 8000)]),
            [(1000, true), (2000, true)]
        );
        assert_eq!(
            step(&mut s, 2000, &[(3000, 8000)]),
            [(8000, false), (9000, false)]
        );
        assert_eq!(
            step(&mut s, 2000, &[(9000, 10_000), (3000, 8000)]),
            [(10_000, false)]
        );
        assert_eq!(
            step(&mut s, 2000, &[(9000, 11_000), (3000, 8000)]),
            [(11_000, false)]
        );
        // 8 is no longer counted in flight, so the window also has room for 12 behind it.
        assert_eq!(
            step(&mut s, 2000, &[(9000, 12_000), (3000, 8000)]),
            [(8000, true), (12_000, false)]
        );
    }

    #[test]
    fn rescue_retransmission_resends_the_tail_once() {
        // A 5-segment transfer; segment 0 is lost and so is the tail segment 4, which no SACK
        // above it will ever mark lost (RFC 6675 NextSeg rule 4).
        let mut s = sack_sender(false);
        s.set_app_end(5000);
        s.st.cwnd = 10_000;
        assert_eq!(drain(&mut s, 0).len(), 5);
        for k in 1..=3 {
            s.on_ack(10 * MS, &sack_ack(0, 1000 + k * 1000));
        }
        assert!(s.in_recovery());
        let sent: Vec<(u64, bool)> = drain(&mut s, 10 * MS)
            .iter()
            .map(|g| (g.seq, g.retx))
            .collect();
        assert_eq!(sent, [(0, true)]);
        // The resent segment 0 arrives: a partial ACK up to the tail. Rules 1-3 find nothing
        // (nothing is lost by IsLost, nothing is SACKed above the tail), so the rescue
        // retransmission resends the highest outstanding segment, once.
        s.on_ack(20 * MS, &ack(4000));
        assert!(s.in_recovery());
        let sent: Vec<(u64, bool)> = drain(&mut s, 20 * MS)
            .iter()
            .map(|g| (g.seq, g.retx))
            .collect();
        assert_eq!(sent, [(4000, true)]);
        assert!(drain(&mut s, 21 * MS).is_empty());
    }
    #[test]
    fn without_rescue_the_lost_tail_waits_for_the_timer() {
        // The scenario of rescue_retransmission_resends_the_tail_once, with rule 4 off (ns-3).
        let mut s = sack_sender(false);
        s.cfg.rescue_retransmit = false;
        s.set_app_end(5000);
        s.st.cwnd = 10_000;
        assert_eq!(drain(&mut s, 0).len(), 5);
        for k in 1..=3 {
            s.on_ack(10 * MS, &sack_ack(0, 1000 + k * 1000));
        }
        assert_eq!(
            drain(&mut s, 10 * MS)
                .iter()
                .map(|g| (g.seq, g.retx))
                .collect::<Vec<_>>(),
            [(0, true)]
        );
        s.on_ack(20 * MS, &ack(4000));
        assert!(s.in_recovery());
        assert!(drain(&mut s, 20 * MS).is_empty());
    }

    fn recovery_sender(app_end: u64, f: impl FnOnce(&mut TcpConfig)) -> TcpSender {
        let (c, r) = cc::build_default("sack");
        let mut cfg = TcpConfig {
            sack: true,
            ..Default::default()
        };
        f(&mut cfg);
        let mut s = TcpSender::new(cfg, c, r, 0);
        s.set_app_end(app_end);
        s.rwnd = 1 << 20;
        s
    }

    /// An ACK of `ack` SACKing [start, end).
    fn sack_range(ack: u64, start: u64, end: u64) -> TcpHeader {
        let mut h = sack_ack(ack, end);
        h.sack[0].start = start;
        h
    }

    fn sent(segs: &[Segment]) -> Vec<(u64, bool)> {
        segs.iter().map(|g| (g.seq, g.retx)).collect()
    }

    #[test]
    fn rack_waits_a_quarter_min_rtt_before_judging_a_hole_lost() {
        // RFC 8985 6.2: with fewer than DupThresh segments SACKed and no recovery running,
        // reo_wnd = min_RTT / 4; a hole is lost once RACK.rtt + reo_wnd has passed since it
        // was sent, and the reordering timer fires then.
        let mut s = recovery_sender(u64::MAX, |c| c.rack = true);
        s.st.cwnd = 10_000;
        assert_eq!(drain(&mut s, 0).len(), 10);
        s.on_ack(100 * MS, &ack(1000)); // min RTT 100 ms
        s.on_ack(100 * MS, &sack_range(1000, 2000, 3000));
        assert!(!s.in_recovery(), "segment 1 may only be reordered");
        assert_eq!(
            s.timer_deadline(),
            Some(125 * MS),
            "sent at 0 + 100 ms + 25 ms"
        );
        s.on_timer(125 * MS);
        assert!(s.in_recovery());
        assert_eq!(sent(&drain(&mut s, 125 * MS))[0], (1000, true));
    }

    #[test]
    fn rack_reo_wnd_is_zero_once_dupthresh_segments_are_sacked() {
        let mut s = recovery_sender(u64::MAX, |c| c.rack = true);
        s.st.cwnd = 10_000;
        drain(&mut s, 0);
        s.on_ack(100 * MS, &ack(1000));
        s.on_ack(100 * MS, &sack_range(1000, 2000, 5000));
        assert!(
            s.in_recovery(),
            "three SACKed segments: no reordering window"
        );
        assert_eq!(s.stats.fast_retransmits, 1);
    }

    #[test]
    fn rack_finds_a_lost_retransmission_without_a_timeout() {
        let mut s = recovery_sender(u64::MAX, |c| c.rack = true);
        s.st.cwnd = 10_000;
        drain(&mut s, 0);
        s.on_ack(100 * MS, &sack_range(0, 1000, 4000));
        assert!(s.in_recovery());
        assert_eq!(sent(&drain(&mut s, 100 * MS)), [(0, true)]);
        // The rest of the window arrives; the retransmission of 0 (sent at 100 ms) is newer
        // than all of it, so it is not judged yet. New data goes out at 200 ms.
        s.on_ack(200 * MS, &sack_range(0, 1000, 10_000));
        let fresh = drain(&mut s, 200 * MS);
        assert!(!fresh.is_empty() && fresh.iter().all(|g| !g.retx && g.seq >= 10_000));
        // A segment sent at 200 ms is SACKed at 300 ms: the retransmission sent before it
        // has had its RTT, so it was lost too, and goes again.
        s.on_ack(300 * MS, &sack_range(0, 1000, 11_000));
        assert_eq!(sent(&drain(&mut s, 300 * MS))[0], (0, true));
        assert_eq!(s.stats.timeouts, 0);
    }

    #[test]
    fn rack_after_a_timeout_resends_a_lost_retransmission_without_another() {
        // After an RTO every segment is marked lost and resent in slow start. A resent
        // segment lost again is found by RACK as soon as a later resend is SACKed (RFC 8985
        // 6.2 with reo_wnd = 0 during recovery), where the recover guard alone would wait
        // for a second timeout.
        let mut s = recovery_sender(u64::MAX, |c| c.rack = true);
        s.st.cwnd = 10_000;
        drain(&mut s, 0);
        s.on_timer(1000 * MS);
        assert_eq!(s.stats.timeouts, 1);
        assert_eq!(sent(&drain(&mut s, 1000 * MS)), [(0, true)]);
        s.on_ack(1100 * MS, &ack(1000));
        assert_eq!(
            sent(&drain(&mut s, 1100 * MS)),
            [(1000, true), (2000, true)]
        );
        // 1000 is lost again; 2000 arrives.
        s.on_ack(1200 * MS, &sack_range(1000, 2000, 3000));
        assert_eq!(sent(&drain(&mut s, 1200 * MS))[0], (1000, true));
        assert_eq!(s.stats.timeouts, 1);
    }

    #[test]
    fn tlp_probe_timeout_is_two_srtt_plus_delack_for_a_lone_segment() {
        // RFC 8985 7.2: PTO = 2 * SRTT, plus WCDelAckT (200 ms) when one segment is in
        // flight, never later than the RTO.
        let mut s = recovery_sender(5000, |c| {
            c.rack = true;
            c.tlp = true;
            c.min_rto = SEC;
        });
        s.st.cwnd = 10_000;
        drain(&mut s, 0);
        s.on_ack(100 * MS, &ack(1000));
        assert_eq!(s.timer_deadline(), Some(300 * MS));
        s.on_ack(100 * MS, &ack(4000));
        assert_eq!(s.timer_deadline(), Some(500 * MS), "2 * 100 ms + 200 ms");
    }

    #[test]
    fn tlp_resends_the_last_segment_then_runs_the_rto() {
        let mut s = recovery_sender(5000, |c| {
            c.rack = true;
            c.tlp = true;
        });
        s.st.cwnd = 10_000;
        drain(&mut s, 0);
        s.on_ack(100 * MS, &ack(1000));
        let pto = s.timer_deadline().unwrap();
        assert!(drain(&mut s, pto - 1).is_empty());
        s.on_timer(pto);
        // No new data: the probe is the highest segment sent.
        assert_eq!(sent(&drain(&mut s, pto)), [(4000, true)]);
        assert_eq!(s.stats.tlp_probes, 1);
        assert_eq!(s.rto_deadline(), Some(pto + s.rtt.rto));
        // Original and probe both arrived: a duplicate ACK without SACK ends the episode
        // with no reduction.
        let before = s.st.ssthresh;
        s.on_ack(pto + 100 * MS, &ack(5000));
        s.on_ack(pto + 101 * MS, &ack(5000));
        assert_eq!(s.st.ssthresh, before);
        assert_eq!(s.stats.tlp_recoveries, 0);
    }

    #[test]
    fn tlp_that_repaired_a_loss_reduces_the_window_once() {
        let mut s = recovery_sender(5000, |c| {
            c.rack = true;
            c.tlp = true;
        });
        s.st.cwnd = 10_000;
        drain(&mut s, 0);
        s.on_ack(100 * MS, &ack(1000));
        let pto = s.timer_deadline().unwrap();
        s.on_timer(pto);
        drain(&mut s, pto);
        // Segments 1-3 were only late; 4 was lost and the probe repaired it.
        s.on_ack(pto + 50 * MS, &ack(5000));
        assert_eq!(
            s.stats.tlp_recoveries, 0,
            "TLP.end_seq itself proves nothing yet"
        );
        s.set_app_end(8000);
        drain(&mut s, pto + 50 * MS);
        s.on_ack(pto + 150 * MS, &ack(6000));
        assert_eq!(s.stats.tlp_recoveries, 1);
        assert_eq!(s.stats.timeouts, 0);
    }

    #[test]
    fn tlp_sends_new_data_as_the_probe_when_it_can() {
        let mut s = recovery_sender(u64::MAX, |c| {
            c.rack = true;
            c.tlp = true;
        });
        s.st.cwnd = 4_000;
        drain(&mut s, 0);
        s.on_ack(100 * MS, &ack(1000));
        drain(&mut s, 100 * MS); // cwnd now allows 5000 in flight: up to 6000
        let pto = s.timer_deadline().unwrap();
        assert_eq!(pto, 300 * MS);
        s.on_timer(pto);
        assert_eq!(sent(&drain(&mut s, pto)), [(6000, false)], "beyond cwnd");
    }

    fn frto_sender() -> TcpSender {
        let (c, r) = cc::build_default("newreno");
        let cfg = TcpConfig {
            frto: true,
            ..Default::default()
        };
        let mut s = TcpSender::new(cfg, c, r, 0);
        s.set_app_end(u64::MAX);
        s.st.cwnd = 5_000;
        s.st.ssthresh = 8_000;
        assert_eq!(drain(&mut s, 0).len(), 5);
        s.on_timer(SEC);
        assert_eq!(s.stats.timeouts, 1);
        // RFC 5682 step 1: only the first unacknowledged segment is resent.
        assert_eq!(sent(&drain(&mut s, SEC)), [(0, true)]);
        s
    }

    #[test]
    fn frto_detects_a_spurious_timeout_and_undoes_it() {
        let mut s = frto_sender();
        // The original ACKs were only late. First ACK advances: two new segments (step 2b).
        s.on_ack(SEC + 50 * MS, &ack(1000));
        assert_eq!(
            sent(&drain(&mut s, SEC + 50 * MS)),
            [(5000, false), (6000, false)]
        );
        // Second ACK acknowledges data never resent: spurious (step 3b). RFC 4015: cwnd =
        // FlightSize + min(bytes_acked, IW), ssthresh = pipe_prev = max(5000, 8000).
        s.on_ack(SEC + 60 * MS, &ack(2000));
        assert_eq!(s.stats.spurious_timeouts, 1);
        assert_eq!(s.st.ssthresh, 8_000);
        assert_eq!(s.st.cwnd, 5_000 + 1_000);
        let next = drain(&mut s, SEC + 60 * MS);
        assert!(
            next.iter().all(|g| !g.retx),
            "no go-back-N after a spurious timeout"
        );
        assert_eq!(next[0].seq, 7000);
    }

    #[test]
    fn frto_falls_back_to_go_back_n_on_a_duplicate_ack() {
        let mut s = frto_sender();
        s.on_ack(SEC + 50 * MS, &ack(0)); // step 2a: duplicate ACK
        s.on_ack(SEC + 60 * MS, &ack(1000));
        assert_eq!(s.stats.spurious_timeouts, 0);
        assert_eq!(
            sent(&drain(&mut s, SEC + 60 * MS)),
            [(1000, true), (2000, true)],
            "conventional recovery resends the window in slow start"
        );
    }

    #[test]
    fn frto_second_duplicate_ack_is_a_real_loss() {
        let mut s = frto_sender();
        s.on_ack(SEC + 50 * MS, &ack(1000));
        drain(&mut s, SEC + 50 * MS);
        s.on_ack(SEC + 60 * MS, &ack(1000)); // step 3a
        assert_eq!(s.stats.spurious_timeouts, 0);
        assert!(s.st.cwnd <= 3_000);
        assert_eq!(sent(&drain(&mut s, SEC + 60 * MS))[0], (1000, true));
    }

    /// Ten segments, a timeout, the go-back-N resends of 0 and 1 acknowledged one by one
    /// (`jump` = how far the second ACK moves), then three duplicate ACKs below `recover`.
    fn dupacks_after_timeout(guard: RecoverGuard, jump: u64, ecr: Option<Time>) -> u64 {
        let (c, r) = cc::build_default("newreno");
        let cfg = TcpConfig {
            recover_guard: guard,
            timestamps: ecr.is_some(),
            ..Default::default()
        };
        let mut s = TcpSender::new(cfg, c, r, 0);
        s.set_app_end(u64::MAX);
        s.st.cwnd = 10_000;
        drain(&mut s, 0);
        s.on_timer(SEC);
        drain(&mut s, SEC);
        s.on_ack(SEC + 100 * MS, &ack(1000));
        drain(&mut s, SEC + 100 * MS);
        let mut h = ack(1000 + jump);
        h.ts_ecr = ecr.unwrap_or(0);
        s.on_ack(SEC + 200 * MS, &h);
        drain(&mut s, SEC + 200 * MS);
        for _ in 0..3 {
            s.on_ack(SEC + 300 * MS, &ack(1000 + jump));
        }
        s.stats.fast_retransmits
    }

    /// A fast recovery over ten segments ends with the ACK of exactly `recover`; then the
    /// first segment sent during the recovery proves lost (three duplicate ACKs at recover).
    fn dupacks_at_recover(guard: RecoverGuard) -> u64 {
        let (c, r) = cc::build_default("newreno");
        let cfg = TcpConfig {
            recover_guard: guard,
            ..Default::default()
        };
        let mut s = TcpSender::new(cfg, c, r, 0);
        s.set_app_end(u64::MAX);
        s.st.cwnd = 10_000;
        drain(&mut s, 0);
        for _ in 0..3 {
            s.on_ack(10 * MS, &ack(0));
        }
        drain(&mut s, 10 * MS);
        for _ in 0..4 {
            s.on_ack(11 * MS, &ack(0));
        }
        assert!(
            !drain(&mut s, 11 * MS).is_empty(),
            "new data at 10000 during recovery"
        );
        s.on_ack(20 * MS, &ack(10_000));
        assert!(!s.in_recovery());
        drain(&mut s, 20 * MS);
        for _ in 0..3 {
            s.on_ack(30 * MS, &ack(10_000));
        }
        s.stats.fast_retransmits
    }

    #[test]
    fn less_careful_guard_lets_an_ack_of_exactly_recover_through() {
        // RFC 6582 3.2 step 1 wants an ACK covering more than recover (the highest byte sent
        // at the reduction); RFC 2582's less careful variant also takes one that reaches it.
        assert_eq!(dupacks_at_recover(RecoverGuard::Careful), 1);
        assert_eq!(dupacks_at_recover(RecoverGuard::LessCareful), 2);
    }

    #[test]
    fn recover_guard_variants_of_rfc_6582() {
        use RecoverGuard::*;
        // 3.2 step 1: duplicate ACKs not covering `recover` never start a fast retransmit.
        assert_eq!(dupacks_after_timeout(Careful, 1000, None), 0);
        assert_eq!(dupacks_after_timeout(LessCareful, 1000, None), 0);
        assert_eq!(dupacks_after_timeout(Off, 1000, None), 1);
        // 4.1: a small advance (<= 4 SMSS) before them points to a lost resend...
        assert_eq!(dupacks_after_timeout(Ack, 1000, None), 1);
        // ... a jump over data the receiver already held points to needless resends.
        assert_eq!(dupacks_after_timeout(Ack, 6000, None), 0);
        // 4.2: the advancing ACK echoed the TSval of the last segment it covered (segment 1,
        // resent at 1.1 s): that segment's arrival made it, so the next one was lost.
        assert_eq!(
            dupacks_after_timeout(Timestamp, 1000, Some(SEC + 100 * MS)),
            1
        );
        // It echoed an older segment's (the resend of segment 0 filled a hole and everything
        // above it was already there): needless resends.
        assert_eq!(dupacks_after_timeout(Timestamp, 1000, Some(SEC)), 0);
    }
}
