//! SNR time series for SNR-driven channels: read from a CSV trace, given inline, or
//! synthesized from a seed (log-distance path loss along a mobility path, log-normal
//! shadowing, Rayleigh or Rician fading).

use crate::engine::{Rng, Time, SEC};
use serde::{Deserialize, Serialize};

/// SNR samples (dB) at a fixed interval from t = 0; held constant between samples.
#[derive(Clone, Debug)]
pub struct SnrSeries {
    pub interval: Time,
    pub samples_db: Vec<f64>,
}

impl SnrSeries {
    /// SNR in dB at time `t` (the last sample holds after the series ends).
    pub fn at(&self, t: Time) -> f64 {
        let i = (t / self.interval.max(1)) as usize;
        self.samples_db[i.min(self.samples_db.len() - 1)]
    }

    /// Parse a trace: one SNR value (dB) per line, or `time,snr` pairs whose times must be
    /// spaced by the interval. Lines starting with '#' and a header line are skipped.
    pub fn parse_csv(text: &str, interval: Time) -> Result<SnrSeries, String> {
        let mut samples = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let field = line.split(',').map(str::trim).next_back().unwrap_or("");
            match field.parse::<f64>() {
                Ok(v) if v.is_finite() => samples.push(v),
                _ if samples.is_empty() && n == 0 => continue, // header
                // The line itself is not echoed: errors end up in stores and reports.
                _ => {
                    return Err(format!(
                        "line {}: no SNR value (a number of dB, or time,dB)",
                        n + 1
                    ))
                }
            }
        }
        if samples.is_empty() {
            return Err("the trace holds no samples".into());
        }
        Ok(SnrSeries {
            interval,
            samples_db: samples,
        })
    }

    /// The series as CSV text (`time_s,snr_db`), which `parse_csv` reads back.
    pub fn to_csv(&self) -> String {
        let mut out = String::from("time_s,snr_db\n");
        for (i, v) in self.samples_db.iter().enumerate() {
            let t = i as f64 * self.interval as f64 / SEC as f64;
            out += &format!("{t},{v}\n");
        }
        out
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fading {
    None,
    #[default]
    Rayleigh,
    Rician,
}

/// Parameters of a synthesized SNR trace.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SnrSynth {
    /// Transmit power (dBm).
    #[serde(default = "d_tx")]
    pub tx_power_dbm: f64,
    /// Noise floor (dBm).
    #[serde(default = "d_noise")]
    pub noise_dbm: f64,
    /// Path loss at the 1 m reference distance (dB).
    #[serde(default = "d_pl0")]
    pub ref_loss_db: f64,
    /// Log-distance path-loss exponent.
    #[serde(default = "d_exp")]
    pub path_loss_exponent: f64,
    /// Mobility path: [time s, distance m] waypoints, linearly interpolated.
    pub waypoints: Vec<[f64; 2]>,
    /// Log-normal shadowing standard deviation (dB).
    #[serde(default = "d_shadow")]
    pub shadowing_db: f64,
    /// Correlation of shadowing between consecutive samples (AR(1) coefficient).
    #[serde(default = "d_corr")]
    pub shadowing_corr: f64,
    #[serde(default)]
    pub fading: Fading,
    /// Rician K factor (linear), for `fading = "rician"`.
    #[serde(default = "d_k")]
    pub rician_k: f64,
}

fn d_tx() -> f64 {
    15.0
}
fn d_noise() -> f64 {
    -93.0
}
fn d_pl0() -> f64 {
    40.0
}
fn d_exp() -> f64 {
    3.0
}
fn d_shadow() -> f64 {
    4.0
}
fn d_corr() -> f64 {
    0.9
}
fn d_k() -> f64 {
    6.0
}

