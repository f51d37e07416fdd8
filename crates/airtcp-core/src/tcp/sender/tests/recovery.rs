//! Unit tests of loss recovery: SACK (RFC 6675), PRR (RFC 6937), RACK and TLP (RFC 8985),
//! F-RTO (RFC 5682) and RFC 6582's recover guard.

use super::*;

/// Segments sent in reply to each of the ACKs SACKing segments 4, 5, 6, ... in turn,
/// after segment 0 of a 20-segment window was lost.
fn sends_per_ack(prr: bool, acks: u64) -> Vec<usize> {
    sends_per_ack_with(prr, false, acks)
}

fn sends_per_ack_with(prr: bool, prr_ns3: bool, acks: u64) -> Vec<usize> {
    let mut s = sack_sender(prr);
    s.cfg.prr_ns3 = prr_ns3;
    s.set_app_end(u64::MAX);
    s.st.cwnd = 20_000;
    s.rwnd = 1 << 20;
    assert_eq!(drain(&mut s, 0).len(), 20);
    for k in 1..=3 {
        s.on_ack(10 * MS, &sack_ack(0, 1000 + k * 1000));
    }
    assert!(s.in_recovery());
    assert_eq!(s.st.ssthresh, 10_000);
    // The fast retransmission of segment 0 goes out regardless of the window.
    let first = drain(&mut s, 10 * MS);
    assert_eq!((first[0].seq, first[0].retx), (0, true));
    (0..acks)
        .map(|k| {
            s.on_ack(11 * MS, &sack_ack(0, 5000 + k * 1000));
            drain(&mut s, 11 * MS).len()
        })
        .collect()
}

#[test]
fn prr_spreads_the_reduction_one_segment_per_two_acks() {
    // RFC 6937: with pipe above ssthresh the sender sends in proportion to what is
    // delivered, ssthresh/RecoverFS = 10/20, so one segment for every second ACK.
    let prr = sends_per_ack(true, 6);
    assert_eq!(prr, [0, 0, 1, 0, 1, 0]);
    // RFC 6675 alone sets cwnd = ssthresh at once: nothing until pipe falls below it.
    let plain = sends_per_ack(false, 6);
    assert_eq!(plain, [0, 0, 0, 0, 0, 0]);
}

#[test]
fn ns3_prr_counts_an_extra_segment_per_sacking_ack() {
    // ns-3.44's TcpPrrRecovery adds one segment to prr_delivered for every ACK with new
    // SACK information until RecoverFS (pipe at entry, 16 segments here) is reached, so
    // early in the recovery it sends about one segment per ACK where RFC 6937 sends one
    // per two (prr_spreads_the_reduction_one_segment_per_two_acks).
    assert_eq!(sends_per_ack_with(true, true, 6), [1, 1, 2, 1, 1, 1]);
    assert_eq!(sends_per_ack_with(true, false, 6), [0, 0, 1, 0, 1, 0]);
}

#[test]
fn prr_slow_start_bound_once_pipe_is_below_ssthresh() {
    // Later in the same recovery pipe falls below ssthresh: PRR-SSRB lets the window grow
    // back by at most the data delivered plus one segment per ACK.
    let sends = sends_per_ack(true, 16);
    assert!(sends.iter().all(|&n| n <= 2), "{sends:?}");
    assert!(
        sends[10..].iter().sum::<usize>() > sends[..6].iter().sum::<usize>(),
        "{sends:?}"
    );
}

#[test]
fn prr_delivered_data_leaves_out_what_was_already_sacked() {
    // RFC 6937: DeliveredData = change in snd.una + change in SACKed bytes, so a partial
    // ACK over SACKed segments counts only the hole it fills.
    let mut s = sack_sender(true);
    s.set_app_end(u64::MAX);
    s.st.cwnd = 20_000;
    s.rwnd = 1 << 20;
    drain(&mut s, 0);
    for k in 1..=3 {
        s.on_ack(10 * MS, &sack_ack(0, 1000 + k * 1000));
    }
    drain(&mut s, 10 * MS);
    for k in 0..6 {
        s.on_ack(11 * MS, &sack_ack(0, 5000 + k * 1000));
    }
    assert_eq!(
        s.prr.delivered, 7_000,
        "one SACKed segment per ACK since entry"
    );
    // The resent segment 0 arrives and segments 1-9 were SACKed: the cumulative ACK to
    // 10000 moves snd.una by ten segments but delivers one.
    s.on_ack(12 * MS, &ack(10_000));
    assert!(s.in_recovery(), "recover is snd_max = 20000");
    assert_eq!(s.prr.delivered, 8_000);
}

