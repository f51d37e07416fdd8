//! OLSR, Optimized Link State Routing (RFC 3626), on one interface per node.
//!
//! HELLOs every HELLO_INTERVAL sense links (7.1) and tell each node its symmetric neighbours
//! and their neighbours (8.1, 8.2); each node picks multipoint relays (MPRs) among its
//! neighbours to cover every 2-hop neighbour (8.3.1's heuristic). Nodes selected as MPR
//! flood topology control (TC) messages every TC_INTERVAL, advertising their MPR selectors
//! with a sequence number (ANSN); only MPRs relay a flood, once per message (3.4, the
//! duplicate set). Routes are shortest paths over the neighbour, 2-hop and topology sets
//! (section 10). Messages travel in OLSR packets (3.4): each message a node generates or
//! relays waits a jitter (3.5, RFC 5148), and what waits together leaves in one packet.
//! Link hysteresis (14) is optional. Not modelled: multiple interfaces (MID), HNA, the MPR
//! redundancy step, and TCs sent after the selector set empties.

use super::{jitter, Act, Counters, OnBreak, Protocol, Route};
use crate::device::BROADCAST;
use crate::engine::{Rng, Time};
use crate::ids::{NodeId, PacketId};
use crate::packet::DropCause;
use std::collections::{BTreeMap, BTreeSet};

const SEC: Time = 1_000_000_000;

/// Willingness values (RFC 3626 18.8).
pub const WILL_NEVER: u8 = 0;
pub const WILL_DEFAULT: u8 = 3;
pub const WILL_ALWAYS: u8 = 7;

/// OLSR's configuration; defaults are RFC 3626 section 18's.
#[derive(Clone, Debug)]
pub struct Config {
    pub hello_interval: Time,
    pub tc_interval: Time,
    pub neighb_hold_time: Time,
    pub top_hold_time: Time,
    pub dup_hold_time: Time,
    pub willingness: u8,
    /// Treat the MAC's give-up on a neighbour as a lost link (section 13, optional).
    pub link_feedback: bool,
    /// MAXJITTER (3.5): HELLO_INTERVAL / 4.
    pub max_jitter: Time,
    /// Messages waiting together leave in one packet (3.4); false: one packet each.
    pub bundle: bool,
    /// Link hysteresis (section 14).
    pub hysteresis: bool,
}

/// HYST_THRESHOLD_HIGH, HYST_THRESHOLD_LOW and HYST_SCALING (section 18's proposed values).
pub const HYST_HIGH: f64 = 0.8;
pub const HYST_LOW: f64 = 0.3;
pub const HYST_SCALING: f64 = 0.5;

/// Bytes of an OLSR packet at most: an IP MTU of 1500 less the IP and UDP headers.
pub const MAX_PACKET: u32 = 1500 - super::IP_UDP;

impl Default for Config {
    fn default() -> Config {
        Config {
            hello_interval: 2 * SEC,
            tc_interval: 5 * SEC,
            neighb_hold_time: 6 * SEC,
            top_hold_time: 15 * SEC,
            dup_hold_time: 30 * SEC,
            willingness: WILL_DEFAULT,
            link_feedback: false,
            max_jitter: SEC / 2,
            bundle: true,
            hysteresis: false,
        }
    }
}

/// The link type of a HELLO's link code (6.1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LinkType {
    Asym,
    Sym,
    Lost,
}

