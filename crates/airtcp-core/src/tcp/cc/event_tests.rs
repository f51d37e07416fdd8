//! Test support for the schemes' unit tests: congestion events of the usual shape.

use super::{CongestionEvent, CongestionKind};
use crate::engine::Time;

impl CongestionEvent {
    /// An event at `now` whose flight is `in_flight` both ways, with no RTT measured yet and
    /// no true cause.
    pub fn at(now: Time, kind: CongestionKind, in_flight: u64) -> Self {
        CongestionEvent {
            now,
            kind,
            in_flight,
            flight_size: in_flight,
            min_rtt: None,
            true_cause: None,
        }
    }
}
