//! Dynamic routing: a node component behind one trait ([`Protocol`]). It looks up the next
//! hop of a data packet (or holds the packet while it discovers a route), hears from the node's
//! 802.11 device that a link broke (the MAC gave up on a frame), and sends and receives its own
//! control packets as real frames: broadcast (no ACK, no retries, basic rate) or unicast.
//!
//! Static shortest-path routing (`topology::Routes`) is the first implementation and the
//! default: the node layer calls it directly (no trait object on the hot path) unless the run
//! has a [`Layer`]. A node without a protocol in a run that has one is routed statically.
//!
//! Protocols are sans-IO: fed `now` and inputs, they return [`Act`]s and the time they want
//! to be called again ([`Protocol::poll_timeout`]). They know only what a real node knows:
//! control packets heard, its own table, and the MAC's give-up notices.

pub mod aodv;
pub mod olsr;
pub mod paths;

use crate::engine::{Time, TimerSlot};
use crate::hook::Metric;
use crate::ids::{DevId, NodeId, PacketId};
use crate::packet::{DropCause, RoutingPort};
use std::collections::{BTreeMap, VecDeque};

/// IP (20 bytes) and UDP (8 bytes) headers in front of every control message.
pub const IP_UDP: u32 = 28;

/// A control packet, as its protocol's RFC lays it out (sizes in [`Msg::wire_size`]): one
/// AODV message, or an OLSR packet of one or more messages.
#[derive(Clone, Debug, PartialEq)]
pub enum Msg {
    Aodv(aodv::Msg),
    Olsr(olsr::Packet),
}

impl Msg {
    /// Bytes on the wire, IP and UDP headers included.
    pub fn wire_size(&self) -> u32 {
        IP_UDP
            + match self {
                Msg::Aodv(m) => m.bytes(),
                Msg::Olsr(m) => m.bytes(),
            }
    }
    /// The message type (`rreq`, `rrep`, `rerr`, `hello`, `tc`; an OLSR packet's first
    /// message's).
    pub fn kind(&self) -> &'static str {
        match self {
            Msg::Aodv(m) => m.kind(),
            Msg::Olsr(p) => p.msgs.first().map_or("hello", |m| m.kind()),
        }
    }
    /// The messages in the packet with their bytes, for the per-type counters: an AODV
    /// packet is its message (bytes on the wire); an OLSR packet's messages count their own
    /// header and body.
    pub fn parts(&self, mut f: impl FnMut(&'static str, u32)) {
        match self {
            Msg::Aodv(m) => f(m.kind(), self.wire_size()),
            Msg::Olsr(p) => {
                for m in &p.msgs {
                    f(m.kind(), m.bytes());
                }
            }
        }
    }
    pub fn port(&self) -> RoutingPort {
        match self {
            Msg::Aodv(_) => RoutingPort::Aodv,
            Msg::Olsr(_) => RoutingPort::Olsr,
        }
    }
}

/// What a protocol decided for a data packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// Send it to this neighbour.
    Via(NodeId),
    /// The protocol keeps it (waiting for a route); it comes back as [`Act::Forward`] or
    /// [`Act::Drop`].
    Held,
    Drop(DropCause),
}

/// What a protocol asks its node to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Act {
    /// Send a control message to a neighbour, or to every neighbour in range
    /// ([`crate::device::BROADCAST`]).
    Send { to: NodeId, msg: Msg },
    /// A held data packet now has a route.
    Forward { pkt: PacketId, via: NodeId },
    /// A held data packet is given up.
    Drop { pkt: PacketId, cause: DropCause },
    /// The link to this neighbour broke: what the MAC still has queued for it is dropped or
    /// routed again ([`OnBreak`]).
    LinkDown(NodeId),
}

/// What happens to the packets queued at the MAC for a neighbour whose link broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OnBreak {
    /// Dropped, cause `route_break`.
    Drop,
    /// Handed back to the routing layer, which routes them again (a source holds them for a
    /// new discovery; a relay without a route drops them).
    Salvage,
    /// Left in the MAC's queue, which sends them as it would have (ns-3's AODV).
    Keep,
}

