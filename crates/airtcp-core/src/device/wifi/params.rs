//! The MAC and PHY constants of one 802.11 medium and the frame durations they give.

use super::ratectl::RateControl;
use crate::engine::{tx_time, Time};
use crate::phy::WifiMode;

/// How a receiver decides that a frame it sensed was decoded (docs/mac.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reception {
    /// The frame's power is at least the capture ratio times the noise plus the sum of every
    /// signal that overlapped any part of it (airtcp's first rule, kept for comparison).
    Summed,
    /// ns-2's Mac/802_11 and WirelessPhy: lock onto the first frame sensed; a later arrival
    /// corrupts it unless the locked frame is at least the capture ratio stronger than that
    /// arrival; below the receive threshold a frame is sensed only.
    Ns2,
    /// ns-3's InterferenceHelper: piecewise-constant SINR over the frame, each piece's success
    /// probability from the error-rate curve of its mode, one draw per frame; preamble
    /// detection by an SNR threshold.
    Sinr,
}

/// MAC and PHY constants of one medium.
#[derive(Clone, Debug)]
pub struct WifiParams {
    /// Rate of data frames (the payload part after the PLCP preamble and header).
    pub data_rate: u64,
    /// Rate of RTS and CTS frames.
    pub basic_rate: u64,
    /// Rate of ACK frames.
    pub ack_rate: u64,
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
    /// Weakest signal a station still receives as interference (the carrier-sense threshold
    /// unless the `sinr` reception counts weaker ones).
    pub interference_floor_w: f64,
    /// Minimum signal-to-interference-plus-noise ratio (linear) for a frame to survive.
    pub capture_ratio: f64,
    pub noise_w: f64,
    pub reception: Reception,
    /// Minimum SNR (linear) at a frame's start for its preamble to be detected (`sinr`).
    pub preamble_snr: f64,
    /// `sinr`: ns-3's energy-detection threshold (W). A sensed signal whose preamble a station
    /// cannot detect from its power alone (below the receive threshold, or too little SNR
    /// over the noise) holds the medium busy only at or above it; `None`: every sensed
    /// signal does.
    pub cca_ed_w: Option<f64>,
    /// Frames are OFDM: their payload fills whole 4 µs symbols (with 16 service and 6 tail
    /// bits), as 802.11a/g send them.
    pub ofdm: bool,
    /// Channel access as ns-3's DCF (`ChannelAccessManager`, `Txop`) does it: a backoff is
    /// drawn when a transmission ends, whether or not a packet waits, and counts down on the
    /// idle medium (post-backoff); a packet reaching an empty queue when that countdown is
    /// over and the medium is idle goes out after DIFS without a backoff (802.11-2016
    /// 10.3.4.2). `false`: ns-2's MAC, a fresh backoff for every packet.
    pub post_backoff: bool,
    /// How each station picks the rate of its data frames (constant: `data_rate`).
    pub rate_control: RateControl,
    /// The rates a manager picks from, ascending, `data_rate` the last.
    pub rates: Vec<u64>,
}

impl WifiParams {
    /// Does a sensed signal of `power` (W) hold the medium busy where it arrives? With an
    /// energy-detection threshold, only if its preamble could be detected from its power
    /// alone (ns-3's PHY then locks onto it and holds CCA busy) or its energy reaches the
    /// threshold (ns-3's CCA for a preamble it did not detect). What interference or another
    /// reception would hide at the signal's start is not considered: such a signal still holds
    /// the medium.
    pub fn holds_medium(&self, power: f64) -> bool {
        match self.cca_ed_w {
            None => true,
            Some(ed) => {
                power >= ed
                    || (power >= self.rx_threshold_w && power >= self.preamble_snr * self.noise_w)
            }
        }
    }