#[test]
fn the_ack_that_ends_recovery_grows_the_window_when_asked() {
    // ns-3's ProcessAck sets cwnd = ssthresh on the full ACK and then calls
    // IncreaseWindow; Linux's tcp_cong_control likewise. Without the switch the scheme
    // sees that ACK as part of the recovery.
    for grows in [false, true] {
        let mut s = sack_sender(true);
        s.cfg.exit_ack_grows = grows;
        s.set_app_end(u64::MAX);
        s.st.cwnd = 20_000;
        s.rwnd = 1 << 20;
        drain(&mut s, 0);
        for k in 1..=3 {
            s.on_ack(10 * MS, &sack_ack(0, 1000 + k * 1000));
        }
        assert!(s.in_recovery());
        drain(&mut s, 10 * MS);
        let recover = s.snd_max;
        s.on_ack(20 * MS, &ack(recover));
        assert!(!s.in_recovery());
        let ss = s.st.ssthresh;
        if grows {
            assert!(s.st.cwnd > ss, "cwnd {} ssthresh {ss}", s.st.cwnd);
        } else {
            assert_eq!(s.st.cwnd, ss);
        }
    }
}

#[test]
fn retransmissions_after_a_timeout_stay_in_pipe_when_asked() {
    // Six segments; a timeout resends 0, then 1 and 2 in slow start. SACKs of 3-5 then
    // start a fast recovery (no recover guard), which resends 1 at once. Segment 2 is
    // lost by the SACKs above it: RFC 6675 counts only this recovery's retransmissions
    // in pipe and resends it; ns-3 keeps 2's retransmitted flag from the timeout's go-back-N,
    // counts it in flight and does not resend it.
    for (sticky, want) in [
        (false, vec![(1000, true), (2000, true)]),
        (true, vec![(1000, true)]),
    ] {
        let mut s = sack_sender(false);
        s.cfg.pipe_keeps_retransmissions = sticky;
        s.cfg.recover_guard = RecoverGuard::Off;
        s.set_app_end(6000);
        s.rwnd = 1 << 20;
        s.st.cwnd = 10_000;
        assert_eq!(drain(&mut s, 0).len(), 6);
        let rto = s.rto_deadline().unwrap();
        s.on_timeout(rto);
        let sent: Vec<(u64, bool)> = drain(&mut s, rto).iter().map(|g| (g.seq, g.retx)).collect();
        assert_eq!(sent, [(0, true)]);
        s.on_ack(rto + 10 * MS, &ack(1000));
        let sent: Vec<(u64, bool)> = drain(&mut s, rto + 10 * MS)
            .iter()
            .map(|g| (g.seq, g.retx))
            .collect();
        assert_eq!(sent, [(1000, true), (2000, true)]);
        let mut sent = Vec::new();
        for top in [4000, 5000, 6000] {
            s.on_ack(rto + 20 * MS, &ack_sacking(1000, &[(3000, top)]));
            sent.extend(drain(&mut s, rto + 20 * MS).iter().map(|g| (g.seq, g.retx)));
        }
        assert!(s.in_recovery());
        assert_eq!(sent, want, "pipe_keeps_retransmissions = {sticky}");
    }
}

/// A window of `n` 1000-byte segments sent at 0 and given up at the timeout, which is
/// returned (the sender's window and the receiver's are large).
fn timed_out(s: &mut TcpSender, n: u64) -> Time {
    s.rwnd = 1 << 20;
    s.st.cwnd = n * 1000;
    assert_eq!(drain(s, 0).len() as u64, n);
    let rto = s.rto_deadline().unwrap();
    s.on_timeout(rto);
    rto
}

/// What the sender sends at `now`: (sequence number, retransmission).
fn sent_at(s: &mut TcpSender, now: Time) -> Vec<(u64, bool)> {
    drain(s, now).iter().map(|g| (g.seq, g.retx)).collect()
}

#[test]
fn after_a_timeout_sacked_data_does_not_count_against_the_window() {
    // RFC 6675 5.1: six segments, a timeout resends 0; its ACK SACKs 2-5, so only 1 is
    // missing. With cwnd = 2 after that ACK, the sender resends 1 and, since SACKed data
    // has left the network, also sends new segment 6.
    let mut s = sack_sender(false);
    s.set_app_end(u64::MAX);
    let rto = timed_out(&mut s, 6);
    assert_eq!(sent_at(&mut s, rto), [(0, true)]);
    s.on_ack(rto + 10 * MS, &ack_sacking(1000, &[(2000, 6000)]));
    assert_eq!(s.st.cwnd, 2000);
    assert_eq!(
        sent_at(&mut s, rto + 10 * MS),
        [(1000, true), (6000, false)]
    );
}

