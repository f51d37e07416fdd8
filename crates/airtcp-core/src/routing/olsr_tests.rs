//! OLSR's rules against RFC 3626's text.

use super::*;
use crate::routing::Msg as AnyMsg;

fn n(i: u32) -> NodeId {
    NodeId(i)
}

/// Every 2-hop neighbour (not a neighbour itself, not `me`) is reached through some MPR.
fn covers(me: NodeId, n1: &[(NodeId, u8)], th: &[(NodeId, NodeId)], mpr: &[NodeId]) -> bool {
    let sym: Vec<NodeId> = n1.iter().map(|x| x.0).collect();
    th.iter()
        .filter(|(v, z)| {
            *z != me && !sym.contains(z) && n1.iter().any(|x| x.0 == *v && x.1 != WILL_NEVER)
        })
        .all(|(_, z)| th.iter().any(|(v, z2)| z2 == z && mpr.contains(v)))
}

#[test]
fn mpr_selection_takes_sole_providers_then_the_widest_coverage() {
    let me = n(0);
    // Neighbours 1..4; 2-hop: 1 alone reaches 10; 2 reaches 11, 12, 13; 3 reaches 11;
    // 4 reaches 12, 13 and 0 (this node, ignored) and 1 (a neighbour, ignored).
    let n1 = [
        (n(1), WILL_DEFAULT),
        (n(2), WILL_DEFAULT),
        (n(3), WILL_DEFAULT),
        (n(4), WILL_DEFAULT),
    ];
    let th = [
        (n(1), n(10)),
        (n(2), n(11)),
        (n(2), n(12)),
        (n(2), n(13)),
        (n(3), n(11)),
        (n(4), n(12)),
        (n(4), n(13)),
        (n(4), n(0)),
        (n(4), n(1)),
    ];
    let mpr = select_mpr(me, &n1, &th);
    // 8.3.1 step 3: 1 is the only way to 10; step 4: 2 reaches the most uncovered (3).
    assert_eq!(mpr, vec![n(1), n(2)]);
    assert!(covers(me, &n1, &th, &mpr));
}

#[test]
fn mpr_selection_honours_willingness() {
    let me = n(0);
    // 1 and 2 both reach 10 and 11; 2 is more willing, 3 never forwards, 4 always does.
    let n1 = [
        (n(1), WILL_DEFAULT),
        (n(2), 6),
        (n(3), WILL_NEVER),
        (n(4), WILL_ALWAYS),
    ];
    let th = [
        (n(1), n(10)),
        (n(1), n(11)),
        (n(2), n(10)),
        (n(2), n(11)),
        (n(3), n(12)),
    ];
    let mpr = select_mpr(me, &n1, &th);
    assert_eq!(
        mpr,
        vec![n(2), n(4)],
        "WILL_ALWAYS always; highest willingness first"
    );
    // 12 is reachable only through a WILL_NEVER neighbour: not covered, not required.
    assert!(covers(me, &n1, &th, &mpr));
}

#[test]
fn mpr_sets_cover_every_two_hop_neighbour_of_random_graphs() {
    let mut rng = crate::engine::Rng::new(3);
    for case in 0..300 {
        let k = 1 + rng.below(8) as u32;
        let n1: Vec<(NodeId, u8)> = (1..=k)
            .map(|i| {
                (
                    n(i),
                    [WILL_DEFAULT, WILL_DEFAULT, 1, 6, WILL_ALWAYS][rng.below(5) as usize],
                )
            })
            .collect();
        let mut th = vec![];
        for i in 1..=k {
            for _ in 0..rng.below(5) {
                th.push((n(i), n(rng.below(20) as u32)));
            }
        }
        let mpr = select_mpr(n(0), &n1, &th);
        assert!(
            covers(n(0), &n1, &th, &mpr),
            "case {case}: {n1:?} {th:?} -> {mpr:?}"
        );
        assert!(mpr.iter().all(|m| n1.iter().any(|x| x.0 == *m)));
    }
}

