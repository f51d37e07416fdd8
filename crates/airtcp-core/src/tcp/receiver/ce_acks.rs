//! DCTCP's receiver (RFC 8257 3.2, and ns-3.44's variant): an ACK at each change of the CE
//! state of arriving segments.

use super::TcpReceiver;
use crate::engine::Time;
use crate::packet::{flags, Ecn};

/// How a receiver acknowledges changes of the CE state (DCTCP's receiver, RFC 8257 3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CeAcks {
    /// RFC 8257 (Linux's `dctcp_ece_ack_update`): when the CE state of arriving segments
    /// changes with a delayed ACK pending, that ACK goes at once with the old state, and the
    /// segment that changed it is acknowledged at once with the new one.
    Rfc,
    /// ns-3.44's `TcpDctcp::CeState0to1`/`CeState1to0`: with a delayed ACK reserved, an ACK
    /// with the old state of the cumulative point as it was before the previous segment
    /// (`m_priorRcvNxt` is taken before a segment is added), which also restarts the
    /// delayed-ACK count; the segment that changed the state is acknowledged as usual.
    Ns3,
}

/// The receiver side of DCTCP's CE-state ACKs.
#[derive(Clone, Copy, Debug)]
pub(super) struct CeAckState {
    pub(super) mode: CeAcks,
    /// CE state of the last ECN-capable data segment.
    pub(super) ce: bool,
    /// ns3: the cumulative point before the last such segment was added.
    pub(super) prior_rcv_nxt: Option<u64>,
    /// ns3: `m_delayedAckReserved` (a delayed ACK was scheduled since the last ACK sent at
    /// once; the delayed-ACK timer's expiry sets it too).
    pub(super) reserved: bool,
    /// ns3: the highest sequence number seen with CE (`m_ecnCESeq`): a CE mark on an older
    /// one counts as no CE.
    pub(super) ce_seq: Option<u64>,
    /// Rfc: the segment that changed the state is acknowledged at once.
    pub(super) ack_now: bool,
}

impl TcpReceiver {
    /// Acknowledge changes of the CE state as DCTCP's receiver does.
    pub fn set_ce_state_acks(&mut self, mode: CeAcks) {
        self.ce_acks = Some(CeAckState {
            mode,
            ce: false,
            prior_rcv_nxt: None,
            reserved: false,
            ce_seq: None,
            ack_now: false,
        });
    }

    /// DCTCP's receiver (RFC 8257 3.2): a data segment's CE state, before it is added.
    pub(super) fn ce_state_change(&mut self, now: Time, seq: u64, marked: bool) {
        let Some(c) = self.ce_acks else {
            return;
        };
        let ce = marked && (c.mode == CeAcks::Rfc || c.ce_seq.is_none_or(|s| s < seq));
        let mut c = c;
        if ce {
            c.ce_seq = Some(seq);
        }
        if ce != c.ce {
            let owed = match c.mode {
                CeAcks::Rfc => self.unacked_segments > 0,
                CeAcks::Ns3 => c.reserved && c.prior_rcv_nxt.is_some(),
            };
            if owed {
                // The ACK owed for what came before, with the old state.
                let ack = match c.mode {
                    CeAcks::Rfc => self.rcv_nxt,
                    CeAcks::Ns3 => c.prior_rcv_nxt.unwrap_or(self.rcv_nxt),
                };
                self.ce_acks = Some(c);
                let mut h = self.make_ack(now);
                h.ack = ack;
                self.last_ack_sent = ack;
                (h.ecn_echo, h.flags) = Self::ce_echo(c.ce);
                self.early_ack = Some(h);
            }
            c.ack_now = c.mode == CeAcks::Rfc;
        }
        if c.mode == CeAcks::Ns3 {
            c.prior_rcv_nxt = Some(self.rcv_nxt);
        }
        c.ce = ce;
        self.ce_acks = Some(c);
    }

    /// The echoed codepoint and flags of an ACK reporting the CE state `ce`.
    pub(super) fn ce_echo(ce: bool) -> (u8, u8) {
        if ce {
            (Ecn::CE.bits(), flags::ACK | flags::ECE)
        } else {
            (Ecn::ECT0.bits(), flags::ACK)
        }
    }
}
