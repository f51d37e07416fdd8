//! The `mobility` keys (per node, and for every radio node at the top level) and the models
//! they build. See docs/mobility.md.

use super::build::{err, R};
use super::files::FileAccess;
use super::schema::Scenario;
use super::units::Duration;
use crate::engine::Rng;
use crate::mobility::{
    parse_ns2, Area, GaussMarkov, Model, Ns2File, Ns2Trace, Pos, Walk, WalkMode, Waypoint,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A pause: one duration, or a range [min, max] drawn uniformly.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(untagged)]
pub enum PauseSpec {
    One(Duration),
    Range([Duration; 2]),
}

fn default_true() -> bool {
    true
}
fn default_alpha() -> f64 {
    0.85
}
fn default_step() -> Duration {
    Duration(1.0)
}

tagged_enum! {
    /// A node's mobility model.
    pub enum MobilitySpec (tag = "model") {
        /// The node stays at its `position` (the default without a model).
        ConstantPosition = "constant_position" {},
        /// From `position`, at `velocity` = [vx, vy] m/s.
        ConstantVelocity = "constant_velocity" { velocity: [f64; 2] },
        /// Random waypoint in [0, w] × [0, h].
        RandomWaypoint = "random_waypoint" {
            area: [f64; 2],
            speed: [f64; 2],
            #[serde(default)]
            pause: Option<PauseSpec>,
            /// Start in the model's stationary distribution (default true).
            #[serde(default = "default_true")]
            stationary: bool,
        },
        /// ns-3's RandomWalk2d: new direction and speed after `time` or `distance`.
        RandomWalk = "random_walk" {
            area: [f64; 2],
            speed: [f64; 2],
            #[serde(default)]
            time: Option<Duration>,
            #[serde(default)]
            distance: Option<f64>,
        },
        /// Gauss-Markov (Liang & Haas 1999).
        GaussMarkov = "gauss_markov" {
            area: [f64; 2],
            /// Mean speed, m/s.
            speed: f64,
            #[serde(default)]
            speed_std: f64,
            #[serde(default = "default_alpha")]
            alpha: f64,
            /// Mean direction and its standard deviation, degrees.
            #[serde(default)]
            direction: f64,
            #[serde(default)]
            direction_std: f64,
            #[serde(default = "default_step")]
            step: Duration,
        },
        /// An ns-2 movement file; `node` is the `$node_(i)` index to follow (default: the
        /// node's index in `nodes`).
        Ns2 = "ns2" {
            file: String,
            #[serde(default)]
            node: Option<usize>,
        },
    }
}

fn area(a: [f64; 2], p: &str) -> R<Area> {
    if a.iter().any(|v| !v.is_finite() || *v <= 0.0) {
        return err(
            format!("{p}.area"),
            format!("must be two sizes > 0 (metres), got {a:?}"),
        );
    }
    Ok(Area { w: a[0], h: a[1] })
}

fn speed_range(s: [f64; 2], p: &str, min_positive: bool) -> R<[f64; 2]> {
    let ok = s.iter().all(|v| v.is_finite() && *v >= 0.0) && s[0] <= s[1];
    if !ok {
        return err(
            format!("{p}.speed"),
            format!("must be [min, max] m/s with 0 <= min <= max, got {s:?}"),
        );
    }
    if min_positive && s[0] <= 0.0 {
        return err(
            format!("{p}.speed"),
            format!(
                "the stationary start needs a minimum speed > 0 (the steady state of random \
                 waypoint with speeds down to 0 does not exist), got {s:?}; or set \
                 stationary = false"
            ),
        );
    }
    Ok(s)
}

/// Builds each node's model, reading each movement file once.
pub(super) struct Models<'a> {
    sc: &'a Scenario,
    files: &'a FileAccess,
    ns2: BTreeMap<String, Ns2File>,
}

impl<'a> Models<'a> {
    pub(super) fn new(sc: &'a Scenario, files: &'a FileAccess) -> Self {
        Models {
            sc,
            files,
            ns2: BTreeMap::new(),
        }
    }

