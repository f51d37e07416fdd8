//! The SNR-driven gate of seed paper 004 on its three-node topology.

use airtcp_core::hook::Metric;

fn scenario(threshold: Option<f64>, seed: u64) -> String {
    let base = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/snr_gate.toml"
    ))
    .unwrap()
    .replace("seed = 1", &format!("seed = {seed}"));
    match threshold {
        None => base,
        Some(t) => {
            base + &format!(
                "[[agents]]\nkind = \"snr_gate\"\nnode = \"MH\"\nlink = \"MH-BS\"\nthreshold_db = {t}\n"
            )
        }
    }
}

fn real(m: Option<Metric>) -> f64 {
    match m {
        Some(Metric::Real(x)) => x,
        other => panic!("not a real metric: {other:?}"),
    }
}

#[test]
fn gate_sends_nothing_new_while_closed() {
    for t in [3.0, 5.0] {
        let r = airtcp_core::run_toml(&scenario(Some(t), 1)).unwrap();
        let g = &r.agents[0];
        assert!(g.count("closures") > 10, "the trace has fades: {g:?}");
        assert!(real(g.get("closed_s")) > 1.0);
        assert_eq!(g.count("new_data_while_closed"), 0, "{g:?}");
        // Every decision used a sample whose 100 ms interval had ended.
        assert!(g.count("decisions") > 100);
        assert!(real(g.get("min_sample_age_s")) >= 0.1 - 1e-12, "{g:?}");
        let f = &r.flows[0];
        assert_eq!(f.delivered_bytes, 5_000_000, "the transfer still completes");
        assert_eq!(f.order_violations, 0);
    }
}

/// The paper's topology over an inline trace: 40 dB throughout, except (with `dip`) 30 dB
/// in [5.0 s, 5.1 s). Both levels lose no packet, so only the gate (35 dB) can tell them apart.
fn dip_scenario(dip: bool, duration: &str, delay: Option<&str>) -> String {
    let mut samples = vec!["40.0"; 200];
    if dip {
        samples[50] = "30.0";
    }
    let error = format!(
        "error = {{ model = \"snr\", modulation = \"cck5.5\", samples = [{}], applies_to = \"all\" }}",
        samples.join(", ")
    );
    let base = scenario(None, 1);
    let start = base.find("error = { model = \"snr\"").unwrap();
    let end = start + base[start..].find('\n').unwrap();
    let mut s = format!("{}{}{}", &base[..start], error, &base[end..])
        .replace("duration = \"600s\"", &format!("duration = \"{duration}\""));
    s += "[[agents]]\nkind = \"snr_gate\"\nnode = \"MH\"\nlink = \"MH-BS\"\nthreshold_db = 35.0\n";
    if let Some(d) = delay {
        s += &format!("measurement_delay = \"{d}\"\n");
    }
    s
}

fn result_json(text: &str) -> String {
    let r = airtcp_core::run_toml(text).unwrap();
    serde_json::to_string(&r).unwrap()
}

#[test]
fn gate_never_reads_ahead() {
    // Until the dip has been measured (its interval ended at 5.1 s), a run with the dip is
    // byte-identical to one without: nothing, the gate included, can act on it earlier.
    for d in ["5.0s", "5.05s", "5.0999s"] {
        assert_eq!(
            result_json(&dip_scenario(true, d, None)),
            result_json(&dip_scenario(false, d, None)),
            "the run to {d} differs"
        );
    }
    // Once it has been measured the gate acts on it at once: closed from 5.1 s to the end of
    // a run stopped at 5.15 s.
    let r = airtcp_core::run_toml(&dip_scenario(true, "5.15s", None)).unwrap();
    let g = &r.agents[0];
    assert_eq!(g.count("closures"), 1, "{g:?}");
    assert!((real(g.get("closed_s")) - 0.05).abs() < 1e-9, "{g:?}");
    // It opens again on the next measured sample (40 dB, known at 5.2 s).
    let r = airtcp_core::run_toml(&dip_scenario(true, "6s", None)).unwrap();
    assert!((real(r.agents[0].get("closed_s")) - 0.1).abs() < 1e-9);
    // With a 500 ms delay nothing changes before 5.5 s.
    assert_eq!(
        result_json(&dip_scenario(true, "5.45s", Some("500ms"))),
        result_json(&dip_scenario(false, "5.45s", Some("500ms")))
    );
    let r = airtcp_core::run_toml(&dip_scenario(true, "5.55s", Some("500ms"))).unwrap();
    assert_eq!(r.agents[0].count("closures"), 1);
}

