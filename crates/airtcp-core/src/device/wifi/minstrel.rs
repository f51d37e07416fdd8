//! Minstrel rate control (the Linux mac80211 `rc80211_minstrel` design, as ns-3's
//! `MinstrelWifiManager` carries it over), one state per peer.
//!
//! Per rate it counts the data frames sent and acknowledged; every update interval (100 ms)
//! each rate's success probability of the interval is folded into an EWMA (weight 75% on the
//! old value; the first interval with frames sets it), and its throughput estimate is that
//! probability over the time of one attempt (zero below 10%, as Linux). The best and second
//! best throughput rates and the most reliable rate (the fastest of those above 95%) make the
//! multi-rate retry chain (best, second best, most reliable, lowest) whose stages get each
//! rate's retry count: the most attempts whose time (each with SIFS, ACK and the mean backoff
//! of a doubling window) stays within 6 ms, at most 10, cut to 2 for rates below 10% or above
//! 95%. A tenth of the frames look around: a rate drawn from the station's stream is tried
//! first, or second if it is slower than the best one (it would cost more than it could gain).

use crate::engine::{Rng, Time};

/// How often the statistics are folded in (ns-3's `UpdateStatistics`, Linux's 100 ms).
pub const UPDATE_INTERVAL: Time = 100_000_000;
/// Weight of the old value in the EWMA of the success probability, percent.
pub const EWMA_LEVEL: f64 = 75.0;
/// Share of frames sent at a sampled rate, percent.
pub const LOOKAROUND: u64 = 10;
/// The time budget the retry count of a rate must fit in.
const SEGMENT: Time = 6_000_000;

/// The per-rate constants a manager needs, computed from the medium.
#[derive(Clone, Debug, PartialEq)]
pub struct MinstrelRates {
    /// Time of one attempt at each rate (a reference frame, SIFS and ACK), ns.
    pub attempt: Vec<Time>,
    /// Retry count of each rate from the time budget.
    pub retries: Vec<u32>,
}

impl MinstrelRates {
    /// From the time of one attempt per rate, the slot and the contention window's bounds.
    pub fn new(attempt: Vec<Time>, slot: Time, cw_min: u32, cw_max: u32) -> MinstrelRates {
        let retries = attempt
            .iter()
            .map(|&t| retry_count(t, slot, cw_min, cw_max))
            .collect();
        MinstrelRates { attempt, retries }
    }
}

/// The most retries (2 to 10) whose total time stays within the 6 ms budget; 1 if even two do
/// not fit. A first attempt, then each retry adds an attempt and half the window in slots,
/// the window doubling (Linux's `minstrel_rate_init`).
pub fn retry_count(attempt: Time, slot: Time, cw_min: u32, cw_max: u32) -> u32 {
    let mut count = 1;
    for retries in 2..=10u32 {
        let mut tt = attempt as f64;
        let mut cw = cw_min as f64;
        for _ in 0..retries {
            tt += attempt as f64 + cw / 2.0 * slot as f64;
            cw = ((cw + 1.0) * 2.0 - 1.0).min(cw_max as f64);
        }
        if tt > SEGMENT as f64 {
            break;
        }
        count = retries;
    }
    count
}

/// What a station knows of one peer's rates.
#[derive(Clone, Debug, Default)]
pub struct Minstrel {
    attempts: Vec<u64>,
    successes: Vec<u64>,
    /// EWMA of the success probability, per rate (`None` before any frame at it).
    pub prob: Vec<Option<f64>>,
    pub throughput: Vec<f64>,
    adjusted: Vec<u32>,
    pub max_tp: usize,
    pub max_tp2: usize,
    pub max_prob: usize,
    next_update: Time,
    frames: u64,
    samples: u64,
    /// The current frame's chain: (rate, attempts) per stage.
    pub chain: [(usize, u32); 4],
    /// Data attempts of the current frame that failed.
    failed: u32,
    /// Rate of the attempt under way.
    cur: usize,
}

impl Minstrel {
    pub fn new(rates: &MinstrelRates) -> Minstrel {
        let n = rates.attempt.len();
        Minstrel {
            attempts: vec![0; n],
            successes: vec![0; n],
            prob: vec![None; n],
            throughput: vec![0.0; n],
            adjusted: rates.retries.clone(),
            chain: [(0, 1); 4],
            ..Minstrel::default()
        }
    }

