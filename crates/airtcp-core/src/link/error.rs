//! Channel error models: decide whether a transmitted packet arrives corrupted. Every model
//! applies to data packets, pure ACKs, or both, and draws only for the packets it applies to,
//! so enabling ACK loss does not reshuffle the data-loss pattern.

use super::modulation::Modulation;
use super::snr::SnrSeries;
use crate::engine::{Rng, Time, SEC};
use crate::packet::Packet;
use serde::{Deserialize, Serialize};

/// Which packets an error model applies to.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum AppliesTo {
    Data,
    Ack,
    #[default]
    All,
}

pub struct ErrorModel {
    pub applies_to: AppliesTo,
    pub kind: ErrorKind,
}

pub enum ErrorKind {
    None,
    /// Independent losses with probability `per` per packet.
    Bernoulli {
        per: f64,
        rng: Rng,
    },
    /// Independent bit errors: a packet of n bytes survives with (1 − ber)^(8n).
    Ber {
        ber: f64,
        rng: Rng,
    },
    /// Gilbert–Elliott two-state channel in continuous time: exponential sojourns with the
    /// given means; a packet is lost with the loss probability of the state it ends in.
    GilbertElliott(Box<GilbertElliott>),
    /// Drops the packets whose index among those it applies to is listed (sorted).
    List {
        packets: Vec<u64>,
        seen: u64,
        next: usize,
    },
    /// Copy k of the data segment at `seq` is lost iff hash(seed, seq, k) < per.
    Hashed {
        per: f64,
        seed: u64,
        /// Copies of each segment seen so far.
        copies: std::collections::BTreeMap<u64, u32>,
    },
    /// Packet error from the SNR at transmission time, through the modulation's curve.
    Snr(Box<SnrErrors>),
}

// The two larger models are boxed: every link direction holds an error model, most hold
// none or a plain PER, and the device is smaller for it.

/// Gilbert–Elliott state (see [`ErrorKind::GilbertElliott`]).
pub struct GilbertElliott {
    pub mean_good: f64,
    pub mean_bad: f64,
    pub per_good: f64,
    pub per_bad: f64,
    pub bad: bool,
    pub next_switch: Time,
    pub rng: Rng,
}

/// SNR-driven errors (see [`ErrorKind::Snr`]).
pub struct SnrErrors {
    pub series: usize,
    pub modulation: Modulation,
    pub rng: Rng,
    /// Last (SNR, size) -> PER: the SNR holds for a whole sample interval and a channel
    /// mostly carries one packet size, and the CCK curve is an integral.
    pub cache: Option<(f64, u32, f64)>,
    /// The frame size every PER is computed for (None: each frame's own).
    pub per_size: Option<u32>,
}

impl ErrorModel {
    pub fn none() -> Self {
        ErrorModel {
            applies_to: AppliesTo::All,
            kind: ErrorKind::None,
        }
    }

    fn applies(&self, pkt: &Packet) -> bool {
        match self.applies_to {
            AppliesTo::All => true,
            AppliesTo::Data => pkt.is_data(),
            AppliesTo::Ack => !pkt.is_data(),
        }
    }

    /// Whether a MAC control frame of `bytes` bytes (RTS, CTS, link ACK) arrives corrupted:
    /// only a bit-error model reaches these short frames; packet-level models (a PER, a loss
    /// list, an SNR curve per packet) apply to the frames that carry packets.
    pub fn corrupts_control(&mut self, bytes: u32) -> bool {
        match &mut self.kind {
            ErrorKind::Ber { ber, rng } => {
                let survive = (1.0 - *ber).powf(8.0 * bytes as f64);
                rng.bernoulli(1.0 - survive)
            }
            _ => false,
        }
    }

    /// True if `pkt`, finishing its transmission at `now`, is corrupted.
    #[inline]
    pub fn corrupts(&mut self, now: Time, pkt: &Packet, snr: &[SnrSeries]) -> bool {
        // Inline, so the links without an error model (most of a wired topology's) pay a
        // compare per frame, not a call.
        if matches!(self.kind, ErrorKind::None) || !self.applies(pkt) {
            return false;
        }
        // The most common model draws here; the others' state machines stay out of line.
        if let ErrorKind::Bernoulli { per, rng } = &mut self.kind {
            return rng.bernoulli(*per);
        }
        self.draw(now, pkt, snr)
    }