#[test]
fn routing_table_follows_section_10() {
    let me = n(0);
    // Neighbours 1, 2; 2-hop 3 through 2; topology: 4 behind 3, 5 behind 4, 6 behind 9
    // (unknown: no route), and 3 also advertised behind 1 (a longer way, not taken).
    let t = routes(
        &[n(1), n(2)],
        &[(n(2), n(3)), (n(1), n(0))],
        &[
            (n(4), n(3)),
            (n(5), n(4)),
            (n(6), n(9)),
            (n(3), n(1)),
            (n(0), n(1)),
        ],
        me,
    );
    assert_eq!(t[&n(1)], (n(1), 1));
    assert_eq!(t[&n(3)], (n(2), 2));
    assert_eq!(t[&n(4)], (n(2), 3));
    assert_eq!(t[&n(5)], (n(2), 4));
    assert!(!t.contains_key(&n(6)));
    assert!(!t.contains_key(&me));
}

#[test]
fn ansn_comparison_wraps_around() {
    assert!(seq_newer(2, 1));
    assert!(seq_newer(0, 65535));
    assert!(!seq_newer(65535, 0));
    assert!(!seq_newer(5, 5));
}

fn hello_from(o: &mut Olsr, now: Time, from: u32, links: Vec<(NodeId, LinkType, NeighType)>) {
    let h = Hello {
        willingness: WILL_DEFAULT,
        vtime: 6 * SEC,
        htime: 2 * SEC,
        links,
    };
    o.receive(
        now,
        n(from),
        &packet(0, vec![Msg::Hello(h)]),
        &mut Vec::new(),
    );
}

fn packet(seq: u16, msgs: Vec<Msg>) -> AnyMsg {
    AnyMsg::Olsr(Packet { seq, msgs })
}

#[test]
fn link_sensing_becomes_symmetric_when_the_neighbour_lists_us() {
    let mut o = Olsr::new(n(0), Config::default(), Rng::new(1));
    // 7.1.1: hearing 1 makes the link asymmetric only.
    hello_from(&mut o, 0, 1, vec![]);
    assert!(o.symmetric(0).is_empty());
    assert_eq!(
        o.hello(0).links,
        vec![(n(1), LinkType::Asym, NeighType::Not)]
    );
    // 1 lists this node: symmetric; its symmetric neighbour 2 becomes a 2-hop neighbour,
    // so 1 is chosen as MPR.
    hello_from(
        &mut o,
        SEC,
        1,
        vec![
            (n(0), LinkType::Asym, NeighType::Not),
            (n(2), LinkType::Sym, NeighType::Sym),
        ],
    );
    assert_eq!(o.symmetric(SEC), vec![n(1)]);
    assert_eq!(o.mpr, vec![n(1)]);
    assert_eq!(o.table[&n(2)], (n(1), 2));
    assert_eq!(
        o.hello(SEC).links,
        vec![(n(1), LinkType::Sym, NeighType::Mpr)]
    );
    // Silent for the validity time: the link and its routes expire.
    let mut now = SEC;
    while !o.table.is_empty() {
        now = o.poll_timeout().unwrap();
        o.timeout(now, &mut Vec::new());
    }
    assert_eq!(now, 7 * SEC + 1);
    assert_eq!(o.stats.breaks_hello, 1);
}

