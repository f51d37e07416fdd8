//! AODV, Ad hoc On-Demand Distance Vector routing (RFC 3561).
//!
//! A source without a route buffers its packets and floods a route request (RREQ) with an
//! expanding ring search (6.4); the destination, or a node with a fresh enough route, answers
//! with a route reply (RREP) unicast back along the reverse route (6.6, 6.7). Destination
//! sequence numbers order route information (6.1, 6.2). A broken link (the MAC gave up on a
//! frame, or HELLOs stopped: 6.9, 6.10) invalidates the routes through it, and a route error
//! (RERR) goes to the precursors that used them (6.11). Originated RREQs are limited to
//! RREQ_RATELIMIT per second (6.3); gratuitous RREPs (6.6.3), data packets as signs of life
//! (6.10), RREP-ACKs (6.8) and ns-3's departures from the RFC are settings (aodv_config.rs).
//! Messages and table entries are in aodv_msgs.rs, route errors in aodv_rerr.rs. Not
//! modelled: local repair (6.12), blacklists (6.8), and reboot handling (6.13).

use super::{jitter, Act, Counters, Held, OnBreak, Protocol, Route};
use crate::device::BROADCAST;
use crate::engine::{Rng, Time};
use crate::ids::{NodeId, PacketId};
use crate::packet::DropCause;
use std::collections::BTreeMap;

#[path = "aodv_config.rs"]
mod config;
pub use config::{Config, HelloFrom, HelloSuppress, RerrNoRoute, RerrRoutes};

const MS: Time = 1_000_000;

#[path = "aodv_msgs.rs"]
mod msgs;
pub use msgs::{seq_newer, should_update, Entry, Msg, Rerr, Rrep, Rreq};

#[path = "aodv_rerr.rs"]
mod rerr;

/// An ongoing route discovery (6.3, 6.4).
#[derive(Clone, Debug)]
struct Discovery {
    ttl: u32,
    /// RREQs sent at NET_DIAMETER so far beyond the first.
    retries: u32,
    deadline: Time,
    /// The RREQ with `ttl` waits for RREQ_RATELIMIT (sent at `deadline`) ...
    deferred: bool,
    /// ... since this time: the longest waiting goes first.
    wanted: Time,
}

/// AODV at one node.
pub struct Aodv {
    pub me: NodeId,
    pub cfg: Config,
    /// Hosts this node reaches over its other (wired) devices: it answers RREQs for them
    /// and discovers routes for their packets, as a gateway does for its subnet.
    pub attached: Vec<NodeId>,
    pub own_seq: u32,
    rreq_id: u32,
    pub table: BTreeMap<NodeId, Entry>,
    /// (originator, RREQ ID) seen, until when (duplicate suppression for
    /// PATH_DISCOVERY_TIME, 6.3).
    seen: Vec<(NodeId, u32, Time)>,
    discoveries: BTreeMap<NodeId, Discovery>,
    held: Held,
    /// `control_routed`: unicast control messages waiting for a route to the neighbour
    /// they are for: (since, to, message).
    held_ctrl: Vec<(Time, NodeId, Msg)>,
    /// Messages waiting for their jitter: (due, unicast destination or None to broadcast,
    /// message), in order sent.
    outbox: Vec<(Time, Option<NodeId>, Msg)>,
    /// Neighbours heard from (HELLO or any control message): when their link counts as lost.
    neighbours: BTreeMap<NodeId, Time>,
    next_hello: Time,
    /// When it last broadcast something other than a HELLO.
    last_broadcast: Option<Time>,
    /// `HelloSuppress::RreqDefer`: when it last sent or relayed a RREQ since the last check.
    last_rreq: Option<Time>,
    /// When the RERRs of the last second went out (RERR_RATELIMIT, 6.11).
    rerr_times: std::collections::VecDeque<Time>,
    /// When the RREQs originated in the last second went out (RREQ_RATELIMIT, 6.3).
    rreq_times: std::collections::VecDeque<Time>,
    rng: Rng,
    pub stats: Counters,
}