#[test]
fn the_scheme_counts_delivered_data_when_asked() {
    // Five segments; 1 is SACKed first, then a cumulative ACK covers all five. ns-3.44
    // hands the scheme what that ACK newly delivered (four segments), not its advance.
    for (delivered, want) in [(false, 5000), (true, 4000)] {
        let mut s = sack_sender(false);
        s.cfg.acked_delivered = delivered;
        s.set_app_end(5000);
        s.rwnd = 1 << 20;
        s.st.cwnd = 5000;
        drain(&mut s, 0);
        s.on_ack(10 * MS, &ack_sacking(0, &[(1000, 2000)]));
        s.on_ack(11 * MS, &ack(5000));
        assert_eq!(
            s.last_ack.acked_bytes, want,
            "acked_count delivered = {delivered}"
        );
    }
}

#[test]
fn after_a_timeout_new_data_the_sacks_show_lost_is_resent_before_more_new_data() {
    // Eight segments; a timeout resends 0. Its ACK SACKs 3-7, so 1 and 2 go again. 1
    // arrives, 2 is lost again (already resent: it waits), and new segments 8-11 go out;
    // 8 is lost. Once three segments above it are SACKed it is resent at once, ahead of
    // new data, without another timeout (RFC 6675 5.1 with NextSeg() rule 1).
    let mut s = sack_sender(false);
    s.set_app_end(u64::MAX);
    s.rwnd = 1 << 20;
    s.st.cwnd = 8000;
    assert_eq!(drain(&mut s, 0).len(), 8);
    let rto = s.rto_deadline().unwrap();
    s.on_timeout(rto);
    let mut t = rto;
    let mut step = |s: &mut TcpSender, ack_no: u64, sacks: &[(u64, u64)]| {
        t += MS;
        s.on_ack(t, &ack_sacking(ack_no, sacks));
        drain(s, t)
            .iter()
            .map(|g| (g.seq, g.retx))
            .collect::<Vec<_>>()
    };
    assert_eq!(drain(&mut s, rto).len(), 1);
    assert_eq!(
        step(&mut s, 1000, &[(3000, 8000)]),
        [(1000, true), (2000, true)]
    );
    assert_eq!(
        step(&mut s, 2000, &[(3000, 8000)]),
        [(8000, false), (9000, false)]
    );
    assert_eq!(
        step(&mut s, 2000, &[(9000, 10_000), (3000, 8000)]),
        [(10_000, false)]
    );
    assert_eq!(
        step(&mut s, 2000, &[(9000, 11_000), (3000, 8000)]),
        [(11_000, false)]
    );
    // 8 is no longer counted in flight, so the window also has room for 12 behind it.
    assert_eq!(
        step(&mut s, 2000, &[(9000, 12_000), (3000, 8000)]),
        [(8000, true), (12_000, false)]
    );
}

#[test]
fn rescue_retransmission_resends_the_tail_once() {
    // A 5-segment transfer; segment 0 is lost and so is the tail segment 4, which no SACK
    // above it will ever mark lost (RFC 6675 NextSeg rule 4).
    let mut s = sack_sender(false);
    s.set_app_end(5000);
    s.st.cwnd = 10_000;
    assert_eq!(drain(&mut s, 0).len(), 5);
    for k in 1..=3 {
        s.on_ack(10 * MS, &sack_ack(0, 1000 + k * 1000));
    }
    assert!(s.in_recovery());
    let sent: Vec<(u64, bool)> = drain(&mut s, 10 * MS)
        .iter()
        .map(|g| (g.seq, g.retx))
        .collect();
    assert_eq!(sent, [(0, true)]);
    // The resent segment 0 arrives: a partial ACK up to the tail. Rules 1-3 find nothing
    // (nothing is lost by IsLost, nothing is SACKed above the tail), so the rescue
    // retransmission resends the highest outstanding segment, once.
    s.on_ack(20 * MS, &ack(4000));
    assert!(s.in_recovery());
    let sent: Vec<(u64, bool)> = drain(&mut s, 20 * MS)
        .iter()
        .map(|g| (g.seq, g.retx))
        .collect();
    assert_eq!(sent, [(4000, true)]);
    assert!(drain(&mut s, 21 * MS).is_empty());
}
#[test]
fn without_rescue_the_lost_tail_waits_for_the_timer() {
    // The scenario of rescue_retransmission_resends_the_tail_once, with rule 4 off (ns-3).
    let mut s = sack_sender(false);
    s.cfg.rescue_retransmit = false;
    s.set_app_end(5000);
    s.st.cwnd = 10_000;
    assert_eq!(drain(&mut s, 0).len(), 5);
    for k in 1..=3 {
        s.on_ack(10 * MS, &sack_ack(0, 1000 + k * 1000));
    }
    assert_eq!(
        drain(&mut s, 10 * MS)
            .iter()
            .map(|g| (g.seq, g.retx))
            .collect::<Vec<_>>(),
        [(0, true)]
    );
    s.on_ack(20 * MS, &ack(4000));
    assert!(s.in_recovery());
    assert!(drain(&mut s, 20 * MS).is_empty());
}

