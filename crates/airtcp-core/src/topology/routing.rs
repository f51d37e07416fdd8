//! Static shortest-path routing by hop count. Routes are computed over adjacencies (device,
//! from node, to node): a point-to-point device has one, a device on a shared medium one per
//! neighbour it can reach. Ties go to the lowest-numbered adjacency, so routes never depend on
//! chance.
//!
//! Tables are kept per node and only toward destinations (the flows' endpoints). A node with a
//! single adjacency (a host on one link) sends everything it can reach over it, so it stores
//! that adjacency and the few destinations it cannot reach (itself among them); other nodes
//! keep a dense row over the destinations. A dumbbell of 1,000 hosts then needs kilobytes where
//! a node-by-node matrix needs 4 MB.

use crate::ids::{DevId, NodeId};
use std::collections::VecDeque;

const NONE: u32 = u32::MAX;

/// One way a node can reach a neighbour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Adjacency {
    pub dev: DevId,
    pub from: NodeId,
    pub to: NodeId,
}

/// A next hop: the device to send on and the node it reaches (`dev` NONE: no route). Kept
/// in the tables themselves, so a lookup reads no adjacency list.
#[derive(Clone, Copy, Debug)]
struct Hop {
    dev: u32,
    to: u32,
}

impl Hop {
    const NONE: Hop = Hop {
        dev: NONE,
        to: NONE,
    };

    /// The hop over adjacency `k` of `adj` (NONE: none).
    fn of(adj: &[Adjacency], k: u32) -> Hop {
        adj.get(k as usize).map_or(Hop::NONE, |a| Hop {
            dev: a.dev.0,
            to: a.to.0,
        })
    }
}

/// How one node finds its next hop.
#[derive(Clone, Copy, Debug)]
enum Table {
    /// Its only adjacency (as a hop), except toward the destinations listed in
    /// `unreachable[from..to]`.
    Single { hop: Hop, from: u32, to: u32 },
    /// Row `r` of `rows` (one entry per destination).
    Dense(u32),
}

pub struct Routes {
    n: usize,
    /// Number of distinct destinations (the length of a dense row).
    ndst: usize,
    /// Per node: its index among the destinations, or NONE.
    dst_index: Vec<u32>,
    table: Vec<Table>,
    /// Dense rows, `dsts` entries each: the hop toward each destination.
    rows: Vec<Hop>,
    /// Destinations a single-adjacency node cannot reach, by node, sorted.
    unreachable: Vec<u32>,
}

