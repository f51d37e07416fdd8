//! The 802.11 physical layer's models: transmission modes and their error-rate curves
//! ([`rate`]), per-frame fading ([`fading`]). Models take the time and the powers they need and
//! return probabilities or gains; the device decides what to do with them.

pub mod fading;
pub mod rate;

pub use fading::{Fading, FadingKind, PairFading};
pub use rate::{thermal_noise_w, WifiMode};
