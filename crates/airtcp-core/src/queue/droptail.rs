//! DropTail: accept while the queue is below its limit (in packets or bytes), else drop.

use super::{Fifo, QueuePolicy, Verdict};
use crate::engine::Time;
use crate::packet::{DropCause, Wire};

#[derive(Clone, Copy, Debug)]
pub enum Limit {
    Packets(u64),
    Bytes(u64),
}

impl Limit {
    /// Whether a packet of `size` bytes fits behind what `fifo` holds.
    pub fn fits(self, fifo: &Fifo, size: u32) -> bool {
        match self {
            Limit::Packets(n) => (fifo.len() as u64) < n,
            Limit::Bytes(b) => fifo.bytes() + size as u64 <= b,
        }
    }
}

pub struct DropTail {
    pub limit: Limit,
}

impl QueuePolicy for DropTail {
    fn admit(&mut self, _now: Time, pkt: &mut Wire, fifo: &Fifo) -> Verdict {
        if self.limit.fits(fifo, pkt.size) {
            Verdict::Accept
        } else {
            Verdict::Drop(DropCause::QueueOverflow)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{FlowId, NodeId, PacketId};
    use crate::packet::{IpHeader, Packet, Proto, TcpHeader};

    fn pkt(size: u32) -> Packet {
        Packet::new(
            Wire {
                flow: FlowId(0),
                src: NodeId(0),
                dst: NodeId(1),
                size,
                proto: Proto::Udp,
                ip: IpHeader::default(),
                tcp: TcpHeader::default(),
                udp_seq: 0,
            },
            0,
        )
    }

    #[test]
    fn packet_limit() {
        let mut q = DropTail {
            limit: Limit::Packets(2),
        };
        let mut f = Fifo::default();
        for i in 0..2 {
            assert_eq!(q.admit(0, &mut pkt(1000), &f), Verdict::Accept);
            f.push(PacketId(i), 1000);
        }
        assert_eq!(
            q.admit(0, &mut pkt(40), &f),
            Verdict::Drop(DropCause::QueueOverflow)
        );
    }

    #[test]
    fn byte_limit() {
        let mut q = DropTail {
            limit: Limit::Bytes(2500),
        };
        let mut f = Fifo::default();
        f.push(PacketId(0), 1040);
        f.push(PacketId(1), 1040);
        assert_eq!(
            q.admit(0, &mut pkt(1040), &f),
            Verdict::Drop(DropCause::QueueOverflow)
        );
        assert_eq!(q.admit(0, &mut pkt(40), &f), Verdict::Accept);
    }
}
