//! Unit tests of the sender: the window, timers, the handshake, ECN, pacing and the window
//! cut; `recovery.rs` holds those of SACK recovery, PRR, RACK, TLP, F-RTO and RFC 6582's guard,
//! `reno_sack.rs` those of ns-3's guessed SACK marks.

use super::*;
use crate::engine::{MS, SEC, US};
use crate::tcp::cc::{self, CongestionEvent, Reaction};
use crate::tcp::RecoverGuard;

mod recovery;
mod reno_sack;

fn sender() -> TcpSender {
    let (c, r) = cc::build_default("newreno");
    let mut s = TcpSender::new(TcpConfig::default(), c, r, 0);
    s.set_app_end(u64::MAX);
    s
}

fn ack(n: u64) -> TcpHeader {
    TcpHeader {
        ack: n,
        wnd: 64 * 1024,
        flags: flags::ACK,
        ..Default::default()
    }
}

fn drain(s: &mut TcpSender, now: Time) -> Vec<Segment> {
    std::iter::from_fn(|| s.next_segment(now)).collect()
}

#[test]
fn ts_tick_counts_the_timestamp_clock_in_whole_ticks() {
    let (c, r) = cc::build_default("newreno");
    let cfg = TcpConfig {
        timestamps: true,
        ts_tick: MS,
        ..TcpConfig::default()
    };
    let mut s = TcpSender::new(cfg, c, r, 0);
    s.set_app_end(u64::MAX);
    assert_eq!(s.ts_clock(100 * MS + 700_000), 100 * MS);
    drain(&mut s, 100 * MS + 700_000);
    // The echo of TSval 100 ms, back at 201.3 ms: a sample of 201 - 100 ms, as ns-3's
    // millisecond clock measures it.
    let mut h = ack(1000);
    h.ts_ecr = 100 * MS;
    s.on_ack(201 * MS + 300_000, &h);
    assert_eq!(s.rtt.srtt, Some(101 * MS));
}

#[test]
fn established_sends_initial_window_and_arms_timer() {
    let mut s = sender();
    let segs = drain(&mut s, 0);
    assert_eq!(segs.len(), 2);
    assert_eq!(segs[1].seq, 1000);
    assert_eq!(s.rto_deadline(), Some(1000 * MS));
}

#[test]
fn slow_start_doubles_per_rtt() {
    let mut s = sender();
    drain(&mut s, 0);
    s.on_ack(100 * MS, &ack(1000));
    s.on_ack(100 * MS, &ack(2000));
    assert_eq!(s.st.cwnd, 4000);
    assert_eq!(drain(&mut s, 100 * MS).len(), 4);
    assert_eq!(s.rtt.srtt, Some(100 * MS));
}

#[test]
fn three_dupacks_fast_retransmit_then_partial_and_full_ack() {
    let mut s = sender();
    s.st.cwnd = 10_000;
    drain(&mut s, 0); // 0..10000 in flight
    for _ in 0..3 {
        s.on_ack(10 * MS, &ack(0));
    }
    assert!(s.in_recovery());
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(s.st.ssthresh, 5_000);
    assert_eq!(s.st.cwnd, 8_000);
    let r = s.next_segment(10 * MS).unwrap();
    assert_eq!((r.seq, r.retx), (0, true));
    // Partial ACK up to 3000 (a second hole at 3000): retransmit it, stay in recovery.
    s.on_ack(20 * MS, &ack(3000));
    assert!(s.in_recovery());
    let r = s.next_segment(20 * MS).unwrap();
    assert_eq!((r.seq, r.retx), (3000, true));
    assert_eq!(s.st.cwnd, 8_000 - 3_000 + 1_000);
    // Full ACK: leave recovery with cwnd <= ssthresh.
    s.on_ack(30 * MS, &ack(10_000));
    assert!(!s.in_recovery());
    assert_eq!(
        s.st.cwnd, 2_000,
        "min(ssthresh, flight + mss) with nothing in flight"
    );
    assert_eq!(s.stats.retransmissions, 2);
}

#[test]
fn dupacks_inflate_window_in_recovery() {
    let mut s = sender();
    s.st.cwnd = 10_000;
    drain(&mut s, 0);
    for _ in 0..3 {
        s.on_ack(1, &ack(0));
    }
    s.next_segment(1);
    let before = s.st.cwnd;
    s.on_ack(2, &ack(0));
    assert_eq!(s.st.cwnd, before + 1000);
    s.on_ack(2, &ack(0));
    assert!(
        drain(&mut s, 2).is_empty(),
        "cwnd 10000 still covers only the 10 in flight"
    );
    // The third extra duplicate inflates cwnd past the flight: one new segment goes out.
    s.on_ack(2, &ack(0));
    let n = drain(&mut s, 2);
    assert_eq!(n.len(), 1);
    assert_eq!(n[0].seq, 10_000);
}

