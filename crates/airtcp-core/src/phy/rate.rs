//! 802.11 transmission modes and the probability that a stretch of a frame sent in one of them
//! survives a given signal-to-interference-plus-noise ratio (SINR).
//!
//! - DSSS 1 and 2 Mbit/s (DBPSK, DQPSK) and CCK 5.5 and 11 Mbit/s: bit or symbol error rates
//!   of [`crate::link::Modulation`] (Proakis; Ferrari & Corazza; Pursley & Royster), with
//!   Eb/N0 = SINR × 22 MHz / rate as ns-3's `DsssErrorRateModel` converts it.
//! - OFDM 6 to 54 Mbit/s (802.11a/g, ERP-OFDM): uncoded bit error rate of the constellation,
//!   BPSK: ½·erfc(√(Eb/N0)); M-QAM: [1 − (1 − (1 − 1/√M)·erfc(√(1.5·log2(M)·Eb/N0/(M−1))))²]
//!   / log2(M) (Proakis, eq. 5.2-79 per rail, Gray coding), with Eb/N0 = SINR × 20 MHz / the
//!   coded bit rate; then the first-event error probability of the rate-1/2 K = 7 convolutional
//!   code and its punctured rates under hard-decision Viterbi decoding, bounded by the first
//!   terms of its distance spectrum: P_u ≤ a_dfree·P_dfree + a_dfree+1·P_dfree+1, with P_d the
//!   probability that d code bits of which more than half are wrong are chosen (ties half)
//!   (Proakis, eq. 8.2-28). The (dfree, a_dfree, a_dfree+1) triples are the values ns-3's
//!   `YansErrorRateModel` takes from Haccoun & Bégin, "High-rate punctured convolutional codes
//!   for Viterbi and sequential decoding", IEEE Trans. Commun. 37(11), 1989: rate 1/2 (10, 11,
//!   0), 2/3 (6, 1, 16), 3/4 (5, 8, 31). A stretch of n bits survives with (1 − P_u)^n.
//!
//! The PLCP preamble and header of a frame go at their own mode: DSSS 1 Mbit/s (long
//! preamble, 192 µs) or OFDM 6 Mbit/s (20 µs); a stretch's bit count is its duration times its
//! mode's rate, as ns-3 counts it.

use crate::link::Modulation;

/// An 802.11 transmission mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WifiMode {
    Dsss(Modulation),
    /// OFDM at this many Mbit/s (6, 9, 12, 18, 24, 36, 48, 54).
    Ofdm(u8),
}

/// Constellation size, code rate (numerator, denominator) of each OFDM rate.
fn ofdm_params(mbps: u8) -> (u32, (u32, u32)) {
    match mbps {
        6 => (2, (1, 2)),
        9 => (2, (3, 4)),
        12 => (4, (1, 2)),
        18 => (4, (3, 4)),
        24 => (16, (1, 2)),
        36 => (16, (3, 4)),
        48 => (64, (2, 3)),
        54 => (64, (3, 4)),
        _ => unreachable!("not an OFDM rate: {mbps}"),
    }
}

const DSSS_BANDWIDTH_HZ: f64 = 22e6;
const OFDM_BANDWIDTH_HZ: f64 = 20e6;

impl WifiMode {
    /// The mode that sends at `bps`, if 802.11b/g has one.
    pub fn from_rate(bps: u64) -> Option<WifiMode> {
        Some(match bps {
            1_000_000 => WifiMode::Dsss(Modulation::Dsss1),
            2_000_000 => WifiMode::Dsss(Modulation::Dsss2),
            5_500_000 => WifiMode::Dsss(Modulation::Cck5_5),
            11_000_000 => WifiMode::Dsss(Modulation::Cck11),
            b if b % 1_000_000 == 0
                && [6, 9, 12, 18, 24, 36, 48, 54].contains(&(b / 1_000_000)) =>
            {
                WifiMode::Ofdm((b / 1_000_000) as u8)
            }
            _ => return None,
        })
    }

    pub fn is_ofdm(self) -> bool {
        matches!(self, WifiMode::Ofdm(_))
    }

    /// Data rate, bit/s.
    pub fn rate_bps(self) -> f64 {
        match self {
            WifiMode::Dsss(m) => m.bit_rate(),
            WifiMode::Ofdm(r) => r as f64 * 1e6,
        }
    }

