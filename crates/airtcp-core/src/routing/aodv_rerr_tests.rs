//! AODV's route errors against RFC 3561 6.11, and ns-3's variants of them.

use super::super::tests::{n, node, recv, sent};
use super::super::*;

#[test]
fn a_link_break_invalidates_its_routes_and_sends_a_rerr_to_their_precursors() {
    let mut a = node(2);
    a.update(0, n(5), Some(8), 2, n(3), 3000 * MS);
    a.update(0, n(6), Some(4), 3, n(3), 3000 * MS);
    a.update(0, n(7), Some(1), 2, n(4), 3000 * MS);
    a.table.get_mut(&n(5)).unwrap().precursors = vec![n(1)];
    a.table.get_mut(&n(7)).unwrap().precursors = vec![n(1)];
    let mut out = Vec::new();
    a.link_failed(10 * MS, n(3), &mut out);
    // 6.11 (i): routes via 3 are invalid, their numbers incremented; only those with
    // precursors are listed; one precursor: unicast.
    let s = sent(&out);
    assert_eq!(s.len(), 1, "{s:?}");
    let (to, Msg::Rerr(e)) = &s[0] else { panic!() };
    assert_eq!(*to, n(1));
    assert_eq!(e.dests, vec![(n(5), 9)]);
    assert!(a.active(n(5), 10 * MS).is_none());
    assert!(a.active(n(6), 10 * MS).is_none());
    assert_eq!(a.table[&n(6)].seq, 5);
    assert!(
        a.active(n(7), 10 * MS).is_some(),
        "a route via another hop stays"
    );
    assert!(out.contains(&Act::LinkDown(n(3))));
    assert_eq!(a.stats.route_breaks, 1);
    // The invalid entry is kept DELETE_PERIOD for its number and hop count.
    assert_eq!(a.table[&n(5)].expires, 10 * MS + a.cfg.delete_period());
    // Two precursors: a broadcast.
    a.update(20 * MS, n(8), Some(1), 2, n(4), 3000 * MS);
    a.table.get_mut(&n(8)).unwrap().precursors = vec![n(1), n(9)];
    let mut out = Vec::new();
    a.link_failed(30 * MS, n(4), &mut out);
    let s = sent(&out);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].0, BROADCAST);
    let Msg::Rerr(e) = &s[0].1 else { panic!() };
    assert_eq!(e.dests, vec![(n(7), 2), (n(8), 2)]);
    // Without link feedback the MAC's give-up is ignored.
    let mut b = Aodv::new(
        n(2),
        Config {
            link_feedback: false,
            ..Config::default()
        },
        Rng::new(1),
    );
    b.update(0, n(5), Some(8), 2, n(3), 3000 * MS);
    let mut out = Vec::new();
    b.link_failed(MS, n(3), &mut out);
    assert!(out.is_empty());
    assert!(b.active(n(5), MS).is_some());
}

#[test]
fn a_rerr_invalidates_only_routes_through_its_sender_and_is_passed_on() {
    let mut a = node(1);
    a.update(0, n(5), Some(8), 3, n(2), 3000 * MS);
    a.update(0, n(6), Some(8), 3, n(4), 3000 * MS);
    a.table.get_mut(&n(5)).unwrap().precursors = vec![n(0)];
    let rerr = Rerr {
        dests: vec![(n(5), 9), (n(6), 9)],
    };
    let s = sent(&recv(&mut a, MS, 2, Msg::Rerr(rerr)));
    assert!(a.active(n(5), MS).is_none());
    assert_eq!(
        a.table[&n(5)].seq,
        9,
        "6.11: the number comes from the RERR"
    );
    assert!(a.active(n(6), MS).is_some(), "not through the sender");
    let (to, Msg::Rerr(e)) = &s[0] else {
        panic!("{s:?}")
    };
    assert_eq!((*to, e.dests.clone()), (n(0), vec![(n(5), 9)]));
}