#[test]
fn timeout_goes_back_n_with_backoff() {
    let mut s = sender();
    s.st.cwnd = 5_000;
    drain(&mut s, 0);
    s.on_timeout(999 * MS); // not yet due
    assert_eq!(s.stats.timeouts, 0);
    s.on_timeout(1000 * MS);
    assert_eq!(s.stats.timeouts, 1);
    assert_eq!(s.st.cwnd, 1000);
    assert_eq!(s.st.ssthresh, 2_500);
    assert_eq!(s.rtt.rto, 2000 * MS);
    assert_eq!(s.rto_deadline(), Some(3000 * MS));
    let segs = drain(&mut s, 1000 * MS);
    assert_eq!(segs.len(), 1);
    assert_eq!((segs[0].seq, segs[0].retx), (0, true));
}

#[test]
fn dupacks_after_timeout_do_not_reduce_again() {
    let mut s = sender();
    s.st.cwnd = 5_000;
    drain(&mut s, 0);
    s.on_timeout(1000 * MS);
    drain(&mut s, 1000 * MS);
    for _ in 0..3 {
        s.on_ack(1100 * MS, &ack(0));
    }
    assert_eq!(s.stats.fast_retransmits, 0, "ack does not cover recover");
}

#[test]
fn karn_no_sample_from_retransmission() {
    let mut s = sender();
    drain(&mut s, 0);
    s.on_timeout(1000 * MS);
    drain(&mut s, 1000 * MS);
    s.on_ack(1050 * MS, &ack(1000));
    assert_eq!(s.rtt.srtt, None);
    assert_eq!(
        s.rtt.rto,
        2000 * MS,
        "backed-off RTO kept without a valid sample"
    );
}

#[test]
fn ecn_echo_halves_once_per_window_and_sets_cwr() {
    let (c, r) = cc::build_default("newreno");
    let cfg = TcpConfig {
        ecn: true,
        ..Default::default()
    };
    let mut s = TcpSender::new(cfg, c, r, 0);
    s.set_app_end(u64::MAX);
    s.st.cwnd = 10_000;
    drain(&mut s, 0);
    let mut h = ack(1000);
    h.flags |= flags::ECE;
    s.on_ack(10 * MS, &h);
    assert_eq!(s.stats.ecn_reductions, 1);
    assert_eq!(s.st.cwnd, 4_500, "half of the 9000 bytes in flight");
    let segs = drain(&mut s, 10 * MS);
    assert!(segs.is_empty(), "nothing fits: 9000 in flight, cwnd 4500");
    // Further ECE for data sent before the reduction: ignored.
    for n in 2..=9 {
        let mut h = ack(n * 1000);
        h.flags |= flags::ECE;
        s.on_ack(20 * MS, &h);
    }
    assert_eq!(s.stats.ecn_reductions, 1);
    let segs = drain(&mut s, 20 * MS);
    assert!(
        segs[0].flags & flags::CWR != 0,
        "first new segment carries CWR"
    );
    assert!(segs[1..].iter().all(|g| g.flags & flags::CWR == 0));
    // ECE acknowledging data sent after the reduction: a new reduction.
    let mut h = ack(11_000);
    h.flags |= flags::ECE;
    s.on_ack(30 * MS, &h);
    assert_eq!(s.stats.ecn_reductions, 2);
}

fn handshake_sender(ecn: bool) -> TcpSender {
    let (c, r) = cc::build_default("newreno");
    let cfg = TcpConfig {
        ecn,
        handshake: true,
        ..Default::default()
    };
    let mut s = TcpSender::new(cfg, c, r, 0);
    s.set_app_end(u64::MAX);
    s
}

