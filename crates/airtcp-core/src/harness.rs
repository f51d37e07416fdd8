//! Build small networks in code, for tests and experiments: describe nodes, links, flows and
//! hooks with a few calls, build a [`Sim`], then step it event by event or to a time and
//! inspect any device, hook or endpoint.
//!
//! ```
//! use airtcp_core::harness::Net;
//! let mut sim = Net::new("2s")
//!     .host("a")
//!     .router("r")
//!     .host("b")
//!     .link("a", "r", "10Mbps", "1ms")
//!     .link("r", "b", "2Mbps", "5ms")
//!     .bulk("f", "a", "b", "newreno")
//!     .build()
//!     .unwrap();
//! sim.run_until(airtcp_core::engine::SEC);
//! let f = sim.flow_named("f").unwrap();
//! assert!(sim.sender(f).snd_una > 0);
//! ```

use serde_json::{json, Value};

use crate::scenario::{self, ScenarioError};
use crate::sim::Sim;

/// A scenario under construction (the same schema as scenario files).
#[derive(Clone, Debug)]
pub struct Net {
    doc: Value,
}

impl Net {
    /// A network simulated for `duration` (e.g. `"10s"`).
    pub fn new(duration: &str) -> Net {
        Net {
            doc: json!({
                "name": "harness",
                "duration": duration,
                "nodes": [],
                "links": [],
                "flows": [],
                "agents": [],
            }),
        }
    }

    fn push(mut self, list: &str, v: Value) -> Net {
        self.doc[list]
            .as_array_mut()
            .expect("a list in the document")
            .push(v);
        self
    }

    pub fn host(self, name: &str) -> Net {
        self.push("nodes", json!({"name": name, "kind": "host"}))
    }

    pub fn router(self, name: &str) -> Net {
        self.push("nodes", json!({"name": name, "kind": "router"}))
    }

    pub fn link(self, a: &str, b: &str, rate: &str, delay: &str) -> Net {
        self.push(
            "links",
            json!({"a": a, "b": b, "rate": rate, "delay": delay}),
        )
    }

    /// A link with further keys (queue, error, kind, arq) as in a scenario file.
    pub fn link_with(self, a: &str, b: &str, rate: &str, delay: &str, extra: Value) -> Net {
        let mut l = json!({"a": a, "b": b, "rate": rate, "delay": delay});
        merge(&mut l, extra);
        self.push("links", l)
    }

    /// A bulk TCP flow with scheme `cc`.
    pub fn bulk(self, name: &str, src: &str, dst: &str, cc: &str) -> Net {
        self.push(
            "flows",
            json!({"name": name, "src": src, "dst": dst, "cc": cc, "app": {"kind": "bulk"}}),
        )
    }

    /// A flow with every key given (`app`, `cc`, `tcp`, ...).
    pub fn flow(self, spec: Value) -> Net {
        self.push("flows", spec)
    }

    /// A hook from its scenario table (`{"kind": "snoop", "node": "bs"}`).
    pub fn hook(self, spec: Value) -> Net {
        self.push("agents", spec)
    }

    /// Set a top-level key (`seed`, `tcp`, `trace`, ...).
    pub fn set(mut self, key: &str, v: Value) -> Net {
        self.doc[key] = v;
        self
    }

    /// The scenario as JSON, as a file would hold it.
    pub fn to_json(&self) -> String {
        self.doc.to_string()
    }

    pub fn build(&self) -> Result<Sim, ScenarioError> {
        scenario::build(&scenario::parse_json(&self.to_json())?)
    }
}

fn merge(into: &mut Value, extra: Value) {
    if let (Some(a), Value::Object(b)) = (into.as_object_mut(), extra) {
        for (k, v) in b {
            a.insert(k, v);
        }
    }
}