    /// Bandwidth of the channel the mode occupies (thermal noise is counted over it).
    pub fn bandwidth_hz(self) -> f64 {
        if self.is_ofdm() {
            OFDM_BANDWIDTH_HZ
        } else {
            DSSS_BANDWIDTH_HZ
        }
    }

    /// The mode of the PLCP preamble and header in front of a frame sent in this mode.
    pub fn header_mode(self) -> WifiMode {
        if self.is_ofdm() {
            WifiMode::Ofdm(6)
        } else {
            WifiMode::Dsss(Modulation::Dsss1)
        }
    }

    /// The SINR (linear) from which [`Self::chunk_success`] is exactly 1.0 for any number
    /// of bits; infinite where no such bound is worked out (CCK, OFDM).
    pub fn certain_sinr(self) -> f64 {
        match self {
            WifiMode::Dsss(m) => dsss_certain_sinr(m),
            WifiMode::Ofdm(_) => f64::INFINITY,
        }
    }

    /// Probability that `bits` bits sent in this mode survive a (linear) SINR.
    pub fn chunk_success(self, sinr: f64, bits: f64) -> f64 {
        if bits <= 0.0 {
            return 1.0;
        }
        match self {
            WifiMode::Dsss(m) => {
                if sinr >= self.certain_sinr() {
                    // The full evaluation gives exactly 1.0 here; skipping it saves a log10,
                    // two powf and an exp (which underflows: a slow path) per stretch.
                    return 1.0;
                }
                dsss_success(m, sinr, bits)
            }
            WifiMode::Ofdm(r) => {
                let (m, (num, den)) = ofdm_params(r);
                let coded_rate = r as f64 * 1e6 * den as f64 / num as f64;
                let ebn0 = sinr * OFDM_BANDWIDTH_HZ / coded_rate;
                let ber = uncoded_ber(m, ebn0);
                if ber <= 0.0 {
                    return 1.0;
                }
                let (dfree, a1, a2) = match (num, den) {
                    (1, 2) => (10, 11.0, 0.0),
                    (2, 3) => (6, 1.0, 16.0),
                    _ => (5, 8.0, 31.0),
                };
                let pu = (a1 * pairwise(ber, dfree) + a2 * pairwise(ber, dfree + 1)).min(1.0);
                (1.0 - pu).powf(bits)
            }
        }
    }
}

/// `chunk_success` of a DSSS/CCK mode, evaluated in full.
fn dsss_success(m: Modulation, sinr: f64, bits: f64) -> f64 {
    let db = 10.0 * sinr.max(1e-30).log10();
    match m {
        Modulation::Dsss1 | Modulation::Dsss2 => (1.0 - m.ber(db)).powf(bits),
        // Symbol error rates: per symbol of 4 or 8 bits.
        _ => m.success_rate(db, 1).powf(bits / 8.0),
    }
}

/// The SINR (linear) from which a DBPSK or DQPSK stretch of any length survives with
/// probability exactly 1.0 in floating point: the bit error rate is below 2^-54 there, so
/// 1 − BER rounds to 1.0 and so does any power of it. DBPSK: ½·exp(−22·snr) ≤ 2^-54 from
/// snr = 1.67; DQPSK: x = 11·snr, 0.405·x^(−½)·exp(−0.586·x) ≤ 2^-54 from snr = 5.4. The
/// thresholds are set higher (the BER there is 6 and 60 times below 2^-54), far beyond the
/// last-place errors of the log10/powf round trip. CCK is not covered (its symbol error rate
/// has no closed form here).
fn dsss_certain_sinr(m: Modulation) -> f64 {
    match m {
        Modulation::Dsss1 => 1.75,
        Modulation::Dsss2 => 6.0,
        Modulation::Cck5_5 | Modulation::Cck11 => f64::INFINITY,
    }
}

/// Uncoded bit error rate of BPSK (m = 2) or square M-QAM at Eb/N0 (linear).
pub fn uncoded_ber(m: u32, ebn0: f64) -> f64 {
    use crate::link::modulation::erfc;
    if m == 2 {
        return 0.5 * erfc(ebn0.sqrt());
    }
    let k = (m as f64).log2();
    let z = (1.5 * k * ebn0 / (m as f64 - 1.0)).sqrt();
    let rail = (1.0 - 1.0 / (m as f64).sqrt()) * erfc(z);
    (1.0 - (1.0 - rail).powi(2)) / k
}

