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
            // ns-2's agents (the seed papers' baseline) have no limited transmit.
            limited_transmit: false,
        }
    }
}
