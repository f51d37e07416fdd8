//! The SNR-driven gate of seed paper 004 on its three-node topology.

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

#[test]
fn gate_sends_nothing_new_while_closed() {
    for t in [3.0, 5.0] {
        let r = airtcp_core::run_toml(&scenario(Some(t), 1)).unwrap();
        let g = &r.agents[0];
        assert!(g.count("closures") > 10, "the trace has fades: {g:?}");
        assert!(matches!(g.get("closed_s"), Some(airtcp_core::hook::Metric::Real(s)) if s > 1.0));
        assert_eq!(g.count("new_data_while_closed"), 0, "{g:?}");
        let f = &r.flows[0];
        assert_eq!(f.delivered_bytes, 5_000_000, "the transfer still completes");
        assert_eq!(f.order_violations, 0);
    }
}

#[test]
fn gate_cuts_connection_time_and_overhead_on_a_fading_channel() {
    for seed in 1..=3 {
        let plain = airtcp_core::run_toml(&scenario(None, seed)).unwrap().flows[0].clone();
        let gated = airtcp_core::run_toml(&scenario(Some(5.0), seed))
            .unwrap()
            .flows[0]
            .clone();
        let overhead =
            |f: &airtcp_core::stats::FlowResult| (f.sent_bytes as f64 - 5e6) / 5e6 * 100.0;
        let (tp, tg) = (
            plain.completion_time_s.unwrap(),
            gated.completion_time_s.unwrap(),
        );
        println!(
            "seed {seed}: time {tp:.1} -> {tg:.1} s, overhead {:.2} -> {:.2} %",
            overhead(&plain),
            overhead(&gated)
        );
        assert!(tg < tp, "seed {seed}: {tg} vs {tp}");
        assert!(overhead(&gated) < overhead(&plain));
    }
}

#[test]
fn gate_needs_an_snr_channel() {
    let t = scenario(Some(5.0), 1).replace("link = \"MH-BS\"", "link = \"BS-FH\"");
    let e = airtcp_core::run_toml(&t).unwrap_err();
    assert_eq!(e.path, "agents[0].link");
    assert!(e.message.contains("does not touch node 'MH'"), "{e}");
}
