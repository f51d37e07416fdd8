//! Channel error models against their closed forms, and SNR traces from files.

use crate::common;
use airtcp_core::link::error::gilbert_closed_form;
use airtcp_core::FileAccess;
use common::Path;

/// Run a 800 kbps CBR flow (1000-byte datagrams every 10 ms) for `secs` over the path whose
/// last hop uses `error` and return the simulator after the run.
fn cbr_over(error: &str, secs: f64) -> airtcp_core::Sim {
    cbr_over_reading(error, secs, &FileAccess::default(), 1)
}

/// [`cbr_over`] reading the scenario's files as `files` allows, with run seed `seed`.
fn cbr_over_reading(error: &str, secs: f64, files: &FileAccess, seed: u64) -> airtcp_core::Sim {
    let p = Path {
        duration: secs,
        seed,
        app: r#"{ kind = "cbr", rate = "800kbps", packet_size = 1000 }"#.into(),
        ..Default::default()
    };
    let t = p.toml().replace("cc = \"newreno\"\n", "").replace(
        "error = { model = \"bernoulli\", per = 0, applies_to = \"data\" }",
        &format!("error = {error}"),
    );
    assert!(t.contains(error), "{t}");
    let sc = airtcp_core::scenario::parse_toml(&t).unwrap();
    let mut sim = airtcp_core::scenario::build_with(&sc, files).unwrap();
    sim.run();
    sim
}

fn loss_stats(sim: &airtcp_core::Sim) -> (f64, f64) {
    let f = &sim.flows[0];
    let sent = match &f.transport {
        airtcp_core::sim::Transport::Udp(u) => u.sent_packets,
        _ => unreachable!(),
    };
    let lost: Vec<u64> = f.loss_log.iter().map(|x| x.seq()).collect();
    let mut bursts = 0;
    for (i, s) in lost.iter().enumerate() {
        if i == 0 || lost[i - 1] + 1 != *s {
            bursts += 1;
        }
    }
    (
        lost.len() as f64 / sent as f64,
        lost.len() as f64 / bursts.max(1) as f64,
    )
}

#[test]
fn gilbert_elliott_loss_rate_and_burst_length_match_closed_form() {
    let sim = cbr_over(
        r#"{ model = "gilbert_elliott", mean_good = "500ms", mean_bad = "50ms", applies_to = "data" }"#,
        4000.0,
    );
    let (rate, burst) = loss_stats(&sim);
    let (want_rate, want_burst) = gilbert_closed_form(0.5, 0.05, 0.01);
    println!("GE: rate {rate:.4} (closed form {want_rate:.4}), burst {burst:.3} ({want_burst:.3})");
    assert!(
        (rate - want_rate).abs() < 0.05 * want_rate,
        "rate {rate} vs {want_rate}"
    );
    assert!(
        (burst - want_burst).abs() < 0.05 * want_burst,
        "burst {burst} vs {want_burst}"
    );
}

#[test]
fn ber_model_loses_by_packet_size() {
    let sim = cbr_over(
        r#"{ model = "ber", ber = 2e-5, applies_to = "data" }"#,
        2000.0,
    );
    let (rate, burst) = loss_stats(&sim);
    let want = 1.0 - (1.0 - 2e-5f64).powf(8.0 * 1000.0);
    assert!((rate - want).abs() < 0.05 * want, "rate {rate} vs {want}");
    assert!(
        burst < 1.3,
        "independent losses: bursts near 1, got {burst}"
    );
}

