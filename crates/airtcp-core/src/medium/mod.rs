//! Media: who receives a transmission. A point-to-point wire delivers to the device at its
//! other end after its propagation delay; on a shared radio medium ([`radio`]) the received
//! power of each transmitter-receiver pair decides who hears, who decodes and who is
//! interfered with (the 802.11 device does the per-receiver decisions).

pub mod radio;

use crate::engine::Time;
use crate::ids::{DevId, NodeId};

/// A full-duplex point-to-point wire between two devices.
#[derive(Clone, Copy, Debug)]
pub struct Wire {
    /// (node, device) at each end.
    pub ends: [(NodeId, DevId); 2],
    pub delay: Time,
}

impl Wire {
    /// The node that hears a transmission from `from`, and after how long.
    pub fn receiver(&self, from: DevId) -> (NodeId, Time) {
        let other = if self.ends[0].1 == from {
            self.ends[1]
        } else {
            self.ends[0]
        };
        (other.0, self.delay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_delivers_to_the_other_end() {
        let w = Wire {
            ends: [(NodeId(3), DevId(0)), (NodeId(5), DevId(1))],
            delay: 7,
        };
        assert_eq!(w.receiver(DevId(0)), (NodeId(5), 7));
        assert_eq!(w.receiver(DevId(1)), (NodeId(3), 7));
    }
}