#[test]
fn a_lost_syn_waits_ns3s_connection_timeout() {
    // Two SYNs lost. RFC 6298 (syn_timeout 0): the SYN is timed by the RTO, 1 s doubled,
    // so it goes again at 1 s and 3 s, and Karn's rule takes no sample from the SYN-ACK (the
    // RTO stays backed off, 4 s). ns-3's SendEmptyPacket sets m_rto = ConnTimeout (3 s) ×
    // 2^retries: again at 3 s and 9 s; its RTT history keeps the first SYN's entry unmarked,
    // so the SYN-ACK at 9.1 s is a sample of 9.1 s (RTO 3 × 9.1 s without timestamps).
    for (syn_timeout, resends, rto_after) in [
        (0, [SEC, 3 * SEC], 4 * SEC),
        (3 * SEC, [3 * SEC, 9 * SEC], 27_300 * MS),
    ] {
        let (c, r) = cc::build_default("newreno");
        let cfg = TcpConfig {
            handshake: true,
            syn_timeout,
            ..Default::default()
        };
        let mut s = TcpSender::new(cfg, c, r, 0);
        s.set_app_end(u64::MAX);
        assert_eq!(drain(&mut s, 0).len(), 1);
        for t in resends {
            assert_eq!(s.rto_deadline(), Some(t), "syn_timeout = {syn_timeout}");
            s.on_timeout(t);
            let segs = drain(&mut s, t);
            assert_eq!(segs[0].flags & flags::SYN, flags::SYN);
        }
        let synack = TcpHeader {
            flags: flags::SYN | flags::ACK,
            wnd: 65_535,
            ..Default::default()
        };
        s.on_ack(9 * SEC + 100 * MS, &synack);
        assert!(s.is_established());
        assert_eq!(s.rtt.rto, rto_after, "syn_timeout = {syn_timeout}");
    }
}

#[test]
fn handshake_negotiates_ecn() {
    let mut s = handshake_sender(true);
    let segs = drain(&mut s, 0);
    assert_eq!(segs.len(), 1, "only the SYN before the SYN-ACK");
    assert_eq!(segs[0].flags, flags::SYN | flags::ECE | flags::CWR);
    assert!(!s.ecn_enabled());
    let synack = TcpHeader {
        flags: flags::SYN | flags::ACK | flags::ECE,
        wnd: 65_535,
        ..Default::default()
    };
    s.on_ack(100 * MS, &synack);
    assert!(s.is_established() && s.ecn_enabled());
    assert_eq!(s.rtt.srtt, Some(100 * MS), "the SYN is timed");
    assert_eq!(drain(&mut s, 100 * MS).len(), 2, "then the initial window");
}

#[test]
fn with_a_timestamp_tick_the_syn_is_timed_by_its_echo_and_acked_alone() {
    // ns-3 (TcpSocketBase::ProcessSynSent) times the SYN from the echoed timestamp, in
    // whole milliseconds, and sends a pure ACK before its first data.
    let (c, r) = cc::build_default("newreno");
    let cfg = TcpConfig {
        handshake: true,
        timestamps: true,
        ts_tick: MS,
        handshake_ack: true,
        ..Default::default()
    };
    let mut s = TcpSender::new(cfg, c, r, 0);
    s.set_app_end(u64::MAX);
    drain(&mut s, 0);
    let synack = TcpHeader {
        flags: flags::SYN | flags::ACK,
        wnd: 65_535,
        ts_ecr: 0,
        ..Default::default()
    };
    s.on_ack(100 * MS + 278_400, &synack);
    assert_eq!(s.rtt.srtt, Some(100 * MS), "100.28 ms in whole ticks");
    let segs = drain(&mut s, 100 * MS + 278_400);
    assert_eq!((segs[0].len, segs[0].flags), (0, flags::ACK));
    assert_eq!(segs.len(), 3, "then the initial window");
    assert!(segs[1..].iter().all(|g| g.len > 0) && segs[1].seq == 0);
    // Without a tick the exact time is kept, and without handshake_ack data comes first.
    let mut s = handshake_sender(false);
    drain(&mut s, 0);
    s.on_ack(100 * MS + 278_400, &synack);
    assert_eq!(s.rtt.srtt, Some(100 * MS + 278_400));
    assert!(drain(&mut s, 100 * MS + 278_400).iter().all(|g| g.len > 0));
}

#[test]
fn receiver_without_ecn_turns_it_off() {
    let mut s = handshake_sender(true);
    drain(&mut s, 0);
    let synack = TcpHeader {
        flags: flags::SYN | flags::ACK,
        wnd: 65_535,
        ..Default::default()
    };
    s.on_ack(100 * MS, &synack);
    assert!(s.is_established() && !s.ecn_enabled());
}

#[test]
fn lost_syn_is_resent_after_rto() {
    let mut s = handshake_sender(false);
    assert_eq!(drain(&mut s, 0)[0].flags, flags::SYN);
    assert!(drain(&mut s, 10).is_empty());
    s.on_timeout(1000 * MS);
    let again = drain(&mut s, 1000 * MS);
    assert_eq!(again.len(), 1);
    assert_eq!(s.rto_deadline(), Some(3000 * MS), "backed off to 2 s");
    let synack = TcpHeader {
        flags: flags::SYN | flags::ACK,
        wnd: 65_535,
        ..Default::default()
    };
    s.on_ack(1100 * MS, &synack);
    assert_eq!(s.rtt.srtt, None, "a retransmitted SYN is not timed (Karn)");
}

