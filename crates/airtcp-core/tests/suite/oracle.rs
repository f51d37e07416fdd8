//! The loss-cause oracle: told the true cause of each loss, it never misjudges one, keeps its
//! window through channel losses and so bounds what loss differentiation can reach; under
//! congestion alone it behaves as NewReno.

use airtcp_core::harness::Net;
use airtcp_core::stats::RunResult;
use serde_json::json;

/// S -10 Mb/s- R -2 Mb/s- D with `per` packet errors on R-D and a queue of `queue` packets.
fn run(cc: &str, per: f64, queue: u64, seed: u64) -> RunResult {
    let mut sim = Net::new("60s")
        .set("seed", json!(seed))
        .host("S")
        .router("R")
        .host("D")
        .link_with("S", "R", "10Mbps", "5ms", json!({"queue": {"limit": 1000}}))
        .link_with(
            "R",
            "D",
            "2Mbps",
            "20ms",
            json!({
                "kind": "wireless",
                "queue": {"limit": queue},
                "error": {"model": "bernoulli", "per": per, "applies_to": "data"},
            }),
        )
        .flow(json!({
            "name": "f", "src": "S", "dst": "D", "cc": cc, "app": {"kind": "bulk"},
            "tcp": {"rcv_window": "1MB"},
        }))
        .build()
        .unwrap();
    sim.run();
    RunResult::from_sim(&sim)
}

#[test]
fn the_oracle_never_misjudges_and_bounds_sack_under_channel_loss() {
    for seed in 1..=3 {
        let o = run("oracle", 0.02, 20, seed);
        let n = run("sack", 0.02, 20, seed);
        let (fo, fnr) = (&o.flows[0], &n.flows[0]);
        assert!(fo.scoring.verdicts > 20, "{:?}", fo.scoring);
        assert_eq!((fo.scoring.type1_errors, fo.scoring.type2_errors), (0, 0));
        assert!(fo.scoring.verdicts_wireless > 0 && fo.scoring.verdicts_congestion > 0);
        // At 2% loss NewReno cannot fill 2 Mb/s; the oracle, cutting only for congestion, can.
        assert!(
            fo.goodput_bps > 1.3 * fnr.goodput_bps,
            "seed {seed}: oracle {} vs newreno {}",
            fo.goodput_bps,
            fnr.goodput_bps
        );
        assert!(
            fo.goodput_bps > 0.85 * 2e6 * 1000.0 / 1040.0 * 0.98,
            "{}",
            fo.goodput_bps
        );
    }
}

#[test]
fn without_channel_loss_the_oracle_is_newreno() {
    let o = run("oracle", 0.0, 20, 1);
    let n = run("sack", 0.0, 20, 1);
    let (fo, fnr) = (&o.flows[0], &n.flows[0]);
    assert!(fo.lost_congestion > 0);
    assert_eq!(fo.goodput_bps, fnr.goodput_bps);
    assert_eq!(fo.fast_retransmits, fnr.fast_retransmits);
    assert_eq!(fo.scoring.verdicts_wireless, 0);
}
