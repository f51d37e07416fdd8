//! Channel error models: decide whether a transmitted packet arrives corrupted.

use crate::engine::Rng;
use crate::packet::Packet;
use crate::scenario::schema::AppliesTo;

pub enum ErrorModel {
    None,
    /// Independent losses with probability `per` per packet.
    Bernoulli {
        per: f64,
        applies_to: AppliesTo,
        rng: Rng,
    },
    /// Drops the packets whose index among those it applies to is listed (sorted).
    List {
        packets: Vec<u64>,
        applies_to: AppliesTo,
        seen: u64,
        next: usize,
    },
}

fn applies(applies_to: AppliesTo, pkt: &Packet) -> bool {
    match applies_to {
        AppliesTo::All => true,
        AppliesTo::Data => pkt.is_data(),
        AppliesTo::Ack => !pkt.is_data(),
    }
}

impl ErrorModel {
    /// True if `pkt` is corrupted on this transmission.
    pub fn corrupts(&mut self, pkt: &Packet) -> bool {
        match self {
            ErrorModel::None => false,
            ErrorModel::Bernoulli {
                per,
                applies_to,
                rng,
            } => {
                // Draw only for packets the model applies to, so enabling ACK loss does not
                // reshuffle the data-loss pattern.
                applies(*applies_to, pkt) && rng.bernoulli(*per)
            }
            ErrorModel::List {
                packets,
                applies_to,
                seen,
                next,
            } => {
                if !applies(*applies_to, pkt) {
                    return false;
                }
                let i = *seen;
                *seen += 1;
                if packets.get(*next) == Some(&i) {
                    *next += 1;
                    true
                } else {
                    false
                }
            }
        }
    }
}