fn recovery_sender(app_end: u64, f: impl FnOnce(&mut TcpConfig)) -> TcpSender {
    let (c, r) = cc::build_default("sack");
    let mut cfg = TcpConfig {
        sack: true,
        ..Default::default()
    };
    f(&mut cfg);
    let mut s = TcpSender::new(cfg, c, r, 0);
    s.set_app_end(app_end);
    s.rwnd = 1 << 20;
    s
}

/// An ACK of `ack` SACKing [start, end).
fn sack_range(ack: u64, start: u64, end: u64) -> TcpHeader {
    let mut h = sack_ack(ack, end);
    h.sack[0].start = start;
    h
}

fn sent(segs: &[Segment]) -> Vec<(u64, bool)> {
    segs.iter().map(|g| (g.seq, g.retx)).collect()
}

#[test]
fn rack_waits_a_quarter_min_rtt_before_judging_a_hole_lost() {
    // RFC 8985 6.2: with fewer than DupThresh segments SACKed and no recovery running,
    // reo_wnd = min_RTT / 4; a hole is lost once RACK.rtt + reo_wnd has passed since it
    // was sent, and the reordering timer fires then.
    let mut s = recovery_sender(u64::MAX, |c| c.rack = true);
    s.st.cwnd = 10_000;
    assert_eq!(drain(&mut s, 0).len(), 10);
    s.on_ack(100 * MS, &ack(1000)); // min RTT 100 ms
    s.on_ack(100 * MS, &sack_range(1000, 2000, 3000));
    assert!(!s.in_recovery(), "segment 1 may only be reordered");
    assert_eq!(
        s.timer_deadline(),
        Some(125 * MS),
        "sent at 0 + 100 ms + 25 ms"
    );
    s.on_timer(125 * MS);
    assert!(s.in_recovery());
    assert_eq!(sent(&drain(&mut s, 125 * MS))[0], (1000, true));
}

#[test]
fn rack_reo_wnd_is_zero_once_dupthresh_segments_are_sacked() {
    let mut s = recovery_sender(u64::MAX, |c| c.rack = true);
    s.st.cwnd = 10_000;
    drain(&mut s, 0);
    s.on_ack(100 * MS, &ack(1000));
    s.on_ack(100 * MS, &sack_range(1000, 2000, 5000));
    assert!(
        s.in_recovery(),
        "three SACKed segments: no reordering window"
    );
    assert_eq!(s.stats.fast_retransmits, 1);
}

#[test]
fn rack_finds_a_lost_retransmission_without_a_timeout() {
    let mut s = recovery_sender(u64::MAX, |c| c.rack = true);
    s.st.cwnd = 10_000;
    drain(&mut s, 0);
    s.on_ack(100 * MS, &sack_range(0, 1000, 4000));
    assert!(s.in_recovery());
    assert_eq!(sent(&drain(&mut s, 100 * MS)), [(0, true)]);
    // The rest of the window arrives; the retransmission of 0 (sent at 100 ms) is newer
    // than all of it, so it is not judged yet. New data goes out at 200 ms.
    s.on_ack(200 * MS, &sack_range(0, 1000, 10_000));
    let fresh = drain(&mut s, 200 * MS);
    assert!(!fresh.is_empty() && fresh.iter().all(|g| !g.retx && g.seq >= 10_000));
    // A segment sent at 200 ms is SACKed at 300 ms: the retransmission sent before it
    // has had its RTT, so it was lost too, and goes again.
    s.on_ack(300 * MS, &sack_range(0, 1000, 11_000));
    assert_eq!(sent(&drain(&mut s, 300 * MS))[0], (0, true));
    assert_eq!(s.stats.timeouts, 0);
}

