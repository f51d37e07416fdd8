//! The MAC and PHY constants of one 802.11 medium and the frame durations they give.

use crate::engine::{tx_time, Time};

/// MAC and PHY constants of one medium.
#[derive(Clone, Debug)]
pub struct WifiParams {
    /// Rate of data frames (the payload part after the PLCP preamble and header).
    pub data_rate: u64,
    /// Rate of control frames (RTS, CTS, ACK).
    pub basic_rate: u64,
    pub slot: Time,
    pub sifs: Time,
    pub difs: Time,
    /// PLCP preamble and header, sent before every frame.
    pub plcp: Time,
    pub cw_min: u32,
    pub cw_max: u32,
    /// Data frames whose packet is larger than this (bytes) are preceded by RTS/CTS.
    pub rts_threshold: u32,
    pub short_retry_limit: u8,
    pub long_retry_limit: u8,
    /// MAC header and FCS added to each packet.
    pub mac_overhead: u32,
    pub rts_bytes: u32,
    pub cts_bytes: u32,
    pub ack_bytes: u32,
    pub rx_threshold_w: f64,
    pub cs_threshold_w: f64,
    /// Minimum signal-to-interference-plus-noise ratio (linear) for a frame to survive.
    pub capture_ratio: f64,
    pub noise_w: f64,
}

impl WifiParams {
    pub fn control_time(&self, bytes: u32) -> Time {
        self.plcp + tx_time(bytes as u64, self.basic_rate)
    }
    pub fn data_time(&self, packet_bytes: u32) -> Time {
        self.plcp + tx_time((packet_bytes + self.mac_overhead) as u64, self.data_rate)
    }
    pub fn ack_time(&self) -> Time {
        self.control_time(self.ack_bytes)
    }
    pub fn cts_time(&self) -> Time {
        self.control_time(self.cts_bytes)
    }
    pub fn rts_time(&self) -> Time {
        self.control_time(self.rts_bytes)
    }
    /// EIFS = SIFS + ACK at the basic rate + DIFS (802.11-2016, 10.3.2.3.7).
    pub fn eifs(&self) -> Time {
        self.sifs + self.ack_time() + self.difs
    }
}
