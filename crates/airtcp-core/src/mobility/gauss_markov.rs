//! Gauss-Markov mobility (Liang & Haas, "Predictive distance-based mobility management for
//! PCS networks", INFOCOM 1999; as surveyed by Camp, Boleng & Davies 2002). Every `step`
//! seconds the speed and direction are updated as
//!
//!   s_n = α·s_{n-1} + (1-α)·s̄ + sqrt(1-α²)·σ_s·x,   d_n = α·d_{n-1} + (1-α)·d̄ + sqrt(1-α²)·σ_d·y
//!
//! with x, y standard normal draws; between updates the node moves in a straight line. At a
//! border the node is reflected, and so is its mean direction, so it heads back into the area
//! (as ns-3's GaussMarkovMobilityModel does). Speed below zero is taken as zero.

use super::{advance, ns, Area, Leg, Pos};
use crate::engine::{Rng, Time};
use crate::medium::radio::normal;

#[derive(Clone, Debug)]
pub struct GaussMarkov {
    pub area: Area,
    /// Memory α in [0, 1]: 0 is memoryless, 1 a straight line.
    pub alpha: f64,
    pub mean_speed: f64,
    pub speed_std: f64,
    /// Mean direction (radians) and its standard deviation.
    pub mean_dir: f64,
    pub dir_std: f64,
    /// Update interval.
    pub step: Time,
    rng: Rng,
    leg: Leg,
    speed: f64,
    dir: f64,
    step_end: Time,
}

impl GaussMarkov {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        area: Area,
        alpha: f64,
        mean_speed: f64,
        speed_std: f64,
        mean_dir: f64,
        dir_std: f64,
        step: Time,
        start: Pos,
        rng: Rng,
    ) -> GaussMarkov {
        GaussMarkov {
            area,
            alpha,
            mean_speed,
            speed_std,
            mean_dir,
            dir_std,
            step: step.max(1),
            rng,
            leg: Leg::pause(0, area.clamp(start), 0),
            speed: mean_speed,
            dir: mean_dir,
            step_end: 0,
        }
    }

    fn velocity(&self) -> [f64; 2] {
        let s = self.speed.max(0.0);
        [s * self.dir.cos(), s * self.dir.sin()]
    }

    pub fn leg(&mut self, now: Time) -> Leg {
        let mut leg = self.leg;
        advance(&mut leg, now, |l| {
            let here = self.area.clamp(l.end());
            let t = l.t1;
            if t >= self.step_end {
                if t > 0 {
                    let a = self.alpha;
                    let k = (1.0 - a * a).sqrt();
                    self.speed = a * self.speed
                        + (1.0 - a) * self.mean_speed
                        + k * self.speed_std * normal(&mut self.rng);
                    self.dir = a * self.dir
                        + (1.0 - a) * self.mean_dir
                        + k * self.dir_std * normal(&mut self.rng);
                }
                self.step_end = t.saturating_add(self.step);
            } else {
                // Ended at a border: mirror the direction (and the mean) across it.
                let v = self.velocity();
                if (here[0] <= 0.0 && v[0] < 0.0) || (here[0] >= self.area.w && v[0] > 0.0) {
                    self.dir = std::f64::consts::PI - self.dir;
                    self.mean_dir = std::f64::consts::PI - self.mean_dir;
                }
                if (here[1] <= 0.0 && v[1] < 0.0) || (here[1] >= self.area.h && v[1] > 0.0) {
                    self.dir = -self.dir;
                    self.mean_dir = -self.mean_dir;
                }
            }
            let v = self.velocity();
            let (hit, _) = self.area.time_to_wall(here, v);
            let to_wall = t.saturating_add(ns(hit).max(1));
            Leg {
                t0: t,
                p0: here,
                v,
                t1: self.step_end.min(to_wall),
            }
        });
        self.leg = leg;
        leg
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SEC;

    #[test]
    fn mean_speed_tends_to_its_parameter() {
        let area = Area {
            w: 2000.0,
            h: 2000.0,
        };
        // Started well away from the mean: the memory decays as α^n.
        let mut m = GaussMarkov::new(
            area,
            0.75,
            10.0,
            2.0,
            0.0,
            0.5,
            SEC,
            [1000.0, 1000.0],
            Rng::new(5),
        );
        m.speed = 30.0;
        let mut sum = 0.0;
        let n = 20_000u64;
        let first = m.leg(SEC / 2).speed();
        for k in 100..100 + n {
            sum += m.leg(k * SEC + SEC / 2).speed();
        }
        let mean = sum / n as f64;
        assert!(first > 20.0, "starts near 30: {first}");
        // Standard error of the mean: σ/sqrt(n·(1-α)/(1+α)) ≈ 0.04.
        assert!((mean - 10.0).abs() < 0.25, "mean speed {mean}");
        for k in 0..5000u64 {
            assert!(area.contains(m.leg(200 * SEC + k * SEC).at(200 * SEC + k * SEC)));
        }
    }

    #[test]
    fn alpha_one_is_a_straight_line() {
        let area = Area {
            w: 10_000.0,
            h: 10_000.0,
        };
        let mut m = GaussMarkov::new(
            area,
            1.0,
            5.0,
            3.0,
            0.0,
            1.0,
            SEC,
            [100.0, 100.0],
            Rng::new(1),
        );
        let p = m.leg(10 * SEC).at(10 * SEC);
        assert!(
            (p[0] - 150.0).abs() < 1e-6 && (p[1] - 100.0).abs() < 1e-6,
            "{p:?}"
        );
    }
}
