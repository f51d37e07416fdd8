//! Hybla's RTT fairness and YeAH's bounded queue, each against its paper's statement. The
//! margins are stated in docs/schemes/hybla.md and docs/schemes/yeah.md.

mod common;
use common::{shares, Path};

#[test]
fn hybla_gives_a_long_rtt_flow_close_to_the_short_ones_rate() {
    // Caini & Firrincieli 2004: with the window rules scaled by rho = RTT/RTT0 a long-RTT
    // connection gains window per unit of time as the RTT0 one does, so two flows of 25 ms
    // (= RTT0, rho 1) and 100 ms (rho 4) sharing a bottleneck get close rates, where
    // standard TCP gives the long one a fraction set by the RTT ratio (throughput ~ 1/RTT
    // or worse). 10 Mbps, a 100-packet buffer, 60 s, seeds 1-3 summed.
    let q = "{ limit = 100 }";
    let (short_h, long_h) = shares("hybla", "hybla", "40ms", q, 60.0);
    let (short_r, long_r) = shares("newreno", "newreno", "40ms", q, 60.0);
    let (h, r) = (long_h / short_h, long_r / short_r);
    println!("long/short: hybla {h:.3}, newreno {r:.3}");
    // NewReno: at most 1/2 for a 4x RTT ratio (the 1/RTT law gives 1/4).
    assert!(r < 0.5, "newreno {r}");
    // Hybla: within 30% of an equal share, and at least twice NewReno's ratio.
    assert!(h > 0.7, "hybla {h}");
    assert!(h > 2.0 * r, "hybla {h} vs newreno {r}");
}

#[test]
fn yeah_keeps_its_queue_below_q_max_where_newreno_fills_the_buffer() {
    // Baiocchi et al. 2007: YeAH estimates its own backlog Q once per RTT and, above
    // Q_max = 80 packets, removes it (precautionary decongestion), so alone on a path with a
    // large buffer it keeps the queue bounded near Q_max without loss while the link stays
    // busy; NewReno fills the buffer until it overflows. 10 Mbps, 100 ms, 1000-packet
    // buffer, 60 s.
    let run = |cc: &'static str| {
        let r = Path {
            cc,
            access_rate: "100Mbps",
            duration: 60.0,
            tcp: "rcv_window = \"4MiB\"\nsack = true".into(),
            ..Default::default()
        }
        .run();
        let l = r.links.iter().find(|l| l.name == "R1->R2").unwrap().clone();
        (l, r.flows[0].lost_packets)
    };
    let (y, y_lost) = run("yeah");
    let (n, n_lost) = run("newreno");
    println!(
        "yeah: mean queue {:.1}, max {}, utilization {:.3}, lost {y_lost}; newreno: mean {:.1}, max {}, lost {n_lost}",
        y.mean_queue_packets, y.max_queue_packets, y.utilization, n.mean_queue_packets, n.max_queue_packets
    );
    assert_eq!(y_lost, 0);
    assert!(y.utilization > 0.9, "{}", y.utilization);
    // The queue is bounded by Q_max plus at most one round's growth past it (slow mode
    // grows a segment per RTT; Fast mode's Scalable growth is 1% per RTT of ~200 segments).
    assert!(y.max_queue_packets <= 100, "{}", y.max_queue_packets);
    assert!(y.mean_queue_packets <= 80.0, "{}", y.mean_queue_packets);
    // NewReno, alone in the same buffer, fills it.
    assert!(n.max_queue_packets >= 900, "{}", n.max_queue_packets);
}