#[test]
fn a_relay_without_a_route_drops_data_and_reports_it() {
    let mut a = node(1);
    let mut out = Vec::new();
    // Never had a route: no_route, and a RERR broadcast (6.11 case ii).
    let r = a.route(0, PacketId(1), n(0), n(5), &mut out);
    assert_eq!(r, Route::Drop(DropCause::NoRoute));
    assert!(matches!(sent(&out)[0], (BROADCAST, Msg::Rerr(_))));
    // Had one that broke: route_break.
    a.update(0, n(6), Some(3), 2, n(2), 3000 * MS);
    a.link_failed(MS, n(2), &mut Vec::new());
    let r = a.route(2 * MS, PacketId(2), n(0), n(6), &mut Vec::new());
    assert_eq!(r, Route::Drop(DropCause::RouteBreak));
}

#[test]
fn on_break_keep_leaves_the_mac_queue_alone() {
    for (b, down) in [
        (OnBreak::Drop, true),
        (OnBreak::Salvage, true),
        (OnBreak::Keep, false),
    ] {
        let cfg = Config {
            hello: false,
            max_jitter: 0,
            on_break: b,
            ..Config::default()
        };
        let mut a = Aodv::new(n(2), cfg, Rng::new(1));
        a.update(0, n(5), Some(8), 2, n(3), 3000 * MS);
        let mut out = Vec::new();
        a.link_failed(MS, n(3), &mut out);
        assert!(a.active(n(5), MS).is_none(), "the route breaks either way");
        assert_eq!(out.contains(&Act::LinkDown(n(3))), down, "{b:?}");
    }
}

#[test]
fn a_broken_route_takes_a_new_number_unless_seq_on_break_is_off() {
    // 6.11: a route made invalid by a break has its number incremented (one learned from a
    // RERR takes the RERR's), and the next discovery asks for that number, which a node
    // still holding the old route cannot answer: it relays. ns-3 keeps the old number, so
    // that node answers from its stale route.
    for (bump, asked) in [(true, 9), (false, 8)] {
        let cfg = Config {
            hello: false,
            max_jitter: 0,
            seq_on_break: bump,
            ..Config::default()
        };
        let mut src = Aodv::new(n(0), cfg.clone(), Rng::new(1));
        src.update(0, n(5), Some(8), 3, n(1), 3000 * MS);
        src.link_failed(MS, n(1), &mut Vec::new());
        assert_eq!(src.table[&n(5)].seq, asked, "seq_on_break {bump}");
        let mut out = Vec::new();
        assert_eq!(
            src.route(2 * MS, PacketId(1), n(0), n(5), &mut out),
            Route::Held
        );
        let s = sent(&out);
        let (_, Msg::Rreq(q)) = &s[0] else {
            panic!("{s:?}")
        };
        assert_eq!((q.dst_seq, q.unknown_seq), (asked, false));
        let mut old = node(2);
        old.update(0, n(5), Some(8), 2, n(3), 3000 * MS);
        let s = sent(&recv(&mut old, 3 * MS, 0, Msg::Rreq(q.clone())));
        match (&s[0].1, bump) {
            (Msg::Rreq(_), true) => {}
            (Msg::Rrep(p), false) => assert_eq!((p.dst_seq, p.hops), (8, 2)),
            _ => panic!("seq_on_break {bump}: {s:?}"),
        }
        // A RERR's number likewise replaces the known one only with seq_on_break.
        let mut b = Aodv::new(n(1), cfg, Rng::new(1));
        b.update(0, n(5), Some(8), 3, n(2), 3000 * MS);
        let rerr = Rerr {
            dests: vec![(n(5), 12)],
        };
        recv(&mut b, MS, 2, Msg::Rerr(rerr));
        assert!(b.active(n(5), MS).is_none());
        assert_eq!(b.table[&n(5)].seq, if bump { 12 } else { 8 });
    }
}