    /// Every node's model (None: no position and no model) and its path for errors.
    pub(super) fn all(&mut self) -> R<Vec<Option<Model>>> {
        let sc = self.sc;
        let mut out = Vec::with_capacity(sc.nodes.len());
        let linked: std::collections::BTreeSet<&str> = sc
            .links
            .iter()
            .flat_map(|l| [l.a.as_str(), l.b.as_str()])
            .collect();
        for (i, n) in sc.nodes.iter().enumerate() {
            let radio = n.position.is_some() || !linked.contains(n.name.as_str());
            let (spec, p) = match (&n.mobility, &sc.mobility) {
                (Some(m), _) => (Some(m), format!("nodes[{i}].mobility")),
                // The scenario's model moves the radio nodes: those with a position, and
                // those on no point-to-point link.
                (None, Some(m)) if radio => (Some(m), "mobility".to_string()),
                _ => (None, String::new()),
            };
            let model = match spec {
                None => n.position.map(Model::Fixed),
                Some(spec) => Some(self.model(spec, &p, i, n.position)?),
            };
            out.push(model);
        }
        Ok(out)
    }

    fn model(&mut self, spec: &MobilitySpec, p: &str, i: usize, position: Option<Pos>) -> R<Model> {
        let sc = self.sc;
        let name = &sc.nodes[i].name;
        let rng = || Rng::for_component(sc.seed, &format!("mobility/{name}"));
        let start = |a: &Area, rng: &mut Rng| position.unwrap_or_else(|| a.uniform(rng));
        Ok(match spec {
            MobilitySpec::ConstantPosition {} => match position {
                Some(p0) => Model::Fixed(p0),
                None => {
                    return err(
                        format!("nodes[{i}].position"),
                        "constant_position needs the node's position",
                    )
                }
            },
            MobilitySpec::ConstantVelocity { velocity } => {
                if velocity.iter().any(|v| !v.is_finite()) {
                    return err(
                        format!("{p}.velocity"),
                        format!("must be finite, got {velocity:?}"),
                    );
                }
                let Some(p0) = position else {
                    return err(
                        format!("nodes[{i}].position"),
                        "constant_velocity starts at the node's position; it has none",
                    );
                };
                Model::Velocity {
                    start: p0,
                    v: *velocity,
                }
            }
            MobilitySpec::RandomWaypoint {
                area: a,
                speed,
                pause,
                stationary,
            } => {
                let a = area(*a, p)?;
                let speed = speed_range(*speed, p, *stationary)?;
                if speed[1] <= 0.0 {
                    return err(format!("{p}.speed"), "the maximum speed must be > 0");
                }
                let pause = match pause {
                    None => [0.0, 0.0],
                    Some(PauseSpec::One(d)) => [d.0, d.0],
                    Some(PauseSpec::Range([a, b])) if a.0 <= b.0 => [a.0, b.0],
                    Some(PauseSpec::Range(r)) => {
                        return err(
                            format!("{p}.pause"),
                            format!(
                                "must be [min, max] with min <= max, got [{}, {}]",
                                r[0].0, r[1].0
                            ),
                        )
                    }
                };
                let begin = if *stationary { None } else { position };
                Model::Waypoint(Box::new(Waypoint::new(
                    a,
                    speed,
                    pause,
                    *stationary,
                    begin,
                    rng(),
                )))
            }
            MobilitySpec::RandomWalk {
                area: a,
                speed,
                time,
                distance,
            } => {
                let a = area(*a, p)?;
                let speed = speed_range(*speed, p, false)?;
                let mode = match (time, distance) {
                    (Some(t), None) if t.0 > 0.0 => WalkMode::Time(t.0),
                    (None, Some(d)) if d.is_finite() && *d > 0.0 => WalkMode::Distance(*d),
                    (None, None) => WalkMode::Time(1.0),
                    (Some(_), Some(_)) => {
                        return err(
                            format!("{p}.distance"),
                            "give `time` or `distance`, not both",
                        )
                    }
                    (Some(t), None) => {
                        return err(format!("{p}.time"), format!("must be > 0, got {}", t.0))
                    }
                    (None, Some(d)) => {
                        return err(
                            format!("{p}.distance"),
                            format!("must be > 0 metres, got {d}"),
                        )
                    }
                };
                let mut r = rng();
                let s = start(&a, &mut r);
                Model::Walk(Box::new(Walk::new(a, speed, mode, s, r)))
            }
            MobilitySpec::GaussMarkov {
                area: a,
                speed,
                speed_std,
                alpha,
                direction,
                direction_std,
                step,
            } => {
                let a = area(*a, p)?;
                for (k, v) in [
                    ("speed", *speed),
                    ("speed_std", *speed_std),
                    ("direction_std", *direction_std),
                ] {
                    if !v.is_finite() || v < 0.0 {
                        return err(format!("{p}.{k}"), format!("must be >= 0, got {v}"));
                    }
                }
                if !direction.is_finite() {
                    return err(
                        format!("{p}.direction"),
                        format!("must be finite, got {direction}"),
                    );
                }
                if !(0.0..=1.0).contains(alpha) {
                    return err(
                        format!("{p}.alpha"),
                        format!("must be in [0, 1], got {alpha}"),
                    );
                }
                if step.0 <= 0.0 {
                    return err(format!("{p}.step"), format!("must be > 0, got {}", step.0));
                }
                let mut r = rng();
                let s = start(&a, &mut r);
                Model::GaussMarkov(Box::new(GaussMarkov::new(
                    a,
                    *alpha,
                    *speed,
                    *speed_std,
                    direction.to_radians(),
                    direction_std.to_radians(),
                    step.ns(),
                    s,
                    r,
                )))
            }
            MobilitySpec::Ns2 { file, node } => {
                if !self.ns2.contains_key(file) {
                    let text = self
                        .files
                        .read_text(file)
                        .map_err(|m| super::ScenarioError::new(format!("{p}.file"), m))?;
                    let parsed = parse_ns2(&text).map_err(|m| {
                        super::ScenarioError::new(format!("{p}.file"), format!("'{file}' {m}"))
                    })?;
                    self.ns2.insert(file.clone(), parsed);
                }
                let k = node.unwrap_or(i);
                let moves = self.ns2[file].nodes.get(&k).cloned().unwrap_or_default();
                let p0 = match (moves.x, moves.y, position) {
                    (Some(x), Some(y), _) => [x, y],
                    (_, _, Some(p0)) => p0,
                    _ => {
                        return err(
                            format!("{p}.file"),
                            format!("'{file}' sets no X_ and Y_ of $node_({k}) and node '{name}' has no position"),
                        )
                    }
                };
                Model::Ns2(Box::new(Ns2Trace::new(p0, moves.dests)))
            }
        })
    }
}

