//! UDP applications send at their configured rates.

use crate::common;
use common::Path;

fn udp(app: &str, duration: f64) -> airtcp_core::RunResult {
    let p = Path {
        duration,
        app: app.into(),
        ..Default::default()
    };
    // UDP flows take no congestion control.
    let t = p.toml().replace("cc = \"newreno\"\n", "");
    airtcp_core::run_toml(&t).unwrap()
}

#[test]
fn cbr_sends_at_its_rate() {
    let r = udp(
        r#"{ kind = "cbr", rate = "800kbps", packet_size = 1000 }"#,
        10.0,
    );
    let f = &r.flows[0];
    // One 1000-byte packet every 10 ms from t = 0: 1000 packets in 10 s (the last may still
    // be in flight).
    assert_eq!(f.sent_packets, 1000);
    assert!(f.received_packets >= 990);
    assert_eq!(f.transport, "udp");
}

#[test]
fn onoff_averages_rate_times_duty_cycle() {
    let r = udp(
        r#"{ kind = "onoff", rate = "500kbps", on_mean = "100ms", off_mean = "100ms", packet_size = 1000 }"#,
        400.0,
    );
    let f = &r.flows[0];
    let rate = f.sent_bytes as f64 * 8.0 / 400.0;
    // Mean 250 kbps; 2000 on/off cycles keep the sample mean within a few percent.
    assert!((rate - 250e3).abs() < 0.06 * 250e3, "rate {rate}");
}

#[test]
fn a_file_transfer_stopped_before_it_finishes_reports_no_completion_time() {
    use airtcp_core::harness::Net;
    use serde_json::json;
    let net = |stop: &str| {
        let mut sim = Net::new("20s")
            .host("a")
            .host("b")
            .link("a", "b", "1Mbps", "10ms")
            .flow(json!({
                "name": "f", "src": "a", "dst": "b", "cc": "newreno",
                "app": {"kind": "file", "size": "500KB"}, "stop": stop,
            }))
            .build()
            .unwrap();
        sim.run();
        airtcp_core::stats::RunResult::from_sim(&sim)
    };
    // 500 kB at 1 Mb/s takes over 4 s: stopped at 1 s it never completes.
    let cut = net("1s");
    assert!(cut.flows[0].delivered_bytes < 500_000);
    assert_eq!(cut.flows[0].completion_time_s, None);
    let whole = net("15s");
    assert_eq!(whole.flows[0].delivered_bytes, 500_000);
    assert!(whole.flows[0].completion_time_s.is_some());
}

/// Start times of a two-flow path whose flows start at 1 s with a 2 s jitter, for `seed`.
fn jittered_starts(seed: u64, jitter: &str) -> Result<Vec<f64>, airtcp_core::ScenarioError> {
    let p = Path {
        duration: 10.0,
        flows: 2,
        seed,
        ..Default::default()
    };
    let t = p
        .toml()
        .replace(
            "start = 0\n",
            &format!("start = 1\nstart_jitter = {jitter}\n"),
        )
        .replace(
            "start = 0.001\n",
            &format!("start = 1\nstart_jitter = {jitter}\n"),
        );
    let r = airtcp_core::run_toml(&t)?;
    Ok(r.flows.iter().map(|f| f.start_s).collect())
}

#[test]
fn start_jitter_draws_each_flows_start_from_the_seed() {
    let a = jittered_starts(1, "\"2s\"").unwrap();
    let b = jittered_starts(2, "\"2s\"").unwrap();
    assert_eq!(
        a,
        jittered_starts(1, "\"2s\"").unwrap(),
        "same seed, same starts"
    );
    assert_ne!(a, b, "another seed, other starts");
    assert_ne!(a[0], a[1], "each flow draws its own");
    for s in a.iter().chain(&b) {
        assert!((1.0..3.0).contains(s), "{s}");
    }
    // Without jitter both start at 1 s whatever the seed.
    assert_eq!(jittered_starts(3, "\"0s\"").unwrap(), vec![1.0, 1.0]);
    let e = jittered_starts(1, "\"9s\"").unwrap_err();
    assert_eq!(e.path, "flows[0].start_jitter", "{e}");
}

#[test]
fn a_response_with_start_jitter_follows_its_request_after_the_draw() {
    use airtcp_core::harness::Net;
    use serde_json::json;
    // A 1 kB request over a 1 Mb/s, 10 ms link, then the response; its start is the request's
    // delivery plus a draw from [0, 50 ms).
    let run = |seed: u64, jitter: &str| {
        let mut sim = Net::new("5s")
            .set("seed", json!(seed))
            .host("c")
            .host("s")
            .link("c", "s", "1Mbps", "10ms")
            .flow(json!({
                "name": "req", "src": "c", "dst": "s", "cc": "newreno",
                "app": {"kind": "file", "size": "1KB"},
            }))
            .flow(json!({
                "name": "resp", "src": "s", "dst": "c", "cc": "newreno", "after": "req",
                "start_jitter": jitter, "app": {"kind": "file", "size": "10KB"},
            }))
            .build()
            .unwrap();
        sim.run();
        let r = airtcp_core::stats::RunResult::from_sim(&sim);
        let req = &r.flows[0];
        (
            req.start_s + req.completion_time_s.unwrap(),
            r.flows[1].start_s,
        )
    };
    // Without the draw it starts when the request is delivered: after one way of the link,
    // before the request's sender has its last ACK.
    let (done, plain) = run(1, "0s");
    assert!(plain > 0.01 && plain < done, "{plain} vs {done}");
    let starts: Vec<f64> = (1..=4).map(|s| run(s, "50ms").1).collect();
    for s in &starts {
        assert!(*s >= plain && *s < plain + 0.05, "{s} vs {plain}");
    }
    assert!(
        starts.windows(2).any(|w| w[0] != w[1]),
        "seeds differ: {starts:?}"
    );
}
