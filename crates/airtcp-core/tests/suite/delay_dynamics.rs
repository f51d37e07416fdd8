//! The queue the delay-aware schemes keep, end to end: LEDBAT's TARGET, Illinois' increase
//! against the queueing delay, YeAH's Q_max. The readings are quoted in
//! docs/schemes/<scheme>.md.

use crate::common;
use airtcp_core::RunResult;
use common::Path;

/// Bits on the wire of one full-sized segment (1000 bytes of payload, 40 of headers).
const PKT_BITS: f64 = 1040.0 * 8.0;

/// Run `p` with `params` as the flow's cc_params, the cwnd and the bottleneck's queue traced
/// (every 10 ms).
fn traced(p: &Path, params: &str) -> RunResult {
    let mut t = p.toml();
    if !params.is_empty() {
        t = t.replace(
            &format!("cc = \"{}\"", p.cc),
            &format!("cc = \"{}\"\ncc_params = {{ {params} }}", p.cc),
        );
    }
    t += "[trace]\ncwnd = true\nqueue = [\"R1->R2\"]\nqueue_interval = \"10ms\"\n";
    airtcp_core::run_toml(&t).unwrap()
}

/// The bottleneck's queue samples (packets) at or after `from` seconds.
fn queue_from(r: &RunResult, from: f64) -> Vec<f64> {
    let q = &r.series.queue["R1->R2"];
    q.t.iter()
        .zip(&q.packets)
        .filter(|(t, _)| **t >= from)
        .map(|(_, p)| *p as f64)
        .collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn ledbat_holds_the_queueing_delay_at_target() {
    // RFC 6817 2.4.2: the window moves by GAIN x (TARGET - queuing_delay)/TARGET per round
    // trip, so alone on a path the queueing delay settles at TARGET. A 2 Mb/s bottleneck
    // (a packet every 4.2 ms), base RTT 20 ms, a 1000-packet buffer: TARGET = 100 ms is 24
    // packets, and a TARGET of 25 ms (a parameter) 6. The mean queueing delay from 10 s on
    // (the window grows by at most a segment per round trip from 2, with no slow start) is
    // asserted within one packet time (4.2 ms) of TARGET, and the link stays busy.
    for target in [0.1, 0.025] {
        let p = Path {
            cc: "ledbat",
            access_rate: "100Mbps",
            access_delay: "1ms",
            bottleneck_rate: "2Mbps",
            bottleneck_delay: "8ms",
            duration: 30.0,
            tcp: "rcv_window = \"4MiB\"".into(),
            ..Default::default()
        };
        let r = traced(&p, &format!("target = {target}"));
        let delay = mean(&queue_from(&r, 10.0)) * PKT_BITS / 2e6;
        let l = r.links.iter().find(|l| l.name == "R1->R2").unwrap();
        println!(
            "TARGET {:.0} ms: mean queueing delay {:.1} ms, utilization {:.3}",
            target * 1e3,
            delay * 1e3,
            l.utilization
        );
        assert!(
            (delay - target).abs() <= PKT_BITS / 2e6,
            "TARGET {target}: {delay}"
        );
        assert!(l.utilization > 0.95, "{}", l.utilization);
        assert_eq!(r.flows[0].lost_packets, 0);
    }
}

#[test]
fn illinois_increase_falls_with_the_queueing_delay() {
    // Liu, Basar & Srikant 2006: alpha = alpha_max = 10 at no queueing delay, falling as
    // kappa1/(kappa2 + d_a) to alpha_min = 0.3 at the largest delay seen d_m. One flow, 10 Mb/s,
    // base RTT 60 ms (BDP 72), a 72-packet buffer: d_m is the full buffer, 60 ms. Over 0.3 s
    // windows the growth per round trip (slope x RTT, the RTT the base plus the queue) is set
    // against alpha at the window's mean queueing delay from the queue trace, where that
    // delay stayed above 10 ms (below it alpha depends on how long the queue stayed under d_1 =
    // 0.6 ms, theta = 5 rounds). 25% covers the 10 ms queue samples standing for the
    // per-round mean RTT and the slope's whole-segment steps; Reno's 1 per round trip or a
    // constant alpha would miss by far more across the 10-60 ms range. Every window is
    // checked, and at least 20 of them.
    let p = Path {
        cc: "illinois",
        access_rate: "1Gbps",
        bottleneck_rate: "10Mbps",
        bottleneck_delay: "10ms",
        queue: 72,
        duration: 30.0,
        tcp: "rcv_window = \"16MiB\"\nsack = true".into(),
        ..Default::default()
    };
    let r = traced(&p, "");
    let rtt_min = r.flows[0].rtt_min_s.unwrap();
    let (a_max, a_min) = (10.0, 0.3);
    let d_m = 72.0 * PKT_BITS / 10e6;
    let d1 = 0.01 * d_m;
    let k1 = (d_m - d1) * a_min * a_max / (a_max - a_min);
    let k2 = (d_m - d1) * a_min / (a_max - a_min) - d1;
    let alpha = |d: f64| if d <= d1 { a_max } else { k1 / (k2 + d) };
    let s = &r.series.cwnd["f0"];
    let q = &r.series.queue["R1->R2"];
    let at = |t: f64| {
        let i = s.t.partition_point(|&x| x <= t);
        (s.cwnd[i.max(1) - 1], s.ssthresh[i.max(1) - 1])
    };
    let mut checked = 0;
    let mut readings = Vec::new();
    let mut t = 5.0;
    while t + 0.3 <= 30.0 {
        let ((w0, th0), (w1, th1)) = (at(t), at(t + 0.3));
        // The last congestion event before the window.
        let cut = (1..s.t.len())
            .filter(|&i| s.t[i] <= t && s.ssthresh[i] != s.ssthresh[i - 1])
            .map(|i| s.t[i])
            .next_back()
            .unwrap_or(0.0);
        let qs: Vec<f64> =
            q.t.iter()
                .zip(&q.packets)
                .filter(|(x, _)| **x >= t && **x < t + 0.3)
                .map(|(_, p)| *p as f64)
                .collect();
        let d = mean(&qs) * PKT_BITS / 10e6;
        let d_low = qs.iter().copied().fold(f64::MAX, f64::min) * PKT_BITS / 10e6;
        t += 0.3;
        // Windows with a congestion event (ssthresh moved) or in recovery are skipped, those
        // where the queue was below 10 ms at any sample, and the first second after an
        // event: alpha is set once per round from the last round's delay, and while the
        // queue refills at up to 10 packets a round it lags the queue by a large step.
        if th0 != th1 || w0 < th0 || d_low < 0.010 || t - 0.3 < cut + 1.0 {
            continue;
        }
        let got = (w1 - w0) / 0.3 * (rtt_min + d);
        let want = alpha(d);
        readings.push((d * 1e3, got, want));
        assert!(
            (got / want - 1.0).abs() < 0.25,
            "at {:.1} s, delay {:.1} ms: {got:.2} per RTT, alpha {want:.2}",
            t - 0.3,
            d * 1e3
        );
        checked += 1;
    }
    println!("(delay ms, growth per RTT, alpha): {readings:.2?}");
    assert!(checked >= 20, "{checked}");
}

#[test]
fn yeah_keeps_its_queue_below_q_max_in_fast_mode() {
    // Baiocchi, Castellani & Vacirca 2007: in Fast mode (Scalable increase) YeAH estimates
    // the packets it keeps queued, Q = (RTT - RTT_base) cwnd/RTT, once per round trip, and
    // when Q > Q_max = 80 removes Q from the window (precautionary decongestion): a lone flow
    // keeps at most about Q_max queued without loss, where a loss-based flow fills the buffer. Fast
    // mode needs the queueing delay below RTT_base/phi (phi = 8) at Q_max, so a BDP above
    // 8 x 80 = 640 packets: 20 Mb/s, base RTT 300 ms (BDP 721), a 2000-packet buffer. Q is
    // read from the round's smallest RTT, so the queue at the start of a round, and the
    // decision comes at the round's end: the queue can pass Q_max by two rounds of Fast-mode
    // growth after the sample that triggers it, which itself may be up to a round's growth
    // above Q_max: three rounds of 1% of the window, at most BDP + Q_max + 25 = 825. From
    // 8 s on (slow start's overshoot and its recovery end by then): the mean queue below
    // Q_max, the largest below Q_max plus those three rounds, several decongestions, and no
    // congestion event but slow start's.
    let p = Path {
        cc: "yeah",
        access_rate: "1Gbps",
        access_delay: "1ms",
        bottleneck_rate: "20Mbps",
        bottleneck_delay: "148ms",
        queue: 2000,
        duration: 20.0,
        tcp: "rcv_window = \"64MiB\"\nsack = true".into(),
        ..Default::default()
    };
    let r = traced(&p, "");
    let f = &r.flows[0];
    let tail = queue_from(&r, 8.0);
    let (m, top) = (mean(&tail), tail.iter().copied().fold(0.0, f64::max));
    println!(
        "yeah: mean queue {m:.1}, largest {top} from 8 s; decongestions {}, lost {}, fast retransmits {}, timeouts {}",
        f.extra["yeah_decongestions"], f.lost_packets, f.fast_retransmits, f.timeouts
    );
    assert!(m < 80.0, "{m}");
    assert!(top <= 80.0 + 3.0 * 0.01 * 825.0, "{top}");
    assert!(f.extra["yeah_decongestions"] >= 3.0);
    assert_eq!(f.timeouts, 0);
    assert!(f.fast_retransmits <= 1, "{}", f.fast_retransmits);
    // Below that BDP the queueing-delay test (L > 1/phi at RTT_base/phi, 15 packets of a
    // 10 Mb/s, 100 ms path) holds the flow in Slow mode (Reno's increase) whenever Q could
    // reach Q_max, and the decongestion may not take the window below reno_count, which
    // grows by one per slow round as the window does: Q_max then bounds nothing and the
    // queue stays above it.
    let slow = traced(
        &Path {
            cc: "yeah",
            access_rate: "100Mbps",
            queue: 1000,
            duration: 30.0,
            tcp: "rcv_window = \"16MiB\"\nsack = true".into(),
            ..Default::default()
        },
        "",
    );
    let q = &slow.series.queue["R1->R2"];
    let at = |t: f64| q.packets[q.t.partition_point(|&x| x <= t) - 1];
    let m = mean(&queue_from(&slow, 8.0));
    println!(
        "10 Mb/s, 100 ms: mean queue {m:.1} from 8 s; {} at 3.5 s, {} at 29.5 s; decongestions {}, lost {}",
        at(3.5),
        at(29.5),
        slow.flows[0].extra["yeah_decongestions"],
        slow.flows[0].lost_packets
    );
    assert!(m > 80.0, "{m}");
}
