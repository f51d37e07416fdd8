//! Window dynamics of the high-speed schemes end to end, read from the cwnd trace of one flow:
//! Scalable's constant recovery time, BIC's binary search towards W_max and its max probing
//! past it, H-TCP's increase α(Δ) (drop-tail paths without random loss), and HighSpeed's
//! response function under periodic loss. The readings are quoted in
//! docs/schemes/<scheme>.md.

use crate::common;
use airtcp_core::RunResult;
use common::Path;

/// Bits on the wire of one full-sized segment (1000 bytes of payload, 40 of headers).
const PKT_BITS: f64 = 1040.0 * 8.0;

/// One `cc` flow, SACK, 1 Gb/s access, a `rate_mbps` bottleneck, base RTT 60 ms
/// (2 x (10 + 10 + 10) ms), a drop-tail buffer of `queue` packets, cwnd traced.
fn traced(cc: &'static str, params: &str, rate_mbps: f64, queue: u64, duration: f64) -> RunResult {
    traced_with(cc, params, rate_mbps, queue, duration, "")
}

/// As [`traced`], with more `[tcp]` lines.
fn traced_with(
    cc: &'static str,
    params: &str,
    rate_mbps: f64,
    queue: u64,
    duration: f64,
    tcp: &str,
) -> RunResult {
    let rate = format!("{rate_mbps}Mbps");
    let p = Path {
        cc,
        access_rate: "1Gbps",
        bottleneck_rate: Box::leak(rate.into_boxed_str()),
        bottleneck_delay: "10ms",
        queue,
        duration,
        tcp: format!("rcv_window = \"64MiB\"\nsack = true\n{tcp}"),
        ..Default::default()
    };
    let mut t = p.toml();
    if !params.is_empty() {
        t = t.replace(
            &format!("cc = \"{cc}\""),
            &format!("cc = \"{cc}\"\ncc_params = {{ {params} }}"),
        );
    }
    airtcp_core::run_toml(&(t + "[trace]\ncwnd = true\n")).unwrap()
}

/// Bandwidth-delay product in packets of a `rate_mbps` bottleneck at the 60 ms base RTT.
fn bdp(rate_mbps: f64) -> f64 {
    rate_mbps * 1e6 * 0.060 / PKT_BITS
}

#[test]
fn scalable_recovers_in_the_same_number_of_round_trips_at_any_rate() {
    // Kelly 2003: each ACK adds a = 0.01, a congestion event takes b = 1/8, so the window
    // regains its pre-event size after ln(1/(1-b))/ln(1+a) = 13.4 round trips whatever the
    // rate (Reno's halving needs W/2). On a path where every event is a buffer overflow, an
    // epoch between events is that regrowth, less the one round of growth (1%) between the
    // drop and its detection, plus that round and the round of recovery: 13.4 + 1 = 14.4
    // round trips. The round trip is read as the flow's mean RTT (the buffer, a quarter of a
    // BDP, moves it by at most 25%); 20% covers that and the slow-start epoch at the start.
    // NewReno's epochs on the same paths would last W/2 = 45 and 180 round trips. Slow start
    // stops at one BDP (initial_ssthresh): its overshoot into a quarter-BDP buffer at 40 Mb/s
    // otherwise ends in timeouts that the sawtooth has nothing to do with.
    let a: f64 = 0.01;
    let b: f64 = 0.125;
    let want = (1.0 / (1.0 - b)).ln() / (1.0 + a).ln() + 1.0;
    let mut epochs = Vec::new();
    for rate in [10.0, 40.0] {
        let dur = 30.0;
        let ss = format!("initial_ssthresh = \"{}KiB\"", (bdp(rate) as u64));
        let r = traced_with("scalable", "", rate, (bdp(rate) / 4.0) as u64, dur, &ss);
        let f = &r.flows[0];
        let events = (f.fast_retransmits + f.timeouts) as f64;
        let rtt = f.rtt_mean_s.unwrap();
        let epoch = dur / events / rtt;
        println!(
            "{rate} Mb/s: {events} events, mean RTT {:.1} ms, epoch {epoch:.1} round trips (want {want:.1})",
            rtt * 1e3
        );
        assert_eq!(f.timeouts, 0);
        assert!((epoch / want - 1.0).abs() < 0.2, "{rate} Mb/s: {epoch}");
        epochs.push(epoch);
    }
    // The same recovery time at four times the rate, within 15% (both readings carry the
    // same bias of the mean RTT).
    assert!((epochs[1] / epochs[0] - 1.0).abs() < 0.15, "{epochs:?}");
}

