//! Scheme parameters (`cc_params`): each scheme declares its parameters once, with defaults and
//! descriptions ([`ParamSpec`]); the same declarations check the scenario's keys, fill in the
//! `ns3` profile's defaults and feed the schemes listing (`airtcp schemes`).

use std::collections::BTreeMap;

/// One parameter of a scheme.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    pub name: &'static str,
    pub default: f64,
    /// The default under the `ns3` TCP profile, where ns-3.44's code departs from the source
    /// the scheme follows (listed in docs/tcp_profiles.md).
    pub ns3_default: Option<f64>,
    pub description: &'static str,
}

impl ParamSpec {
    pub const fn new(name: &'static str, default: f64, description: &'static str) -> Self {
        ParamSpec {
            name,
            default,
            ns3_default: None,
            description,
        }
    }

    pub const fn ns3(
        name: &'static str,
        default: f64,
        ns3_default: f64,
        description: &'static str,
    ) -> Self {
        ParamSpec {
            name,
            default,
            ns3_default: Some(ns3_default),
            description,
        }
    }
}

/// A scheme's parameters from the scenario (`cc_params`), read with defaults; keys nobody
/// read are reported as errors. Built by the registry with the scheme's declarations, a read
/// of an undeclared key or with another default than declared is a programming error.
pub struct Params<'a> {
    map: &'a BTreeMap<String, f64>,
    used: Vec<&'static str>,
    specs: Option<&'static [ParamSpec]>,
}

impl<'a> Params<'a> {
    /// Unchecked (tests of a scheme's constructor).
    pub fn new(map: &'a BTreeMap<String, f64>) -> Self {
        Params {
            map,
            used: vec![],
            specs: None,
        }
    }

    /// Checked against the scheme's declarations.
    pub fn declared(map: &'a BTreeMap<String, f64>, specs: &'static [ParamSpec]) -> Self {
        Params {
            map,
            used: vec![],
            specs: Some(specs),
        }
    }

    pub fn get(&mut self, key: &'static str, default: f64) -> Result<f64, (String, String)> {
        if let Some(specs) = self.specs {
            let spec = specs.iter().find(|s| s.name == key);
            assert!(
                spec.is_some_and(|s| s.default == default),
                "parameter '{key}' (default {default}) read but not declared so"
            );
        }
        self.used.push(key);
        match self.map.get(key) {
            None => Ok(default),
            Some(v) if v.is_finite() => Ok(*v),
            Some(v) => Err((key.into(), format!("must be finite, got {v}"))),
        }
    }

    /// Parameter `key` with the default `specs` declares for it.
    pub fn spec(
        &mut self,
        specs: &[ParamSpec],
        key: &'static str,
    ) -> Result<f64, (String, String)> {
        let d = specs
            .iter()
            .find(|s| s.name == key)
            .unwrap_or_else(|| panic!("parameter '{key}' not declared"))
            .default;
        self.get(key, d)
    }

    /// A 0/1 parameter.
    pub fn flag(
        &mut self,
        specs: &[ParamSpec],
        key: &'static str,
    ) -> Result<bool, (String, String)> {
        let v = self.spec(specs, key)?;
        if v != 0.0 && v != 1.0 {
            return Err((key.into(), format!("must be 0 or 1, got {v}")));
        }
        Ok(v == 1.0)
    }

    /// Error for the first key the scheme does not know.
    pub fn finish(&self, scheme: &str) -> Result<(), (String, String)> {
        for k in self.map.keys() {
            if !self.used.contains(&k.as_str()) {
                let msg = if self.used.is_empty() {
                    format!("'{scheme}' takes no parameters")
                } else {
                    crate::util::unknown_name("parameter", k, &self.used).replacen(
                        "unknown parameter",
                        &format!("'{scheme}' has no parameter"),
                        1,
                    )
                };
                return Err((k.clone(), msg));
            }
        }
        Ok(())
    }
}

// Declarations of the schemes whose files predate the declarations (the values are the
// defaults those files read).

