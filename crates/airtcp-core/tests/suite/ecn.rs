//! ECN-capable TCP (RFC 3168) against a router that marks every ECN-capable packet.

use crate::common;
use common::Path;

#[test]
fn always_marked_flow_halves_at_most_once_per_rtt() {
    let p = Path {
        bottleneck_rate: "2Mbps",
        duration: 30.0,
        tcp: "ecn = true".into(),
        ..Default::default()
    };
    let t = p
        .toml()
        .replace(
            "[[links]]\na = \"R1\"\nb = \"R2\"\nrate = \"2Mbps\"\ndelay = \"30ms\"\nqueue = { limit = 1000 }",
            "[[links]]\na = \"R1\"\nb = \"R2\"\nrate = \"2Mbps\"\ndelay = \"30ms\"\nqueue = { kind = \"ecn_threshold\", limit = 1000, mark_threshold = 0 }",
        )
        + "[trace]\ncwnd = true\n";
    assert!(t.contains("ecn_threshold"));
    let r = airtcp_core::run_toml(&t).unwrap();
    let f = &r.flows[0];
    let link = r.links.iter().find(|l| l.name == "R1->R2").unwrap();
    assert!(
        link.ecn_marks > 100,
        "every ECT packet queued behind another is marked"
    );
    assert_eq!(f.lost_packets, 0);
    assert_eq!(f.timeouts, 0);
    assert!(f.ecn_reductions > 10, "{f:?}");

    // Reductions (cwnd decreases) are at least one minimum RTT apart, and each halves.
    let s = &r.series.cwnd["f0"];
    let rtt = f.rtt_min_s.unwrap();
    let mut last: Option<f64> = None;
    let mut n = 0;
    for i in 1..s.t.len() {
        if s.cwnd[i] < s.cwnd[i - 1] {
            n += 1;
            if let Some(prev) = last {
                assert!(
                    s.t[i] - prev >= rtt * 0.99,
                    "reductions at {prev} and {}",
                    s.t[i]
                );
            }
            // Half the flight (at least two segments), and the flight is the window before
            // the cut less at most the one segment that did not fit in it.
            let (before, after) = (s.cwnd[i - 1], s.cwnd[i]);
            assert!(
                after <= before / 2.0 + 1.0 && after >= ((before - 1.0) / 2.0).max(2.0) - 1.0,
                "{before} -> {after}"
            );
            last = Some(s.t[i]);
        }
    }
    // Every ECT packet is marked, the first ones included: the first reduction comes in the
    // initial window of two segments, already at the floor, so cwnd does not move.
    assert_eq!(n as u64 + 1, f.ecn_reductions);
    assert_eq!(s.cwnd[0], 2.0);
    // Marked continuously, the flow still gets through but keeps a small window.
    assert!(f.avg_cwnd_segments < 8.0, "{}", f.avg_cwnd_segments);
}

#[test]
fn non_ecn_flow_is_not_marked_and_ignores_the_router() {
    let p = Path {
        bottleneck_rate: "2Mbps",
        duration: 10.0,
        ..Default::default()
    };
    let t = p.toml().replace(
        "rate = \"2Mbps\"\ndelay = \"30ms\"\nqueue = { limit = 1000 }",
        "rate = \"2Mbps\"\ndelay = \"30ms\"\nqueue = { kind = \"ecn_threshold\", limit = 1000, mark_threshold = 0 }",
    );
    let r = airtcp_core::run_toml(&t).unwrap();
    assert!(r.links.iter().all(|l| l.ecn_marks == 0));
    assert_eq!(r.flows[0].ecn_reductions, 0);
}

#[test]
fn handshake_negotiates_ecn_end_to_end() {
    for (ecn, expect_marks) in [(true, true), (false, false)] {
        let p = Path {
            bottleneck_rate: "2Mbps",
            duration: 10.0,
            tcp: format!("ecn = {ecn}\nhandshake = true"),
            ..Default::default()
        };
        let t = p.toml().replace(
            "rate = \"2Mbps\"\ndelay = \"30ms\"\nqueue = { limit = 1000 }",
            "rate = \"2Mbps\"\ndelay = \"30ms\"\nqueue = { kind = \"ecn_threshold\", limit = 1000, mark_threshold = 0 }",
        );
        let r = airtcp_core::run_toml(&t).unwrap();
        let f = &r.flows[0];
        let marks: u64 = r.links.iter().map(|l| l.ecn_marks).sum();
        assert_eq!(marks > 0, expect_marks, "ecn {ecn}: {marks} marks");
        assert_eq!(f.ecn_reductions > 0, expect_marks);
        assert!(f.delivered_bytes > 0);
    }
}

#[test]
fn count_starting_keeps_the_packet_starting_now_in_the_occupancy() {
    // Flow f0's initial window of ten ECN-capable segments reaches S's idle link at 0: the
    // first goes out at once, nine wait. Flow f1's ten arrive at the very instant the second
    // of f0's starts its transmission (one 1040-byte serialization at 10 Mb/s, 832 us). With
    // mark_threshold = 9, by default that segment has left the queue and f1's first finds 8
    // waiting, unmarked; with count_starting (ns-3's order of equal-time events) it finds 9
    // and is marked. f1's other nine are marked either way, f0's none.
    for (count_starting, marks) in [(false, 9), (true, 10)] {
        let p = Path {
            duration: 0.05,
            flows: 2,
            tcp: "ecn = true\ninitial_cwnd = 10".into(),
            ..Default::default()
        };
        let t = p
            .toml()
            .replacen(
                "rate = \"10Mbps\"\ndelay = \"10ms\"\nqueue = { limit = 1000 }",
                &format!(
                    "rate = \"10Mbps\"\ndelay = \"10ms\"\nqueue = {{ kind = \"ecn_threshold\", limit = 1000, mark_threshold = 9, count_starting = {count_starting} }}"
                ),
                1,
            )
            .replace("start = 0.001\n", "start = 0.000832\n");
        assert!(t.contains("count_starting") && t.contains("start = 0.000832"));
        let r = airtcp_core::run_toml(&t).unwrap();
        let link = r.links.iter().find(|l| l.name == "S->R1").unwrap();
        assert_eq!(link.ecn_marks, marks, "count_starting = {count_starting}");
    }
}
