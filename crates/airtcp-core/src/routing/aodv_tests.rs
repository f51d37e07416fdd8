//! AODV's rules against RFC 3561's text, one state machine at a time.

use super::*;
use crate::routing::Msg as AnyMsg;

pub(super) fn n(i: u32) -> NodeId {
    NodeId(i)
}

/// AODV at node `me` with HELLOs off, no jitter (so broadcasts go out at once).
pub(super) fn node(me: u32) -> Aodv {
    let cfg = Config {
        hello: false,
        max_jitter: 0,
        ..Config::default()
    };
    Aodv::new(n(me), cfg, Rng::new(1))
}

/// The AODV messages among `acts`, with where they went.
pub(super) fn sent(acts: &[Act]) -> Vec<(NodeId, Msg)> {
    acts.iter()
        .filter_map(|a| match a {
            Act::Send {
                to,
                msg: AnyMsg::Aodv(m),
            } => Some((*to, m.clone())),
            _ => None,
        })
        .collect()
}

pub(super) fn rreq(orig: u32, id: u32, dst: u32, ttl: u32, hops: u32) -> Rreq {
    Rreq {
        ttl,
        hops,
        id,
        dst: n(dst),
        dst_seq: 0,
        unknown_seq: true,
        gratuitous: false,
        orig: n(orig),
        orig_seq: 1,
    }
}

pub(super) fn recv(a: &mut Aodv, now: Time, from: u32, m: Msg) -> Vec<Act> {
    let mut out = Vec::new();
    a.receive(now, n(from), &AnyMsg::Aodv(m), &mut out);
    out
}

#[test]
fn sequence_numbers_compare_as_signed_32_bit_differences() {
    // 6.1: newer if (a - b) interpreted as a signed 32-bit integer is positive.
    assert!(seq_newer(5, 3));
    assert!(!seq_newer(3, 5));
    assert!(!seq_newer(7, 7));
    // Rollover: 1 follows 0xFFFFFFFF.
    assert!(seq_newer(1, u32::MAX));
    assert!(!seq_newer(u32::MAX, 1));
    // Exactly half the space apart: the difference is negative as i32.
    assert!(!seq_newer(0x8000_0000, 0));
}

fn entry(seq: u32, valid_seq: bool, valid: bool, hops: u32) -> Entry {
    Entry {
        seq,
        valid_seq,
        valid,
        hops,
        next: n(9),
        expires: 100,
        precursors: vec![],
    }
}

#[test]
fn route_updates_follow_section_6_2() {
    let e = entry(10, true, true, 3);
    // (i) a higher sequence number replaces, whatever the hop count.
    assert!(should_update(Some(&e), Some(11), 9));
    // (ii) equal numbers: only a shorter route replaces.
    assert!(should_update(Some(&e), Some(10), 2));
    assert!(!should_update(Some(&e), Some(10), 3));
    assert!(!should_update(Some(&e), Some(10), 4));
    // An older number never replaces.
    assert!(!should_update(Some(&e), Some(9), 1));
    // (iii) the entry's own number is unknown: new information replaces it.
    assert!(should_update(Some(&entry(10, false, true, 3)), Some(1), 5));
    // Information without a number does not replace a valid-numbered active route.
    assert!(!should_update(Some(&e), None, 1));
    // 6.7: an equal number replaces an inactive route.
    assert!(should_update(Some(&entry(10, true, false, 3)), Some(10), 5));
    assert!(should_update(None, None, 1));
}

#[test]
fn expanding_ring_ttls_and_waits_follow_section_6_4() {
    let c = Config::default();
    // TTL_START 1, TTL_INCREMENT 2, TTL_THRESHOLD 7, then NET_DIAMETER 35.
    let mut ttls = vec![c.ttl_start];
    while *ttls.last().unwrap() < c.net_diameter {
        ttls.push(c.next_ttl(*ttls.last().unwrap()));
    }
    assert_eq!(ttls, vec![1, 3, 5, 7, 35]);
    // RING_TRAVERSAL_TIME = 2 * NODE_TRAVERSAL_TIME (40 ms) * (TTL + TIMEOUT_BUFFER (2)).
    assert_eq!(c.rrep_wait(1, 0), 240 * MS);
    assert_eq!(c.rrep_wait(7, 0), 720 * MS);
    // NET_TRAVERSAL_TIME = 2 * 40 ms * 35 = 2.8 s, doubled at each retry (6.3).
    assert_eq!(c.rrep_wait(35, 0), 2800 * MS);
    assert_eq!(c.rrep_wait(35, 2), 11_200 * MS);
    assert_eq!(c.path_discovery_time(), 5600 * MS);
    assert_eq!(c.my_route_timeout(), 6000 * MS);
    assert_eq!(c.delete_period(), 15_000 * MS);
}

/// The RREQs' TTLs, their times in ms, their originator sequence numbers, and the drop of
/// the held packet (packet, cause, time).
type Discovered = (
    Vec<u32>,
    Vec<Time>,
    Vec<u32>,
    Option<(PacketId, DropCause, Time)>,
);

/// Runs `a`'s discovery for n5 until it gives the held packet up.
fn failed_discovery(a: &mut Aodv) -> Discovered {
    let mut out = Vec::new();
    let r = a.route(0, PacketId(7), n(0), n(5), &mut out);
    assert_eq!(r, Route::Held);
    let (mut ttls, mut times, mut seqs) = (vec![], vec![], vec![]);
    let mut now = 0;
    for _ in 0..20 {
        for (to, m) in sent(&out) {
            assert_eq!(to, BROADCAST);
            let Msg::Rreq(q) = m else { panic!("{m:?}") };
            ttls.push(q.ttl);
            times.push(now / MS);
            seqs.push(q.orig_seq);
            assert!(q.unknown_seq);
        }
        if let Some(Act::Drop { pkt, cause }) = out.iter().find(|x| matches!(x, Act::Drop { .. })) {
            return (ttls, times, seqs, Some((*pkt, *cause, now)));
        }
        out.clear();
        now = a.poll_timeout().expect("a discovery waits");
        a.timeout(now, &mut out);
    }
    (ttls, times, seqs, None)
}

