//! How late packets were released: a histogram of 1 µs bins up to 100 ms (later ones share
//! the last bin; the maximum is kept exactly), so a long run costs no memory per packet.

use serde::Serialize;

const BIN_NS: u64 = 1_000;
const BINS: usize = 100_000;

pub struct Lateness {
    bins: Vec<u64>,
    n: u64,
    max_ns: u64,
    sum_ns: u128,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Summary {
    pub packets: u64,
    pub mean_us: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
}

impl Default for Lateness {
    fn default() -> Self {
        Lateness {
            bins: vec![0; BINS],
            n: 0,
            max_ns: 0,
            sum_ns: 0,
        }
    }
}

impl Lateness {
    pub fn record(&mut self, late_ns: u64) {
        let b = ((late_ns / BIN_NS) as usize).min(BINS - 1);
        self.bins[b] += 1;
        self.n += 1;
        self.max_ns = self.max_ns.max(late_ns);
        self.sum_ns += late_ns as u128;
    }

    /// The q-quantile, as the upper edge of its bin (never under-reports).
    fn quantile_ns(&self, q: f64) -> u64 {
        if self.n == 0 {
            return 0;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0;
        for (i, &c) in self.bins.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return ((i as u64 + 1) * BIN_NS).min(self.max_ns.max(1));
            }
        }
        self.max_ns
    }

    pub fn summary(&self) -> Summary {
        let us = |ns: u64| ns as f64 / 1e3;
        Summary {
            packets: self.n,
            mean_us: if self.n == 0 {
                0.0
            } else {
                self.sum_ns as f64 / self.n as f64 / 1e3
            },
            p50_us: us(self.quantile_ns(0.5)),
            p99_us: us(self.quantile_ns(0.99)),
            max_us: us(self.max_ns),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_bound_the_values_from_above_within_a_bin() {
        let mut l = Lateness::default();
        for i in 0..1000u64 {
            l.record(i * 10_000); // 0, 10 µs, ..., 9.99 ms
        }
        let s = l.summary();
        assert_eq!(s.packets, 1000);
        // The 500th value is 4.99 ms; its bin ends at 4.991 ms.
        assert!((s.p50_us - 4991.0).abs() < 1e-9, "{s:?}");
        assert!((s.p99_us - 9891.0).abs() < 1e-9, "{s:?}");
        assert_eq!(s.max_us, 9990.0);
        assert!((s.mean_us - 4995.0).abs() < 1e-9);
        // Beyond the last bin only the maximum is exact.
        l.record(5_000_000_000);
        assert_eq!(l.summary().max_us, 5e6);
    }
}