/// Event counters every protocol keeps (columns of the `routing` table).
#[derive(Clone, Debug, Default)]
pub struct Counters {
    /// Route discoveries started (AODV: each destination a node looked for).
    pub discoveries: u64,
    /// Discoveries that ended without a route (RREQ_RETRIES used up).
    pub discoveries_failed: u64,
    /// Links declared broken (MAC feedback or lost HELLOs).
    pub route_breaks: u64,
    pub breaks_link_feedback: u64,
    pub breaks_hello: u64,
    /// Routing table entries invalidated by a break or an RERR.
    pub routes_invalidated: u64,
    /// Data packets held while a route was looked for, and those given up.
    pub held: u64,
    pub held_expired: u64,
    pub held_overflow: u64,
    /// AODV `control_routed`: control messages held for a route to their neighbour, and
    /// those given up.
    pub control_held: u64,
    pub control_dropped: u64,
}

/// A routing protocol at one node.
pub trait Protocol {
    fn name(&self) -> &'static str;
    /// A data packet `pkt` from `src` to `dst` is at this node (originated here if `src` is
    /// this node): where does it go?
    fn route(
        &mut self,
        now: Time,
        pkt: PacketId,
        src: NodeId,
        dst: NodeId,
        out: &mut Vec<Act>,
    ) -> Route;
    /// The neighbour its table names toward `dst` at `now`, without using the route (for
    /// inspection: tools, tests).
    fn next_hop(&self, now: Time, dst: NodeId) -> Option<NodeId>;
    /// A data packet from `src` reached this node, its destination.
    fn delivered(&mut self, _now: Time, _src: NodeId) {}
    /// A control message from neighbour `from`.
    fn receive(&mut self, now: Time, from: NodeId, msg: &Msg, out: &mut Vec<Act>);
    /// The MAC gave up on a frame for neighbour `to` (retry limit).
    fn link_failed(&mut self, now: Time, to: NodeId, out: &mut Vec<Act>);
    /// Its timer fired.
    fn timeout(&mut self, now: Time, out: &mut Vec<Act>);
    /// When it wants [`timeout`](Self::timeout) called.
    fn poll_timeout(&self) -> Option<Time>;
    fn counters(&self) -> &Counters;
    /// Whether MAC give-ups reach [`link_failed`](Self::link_failed).
    fn link_feedback(&self) -> bool;
    /// What happens to the MAC's packets for a broken link.
    fn on_break(&self) -> OnBreak;
    /// Data packets it holds (waiting for a route).
    fn held(&self) -> usize {
        0
    }
}

/// Data packets held until a route is found (AODV's buffer during discovery): bounded in
/// packets and in time; FIFO per destination.
#[derive(Clone, Debug, Default)]
pub struct Held {
    q: VecDeque<(PacketId, NodeId, Time)>,
    pub capacity: usize,
    pub timeout: Time,
}