impl Aodv {
    pub fn new(me: NodeId, cfg: Config, rng: Rng) -> Aodv {
        let held = Held::new(cfg.buffer_packets, cfg.buffer_timeout);
        let mut a = Aodv {
            me,
            attached: Vec::new(),
            own_seq: 0,
            rreq_id: 0,
            table: BTreeMap::new(),
            seen: Vec::new(),
            discoveries: BTreeMap::new(),
            held,
            held_ctrl: Vec::new(),
            outbox: Vec::new(),
            neighbours: BTreeMap::new(),
            next_hello: 0,
            last_broadcast: None,
            last_rreq: None,
            rerr_times: Default::default(),
            rreq_times: Default::default(),
            rng,
            stats: Counters::default(),
            cfg,
        };
        // HELLOs start after a jitter so that nodes are not in step.
        a.next_hello = a.cfg.hello_interval + jitter(&mut a.rng, a.cfg.max_jitter);
        a
    }

    /// The active route to `dst` at `now`, if any.
    pub fn active(&self, dst: NodeId, now: Time) -> Option<&Entry> {
        self.table.get(&dst).filter(|e| e.valid && e.expires > now)
    }

    /// The entry for `dst` that ns-3's table would still hold at `now`: any but an invalid
    /// one past its DELETE_PERIOD (ns-3 purges before every lookup; airtcp at its timeout).
    fn held_entry(&self, dst: NodeId, now: Time) -> Option<&Entry> {
        self.table.get(&dst).filter(|e| e.valid || e.expires > now)
    }

    /// When an originated RREQ may go out at or after `now` (at most `rreq_ratelimit` in any
    /// second); None without a limit.
    fn rreq_free_at(&mut self, now: Time) -> Option<Time> {
        let limit = self.cfg.rreq_ratelimit as usize;
        if limit == 0 {
            return None;
        }
        while self
            .rreq_times
            .front()
            .is_some_and(|&t| t + 1000 * MS <= now)
        {
            self.rreq_times.pop_front();
        }
        if self.rreq_times.len() < limit {
            return Some(now);
        }
        Some(self.rreq_times[self.rreq_times.len() - limit] + 1000 * MS)
    }

    /// Whether a discovery for `dst` is under way.
    pub fn discovering(&self, dst: NodeId) -> bool {
        self.discoveries.contains_key(&dst)
    }

    /// Apply route information to `dst` if [`should_update`] accepts it; returns whether it
    /// did. The lifetime never shortens an active route.
    pub fn update(
        &mut self,
        now: Time,
        dst: NodeId,
        seq: Option<u32>,
        hops: u32,
        next: NodeId,
        lifetime: Time,
    ) -> bool {
        let e = self.table.get(&dst);
        if !should_update(e, seq, hops) {
            return false;
        }
        let until = now + lifetime;
        match self.table.get_mut(&dst) {
            Some(e) => {
                if let Some(s) = seq {
                    e.seq = s;
                    e.valid_seq = true;
                } else {
                    // 6.2: information without a number (a neighbour heard from) leaves the
                    // route without a valid one: the number an invalid entry kept (raised at
                    // the break) is not the neighbour's, and must not be offered as fresh.
                    e.valid_seq = false;
                }
                let keep = if e.valid { e.expires } else { 0 };
                e.valid = true;
                e.hops = hops;
                e.next = next;
                e.expires = until.max(keep);
            }
            None => {
                self.table.insert(
                    dst,
                    Entry {
                        seq: seq.unwrap_or(0),
                        valid_seq: seq.is_some(),
                        valid: true,
                        hops,
                        next,
                        expires: until,
                        precursors: Vec::new(),
                    },
                );
            }
        }
        true
    }

    /// Refresh an active route's lifetime to at least `now + t`.
    fn refresh(&mut self, dst: NodeId, now: Time, t: Time) {
        if let Some(e) = self.table.get_mut(&dst) {
            if e.valid && e.expires > now {
                e.expires = e.expires.max(now + t);
            }
        }
    }

    fn broadcast(&mut self, now: Time, msg: Msg, jittered: bool) {
        if matches!(msg, Msg::Rreq(_)) {
            // ns-3 notes the time when the RREQ is handed to its jitter, not when it leaves.
            self.last_rreq = Some(now);
        }
        let due = if jittered {
            now + self.draw_jitter()
        } else {
            now
        };
        self.outbox.push((due, None, msg));
    }

