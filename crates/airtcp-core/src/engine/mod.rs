//! Time, the event scheduler and random streams.

pub mod rng;
pub mod scheduler;
pub mod timer;

pub use rng::{stream_seed, Rng};
pub use scheduler::{Scheduler, Tie};
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
#[inline]
pub fn tx_time(bytes: u64, rate_bps: u64) -> Time {
    // Every frame takes this path: a 64-bit division where the product fits (frames up to
    // about 2 GB), the 128-bit one (a library call, several times slower) otherwise.
    const LIMIT: u64 = u64::MAX / (8 * SEC);
    if bytes <= LIMIT {
        return (bytes * 8 * SEC).div_ceil(rate_bps);
    }
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

    #[test]
    fn tx_time_is_the_same_on_both_sides_of_the_64_bit_limit() {
        let limit = u64::MAX / (8 * SEC);
        for bytes in [limit - 1, limit, limit + 1, 3 * limit] {
            for rate in [1_000, 7_777_777, 1_000_000_007, u64::MAX] {
                let exact = (bytes as u128 * 8 * SEC as u128).div_ceil(rate as u128);
                assert_eq!(
                    tx_time(bytes, rate) as u128,
                    exact,
                    "{bytes} B at {rate} b/s"
                );
            }
        }
    }
}
