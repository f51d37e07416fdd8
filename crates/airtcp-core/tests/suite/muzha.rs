//! TCP Muzha with DRAI routers (seed paper 003): the routers' index steers the window.

use serde_json::{json, Value};

fn path(cc: &str, drai: bool) -> Value {
    let mut sc = json!({
        "duration": 60, "tcp": {"segment_size": 1000},
        "nodes": [{"name": "S"}, {"name": "R1", "kind": "router"},
                  {"name": "R2", "kind": "router"}, {"name": "D"}],
        "links": [
            {"a": "S", "b": "R1", "rate": "10Mbps", "delay": "2ms"},
            {"a": "R1", "b": "R2", "rate": "1Mbps", "delay": "20ms", "queue": {"limit": 50}},
            {"a": "R2", "b": "D", "rate": "10Mbps", "delay": "2ms"},
        ],
        "flows": [{"src": "S", "dst": "D", "cc": cc, "app": {"kind": "bulk"}}],
    });
    if drai {
        sc["agents"] = json!([{"kind": "drai", "node": "*"}]);
    }
    sc
}

fn run(sc: &Value) -> Value {
    serde_json::from_str(&airtcp_core::run_json(&sc.to_string()).unwrap()).unwrap()
}

fn bottleneck(r: &Value) -> &Value {
    r["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == "R1->R2")
        .unwrap()
}

#[test]
fn routers_hold_the_bottleneck_queue_short_without_losing_throughput() {
    let reno = run(&path("newreno", false));
    let mz = run(&path("muzha", true));
    let (fr, fm) = (&reno["flows"][0], &mz["flows"][0]);
    // NewReno fills the 50-packet buffer until it overflows; Muzha's routers say "stabilize"
    // once about one packet queues (queue_low), so the queue stays a few packets long.
    assert!(bottleneck(&reno)["mean_queue_packets"].as_f64().unwrap() > 20.0);
    assert!(bottleneck(&mz)["mean_queue_packets"].as_f64().unwrap() < 5.0);
    assert_eq!(bottleneck(&mz)["drops_queue_overflow"], 0);
    assert!(fm["goodput_bps"].as_f64().unwrap() >= 0.98 * fr["goodput_bps"].as_f64().unwrap());
    // Most rounds applied "stabilizing" (MRAI 3).
    let r3 = fm["muzha_rounds_mrai3"].as_f64().unwrap();
    let all: f64 = (1..=5)
        .map(|k| fm[format!("muzha_rounds_mrai{k}")].as_f64().unwrap())
        .sum();
    assert!(r3 > 0.9 * all, "{fm}");
    // Every node stamped the segments it sent on; the bottleneck router lowered the field.
    let r1 = mz["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["node"] == "R1")
        .unwrap();
    assert!(r1["drai_3"].as_u64().unwrap() > 0);
}

#[test]
fn without_routers_muzha_doubles_every_round_and_overflows() {
    // No DRAI on the path: every ACK reads as the sender's own maximum, 5.
    let r = run(&path("muzha", false));
    let f = &r["flows"][0];
    for k in 1..=4 {
        assert_eq!(f[format!("muzha_rounds_mrai{k}")], 0.0);
    }
    assert!(f["muzha_rounds_mrai5"].as_f64().unwrap() > 10.0);
    assert!(bottleneck(&r)["drops_queue_overflow"].as_u64().unwrap() > 50);
}

#[test]
fn unmarked_losses_keep_the_window_and_are_judged_random() {
    // Channel errors on the last hop with short queues: losses arrive without a deceleration
    // index, so Muzha retransmits without a cut and calls them wireless.
    let mut sc = path("muzha", true);
    sc["links"][2]["error"] = json!({"model": "bernoulli", "per": 0.02, "applies_to": "data"});
    let r = run(&sc);
    let f = &r["flows"][0];
    let fast = f["fast_retransmits"].as_u64().unwrap();
    let uncut = f["uncut_retransmits"].as_u64().unwrap();
    assert!(fast > 10);
    // Those judged random keep the window: more than four in five, as for the verdicts.
    assert!(
        uncut * 5 > fast * 4,
        "{uncut} of {fast} fast retransmits uncut"
    );
    let wireless = f["verdicts_on_wireless_loss"].as_u64().unwrap();
    let t2 = f["type2_errors"].as_u64().unwrap();
    assert!(wireless > 10);
    assert!(
        t2 * 5 < wireless,
        "most channel losses judged random: {t2} of {wireless}"
    );
}

#[test]
fn drai_parameters_are_checked() {
    let mut sc = path("muzha", true);
    sc["agents"][0]["queue_mid"] = json!(0.5);
    let e = airtcp_core::run_json(&sc.to_string())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("agents[0].queue_mid: must be >= queue_low (1)"),
        "{e}"
    );
    let mut sc = path("muzha", true);
    sc["agents"][0]["node"] = json!("R9");
    let e = airtcp_core::run_json(&sc.to_string())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("agents[0].node: unknown node 'R9'"), "{e}");
}

/// An 802.11 chain of `hops` hops (ns-2 preset, 200 m apart) with DRAI agents `drai` at every
/// node and one Muzha flow.
fn chain(hops: usize, drai: Value) -> Value {
    let nodes: Vec<Value> = (0..=hops)
        .map(|i| json!({"name": format!("n{i}"), "position": [200 * i, 0]}))
        .collect();
    let mut agent = drai;
    agent["kind"] = json!("drai");
    agent["node"] = json!("*");
    json!({
        "duration": 20, "tcp": {"profile": "ns2", "segment_size": 1460},
        "nodes": nodes,
        "media": [{"name": "air", "kind": "wifi", "preset": "ns2",
                   "queue": {"kind": "droptail", "limit": 50}}],
        "flows": [{"name": "ftp", "src": "n0", "dst": format!("n{hops}"), "cc": "muzha",
                   "app": {"kind": "bulk"}}],
        "agents": [agent],
    })
}

fn stamped(r: &Value, level: u8) -> u64 {
    r["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a[format!("drai_{level}")].as_u64().unwrap())
        .sum()
}

#[test]
fn a_longer_drop_memory_stamps_more_segments_moderate_deceleration() {
    // The drop memory is a parameter of its own (the busy window stays 100 ms); a memory of
    // two round trips timed by each node lies between the default and a whole second.
    let short = run(&chain(8, json!({})));
    let rtts = run(&chain(8, json!({"drop_memory_rtts": 2.0})));
    let long = run(&chain(8, json!({"drop_memory": "1s"})));
    let share = |r: &Value| {
        let all: u64 = (1..=5).map(|k| stamped(r, k)).sum();
        stamped(r, 2) as f64 / all as f64
    };
    let (s, m, l) = (share(&short), share(&rtts), share(&long));
    assert!(s < m && m < l, "{s} {m} {l}");
}