/// The congestion-avoidance epochs of a cwnd trace: (index where avoidance starts at
/// cwnd = ssthresh, index of the last point before the next event). An event is a new
/// ssthresh or a drop of cwnd by over 5% (a cut to the ssthresh of the last event leaves
/// ssthresh as it was).
fn epochs(r: &RunResult) -> Vec<(usize, usize)> {
    let s = &r.series.cwnd["f0"];
    let n = s.t.len();
    let events: Vec<usize> = (1..n)
        .filter(|&i| {
            (s.ssthresh[i] != s.ssthresh[i - 1] && s.ssthresh[i - 1] < 1e5)
                || s.cwnd[i] < 0.95 * s.cwnd[i - 1]
        })
        .collect();
    let mut out = Vec::new();
    for w in events.windows(2) {
        let (e, next) = (w[0], w[1]);
        let th = s.ssthresh[e];
        let mut j = e;
        // Recovery (window above ssthresh) and any slow start after a timeout.
        while j < next && s.cwnd[j] > th {
            j += 1;
        }
        while j < next && s.cwnd[j] < th {
            j += 1;
        }
        if j < next {
            out.push((j, next - 1));
        }
    }
    out
}

/// The trace's cwnd at time `t` (the last value set at or before it).
fn cwnd_at(r: &RunResult, t: f64) -> f64 {
    let s = &r.series.cwnd["f0"];
    let i = s.t.partition_point(|&x| x <= t);
    s.cwnd[i.max(1) - 1]
}

#[test]
fn bic_halves_its_distance_to_w_max_each_round() {
    // Xu, Harfoush & Rhee 2004: after a loss at W_max the window, cut to (1 - beta) W_max, is
    // set each round trip to the midpoint between itself and W_max (steps between S_min and
    // S_max = 32), so the distance to W_max halves per round; past W_max, max probing starts
    // at S_min. 20 Mb/s, BDP 144, buffer 50: W_max about 194, a first distance of
    // 0.125 x 194 = 24 segments, below 2 S_max so every step is a halving. Fast convergence
    // off: W_max is then the flight at the loss, ssthresh/(1 - beta).
    let rate = 20.0;
    let r = traced("bic", "fast_convergence = 0", rate, 50, 20.0);
    let rtt_min = r.flows[0].rtt_min_s.unwrap();
    let s = &r.series.cwnd["f0"];
    // A round is a window of ACKs: cwnd packet times on the busy bottleneck, at least the
    // base RTT.
    let round = |w: f64| (w * PKT_BITS / (rate * 1e6)).max(rtt_min);
    let mut checked = 0;
    for (j, m) in epochs(&r) {
        let w_max = s.ssthresh[j] / (1.0 - 0.125);
        // The rounds are counted from the first increase: cwnd = ssthresh holds through the
        // recovery before it.
        let Some(g) = (j..=m).find(|&k| s.cwnd[k] > s.ssthresh[j]) else {
            continue;
        };
        let mut t = s.t[g];
        let mut d = vec![w_max - s.ssthresh[j]];
        for _ in 0..3 {
            t += round(cwnd_at(&r, t));
            if t >= s.t[m] {
                break;
            }
            d.push(w_max - cwnd_at(&r, t));
        }
        if d.len() < 4 {
            continue;
        }
        // Each round halves the distance; a reading taken a fraction of a round off moves
        // every distance by the same fraction of its step, so the ratio stays 1/2 up to the
        // whole-segment rounding of cwnd (1 segment of a last distance of 3).
        for k in 1..4 {
            let ratio = d[k] / d[k - 1];
            assert!(
                (0.4..=0.6).contains(&ratio),
                "epoch at {:.2} s: distances {d:?}",
                s.t[j]
            );
        }
        // The binary search never overshoots W_max.
        let top = s.cwnd[j..=m]
            .iter()
            .zip(&s.t[j..=m])
            .filter(|(_, &x)| x <= t)
            .map(|(c, _)| *c)
            .fold(0.0, f64::max);
        assert!(top <= w_max, "{top} > {w_max}");
        checked += 1;
        println!(
            "epoch at {:.2} s: W_max {w_max:.1}, distances {d:.2?}",
            s.t[j]
        );
    }
    assert!(checked >= 3, "only {checked} epochs checked");
}

