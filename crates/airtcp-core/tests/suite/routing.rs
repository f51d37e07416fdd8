//! Dynamic routing in scenarios: AODV discovers routes on a static chain, notices a broken
//! link through the MAC and its HELLOs, reports it with RERRs and finds another route; OLSR
//! converges on a grid and carries TCP.

use airtcp_core::device::WifiDev;
use airtcp_core::ids::NodeId;
use airtcp_core::{RunResult, Sim};
use serde_json::{json, Value};

use crate::common;
use common::run_err as err;

fn run(sc: &Value) -> Value {
    let r = common::run_value(sc);
    common::assert_conserved(&r);
    r
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

fn flow(r: &Value) -> &Value {
    &r["flows"][0]
}

fn build(sc: &Value) -> Sim {
    let sc = airtcp_core::scenario::parse_json(&sc.to_string()).unwrap();
    airtcp_core::scenario::build(&sc).unwrap()
}

fn result(sim: &Sim) -> Value {
    serde_json::to_value(RunResult::from_sim(sim)).unwrap()
}

/// The next hop `node`'s protocol names toward `dst` now.
fn next_hop(sim: &Sim, node: &str, dst: &str) -> Option<NodeId> {
    let (a, d) = (sim.node_named(node).unwrap(), sim.node_named(dst).unwrap());
    let agent = sim.routing.as_ref().unwrap().agents[a.idx()]
        .as_ref()
        .unwrap();
    agent.next_hop(sim.now(), d)
}

/// Switch node `x` off: no station hears it any more, nor it them.
fn switch_off(sim: &Sim, x: NodeId) {
    let dev = sim.nodes[x.idx()].devices[0];
    let wifi = sim.device::<WifiDev>(dev).unwrap();
    let mut net = wifi.net.borrow_mut();
    for k in 0..sim.nodes.len() as u32 {
        net.cut_link(x, NodeId(k));
    }
}

/// Control overhead adds up: AODV's totals are the sums over message types, each type's
/// bytes its RFC size with IP and UDP headers; an OLSR packet carries one or more messages,
/// its bytes theirs plus the IP, UDP and packet headers (32); the medium carried the
/// broadcasts.
fn check_overhead(r: &Value) {
    for m in r["routing"].as_array().unwrap() {
        let kinds = ["rreq", "rrep", "rerr", "hello", "tc"];
        let pk: u64 = kinds
            .iter()
            .map(|k| m[format!("{k}_packets")].as_u64().unwrap())
            .sum();
        let by: u64 = kinds
            .iter()
            .map(|k| m[format!("{k}_bytes")].as_u64().unwrap())
            .sum();
        let packets = m["control_packets"].as_u64().unwrap();
        let bytes = m["control_bytes"].as_u64().unwrap();
        if m["kind"] == "olsr" {
            assert!(packets <= pk && pk > 0, "{m}");
            assert_eq!(bytes, by + 32 * packets, "{m}");
            continue;
        }
        assert_eq!(packets, pk, "{m}");
        assert_eq!(bytes, by, "{m}");
        if m["kind"] == "aodv" {
            // RFC 3561 5.1, 5.2: RREQ 24 bytes, RREP and HELLO 20; plus 28 of IP and UDP.
            assert_eq!(m["rreq_bytes"], 52 * m["rreq_packets"].as_u64().unwrap());
            assert_eq!(m["rrep_bytes"], 48 * m["rrep_packets"].as_u64().unwrap());
            assert_eq!(m["hello_bytes"], 48 * m["hello_packets"].as_u64().unwrap());
            // 5.3: 4 bytes and 8 per unreachable destination (at least one).
            assert!(m["rerr_bytes"].as_u64().unwrap() >= 40 * m["rerr_packets"].as_u64().unwrap());
        }
    }
    let bcast: u64 = r["macs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["broadcast_frames"].as_u64().unwrap())
        .sum();
    let heard: u64 = r["macs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["rx_broadcast"].as_u64().unwrap())
        .sum();
    assert!(bcast > 0 && bcast <= sum(r, "control_packets"), "{bcast}");
    assert!(heard <= sum(r, "control_received"));
}

#[test]
fn aodv_discovers_a_route_on_a_four_hop_chain_and_delivers_tcp() {
    let r = run(&chain(4, json!({"protocol": "aodv"}), 30.0));
    let f = flow(&r);
    assert!(f["delivered_bytes"].as_u64().unwrap() > 500_000, "{f}");
    // The source looked for the destination, and so did the destination for the ACKs' way
    // back unless the reverse route of the first RREQ served.
    assert!(row(&r, "n0")["discoveries"].as_u64().unwrap() >= 1);
    assert!(row(&r, "n0")["rreq_packets"].as_u64().unwrap() >= 1);
    assert!(
        row(&r, "n4")["rrep_packets"].as_u64().unwrap() >= 1,
        "the destination answered"
    );
    // Relays relayed the flood; every node keeps its row.
    assert!(row(&r, "n2")["rreq_packets"].as_u64().unwrap() >= 1);
    assert_eq!(r["routing"].as_array().unwrap().len(), 5);
    assert!(f["pdr"].as_f64().unwrap() > 0.9, "{f}");
    check_overhead(&r);
}

#[test]
fn the_first_segment_waits_for_the_route_then_goes() {
    // One hop is found by the first RREQ (TTL 1): the first segments are held, not lost.
    let r = run(&chain(1, json!({"protocol": "aodv"}), 5.0));
    assert!(
        row(&r, "n0")["held"].as_u64().unwrap() >= 1,
        "{}",
        row(&r, "n0")
    );
    assert_eq!(row(&r, "n0")["held_expired"], 0);
    assert_eq!(row(&r, "n0")["rreq_packets"], 1);
    assert_eq!(
        flow(&r)["timeouts"],
        0,
        "no segment was lost to the discovery"
    );
}

/// Two disjoint 3-hop paths from `s` to `d`: top `t1 t2`, bottom `b1 b2` (ns-2 radio, 250 m
/// range; the paths are 300 m apart and do not hear each other's relays).
fn ladder(routing: Value) -> Value {
    let pos = [
        ("s", 0.0, 0.0),
        ("t1", 150.0, 150.0),
        ("t2", 350.0, 150.0),
        ("b1", 150.0, -150.0),
        ("b2", 350.0, -150.0),
        ("d", 500.0, 0.0),
    ];
    let nodes: Vec<Value> = pos
        .iter()
        .map(|(n, x, y)| json!({"name": n, "position": [x, y]}))
        .collect();
    json!({
        "name": "ladder", "duration": 30, "seed": 2,
        "tcp": {"profile": "ns2", "segment_size": 1460},
        "routing": routing,
        "nodes": nodes,
        "media": [{"name": "air", "kind": "wifi", "preset": "ns2"}],
        "flows": [{"src": "s", "dst": "d", "cc": "newreno", "app": {"kind": "bulk"}}],
    })
}

/// Run the ladder 10 s, switch off the second relay of the route in use, run to the end.
/// Returns the results at the switch and at the end, and the relays (first, second).
fn break_the_route(routing: Value) -> (Value, Value, String, String) {
    let mut sim = build(&ladder(routing));
    sim.run_until(10_000_000_000);
    let r1 = next_hop(&sim, "s", "d").expect("a route after 10 s");
    let r1n = sim.nodes[r1.idx()].name.clone();
    let r2 = next_hop(&sim, &r1n, "d").expect("the relay's route");
    let r2n = sim.nodes[r2.idx()].name.clone();
    assert_ne!(r2n, "d");
    let before = result(&sim);
    switch_off(&sim, r2);
    sim.run();
    (before, result(&sim), r1n, r2n)
}

#[test]
fn a_broken_link_gives_rerr_route_break_drops_and_a_new_route() {
    let (before, after, r1, r2) = break_the_route(json!({"protocol": "aodv", "hello": false}));
    // The relay before the switched-off node heard it from its MAC (retry limit) ...
    let relay = row(&after, &r1);
    assert!(
        relay["breaks_link_feedback"].as_u64().unwrap() >= 1,
        "{relay}"
    );
    // ... invalidated the route and told the source, its precursor (RFC 3561 6.11).
    assert!(
        relay["rerr_packets"].as_u64().unwrap()
            > row(&before, &r1)["rerr_packets"].as_u64().unwrap()
    );
    // Packets queued at its MAC for the lost neighbour were dropped as route breaks.
    assert!(relay["mac_queue_dropped"].as_u64().unwrap() >= 1, "{relay}");
    assert!(
        after["drops"]["route_break"].as_u64().unwrap() >= 1,
        "{}",
        after["drops"]
    );
    // The source found the other path and the transfer went on over it.
    let s = row(&after, "s");
    assert!(
        s["discoveries"].as_u64().unwrap() > row(&before, "s")["discoveries"].as_u64().unwrap()
    );
    let got = |r: &Value| flow(r)["delivered_bytes"].as_u64().unwrap();
    assert!(
        got(&after) > got(&before) + 200_000,
        "{} -> {}",
        got(&before),
        got(&after)
    );
    let other = if r2.starts_with('t') { "b" } else { "t" };
    assert!(
        row(&after, &format!("{other}1"))["rreq_packets"]
            .as_u64()
            .unwrap()
            >= 1
    );
    check_overhead(&after);
}

#[test]
fn salvage_routes_the_queued_packets_again_instead_of_dropping_them() {
    let spec = json!({"protocol": "aodv", "hello": false, "on_break": "salvage"});
    let (_, after, r1, _) = break_the_route(spec);
    let relay = row(&after, &r1);
    assert!(
        relay["mac_queue_salvaged"].as_u64().unwrap() >= 1,
        "{relay}"
    );
    assert_eq!(relay["mac_queue_dropped"], 0);
}

#[test]
fn without_link_feedback_lost_hellos_find_the_break() {
    let spec = json!({"protocol": "aodv", "hello": true, "link_feedback": false});
    let (_, after, r1, _) = break_the_route(spec);
    let relay = row(&after, &r1);
    assert_eq!(relay["breaks_link_feedback"], 0);
    assert!(relay["breaks_hello"].as_u64().unwrap() >= 1, "{relay}");
    assert!(sum(&after, "hello_packets") > 0);
    assert!(flow(&after)["delivered_bytes"].as_u64().unwrap() > 0);
}

/// A 3 x 3 grid, 200 m apart: each node hears its horizontal and vertical neighbours only.
fn grid(routing: Value, duration: f64) -> Value {
    let mut nodes = vec![];
    for y in 0..3 {
        for x in 0..3 {
            nodes.push(json!({"name": format!("g{x}{y}"), "position": [200.0 * x as f64, 200.0 * y as f64]}));
        }
    }
    json!({
        "name": "grid", "duration": duration, "seed": 1,
        "tcp": {"profile": "ns2", "segment_size": 1460},
        "routing": routing,
        "nodes": nodes,
        "media": [{"name": "air", "kind": "wifi", "preset": "ns2"}],
        "flows": [{"src": "g00", "dst": "g22", "cc": "newreno", "start": 15,
                   "app": {"kind": "bulk"}}],
    })
}

#[test]
fn olsr_converges_on_a_grid_and_routes_tcp() {
    let mut sim = build(&grid(json!({"protocol": "olsr"}), 40.0));
    sim.run_until(15_000_000_000);
    // Every node has a route to every other, with the grid's hop count as its length.
    let names: Vec<String> = sim.nodes.iter().map(|n| n.name.clone()).collect();
    for a in &names {
        for b in &names {
            if a != b {
                assert!(next_hop(&sim, a, b).is_some(), "{a} -> {b}");
            }
        }
    }
    sim.run();
    let r = result(&sim);
    let f = flow(&r);
    assert!(f["delivered_bytes"].as_u64().unwrap() > 300_000, "{f}");
    assert!(sum(&r, "hello_packets") > 0 && sum(&r, "tc_packets") > 0);
    assert_eq!(sum(&r, "rreq_packets"), 0);
    // TCs come from MPRs (nodes some neighbour selected): the centre is every edge node's
    // only way to the opposite edge and floods a TC each TC_INTERVAL (5 s) once selected; a
    // corner is nobody's MPR once the 2-hop sets are complete (at most a few early TCs).
    let tc = |n: &str| row(&r, n)["tc_packets"].as_u64().unwrap();
    assert!(tc("g11") >= 6, "{}", tc("g11"));
    assert!(tc("g00") < tc("g11") / 2, "{} vs {}", tc("g00"), tc("g11"));
    // Messages waiting together shared packets (RFC 3626 3.4): the centre's TCs and the
    // TCs it relays ride with its HELLOs.
    let messages = sum(&r, "hello_packets") + sum(&r, "tc_packets");
    assert!(sum(&r, "control_packets") < messages);
    check_overhead(&r);
}

#[test]
fn olsr_without_bundling_sends_a_packet_per_message_and_with_hysteresis_still_converges() {
    let r = run(&grid(json!({"protocol": "olsr", "bundle": false}), 20.0));
    let messages = sum(&r, "hello_packets") + sum(&r, "tc_packets");
    assert_eq!(sum(&r, "control_packets"), messages);
    check_overhead(&r);
    // Hysteresis: a link is used after three HELLOs from its neighbour (RFC 3626 14), so
    // on a static grid the 2-hop sets and MPRs settle a few HELLOs later and the corners
    // learn of each other from a TC after 10 s, not after 5 s; the flow then gets through.
    let mut sim = build(&grid(json!({"protocol": "olsr", "hysteresis": true}), 30.0));
    sim.run_until(6_000_000_000);
    assert!(
        next_hop(&sim, "g00", "g10").is_none(),
        "no link before 3 HELLOs"
    );
    sim.run_until(20_000_000_000);
    assert!(next_hop(&sim, "g00", "g22").is_some());
    sim.run();
    assert!(flow(&result(&sim))["delivered_bytes"].as_u64().unwrap() > 100_000);
}

#[test]
fn static_routing_stays_the_default_and_reports_no_routing_table() {
    let mut sc = chain(2, json!(null), 5.0);
    sc.as_object_mut().unwrap().remove("routing");
    let r = run(&sc);
    assert!(r.get("routing").is_none());
    assert!(r["drops"].get("route_break").is_none());
    assert!(flow(&r).get("pdr").is_none());
    // Spelled out, static is the same run.
    let s = run(&chain(2, json!({"protocol": "static"}), 5.0));
    assert_eq!(s["flows"], r["flows"]);
}

#[test]
fn per_node_settings_override_the_scenario_s() {
    let mut sc = chain(2, json!({"protocol": "aodv", "hello": false}), 5.0);
    sc["nodes"][1]["routing"] = json!({"hello": true});
    let r = run(&sc);
    assert_eq!(row(&r, "n0")["hello_packets"], 0);
    assert!(row(&r, "n1")["hello_packets"].as_u64().unwrap() > 0);
}

#[test]
fn bad_routing_settings_name_their_field() {
    let e = err(&chain(2, json!({"protocol": "dsr"}), 5.0));
    assert!(e.contains("routing.protocol") && e.contains("aodv"), "{e}");
    let e = err(&chain(
        2,
        json!({"protocol": "aodv", "tc_interval": 5}),
        5.0,
    ));
    assert!(e.starts_with("routing.tc_interval"), "{e}");
    let e = err(&chain(
        2,
        json!({"protocol": "aodv", "hello": false, "link_feedback": false}),
        5.0,
    ));
    assert!(e.starts_with("routing.link_feedback"), "{e}");
    let e = err(&chain(
        2,
        json!({"protocol": "aodv", "on_break": "hold"}),
        5.0,
    ));
    assert!(e.contains("routing.on_break"), "{e}");
    let mut sc = chain(2, json!(null), 5.0);
    sc["nodes"][2]["routing"] = json!({"protocol": "olsr", "willingness": 9});
    let e = err(&sc);
    assert!(e.starts_with("nodes[2].routing.willingness"), "{e}");
    let e = err(&chain(2, json!({"hello": false}), 5.0));
    assert!(e.starts_with("routing"), "{e}");
    // A node on wired links cannot run AODV here.
    let sc = json!({
        "duration": 1, "routing": {"protocol": "aodv"},
        "nodes": [{"name": "a"}, {"name": "b"}],
        "links": [{"a": "a", "b": "b", "rate": "1Mbps", "delay": "1ms"}],
        "flows": [{"src": "a", "dst": "b", "app": {"kind": "bulk"}}],
    });
    let e = err(&sc);
    assert!(
        e.starts_with("routing.protocol") && e.contains("802.11"),
        "{e}"
    );
}

/// A 3-hop chain n0-n1-n2-n3 (200 m apart) with a longer detour n0-m1-m2-n2 below it; n1
/// walks away north at 20 m/s from the start (out of n0's 250 m range after 7.5 s). One CBR
/// flow n0 -> n3; `trace.routes` on.
fn walking_chain(routing: Value) -> Value {
    let pos = [
        ("n0", 0.0, 0.0),
        ("n1", 200.0, 0.0),
        ("n2", 400.0, 0.0),
        ("n3", 600.0, 0.0),
        ("m1", 100.0, -200.0),
        ("m2", 300.0, -200.0),
    ];
    let nodes: Vec<Value> = pos
        .iter()
        .map(|(n, x, y)| {
            let mut v = json!({"name": n, "position": [x, y]});
            if *n == "n1" {
                v["mobility"] = json!({"model": "constant_velocity", "velocity": [0.0, 20.0]});
            }
            v
        })
        .collect();
    json!({
        "name": "walking_chain", "duration": 20, "seed": 1,
        "routing": routing,
        "nodes": nodes,
        "media": [{"name": "air", "kind": "wifi", "preset": "ns2"}],
        "flows": [{"name": "f", "src": "n0", "dst": "n3",
                   "app": {"kind": "cbr", "rate": "40kbps", "packet_size": 500}}],
        "trace": {"routes": true},
    })
}

fn routes(r: &Value) -> Vec<(f64, Vec<String>)> {
    r["routes"]
        .as_array()
        .expect("a routes table")
        .iter()
        .map(|row| {
            assert_eq!(row["flow"], "f");
            let path = row["path"].as_array().unwrap();
            let names = path.iter().map(|n| n.as_str().unwrap().to_string());
            (row["t"].as_f64().unwrap(), names.collect())
        })
        .collect()
}

#[test]
fn the_recorded_route_follows_aodv_around_a_relay_that_walked_away() {
    let r = run(&walking_chain(json!({"protocol": "aodv"})));
    let rows = routes(&r);
    let full = |p: &[String]| p.first().is_some_and(|n| n == "n0") && p.last().unwrap() == "n3";
    // The first complete route is the chain's, found at the start.
    let (t0, first) = rows
        .iter()
        .find(|(_, p)| full(p))
        .expect("a complete route");
    assert_eq!(first, &["n0", "n1", "n2", "n3"], "{rows:?}");
    assert!(*t0 < 1.0, "{rows:?}");
    // Once n1 is out of range (7.5 s) every route the data completes goes around it, by the
    // detour; in between, a row that stops short ends where the data waited or was dropped
    // while AODV looked for a route (the source holds it: a path of n0 alone).
    let detour = ["n0", "m1", "m2", "n2", "n3"];
    let late: Vec<&Vec<String>> = rows
        .iter()
        .filter(|(t, p)| *t > 7.5 && full(p))
        .map(|(_, p)| p)
        .collect();
    assert!(!late.is_empty(), "{rows:?}");
    assert!(late.iter().all(|p| **p == detour), "{rows:?}");
    assert!(rows.iter().any(|(_, p)| p == &["n0"]), "{rows:?}");
    // Rows are in time order, each a change from the flow's previous one.
    for w in rows.windows(2) {
        assert!(w[0].0 <= w[1].0 && w[0].1 != w[1].1, "{rows:?}");
    }
    // n1 never comes back: the detour is the route at the end.
    assert_eq!(rows.last().unwrap().1, detour);
}

#[test]
fn static_routes_are_recorded_once_and_nothing_without_the_trace() {
    let mut sc = walking_chain(Value::Null);
    sc.as_object_mut().unwrap().remove("routing");
    // One row at the flow's start: its static route (with a moving station on the medium,
    // static routing sends to every station directly).
    let want = vec!["n0".to_string(), "n3".to_string()];
    assert_eq!(routes(&run(&sc)), vec![(0.0, want)]);
    let mut sc = walking_chain(json!({"protocol": "aodv"}));
    sc["trace"] = json!({});
    assert!(run(&sc).get("routes").is_none());
}