#[test]
fn toward_source_sends_a_rerr_per_packet_back_to_its_source() {
    // ns-3's SendRerrWhenNoRouteToForward: each packet a relay cannot forward sends a RERR
    // to the next hop back to its source (broadcast without a route there); RERR_RATELIMIT
    // holds it back once other RERRs spent it, but it does not count itself. RFC 3561
    // 6.11 (ii) (the default) counts every one: ten a second at most.
    for (mode, rerrs) in [
        (RerrNoRoute::Precursors, 10),
        (RerrNoRoute::TowardSource, 14),
    ] {
        let mut a = node(1);
        a.cfg.rerr_no_route = mode;
        a.cfg.seq_on_break = false; // as ns-3: the RERR carries the number the route had
        a.update(0, n(0), Some(4), 2, n(2), 3000 * MS);
        a.update(0, n(5), Some(7), 3, n(3), 3000 * MS);
        a.link_failed(MS, n(3), &mut Vec::new());
        let mut got = Vec::new();
        for k in 0..14 {
            let mut out = Vec::new();
            let r = a.route(2 * MS + k as Time * MS, PacketId(k), n(0), n(5), &mut out);
            assert_eq!(r, Route::Drop(DropCause::RouteBreak));
            got.extend(sent(&out));
        }
        assert_eq!(got.len(), rerrs, "{mode:?}");
        if mode == RerrNoRoute::TowardSource {
            for (to, m) in &got {
                let Msg::Rerr(e) = m else { panic!() };
                assert_eq!((*to, e.dests.clone()), (n(2), vec![(n(5), 7)]));
            }
            // Other RERRs spend the limit: none goes out while it is spent.
            for _ in 0..10 {
                assert!(a.rerr_allowed(20 * MS));
            }
            let mut out = Vec::new();
            a.route(30 * MS, PacketId(99), n(0), n(5), &mut out);
            assert!(sent(&out).is_empty());
            // Without a route back to the source it is broadcast.
            let mut out = Vec::new();
            a.route(1_100 * MS, PacketId(100), n(8), n(5), &mut out);
            assert!(matches!(sent(&out)[..], [(BROADCAST, Msg::Rerr(_))]));
        }
    }
}

#[test]
fn rerr_routes_all_reports_every_route_through_the_neighbour_at_every_give_up() {
    // ns-3's SendRerrWhenBreaksLinkToNextHop and RecvError report routes through the
    // broken neighbour or the RERR's sender whether valid or not, and keep the precursors;
    // RFC 3561 6.11 reports only the active routes a break invalidates, once.
    for (mode, first, again, passed_on) in [
        (RerrRoutes::Active, vec![(n(5), 7)], 0, 0),
        (RerrRoutes::All, vec![(n(3), 2), (n(5), 7)], 1, 1),
    ] {
        let mut a = node(1);
        a.cfg.rerr_routes = mode;
        a.cfg.seq_on_break = false;
        a.update(0, n(0), Some(4), 1, n(0), 3000 * MS);
        a.update(0, n(3), Some(2), 1, n(3), 3000 * MS);
        a.update(0, n(5), Some(7), 2, n(3), 3000 * MS);
        a.table.get_mut(&n(5)).unwrap().add_precursor(n(0));
        let mut out = Vec::new();
        a.link_failed(MS, n(3), &mut out);
        let s = sent(&out);
        let [(to, Msg::Rerr(e))] = &s[..] else {
            panic!("{mode:?}: {s:?}")
        };
        assert_eq!((*to, e.dests.clone()), (n(0), first), "{mode:?}");
        assert!(a.active(n(5), MS).is_none());
        // A queued frame for n3 given up later: ns-3 reports again.
        let mut out = Vec::new();
        a.link_failed(2 * MS, n(3), &mut out);
        assert_eq!(sent(&out).len(), again, "{mode:?}");
        // A RERR from n3 about the route already invalid: ns-3 passes it on.
        let rerr = Rerr {
            dests: vec![(n(5), 7)],
        };
        let s = sent(&recv(&mut a, 3 * MS, 3, Msg::Rerr(rerr)));
        assert_eq!(s.len(), passed_on, "{mode:?}");
    }
    // ns-3 counts only unicast RERRs against RERR_RATELIMIT: ten a second.
    let mut a = node(1);
    a.cfg.rerr_routes = RerrRoutes::All;
    a.update(0, n(0), Some(4), 1, n(0), 3000 * MS);
    a.update(0, n(3), Some(2), 1, n(3), 3000 * MS);
    a.table.get_mut(&n(3)).unwrap().add_precursor(n(0));
    let mut total = 0;
    for k in 0..15 {
        let mut out = Vec::new();
        a.link_failed(MS + k * MS, n(3), &mut out);
        total += sent(&out).len();
    }
    assert_eq!(total, 10);
}