    /// Time on air of a frame of `bytes` (MAC header and FCS included) at `rate`.
    pub fn air_time(&self, bytes: u32, rate: u64) -> Time {
        if self.ofdm {
            let bits = 16 + 8 * bytes as u64 + 6;
            // Data bits per 4 µs symbol.
            let per_symbol = (rate * 4 / 1_000_000).max(1);
            self.plcp + bits.div_ceil(per_symbol) * 4_000
        } else {
            self.plcp + tx_time(bytes as u64, rate)
        }
    }
    pub fn control_time(&self, bytes: u32) -> Time {
        self.air_time(bytes, self.basic_rate)
    }
    pub fn data_time(&self, packet_bytes: u32) -> Time {
        self.air_time(packet_bytes + self.mac_overhead, self.data_rate)
    }
    pub fn ack_time(&self) -> Time {
        self.air_time(self.ack_bytes, self.ack_rate)
    }
    /// Time on air of a data frame carrying `packet_bytes` at `rate`.
    pub fn data_time_at(&self, packet_bytes: u32, rate: u64) -> Time {
        self.air_time(packet_bytes + self.mac_overhead, rate)
    }
    /// Rate of the ACK to a data frame sent at `rate`: the medium's ACK rate, or under rate
    /// control no faster than the data frame (for OFDM the fastest mandatory rate, 6, 12 or
    /// 24 Mbit/s, not above it), so a frame that got through at a low rate is answered at
    /// one that gets back too.
    pub fn response_rate(&self, rate: u64) -> u64 {
        if self.rate_control.is_constant() {
            return self.ack_rate;
        }
        let r = self.ack_rate.min(rate);
        if self.ofdm {
            [24_000_000, 12_000_000, 6_000_000]
                .into_iter()
                .find(|&m| m <= r)
                .unwrap_or(6_000_000)
        } else {
            r
        }
    }
    /// Time on air of the ACK to a data frame sent at `rate`.
    pub fn ack_time_for(&self, rate: u64) -> Time {
        self.air_time(self.ack_bytes, self.response_rate(rate))
    }
    /// The mode a rate is sent in (the `sinr` reception needs one for every frame rate; the
    /// builder checks).
    pub fn mode(&self, rate: u64) -> WifiMode {
        WifiMode::from_rate(rate).expect("an 802.11 rate")
    }
    pub fn cts_time(&self) -> Time {
        self.control_time(self.cts_bytes)
    }
    pub fn rts_time(&self) -> Time {
        self.control_time(self.rts_bytes)
    }
    /// EIFS = SIFS + ACK at the basic rate + DIFS (802.11-2016, 10.3.2.3.7).
    pub fn eifs(&self) -> Time {
        self.sifs + self.control_time(self.ack_bytes) + self.difs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(cca_ed_w: Option<f64>) -> WifiParams {
        WifiParams {
            data_rate: 2_000_000,
            basic_rate: 1_000_000,
            ack_rate: 2_000_000,
            slot: 20_000,
            sifs: 10_000,
            difs: 50_000,
            plcp: 192_000,
            cw_min: 31,
            cw_max: 1023,
            rts_threshold: 0,
            short_retry_limit: 7,
            long_retry_limit: 7,
            mac_overhead: 36,
            rts_bytes: 20,
            cts_bytes: 14,
            ack_bytes: 14,
            rx_threshold_w: 1e-10,
            cs_threshold_w: 1e-12,
            interference_floor_w: 1e-12,
            capture_ratio: 10.0,
            noise_w: 1e-13,
            reception: Reception::Sinr,
            preamble_snr: 10f64.powf(0.4),
            cca_ed_w,
            ofdm: false,
            post_backoff: false,
            rate_control: RateControl::Constant,
            rates: vec![2_000_000],
        }
    }

    #[test]
    fn an_undetectable_preamble_holds_the_medium_only_from_the_energy_threshold() {
        // Without a threshold every sensed signal holds the medium.
        assert!(params(None).holds_medium(2e-12));
        let p = params(Some(1e-9));
        // Below the receive threshold and the energy threshold: idle (ns-3: preamble not
        // detected, energy under CcaEdThreshold).
        assert!(!p.holds_medium(5e-11));
        // At the energy threshold: busy, detectable or not.
        assert!(p.holds_medium(1e-9));
        // At the receive threshold with enough SNR: its preamble is detected, so busy.
        assert!(p.holds_medium(1e-10));
        // At the receive threshold but under the preamble SNR over the noise: idle.
        let mut noisy = params(Some(1e-9));
        noisy.noise_w = 5e-11;
        assert!(!noisy.holds_medium(1e-10));
    }
}