/// Standard normal draw (Box–Muller).
fn normal(rng: &mut Rng) -> f64 {
    let u1 = 1.0 - rng.uniform();
    let u2 = rng.uniform();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

impl SnrSynth {
    pub fn check(&self) -> Result<(), (String, String)> {
        if self.waypoints.is_empty() {
            return Err((
                "waypoints".into(),
                "needs at least one [time, distance] point".into(),
            ));
        }
        for (i, w) in self.waypoints.iter().enumerate() {
            if w[1] <= 0.0 || !w[1].is_finite() || !w[0].is_finite() {
                return Err((
                    format!("waypoints[{i}]"),
                    format!("distance must be > 0 m and time finite, got {w:?}"),
                ));
            }
            if i > 0 && w[0] <= self.waypoints[i - 1][0] {
                return Err((format!("waypoints[{i}]"), "times must increase".into()));
            }
        }
        if !(0.0..1.0).contains(&self.shadowing_corr) {
            return Err((
                "shadowing_corr".into(),
                format!("must be in [0, 1), got {}", self.shadowing_corr),
            ));
        }
        if self.shadowing_db < 0.0 || self.rician_k < 0.0 {
            return Err(("shadowing_db".into(), "must be >= 0".into()));
        }
        Ok(())
    }

    fn distance(&self, t: f64) -> f64 {
        let w = &self.waypoints;
        if t <= w[0][0] {
            return w[0][1];
        }
        for pair in w.windows(2) {
            let ([t0, d0], [t1, d1]) = (pair[0], pair[1]);
            if t <= t1 {
                return d0 + (d1 - d0) * (t - t0) / (t1 - t0);
            }
        }
        w[w.len() - 1][1]
    }

    /// Mean SNR (dB) at distance `d`, without shadowing or fading.
    pub fn mean_snr_db(&self, d: f64) -> f64 {
        self.tx_power_dbm
            - (self.ref_loss_db + 10.0 * self.path_loss_exponent * d.log10())
            - self.noise_dbm
    }

    /// Generate `n` samples at `interval`.
    pub fn generate(&self, n: usize, interval: Time, rng: &mut Rng) -> SnrSeries {
        let mut shadow = normal(rng) * self.shadowing_db;
        let rho = self.shadowing_corr;
        let innov = (1.0 - rho * rho).sqrt();
        let mut samples = Vec::with_capacity(n);
        for i in 0..n {
            let t = i as f64 * interval as f64 / SEC as f64;
            if i > 0 {
                shadow = rho * shadow + innov * self.shadowing_db * normal(rng);
            }
            // Fading power gain with unit mean.
            let gain = match self.fading {
                Fading::None => 1.0,
                Fading::Rayleigh => {
                    let (x, y) = (normal(rng), normal(rng));
                    (x * x + y * y) / 2.0
                }
                Fading::Rician => {
                    let k = self.rician_k;
                    let los = (k / (k + 1.0)).sqrt();
                    let s = (1.0 / (2.0 * (k + 1.0))).sqrt();
                    let (x, y) = (los + s * normal(rng), s * normal(rng));
                    x * x + y * y
                }
            };
            let fade_db = 10.0 * gain.max(1e-12).log10();
            samples.push(self.mean_snr_db(self.distance(t)) + shadow + fade_db);
        }
        SnrSeries {
            interval,
            samples_db: samples,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;

    fn synth(fading: Fading) -> SnrSynth {
        SnrSynth {
            tx_power_dbm: 15.0,
            noise_dbm: -93.0,
            ref_loss_db: 40.0,
            path_loss_exponent: 3.0,
            waypoints: vec![[0.0, 10.0], [100.0, 100.0]],
            shadowing_db: 0.0,
            shadowing_corr: 0.9,
            fading,
            rician_k: 6.0,
        }
    }

    #[test]
    fn csv_round_trip() {
        let s = SnrSeries {
            interval: 100 * MS,
            samples_db: vec![12.5, 3.25, -1.0, 7.0],
        };
        let back = SnrSeries::parse_csv(&s.to_csv(), 100 * MS).unwrap();
        assert_eq!(back.samples_db, s.samples_db);
        let plain = SnrSeries::parse_csv("# comment\n5\n6.5\n", 100 * MS).unwrap();
        assert_eq!(plain.samples_db, vec![5.0, 6.5]);
        assert!(SnrSeries::parse_csv("snr\nabc\n", 100 * MS)
            .unwrap_err()
            .contains("line 2"));
        assert_eq!(s.at(250 * MS), -1.0);
        assert_eq!(s.at(10 * SEC), 7.0, "last sample holds");
    }

    #[test]
    fn path_loss_follows_log_distance() {
        let s = synth(Fading::None);
        // 15 - (40 + 30 log10(10)) + 93 = 38 dB at 10 m; 10x the distance costs 30 dB.
        assert!((s.mean_snr_db(10.0) - 38.0).abs() < 1e-9);
        assert!((s.mean_snr_db(100.0) - 8.0).abs() < 1e-9);
        let series = s.generate(1001, 100 * MS, &mut Rng::new(1));
        assert!((series.samples_db[0] - 38.0).abs() < 1e-9);
        assert!((series.samples_db[1000] - 8.0).abs() < 1e-9);
    }

    #[test]
    fn rayleigh_fading_has_unit_mean_power_and_deep_fades() {
        let mut s = synth(Fading::Rayleigh);
        s.waypoints = vec![[0.0, 10.0]];
        let series = s.generate(20_000, 100 * MS, &mut Rng::new(3));
        let mean_gain: f64 = series
            .samples_db
            .iter()
            .map(|db| 10f64.powf((db - 38.0) / 10.0))
            .sum::<f64>()
            / 20_000.0;
        assert!((mean_gain - 1.0).abs() < 0.03, "{mean_gain}");
        // P(gain < 0.1) = 1 - e^-0.1 = 9.5% for Rayleigh: fades deeper than 10 dB.
        let deep = series.samples_db.iter().filter(|db| **db < 28.0).count() as f64 / 20_000.0;
        assert!((deep - 0.0952).abs() < 0.01, "{deep}");
    }
}