    /// Fold the interval's counts into the statistics and choose the chain's rates.
    pub fn update(&mut self, rates: &MinstrelRates) {
        let n = self.attempts.len();
        for k in 0..n {
            if self.attempts[k] > 0 {
                let p = self.successes[k] as f64 / self.attempts[k] as f64;
                let w = EWMA_LEVEL / 100.0;
                let ewma = self.prob[k].map_or(p, |old| old * w + p * (1.0 - w));
                self.prob[k] = Some(ewma);
                self.throughput[k] = if ewma < 0.1 {
                    0.0
                } else {
                    ewma / (rates.attempt[k] as f64 * 1e-9)
                };
            }
            self.attempts[k] = 0;
            self.successes[k] = 0;
            let prob = self.prob[k].unwrap_or(0.0);
            // Few retries where they change nothing: a rate that almost always or almost
            // never works.
            self.adjusted[k] = if !(0.1..=0.95).contains(&prob) {
                rates.retries[k].min(2)
            } else {
                rates.retries[k]
            };
        }
        let best = |skip: Option<usize>| {
            (0..n)
                .filter(|&k| Some(k) != skip)
                .fold(None, |b: Option<usize>, k| match b {
                    Some(j) if self.throughput[j] >= self.throughput[k] => Some(j),
                    _ => Some(k),
                })
                .unwrap_or(0)
        };
        self.max_tp = best(None);
        self.max_tp2 = if n > 1 { best(Some(self.max_tp)) } else { 0 };
        let mut mp = 0;
        for k in 0..n {
            let (pk, pm) = (self.prob[k].unwrap_or(0.0), self.prob[mp].unwrap_or(0.0));
            if pk >= 0.95 {
                if self.throughput[k] >= self.throughput[mp] {
                    mp = k;
                }
            } else if pk >= pm {
                mp = k;
            }
        }
        self.max_prob = mp;
    }

    /// The rate for the next data attempt: `first` for a new frame, whose chain is chosen.
    pub fn pick(&mut self, rates: &MinstrelRates, now: Time, first: bool, rng: &mut Rng) -> usize {
        if now >= self.next_update {
            self.update(rates);
            self.next_update = now + UPDATE_INTERVAL;
        }
        if first {
            self.failed = 0;
            self.frames += 1;
            let n = self.attempts.len();
            let (tp, tp2, mp) = (self.max_tp, self.max_tp2, self.max_prob);
            let a = |k: usize| (k, self.adjusted[k].max(1));
            self.chain = [a(tp), a(tp2), a(mp), a(0)];
            if n > 1 && self.samples * 100 < self.frames * LOOKAROUND {
                self.samples += 1;
                // Any rate but the best, evenly.
                let mut s = rng.below(n as u64 - 1) as usize;
                if s >= tp {
                    s += 1;
                }
                self.chain = if rates.attempt[s] > rates.attempt[tp] {
                    [a(tp), a(s), a(mp), a(0)]
                } else {
                    [a(s), a(tp), a(mp), a(0)]
                };
            }
        }
        let mut left = self.failed;
        self.cur = 0;
        for &(k, c) in &self.chain {
            if left < c {
                self.cur = k;
                break;
            }
            left -= c;
        }
        self.cur
    }