#[test]
fn an_mpr_relays_a_tc_once_and_only_for_its_selectors() {
    let mut o = Olsr::new(
        n(0),
        Config {
            max_jitter: 0,
            ..Config::default()
        },
        Rng::new(1),
    );
    // 1 and 2 are symmetric neighbours; 1 selects this node as MPR, 2 does not.
    hello_from(&mut o, 0, 1, vec![(n(0), LinkType::Sym, NeighType::Mpr)]);
    hello_from(&mut o, 0, 2, vec![(n(0), LinkType::Sym, NeighType::Sym)]);
    let tc = |seq| Tc {
        orig: n(7),
        seq,
        ttl: 5,
        hops: 2,
        ansn: 3,
        vtime: 15 * SEC,
        advertised: vec![n(8)],
    };
    let relayed = |o: &mut Olsr, from: u32, t: Tc| {
        let mut out = Vec::new();
        o.receive(SEC, n(from), &packet(0, vec![Msg::Tc(t)]), &mut out);
        out.len()
    };
    assert_eq!(
        relayed(&mut o, 2, tc(1)),
        0,
        "from a non-selector: processed, not relayed"
    );
    assert_eq!(
        relayed(&mut o, 1, tc(1)),
        1,
        "the same message from a selector: relayed"
    );
    assert_eq!(
        relayed(&mut o, 1, tc(1)),
        0,
        "a duplicate is not relayed twice"
    );
    assert!(o.topology.contains_key(&(n(8), n(7))));
    // An older ANSN from the same originator is ignored (9.5).
    let mut old = tc(2);
    old.ansn = 2;
    old.advertised = vec![n(9)];
    relayed(&mut o, 1, old);
    assert!(!o.topology.contains_key(&(n(9), n(7))));
}

fn tc(orig: u32, advertised: usize) -> Msg {
    Msg::Tc(Tc {
        orig: n(orig),
        seq: 1,
        ttl: 255,
        hops: 0,
        ansn: 1,
        vtime: 15 * SEC,
        advertised: (0..advertised as u32).map(|i| n(100 + i)).collect(),
    })
}

#[test]
fn packet_and_message_sizes_follow_section_3_4() {
    // 3.4: packet header 4 bytes (length, sequence number); each message a 12-byte header
    // (type, Vtime, size, originator, TTL, hop count, sequence number) and its body.
    // 6.1 HELLO: 4 (reserved, Htime, willingness), then per link code 4 (code, reserved,
    // size) and 4 per neighbour address. 9.1 TC: 4 (ANSN, reserved), 4 per address.
    let hello = Msg::Hello(Hello {
        willingness: WILL_DEFAULT,
        vtime: 6 * SEC,
        htime: 2 * SEC,
        links: vec![
            (n(1), LinkType::Sym, NeighType::Mpr),
            (n(2), LinkType::Sym, NeighType::Sym),
            (n(3), LinkType::Sym, NeighType::Sym),
        ],
    });
    assert_eq!(hello.bytes(), 12 + 4 + 2 * 4 + 3 * 4);
    assert_eq!(tc(7, 3).bytes(), 12 + 4 + 3 * 4);
    let p = Packet {
        seq: 1,
        msgs: vec![hello.clone(), tc(7, 3)],
    };
    assert_eq!(p.bytes(), 4 + 36 + 28);
    // On the wire: with IP and UDP headers.
    assert_eq!(AnyMsg::Olsr(p).wire_size(), 28 + 68);
}

/// Timer calls until `until`, collecting the packets sent (time, packet).
fn drive(o: &mut Olsr, until: Time) -> Vec<(Time, Packet)> {
    let mut sent = Vec::new();
    loop {
        let t = o.poll_timeout().unwrap();
        if t > until {
            return sent;
        }
        let mut out = Vec::new();
        o.timeout(t, &mut out);
        for a in out {
            if let Act::Send {
                to,
                msg: AnyMsg::Olsr(p),
            } = a
            {
                assert_eq!(to, BROADCAST);
                sent.push((t, p));
            }
        }
    }
}