#[test]
fn htcp_increase_follows_alpha_of_the_time_since_the_last_event() {
    // Leith & Shorten 2004: Delta seconds after a congestion event the window grows by
    // 2(1 - beta) alpha(Delta) segments per round trip, alpha = 1 up to Delta_L = 1 s and
    // 1 + 10 (Delta - 1) + ((Delta - 1)/2)^2 after; beta = RTT_min/RTT_max in [0.5, 0.8] is
    // read from the trace as the cut ssthresh/cwnd. 50 Mb/s, BDP 360, buffer 90 (so beta
    // 0.8): epochs of several seconds. The growth per round trip is the slope over 0.2 s
    // times the round trip at that window (its packet times on the busy link, at least the
    // base RTT). 25% covers the slope's whole-segment steps and the round trip read from the
    // window; a Reno-like increase would read 1 where 2(1 - beta) x 11.25 = 4.5 is due at
    // Delta = 2 s, and alpha(1.5 s) = 6.06 is about half alpha(2 s).
    let rate = 50.0;
    let r = traced("htcp", "", rate, 90, 20.0);
    let rtt_min = r.flows[0].rtt_min_s.unwrap();
    let s = &r.series.cwnd["f0"];
    let alpha = |d: f64| {
        if d <= 1.0 {
            1.0
        } else {
            1.0 + 10.0 * (d - 1.0) + ((d - 1.0) / 2.0).powi(2)
        }
    };
    let mut checked = 0;
    for (j, m) in epochs(&r) {
        // The event's time: where ssthresh changed.
        let mut e = j;
        while e > 0 && s.ssthresh[e - 1] == s.ssthresh[j] {
            e -= 1;
        }
        let (t_ev, w_before) = (s.t[e], s.cwnd[e - 1]);
        let beta = s.ssthresh[j] / w_before;
        let mut readings = Vec::new();
        // At 0.5 s the slope is read over 0.6 s (under one segment per round trip is due).
        for (delta, h) in [(0.5, 0.3), (1.5, 0.1), (2.0, 0.1)] {
            let (t0, t1) = (t_ev + delta - h, t_ev + delta + h);
            if t1 >= s.t[m] || t0 <= s.t[j] {
                continue;
            }
            let (w0, w1) = (cwnd_at(&r, t0), cwnd_at(&r, t1));
            let rtt = ((w0 + w1) / 2.0 * PKT_BITS / (rate * 1e6)).max(rtt_min);
            let got = (w1 - w0) / (t1 - t0) * rtt;
            let want = 2.0 * (1.0 - beta) * alpha(delta);
            readings.push((delta, got, want));
            assert!(
                (got / want - 1.0).abs() < 0.25,
                "event at {t_ev:.2} s, beta {beta:.2}: Delta {delta}: {got:.2} per RTT, want {want:.2}"
            );
        }
        if !readings.is_empty() {
            checked += 1;
            println!("event at {t_ev:.2} s, beta {beta:.2}: {readings:.2?}");
        }
    }
    assert!(checked >= 3, "only {checked} epochs read");
}

#[test]
fn bic_probes_past_w_max_doubling_its_step_up_to_s_max() {
    // Xu, Harfoush & Rhee 2004: past W_max the step is the distance beyond it, from S_min =
    // 0.01 up to S_max = 32 segments per round, so the excess over W_max doubles each round
    // (slow at first, in case W_max is still the limit) and then grows by S_max per round.
    // One BIC flow (fast convergence off) shares the 20 Mb/s bottleneck (base RTT 60 ms,
    // 50-packet buffer) with 5 Mb/s of UDP until 6 s; then 5 Mb/s is free and the window
    // passes the W_max of the last loss. Slow start stops at 120 segments (about the BDP
    // left by the UDP flow): its overshoot at 1 Gb/s access otherwise ends in timeouts
    // whose ssthresh, 0.875 of a flight that SACK recovery has grown far beyond cwnd, sets
    // off the next overshoot. From the first round the excess is above one
    // segment: it doubles (ratio 1.5-2.5: the rounds are read from the window's packet
    // times, and each is rounded to whole segments) until the step reaches S_max, and no
    // round adds more than S_max (10% for the rounds' reading).
    let rate = 20.0;
    let p = Path {
        cc: "bic",
        access_rate: "1Gbps",
        bottleneck_rate: "20Mbps",
        bottleneck_delay: "10ms",
        queue: 50,
        duration: 10.0,
        tcp: "rcv_window = \"64MiB\"\nsack = true\ninitial_ssthresh = \"120KiB\"".into(),
        ..Default::default()
    };
    let t = p.toml().replace(
        "cc = \"bic\"",
        "cc = \"bic\"\ncc_params = { fast_convergence = 0 }",
    ) + "[[flows]]\nname = \"udp\"\nsrc = \"S\"\ndst = \"D\"\nstop = 6\napp = { kind = \"cbr\", rate = \"5Mbps\", packet_size = 1000 }\n[trace]\ncwnd = true\n";
    let r = airtcp_core::run_toml(&t).unwrap();
    let f = r.flows.iter().find(|f| f.name == "f0").unwrap();
    let rtt_min = f.rtt_min_s.unwrap();
    let s = &r.series.cwnd["f0"];
    // W_max of the last cut before 6 s.
    let last = (1..s.t.len())
        .rfind(|&i| s.t[i] < 6.0 && s.cwnd[i] < 0.95 * s.cwnd[i - 1])
        .expect("a loss before 6 s");
    let w_max = s.ssthresh[last] / (1.0 - 0.125);
    let round = |w: f64| (w * PKT_BITS / (rate * 1e6)).max(rtt_min);
    let cwnd = |t: f64| {
        let i = s.t.partition_point(|&x| x <= t);
        s.cwnd[i.max(1) - 1]
    };
    // The first time past W_max + 1 after 6 s, then round by round until the next cut.
    let start = (0..s.t.len())
        .find(|&i| s.t[i] >= 6.0 && s.cwnd[i] > w_max + 1.0)
        .expect("the window passes W_max");
    let end = (start + 1..s.t.len())
        .find(|&i| s.cwnd[i] < 0.95 * s.cwnd[i - 1])
        .unwrap_or(s.t.len() - 1);
    let mut t = s.t[start];
    let mut excess = vec![s.cwnd[start] - w_max];
    while t + round(cwnd(t)) < s.t[end] {
        t += round(cwnd(t));
        excess.push(cwnd(t) - w_max);
    }
    println!(
        "W_max {w_max:.1}; excess per round from {:.2} s: {excess:.2?}",
        s.t[start]
    );
    let mut doubled = 0;
    let mut capped = 0;
    for k in 1..excess.len() {
        let (prev, now) = (excess[k - 1], excess[k]);
        if prev < 16.0 {
            assert!((1.5..=2.5).contains(&(now / prev)), "round {k}: {excess:?}");
            doubled += 1;
        }
        // Never more than S_max in a round; near it once the excess passes S_max (a round
        // read across two of the scheme's rounds mixes their steps, hence 3/4).
        assert!(now - prev <= 1.1 * 32.0, "round {k}: {excess:?}");
        if now - prev > 0.75 * 32.0 {
            capped += 1;
        }
    }
    assert!(
        doubled >= 3 && capped >= 1,
        "{doubled} doubling, {capped} capped rounds"
    );
}

