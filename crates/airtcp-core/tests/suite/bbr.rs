//! BBR v1 end to end on one path (10 Mb/s bottleneck, 100 ms base RTT, 1000-packet buffers):
//! utilization, the order of its states, the queue it keeps, and goodput under random loss.
//! The figures are quoted in docs/schemes/bbr.md.

use crate::common;
use airtcp_core::RunResult;
use common::Path;

/// Payload rate of the 10 Mb/s bottleneck: 1000-byte segments in 1040-byte packets.
const CAPACITY: f64 = 10e6 * 1000.0 / 1040.0;

fn path(cc: &'static str) -> Path {
    Path {
        cc,
        access_rate: "100Mbps",
        bottleneck_rate: "10Mbps",
        queue: 1000,
        duration: 30.0,
        tcp: "rcv_window = \"16MiB\"".into(),
        ..Default::default()
    }
}

fn traced(p: &Path) -> RunResult {
    let t = p.toml() + "[trace]\ncwnd = true\nqueue = [\"R1->R2\"]\n";
    airtcp_core::run_toml(&t).unwrap()
}

/// The flow's state at time `t` from its state series.
fn state_at(r: &RunResult, flow: &str, t: f64) -> &'static str {
    let s = &r.series.cc_state[flow];
    let i = s.t.partition_point(|&x| x <= t);
    s.state[i.max(1) - 1]
}

#[test]
fn bbr_fills_a_clean_bottleneck() {
    let r = traced(&path("bbr"));
    let f = &r.flows[0];
    println!(
        "goodput {:.3} Mb/s = {:.1}% of the payload capacity, {:.1}% of the link rate",
        f.goodput_bps / 1e6,
        100.0 * f.goodput_bps / CAPACITY,
        100.0 * f.goodput_bps / 10e6
    );
    assert!(f.goodput_bps >= 0.9 * CAPACITY, "{}", f.goodput_bps);
    assert_eq!(f.lost_packets, 0);
    // The bandwidth estimate is the bottleneck's payload rate.
    let bwe = f.bwe_bps.unwrap();
    assert!((bwe / CAPACITY - 1.0).abs() < 0.02, "{bwe}");
    // Alone on the path, pacing below the estimate empties the queue every gain cycle, so the
    // min RTT is refreshed and PROBE_RTT is never needed.
    assert_eq!(f.extra["bbr_probe_rtt_entries"], 0.0);
}

#[test]
fn states_run_startup_drain_probe_bw_then_probe_rtt() {
    // Two flows keep the queue from emptying, so the min RTT goes stale after 10 s.
    let mut p = path("bbr");
    p.flows = 2;
    p.duration = 40.0;
    let r = traced(&p);
    for f in &r.flows {
        let s = &r.series.cc_state[&f.name];
        println!(
            "{}: {:?}",
            f.name,
            s.t.iter().zip(&s.state).collect::<Vec<_>>()
        );
        assert_eq!(s.state[..4], ["startup", "drain", "probe_bw", "probe_rtt"]);
        // PROBE_RTT only ever returns to PROBE_BW, and after at least 200 ms.
        for i in 1..s.state.len() {
            if s.state[i - 1] == "probe_rtt" {
                assert_eq!(s.state[i], "probe_bw");
                assert!(s.t[i] - s.t[i - 1] >= 0.2, "{:?}", s.t);
            }
        }
        // The first PROBE_RTT comes 10 s after the min RTT was last refreshed, so 10 s into the
        // run at the earliest; at most one per 10 s window. (Afterwards both flows pace a
        // little below their shares, the queue empties now and then and refreshes the min RTT,
        // so later visits are rare.)
        let first = s.t[3];
        assert!((10.0..15.0).contains(&first), "{first}");
        let n = s.state.iter().filter(|&&x| x == "probe_rtt").count() as f64;
        // In a 40 s run whose first visit is 10 s in: at most three (10-20, 20-30, 30-40 s).
        assert!((1.0..=3.0).contains(&n), "{n}");
        assert_eq!(f.extra["bbr_probe_rtt_entries"], n);
    }
    // Both flows together still use the bottleneck.
    let total: f64 = r.flows.iter().map(|f| f.goodput_bps).sum();
    assert!(total >= 0.9 * CAPACITY, "{total}");
}

