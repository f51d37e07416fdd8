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
                let hit = match applies_to {
                    AppliesTo::All => true,
                    AppliesTo::Data => pkt.is_data(),
                    AppliesTo::Ack => !pkt.is_data(),
                };
                // Draw only for packets the model applies to, so enabling ACK loss does not
                // reshuffle the data-loss pattern.
                hit && rng.bernoulli(*per)
            }
        }
    }
}
