//! Per-station data-rate selection (rate adaptation), one state per peer station.
//!
//! A manager sees only what a station knows: whether each of its data frames to a peer was
//! acknowledged, and the SNR of the frames it decoded from that peer. It never sees why a
//! frame failed.
//!
//! - `Constant`: the medium's `rate` for every frame.
//! - ARF (Kamerman & Monteban, "WaveLAN-II: a high-performance wireless LAN for the
//!   unlicensed band", Bell Labs Technical Journal 1997): two consecutive failures drop one
//!   rate; ten consecutive successes, or the timer (counted in transmissions, 15, as ns-3's
//!   `ArfWifiManager` counts it), raise one rate, and the first frame at the new rate is a
//!   probe: if it fails the rate drops back at once.
//! - AARF (Lacage, Manshaei & Turletti, "IEEE 802.11 rate adaptation: a practical approach",
//!   MSWiM 2004): ARF whose success threshold (and timer) doubles, up to 50, each time a probe
//!   fails, and returns to 10 (and 15) when the rate drops after two failures.
//! - Ideal (ns-3's `IdealWifiManager`): the highest rate whose bit error rate at the last SNR
//!   observed from the peer is at most a target (1e-6), from the error-rate curves of
//!   [`crate::phy::WifiMode`]; the lowest rate before any frame was decoded from the peer.
//!   ns-3 reads the SNR the receiver measured on the data frame (a simulator shortcut); here
//!   the station uses the SNR of the peer's own frames (CTS, ACK, data), as a real station
//!   could, on a channel that is the same both ways.

use super::minstrel::{Minstrel, MinstrelRates};
use crate::engine::{Rng, Time};
use crate::phy::WifiMode;

/// Which manager, with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum RateControl {
    Constant,
    Arf {
        success: u32,
        timer: u32,
    },
    Aarf {
        min_success: u32,
        max_success: u32,
        min_timer: u32,
    },
    /// `thresholds[k]`: the SNR (linear) rate k needs for the target bit error rate.
    Ideal {
        thresholds: Vec<f64>,
    },
    /// Minstrel (`device/wifi/minstrel.rs`).
    Minstrel(MinstrelRates),
}

impl RateControl {
    pub fn arf() -> RateControl {
        RateControl::Arf {
            success: 10,
            timer: 15,
        }
    }
    pub fn aarf() -> RateControl {
        RateControl::Aarf {
            min_success: 10,
            max_success: 50,
            min_timer: 15,
        }
    }
    /// Ideal over `rates` (ascending) for a target bit error rate.
    pub fn ideal(rates: &[u64], ber: f64) -> RateControl {
        let thresholds = rates
            .iter()
            .map(|&r| snr_for_ber(WifiMode::from_rate(r).expect("an 802.11 rate"), ber))
            .collect();
        RateControl::Ideal { thresholds }
    }
    pub fn is_constant(&self) -> bool {
        matches!(self, RateControl::Constant)
    }
}