#[test]
fn snr_trace_file_drives_losses() {
    // 10 s good (20 dB), 10 s deep fade (-5 dB), repeated: CCK 5.5 loses (almost) everything
    // in the fades and nothing otherwise.
    let dir = std::env::temp_dir().join(format!("airtcp-snr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("trace.csv");
    let mut csv = String::from("time_s,snr_db\n");
    for i in 0..400 {
        let snr = if (i / 100) % 2 == 0 { 20.0 } else { -5.0 };
        csv += &format!("{},{snr}\n", i as f64 * 0.1);
    }
    std::fs::write(&file, csv).unwrap();
    // Read relative to the scenario's directory.
    let err =
        r#"{ model = "snr", modulation = "cck5.5", trace = "trace.csv", applies_to = "data" }"#;
    let sim = cbr_over_reading(err, 40.0, &FileAccess::within(&dir), 1);
    let (rate, _) = loss_stats(&sim);
    assert!(
        (rate - 0.5).abs() < 0.01,
        "half the time in deep fade: {rate}"
    );
    for r in &sim.flows[0].loss_log {
        let (seq, cause, secs) = (r.seq(), r.cause(), r.at as f64 / 1e9);
        assert_eq!(
            (secs / 10.0) as u64 % 2,
            1,
            "loss of {seq} at {secs} s outside a fade"
        );
        assert_eq!(cause, airtcp_core::packet::DropCause::ChannelError);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn synthesized_snr_is_reproducible_and_seed_dependent() {
    let err = r#"{ model = "snr", modulation = "cck5.5", synth = { waypoints = [[0, 20], [30, 400], [60, 20]], shadowing_db = 3.0, fading = "rayleigh" }, applies_to = "data" }"#;
    let a = cbr_over(err, 60.0);
    let b = cbr_over(err, 60.0);
    assert_eq!(a.snr[0].samples_db, b.snr[0].samples_db);
    assert_eq!(a.flows[0].loss_log, b.flows[0].loss_log);
    // Another run seed draws another shadowing and fading path, and other losses.
    let c = cbr_over_reading(err, 60.0, &FileAccess::default(), 2);
    assert_ne!(a.snr[0].samples_db, c.snr[0].samples_db);
    assert_ne!(a.flows[0].loss_log, c.flows[0].loss_log);
    let (rate, burst) = loss_stats(&a);
    assert!(
        rate > 0.05 && rate < 0.95,
        "walking out of range loses some: {rate}"
    );
    assert!(burst > 2.0, "SNR fades cause bursts: {burst}");
}

#[test]
fn bad_snr_model_inputs_are_reported() {
    let p = Path::default().toml();
    let bad = p.replace(
        "error = { model = \"bernoulli\", per = 0, applies_to = \"data\" }",
        "error = { model = \"snr\", modulation = \"cck5.5\", trace = \"/nonexistent/x.csv\" }",
    );
    let e = airtcp_core::run_toml(&bad).unwrap_err();
    assert_eq!(e.path, "links[2].error.trace");
    assert!(e.message.contains("lies outside"), "{e}");
    let sc = airtcp_core::scenario::parse_toml(&bad).unwrap();
    let anywhere = FileAccess {
        base: None,
        allow: vec!["/".into()],
    };
    let e = airtcp_core::run_with(&sc, &anywhere).unwrap_err();
    assert_eq!(
        e.to_string(),
        "links[2].error.trace: cannot read '/nonexistent/x.csv': no such file"
    );
    let bad = p.replace(
        "error = { model = \"bernoulli\", per = 0, applies_to = \"data\" }",
        "error = { model = \"snr\", modulation = \"cck6\", samples = [1.0] }",
    );
    let e = airtcp_core::run_toml(&bad).unwrap_err();
    assert!(e.to_string().contains("cck6"), "{e}");
    let bad = p.replace(
        "error = { model = \"bernoulli\", per = 0, applies_to = \"data\" }",
        "error = { model = \"gilbert_elliott\", mean_good = \"1s\", mean_bad = 0 }",
    );
    assert_eq!(
        airtcp_core::run_toml(&bad).unwrap_err().path,
        "links[2].error.mean_bad"
    );
}

#[test]
fn traces_are_read_only_from_bounded_regular_files_and_errors_do_not_echo_them() {
    let p = Path::default().toml();
    let with_trace = |file: &str| {
        p.replace(
            "error = { model = \"bernoulli\", per = 0, applies_to = \"data\" }",
            &format!("error = {{ model = \"snr\", modulation = \"cck5.5\", trace = \"{file}\" }}"),
        )
    };
    let run_in = |text: &str, files: &FileAccess| {
        airtcp_core::run_with(&airtcp_core::scenario::parse_toml(text).unwrap(), files)
    };
    // A device would be read forever; it is refused before any read, even when allowed.
    let e = airtcp_core::run_toml(&with_trace("/dev/zero")).unwrap_err();
    assert_eq!(e.path, "links[2].error.trace");
    assert!(e.message.contains("lies outside"), "{e}");
    let e = run_in(&with_trace("zero"), &FileAccess::within("/dev")).unwrap_err();
    assert!(e.message.contains("not a regular file"), "{e}");
    // A bad line is reported by number, without its content.
    let dir = std::env::temp_dir().join(format!("airtcp-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("secret.csv"), "12.5\nTOP-SECRET-LINE\n").unwrap();
    let e = run_in(&with_trace("secret.csv"), &FileAccess::within(&dir)).unwrap_err();
    assert!(e.message.contains("line 2"), "{e}");
    assert!(!e.message.contains("TOP-SECRET"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gilbert_elliott_with_nanosecond_sojourns_catches_up_at_once() {
    // 10 ms between packets is 5e6 good/bad cycles: stepping through them one by one would
    // take hours over the run; the state is drawn afresh instead, at the stationary odds.
    let t0 = std::time::Instant::now();
    let sim = cbr_over(
        r#"{ model = "gilbert_elliott", mean_good = "1ns", mean_bad = "3ns", applies_to = "data" }"#,
        200.0,
    );
    let (rate, _) = loss_stats(&sim);
    assert!(
        (rate - 0.75).abs() < 0.02,
        "stationary loss rate 0.75, got {rate}"
    );
    assert!(t0.elapsed().as_secs() < 20, "{:?}", t0.elapsed());
}

#[test]
fn hashed_losses_follow_the_segment_not_the_timing() {
    // The loss is a function of sequence number and copy, so paths with different timing
    // lose the same segments: a 300-segment file over 30 ms and 80 ms loses the same number,
    // and the first copies lost are exactly those the rule picks.
    let run = |delay: &'static str, app: &str, secs: f64| {
        let t = Path {
            duration: secs,
            bottleneck_delay: delay,
            app: app.into(),
            ..Default::default()
        }
        .toml()
        .replace(
            "error = { model = \"bernoulli\", per = 0, applies_to = \"data\" }",
            "error = { model = \"hashed\", per = 0.05, seed = 7 }",
        );
        assert!(t.contains("hashed"));
        airtcp_core::run_toml(&t).unwrap().flows[0].clone()
    };
    let file = r#"{ kind = "file", size = 300000 }"#;
    let (a, b) = (run("30ms", file, 60.0), run("80ms", file, 60.0));
    let first: u64 = (0..300u64)
        .filter(|i| airtcp_core::link::error::hashed_unit(7, i * 1000, 0) < 0.05)
        .count() as u64;
    assert!(first > 5, "{first}");
    assert!(a.completion_time_s.is_some() && b.completion_time_s.is_some());
    assert_eq!(a.lost_packets, b.lost_packets);
    assert!(a.lost_packets >= first, "{} < {first}", a.lost_packets);
    // And about the asked rate over a long bulk transfer; ACKs pass.
    let bulk = run("30ms", r#"{ kind = "bulk" }"#, 100.0);
    let n = bulk.sent_packets as f64;
    let rate = bulk.lost_packets as f64 / n;
    // Within four binomial standard errors of the asked 5 %.
    assert!(
        (rate - 0.05).abs() < 4.0 * (0.05 * 0.95 / n).sqrt(),
        "{rate} over {n} packets"
    );
}