    /// A broadcast's jitter: uniform below `max_jitter`, or ns-3's whole milliseconds.
    fn draw_jitter(&mut self) -> Time {
        if self.cfg.jitter_ns3 {
            MS * self.rng.below(self.cfg.max_jitter / MS + 1)
        } else {
            jitter(&mut self.rng, self.cfg.max_jitter)
        }
    }

    fn flush_outbox(&mut self, now: Time, out: &mut Vec<Act>) {
        let mut k = 0;
        while k < self.outbox.len() {
            if self.outbox[k].0 <= now {
                let (_, to, msg) = self.outbox.remove(k);
                if let Some(to) = to {
                    self.send(now, to, msg, out);
                    continue;
                }
                // The node's own HELLOs do not count: with a jittered interval the last one
                // is often just under HELLO_INTERVAL old and would cancel every other HELLO.
                if msg.kind() != "hello" {
                    self.last_broadcast = Some(now);
                }
                out.push(Act::Send {
                    to: BROADCAST,
                    msg: super::Msg::Aodv(msg),
                });
            } else {
                k += 1;
            }
        }
    }

    /// ns-3 jitters a RERR it unicasts to a single precursor as it jitters broadcasts.
    pub(super) fn send_jittered(&mut self, now: Time, to: NodeId, msg: Msg) {
        let due = now + self.draw_jitter();
        self.outbox.push((due, Some(to), msg));
    }

    fn send(&mut self, now: Time, to: NodeId, msg: Msg, out: &mut Vec<Act>) {
        if self.cfg.control_routed && self.active(to, now).is_none() {
            // ns-3's RouteOutput finds no route to the neighbour: the message waits on the
            // loopback while a RREQ is flooded for it.
            self.stats.control_held += 1;
            self.held_ctrl.push((now, to, msg));
            if !self.discovering(to) {
                self.discover(now, to);
            }
            return;
        }
        out.push(Act::Send {
            to,
            msg: super::Msg::Aodv(msg),
        });
    }

    /// `control_routed`: the control messages held for `dst` leave on its new route (to its
    /// next hop, which takes them as if they were for it when the route is longer).
    fn release_control(&mut self, now: Time, dst: NodeId, out: &mut Vec<Act>) {
        let Some(via) = self.active(dst, now).map(|e| e.next) else {
            return;
        };
        let mut k = 0;
        while k < self.held_ctrl.len() {
            if self.held_ctrl[k].1 == dst {
                let (_, _, msg) = self.held_ctrl.remove(k);
                out.push(Act::Send {
                    to: via,
                    msg: super::Msg::Aodv(msg),
                });
            } else {
                k += 1;
            }
        }
    }

    /// Control messages held for `dst` (all, or those older than the buffer timeout) are
    /// given up.
    fn drop_control(&mut self, now: Time, dst: Option<NodeId>) {
        let limit = self.cfg.buffer_timeout;
        let before = self.held_ctrl.len();
        self.held_ctrl
            .retain(|(t, to, _)| dst.map_or(*t + limit > now, |d| *to != d));
        self.stats.control_dropped += (before - self.held_ctrl.len()) as u64;
    }

    /// Send a RREQ for `dst` with `ttl` (6.3): a fresh sequence number and RREQ ID, the
    /// last known destination sequence number or the U flag.
    fn send_rreq(&mut self, now: Time, dst: NodeId, ttl: u32) {
        self.own_seq = self.own_seq.wrapping_add(1);
        self.rreq_id = self.rreq_id.wrapping_add(1);
        let known = self.table.get(&dst).filter(|e| e.valid_seq);
        let rreq = Rreq {
            ttl,
            hops: 0,
            id: self.rreq_id,
            dst,
            dst_seq: known.map_or(0, |e| e.seq),
            unknown_seq: known.is_none(),
            gratuitous: self.cfg.gratuitous_rrep,
            orig: self.me,
            orig_seq: self.own_seq,
        };
        if self.cfg.rreq_ratelimit > 0 {
            self.rreq_times.push_back(now);
        }
        let until = now + self.cfg.path_discovery_time();
        self.seen.push((self.me, self.rreq_id, until));
        // ns-3's SendRequest jitters the RREQs it originates; RFC 5148 jitters relays only.
        let jittered = self.cfg.jitter_ns3;
        self.broadcast(now, Msg::Rreq(rreq), jittered);
    }