/// A source with no route: holds the packet, sends RREQs of TTL 1, 3, 5, 7, then 35 with
/// RREQ_RETRIES (2) retries, each after its wait, then gives the packet up (`no_route`).
#[test]
fn a_failed_discovery_walks_the_ring_then_drops_the_held_packet() {
    let mut a = node(0);
    let (ttls, ms, seqs, dropped) = failed_discovery(&mut a);
    assert_eq!(ttls, vec![1, 3, 5, 7, 35, 35, 35]);
    assert_eq!(ms, vec![0, 240, 640, 1200, 1920, 4720, 10_320]);
    assert_eq!(
        dropped,
        Some((PacketId(7), DropCause::NoRoute, 21_520 * MS))
    );
    // 6.1: the originator's sequence number grows before each RREQ.
    assert!(seqs.windows(2).all(|w| seq_newer(w[1], w[0])), "{seqs:?}");
    assert_eq!(a.stats.discoveries, 1);
    assert_eq!(a.stats.discoveries_failed, 1);
}

/// ns-3's count (`--aodv ns3` sets rreq_retries = 1): its RreqRetries (2) RREQs at
/// NET_DIAMETER include the first, so it gives up after waiting NET_TRAVERSAL_TIME and twice
/// that, 8.4 s after the first RREQ at NET_DIAMETER where the RFC's two retries wait 19.6 s.
#[test]
fn one_rreq_retry_gives_up_after_two_rreqs_at_net_diameter() {
    let cfg = Config {
        hello: false,
        max_jitter: 0,
        rreq_retries: 1,
        ..Config::default()
    };
    let mut a = Aodv::new(n(0), cfg, Rng::new(1));
    let (ttls, ms, _, dropped) = failed_discovery(&mut a);
    assert_eq!(ttls, vec![1, 3, 5, 7, 35, 35]);
    assert_eq!(ms, vec![0, 240, 640, 1200, 1920, 4720]);
    assert_eq!(
        dropped,
        Some((PacketId(7), DropCause::NoRoute, 10_320 * MS))
    );
    assert_eq!(a.stats.discoveries_failed, 1);
}

#[test]
fn an_intermediate_node_relays_a_rreq_once_and_keeps_a_reverse_route() {
    let mut a = node(1);
    let out = recv(&mut a, 0, 0, Msg::Rreq(rreq(0, 1, 5, 4, 0)));
    let s = sent(&out);
    assert_eq!(s.len(), 1);
    let (to, Msg::Rreq(f)) = &s[0] else { panic!() };
    assert_eq!(*to, BROADCAST);
    assert_eq!((f.ttl, f.hops), (3, 1));
    // 6.5: the reverse route to the originator through the previous hop.
    let rev = a.active(n(0), 0).expect("reverse route");
    assert_eq!((rev.next, rev.hops, rev.seq), (n(0), 1, 1));
    // The same (originator, RREQ ID) again, through another neighbour: suppressed.
    assert!(sent(&recv(&mut a, MS, 2, Msg::Rreq(rreq(0, 1, 5, 4, 1)))).is_empty());
    // ... until PATH_DISCOVERY_TIME has passed.
    let later = a.cfg.path_discovery_time() + MS;
    assert_eq!(
        sent(&recv(&mut a, later, 2, Msg::Rreq(rreq(0, 1, 5, 4, 1)))).len(),
        1
    );
    // A RREQ whose TTL runs out here is not relayed.
    assert!(sent(&recv(&mut a, later, 0, Msg::Rreq(rreq(0, 2, 5, 1, 0)))).is_empty());
}

#[test]
fn the_destination_answers_with_its_own_sequence_number() {
    let mut d = node(5);
    d.own_seq = 4;
    // 6.6.1: asked for exactly its next number (5), it moves to it.
    let mut q = rreq(0, 1, 5, 3, 2);
    q.unknown_seq = false;
    q.dst_seq = 5;
    let s = sent(&recv(&mut d, 0, 4, Msg::Rreq(q)));
    let (to, Msg::Rrep(p)) = &s[0] else {
        panic!("{s:?}")
    };
    assert_eq!(*to, n(4), "unicast back to the previous hop");
    assert_eq!((p.dst, p.dst_seq, p.hops, p.orig), (n(5), 5, 0, n(0)));
    assert_eq!(p.lifetime, d.cfg.my_route_timeout());
    // Asked for an older number, it keeps its own.
    let mut q = rreq(0, 2, 5, 3, 2);
    q.unknown_seq = false;
    q.dst_seq = 3;
    let s = sent(&recv(&mut d, MS, 4, Msg::Rreq(q)));
    let (_, Msg::Rrep(p)) = &s[0] else { panic!() };
    assert_eq!(p.dst_seq, 5);
}

#[test]
fn an_intermediate_node_replies_only_from_a_fresh_enough_route() {
    let mut a = node(2);
    // An active route to 5 with sequence number 8, 2 hops, via 3.
    assert!(a.update(0, n(5), Some(8), 2, n(3), 3000 * MS));
    let mut q = rreq(0, 1, 5, 5, 1);
    q.unknown_seq = false;
    q.dst_seq = 9; // newer than what it knows: relay
    let s = sent(&recv(&mut a, 0, 1, Msg::Rreq(q.clone())));
    assert!(matches!(s[0], (_, Msg::Rreq(_))), "{s:?}");
    q.id = 2;
    q.dst_seq = 8; // as fresh as its route: answer
    let s = sent(&recv(&mut a, MS, 1, Msg::Rreq(q)));
    let (to, Msg::Rrep(p)) = &s[0] else {
        panic!("{s:?}")
    };
    assert_eq!((*to, p.dst_seq, p.hops), (n(1), 8, 2));
    // 6.6.2: precursors both ways.
    assert_eq!(a.table[&n(5)].precursors, vec![n(1)]);
    assert_eq!(a.table[&n(0)].precursors, vec![n(3)]);
}

