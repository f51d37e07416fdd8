//! TCP Jersey and New Jersey with congestion-warning (cw) routers: the warning tells
//! congestion losses from channel losses.

use airtcp_core::harness::Net;
use airtcp_core::stats::FlowResult;
use airtcp_core::RunResult;
use serde_json::{json, Value};

/// `n` flows of `cc` over S - R1 - R2 - D whose bottleneck R1-R2 (`rate`, 20 ms) has `queue`
/// and loses data packets with probability `per`.
fn path(cc: &str, n: usize, rate: &str, queue: Value, per: f64) -> Net {
    let mut net = Net::new("60s")
        .set("tcp", json!({"segment_size": 1000, "rcv_window": 262_144}))
        .host("S")
        .router("R1")
        .router("R2")
        .host("D")
        .link("S", "R1", "100Mbps", "2ms")
        .link_with(
            "R1",
            "R2",
            rate,
            "20ms",
            json!({"queue": queue,
                   "error": {"model": "bernoulli", "per": per, "applies_to": "data"}}),
        )
        .link("R2", "D", "100Mbps", "2ms");
    for i in 0..n {
        net = net.flow(
            json!({"name": format!("f{i}"), "src": "S", "dst": "D", "cc": cc,
                              "start": i as f64 * 0.5, "app": {"kind": "bulk"}}),
        );
    }
    net
}

fn run(net: &Net) -> RunResult {
    let mut sim = net.build().unwrap();
    sim.run();
    RunResult::from_sim(&sim)
}

fn sum(r: &RunResult, f: impl Fn(&FlowResult) -> u64) -> u64 {
    r.flows.iter().map(f).sum()
}

#[test]
fn a_cw_queue_is_droptail_for_flows_that_are_not_ecn_capable() {
    let cw = run(&path(
        "newreno",
        2,
        "2Mbps",
        json!({"kind": "cw", "limit": 20, "weight": 1}),
        0.0,
    ));
    let dt = run(&path("newreno", 2, "2Mbps", json!({"limit": 20}), 0.0));
    assert_eq!(
        serde_json::to_value(&cw.flows).unwrap(),
        serde_json::to_value(&dt.flows).unwrap()
    );
    let link = cw.links.iter().find(|l| l.name == "R1->R2").unwrap();
    assert_eq!(link.ecn_marks, 0);
    assert!(link.drops_queue_overflow > 0);
}

#[test]
fn warnings_hold_the_queue_at_the_threshold_and_mark_congestion_losses() {
    // Four New Jersey flows, no channel errors: every loss is congestion.
    let cw = json!({"kind": "cw", "limit": 20, "threshold": 10});
    let r = run(&path("newjersey", 4, "2Mbps", cw, 0.0));
    let link = r.links.iter().find(|l| l.name == "R1->R2").unwrap();
    assert!(link.ecn_marks > 1000, "{}", link.ecn_marks);
    assert!(link.utilization > 0.98);
    // Rate control keeps the queue near the threshold, far below the limit.
    assert!(
        (link.mean_queue_packets - 10.0).abs() < 3.0,
        "{}",
        link.mean_queue_packets
    );
    for f in &r.flows {
        assert!(f.extra["jersey_rate_controls"] > 100.0);
    }
    let judged = sum(&r, |f| f.scoring.verdicts_on_congestion_loss);
    let wrong = sum(&r, |f| f.scoring.type1_errors);
    assert!(judged > 20, "{judged}");
    // The average lags a fast-filling queue (slow start), so a few are missed.
    assert!(wrong * 5 < judged, "{wrong} of {judged}");
    // The same flows behind a DropTail queue never see a warning: every congestion loss is
    // taken for a channel loss, and the queue overflows again and again.
    let dt = run(&path("newjersey", 4, "2Mbps", json!({"limit": 20}), 0.0));
    assert_eq!(
        sum(&dt, |f| f.scoring.type1_errors),
        sum(&dt, |f| f.scoring.verdicts_on_congestion_loss)
    );
    let dt_link = dt.links.iter().find(|l| l.name == "R1->R2").unwrap();
    assert!(dt_link.drops_queue_overflow > 3 * link.drops_queue_overflow);
}

#[test]
fn new_jersey_keeps_its_window_on_channel_losses() {
    // One flow on a 10 Mbps path whose 100-packet queue rarely reaches the warning threshold:
    // the losses are channel errors and are repaired without a cut.
    let cw = json!({"kind": "cw", "limit": 100});
    let nj = run(&path("newjersey", 1, "10Mbps", cw.clone(), 0.01));
    let reno = run(&path("newreno", 1, "10Mbps", cw, 0.01));
    let (j, n) = (&nj.flows[0], &reno.flows[0]);
    assert!(j.scoring.verdicts_on_wireless_loss > 100);
    assert!(
        j.scoring.type2_rate.unwrap() < 0.1,
        "{:?}",
        j.scoring.type2_rate
    );
    assert!(j.uncut_retransmits * 10 > j.fast_retransmits * 9);
    assert!(
        j.goodput_bps > 1.5 * n.goodput_bps,
        "{} vs {}",
        j.goodput_bps,
        n.goodput_bps
    );
    // The estimate is the flow's own rate (the path carries nothing else).
    let bwe = j.bwe_bps.unwrap();
    assert!(
        (bwe - j.throughput_bps).abs() < 0.35 * j.throughput_bps,
        "{bwe}"
    );
}

#[test]
fn jersey_and_new_jersey_differ_only_in_the_clock_of_the_estimate() {
    let cw = json!({"kind": "cw", "limit": 50});
    let sim = path("newjersey", 1, "2Mbps", cw.clone(), 0.0)
        .build()
        .unwrap();
    let f = sim.flow_named("f0").unwrap();
    assert!(sim.sender(f).cfg.timestamps, "New Jersey needs timestamps");
    let sim = path("jersey", 1, "2Mbps", cw.clone(), 0.0).build().unwrap();
    assert!(!sim.sender(f).cfg.timestamps);
    // On a path without reverse-path jitter the two estimates agree closely.
    let a = run(&path("jersey", 1, "2Mbps", cw.clone(), 0.01));
    let b = run(&path("newjersey", 1, "2Mbps", cw, 0.01));
    let (ea, eb) = (a.flows[0].bwe_bps.unwrap(), b.flows[0].bwe_bps.unwrap());
    assert!((ea - eb).abs() < 0.2 * eb, "{ea} vs {eb}");
}

#[test]
fn cw_queue_parameters_are_checked() {
    for (q, key) in [
        (
            json!({"kind": "cw", "limit": 20, "threshold": 30}),
            "threshold",
        ),
        (
            json!({"kind": "cw", "limit": 20, "threshold": 0}),
            "threshold",
        ),
        (json!({"kind": "cw", "weight": 0}), "weight"),
        (
            json!({"kind": "cw", "mean_packet_size": 0}),
            "mean_packet_size",
        ),
    ] {
        let e = path("jersey", 1, "2Mbps", q, 0.0).build().err().unwrap();
        assert!(e.path.ends_with(&format!("queue.{key}")), "{e}");
    }
    let e = path(
        "jersey",
        1,
        "2Mbps",
        json!({"kind": "cw", "max_p": 0.1}),
        0.0,
    )
    .build()
    .err()
    .unwrap();
    assert!(e.message.contains("a cw queue does not take it"), "{e}");
}
