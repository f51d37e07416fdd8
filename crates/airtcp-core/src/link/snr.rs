//! SNR time series for SNR-driven channels: read from a CSV trace, given inline, or
//! synthesized from a seed (log-distance path loss along a mobility path, log-normal
//! shadowing, Rayleigh or Rician fading, independent per sample or temporally correlated).
//!
//! A series is the channel itself. Whatever acts on measurements of it (the SNR gate) reads it
//! only through [`SnrSeries::measured`], which returns the value the channel held at a time
//! strictly in the past: the causality check lives there and nowhere else.

use crate::engine::{Rng, Time, SEC};
// Only the duration unit, so a coherence time is written like every other duration.
use crate::scenario::units::Duration;
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

    /// What a receiver measuring this channel can know at `now` when its reading is `delay`
    /// old: the sample the channel held at `now − delay` (measured on frames received then).
    /// A delay of at least the sample interval reads a sample whose interval has ended (at
    /// the interval, the one that has just ended); a shorter one reads into the sample still
    /// running, which the channel holds until its interval ends: how much that tells of the
    /// coming packets is the hold's doing, not the reader's. A delay of 0 (the present) is
    /// read as one nanosecond. `None` before the channel has held anything that long.
    pub fn measured(&self, now: Time, delay: Time) -> Option<Measured> {
        let iv = self.interval.max(1);
        let lag = delay.max(1);
        if now < lag {
            return None;
        }
        let i = (now - lag) / iv;
        let idx = (i as usize).min(self.samples_db.len() - 1);
        Some(Measured {
            start: i * iv,
            end: i * iv + iv,
            snr_db: self.samples_db[idx],
        })
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

/// A measured SNR sample: the channel's SNR over `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    pub start: Time,
    pub end: Time,
    pub snr_db: f64,
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
    /// Maximum Doppler shift (Hz), f_d = v·f_c/c: the scattered component follows Clarke's
    /// model (sum of sinusoids), autocorrelation J0(2π f_d τ).
    #[serde(default)]
    pub doppler_hz: Option<f64>,
    /// Coherence time of a first-order Gauss–Markov scattered component: autocorrelation
    /// exp(−τ/Tc). Without this or `doppler_hz`, the fading of each sample is independent.
    #[serde(default)]
    pub coherence_time: Option<Duration>,
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

/// Sinusoids per quadrature in Clarke's sum-of-sinusoids model: with angles spread evenly
/// over a quarter circle, the time-averaged autocorrelation matches J0(2π f_d τ) to better
/// than 1e-3 for f_d τ up to about 10.
const CLARKE_SINUSOIDS: usize = 32;

/// The scattered (diffuse) fading component: a complex Gaussian process with E|h|² = 1.
enum Scatter {
    /// Clarke's model as a sum of sinusoids (the angles of Zheng & Xiao's improved model: one
    /// random rotation of evenly spaced angles, random phases): frequencies f_d·cos α_n
    /// (in-phase) and f_d·sin α_n (quadrature).
    Clarke {
        freqs: Vec<(f64, f64)>,
        phases: Vec<(f64, f64)>,
    },
    /// First-order Gauss–Markov: h_k = ρ h_{k−1} + √(1−ρ²) w_k, ρ = exp(−Δ/Tc).
    GaussMarkov { rho: f64, h: (f64, f64) },
}

impl Scatter {
    fn clarke(doppler_hz: f64, rng: &mut Rng) -> Scatter {
        use std::f64::consts::PI;
        let m = CLARKE_SINUSOIDS;
        let theta = (2.0 * rng.uniform() - 1.0) * PI;
        let mut freqs = Vec::with_capacity(m);
        let mut phases = Vec::with_capacity(m);
        for n in 1..=m {
            let a = (2.0 * PI * n as f64 - PI + theta) / (4.0 * m as f64);
            freqs.push((doppler_hz * a.cos(), doppler_hz * a.sin()));
            let p = (2.0 * rng.uniform() - 1.0) * PI;
            let q = (2.0 * rng.uniform() - 1.0) * PI;
            phases.push((p, q));
        }
        Scatter::Clarke { freqs, phases }
    }

    fn gauss_markov(coherence_s: f64, interval_s: f64, rng: &mut Rng) -> Scatter {
        // Start in the stationary distribution, so the mean power is 1 from the first sample.
        let h = (
            normal(rng) * std::f64::consts::FRAC_1_SQRT_2,
            normal(rng) * std::f64::consts::FRAC_1_SQRT_2,
        );
        Scatter::GaussMarkov {
            rho: (-interval_s / coherence_s).exp(),
            h,
        }
    }

    /// The component at sample `i` (time `t` s); samples are asked for in order.
    fn at(&mut self, i: usize, t: f64, rng: &mut Rng) -> (f64, f64) {
        match self {
            Scatter::Clarke { freqs, phases } => {
                let w = 2.0 * std::f64::consts::PI * t;
                let (mut re, mut im) = (0.0, 0.0);
                for ((fi, fq), (p, q)) in freqs.iter().zip(phases.iter()) {
                    re += (w * fi + p).cos();
                    im += (w * fq + q).cos();
                }
                // Each cosine has power 1/2; the sum over M of each quadrature is scaled to
                // power 1/2, so E|h|² = 1.
                let k = (1.0 / freqs.len() as f64).sqrt();
                (re * k, im * k)
            }
            Scatter::GaussMarkov { rho, h } => {
                if i > 0 {
                    let s = (1.0 - *rho * *rho).sqrt() * std::f64::consts::FRAC_1_SQRT_2;
                    h.0 = *rho * h.0 + s * normal(rng);
                    h.1 = *rho * h.1 + s * normal(rng);
                }
                *h
            }
        }
    }
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
        if self.doppler_hz.is_some() && self.coherence_time.is_some() {
            return Err((
                "doppler_hz".into(),
                "give either `doppler_hz` (Clarke) or `coherence_time` (Gauss-Markov), not both"
                    .into(),
            ));
        }
        let correlated = self.doppler_hz.is_some() || self.coherence_time.is_some();
        if correlated && self.fading == Fading::None {
            let key = if self.doppler_hz.is_some() {
                "doppler_hz"
            } else {
                "coherence_time"
            };
            return Err((
                key.into(),
                "describes how fading varies in time, but `fading` is \"none\"".into(),
            ));
        }
        if let Some(f) = self.doppler_hz {
            if !(f.is_finite() && f > 0.0 && f <= 1e5) {
                return Err((
                    "doppler_hz".into(),
                    format!("must be in (0, 1e5] Hz, got {f}"),
                ));
            }
        }
        if let Some(tc) = self.coherence_time {
            if tc.0 <= 0.0 {
                return Err(("coherence_time".into(), "must be > 0".into()));
            }
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
        let interval_s = interval as f64 / SEC as f64;
        // Drawn after the first shadowing value, so a scenario without a correlated model
        // draws exactly as before.
        let mut scatter = match (self.fading, self.doppler_hz, self.coherence_time) {
            (Fading::None, _, _) => None,
            (_, Some(f), _) => Some(Scatter::clarke(f, rng)),
            (_, None, Some(tc)) => Some(Scatter::gauss_markov(tc.0, interval_s, rng)),
            (_, None, None) => None,
        };
        let mut samples = Vec::with_capacity(n);
        for i in 0..n {
            let t = i as f64 * interval as f64 / SEC as f64;
            if i > 0 {
                shadow = rho * shadow + innov * self.shadowing_db * normal(rng);
            }
            // Fading power gain with unit mean.
            let gain = match (self.fading, scatter.as_mut()) {
                (Fading::None, _) => 1.0,
                (Fading::Rayleigh, Some(sc)) => {
                    let (x, y) = sc.at(i, t, rng);
                    x * x + y * y
                }
                (Fading::Rician, Some(sc)) => {
                    let (hx, hy) = sc.at(i, t, rng);
                    let k = self.rician_k;
                    let los = (k / (k + 1.0)).sqrt();
                    let s = (1.0 / (k + 1.0)).sqrt();
                    let (x, y) = (los + s * hx, s * hy);
                    x * x + y * y
                }
                (Fading::Rayleigh, None) => {
                    let (x, y) = (normal(rng), normal(rng));
                    (x * x + y * y) / 2.0
                }
                (Fading::Rician, None) => {
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
            doppler_hz: None,
            coherence_time: None,
        }
    }

    /// Bessel J0 by its integral (1/π)∫₀^π cos(x sin θ) dθ (Simpson, 2000 steps).
    fn j0(x: f64) -> f64 {
        let n = 2000;
        let h = std::f64::consts::PI / n as f64;
        let f = |k: usize| (x * (k as f64 * h).sin()).cos();
        let mut s = f(0) + f(n);
        for k in 1..n {
            s += if k % 2 == 1 { 4.0 } else { 2.0 } * f(k);
        }
        s * h / 3.0 / std::f64::consts::PI
    }

    /// Time-averaged E[h(t) h*(t+τ)] (real part) of a complex series at lag `m`, and E|h|².
    fn autocorr(h: &[(f64, f64)], m: usize) -> f64 {
        let n = h.len() - m;
        (0..n)
            .map(|i| h[i].0 * h[i + m].0 + h[i].1 * h[i + m].1)
            .sum::<f64>()
            / n as f64
    }

    fn scatter_series(
        mut sc: Scatter,
        n: usize,
        interval_s: f64,
        rng: &mut Rng,
    ) -> Vec<(f64, f64)> {
        (0..n)
            .map(|i| sc.at(i, i as f64 * interval_s, rng))
            .collect()
    }

    #[test]
    fn a_measurement_reads_the_sample_held_delay_ago() {
        let s = SnrSeries {
            interval: 100 * MS,
            samples_db: (0..50).map(|i| i as f64).collect(),
        };
        for delay in [
            0,
            1,
            10 * MS,
            50 * MS,
            100 * MS,
            150 * MS,
            250 * MS,
            3 * SEC,
        ] {
            for now in (0..8_000).map(|k| k * MS / 2) {
                match s.measured(now, delay) {
                    None => assert!(now < delay.max(1), "{now} {delay}"),
                    Some(m) => {
                        // The sample held at now - delay, never one starting at or after now.
                        let at = now - delay.max(1);
                        assert!(m.start <= at && at < m.end, "{now} {delay}");
                        assert!(m.start < now, "a sample at or after now");
                        assert_eq!(m.end - m.start, 100 * MS);
                        assert_eq!(m.snr_db, (m.start / (100 * MS)).min(49) as f64);
                        // At least a whole interval old: the sample has ended.
                        if delay >= 100 * MS {
                            assert!(m.end <= now);
                        }
                    }
                }
            }
        }
        // One interval behind by default: at 1.0 s the gate knows the interval [0.9 s, 1.0 s).
        let m = s.measured(SEC, 100 * MS).unwrap();
        assert_eq!((m.start, m.end, m.snr_db), (900 * MS, SEC, 9.0));
        assert_eq!(s.measured(SEC - 1, 100 * MS).unwrap().snr_db, 8.0);
        assert_eq!(s.measured(SEC, 500 * MS).unwrap().snr_db, 5.0);
        // 10 ms into the sample of [1.0 s, 1.1 s): the running sample, as the channel holds it.
        assert_eq!(s.measured(SEC + 10 * MS, 10 * MS).unwrap().snr_db, 10.0);
        assert_eq!(s.measured(SEC + 9 * MS, 10 * MS).unwrap().snr_db, 9.0);
        // Past the end of the series its last sample holds.
        assert_eq!(s.measured(60 * SEC, 100 * MS).unwrap().snr_db, 49.0);
    }

    #[test]
    fn clarke_fading_follows_j0_with_unit_power() {
        // 11.2 Hz (1.4 m/s at 2.4 GHz) sampled every 5 ms for 2000 s.
        let (fd, dt) = (11.2, 0.005);
        let h = scatter_series(
            Scatter::clarke(fd, &mut Rng::new(7)),
            400_000,
            dt,
            &mut Rng::new(8),
        );
        let p = autocorr(&h, 0);
        assert!((p - 1.0).abs() < 0.02, "E|h|^2 = {p}");
        for m in [1, 4, 10, 17, 34, 60, 100] {
            let tau = m as f64 * dt;
            let (got, want) = (autocorr(&h, m), j0(2.0 * std::f64::consts::PI * fd * tau));
            assert!(
                (got - want).abs() < 0.03,
                "lag {tau} s: {got} vs J0 = {want}"
            );
        }
        assert!((j0(2.404_825_557_695_773)).abs() < 1e-9, "J0's first zero");
    }

    #[test]
    fn gauss_markov_fading_follows_exp_with_unit_power() {
        let (tc, dt) = (0.5, 0.05);
        let h = scatter_series(
            Scatter::gauss_markov(tc, dt, &mut Rng::new(11)),
            400_000,
            dt,
            &mut Rng::new(12),
        );
        let p = autocorr(&h, 0);
        assert!((p - 1.0).abs() < 0.03, "E|h|^2 = {p}");
        for m in [1, 2, 5, 10, 20, 40] {
            let tau = m as f64 * dt;
            let (got, want) = (autocorr(&h, m), (-tau / tc).exp());
            assert!((got - want).abs() < 0.03, "lag {tau} s: {got} vs {want}");
        }
    }

    #[test]
    fn correlated_fading_in_a_trace_keeps_unit_mean_power_and_its_correlation() {
        // Through `generate`: the power gain of a complex Gaussian process has
        // autocovariance |R(τ)|², here exp(−2τ/Tc).
        let mut s = synth(Fading::Rayleigh);
        s.waypoints = vec![[0.0, 10.0]];
        s.coherence_time = Some(Duration(1.0));
        let series = s.generate(200_000, 100 * MS, &mut Rng::new(5));
        let g: Vec<f64> = series
            .samples_db
            .iter()
            .map(|db| 10f64.powf((db - 38.0) / 10.0))
            .collect();
        let mean = g.iter().sum::<f64>() / g.len() as f64;
        assert!((mean - 1.0).abs() < 0.05, "{mean}");
        for m in [1usize, 5, 10] {
            let n = g.len() - m;
            let cov = (0..n).map(|i| (g[i] - 1.0) * (g[i + m] - 1.0)).sum::<f64>() / n as f64;
            let want = (-2.0 * m as f64 * 0.1).exp();
            assert!((cov - want).abs() < 0.08, "lag {m}: {cov} vs {want}");
        }
        // Clarke through `generate`, with Rician K: mean power still 1.
        s.coherence_time = None;
        s.doppler_hz = Some(3.0);
        s.fading = Fading::Rician;
        let series = s.generate(200_000, 10 * MS, &mut Rng::new(6));
        let mean = series
            .samples_db
            .iter()
            .map(|db| 10f64.powf((db - 38.0) / 10.0))
            .sum::<f64>()
            / 200_000.0;
        assert!((mean - 1.0).abs() < 0.03, "{mean}");
    }

    #[test]
    fn correlated_fading_parameters_are_checked() {
        let mut s = synth(Fading::Rayleigh);
        s.doppler_hz = Some(10.0);
        s.coherence_time = Some(Duration(0.1));
        assert_eq!(s.check().unwrap_err().0, "doppler_hz");
        s.doppler_hz = None;
        s.coherence_time = Some(Duration(0.0));
        assert_eq!(s.check().unwrap_err().0, "coherence_time");
        s.coherence_time = None;
        s.doppler_hz = Some(-1.0);
        assert_eq!(s.check().unwrap_err().0, "doppler_hz");
        let mut n = synth(Fading::None);
        n.coherence_time = Some(Duration(1.0));
        assert!(n.check().unwrap_err().1.contains("\"none\""));
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
