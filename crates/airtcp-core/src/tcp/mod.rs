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
use crate::scenario::schema::TcpOptions;

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
        }
    }
}

impl TcpConfig {
    /// Apply the keys set in `o`; errors name the offending key.
    pub fn from_options(o: &TcpOptions) -> Result<Self, (String, String)> {
        let mut c = TcpConfig::default();
        if let Some(v) = o.segment_size {
            if v == 0 || v > 65_000 {
                return Err((
                    "segment_size".into(),
                    format!("must be in 1..=65000, got {v}"),
                ));
            }
            c.mss = v;
        }
        if let Some(v) = o.header_size {
            if v > 1000 {
                return Err(("header_size".into(), format!("must be <= 1000, got {v}")));
            }
            c.header = v;
        }
        if let Some(v) = o.initial_cwnd {
            if v == 0 {
                return Err(("initial_cwnd".into(), "must be >= 1, got 0".into()));
            }
            c.initial_cwnd = v;
        }
        if let Some(v) = o.initial_ssthresh {
            c.initial_ssthresh = v.bytes().max(2 * c.mss as u64);
        }
        if let Some(v) = o.rcv_window {
            if v.bytes() < c.mss as u64 {
                return Err((
                    "rcv_window".into(),
                    format!(
                        "must hold at least one segment ({} bytes), got {}",
                        c.mss, v.0
                    ),
                ));
            }
            c.rcv_window = v.bytes();
        }
        if let Some(v) = o.min_rto {
            c.min_rto = v.ns();
        }
        if let Some(v) = o.initial_rto {
            if v.ns() == 0 {
                return Err(("initial_rto".into(), "must be > 0".into()));
            }
            c.initial_rto = v.ns();
        }
        if let Some(v) = o.max_rto {
            c.max_rto = v.ns();
        }
        if c.max_rto < c.min_rto || c.max_rto == 0 {
            return Err((
                "max_rto".into(),
                format!(
                    "must be > 0 and >= min_rto ({} s), got {} s",
                    crate::engine::secs(c.min_rto),
                    crate::engine::secs(c.max_rto)
                ),
            ));
        }
        if let Some(v) = o.delayed_ack {
            c.delayed_ack = v;
        }
        if let Some(v) = o.delack_count {
            if v == 0 {
                return Err(("delack_count".into(), "must be >= 1, got 0".into()));
            }
            c.delack_count = v;
        }
        if let Some(v) = o.delack_timeout {
            c.delack_timeout = v.ns();
        }
        if let Some(v) = o.sack {
            c.sack = v;
        }
        if let Some(v) = o.timestamps {
            c.timestamps = v;
        }
        if let Some(v) = o.ecn {
            c.ecn = v;
        }
        if let Some(v) = o.dda_delay {
            if v.ns() == 0 {
                return Err(("dda_delay".into(), "must be > 0".into()));
            }
            c.dda_delay = Some(v.ns());
        }
        if let Some(v) = o.handshake {
            c.handshake = v;
        }
        if let Some(v) = o.dupack_threshold {
            if v == 0 {
                return Err(("dupack_threshold".into(), "must be >= 1, got 0".into()));
            }
            c.dupack_threshold = v;
        }
        Ok(c)
    }
}
