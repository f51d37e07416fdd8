//! TCP EWR (seed paper 002): the receiver's estimate is advertised as the window, the sender
//! follows it, and its loss verdicts are scored.

use airtcp_core::engine::{MS, SEC};
use airtcp_core::harness::Net;
use airtcp_core::sim::Sim;
use airtcp_core::RunResult;
use serde_json::{json, Value};

/// S - R1 - R2 - D with an error-prone bottleneck R1-R2 of `rate`, 20 ms, 50 packets.
fn path(cc: &str, rate: &str, per: f64, duration: &str) -> Net {
    path_with(rate, per, duration).bulk("f", "S", "D", cc)
}

/// The same path without its flow.
fn path_with(rate: &str, per: f64, duration: &str) -> Net {
    Net::new(duration)
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
            json!({"queue": {"limit": 50},
                   "error": {"model": "bernoulli", "per": per, "applies_to": "data"}}),
        )
        .link("R2", "D", "100Mbps", "2ms")
}

/// The path with an EWR flow given `params`.
fn ewr_with(rate: &str, per: f64, duration: &str, params: Value) -> Net {
    path_with(rate, per, duration).flow(json!({
        "name": "f", "src": "S", "dst": "D", "cc": "ewr", "cc_params": params,
        "app": {"kind": "bulk"},
    }))
}

fn run(net: &Net) -> RunResult {
    let mut sim = net.build().unwrap();
    sim.run();
    RunResult::from_sim(&sim)
}

/// The window the sender was last offered, in segments, after `secs` of simulated time.
fn advertised(sim: &mut Sim, secs: u64) -> f64 {
    sim.run_until(secs * SEC);
    let f = sim.flow_named("f").unwrap();
    sim.sender(f).rwnd as f64 / 1000.0
}

#[test]
fn the_advertised_window_tracks_the_bottleneck() {
    // RTT_min = 2 (2 + 20 + 2) ms plus serialization, about 49 ms; the bottleneck's
    // bandwidth-delay product is then about 12 segments at 2 Mbps and 49 at 8 Mbps.
    let mut slow = path("ewr", "2Mbps", 0.0, "20s").build().unwrap();
    let mut fast = path("ewr", "8Mbps", 0.0, "20s").build().unwrap();
    let (w2, w8) = (advertised(&mut slow, 20), advertised(&mut fast, 20));
    let f = slow.flow_named("f").unwrap();
    let rtt_min = slow.sender(f).rtt.min_rtt.unwrap() as f64 / SEC as f64;
    let bdp2 = 2e6 / 8.0 * 1000.0 / 1040.0 * rtt_min / 1000.0;
    assert!((w2 - bdp2).abs() < 0.15 * bdp2, "{w2} vs {bdp2}");
    assert!((w8 / w2 - 4.0).abs() < 0.6, "{w8} / {w2}");
    // The sender's cwnd is the advertised window: no slow start, no queue built up.
    assert_eq!(slow.sender(f).st.cwnd, slow.sender(f).rwnd);
    let r = RunResult::from_sim(&fast);
    let link = r.links.iter().find(|l| l.name == "R1->R2").unwrap();
    assert!(link.utilization > 0.9, "{}", link.utilization);
    assert!(link.mean_queue_packets < 5.0, "{}", link.mean_queue_packets);
    assert_eq!(link.drops_queue_overflow, 0);
    // The receiver reports its estimate and RTT_min.
    let fl = &r.flows[0];
    let est = fl.extra["ewr_rx_estimate_bps"];
    assert!((est - 8e6 * 1000.0 / 1040.0).abs() < 0.1 * 8e6, "{est}");
    assert!((fl.extra["ewr_rx_rtt_min_s"] - fl.rtt_min_s.unwrap()).abs() < 2e-3);
}

#[test]
fn the_window_starts_at_two_segments_until_a_round_trip_is_timed() {
    let mut sim = path("ewr", "8Mbps", 0.0, "2s").build().unwrap();
    let f = sim.flow_named("f").unwrap();
    // Before the first ACK the sender has the receiver's buffer; the first ACKs offer two
    // segments, and a round trip later the estimate.
    let mut first = None;
    while let Some(t) = sim.step() {
        if sim.sender(f).snd_una > 0 && first.is_none() {
            first = Some(sim.sender(f).rwnd);
        }
        if t > 80 * MS {
            break;
        }
    }
    assert_eq!(first, Some(2000));
    sim.run_until(300 * MS);
    assert!(sim.sender(f).rwnd > 20_000, "{}", sim.sender(f).rwnd);
}

