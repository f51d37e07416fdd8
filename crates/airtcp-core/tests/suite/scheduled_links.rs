//! Point-to-point links that schedule each frame when they accept it (no transmission-done
//! events) give the same results as links with a transmission-done event per frame, apart
//! from the event count, whenever no two events fall on the same instant; at equal times a
//! transmission's end comes first. Links that cannot know a frame's start when they accept it
//! (ARQ, a Snoop agent at their node) keep the events.

use airtcp_core::device::{AnyDevice, P2p};
use airtcp_core::harness::Net;
use airtcp_core::stats::RunResult;
use airtcp_core::Sim;
use serde_json::{json, Value};

/// Three TCP flows and a UDP flow through a RED bottleneck toward a lossy last hop, with an
/// agent that reads the bottleneck's state (explicit rate) and a trace of its queue. Rates,
/// delays and start times are uneven, so that events rarely coincide.
fn uneven() -> Net {
    Net::new("20s")
        .host("s1")
        .host("s2")
        .host("s3")
        .router("r1")
        .router("r2")
        .host("d")
        .link("s1", "r1", "97.1Mbps", "2.31ms")
        .link("s2", "r1", "83.3Mbps", "3.07ms")
        .link("s3", "r1", "71.9Mbps", "1.13ms")
        .link_with(
            "r1",
            "r2",
            "3.337Mbps",
            "11.71ms",
            json!({"queue": {"kind": "red", "limit": 40, "min_threshold": 5, "max_threshold": 15}}),
        )
        .link_with(
            "r2",
            "d",
            "7.193Mbps",
            "3.91ms",
            json!({"kind": "wireless", "error": {"model": "bernoulli", "per": 0.02}}),
        )
        .flow(
            json!({"name": "f1", "src": "s1", "dst": "d", "cc": "newreno",
                     "app": {"kind": "bulk"}}),
        )
        .flow(
            json!({"name": "f2", "src": "s2", "dst": "d", "cc": "sack", "start": "0.1373s",
                     "app": {"kind": "bulk"}}),
        )
        .flow(
            json!({"name": "f3", "src": "s3", "dst": "d", "cc": "cubic", "start": "0.2911s",
                     "app": {"kind": "bulk"}}),
        )
        .flow(
            json!({"name": "u", "src": "s3", "dst": "d", "start": "1.0417s",
                     "app": {"kind": "onoff", "rate": "317kbps", "packet_size": 577,
                             "on_mean": "0.31s", "off_mean": "0.53s"}}),
        )
        .hook(json!({"kind": "explicit_rate", "node": "r1"}))
        .set(
            "trace",
            json!({"queue": ["r1->r2"], "queue_interval": "7.3ms"}),
        )
}

/// Where two results differ, apart from the event count (JSON paths).
fn differences(a: &RunResult, b: &RunResult) -> Vec<String> {
    fn walk(a: &Value, b: &Value, path: String, out: &mut Vec<String>) {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                for (k, v) in x {
                    walk(
                        v,
                        y.get(k).unwrap_or(&Value::Null),
                        format!("{path}.{k}"),
                        out,
                    );
                }
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                for (i, (v, w)) in x.iter().zip(y).enumerate() {
                    walk(v, w, format!("{path}[{i}]"), out);
                }
            }
            _ if a != b => out.push(format!("{path}: {a} against {b}")),
            _ => {}
        }
    }
    let (mut x, y) = (
        serde_json::to_value(a).unwrap(),
        serde_json::to_value(b).unwrap(),
    );
    x.as_object_mut().unwrap().remove("events");
    let mut out = Vec::new();
    walk(&x, &y, String::new(), &mut out);
    out
}

/// Four flows with equal segments over links of equal rates and whole-millisecond delays,
/// started together, with a queue sampled every millisecond: many events coincide (a frame
/// reaches the router as the bottleneck finishes another, samples fall on transmission ends).
fn even() -> Net {
    let mut net = Net::new("10s").router("r1").router("r2").host("d");
    for i in 1..=4 {
        let s = format!("s{i}");
        net = net.host(&s).link(&s, "r1", "10Mbps", "1ms").bulk(
            &format!("f{i}"),
            &s,
            "d",
            ["newreno", "sack"][i % 2],
        );
    }
    net.link_with(
        "r1",
        "r2",
        "10Mbps",
        "10ms",
        json!({"queue": {"kind": "red", "limit": 30, "min_threshold": 5, "max_threshold": 15}}),
    )
    .link_with(
        "r2",
        "d",
        "10Mbps",
        "2ms",
        json!({"kind": "wireless", "error": {"model": "bernoulli", "per": 0.01}}),
    )
    .hook(json!({"kind": "explicit_rate", "node": "r1"}))
    .set(
        "trace",
        json!({"queue": ["r1->r2"], "queue_interval": "1ms"}),
    )
}

fn p2p(sim: &Sim) -> impl Iterator<Item = &P2p> {
    sim.devices.iter().filter_map(|d| match d {
        AnyDevice::P2p(p) => Some(p),
        AnyDevice::Other(_) => None,
    })
}

