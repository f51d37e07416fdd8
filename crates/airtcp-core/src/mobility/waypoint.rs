//! Random waypoint: pick a destination uniformly in the area and a speed uniformly in
//! [min, max], travel there in a straight line, pause, repeat.
//!
//! Started from a uniform position, the model's average speed decays over the run towards its
//! steady-state value (nodes spend ever more time on long, slow legs; Yoon, Liu & Noble 2003).
//! The stationary start avoids that transient: the node's initial state is drawn from the
//! model's stationary distribution (Navidi & Camp, "Stationary distributions for the random
//! waypoint mobility model", IEEE TMC 3(1), 2004; Le Boudec & Vojnović, "Perfect simulation and
//! stationarity of a class of mobility models", INFOCOM 2005):
//!
//! - the node is paused with probability E[P] / (E[P] + E[L]·E[1/V]), where L is the distance
//!   between two uniform points of the area and V the uniform speed; a paused node sits at a
//!   uniform point, with a residual pause U·P of a length-biased pause P;
//! - a moving node is on a leg (P1, P2) drawn with density proportional to its length
//!   (rejection of uniform pairs with probability |P1P2| / diagonal), at a uniform point of it,
//!   heading for P2, at a speed with density proportional to 1/v on [min, max]
//!   (v = min·(max/min)^U).

use super::{advance, ns, Area, Leg, Pos};
use crate::engine::{Rng, Time, SEC};
use crate::medium::radio::distance;

#[derive(Clone, Debug)]
pub struct Waypoint {
    pub area: Area,
    /// Speed range, m/s (min > 0 for the stationary start).
    pub speed: [f64; 2],
    /// Pause range, seconds (equal bounds: a fixed pause).
    pub pause: [f64; 2],
    rng: Rng,
    leg: Leg,
    moving: bool,
}

/// Mean distance between two uniform points of a w × h rectangle (Ghosh 1951).
pub fn mean_distance_rect(w: f64, h: f64) -> f64 {
    let (a, b) = (w, h);
    let d = a.hypot(b);
    (a.powi(3) / (b * b)
        + b.powi(3) / (a * a)
        + d * (3.0 - a * a / (b * b) - b * b / (a * a))
        + 2.5 * (b * b / a * ((a + d) / b).ln() + a * a / b * ((b + d) / a).ln()))
        / 15.0
}

impl Waypoint {
    /// `stationary`: draw the start from the stationary distribution; otherwise start at
    /// `start` (or a uniform point) and begin with a trip.
    pub fn new(
        area: Area,
        speed: [f64; 2],
        pause: [f64; 2],
        stationary: bool,
        start: Option<Pos>,
        mut rng: Rng,
    ) -> Waypoint {
        let (leg, moving) = if stationary {
            Self::stationary_start(area, speed, pause, &mut rng)
        } else {
            let p = start.unwrap_or_else(|| area.uniform(&mut rng));
            (Leg::pause(0, p, 0), false)
        };
        Waypoint {
            area,
            speed,
            pause,
            rng,
            leg,
            moving,
        }
    }

    fn stationary_start(
        area: Area,
        speed: [f64; 2],
        pause: [f64; 2],
        rng: &mut Rng,
    ) -> (Leg, bool) {
        let [vmin, vmax] = speed;
        let inv_speed = if vmax > vmin {
            (vmax / vmin).ln() / (vmax - vmin)
        } else {
            1.0 / vmin
        };
        let travel = mean_distance_rect(area.w, area.h) * inv_speed;
        let mean_pause = 0.5 * (pause[0] + pause[1]);
        let p_pause = mean_pause / (mean_pause + travel);
        if rng.uniform() < p_pause {
            // A length-biased pause, of which a uniform part is left.
            let p = loop {
                let p = pause[0] + rng.uniform() * (pause[1] - pause[0]);
                if pause[1] <= 0.0 || rng.uniform() * pause[1] <= p {
                    break p;
                }
            };
            let at = area.uniform(rng);
            return (Leg::pause(0, at, ns(rng.uniform() * p)), false);
        }
        let diag = area.w.hypot(area.h);
        let (a, b) = loop {
            let a = area.uniform(rng);
            let b = area.uniform(rng);
            if rng.uniform() * diag <= distance(a, b) {
                break (a, b);
            }
        };
        let u = rng.uniform();
        let at = [a[0] + u * (b[0] - a[0]), a[1] + u * (b[1] - a[1])];
        let v = if vmax > vmin {
            vmin * (vmax / vmin).powf(rng.uniform())
        } else {
            vmin
        };
        (Self::trip(0, at, b, v), true)
    }

    /// A straight trip from `from` to `to` at `v` m/s starting at `t0`.
    fn trip(t0: Time, from: Pos, to: Pos, v: f64) -> Leg {
        let d = distance(from, to);
        let secs = if v > 0.0 { d / v } else { f64::INFINITY };
        // At least a nanosecond, so every trip moves time on.
        let dur = ns(secs).max(1);
        let dt = dur as f64 / SEC as f64;
        Leg {
            t0,
            p0: from,
            v: [(to[0] - from[0]) / dt, (to[1] - from[1]) / dt],
            t1: t0.saturating_add(dur),
        }
    }