    /// Start a discovery for `dst` (6.4): TTL_START, or the last known hop count plus
    /// TTL_INCREMENT for a destination whose route is invalid.
    fn discover(&mut self, now: Time, dst: NodeId) {
        self.stats.discoveries += 1;
        let ttl = match self.table.get(&dst) {
            Some(e) => (e.hops + self.cfg.ttl_increment).min(self.cfg.net_diameter),
            None => self.cfg.ttl_start,
        };
        let ttl = if ttl > self.cfg.ttl_threshold {
            self.cfg.net_diameter
        } else {
            ttl
        };
        let d = Discovery {
            ttl,
            retries: 0,
            deadline: now,
            deferred: false,
            wanted: now,
        };
        self.next_rreq(now, dst, d);
    }

    /// Send the RREQ of discovery `d` for `dst` and wait for its RREP, or, when
    /// RREQ_RATELIMIT allows none now, wait until it does (6.3).
    fn next_rreq(&mut self, now: Time, dst: NodeId, mut d: Discovery) {
        match self.rreq_free_at(now) {
            Some(t) if t > now => {
                if !d.deferred {
                    d.wanted = now;
                }
                d.deferred = true;
                d.deadline = t;
                self.discoveries.insert(dst, d);
            }
            _ => {
                d.deferred = false;
                d.deadline = now + self.cfg.rrep_wait(d.ttl, d.retries);
                let ttl = d.ttl;
                self.discoveries.insert(dst, d);
                self.send_rreq(now, dst, ttl);
            }
        }
    }

    /// A discovery's wait ran out: the next ring, a retry at NET_DIAMETER, or give up.
    fn discovery_timeout(&mut self, now: Time, dst: NodeId, out: &mut Vec<Act>) {
        let Some(mut d) = self.discoveries.remove(&dst) else {
            return;
        };
        if d.deferred {
            self.next_rreq(now, dst, d);
            return;
        }
        if d.ttl < self.cfg.net_diameter {
            d.ttl = self.cfg.next_ttl(d.ttl);
        } else if d.retries < self.cfg.rreq_retries {
            d.retries += 1;
        } else {
            self.stats.discoveries_failed += 1;
            if !self.cfg.rreq_revives && self.active(dst, now).is_none() {
                // ns-3 deletes the searched-for entry when it gives up (RouteRequestTimerExpire),
                // so that the destination's next RREQ makes a new, valid route to it.
                self.table.remove(&dst);
            }
            self.drop_control(now, Some(dst));
            for pkt in self.held.take(dst) {
                self.stats.held_expired += 1;
                out.push(Act::Drop {
                    pkt,
                    cause: DropCause::NoRoute,
                });
            }
            return;
        }
        self.next_rreq(now, dst, d);
    }

    /// The entry for neighbour `nb` made a valid one-hop route without a valid sequence
    /// number (ns-3's way of recording a neighbour; the caller sets its lifetime).
    fn neighbour_without_number(&mut self, nb: NodeId) -> &mut Entry {
        let e = self.table.entry(nb).or_insert(Entry {
            seq: 0,
            valid_seq: false,
            valid: true,
            hops: 1,
            next: nb,
            expires: 0,
            precursors: Vec::new(),
        });
        (e.valid, e.valid_seq, e.hops, e.next) = (true, false, 1, nb);
        e
    }

    /// A control message came from `from`: it is a neighbour (6.2: a route to the previous
    /// hop, without a sequence number) whose link is alive.
    fn heard(&mut self, now: Time, from: NodeId) {
        let life = self.cfg.active_route_timeout;
        let kept = !self.cfg.hear_revives
            && self
                .table
                .get(&from)
                .is_some_and(|e| e.valid_seq && e.hops == 1 && e.next == from);
        if kept {
            // ns-3's UpdateRouteToNeighbor lengthens a copy of such an entry: nothing changes.
        } else if !self.cfg.hear_revives {
            // ns-3 replaces any other entry with a valid one-hop route without a number.
            let keep = self
                .table
                .get(&from)
                .map_or(0, |e| e.expires.saturating_sub(now));
            self.neighbour_without_number(from).expires = now + life.max(keep);
        } else if !self.update(now, from, None, 1, from, life) {
            self.refresh(from, now, life);
        }
        if let Some(t) = self.neighbours.get_mut(&from) {
            *t = now + self.cfg.hello_loss_time();
        }
    }

