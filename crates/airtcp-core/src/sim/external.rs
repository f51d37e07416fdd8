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
