//! MEMBRANE's pieces (seed paper 001) in scenarios: TIBET's estimate, the ERN cap, the
//! adaptive NewReno's switch, ELN from a TDMA hop, request/response, node-owned TDMA slots.

use serde_json::{json, Value};

fn run(sc: &Value) -> Value {
    serde_json::from_str(&airtcp_core::run_json(&sc.to_string()).unwrap()).unwrap()
}

/// A TDMA chain n0 .. n<hops>: 10 Mbit/s links, 1 ms slots, one flow from the last node to n0.
fn tdma_chain(hops: usize, per: f64, cc: &str, schedule: &str) -> Value {
    let nodes: Vec<Value> = (0..=hops)
        .map(|i| json!({"name": format!("n{i}")}))
        .collect();
    let links: Vec<Value> = (0..hops)
        .map(|i| {
            json!({"a": format!("n{i}"), "b": format!("n{}", i + 1), "rate": "10Mbps",
                   "delay": "10us", "medium": "mesh", "queue": {"limit": 100},
                   "error": {"model": "bernoulli", "per": per, "applies_to": "data"}})
        })
        .collect();
    json!({
        "duration": 60, "nodes": nodes, "links": links,
        "media": [{"name": "mesh", "kind": "tdma", "slot": "1ms", "guard": "10us",
                   "schedule": schedule}],
        "flows": [{"name": "f", "src": format!("n{hops}"), "dst": "n0", "cc": cc,
                   "app": {"kind": "bulk"}}],
    })
}

#[test]
fn tibet_estimates_the_bottleneck_rate() {
    let sc = json!({
        "duration": 60, "tcp": {"segment_size": 1000},
        "nodes": [{"name": "S"}, {"name": "R", "kind": "router"}, {"name": "D"}],
        "links": [{"a": "S", "b": "R", "rate": "10Mbps", "delay": "5ms"},
                  {"a": "R", "b": "D", "rate": "2Mbps", "delay": "20ms", "queue": {"limit": 30}}],
        "flows": [{"src": "S", "dst": "D", "cc": "tibet", "app": {"kind": "bulk"}}],
    });
    let r = run(&sc);
    let f = &r["flows"][0];
    // ACKs return at the bottleneck's packet rate: the payload share of 2 Mbit/s.
    let bwe = f["bwe_bps"].as_f64().unwrap();
    assert!((bwe / (2e6 * 1000.0 / 1040.0) - 1.0).abs() < 0.1, "{bwe}");
    assert!(f["goodput_bps"].as_f64().unwrap() > 0.9 * 2e6 * 1000.0 / 1040.0);
}

#[test]
fn ern_caps_the_window_at_the_offered_rate() {
    let mut sc = tdma_chain(3, 0.0, "newreno-ern", "flows");
    sc["agents"] = json!([{"kind": "explicit_rate", "node": "*"}]);
    let ern = run(&sc);
    let plain = run(&tdma_chain(3, 0.0, "newreno", "flows"));
    let f = &ern["flows"][0];
    assert!(f["xl_ern_capped_acks"].as_f64().unwrap() > 0.0);
    // Six scheduled link directions: 0.99 ms of every 6 ms at 10 Mbit/s per hop.
    let offered = 10e6 * 0.99 / 6.0;
    // The cap keeps the queues short where plain NewReno fills them.
    let q = |r: &Value| {
        r["links"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["max_queue_packets"].as_u64().unwrap())
            .max()
            .unwrap()
    };
    assert!(q(&ern) < q(&plain) / 2, "{} vs {}", q(&ern), q(&plain));
    assert!(f["goodput_bps"].as_f64().unwrap() < offered);
    assert!(f["goodput_bps"].as_f64().unwrap() > 0.5 * offered);
}