/// The neighbour type of a HELLO's link code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum NeighType {
    Not,
    Sym,
    Mpr,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Hello {
    pub willingness: u8,
    /// Validity time of the information (the sender's NEIGHB_HOLD_TIME).
    pub vtime: Time,
    /// The sender's HELLO emission interval (Htime, 6.1).
    pub htime: Time,
    pub links: Vec<(NodeId, LinkType, NeighType)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Tc {
    pub orig: NodeId,
    pub seq: u16,
    pub ttl: u8,
    pub hops: u8,
    pub ansn: u16,
    pub vtime: Time,
    pub advertised: Vec<NodeId>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Msg {
    Hello(Hello),
    Tc(Tc),
}

/// An OLSR packet (3.4): a header (length, packet sequence number) and its messages.
#[derive(Clone, Debug, PartialEq)]
pub struct Packet {
    pub seq: u16,
    pub msgs: Vec<Msg>,
}

impl Packet {
    /// Packet header (4 bytes), then each message.
    pub fn bytes(&self) -> u32 {
        4 + self.msgs.iter().map(|m| m.bytes()).sum::<u32>()
    }
}

impl Msg {
    /// Message header (12 bytes), then the message body (3.4, 6.1, 9.1).
    pub fn bytes(&self) -> u32 {
        12 + match self {
            Msg::Hello(h) => {
                let mut codes: Vec<(LinkType, NeighType)> =
                    h.links.iter().map(|l| (l.1, l.2)).collect();
                codes.sort();
                codes.dedup();
                4 + 4 * codes.len() as u32 + 4 * h.links.len() as u32
            }
            Msg::Tc(t) => 4 + 4 * t.advertised.len() as u32,
        }
    }
    pub fn kind(&self) -> &'static str {
        match self {
            Msg::Hello(_) => "hello",
            Msg::Tc(_) => "tc",
        }
    }
}

/// Whether 16-bit sequence number `a` is newer than `b` (section 19).
pub fn seq_newer(a: u16, b: u16) -> bool {
    (a > b && a - b <= 32768) || (b > a && b - a > 32768)
}

/// MPR selection by RFC 3626 8.3.1's heuristic. `n1`: symmetric neighbours with their
/// willingness; `two_hop`: (neighbour, node it reaches). Ties go to the lowest node number.
pub fn select_mpr(me: NodeId, n1: &[(NodeId, u8)], two_hop: &[(NodeId, NodeId)]) -> Vec<NodeId> {
    let sym: BTreeSet<NodeId> = n1.iter().map(|x| x.0).collect();
    let will: BTreeMap<NodeId, u8> = n1.iter().copied().collect();
    let cand: Vec<NodeId> = n1
        .iter()
        .filter(|x| x.1 != WILL_NEVER)
        .map(|x| x.0)
        .collect();
    // N2: 2-hop neighbours through a candidate, not this node, not a symmetric neighbour.
    let reach = |y: NodeId| -> BTreeSet<NodeId> {
        two_hop
            .iter()
            .filter(|(v, z)| *v == y && *z != me && !sym.contains(z))
            .map(|x| x.1)
            .collect()
    };
    let reach_of: BTreeMap<NodeId, BTreeSet<NodeId>> =
        cand.iter().map(|&y| (y, reach(y))).collect();
    let mut uncovered: BTreeSet<NodeId> = reach_of.values().flatten().copied().collect();
    let mut mpr: BTreeSet<NodeId> = BTreeSet::new();
    let take = |y: NodeId, mpr: &mut BTreeSet<NodeId>, unc: &mut BTreeSet<NodeId>| {
        mpr.insert(y);
        for z in &reach_of[&y] {
            unc.remove(z);
        }
    };
    // 1. Neighbours always willing.
    for &y in &cand {
        if will[&y] == WILL_ALWAYS {
            take(y, &mut mpr, &mut uncovered);
        }
    }
    // 3. Neighbours that are the only way to some 2-hop neighbour.
    let all: Vec<NodeId> = uncovered.iter().copied().collect();
    for z in all {
        let via: Vec<NodeId> = cand
            .iter()
            .copied()
            .filter(|y| reach_of[y].contains(&z))
            .collect();
        if via.len() == 1 && !mpr.contains(&via[0]) {
            take(via[0], &mut mpr, &mut uncovered);
        }
    }
    // 4. Then the highest willingness, most uncovered nodes reached, highest degree.
    while !uncovered.is_empty() {
        let best = cand
            .iter()
            .copied()
            .filter(|y| !mpr.contains(y))
            .map(|y| {
                let r = reach_of[&y].intersection(&uncovered).count();
                (y, will[&y], r, reach_of[&y].len())
            })
            .filter(|c| c.2 > 0)
            .max_by(|a, b| (a.1, a.2, a.3).cmp(&(b.1, b.2, b.3)).then(b.0.cmp(&a.0)));
        let Some((y, ..)) = best else { break };
        take(y, &mut mpr, &mut uncovered);
    }
    mpr.into_iter().collect()
}

/// Shortest-path routes (section 10) from symmetric neighbours, 2-hop tuples (neighbour,
/// node) and topology tuples (destination, last hop): destination -> (next hop, hops).
pub fn routes(
    neighbours: &[NodeId],
    two_hop: &[(NodeId, NodeId)],
    topology: &[(NodeId, NodeId)],
    me: NodeId,
) -> BTreeMap<NodeId, (NodeId, u32)> {
    let mut t: BTreeMap<NodeId, (NodeId, u32)> = BTreeMap::new();
    for &n in neighbours {
        t.insert(n, (n, 1));
    }
    for &(n, z) in two_hop {
        if z != me && !t.contains_key(&z) && neighbours.contains(&n) {
            t.insert(z, (n, 2));
        }
    }
    let mut h = 2;
    loop {
        let mut added = false;
        for &(dst, last) in topology {
            if dst == me || t.contains_key(&dst) {
                continue;
            }
            if let Some(&(next, d)) = t.get(&last) {
                if d == h {
                    t.insert(dst, (next, h + 1));
                    added = true;
                }
            }
        }
        if !added {
            break;
        }
        h += 1;
    }
    t
}

#[derive(Clone, Copy, Debug)]
struct Link {
    sym_until: Time,
    asym_until: Time,
    until: Time,
    /// Hysteresis (14): quality, not yet established, advertised lost until.
    quality: f64,
    pending: bool,
    lost_until: Time,
    /// The neighbour's last packet sequence number, its HELLO interval (Htime), and when
    /// its next HELLO is overdue.
    last_seq: Option<u16>,
    htime: Time,
    overdue: Time,
}

impl Link {
    fn new(until: Time, hysteresis: bool) -> Link {
        Link {
            sym_until: 0,
            asym_until: 0,
            until,
            quality: 0.0,
            pending: hysteresis,
            lost_until: 0,
            last_seq: None,
            htime: 0,
            overdue: Time::MAX,
        }
    }
    /// Symmetric and, with hysteresis, established and not lost (14).
    fn usable(&self, now: Time) -> bool {
        self.sym_until > now && !self.pending && self.lost_until <= now
    }
}

/// 14.3: the stability rule on a packet received (`got`), else the instability rule; then
/// 14.2's thresholds. `until` is the link's L_time, `hold` NEIGHB_HOLD_TIME.
fn hysteresis_step(l: &mut Link, got: bool, now: Time, hold: Time) {
    l.quality = (1.0 - HYST_SCALING) * l.quality + if got { HYST_SCALING } else { 0.0 };
    if l.quality > HYST_HIGH {
        l.pending = false;
        l.lost_until = 0;
    } else if l.quality < HYST_LOW {
        l.pending = true;
        l.lost_until = l.until.min(now + hold);
    }
}

/// OLSR at one node.
pub struct Olsr {
    pub me: NodeId,
    pub cfg: Config,
    links: BTreeMap<NodeId, Link>,
    willingness: BTreeMap<NodeId, u8>,
    /// (neighbour, 2-hop node) -> expiry.
    two_hop: BTreeMap<(NodeId, NodeId), Time>,
    pub mpr: Vec<NodeId>,
    selectors: BTreeMap<NodeId, Time>,
    /// (destination, last hop) -> (ANSN, expiry).
    topology: BTreeMap<(NodeId, NodeId), (u16, Time)>,
    /// (originator, message sequence number) -> (expiry, retransmitted).
    dups: BTreeMap<(NodeId, u16), (Time, bool)>,
    pub table: BTreeMap<NodeId, (NodeId, u32)>,
    ansn: u16,
    msg_seq: u16,
    pkt_seq: u16,
    next_hello: Time,
    next_tc: Time,
    /// Messages waiting for their packet: (send time, messages). With bundling there is at
    /// most one entry; a message joins it, or opens it with a jittered send time.
    outbox: Vec<(Time, Vec<Msg>)>,
    /// When the sets were last brought up to date.
    at: Time,
    rng: Rng,
    pub stats: Counters,
}

impl Olsr {
    pub fn new(me: NodeId, cfg: Config, rng: Rng) -> Olsr {
        // HELLO and TC timers tick from the start at their intervals; each message's own
        // jitter keeps neighbours apart.
        let (next_hello, next_tc) = (0, 0);
        Olsr {
            me,
            cfg,
            links: BTreeMap::new(),
            willingness: BTreeMap::new(),
            two_hop: BTreeMap::new(),
            mpr: Vec::new(),
            selectors: BTreeMap::new(),
            topology: BTreeMap::new(),
            dups: BTreeMap::new(),
            table: BTreeMap::new(),
            ansn: 0,
            msg_seq: 0,
            pkt_seq: 0,
            next_hello,
            next_tc,
            outbox: Vec::new(),
            at: 0,
            rng,
            stats: Counters::default(),
        }
    }

    /// Symmetric neighbours at `now` (with hysteresis: over established links only).
    pub fn symmetric(&self, now: Time) -> Vec<NodeId> {
        self.links
            .iter()
            .filter(|(_, l)| l.usable(now))
            .map(|(n, _)| *n)
            .collect()
    }

    fn next_seq(&mut self) -> u16 {
        self.msg_seq = self.msg_seq.wrapping_add(1);
        self.msg_seq
    }

    /// Drop expired tuples, then recompute MPRs and routes (8.3, 10).
    fn recompute(&mut self, now: Time) {
        self.at = now;
        self.links.retain(|_, l| l.until > now);
        let sym = self.symmetric(now);
        self.two_hop.retain(|(n, _), t| *t > now && sym.contains(n));
        let before: Vec<NodeId> = self.selectors.keys().copied().collect();
        self.selectors.retain(|_, t| *t > now);
        if self.selectors.len() != before.len() {
            self.ansn = self.ansn.wrapping_add(1);
        }
        self.topology.retain(|_, v| v.1 > now);
        self.dups.retain(|_, v| v.0 > now);
        let n1: Vec<(NodeId, u8)> = sym
            .iter()
            .map(|n| (*n, self.willingness.get(n).copied().unwrap_or(WILL_DEFAULT)))
            .collect();
        let th: Vec<(NodeId, NodeId)> = self.two_hop.keys().copied().collect();
        self.mpr = select_mpr(self.me, &n1, &th);
        let topo: Vec<(NodeId, NodeId)> = self.topology.keys().copied().collect();
        let old = std::mem::take(&mut self.table);
        self.table = routes(&sym, &th, &topo, self.me);
        // A destination that was reachable and is no longer: its route broke.
        let lost = old.keys().filter(|d| !self.table.contains_key(d)).count() as u64;
        self.stats.routes_invalidated += lost;
    }

    fn hello(&self, now: Time) -> Hello {
        let links = self
            .links
            .iter()
            // 14: a link not yet established is not advertised.
            .filter(|(_, l)| !l.pending || l.lost_until > now)
            .map(|(&n, l)| {
                let lt = if l.lost_until > now {
                    LinkType::Lost
                } else if l.sym_until > now {
                    LinkType::Sym
                } else if l.asym_until > now {
                    LinkType::Asym
                } else {
                    LinkType::Lost
                };
                let nt = if self.mpr.contains(&n) {
                    NeighType::Mpr
                } else if lt == LinkType::Sym {
                    NeighType::Sym
                } else {
                    NeighType::Not
                };
                (n, lt, nt)
            })
            .collect();
        Hello {
            willingness: self.cfg.willingness,
            vtime: self.cfg.neighb_hold_time,
            htime: self.cfg.hello_interval,
            links,
        }
    }

    /// A HELLO from `from` (7.1.1 link sensing, 8.1, 8.2.1, 8.4.1).
    fn on_hello(&mut self, now: Time, from: NodeId, h: &Hello) {
        let hold = self.cfg.neighb_hold_time;
        let hyst = self.cfg.hysteresis;
        let l = self
            .links
            .entry(from)
            .or_insert_with(|| Link::new(now + h.vtime, hyst));
        l.asym_until = now + h.vtime;
        if let Some(&(_, lt, _)) = h.links.iter().find(|x| x.0 == self.me) {
            if lt == LinkType::Lost {
                l.sym_until = 0;
            } else {
                l.sym_until = now + h.vtime;
                l.until = l.sym_until + hold;
            }
        }
        l.until = l.until.max(l.asym_until);
        // A HELLO is missed when none came within the sender's Htime and its jitter (14.3):
        // silence longer than that counts as a lost packet.
        l.htime = h.htime;
        l.overdue = now + h.htime + self.cfg.max_jitter;
        let sym = l.usable(now);
        self.willingness.insert(from, h.willingness);
        if sym {
            for &(z, lt, nt) in &h.links {
                if z == self.me {
                    continue;
                }
                if lt != LinkType::Lost && matches!(nt, NeighType::Sym | NeighType::Mpr) {
                    self.two_hop.insert((from, z), now + h.vtime);
                } else {
                    self.two_hop.remove(&(from, z));
                }
            }
        }
        let selects_me = h
            .links
            .iter()
            .any(|x| x.0 == self.me && x.2 == NeighType::Mpr);
        if selects_me {
            if self.selectors.insert(from, now + h.vtime).is_none() {
                self.ansn = self.ansn.wrapping_add(1);
            }
        } else if self.selectors.remove(&from).is_some() {
            self.ansn = self.ansn.wrapping_add(1);
        }
        self.recompute(now);
    }

    /// A TC from `from` (3.4 forwarding, 9.5 processing).
    fn on_tc(&mut self, now: Time, from: NodeId, t: &Tc) {
        if t.orig == self.me || !self.symmetric(now).contains(&from) {
            return;
        }
        let key = (t.orig, t.seq);
        let seen = self.dups.get(&key).copied();
        if seen.is_none() {
            // 9.5: ignore a TC older than what is known of its originator.
            let outdated = self
                .topology
                .iter()
                .any(|(&(_, last), &(a, _))| last == t.orig && seq_newer(a, t.ansn));
            if !outdated {
                self.topology
                    .retain(|&(_, last), v| last != t.orig || !seq_newer(t.ansn, v.0));
                for &d in &t.advertised {
                    self.topology.insert((d, t.orig), (t.ansn, now + t.vtime));
                }
                self.recompute(now);
            }
        }
        // 3.4.1: relay once, if the sender chose this node as its MPR.
        let relayed = seen.is_some_and(|s| s.1);
        let relay = !relayed && self.selectors.contains_key(&from) && t.ttl > 1;
        self.dups
            .insert(key, (now + self.cfg.dup_hold_time, relayed || relay));
        if relay {
            let fwd = Tc {
                ttl: t.ttl - 1,
                hops: t.hops + 1,
                ..t.clone()
            };
            self.enqueue(now, Msg::Tc(fwd));
        }
    }

    /// A message to send: it waits a jitter in [0, MAXJITTER) (3.5; RFC 5148), or, with
    /// bundling, joins the messages already waiting and leaves with them (3.4).
    pub fn enqueue(&mut self, now: Time, msg: Msg) {
        if self.cfg.bundle {
            if let Some(open) = self.outbox.first_mut() {
                open.1.push(msg);
                return;
            }
        }
        let due = now + jitter(&mut self.rng, self.cfg.max_jitter);
        self.outbox.push((due, vec![msg]));
    }

    /// Send what is due, in packets of at most [`MAX_PACKET`] bytes.
    fn flush_outbox(&mut self, now: Time, out: &mut Vec<Act>) {
        let mut k = 0;
        while k < self.outbox.len() {
            if self.outbox[k].0 > now {
                k += 1;
                continue;
            }
            let (_, msgs) = self.outbox.remove(k);
            let mut pkt: Vec<Msg> = Vec::new();
            let mut size = 4;
            for m in msgs {
                if !pkt.is_empty() && size + m.bytes() > MAX_PACKET {
                    self.send_packet(std::mem::take(&mut pkt), out);
                    size = 4;
                }
                size += m.bytes();
                pkt.push(m);
            }
            self.send_packet(pkt, out);
        }
    }

    fn send_packet(&mut self, msgs: Vec<Msg>, out: &mut Vec<Act>) {
        // 3.4: the packet sequence number goes up by one for each packet sent.
        self.pkt_seq = self.pkt_seq.wrapping_add(1);
        out.push(Act::Send {
            to: BROADCAST,
            msg: super::Msg::Olsr(Packet {
                seq: self.pkt_seq,
                msgs,
            }),
        });
    }

    /// Hysteresis (14.3) for a packet from `from` with sequence number `seq`: the
    /// instability rule for each packet missed in between, then the stability rule.
    fn heard(&mut self, now: Time, from: NodeId, seq: u16) {
        let hold = self.cfg.neighb_hold_time;
        let Some(l) = self.links.get_mut(&from) else {
            return;
        };
        if let Some(last) = l.last_seq {
            if seq_newer(seq, last) {
                let missed = seq.wrapping_sub(last).wrapping_sub(1);
                // Eight misses take any quality below the low threshold: no need for more.
                for _ in 0..missed.min(8) {
                    hysteresis_step(l, false, now, hold);
                }
            }
        }
        l.last_seq = Some(seq);
        hysteresis_step(l, true, now, hold);
    }
}

impl Protocol for Olsr {
    fn name(&self) -> &'static str {
        "olsr"
    }

    fn route(
        &mut self,
        _now: Time,
        _pkt: PacketId,
        _src: NodeId,
        dst: NodeId,
        _out: &mut Vec<Act>,
    ) -> Route {
        match self.table.get(&dst) {
            Some(&(next, _)) => Route::Via(next),
            None => Route::Drop(DropCause::NoRoute),
        }
    }

    fn next_hop(&self, _now: Time, dst: NodeId) -> Option<NodeId> {
        self.table.get(&dst).map(|r| r.0)
    }

    fn receive(&mut self, now: Time, from: NodeId, msg: &super::Msg, out: &mut Vec<Act>) {
        let super::Msg::Olsr(p) = msg else { return };
        for m in &p.msgs {
            match m {
                Msg::Hello(h) => self.on_hello(now, from, h),
                Msg::Tc(t) => self.on_tc(now, from, t),
            }
        }
        if self.cfg.hysteresis {
            self.heard(now, from, p.seq);
            self.recompute(now);
        }
        self.flush_outbox(now, out);
    }

    fn link_failed(&mut self, now: Time, to: NodeId, out: &mut Vec<Act>) {
        if !self.cfg.link_feedback {
            return;
        }
        // Section 13: the link is lost; it stays listed as lost for NEIGHB_HOLD_TIME.
        if let Some(l) = self.links.get_mut(&to) {
            if l.sym_until > now {
                l.sym_until = 0;
                l.until = now + self.cfg.neighb_hold_time;
                self.stats.route_breaks += 1;
                self.stats.breaks_link_feedback += 1;
                self.recompute(now);
                out.push(Act::LinkDown(to));
            }
        }
    }

    fn timeout(&mut self, now: Time, out: &mut Vec<Act>) {
        // The symmetric neighbours as of the last update (the table's one-hop routes).
        let had: Vec<NodeId> = self
            .table
            .iter()
            .filter(|(_, r)| r.1 == 1)
            .map(|(d, _)| *d)
            .collect();
        if self.cfg.hysteresis {
            // 14.3: a neighbour silent past its HELLO interval lost a packet.
            let hold = self.cfg.neighb_hold_time;
            for l in self.links.values_mut() {
                if l.overdue < now {
                    hysteresis_step(l, false, now, hold);
                    l.overdue = l.overdue.saturating_add(l.htime.max(1));
                }
            }
        }
        self.recompute(now);
        let sym = self.symmetric(now);
        for n in had.iter().filter(|n| !sym.contains(n)) {
            self.stats.route_breaks += 1;
            self.stats.breaks_hello += 1;
            out.push(Act::LinkDown(*n));
        }
        if now >= self.next_hello {
            let h = Msg::Hello(self.hello(now));
            self.enqueue(now, h);
            self.next_hello = now + self.cfg.hello_interval;
        }
        if now >= self.next_tc {
            if !self.selectors.is_empty() {
                let tc = Tc {
                    orig: self.me,
                    seq: self.next_seq(),
                    ttl: 255,
                    hops: 0,
                    ansn: self.ansn,
                    vtime: self.cfg.top_hold_time,
                    advertised: self.selectors.keys().copied().collect(),
                };
                self.enqueue(now, Msg::Tc(tc));
            }
            self.next_tc = now + self.cfg.tc_interval;
        }
        self.flush_outbox(now, out);
    }

    fn poll_timeout(&self) -> Option<Time> {
        let mut t = self.next_hello.min(self.next_tc);
        for o in &self.outbox {
            t = t.min(o.0);
        }
        // Link expiries change the neighbour set (and so the routes) when they pass.
        for l in self.links.values() {
            for x in [l.sym_until, l.until, l.lost_until] {
                if x >= self.at && x > 0 {
                    t = t.min(x + 1);
                }
            }
            if self.cfg.hysteresis {
                t = t.min(l.overdue.saturating_add(1));
            }
        }
        Some(t)
    }

    fn counters(&self) -> &Counters {
        &self.stats
    }

    fn link_feedback(&self) -> bool {
        self.cfg.link_feedback
    }

    fn on_break(&self) -> OnBreak {
        OnBreak::Drop
    }
}

#[cfg(test)]
#[path = "olsr_tests.rs"]
mod tests;