/// Run `net` as built (links schedule frames on acceptance) and with every link keeping a
/// transmission-done event per frame; the results must agree in everything but the event
/// count.
fn compare_modes(net: &Net, what: &str) -> RunResult {
    let mut scheduled = net.build().unwrap();
    assert!(p2p(&scheduled).all(|p| p.schedules_on_accept()));
    let mut with_events = net.build().unwrap();
    for d in &mut with_events.devices {
        if let AnyDevice::P2p(p) = d {
            p.keep_transmission_events();
        }
    }
    scheduled.run();
    with_events.run();
    let (a, b) = (
        RunResult::from_sim(&scheduled),
        RunResult::from_sim(&with_events),
    );
    let d = differences(&a, &b);
    assert!(d.is_empty(), "{what}: {d:?}");
    // One event per frame instead of two (a transmission-done and an arrival).
    assert!(
        (a.events as f64) < 0.6 * b.events as f64,
        "{what}: {} events against {}",
        a.events,
        b.events
    );
    let k = &a.packets;
    assert_eq!(k.sent, k.delivered + k.dropped + k.in_flight, "{what}");
    assert_eq!(k.in_flight, k.live_in_arena, "{what}");
    a
}

#[test]
fn scheduling_on_acceptance_matches_transmission_events() {
    for seed in [1, 2, 3] {
        let a = compare_modes(
            &uneven().set("seed", json!(seed)),
            &format!("uneven, seed {seed}"),
        );
        // The run did what the comparison needs: losses of both kinds, RED at work, traffic
        // on every flow, an agent reading the bottleneck.
        assert!(a.drops["channel_error"] > 0 && a.drops["aqm"] > 0);
        assert!(a.flows.iter().all(|f| f.delivered_bytes > 0));
        assert!(a.agents[0].count("written") > 0);
    }
}

#[test]
fn scheduling_on_acceptance_matches_transmission_events_when_events_coincide() {
    for seed in [1, 2] {
        let a = compare_modes(
            &even().set("seed", json!(seed)),
            &format!("even, seed {seed}"),
        );
        assert!(a.drops["channel_error"] > 0 && a.drops["aqm"] + a.drops["queue_overflow"] > 0);
    }
}

#[test]
fn at_equal_times_a_transmission_ends_before_the_next_frame_arrives() {
    // 1000-byte datagrams every 10 ms into an 800 kb/s link, whose frames take 10 ms each:
    // every datagram arrives at the instant the one before it finishes, so finds the link
    // free and never waits.
    let net = Net::new("5s")
        .host("a")
        .router("r")
        .host("b")
        .link("a", "r", "1Gbps", "1ms")
        .link("r", "b", "800kbps", "5ms")
        .flow(json!({"name": "u", "src": "a", "dst": "b",
                     "app": {"kind": "cbr", "rate": "800kbps", "packet_size": 1000}}));
    let mut sim = net.build().unwrap();
    sim.run();
    let r = RunResult::from_sim(&sim);
    let link = r.links.iter().find(|l| l.name == "r->b").unwrap();
    assert!(link.tx_packets > 490, "{}", link.tx_packets);
    assert_eq!(link.max_queue_packets, 0);
    assert!(link.mean_queue_packets == 0.0);
    // Back to back: the link was busy the whole time from the first arrival.
    assert!(link.utilization > 0.99, "{}", link.utilization);
}

#[test]
fn links_that_cannot_schedule_on_acceptance_keep_transmission_events() {
    let net = Net::new("2s")
        .host("a")
        .router("bs")
        .host("m")
        .host("c")
        .link("a", "bs", "10Mbps", "5ms")
        .link_with(
            "bs",
            "m",
            "2Mbps",
            "2ms",
            json!({"kind": "wireless", "error": {"model": "bernoulli", "per": 0.05}}),
        )
        .link_with(
            "a",
            "c",
            "2Mbps",
            "2ms",
            json!({"kind": "wireless", "arq": {"retry_limit": 3},
                   "error": {"model": "bernoulli", "per": 0.05}}),
        )
        .bulk("f", "a", "m", "newreno")
        .bulk("g", "a", "c", "newreno")
        .hook(json!({"kind": "snoop", "node": "bs"}));
    let mut sim = net.build().unwrap();
    let mode = |sim: &Sim, name: &str| {
        p2p(sim)
            .find(|p| &*p.name == name)
            .unwrap()
            .schedules_on_accept()
    };
    // Snoop resends ahead of its node's queues; ARQ resends ahead of its own.
    assert!(!mode(&sim, "bs->m") && !mode(&sim, "bs->a") && !mode(&sim, "a->c"));
    assert!(!mode(&sim, "c->a"));
    assert!(mode(&sim, "a->bs") && mode(&sim, "m->bs"));
    sim.run();
    let r = RunResult::from_sim(&sim);
    let k = &r.packets;
    assert_eq!(k.sent, k.delivered + k.dropped + k.in_flight);
    assert!(r.agents[0].count("local_retransmits") > 0);
    assert!(r.links.iter().any(|l| l.arq_retransmissions > 0));
}
