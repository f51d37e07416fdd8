//! Radio propagation: the power a receiver gets from a transmitter at a distance. Free space
//! (Friis), two-ray ground reflection as ns-2 uses it (Friis up to the crossover distance
//! 4π·ht·hr/λ, then Pt·Gt·Gr·ht²·hr²/(d⁴·L)) and log-distance path loss; optional log-normal
//! shadowing fixed per node pair. Powers are in watts.

use crate::engine::{Rng, Time, SEC};

/// Speed of light, m/s.
pub const C: f64 = 299_792_458.0;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Propagation {
    FreeSpace,
    TwoRayGround,
    /// Friis at `reference` metres, then `exponent`·10 dB per decade.
    LogDistance {
        exponent: f64,
        reference: f64,
    },
}

/// What decides the received power: the model and the radio's constants.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RadioModel {
    pub propagation: Propagation,
    pub tx_power_w: f64,
    pub frequency_hz: f64,
    /// Antenna height of every node, metres (two-ray ground).
    pub antenna_height: f64,
    /// Antenna gains (linear) and system loss L ≥ 1.
    pub gain_tx: f64,
    pub gain_rx: f64,
    pub system_loss: f64,
}

impl RadioModel {
    #[inline]
    pub fn wavelength(&self) -> f64 {
        C / self.frequency_hz
    }

    #[inline]
    fn friis(&self, d: f64) -> f64 {
        let l = self.wavelength();
        let den = (4.0 * std::f64::consts::PI * d).powi(2) * self.system_loss;
        self.tx_power_w * self.gain_tx * self.gain_rx * l * l / den
    }

    /// Received power (W) at distance `d` metres, before shadowing.
    #[inline]
    pub fn rx_power(&self, d: f64) -> f64 {
        // Closer than a wavelength the far-field formulas blow up; hold the power there.
        let d = d.max(self.wavelength());
        match self.propagation {
            Propagation::FreeSpace => self.friis(d),
            Propagation::TwoRayGround => {
                let h = self.antenna_height;
                let crossover = 4.0 * std::f64::consts::PI * h * h / self.wavelength();
                if d < crossover {
                    self.friis(d)
                } else {
                    self.tx_power_w * self.gain_tx * self.gain_rx * h.powi(4)
                        / (d.powi(4) * self.system_loss)
                }
            }
            Propagation::LogDistance {
                exponent,
                reference,
            } => {
                let p0 = self.friis(reference);
                if d <= reference {
                    p0
                } else {
                    p0 * (reference / d).powf(exponent)
                }
            }
        }
    }

    /// The distance at which the received power falls to `p` watts (bisection: every model
    /// is non-increasing in distance). Used to turn a range into a threshold and back.
    pub fn range_for(&self, p: f64) -> f64 {
        let (mut lo, mut hi) = (self.wavelength(), 1.0);
        while self.rx_power(hi) > p && hi < 1e9 {
            hi *= 2.0;
        }
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if self.rx_power(mid) > p {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    }
}

pub fn dbm_to_w(dbm: f64) -> f64 {
    10f64.powf((dbm - 30.0) / 10.0)
}

pub fn w_to_dbm(w: f64) -> f64 {
    10.0 * w.log10() + 30.0
}

/// Distance between two points in the plane.
#[inline]
pub fn distance(a: [f64; 2], b: [f64; 2]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

/// Propagation delay over `d` metres.
#[inline]
pub fn prop_delay(d: f64) -> Time {
    round_ns(d / C * SEC as f64)
}

/// `x.round() as Time` (half away from zero, saturating), without the library call `round`
/// is on x86-64 without SSE4.1: the truncation is one instruction, and `x - t` is exact (both
/// lie within one of each other, or `x` is already an integer).
#[inline]
fn round_ns(x: f64) -> Time {
    let t = x as Time;
    if x - t as f64 >= 0.5 {
        t.saturating_add(1)
    } else {
        t
    }
}

/// A normal draw (Box–Muller), for shadowing.
pub fn normal(rng: &mut Rng) -> f64 {
    let u1 = rng.uniform().max(f64::MIN_POSITIVE);
    let u2 = rng.uniform();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns2() -> RadioModel {
        RadioModel {
            propagation: Propagation::TwoRayGround,
            tx_power_w: 0.281_838_15,
            frequency_hz: 914e6,
            antenna_height: 1.5,
            gain_tx: 1.0,
            gain_rx: 1.0,
            system_loss: 1.0,
        }
    }

    #[test]
    fn ns2_thresholds_give_250_and_550_metres() {
        // ns-2's RXThresh_ and CSThresh_ defaults are the two-ray ground powers at 250 m and
        // 550 m for its default radio.
        let m = ns2();
        assert!((m.rx_power(250.0) / 3.652e-10 - 1.0).abs() < 1e-3);
        assert!((m.rx_power(550.0) / 1.559e-11 - 1.0).abs() < 1e-3);
        assert!((m.range_for(3.652e-10) - 250.0).abs() < 0.1);
        assert!((m.range_for(1.559e-11) - 550.0).abs() < 0.1);
    }

    #[test]
    fn two_ray_is_friis_below_crossover_and_fourth_power_above() {
        let m = ns2();
        let dc = 4.0 * std::f64::consts::PI * 1.5 * 1.5 / m.wavelength();
        assert!((dc - 86.14).abs() < 0.1, "crossover {dc}");
        let fs = RadioModel {
            propagation: Propagation::FreeSpace,
            ..m
        };
        assert_eq!(m.rx_power(50.0), fs.rx_power(50.0));
        // Doubling the distance above the crossover costs 12 dB.
        let r = m.rx_power(200.0) / m.rx_power(400.0);
        assert!((r - 16.0).abs() < 1e-9);
        // Free space: 6 dB per doubling.
        assert!((fs.rx_power(200.0) / fs.rx_power(400.0) - 4.0).abs() < 1e-9);
    }

    #[test]
    fn log_distance_slope() {
        let m = RadioModel {
            propagation: Propagation::LogDistance {
                exponent: 3.0,
                reference: 1.0,
            },
            ..ns2()
        };
        let db = w_to_dbm(m.rx_power(10.0)) - w_to_dbm(m.rx_power(100.0));
        assert!((db - 30.0).abs() < 1e-9);
        assert!((dbm_to_w(w_to_dbm(1e-9)) - 1e-9).abs() < 1e-20);
    }

    #[test]
    fn propagation_delay_is_distance_over_c() {
        assert_eq!(prop_delay(299.792_458), 1_000);
    }

    #[test]
    fn rounding_to_nanoseconds_is_the_library_round() {
        let mut rng = Rng::new(5);
        let mut xs = vec![
            0.0,
            0.5,
            1.5,
            2.5,
            0.499_999_999_999_999_94,
            4503599627370495.5,
        ];
        xs.extend([
            f64::NAN,
            -0.7,
            -3.0,
            f64::INFINITY,
            1e30,
            2f64.powi(52),
            2f64.powi(63),
        ]);
        for _ in 0..100_000 {
            let u = rng.uniform();
            // Integers and halves, and numbers of every size up to 2^60.
            xs.push((u * 4096.0).floor() * 0.5);
            xs.push(u * 2f64.powf(60.0 * rng.uniform()));
        }
        for x in xs {
            assert_eq!(round_ns(x), x.round() as Time, "{x}");
        }
    }
}
