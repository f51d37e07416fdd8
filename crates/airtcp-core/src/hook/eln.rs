//! Explicit Loss Notification (Balakrishnan & Katz, GLOBECOM 1998 Internet Mini-Conference),
//! at a base station: the link layer knows which segments its wireless channel corrupted; when
//! a duplicate ACK for such a segment passes back toward the sender, the agent sets the ELN bit
//! on it, and the sender retransmits without treating the loss as congestion.

use super::{Hook, HookCtx, Metric, Points, Verdict};
use crate::device::DeviceView;
use crate::ids::{DevId, FlowId, NodeId};
use crate::packet::{flags, DropCause, Proto, TcpHeader, Wire};

pub struct Eln {
    pub node: NodeId,
    /// Segments (flow, sequence number) lost to channel errors on this node's links and not
    /// yet acknowledged.
    lost: Vec<(FlowId, u64)>,
    pub marked: u64,
}

impl Eln {
    pub fn new(node: NodeId) -> Self {
        Eln {
            node,
            lost: Vec::new(),
            marked: 0,
        }
    }

    /// The wireless channel leaving this node corrupted data segment `seq` of `flow`.
    pub fn on_channel_loss(&mut self, flow: FlowId, seq: u64) {
        if !self.lost.contains(&(flow, seq)) {
            self.lost.push((flow, seq));
        }
    }

    /// An ACK of `flow` passes through toward the sender.
    pub fn on_ack(&mut self, flow: FlowId, h: &mut TcpHeader) {
        // Segments below the cumulative ACK arrived after all: forget them.
        self.lost.retain(|&(f, s)| f != flow || s >= h.ack);
        if h.len == 0 && self.lost.contains(&(flow, h.ack)) {
            h.flags |= flags::ELN;
            self.marked += 1;
        }
    }
}

impl Hook for Eln {
    fn kind(&self) -> &'static str {
        "eln"
    }

    fn points(&self) -> Points {
        // ACKs passing through, and ACKs for a sender at this node (a loss on the first
        // hop is seen by the sender's own node).
        Points {
            forward: true,
            local_in: true,
            ..Default::default()
        }
    }

    fn forward(&mut self, _ctx: &mut HookCtx, pkt: &mut Wire, _out: &DeviceView) -> Verdict {
        if pkt.proto == Proto::Tcp && !pkt.tcp.has(flags::SYN) && pkt.tcp.len == 0 {
            self.on_ack(pkt.flow, &mut pkt.tcp);
        }
        Verdict::Accept
    }

    fn local_in(&mut self, _ctx: &mut HookCtx, pkt: &mut Wire, _end: super::LocalEnd) -> Verdict {
        if pkt.proto == Proto::Tcp && !pkt.tcp.has(flags::SYN) && pkt.tcp.len == 0 {
            self.on_ack(pkt.flow, &mut pkt.tcp);
        }
        Verdict::Accept
    }

    fn on_device_loss(&mut self, _ctx: &mut HookCtx, _dev: DevId, pkt: &Wire, cause: DropCause) {
        if cause == DropCause::ChannelError && pkt.proto == Proto::Tcp && pkt.tcp.len > 0 {
            self.on_channel_loss(pkt.flow, pkt.tcp.seq);
        }
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn metrics(&self, out: &mut Vec<(&'static str, Metric)>) {
        // ACKs marked with the ELN bit.
        out.push(("marked", Metric::Count(self.marked)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_acks_for_channel_losses_only() {
        let mut a = Eln::new(NodeId(1));
        a.on_channel_loss(FlowId(0), 3000);
        let mut dup = TcpHeader {
            ack: 3000,
            ..Default::default()
        };
        a.on_ack(FlowId(0), &mut dup);
        assert!(dup.has(flags::ELN));
        // Another flow's ACK at the same number is not marked.
        let mut other = TcpHeader {
            ack: 3000,
            ..Default::default()
        };
        a.on_ack(FlowId(1), &mut other);
        assert!(!other.has(flags::ELN));
        // Once acknowledged, the loss is forgotten.
        let mut next = TcpHeader {
            ack: 4000,
            ..Default::default()
        };
        a.on_ack(FlowId(0), &mut next);
        assert!(!next.has(flags::ELN));
        assert!(a.lost.is_empty());
        assert_eq!(a.marked, 1);
    }
}