#[test]
fn random_losses_leave_the_window_to_the_estimate() {
    let ewr = run(&path("ewr", "10Mbps", 0.05, "60s"));
    let reno = run(&path("newreno", "10Mbps", 0.05, "60s"));
    let (e, n) = (&ewr.flows[0], &reno.flows[0]);
    // NewReno halves on every loss; EWR's window stays near the path's capacity.
    assert!(
        e.goodput_bps > 2.0 * n.goodput_bps,
        "{} vs {}",
        e.goodput_bps,
        n.goodput_bps
    );
    assert!(e.avg_cwnd_segments > 3.0 * n.avg_cwnd_segments);
    // Its verdicts are scored: on this path nearly every loss is a channel error, and most
    // are judged wireless (x <= beta).
    assert!(e.scoring.verdicts_on_wireless_loss > 100);
    assert!(e.scoring.verdicts_wireless > e.scoring.verdicts_congestion);
    assert!(e.scoring.type2_rate.unwrap() < 0.5);
    assert_eq!(n.scoring.verdicts, 0, "NewReno does not judge");
    let states = ["ewr_linear_increase", "ewr_wait_and_see", "ewr_congestion"];
    let total: f64 = states.iter().map(|k| e.extra[k]).sum();
    assert_eq!(total as u64, e.scoring.verdicts);
}

#[test]
fn an_ewr_flow_turns_timestamps_on_and_others_do_not() {
    let sim = path("ewr", "2Mbps", 0.0, "1s").build().unwrap();
    let f = sim.flow_named("f").unwrap();
    assert!(sim.sender(f).cfg.timestamps);
    assert!(sim.receiver(f).window_policy().is_some());
    let sim = path("newreno", "2Mbps", 0.0, "1s").build().unwrap();
    assert!(!sim.sender(f).cfg.timestamps);
    assert!(sim.receiver(f).window_policy().is_none());
}

#[test]
fn bad_parameters_name_the_field() {
    let net = path("ewr", "2Mbps", 0.0, "1s");
    let mut doc: serde_json::Value = serde_json::from_str(&net.to_json()).unwrap();
    doc["flows"][0]["cc_params"] = json!({"delta": 1.5});
    let e = airtcp_core::run_json(&doc.to_string()).unwrap_err();
    assert_eq!(e.path, "flows[0].cc_params.delta", "{e}");
    doc["flows"][0]["cc_params"] = json!({"alpha": 3, "beta": 2});
    let e = airtcp_core::run_json(&doc.to_string()).unwrap_err();
    assert_eq!(e.path, "flows[0].cc_params.beta", "{e}");
    doc["flows"][0]["cc_params"] = json!({"gamma": 1});
    let e = airtcp_core::run_json(&doc.to_string()).unwrap_err();
    assert!(e.message.contains("'ewr' has no parameter"), "{e}");
}

#[test]
fn the_interval_reading_leaves_the_window_where_it_started() {
    // One sample per RTT_min measures what the flow itself sends, cwnd / RTT, so oCwnd =
    // RTT_min · cwnd / RTT never exceeds cwnd: without losses nothing raises the window above
    // the two segments the receiver offers before its first estimate.
    let per_packet = path("ewr", "8Mbps", 0.0, "10s");
    let per_interval = ewr_with("8Mbps", 0.0, "10s", json!({"interval": 1.0}));
    let mut sim = per_interval.build().unwrap();
    let w = advertised(&mut sim, 10);
    assert!(w <= 2.0, "advertised {w} segments");
    let (a, b) = (run(&per_packet), run(&per_interval));
    let (ga, gb) = (a.flows[0].goodput_bps, b.flows[0].goodput_bps);
    // Two segments per round trip of about 49 ms: about 0.33 Mbit/s against the link's 8.
    assert!(gb < 0.45e6 && ga > 6e6, "{ga} vs {gb}");
}

#[test]
fn the_loss_term_holds_the_window_to_padhyes_rate_under_channel_errors() {
    let plain = run(&path("ewr", "8Mbps", 0.05, "20s"));
    let capped = run(&ewr_with("8Mbps", 0.05, "20s", json!({"loss_term": 1.0})));
    let (gp, gc) = (plain.flows[0].goodput_bps, capped.flows[0].goodput_bps);
    // At 5% loss and about 49 ms, Padhye's rate is about 0.6 Mbit/s; without the term EWR
    // keeps its window at the link's rate and loses only what the channel takes.
    assert!(gc < 0.5 * gp, "{gc} vs {gp}");
    assert!(gc > 0.2e6, "{gc}");
}
