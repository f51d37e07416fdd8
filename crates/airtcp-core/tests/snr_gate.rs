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
    let e = airtcp_core::run_toml(&(gate.clone() + "measurement_delay = \"50ms\"\n")).unwrap_err();
    assert_eq!(e.path, "agents[0].measurement_delay");
    assert!(
        e.message
            .contains("at least the channel's SNR sample interval"),
        "{e}"
    );
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