impl Held {
    pub fn new(capacity: usize, timeout: Time) -> Held {
        Held {
            q: VecDeque::new(),
            capacity,
            timeout,
        }
    }
    /// Hold `pkt` for `dst`; false if the buffer is full.
    pub fn push(&mut self, now: Time, pkt: PacketId, dst: NodeId) -> bool {
        if self.q.len() >= self.capacity {
            return false;
        }
        self.q.push_back((pkt, dst, now));
        true
    }
    /// Take every packet held for `dst`, oldest first.
    pub fn take(&mut self, dst: NodeId) -> Vec<PacketId> {
        let mut out = Vec::new();
        self.q.retain(|&(p, d, _)| {
            if d == dst {
                out.push(p);
                false
            } else {
                true
            }
        });
        out
    }
    /// Take the packets held `timeout` or longer.
    pub fn expire(&mut self, now: Time) -> Vec<PacketId> {
        let mut out = Vec::new();
        while let Some(&(p, _, since)) = self.q.front() {
            if since + self.timeout > now {
                break;
            }
            out.push(p);
            self.q.pop_front();
        }
        out
    }
    /// When the oldest packet expires.
    pub fn next_expiry(&self) -> Option<Time> {
        self.q.front().map(|&(_, _, since)| since + self.timeout)
    }
    pub fn len(&self) -> usize {
        self.q.len()
    }
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

/// Control messages in flight, by slot (`Wire::udp_seq`): a broadcast's copies all read the
/// sender's slot, which is freed when the frame is done; a unicast's when it is received or
/// dropped.
#[derive(Default)]
pub struct Msgs {
    slots: Vec<Option<Msg>>,
    free: Vec<u32>,
}

impl Msgs {
    pub fn put(&mut self, m: Msg) -> u32 {
        match self.free.pop() {
            Some(k) => {
                self.slots[k as usize] = Some(m);
                k
            }
            None => {
                self.slots.push(Some(m));
                (self.slots.len() - 1) as u32
            }
        }
    }
    pub fn get(&self, k: u32) -> Option<&Msg> {
        self.slots.get(k as usize).and_then(|m| m.as_ref())
    }
    pub fn release(&mut self, k: u32) {
        if let Some(s) = self.slots.get_mut(k as usize) {
            if s.take().is_some() {
                self.free.push(k);
            }
        }
    }
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

impl Layer {
    /// Data packets the protocols hold, and control packets in flight (each on one device).
    pub fn packets(&self) -> (u64, u64) {
        let held = self.agents.iter().flatten().map(|a| a.held() as u64).sum();
        (held, self.msgs.live() as u64)
    }
}

/// Control traffic of one node, by message type.
#[derive(Clone, Debug, Default)]
pub struct Overhead {
    /// Control packets sent and their bytes on the wire.
    pub packets: u64,
    pub bytes: u64,
    /// (type, messages, bytes) sent, in order of first use (AODV: one message per packet).
    pub sent: Vec<(&'static str, u64, u64)>,
    pub received: u64,
    pub received_bytes: u64,
    /// Control packets lost (MAC give-up, queue full, link down).
    pub dropped: u64,
    /// Data packets taken off the MAC queue when their link broke: dropped or salvaged.
    pub mac_queue_dropped: u64,
    pub mac_queue_salvaged: u64,
}

impl Overhead {
    /// A control packet sent: counted, and each of its messages by type.
    pub fn count_packet(&mut self, msg: &Msg) {
        self.packets += 1;
        self.bytes += msg.wire_size() as u64;
        msg.parts(|kind, bytes| self.count_sent(kind, bytes));
    }
    pub fn count_sent(&mut self, kind: &'static str, bytes: u32) {
        match self.sent.iter_mut().find(|e| e.0 == kind) {
            Some(e) => {
                e.1 += 1;
                e.2 += bytes as u64;
            }
            None => self.sent.push((kind, 1, bytes as u64)),
        }
    }
    pub fn packets(&self) -> u64 {
        self.packets
    }
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

/// The routing protocols of a run's nodes, their radios, timers and control messages.
pub struct Layer {
    /// Per node: its protocol (None: static routing).
    pub agents: Vec<Option<Box<dyn Protocol>>>,
    /// Per node: the device its protocol sends and receives on.
    pub radio: Vec<Option<DevId>>,
    pub timers: Vec<TimerSlot>,
    pub msgs: Msgs,
    pub overhead: Vec<Overhead>,
    /// Reused action buffers (one per nesting level of protocol calls).
    pub spare: Vec<Vec<Act>>,
    /// The flows' paths (`trace.routes`; None: not recorded).
    pub paths: Option<Box<paths::PathLog>>,
}

impl Layer {
    pub fn new(agents: Vec<Option<Box<dyn Protocol>>>, radio: Vec<Option<DevId>>) -> Layer {
        let n = agents.len();
        Layer {
            agents,
            radio,
            timers: vec![TimerSlot::default(); n],
            msgs: Msgs::default(),
            overhead: vec![Overhead::default(); n],
            spare: Vec::new(),
            paths: None,
        }
    }

