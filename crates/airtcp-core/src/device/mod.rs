//! Devices: a node's attachment to a link or a medium. A device takes packets for a next-hop
//! node (`enqueue`), runs its own transmitter or MAC on its own events and timers, keeps its
//! counters, and reports what left the network (received by a node, or dropped with a cause)
//! through [`DevOut`]. Point-to-point ([`p2p::P2p`]) is the first device; shared-medium MACs
//! are further implementations of [`Device`].

pub mod bianchi;
pub mod p2p;
pub mod tdma;
pub mod wifi;

pub use p2p::{Arq, P2p};
pub use tdma::{Owner as TdmaOwner, Tdma, TdmaDev};
pub use wifi::{WifiDev, WifiNet};

use crate::engine::{Tie, Time};
use crate::hook::Metric;
use crate::ids::{DevId, NodeId, PacketId};
use crate::link::SnrSeries;
use crate::packet::{DropCause, PacketPool, Wire};
use crate::stats::LinkResult;
use std::collections::BTreeMap;

/// Events a device schedules for itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DevEv {
    /// The transmitter finished sending its current frame.
    TxDone,
    /// A frame reached the receiving end of the medium.
    Arrive(PacketId),
    /// A frame the link layer must send again (its link ACK did not come).
    Retry(PacketId),
    /// A frame the channel corrupted reaches the end of its serialization (devices that
    /// schedule frames on acceptance).
    Lost(PacketId),
    /// A device-defined timer (MAC slots, backoff, ...).
    Timer(u32),
}

/// What a device hands back to the node layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DevOut {
    /// The packet left the network here, for this cause. The device counted it already.
    Drop(PacketId, DropCause),
    /// `node` received the packet.
    Receive(NodeId, PacketId),
    /// A frame sent without acknowledgement (a broadcast) is done: every receiver got its
    /// own copy, and this packet ends here (not a drop).
    Sent(PacketId),
}

/// The next hop of a packet for every neighbour in range: an 802.11 broadcast frame.
pub const BROADCAST: NodeId = NodeId(u32::MAX);

/// What a node can learn of a frame lost on one of its links, and nothing more: never why it
/// was lost (bit errors, a collision). The simulator's cause stays in the drop counts, for
/// scoring; node hooks hear only these ([`crate::hook::Hook::on_link_loss`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkLoss {
    /// This node's device discarded the packet from its queue (overflow or queue policy).
    Queue(DevId),
    /// This node's device gave up on the frame: no link acknowledgement after its retry
    /// limit. The sender cannot tell bit errors from collisions or from a lost
    /// acknowledgement (the peer may even have the packet).
    GaveUp(DevId),
    /// A frame from neighbour `from` reached this node damaged: its check failed but its
    /// header was readable (TDMA links and point-to-point links without ARQ, whose receivers
    /// report the damaged frame's identity; with ARQ the frame is resent, and an 802.11
    /// receiver reports nothing).
    Damaged { from: NodeId },
}

/// A [`LinkLoss`] for the hooks of `node`, which learn it at `at` (not before: a receiver
/// sees a damaged frame one propagation delay after its sender finished it).
#[derive(Clone, Copy, Debug)]
pub struct LossNote {
    pub node: NodeId,
    pub at: Time,
    pub loss: LinkLoss,
    pub wire: Wire,
    /// The neighbour the lost frame was for, where the device knows it (an 802.11 station
    /// giving up on a unicast frame): what a routing layer needs to declare the link broken.
    pub next_hop: Option<NodeId>,
}

/// Where a device's events go: the simulator's event heap, which wraps them in its own event
/// type (devices do not know it). `tie` places the event among others at the same instant.
pub trait DevSched {
    fn dev_at(&mut self, at: Time, tie: Tie, dev: DevId, ev: DevEv);
    /// A place among the events scheduled at an instant, taken now for an event scheduled
    /// later (`Tie::Reserved`).
    fn reserve(&mut self) -> u64;
}

