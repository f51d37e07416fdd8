//! Applications: TCP bulk and finite transfers, UDP constant-rate and exponential on/off.

use crate::engine::{Rng, Time, SEC};

pub enum App {
    /// TCP, never runs dry.
    Bulk,
    /// TCP transfer of `size` bytes.
    File { size: u64 },
    /// UDP sending `packet_size`-byte datagrams every `interval`.
    Cbr { interval: Time, packet_size: u32 },
    /// UDP exponential on/off source (as ns-2's Application/Traffic/Exponential).
    OnOff {
        interval: Time,
        packet_size: u32,
        on_mean: f64,
        off_mean: f64,
        rng: Rng,
        on_until: Time,
    },
}

impl App {
    /// Seconds-to-nanoseconds for an exponential draw, at least 1 ns.
    pub fn draw(rng: &mut Rng, mean_s: f64) -> Time {
        ((rng.exponential(mean_s) * SEC as f64).round() as Time).max(1)
    }
}
