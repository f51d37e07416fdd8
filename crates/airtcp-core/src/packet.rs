//! Packet headers, tags and the packet arena.

use crate::engine::Time;
use crate::ids::{FlowId, NodeId, PacketId};
use serde::Serialize;

/// The 2-bit ECN field of the IP header (RFC 3168). Multi-level ECN schemes read the same two
/// bits as four congestion levels, so the raw value is kept rather than a boolean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Ecn(pub u8);

impl Ecn {
    pub const NOT_ECT: Ecn = Ecn(0b00);
    pub const ECT1: Ecn = Ecn(0b01);
    pub const ECT0: Ecn = Ecn(0b10);
    pub const CE: Ecn = Ecn(0b11);

    pub fn bits(self) -> u8 {
        self.0 & 0b11
    }
    pub fn is_ect(self) -> bool {
        self.bits() != 0
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct IpHeader {
    pub ecn: Ecn,
    pub ttl: u8,
    /// Rate-adjustment index written by routers (minimum along the path), if any.
    pub rate_index: Option<f32>,
    /// Explicit rate in bits/s written by routers (minimum along the path), if any. f32 keeps
    /// the header small; its 24-bit mantissa resolves rates to 1 part in 10^7.
    pub explicit_rate: Option<f32>,
}

pub mod flags {
    pub const SYN: u8 = 1 << 0;
    pub const ACK: u8 = 1 << 1;
    pub const FIN: u8 = 1 << 2;
    /// ECN-Echo (RFC 3168).
    pub const ECE: u8 = 1 << 3;
    /// Congestion Window Reduced (RFC 3168).
    pub const CWR: u8 = 1 << 4;
    /// Explicit Loss Notification: the segment this ACK reports missing was lost to a channel
    /// error, not to congestion.
    pub const ELN: u8 = 1 << 5;
}

/// A SACK block: bytes [start, end) held by the receiver above the cumulative ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    pub start: u64,
    pub end: u64,
}

pub const MAX_SACK_BLOCKS: usize = 3;

/// TCP header. Sequence numbers are 64-bit byte offsets that never wrap within a run.
#[derive(Clone, Copy, Debug, Default)]
pub struct TcpHeader {
    pub seq: u64,
    pub ack: u64,
    /// Payload bytes carried.
    pub len: u32,
    pub flags: u8,
    /// Two bits a receiver uses to echo a multi-level ECN codepoint back to the sender.
    pub ecn_echo: u8,
    /// Advertised receive window in bytes.
    pub wnd: u64,
    pub sack: [SackBlock; MAX_SACK_BLOCKS],
    pub n_sack: u8,
    /// Timestamp option (RFC 7323), in nanoseconds of simulated time.
    pub ts_val: Time,
    pub ts_ecr: Time,
    /// Router-written rate index of the data segment(s) this ACK answers, echoed by the
    /// receiver (an option on the wire).
    pub rate_index_echo: Option<f32>,
    /// Router-written explicit rate (bits/s) echoed by the receiver, likewise.
    pub explicit_rate_echo: Option<f32>,
}

impl TcpHeader {
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
    pub fn sack_blocks(&self) -> &[SackBlock] {
        &self.sack[..self.n_sack as usize]
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proto {
    Tcp,
    Udp,
    /// A routing protocol's control packet (UDP on the wire: port 654 for AODV, 698 for
    /// OLSR). `Wire::udp_seq` names its message in the routing layer (`routing::Msgs`);
    /// `Wire::flow` means nothing.
    Routing(RoutingPort),
}

/// Which routing protocol a control packet belongs to (its UDP port).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoutingPort {
    Aodv,
    Olsr,
}

impl RoutingPort {
    /// The protocol's registered UDP port (RFC 3561 section 10, RFC 3626 section 18.1).
    pub fn port(self) -> u16 {
        match self {
            RoutingPort::Aodv => 654,
            RoutingPort::Olsr => 698,
        }
    }
}

/// Why a packet was dropped: the simulator's ground truth, against which loss classifiers are
/// scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropCause {
    QueueOverflow,
    Aqm,
    ChannelError,
    NoRoute,
    TtlExpired,
    /// Consumed on purpose by a node agent (a duplicate ACK Snoop keeps from the sender).
    Suppressed,
    /// A shared-medium MAC gave up (retry limit) after attempts lost to contention:
    /// collisions, or a receiver that could not answer because it sensed another exchange.
    Collision,
    /// Dynamic routing: the route the packet was on broke (its next hop was declared lost
    /// while the packet waited at the MAC, or it reached a node whose route had been
    /// invalidated).
    RouteBreak,
}

impl DropCause {
    pub const ALL: [DropCause; 8] = [
        DropCause::QueueOverflow,
        DropCause::Aqm,
        DropCause::ChannelError,
        DropCause::NoRoute,
        DropCause::TtlExpired,
        DropCause::Suppressed,
        DropCause::Collision,
        DropCause::RouteBreak,
    ];
    pub fn name(self) -> &'static str {
        match self {
            DropCause::QueueOverflow => "queue_overflow",
            DropCause::Aqm => "aqm",
            DropCause::ChannelError => "channel_error",
            DropCause::NoRoute => "no_route",
            DropCause::TtlExpired => "ttl_expired",
            DropCause::Suppressed => "suppressed",
            DropCause::Collision => "collision",
            DropCause::RouteBreak => "route_break",
        }
    }
    pub fn index(self) -> usize {
        self as usize
    }
    /// Whether the loss is a sign of congestion (as opposed to the wireless channel). MAC
    /// contention losses count as congestion: they grow with the load the flows offer to the
    /// shared medium, not with the channel's quality.
    pub fn is_congestion(self) -> bool {
        matches!(
            self,
            DropCause::QueueOverflow | DropCause::Aqm | DropCause::Collision
        )
    }
}

