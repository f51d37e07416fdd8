//! AODV's route errors (RFC 3561 6.11): links that break, the routes that go with them, and
//! the RERRs that tell the precursors; with ns-3's variants of each (`rerr_no_route`,
//! `rerr_routes`).

use super::{Aodv, Msg, Rerr, RerrRoutes, MS};
use crate::engine::Time;
use crate::ids::NodeId;
use crate::routing::{Act, OnBreak};

impl Aodv {
    /// Whether RERR_RATELIMIT is spent at `now` (as many RERRs in the last second).
    pub(super) fn rerr_spent(&mut self, now: Time) -> bool {
        while self
            .rerr_times
            .front()
            .is_some_and(|&t| t + 1000 * MS <= now)
        {
            self.rerr_times.pop_front();
        }
        self.rerr_times.len() >= self.cfg.rerr_ratelimit as usize
    }

    /// Whether one more RERR may go out at `now` (at most `rerr_ratelimit` per second); if
    /// so it counts.
    pub(super) fn rerr_allowed(&mut self, now: Time) -> bool {
        if self.rerr_spent(now) {
            return false;
        }
        self.rerr_times.push_back(now);
        true
    }

    pub(super) fn on_rerr(&mut self, now: Time, from: NodeId, m: &Rerr, out: &mut Vec<Act>) {
        if self.cfg.rerr_routes == RerrRoutes::All {
            // ns-3's RecvError: every listed route through the sender, valid or not, is
            // reported on with the RERR's numbers; the valid ones become invalid.
            let listed: Vec<(NodeId, u32)> = m
                .dests
                .iter()
                .filter(|(d, _)| self.table.get(d).is_some_and(|e| e.next == from))
                .copied()
                .collect();
            let mut pre = Vec::new();
            for &(d, seq) in &listed {
                self.invalidate(now, d, Some(seq), Some(from));
                pre.extend(self.table[&d].precursors.iter().copied());
            }
            self.send_rerr_all(now, listed, pre, out);
            return;
        }
        // 6.11 (iii): routes through the sender to the listed destinations are invalid,
        // with the sequence numbers the RERR gives.
        let mut lost = Vec::new();
        for &(d, seq) in &m.dests {
            lost.extend(self.invalidate(now, d, Some(seq), Some(from)));
        }
        self.send_rerr(now, lost, out);
    }

    /// `RerrRoutes::All`: ns-3's `SendRerrMessage` of `dests` to `pre`.
    pub(super) fn send_rerr_all(
        &mut self,
        now: Time,
        dests: Vec<(NodeId, u32)>,
        mut pre: Vec<NodeId>,
        out: &mut Vec<Act>,
    ) {
        pre.sort();
        pre.dedup();
        if dests.is_empty() || pre.is_empty() || self.rerr_spent(now) {
            return;
        }
        let rerr = Msg::Rerr(Rerr { dests });
        if let [one] = pre[..] {
            if self.active(one, now).is_some() {
                self.rerr_times.push_back(now);
                if self.cfg.jitter_ns3 {
                    self.send_jittered(now, one, rerr);
                } else {
                    self.send(now, one, rerr, out);
                }
            }
        } else if pre.iter().any(|&p| self.active(p, now).is_some()) {
            self.broadcast(now, rerr, true);
        }
    }

    /// Invalidate the active route to `d` (only if it goes through `via`, when given); its
    /// sequence number becomes `seq`, or is incremented (6.11 cases i, ii; unchanged
    /// without `seq_on_break`). Returns the RERR entry and precursors if the route was active.
    pub(super) fn invalidate(
        &mut self,
        now: Time,
        d: NodeId,
        seq: Option<u32>,
        via: Option<NodeId>,
    ) -> Option<((NodeId, u32), Vec<NodeId>)> {
        let delete = self.cfg.delete_period();
        let e = self.table.get_mut(&d)?;
        if !e.valid || via.is_some_and(|v| e.next != v) {
            return None;
        }
        e.valid = false;
        if self.cfg.seq_on_break {
            e.seq = seq.unwrap_or(e.seq.wrapping_add(1));
        }
        e.expires = now + delete;
        self.stats.routes_invalidated += 1;
        let pre = if self.cfg.rerr_routes == RerrRoutes::All {
            e.precursors.clone()
        } else {
            std::mem::take(&mut e.precursors)
        };
        Some(((d, e.seq), pre))
    }