#[test]
fn a_rrep_builds_the_forward_route_and_releases_held_packets() {
    let mut src = node(0);
    let mut out = Vec::new();
    assert_eq!(src.route(0, PacketId(1), n(0), n(3), &mut out), Route::Held);
    assert_eq!(
        src.route(MS, PacketId(2), n(0), n(3), &mut out),
        Route::Held
    );
    let rrep = Rrep {
        hops: 1,
        dst: n(3),
        dst_seq: 7,
        orig: n(0),
        lifetime: 6000 * MS,
        ack: false,
    };
    let out = recv(&mut src, 50 * MS, 1, Msg::Rrep(rrep.clone()));
    let fwd: Vec<&Act> = out
        .iter()
        .filter(|a| matches!(a, Act::Forward { .. }))
        .collect();
    assert_eq!(
        fwd,
        vec![
            &Act::Forward {
                pkt: PacketId(1),
                via: n(1)
            },
            &Act::Forward {
                pkt: PacketId(2),
                via: n(1)
            }
        ]
    );
    let e = src.active(n(3), 50 * MS).unwrap();
    assert_eq!((e.hops, e.seq, e.next), (2, 7, n(1)));
    assert!(!src.discovering(n(3)));
    // A relay forwards the RREP along the reverse route, one hop more.
    let mut relay = node(1);
    recv(&mut relay, 0, 0, Msg::Rreq(rreq(0, 1, 3, 5, 0)));
    let s = sent(&recv(
        &mut relay,
        MS,
        2,
        Msg::Rrep(Rrep { hops: 0, ..rrep }),
    ));
    let (to, Msg::Rrep(p)) = &s[0] else {
        panic!("{s:?}")
    };
    assert_eq!((*to, p.hops), (n(0), 1));
    assert_eq!(relay.table[&n(3)].precursors, vec![n(0)]);
}

#[test]
fn hellos_go_out_on_active_routes_and_their_loss_breaks_the_link() {
    let cfg = Config {
        max_jitter: 0,
        ..Config::default()
    };
    let mut a = Aodv::new(n(1), cfg, Rng::new(1));
    let mut out = Vec::new();
    // No active route: no HELLO (6.9).
    let t = a.poll_timeout().unwrap();
    a.timeout(t, &mut out);
    assert!(sent(&out).is_empty());
    // A HELLO from 2: a one-hop route, and 2's link watched.
    let hello = Rrep {
        hops: 0,
        dst: n(2),
        dst_seq: 1,
        orig: n(2),
        lifetime: 2000 * MS,
        ack: false,
    };
    recv(&mut a, t, 2, Msg::Rrep(hello));
    assert_eq!(a.active(n(2), t).unwrap().hops, 1);
    out.clear();
    let t2 = a.poll_timeout().unwrap();
    a.timeout(t2, &mut out);
    let s = sent(&out);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].1.kind(), "hello");
    // Nothing from 2 for ALLOWED_HELLO_LOSS * HELLO_INTERVAL: the link is lost.
    let mut now = t2;
    while a.stats.breaks_hello == 0 {
        now = a.poll_timeout().unwrap();
        a.timeout(now, &mut Vec::new());
    }
    assert_eq!(now, t + 2000 * MS);
    assert!(a.active(n(2), now).is_none());
}

#[test]
fn originated_rreqs_wait_for_rreq_ratelimit() {
    // 6.3: "A node SHOULD NOT originate more than RREQ_RATELIMIT RREQ messages per second."
    let cfg = Config {
        hello: false,
        max_jitter: 0,
        rreq_ratelimit: 2,
        ..Config::default()
    };
    let mut a = Aodv::new(n(0), cfg, Rng::new(1));
    let mut out = Vec::new();
    for (k, dst) in [5, 6, 7].into_iter().enumerate() {
        let r = a.route(k as Time * MS, PacketId(k as u32), n(0), n(dst), &mut out);
        assert_eq!(r, Route::Held);
    }
    let first: Vec<NodeId> = sent(&out)
        .iter()
        .map(|(_, m)| match m {
            Msg::Rreq(q) => q.dst,
            m => panic!("{m:?}"),
        })
        .collect();
    assert_eq!(first, vec![n(5), n(6)], "two within the second");
    assert!(a.discovering(n(7)));
    // The third waits until a second after the first; ring retries wait in turn.
    let mut times: Vec<(Time, NodeId)> = vec![(0, n(5)), (MS, n(6))];
    let mut now = 0;
    while now < 3000 * MS {
        out.clear();
        now = a.poll_timeout().unwrap();
        a.timeout(now, &mut out);
        for (_, m) in sent(&out) {
            let Msg::Rreq(q) = m else { panic!() };
            times.push((now, q.dst));
        }
    }
    for (k, &(t, _)) in times.iter().enumerate() {
        let within = times[k..].iter().filter(|x| x.0 < t + 1000 * MS).count();
        assert!(within <= 2, "3 RREQs within a second from {t}: {times:?}");
    }
    // The longest waiting goes first: 7 (since 2 ms), then the retries of 5 and 6 (since
    // 240 and 241 ms).
    assert_eq!(times[2], (1000 * MS, n(7)), "{times:?}");
    assert_eq!(times[3], (1001 * MS, n(5)), "{times:?}");
    assert_eq!(times[4], (2000 * MS, n(6)), "{times:?}");
}