#[test]
fn eln_from_a_tdma_hop_spares_the_window_and_the_adaptive_scheme_switches_to_it() {
    // 5% frame errors per hop, data only: ELN marks let NewReno resend without cutting.
    let mut eln = tdma_chain(3, 0.05, "newreno", "flows");
    eln["agents"] = json!([{"kind": "eln", "node": "*"}]);
    let with = run(&eln);
    let without = run(&tdma_chain(3, 0.05, "newreno", "flows"));
    let (fw, fo) = (&with["flows"][0], &without["flows"][0]);
    assert!(fw["eln_retransmits"].as_u64().unwrap() > 50);
    assert_eq!(fo["eln_retransmits"], 0);
    assert!(fw["goodput_bps"].as_f64().unwrap() > 1.3 * fo["goodput_bps"].as_f64().unwrap());
    // The adaptive scheme sees about 14% of its segments lost (1 − 0.95³) and uses ELN.
    let mut ad = tdma_chain(3, 0.05, "newreno-adaptive", "flows");
    ad["agents"] = json!([{"kind": "eln", "node": "*"}, {"kind": "explicit_rate", "node": "*"}]);
    let r = run(&ad);
    let f = &r["flows"][0];
    assert_eq!(f["xl_using_eln_at_end"], 1.0);
    // Its estimate counts the losses the sender hears of through ELN-marked duplicates: not
    // a segment lost at the tail of a window or a lost retransmission (those end in a
    // timeout), so it stays below the fraction of segments lost, and far above the 1 %
    // threshold.
    let per = f["xl_per_estimate"].as_f64().unwrap();
    let lost = f["lost_channel_error"].as_f64().unwrap() / f["sent_packets"].as_f64().unwrap();
    assert!(per > 0.05 && per <= lost, "estimate {per}, lost {lost}");
    // On a clean path it stays with ERN.
    let mut clean = tdma_chain(3, 0.0, "newreno-adaptive", "flows");
    clean["agents"] = ad["agents"].clone();
    let f = run(&clean)["flows"][0].clone();
    assert_eq!(f["xl_using_eln_at_end"], 0.0);
    assert_eq!(f["xl_switches"], 0.0);
}

#[test]
fn the_online_threshold_is_computed_from_rate_and_rtt_and_picks_eln_on_a_lossy_path() {
    let agents = json!([{"kind": "eln", "node": "*"}, {"kind": "explicit_rate", "node": "*"}]);
    let mut lossy = tdma_chain(3, 0.05, "newreno-adaptive-online", "flows");
    lossy["agents"] = agents.clone();
    // Padhye's model (the default) counts the timeouts a loss costs: a lower crossing than
    // Mathis's, and ELN at 5% too.
    let padhye = run(&lossy)["flows"][0].clone();
    assert_eq!(padhye["xl_using_eln_at_end"], 1.0);
    lossy["flows"][0]["cc_params"] = json!({"online_model": 0.0});
    let f = run(&lossy)["flows"][0].clone();
    let t = f["xl_threshold_at_end"].as_f64().unwrap();
    let tp = padhye["xl_threshold_at_end"].as_f64().unwrap();
    assert!(tp < t, "Padhye {tp}, Mathis {t}");
    // (1.22 · MSS · 8 / (RTT · rate))² with the 1000-byte segments, the echoed rate (six
    // link directions take turns: 0.99 ms of every 6 ms at 10 Mbit/s) and the smoothed RTT
    // at the end; the threshold is smoothed over the last ACKs, whose RTT moves with slot
    // waits.
    let rate = 10e6 * 0.99 / 6.0;
    let srtt = f["srtt_s"].as_f64().unwrap();
    let want = (1.22 * 1000.0 * 8.0 / (srtt * rate)).powi(2);
    assert!(
        (t / want - 1.0).abs() < 0.15,
        "threshold {t}, formula {want}"
    );
    assert_eq!(f["xl_using_eln_at_end"], 1.0);
    let mut clean = tdma_chain(3, 0.0, "newreno-adaptive-online", "flows");
    clean["agents"] = agents;
    let f = run(&clean)["flows"][0].clone();
    assert_eq!(f["xl_using_eln_at_end"], 0.0);
}

