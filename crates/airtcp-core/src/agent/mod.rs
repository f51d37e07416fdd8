//! Node agents: mechanisms that sit at a node between IP and the transport or the link
//! (SNR-driven transmit gate at a mobile host; base-station agents later).

pub mod eln;
pub mod snoop;
pub mod snr_gate;

pub use eln::ElnAgent;
pub use snoop::SnoopAgent;
pub use snr_gate::SnrGate;

use serde::Serialize;

pub enum Agent {
    SnrGate(SnrGate),
    Eln(ElnAgent),
    Snoop(SnoopAgent),
}

/// Per-agent results.
#[derive(Serialize, Debug, Clone)]
pub struct AgentResult {
    pub kind: &'static str,
    pub node: String,
    /// Times the agent closed (stopped its node's TCP senders).
    pub closures: u64,
    /// Total time closed, seconds.
    pub closed_s: f64,
    /// New data segments the node's TCP senders produced while closed (must be 0).
    pub new_data_while_closed: u64,
    /// ACKs the agent marked (ELN).
    pub marked: u64,
    /// Local retransmissions (Snoop).
    pub local_retransmits: u64,
    /// Duplicate ACKs kept from the sender (Snoop).
    pub suppressed: u64,
}