#[test]
fn messages_wait_a_jitter_below_maxjitter_and_leave_together() {
    let cfg = Config::default();
    assert_eq!(cfg.max_jitter, cfg.hello_interval / 4, "18: MAXJITTER");
    let mut o = Olsr::new(n(0), cfg.clone(), Rng::new(4));
    // 1 selects this node as MPR, so it originates TCs; HELLO and TC timers both tick at
    // 0, 10, 20 s... (HELLO every 2 s, TC every 5 s).
    let mut now = 0;
    let mut sent = Vec::new();
    while now < 40 * SEC {
        hello_from(&mut o, now, 1, vec![(n(0), LinkType::Sym, NeighType::Mpr)]);
        now += SEC;
        sent.extend(drive(&mut o, now));
    }
    let since_tick = |every: Time, t: Time| t - (t / every) * every;
    for (t, p) in &sent {
        // Sent within MAXJITTER of the tick that made its first message.
        let since = since_tick(2 * SEC, *t).min(since_tick(5 * SEC, *t));
        assert!(since < cfg.max_jitter, "{t} {p:?}");
    }
    // A TC is made at 0, 5, 10 s, ...: at 0, 10, 20, 30 s it waits with that tick's HELLO
    // and both leave in one packet; at 5, 15, 25, 35 s it goes alone.
    let kinds = |p: &Packet| p.msgs.iter().map(|m| m.kind()).collect::<Vec<_>>();
    let both = sent
        .iter()
        .filter(|(_, p)| kinds(p) == ["hello", "tc"])
        .count();
    let alone = sent.iter().filter(|(_, p)| kinds(p) == ["tc"]).count();
    assert_eq!((both, alone), (4, 4), "{sent:?}");
    assert_eq!(sent.len(), 20 + 4, "20 HELLO ticks in 40 s, 4 TCs alone");
    // 3.4: the packet sequence number goes up by one per packet.
    for (k, (_, p)) in sent.iter().enumerate() {
        assert_eq!(p.seq as usize, k + 1);
    }
    // Without bundling every message is a packet of its own.
    let mut o = Olsr::new(
        n(0),
        Config {
            bundle: false,
            ..cfg
        },
        Rng::new(4),
    );
    let mut now = 0;
    let mut single = Vec::new();
    while now < 40 * SEC {
        hello_from(&mut o, now, 1, vec![(n(0), LinkType::Sym, NeighType::Mpr)]);
        now += SEC;
        single.extend(drive(&mut o, now));
    }
    assert!(single.iter().all(|(_, p)| p.msgs.len() == 1));
    assert_eq!(single.len(), 20 + 8);
}

#[test]
fn a_relayed_tc_rides_with_the_messages_already_waiting() {
    let mut o = Olsr::new(n(0), Config::default(), Rng::new(9));
    hello_from(&mut o, 0, 1, vec![(n(0), LinkType::Sym, NeighType::Mpr)]);
    // The HELLO and TC made at 0 wait; a TC from the selector to relay arrives meanwhile.
    let mut out = Vec::new();
    o.timeout(0, &mut out);
    assert!(
        out.iter().all(|a| !matches!(a, Act::Send { .. })),
        "held: {out:?}"
    );
    let due = o.poll_timeout().unwrap();
    o.receive(due / 2, n(1), &packet(1, vec![tc(7, 2)]), &mut out);
    assert!(out.iter().all(|a| !matches!(a, Act::Send { .. })));
    let sent = drive(&mut o, SEC);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(
        sent[0].0, due,
        "the relay leaves at the time the first message drew"
    );
    let kinds: Vec<&str> = sent[0].1.msgs.iter().map(|m| m.kind()).collect();
    assert_eq!(kinds, ["hello", "tc", "tc"]);
}

#[test]
fn a_packet_never_exceeds_the_mtu() {
    let mut o = Olsr::new(
        n(0),
        Config {
            max_jitter: 0,
            ..Config::default()
        },
        Rng::new(1),
    );
    // Five TCs of 300 addresses (1216 bytes each) queued together: one per packet.
    for _ in 0..5 {
        o.enqueue(0, tc(7, 300));
    }
    let mut out = Vec::new();
    o.timeout(0, &mut out);
    let sizes: Vec<u32> = out
        .iter()
        .filter_map(|a| match a {
            Act::Send {
                msg: AnyMsg::Olsr(p),
                ..
            } => Some(p.bytes()),
            _ => None,
        })
        .collect();
    // The HELLO made at 0 joins the queue and rides with the last TC.
    assert_eq!(sizes.len(), 5, "{sizes:?}");
    assert_eq!(sizes[4], 4 + 1216 + 16);
    assert!(sizes.iter().all(|&s| s <= MAX_PACKET), "{sizes:?}");
}