#[test]
fn window_update_is_not_a_dupack() {
    let mut s = sender();
    s.st.cwnd = 10_000;
    drain(&mut s, 0);
    let mut h = ack(0);
    for w in [1000, 2000, 3000, 4000] {
        h.wnd = w;
        s.on_ack(1, &h);
    }
    assert_eq!(s.stats.fast_retransmits, 0, "each ACK changed the window");
}

#[test]
fn zero_window_persist_probes_then_resumes() {
    let mut s = sender();
    drain(&mut s, 0);
    let mut h = ack(2000);
    h.wnd = 0;
    s.on_ack(100 * MS, &h);
    assert!(
        drain(&mut s, 100 * MS).is_empty(),
        "zero window: nothing new"
    );
    assert_eq!(s.rto_deadline(), None, "nothing in flight");
    let d = s.timer_deadline().expect("persist timer armed");
    assert_eq!(d, 100 * MS + s.rtt.rto);
    s.on_timer(d);
    let probe = drain(&mut s, d);
    assert_eq!(probe.len(), 1);
    assert_eq!((probe[0].seq, probe[0].len), (2000, 0));
    assert_eq!(s.stats.window_probes, 1);
    let d2 = s.timer_deadline().unwrap();
    assert_eq!(d2 - d, 2 * s.rtt.rto, "backed off");
    // The window opens: the update is not a dupack, data flows, the persist timer stops.
    h.wnd = 64 * 1024;
    s.on_ack(d + MS, &h);
    assert_eq!(s.stats.fast_retransmits, 0);
    assert!(!drain(&mut s, d + MS).is_empty());
    assert_eq!(s.timer_deadline(), s.rto_deadline());
}

#[test]
fn eln_dupacks_retransmit_without_reduction() {
    let mut s = sender();
    s.st.cwnd = 10_000;
    drain(&mut s, 0);
    let mut h = ack(0);
    h.flags |= flags::ELN;
    for _ in 0..3 {
        s.on_ack(10 * MS, &h);
    }
    assert_eq!(s.stats.eln_retransmits, 1);
    assert_eq!(s.stats.fast_retransmits, 0);
    assert_eq!(s.st.ssthresh, 1 << 30, "no reduction");
    let r = s.next_segment(10 * MS).unwrap();
    assert_eq!((r.seq, r.retx), (0, true));
    // A partial ACK repairs the next hole; the full ACK restores the window.
    s.on_ack(20 * MS, &ack(3000));
    assert_eq!(s.next_segment(20 * MS).unwrap().seq, 3000);
    s.on_ack(30 * MS, &ack(10_000));
    assert!(!s.in_recovery());
    assert_eq!(s.st.cwnd, 10_000, "window intact");
}

#[test]
fn ece_ignored_without_ecn() {
    let mut s = sender();
    s.st.cwnd = 10_000;
    drain(&mut s, 0);
    let mut h = ack(1000);
    h.flags |= flags::ECE;
    s.on_ack(10 * MS, &h);
    assert_eq!(s.stats.ecn_reductions, 0);
}

#[test]
fn reno_leaves_recovery_on_partial_ack() {
    let (c, r) = cc::build_default("reno");
    let mut s = TcpSender::new(TcpConfig::default(), c, r, 0);
    s.set_app_end(u64::MAX);
    s.st.cwnd = 10_000;
    drain(&mut s, 0);
    for _ in 0..3 {
        s.on_ack(1, &ack(0));
    }
    assert!(s.in_recovery());
    s.on_ack(2, &ack(3000));
    assert!(!s.in_recovery());
    assert_eq!(s.st.cwnd, s.st.ssthresh);
}

#[test]
fn respects_receiver_window_and_app_end() {
    let (c, r) = cc::build_default("newreno");
    let mut s = TcpSender::new(TcpConfig::default(), c, r, 0);
    s.set_app_end(2500);
    s.st.cwnd = 100_000;
    let segs = drain(&mut s, 0);
    assert_eq!(
        segs.iter().map(|g| g.len).collect::<Vec<_>>(),
        vec![1000, 1000, 500]
    );
    let mut h = ack(2500);
    h.wnd = 0;
    s.on_ack(5, &h);
    assert!(s.is_done());
    assert_eq!(s.stats.completed_at, Some(5));
    assert_eq!(s.rto_deadline(), None);
}

/// NewReno's window rules, paced at a fixed rate.
struct Paced(f64);