#[test]
fn rack_after_a_timeout_resends_a_lost_retransmission_without_another() {
    // After an RTO every segment is marked lost and resent in slow start. A resent
    // segment lost again is found by RACK as soon as a later resend is SACKed (RFC 8985
    // 6.2 with reo_wnd = 0 during recovery), where the recover guard alone would wait
    // for a second timeout.
    let mut s = recovery_sender(u64::MAX, |c| c.rack = true);
    s.st.cwnd = 10_000;
    drain(&mut s, 0);
    s.on_timer(1000 * MS);
    assert_eq!(s.stats.timeouts, 1);
    assert_eq!(sent(&drain(&mut s, 1000 * MS)), [(0, true)]);
    s.on_ack(1100 * MS, &ack(1000));
    assert_eq!(
        sent(&drain(&mut s, 1100 * MS)),
        [(1000, true), (2000, true)]
    );
    // 1000 is lost again; 2000 arrives.
    s.on_ack(1200 * MS, &sack_range(1000, 2000, 3000));
    assert_eq!(sent(&drain(&mut s, 1200 * MS))[0], (1000, true));
    assert_eq!(s.stats.timeouts, 1);
}

#[test]
fn tlp_probe_timeout_is_two_srtt_plus_delack_for_a_lone_segment() {
    // RFC 8985 7.2: PTO = 2 * SRTT, plus WCDelAckT (200 ms) when one segment is in
    // flight, never later than the RTO.
    let mut s = recovery_sender(5000, |c| {
        c.rack = true;
        c.tlp = true;
        c.min_rto = SEC;
    });
    s.st.cwnd = 10_000;
    drain(&mut s, 0);
    s.on_ack(100 * MS, &ack(1000));
    assert_eq!(s.timer_deadline(), Some(300 * MS));
    s.on_ack(100 * MS, &ack(4000));
    assert_eq!(s.timer_deadline(), Some(500 * MS), "2 * 100 ms + 200 ms");
}

#[test]
fn tlp_resends_the_last_segment_then_runs_the_rto() {
    let mut s = recovery_sender(5000, |c| {
        c.rack = true;
        c.tlp = true;
    });
    s.st.cwnd = 10_000;
    drain(&mut s, 0);
    s.on_ack(100 * MS, &ack(1000));
    let pto = s.timer_deadline().unwrap();
    assert!(drain(&mut s, pto - 1).is_empty());
    s.on_timer(pto);
    // No new data: the probe is the highest segment sent.
    assert_eq!(sent(&drain(&mut s, pto)), [(4000, true)]);
    assert_eq!(s.stats.tlp_probes, 1);
    assert_eq!(s.rto_deadline(), Some(pto + s.rtt.rto));
    // Original and probe both arrived: a duplicate ACK without SACK ends the episode
    // with no reduction.
    let before = s.st.ssthresh;
    s.on_ack(pto + 100 * MS, &ack(5000));
    s.on_ack(pto + 101 * MS, &ack(5000));
    assert_eq!(s.st.ssthresh, before);
    assert_eq!(s.stats.tlp_recoveries, 0);
}

#[test]
fn tlp_that_repaired_a_loss_reduces_the_window_once() {
    let mut s = recovery_sender(5000, |c| {
        c.rack = true;
        c.tlp = true;
    });
    s.st.cwnd = 10_000;
    drain(&mut s, 0);
    s.on_ack(100 * MS, &ack(1000));
    let pto = s.timer_deadline().unwrap();
    s.on_timer(pto);
    drain(&mut s, pto);
    // Segments 1-3 were only late; 4 was lost and the probe repaired it.
    s.on_ack(pto + 50 * MS, &ack(5000));
    assert_eq!(
        s.stats.tlp_recoveries, 0,
        "TLP.end_seq itself proves nothing yet"
    );
    s.set_app_end(8000);
    drain(&mut s, pto + 50 * MS);
    s.on_ack(pto + 150 * MS, &ack(6000));
    assert_eq!(s.stats.tlp_recoveries, 1);
    assert_eq!(s.stats.timeouts, 0);
}

#[test]
fn tlp_sends_new_data_as_the_probe_when_it_can() {
    let mut s = recovery_sender(u64::MAX, |c| {
        c.rack = true;
        c.tlp = true;
    });
    s.st.cwnd = 4_000;
    drain(&mut s, 0);
    s.on_ack(100 * MS, &ack(1000));
    drain(&mut s, 100 * MS); // cwnd now allows 5000 in flight: up to 6000
    let pto = s.timer_deadline().unwrap();
    assert_eq!(pto, 300 * MS);
    s.on_timer(pto);
    assert_eq!(sent(&drain(&mut s, pto)), [(6000, false)], "beyond cwnd");
}