    fn draw(&mut self, now: Time, pkt: &Packet, snr: &[SnrSeries]) -> bool {
        match &mut self.kind {
            ErrorKind::None => false,
            ErrorKind::Bernoulli { per, rng } => rng.bernoulli(*per),
            ErrorKind::Ber { ber, rng } => {
                let survive = (1.0 - *ber).powf(8.0 * pkt.size as f64);
                rng.bernoulli(1.0 - survive)
            }
            ErrorKind::GilbertElliott(g) => {
                let GilbertElliott {
                    mean_good,
                    mean_bad,
                    per_good,
                    per_bad,
                    bad,
                    next_switch,
                    rng,
                } = &mut **g;
                // After many good/bad cycles without a packet the state no longer depends on
                // where it was (the chain forgets at rate 1/mean_good + 1/mean_bad): draw it
                // afresh from the stationary distribution, so catching up costs O(1) however
                // short the sojourns and long the gap.
                let cycles = (now.saturating_sub(*next_switch)) as f64
                    / ((*mean_good + *mean_bad) * SEC as f64);
                if cycles > 64.0 {
                    *bad = rng.bernoulli(*mean_bad / (*mean_good + *mean_bad));
                    let mean = if *bad { *mean_bad } else { *mean_good };
                    *next_switch =
                        now.saturating_add(((rng.exponential(mean) * SEC as f64) as Time).max(1));
                }
                while *next_switch <= now {
                    *bad = !*bad;
                    let mean = if *bad { *mean_bad } else { *mean_good };
                    *next_switch = next_switch
                        .saturating_add(((rng.exponential(mean) * SEC as f64) as Time).max(1));
                }
                rng.bernoulli(if *bad { *per_bad } else { *per_good })
            }
            ErrorKind::Hashed { per, seed, copies } => {
                let tcp = &pkt.wire.tcp;
                if tcp.len == 0 {
                    return false;
                }
                let k = copies.entry(tcp.seq).or_insert(0);
                let copy = *k;
                *k += 1;
                hashed_unit(*seed, tcp.seq, copy) < *per
            }
            ErrorKind::List {
                packets,
                seen,
                next,
            } => {
                let i = *seen;
                *seen += 1;
                if packets.get(*next) == Some(&i) {
                    *next += 1;
                    true
                } else {
                    false
                }
            }
            ErrorKind::Snr(e) => {
                let SnrErrors {
                    series,
                    modulation,
                    rng,
                    cache,
                    per_size,
                } = &mut **e;
                let db = snr[*series].at(now);
                let size = per_size.unwrap_or(pkt.size);
                let per = match *cache {
                    Some((d, n, p)) if d == db && n == size => p,
                    _ => {
                        let p = modulation.per(db, size);
                        *cache = Some((db, size, p));
                        p
                    }
                };
                rng.bernoulli(per)
            }
        }
    }
}

/// SplitMix64's output function: a well-mixed 64-bit hash of `x`.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The `hashed` model's uniform draw in [0, 1) for copy `copy` of the segment at `seq`
/// (validation/ns3/dumbbell.cc computes the same).
pub fn hashed_unit(seed: u64, seq: u64, copy: u32) -> f64 {
    let h = splitmix64(splitmix64(splitmix64(seed) ^ seq) ^ copy as u64);
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// Gilbert–Elliott closed forms for packets sent every `dt` seconds through a channel with
/// mean sojourns `mg`, `mb` that loses every packet in the bad state and none in the good:
/// (loss rate, mean loss-burst length in packets). The sampled chain stays bad with
/// probability π_b + π_g·e^(−λ·dt), λ = 1/mg + 1/mb.
pub fn gilbert_closed_form(mg: f64, mb: f64, dt: f64) -> (f64, f64) {
    let pi_b = mb / (mg + mb);
    let lambda = 1.0 / mg + 1.0 / mb;
    let stay_bad = pi_b + (1.0 - pi_b) * (-lambda * dt).exp();
    (pi_b, 1.0 / (1.0 - stay_bad))
}