impl CongestionControl for Paced {
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        crate::tcp::cc::NewReno.on_ack(ack, st)
    }
    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        crate::tcp::cc::NewReno.on_congestion(ev, st)
    }
    fn pacing_rate(&self, _st: &CcState) -> Option<f64> {
        Some(self.0)
    }
}

/// A NewReno sender paced at `rate` bits/s, ns-3's pacing timer or not, with a window of ten
/// segments and an initial window of 0 (ns-3 paces from the first segment then).
fn paced_sender(ns3: bool, rate: f64) -> TcpSender {
    let cfg = TcpConfig {
        initial_cwnd: 0,
        pacing_ns3: ns3,
        ..Default::default()
    };
    let mut s = TcpSender::new(cfg, Box::new(Paced(rate)), RecoveryKind::NewReno, 0);
    s.st.cwnd = 10_000;
    s.set_app_end(u64::MAX);
    s
}

#[test]
fn pacing_spaces_segments_and_asks_for_the_clock() {
    let cfg = TcpConfig {
        initial_cwnd: 10,
        ..Default::default()
    };
    // 1040-byte packets at 8.32 Mb/s: one every millisecond.
    let mut s = TcpSender::new(cfg, Box::new(Paced(8.32e6)), RecoveryKind::NewReno, 0);
    s.set_app_end(u64::MAX);
    assert_eq!(drain(&mut s, 0).len(), 1);
    let rto = s.rto_deadline().unwrap();
    assert_eq!(s.poll_timeout(), Some(MS));
    assert!(drain(&mut s, MS - 1).is_empty());
    assert!(s.handle_timeout(MS));
    assert_eq!(drain(&mut s, MS).len(), 1);
    assert_eq!(s.poll_timeout(), Some(2 * MS));
    // Once the window is what holds it back, only the retransmission timer is left.
    for k in 2..10 {
        assert_eq!(drain(&mut s, k * MS).len(), 1);
    }
    assert!(drain(&mut s, 20 * MS).is_empty());
    assert_eq!(s.poll_timeout(), Some(rto));
}

#[test]
fn ns3_pacing_times_the_payload_and_a_resend_leaves_a_running_gap() {
    // 1000-byte segments with 40 bytes of headers at 8 Mb/s. Slots: every transmission,
    // a retransmission too, queues 1.04 ms behind the last. ns-3 (TcpSocketBase::
    // SendDataPacket): a transmission schedules the pacing timer for its payload's 1 ms only
    // if the timer has run out; the fast retransmission sent while it runs leaves it.
    for (ns3, after_resend) in [(false, 2080 * US), (true, MS)] {
        // An initial window of 0 in the configuration: ns-3 paces from the first segment
        // (it does not pace the initial window; see ns3_does_not_pace_the_initial_window).
        let mut s = paced_sender(ns3, 8e6);
        s.emit(0, 0, false);
        let first = if ns3 { MS } else { 1040 * US };
        assert_eq!(s.pacer.next_send, first, "ns3 = {ns3}");
        s.emit(MS / 2, 0, true);
        assert_eq!(s.pacer.next_send, after_resend, "ns3 = {ns3}");
    }
}

#[test]
fn ns3_does_not_pace_the_initial_window() {
    // TcpSocketBase::IsPacingEnabled with PaceInitialWindow false: pacing starts once the
    // highest sequence sent exceeds the initial window (10 segments here), so the initial
    // window goes out at once and the eleventh waits for its gap.
    for (ns3, at_once) in [(false, 1), (true, 10)] {
        let cfg = TcpConfig {
            initial_cwnd: 10,
            pacing_ns3: ns3,
            ..Default::default()
        };
        let mut s = TcpSender::new(cfg, Box::new(Paced(8e6)), RecoveryKind::NewReno, 0);
        s.set_app_end(u64::MAX);
        assert_eq!(drain(&mut s, 0).len(), at_once, "pacing_ns3 = {ns3}");
        s.st.cwnd = 20_000;
        assert_eq!(
            drain(&mut s, 0).len(),
            usize::from(ns3),
            "pacing_ns3 = {ns3}"
        );
    }
}

