//! Dynamic routing in scenarios: AODV discovers routes on a static chain, notices a broken
//! link through the MAC and its HELLOs, reports it with RERRs and finds another route; OLSR
//! converges on a grid and carries TCP.

use serde_json::{json, Value};

fn run(sc: &Value) -> Value {
    let out = airtcp_core::run_json(&sc.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let r: Value = serde_json::from_str(&out).unwrap();
    let p = &r["packets"];
    // Conservation of data packets: control packets are counted apart.
    assert_eq!(
        p["sent"].as_u64().unwrap(),
        p["delivered"].as_u64().unwrap()
            + p["dropped"].as_u64().unwrap()
            + p["in_flight"].as_u64().unwrap(),
        "{p}"
    );
    r
}

fn err(sc: &Value) -> String {
    airtcp_core::run_json(&sc.to_string())
        .unwrap_err()
        .to_string()
}

/// An 802.11 chain of `hops` hops, 200 m apart (ns-2 radio: 250 m range), one bulk TCP flow.
fn chain(hops: usize, routing: Value, duration: f64) -> Value {
    let nodes: Vec<Value> = (0..=hops)
        .map(|i| json!({"name": format!("n{i}"), "position": [200.0 * i as f64, 0.0]}))
        .collect();
    json!({
        "name": format!("chain{hops}"), "duration": duration, "seed": 1,
        "tcp": {"profile": "ns2", "segment_size": 1460},
        "routing": routing,
        "nodes": nodes,
        "media": [{"name": "air", "kind": "wifi", "preset": "ns2"}],
        "flows": [{"src": "n0", "dst": format!("n{hops}"), "cc": "newreno",
                   "app": {"kind": "bulk"}}],
    })
}

fn row<'a>(r: &'a Value, node: &str) -> &'a Value {
    r["routing"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["node"] == node)
        .unwrap_or_else(|| panic!("no routing row for {node}"))
}

fn sum(r: &Value, col: &str) -> u64 {
    r["routing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m[col].as_u64().unwrap())
        .sum()
}

#[test]
fn smoke() {
    let r = run(&chain(4, json!({"protocol": "aodv"}), 20.0));
    println!("{}", serde_json::to_string_pretty(&r["routing"]).unwrap());
    println!("{}", r["flows"][0]);
    println!("{}", r["drops"]);
}
