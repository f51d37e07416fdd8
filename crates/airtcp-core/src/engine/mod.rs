//! Time, the event scheduler and random streams.

pub mod rng;
pub mod scheduler;
pub mod timer;

pub use rng::{stream_seed, Rng};
pub use scheduler::Scheduler;
pub use timer::{Timed, TimerSlot};

/// Simulated time in integer nanoseconds. Integer time keeps runs bit-identical across machines.
pub type Time = u64;

pub const NS: Time = 1;
pub const US: Time = 1_000;
pub const MS: Time = 1_000_000;
pub const SEC: Time = 1_000_000_000;

/// Seconds as f64, for reporting only (never for scheduling).
pub fn secs(t: Time) -> f64 {
    t as f64 / SEC as f64
}

/// Time needed to serialize `bytes` at `rate_bps`, rounded up to the next nanosecond so a link
/// never runs faster than its rate.
pub fn tx_time(bytes: u64, rate_bps: u64) -> Time {
    let bits = bytes as u128 * 8 * SEC as u128;
    bits.div_ceil(rate_bps as u128) as Time
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_rounds_up() {
        // 1040 bytes at 1 Mbps = 8.32 ms exactly.
        assert_eq!(tx_time(1040, 1_000_000), 8_320_000);
        // 1 byte at 3 bps = 2.666.. s -> rounded up.
        assert_eq!(tx_time(1, 3), 2_666_666_667);
    }
}