#[test]
fn ns3_timeout_cancels_the_pacing_timer() {
    // TcpSocketBase::ReTxTimeout cancels the pacing timer before SendPendingData, so the
    // head goes out at the timeout; with slots it waits for its slot.
    for ns3 in [false, true] {
        let mut s = paced_sender(ns3, 4e3);
        assert_eq!(drain(&mut s, 0).len(), 1);
        // One 1000-byte payload at 4 kb/s holds the next send for two seconds.
        assert!(s.pacer.next_send >= 2 * SEC);
        let rto = s.rto_deadline().unwrap();
        assert!(rto < s.pacer.next_send);
        s.on_timeout(rto);
        let sent: Vec<(u64, bool)> = drain(&mut s, rto).iter().map(|g| (g.seq, g.retx)).collect();
        let want: &[(u64, bool)] = if ns3 { &[(0, true)] } else { &[] };
        assert_eq!(sent, want, "pacing_ns3 = {ns3}");
    }
}

#[test]
fn ns3_pacing_timer_still_runs_for_an_ack_at_its_expiry() {
    // ns-3 handles events of equal time in the order they were scheduled: an ACK that
    // arrives at the very nanosecond the pacing timer runs out was scheduled before it
    // (a link delay earlier), so SendPendingData finds the timer running and sends nothing;
    // the timer's own event then sends. A tie otherwise frees the segment at once.
    for ns3 in [false, true] {
        let mut s = paced_sender(ns3, 8e6);
        assert_eq!(drain(&mut s, 0).len(), 1);
        let at = s.pacer.next_send;
        assert_eq!(
            drain(&mut s, at).len(),
            usize::from(!ns3),
            "pacing_ns3 = {ns3}"
        );
        if ns3 {
            assert_eq!(s.poll_timeout(), Some(at));
            assert!(s.handle_timeout(at));
            assert_eq!(drain(&mut s, at).len(), 1);
            assert_eq!(
                s.pacer.next_send,
                at + MS,
                "the gap runs from the timer's send"
            );
        }
    }
}

#[test]
fn pacing_timer_is_dropped_when_the_window_closes_first() {
    let cfg = TcpConfig {
        initial_cwnd: 10,
        ..Default::default()
    };
    let mut s = TcpSender::new(cfg, Box::new(Paced(8.32e6)), RecoveryKind::NewReno, 0);
    s.set_app_end(u64::MAX);
    assert_eq!(drain(&mut s, 0).len(), 1);
    assert_eq!(s.poll_timeout(), Some(MS), "held by pacing");
    // The window shrinks before the pacing release: at the release nothing may go, and
    // the timer must not stay due.
    s.st.cwnd = 1000;
    assert!(s.handle_timeout(MS));
    assert!(drain(&mut s, MS).is_empty());
    assert_eq!(s.poll_timeout(), s.rto_deadline());
}

#[test]
fn fast_retransmit_restarts_the_retransmission_timer() {
    // RFC 6298 5.1 runs the timer for the oldest outstanding segment; once it is resent
    // the timer must run from that retransmission (ns-2 dupack_action, Linux).
    let mut s = sender();
    s.st.cwnd = 10_000;
    drain(&mut s, 0);
    assert_eq!(s.rto_deadline(), Some(SEC));
    for _ in 0..3 {
        s.on_ack(300 * MS, &ack(0));
    }
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(s.rto_deadline(), Some(300 * MS + s.rtt.rto));
}

#[test]
fn without_the_restart_the_timer_runs_from_the_last_new_ack() {
    // ns-3 arms the timer in SendDataPacket only when it is not running, so the fast
    // retransmission leaves the deadline set by the last new ACK.
    let mut s = sender();
    s.cfg.fast_retransmit_restarts_rto = false;
    s.st.cwnd = 10_000;
    drain(&mut s, 0);
    s.on_ack(100 * MS, &ack(1000));
    let before = s.rto_deadline();
    assert_eq!(before, Some(100 * MS + s.rtt.rto));
    for _ in 0..3 {
        s.on_ack(300 * MS, &ack(1000));
    }
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(s.rto_deadline(), before);
}

#[test]
fn a_repeated_timeout_of_one_episode_keeps_ssthresh_when_asked() {
    // CUBIC cuts from cwnd. Twenty segments out, all unanswered: the first timeout sets
    // ssthresh to 0.7 x 20 = 14 segments and cwnd to one; the second, of the head resent
    // after it, would cut from that one segment (2 segments, the floor), as ns-3 does
    // (its test of a resent head follows SetSentListLost, which clears the flag). Linux
    // keeps 14.
    for (keep, want) in [(false, 2_000), (true, 14_000)] {
        let (c, r) = cc::build_default("cubic");
        let mut s = TcpSender::new(TcpConfig::default(), c, r, 0);
        s.set_app_end(u64::MAX);
        s.cfg.timeout_keeps_ssthresh = keep;
        s.st.cwnd = 20_000;
        drain(&mut s, 0);
        let t1 = s.rto_deadline().unwrap();
        assert!(s.handle_timeout(t1));
        assert_eq!(s.st.ssthresh, 14_000);
        let resent = drain(&mut s, t1);
        assert_eq!(resent.iter().map(|g| g.seq).collect::<Vec<_>>(), [0]);
        let t2 = s.rto_deadline().unwrap();
        assert!(s.handle_timeout(t2));
        assert_eq!(s.st.ssthresh, want, "timeout_keeps_ssthresh = {keep}");
        assert_eq!(s.st.cwnd, 1000);
    }
}

