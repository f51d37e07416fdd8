use super::*;
use crate::engine::MS;

fn seg(seq: u64) -> TcpHeader {
    TcpHeader {
        seq,
        len: 1000,
        ..Default::default()
    }
}

fn rx(delayed: bool, sack: bool) -> TcpReceiver {
    TcpReceiver::new(&TcpConfig {
        delayed_ack: delayed,
        sack,
        ..Default::default()
    })
}

#[test]
fn in_order_delivery_and_immediate_ack() {
    let mut r = rx(false, false);
    let o = r.on_segment(0, &seg(0), Ecn::NOT_ECT);
    assert_eq!((o.delivered, o.ack_now), (1000, true));
    assert_eq!(r.make_ack(0).ack, 1000);
}

#[test]
fn out_of_order_buffered_then_hole_filled() {
    let mut r = rx(true, true);
    r.on_segment(0, &seg(0), Ecn::NOT_ECT);
    let o = r.on_segment(1, &seg(2000), Ecn::NOT_ECT);
    assert!(o.ack_now && o.delivered == 0);
    r.on_segment(2, &seg(4000), Ecn::NOT_ECT);
    assert_eq!(r.buffered(), 2000);
    assert_eq!(
        r.advertised_window(0),
        64 * 1024,
        "the right edge does not move left"
    );
    let a = r.make_ack(2);
    assert_eq!(a.ack, 1000);
    assert_eq!(
        a.sack_blocks()[0],
        SackBlock {
            start: 4000,
            end: 5000
        }
    );
    assert_eq!(
        a.sack_blocks()[1],
        SackBlock {
            start: 2000,
            end: 3000
        }
    );
    let o = r.on_segment(3, &seg(1000), Ecn::NOT_ECT);
    assert_eq!(o.delivered, 2000);
    assert!(
        o.ack_now,
        "hole fill is acked at once even with delayed ACKs"
    );
    assert_eq!(r.rcv_nxt, 3000);
    let o = r.on_segment(4, &seg(3000), Ecn::NOT_ECT);
    assert_eq!(o.delivered, 2000);
    assert_eq!(r.buffered(), 0);
}

#[test]
fn ack_first_segment_shifts_the_pairing() {
    let mut r = TcpReceiver::new(&TcpConfig {
        delayed_ack: true,
        ack_first_segment: true,
        ..Default::default()
    });
    assert!(r.on_segment(0, &seg(0), Ecn::NOT_ECT).ack_now);
    r.make_ack(0);
    assert!(!r.on_segment(1, &seg(1000), Ecn::NOT_ECT).ack_now);
    assert!(r.on_segment(2, &seg(2000), Ecn::NOT_ECT).ack_now);
    // With a handshake the SYN-ACK leaves the count where the first segment is acked.
    let mut r = TcpReceiver::new(&TcpConfig {
        delayed_ack: true,
        ack_first_segment: true,
        ..Default::default()
    });
    let syn = TcpHeader {
        flags: flags::SYN,
        ..Default::default()
    };
    r.on_segment(0, &syn, Ecn::NOT_ECT);
    r.make_ack(0);
    assert!(r.on_segment(1, &seg(0), Ecn::NOT_ECT).ack_now);
}

#[test]
fn rfc7323_echo_is_the_earliest_unacknowledged_segments_timestamp() {
    let ts_seg = |seq: u64, ts: Time| TcpHeader {
        ts_val: ts,
        ..seg(seq)
    };
    for earliest in [false, true] {
        let mut r = TcpReceiver::new(&TcpConfig {
            delayed_ack: true,
            timestamps: true,
            ts_echo_earliest: earliest,
            ..Default::default()
        });
        r.on_segment(10, &ts_seg(0, 5), Ecn::NOT_ECT);
        r.on_segment(11, &ts_seg(1000, 6), Ecn::NOT_ECT);
        assert_eq!(r.make_ack(11).ts_ecr, if earliest { 5 } else { 6 });
        // A segment held for the delayed ACK, then one of the next flight: the ACK of
        // both echoes the held one's timestamp, so its RTT sample includes the wait.
        r.on_segment(12, &ts_seg(2000, 7), Ecn::NOT_ECT);
        r.on_segment(112, &ts_seg(3000, 107), Ecn::NOT_ECT);
        assert_eq!(r.make_ack(112).ts_ecr, if earliest { 7 } else { 107 });
        // Out of order (above a hole): not taken; the hole's repair is.
        r.on_segment(113, &ts_seg(5000, 108), Ecn::NOT_ECT);
        assert_eq!(r.make_ack(113).ts_ecr, if earliest { 7 } else { 108 });
        r.on_segment(114, &ts_seg(4000, 109), Ecn::NOT_ECT);
        assert_eq!(r.make_ack(114).ts_ecr, 109);
    }
}

