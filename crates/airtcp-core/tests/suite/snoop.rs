//! Snoop at the base station repairs last-hop losses locally.

use crate::common;
use common::Path;

fn run(snoop: bool, per: f64, seed: u64) -> airtcp_core::RunResult {
    let p = Path {
        per,
        seed,
        duration: 60.0,
        tcp: "rcv_window = \"1MiB\"".into(),
        ..Default::default()
    };
    let mut t = p.toml();
    if snoop {
        t += "[[agents]]\nkind = \"snoop\"\nnode = \"R2\"\n";
    }
    airtcp_core::run_toml(&t).unwrap()
}

/// Over four seeds per error rate, and in every run: Snoop beats plain NewReno.
#[test]
fn snoop_raises_goodput_over_a_lossy_last_hop() {
    for per in [0.01, 0.02, 0.05] {
        let (mut gp, mut gs, mut fr_p, mut fr_s) = (0.0, 0.0, 0, 0);
        for seed in 1..=4 {
            let plain = run(false, per, seed);
            let snoop = run(true, per, seed);
            let (fp, fs) = (&plain.flows[0], &snoop.flows[0]);
            let a = &snoop.agents[0];
            println!(
                "per {per} seed {seed}: newreno {:.0} bps ({} fast retx, {} timeouts); snoop {:.0} bps ({} fast retx, {} timeouts), {} local retx, {} dupacks suppressed",
                fp.goodput_bps, fp.fast_retransmits, fp.timeouts, fs.goodput_bps,
                fs.fast_retransmits, fs.timeouts, a.count("local_retransmits"), a.count("suppressed")
            );
            assert!(a.count("local_retransmits") > 0 && a.count("suppressed") > 0);
            assert!(
                fs.goodput_bps > fp.goodput_bps,
                "per {per} seed {seed}: {} against {}",
                fs.goodput_bps,
                fp.goodput_bps
            );
            assert_eq!(fs.order_violations, 0);
            let k = &snoop.packets;
            assert_eq!(
                k.sent,
                k.delivered + k.dropped + k.in_flight,
                "conservation with Snoop"
            );
            (gp, gs) = (gp + fp.goodput_bps, gs + fs.goodput_bps);
            (fr_p, fr_s) = (fr_p + fp.fast_retransmits, fr_s + fs.fast_retransmits);
        }
        assert!(gs > 1.5 * gp, "per {per}: goodput {gs} against {gp}");
        // Local repair hides most losses from the sender.
        assert!(
            fr_s * 4 < fr_p.max(1),
            "per {per}: {fr_s} fast retransmits against {fr_p}"
        );
    }
}