#[test]
fn without_a_limit_rreqs_go_out_at_once() {
    let cfg = Config {
        hello: false,
        max_jitter: 0,
        rreq_ratelimit: 0,
        ..Config::default()
    };
    let mut a = Aodv::new(n(0), cfg, Rng::new(1));
    let mut out = Vec::new();
    for dst in 1..=12 {
        a.route(0, PacketId(dst), n(0), n(dst + 20), &mut out);
    }
    assert_eq!(sent(&out).len(), 12);
}

#[test]
fn hello_from_all_sends_hellos_without_an_active_route() {
    // RFC 3561 6.9 has only nodes on an active route say hello; `all` is ns-3's choice.
    for (from, hellos) in [(HelloFrom::Active, 0), (HelloFrom::All, 3)] {
        let cfg = Config {
            max_jitter: 0,
            hello_from: from,
            ..Config::default()
        };
        let mut a = Aodv::new(n(1), cfg, Rng::new(1));
        let mut count = 0;
        loop {
            let mut out = Vec::new();
            let now = a.poll_timeout().unwrap();
            if now > 3500 * MS {
                break;
            }
            a.timeout(now, &mut out);
            count += sent(&out)
                .iter()
                .filter(|(_, m)| m.kind() == "hello")
                .count();
        }
        assert_eq!(count, hellos, "{from:?}");
    }
}

/// Node 1 on the route 0 -> 1 -> 2 -> 3, having heard a HELLO from its upstream neighbour
/// 0 at time 0.
fn relay_with_upstream(data_liveness: bool) -> Aodv {
    let cfg = Config {
        max_jitter: 0,
        data_liveness,
        ..Config::default()
    };
    let mut a = Aodv::new(n(1), cfg, Rng::new(1));
    let hello = Rrep {
        hops: 0,
        dst: n(0),
        dst_seq: 1,
        orig: n(0),
        lifetime: 2000 * MS,
        ack: false,
    };
    recv(&mut a, 0, 0, Msg::Rrep(hello));
    a.update(0, n(3), Some(1), 2, n(2), 10_000 * MS);
    a
}

#[test]
fn data_from_a_neighbour_keeps_its_link_alive_with_data_liveness() {
    // 6.10: the link is lost when no packets, "Hello messages or otherwise", come from the
    // neighbour for ALLOWED_HELLO_LOSS * HELLO_INTERVAL (2 s here).
    for live in [false, true] {
        let mut a = relay_with_upstream(live);
        let mut out = Vec::new();
        // Data from 0 to 3 every 500 ms; 1's route back to 0 is through 0 itself.
        let mut now = 0;
        let mut broke_at = None;
        let mut k = 0;
        while now < 4000 * MS && broke_at.is_none() {
            let due = a.poll_timeout().unwrap().min((k + 1) * 500 * MS);
            now = due;
            a.timeout(now, &mut out);
            if a.stats.breaks_hello > 0 {
                broke_at = Some(now);
                break;
            }
            if now == (k + 1) * 500 * MS {
                k += 1;
                assert_eq!(
                    a.route(now, PacketId(k as u32), n(0), n(3), &mut out),
                    Route::Via(n(2))
                );
            }
        }
        if live {
            assert_eq!(broke_at, None, "data from 0 is a sign of life");
        } else {
            assert_eq!(broke_at, Some(2000 * MS), "only control packets count");
        }
    }
    // At the destination: a delivered packet counts for the hop back to its source.
    let mut d = relay_with_upstream(true);
    d.delivered(1900 * MS, n(0));
    let mut out = Vec::new();
    d.timeout(2000 * MS, &mut out);
    assert_eq!(d.stats.breaks_hello, 0);
    d.timeout(3900 * MS, &mut out);
    assert_eq!(d.stats.breaks_hello, 1);
}

#[test]
fn an_intermediate_reply_to_a_g_flagged_rreq_also_tells_the_destination() {
    // 6.6.3: the gratuitous RREP goes to the destination along the route to it, naming the
    // originator as its destination, with the hop count, sequence number and remaining
    // lifetime of the intermediate node's route to the originator.
    let mut a = node(2);
    a.update(0, n(5), Some(8), 2, n(3), 3000 * MS);
    let mut q = rreq(0, 1, 5, 5, 1);
    q.orig_seq = 4;
    q.gratuitous = true;
    let s = sent(&recv(&mut a, MS, 1, Msg::Rreq(q.clone())));
    assert_eq!(s.len(), 2, "{s:?}");
    let (to, Msg::Rrep(p)) = &s[0] else { panic!() };
    assert_eq!((*to, p.dst, p.orig), (n(1), n(5), n(0)));
    let (to, Msg::Rrep(g)) = &s[1] else { panic!() };
    let rev = &a.table[&n(0)];
    assert_eq!((*to, g.dst, g.orig), (n(3), n(0), n(5)));
    assert_eq!((g.hops, g.dst_seq), (2, 4));
    assert_eq!(g.lifetime, rev.expires - MS);
    // Without the G flag only the originator hears back.
    let mut b = node(2);
    b.update(0, n(5), Some(8), 2, n(3), 3000 * MS);
    q.gratuitous = false;
    assert_eq!(sent(&recv(&mut b, MS, 1, Msg::Rreq(q))).len(), 1);
}

#[test]
fn the_destination_takes_a_gratuitous_rrep_as_a_route_to_the_originator() {
    let mut d = node(5);
    let g = Rrep {
        hops: 2,
        dst: n(0),
        dst_seq: 4,
        orig: n(5),
        lifetime: 5000 * MS,
        ack: false,
    };
    let out = recv(&mut d, 0, 3, Msg::Rrep(g));
    assert!(sent(&out).is_empty(), "it ends here");
    let e = d.active(n(0), 0).unwrap();
    assert_eq!((e.next, e.hops, e.seq), (n(3), 3, 4));
}

