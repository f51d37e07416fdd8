//! Node hooks: mechanisms that sit in a node's packet path (base-station agents, router
//! marking, a layer between IP and TCP at a host). Each node runs its hooks in order at five
//! points:
//!
//! - `pre_routing`: every packet arriving from a device, before the route lookup;
//! - `local_in`: a packet for this node, before it reaches the local TCP/UDP endpoint;
//! - `forward`: a packet passing through, after the route lookup (sees the output device);
//! - `post_routing`: every packet about to be handed to an output device (forwarded or
//!   locally generated), with the device's rate, queue and utilisation;
//! - `local_out`: a packet the local endpoint sends, before the route lookup.
//!
//! A hook returns [`Verdict::Accept`] to let the packet go on, [`Verdict::Drop`] to drop it with
//! a cause, or [`Verdict::Stolen`] when it took the packet over (it is then gone from the
//! network without a drop being counted). It may inject packets through [`HookCtx`], keep a
//! timer ([`Hook::poll_timeout`]/[`Hook::handle_timeout`], the one timer contract), hear what
//! the node learns of lost packets ([`Hook::on_link_loss`]: a queue drop, a MAC giving up, a
//! damaged frame received, never why) and report its own metrics. Hooks see only the wire
//! ([`Wire`]), never the simulator's facts about a packet.
//!
//! Adding a hook: one file implementing [`Hook`], one variant in `scenario::schema::HookSpec`
//! and one arm in the builder (`scenario::build::hooks`).

pub mod drai;
pub mod eln;
pub mod explicit_rate;
pub mod snoop;
pub mod snr_gate;

pub use drai::{Drai, DraiParams};
pub use eln::Eln;
pub use explicit_rate::ExplicitRate;
pub use snoop::Snoop;
pub use snr_gate::SnrGate;

use serde::Serialize;

use crate::device::DeviceView;
pub use crate::device::LinkLoss;
use crate::engine::Time;
use crate::ids::NodeId;
use crate::link::snr::Measured;
use crate::link::SnrSeries;
use crate::packet::{DropCause, Wire};

/// What a hook decided for a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Accept,
    Drop(DropCause),
    /// The hook took the packet: it leaves the network here without a drop.
    Stolen,
}

/// Which local TCP end a segment is for (`local_in`) or from (`local_out`): what the host's
/// own socket lookup tells a layer between IP and TCP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalEnd {
    Sender,
    Receiver,
    /// Not TCP.
    Other,
}

/// Something a hook wants done after its call returns.
#[derive(Clone, Copy, Debug)]
pub enum HookAction {
    /// Send a packet from this node toward its destination; with `front`, ahead of whatever
    /// waits in the output queue (a local retransmission). It does not pass this node's hooks
    /// again.
    Send { pkt: Wire, front: bool },
    /// Hand a segment to the local endpoint as if it had arrived (a window update from a layer
    /// below TCP). It does not enter the network.
    DeliverLocal(Wire),
}

/// What a hook may use during a call.
pub struct HookCtx<'a> {
    pub now: Time,
    pub node: NodeId,
    pub actions: &'a mut Vec<HookAction>,
    /// SNR series of the channels: private, so a hook reads them only as a receiver would
    /// have measured them by now (`snr_measured`), never a later sample.
    snr: &'a [SnrSeries],
}

impl<'a> HookCtx<'a> {
    pub fn new(
        now: Time,
        node: NodeId,
        actions: &'a mut Vec<HookAction>,
        snr: &'a [SnrSeries],
    ) -> Self {
        HookCtx {
            now,
            node,
            actions,
            snr,
        }
    }

    /// The sample series `series` held `delay` ago, as measured by now
    /// ([`SnrSeries::measured`]); None before the first report or for a series that does not
    /// exist.
    pub fn snr_measured(&self, series: usize, delay: Time) -> Option<Measured> {
        self.snr.get(series)?.measured(self.now, delay)
    }
}

/// A figure a hook reports: a count or a real number.
#[derive(Serialize, Debug, Clone, Copy, PartialEq)]
#[serde(untagged)]
pub enum Metric {
    Count(u64),
    Real(f64),
}

/// Per-hook results: one row per hook in the result's `agents` table, with the hook's own
/// figures as columns.
#[derive(Serialize, Debug, Clone)]
pub struct HookResult {
    pub kind: &'static str,
    pub node: String,
    #[serde(flatten)]
    pub metrics: std::collections::BTreeMap<&'static str, Metric>,
}

impl HookResult {
    /// A metric by name (tests and tools).
    pub fn get(&self, name: &str) -> Option<Metric> {
        self.metrics.get(name).copied()
    }

    /// A count metric by name, 0 if absent.
    pub fn count(&self, name: &str) -> u64 {
        match self.get(name) {
            Some(Metric::Count(n)) => n,
            _ => 0,
        }
    }
}

pub trait Hook {
    /// The hook's kind, as in the scenario (`kind = "snoop"`).
    fn kind(&self) -> &'static str;

    fn pre_routing(&mut self, _ctx: &mut HookCtx, _pkt: &mut Wire) -> Verdict {
        Verdict::Accept
    }
    fn local_in(&mut self, _ctx: &mut HookCtx, _pkt: &mut Wire, _end: LocalEnd) -> Verdict {
        Verdict::Accept
    }
    /// A packet passes through this node toward `out`.
    fn forward(&mut self, _ctx: &mut HookCtx, _pkt: &mut Wire, _out: &DeviceView) -> Verdict {
        Verdict::Accept
    }
    fn post_routing(&mut self, _ctx: &mut HookCtx, _pkt: &mut Wire, _out: &DeviceView) -> Verdict {
        Verdict::Accept
    }
    fn local_out(&mut self, _ctx: &mut HookCtx, _pkt: &mut Wire, _end: LocalEnd) -> Verdict {
        Verdict::Accept
    }
    /// This node learned of a lost packet `pkt` (its queue dropped it, its MAC gave up, or a
    /// damaged frame reached it): only what the node could know, never the simulator's cause.
    /// Called only for hooks whose [`Points::link_loss`] is set.
    fn on_link_loss(&mut self, _ctx: &mut HookCtx, _loss: LinkLoss, _pkt: &Wire) {}
    /// Which points the hook uses, so nodes skip the others cheaply.
    fn points(&self) -> Points;
    /// The hook sends packets ahead of its node's interface queues (`HookAction::Send` with
    /// `front`); those devices then keep a transmission-done event per frame (see
    /// `device::p2p`).
    fn sends_ahead_of_queue(&self) -> bool {
        false
    }
    fn poll_timeout(&self) -> Option<Time> {
        None
    }
    fn handle_timeout(&mut self, _ctx: &mut HookCtx) {}
    /// Close time integrals at the end of the run.
    fn finish(&mut self, _end: Time) {}
    /// The hook's own figures, each a column of its row in the `agents` table.
    fn metrics(&self, out: &mut Vec<(&'static str, Metric)>);
    /// For inspection in tests and tools (`Sim::hook::<Snoop>`).
    fn as_any(&self) -> &dyn std::any::Any;
}

/// The hook points a hook uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Points {
    pub pre_routing: bool,
    pub local_in: bool,
    pub forward: bool,
    pub post_routing: bool,
    pub local_out: bool,
    /// Hear of lost packets ([`Hook::on_link_loss`]).
    pub link_loss: bool,
}