impl Routes {
    /// Routes toward each of `dsts` over `adj`.
    pub fn compute(n: usize, adj: Vec<Adjacency>, dsts: &[NodeId]) -> Routes {
        let mut dst_index = vec![NONE; n];
        let mut nd = 0usize;
        for d in dsts {
            if dst_index[d.idx()] == NONE {
                dst_index[d.idx()] = nd as u32;
                nd += 1;
            }
        }
        // Outgoing adjacencies per node decide its kind of table.
        let mut out_count = vec![0u32; n];
        let mut first_out = vec![NONE; n];
        for (k, a) in adj.iter().enumerate() {
            let u = a.from.idx();
            out_count[u] += 1;
            if first_out[u] == NONE {
                first_out[u] = k as u32;
            }
        }
        let mut dense_rows = 0u32;
        let mut row_of = vec![NONE; n];
        for u in 0..n {
            if out_count[u] > 1 {
                row_of[u] = dense_rows;
                dense_rows += 1;
            }
        }
        let mut rows = vec![Hop::NONE; dense_rows as usize * nd];
        // (node, destination index) pairs a single-adjacency node cannot reach.
        let mut misses: Vec<(u32, u32)> = Vec::new();

        // Incoming adjacencies per node, for the reverse BFS toward each column's base.
        let mut incoming: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (k, a) in adj.iter().enumerate() {
            incoming[a.to.idx()].push(k);
        }
        // A destination reached by a single adjacency (a host on one link) shares the column
        // of the node at that adjacency's far end: every path to it ends with that hop, so
        // elsewhere the next hops are those toward that node, the node itself takes the hop,
        // and the destination has none. A dumbbell of 1,000 hosts then needs two searches,
        // not 1,000. Columns are computed once per base, destinations grouped by it.
        let mut order: Vec<(u32, u32, u32)> = Vec::with_capacity(nd); // (base, index, dst)
        for (di, d) in dsts.iter().enumerate() {
            if dst_index[d.idx()] != di as u32 {
                continue; // a repeated destination
            }
            let into = &incoming[d.idx()];
            let base = match into[..] {
                [k] if adj[k].from != *d => adj[k].from.0,
                _ => d.0,
            };
            order.push((base, dst_index[d.idx()], d.0));
        }
        order.sort_unstable();
        let dense: Vec<usize> = (0..n).filter(|&u| row_of[u] != NONE).collect();
        let mut dist = vec![u32::MAX; n];
        let mut col = vec![NONE; n];
        let mut queue = VecDeque::new();
        // Single-adjacency nodes without a next hop toward the current base.
        let mut base_misses: Vec<usize> = Vec::new();
        let mut last_base = NONE;
        for &(base, di, d) in &order {
            let (b, d, di) = (base as usize, d as usize, di as usize);
            if base != last_base {
                last_base = base;
                dist.iter_mut().for_each(|x| *x = u32::MAX);
                col.iter_mut().for_each(|x| *x = NONE);
                dist[b] = 0;
                queue.clear();
                queue.push_back(b);
                while let Some(v) = queue.pop_front() {
                    for &k in &incoming[v] {
                        let u = adj[k].from.idx();
                        if dist[u] == u32::MAX {
                            dist[u] = dist[v] + 1;
                            queue.push_back(u);
                        }
                    }
                }
                // For each node, the lowest-numbered adjacency leading one hop closer.
                for (k, a) in adj.iter().enumerate() {
                    let (u, v) = (a.from.idx(), a.to.idx());
                    if dist[u] != u32::MAX
                        && dist[v] != u32::MAX
                        && dist[v] + 1 == dist[u]
                        && col[u] == NONE
                    {
                        col[u] = k as u32;
                    }
                }
                base_misses.clear();
                base_misses.extend((0..n).filter(|&u| out_count[u] == 1 && col[u] == NONE));
            }
            // The base's own hop to a destination behind it (the single adjacency); the
            // destination itself has no next hop toward itself.
            let last_hop = if b != d { incoming[d][0] as u32 } else { NONE };
            let hop = |u: usize| {
                if u == d {
                    NONE
                } else if u == b {
                    last_hop
                } else {
                    col[u]
                }
            };
            for &u in &dense {
                rows[row_of[u] as usize * nd + di] = Hop::of(&adj, hop(u));
            }
            // A node's own address needs no entry: `next_hop` answers it first.
            for &u in &base_misses {
                if u != d && hop(u) == NONE {
                    misses.push((u as u32, di as u32));
                }
            }
        }
        misses.sort_unstable();
        let mut table = Vec::with_capacity(n);
        let mut unreachable = Vec::with_capacity(misses.len());
        let mut m = 0;
        for u in 0..n {
            if row_of[u] != NONE {
                table.push(Table::Dense(row_of[u]));
                continue;
            }
            let from = unreachable.len() as u32;
            while m < misses.len() && misses[m].0 == u as u32 {
                unreachable.push(misses[m].1);
                m += 1;
            }
            table.push(Table::Single {
                hop: Hop::of(&adj, first_out[u]),
                from,
                to: unreachable.len() as u32,
            });
        }
        Routes {
            n,
            ndst: nd,
            dst_index,
            table,
            rows,
            unreachable,
        }
    }

    /// The device to send on and the next-hop node, from `at` toward `dst`.
    #[inline(always)]
    pub fn next_hop(&self, at: NodeId, dst: NodeId) -> Option<(DevId, NodeId)> {
        let di = self.dst_index[dst.idx()];
        if di == NONE || at == dst {
            return None;
        }
        let h = match self.table[at.idx()] {
            Table::Dense(r) => self.rows[r as usize * self.ndst + di as usize],
            // Most hosts reach every destination: no list to search.
            Table::Single { hop, from, to } if from == to => hop,
            Table::Single { hop, from, to } => {
                if self.unreachable[from as usize..to as usize]
                    .binary_search(&di)
                    .is_ok()
                {
                    Hop::NONE
                } else {
                    hop
                }
            }
        };
        (h.dev != NONE).then_some((DevId(h.dev), NodeId(h.to)))
    }

