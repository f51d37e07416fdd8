//! Static shortest-path routing by hop count. Routes are computed over adjacencies (device,
//! from node, to node): a point-to-point device has one, a device on a shared medium one per
//! neighbour it can reach. Ties go to the lowest-numbered adjacency, so routes never depend on
//! chance.

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

pub struct Routes {
    n: usize,
    adj: Vec<Adjacency>,
    /// next[node * n + dst] = adjacency toward dst.
    next: Vec<u32>,
}

impl Routes {
    /// Routes toward each of `dsts` over `adj`.
    pub fn compute(n: usize, adj: Vec<Adjacency>, dsts: &[NodeId]) -> Routes {
        let mut next = vec![NONE; n * n];
        // Incoming adjacencies per node, for the reverse BFS from each destination.
        let mut incoming: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (k, a) in adj.iter().enumerate() {
            incoming[a.to.idx()].push(k);
        }
        let mut dist = vec![u32::MAX; n];
        let mut queue = VecDeque::new();
        for &d in dsts {
            dist.iter_mut().for_each(|x| *x = u32::MAX);
            dist[d.idx()] = 0;
            queue.clear();
            queue.push_back(d.idx());
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
                if dist[u] != u32::MAX && dist[v] != u32::MAX && dist[v] + 1 == dist[u] {
                    let slot = &mut next[u * n + d.idx()];
                    if *slot == NONE {
                        *slot = k as u32;
                    }
                }
            }
        }
        Routes { n, adj, next }
    }

    /// The device to send on and the next-hop node, from `at` toward `dst`.
    #[inline]
    pub fn next_hop(&self, at: NodeId, dst: NodeId) -> Option<(DevId, NodeId)> {
        let k = self.next[at.idx() * self.n + dst.idx()];
        (k != NONE).then(|| {
            let a = self.adj[k as usize];
            (a.dev, a.to)
        })
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
}