/// What travels on the wire: addresses, headers and sizes. Hooks and endpoints see only this.
/// `flow` stands for the connection's 5-tuple (addresses, ports, protocol), which any node on
/// the path can read.
#[derive(Clone, Copy, Debug)]
pub struct Wire {
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    /// Bytes on the wire (headers included): what links serialize.
    pub size: u32,
    pub proto: Proto,
    pub ip: IpHeader,
    pub tcp: TcpHeader,
    /// UDP datagram number.
    pub udp_seq: u64,
}

/// Facts only the simulator knows about a packet: kept apart from the wire so no mechanism
/// can read them by accident.
#[derive(Clone, Copy, Debug, Default)]
pub struct Meta {
    pub created: Time,
    /// The sending endpoint marked this segment a retransmission (for statistics).
    pub retx: bool,
    /// Link-layer transmission attempts on the current hop (device state: ARQ, MAC retries).
    pub link_tries: u8,
    /// The next packet of the `PacketList` this one is on (device state).
    next: u32,
    /// When that next packet is due (device state): kept here so that taking this packet off
    /// the list yields its successor's time without touching the successor.
    next_due: Time,
}

/// A packet in the network: its wire contents and the simulator's facts about it. Derefs to
/// the wire, so `pkt.tcp.seq` reads the header.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub wire: Wire,
    pub meta: Meta,
}

impl std::ops::Deref for Packet {
    type Target = Wire;
    fn deref(&self) -> &Wire {
        &self.wire
    }
}

impl std::ops::DerefMut for Packet {
    fn deref_mut(&mut self) -> &mut Wire {
        &mut self.wire
    }
}

impl Packet {
    pub fn new(wire: Wire, created: Time) -> Packet {
        Packet {
            wire,
            meta: Meta {
                created,
                ..Default::default()
            },
        }
    }
}

impl Wire {
    /// Carries application payload (as opposed to a pure ACK).
    pub fn is_data(&self) -> bool {
        self.proto == Proto::Udp || self.tcp.len > 0
    }
}

/// Arena of live packets with a free list: packets are recycled, so the steady state allocates
/// nothing per packet.
#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<u32>,
    live: usize,
}

impl PacketPool {
    pub fn alloc(&mut self, p: Packet) -> PacketId {
        self.live += 1;
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = p;
            PacketId(i)
        } else {
            self.slots.push(p);
            PacketId((self.slots.len() - 1) as u32)
        }
    }
    /// [`alloc`](Self::alloc) of the packet `make` returns, built where it is stored (a
    /// packet is about 200 bytes; an endpoint sends one per segment or ACK).
    #[inline]
    pub fn alloc_with(&mut self, make: impl FnOnce() -> Packet) -> PacketId {
        self.live += 1;
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = make();
            PacketId(i)
        } else {
            self.slots.push(make());
            PacketId((self.slots.len() - 1) as u32)
        }
    }
    pub fn free(&mut self, id: PacketId) {
        self.live -= 1;
        self.free.push(id.0);
    }
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id.0 as usize]
    }
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id.0 as usize]
    }
    pub fn live(&self) -> usize {
        self.live
    }
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
    /// Bytes the arena holds on the heap (slots never shrink: a run's peak stays allocated).
    pub fn heap_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Packet>() + self.free.capacity() * 4
    }
}

