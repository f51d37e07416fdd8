//! The simulation as a real-time network between real stacks (the emulator's media path):
//! the flows' endpoints are outside, their packets are put in at a host node as they arrive
//! (`inject_packet`), and a hook at each host takes what reaches it. The node layer, routing
//! and every device and medium run as in a simulated run; none of this is called by one.

use super::Sim;
use crate::engine::Time;
use crate::ids::{NodeId, PacketId};

impl Sim {
    /// Hand the flows' endpoints to the outside: the simulator's own senders and sources
    /// never start (the flows stay for routing, TDMA schedules and drop accounting).
    pub fn detach_endpoints(&mut self) {
        self.external_endpoints = true;
    }

    /// Put packet `id` (in the arena) into the network at `node` at the current time, as a
    /// local endpoint of `node` would send it.
    pub fn inject_packet(&mut self, node: NodeId, id: PacketId) {
        self.inject_id(node, id);
    }

    /// When the next event is due (None when nothing is pending).
    pub fn next_event_time(&mut self) -> Option<Time> {
        self.sched.next_time()
    }

    /// End the run at `t` (no later than its planned end): close the time integrals, so the
    /// result covers [0, t).
    pub fn close_at(&mut self, t: Time) {
        self.end = self.end.min(t.max(self.now()));
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::SEC;
    use crate::ids::FlowId;
    use crate::packet::{Packet, Proto, TcpHeader, Wire};
    use crate::scenario::parse_toml;

    const CHAIN: &str = include_str!("../../../../scenarios/chain4_wifi.toml");

    #[test]
    fn detached_flows_send_nothing_and_injected_packets_cross_the_chain() {
        let mut sim = crate::scenario::build(&parse_toml(CHAIN).unwrap()).unwrap();
        sim.detach_endpoints();
        sim.run_until(SEC);
        assert_eq!(sim.counters.injected, 0);
        assert_eq!(sim.next_event_time(), None);
        // A data segment put in at n0 at 1 s crosses the four hops to n4, where (with no
        // hook to take it) the flow's own receiver gets it and its ACK crosses back.
        let (n0, n4) = (sim.node_named("n0").unwrap(), sim.node_named("n4").unwrap());
        let wire = Wire {
            flow: FlowId(0),
            src: n0,
            dst: n4,
            size: 1040,
            proto: Proto::Tcp,
            ip: Default::default(),
            tcp: TcpHeader {
                len: 1000,
                ..Default::default()
            },
            udp_seq: 0,
        };
        let id = sim.pool.alloc(Packet::new(wire, sim.now()));
        sim.inject_packet(n0, id);
        assert!(sim.next_event_time().is_some_and(|t| t >= SEC));
        sim.run_until(2 * SEC);
        assert_eq!(sim.counters.delivered, 2);
        assert_eq!(sim.receiver(FlowId(0)).stats.received_packets, 1);
        sim.close_at(2 * SEC);
        assert_eq!(sim.end, 2 * SEC);
    }
}
