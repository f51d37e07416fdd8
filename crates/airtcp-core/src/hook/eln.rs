//! Explicit Loss Notification (Balakrishnan & Katz, GLOBECOM 1998 Internet Mini-Conference):
//! a node that learns a data segment was lost on a link (not in a queue) remembers it; when a
//! duplicate ACK for that segment passes the node (or leaves its own receiver, or reaches its
//! own sender), the agent sets the ELN bit on it, and the sender retransmits without treating
//! the loss as congestion. A node learns of such a loss as the receiving end of a link that
//! reports damaged frames, or as the sending end of a MAC that gave up on the frame
//! ([`LinkLoss`]); a queue drop is congestion and is left alone.

use super::{Hook, HookCtx, LinkLoss, Metric, Points, Verdict};
use crate::device::DeviceView;
use crate::ids::{FlowId, NodeId};
use crate::packet::{flags, Proto, TcpHeader, Wire};

pub struct Eln {
    pub node: NodeId,
    /// Segments (flow, sequence number) this node learned were lost on a link, not yet
    /// acknowledged.
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

    /// Data segment `seq` of `flow` was lost on a link of this node.
    pub fn on_link_loss_of(&mut self, flow: FlowId, seq: u64) {
        if !self.lost.contains(&(flow, seq)) {
            self.lost.push((flow, seq));
        }
    }

    /// A pure ACK (not a SYN) passes: check it.
    fn pure_ack(&mut self, pkt: &mut Wire) {
        if pkt.proto == Proto::Tcp && !pkt.tcp.has(flags::SYN) && pkt.tcp.len == 0 {
            self.on_ack(pkt.flow, &mut pkt.tcp);
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
        // ACKs passing through, ACKs this node's receiver sends (a damaged frame on the last
        // hop is seen at the receiving host) and ACKs for a sender at this node (its own MAC
        // gave up on the first hop).
        Points {
            forward: true,
            local_in: true,
            local_out: true,
            link_loss: true,
            ..Default::default()
        }
    }

    fn forward(&mut self, _ctx: &mut HookCtx, pkt: &mut Wire, _out: &DeviceView) -> Verdict {
        self.pure_ack(pkt);
        Verdict::Accept
    }

    fn local_in(&mut self, _ctx: &mut HookCtx, pkt: &mut Wire, _end: super::LocalEnd) -> Verdict {
        self.pure_ack(pkt);
        Verdict::Accept
    }

    fn local_out(&mut self, _ctx: &mut HookCtx, pkt: &mut Wire, _end: super::LocalEnd) -> Verdict {
        self.pure_ack(pkt);
        Verdict::Accept
    }

    fn on_link_loss(&mut self, _ctx: &mut HookCtx, loss: LinkLoss, pkt: &Wire) {
        let on_link = matches!(loss, LinkLoss::GaveUp(_) | LinkLoss::Damaged { .. });
        if on_link && pkt.proto == Proto::Tcp && pkt.tcp.len > 0 {
            self.on_link_loss_of(pkt.flow, pkt.tcp.seq);
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
        a.on_link_loss_of(FlowId(0), 3000);
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

    #[test]
    fn remembers_losses_on_links_not_queue_drops() {
        use crate::ids::DevId;
        let seg = |seq| Wire {
            flow: FlowId(0),
            src: NodeId(0),
            dst: NodeId(2),
            size: 1040,
            proto: Proto::Tcp,
            ip: crate::packet::IpHeader::default(),
            tcp: TcpHeader {
                seq,
                len: 1000,
                ..Default::default()
            },
            udp_seq: 0,
        };
        let mut a = Eln::new(NodeId(1));
        let mut actions = Vec::new();
        let mut ctx = HookCtx::new(0, NodeId(1), &mut actions, &[]);
        a.on_link_loss(&mut ctx, LinkLoss::Queue(DevId(0)), &seg(1000));
        a.on_link_loss(&mut ctx, LinkLoss::GaveUp(DevId(0)), &seg(2000));
        a.on_link_loss(&mut ctx, LinkLoss::Damaged { from: NodeId(0) }, &seg(3000));
        assert_eq!(a.lost, vec![(FlowId(0), 2000), (FlowId(0), 3000)]);
    }
}
