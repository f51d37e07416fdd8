//! The node layer's side of dynamic routing (`routing::Layer`): asking a node's protocol for
//! next hops, carrying out what it asks for, delivering its control packets and the MAC's
//! give-up notices to it. Runs only in scenarios that give a node a routing protocol; static
//! routing never comes here (the entry points are out of line and cold, so the static path's
//! code stays as it was).

use super::{Ev, Point, Sim};
use crate::device::{LinkLoss, LossNote, BROADCAST};
use crate::ids::{DevId, FlowId, NodeId, PacketId};
use crate::packet::{DropCause, IpHeader, Packet, Proto, TcpHeader, Wire};
use crate::routing::{Act, OnBreak, Route};

impl Sim {
    /// Take an action buffer for one protocol call (nested calls take their own).
    fn acts(&mut self) -> Vec<Act> {
        self.routing
            .as_mut()
            .and_then(|l| l.spare.pop())
            .unwrap_or_default()
    }

    /// Route data packet `id` at `node` by its protocol: the device and next hop, or None
    /// if the protocol held or dropped it (the drop is done here).
    #[cold]
    #[inline(never)]
    pub(super) fn route_dynamic(&mut self, node: NodeId, id: PacketId) -> Option<(DevId, NodeId)> {
        let logged = self.routing.as_ref().is_some_and(|l| l.paths.is_some());
        if !logged {
            return self.route_dynamic_at(node, id);
        }
        // Read before routing: a packet the protocol drops is gone after.
        let (flow, dst) = {
            let w = &self.pool.get(id).wire;
            (w.flow, w.dst)
        };
        let r = self.route_dynamic_at(node, id);
        self.log_decision(node, flow, dst, r.map(|x| x.1));
        r
    }

    /// `node` decided where a data packet of `flow` to `dst` goes (None: held or dropped):
    /// the flow's path log (`trace.routes`) hears of it.
    fn log_decision(&mut self, node: NodeId, flow: FlowId, dst: NodeId, via: Option<NodeId>) {
        let now = self.now();
        if let Some(p) = self.routing.as_mut().and_then(|l| l.paths.as_mut()) {
            p.decide(now, flow, dst, node, via);
        }
    }

    fn route_dynamic_at(&mut self, node: NodeId, id: PacketId) -> Option<(DevId, NodeId)> {
        let now = self.now();
        let (src, dst) = {
            let w = &self.pool.get(id).wire;
            (w.src, w.dst)
        };
        let layer = self.routing.as_mut().expect("dynamic routing");
        let (Some(_), Some(radio)) = (layer.agents[node.idx()].as_ref(), layer.radio[node.idx()])
        else {
            return self.routes.next_hop(node, dst);
        };
        // A destination the node reaches over another device (a gateway's wired hosts)
        // keeps its static route.
        if let Some(route) = self.routes.next_hop(node, dst).filter(|r| r.0 != radio) {
            return Some(route);
        }
        let layer = self.routing.as_mut().expect("dynamic routing");
        let agent = layer.agents[node.idx()].as_mut().expect("checked above");
        let mut acts = layer.spare.pop().unwrap_or_default();
        let r = agent.route(now, id, src, dst, &mut acts);
        self.run_acts(node, &mut acts);
        self.sync_routing_timer(node);
        match r {
            Route::Via(next) => Some((radio, next)),
            Route::Held => None,
            Route::Drop(cause) => {
                self.drop_packet(id, cause);
                None
            }
        }
    }

    /// A device of `node` received a packet, in a run with dynamic routing: control
    /// packets go to the protocol, data as in `Sim::receive` with the protocol's next hop.
    #[cold]
    #[inline(never)]
    pub(super) fn receive_dynamic(&mut self, node: NodeId, id: PacketId) {
        if let Proto::Routing(_) = self.pool.get(id).proto {
            self.receive_control(node, id);
            return;
        }
        let has_hooks = !self.nodes[node.idx()].hooks.is_empty();
        if has_hooks && !self.run_hooks(node, Point::PreRouting, id, None) {
            return;
        }
        if self.pool.get(id).dst == node {
            if has_hooks {
                let end = self.local_end(&self.pool.get(id).wire, node);
                if !self.run_hooks(node, Point::LocalIn(end), id, None) {
                    return;
                }
            }
            self.deliver(id);
            return;
        }
        let Some(route) = self.route_dynamic(node, id) else {
            return;
        };
        if has_hooks && !self.run_hooks(node, Point::Forward, id, Some(route)) {
            return;
        }
        self.send_on(node, id, route, has_hooks);
    }