    /// The `routing` table's row of node `n`, if it runs a protocol.
    pub fn row(&self, n: usize) -> Option<BTreeMap<&'static str, Metric>> {
        let a = self.agents[n].as_ref()?;
        let o = &self.overhead[n];
        let c = a.counters();
        let mut m = BTreeMap::new();
        let mut put = |k, v| {
            m.insert(k, Metric::Count(v));
        };
        put("control_packets", o.packets());
        put("control_bytes", o.bytes());
        for kind in KINDS {
            let e = o.sent.iter().find(|e| e.0 == kind);
            put(kind_column(kind, false), e.map_or(0, |e| e.1));
            put(kind_column(kind, true), e.map_or(0, |e| e.2));
        }
        put("control_received", o.received);
        put("control_received_bytes", o.received_bytes);
        put("control_dropped", o.dropped);
        put("discoveries", c.discoveries);
        put("discoveries_failed", c.discoveries_failed);
        put("route_breaks", c.route_breaks);
        put("breaks_link_feedback", c.breaks_link_feedback);
        put("breaks_hello", c.breaks_hello);
        put("routes_invalidated", c.routes_invalidated);
        put("held", c.held);
        put("held_expired", c.held_expired);
        put("held_overflow", c.held_overflow);
        put("control_held", c.control_held);
        put("control_held_dropped", c.control_dropped);
        put("mac_queue_dropped", o.mac_queue_dropped);
        put("mac_queue_salvaged", o.mac_queue_salvaged);
        Some(m)
    }
}

/// Every control message type, in the `routing` table's column order.
pub const KINDS: [&str; 6] = ["rreq", "rrep", "rerr", "hello", "tc", "rrep_ack"];

fn kind_column(kind: &str, bytes: bool) -> &'static str {
    match (kind, bytes) {
        ("rreq", false) => "rreq_packets",
        ("rreq", true) => "rreq_bytes",
        ("rrep", false) => "rrep_packets",
        ("rrep", true) => "rrep_bytes",
        ("rerr", false) => "rerr_packets",
        ("rerr", true) => "rerr_bytes",
        ("hello", false) => "hello_packets",
        ("hello", true) => "hello_bytes",
        ("tc", false) => "tc_packets",
        ("tc", true) => "tc_bytes",
        ("rrep_ack", false) => "rrep_ack_packets",
        _ => "rrep_ack_bytes",
    }
}

/// A uniform jitter in [0, max) from `rng` (broadcasts are jittered so that neighbours
/// relaying one flood do not all send at once: RFC 3626 section 3.5, RFC 5148).
pub fn jitter(rng: &mut crate::engine::Rng, max: Time) -> Time {
    if max == 0 {
        0
    } else {
        rng.below(max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_packets_leave_by_destination_and_by_age() {
        let mut h = Held::new(3, 10);
        assert!(h.push(0, PacketId(1), NodeId(5)));
        assert!(h.push(2, PacketId(2), NodeId(6)));
        assert!(h.push(4, PacketId(3), NodeId(5)));
        assert!(!h.push(4, PacketId(4), NodeId(5)), "full at capacity");
        assert_eq!(h.take(NodeId(5)), vec![PacketId(1), PacketId(3)]);
        assert_eq!(h.next_expiry(), Some(12));
        assert!(h.expire(11).is_empty());
        assert_eq!(h.expire(12), vec![PacketId(2)]);
        assert!(h.is_empty());
    }

    #[test]
    fn message_slots_are_reused_after_release() {
        let mut m = Msgs::default();
        let hello = Msg::Aodv(aodv::Msg::Rerr(aodv::Rerr { dests: vec![] }));
        let a = m.put(hello.clone());
        let b = m.put(hello.clone());
        m.release(a);
        m.release(a); // a second release is harmless
        assert_eq!(m.live(), 1);
        assert_eq!(m.put(hello), a);
        assert!(m.get(b).is_some());
    }
}
