//! Vegas and Veno end to end.

mod common;
use common::{mean_goodput, Path};

#[test]
fn vegas_keeps_alpha_to_beta_packets_queued() {
    let p = Path {
        cc: "vegas",
        bottleneck_rate: "2Mbps",
        duration: 60.0,
        tcp: "rcv_window = \"1MiB\"".into(),
        ..Default::default()
    };
    let t = p.toml() + "[trace]\nqueue = [\"R1->R2\"]\nqueue_interval = \"10ms\"\n";
    let r = airtcp_core::run_toml(&t).unwrap();
    let q = &r.series.queue["R1->R2"];
    // Steady state: the last 40 s.
    let tail: Vec<f64> =
        q.t.iter()
            .zip(&q.packets)
            .filter(|(t, _)| **t >= 20.0)
            .map(|(_, p)| *p as f64)
            .collect();
    let mean = tail.iter().sum::<f64>() / tail.len() as f64;
    println!("vegas mean queue {mean:.2}");
    assert!((1.0..=3.0).contains(&mean), "mean queue {mean}");
    let f = &r.flows[0];
    assert_eq!(
        f.lost_packets, 0,
        "Vegas never fills the 1000-packet buffer"
    );
    // And the link stays busy.
    let l = r.links.iter().find(|l| l.name == "R1->R2").unwrap();
    assert!(l.utilization > 0.95, "{}", l.utilization);
}

#[test]
fn veno_beats_newreno_under_random_loss() {
    for per in [0.01, 0.02, 0.05] {
        let nr = mean_goodput("newreno", per);
        let v = mean_goodput("veno", per);
        println!("per {per}: newreno {nr:.0} veno {v:.0} gain {:.2}", v / nr);
        // Margin stated in docs/schemes/veno.md.
        assert!(v > 1.3 * nr, "per {per}: veno {v} vs newreno {nr}");
    }
}
