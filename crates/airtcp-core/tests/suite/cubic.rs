//! CUBIC end to end: between losses the window follows W(t) of RFC 9438, concave up to W_max
//! and convex past it.

use crate::common;
use common::Path;

#[test]
fn cubic_window_follows_w_of_t_between_losses() {
    let p = Path {
        cc: "cubic",
        bottleneck_rate: "20Mbps",
        access_rate: "100Mbps",
        queue: 100,
        duration: 120.0,
        tcp: "rcv_window = \"16MiB\"".into(),
        ..Default::default()
    };
    // Fast convergence off: then W_max is exactly the window at the loss.
    let t = p.toml().replace(
        "cc = \"cubic\"",
        "cc = \"cubic\"\ncc_params = { fast_convergence = 0 }",
    ) + "[trace]\ncwnd = true\n";
    let r = airtcp_core::run_toml(&t).unwrap();
    let f = &r.flows[0];
    let s = &r.series.cwnd["f0"];
    let rtt = f.rtt_min_s.unwrap();
    let (c, beta) = (0.4, 0.7);
    let n = s.t.len();
    let mut epochs = 0;
    let mut checked = 0;
    let mut worst: f64 = 0.0;
    let mut i = 1;
    while i < n {
        if s.ssthresh[i] == s.ssthresh[i - 1] || s.ssthresh[i - 1] > 1e5 {
            i += 1;
            continue;
        }
        // A congestion event set ssthresh = beta * W_max.
        let th = s.ssthresh[i];
        let w_max = th / beta;
        let same = |k: usize| k < n && s.ssthresh[k] == th;
        // Skip fast recovery (window inflated above ssthresh) and any slow start after a
        // timeout: the epoch starts when congestion avoidance does, at cwnd = ssthresh.
        let mut j = i;
        while same(j) && s.cwnd[j] > th {
            j += 1;
        }
        while same(j) && s.cwnd[j] < th {
            j += 1;
        }
        if !same(j) {
            i = j.max(i + 1);
            continue;
        }
        let (t0, w0) = (s.t[j], s.cwnd[j]);
        let k = ((w_max - w0).max(0.0) / c).cbrt();
        let mut m = j + 1;
        while same(m) {
            // cwnd aims at W one RTT ahead of the time since the epoch began.
            let w = c * (s.t[m] - t0 + rtt - k).powi(3) + w_max;
            worst = worst.max((s.cwnd[m] - w).abs() / w);
            checked += 1;
            m += 1;
        }
        epochs += 1;
        i = m;
    }
    println!(
        "epochs {epochs}, points {checked}, worst deviation {:.2}%",
        worst * 100.0
    );
    assert!(epochs >= 3, "need several loss epochs, got {epochs}");
    assert!(checked > 1000);
    // Tolerance stated in docs/schemes/cubic.md.
    assert!(worst < 0.05, "worst deviation {worst}");
}

#[test]
fn cubic_window_goes_convex_past_w_max_when_capacity_frees() {
    // RFC 9438 4.2: past K the window leaves its plateau at W_max along the convex part of
    // W(t) = C (t - K)^3 + W_max, probing slowly at first and faster later. The path of the
    // test above with 5 Mb/s of UDP until 15 s: the losses before then set W_max below the
    // new capacity, so the epoch running at 15 s goes well past W_max. Every point of that
    // epoch above W_max is set against W(t) with the 5% tolerance of the test above, and the
    // window must pass W_max by at least 20 segments (a plateau stopping at W_max, or a
    // concave approach only, would not). SACK, and slow start stopped at 256 segments:
    // without them slow start's overshoot beside the UDP flow ends in timeouts whose
    // ssthresh, 0.7 of a flight grown during recovery, sets off the next overshoot (19
    // timeouts in 30 s on the first run).
    let p = Path {
        cc: "cubic",
        bottleneck_rate: "20Mbps",
        access_rate: "100Mbps",
        queue: 100,
        duration: 30.0,
        tcp: "rcv_window = \"16MiB\"\nsack = true\ninitial_ssthresh = \"250KiB\"".into(),
        ..Default::default()
    };
    let t = p.toml().replace(
        "cc = \"cubic\"",
        "cc = \"cubic\"\ncc_params = { fast_convergence = 0 }",
    ) + "[[flows]]\nname = \"udp\"\nsrc = \"S\"\ndst = \"D\"\nstop = 15\napp = { kind = \"cbr\", rate = \"5Mbps\", packet_size = 1000 }\n[trace]\ncwnd = true\n";
    let r = airtcp_core::run_toml(&t).unwrap();
    let f = r.flows.iter().find(|f| f.name == "f0").unwrap();
    let s = &r.series.cwnd["f0"];
    let rtt = f.rtt_min_s.unwrap();
    let (c, beta) = (0.4, 0.7);
    let n = s.t.len();
    // Congestion events: a new ssthresh, or a cut of cwnd by over 5% (a cut to the W_max of
    // the last event leaves ssthresh as it was). The last before 15 s starts the epoch.
    let events: Vec<usize> = (1..n)
        .filter(|&i| s.ssthresh[i] != s.ssthresh[i - 1] || s.cwnd[i] < 0.95 * s.cwnd[i - 1])
        .collect();
    let e = events
        .iter()
        .copied()
        .rfind(|&i| s.t[i] < 15.0)
        .expect("a loss before 15 s");
    let end = events.iter().copied().find(|&i| i > e).unwrap_or(n);
    let th = s.ssthresh[e];
    let w_max = th / beta;
    let mut j = e;
    while j < end && s.cwnd[j] > th {
        j += 1;
    }
    while j < end && s.cwnd[j] < th {
        j += 1;
    }
    let (t0, w0) = (s.t[j], s.cwnd[j]);
    let k = ((w_max - w0).max(0.0) / c).cbrt();
    let (mut convex, mut worst, mut top) = (0, 0.0f64, 0.0f64);
    for m in j + 1..end {
        if s.cwnd[m] > w_max {
            let w = c * (s.t[m] - t0 + rtt - k).powi(3) + w_max;
            worst = worst.max((s.cwnd[m] - w).abs() / w);
            top = top.max(s.cwnd[m] - w_max);
            convex += 1;
        }
    }
    println!(
        "epoch from {t0:.2} s: W_max {w_max:.1}, K {k:.2} s, {convex} points above W_max (up to +{top:.1}), worst deviation {:.2}%",
        worst * 100.0
    );
    assert!(convex >= 100, "{convex}");
    assert!(top >= 20.0, "{top}");
    assert!(worst < 0.05, "{worst}");
}
