//! AODV's configuration (RFC 3561 section 10's constants and the choices it leaves open).

use super::OnBreak;
use crate::engine::Time;

const MS: Time = 1_000_000;

/// AODV's configuration; defaults are RFC 3561 section 10's.
#[derive(Clone, Debug)]
pub struct Config {
    /// Send HELLO messages and declare a link lost when they stop (6.9).
    pub hello: bool,
    /// Which nodes send HELLOs (6.9: those on an active route).
    pub hello_from: HelloFrom,
    /// Declare a link broken when the MAC gives up on a frame to it (6.10).
    pub link_feedback: bool,
    /// Data packets count as signs of life of the neighbour they came from (6.10: "any
    /// packet"), as control packets always do; the neighbour is the previous hop on the
    /// route back to the packet's source (6.2).
    pub data_liveness: bool,
    pub on_break: OnBreak,
    pub active_route_timeout: Time,
    pub hello_interval: Time,
    pub allowed_hello_loss: u32,
    pub net_diameter: u32,
    pub node_traversal_time: Time,
    pub rreq_retries: u32,
    pub ttl_start: u32,
    pub ttl_increment: u32,
    pub ttl_threshold: u32,
    pub timeout_buffer: u32,
    /// K of DELETE_PERIOD = K * max(ACTIVE_ROUTE_TIMEOUT, HELLO_INTERVAL).
    pub delete_k: u32,
    /// Data packets held during a discovery, and for how long (RFC 3561 leaves both open;
    /// ns-3's defaults).
    pub buffer_packets: usize,
    pub buffer_timeout: Time,
    /// Broadcasts (relayed RREQs, RERRs, HELLOs) wait a uniform jitter up to this.
    pub max_jitter: Time,
    /// RERR_RATELIMIT: RERR messages a node sends per second at most.
    pub rerr_ratelimit: u32,
    /// RREQ_RATELIMIT: RREQs a node originates per second at most (6.3); 0: no limit.
    pub rreq_ratelimit: u32,
    /// Originators set the G flag, and an intermediate node that answers a RREQ with it
    /// also sends a gratuitous RREP to the destination (6.6.3).
    pub gratuitous_rrep: bool,
    /// A route made invalid by a broken link or a RERR takes a new destination sequence
    /// number (6.11: incremented, or the RERR's), so that only fresher information than the
    /// broken route's answers the next RREQ; false keeps the number it had (ns-3's AODV).
    pub seq_on_break: bool,
    /// A relay passes on every RREP it can route back (ns-3's AODV); RFC 3561 6.7 passes on
    /// only one that created or updated its forward route, so a worse or repeated reply to
    /// the same discovery stops at the first node that knows better.
    pub relay_every_rrep: bool,
    /// Hearing from a neighbour refreshes or revives the route to it (RFC 3561 6.2); false
    /// leaves a route to it that has a valid sequence number and one hop as it is, valid or
    /// not (ns-3's `UpdateRouteToNeighbor` updates a copy of such an entry), except that
    /// the first copy of a RREQ from it makes the route valid without a number for
    /// ACTIVE_ROUTE_TIMEOUT (ns-3's `RecvRequest`).
    pub hear_revives: bool,
    /// A RREQ makes the route back to its originator valid (RFC 3561 6.2, 6.5); false
    /// updates an existing entry's number, next hop, hop count and lifetime but leaves it
    /// invalid if it was, and one for a destination this node is searching for stays in
    /// search (ns-3's `RecvRequest` keeps the entry's flag). With it, ns-3's table rules
    /// that go with that flag: an invalid entry past DELETE_PERIOD counts as none (ns-3
    /// purges before each lookup); a RREP goes back over any entry for its originator not in
    /// search and lengthens its lifetime whatever its flag (`RecvReply`); a discovery that
    /// gives up deletes its destination's entry (`RouteRequestTimerExpire`).
    pub rreq_revives: bool,
    /// A RREQ for a destination whose entry here (valid or not) has the RREQ's sender as
    /// next hop is dropped, neither answered nor relayed (ns-3's `RecvRequest`, against a
    /// loop); RFC 3561 6.5 has no such rule.
    pub rreq_loop_drop: bool,
    /// ns-3's jitter: a whole number of milliseconds from 0 to `max_jitter` (each equally
    /// likely), and on the RREQs a node originates too (RFC 5148's continuous jitter, on
    /// relayed messages only, otherwise).
    pub jitter_ns3: bool,
    /// Unicast control messages (RREP, RERR, RREP-ACK) are routed as data: one for a
    /// neighbour without an active route waits while a RREQ is flooded for it (ns-3 sends
    /// them through its own `RouteOutput`, whose missing route means the loopback and a
    /// discovery); RFC 3561 sends them to the neighbour directly.
    pub control_routed: bool,
    /// An intermediate node answering for a destination one hop away asks for a RREP-ACK
    /// (the A flag), which the next node sends back (RFC 3561 6.7, 6.8; ns-3 does so for
    /// every such reply).
    pub rrep_ack: bool,
    /// Which broadcasts stand in for a HELLO, and when the HELLO goes out after one.
    pub hello_suppress: HelloSuppress,
    /// Where the RERR goes when a relay has no route for a data packet (6.11 case ii).
    pub rerr_no_route: RerrNoRoute,
    /// Which routes a break or a received RERR reports onwards.
    pub rerr_routes: RerrRoutes,
}

