//! CUBIC end to end: between losses the window follows W(t) of RFC 9438.

mod common;
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