#[test]
fn a_jittered_hello_interval_does_not_cancel_every_other_hello() {
    // 6.9: every HELLO_INTERVAL the node checks whether it broadcast within the last
    // interval; its own HELLO, sent one jittered interval ago, is not such a broadcast.
    let cfg = Config {
        max_jitter: 10 * MS,
        hello_from: HelloFrom::All,
        ..Config::default()
    };
    let mut a = Aodv::new(n(1), cfg, Rng::new(3));
    let mut times = Vec::new();
    loop {
        let now = a.poll_timeout().unwrap();
        if now > 10_500 * MS {
            break;
        }
        let mut out = Vec::new();
        a.timeout(now, &mut out);
        if !sent(&out).is_empty() {
            times.push(now);
        }
    }
    assert_eq!(times.len(), 10, "{times:?}");
    assert!(times.windows(2).all(|w| w[1] - w[0] < 1005 * MS));
    // A RREQ relayed in between stands in for the next HELLO (the RFC's check).
    let mut out = Vec::new();
    let t = times[9] + 500 * MS;
    a.receive(
        t,
        n(0),
        &AnyMsg::Aodv(Msg::Rreq(rreq(0, 1, 5, 3, 0))),
        &mut out,
    );
    let mut kinds = Vec::new();
    loop {
        let now = a.poll_timeout().unwrap();
        if now > times[9] + 2010 * MS {
            break;
        }
        let mut out = Vec::new();
        a.timeout(now, &mut out);
        kinds.extend(sent(&out).iter().map(|(_, m)| (now / MS, m.kind())));
    }
    // The relayed RREQ, no HELLO at the next check, a HELLO at the one after.
    assert_eq!(kinds.len(), 2, "{kinds:?}");
    assert_eq!(kinds[0].1, "rreq");
    assert_eq!(kinds[1].1, "hello");
    assert!(kinds[1].0 * MS > times[9] + 1995 * MS, "{kinds:?}");
}

#[test]
fn a_relay_passes_on_only_a_rrep_that_updated_its_route_unless_relay_every_rrep() {
    // 6.7: the RREP goes on toward the originator only if it created or updated the
    // forward route; a second reply to the same discovery with the same number and no fewer
    // hops stops at the relay. ns-3 passes every one on.
    for every in [false, true] {
        let cfg = Config {
            hello: false,
            max_jitter: 0,
            relay_every_rrep: every,
            ..Config::default()
        };
        let mut relay = Aodv::new(n(1), cfg, Rng::new(1));
        recv(&mut relay, 0, 0, Msg::Rreq(rreq(0, 1, 5, 5, 0)));
        let reply = |hops| Rrep {
            hops,
            dst: n(5),
            dst_seq: 7,
            orig: n(0),
            lifetime: 3000 * MS,
            ack: false,
        };
        let first = sent(&recv(&mut relay, MS, 2, Msg::Rrep(reply(2))));
        assert_eq!(
            first.len(),
            1,
            "the first reply creates the route: {first:?}"
        );
        // The same number over as many hops (another intermediate node's reply).
        let same = sent(&recv(&mut relay, 2 * MS, 3, Msg::Rrep(reply(2))));
        assert_eq!(
            same.len(),
            usize::from(every),
            "relay_every_rrep {every}: {same:?}"
        );
        assert_eq!(relay.table[&n(5)].next, n(2), "the route stays");
        // Fewer hops update the route, so that reply goes on either way.
        let shorter = sent(&recv(&mut relay, 3 * MS, 4, Msg::Rrep(reply(0))));
        assert_eq!(shorter.len(), 1, "{shorter:?}");
        let (to, Msg::Rrep(p)) = &shorter[0] else {
            panic!()
        };
        assert_eq!((*to, p.hops), (n(0), 1));
        assert_eq!(relay.table[&n(5)].next, n(4));
    }
}

#[test]
fn a_route_revived_by_hearing_the_neighbour_has_no_valid_number() {
    // 6.2: a control packet from a neighbour creates or updates a route to it "without a
    // valid sequence number". An invalid entry revived that way keeps its number only as a
    // lower bound: it must not answer a RREQ for the neighbour as if the number were fresh.
    let mut a = node(2);
    a.update(0, n(5), Some(8), 2, n(3), 3000 * MS);
    a.link_failed(MS, n(3), &mut Vec::new());
    assert_eq!((a.table[&n(5)].seq, a.table[&n(5)].valid_seq), (9, true));
    // A RERR from 5 itself: the route to it is active again, one hop, number unknown.
    recv(&mut a, 2 * MS, 5, Msg::Rerr(Rerr { dests: vec![] }));
    let e = a.active(n(5), 2 * MS).unwrap();
    assert_eq!((e.hops, e.next, e.valid_seq), (1, n(5), false));
    // So a RREQ for 5 (number unknown) is relayed, not answered.
    let s = sent(&recv(&mut a, 3 * MS, 1, Msg::Rreq(rreq(0, 1, 5, 5, 0))));
    assert!(matches!(s[..], [(_, Msg::Rreq(_))]), "{s:?}");
    // A HELLO from 5 gives the route 5's own number, valid again.
    let hello = Rrep {
        hops: 0,
        dst: n(5),
        dst_seq: 4,
        orig: n(5),
        lifetime: 2000 * MS,
        ack: false,
    };
    recv(&mut a, 4 * MS, 5, Msg::Rrep(hello));
    assert_eq!((a.table[&n(5)].seq, a.table[&n(5)].valid_seq), (4, true));
}