/// A first-in first-out list of packets linked through the arena, each with a time (a link's
/// frames in propagation and when each reaches the far end), so that a device's list costs no
/// memory of its own: the number of frames in flight at a busy access link would otherwise
/// size a buffer per link direction. Each packet holds its successor and the successor's time,
/// so taking the head off reads only the head, which its taker is about to read anyway, and
/// not the successor, which has usually gone cold in the cache since it joined the list.
#[derive(Clone, Copy, Debug)]
pub struct PacketList {
    head: u32,
    tail: u32,
    len: u32,
    head_due: Time,
}

impl Default for PacketList {
    fn default() -> Self {
        PacketList {
            head: NO_PACKET,
            tail: NO_PACKET,
            len: 0,
            head_due: 0,
        }
    }
}

const NO_PACKET: u32 = u32::MAX;

impl PacketList {
    pub fn len(&self) -> usize {
        self.len as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The first packet and its time.
    pub fn front(&self) -> Option<(PacketId, Time)> {
        (self.len > 0).then_some((PacketId(self.head), self.head_due))
    }
    /// Append `id` with its time `due`; `id` must be on no list, and must stay in the arena
    /// until taken off.
    #[inline]
    pub fn push_back(&mut self, pool: &mut PacketPool, id: PacketId, due: Time) {
        pool.get_mut(id).meta.next = NO_PACKET;
        if self.len == 0 {
            self.head = id.0;
            self.head_due = due;
        } else {
            let tail = &mut pool.get_mut(PacketId(self.tail)).meta;
            tail.next = id.0;
            tail.next_due = due;
        }
        self.tail = id.0;
        self.len += 1;
    }
    #[inline]
    pub fn pop_front(&mut self, pool: &PacketPool) -> Option<PacketId> {
        let (id, _) = self.front()?;
        let meta = &pool.get(id).meta;
        self.head = meta.next;
        self.head_due = meta.next_due;
        self.len -= 1;
        Some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_lists_are_first_in_first_out_and_independent() {
        let mut pool = PacketPool::default();
        let ids: Vec<PacketId> = (0..6)
            .map(|i| pool.alloc(Packet::new(sample_wire(), i)))
            .collect();
        let (mut a, mut b) = (PacketList::default(), PacketList::default());
        assert_eq!((a.front(), a.pop_front(&pool)), (None, None));
        for (k, &id) in ids.iter().enumerate() {
            if k % 2 == 0 {
                a.push_back(&mut pool, id, 100 + k as Time);
            } else {
                b.push_back(&mut pool, id, 200 + k as Time);
            }
        }
        assert_eq!((a.len(), b.len()), (3, 3));
        assert_eq!(a.front(), Some((ids[0], 100)));
        assert_eq!(a.pop_front(&pool), Some(ids[0]));
        assert_eq!(a.front(), Some((ids[2], 102)));
        // A packet taken off one list may join another, with a new time.
        b.push_back(&mut pool, ids[0], 300);
        let drain = |l: &mut PacketList| {
            std::iter::from_fn(|| {
                let head = l.front();
                l.pop_front(&pool);
                head
            })
            .collect::<Vec<_>>()
        };
        assert_eq!(drain(&mut a), [(ids[2], 102), (ids[4], 104)]);
        assert_eq!(
            drain(&mut b),
            [(ids[1], 201), (ids[3], 203), (ids[5], 205), (ids[0], 300)]
        );
        assert!(a.is_empty() && b.is_empty());
    }

    #[test]
    fn ecn_codepoints() {
        assert!(!Ecn::NOT_ECT.is_ect());
        assert!(Ecn::ECT0.is_ect() && Ecn::ECT1.is_ect() && Ecn::CE.is_ect());
        assert_eq!(Ecn::CE.bits(), 3);
        assert_eq!(Ecn::ECT0.bits(), 2);
    }

    fn sample_wire() -> Wire {
        Wire {
            flow: FlowId(0),
            src: NodeId(0),
            dst: NodeId(1),
            size: 40,
            proto: Proto::Tcp,
            ip: IpHeader::default(),
            tcp: TcpHeader::default(),
            udp_seq: 0,
        }
    }

    #[test]
    fn pool_recycles_slots() {
        let mut pool = PacketPool::default();
        let p = Packet::new(sample_wire(), 0);
        let a = pool.alloc(p);
        let b = pool.alloc(p);
        assert_eq!(pool.live(), 2);
        pool.free(a);
        let c = pool.alloc(p);
        assert_eq!(c, a);
        assert_ne!(b, c);
        assert_eq!(pool.capacity(), 2);
    }
}
