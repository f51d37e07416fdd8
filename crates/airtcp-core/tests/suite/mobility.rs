//! Moving stations on an 802.11 medium: a station that walks out of range loses its link and
//! regains it when it walks back; the medium reads positions when each frame starts.

use crate::common;
use airtcp_core::FileAccess;
use serde_json::{json, Value};
use std::path::PathBuf;

/// A fresh directory for a test's movement file.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("airtcp-mobility-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run_in(sc: &Value, d: &PathBuf) -> Value {
    let out = airtcp_core::run_json_with(&sc.to_string(), &FileAccess::within(d))
        .unwrap_or_else(|e| panic!("{e}"));
    let r: Value = serde_json::from_str(&out).unwrap();
    common::assert_conserved(&r);
    r
}

fn err_in(sc: &Value, d: &PathBuf) -> String {
    airtcp_core::run_json_with(&sc.to_string(), &FileAccess::within(d))
        .unwrap_err()
        .to_string()
}

/// `a` stays at the origin and sends 20 packets/s (CBR) to `b`, which starts 100 m away,
/// walks out along x at 50 m/s from 1 s to 600 m, and back to 100 m from 15 s. ns-2 radio:
/// 250 m receive range, so `b` is out of range from 4 s to 22 s.
fn walk_away(duration: f64) -> Value {
    json!({
        "name": "walk", "duration": duration, "seed": 3,
        "nodes": [
            {"name": "a", "position": [0.0, 0.0]},
            {"name": "b", "position": [100.0, 0.0],
             "mobility": {"model": "ns2", "file": "walk.tcl", "node": 0}},
        ],
        "media": [{"name": "air", "kind": "wifi", "preset": "ns2"}],
        "flows": [{"name": "f", "src": "a", "dst": "b",
                   "app": {"kind": "cbr", "rate": "80kbps", "packet_size": 500}}],
        "trace": {"positions": "1s", "rssi": ["air"]},
    })
}

const WALK: &str = "# b walks away and back\n\
$node_(0) set X_ 100.0\n$node_(0) set Y_ 0.0\n$node_(0) set Z_ 0.0\n\n\
$ns_ at 1.0 \"$node_(0) setdest 600.0 0.0 50.0\"\n\
$ns_ at 15.0 \"$node_(0) setdest 100.0 0.0 50.0\"\n";

fn received(r: &Value) -> u64 {
    r["flows"][0]["received_packets"].as_u64().unwrap()
}

