//! Explicit rate notification at a router: every data segment leaving the node carries in its
//! IP header the smallest rate offered along its path. This node offers `share` of its output
//! device's rate (for a TDMA hop, its slot share); with `per_flow`, that capacity divided by
//! the flows it is forwarding (those whose data segments it sent within the last `active`),
//! the rate available to each flow (MEMBRANE's "actual available rate on the path"). It
//! lowers the field to its offer if smaller, so the receiver sees the path minimum and echoes
//! it to the sender.
//!
//! The flows are counted per node, not per output device: on the MEMBRANE TDMA mesh a node's
//! links share its slot, so every flow the node forwards shares one capacity. With link-owned
//! slots this undercounts each link's capacity by the flows on the node's other links.

use std::collections::HashMap;

use super::{Hook, HookCtx, Metric, Points, Verdict};
use crate::device::DeviceView;
use crate::engine::{Time, SEC};
use crate::ids::FlowId;
use crate::packet::{Proto, Wire};

pub struct ExplicitRate {
    /// Fraction of the output device's rate this node offers to the flows through it.
    pub share: f64,
    /// Divide the offer among the flows the node is forwarding.
    pub per_flow: bool,
    /// How long after its last data segment a flow still counts as forwarded here.
    pub active: Time,
    /// When each flow's last data segment left this node.
    seen: HashMap<FlowId, Time>,
    /// Segments whose field this node lowered.
    pub written: u64,
}

impl ExplicitRate {
    pub fn new(share: f64) -> Self {
        ExplicitRate {
            share,
            per_flow: false,
            active: SEC,
            seen: HashMap::new(),
            written: 0,
        }
    }

    /// The per-flow variant: the offer divided among the flows seen within `active`.
    pub fn per_flow(share: f64, active: Time) -> Self {
        ExplicitRate {
            per_flow: true,
            active,
            ..Self::new(share)
        }
    }

    /// Flows that sent a data segment through this node within `active` before `now`
    /// (including the one now leaving); older entries are forgotten.
    fn active_flows(&mut self, now: Time, flow: FlowId) -> usize {
        self.seen.insert(flow, now);
        let window = self.active;
        self.seen
            .retain(|_, &mut t| now.saturating_sub(t) <= window);
        self.seen.len()
    }

    /// Lower the packet's explicit rate to what `out` offers at `now`.
    pub fn write(&mut self, now: Time, pkt: &mut Wire, out: &DeviceView) {
        if pkt.proto != Proto::Tcp || pkt.tcp.len == 0 {
            return;
        }
        let mut offer_bps = self.share * out.offered_bps as f64;
        if self.per_flow {
            offer_bps /= self.active_flows(now, pkt.flow).max(1) as f64;
        }
        let offer = offer_bps as f32;
        if pkt.ip.explicit_rate.is_none_or(|r| offer < r) {
            pkt.ip.explicit_rate = Some(offer);
            self.written += 1;
        }
    }
}

impl Hook for ExplicitRate {
    fn kind(&self) -> &'static str {
        "explicit_rate"
    }

    fn points(&self) -> Points {
        Points {
            post_routing: true,
            ..Default::default()
        }
    }

    fn post_routing(&mut self, ctx: &mut HookCtx, pkt: &mut Wire, out: &DeviceView) -> Verdict {
        self.write(ctx.now, pkt, out);
        Verdict::Accept
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn metrics(&self, out: &mut Vec<(&'static str, Metric)>) {
        // Segments whose explicit rate this node lowered.
        out.push(("written", Metric::Count(self.written)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{DevId, FlowId, NodeId};
    use crate::packet::{IpHeader, TcpHeader};

    fn view(rate_bps: u64) -> DeviceView {
        DeviceView {
            dev: DevId(0),
            next_hop: NodeId(1),
            rate_bps,
            offered_bps: rate_bps,
            queue_packets: 0,
            queue_bytes: 0,
            utilization: 0.0,
            wireless: false,
        }
    }

    #[test]
    fn keeps_the_path_minimum_and_leaves_acks_alone() {
        let mut seg = Wire {
            flow: FlowId(0),
            src: NodeId(0),
            dst: NodeId(2),
            size: 1040,
            proto: Proto::Tcp,
            ip: IpHeader::default(),
            tcp: TcpHeader {
                len: 1000,
                ..Default::default()
            },
            udp_seq: 0,
        };
        let mut h = ExplicitRate::new(0.5);
        h.write(0, &mut seg, &view(10_000_000));
        assert_eq!(seg.ip.explicit_rate, Some(5e6));
        // A faster hop downstream does not raise it; a slower one lowers it.
        h.write(0, &mut seg, &view(100_000_000));
        assert_eq!(seg.ip.explicit_rate, Some(5e6));
        h.write(0, &mut seg, &view(2_000_000));
        assert_eq!(seg.ip.explicit_rate, Some(1e6));
        let mut ack = seg;
        ack.tcp.len = 0;
        ack.ip.explicit_rate = None;
        h.write(0, &mut ack, &view(1_000_000));
        assert_eq!(ack.ip.explicit_rate, None);
        assert_eq!(h.written, 2);
    }

    fn seg(flow: u32) -> Wire {
        Wire {
            flow: FlowId(flow),
            src: NodeId(0),
            dst: NodeId(2),
            size: 1040,
            proto: Proto::Tcp,
            ip: IpHeader::default(),
            tcp: TcpHeader {
                len: 1000,
                ..Default::default()
            },
            udp_seq: 0,
        }
    }

    #[test]
    fn per_flow_offers_the_capacity_divided_among_the_flows_forwarded() {
        let ms = crate::engine::MS;
        let mut h = ExplicitRate::per_flow(1.0, 100 * ms);
        let v = view(12_000_000);
        let mut a = seg(0);
        h.write(0, &mut a, &v);
        assert_eq!(
            a.ip.explicit_rate,
            Some(12e6),
            "alone, a flow has the whole capacity"
        );
        // Two more flows through the node: each is offered a third.
        for f in [1, 2] {
            h.write(10 * ms, &mut seg(f), &v);
        }
        let mut a = seg(0);
        h.write(20 * ms, &mut a, &v);
        assert_eq!(a.ip.explicit_rate, Some(4e6));
        // Flows 1 and 2 fall silent: after `active` only flow 0 counts again.
        let mut a = seg(0);
        h.write(200 * ms, &mut a, &v);
        assert_eq!(a.ip.explicit_rate, Some(12e6));
        // ACKs neither count as a flow nor carry a rate.
        let mut ack = seg(5);
        ack.tcp.len = 0;
        h.write(210 * ms, &mut ack, &v);
        let mut a = seg(0);
        h.write(220 * ms, &mut a, &v);
        assert_eq!(
            (ack.ip.explicit_rate, a.ip.explicit_rate),
            (None, Some(12e6))
        );
    }
}
