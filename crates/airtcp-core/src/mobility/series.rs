//! The series a run with `trace.positions` or `trace.rssi` reports: each radio node's
//! position over time, and the power of each frame each station sensed.

use super::Model;
use crate::engine::{Time, SEC};
use crate::medium::radio::w_to_dbm;
use crate::sim::Sim;
use serde::Serialize;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// What a run records of its radio nodes (`Sim::radio_trace`).
#[derive(Default)]
pub struct RadioTrace {
    /// `trace.positions`.
    pub positions: Option<Tracks>,
    /// The 802.11 media whose stations log each sensed frame's power (`trace.rssi`).
    pub rssi: Vec<Rc<RefCell<crate::device::WifiNet>>>,
}

impl RadioTrace {
    /// Bytes the power logs hold (for the memory budget) and how many entries.
    pub fn rssi_bytes(&self) -> (usize, usize) {
        let (mut bytes, mut n) = (0, 0);
        for net in &self.rssi {
            if let Some(log) = net.borrow().rssi.as_ref() {
                for l in &log.stations {
                    bytes += l.capacity() * std::mem::size_of::<(Time, u32, f64)>();
                    n += l.len();
                }
            }
        }
        (bytes, n)
    }
}

/// Position samples of the radio nodes: a model's copy as it was before the run, queried at
/// each sample time afterwards (a model is a function of time drawn from its own stream, so
/// the copy retraces the run's path without an event per sample).
pub struct Tracks {
    pub interval: Time,
    pub nodes: Vec<(String, Model)>,
}

#[derive(Serialize, Debug, Clone)]
pub struct PositionSeries {
    pub t: Vec<f64>,
    pub x: Vec<f64>,
    pub y: Vec<f64>,
}

/// Frames a station sensed: arrival time, sending node, received power (dBm).
#[derive(Serialize, Debug, Clone)]
pub struct RssiSeries {
    pub t: Vec<f64>,
    pub from: Vec<String>,
    pub dbm: Vec<f64>,
}

impl Tracks {
    /// Samples at 0, interval, 2·interval, … up to `end`; a node that never moves has one.
    pub fn series(&self, end: Time) -> BTreeMap<String, PositionSeries> {
        let mut out = BTreeMap::new();
        for (name, m) in &self.nodes {
            let mut m = m.clone();
            let mut s = PositionSeries {
                t: vec![],
                x: vec![],
                y: vec![],
            };
            let mut t = 0;
            loop {
                let p = m.position(t);
                s.t.push(t as f64 / SEC as f64);
                s.x.push(p[0]);
                s.y.push(p[1]);
                if m.is_static() || t >= end {
                    break;
                }
                t = (t + self.interval).min(end);
            }
            out.insert(name.clone(), s);
        }
        out
    }
}

/// The rssi series of every traced medium, by station name (`node@medium`).
pub fn rssi(sim: &Sim) -> BTreeMap<String, RssiSeries> {
    let mut out = BTreeMap::new();
    let Some(trace) = sim.radio_trace.as_ref() else {
        return out;
    };
    for net in &trace.rssi {
        let net = net.borrow();
        let Some(log) = net.rssi.as_ref() else {
            continue;
        };
        for (k, st) in net.stations.iter().enumerate() {
            let l = &log.stations[k];
            out.insert(
                st.name.clone(),
                RssiSeries {
                    t: l.iter().map(|x| x.0 as f64 / SEC as f64).collect(),
                    from: l
                        .iter()
                        .map(|x| {
                            sim.nodes[net.stations[x.1 as usize].node.idx()]
                                .name
                                .clone()
                        })
                        .collect(),
                    dbm: l.iter().map(|x| w_to_dbm(x.2)).collect(),
                },
            );
        }
    }
    out
}