/// Mean bottleneck queue (packets) over the samples after `from` seconds for which `keep` says
/// yes.
fn mean_queue(r: &RunResult, from: f64, keep: impl Fn(f64) -> bool) -> f64 {
    let q = &r.series.queue["R1->R2"];
    let v: Vec<f64> =
        q.t.iter()
            .zip(&q.packets)
            .filter(|(t, _)| **t >= from && keep(**t))
            .map(|(_, p)| *p as f64)
            .collect();
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn queue_stays_small_in_probe_bw_compared_with_loss_based_schemes() {
    let bbr = traced(&path("bbr"));
    let q_bbr = mean_queue(&bbr, 5.0, |t| state_at(&bbr, "f0", t) == "probe_bw");
    let cubic = traced(&path("cubic"));
    let q_cubic = mean_queue(&cubic, 5.0, |_| true);
    let newreno = traced(&path("newreno"));
    let q_newreno = mean_queue(&newreno, 5.0, |_| true);
    println!(
        "mean queue after 5 s: bbr (probe_bw) {q_bbr:.1}, cubic {q_cubic:.1}, newreno {q_newreno:.1} packets (BDP 125)"
    );
    // PROBE_BW's 1.25 phase queues at most a quarter BDP (31 packets) for one RTT per cycle.
    assert!(q_bbr < 15.0, "{q_bbr}");
    assert!(q_bbr * 10.0 < q_cubic.min(q_newreno));
    // And BBR gets at least the loss-based schemes' goodput out of it.
    let g = |r: &RunResult| r.flows[0].goodput_bps;
    assert!(g(&bbr) > g(&cubic) && g(&bbr) > g(&newreno));
}

#[test]
fn random_loss_leaves_bbr_far_above_newreno() {
    for per in [0.01, 0.02, 0.05] {
        let goodput = |cc| {
            let mut p = path(cc);
            p.per = per;
            p.duration = 60.0;
            p.run().flows[0].goodput_bps
        };
        let (bbr, newreno) = (goodput("bbr"), goodput("newreno"));
        println!(
            "per {per}: bbr {:.2} Mb/s ({:.0}% of capacity), newreno {:.2} Mb/s, ratio {:.1}",
            bbr / 1e6,
            100.0 * bbr / CAPACITY,
            newreno / 1e6,
            bbr / newreno
        );
        assert!(bbr > 5.0 * newreno, "per {per}: {bbr} vs {newreno}");
        if per <= 0.02 {
            assert!(bbr > 0.8 * CAPACITY, "per {per}: {bbr}");
        }
    }
}

#[test]
fn with_rack_tlp_bbr_keeps_most_of_the_bottleneck_under_5_percent_loss() {
    // Without RACK a lost retransmission waits for the RTO, and each timeout restarts BBR from
    // one segment; RACK-TLP finds those losses within a round.
    for per in [0.01, 0.02, 0.05] {
        let run = |cc| {
            let mut p = path(cc);
            p.per = per;
            p.duration = 60.0;
            p.tcp += "\nsack = true\nrack = true\ntlp = true\n";
            p.run().flows[0].goodput_bps
        };
        let (bbr, sack) = (run("bbr"), run("sack"));
        println!(
            "RACK-TLP, per {per}: bbr {:.2} Mb/s ({:.0}% of capacity), sack {:.2} Mb/s",
            bbr / 1e6,
            100.0 * bbr / CAPACITY,
            sack / 1e6
        );
        assert!(bbr > 0.75 * CAPACITY, "per {per}: {bbr}");
        assert!(bbr > 5.0 * sack, "per {per}: {bbr} vs {sack}");
    }
}

#[test]
fn same_seed_same_run() {
    let mut p = path("bbr");
    p.flows = 2;
    p.per = 0.01;
    p.duration = 20.0;
    let a = serde_json::to_string(&traced(&p)).unwrap();
    let b = serde_json::to_string(&traced(&p)).unwrap();
    assert_eq!(a, b);
}
