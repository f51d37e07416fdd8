//! Channel models: which frames a channel corrupts (error models), modulation curves and SNR
//! series. Devices (`crate::device`) apply them to the frames they send.

pub mod error;
pub mod modulation;
pub mod snr;

pub use error::{ErrorKind, ErrorModel, GilbertElliott, SnrErrors};
pub use modulation::Modulation;
pub use snr::{SnrSeries, SnrSynth};