fn frto_sender() -> TcpSender {
    let (c, r) = cc::build_default("newreno");
    let cfg = TcpConfig {
        frto: true,
        ..Default::default()
    };
    let mut s = TcpSender::new(cfg, c, r, 0);
    s.set_app_end(u64::MAX);
    s.st.cwnd = 5_000;
    s.st.ssthresh = 8_000;
    assert_eq!(drain(&mut s, 0).len(), 5);
    s.on_timer(SEC);
    assert_eq!(s.stats.timeouts, 1);
    // RFC 5682 step 1: only the first unacknowledged segment is resent.
    assert_eq!(sent(&drain(&mut s, SEC)), [(0, true)]);
    s
}

#[test]
fn frto_detects_a_spurious_timeout_and_undoes_it() {
    let mut s = frto_sender();
    // The original ACKs were only late. First ACK advances: two new segments (step 2b).
    s.on_ack(SEC + 50 * MS, &ack(1000));
    assert_eq!(
        sent(&drain(&mut s, SEC + 50 * MS)),
        [(5000, false), (6000, false)]
    );
    // Second ACK acknowledges data never resent: spurious (step 3b). RFC 4015: cwnd =
    // FlightSize + min(bytes_acked, IW), ssthresh = pipe_prev = max(5000, 8000).
    s.on_ack(SEC + 60 * MS, &ack(2000));
    assert_eq!(s.stats.spurious_timeouts, 1);
    assert_eq!(s.st.ssthresh, 8_000);
    assert_eq!(s.st.cwnd, 5_000 + 1_000);
    let next = drain(&mut s, SEC + 60 * MS);
    assert!(
        next.iter().all(|g| !g.retx),
        "no go-back-N after a spurious timeout"
    );
    assert_eq!(next[0].seq, 7000);
}

#[test]
fn frto_falls_back_to_go_back_n_on_a_duplicate_ack() {
    let mut s = frto_sender();
    s.on_ack(SEC + 50 * MS, &ack(0)); // step 2a: duplicate ACK
    s.on_ack(SEC + 60 * MS, &ack(1000));
    assert_eq!(s.stats.spurious_timeouts, 0);
    assert_eq!(
        sent(&drain(&mut s, SEC + 60 * MS)),
        [(1000, true), (2000, true)],
        "conventional recovery resends the window in slow start"
    );
}

#[test]
fn frto_second_duplicate_ack_is_a_real_loss() {
    let mut s = frto_sender();
    s.on_ack(SEC + 50 * MS, &ack(1000));
    drain(&mut s, SEC + 50 * MS);
    s.on_ack(SEC + 60 * MS, &ack(1000)); // step 3a
    assert_eq!(s.stats.spurious_timeouts, 0);
    assert!(s.st.cwnd <= 3_000);
    assert_eq!(sent(&drain(&mut s, SEC + 60 * MS))[0], (1000, true));
}

/// Ten segments, a timeout, the go-back-N resends of 0 and 1 acknowledged one by one
/// (`jump` = how far the second ACK moves), then three duplicate ACKs below `recover`.
fn dupacks_after_timeout(guard: RecoverGuard, jump: u64, ecr: Option<Time>) -> u64 {
    let (c, r) = cc::build_default("newreno");
    let cfg = TcpConfig {
        recover_guard: guard,
        timestamps: ecr.is_some(),
        ..Default::default()
    };
    let mut s = TcpSender::new(cfg, c, r, 0);
    s.set_app_end(u64::MAX);
    s.st.cwnd = 10_000;
    drain(&mut s, 0);
    s.on_timer(SEC);
    drain(&mut s, SEC);
    s.on_ack(SEC + 100 * MS, &ack(1000));
    drain(&mut s, SEC + 100 * MS);
    let mut h = ack(1000 + jump);
    h.ts_ecr = ecr.unwrap_or(0);
    s.on_ack(SEC + 200 * MS, &h);
    drain(&mut s, SEC + 200 * MS);
    for _ in 0..3 {
        s.on_ack(SEC + 300 * MS, &ack(1000 + jump));
    }
    s.stats.fast_retransmits
}

/// A fast recovery over ten segments ends with the ACK of exactly `recover`; then the
/// first segment sent during the recovery proves lost (three duplicate ACKs at recover).
fn dupacks_at_recover(guard: RecoverGuard) -> u64 {
    let (c, r) = cc::build_default("newreno");
    let cfg = TcpConfig {
        recover_guard: guard,
        ..Default::default()
    };
    let mut s = TcpSender::new(cfg, c, r, 0);
    s.set_app_end(u64::MAX);
    s.st.cwnd = 10_000;
    drain(&mut s, 0);
    for _ in 0..3 {
        s.on_ack(10 * MS, &ack(0));
    }
    drain(&mut s, 10 * MS);
    for _ in 0..4 {
        s.on_ack(11 * MS, &ack(0));
    }
    assert!(
        !drain(&mut s, 11 * MS).is_empty(),
        "new data at 10000 during recovery"
    );
    s.on_ack(20 * MS, &ack(10_000));
    assert!(!s.in_recovery());
    drain(&mut s, 20 * MS);
    for _ in 0..3 {
        s.on_ack(30 * MS, &ack(10_000));
    }
    s.stats.fast_retransmits
}

