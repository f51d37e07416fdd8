//! Explicit rate notification at a router: every data segment leaving the node carries in its
//! IP header the smallest rate offered along its path. This node offers `share` of its output
//! device's rate (for a TDMA hop, its slot share); it lowers the field to that if smaller, so
//! the receiver sees the path minimum and echoes it to the sender.

use super::{Hook, HookCtx, Metric, Points, Verdict};
use crate::device::DeviceView;
use crate::packet::{Proto, Wire};

pub struct ExplicitRate {
    /// Fraction of the output device's rate this node offers to the flows through it.
    pub share: f64,
    /// Segments whose field this node lowered.
    pub written: u64,
}

impl ExplicitRate {
    pub fn new(share: f64) -> Self {
        ExplicitRate { share, written: 0 }
    }

    /// Lower the packet's explicit rate to what `out` offers.
    pub fn write(&mut self, pkt: &mut Wire, out: &DeviceView) {
        if pkt.proto != Proto::Tcp || pkt.tcp.len == 0 {
            return;
        }
        let offer = (self.share * out.offered_bps as f64) as f32;
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

    fn post_routing(&mut self, _ctx: &mut HookCtx, pkt: &mut Wire, out: &DeviceView) -> Verdict {
        self.write(pkt, out);
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
        h.write(&mut seg, &view(10_000_000));
        assert_eq!(seg.ip.explicit_rate, Some(5e6));
        // A faster hop downstream does not raise it; a slower one lowers it.
        h.write(&mut seg, &view(100_000_000));
        assert_eq!(seg.ip.explicit_rate, Some(5e6));
        h.write(&mut seg, &view(2_000_000));
        assert_eq!(seg.ip.explicit_rate, Some(1e6));
        let mut ack = seg;
        ack.tcp.len = 0;
        ack.ip.explicit_rate = None;
        h.write(&mut ack, &view(1_000_000));
        assert_eq!(ack.ip.explicit_rate, None);
        assert_eq!(h.written, 2);
    }
}
