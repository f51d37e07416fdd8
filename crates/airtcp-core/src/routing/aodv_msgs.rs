//! AODV's messages (RFC 3561 section 5) and routing table entries, with the rules that
//! order route information by destination sequence number (6.1, 6.2).

use crate::engine::Time;
use crate::ids::NodeId;

/// Whether sequence number `a` is newer than `b` (6.1: signed 32-bit comparison, so that the
/// numbers may wrap).
pub fn seq_newer(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}

/// Route request (5.1): 24 bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Rreq {
    /// The IP header's TTL (ring size).
    pub ttl: u32,
    pub hops: u32,
    pub id: u32,
    pub dst: NodeId,
    pub dst_seq: u32,
    /// U flag: the destination's sequence number is unknown.
    pub unknown_seq: bool,
    /// G flag: an intermediate node that answers also tells the destination (6.6.3).
    pub gratuitous: bool,
    pub orig: NodeId,
    pub orig_seq: u32,
}

/// Route reply (5.2): 20 bytes. A HELLO is a RREP with the sender as destination and
/// originator, hop count 0 and TTL 1 (6.9).
#[derive(Clone, Debug, PartialEq)]
pub struct Rrep {
    pub hops: u32,
    pub dst: NodeId,
    pub dst_seq: u32,
    pub orig: NodeId,
    pub lifetime: Time,
    /// A flag: the next node acknowledges it with a RREP-ACK (`rrep_ack`).
    pub ack: bool,
}

/// Route error (5.3): 4 bytes and 8 per unreachable destination.
#[derive(Clone, Debug, PartialEq)]
pub struct Rerr {
    pub dests: Vec<(NodeId, u32)>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Msg {
    Rreq(Rreq),
    Rrep(Rrep),
    Rerr(Rerr),
    /// Route reply acknowledgment (5.4): 2 bytes.
    RrepAck,
}

impl Msg {
    pub fn bytes(&self) -> u32 {
        match self {
            Msg::Rreq(_) => 24,
            Msg::Rrep(_) => 20,
            Msg::Rerr(e) => 4 + 8 * e.dests.len() as u32,
            Msg::RrepAck => 2,
        }
    }
    pub fn kind(&self) -> &'static str {
        match self {
            Msg::Rreq(_) => "rreq",
            Msg::Rrep(r) if r.dst == r.orig => "hello",
            Msg::Rrep(_) => "rrep",
            Msg::Rerr(_) => "rerr",
            Msg::RrepAck => "rrep_ack",
        }
    }
}

/// A routing table entry (6.1, 6.2).
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub seq: u32,
    pub valid_seq: bool,
    /// Active (valid) or invalid (kept for its sequence number and hop count until deleted).
    pub valid: bool,
    pub hops: u32,
    pub next: NodeId,
    /// Active: when the route expires; invalid: when the entry is deleted.
    pub expires: Time,
    pub precursors: Vec<NodeId>,
}

impl Entry {
    pub(super) fn add_precursor(&mut self, p: NodeId) {
        if !self.precursors.contains(&p) {
            self.precursors.push(p);
        }
    }
}

/// Whether new route information (sequence number `seq`, None if unknown, over `hops`
/// hops) replaces the entry `e` (6.2; 6.7 adds the case of an equal number on an invalid
/// route): a newer sequence number, an equal one with fewer hops or an inactive route, or an
/// entry whose own number is not valid. Information without a sequence number replaces
/// only an entry without a valid one.
pub fn should_update(e: Option<&Entry>, seq: Option<u32>, hops: u32) -> bool {
    let Some(e) = e else { return true };
    match seq {
        None => !e.valid_seq || !e.valid,
        Some(s) => {
            !e.valid_seq || seq_newer(s, e.seq) || (s == e.seq && (!e.valid || hops < e.hops))
        }
    }
}