/// `n` segments out (cwnd `n`), segment 0 lost; limited transmit sends two more on the
/// first two duplicate ACKs, and the third (SACKing segments 1-3) starts recovery.
fn recover_after_limited_transmit(s: &mut TcpSender, n: u64) {
    s.cfg.limited_transmit = true;
    s.set_app_end(u64::MAX);
    s.rwnd = 1 << 20;
    s.st.cwnd = n * 1000;
    assert_eq!(drain(s, 0).len() as u64, n);
    for k in 1..=3 {
        s.on_ack(10 * MS, &sack_ack(0, 1000 + k * 1000));
        drain(s, 10 * MS);
    }
    assert!(s.in_recovery());
    assert_eq!(s.snd_max, (n + 2) * 1000);
}

#[test]
fn a_cut_from_pipe_halves_what_is_still_in_the_network() {
    // Ten segments out, segment 0 lost; limited transmit sends 10 and 11 on the first two
    // duplicates; the third SACKs segments 1-3. FlightSize is 12 segments, pipe 12 - 3
    // SACKed - 1 lost = 8: RFC 5681 gives ssthresh 6 segments, the pipe rule 4.
    for (from_pipe, want) in [(false, 6_000), (true, 4_000)] {
        let mut s = sack_sender(false);
        s.cfg.cut_from_pipe = from_pipe;
        recover_after_limited_transmit(&mut s, 10);
        assert_eq!(s.st.ssthresh, want, "cut_from_pipe = {from_pipe}");
    }
}

#[test]
fn a_repeated_timeout_cuts_from_what_was_sent_since_the_first_with_cut_from_pipe() {
    // Ten segments out, none answered: the first timeout halves the ten (ssthresh 5
    // segments) and resends 0; its ACK opens cwnd to two, which resends 1 and 2. Both are
    // lost: at the second timeout the flight is nine segments (1-9), halved to 4.5; ns-3's
    // BytesInFlight, after the first timeout's SetSentListLost marked all ten lost,
    // counts only the two resent since: 1 segment, the floor of 2.
    for (from_pipe, want) in [(false, 4_500), (true, 2_000)] {
        let mut s = sack_sender(false);
        s.cfg.cut_from_pipe = from_pipe;
        s.set_app_end(u64::MAX);
        s.rwnd = 1 << 20;
        s.st.cwnd = 10_000;
        assert_eq!(drain(&mut s, 0).len(), 10);
        let t1 = s.rto_deadline().unwrap();
        s.on_timeout(t1);
        assert_eq!(s.st.ssthresh, 5_000);
        assert_eq!(drain(&mut s, t1).len(), 1);
        s.on_ack(t1 + 100 * MS, &ack(1000));
        let sent: Vec<(u64, bool)> = drain(&mut s, t1 + 100 * MS)
            .iter()
            .map(|g| (g.seq, g.retx))
            .collect();
        assert_eq!(sent, [(1000, true), (2000, true)]);
        let t2 = s.rto_deadline().unwrap();
        s.on_timeout(t2);
        assert_eq!(s.st.ssthresh, want, "cut_from_pipe = {from_pipe}");
    }
}

#[test]
fn linux_growth_cuts_whole_segments_from_cwnd_not_the_flight() {
    // Eleven segments out (cwnd 11), segment 0 lost; limited transmit sends 11 and 12,
    // so the flight is 13 segments when the third duplicate starts recovery. RFC 5681
    // halves the flight: 6.5 segments; Linux's tcp_reno_ssthresh max(cwnd >> 1, 2): 5.
    for (linux, want) in [(false, 6_500), (true, 5_000)] {
        let mut s = sack_sender(false);
        s.cfg.linux_growth = linux;
        recover_after_limited_transmit(&mut s, 11);
        assert_eq!(s.st.ssthresh, want, "linux_growth = {linux}");
    }
}