#[test]
fn gate_needs_an_snr_channel() {
    let t = scenario(Some(5.0), 1).replace("link = \"MH-BS\"", "link = \"BS-FH\"");
    let e = airtcp_core::run_toml(&t).unwrap_err();
    assert_eq!(e.path, "agents[0].link");
    assert!(e.message.contains("does not touch node 'MH'"), "{e}");
}

#[test]
fn gate_and_fading_parameters_are_validated() {
    let gate = scenario(Some(5.0), 1);
    let e = airtcp_core::run_toml(&(gate.clone() + "measurement_delay = \"0s\"\n")).unwrap_err();
    assert_eq!(e.path, "agents[0].measurement_delay");
    assert!(e.message.contains("must be > 0"), "{e}");
    let e = airtcp_core::run_toml(&(gate.clone() + "hysteresis_db = -1.0\n")).unwrap_err();
    assert_eq!(e.path, "agents[0].hysteresis_db");
    let e = airtcp_core::run_toml(
        &scenario(None, 1).replace("applies_to = \"all\"", "applies_to = \"all\", per_size = 0"),
    )
    .unwrap_err();
    assert_eq!(e.path, "links[0].error.per_size");
    let e = airtcp_core::run_toml(&(gate.clone() + "ewma_weight = 0.0\n")).unwrap_err();
    assert_eq!(e.path, "agents[0].ewma_weight");
    let e = airtcp_core::run_toml(&(gate + "ewma_weight = 1.5\n")).unwrap_err();
    assert_eq!(e.path, "agents[0].ewma_weight");
    let both = scenario(None, 1).replace(
        "fading = \"rayleigh\"",
        "fading = \"rayleigh\", doppler_hz = 11.2, coherence_time = \"1s\"",
    );
    let e = airtcp_core::run_toml(&both).unwrap_err();
    assert_eq!(e.path, "links[0].error.synth.doppler_hz");
    let bad = scenario(None, 1).replace(
        "fading = \"rayleigh\"",
        "fading = \"rayleigh\", coherence_time = \"0s\"",
    );
    assert_eq!(
        airtcp_core::run_toml(&bad).unwrap_err().path,
        "links[0].error.synth.coherence_time"
    );
}

#[test]
fn correlated_fading_is_reproducible_and_changes_the_channel() {
    let slow = scenario(None, 1).replace(
        "fading = \"rayleigh\"",
        "fading = \"rayleigh\", coherence_time = \"2s\"",
    );
    let clarke = scenario(None, 1).replace(
        "fading = \"rayleigh\"",
        "fading = \"rayleigh\", doppler_hz = 11.2",
    );
    assert_eq!(result_json(&slow), result_json(&slow));
    assert_eq!(result_json(&clarke), result_json(&clarke));
    assert_ne!(result_json(&slow), result_json(&scenario(None, 1)));
    assert_ne!(result_json(&clarke), result_json(&slow));
}

