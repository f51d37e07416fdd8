//! TCP endpoints, sans-IO: the sender and receiver are state machines fed the current time and
//! inputs (ACKs, segments, timer expiries) that return what to transmit. They know nothing of
//! the engine, so they are unit-tested with explicit times.

pub mod cc;
pub mod receiver;
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
    /// Delayed duplicate ACKs (Vaidya et al.): the receiver holds the third and later
    /// duplicate ACKs for this long, dropping them if the hole fills meanwhile.
    pub dda_delay: Option<Time>,
    /// RFC 3042 limited transmit: the first two duplicate ACKs each let one new segment out.
    pub limited_transmit: bool,
    /// RFC 6937 proportional rate reduction during SACK recovery (instead of RFC 6675's
    /// cwnd = ssthresh at once).
    pub prr: bool,
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
                max_rto: 60 * SEC,
                delayed_ack: true, // TcpSocket::DelAckCount = 2
                delack_count: 2,
                delack_timeout: 200 * MS, // TcpSocket::DelAckTimeout
                sack: true,               // TcpSocketBase::Sack
                timestamps: true,         // TcpSocketBase::Timestamp
                dupack_threshold: 3,      // TcpSocketBase::ReTxThreshold
                limited_transmit: true,   // TcpSocketBase::LimitedTransmit
                prr: true,                // TcpSocketBase::RecoveryType = TcpPrrRecovery
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
                prr: true, // tcp_input.c: PRR since Linux 3.2
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
            dda_delay: None,
            // Off, as in the seed reproductions' configuration; the stack profiles turn it on.
            limited_transmit: false,
            prr: false,
        }
    }
}