    fn on_rreq(&mut self, now: Time, from: NodeId, m: &Rreq, out: &mut Vec<Act>) {
        if m.orig == self.me {
            return;
        }
        self.seen.retain(|s| s.2 > now);
        if self.seen.iter().any(|s| s.0 == m.orig && s.1 == m.id) {
            return;
        }
        self.seen
            .push((m.orig, m.id, now + self.cfg.path_discovery_time()));
        let hops = m.hops + 1;
        // The reverse route (6.5): the originator's sequence number if newer, the previous
        // hop, and a lifetime of at least 2 * NET_TRAVERSAL_TIME - 2 * hops *
        // NODE_TRAVERSAL_TIME.
        let min_life = (2 * self.cfg.net_traversal_time())
            .saturating_sub(2 * hops as Time * self.cfg.node_traversal_time);
        // ns-3 keeps the flag of an entry it holds: an active route stays valid, an invalid
        // one invalid, one in search (its discovery makes one) in search; a new entry, or one
        // ns-3 would have deleted (invalid past its DELETE_PERIOD), is made valid.
        let keeps = !self.cfg.rreq_revives;
        let was_active = self.active(m.orig, now).is_some();
        let held = self.held_entry(m.orig, now).is_some();
        let searching = self.discoveries.contains_key(&m.orig);
        if keeps && !held {
            self.table.remove(&m.orig);
        }
        let rev = self.table.entry(m.orig).or_insert(Entry {
            seq: m.orig_seq,
            valid_seq: true,
            valid: false,
            hops,
            next: from,
            expires: 0,
            precursors: Vec::new(),
        });
        if !rev.valid_seq || seq_newer(m.orig_seq, rev.seq) {
            rev.seq = m.orig_seq;
        }
        rev.valid_seq = true;
        rev.next = from;
        rev.hops = hops;
        rev.expires = if was_active || (keeps && held) {
            rev.expires.max(now + min_life)
        } else {
            now + min_life
        };
        rev.valid = if keeps {
            was_active || (!held && !searching)
        } else {
            true
        };
        if !self.cfg.hear_revives {
            // ns-3's RecvRequest revives the route to the neighbour the (first copy of the)
            // RREQ came from, as UpdateRouteToNeighbor does not: valid, without a number,
            // for ACTIVE_ROUTE_TIMEOUT from now.
            let life = self.cfg.active_route_timeout;
            let e = self.neighbour_without_number(from);
            e.seq = m.orig_seq;
            e.expires = now + life;
        }
        if m.dst == self.me || self.attached.contains(&m.dst) {
            // 6.6.1: the destination's own number moves to the one asked for if that is
            // exactly its next one.
            if !m.unknown_seq && m.dst_seq == self.own_seq.wrapping_add(1) {
                self.own_seq = m.dst_seq;
            }
            let rrep = Rrep {
                hops: 0,
                dst: m.dst,
                dst_seq: self.own_seq,
                orig: m.orig,
                lifetime: self.cfg.my_route_timeout(),
                ack: false,
            };
            self.send(now, from, Msg::Rrep(rrep), out);
            return;
        }
        if self.cfg.rreq_loop_drop && self.held_entry(m.dst, now).is_some_and(|e| e.next == from) {
            // ns-3's RecvRequest: a reply over this entry would go back where the RREQ came
            // from, so the RREQ is neither answered nor passed on.
            return;
        }
        // 6.6.2: an intermediate node answers from an active route whose valid sequence
        // number is at least the one asked for.
        if let Some(e) = self.active(m.dst, now) {
            if e.valid_seq && (m.unknown_seq || !seq_newer(m.dst_seq, e.seq)) {
                let rrep = Rrep {
                    hops: e.hops,
                    dst: m.dst,
                    dst_seq: e.seq,
                    orig: m.orig,
                    lifetime: e.expires - now,
                    // 6.7: a reply over a one-hop route may be over a one-way link.
                    ack: self.cfg.rrep_ack && e.hops == 1,
                };
                let toward_dst = e.next;
                if let Some(f) = self.table.get_mut(&m.dst) {
                    f.add_precursor(from);
                }
                if let Some(r) = self.table.get_mut(&m.orig) {
                    r.add_precursor(toward_dst);
                }
                self.send(now, from, Msg::Rrep(rrep), out);
                if m.gratuitous {
                    // 6.6.3: the destination learns the route to the originator, as if
                    // the originator had asked for it: the reverse route's hop count,
                    // sequence number and remaining lifetime.
                    let r = &self.table[&m.orig];
                    let grat = Rrep {
                        hops: r.hops,
                        dst: m.orig,
                        dst_seq: r.seq,
                        orig: m.dst,
                        lifetime: r.expires.saturating_sub(now),
                        ack: false,
                    };
                    self.send(now, toward_dst, Msg::Rrep(grat), out);
                }
                return;
            }
        }
        if m.ttl > 1 {
            let known = self.table.get(&m.dst).filter(|e| e.valid_seq);
            let (dst_seq, unknown) = match known {
                Some(e) if m.unknown_seq || seq_newer(e.seq, m.dst_seq) => (e.seq, false),
                _ => (m.dst_seq, m.unknown_seq),
            };
            let fwd = Rreq {
                ttl: m.ttl - 1,
                hops,
                dst_seq,
                unknown_seq: unknown,
                ..m.clone()
            };
            self.broadcast(now, Msg::Rreq(fwd), true);
        }
    }