#[test]
fn less_careful_guard_lets_an_ack_of_exactly_recover_through() {
    // RFC 6582 3.2 step 1 wants an ACK covering more than recover (the highest byte sent
    // at the reduction); RFC 2582's less careful variant also takes one that reaches it.
    assert_eq!(dupacks_at_recover(RecoverGuard::Careful), 1);
    assert_eq!(dupacks_at_recover(RecoverGuard::LessCareful), 2);
}

#[test]
fn recover_guard_variants_of_rfc_6582() {
    use RecoverGuard::*;
    // 3.2 step 1: duplicate ACKs not covering `recover` never start a fast retransmit.
    assert_eq!(dupacks_after_timeout(Careful, 1000, None), 0);
    assert_eq!(dupacks_after_timeout(LessCareful, 1000, None), 0);
    assert_eq!(dupacks_after_timeout(Off, 1000, None), 1);
    // 4.1: a small advance (<= 4 SMSS) before them points to a lost resend...
    assert_eq!(dupacks_after_timeout(Ack, 1000, None), 1);
    // ... a jump over data the receiver already held points to needless resends.
    assert_eq!(dupacks_after_timeout(Ack, 6000, None), 0);
    // 4.2: the advancing ACK echoed the TSval of the last segment it covered (segment 1,
    // resent at 1.1 s): that segment's arrival made it, so the next one was lost.
    assert_eq!(
        dupacks_after_timeout(Timestamp, 1000, Some(SEC + 100 * MS)),
        1
    );
    // It echoed an older segment's (the resend of segment 0 filled a hole and everything
    // above it was already there): needless resends.
    assert_eq!(dupacks_after_timeout(Timestamp, 1000, Some(SEC)), 0);
}

#[test]
fn only_an_ack_with_new_sack_information_starts_a_recovery_on_a_lost_head() {
    // RFC 6675 5: IsLost(HighACK + 1) is asked on a duplicate ACK, which with SACK is one
    // that brings new SACK information, whatever its cumulative point (ns-3's ProcessAck:
    // isDupack = scoreboardUpdated). Segments 0 and 5 are lost, then 10 (sent during the
    // recovery); the ACK that ends the recovery repeats the SACK blocks it had, so the
    // new head, lost by the SACK count, waits for the next ACK with news. (With ns-3's
    // guard, which lets a recovery start once the last one's point is acknowledged.)
    let mut s = recovery_sender(u64::MAX, |c| {
        c.initial_cwnd = 10;
        c.recover_guard = RecoverGuard::LessCareful;
    });
    assert_eq!(drain(&mut s, 0).len(), 10);
    let mut t = 100 * MS;
    for top in [2000, 3000, 4000] {
        s.on_ack(t, &ack_sacking(0, &[(1000, top)]));
        t += MS;
    }
    assert!(s.in_recovery());
    assert_eq!(sent(&drain(&mut s, t)), [(0, true)]);
    for top in [7000, 8000, 9000, 10000] {
        s.on_ack(t, &ack_sacking(0, &[(6000, top), (1000, 5000)]));
        drain(&mut s, t);
        t += MS;
    }
    let above = |top| [(11000, top), (6000, 10000), (1000, 5000)];
    for top in [12000, 13000, 14000] {
        s.on_ack(t, &ack_sacking(0, &above(top)));
        drain(&mut s, t);
        t += MS;
    }
    assert!(
        s.snd_max >= 14000,
        "segments 10 to 13 were sent in the recovery"
    );
    // The retransmission of 0 arrives: a partial ACK, nothing new SACKed.
    s.on_ack(t, &ack_sacking(5000, &[(11000, 14000), (6000, 10000)]));
    drain(&mut s, t);
    t += MS;
    // That of 5 ends the recovery; segment 10 is lost by the count, but nothing is new.
    let entries = s.stats.fast_retransmits;
    s.on_ack(t, &ack_sacking(10000, &[(11000, 14000)]));
    assert!(!s.in_recovery());
    assert!(!sent(&drain(&mut s, t)).contains(&(10000, true)));
    assert_eq!(s.stats.fast_retransmits, entries);
    t += MS;
    // The next ACK SACKs one more: a duplicate, and segment 10 is resent at once.
    s.on_ack(t, &ack_sacking(10000, &[(11000, 15000)]));
    assert!(s.in_recovery());
    assert_eq!(s.stats.fast_retransmits, entries + 1);
    assert_eq!(
        drain(&mut s, t).first().map(|g| (g.seq, g.retx)),
        Some((10000, true))
    );
}

