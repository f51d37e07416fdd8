//! TCP endpoints, sans-IO: the sender and receiver are state machines fed the current time and
//! inputs (ACKs, segments, timer expiries) that return what to transmit. They know nothing of
//! the engine, so they are unit-tested with explicit times.

pub mod cc;
pub mod receiver;
pub mod rto_rules;
pub mod rtt;
pub mod scoreboard;
pub mod sender;

pub use receiver::TcpReceiver;
pub use sender::TcpSender;

use crate::engine::{Time, MS, SEC};

/// Resolved TCP settings of one flow (defaults documented in docs/scenario.md).
#[derive(Clone, Debug)]
pub struct TcpConfig {
    pub mss: u32,
    pub header: u32,
    pub initial_cwnd: u32,
    pub initial_ssthresh: u64,
    pub rcv_window: u64,
    pub min_rto: Time,
    pub initial_rto: Time,
    /// A SYN's own timer, doubled at each retry, with the SYN-ACK timed even after a resent
    /// SYN (ns-3's `ConnTimeout` and RTT history); 0: the SYN is timed by the RTO like data
    /// and Karn's rule applies to it (RFC 6298).
    pub syn_timeout: Time,
    pub max_rto: Time,
    pub delayed_ack: bool,
    pub delack_count: u32,
    pub delack_timeout: Time,
    pub sack: bool,
    pub timestamps: bool,
    pub ecn: bool,
    pub dupack_threshold: u32,
    /// Open the connection with a SYN exchange (which negotiates ECN) instead of starting
    /// established.
    pub handshake: bool,
    /// Bytes the SYN and SYN-ACK carry beyond `header` (their options less the data
    /// segments' timestamp option).
    pub syn_options: u32,
    /// The sender completes the handshake with a pure ACK ahead of its first data segment
    /// (RFC 9293's third segment), rather than with the first data segment.
    pub handshake_ack: bool,
    /// ns-3's pacing timer (`pacing = "ns3"`) for a paced scheme: a transmission starts a
    /// gap of its payload's time at the pacing rate only when the last gap has run out (a
    /// recovery's retransmission sent meanwhile leaves it; a timeout cancels it; the initial
    /// window goes unpaced), instead of every transmission taking its slot of the packet's
    /// bytes.
    pub pacing_ns3: bool,
    /// After a timeout with SACK, resend only the un-SACKed segments below the highest
    /// SACKed one before new data (`timeout_resend = "below_sack"`, ns-3's NextSeg rule 1.b
    /// with every segment marked lost), rather than every un-SACKed segment sent before it.
    pub timeout_resend_below_sack: bool,
    /// An ACK that advances snd.una while it brings new SACK information (a duplicate by
    /// RFC 6675's definition), outside recovery and after no timeout, neither grows the
    /// window nor restarts the retransmission timer (`disorder_acks = "hold"`, ns-3.44's
    /// CA_DISORDER), rather than counting as any new ACK.
    pub disorder_hold: bool,
    /// The receiver's SACK blocks are ns-3.44's list (`sack_list = "ns3"`: `TcpRxBuffer::
    /// UpdateSackList`, each new out-of-order segment's block first, merged only with the
    /// listed blocks it adjoins, at most four kept) rather than the ranges it holds, the one
    /// with the latest arrival first (RFC 2018).
    pub sack_list_ns3: bool,
    /// What an ACK's SACK blocks add to its size beyond `header` (`ack_options`).
    pub sack_bytes: SackBytes,
    /// Delayed duplicate ACKs (Vaidya et al.): the receiver holds the third and later
    /// duplicate ACKs for this long, dropping them if the hole fills meanwhile.
    pub dda_delay: Option<Time>,
    /// RFC 3042 limited transmit: the first two duplicate ACKs each let one new segment out.
    pub limited_transmit: bool,
    /// RFC 6937 proportional rate reduction during SACK recovery (instead of RFC 6675's
    /// cwnd = ssthresh at once).
    pub prr: bool,
    /// PRR as ns-3.44's `TcpPrrRecovery` computes it (`prr_variant = "ns3"`; see
    /// `TcpSender::prr_step_ns3`) instead of RFC 6937.
    pub prr_ns3: bool,
    /// RFC 8985 RACK: losses detected by time (a segment sent before one that was delivered,
    /// and older than an RTT plus a reordering window), retransmissions included. Needs SACK.
    pub rack: bool,
    /// RFC 8985 7 tail loss probe: with nothing else to trigger recovery, a probe after about
    /// two smoothed RTTs instead of waiting for the RTO. Needs SACK.
    pub tlp: bool,
    /// RFC 5682 F-RTO: after a timeout, send new data before resending the window, and undo
    /// the reduction (RFC 4015's response) if the timeout proves spurious.
    pub frto: bool,
    /// RFC 6582 guard against a second fast retransmit for duplicate ACKs that do not cover
    /// `recover` (ACKs of needless go-back-N resends after a timeout).
    pub recover_guard: RecoverGuard,
    /// RTO = SRTT + max(4·RTTVAR, min_rto), as Linux computes it, instead of RFC 6298's
    /// max(min_rto, SRTT + max(G, 4·RTTVAR)).
    pub rto_min_added: bool,
    /// Clock granularity G of RFC 6298's RTO = SRTT + max(G, 4·RTTVAR).
    pub clock_granularity: Time,
    /// What a window cut halves (or multiplies by β): RFC 5681's FlightSize (false), or the
    /// data still presumed in the network when the loss is found (true: RFC 6675's pipe with
    /// the head counted lost, as ns-3's `BytesInFlight()` when it calls `GetSsThresh`).
    pub cut_from_pipe: bool,
    /// RFC 6675 NextSeg() rule 4, the rescue retransmission (a SHOULD; ns-3 leaves it out).
    pub rescue_retransmit: bool,
    /// The retransmission timer restarts when the fast retransmission leaves (ns-2, Linux);
    /// otherwise it keeps running from the last new ACK (ns-3 arms it in SendDataPacket only
    /// when it is not running).
    pub fast_retransmit_restarts_rto: bool,
    /// Every ACK that restarts the timer also sets the RTO from the estimate, dropping a
    /// timeout's backoff even without a new sample (ns-3's NewAck; `rto_on_new_ack =
    /// "estimate"`), instead of keeping it until a valid sample (RFC 6298 5.7).
    pub rto_reset_on_new_ack: bool,
    /// The RTT estimator is fed by ns-3's history rule (`tcp::rto_rules`; `rtt_sampling =
    /// "ns3"`) instead of every advancing ACK (RFC 7323 with timestamps, else Karn's rule).
    /// What the congestion control scheme sees per ACK is unchanged.
    pub rtt_sample_ns3: bool,
    /// Without SACK, each duplicate ACK marks one more segment as SACKed, the marks kept
    /// until a timeout, and recovery runs on that scoreboard as with SACK (ns-3's
    /// `TcpTxBuffer::AddRenoSack`); `sack = true` makes it moot.
    pub reno_sack: bool,
    /// In SACK recovery, a partial ACK also sends one NextSeg() (rules 1 and 2: a lost
    /// segment not yet resent, else new data) at once, outside cwnd, unless the new head was
    /// already resent (ns-3's ProcessAck calls DoRetransmit).
    pub partial_ack_retransmit: bool,
    /// `cubic` defaults to Linux's integer arithmetic rather than RFC 9438 in floating point:
    /// 0 = RFC 9438, 1 = Linux (`cc_params.linux = 1`), 2 = ns-3.44's port of it (`linux =
    /// 2`, slow start not capped at ssthresh). Set by profiles only; `cc_params.linux`
    /// overrides it.
    pub linux_cubic: u8,
    /// Schemes take the `ns3` defaults of their parameters where ns-3.44's code departs from
    /// the scheme's source (`ParamSpec::ns3_default`). Set by the `ns3` profile only;
    /// `cc_params` override it key by key.
    pub ns3_schemes: bool,
    /// A repeated timeout of the same loss episode (the head already resent after a
    /// timeout) keeps ssthresh instead of recomputing it from the one-segment flight.
    pub timeout_keeps_ssthresh: bool,
    /// The ACK that ends a fast recovery reaches the scheme as an ordinary ACK, so it grows
    /// the window just set to ssthresh.
    pub exit_ack_grows: bool,
    /// With delayed ACKs the receiver acknowledges the first data segment at once, so later
    /// ACKs pair segments (2, 3), (4, 5), ... (ns-3, to speed up the connection).
    pub ack_first_segment: bool,
    /// RFC 7323 4.3: the receiver takes TS.Recent only from a segment holding Last.ACK.sent,
    /// so an ACK answering several segments echoes the earliest one's timestamp (ns-3, Linux);
    /// off, it echoes the latest segment's.
    pub ts_echo_earliest: bool,
    /// Tick of the sender's timestamp clock (0: exact): TSval is the time in whole ticks and
    /// an RTT sample from the echo is too (ns-3 stamps in whole milliseconds).
    pub ts_tick: Time,
    /// A retransmitted segment stays counted in pipe, and NextSeg() does not resend it,
    /// until a timeout (ns-3's sticky `TcpTxItem::m_retrans`), rather than only during the
    /// recovery that resent it (RFC 6675's HighRxt).
    pub pipe_keeps_retransmissions: bool,
    /// The scheme's growth counts what an ACK newly delivered (ns-3.44's segsAcked from
    /// the delivered count), not the whole advance of the cumulative ACK.
    pub acked_delivered: bool,
    /// Reno-family and Linux CUBIC growth count the segments each ACK delivered, as Linux's
    /// `tcp_reno_cong_avoid` and `tcp_cong_avoid_ai` are handed `acked_sacked`
    /// (`window_growth = "linux"`), not ACKs (RFC 5681) or the cumulative advance.
    pub linux_growth: bool,
    /// Loss recovery for every scheme of the flow, in place of the scheme's own (None); SACK
    /// (`sack = true`) takes precedence.
    pub recovery: Option<cc::RecoveryKind>,
}

