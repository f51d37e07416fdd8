//! Small-scale fading per frame: a power gain with unit mean drawn for each frame of a
//! transmitter-receiver pair, correlated in time through the Doppler spread.
//!
//! - Rayleigh: |h|² with h complex Gaussian (two real components of variance ½).
//! - Rician with factor K: h = √(K/(K+1)) + √(1/(K+1))·g, g as for Rayleigh.
//! - Nakagami-m: the power is Gamma(m, 1/m), the mean of 2m squared unit Gaussians (m in
//!   steps of ½).
//!
//! Every Gaussian component follows a first-order Gauss-Markov process between two frames Δt
//! apart: x' = ρ·x + √(1 − ρ²)·w with ρ = J0(2π·f_d·Δt), Clarke's (Jakes') autocorrelation for
//! isotropic scattering (Rappaport, Wireless Communications, eq. 5.60); the Doppler spread
//! f_d is given, or v/λ for a node speed v, or 0.423/T_c for a coherence time T_c (eq. 5.40.c).
//! A model takes the time of the frame and its pair's state; it knows no clock of its own.

use crate::engine::{Rng, Time};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FadingKind {
    Rayleigh,
    /// K, linear (power of the line-of-sight part over the scattered part).
    Rician(f64),
    /// m ≥ ½, in steps of ½.
    Nakagami(f64),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fading {
    pub kind: FadingKind,
    /// Maximum Doppler shift, Hz (0: a gain fixed per pair for the run).
    pub doppler_hz: f64,
}

/// Bessel function of the first kind, order 0 (Abramowitz & Stegun 9.4.1 and 9.4.3,
/// |error| < 5e-8 and 1.6e-8).
pub fn bessel_j0(x: f64) -> f64 {
    let ax = x.abs();
    if ax <= 3.0 {
        let y = (x / 3.0).powi(2);
        1.0 + y
            * (-2.249_999_7
                + y * (1.265_620_8
                    + y * (-0.316_386_6
                        + y * (0.044_447_9 + y * (-0.003_944_4 + y * 0.000_210_0)))))
    } else {
        let y = 3.0 / ax;
        let f0 = 0.797_884_56
            + y * (-0.000_000_77
                + y * (-0.005_527_40
                    + y * (-0.000_095_12
                        + y * (0.001_372_37 + y * (-0.000_728_05 + y * 0.000_144_76)))));
        let t0 = ax - std::f64::consts::FRAC_PI_4
            + y * (-0.041_663_97
                + y * (-0.000_039_54
                    + y * (0.002_625_73
                        + y * (-0.000_541_25 + y * (-0.000_293_33 + y * 0.000_135_58)))));
        f0 * t0.cos() / ax.sqrt()
    }
}

fn normal(rng: &mut Rng) -> f64 {
    crate::medium::radio::normal(rng)
}

/// The fading state of one transmitter-receiver pair (reciprocal: both directions share it).
#[derive(Clone, Debug)]
pub struct PairFading {
    rng: Rng,
    x: Vec<f64>,
    last: Option<Time>,
}

impl PairFading {
    pub fn new(rng: Rng) -> PairFading {
        PairFading {
            rng,
            x: Vec::new(),
            last: None,
        }
    }

    /// The power gain (mean 1) of a frame sent at `now`.
    pub fn gain(&mut self, f: &Fading, now: Time) -> f64 {
        let comps = match f.kind {
            FadingKind::Rayleigh | FadingKind::Rician(_) => 2,
            FadingKind::Nakagami(m) => ((2.0 * m).round() as usize).max(1),
        };
        match self.last {
            None => {
                self.x = (0..comps).map(|_| normal(&mut self.rng)).collect();
            }
            Some(t) if t != now => {
                let dt = now.abs_diff(t) as f64 * 1e-9;
                let rho = bessel_j0(2.0 * std::f64::consts::PI * f.doppler_hz * dt);
                let keep = (1.0 - rho * rho).max(0.0).sqrt();
                for x in &mut self.x {
                    *x = rho * *x + keep * normal(&mut self.rng);
                }
            }
            Some(_) => {}
        }
        self.last = Some(now);
        let x = &self.x;
        match f.kind {
            FadingKind::Rayleigh => 0.5 * (x[0] * x[0] + x[1] * x[1]),
            FadingKind::Rician(k) => {
                let los = (k / (k + 1.0)).sqrt();
                let s = (0.5 / (k + 1.0)).sqrt();
                (los + s * x[0]).powi(2) + (s * x[1]).powi(2)
            }
            FadingKind::Nakagami(_) => x.iter().map(|v| v * v).sum::<f64>() / x.len() as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;

    fn gains(kind: FadingKind, doppler: f64, step: Time, n: usize) -> Vec<f64> {
        let f = Fading {
            kind,
            doppler_hz: doppler,
        };
        let mut p = PairFading::new(Rng::new(7));
        (0..n).map(|i| p.gain(&f, i as Time * step)).collect()
    }

    fn mean(v: &[f64]) -> f64 {
        v.iter().sum::<f64>() / v.len() as f64
    }

    #[test]
    fn bessel_reference_values() {
        // A&S table 9.1: J0(1) = 0.7651977, J0(2.4048) ≈ 0, J0(5) = -0.1775968.
        assert!((bessel_j0(1.0) - 0.765_197_7).abs() < 1e-6);
        assert!(bessel_j0(2.404_825_6).abs() < 1e-6);
        assert!((bessel_j0(5.0) + 0.177_596_8).abs() < 1e-6);
    }

    #[test]
    fn unit_mean_and_the_distribution_of_each_kind() {
        // Fast fading (independent draws): mean 1; Rayleigh power is exponential, so
        // P(g < 0.1) = 1 - e^-0.1 = 0.0952; Nakagami m = 2: Gamma(2, 1/2), P(g < 0.1) =
        // 1 - e^-0.2 (1 + 0.2) = 0.0175; Rician K = 10 rarely fades that deep.
        let n = 100_000;
        for (kind, deep) in [
            (FadingKind::Rayleigh, 0.0952),
            (FadingKind::Nakagami(2.0), 0.0175),
        ] {
            let g = gains(kind, 1e6, MS, n);
            assert!((mean(&g) - 1.0).abs() < 0.02, "{kind:?} mean {}", mean(&g));
            let p = g.iter().filter(|&&x| x < 0.1).count() as f64 / n as f64;
            assert!((p - deep).abs() < 0.005, "{kind:?}: P(g < 0.1) = {p}");
        }
        let g = gains(FadingKind::Rician(10.0), 1e6, MS, n);
        assert!((mean(&g) - 1.0).abs() < 0.02);
        let p = g.iter().filter(|&&x| x < 0.1).count() as f64 / n as f64;
        assert!(p < 0.001, "Rician K=10: {p}");
    }

    #[test]
    fn frames_within_the_coherence_time_see_nearly_the_same_gain() {
        // f_d = 10 Hz: T_c = 42 ms. Frames 1 ms apart are correlated (ρ = J0(0.063) ≈ 0.999);
        // frames 1 s apart are not.
        let close = gains(FadingKind::Rayleigh, 10.0, MS, 2000);
        let far = gains(FadingKind::Rayleigh, 10.0, 1000 * MS, 2000);
        let steps = |g: &[f64]| {
            mean(
                &g.windows(2)
                    .map(|w| (w[1] - w[0]).abs())
                    .collect::<Vec<_>>(),
            )
        };
        assert!(steps(&close) < 0.1, "{}", steps(&close));
        assert!(steps(&far) > 0.5, "{}", steps(&far));
        // No Doppler: one gain for the run.
        let fixed = gains(FadingKind::Rayleigh, 0.0, MS, 10);
        assert!(fixed.iter().all(|&x| x == fixed[0]));
    }
}
