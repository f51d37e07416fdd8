//! Random walk in a rectangle, with ns-3's RandomWalk2d semantics: the node picks a direction
//! uniformly in [0, 2π) and a speed uniformly in [min, max], and keeps them for a fixed time
//! or a fixed distance (`mode`); at a border it is reflected (the velocity component across
//! the border changes sign) and goes on until the step ends.

use super::{advance, ns, Area, Leg, Pos};
#[cfg(test)]
use crate::engine::SEC;
use crate::engine::{Rng, Time};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WalkMode {
    /// Change direction and speed after this many seconds.
    Time(f64),
    /// Change after travelling this many metres.
    Distance(f64),
}

#[derive(Clone, Debug)]
pub struct Walk {
    pub area: Area,
    pub speed: [f64; 2],
    pub mode: WalkMode,
    rng: Rng,
    leg: Leg,
    /// When the current step (direction and speed) ends.
    step_end: Time,
    /// Velocity of the current step, with the reflections so far.
    v: [f64; 2],
}

impl Walk {
    pub fn new(area: Area, speed: [f64; 2], mode: WalkMode, start: Pos, rng: Rng) -> Walk {
        Walk {
            area,
            speed,
            mode,
            rng,
            // An empty first leg: the first query draws the first step.
            leg: Leg::pause(0, area.clamp(start), 0),
            step_end: 0,
            v: [0.0, 0.0],
        }
    }

    pub fn leg(&mut self, now: Time) -> Leg {
        let Walk {
            area,
            speed,
            mode,
            rng,
            leg,
            step_end,
            v,
        } = self;
        advance(leg, now, |l| {
            let here = area.clamp(l.end());
            let t = l.t1;
            if t >= *step_end {
                let dir = rng.uniform() * 2.0 * std::f64::consts::PI;
                let s = speed[0] + rng.uniform() * (speed[1] - speed[0]);
                *v = [s * dir.cos(), s * dir.sin()];
                let secs = match *mode {
                    WalkMode::Time(d) => d,
                    WalkMode::Distance(d) if s > 0.0 => d / s,
                    WalkMode::Distance(_) => f64::INFINITY,
                };
                *step_end = t.saturating_add(ns(secs).max(1));
            } else {
                // The last leg ended at a border: reflect off it.
                for k in 0..2 {
                    let at_low = here[k] <= 0.0 && v[k] < 0.0;
                    let at_high = here[k] >= [area.w, area.h][k] && v[k] > 0.0;
                    if at_low || at_high {
                        v[k] = -v[k];
                    }
                }
            }
            let (hit, _) = area.time_to_wall(here, *v);
            let to_wall = t.saturating_add(ns(hit).max(if hit > 0.0 { 1 } else { 0 }));
            let end = (*step_end).min(to_wall);
            // A leg of zero length at a border still reflects on the next call; one
            // moving outward at a border would otherwise never end.
            let end = if end == t && !at_border_outward(area, here, *v) {
                t + 1
            } else {
                end
            };
            Leg {
                t0: t,
                p0: here,
                v: *v,
                t1: end,
            }
        });
        *leg
    }
}

fn at_border_outward(area: &Area, p: Pos, v: [f64; 2]) -> bool {
    (p[0] <= 0.0 && v[0] < 0.0)
        || (p[0] >= area.w && v[0] > 0.0)
        || (p[1] <= 0.0 && v[1] < 0.0)
        || (p[1] >= area.h && v[1] > 0.0)
}

/// Seconds of a nanosecond count, for tests.
#[cfg(test)]
fn secs(t: Time) -> f64 {
    t as f64 / SEC as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reflects_at_the_borders_and_stays_inside() {
        let area = Area { w: 100.0, h: 50.0 };
        let mut m = Walk::new(
            area,
            [5.0, 20.0],
            WalkMode::Distance(400.0),
            [50.0, 25.0],
            Rng::new(7),
        );
        let mut reflections = 0;
        let mut last_v = [0.0, 0.0];
        for k in 0..200_000u64 {
            let t = k * SEC / 100;
            let l = m.leg(t);
            let p = l.at(t);
            assert!(area.contains(p), "{p:?} at {}", secs(t));
            // A reflection keeps the speed and flips one component.
            if l.v != last_v && last_v != [0.0, 0.0] {
                let same = (l.speed() - last_v[0].hypot(last_v[1])).abs() < 1e-9;
                if same && (l.v[0] == -last_v[0] || l.v[1] == -last_v[1]) {
                    reflections += 1;
                }
            }
            last_v = l.v;
        }
        assert!(reflections > 10, "{reflections} reflections");
    }

    #[test]
    fn reflection_mirrors_the_path() {
        // Heading straight at the right border: after it, the x component changes sign.
        let area = Area { w: 100.0, h: 100.0 };
        let mut m = Walk::new(
            area,
            [10.0, 10.0],
            WalkMode::Time(1000.0),
            [95.0, 50.0],
            Rng::new(1),
        );
        let l0 = m.leg(0);
        let (hit, walls) = area.time_to_wall(l0.p0, l0.v);
        let t_hit = ns(hit);
        let after = m.leg(t_hit + SEC / 10);
        for (k, &wall) in walls.iter().enumerate() {
            let want = if wall { -l0.v[k] } else { l0.v[k] };
            assert_eq!(after.v[k], want);
        }
        assert!(after.speed() == l0.speed());
    }

    #[test]
    fn time_mode_changes_direction_after_the_time() {
        let area = Area {
            w: 10_000.0,
            h: 10_000.0,
        };
        let mut m = Walk::new(
            area,
            [1.0, 2.0],
            WalkMode::Time(3.0),
            [5000.0, 5000.0],
            Rng::new(9),
        );
        let a = m.leg(SEC);
        assert_eq!(m.leg(2 * SEC).v, a.v);
        assert_ne!(m.leg(3 * SEC + 1).v, a.v);
        // Distance mode: the step lasts distance / speed.
        let mut d = Walk::new(
            area,
            [2.0, 2.0],
            WalkMode::Distance(10.0),
            [5000.0, 5000.0],
            Rng::new(9),
        );
        let a = d.leg(0);
        assert_eq!(a.t1, 5 * SEC);
    }
}