#[test]
fn node_owned_slots_are_shared_by_the_nodes_links() {
    // Two flows leave the middle node m on different links: with per-node slots they share
    // m's radio, with per-link slots each has its own.
    let sc = |schedule: &str| {
        json!({
            "duration": 20,
            "nodes": [{"name": "a"}, {"name": "m"}, {"name": "b"}],
            "links": [
                {"a": "m", "b": "a", "rate": "10Mbps", "delay": "10us", "medium": "t"},
                {"a": "m", "b": "b", "rate": "10Mbps", "delay": "10us", "medium": "t"},
            ],
            "media": [{"name": "t", "kind": "tdma", "slot": "1ms", "schedule": schedule}],
            "flows": [
                {"src": "m", "dst": "a", "app": {"kind": "cbr", "rate": "9Mbps", "packet_size": 1000}},
                {"src": "m", "dst": "b", "app": {"kind": "cbr", "rate": "9Mbps", "packet_size": 1000}},
            ],
        })
    };
    let tput = |r: &Value| -> f64 {
        r["flows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["throughput_bps"].as_f64().unwrap())
            .sum()
    };
    // Per node: slots for m (its two links share it) and a, b (their reverse links).
    let nodes = run(&sc("nodes"));
    // Per link: four link directions, each a quarter.
    let links = run(&sc("flows"));
    assert!(
        (tput(&nodes) / (10e6 / 3.0) - 1.0).abs() < 0.01,
        "{}",
        tput(&nodes)
    );
    assert!(
        (tput(&links) / (2.0 * 10e6 / 4.0) - 1.0).abs() < 0.01,
        "{}",
        tput(&links)
    );
}

#[test]
fn a_response_starts_when_its_request_has_arrived() {
    let sc = json!({
        "duration": 30,
        "nodes": [{"name": "C"}, {"name": "S"}],
        "links": [{"a": "C", "b": "S", "rate": "2Mbps", "delay": "10ms"}],
        "flows": [
            {"name": "req", "src": "C", "dst": "S", "app": {"kind": "file", "size": 256}},
            {"name": "resp", "src": "S", "dst": "C", "after": "req",
             "app": {"kind": "file", "size": "1MB"}},
        ],
    });
    let r = run(&sc);
    let (req, resp) = (&r["flows"][0], &r["flows"][1]);
    // The request (256 bytes + 40 of headers) arrives after its transmission and one delay.
    let arrived = 0.010 + 296.0 * 8.0 / 2e6;
    assert!(
        (resp["start_s"].as_f64().unwrap() - arrived).abs() < 1e-4,
        "{resp}"
    );
    assert_eq!(resp["delivered_bytes"], 1_000_000);
    assert_eq!(req["delivered_bytes"], 256);
    // Completion is timed from the response's own start: 1 MB at 2 Mbit/s (with headers)
    // and a round trip or so of slow start.
    let done = resp["completion_time_s"].as_f64().unwrap();
    assert!(done > 1e6 * 8.0 / 2e6 && done < 6.0, "{done}");
    let g = resp["goodput_bps"].as_f64().unwrap();
    assert!((g - 1e6 * 8.0 / done).abs() < 1.0, "{g}");
    let bad = |k: &str, v: Value| {
        let mut s = sc.clone();
        s["flows"][1][k] = v;
        airtcp_core::run_json(&s.to_string())
            .unwrap_err()
            .to_string()
    };
    assert!(bad("after", json!("rq")).starts_with("flows[1].after: unknown flow 'rq'"));
    assert!(bad("start", json!(1)).starts_with("flows[1].start: a flow with `after`"));
    let mut s = sc.clone();
    s["flows"][0]["app"] = json!({"kind": "bulk"});
    let e = airtcp_core::run_json(&s.to_string())
        .unwrap_err()
        .to_string();
    assert!(e.contains("must be a TCP flow with a `file` app"), "{e}");
}
