//! The routes flows' data packets take under dynamic routing (`trace.routes`): each node's
//! latest forwarding decision for a flow's data, and the path these decisions make from the
//! flow's source, recorded whenever it changes.
//!
//! Only decisions are logged (which neighbour a node handed the flow's data to, or that it
//! held or dropped it for lack of a route), so the cost is one short scan per routed data
//! packet, and nothing at all in runs without the trace or without a protocol. A path is
//! recorded when it is known end to end: it reaches the destination, or it ends at a node
//! whose latest decision for the flow was to hold or drop its data. While a packet is still
//! on its way through a node that has not decided yet (or the decisions make a loop for a
//! moment), nothing is recorded until the next decision completes the path.

use crate::engine::Time;
use crate::ids::{FlowId, NodeId};

/// Paths of every flow, over time.
#[derive(Clone, Debug, Default)]
pub struct PathLog {
    /// Per flow: (source, destination) of its data.
    ends: Vec<(NodeId, NodeId)>,
    /// Per flow: each node's latest decision for the flow's data (None: held or dropped).
    decided: Vec<Vec<(NodeId, Option<NodeId>)>>,
    /// Per flow: the path recorded last.
    last: Vec<Vec<NodeId>>,
    /// (time, flow, path) in time order.
    pub rows: Vec<(Time, FlowId, Vec<NodeId>)>,
}

impl PathLog {
    /// A log for flows with these (source, destination) pairs.
    pub fn new(ends: Vec<(NodeId, NodeId)>) -> PathLog {
        let n = ends.len();
        PathLog {
            ends,
            decided: vec![Vec::new(); n],
            last: vec![Vec::new(); n],
            rows: Vec::new(),
        }
    }

    /// `node` routed a packet of `flow` to `dst`: to neighbour `via`, or (None) held or
    /// dropped it. Packets toward the flow's source (TCP's ACKs) are not its data: ignored.
    pub fn decide(
        &mut self,
        now: Time,
        flow: FlowId,
        dst: NodeId,
        node: NodeId,
        via: Option<NodeId>,
    ) {
        let f = flow.idx();
        let Some(&(_, to)) = self.ends.get(f) else {
            return;
        };
        if dst != to {
            return;
        }
        let d = &mut self.decided[f];
        match d.iter_mut().find(|x| x.0 == node) {
            Some(x) if x.1 == via => return,
            Some(x) => x.1 = via,
            None => d.push((node, via)),
        }
        self.walk(now, f);
    }

    /// Follow the decisions from the source; record the path if it is complete and new.
    fn walk(&mut self, now: Time, f: usize) {
        let (src, dst) = self.ends[f];
        let d = &self.decided[f];
        let mut path = vec![src];
        let mut at = src;
        while at != dst {
            match d.iter().find(|x| x.0 == at) {
                None => return,
                Some((_, None)) => break,
                Some((_, Some(next))) => {
                    if path.contains(next) {
                        return;
                    }
                    path.push(*next);
                    at = *next;
                }
            }
        }
        if path != self.last[f] {
            self.last[f] = path.clone();
            self.rows.push((now, FlowId(f as u32), path));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(i: u32) -> NodeId {
        NodeId(i)
    }

    #[test]
    fn a_path_is_recorded_once_complete_and_again_when_it_changes() {
        let mut log = PathLog::new(vec![(n(0), n(3))]);
        let f = FlowId(0);
        log.decide(1, f, n(3), n(0), Some(n(1)));
        log.decide(2, f, n(3), n(1), Some(n(2)));
        assert!(
            log.rows.is_empty(),
            "the packet has not reached the destination yet"
        );
        log.decide(3, f, n(3), n(2), Some(n(3)));
        assert_eq!(log.rows, vec![(3, f, vec![n(0), n(1), n(2), n(3)])]);
        // Same decisions again: nothing new. An ACK's way back is not the flow's data.
        log.decide(4, f, n(3), n(0), Some(n(1)));
        log.decide(4, f, n(0), n(3), Some(n(2)));
        assert_eq!(log.rows.len(), 1);
        // The source goes around 1 by 4, which 2 hears: recorded once 4 has decided.
        log.decide(5, f, n(3), n(0), Some(n(4)));
        assert_eq!(log.rows.len(), 1);
        log.decide(6, f, n(3), n(4), Some(n(2)));
        assert_eq!(log.rows[1], (6, f, vec![n(0), n(4), n(2), n(3)]));
        // The source holds the data (no route): the path ends there.
        log.decide(7, f, n(3), n(0), None);
        assert_eq!(log.rows[2], (7, f, vec![n(0)]));
    }

    #[test]
    fn a_momentary_loop_is_not_recorded() {
        let mut log = PathLog::new(vec![(n(0), n(3))]);
        let f = FlowId(0);
        log.decide(1, f, n(3), n(0), Some(n(1)));
        log.decide(1, f, n(3), n(1), Some(n(0)));
        assert!(log.rows.is_empty());
        log.decide(2, f, n(3), n(1), Some(n(3)));
        assert_eq!(log.rows, vec![(2, f, vec![n(0), n(1), n(3)])]);
    }
}