/// `trace.positions` and `trace.rssi`: set up what the run records.
pub(super) fn traces(sc: &Scenario, sim: &mut crate::sim::Sim, models: &[Option<Model>]) -> R<()> {
    use crate::device::wifi::RssiLog;
    use crate::device::{AnyDevice, WifiDev};
    if let Some(iv) = sc.trace.positions {
        if iv.0 < 1e-3 {
            return err(
                "trace.positions",
                format!("the sample interval must be >= 1ms, got {} s", iv.0),
            );
        }
        let n = (sc.duration.0 / iv.0) as u64 + 1;
        let moving = models.iter().flatten().filter(|m| !m.is_static()).count() as u64;
        if n.saturating_mul(moving) > 10_000_000 {
            return err(
                "trace.positions",
                format!(
                    "{} s over {} s for {moving} moving nodes would make {} samples (limit 10^7)",
                    iv.0,
                    sc.duration.0,
                    n * moving
                ),
            );
        }
        let nodes = models
            .iter()
            .enumerate()
            .filter_map(|(i, m)| Some((sc.nodes[i].name.clone(), m.clone()?)))
            .collect();
        sim.radio_trace
            .get_or_insert_with(Default::default)
            .positions = Some(crate::mobility::series::Tracks {
            interval: iv.ns(),
            nodes,
        });
    }
    let mut media: Vec<String> = Vec::new();
    for d in &sim.devices {
        if let AnyDevice::Other(dev) = d {
            if let Some(w) = dev.as_any().downcast_ref::<WifiDev>() {
                let name = w.medium();
                if !media.contains(&name) {
                    media.push(name);
                }
            }
        }
    }
    for (i, m) in sc.trace.rssi.iter().enumerate() {
        if m != "*" && !media.contains(m) {
            let names: Vec<&str> = media.iter().map(|s| s.as_str()).collect();
            return err(
                format!("trace.rssi[{i}]"),
                crate::util::unknown_name("802.11 medium", m, &names),
            );
        }
    }
    let all = sc.trace.rssi.iter().any(|m| m == "*");
    let mut traced = Vec::new();
    for d in &sim.devices {
        if let AnyDevice::Other(dev) = d {
            if let Some(w) = dev.as_any().downcast_ref::<WifiDev>() {
                let mut net = w.net.borrow_mut();
                if net.rssi.is_none() && (all || sc.trace.rssi.contains(&net.name)) {
                    let n = net.stations.len();
                    net.rssi = Some(Box::new(RssiLog {
                        stations: vec![Vec::new(); n],
                    }));
                    traced.push(w.net.clone());
                }
            }
        }
    }
    if !traced.is_empty() {
        sim.radio_trace.get_or_insert_with(Default::default).rssi = traced;
    }
    Ok(())
}