/// How an ACK's SACK blocks count in its size (`ack_options`): not at all (ns-2's agents send
/// fixed-size ACKs), as ns-3 packs its options (the timestamp's 10 bytes and the SACK
/// option's 2 + 8 per block, the sum padded to 4 bytes), or as Linux writes them (two NOPs,
/// then the option).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SackBytes {
    #[default]
    None,
    Ns3,
    Linux,
}

impl SackBytes {
    pub const NAMES: [&'static str; 3] = ["none", "ns3", "linux"];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    pub fn from_name(name: &str) -> Option<Self> {
        [Self::None, Self::Ns3, Self::Linux]
            .into_iter()
            .find(|v| v.name() == name)
    }

    /// Bytes `blocks` SACK blocks add to a header whose `header` size holds the timestamp
    /// option (padded to 12 bytes) when `timestamps` is on.
    pub fn bytes(self, blocks: usize, timestamps: bool) -> u32 {
        let n = blocks as u32;
        if n == 0 {
            return 0;
        }
        match self {
            SackBytes::None => 0,
            SackBytes::Ns3 if timestamps => (10 + 2 + 8 * n).div_ceil(4) * 4 - 12,
            SackBytes::Ns3 => (2 + 8 * n).div_ceil(4) * 4,
            SackBytes::Linux => 4 + 8 * n,
        }
    }
}

