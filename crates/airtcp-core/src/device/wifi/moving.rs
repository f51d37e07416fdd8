//! Stations that move: who hears a station, how strongly and after what delay, recomputed from
//! the positions when it starts a frame. A medium whose stations all stay put has none of this
//! and keeps the gains computed once when it was built.

use super::station::{Hear, Station};
use super::WifiParams;
use crate::engine::Time;
use crate::medium::radio::{distance, prop_delay, RadioModel};
use crate::mobility::{Model, Pos};

pub struct Moving {
    /// Each station's model, by station index.
    pub models: Vec<Model>,
    pub radio: RadioModel,
    /// Log-normal shadowing factor per ordered pair (fixed for the run), `a * n + b`.
    pub shadow: Vec<f64>,
    /// Positions at `at`.
    pos: Vec<Pos>,
    at: Option<Time>,
}

impl Moving {
    pub fn new(models: Vec<Model>, radio: RadioModel, shadow: Vec<f64>) -> Moving {
        let n = models.len();
        Moving {
            models,
            radio,
            shadow,
            pos: vec![[0.0, 0.0]; n],
            at: None,
        }
    }

    fn positions(&mut self, now: Time) {
        if self.at != Some(now) {
            for (p, m) in self.pos.iter_mut().zip(self.models.iter_mut()) {
                *p = m.position(now);
            }
            self.at = Some(now);
        }
    }

    /// Recompute whom station `s` reaches at `now`; returns the longest delay to a station it
    /// reaches (sensed or not).
    pub fn refresh(
        &mut self,
        s: usize,
        now: Time,
        stations: &mut [Station],
        p: &WifiParams,
    ) -> Time {
        self.positions(now);
        let n = stations.len();
        let st = &mut stations[s];
        st.hears.clear();
        let mut reach = 0;
        let mut sensed_max = 0;
        for j in 0..n {
            if j == s {
                continue;
            }
            let d = distance(self.pos[s], self.pos[j]);
            let power = self.radio.rx_power(d) * self.shadow[s * n + j];
            if power < p.interference_floor_w {
                continue;
            }
            let delay = prop_delay(d);
            let sensed = power >= p.cs_threshold_w;
            reach = reach.max(delay);
            if sensed {
                sensed_max = sensed_max.max(delay);
            }
            st.hears.push(Hear {
                to: j as u32,
                power_w: power,
                delay,
                sensed,
            });
        }
        st.max_delay = sensed_max;
        reach
    }
}

/// The power of every frame each station senses: (arrival time, sending station, watts).
#[derive(Default)]
pub struct RssiLog {
    pub stations: Vec<Vec<(Time, u32, f64)>>,
}