/// AODV at node `me` with the three ns-3 behaviours of unicast control messages.
fn ns3_node(me: u32) -> Aodv {
    let cfg = Config {
        hello: false,
        max_jitter: 0,
        hear_revives: false,
        control_routed: true,
        rrep_ack: true,
        ..Config::default()
    };
    Aodv::new(n(me), cfg, Rng::new(1))
}

/// Destination `dst`'s own RREP (number `seq`) to a RREQ of `orig`.
fn destination_reply(dst: u32, seq: u32, orig: u32) -> Msg {
    Msg::Rrep(Rrep {
        hops: 0,
        dst: n(dst),
        dst_seq: seq,
        orig: n(orig),
        lifetime: 3000 * MS,
        ack: false,
    })
}

fn hello_from(me: u32, seq: u32) -> Msg {
    Msg::Rrep(Rrep {
        hops: 0,
        dst: n(me),
        dst_seq: seq,
        orig: n(me),
        lifetime: 2000 * MS,
        ack: false,
    })
}

#[test]
fn without_hear_revives_a_numbered_neighbour_route_stays_as_it_is() {
    for revives in [true, false] {
        let mut a = node(2);
        a.cfg.hear_revives = revives;
        // A HELLO gives the route to 5 a valid number; then it times out (invalid).
        recv(&mut a, 0, 5, hello_from(5, 4));
        let e = a.table.get_mut(&n(5)).unwrap();
        e.valid = false;
        e.expires = 10_000 * MS;
        // A RERR from 5: RFC 3561 revives the route (no valid number); ns-3 updates a copy.
        recv(&mut a, MS, 5, Msg::Rerr(Rerr { dests: vec![] }));
        assert_eq!(
            a.active(n(5), MS).is_some(),
            revives,
            "hear_revives = {revives}"
        );
    }
    // An entry without a valid number (or of more hops) is replaced by a valid one-hop one.
    let mut a = node(2);
    a.cfg.hear_revives = false;
    a.update(0, n(5), Some(8), 3, n(3), 3000 * MS);
    recv(&mut a, MS, 5, Msg::Rerr(Rerr { dests: vec![] }));
    let e = a.active(n(5), MS).unwrap();
    assert_eq!((e.hops, e.next, e.valid_seq), (1, n(5), false));
}

#[test]
fn a_control_message_for_a_neighbour_without_a_route_waits_for_its_discovery() {
    let mut a = ns3_node(2);
    // The route to neighbour 1 has a number and is invalid; a RREQ it relays (from 0, for
    // 3) makes it valid without a number (ns-3's RecvRequest), and 2 relays the RREQ on.
    recv(&mut a, 0, 1, hello_from(1, 4));
    a.table.get_mut(&n(1)).unwrap().valid = false;
    let s = sent(&recv(&mut a, MS, 1, Msg::Rreq(rreq(0, 2, 3, 5, 1))));
    assert!(
        matches!(s[..], [(_, Msg::Rreq(ref q))] if q.dst == n(3)),
        "{s:?}"
    );
    let e = a.active(n(1), MS).expect("revived by the RREQ");
    assert_eq!((e.hops, e.valid_seq, e.expires), (1, false, 3001 * MS));
    // The route to 1 lapses before 3's reply comes back: the RREP for 0 waits and a RREQ
    // is flooded for 1.
    a.table.get_mut(&n(1)).unwrap().valid = false;
    let s = sent(&recv(&mut a, 2 * MS, 3, destination_reply(3, 9, 0)));
    assert!(
        matches!(s[..], [(_, Msg::Rreq(ref q))] if q.dst == n(1)),
        "{s:?}"
    );
    assert_eq!(a.stats.control_held, 1);
    // 1's reply to that RREQ: the held RREP goes out to 1.
    let s = sent(&recv(&mut a, 3 * MS, 1, destination_reply(1, 5, 2)));
    assert!(
        matches!(s[..], [(t, Msg::Rrep(ref p))] if t == n(1) && p.orig == n(0)),
        "{s:?}"
    );
    // With the RFC's direct sending nothing waits.
    let mut a = node(2);
    recv(&mut a, 0, 1, hello_from(1, 4));
    a.table.get_mut(&n(1)).unwrap().valid = false;
    let s = sent(&recv(&mut a, 2 * MS, 1, Msg::Rreq(rreq(0, 2, 2, 5, 1))));
    assert!(matches!(s[..], [(_, Msg::Rrep(_))]), "{s:?}");
}

#[test]
fn an_intermediate_reply_for_a_neighbour_asks_for_a_rrep_ack() {
    let mut a = ns3_node(2);
    // 2 knows 5 one hop away, with number 8; node 1 asks for 5.
    assert!(a.update(0, n(5), Some(8), 1, n(5), 3000 * MS));
    let s = sent(&recv(&mut a, MS, 1, Msg::Rreq(rreq(0, 1, 5, 5, 1))));
    let (to, Msg::Rrep(p)) = &s[0] else {
        panic!("{s:?}")
    };
    assert_eq!((*to, p.ack), (n(1), true));
    // Node 1 gets it: it acknowledges to 2 and passes the reply on without the flag.
    let mut b = ns3_node(1);
    assert!(b.update(0, n(0), Some(1), 1, n(0), 3000 * MS));
    assert!(b.update(0, n(2), Some(3), 1, n(2), 3000 * MS));
    let s = sent(&recv(&mut b, 2 * MS, 2, Msg::Rrep(p.clone())));
    assert!(
        matches!(s[..], [(t, Msg::RrepAck), (u, Msg::Rrep(ref f))]
        if t == n(2) && u == n(0) && !f.ack),
        "{s:?}"
    );
    // A reply for a destination two hops away asks for none; nor does the RFC default.
    let mut c = ns3_node(2);
    assert!(c.update(0, n(5), Some(8), 2, n(3), 3000 * MS));
    let s = sent(&recv(&mut c, MS, 1, Msg::Rreq(rreq(0, 1, 5, 5, 1))));
    assert!(matches!(s[..], [(_, Msg::Rrep(ref p))] if !p.ack), "{s:?}");
    let mut d = node(2);
    assert!(d.update(0, n(5), Some(8), 1, n(5), 3000 * MS));
    let s = sent(&recv(&mut d, MS, 1, Msg::Rreq(rreq(0, 1, 5, 5, 1))));
    assert!(matches!(s[..], [(_, Msg::Rrep(ref p))] if !p.ack), "{s:?}");
}