/// What a device may touch while it handles a call: the clock, the event heap (its own events
/// only, through [`DevCtx::at`]), the packet arena and the channel's SNR series. Devices behind
/// the [`Device`] trait see the heap through a trait object; the point-to-point link, called
/// statically by the engine, through the concrete scheduler.
pub struct DevCtx<'a, S: DevSched + ?Sized = dyn DevSched> {
    pub now: Time,
    pub sched: &'a mut S,
    pub pool: &'a mut PacketPool,
    pub snr: &'a [SnrSeries],
    pub out: &'a mut Vec<DevOut>,
    /// What nodes may learn of lost frames (a MAC giving up, a damaged frame received).
    pub notes: &'a mut Vec<LossNote>,
    /// Frames put on the medium (each transmission of a packet over one hop).
    pub packet_hops: &'a mut u64,
}

impl<S: DevSched + ?Sized> DevCtx<'_, S> {
    /// Schedule `ev` for device `dev` at `at`.
    #[inline]
    pub fn at(&mut self, at: Time, dev: DevId, ev: DevEv) {
        self.sched.dev_at(at, Tie::Scheduled, dev, ev);
    }

    /// Take the place among same-instant events that [`DevCtx::at`] would take now, for
    /// [`DevCtx::at_reserved`] to use later.
    #[inline]
    pub fn reserve(&mut self) -> u64 {
        self.sched.reserve()
    }

    /// Schedule `ev` for `dev` at `at` in the place reserved as `seq`: the same order of
    /// events as scheduling it when `seq` was reserved.
    #[inline]
    pub fn at_reserved(&mut self, at: Time, seq: u64, dev: DevId, ev: DevEv) {
        self.sched.dev_at(at, Tie::Reserved(seq), dev, ev);
    }

    /// Schedule the end of a transmission of `dev` (it runs before other events at `at`);
    /// a device has at most one at an instant.
    #[inline]
    pub fn at_end(&mut self, at: Time, dev: DevId, ev: DevEv) {
        self.sched.dev_at(at, Tie::End(dev.0), dev, ev);
    }

    /// Schedule an arrival at the far end of `dev`'s link (after ends, before other events
    /// at `at`); a device has at most one at an instant.
    #[inline]
    pub fn at_arrival(&mut self, at: Time, dev: DevId, ev: DevEv) {
        self.sched.dev_at(at, Tie::Arrival(dev.0), dev, ev);
    }
}

impl<'a, S: DevSched + 'static> DevCtx<'a, S> {
    /// The same context with the scheduler behind a trait object, for a call through
    /// [`Device`].
    #[inline]
    pub fn as_dyn(&mut self) -> DevCtx<'_> {
        DevCtx {
            now: self.now,
            sched: self.sched,
            pool: self.pool,
            snr: self.snr,
            out: self.out,
            notes: self.notes,
            packet_hops: self.packet_hops,
        }
    }
}

/// The state of an output device as a node hook sees it (what a router knows of its own
/// interface).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeviceView {
    pub dev: DevId,
    /// The node the packet goes to next.
    pub next_hop: NodeId,
    pub rate_bps: u64,
    /// The rate the device can offer its next hop: the link rate, or for a TDMA link its
    /// slot share of it.
    pub offered_bps: u64,
    pub queue_packets: usize,
    pub queue_bytes: u64,
    /// Share of the time so far the transmitter was busy.
    pub utilization: f64,
    pub wireless: bool,
}

pub trait Device {
    /// The node this device belongs to.
    fn node(&self) -> NodeId;
    /// Take a packet to send to `next_hop`; may drop it (queue full, AQM).
    fn enqueue(&mut self, me: DevId, ctx: &mut DevCtx, pkt: PacketId, next_hop: NodeId);
    /// Take a packet to send before anything queued (a local retransmission); bypasses the
    /// queue policy.
    fn enqueue_front(&mut self, me: DevId, ctx: &mut DevCtx, pkt: PacketId, next_hop: NodeId);
    /// One of this device's own events.
    fn handle(&mut self, me: DevId, ctx: &mut DevCtx, ev: DevEv);
    /// Packets this device holds: queued, being sent, on the medium, waiting to be resent.
    fn in_network(&self) -> u64;
    /// Packets waiting in the interface queue.
    fn queue_len(&self) -> usize;
    fn view(&self, me: DevId, now: Time, next_hop: NodeId) -> DeviceView;
    /// The SNR series of the channel this device sends on, if its error model has one.
    fn snr_series(&self) -> Option<usize> {
        None
    }
    /// Bring state read from outside the device's own events (queue length) up to `now`;
    /// for devices that settle their queue lazily.
    fn settle_to(&mut self, _now: Time) {}
    /// Packet-hops this device counted for frames due to start at or after `end` (a device
    /// that counts a frame when it accepts it); the run takes them back out.
    fn unstarted(&self, _end: Time) -> u64 {
        0
    }
    /// Take the packets queued for `next_hop` out of the queue (a routing layer heard that
    /// the link to it broke); devices with one peer keep theirs.
    fn take_queued_for(&mut self, _now: Time, _next_hop: NodeId) -> Vec<PacketId> {
        Vec::new()
    }
    /// A hook at this device's node sends packets ahead of its queue (`Hook::sends_ahead_of_queue`).
    fn allow_sends_ahead(&mut self) {}
    /// Close time integrals at the end of the run.
    fn finish(&mut self, end: Time);
    /// The device's row in the `links` table (point-to-point devices).
    fn link_result(&self, _nodes: &[crate::topology::Node], _end: Time) -> Option<LinkResult> {
        None
    }
    /// The device's row in the `macs` table (stations of shared media).
    fn mac_result(&self, _end: Time) -> Option<MacResult> {
        None
    }
    /// The device's name (`A->B` for a link direction).
    fn name(&self) -> &str;
    /// For inspection in tests and tools (`Sim::device::<P2p>`).
    fn as_any(&self) -> &dyn std::any::Any;
}

