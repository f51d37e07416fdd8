//! ELN: channel losses on the last hop are repaired without touching the window.

mod common;
use common::Path;

fn run(eln: bool, seed: u64) -> airtcp_core::stats::FlowResult {
    let p = Path {
        per: 0.02,
        seed,
        duration: 60.0,
        tcp: "rcv_window = \"1MiB\"".into(),
        ..Default::default()
    };
    let mut t = p.toml();
    if eln {
        t += "[[agents]]\nkind = \"eln\"\nnode = \"R2\"\n";
    }
    airtcp_core::run_toml(&t).unwrap().flows[0].clone()
}

#[test]
fn eln_keeps_cwnd_intact_on_channel_losses() {
    for seed in 1..=3 {
        let plain = run(false, seed);
        let eln = run(true, seed);
        println!(
            "seed {seed}: newreno {:.0} bps cwnd {:.1}; with ELN {:.0} bps cwnd {:.1}, {} ELN retransmits, {} fast retransmits, {} timeouts",
            plain.goodput_bps, plain.avg_cwnd_segments, eln.goodput_bps, eln.avg_cwnd_segments,
            eln.eln_retransmits, eln.fast_retransmits, eln.timeouts
        );
        assert!(plain.fast_retransmits > 50);
        // Every loss is a channel error (the buffers never overflow), so no loss may reduce
        // the window through fast retransmit.
        assert_eq!(eln.lost_congestion, 0);
        assert_eq!(eln.fast_retransmits, 0, "{eln:?}");
        assert!(eln.eln_retransmits > 50);
        assert!(eln.avg_cwnd_segments > 2.0 * plain.avg_cwnd_segments);
        assert!(eln.goodput_bps > 1.5 * plain.goodput_bps);
    }
}