/// When duplicate ACKs below `recover` may still start a fast retransmit (RFC 6582 3.2 step 1
/// and section 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoverGuard {
    /// Only for an ACK beyond `recover` (RFC 6582 3.2: "covers more than recover", the
    /// "careful" rule, ns-2's `bugFix_`): a loss of the first segment sent after the
    /// reduction waits for the RTO.
    Careful,
    /// Also for an ACK that reaches `recover` exactly (RFC 2582 6's "less careful" variant;
    /// ns-3's `m_highRxAckMark >= m_recover`).
    LessCareful,
    /// If cwnd > SMSS and the cumulative ACK last advanced by at most 4 SMSS (RFC 6582 4.1,
    /// ns-2's `bugFix_ack_`).
    Ack,
    /// If the last advancing ACK echoed the timestamp of the last segment it acknowledged
    /// (RFC 6582 4.2, ns-2's `bugFix_ts_`); needs timestamps.
    Timestamp,
    /// Always: no guard (RFC 2582's behaviour before the guard).
    Off,
}

impl RecoverGuard {
    pub const NAMES: [&'static str; 5] = ["careful", "less_careful", "ack", "timestamp", "off"];

    pub fn from_name(name: &str) -> Option<RecoverGuard> {
        match name {
            "careful" => Some(RecoverGuard::Careful),
            "less_careful" => Some(RecoverGuard::LessCareful),
            "ack" => Some(RecoverGuard::Ack),
            "timestamp" => Some(RecoverGuard::Timestamp),
            "off" => Some(RecoverGuard::Off),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            RecoverGuard::Careful => "careful",
            RecoverGuard::LessCareful => "less_careful",
            RecoverGuard::Ack => "ack",
            RecoverGuard::Timestamp => "timestamp",
            RecoverGuard::Off => "off",
        }
    }
}

/// Stacks whose defaults a flow can take as a whole (`tcp.profile`); every value and its source
/// is listed in docs/tcp_profiles.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// ns-2.35's Agent/TCP with a TCPSink (ns-default.tcl).
    Ns2,
    /// ns-3.44's TcpSocketBase (attribute defaults).
    Ns3,
    /// Linux 6.x (sysctl defaults).
    Linux,
}