    fn on_rrep(&mut self, now: Time, from: NodeId, m: &Rrep, out: &mut Vec<Act>) {
        if m.dst == m.orig {
            // HELLO (6.9): a route to the neighbour, and its link watched from now on.
            let life = self.cfg.hello_loss_time();
            if !self.update(now, m.dst, Some(m.dst_seq), 1, from, life) {
                self.refresh(m.dst, now, life);
            }
            self.neighbours.insert(from, now + life);
            return;
        }
        if m.ack {
            // 6.8: the sender asked for an acknowledgment (ns-3's RecvReply sends it first).
            self.send(now, from, Msg::RrepAck, out);
        }
        let hops = m.hops + 1;
        // 6.7: the forward route, if the reply is newer or shorter.
        let updated = self.update(now, m.dst, Some(m.dst_seq), hops, from, m.lifetime);
        if m.orig == self.me {
            if self.discoveries.remove(&m.dst).is_some() || !self.held.is_empty() {
                self.release(now, m.dst, out);
            }
            if !self.held_ctrl.is_empty() {
                self.release_control(now, m.dst, out);
            }
            return;
        }
        if !updated && !self.cfg.relay_every_rrep {
            return; // 6.7: nothing new for the originator either
        }
        let back = if self.cfg.rreq_revives {
            self.active(m.orig, now)
        } else {
            // ns-3's RecvReply: any entry it holds for the originator that is not in search
            // (a discovery here with no active route).
            self.held_entry(m.orig, now)
                .filter(|e| (e.valid && e.expires > now) || !self.discoveries.contains_key(&m.orig))
        };
        let Some(rev) = back else {
            return; // no way back: the reply dies here
        };
        let toward_orig = rev.next;
        if let Some(f) = self.table.get_mut(&m.dst) {
            f.add_precursor(toward_orig);
        }
        if let Some(n) = self.table.get_mut(&from) {
            n.add_precursor(toward_orig);
        }
        if self.cfg.rreq_revives {
            self.refresh(m.orig, now, self.cfg.active_route_timeout);
        } else if let Some(e) = self.table.get_mut(&m.orig) {
            // ns-3's RecvReply lengthens the entry's lifetime whatever its flag.
            e.expires = e.expires.max(now + self.cfg.active_route_timeout);
        }
        let fwd = Rrep {
            hops,
            ack: false,
            ..m.clone()
        };
        self.send(now, toward_orig, Msg::Rrep(fwd), out);
    }