    /// Carry out what `node`'s protocol asked for; gives the buffer back empty.
    fn run_acts(&mut self, node: NodeId, acts: &mut Vec<Act>) {
        for a in acts.drain(..) {
            match a {
                Act::Send { to, msg } => self.send_control(node, to, msg),
                Act::Forward { pkt, via } => {
                    if self.routing.as_ref().is_some_and(|l| l.paths.is_some()) {
                        let w = self.pool.get(pkt).wire;
                        self.log_decision(node, w.flow, w.dst, Some(via));
                    }
                    let radio = self.routing.as_ref().and_then(|l| l.radio[node.idx()]);
                    let hooks = !self.nodes[node.idx()].hooks.is_empty();
                    match radio {
                        Some(d) => self.send_on(node, pkt, (d, via), hooks),
                        None => self.drop_packet(pkt, DropCause::NoRoute),
                    }
                }
                Act::Drop { pkt, cause } => {
                    if self.routing.as_ref().is_some_and(|l| l.paths.is_some()) {
                        let w = self.pool.get(pkt).wire;
                        self.log_decision(node, w.flow, w.dst, None);
                    }
                    self.drop_packet(pkt, cause)
                }
                Act::LinkDown(nb) => self.flush_link(node, nb),
            }
        }
        if let Some(l) = self.routing.as_mut() {
            l.spare.push(std::mem::take(acts));
        }
    }

    /// Put a control message on `node`'s radio, to a neighbour or as a broadcast.
    fn send_control(&mut self, node: NodeId, to: NodeId, msg: crate::routing::Msg) {
        let now = self.now();
        let layer = self.routing.as_mut().expect("dynamic routing");
        let Some(radio) = layer.radio[node.idx()] else {
            return;
        };
        let size = msg.wire_size();
        let port = msg.port();
        layer.overhead[node.idx()].count_packet(&msg);
        let slot = layer.msgs.put(msg);
        let wire = Wire {
            flow: FlowId(u32::MAX),
            src: node,
            dst: to,
            size,
            proto: Proto::Routing(port),
            ip: IpHeader {
                ttl: 1,
                ..Default::default()
            },
            tcp: TcpHeader::default(),
            udp_seq: slot as u64,
        };
        let id = self.pool.alloc(Packet::new(wire, now));
        self.transmit(radio, to, id, false);
    }

    /// A control packet reached `node`: its protocol reads it, then the packet is gone (a
    /// broadcast's message stays until its frame is done: other copies read it).
    pub(super) fn receive_control(&mut self, node: NodeId, id: PacketId) {
        let now = self.now();
        let w = self.pool.get(id).wire;
        self.pool.free(id);
        let slot = w.udp_seq as u32;
        let mut acts = self.acts();
        let layer = self.routing.as_mut().expect("dynamic routing");
        if let (Some(agent), Some(msg)) = (layer.agents[node.idx()].as_mut(), layer.msgs.get(slot))
        {
            let o = &mut layer.overhead[node.idx()];
            o.received += 1;
            o.received_bytes += w.size as u64;
            agent.receive(now, w.src, msg, &mut acts);
        }
        if w.dst != BROADCAST {
            layer.msgs.release(slot);
        }
        self.run_acts(node, &mut acts);
        self.sync_routing_timer(node);
    }

    /// A broadcast frame is done: its message is released.
    #[cold]
    #[inline(never)]
    pub(super) fn control_sent(&mut self, id: PacketId) {
        let w = self.pool.get(id).wire;
        self.pool.free(id);
        if let Some(l) = self.routing.as_mut() {
            l.msgs.release(w.udp_seq as u32);
        }
    }