#[test]
fn highspeed_mean_window_follows_the_rfc_3649_response_function_under_periodic_loss() {
    // RFC 3649 section 5: HighSpeed's a(w) and b(w) are set so that a flow losing one packet
    // in every 1/p keeps an average window of w = 0.12/p^0.835 segments (Reno: 1.2/sqrt(p)).
    // Its derivation takes the deterministic model: a loss every 1/p packets, nothing else.
    // Here a drop every 10,000th data packet on the last hop (p = 10^-4: w = 262, Reno's
    // 120) of a 100 Mb/s path with 100 ms base RTT (BDP 1200: no queue, no other loss once
    // slow start stops at 200 segments instead of overflowing the buffer).
    // The time-averaged cwnd over whole loss epochs after the second loss, within 15% of w:
    // the sawtooth spans (1 - b(w)) w to w, about 0.6 w to w here, over which a(w) and b(w)
    // change, which the RFC's model treats as constant.
    let n = 10_000u64;
    let p = Path {
        cc: "highspeed",
        access_rate: "100Mbps",
        bottleneck_rate: "100Mbps",
        duration: 30.0,
        tcp: "rcv_window = \"64MiB\"\nsack = true\ninitial_ssthresh = \"200KiB\"".into(),
        ..Default::default()
    };
    let drops: Vec<String> = (1..=10).map(|k| (k * n).to_string()).collect();
    let t = p.toml().replace(
        "error = { model = \"bernoulli\", per = 0, applies_to = \"data\" }",
        &format!(
            "error = {{ model = \"list\", packets = [{}], applies_to = \"data\" }}",
            drops.join(", ")
        ),
    );
    assert!(t.contains("\"list\""));
    let r = airtcp_core::run_toml(&(t + "[trace]\ncwnd = true\n")).unwrap();
    let f = &r.flows[0];
    assert_eq!(f.lost_congestion, 0);
    assert_eq!(f.timeouts, 0);
    let s = &r.series.cwnd["f0"];
    let cuts: Vec<usize> = (1..s.t.len())
        .filter(|&i| s.cwnd[i] < 0.95 * s.cwnd[i - 1])
        .collect();
    assert!(cuts.len() >= 5, "{} cuts", cuts.len());
    // Time average of cwnd from the second cut to the last.
    let (a, b) = (cuts[1], cuts[cuts.len() - 1]);
    let area: f64 = (a..b).map(|i| s.cwnd[i] * (s.t[i + 1] - s.t[i])).sum();
    let w = area / (s.t[b] - s.t[a]);
    let want = 0.12 / (1.0 / n as f64).powf(0.835);
    println!(
        "{} cuts; mean window {w:.1} from {:.1} s to {:.1} s, RFC 3649 {want:.1}, Reno {:.1}",
        cuts.len(),
        s.t[a],
        s.t[b],
        1.2 * (n as f64).sqrt()
    );
    assert!((w / want - 1.0).abs() < 0.15, "{w} vs {want}");
}