#[test]
fn station_walking_out_of_range_loses_and_regains_its_link() {
    let d = dir("walk");
    std::fs::write(d.join("walk.tcl"), WALK).unwrap();
    // Until 20 s: delivered while in range (the first 4 s, 80 packets), nothing after.
    let r20 = run_in(&walk_away(20.0), &d);
    let got = received(&r20);
    assert!((77..=82).contains(&got), "received {got} by 20 s");
    let dropped = r20["drops"]["mac_retry_limit"].as_u64().unwrap_or(0)
        + r20["drops"]["channel_error"].as_u64().unwrap_or(0)
        + r20["drops"]["collision"].as_u64().unwrap_or(0)
        + r20["drops"]["queue_overflow"].as_u64().unwrap_or(0);
    assert!(
        dropped > 200,
        "out of range packets are lost: {}",
        r20["drops"]
    );
    // Back in range at 22 s: the 8 s to 30 s deliver again (160 packets sent then).
    let r30 = run_in(&walk_away(30.0), &d);
    let more = received(&r30) - got;
    assert!((150..=175).contains(&more), "received {more} after 20 s");
    // The position series follows the file: 100 m, 300 m at 5 s, 600 m from 11 s, back.
    let b = &r30["series"]["positions"]["b"];
    let x: Vec<f64> = b["x"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(x.len(), 31);
    assert!((x[0] - 100.0).abs() < 1e-9 && (x[5] - 300.0).abs() < 1e-6);
    assert!((x[12] - 600.0).abs() < 1e-6 && (x[30] - 100.0).abs() < 1e-6);
    assert_eq!(
        r30["series"]["positions"]["a"]["x"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // b's received power from a falls with distance: two-ray ground above 86 m, 40 dB per
    // decade, so from 100 m to 200 m it drops by 12 dB.
    let rs = &r30["series"]["rssi"]["b@air"];
    let t: Vec<f64> = rs["t"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let dbm: Vec<f64> = rs["dbm"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert!(rs["from"].as_array().unwrap().iter().all(|f| f == "a"));
    let at = |want: f64| {
        let i = t.iter().position(|&x| x >= want).unwrap();
        (t[i], dbm[i])
    };
    let (t1, p1) = at(0.5);
    let (t2, p2) = at(3.0);
    let x1 = 100.0 + 50.0 * (t1 - 1.0).max(0.0);
    let x2 = 100.0 + 50.0 * (t2 - 1.0).max(0.0);
    let want = 40.0 * (x2 / x1).log10();
    assert!(
        (p1 - p2 - want).abs() < 0.01,
        "{p1} dBm at {x1} m, {p2} dBm at {x2} m"
    );
    // Nothing sensed beyond the carrier-sense range (550 m): from 10 s (550 m) to 12 s.
    assert!(!t.iter().any(|&x| x > 10.05 && x < 12.0), "sensed at 600 m");
}

#[test]
fn propagation_delay_follows_distance() {
    // The same exchange at 100 m and 240 m: each frame's arrival at b is later by
    // 140 m / c (0.47 us); the rssi series records arrival times.
    let d = dir("delay");
    let mk = |x: f64| {
        json!({
            "duration": 1, "seed": 1,
            "nodes": [
                {"name": "a", "position": [0.0, 0.0]},
                {"name": "b", "position": [x, 0.0],
                 "mobility": {"model": "constant_velocity", "velocity": [0.0, 0.0]}},
            ],
            "media": [{"name": "air", "kind": "wifi", "preset": "ns2"}],
            "flows": [{"src": "a", "dst": "b",
                       "app": {"kind": "cbr", "rate": "8kbps", "packet_size": 500}}],
            "trace": {"rssi": ["*"]},
        })
    };
    let first = |r: &Value| r["series"]["rssi"]["b@air"]["t"][0].as_f64().unwrap();
    let near = run_in(&mk(100.0), &d);
    let far = run_in(&mk(240.0), &d);
    let dt = first(&far) - first(&near);
    assert!((dt - 140.0 / 299_792_458.0).abs() < 2e-9, "{dt}");
}

#[test]
fn random_waypoint_runs_and_stays_in_its_area() {
    let d = dir("rwp");
    let nodes: Vec<Value> = (0..6)
        .map(|i| json!({"name": format!("n{i}"), "position": [0.0, 0.0]}))
        .collect();
    let sc = json!({
        "duration": 20, "seed": 9, "nodes": nodes,
        "mobility": {"model": "random_waypoint", "area": [400, 300], "speed": [1, 20],
                     "pause": "2s"},
        "media": [{"name": "air", "kind": "wifi", "preset": "ns2"}],
        "flows": [{"src": "n0", "dst": "n1", "app": {"kind": "cbr", "rate": "40kbps"}}],
        "trace": {"positions": "0.5s"},
    });
    let r = run_in(&sc, &d);
    let pos = r["series"]["positions"].as_object().unwrap();
    assert_eq!(pos.len(), 6);
    let mut moved = 0;
    for s in pos.values() {
        let x: Vec<f64> = s["x"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let y: Vec<f64> = s["y"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert_eq!(x.len(), 41);
        assert!(x.iter().all(|v| (0.0..=400.0).contains(v)));
        assert!(y.iter().all(|v| (0.0..=300.0).contains(v)));
        moved += usize::from(x.windows(2).any(|w| w[0] != w[1]));
    }
    assert!(moved >= 5, "{moved} of 6 nodes moved");
    // Same seed, same paths; another seed, other paths.
    assert_eq!(
        run_in(&sc, &d)["series"]["positions"],
        r["series"]["positions"]
    );
    let mut other = sc.clone();
    other["seed"] = json!(10);
    assert_ne!(
        run_in(&other, &d)["series"]["positions"],
        r["series"]["positions"]
    );
}

#[test]
fn bad_mobility_keys_name_their_field() {
    let d = dir("errors");
    std::fs::write(
        d.join("bad.tcl"),
        "$node_(0) set X_ 1\n$ns_ at 1 \"$node_(0) go 1 2 3\"\n",
    )
    .unwrap();
    let base = |m: Value| {
        json!({
            "duration": 1,
            "nodes": [{"name": "a", "position": [0, 0]}, {"name": "b", "position": [10, 0], "mobility": m}],
            "media": [{"name": "air", "kind": "wifi"}],
            "flows": [{"src": "a", "dst": "b", "app": {"kind": "cbr", "rate": "8kbps"}}],
        })
    };
    let cases = [
        (
            json!({"model": "random_waypoint", "area": [100, 0], "speed": [1, 2]}),
            "nodes[1].mobility.area: must be two sizes > 0",
        ),
        (
            json!({"model": "random_waypoint", "area": [100, 100], "speed": [0, 2]}),
            "nodes[1].mobility.speed: the stationary start needs a minimum speed > 0",
        ),
        (
            json!({"model": "random_waypoint", "area": [100, 100], "speed": [3, 2]}),
            "nodes[1].mobility.speed: must be [min, max]",
        ),
        (
            json!({"model": "random_walk", "area": [100, 100], "speed": [1, 2], "time": 1, "distance": 3}),
            "nodes[1].mobility.distance: give `time` or `distance`, not both",
        ),
        (
            json!({"model": "gauss_markov", "area": [100, 100], "speed": 2, "alpha": 1.5}),
            "nodes[1].mobility.alpha: must be in [0, 1]",
        ),
        (
            json!({"model": "teleport"}),
            "nodes[1].mobility.model: unknown variant `teleport`",
        ),
        (
            json!({"model": "random_walk", "area": [100, 100], "speed": [1, 2], "sped": 1}),
            "nodes[1].mobility.sped: unknown field `sped`",
        ),
        (
            json!({"model": "ns2", "file": "bad.tcl"}),
            "nodes[1].mobility.file: 'bad.tcl' line 2: expected '$ns_ at T",
        ),
        (
            json!({"model": "ns2", "file": "../x.tcl"}),
            "nodes[1].mobility.file: '../x.tcl' lies outside",
        ),
    ];
    for (m, want) in cases {
        let e = err_in(&base(m.clone()), &d);
        assert!(e.starts_with(want), "{m}: {e}");
    }
    let mut sc = base(json!({"model": "constant_position"}));
    sc["trace"] = json!({"rssi": ["aire"]});
    let e = err_in(&sc, &d);
    assert!(
        e.starts_with("trace.rssi[0]: unknown 802.11 medium 'aire'"),
        "{e}"
    );
}

#[test]
fn static_models_keep_the_static_result() {
    // constant_position (and a velocity of zero apart from the routing it implies) give the
    // same run as no model at all.
    let d = dir("static");
    let mk = |m: Option<Value>| {
        let mut b = json!({"name": "b", "position": [150.0, 0.0]});
        if let Some(m) = m {
            b["mobility"] = m;
        }
        json!({
            "duration": 5, "seed": 2,
            "nodes": [{"name": "a", "position": [0.0, 0.0]}, b],
            "media": [{"name": "air", "kind": "wifi", "preset": "ns2"}],
            "flows": [{"src": "a", "dst": "b", "cc": "newreno", "app": {"kind": "bulk"}}],
        })
    };
    let plain = run_in(&mk(None), &d);
    let fixed = run_in(&mk(Some(json!({"model": "constant_position"}))), &d);
    let still = run_in(
        &mk(Some(
            json!({"model": "constant_velocity", "velocity": [0, 0]}),
        )),
        &d,
    );
    assert_eq!(plain["flows"], fixed["flows"]);
    assert_eq!(plain["flows"], still["flows"]);
    assert_eq!(plain["macs"], still["macs"]);
}

#[test]
fn received_power_logs_count_against_the_memory_budget() {
    let d = dir("budget");
    let sc = json!({
        "duration": 300, "seed": 1, "memory_budget": "1MB",
        "nodes": [{"name": "a", "position": [0.0, 0.0]}, {"name": "b", "position": [100.0, 0.0]}],
        "media": [{"name": "air", "kind": "wifi", "preset": "ns2"}],
        "flows": [{"src": "a", "dst": "b",
                   "app": {"kind": "cbr", "rate": "400kbps", "packet_size": 500}}],
        "trace": {"rssi": ["air"]},
    });
    let e = err_in(&sc, &d);
    assert!(e.starts_with("trace.rssi: "), "{e}");
    assert!(e.contains("received-power samples"), "{e}");
}