#[test]
fn a_reading_younger_than_the_hold_reads_into_the_running_sample() {
    // Polling every 10 ms with readings 10 ms old, the gate learns of the dip in
    // [5.0 s, 5.1 s) at 5.01 s: runs with and without it are identical until then.
    let young = |dip: bool, d: &str| {
        dip_scenario(dip, d, Some("10ms")).replace(
            "threshold_db = 35.0\n",
            "threshold_db = 35.0\ninterval = \"10ms\"\n",
        )
    };
    assert_eq!(
        result_json(&young(true, "5.0099s")),
        result_json(&young(false, "5.0099s"))
    );
    let r = airtcp_core::run_toml(&young(true, "5.05s")).unwrap();
    let g = &r.agents[0];
    assert_eq!(g.count("closures"), 1, "{g:?}");
    assert!((real(g.get("closed_s")) - 0.04).abs() < 1e-9, "{g:?}");
    assert!(
        (real(g.get("min_sample_age_s")) - 0.01).abs() < 1e-12,
        "{g:?}"
    );
}

#[test]
fn hysteresis_keeps_the_gate_closed_until_the_upper_threshold() {
    // 40 dB, a dip to 30 dB in [5.0 s, 5.1 s), then 36 dB: above the 35 dB threshold but
    // not above 35 + 2, so a gate with hysteresis stays closed to the end.
    let with = |h: &str| {
        let mut s = dip_scenario(true, "8s", None);
        let tail: Vec<&str> = vec!["36.0"; 149];
        s = s.replacen(
            &format!("30.0, {}", vec!["40.0"; 149].join(", ")),
            &format!("30.0, {}", tail.join(", ")),
            1,
        );
        s + h
    };
    let plain = airtcp_core::run_toml(&with("")).unwrap();
    assert!((real(plain.agents[0].get("closed_s")) - 0.1).abs() < 1e-9);
    let r = airtcp_core::run_toml(&with("hysteresis_db = 2.0\n")).unwrap();
    assert_eq!(r.agents[0].count("closures"), 1);
    assert!(
        (real(r.agents[0].get("closed_s")) - 2.9).abs() < 1e-9,
        "{:?}",
        r.agents[0]
    );
}

#[test]
fn one_trace_for_both_directions() {
    let series = |text: &str| {
        let sc = airtcp_core::scenario::parse_toml(text).unwrap();
        airtcp_core::scenario::build(&sc).unwrap().snr
    };
    let base = scenario(None, 3);
    let two = series(&base);
    let one = series(&base.replace(
        "applies_to = \"all\"",
        "applies_to = \"all\", shared = true",
    ));
    assert_eq!(two.len(), 2);
    assert_eq!(one.len(), 2);
    // Two traces by default; shared, both directions hold the a->b direction's.
    assert_ne!(two[0].samples_db, two[1].samples_db);
    assert_eq!(one[0].samples_db, two[0].samples_db);
    assert_eq!(one[1].samples_db, two[0].samples_db);
}

#[test]
fn one_frame_size_for_every_frames_per() {
    // A constant SNR at which a 1040-byte frame is lost 5% of the time: 40-byte ACKs are lost
    // at their own far smaller rate, or at 5% with `per_size = 1040`.
    let cck = airtcp_core::link::Modulation::Cck5_5;
    let (mut lo, mut hi) = (0.0, 30.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if cck.per(mid, 1040) > 0.05 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    assert!(cck.per(hi, 40) < 0.005);
    let base = scenario(None, 2);
    let start = base.find("synth = {").unwrap();
    let end = start + base[start..].find("}, applies_to").unwrap() + 1;
    let flat = format!("{}samples = [{hi}]{}", &base[..start], &base[end..]);
    let ack_loss = |text: &str| {
        let r = airtcp_core::run_toml(text).unwrap();
        let l = r.links.iter().find(|l| l.name == "BS->MH").unwrap();
        l.drops_channel_error as f64 / l.tx_packets as f64
    };
    let own = ack_loss(&flat);
    let data = ack_loss(&flat.replace(
        "applies_to = \"all\"",
        "applies_to = \"all\", per_size = 1040",
    ));
    assert!(own < 0.005, "{own}");
    // About 4,000 ACKs: 5% within a few standard errors (0.35 points).
    assert!((data - 0.05).abs() < 0.012, "{data}");
}