#[test]
fn rreq_defer_moves_the_hello_to_an_interval_after_the_last_rreq() {
    // ns-3's HelloTimerExpire: a RREQ sent or relayed since the last check moves the next
    // check to HELLO_INTERVAL after it; other broadcasts (a RERR) do not count. The HELLO
    // itself leaves within the broadcast jitter of the check.
    let cfg = Config {
        max_jitter: 10 * MS,
        hello_from: HelloFrom::All,
        hello_suppress: HelloSuppress::RreqDefer,
        ..Config::default()
    };
    let mut a = Aodv::new(n(1), cfg, Rng::new(3));
    let mut hellos = Vec::new();
    let run = |a: &mut Aodv, until: Time, hellos: &mut Vec<Time>| loop {
        let now = a.poll_timeout().unwrap();
        if now > until {
            break;
        }
        let mut out = Vec::new();
        a.timeout(now, &mut out);
        for (_, m) in sent(&out) {
            if m.kind() == "hello" {
                hellos.push(now);
            }
        }
    };
    run(&mut a, 3_500 * MS, &mut hellos);
    assert_eq!(hellos.len(), 3, "{hellos:?}");
    let first = a.next_hello - 4_000 * MS; // the checks stay one interval apart
    for (k, t) in hellos.iter().enumerate() {
        let check = first + (k as Time + 1) * 1_000 * MS;
        assert!(*t >= check && *t <= check + 10 * MS, "{hellos:?}");
    }
    // A RERR broadcast half an interval before the check leaves the HELLO where it was.
    a.broadcast(
        3_500 * MS,
        Msg::Rerr(Rerr {
            dests: vec![(n(7), 2)],
        }),
        false,
    );
    let before = hellos.len();
    run(&mut a, 4_020 * MS, &mut hellos);
    assert_eq!(hellos.len(), before + 1, "{hellos:?}");
    // A RREQ relayed 300 ms before the check: the HELLO moves to 1 s after the RREQ.
    let check = a.next_hello;
    let mut out = Vec::new();
    let relay_at = check - 300 * MS;
    run(&mut a, relay_at - MS, &mut hellos);
    a.receive(
        relay_at,
        n(0),
        &AnyMsg::Aodv(Msg::Rreq(rreq(0, 1, 5, 3, 0))),
        &mut out,
    );
    let before = hellos.len();
    run(&mut a, relay_at + 1_020 * MS, &mut hellos);
    assert_eq!(hellos.len(), before + 1, "{hellos:?}");
    let t = hellos[before];
    assert!(
        t >= relay_at + 1_000 * MS && t <= relay_at + 1_010 * MS,
        "HELLO at {t}, RREQ at {relay_at}"
    );
}

#[test]
fn forwarding_data_keeps_the_routes_to_both_neighbours_and_both_ends_alive() {
    // 6.2: a route used to forward data lives on for ACTIVE_ROUTE_TIMEOUT, as do the routes
    // to its next hop, to the source, and to the previous hop on the way back to the source.
    let mut a = node(1);
    a.update(0, n(5), Some(7), 2, n(3), 3000 * MS);
    a.update(0, n(3), None, 1, n(3), 1000 * MS);
    a.update(0, n(0), Some(4), 2, n(2), 3000 * MS);
    a.update(0, n(2), None, 1, n(2), 1000 * MS);
    let r = a.route(900 * MS, PacketId(1), n(0), n(5), &mut Vec::new());
    assert_eq!(r, Route::Via(n(3)));
    for d in [5, 3, 0, 2] {
        assert_eq!(a.table[&n(d)].expires, 3900 * MS, "route to n{d}");
    }
}

#[test]
fn without_rreq_revives_an_invalid_route_back_stays_invalid_and_still_carries_the_rrep() {
    for revives in [true, false] {
        let mut a = node(2);
        a.cfg.rreq_revives = revives;
        // An invalid route to 0 (kept for its number), then 0's RREQ for 3 through 1.
        a.update(0, n(0), Some(1), 4, n(4), 3000 * MS);
        let e = a.table.get_mut(&n(0)).unwrap();
        (e.valid, e.expires) = (false, 10_000 * MS);
        let mut q = rreq(0, 7, 3, 5, 0);
        q.orig_seq = 2;
        recv(&mut a, MS, 1, Msg::Rreq(q));
        let e = &a.table[&n(0)];
        assert_eq!((e.next, e.hops, e.seq), (n(1), 1, 2), "updated either way");
        // RFC 3561 6.5 makes it valid; ns-3's RecvRequest keeps the entry's flag.
        assert_eq!(
            a.active(n(0), MS).is_some(),
            revives,
            "rreq_revives = {revives}"
        );
        // 3's reply goes back to 0 through 1 either way (ns-3's RecvReply asks only that
        // the entry is not in search).
        let s = sent(&recv(&mut a, 2 * MS, 3, destination_reply(3, 9, 0)));
        assert!(
            matches!(s[..], [(to, Msg::Rrep(ref r))] if to == n(1) && r.orig == n(0)),
            "rreq_revives = {revives}: {s:?}"
        );
    }
    // A new entry is valid under both rules.
    let mut a = node(2);
    a.cfg.rreq_revives = false;
    recv(&mut a, MS, 1, Msg::Rreq(rreq(0, 7, 3, 5, 0)));
    assert!(a.active(n(0), MS).is_some());
}

