//! Scenario text builders shared by the integration tests.
#![allow(dead_code)]

use airtcp_core::RunResult;

/// A single path S - R1 - R2 - D with the given bottleneck (R1-R2) and a last hop R2-D that
/// loses data packets with probability `per`.
pub struct Path {
    pub access_rate: &'static str,
    pub access_delay: &'static str,
    pub bottleneck_rate: &'static str,
    pub bottleneck_delay: &'static str,
    pub queue: u64,
    pub per: f64,
    pub applies_to: &'static str,
    pub duration: f64,
    pub seed: u64,
    pub app: String,
    pub tcp: String,
    pub flows: usize,
    pub cc: &'static str,
}

impl Default for Path {
    fn default() -> Self {
        Path {
            access_rate: "10Mbps",
            access_delay: "10ms",
            bottleneck_rate: "10Mbps",
            bottleneck_delay: "30ms",
            queue: 1000,
            per: 0.0,
            applies_to: "data",
            duration: 100.0,
            seed: 1,
            app: r#"{ kind = "bulk" }"#.into(),
            tcp: String::new(),
            flows: 1,
            cc: "newreno",
        }
    }
}

impl Path {
    pub fn toml(&self) -> String {
        let mut s = format!(
            "name = \"path\"\nduration = {}\nseed = {}\n[tcp]\n{}\n",
            self.duration, self.seed, self.tcp
        );
        for n in ["S", "D"] {
            s += &format!("[[nodes]]\nname = \"{n}\"\n");
        }
        for n in ["R1", "R2"] {
            s += &format!("[[nodes]]\nname = \"{n}\"\nkind = \"router\"\n");
        }
        s += &format!(
            "[[links]]\na = \"S\"\nb = \"R1\"\nrate = \"{}\"\ndelay = \"{}\"\nqueue = {{ limit = {} }}\n",
            self.access_rate, self.access_delay, self.queue
        );
        s += &format!(
            "[[links]]\na = \"R1\"\nb = \"R2\"\nrate = \"{}\"\ndelay = \"{}\"\nqueue = {{ limit = {} }}\n",
            self.bottleneck_rate, self.bottleneck_delay, self.queue
        );
        s += &format!(
            "[[links]]\na = \"R2\"\nb = \"D\"\nkind = \"wireless\"\nrate = \"{}\"\ndelay = \"{}\"\nqueue = {{ limit = {} }}\nerror = {{ model = \"bernoulli\", per = {}, applies_to = \"{}\" }}\n",
            self.access_rate, self.access_delay, self.queue, self.per, self.applies_to
        );
        for i in 0..self.flows {
            s += &format!(
                "[[flows]]\nname = \"f{i}\"\nsrc = \"S\"\ndst = \"D\"\ncc = \"{}\"\nstart = {}\napp = {}\n",
                self.cc,
                i as f64 * 0.001,
                self.app
            );
        }
        s
    }

    pub fn run(&self) -> RunResult {
        airtcp_core::run_toml(&self.toml()).unwrap_or_else(|e| panic!("{e}\n{}", self.toml()))
    }
}

/// Mean goodput over seeds 1..=4 of one `cc` flow on the default 10 Mbps path with Bernoulli
/// data loss `per`, 100 s, 1 MiB receive window.
pub fn mean_goodput(cc: &'static str, per: f64) -> f64 {
    (1..=4)
        .map(|seed| {
            Path {
                cc,
                per,
                seed,
                duration: 100.0,
                tcp: "rcv_window = \"1MiB\"".into(),
                ..Default::default()
            }
            .run()
            .flows[0]
                .goodput_bps
        })
        .sum::<f64>()
        / 4.0
}

/// Two flows into one 10 Mbps bottleneck (R1-R2, 5 ms, `queue` packets): `a` from S1 over
/// a 2.5 ms access link (RTT about 25 ms), `b` from S2 over `b_delay`, both with SACK.
pub fn two_flows(a: &str, b: &str, b_delay: &str, queue: &str, duration: f64, seed: u64) -> String {
    let mut s = format!("name = \"two\"\nduration = {duration}\nseed = {seed}\n[tcp]\nrcv_window = \"4MiB\"\nsack = true\n");
    for n in ["S1", "S2", "D"] {
        s += &format!("[[nodes]]\nname = \"{n}\"\n");
    }
    for n in ["R1", "R2"] {
        s += &format!("[[nodes]]\nname = \"{n}\"\nkind = \"router\"\n");
    }
    for (x, y, rate, delay, q) in [
        ("S1", "R1", "100Mbps", "2.5ms", "{ limit = 1000 }"),
        ("S2", "R1", "100Mbps", b_delay, "{ limit = 1000 }"),
        ("R1", "R2", "10Mbps", "5ms", queue),
        ("R2", "D", "100Mbps", "5ms", "{ limit = 1000 }"),
    ] {
        s += &format!("[[links]]\na = \"{x}\"\nb = \"{y}\"\nrate = \"{rate}\"\ndelay = \"{delay}\"\nqueue = {q}\n");
    }
    for (name, src, cc) in [("a", "S1", a), ("b", "S2", b)] {
        s += &format!("[[flows]]\nname = \"{name}\"\nsrc = \"{src}\"\ndst = \"D\"\ncc = \"{cc}\"\napp = {{ kind = \"bulk\" }}\n");
    }
    s
}

/// Goodputs (a, b) summed over seeds 1-3.
pub fn shares(a: &str, b: &str, b_delay: &str, queue: &str, duration: f64) -> (f64, f64) {
    let (mut ga, mut gb) = (0.0, 0.0);
    for seed in 1..=3 {
        let r = airtcp_core::run_toml(&two_flows(a, b, b_delay, queue, duration, seed)).unwrap();
        ga += r.flows.iter().find(|f| f.name == "a").unwrap().goodput_bps;
        gb += r.flows.iter().find(|f| f.name == "b").unwrap().goodput_bps;
    }
    (ga, gb)
}

/// Run a scenario given as JSON; its result as JSON (panics with the error).
pub fn run_value(sc: &serde_json::Value) -> serde_json::Value {
    let out = airtcp_core::run_json(&sc.to_string()).unwrap_or_else(|e| panic!("{e}"));
    serde_json::from_str(&out).unwrap()
}

/// The error a scenario given as JSON ends with (panics if it runs).
pub fn run_err(sc: &serde_json::Value) -> String {
    airtcp_core::run_json(&sc.to_string())
        .unwrap_err()
        .to_string()
}

/// Conservation of a result's data packets: every one sent is delivered, dropped with a cause
/// or still in the network (control packets of a routing protocol are counted apart).
pub fn assert_conserved(r: &serde_json::Value) {
    let p = &r["packets"];
    assert_eq!(
        p["sent"].as_u64().unwrap(),
        p["delivered"].as_u64().unwrap()
            + p["dropped"].as_u64().unwrap()
            + p["in_flight"].as_u64().unwrap(),
        "{p}"
    );
}

/// A node's row of the `macs` table.
pub fn mac_row<'a>(r: &'a serde_json::Value, node: &str) -> &'a serde_json::Value {
    r["macs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["node"] == node)
        .unwrap_or_else(|| panic!("no MAC row for {node}"))
}
