//! Static shortest-path routing by hop count. Ties go to the outgoing channel of the
//! lowest-numbered link, so routes never depend on chance.

use crate::ids::{ChanId, NodeId};
use std::collections::VecDeque;

const NONE: u32 = u32::MAX;

pub struct Routes {
    n: usize,
    /// next[node * n + dst] = outgoing channel toward dst.
    next: Vec<u32>,
}

impl Routes {
    /// `chans[c] = (from, to)` for every channel; `dsts` are the nodes routes are needed to.
    pub fn compute(n: usize, chans: &[(NodeId, NodeId)], dsts: &[NodeId]) -> Routes {
        let mut next = vec![NONE; n * n];
        // Incoming channels per node, for the reverse BFS from each destination.
        let mut incoming: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (c, (from, to)) in chans.iter().enumerate() {
            let _ = from;
            incoming[to.idx()].push(c);
        }
        let mut dist = vec![u32::MAX; n];
        let mut queue = VecDeque::new();
        for &d in dsts {
            dist.iter_mut().for_each(|x| *x = u32::MAX);
            dist[d.idx()] = 0;
            queue.clear();
            queue.push_back(d.idx());
            while let Some(v) = queue.pop_front() {
                for &c in &incoming[v] {
                    let u = chans[c].0.idx();
                    if dist[u] == u32::MAX {
                        dist[u] = dist[v] + 1;
                        queue.push_back(u);
                    }
                }
            }
            // For each node, the lowest-numbered channel leading one hop closer.
            for (c, (from, to)) in chans.iter().enumerate() {
                let (u, v) = (from.idx(), to.idx());
                if dist[u] != u32::MAX && dist[v] != u32::MAX && dist[v] + 1 == dist[u] {
                    let slot = &mut next[u * n + d.idx()];
                    if *slot == NONE {
                        *slot = c as u32;
                    }
                }
            }
        }
        Routes { n, next }
    }

    pub fn next_hop(&self, at: NodeId, dst: NodeId) -> Option<ChanId> {
        let c = self.next[at.idx() * self.n + dst.idx()];
        (c != NONE).then_some(ChanId(c))
    }

    /// Follow routes from src to dst; None if unreachable.
    pub fn path(
        &self,
        src: NodeId,
        dst: NodeId,
        chans: &[(NodeId, NodeId)],
    ) -> Option<Vec<ChanId>> {
        let mut at = src;
        let mut out = vec![];
        while at != dst {
            let c = self.next_hop(at, dst)?;
            out.push(c);
            at = chans[c.idx()].1;
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

    fn duplex(links: &[(u32, u32)]) -> Vec<(NodeId, NodeId)> {
        links
            .iter()
            .flat_map(|&(a, b)| [(NodeId(a), NodeId(b)), (NodeId(b), NodeId(a))])
            .collect()
    }

    #[test]
    fn dumbbell_routes() {
        // S0 - R2 - R3 - D1
        let chans = duplex(&[(0, 2), (2, 3), (3, 1)]);
        let r = Routes::compute(4, &chans, &[NodeId(0), NodeId(1)]);
        let p = r.path(NodeId(0), NodeId(1), &chans).unwrap();
        assert_eq!(p, vec![ChanId(0), ChanId(2), ChanId(4)]);
        let back = r.path(NodeId(1), NodeId(0), &chans).unwrap();
        assert_eq!(back, vec![ChanId(5), ChanId(3), ChanId(1)]);
    }

    #[test]
    fn ties_go_to_lowest_link_and_unreachable_is_none() {
        // Square 0-1-3 and 0-2-3: two equal paths; node 4 isolated.
        let chans = duplex(&[(0, 2), (0, 1), (2, 3), (1, 3)]);
        let r = Routes::compute(5, &chans, &[NodeId(3), NodeId(4)]);
        assert_eq!(r.next_hop(NodeId(0), NodeId(3)), Some(ChanId(0)));
        assert_eq!(r.path(NodeId(0), NodeId(4), &chans), None);
    }
}