    /// Send a RERR for the `lost` destinations to their precursors: unicast to a single
    /// one, broadcast to several (6.11); none if nobody used the routes.
    pub(super) fn send_rerr(
        &mut self,
        now: Time,
        lost: Vec<((NodeId, u32), Vec<NodeId>)>,
        out: &mut Vec<Act>,
    ) {
        let mut dests = Vec::new();
        let mut to: Vec<NodeId> = Vec::new();
        for (d, pre) in lost {
            if pre.is_empty() {
                continue;
            }
            dests.push(d);
            for p in pre {
                if !to.contains(&p) {
                    to.push(p);
                }
            }
        }
        if to.is_empty() || !self.rerr_allowed(now) {
            return;
        }
        match to[..] {
            [] => {}
            [one] => self.send(now, one, Msg::Rerr(Rerr { dests }), out),
            _ => self.broadcast(now, Msg::Rerr(Rerr { dests }), true),
        }
    }

    /// ns-3's `SendRerrWhenNoRouteToForward`: a RERR for `dst` (its number if valid, else 0)
    /// to the next hop back to the packet's source, broadcast without a route there; it
    /// waits for nothing, and is held back while RERR_RATELIMIT is spent but not counted.
    pub(super) fn rerr_toward_source(
        &mut self,
        now: Time,
        src: NodeId,
        dst: NodeId,
        out: &mut Vec<Act>,
    ) {
        if self.rerr_spent(now) {
            return;
        }
        let seq = self
            .table
            .get(&dst)
            .filter(|e| e.valid_seq)
            .map_or(0, |e| e.seq);
        let rerr = Msg::Rerr(Rerr {
            dests: vec![(dst, seq)],
        });
        match self.active(src, now).map(|e| e.next) {
            Some(back) => self.send(now, back, rerr, out),
            None => {
                self.broadcast(now, rerr, false);
                self.flush_outbox(now, out);
            }
        }
    }

    /// The link to neighbour `nb` is gone (6.11 case i): every active route through it is
    /// invalid, a RERR goes to their precursors, and the MAC's queue for it is handled.
    pub fn link_broken(&mut self, now: Time, nb: NodeId, out: &mut Vec<Act>) {
        self.stats.route_breaks += 1;
        self.neighbours.remove(&nb);
        if self.cfg.rerr_routes == RerrRoutes::All {
            self.link_broken_all(now, nb, out);
            if self.cfg.on_break != OnBreak::Keep {
                out.push(Act::LinkDown(nb));
            }
            return;
        }
        let through: Vec<NodeId> = self
            .table
            .iter()
            .filter(|(_, e)| e.valid && e.next == nb)
            .map(|(d, _)| *d)
            .collect();
        let mut lost = Vec::new();
        for d in through {
            lost.extend(self.invalidate(now, d, None, None));
        }
        self.send_rerr(now, lost, out);
        if self.cfg.on_break != OnBreak::Keep {
            out.push(Act::LinkDown(nb));
        }
    }

    /// `RerrRoutes::All`: ns-3's `SendRerrWhenBreaksLinkToNextHop`: nothing without an
    /// entry for the neighbour; else its entry and every route through it (valid or not)
    /// are reported to all their precursors, and the valid ones become invalid.
    pub(super) fn link_broken_all(&mut self, now: Time, nb: NodeId, out: &mut Vec<Act>) {
        if !self.table.contains_key(&nb) {
            return;
        }
        let through: Vec<NodeId> = self
            .table
            .iter()
            .filter(|(d, e)| **d == nb || e.next == nb)
            .map(|(d, _)| *d)
            .collect();
        let mut dests = Vec::new();
        let mut pre = Vec::new();
        for d in through {
            self.invalidate(now, d, None, None);
            let e = &self.table[&d];
            dests.push((d, e.seq));
            pre.extend(e.precursors.iter().copied());
        }
        self.send_rerr_all(now, dests, pre, out);
    }
}

#[cfg(test)]
#[path = "aodv_rerr_tests.rs"]
mod tests;