/// A row of the result's `macs` table: one per station of a shared medium.
#[derive(serde::Serialize, Debug, Clone)]
pub struct MacResult {
    pub medium: String,
    pub kind: &'static str,
    pub node: String,
    #[serde(flatten)]
    pub metrics: BTreeMap<&'static str, Metric>,
}

impl MacResult {
    pub fn count(&self, name: &str) -> u64 {
        match self.metrics.get(name) {
            Some(Metric::Count(n)) => *n,
            _ => 0,
        }
    }
    pub fn real(&self, name: &str) -> f64 {
        match self.metrics.get(name) {
            Some(Metric::Real(x)) => *x,
            Some(Metric::Count(n)) => *n as f64,
            None => f64::NAN,
        }
    }
}

/// A device in the simulator's arena. The point-to-point device carries nearly every packet of
/// wired scenarios, so it is dispatched statically (the compiler inlines it into the event
/// loop); any other device goes through the trait. The point-to-point variant is stored
/// inline on purpose: devices live in one arena and are touched on every hop.
#[allow(clippy::large_enum_variant)]
pub enum AnyDevice {
    P2p(P2p),
    Other(Box<dyn Device>),
}

impl AnyDevice {
    #[inline]
    pub fn enqueue<S: DevSched + 'static>(
        &mut self,
        me: DevId,
        ctx: &mut DevCtx<S>,
        pkt: PacketId,
        next_hop: NodeId,
    ) {
        match self {
            AnyDevice::P2p(d) => d.enqueue_in(me, ctx, pkt, next_hop),
            AnyDevice::Other(d) => d.enqueue(me, &mut ctx.as_dyn(), pkt, next_hop),
        }
    }

    #[inline]
    pub fn enqueue_front<S: DevSched + 'static>(
        &mut self,
        me: DevId,
        ctx: &mut DevCtx<S>,
        pkt: PacketId,
        next_hop: NodeId,
    ) {
        match self {
            AnyDevice::P2p(d) => d.enqueue_front_in(me, ctx, pkt, next_hop),
            AnyDevice::Other(d) => d.enqueue_front(me, &mut ctx.as_dyn(), pkt, next_hop),
        }
    }

    #[inline]
    pub fn handle<S: DevSched + 'static>(&mut self, me: DevId, ctx: &mut DevCtx<S>, ev: DevEv) {
        match self {
            AnyDevice::P2p(d) => d.handle_in(me, ctx, ev),
            AnyDevice::Other(d) => d.handle(me, &mut ctx.as_dyn(), ev),
        }
    }
}

impl std::ops::Deref for AnyDevice {
    type Target = dyn Device;
    fn deref(&self) -> &(dyn Device + 'static) {
        match self {
            AnyDevice::P2p(d) => d,
            AnyDevice::Other(d) => &**d,
        }
    }
}

impl std::ops::DerefMut for AnyDevice {
    fn deref_mut(&mut self) -> &mut (dyn Device + 'static) {
        match self {
            AnyDevice::P2p(d) => d,
            AnyDevice::Other(d) => &mut **d,
        }
    }
}
