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
        links,
    };
    o.receive(now, n(from), &AnyMsg::Olsr(Msg::Hello(h)), &mut Vec::new());
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
        o.receive(SEC, n(from), &AnyMsg::Olsr(Msg::Tc(t)), &mut out);
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