    /// The devices along the route from src to dst; None if unreachable.
    pub fn path(&self, src: NodeId, dst: NodeId) -> Option<Vec<DevId>> {
        let mut at = src;
        let mut out = vec![];
        while at != dst {
            let (d, to) = self.next_hop(at, dst)?;
            out.push(d);
            at = to;
            if out.len() > self.n {
                return None;
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn duplex(links: &[(u32, u32)]) -> Vec<Adjacency> {
        links
            .iter()
            .flat_map(|&(a, b)| [(a, b), (b, a)])
            .enumerate()
            .map(|(k, (a, b))| Adjacency {
                dev: DevId(k as u32),
                from: NodeId(a),
                to: NodeId(b),
            })
            .collect()
    }

    #[test]
    fn dumbbell_routes() {
        // S0 - R2 - R3 - D1
        let r = Routes::compute(
            4,
            duplex(&[(0, 2), (2, 3), (3, 1)]),
            &[NodeId(0), NodeId(1)],
        );
        let p = r.path(NodeId(0), NodeId(1)).unwrap();
        assert_eq!(p, vec![DevId(0), DevId(2), DevId(4)]);
        let back = r.path(NodeId(1), NodeId(0)).unwrap();
        assert_eq!(back, vec![DevId(5), DevId(3), DevId(1)]);
        assert_eq!(
            r.next_hop(NodeId(2), NodeId(1)),
            Some((DevId(2), NodeId(3)))
        );
    }

    #[test]
    fn ties_go_to_lowest_adjacency_and_unreachable_is_none() {
        // Square 0-1-3 and 0-2-3: two equal paths; node 4 isolated.
        let adj = duplex(&[(0, 2), (0, 1), (2, 3), (1, 3)]);
        let r = Routes::compute(5, adj, &[NodeId(3), NodeId(4)]);
        assert_eq!(
            r.next_hop(NodeId(0), NodeId(3)),
            Some((DevId(0), NodeId(2)))
        );
        assert_eq!(r.path(NodeId(0), NodeId(4)), None);
    }

    /// The per-node tables give the same next hops as a plain node-by-node search would: a
    /// star of hosts around two routers, one host cut off, lookups toward non-destinations.
    #[test]
    fn single_adjacency_hosts_and_dense_routers() {
        // Hosts 0..4 on router 5, hosts 6..8 on router 9, routers linked; host 10 isolated
        // with a link to nothing (no adjacency at all).
        let mut links = vec![(5, 9)];
        links.extend((0..5).map(|h| (h, 5)));
        links.extend((6..9).map(|h| (h, 9)));
        let adj = duplex(&links);
        let dsts: Vec<NodeId> = [0, 1, 2, 3, 4, 6, 7, 8, 10, 2].map(NodeId).to_vec();
        let r = Routes::compute(11, adj.clone(), &dsts);
        // Host 0 reaches host 7 through its one link, then the routers.
        let p = r.path(NodeId(0), NodeId(7)).unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(p[0], adj.iter().find(|a| a.from == NodeId(0)).unwrap().dev);
        // Nobody reaches the isolated host; it reaches nobody.
        assert_eq!(r.next_hop(NodeId(0), NodeId(10)), None);
        assert_eq!(r.next_hop(NodeId(5), NodeId(10)), None);
        assert_eq!(r.next_hop(NodeId(10), NodeId(0)), None);
        // A node is no next hop to itself; routers are not destinations.
        assert_eq!(r.next_hop(NodeId(0), NodeId(0)), None);
        assert_eq!(r.next_hop(NodeId(0), NodeId(5)), None);
        // Routers route toward every host.
        for h in [0, 1, 2, 3, 4, 6, 7, 8] {
            assert!(r.path(NodeId(5), NodeId(h)).is_some(), "{h}");
            assert!(r.path(NodeId(9), NodeId(h)).is_some(), "{h}");
        }
        assert_eq!(r.next_hop(NodeId(9), NodeId(1)).unwrap().1, NodeId(5));
    }

    #[test]
    fn a_shared_medium_device_reaches_several_neighbours() {
        // Node 0's one radio (device 0) hears nodes 1 and 2; node 2 reaches 3 over device 5.
        let a = |d, f, t| Adjacency {
            dev: DevId(d),
            from: NodeId(f),
            to: NodeId(t),
        };
        let adj = vec![
            a(0, 0, 1),
            a(0, 0, 2),
            a(1, 1, 0),
            a(2, 2, 0),
            a(5, 2, 3),
            a(6, 3, 2),
        ];
        let r = Routes::compute(4, adj, &[NodeId(3)]);
        assert_eq!(
            r.next_hop(NodeId(0), NodeId(3)),
            Some((DevId(0), NodeId(2)))
        );
        assert_eq!(r.path(NodeId(0), NodeId(3)), Some(vec![DevId(0), DevId(5)]));
    }

    /// The next hop the definition gives: a BFS from the destination itself, then the
    /// lowest-numbered adjacency one hop closer.
    fn reference(n: usize, adj: &[Adjacency], at: usize, dst: usize) -> Option<(DevId, NodeId)> {
        let mut dist = vec![u32::MAX; n];
        dist[dst] = 0;
        let mut queue = VecDeque::from([dst]);
        while let Some(v) = queue.pop_front() {
            for a in adj.iter().filter(|a| a.to.idx() == v) {
                if dist[a.from.idx()] == u32::MAX {
                    dist[a.from.idx()] = dist[v] + 1;
                    queue.push_back(a.from.idx());
                }
            }
        }
        adj.iter()
            .find(|a| {
                a.from.idx() == at
                    && dist[at] != u32::MAX
                    && dist[a.to.idx()] != u32::MAX
                    && dist[a.to.idx()] + 1 == dist[at]
            })
            .map(|a| (a.dev, a.to))
    }

    /// Destinations behind a single link share the column of the node across it: random
    /// graphs of routers, hosts on one link (some on two, some parallel links, some one-way
    /// adjacencies as on a shared medium, some isolated) give the definition's next hops.
    #[test]
    fn shared_columns_give_the_next_hops_of_the_definition() {
        let mut rng = crate::engine::Rng::new(7);
        for case in 0..200 {
            let routers = 1 + rng.below(6) as u32;
            let hosts = 1 + rng.below(12) as u32;
            let n = (routers + hosts) as usize;
            let mut links = vec![];
            for r in 1..routers {
                links.push((rng.below(r as u64) as u32, r));
            }
            for _ in 0..rng.below(4) {
                let (a, b) = (
                    rng.below(routers as u64) as u32,
                    rng.below(routers as u64) as u32,
                );
                if a != b {
                    links.push((a, b));
                }
            }
            for h in routers..routers + hosts {
                match rng.below(10) {
                    0 => {} // isolated
                    1 => {
                        // dual-homed
                        links.push((h, rng.below(routers as u64) as u32));
                        links.push((h, rng.below(routers as u64) as u32));
                    }
                    _ => links.push((h, rng.below(routers as u64) as u32)),
                }
            }
            let mut adj = duplex(&links);
            // A few one-way adjacencies (a radio heard in one direction only).
            for _ in 0..rng.below(3) {
                let (a, b) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
                if a != b {
                    adj.push(Adjacency {
                        dev: DevId(adj.len() as u32),
                        from: NodeId(a),
                        to: NodeId(b),
                    });
                }
            }
            let dsts: Vec<NodeId> = (routers..routers + hosts).map(NodeId).collect();
            let r = Routes::compute(n, adj.clone(), &dsts);
            for at in 0..n {
                for d in &dsts {
                    let want = if at == d.idx() {
                        None
                    } else {
                        reference(n, &adj, at, d.idx())
                    };
                    assert_eq!(
                        r.next_hop(NodeId(at as u32), *d),
                        want,
                        "case {case}: {at} -> {d:?}"
                    );
                }
            }
        }
    }
}
