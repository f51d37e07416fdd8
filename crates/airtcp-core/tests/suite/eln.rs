//! ELN: channel losses on the last hop are repaired without touching the window, marked by
//! the node that could know of them: the receiving end of a link that reports damaged frames,
//! or the sending end of a link whose ARQ gave up.

use crate::common;
use common::Path;

fn toml(agent_at: Option<&str>, per: f64, arq: Option<u32>, seed: u64) -> String {
    let p = Path {
        per,
        seed,
        duration: 60.0,
        tcp: "rcv_window = \"1MiB\"".into(),
        ..Default::default()
    };
    let mut t = p.toml();
    if let Some(limit) = arq {
        // The last link (R2-D) is the one written just before the flows.
        let at = t.find("[[flows]]").expect("flows");
        t.insert_str(
            at,
            &format!("arq = {{ retry_limit = {limit}, ack_bytes = 14 }}\n"),
        );
    }
    if let Some(node) = agent_at {
        t += &format!("[[agents]]\nkind = \"eln\"\nnode = \"{node}\"\n");
    }
    t
}

fn run(t: &str) -> airtcp_core::stats::FlowResult {
    airtcp_core::run_toml(t).unwrap().flows[0].clone()
}

#[test]
fn eln_keeps_cwnd_intact_on_channel_losses() {
    for seed in 1..=3 {
        let plain = run(&toml(None, 0.02, None, seed));
        // The receiving host sees each damaged frame of the last hop.
        let eln = run(&toml(Some("D"), 0.02, None, seed));
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

#[test]
fn the_sending_end_of_a_link_without_acknowledgements_knows_nothing() {
    // R2 sends over the lossy link but hears no link ACKs: it cannot tell which frames the
    // receiver lost, so its agent marks nothing and every loss is a fast retransmit.
    let all = airtcp_core::run_toml(&toml(Some("R2"), 0.02, None, 1)).unwrap();
    let r = &all.flows[0];
    assert_eq!(all.agents[0].count("marked"), 0);
    assert_eq!(r.eln_retransmits, 0);
    assert!(r.fast_retransmits > 50, "{r:?}");
}

#[test]
fn a_link_that_gives_up_tells_its_sending_end() {
    // With one link retransmission at 10% frame errors, 1% of frames are given up: R2 knows
    // each of those (its ARQ gave up) and marks the duplicate ACKs for them. (Frames the
    // ARQ resends overtake others, so reordering still triggers ordinary fast retransmits.)
    let all = airtcp_core::run_toml(&toml(Some("R2"), 0.1, Some(1), 1)).unwrap();
    let r = &all.flows[0];
    assert_eq!(r.lost_congestion, 0);
    assert!(r.lost_channel_error > 20, "{r:?}");
    assert!(all.agents[0].count("marked") > 20);
    assert!(r.eln_retransmits > 20, "{r:?}");
    // Each ELN retransmission answers a segment the link really gave up on.
    assert!(r.eln_retransmits <= r.lost_channel_error, "{r:?}");
    // At the receiving host the link's damaged attempts are no loss (the ARQ resends them):
    // nothing is marked there.
    let at_d = airtcp_core::run_toml(&toml(Some("D"), 0.1, Some(1), 1)).unwrap();
    assert_eq!(at_d.agents[0].count("marked"), 0);
}