#[test]
fn delayed_ack_every_second_segment_or_timeout() {
    let mut r = rx(true, false);
    let o = r.on_segment(0, &seg(0), Ecn::NOT_ECT);
    assert!(!o.ack_now);
    assert_eq!(r.delack_deadline(), Some(200 * MS));
    let o = r.on_segment(1, &seg(1000), Ecn::NOT_ECT);
    assert!(o.ack_now);
    r.make_ack(1);
    assert_eq!(r.delack_deadline(), None);
    r.on_segment(2, &seg(2000), Ecn::NOT_ECT);
    assert!(!r.on_delack_timer(100 * MS));
    assert!(r.on_delack_timer(202 * MS));
}

#[test]
fn duplicate_segment_acked_not_delivered() {
    let mut r = rx(true, false);
    r.on_segment(0, &seg(0), Ecn::NOT_ECT);
    let o = r.on_segment(1, &seg(0), Ecn::NOT_ECT);
    assert_eq!((o.delivered, o.ack_now), (0, true));
    assert_eq!(r.stats.delivered_bytes, 1000);
    assert_eq!(r.stats.received_bytes, 2000);
}

#[test]
fn ece_from_ce_until_cwr() {
    let mut r = rx(false, false);
    r.on_segment(0, &seg(0), Ecn::CE);
    assert!(r.make_ack(0).has(flags::ECE));
    r.on_segment(0, &seg(1000), Ecn::ECT0);
    assert!(r.make_ack(0).has(flags::ECE), "ECE persists until CWR");
    let mut s = seg(2000);
    s.flags |= flags::CWR;
    r.on_segment(0, &s, Ecn::ECT0);
    assert!(!r.make_ack(0).has(flags::ECE));
}

#[test]
fn the_ack_completing_the_handshake_is_not_answered() {
    // RFC 9293 3.10.7.4: in SYN-RECEIVED an acceptable ACK moves the connection to
    // ESTABLISHED; a segment without data calls for no reply.
    let mut r = rx(false, false);
    let syn = TcpHeader {
        flags: flags::SYN,
        ..Default::default()
    };
    assert!(r.on_segment(0, &syn, Ecn::NOT_ECT).ack_now);
    r.make_ack(0);
    let pure = TcpHeader {
        flags: flags::ACK,
        ..Default::default()
    };
    let o = r.on_segment(1, &pure, Ecn::NOT_ECT);
    assert_eq!((o.delivered, o.ack_now), (0, false));
    assert_eq!(r.stats.received_packets, 0);
    // Later, the same empty segment (a window probe) is answered.
    assert!(r.on_segment(2, &seg(0), Ecn::NOT_ECT).ack_now);
    assert!(r.on_segment(3, &pure, Ecn::NOT_ECT).ack_now);
}

#[test]
fn syn_gets_synack_agreeing_on_ecn_only_if_capable() {
    let syn = TcpHeader {
        flags: flags::SYN | flags::ECE | flags::CWR,
        ..Default::default()
    };
    let mut capable = TcpReceiver::new(&TcpConfig {
        ecn: true,
        ..Default::default()
    });
    assert!(capable.on_segment(0, &syn, Ecn::NOT_ECT).ack_now);
    let a = capable.make_ack(0);
    assert!(a.has(flags::SYN) && a.has(flags::ACK) && a.has(flags::ECE));
    assert!(!capable.make_ack(0).has(flags::SYN), "a single SYN-ACK");
    let mut plain = rx(false, false);
    plain.on_segment(0, &syn, Ecn::NOT_ECT);
    let a = plain.make_ack(0);
    assert!(a.has(flags::SYN) && !a.has(flags::ECE));
    assert_eq!(
        plain.stats.received_packets, 0,
        "control segments are not data"
    );
}