pub const WESTWOOD: &[ParamSpec] = &[
    ParamSpec::new("tau", 0.5, "Westwood's bandwidth filter time constant (s)"),
    ParamSpec::new(
        "alpha",
        0.9,
        "Westwood+'s EWMA weight of the old bandwidth estimate",
    ),
    ParamSpec::ns3(
        "ns3",
        0.0,
        1.0,
        "Westwood+ only, 1: ns-3.44's TcpWestwoodPlus estimator (ns3 profile)",
    ),
];
pub const ADAPTIVE: &[ParamSpec] = &[
    ParamSpec::new(
        "threshold",
        0.01,
        "channel-loss rate above which ELN replaces ERN",
    ),
    ParamSpec::new(
        "hysteresis",
        0.2,
        "relative band below the threshold before going back to ERN",
    ),
    ParamSpec::new(
        "per_window",
        500.0,
        "segments over which the channel-loss rate is estimated",
    ),
    ParamSpec::new(
        "hops",
        1.0,
        "hops of the route: the path's loss estimate is put on the per-link scale of the threshold",
    ),
    ParamSpec::new(
        "online_model",
        1.0,
        "online threshold from Padhye's model with timeouts (1) or Mathis's without (0)",
    ),
    ParamSpec::new(
        "min_rto",
        0.2,
        "floor of the RTO (s) the online threshold's model uses",
    ),
];
/// The adaptive scheme's parameters without its fixed threshold (the online threshold's
/// scheme computes it), declared once in `ADAPTIVE`.
pub const CROSSLAYER: &[ParamSpec] = ADAPTIVE.split_at(1).1;
pub const TIBET: &[ParamSpec] = &[ParamSpec::new(
    "alpha",
    0.99,
    "low-pass filter pole of the length and interval averages",
)];
pub const VEGAS: &[ParamSpec] = &[
    ParamSpec::ns3(
        "alpha",
        1.0,
        2.0,
        "grow while fewer than alpha segments are queued (ns-3's TcpVegas: 2)",
    ),
    ParamSpec::ns3(
        "beta",
        3.0,
        4.0,
        "shrink while more than beta segments are queued (ns-3's TcpVegas: 4)",
    ),
    ParamSpec::new(
        "gamma",
        1.0,
        "leave slow start once more than gamma segments are queued",
    ),
    ParamSpec::ns3("ns3", 0.0, 1.0, "1: ns-3.44's TcpVegas rules (ns3 profile)"),
];
pub const VENO: &[ParamSpec] = &[
    ParamSpec::new(
        "beta",
        3.0,
        "backlog (segments) below which a loss is judged random",
    ),
    ParamSpec::ns3("ns3", 0.0, 1.0, "1: ns-3.44's TcpVeno rules (ns3 profile)"),
];
pub const CUBIC: &[ParamSpec] = &[
    ParamSpec::new("c", 0.4, "C, the cubic scaling constant"),
    ParamSpec::new("beta", 0.7, "beta_cubic, the window kept after a loss"),
    ParamSpec::new("fast_convergence", 1.0, "1: fast convergence on"),
    ParamSpec::new("linux", 0.0, "0: RFC 9438 in floating point, 1: Linux's integer arithmetic with HyStart (linux profile), 2: ns-3's port (ns3 profile)"),
    ParamSpec::new("hz", 0.0, "with linux = 1 or 2: the kernel clock rate (jiffies per second) bictcp_update runs on; 0: exact time (linux profile: 250)"),
];
pub const MECN: &[ParamSpec] = &[
    ParamSpec::new(
        "beta1",
        0.2,
        "window fraction cut on a '10' (incipient) mark",
    ),
    ParamSpec::new(
        "beta2",
        0.4,
        "window fraction cut on a '11' (moderate) mark",
    ),
];
pub const WMECN: &[ParamSpec] = &[
    ParamSpec::new(
        "beta1",
        0.2,
        "window fraction cut on a '10' (incipient) mark",
    ),
    ParamSpec::new(
        "beta2",
        0.4,
        "window fraction cut on a '11' (moderate) mark",
    ),
    ParamSpec::new(
        "react_to_marks",
        1.0,
        "1: marks themselves cut the window, as in MECN",
    ),
];
pub const EWR: &[ParamSpec] = &[
    ParamSpec::new(
        "alpha",
        1.0,
        "Vegas backlog (segments) below which a loss gets linear increase",
    ),
    ParamSpec::new(
        "beta",
        9.0,
        "Vegas backlog (segments) above which a loss is congestion",
    ),
    ParamSpec::new("delta", 0.7, "receiver's arrival-rate filter gain"),
    ParamSpec::new(
        "interval",
        0.0,
        "Eq. 1 per packet (0) or once per this many RTT_min over the bytes since the last sample",
    ),
    ParamSpec::new(
        "loss_term",
        0.0,
        "1: cap the estimate at Padhye's throughput for the loss rate the receiver sees",
    ),
];
