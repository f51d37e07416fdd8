//! ns-3.44's congestion state (`TcpSocketState::TcpCongState_t`) as a scheme can follow it
//! from what it is given, for the `ns3` variants of schemes whose ns-3 code acts on it:
//! `TcpSocketBase::ProcessAck` calls the scheme's `IncreaseWindow` only in `CA_OPEN` and
//! `CA_LOSS`, not in `CA_DISORDER`, and schemes such as `TcpYeah` restart their rounds in
//! `CongestionStateSet` when the socket returns to `CA_OPEN`.

use super::{AckInfo, CongestionKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ns3State {
    Open,
    /// Duplicate ACKs (or ACKs with new SACK information) below the threshold.
    Disorder,
    /// Fast recovery, until the sender reports its end.
    Recovery,
    /// Fast recovery ended; the ACK that ended it is next.
    RecoveryEnded,
    /// After a timeout, until the ACK of the highest sequence sent before it (the recovery
    /// point, read from the first ACK after the timeout: only the head's resend goes out
    /// between the two).
    Loss(Option<u64>),
}

impl Ns3State {
    /// A congestion signal the sender reacted to.
    pub fn on_congestion(&mut self, kind: CongestionKind) {
        *self = match kind {
            CongestionKind::Timeout => Ns3State::Loss(None),
            _ => Ns3State::Recovery,
        };
    }

    /// The sender ended its fast recovery.
    pub fn on_recovery_exit(&mut self) {
        if *self == Ns3State::Recovery {
            *self = Ns3State::RecoveryEnded;
        }
    }

    /// Follows the state through `ack`; true when it returns to `Open`.
    pub fn on_ack(&mut self, ack: &AckInfo) -> bool {
        match *self {
            Ns3State::Loss(None) => {
                *self = Ns3State::Loss(Some(ack.snd_nxt));
                false
            }
            Ns3State::RecoveryEnded => {
                *self = Ns3State::Open;
                true
            }
            Ns3State::Loss(Some(r)) if ack.ack_seq >= r => {
                *self = Ns3State::Open;
                true
            }
            Ns3State::Open if !ack.in_recovery && (ack.dup_ack || ack.sacked_bytes > 0) => {
                *self = Ns3State::Disorder;
                false
            }
            Ns3State::Disorder
                if !ack.in_recovery && ack.acked_bytes > 0 && ack.sacked_bytes == 0 =>
            {
                *self = Ns3State::Open;
                true
            }
            _ => false,
        }
    }
}