#[test]
fn dda_holds_third_and_later_dupacks() {
    let mut r = TcpReceiver::new(&TcpConfig {
        dda_delay: Some(50 * MS),
        ..Default::default()
    });
    r.on_segment(0, &seg(0), Ecn::NOT_ECT);
    // Segment 1000 lost; 2000.. arrive.
    assert!(r.on_segment(1, &seg(2000), Ecn::NOT_ECT).ack_now);
    assert!(r.on_segment(2, &seg(3000), Ecn::NOT_ECT).ack_now);
    assert!(
        !r.on_segment(3, &seg(4000), Ecn::NOT_ECT).ack_now,
        "third dupack held"
    );
    assert!(!r.on_segment(4, &seg(5000), Ecn::NOT_ECT).ack_now);
    assert_eq!(r.timer_deadline(), Some(3 + 50 * MS));
    // The link retransmission fills the hole in time: held dupacks are dropped.
    let o = r.on_segment(20 * MS, &seg(1000), Ecn::NOT_ECT);
    assert!(o.ack_now && o.delivered == 5000);
    assert_eq!(r.dupacks_dropped, 2);
    assert_eq!(r.timer_deadline(), None);
    // Next hole, not filled in time: the held dupacks go out at the deadline.
    for s in [7000, 8000, 9000] {
        r.on_segment(30 * MS, &seg(s), Ecn::NOT_ECT);
    }
    assert_eq!(r.on_timer(30 * MS + 50 * MS), 1);
    assert!(
        r.on_segment(90 * MS, &seg(10_000), Ecn::NOT_ECT).ack_now,
        "released"
    );
}

#[test]
fn reflects_codepoint_in_echo_bits() {
    let mut r = rx(false, false);
    r.on_segment(0, &seg(0), Ecn::CE);
    assert_eq!(r.make_ack(0).ecn_echo, 0b11);
    r.on_segment(0, &seg(1000), Ecn::ECT0);
    assert_eq!(r.make_ack(0).ecn_echo, 0b10);
    r.on_segment(0, &seg(2000), Ecn::ECT1);
    assert_eq!(r.make_ack(0).ecn_echo, 0b01);
    // A retransmission is not ECN-capable: its ACK carries no feedback.
    r.on_segment(0, &seg(1000), Ecn::NOT_ECT);
    assert_eq!(r.make_ack(0).ecn_echo, 0b00);
}

#[test]
fn delayed_ack_echoes_the_most_severe_level() {
    let mut r = rx(true, false);
    r.on_segment(0, &seg(0), Ecn(0b11));
    r.on_segment(1, &seg(1000), Ecn::ECT1);
    assert_eq!(r.make_ack(1).ecn_echo, 0b11);
    r.on_segment(2, &seg(2000), Ecn::ECT1);
    r.on_segment(3, &seg(3000), Ecn(0b10));
    assert_eq!(r.make_ack(3).ecn_echo, 0b10, "reset after each ACK");
}

/// A receiver with delayed ACKs of two and DCTCP's CE-state ACKs.
fn dctcp_rx(mode: CeAcks) -> TcpReceiver {
    let mut r = TcpReceiver::new(&TcpConfig {
        delayed_ack: true,
        delack_count: 2,
        ..Default::default()
    });
    r.set_ce_state_acks(mode);
    r
}

/// The ACKs a DCTCP receiver sends for segments 0, 1, 2, 3 of which 2 and 3 carry CE,
/// each as (ack, ECE echoed).
fn ce_acks(mode: CeAcks) -> Vec<(u64, bool)> {
    let mut r = dctcp_rx(mode);
    let mut acks = Vec::new();
    for (k, ecn) in [Ecn::ECT0, Ecn::ECT0, Ecn::CE, Ecn::CE]
        .into_iter()
        .enumerate()
    {
        let k = k as u64;
        let o = r.on_segment(k * MS, &seg(k * 1000), ecn);
        if o.ack_now {
            r.acks_due += 1;
        }
        while let Some(h) = r.poll_ack(k * MS) {
            acks.push((h.ack, h.ecn_echo == Ecn::CE.bits() && h.has(flags::ECE)));
        }
    }
    acks
}

#[test]
fn dctcp_receiver_acknowledges_a_change_of_ce_state_at_once() {
    // Delayed ACKs of two: segments 0-1 are acknowledged together. Segment 2 changes the
    // CE state with nothing pending (RFC 8257 3.2, Linux): no ACK is owed for earlier
    // data, and it is acknowledged at once with ECE; segment 3 keeps the state and is
    // held.
    assert_eq!(ce_acks(CeAcks::Rfc), [(2000, false), (3000, true)]);
}

#[test]
fn dctcp_receiver_sends_the_owed_ack_first_with_the_old_state() {
    let mut r = dctcp_rx(CeAcks::Rfc);
    r.on_segment(0, &seg(0), Ecn::ECT0);
    // Segment 1 turns CE on while segment 0 waits for a delayed ACK: that ACK goes
    // first without ECE, then segment 1's at once with it.
    let o = r.on_segment(MS, &seg(1000), Ecn::CE);
    assert!(o.ack_now);
    r.acks_due += 1;
    let a = r.poll_ack(MS).unwrap();
    assert_eq!((a.ack, a.has(flags::ECE)), (1000, false));
    let b = r.poll_ack(MS).unwrap();
    assert_eq!((b.ack, b.has(flags::ECE)), (2000, true));
    assert!(r.poll_ack(MS).is_none());
}

