//! A station's device at its node: forwards the node's calls and the station's events to the
//! medium's shared state.

use super::WifiNet;
use crate::device::{DevCtx, DevEv, Device, DeviceView, MacResult};
use crate::engine::Time;
use crate::ids::{DevId, NodeId, PacketId};
use std::cell::RefCell;
use std::rc::Rc;

/// A station's device at its node.
pub struct WifiDev {
    pub net: Rc<RefCell<WifiNet>>,
    pub station: usize,
    node: NodeId,
    name: String,
}

impl WifiDev {
    pub fn new(net: Rc<RefCell<WifiNet>>, station: usize) -> WifiDev {
        let (node, name) = {
            let n = net.borrow();
            (n.stations[station].node, n.stations[station].name.clone())
        };
        WifiDev {
            net,
            station,
            node,
            name,
        }
    }

    pub fn medium(&self) -> String {
        self.net.borrow().name.clone()
    }
}

impl Device for WifiDev {
    fn node(&self) -> NodeId {
        self.node
    }

    fn enqueue(&mut self, _me: DevId, ctx: &mut DevCtx, pkt: PacketId, next_hop: NodeId) {
        self.net
            .borrow_mut()
            .enqueue(self.station, ctx, pkt, next_hop, false);
    }

    fn enqueue_front(&mut self, _me: DevId, ctx: &mut DevCtx, pkt: PacketId, next_hop: NodeId) {
        self.net
            .borrow_mut()
            .enqueue(self.station, ctx, pkt, next_hop, true);
    }

    fn handle(&mut self, _me: DevId, ctx: &mut DevCtx, ev: DevEv) {
        if let DevEv::Timer(v) = ev {
            self.net.borrow_mut().handle(self.station, ctx, v);
        }
    }

    fn in_network(&self) -> u64 {
        self.net.borrow().in_network(self.station)
    }

    fn queue_len(&self) -> usize {
        self.net.borrow().stations[self.station].fifo.len()
    }

    fn view(&self, me: DevId, now: Time, next_hop: NodeId) -> DeviceView {
        let n = self.net.borrow();
        let st = &n.stations[self.station];
        DeviceView {
            dev: me,
            next_hop,
            rate_bps: n.p.data_rate,
            offered_bps: n.p.data_rate,
            queue_packets: st.fifo.len(),
            queue_bytes: st.fifo.bytes(),
            utilization: if now == 0 {
                0.0
            } else {
                (st.stats.busy_time.min(now) as f64 / now as f64).min(1.0)
            },
            wireless: true,
        }
    }

    fn take_queued_for(&mut self, now: Time, next_hop: NodeId) -> Vec<PacketId> {
        self.net
            .borrow_mut()
            .take_queued_for(self.station, next_hop, now)
    }

    fn finish(&mut self, end: Time) {
        self.net.borrow_mut().stations[self.station].note_queue(end);
    }

    fn mac_result(&self, end: Time) -> Option<MacResult> {
        let n = self.net.borrow();
        Some(MacResult {
            medium: n.name.clone(),
            kind: "wifi",
            node: self.name.clone(),
            metrics: n.metrics(self.station, end),
        })
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