#[test]
fn hysteresis_establishes_a_link_after_three_packets_and_loses_it_after_two_misses() {
    let cfg = Config {
        hysteresis: true,
        max_jitter: 0,
        ..Config::default()
    };
    let mut o = Olsr::new(n(0), cfg, Rng::new(1));
    let listed = vec![(n(0), LinkType::Sym, NeighType::Sym)];
    let hello = |o: &mut Olsr, t: Time, seq: u16| {
        let h = Hello {
            willingness: WILL_DEFAULT,
            vtime: 6 * SEC,
            htime: 2 * SEC,
            links: listed.clone(),
        };
        o.receive(t, n(1), &packet(seq, vec![Msg::Hello(h)]), &mut Vec::new());
    };
    // 14.3 stability rule: quality 0.5, 0.75, 0.875; above HYST_THRESHOLD_HIGH (0.8) only
    // at the third packet. Until then the link is pending: not symmetric, not advertised.
    hello(&mut o, 0, 1);
    hello(&mut o, 2 * SEC, 2);
    assert!(o.symmetric(2 * SEC).is_empty());
    assert!(
        o.hello(2 * SEC).links.is_empty(),
        "a pending link is not advertised"
    );
    hello(&mut o, 4 * SEC, 3);
    assert_eq!(o.symmetric(4 * SEC), vec![n(1)]);
    assert_eq!(o.hello(4 * SEC).links[0].1, LinkType::Sym);
    // Two packets lost (sequence numbers 4 and 5 never came): the instability rule twice,
    // 0.875 -> 0.4375 -> 0.21875 < HYST_THRESHOLD_LOW (0.3), then the stability rule for
    // this one: 0.609, between the thresholds. The link is lost: advertised LOST_LINK, not
    // used.
    hello(&mut o, 6 * SEC, 6);
    assert!(o.symmetric(6 * SEC).is_empty());
    assert_eq!(o.hello(6 * SEC).links[0].1, LinkType::Lost);
    // One more packet: 0.805 > 0.8, established again.
    hello(&mut o, 8 * SEC, 7);
    assert_eq!(o.symmetric(8 * SEC), vec![n(1)]);
}

#[test]
fn hysteresis_counts_a_silent_hello_interval_as_a_miss() {
    let cfg = Config {
        hysteresis: true,
        max_jitter: 0,
        neighb_hold_time: 60 * SEC,
        ..Config::default()
    };
    let mut o = Olsr::new(n(0), cfg, Rng::new(1));
    for k in 0..4u16 {
        let t = k as Time * 2 * SEC;
        drive(&mut o, t);
        let h = Hello {
            willingness: WILL_DEFAULT,
            vtime: 60 * SEC,
            htime: 2 * SEC,
            links: vec![(n(0), LinkType::Sym, NeighType::Sym)],
        };
        o.receive(
            t,
            n(1),
            &packet(k + 1, vec![Msg::Hello(h)]),
            &mut Vec::new(),
        );
    }
    // Quality 0.9375 at 6 s. Silent after: misses just after 8 s and 10 s (Htime 2 s) take
    // it to 0.234 < 0.3, long before the 60 s validity time would.
    let mut now = 6 * SEC;
    while !o.symmetric(now).is_empty() {
        now = o.poll_timeout().unwrap();
        o.timeout(now, &mut Vec::new());
    }
    assert_eq!(now, 10 * SEC + 1);
}