    /// A control packet was lost (queue full, MAC gave up, link down).
    #[cold]
    #[inline(never)]
    pub(super) fn drop_control(&mut self, id: PacketId) {
        let w = self.pool.get(id).wire;
        self.pool.free(id);
        if let Some(l) = self.routing.as_mut() {
            l.msgs.release(w.udp_seq as u32);
            l.overhead[w.src.idx()].dropped += 1;
        }
    }

    /// What a device noted of a lost frame: a MAC that gave up on a neighbour tells the
    /// node's protocol (link-layer feedback).
    #[cold]
    #[inline(never)]
    pub(super) fn routing_note(&mut self, n: &LossNote) {
        let (LinkLoss::GaveUp(_), Some(to)) = (n.loss, n.next_hop) else {
            return;
        };
        if to == BROADCAST {
            return;
        }
        let now = self.now();
        let node = n.node;
        let mut acts = self.acts();
        let layer = self.routing.as_mut().expect("dynamic routing");
        let Some(agent) = layer.agents[node.idx()].as_mut() else {
            layer.spare.push(acts);
            return;
        };
        if !agent.link_feedback() {
            layer.spare.push(acts);
            return;
        }
        agent.link_failed(now, to, &mut acts);
        self.run_acts(node, &mut acts);
        self.sync_routing_timer(node);
    }

    /// The link from `node` to `nb` broke: the packets its radio still has queued for `nb`
    /// are dropped or routed again, as the protocol's `on_break` says.
    fn flush_link(&mut self, node: NodeId, nb: NodeId) {
        let now = self.now();
        let Some(layer) = self.routing.as_ref() else {
            return;
        };
        let (Some(radio), Some(agent)) =
            (layer.radio[node.idx()], layer.agents[node.idx()].as_ref())
        else {
            return;
        };
        let salvage = agent.on_break() == OnBreak::Salvage;
        let taken = self.devices[radio.idx()].take_queued_for(now, nb);
        for id in taken {
            if matches!(self.pool.get(id).proto, Proto::Routing(_)) {
                self.drop_control(id);
                continue;
            }
            let layer = self.routing.as_mut().expect("dynamic routing");
            if salvage {
                layer.overhead[node.idx()].mac_queue_salvaged += 1;
                if let Some(route) = self.route_dynamic(node, id) {
                    let hooks = !self.nodes[node.idx()].hooks.is_empty();
                    self.send_on(node, id, route, hooks);
                }
            } else {
                layer.overhead[node.idx()].mac_queue_dropped += 1;
                self.drop_packet(id, DropCause::RouteBreak);
            }
        }
    }

    pub(super) fn on_routing_timer(&mut self, node: NodeId) {
        let now = self.now();
        let mut acts = self.acts();
        let layer = self.routing.as_mut().expect("dynamic routing");
        layer.timers[node.idx()].fired(now);
        if let Some(agent) = layer.agents[node.idx()].as_mut() {
            if agent.poll_timeout().is_some_and(|t| t <= now) {
                agent.timeout(now, &mut acts);
            }
        }
        self.run_acts(node, &mut acts);
        self.sync_routing_timer(node);
    }

    pub(super) fn sync_routing_timer(&mut self, node: NodeId) {
        let Some(layer) = self.routing.as_mut() else {
            return;
        };
        let Some(agent) = layer.agents[node.idx()].as_ref() else {
            return;
        };
        if let Some(t) = layer.timers[node.idx()].arm(agent.poll_timeout()) {
            self.sched.at(t, Ev::Routing(node));
        }
    }

    /// Install dynamic routing and arm every protocol's first timer.
    pub fn set_routing(&mut self, layer: crate::routing::Layer) {
        let n = layer.agents.len();
        self.routing = Some(Box::new(layer));
        for k in 0..n {
            self.sync_routing_timer(NodeId(k as u32));
        }
    }
}
