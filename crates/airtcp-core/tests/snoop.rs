//! Snoop at the base station repairs last-hop losses locally.

mod common;
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

#[test]
fn snoop_raises_goodput_over_a_lossy_last_hop() {
    for (per, seed) in [(0.01, 1), (0.02, 2), (0.05, 3)] {
        let plain = run(false, per, seed);
        let snoop = run(true, per, seed);
        let (fp, fs) = (&plain.flows[0], &snoop.flows[0]);
        let a = &snoop.agents[0];
        println!(
            "per {per}: newreno {:.0} bps ({} fast retx, {} timeouts); snoop {:.0} bps ({} fast retx, {} timeouts), {} local retx, {} dupacks suppressed",
            fp.goodput_bps, fp.fast_retransmits, fp.timeouts, fs.goodput_bps,
            fs.fast_retransmits, fs.timeouts, a.count("local_retransmits"), a.count("suppressed")
        );
        assert!(a.count("local_retransmits") > 0 && a.count("suppressed") > 0);
        assert!(fs.goodput_bps > 1.5 * fp.goodput_bps, "per {per}");
        // Local repair hides most losses from the sender.
        assert!(
            fs.fast_retransmits * 4 < fp.fast_retransmits.max(1),
            "per {per}"
        );
        assert_eq!(fs.order_violations, 0);
        let k = &snoop.packets;
        assert_eq!(
            k.sent,
            k.delivered + k.dropped + k.in_flight,
            "conservation with Snoop"
        );
    }
}
