//! Node mobility: each model is a function of time, computed lazily from its current leg (a
//! straight motion at constant velocity, or a pause). A query at `now` moves on to the leg that
//! holds `now`, drawing what it needs from the model's own random stream; the model never
//! looks at a clock of its own, so the same model runs under the simulator or a real clock.
//!
//! Models: constant position, constant velocity, random waypoint (with the stationary start
//! of Navidi & Camp 2004 / Le Boudec & Vojnović 2005), random walk in a rectangle (ns-3's
//! RandomWalk2d semantics), Gauss-Markov (Liang & Haas 1999) and ns-2 movement files.

mod gauss_markov;
mod ns2;
pub mod series;
mod walk;
mod waypoint;

pub use gauss_markov::GaussMarkov;
pub use ns2::{parse_ns2, Ns2File, Ns2Moves, Ns2Trace};
pub use walk::{Walk, WalkMode};
pub use waypoint::{mean_distance_rect, Waypoint};

use crate::engine::{Time, SEC};

/// A point in the plane, metres.
pub type Pos = [f64; 2];

/// Seconds as the engine's nanoseconds (rounded, at least `min`).
pub(crate) fn ns(secs: f64) -> Time {
    if secs >= (u64::MAX / 2) as f64 / SEC as f64 {
        return Time::MAX;
    }
    (secs * SEC as f64).round().max(0.0) as Time
}

/// One piece of a trajectory: from `p0` at `t0`, velocity `v` (m/s), until `t1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Leg {
    pub t0: Time,
    pub p0: Pos,
    pub v: [f64; 2],
    pub t1: Time,
}

impl Leg {
    pub fn pause(t0: Time, p0: Pos, t1: Time) -> Leg {
        Leg {
            t0,
            p0,
            v: [0.0, 0.0],
            t1,
        }
    }

    /// Position at `t` (clamped to the leg).
    #[inline]
    pub fn at(&self, t: Time) -> Pos {
        let t = t.clamp(self.t0, self.t1.max(self.t0));
        let dt = (t - self.t0) as f64 / SEC as f64;
        [self.p0[0] + self.v[0] * dt, self.p0[1] + self.v[1] * dt]
    }

    pub fn end(&self) -> Pos {
        self.at(self.t1)
    }

    pub fn speed(&self) -> f64 {
        self.v[0].hypot(self.v[1])
    }
}

/// A rectangle [0, w] × [0, h].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Area {
    pub w: f64,
    pub h: f64,
}

impl Area {
    pub fn contains(&self, p: Pos) -> bool {
        const EPS: f64 = 1e-6;
        p[0] >= -EPS && p[0] <= self.w + EPS && p[1] >= -EPS && p[1] <= self.h + EPS
    }

    pub fn clamp(&self, p: Pos) -> Pos {
        [p[0].clamp(0.0, self.w), p[1].clamp(0.0, self.h)]
    }

    pub fn uniform(&self, rng: &mut crate::engine::Rng) -> Pos {
        [rng.uniform() * self.w, rng.uniform() * self.h]
    }

    /// Seconds until a motion from `p` at `v` reaches a border, and which borders (x, y) it
    /// reaches then. Infinite when it never does.
    pub fn time_to_wall(&self, p: Pos, v: [f64; 2]) -> (f64, [bool; 2]) {
        let hit = |x: f64, vx: f64, hi: f64| {
            if vx > 0.0 {
                ((hi - x) / vx).max(0.0)
            } else if vx < 0.0 {
                (x / -vx).max(0.0)
            } else {
                f64::INFINITY
            }
        };
        let tx = hit(p[0], v[0], self.w);
        let ty = hit(p[1], v[1], self.h);
        let t = tx.min(ty);
        (t, [tx <= t, ty <= t])
    }
}

/// A node's mobility model.
#[derive(Clone, Debug)]
pub enum Model {
    /// Where the node stays (today's default: the node's `position`).
    Fixed(Pos),
    /// From `start` at velocity `v` m/s, for ever.
    Velocity {
        start: Pos,
        v: [f64; 2],
    },
    Waypoint(Box<Waypoint>),
    Walk(Box<Walk>),
    GaussMarkov(Box<GaussMarkov>),
    Ns2(Box<Ns2Trace>),
}

impl Model {
    /// The leg that holds `now`. Queries must not go back in time before the current leg
    /// (the medium asks in event order); an earlier `now` is answered at the leg's start.
    #[inline]
    pub fn leg(&mut self, now: Time) -> Leg {
        match self {
            Model::Fixed(p) => Leg::pause(0, *p, Time::MAX),
            Model::Velocity { start, v } => Leg {
                t0: 0,
                p0: *start,
                v: *v,
                t1: Time::MAX,
            },
            Model::Waypoint(m) => m.leg(now),
            Model::Walk(m) => m.leg(now),
            Model::GaussMarkov(m) => m.leg(now),
            Model::Ns2(m) => m.leg(now),
        }
    }

    #[inline]
    pub fn position(&mut self, now: Time) -> Pos {
        self.leg(now).at(now)
    }

    /// Speed at `now`, m/s.
    pub fn speed(&mut self, now: Time) -> f64 {
        self.leg(now).speed()
    }

    /// Whether the node ever moves.
    pub fn is_static(&self) -> bool {
        matches!(self, Model::Fixed(_))
    }
}

/// Move `leg` on with `next` until it holds `now`. `next` must make progress: a leg of
/// zero length is allowed, but not an endless run of them.
#[inline]
pub(crate) fn advance(leg: &mut Leg, now: Time, mut next: impl FnMut(&Leg) -> Leg) {
    while now >= leg.t1 && leg.t1 != Time::MAX {
        *leg = next(leg);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_velocity_moves_in_a_straight_line() {
        let mut m = Model::Velocity {
            start: [10.0, 20.0],
            v: [3.0, -4.0],
        };
        assert_eq!(m.position(0), [10.0, 20.0]);
        let p = m.position(2 * SEC);
        assert!((p[0] - 16.0).abs() < 1e-9 && (p[1] - 12.0).abs() < 1e-9);
        let p = m.position(SEC / 2);
        assert!((p[0] - 11.5).abs() < 1e-9 && (p[1] - 18.0).abs() < 1e-9);
        assert!((m.speed(7 * SEC) - 5.0).abs() < 1e-12);
    }

    #[test]
    fn constant_position_stays() {
        let mut m = Model::Fixed([5.0, 6.0]);
        assert_eq!(m.position(1000 * SEC), [5.0, 6.0]);
        assert_eq!(m.speed(SEC), 0.0);
        assert!(m.is_static());
    }

    #[test]
    fn time_to_wall_picks_the_first_border() {
        let a = Area { w: 100.0, h: 50.0 };
        let (t, w) = a.time_to_wall([90.0, 25.0], [5.0, 5.0]);
        assert!((t - 2.0).abs() < 1e-12);
        assert_eq!(w, [true, false]);
        let (t, w) = a.time_to_wall([10.0, 10.0], [0.0, -2.0]);
        assert!((t - 5.0).abs() < 1e-12);
        assert_eq!(w, [false, true]);
    }
}