    #[inline]
    pub fn leg(&mut self, now: Time) -> Leg {
        if now < self.leg.t1 || self.leg.t1 == Time::MAX {
            // Still on the current leg: nothing to draw (the medium asks at every frame).
            return self.leg;
        }
        self.next_legs(now)
    }

    /// Move on to the leg that holds `now`.
    #[inline(never)]
    fn next_legs(&mut self, now: Time) -> Leg {
        let mut moving = self.moving;
        let mut rng = self.rng.clone();
        let area = self.area;
        let pause = self.pause;
        let speed = self.speed;
        advance(&mut self.leg, now, |l| {
            let here = area.clamp(l.end());
            if moving {
                moving = false;
                let p = pause[0] + rng.uniform() * (pause[1] - pause[0]);
                Leg::pause(l.t1, here, l.t1.saturating_add(ns(p)))
            } else {
                moving = true;
                let to = area.uniform(&mut rng);
                let v = speed[0] + rng.uniform() * (speed[1] - speed[0]);
                Self::trip(l.t1, here, to, v)
            }
        });
        self.moving = moving;
        self.rng = rng;
        self.leg
    }

    /// Whether the node is travelling (not paused) on its current leg.
    pub fn moving(&self) -> bool {
        self.moving
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(seed: u64, stationary: bool) -> Waypoint {
        Waypoint::new(
            Area {
                w: 1000.0,
                h: 1000.0,
            },
            [1.0, 20.0],
            [0.0, 0.0],
            stationary,
            None,
            Rng::for_component(seed, &format!("rwp/{seed}")),
        )
    }

    #[test]
    fn mean_distance_of_unit_square() {
        // 0.5214 (Ghosh 1951), symmetric in w and h, and scaled by the side.
        assert!((mean_distance_rect(1.0, 1.0) - 0.521_405).abs() < 1e-5);
        assert!((mean_distance_rect(2.0, 3.0) - mean_distance_rect(3.0, 2.0)).abs() < 1e-12);
        assert!((mean_distance_rect(100.0, 100.0) - 52.1405).abs() < 1e-3);
    }

    #[test]
    fn stays_in_the_area() {
        let area = Area { w: 300.0, h: 200.0 };
        let mut m = Waypoint::new(area, [1.0, 30.0], [0.0, 2.0], true, None, Rng::new(3));
        for k in 0..20_000u64 {
            let p = m.leg(k * SEC / 10).at(k * SEC / 10);
            assert!(area.contains(p), "{p:?} at step {k}");
        }
    }

    /// Mean over `n` nodes of the time-average speed in [from, to) seconds.
    fn mean_speed(stationary: bool, n: u64, from: u64, to: u64, end: u64) -> (f64, f64) {
        let (mut first, mut last) = (0.0, 0.0);
        for seed in 0..n {
            let mut m = model(seed, stationary);
            let (mut a, mut b) = (0.0, 0.0);
            let step = SEC;
            for k in 0..end {
                let t = k * step;
                let s = m.leg(t).speed();
                if k >= from && k < to {
                    a += s;
                }
                if k >= end - (to - from) {
                    b += s;
                }
            }
            first += a / (to - from) as f64;
            last += b / (to - from) as f64;
        }
        (first / n as f64, last / n as f64)
    }

    #[test]
    fn stationary_start_keeps_the_average_speed() {
        // Steady state mean speed with zero pause: 1/E[1/V] = 19/ln 20 = 6.34 m/s; a uniform
        // start begins near E[V] = 10.5 m/s and decays towards it.
        let end = 2000;
        let (first, last) = mean_speed(true, 400, 0, end / 10, end);
        let steady = 19.0 / 20f64.ln();
        assert!(
            (first - steady).abs() < 0.6,
            "first tenth {first}, steady {steady}"
        );
        assert!(
            (last - steady).abs() < 0.6,
            "last tenth {last}, steady {steady}"
        );
        assert!((first - last).abs() < 0.6, "first {first} last {last}");
        let (first_u, last_u) = mean_speed(false, 400, 0, end / 10, end);
        // Without it the first tenth is well above the steady state and the speed decays.
        assert!(
            first_u > steady + 1.5,
            "uniform start: first {first_u}, steady {steady}"
        );
        assert!(
            first_u > last_u + 1.0,
            "uniform start: first {first_u} last {last_u}"
        );
    }

    #[test]
    fn stationary_start_pauses_with_the_right_probability() {
        // E[P] = 10 s, E[L] = 521.4 m, E[1/V] = ln 20 / 19: paused with probability
        // 10 / (10 + 521.4 · 0.15767) = 0.1084.
        let area = Area {
            w: 1000.0,
            h: 1000.0,
        };
        let n = 20_000;
        let mut paused = 0;
        for s in 0..n {
            let m = Waypoint::new(area, [1.0, 20.0], [10.0, 10.0], true, None, Rng::new(s));
            paused += u32::from(!m.moving());
        }
        let p = paused as f64 / n as f64;
        let want = 10.0 / (10.0 + mean_distance_rect(1000.0, 1000.0) * 20f64.ln() / 19.0);
        // Binomial standard error at n = 20000 is 0.0022.
        assert!((p - want).abs() < 0.009, "paused {p}, want {want}");
    }
}