impl Profile {
    pub const NAMES: [&'static str; 3] = ["ns2", "ns3", "linux"];

    pub fn from_name(name: &str) -> Option<Profile> {
        match name {
            "ns2" => Some(Profile::Ns2),
            "ns3" => Some(Profile::Ns3),
            "linux" => Some(Profile::Linux),
            _ => None,
        }
    }

    /// The stack's defaults.
    pub fn config(self) -> TcpConfig {
        let base = TcpConfig::default();
        match self {
            Profile::Ns2 => TcpConfig {
                mss: 1000,              // packetSize_
                header: 40,             // tcpip_base_hdr_size_
                initial_cwnd: 2,        // windowInit_
                rcv_window: 20 * 1000,  // window_ = 20 packets
                min_rto: 200 * MS,      // minrto_
                initial_rto: 3 * SEC,   // rtxcur_init_
                max_rto: 60 * SEC,      // maxrto_
                delayed_ack: false,     // TCPSink acknowledges every segment
                sack: false,            // Agent/TCP (Sack1 is another agent)
                timestamps: false,      // timestamps_
                dupack_threshold: 3,    // numdupacks_
                limited_transmit: true, // singledup_ = 1
                ..base
            },
            Profile::Ns3 => TcpConfig {
                mss: 536,            // TcpSocket::SegmentSize
                header: 52,          // IPv4 20 + TCP 20 + timestamp option 12
                initial_cwnd: 10,    // TcpSocket::InitialCwnd
                rcv_window: 131_072, // TcpSocket::RcvBufSize
                min_rto: SEC,        // TcpSocketBase::MinRto
                initial_rto: SEC,    // RttEstimator::InitialEstimation
                // TcpSocket::ConnTimeout; SendEmptyPacket sets m_rto = ConnTimeout ×
                // 2^retries for each SYN.
                syn_timeout: 3 * SEC,
                max_rto: 60 * SEC,
                delayed_ack: true, // TcpSocket::DelAckCount = 2
                delack_count: 2,
                delack_timeout: 200 * MS, // TcpSocket::DelAckTimeout
                sack: true,               // TcpSocketBase::Sack
                timestamps: true,         // TcpSocketBase::Timestamp
                dupack_threshold: 3,      // TcpSocketBase::ReTxThreshold
                limited_transmit: true,   // TcpSocketBase::LimitedTransmit
                prr: true,                // TcpSocketBase::RecoveryType = TcpPrrRecovery
                // TcpPrrRecovery::DoRecovery departs from RFC 6937 in its accounting.
                prr_ns3: true,
                // TcpSocketBase::DupAck: recovery when m_highRxAckMark >= m_recover
                recover_guard: RecoverGuard::LessCareful,
                // TcpSocketBase::EnterRecovery: GetSsThresh(tcb, BytesInFlight()), taken after
                // the head is marked lost (TcpTxBuffer: sent - SACKed - lost + retransmitted).
                cut_from_pipe: true,
                // TcpTxBuffer::NextSeg: rule 4 is not implemented.
                rescue_retransmit: false,
                // TcpSocketBase::SendDataPacket schedules ReTxTimeout only if it has expired.
                fast_retransmit_restarts_rto: false,
                // TcpSocketBase::NewAck: m_rto from the estimator whenever it restarts the timer.
                rto_reset_on_new_ack: true,
                // TcpSocketBase::EstimateRtt samples only the front of m_history, which
                // ReTxTimeout clears.
                rtt_sample_ns3: true,
                // TcpSocketBase::DupAck calls TcpTxBuffer::AddRenoSack without SACK;
                // ReTxTimeout calls ResetRenoSack.
                reno_sack: true,
                // TcpSocketBase::ProcessAck: a partial ACK in CA_RECOVERY calls DoRetransmit
                // unless that data was already resent.
                partial_ack_retransmit: true,
                // TcpCubic ports tcp_cubic.c's integer bictcp_update.
                linux_cubic: 2,
                // Scheme parameters where ns-3.44's TcpCongestionOps depart from their sources.
                ns3_schemes: true,
                // TcpSocketBase::ReTxTimeout skips GetSsThresh in CA_LOSS with the head
                // retransmitted, but tests that after SetSentListLost has cleared every
                // retransmitted flag: every timeout sets ssthresh from the flight before it.
                timeout_keeps_ssthresh: false,
                // TcpSocketBase::ProcessAck: cwnd = ssthresh, then IncreaseWindow in CA_OPEN.
                exit_ack_grows: true,
                // TcpSocketBase::ProcessSynRcvd/ProcessSynSent: m_delAckCount = m_delAckMaxCount
                // "to respond to the first data packet".
                ack_first_segment: true,
                // TcpSocketBase::ProcessOptionTimestamp: m_timestampToEcho changes only for the
                // in-order segment at or below the highest ACK sent.
                ts_echo_earliest: true,
                // TcpOptionTS::NowToTsValue and ElapsedTimeFromTsValue count milliseconds.
                ts_tick: MS,
                // TcpSocketBase::SendEmptyPacket: a SYN adds window scale (3) and SACK
                // permitted (2) to the timestamp option (10), 16 option bytes padded against
                // the data segments' 12.
                syn_options: 4,
                // TcpSocketBase::ProcessSynSent: SendEmptyPacket(ACK), then SendPendingData.
                handshake_ack: true,
                // TcpSocketBase::SendDataPacket: the pacing timer, when expired, is scheduled
                // for CalculateBytesTxTime(sz), sz the payload taken from the send buffer;
                // SendPendingData sends only while it is not running.
                pacing_ns3: true,
                // TcpTxBuffer::NextSeg: rule 1 takes a lost segment only below the highest
                // SACKed one (1.b); in CA_LOSS SendPendingData disables rule 3, so new data
                // goes first.
                timeout_resend_below_sack: true,
                // TcpSocketBase::ProcessAck: such an ACK leaves the socket in CA_DISORDER
                // (DupAck), where it calls neither IncreaseWindow nor NewAck.
                disorder_hold: true,
                // TcpRxBuffer::UpdateSackList / ClearSackList.
                sack_list_ns3: true,
                // TcpHeader::CalculateHeaderLength: the options' sizes summed, padded to 4.
                sack_bytes: SackBytes::Ns3,
                // TcpTxBuffer: m_retrans is cleared only by SetSentListLost (a timeout) and
                // MarkHeadAsLost.
                pipe_keeps_retransmissions: true,
                // TcpSocketBase::ProcessAck: segsAcked = currentDelivered / segment size,
                // except on the ACK that ends CA_RECOVERY (the whole advance) or CA_LOSS
                // (what lies above m_recover).
                acked_delivered: true,
                ..base
            },
            Profile::Linux => TcpConfig {
                mss: 1448,                   // 1500-byte MTU less 52 bytes of headers
                header: 52,                  // IPv4 20 + TCP 20 + timestamp option 12
                initial_cwnd: 10,            // TCP_INIT_CWND
                rcv_window: 6 * 1024 * 1024, // tcp_rmem max (autotuning not modelled)
                min_rto: 200 * MS,           // TCP_RTO_MIN
                initial_rto: SEC,            // TCP_TIMEOUT_INIT
                max_rto: 120 * SEC,          // TCP_RTO_MAX
                delayed_ack: true,
                delack_count: 2,
                delack_timeout: 40 * MS, // TCP_DELACK_MIN
                sack: true,              // tcp_sack
                timestamps: true,        // tcp_timestamps
                dupack_threshold: 3,     // tcp_reordering
                limited_transmit: true,
                prr: true,  // tcp_input.c: PRR since Linux 3.2
                rack: true, // net.ipv4.tcp_recovery = 1 (RACK loss detection)
                tlp: true,  // net.ipv4.tcp_early_retrans = 3 (TLP)
                frto: true, // net.ipv4.tcp_frto = 2
                // Recovery may start as soon as the previous one's high_seq is acknowledged.
                recover_guard: RecoverGuard::LessCareful,
                rto_min_added: true, // tcp_set_rto: srtt + max(mdev, rto_min)
                linux_cubic: 1,      // tcp_cubic.c
                // tcp_enter_loss: a new ssthresh only on a new loss episode.
                timeout_keeps_ssthresh: true,
                // tcp_cong_control: once the reduction is over the ACK may raise cwnd.
                exit_ack_grows: true,
                // tcp_ack hands tcp_cong_control acked_sacked, the segments the ACK newly
                // delivered (tp->delivered - prior_delivered); tcp_reno_cong_avoid and
                // cubic's tcp_cong_avoid_ai grow by it.
                linux_growth: true,
                // tcp_options_write: NOP, NOP, then the SACK option.
                sack_bytes: SackBytes::Linux,
                ..base
            },
        }
    }
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1000,
            header: 40,
            initial_cwnd: 2,
            initial_ssthresh: 1 << 30,
            rcv_window: 64 * 1024,
            // Linux and ns-2 use 200 ms; RFC 6298's 1 s floor is known to be conservative and
            // the seed papers' ns-2 runs used the smaller value.
            min_rto: 200 * MS,
            initial_rto: SEC,
            max_rto: 60 * SEC,
            delayed_ack: false,
            delack_count: 2,
            delack_timeout: 200 * MS,
            sack: false,
            timestamps: false,
            ecn: false,
            dupack_threshold: 3,
            // ns-2's one-way agents, which the seed papers used, start established.
            handshake: false,
            syn_options: 0,
            handshake_ack: false,
            syn_timeout: 0,
            pacing_ns3: false,
            timeout_resend_below_sack: false,
            disorder_hold: false,
            sack_list_ns3: false,
            sack_bytes: SackBytes::None,
            dda_delay: None,
            // Off, as in the seed reproductions' configuration; the stack profiles turn it on.
            limited_transmit: false,
            prr: false,
            prr_ns3: false,
            rack: false,
            tlp: false,
            frto: false,
            recover_guard: RecoverGuard::Careful,
            rto_min_added: false,
            // ns-3's TcpSocketBase::ClockGranularity; Linux times in microseconds.
            clock_granularity: MS,
            cut_from_pipe: false,
            rescue_retransmit: true,
            fast_retransmit_restarts_rto: true,
            rto_reset_on_new_ack: false,
            rtt_sample_ns3: false,
            reno_sack: false,
            partial_ack_retransmit: false,
            linux_cubic: 0,
            ns3_schemes: false,
            timeout_keeps_ssthresh: false,
            exit_ack_grows: false,
            ack_first_segment: false,
            ts_echo_earliest: false,
            ts_tick: 0,
            pipe_keeps_retransmissions: false,
            acked_delivered: false,
            linux_growth: false,
            recovery: None,
        }
    }
}