#[test]
fn after_a_timeout_ns3_resends_only_below_the_highest_sack_before_new_data() {
    // Eight segments; a timeout resends 0. Its ACK SACKs 3-5: 1 and 2 lie below the
    // highest SACKed segment, 6 and 7 above it. RFC 6675 5.1 (the default) resends every
    // un-SACKed segment sent before the timeout; ns-3's NextSeg takes a lost segment only
    // below the highest SACKed one (rule 1.b) and then new data (`timeout_resend =
    // "below_sack"`).
    for (below, want) in [
        (false, vec![(1000, true), (2000, true), (6000, true)]),
        (true, vec![(1000, true), (2000, true), (8000, false)]),
    ] {
        let mut s = sack_sender(false);
        s.cfg.timeout_resend_below_sack = below;
        s.set_app_end(u64::MAX);
        let rto = timed_out(&mut s, 8);
        assert_eq!(drain(&mut s, rto).len(), 1);
        s.on_ack(rto + MS, &ack_sacking(1000, &[(3000, 6000)]));
        s.st.cwnd = 3000;
        let sent = sent_at(&mut s, rto + MS);
        assert_eq!(sent, want, "timeout_resend below_sack = {below}");
    }
}

#[test]
fn after_a_timeout_ns3_counts_a_resent_segment_in_flight_once_sacked() {
    // Six segments; a timeout resends 0 and 1 (cwnd 2); 1 is then SACKed. ns-3's
    // BytesInFlight adds TcpTxBuffer's retransmitted count, which a SACK does not lower
    // (`pipe_keeps_retransmissions`): 0 and 1 are both still in flight, where RFC 6675
    // counts only 0.
    for (sticky, want) in [(false, 1000), (true, 2000)] {
        let mut s = sack_sender(false);
        s.cfg.pipe_keeps_retransmissions = sticky;
        s.set_app_end(6000);
        let rto = timed_out(&mut s, 6);
        s.st.cwnd = 2000;
        assert_eq!(drain(&mut s, rto).len(), 2);
        s.board.on_sack(
            &[crate::packet::SackBlock {
                start: 1000,
                end: 2000,
            }],
            6000,
        );
        let recover = s.recover.unwrap();
        let got = s
            .board
            .in_flight_in_loss(3, s.recovery_epoch, recover, 6000, sticky);
        assert_eq!(got, want, "pipe_keeps_retransmissions = {sticky}");
    }
}

#[test]
fn ns3_disorder_ack_neither_grows_nor_restarts_the_timer() {
    // An ACK that advances (segment 0 arrives) while it SACKs segment 2 for the first time
    // is a duplicate by RFC 6675's definition. ns-3's DupAck moves the socket to
    // CA_DISORDER first, and ProcessAck then calls neither IncreaseWindow nor NewAck: the
    // window stays and the retransmission timer keeps running from the first send. By
    // default it is a new ACK: slow start adds a segment and the timer restarts.
    for hold in [false, true] {
        let mut s = sack_sender(false);
        s.cfg.disorder_hold = hold;
        s.set_app_end(u64::MAX);
        s.st.cwnd = 10_000;
        s.rwnd = 1 << 20;
        assert_eq!(drain(&mut s, 0).len(), 10);
        let rto = s.rto_deadline().unwrap();
        s.on_ack(100 * MS, &ack_sacking(1000, &[(2000, 3000)]));
        assert!(!s.in_recovery());
        let (cwnd, deadline) = if hold {
            (10_000, rto)
        } else {
            (11_000, 100 * MS + s.rtt.rto)
        };
        assert_eq!(s.st.cwnd, cwnd, "hold = {hold}");
        assert_eq!(s.rto_deadline(), Some(deadline), "hold = {hold}");
        // The next cumulative ACK without new SACK information returns ns-3 to CA_OPEN:
        // a new ACK again, growth and timer both.
        s.on_ack(110 * MS, &ack_sacking(1000, &[(2000, 3000)]));
        s.on_ack(120 * MS, &ack(3000));
        assert_eq!(s.st.cwnd, cwnd + 1000, "hold = {hold}");
        assert_eq!(
            s.rto_deadline(),
            Some(120 * MS + s.rtt.rto),
            "hold = {hold}"
        );
    }
}