/// Which nodes send HELLO messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HelloFrom {
    /// Nodes that are part of an active route (RFC 3561 6.9).
    Active,
    /// Every node, every HELLO_INTERVAL (ns-3's AODV).
    All,
}

/// Which broadcasts stand in for a HELLO (6.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HelloSuppress {
    /// RFC 3561 6.9: at every HELLO_INTERVAL the node skips the HELLO if it broadcast
    /// anything else (a RREQ, a RERR) within the last interval.
    Broadcast,
    /// ns-3's AODV (`HelloTimerExpire`): only RREQs it sent or relayed since the last check
    /// count, and they move the check to one HELLO_INTERVAL after the last of them; HELLOs
    /// leave after a broadcast jitter.
    RreqDefer,
}

/// Where a relay without a route for a data packet sends its RERR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RerrNoRoute {
    /// RFC 3561 6.11 (ii): to the precursors of the destination's route (unicast to one,
    /// broadcast otherwise), counted against RERR_RATELIMIT.
    Precursors,
    /// ns-3's AODV (`SendRerrWhenNoRouteToForward`): to the next hop back to the packet's
    /// source (broadcast without a route there), one per packet, held back while
    /// RERR_RATELIMIT is spent but not counted against it.
    TowardSource,
}

/// Which routes a link break or a received RERR reports to precursors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RerrRoutes {
    /// RFC 3561 6.11: the active routes the break or the RERR just made invalid; their
    /// precursors are told once and forgotten.
    Active,
    /// ns-3's AODV (`SendRerrWhenBreaksLinkToNextHop`, `RecvError`): every route through
    /// the broken next hop or the RERR's sender, valid or not (at a break with the
    /// neighbour itself), at every MAC give-up, to precursors that are kept; a single
    /// precursor only over a valid route to it (counted against RERR_RATELIMIT), several by
    /// broadcast if any has one (not counted).
    All,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            hello: true,
            hello_from: HelloFrom::Active,
            link_feedback: true,
            data_liveness: false,
            on_break: OnBreak::Drop,
            active_route_timeout: 3000 * MS,
            hello_interval: 1000 * MS,
            allowed_hello_loss: 2,
            net_diameter: 35,
            node_traversal_time: 40 * MS,
            rreq_retries: 2,
            ttl_start: 1,
            ttl_increment: 2,
            ttl_threshold: 7,
            timeout_buffer: 2,
            delete_k: 5,
            buffer_packets: 64,
            buffer_timeout: 30_000 * MS,
            max_jitter: 10 * MS,
            rerr_ratelimit: 10,
            rreq_ratelimit: 10,
            gratuitous_rrep: false,
            seq_on_break: true,
            relay_every_rrep: false,
            hear_revives: true,
            rreq_revives: true,
            rreq_loop_drop: false,
            jitter_ns3: false,
            control_routed: false,
            rrep_ack: false,
            hello_suppress: HelloSuppress::Broadcast,
            rerr_no_route: RerrNoRoute::Precursors,
            rerr_routes: RerrRoutes::Active,
        }
    }
}

impl Config {
    /// NET_TRAVERSAL_TIME = 2 * NODE_TRAVERSAL_TIME * NET_DIAMETER.
    pub fn net_traversal_time(&self) -> Time {
        2 * self.node_traversal_time * self.net_diameter as Time
    }
    /// PATH_DISCOVERY_TIME = 2 * NET_TRAVERSAL_TIME.
    pub fn path_discovery_time(&self) -> Time {
        2 * self.net_traversal_time()
    }
    /// MY_ROUTE_TIMEOUT = 2 * ACTIVE_ROUTE_TIMEOUT.
    pub fn my_route_timeout(&self) -> Time {
        2 * self.active_route_timeout
    }
    /// DELETE_PERIOD = K * max(ACTIVE_ROUTE_TIMEOUT, HELLO_INTERVAL).
    pub fn delete_period(&self) -> Time {
        self.delete_k as Time * self.active_route_timeout.max(self.hello_interval)
    }
    /// RING_TRAVERSAL_TIME = 2 * NODE_TRAVERSAL_TIME * (TTL_VALUE + TIMEOUT_BUFFER).
    pub fn ring_traversal_time(&self, ttl: u32) -> Time {
        2 * self.node_traversal_time * (ttl + self.timeout_buffer) as Time
    }
    /// How long a neighbour may stay silent before its link counts as lost.
    pub fn hello_loss_time(&self) -> Time {
        self.allowed_hello_loss as Time * self.hello_interval
    }
    /// The TTL of the next RREQ of a discovery after one sent with `ttl` (6.4): grow by
    /// TTL_INCREMENT up to TTL_THRESHOLD, then NET_DIAMETER.
    pub fn next_ttl(&self, ttl: u32) -> u32 {
        let t = ttl + self.ttl_increment;
        if t > self.ttl_threshold {
            self.net_diameter
        } else {
            t
        }
    }
    /// How long to wait for the RREP of a RREQ sent with `ttl`, `retry` RREQs at
    /// NET_DIAMETER having gone before (6.3, 6.4): the ring traversal time inside the
    /// ring, then NET_TRAVERSAL_TIME doubled at each retry (binary exponential backoff).
    pub fn rrep_wait(&self, ttl: u32, retry: u32) -> Time {
        if ttl >= self.net_diameter {
            self.net_traversal_time() << retry.min(16)
        } else {
            self.ring_traversal_time(ttl)
        }
    }
}