/// Probability that hard-decision Viterbi decoding prefers a wrong path at Hamming distance `d`
/// when code bits are wrong with probability `p`: more than d/2 of them wrong, half the ties.
pub fn pairwise(p: f64, d: u32) -> f64 {
    let binom = |k: u32| -> f64 {
        let mut c = 1.0;
        for j in 0..k {
            c = c * (d - j) as f64 / (j + 1) as f64;
        }
        c * p.powi(k as i32) * (1.0 - p).powi((d - k) as i32)
    };
    let mut s = 0.0;
    for k in (d / 2 + 1)..=d {
        s += binom(k);
    }
    if d.is_multiple_of(2) {
        s += 0.5 * binom(d / 2);
    }
    s
}

/// Thermal noise over `bandwidth_hz` at 290 K raised by a receiver's noise figure, watts.
pub fn thermal_noise_w(bandwidth_hz: f64, noise_figure_db: f64) -> f64 {
    const BOLTZMANN: f64 = 1.380_649e-23;
    BOLTZMANN * 290.0 * bandwidth_hz * 10f64.powf(noise_figure_db / 10.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db(x: f64) -> f64 {
        10f64.powf(x / 10.0)
    }

    /// The SNR (dB) at which a frame of `bytes` in `mode` has packet error rate `per`
    /// (bisection on the monotone curve).
    fn snr_at(mode: WifiMode, bytes: u32, per: f64) -> f64 {
        let (mut lo, mut hi) = (-20.0, 40.0);
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if 1.0 - mode.chunk_success(db(mid), 8.0 * bytes as f64) > per {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    }

    #[test]
    fn uncoded_ber_published_points() {
        // BPSK at Eb/N0 = 9.6 dB: 1e-5 (Sklar, Digital Communications, Fig. 4.26 / Q(4.265)).
        let b = uncoded_ber(2, db(9.59));
        assert!((b / 1e-5 - 1.0).abs() < 0.05, "{b}");
        // Gray 16-QAM at Eb/N0 = 10 dB: the argument is √(1.5·4·10/15) = 2, so the BER is
        // (1 − (1 − ¾·erfc 2)²)/4 = 1.751e-3 with erfc 2 = 4.678e-3 (A&S table 7.1).
        let q16 = uncoded_ber(16, db(10.0));
        assert!((q16 - 1.74e-3).abs() < 0.05e-3, "{q16}");
        // QPSK has the bit error rate of BPSK per Eb/N0 (to first order).
        let q4 = uncoded_ber(4, db(8.0));
        let b2 = uncoded_ber(2, db(8.0));
        assert!((q4 / b2 - 1.0).abs() < 1e-3, "{q4} vs {b2}");
    }

    #[test]
    fn pairwise_error_small_cases() {
        // d = 3: 3p²(1−p) + p³; d = 2: p(1−p) + p².
        let p: f64 = 0.1;
        assert!((pairwise(p, 3) - (3.0 * p * p * (1.0 - p) + p.powi(3))).abs() < 1e-15);
        assert!((pairwise(p, 2) - (0.5 * 2.0 * p * (1.0 - p) + p * p)).abs() < 1e-15);
    }

    #[test]
    fn ofdm_thresholds_rise_with_rate() {
        // The SNR a 1000-byte frame needs for 10% PER rises with every OFDM rate, from about
        // 1-3 dB at 6 Mbit/s to about 20-23 dB at 54 Mbit/s (ns-3's Yans curves, Pei &
        // Henderson, "Validation of OFDM error rate model in ns-3", 2010, Fig. 2).
        // 9 Mbit/s (BPSK 3/4) and 12 Mbit/s (QPSK 1/2) need about the same SNR in this model
        // (the weaker code offsets the denser constellation); every other step costs more.
        let mut last = f64::NEG_INFINITY;
        for r in [6, 9, 12, 18, 24, 36, 48, 54] {
            let s = snr_at(WifiMode::Ofdm(r), 1000, 0.1);
            let step = if r == 12 { -0.5 } else { 0.5 };
            assert!(s > last + step, "{r} Mbit/s at {s} dB after {last} dB");
            last = s;
        }
        // 802.11-2016 Table 17-18 sets the minimum sensitivity for 10% PER on 1000-byte frames
        // at -82 dBm for 6 Mbit/s and -65 dBm for 54 Mbit/s: 17 dB apart. The model's span is
        // within 3 dB of that.
        let s6 = snr_at(WifiMode::Ofdm(6), 1000, 0.1);
        let s54 = snr_at(WifiMode::Ofdm(54), 1000, 0.1);
        assert!((s54 - s6 - 17.0).abs() < 3.0, "6: {s6} dB, 54: {s54} dB");
    }

    #[test]
    fn dsss_thresholds_match_ns3_curves() {
        // 1000-byte frames at 10% PER: DBPSK where 0.5·exp(−22·snr) = 1 − 0.9^(1/8000)
        // (about -1 dB over 22 MHz); DQPSK, with half the Eb/N0 per bit and a weaker
        // detector, 2-5 dB more.
        let s1 = snr_at(WifiMode::Dsss(Modulation::Dsss1), 1000, 0.1);
        let s2 = snr_at(WifiMode::Dsss(Modulation::Dsss2), 1000, 0.1);
        // Closed form for DBPSK: 0.5·exp(−22·snr) = 1 − 0.9^(1/8000).
        let want1 = 10.0 * ((-(2.0 * (1.0 - 0.9f64.powf(1.0 / 8000.0))).ln()) / 22.0).log10();
        assert!((s1 - want1).abs() < 0.01, "{s1} vs {want1}");
        assert!(s2 > s1 + 2.0 && s2 < s1 + 5.0, "{s1} {s2}");
    }

    #[test]
    fn short_frames_fail_less_than_long_ones() {
        // An ACK (14 bytes) and a 1500-byte data frame at the SINR that loses half the data
        // frames: the ACK almost always survives.
        for mode in [
            WifiMode::Dsss(Modulation::Dsss2),
            WifiMode::Dsss(Modulation::Cck11),
            WifiMode::Ofdm(24),
        ] {
            let s = snr_at(mode, 1500, 0.5);
            let ack = 1.0 - mode.chunk_success(db(s), 8.0 * 14.0);
            assert!(ack < 0.02, "{mode:?}: ACK PER {ack} at {s} dB");
        }
    }

    #[test]
    fn dsss_shortcut_is_the_full_evaluation() {
        // From the shortcut's threshold up, the full evaluation is exactly 1.0 for any stretch
        // (log-spaced SINRs up to 150 dB, 1 bit to a megabit): the shortcut changes no result.
        for m in [Modulation::Dsss1, Modulation::Dsss2] {
            let t = dsss_certain_sinr(m);
            for k in 0..20_000 {
                let sinr = t * 10f64.powf(k as f64 * 7.5e-4);
                for bits in [1.0, 8.0, 192.0, 1e4, 1.2e4, 1e6] {
                    assert_eq!(dsss_success(m, sinr, bits), 1.0, "{m:?} {sinr} {bits}");
                    let mode = WifiMode::Dsss(m);
                    assert_eq!(mode.chunk_success(sinr, bits), 1.0);
                }
            }
            // Below it the curve still matters: a long frame just under the threshold is not
            // certain at 1 Mbit/s below 1.67 or at 2 Mbit/s below 5.4.
            let below = if m == Modulation::Dsss1 { 1.6 } else { 5.0 };
            assert!(dsss_success(m, below, 1e4) < 1.0);
            assert_eq!(
                WifiMode::Dsss(m).chunk_success(below, 1e4),
                dsss_success(m, below, 1e4)
            );
        }
        // CCK and OFDM are never shortcut.
        assert_eq!(
            WifiMode::Dsss(Modulation::Cck11).certain_sinr(),
            f64::INFINITY
        );
        assert_eq!(WifiMode::Ofdm(6).certain_sinr(), f64::INFINITY);
    }

    #[test]
    fn modes_by_rate() {
        assert_eq!(
            WifiMode::from_rate(2_000_000),
            Some(WifiMode::Dsss(Modulation::Dsss2))
        );
        assert_eq!(WifiMode::from_rate(54_000_000), Some(WifiMode::Ofdm(54)));
        assert_eq!(WifiMode::from_rate(3_000_000), None);
        assert_eq!(WifiMode::Ofdm(54).header_mode(), WifiMode::Ofdm(6));
        // kTB at 290 K over 22 MHz: -100.6 dBm; a 7 dB noise figure makes it -93.6 dBm.
        let n = thermal_noise_w(22e6, 7.0);
        assert!((10.0 * n.log10() + 30.0 + 93.56).abs() < 0.02);
    }
}