#[test]
fn rreq_loop_drop_ignores_a_rreq_from_the_next_hop_toward_its_destination() {
    for drop in [false, true] {
        let mut a = node(2);
        a.cfg.rreq_loop_drop = drop;
        // 2 routes to 3 through 1; 0's RREQ for 3 comes from 1.
        a.update(0, n(3), Some(5), 2, n(1), 3000 * MS);
        let s = sent(&recv(&mut a, MS, 1, Msg::Rreq(rreq(0, 7, 3, 5, 0))));
        if drop {
            assert!(s.is_empty(), "neither answered nor relayed: {s:?}");
        } else {
            // RFC 3561 6.6.2: answered from the active route.
            assert!(
                matches!(s[..], [(to, Msg::Rrep(ref r))] if to == n(1) && r.dst == n(3)),
                "{s:?}"
            );
        }
        // The reverse route is made first in both.
        assert!(a.active(n(0), MS).is_some());
    }
}

#[test]
fn without_rreq_revives_a_searched_for_originator_stays_in_search() {
    let keeps = |a: &mut Aodv| a.cfg.rreq_revives = false;
    // 2 is discovering 0 when 0's own RREQ (for 3) comes through 1: ns-3's in-search entry
    // keeps its flag, so no route to 0 is active and 3's reply for 0 is not passed on.
    let mut a = node(2);
    keeps(&mut a);
    a.discover(0, n(0));
    recv(&mut a, MS, 1, Msg::Rreq(rreq(0, 7, 3, 5, 0)));
    assert!(a.active(n(0), MS).is_none());
    assert!(sent(&recv(&mut a, 2 * MS, 3, destination_reply(3, 9, 0))).is_empty());
    // RFC 3561: the RREQ makes the route valid and the reply goes back through 1.
    let mut a = node(2);
    a.discover(0, n(0));
    recv(&mut a, MS, 1, Msg::Rreq(rreq(0, 7, 3, 5, 0)));
    assert!(a.active(n(0), MS).is_some());
    let s = sent(&recv(&mut a, 2 * MS, 3, destination_reply(3, 9, 0)));
    assert!(matches!(s[..], [(to, Msg::Rrep(_))] if to == n(1)), "{s:?}");
    // A route that became active during the search (a HELLO from 0) stays active.
    let mut a = node(2);
    keeps(&mut a);
    a.discover(0, n(0));
    recv(&mut a, MS, 0, hello_from(0, 4));
    recv(&mut a, 2 * MS, 1, Msg::Rreq(rreq(0, 7, 3, 5, 0)));
    assert!(a.active(n(0), 2 * MS).is_some());
}

#[test]
fn without_rreq_revives_lifetimes_and_deleted_entries_follow_ns3() {
    let mut a = node(2);
    a.cfg.rreq_revives = false;
    // An invalid entry to be deleted at 10 s keeps that lifetime (the longer one).
    a.update(0, n(0), Some(1), 4, n(4), 3000 * MS);
    let e = a.table.get_mut(&n(0)).unwrap();
    (e.valid, e.expires) = (false, 10_000 * MS);
    recv(&mut a, MS, 1, Msg::Rreq(rreq(0, 7, 3, 5, 0)));
    assert_eq!(a.table[&n(0)].expires, 10_000 * MS);
    assert!(a.active(n(0), MS).is_none());
    // One past its deletion time is gone in ns-3: the next RREQ makes a new, valid route.
    let e = a.table.get_mut(&n(0)).unwrap();
    e.expires = 5 * MS;
    recv(&mut a, 6 * MS, 1, Msg::Rreq(rreq(0, 8, 3, 5, 0)));
    assert!(a.active(n(0), 6 * MS).is_some());
}

#[test]
fn rreq_loop_drop_counts_an_invalid_entry_too() {
    let mut a = node(2);
    a.cfg.rreq_loop_drop = true;
    a.update(0, n(3), Some(5), 2, n(1), 3000 * MS);
    let e = a.table.get_mut(&n(3)).unwrap();
    (e.valid, e.expires) = (false, 10_000 * MS);
    // Without the rule 2 relays the RREQ; with it, the invalid entry through 1 stops it.
    assert!(sent(&recv(&mut a, MS, 1, Msg::Rreq(rreq(0, 7, 3, 5, 0)))).is_empty());
    a.cfg.rreq_loop_drop = false;
    let s = sent(&recv(&mut a, MS, 1, Msg::Rreq(rreq(0, 8, 3, 5, 0))));
    assert!(matches!(s[..], [(_, Msg::Rreq(_))]), "{s:?}");
}

#[test]
fn without_rreq_revives_a_failed_discovery_deletes_its_entry() {
    // ns-3's RouteRequestTimerExpire deletes the searched-for route when it gives up; airtcp
    // keeps an entry (with what it knows of the number) under RFC 3561's rules.
    for revives in [true, false] {
        let mut a = Aodv::new(
            n(0),
            Config {
                hello: false,
                max_jitter: 0,
                rreq_revives: revives,
                ..Config::default()
            },
            Rng::new(1),
        );
        // An invalid entry for 5 (no number), kept long past the discovery.
        a.update(0, n(5), None, 2, n(4), MS);
        let e = a.table.get_mut(&n(5)).unwrap();
        (e.valid, e.expires) = (false, 100_000 * MS);
        let (_, _, _, dropped) = failed_discovery(&mut a);
        assert!(dropped.is_some());
        assert_eq!(
            a.table.contains_key(&n(5)),
            revives,
            "rreq_revives = {revives}"
        );
    }
}