/// When (ns) a node with `jitter_ns3` set sends what `act` starts, and to whom: at once, or
/// at its next timeout.
fn first_send(a: &mut Aodv, act: impl FnOnce(&mut Aodv, &mut Vec<Act>)) -> (Time, NodeId) {
    let mut out = Vec::new();
    act(a, &mut out);
    if let Some((to, _)) = sent(&out).first() {
        return (0, *to);
    }
    let t = a.poll_timeout().expect("a message waits for its jitter");
    let mut out = Vec::new();
    a.timeout(t, &mut out);
    let s = sent(&out);
    assert_eq!(s.len(), 1, "{s:?}");
    (t, s[0].0)
}

fn jittered_node(me: u32, seed: u64, ns3: bool) -> Aodv {
    let cfg = Config {
        hello: false,
        max_jitter: 10 * MS,
        rreq_ratelimit: 0,
        jitter_ns3: ns3,
        rerr_routes: RerrRoutes::All,
        ..Config::default()
    };
    Aodv::new(n(me), cfg, Rng::new(seed))
}

#[test]
fn ns3_jitter_is_whole_milliseconds_and_delays_originated_rreqs() {
    // ns-3's `GetInteger(0, 10)` milliseconds: the 11 whole values, nothing between.
    let mut a = jittered_node(0, 1, true);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..2000 {
        let j = a.draw_jitter();
        assert_eq!(j % MS, 0, "{j}");
        seen.insert(j / MS);
    }
    assert_eq!(
        seen.into_iter().collect::<Vec<_>>(),
        (0..=10).collect::<Vec<_>>()
    );
    // A RREQ the node originates waits for that jitter too (ns-3's `SendRequest`); without
    // the setting it leaves at once, and the RFC 5148 jitter is continuous.
    let mut delayed = 0;
    for seed in 1..=20 {
        let mut a = jittered_node(0, seed, true);
        let (t, to) = first_send(&mut a, |a, out| {
            assert_eq!(a.route(0, PacketId(1), n(0), n(5), out), Route::Held);
        });
        assert_eq!(to, BROADCAST);
        assert!(t % MS == 0 && t <= 10 * MS, "{t}");
        delayed += (t > 0) as u32;
        let mut b = jittered_node(0, seed, false);
        let (t, _) = first_send(&mut b, |b, out| {
            b.route(0, PacketId(1), n(0), n(5), out);
        });
        assert_eq!(t, 0);
        assert_ne!(b.draw_jitter() % MS, 0, "continuous");
    }
    assert!(delayed >= 15, "{delayed} of 20 delayed");
}

#[test]
fn ns3_jitter_delays_a_rerr_unicast_to_its_only_precursor() {
    // ns-3's `SendRerrMessage` schedules a RERR to a single precursor after the same jitter
    // as its broadcasts.
    let mut delayed = 0;
    for seed in 1..=20 {
        let mut a = jittered_node(2, seed, true);
        a.update(0, n(1), None, 1, n(1), 3000 * MS);
        a.update(0, n(3), None, 1, n(3), 3000 * MS);
        a.update(0, n(5), Some(8), 2, n(3), 3000 * MS);
        a.table.get_mut(&n(5)).unwrap().precursors = vec![n(1)];
        let (t, to) = first_send(&mut a, |a, out| a.link_failed(MS, n(3), out));
        assert_eq!(to, n(1));
        let t = t.saturating_sub(MS);
        assert!(t % MS == 0 && t <= 10 * MS, "{t}");
        delayed += (t > 0) as u32;
    }
    assert!(delayed >= 15, "{delayed} of 20 delayed");
}