/// The SNR (linear) at which one bit sent in `mode` is wrong with probability `ber`
/// (bisection on the monotone curve, in dB from -30 to 60).
pub fn snr_for_ber(mode: WifiMode, ber: f64) -> f64 {
    let (mut lo, mut hi) = (-30.0f64, 60.0f64);
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        let p = 1.0 - mode.chunk_success(10f64.powf(mid / 10.0), 1.0);
        if p > ber {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    10f64.powf(hi / 10.0)
}

/// The state a station keeps for one peer.
#[derive(Clone, Debug, Default)]
pub struct PeerRate {
    /// Index of the current rate in the medium's rate set.
    pub rate: usize,
    success: u32,
    failed: u32,
    /// Transmissions since the rate last changed (ARF's timer).
    timer: u32,
    /// The last rate change was up and no frame at it has succeeded yet.
    probing: bool,
    success_threshold: u32,
    timer_threshold: u32,
    /// SNR (linear) of the last frame decoded from the peer (Ideal).
    snr: Option<f64>,
    minstrel: Option<Box<Minstrel>>,
}

impl PeerRate {
    pub fn new(rc: &RateControl, top: usize) -> PeerRate {
        let (s, t) = match *rc {
            RateControl::Arf { success, timer } => (success, timer),
            RateControl::Aarf {
                min_success,
                min_timer,
                ..
            } => (min_success, min_timer),
            _ => (0, 0),
        };
        PeerRate {
            // Constant sends at the top rate; ARF and AARF start at the lowest rate and climb
            // (the papers leave the start open); Ideal starts there until it has an SNR.
            rate: if rc.is_constant() { top } else { 0 },
            success_threshold: s,
            timer_threshold: t,
            minstrel: match rc {
                RateControl::Minstrel(r) => Some(Box::new(Minstrel::new(r))),
                _ => None,
            },
            ..PeerRate::default()
        }
    }

    /// The rate index for the next data attempt to this peer: `first` if a new frame's, at
    /// `now`, drawing from the station's stream `rng` (Minstrel's lookaround).
    pub fn pick_at(
        &mut self,
        rc: &RateControl,
        top: usize,
        now: Time,
        first: bool,
        rng: &mut Rng,
    ) -> usize {
        match (rc, self.minstrel.as_mut()) {
            (RateControl::Minstrel(r), Some(m)) => m.pick(r, now, first, rng).min(top),
            _ => self.pick(rc, top),
        }
    }

    /// The rate index for the next data frame to this peer.
    pub fn pick(&self, rc: &RateControl, top: usize) -> usize {
        match rc {
            RateControl::Ideal { thresholds } => match self.snr {
                None => 0,
                Some(snr) => (0..=top).rev().find(|&k| snr >= thresholds[k]).unwrap_or(0),
            },
            _ => self.rate.min(top),
        }
    }

    /// The peer acknowledged a data frame.
    pub fn on_success(&mut self, rc: &RateControl, top: usize) {
        if let Some(m) = self.minstrel.as_mut() {
            m.on_result(true);
        }
        if !matches!(rc, RateControl::Arf { .. } | RateControl::Aarf { .. }) {
            return;
        }
        self.timer += 1;
        self.success += 1;
        self.failed = 0;
        self.probing = false;
        if (self.success >= self.success_threshold || self.timer >= self.timer_threshold)
            && self.rate < top
        {
            self.rate += 1;
            self.success = 0;
            self.timer = 0;
            self.probing = true;
        }
    }

    /// A data frame to the peer went unacknowledged.
    pub fn on_failure(&mut self, rc: &RateControl) {
        if let Some(m) = self.minstrel.as_mut() {
            m.on_result(false);
        }
        let (min_s, max_s, min_t) = match *rc {
            RateControl::Arf { success, timer } => (success, success, timer),
            RateControl::Aarf {
                min_success,
                max_success,
                min_timer,
            } => (min_success, max_success, min_timer),
            _ => return,
        };
        let aarf = matches!(rc, RateControl::Aarf { .. });
        self.timer += 1;
        self.success = 0;
        self.failed += 1;
        if self.probing {
            // The probe failed: back to the rate that worked, at once.
            self.probing = false;
            self.rate = self.rate.saturating_sub(1);
            self.failed = 0;
            self.timer = 0;
            if aarf {
                self.success_threshold = (2 * self.success_threshold).min(max_s);
                self.timer_threshold *= 2;
            }
        } else if self.failed >= 2 {
            self.rate = self.rate.saturating_sub(1);
            self.failed = 0;
            self.timer = 0;
            self.success_threshold = min_s;
            self.timer_threshold = min_t;
        }
    }

    /// A frame from the peer was decoded at this SNR (linear).
    pub fn on_snr(&mut self, snr: f64) {
        self.snr = Some(snr);
    }

    #[cfg(test)]
    fn thresholds(&self) -> (u32, u32) {
        (self.success_threshold, self.timer_threshold)
    }
}

/// The 802.11 rates a manager may choose from: the standard's set (DSSS/CCK 1-11 Mbit/s, or
/// OFDM 6-54 Mbit/s) up to and including the medium's `rate`.
pub fn rate_set(ofdm: bool, max: u64) -> Vec<u64> {
    let all: &[u64] = if ofdm {
        &[6, 9, 12, 18, 24, 36, 48, 54]
    } else {
        &[1, 2, 5, 11]
    };
    all.iter()
        .map(|&m| if m == 5 { 5_500_000 } else { m * 1_000_000 })
        .filter(|&r| r <= max)
        .collect()
}

/// The `macs` column that counts data frames sent at `rate`.
pub fn rate_column(rate: u64) -> &'static str {
    match rate {
        1_000_000 => "data_frames_1mbps",
        2_000_000 => "data_frames_2mbps",
        5_500_000 => "data_frames_5_5mbps",
        11_000_000 => "data_frames_11mbps",
        6_000_000 => "data_frames_6mbps",
        9_000_000 => "data_frames_9mbps",
        12_000_000 => "data_frames_12mbps",
        18_000_000 => "data_frames_18mbps",
        24_000_000 => "data_frames_24mbps",
        36_000_000 => "data_frames_36mbps",
        48_000_000 => "data_frames_48mbps",
        54_000_000 => "data_frames_54mbps",
        _ => "data_frames_other_rate",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::Modulation;

    const TOP: usize = 3;

    #[test]
    fn arf_rises_after_ten_successes_and_falls_after_two_failures() {
        let rc = RateControl::arf();
        let mut p = PeerRate::new(&rc, TOP);
        assert_eq!(p.rate, 0);
        for _ in 0..9 {
            p.on_success(&rc, TOP);
        }
        assert_eq!(p.rate, 0, "nine successes are not enough");
        p.on_success(&rc, TOP);
        assert_eq!(p.rate, 1, "the tenth raises the rate");
        // The first frame at the new rate succeeds: no longer a probe, so one failure keeps
        // the rate and the second consecutive one drops it.
        p.on_success(&rc, TOP);
        p.on_failure(&rc);
        assert_eq!(p.rate, 1);
        p.on_failure(&rc);
        assert_eq!(p.rate, 0);
        // A success in between restarts the count of failures.
        for _ in 0..10 {
            p.on_success(&rc, TOP);
        }
        p.on_success(&rc, TOP);
        assert_eq!(p.rate, 1);
        p.on_failure(&rc);
        p.on_success(&rc, TOP);
        p.on_failure(&rc);
        assert_eq!(p.rate, 1);
    }

    #[test]
    fn arf_probe_failure_falls_back_at_once() {
        let rc = RateControl::arf();
        let mut p = PeerRate::new(&rc, TOP);
        for _ in 0..10 {
            p.on_success(&rc, TOP);
        }
        assert_eq!(p.rate, 1);
        p.on_failure(&rc);
        assert_eq!(p.rate, 0, "the probe at the new rate failed");
        // ARF keeps its threshold at 10.
        assert_eq!(p.thresholds(), (10, 15));
    }

    #[test]
    fn arf_timer_raises_the_rate_despite_failures() {
        // Alternating success and failure never reaches ten successes in a row nor two
        // failures in a row; the timer of 15 transmissions raises the rate.
        let rc = RateControl::arf();
        let mut p = PeerRate::new(&rc, TOP);
        let mut n = 0;
        while p.rate == 0 {
            p.on_success(&rc, TOP);
            n += 1;
            if p.rate == 0 {
                p.on_failure(&rc);
                n += 1;
            }
        }
        assert_eq!(n, 15);
    }

    #[test]
    fn arf_stays_within_the_rate_set() {
        let rc = RateControl::arf();
        let mut p = PeerRate::new(&rc, TOP);
        for _ in 0..200 {
            p.on_success(&rc, TOP);
        }
        assert_eq!(p.rate, TOP);
        for _ in 0..20 {
            p.on_failure(&rc);
        }
        assert_eq!(p.rate, 0);
    }

    #[test]
    fn aarf_doubles_its_threshold_on_failed_probes_up_to_fifty() {
        let rc = RateControl::aarf();
        let mut p = PeerRate::new(&rc, TOP);
        assert_eq!(p.thresholds(), (10, 15));
        let mut want = 10;
        for _ in 0..5 {
            // Climb with exactly the current threshold of successes, then fail the probe.
            let (s, _) = p.thresholds();
            for _ in 0..s - 1 {
                p.on_success(&rc, TOP);
                assert_eq!(p.rate, 0);
            }
            p.on_success(&rc, TOP);
            assert_eq!(p.rate, 1, "up after {s} successes");
            p.on_failure(&rc);
            assert_eq!(p.rate, 0);
            want = (2 * want).min(50);
            assert_eq!(p.thresholds().0, want);
        }
        assert_eq!(p.thresholds().0, 50);
        // Two failures in a row (not a probe) reset the thresholds to 10 and 15.
        for _ in 0..50 {
            p.on_success(&rc, TOP);
        }
        assert_eq!(p.rate, 1);
        p.on_success(&rc, TOP);
        p.on_failure(&rc);
        p.on_failure(&rc);
        assert_eq!(p.rate, 0);
        assert_eq!(p.thresholds(), (10, 15));
    }

    #[test]
    fn ideal_picks_the_fastest_rate_the_snr_allows() {
        let rates = rate_set(false, 11_000_000);
        assert_eq!(rates, [1_000_000, 2_000_000, 5_500_000, 11_000_000]);
        let rc = RateControl::ideal(&rates, 1e-6);
        let RateControl::Ideal { thresholds } = &rc else {
            unreachable!()
        };
        // Each rate needs more SNR than the one below it.
        assert!(thresholds.windows(2).all(|w| w[1] > w[0]), "{thresholds:?}");
        // DBPSK at BER 1e-6: 0.5·exp(−Eb/N0) with Eb/N0 = SNR·22 MHz/1 Mbit/s, so
        // SNR = ln(5e5)/22 (Proakis' DBPSK error rate).
        let want = (5e5f64).ln() / 22.0;
        assert!(
            (thresholds[0] / want - 1.0).abs() < 1e-3,
            "{}",
            thresholds[0]
        );
        let mut p = PeerRate::new(&rc, TOP);
        assert_eq!(p.pick(&rc, TOP), 0, "no SNR yet");
        p.on_snr(thresholds[2] * 1.01);
        assert_eq!(p.pick(&rc, TOP), 2);
        p.on_snr(thresholds[3] * 1.01);
        assert_eq!(p.pick(&rc, TOP), 3);
        assert_eq!(p.pick(&rc, 1), 1, "capped by the medium's rate");
        p.on_snr(thresholds[0] * 0.5);
        assert_eq!(p.pick(&rc, TOP), 0);
        // Successes and failures do not move it.
        p.on_failure(&rc);
        p.on_success(&rc, TOP);
        assert_eq!(p.pick(&rc, TOP), 0);
        // The threshold is where the curve crosses the target.
        let m = WifiMode::Dsss(Modulation::Cck11);
        let t = snr_for_ber(m, 1e-6);
        assert!(1.0 - m.chunk_success(t, 1.0) <= 1e-6);
        assert!(1.0 - m.chunk_success(t * 0.98, 1.0) > 1e-6);
    }

    #[test]
    fn rate_sets() {
        assert_eq!(rate_set(false, 2_000_000), [1_000_000, 2_000_000]);
        assert_eq!(rate_set(true, 54_000_000).len(), 8);
        assert_eq!(rate_column(5_500_000), "data_frames_5_5mbps");
    }
}
