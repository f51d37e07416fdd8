//! Link-layer retransmission (per-hop ARQ) with delayed duplicate ACKs (DDA).

use crate::common;
use common::Path;

fn run(arq: bool, dda: bool, per: f64, seed: u64) -> airtcp_core::RunResult {
    let p = Path {
        per,
        seed,
        duration: 60.0,
        tcp: if dda {
            "rcv_window = \"1MiB\"\ndda_delay = \"30ms\"".into()
        } else {
            "rcv_window = \"1MiB\"".into()
        },
        ..Default::default()
    };
    let mut t = p.toml();
    if arq {
        t = t.replace(
            "kind = \"wireless\"",
            "kind = \"wireless\"\narq = { retry_limit = 3 }",
        );
        assert!(t.contains("arq = "));
    }
    airtcp_core::run_toml(&t).unwrap()
}

#[test]
fn lrt_raises_goodput_over_a_lossy_last_hop() {
    for (per, seed) in [(0.01, 1), (0.02, 2), (0.05, 3)] {
        let plain = run(false, false, per, seed);
        let lrt = run(true, false, per, seed);
        let lrt_dda = run(true, true, per, seed);
        let link = lrt.links.iter().find(|l| l.name == "R2->D").unwrap();
        let g = |r: &airtcp_core::RunResult| r.flows[0].goodput_bps;
        println!(
            "per {per}: newreno {:.0}, LRT {:.0} ({} link retx, {} fast retx), LRT+DDA {:.0} ({} fast retx)",
            g(&plain), g(&lrt), link.arq_retransmissions, lrt.flows[0].fast_retransmits,
            g(&lrt_dda), lrt_dda.flows[0].fast_retransmits
        );
        assert!(link.arq_retransmissions > 0);
        // Three retries at most: a frame is lost end to end with probability per^4.
        assert!(lrt.flows[0].lost_channel_error <= 2, "{:?}", lrt.flows[0]);
        // Alone, the reordering from link retransmissions still triggers fast retransmits,
        // so the gain is modest; with DDA it is large.
        assert!(g(&lrt) > g(&plain), "per {per}");
        assert!(g(&lrt_dda) > 2.0 * g(&plain), "per {per}");
        // DDA hides the reordering the link retransmissions cause from the sender.
        assert!(
            lrt_dda.flows[0].fast_retransmits <= lrt.flows[0].fast_retransmits,
            "per {per}"
        );
        let k = &lrt.packets;
        assert_eq!(
            k.sent,
            k.delivered + k.dropped + k.in_flight,
            "conservation with ARQ"
        );
    }
}