    /// Send the packets held for `dst` on its new route.
    fn release(&mut self, now: Time, dst: NodeId, out: &mut Vec<Act>) {
        let Some(via) = self.active(dst, now).map(|e| e.next) else {
            return;
        };
        for pkt in self.held.take(dst) {
            out.push(Act::Forward { pkt, via });
        }
    }

    /// A data packet from `src` arrived: with `data_liveness`, the previous hop on the
    /// route back to `src` (6.2) was heard from (6.10).
    fn data_heard(&mut self, now: Time, src: NodeId) {
        if !self.cfg.data_liveness {
            return;
        }
        let Some(prev) = self.active(src, now).map(|e| e.next) else {
            return;
        };
        if let Some(t) = self.neighbours.get_mut(&prev) {
            *t = (*t).max(now + self.cfg.hello_loss_time());
        }
    }

    fn send_hello(&mut self, now: Time, jittered: bool) {
        let hello = Rrep {
            hops: 0,
            dst: self.me,
            dst_seq: self.own_seq,
            orig: self.me,
            lifetime: self.cfg.hello_loss_time(),
            ack: false,
        };
        self.broadcast(now, Msg::Rrep(hello), jittered);
    }
}

impl Protocol for Aodv {
    fn name(&self) -> &'static str {
        "aodv"
    }

    fn route(
        &mut self,
        now: Time,
        pkt: PacketId,
        src: NodeId,
        dst: NodeId,
        out: &mut Vec<Act>,
    ) -> Route {
        if let Some(next) = self.active(dst, now).map(|e| e.next) {
            // 6.2: a route used for data lives on for ACTIVE_ROUTE_TIMEOUT, and so do the
            // routes to its next hop, back to the source, and to the previous hop on that
            // reverse path.
            let t = self.cfg.active_route_timeout;
            self.refresh(dst, now, t);
            self.refresh(next, now, t);
            if src != self.me {
                self.refresh(src, now, t);
                if let Some(prev) = self.table.get(&src).map(|e| e.next) {
                    self.refresh(prev, now, t);
                }
                self.data_heard(now, src);
            }
            return Route::Via(next);
        }
        if src == self.me || self.attached.contains(&src) {
            if !self.held.push(now, pkt, dst) {
                self.stats.held_overflow += 1;
                return Route::Drop(DropCause::NoRoute);
            }
            self.stats.held += 1;
            if !self.discovering(dst) {
                self.discover(now, dst);
                self.flush_outbox(now, out);
            }
            return Route::Held;
        }
        // 6.11 case (ii): data for a destination without an active route at a relay.
        let broken = self.table.contains_key(&dst);
        let cause = if broken {
            DropCause::RouteBreak
        } else {
            DropCause::NoRoute
        };
        if self.cfg.rerr_no_route == RerrNoRoute::TowardSource {
            self.rerr_toward_source(now, src, dst, out);
            return Route::Drop(cause);
        }
        let seq = self.table.get(&dst).map_or(0, |e| e.seq);
        let pre = self
            .table
            .get_mut(&dst)
            .map(|e| std::mem::take(&mut e.precursors))
            .unwrap_or_default();
        let rerr = Rerr {
            dests: vec![(dst, seq)],
        };
        if !self.rerr_allowed(now) {
            return Route::Drop(cause);
        }
        match pre[..] {
            [one] => self.send(now, one, Msg::Rerr(rerr), out),
            _ => {
                self.broadcast(now, Msg::Rerr(rerr), true);
                self.flush_outbox(now, out);
            }
        }
        Route::Drop(cause)
    }

    fn next_hop(&self, now: Time, dst: NodeId) -> Option<NodeId> {
        self.active(dst, now).map(|e| e.next)
    }

    fn delivered(&mut self, now: Time, src: NodeId) {
        self.data_heard(now, src);
    }

    fn receive(&mut self, now: Time, from: NodeId, msg: &super::Msg, out: &mut Vec<Act>) {
        let super::Msg::Aodv(m) = msg else { return };
        self.heard(now, from);
        match m {
            Msg::Rreq(r) => self.on_rreq(now, from, r, out),
            Msg::Rrep(r) => self.on_rrep(now, from, r, out),
            Msg::Rerr(r) => self.on_rerr(now, from, r, out),
            Msg::RrepAck => {
                // ns-3's RecvReplyAck marks the route to the neighbour valid.
                if let Some(e) = self.table.get_mut(&from) {
                    if e.expires > now {
                        e.valid = true;
                    }
                }
            }
        }
        self.flush_outbox(now, out);
    }

    fn link_failed(&mut self, now: Time, to: NodeId, out: &mut Vec<Act>) {
        if !self.cfg.link_feedback {
            return;
        }
        self.stats.breaks_link_feedback += 1;
        self.link_broken(now, to, out);
        self.flush_outbox(now, out);
    }

    fn timeout(&mut self, now: Time, out: &mut Vec<Act>) {
        let mut due: Vec<(Time, NodeId)> = self
            .discoveries
            .iter()
            .filter(|(_, d)| d.deadline <= now)
            .map(|(k, d)| (if d.deferred { d.wanted } else { d.deadline }, *k))
            .collect();
        due.sort_unstable();
        for (_, dst) in due {
            self.discovery_timeout(now, dst, out);
        }
        if !self.held_ctrl.is_empty() {
            self.drop_control(now, None);
        }
        for pkt in self.held.expire(now) {
            self.stats.held_expired += 1;
            out.push(Act::Drop {
                pkt,
                cause: DropCause::NoRoute,
            });
        }
        if self.cfg.hello {
            let lost: Vec<NodeId> = self
                .neighbours
                .iter()
                .filter(|(_, &t)| t <= now)
                .map(|(n, _)| *n)
                .collect();
            for nb in lost {
                self.stats.breaks_hello += 1;
                self.link_broken(now, nb, out);
            }
            if now >= self.next_hello {
                let on_route = self.cfg.hello_from == HelloFrom::All
                    || self.table.values().any(|e| e.valid && e.expires > now);
                match self.cfg.hello_suppress {
                    HelloSuppress::Broadcast => {
                        // 6.9: only a node on an active route says hello, and only if it
                        // broadcast nothing within the last interval.
                        let quiet = self
                            .last_broadcast
                            .is_none_or(|t| t + self.cfg.hello_interval <= now);
                        if on_route && quiet {
                            self.send_hello(now, false);
                        }
                        self.next_hello = now + self.cfg.hello_interval
                            - self.cfg.max_jitter.min(self.cfg.hello_interval) / 2
                            + self.draw_jitter();
                    }
                    HelloSuppress::RreqDefer => match self.last_rreq.take() {
                        Some(t) => self.next_hello = (t + self.cfg.hello_interval).max(now),
                        None => {
                            if on_route {
                                self.send_hello(now, true);
                            }
                            self.next_hello = now + self.cfg.hello_interval;
                        }
                    },
                }
            }
        }
        // Entries invalid for DELETE_PERIOD are deleted; expired active routes become
        // invalid (kept for their sequence number).
        let delete = self.cfg.delete_period();
        self.table.retain(|_, e| e.valid || e.expires > now);
        for e in self.table.values_mut() {
            if e.valid && e.expires <= now {
                e.valid = false;
                e.expires = now + delete;
            }
        }
        self.seen.retain(|s| s.2 > now);
        self.flush_outbox(now, out);
    }

    fn poll_timeout(&self) -> Option<Time> {
        let mut t = self.discoveries.values().map(|d| d.deadline).min();
        let mut at = |x: Option<Time>| {
            if let Some(x) = x {
                t = Some(t.map_or(x, |t: Time| t.min(x)));
            }
        };
        at(self.outbox.iter().map(|o| o.0).min());
        at(self.held.next_expiry());
        at(self
            .held_ctrl
            .iter()
            .map(|h| h.0 + self.cfg.buffer_timeout)
            .min());
        if self.cfg.hello {
            at(Some(self.next_hello));
            at(self.neighbours.values().copied().min());
        }
        t
    }

    fn counters(&self) -> &Counters {
        &self.stats
    }

    fn link_feedback(&self) -> bool {
        self.cfg.link_feedback
    }

    fn on_break(&self) -> OnBreak {
        self.cfg.on_break
    }

    fn held(&self) -> usize {
        self.held.len()
    }
}

#[cfg(test)]
#[path = "aodv_tests.rs"]
mod tests;