#[test]
fn dctcp_receiver_change_on_an_old_segment_does_not_carry_over() {
    // Segments 0-1 are acknowledged together; a copy of segment 0 turns CE on and is
    // acknowledged at once as old. Segment 2 keeps the state and is held for the next
    // delayed ACK, not acknowledged at once for the copy's change.
    let mut r = dctcp_rx(CeAcks::Rfc);
    r.on_segment(0, &seg(0), Ecn::ECT0);
    assert!(r.on_segment(MS, &seg(1000), Ecn::ECT0).ack_now);
    r.make_ack(MS);
    assert!(r.on_segment(2 * MS, &seg(0), Ecn::CE).ack_now);
    r.make_ack(2 * MS);
    assert!(!r.on_segment(3 * MS, &seg(2000), Ecn::CE).ack_now);
}

#[test]
fn dctcp_change_of_ce_state_is_not_held_by_dda() {
    // DDA holds the third and later duplicate ACKs; a duplicate whose segment changed the
    // CE state goes at once (RFC 8257 3.2), the next unchanged one is held again.
    let mut r = TcpReceiver::new(&TcpConfig {
        dda_delay: Some(50 * MS),
        ..Default::default()
    });
    r.set_ce_state_acks(CeAcks::Rfc);
    r.on_segment(0, &seg(0), Ecn::ECT0);
    r.make_ack(0);
    assert!(r.on_segment(1, &seg(2000), Ecn::ECT0).ack_now);
    assert!(r.on_segment(2, &seg(3000), Ecn::ECT0).ack_now);
    assert!(!r.on_segment(3, &seg(4000), Ecn::ECT0).ack_now, "held");
    assert!(r.on_segment(4, &seg(5000), Ecn::CE).ack_now, "CE on");
    assert!(!r.on_segment(5, &seg(6000), Ecn::CE).ack_now, "held again");
}

#[test]
fn ns3_dctcp_receiver_acks_the_point_before_the_previous_segment() {
    // ns-3.44's CeState0to1 runs before the segment is added, with m_priorRcvNxt taken at
    // the previous segment's arrival, so the owed ACK carries the cumulative point before
    // that segment (2000 here, though segment 2 is held for a delayed ACK), restarts the
    // delayed-ACK count, and the CE segment is then held as usual: segments 2-4 go in one
    // ACK with ECE.
    let mut r = dctcp_rx(CeAcks::Ns3);
    let mut acks = Vec::new();
    for (k, ecn) in [Ecn::ECT0, Ecn::ECT0, Ecn::ECT0, Ecn::CE, Ecn::CE]
        .into_iter()
        .enumerate()
    {
        let k = k as u64;
        if r.on_segment(k * MS, &seg(k * 1000), ecn).ack_now {
            r.acks_due += 1;
        }
        while let Some(h) = r.poll_ack(k * MS) {
            acks.push((h.ack, h.has(flags::ECE)));
        }
    }
    assert_eq!(acks, [(2000, false), (2000, false), (5000, true)]);
}

#[test]
fn ns3_sack_list_keeps_recent_blocks_and_merges_only_adjacent_listed_ones() {
    // ns-3's TcpRxBuffer::UpdateSackList: each out-of-order segment's block goes first,
    // merged with listed blocks it adjoins; four are kept, so a run whose older part was
    // dropped from the list is reported without it. RFC 2018's ranges report the whole
    // run held.
    let blocks = |ns3: bool| {
        let mut r = TcpReceiver::new(&TcpConfig {
            sack: true,
            sack_list_ns3: ns3,
            ..Default::default()
        });
        // Holes at 0 and every other segment: 1, 3, 5, 7, 9 arrive, then 2 (joins 1
        // and 3), then 10 (adjoins 9).
        for k in [1u64, 3, 5, 7, 9, 2, 10] {
            r.on_segment(k * MS, &seg(k * 1000), Ecn::NOT_ECT);
        }
        let h = r.make_ack(20 * MS);
        h.sack[..h.n_sack as usize]
            .iter()
            .map(|b| (b.start / 1000, b.end / 1000))
            .collect::<Vec<_>>()
    };
    // ns-3: after 9 the list is [9] [7] [5] [3] (1 dropped as the fifth); 2 adjoins 3
    // only, as 1 is no longer listed: [2,4) [9] [7] [5]; 10 joins 9: [9,11) [2,4) [7].
    assert_eq!(blocks(true), [(9, 11), (2, 4), (7, 8)]);
    // RFC 2018 ranges: the latest arrival's range first, then the highest.
    assert_eq!(blocks(false), [(9, 11), (7, 8), (5, 6)]);
}
