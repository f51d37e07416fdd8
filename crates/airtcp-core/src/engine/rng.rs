//! Random streams. Each component draws from its own stream, seeded from (run seed, component
//! name), so adding a flow or a link never shifts the draws of another component.

/// SplitMix64 step (Steele, Lea & Flood 2014), used to expand seeds.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a over the component's name: stable across platforms and Rust versions, unlike
/// `std::hash`.
fn fnv1a(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

/// Seed of the stream that `component` uses in a run with seed `seed`.
pub fn stream_seed(seed: u64, component: &str) -> u64 {
    let mut s = seed ^ fnv1a(component).rotate_left(17);
    splitmix64(&mut s) ^ splitmix64(&mut s).rotate_left(32)
}

/// xoshiro256++ (Blackman & Vigna 2019): fast, small state, good statistical quality.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        let mut sm = seed;
        let mut s = [0u64; 4];
        for x in &mut s {
            *x = splitmix64(&mut sm);
        }
        Rng { s }
    }

    pub fn for_component(seed: u64, component: &str) -> Self {
        Rng::new(stream_seed(seed, component))
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = (self.s[0].wrapping_add(self.s[3]))
            .rotate_left(23)
            .wrapping_add(self.s[0]);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }

    /// Exponential with the given mean (inverse transform; 1-U avoids ln(0)).
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.uniform()).ln()
    }

    /// Uniform integer in [0, n).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let mut a = Rng::for_component(7, "link/R1-R2/ab");
        let mut b = Rng::for_component(7, "link/R1-R2/ab");
        let mut c = Rng::for_component(7, "link/R1-R2/ba");
        let mut d = Rng::for_component(8, "link/R1-R2/ab");
        let va: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let vb: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        let vc: Vec<u64> = (0..8).map(|_| c.next_u64()).collect();
        let vd: Vec<u64> = (0..8).map(|_| d.next_u64()).collect();
        assert_eq!(va, vb);
        assert_ne!(va, vc);
        assert_ne!(va, vd);
    }

    #[test]
    fn fnv1a_reference_values() {
        // Published FNV-1a 64-bit test vectors.
        assert_eq!(fnv1a(""), 0xcbf29ce484222325);
        assert_eq!(fnv1a("a"), 0xaf63dc4c8601ec8c);
    }

    #[test]
    fn uniform_and_exponential_moments() {
        let mut r = Rng::new(42);
        let n = 200_000;
        // Each mean within four standard errors: sd/sqrt(n) with sd 1/sqrt(12) for the
        // uniform, the mean itself for the exponential, sqrt(p(1-p)) for the Bernoulli.
        let se = |sd: f64| 4.0 * sd / (n as f64).sqrt();
        let mean_u: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((mean_u - 0.5).abs() < se(1.0 / 12f64.sqrt()), "{mean_u}");
        let mean_e: f64 = (0..n).map(|_| r.exponential(0.1)).sum::<f64>() / n as f64;
        assert!((mean_e - 0.1).abs() < se(0.1), "{mean_e}");
        let hits = (0..n).filter(|_| r.bernoulli(0.01)).count() as f64 / n as f64;
        assert!((hits - 0.01).abs() < se((0.01f64 * 0.99).sqrt()), "{hits}");
        assert!((0..1000).all(|_| r.below(7) < 7));
    }
}