    /// The attempt under way was acknowledged (`true`) or not.
    pub fn on_result(&mut self, ok: bool) {
        self.attempts[self.cur] += 1;
        if ok {
            self.successes[self.cur] += 1;
            self.failed = 0;
        } else {
            self.failed += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rates() -> MinstrelRates {
        // 1, 2, 5.5, 11 Mbit/s: a 1500-byte frame plus PLCP, SIFS and ACK, roughly.
        MinstrelRates::new(
            vec![12_500_000, 6_500_000, 2_700_000, 1_500_000],
            20_000,
            31,
            1023,
        )
    }

    #[test]
    fn retry_counts_fit_the_time_budget() {
        let r = rates();
        // A 12.5 ms attempt: not even two fit, one is kept.
        assert_eq!(r.retries[0], 1);
        // 1.5 ms: first attempt + n retries with backoff 310, 630, 1270... µs;
        // 2 retries = 1.5 + 1.81 + 2.13 = 5.44 ms fits, 3 adds 2.77 ms.
        assert_eq!(r.retries[3], 2);
        // 100 µs attempts, 9 µs slots, window 15: six retries take 0.7 ms of attempts and
        // (7.5 + 15.5 + 31.5 + 63.5 + 127.5 + 255.5) slots = 4.5 ms; a seventh adds 4.6 ms.
        assert_eq!(retry_count(100_000, 9_000, 15, 1023), 6);
        // Short attempts and slots: at most 10.
        assert_eq!(retry_count(10_000, 1_000, 15, 1023), 10);
        assert!(r.retries.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn statistics_fold_in_with_a_75_percent_ewma() {
        let r = rates();
        let mut m = Minstrel::new(&r);
        // First interval at 11 Mbit/s: 6 of 10 succeed, the EWMA starts there.
        m.cur = 3;
        for i in 0..10 {
            m.on_result(i < 6);
        }
        m.update(&r);
        assert!((m.prob[3].unwrap() - 0.6).abs() < 1e-12);
        assert!((m.throughput[3] - 0.6 / 1.5e-3).abs() < 1e-6);
        // Next interval all succeed: 0.75·0.6 + 0.25·1.
        for _ in 0..4 {
            m.on_result(true);
        }
        m.update(&r);
        assert!((m.prob[3].unwrap() - 0.7).abs() < 1e-12);
        // An interval without frames leaves it.
        m.update(&r);
        assert!((m.prob[3].unwrap() - 0.7).abs() < 1e-12);
        // Below 10% the throughput counts as nothing.
        m.cur = 2;
        for _ in 0..20 {
            m.on_result(false);
        }
        m.on_result(true);
        m.update(&r);
        assert!(m.prob[2].unwrap() < 0.1);
        assert_eq!(m.throughput[2], 0.0);
    }

    #[test]
    fn the_chain_is_best_second_most_reliable_lowest() {
        let r = MinstrelRates::new(
            vec![4_000_000, 3_000_000, 2_000_000, 1_000_000],
            9_000,
            15,
            1023,
        );
        let mut m = Minstrel::new(&r);
        m.prob = vec![Some(1.0), Some(0.97), Some(0.5), Some(0.3)];
        m.throughput = vec![250.0, 323.0, 250.0, 300.0];
        // Keep the throughputs: no counts this interval.
        let keep = (m.prob.clone(), m.throughput.clone());
        m.update(&r);
        assert_eq!((m.prob.clone(), m.throughput.clone()), keep);
        assert_eq!(m.max_tp, 1);
        assert_eq!(m.max_tp2, 3);
        // Both rates 0 and 1 are above 95%: the faster by throughput.
        assert_eq!(m.max_prob, 1);
        // Adjusted retries: rates above 95% get at most 2.
        assert_eq!(m.adjusted[0], r.retries[0].min(2));
        assert_eq!(m.adjusted[2], r.retries[2]);
        // A frame that is not a lookaround walks the chain stage by stage.
        let mut rng = Rng::new(1);
        m.frames = 0;
        m.samples = 1; // no lookaround on the next frame
        m.next_update = Time::MAX;
        let k = m.pick(&r, 0, true, &mut rng);
        assert_eq!(m.chain[0].0, 1);
        assert_eq!(m.chain[1].0, 3);
        assert_eq!(m.chain[2].0, 1);
        assert_eq!(m.chain[3].0, 0);
        assert_eq!(k, 1);
        let mut seen = vec![k];
        for _ in 0..20 {
            m.on_result(false);
            seen.push(m.pick(&r, 0, false, &mut rng));
        }
        let c = &m.chain;
        let want: Vec<usize> = c
            .iter()
            .flat_map(|&(k, n)| std::iter::repeat_n(k, n as usize))
            .chain(std::iter::repeat(0))
            .take(21)
            .collect();
        assert_eq!(seen, want);
    }

    #[test]
    fn a_tenth_of_the_frames_look_around() {
        let r = rates();
        let mut m = Minstrel::new(&r);
        let mut rng = Rng::new(7);
        let mut sampled = 0;
        for _ in 0..1000 {
            m.pick(&r, 0, true, &mut rng);
            if m.chain[0].0 != m.max_tp || m.chain[1].0 != m.max_tp2 {
                sampled += 1;
            }
            m.on_result(true);
        }
        assert_eq!(m.samples, 100);
        assert!(sampled > 0 && sampled <= 100, "{sampled}");
    }
}