#[test]
fn a_partial_ack_sends_one_nextseg_outside_the_window_when_asked() {
    // Ten segments, 0 and 5 lost. SACKs of 1-3 start recovery (cwnd = ssthresh = 5000),
    // which resends 0; SACKs of 4, 6 and 7 leave room for new segment 10. With cwnd then
    // at pipe (four segments), the resent 0 brings a partial ACK up to 5000. Segment 5
    // has only two SACKed segments above it, so it is not yet lost, and the window has
    // no room; ns-3's DoRetransmit sends NextSeg() at once regardless of cwnd, which here
    // is new data.
    for (on, want) in [(false, vec![]), (true, vec![(11_000, false)])] {
        let mut s = sack_sender(false);
        s.cfg.partial_ack_retransmit = on;
        s.set_app_end(u64::MAX);
        s.rwnd = 1 << 20;
        s.st.cwnd = 10_000;
        assert_eq!(drain(&mut s, 0).len(), 10);
        for k in 1..=3 {
            s.on_ack(10 * MS, &sack_ack(0, 1000 + k * 1000));
        }
        assert!(s.in_recovery());
        assert_eq!(s.st.ssthresh, 5000);
        let mut sent: Vec<(u64, bool)> = drain(&mut s, 10 * MS)
            .iter()
            .map(|g| (g.seq, g.retx))
            .collect();
        for top in [5000, 7000, 8000] {
            let h = if top > 5000 {
                ack_sacking(0, &[(6000, top), (1000, 5000)])
            } else {
                sack_ack(0, top)
            };
            s.on_ack(11 * MS, &h);
            sent.extend(drain(&mut s, 11 * MS).iter().map(|g| (g.seq, g.retx)));
        }
        assert_eq!(sent, [(0, true), (10_000, false)]);
        s.st.cwnd = 4000;
        s.on_ack(20 * MS, &ack_sacking(5000, &[(6000, 8000)]));
        assert!(s.in_recovery());
        let sent: Vec<(u64, bool)> = drain(&mut s, 20 * MS)
            .iter()
            .map(|g| (g.seq, g.retx))
            .collect();
        assert_eq!(sent, want, "partial_ack_retransmit = {on}");
    }
}

#[test]
fn limited_transmit_sends_one_new_segment_on_each_of_the_first_two_dupacks() {
    let (c, r) = cc::build_default("newreno");
    let cfg = TcpConfig {
        limited_transmit: true,
        ..Default::default()
    };
    let mut s = TcpSender::new(cfg, c, r, 0);
    s.set_app_end(u64::MAX);
    s.st.cwnd = 4_000;
    assert_eq!(drain(&mut s, 0).len(), 4);
    s.on_ack(10 * MS, &ack(0));
    let first = drain(&mut s, 10 * MS);
    assert_eq!(
        first.iter().map(|g| (g.seq, g.retx)).collect::<Vec<_>>(),
        [(4000, false)]
    );
    s.on_ack(11 * MS, &ack(0));
    let second = drain(&mut s, 11 * MS);
    assert_eq!(second.iter().map(|g| g.seq).collect::<Vec<_>>(), [5000]);
    // cwnd itself did not grow, and the third duplicate starts fast retransmit.
    assert_eq!(s.st.cwnd, 4_000);
    s.on_ack(12 * MS, &ack(0));
    assert!(s.in_recovery());
    assert_eq!(
        s.next_segment(12 * MS).map(|g| (g.seq, g.retx)),
        Some((0, true))
    );
    // Without the option the first duplicate sends nothing.
    let mut plain = sender();
    plain.st.cwnd = 4_000;
    drain(&mut plain, 0);
    plain.on_ack(10 * MS, &ack(0));
    assert!(drain(&mut plain, 10 * MS).is_empty());
}

fn sack_sender(prr: bool) -> TcpSender {
    let (c, r) = cc::build_default("sack");
    let cfg = TcpConfig {
        sack: true,
        prr,
        ..Default::default()
    };
    TcpSender::new(cfg, c, r, 0)
}

/// A duplicate ACK of `ack` SACKing [ack + 1000, top).
/// An ACK of `ack` carrying the SACK blocks `blocks` (start, end), most recent first.
fn ack_sacking(ack: u64, blocks: &[(u64, u64)]) -> TcpHeader {
    let mut h = self::ack(ack);
    for (k, &(start, end)) in blocks.iter().enumerate() {
        h.sack[k] = crate::packet::SackBlock { start, end };
    }
    h.n_sack = blocks.len() as u8;
    h
}

fn sack_ack(ack: u64, top: u64) -> TcpHeader {
    let mut h = TcpHeader {
        ack,
        wnd: 1 << 20,
        flags: flags::ACK,
        ..Default::default()
    };
    h.sack[0] = crate::packet::SackBlock {
        start: ack + 1000,
        end: top,
    };
    h.n_sack = 1;
    h
}
