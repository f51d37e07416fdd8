//! Per-round RTT bookkeeping shared by delay-based schemes (Vegas, Veno): the base RTT (the
//! connection's minimum) and the minimum RTT sample of the last completed round, a round being
//! one smoothed RTT. The per-round minimum filters out delayed-ACK and ACK-compression noise,
//! as Linux's Vegas does.

use super::AckInfo;
use crate::engine::Time;

#[derive(Clone, Debug, Default)]
pub struct RttRounds {
    pub base_rtt: Option<Time>,
    /// Minimum RTT of the last completed round.
    pub last_round_min: Option<Time>,
    round_start: Option<Time>,
    round_min: Option<Time>,
    /// ACKs seen in the current round.
    pub acks_in_round: u32,
}

impl RttRounds {
    /// Feed an ACK; returns true when it closed a round.
    pub fn on_ack(&mut self, ack: &AckInfo) -> bool {
        if let Some(r) = ack.rtt {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
            self.round_min = Some(self.round_min.map_or(r, |m| m.min(r)));
        }
        self.acks_in_round += 1;
        let start = *self.round_start.get_or_insert(ack.now);
        let len = ack.srtt.or(self.base_rtt).unwrap_or(Time::MAX);
        if ack.now.saturating_sub(start) >= len && self.round_min.is_some() {
            self.last_round_min = self.round_min.take();
            self.round_start = Some(ack.now);
            self.acks_in_round = 0;
            return true;
        }
        false
    }

    /// Vegas/Veno backlog estimate in segments: (Expected − Actual) × BaseRTT
    /// = cwnd × (RTT − BaseRTT) / RTT, with RTT the last round's minimum.
    pub fn backlog(&self, cwnd_segments: f64) -> Option<f64> {
        let (base, rtt) = (self.base_rtt?, self.last_round_min?);
        if rtt == 0 {
            return None;
        }
        Some(cwnd_segments * (rtt.saturating_sub(base)) as f64 / rtt as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;

    fn ack(now: Time, rtt: Time) -> AckInfo {
        AckInfo {
            now,
            rtt: Some(rtt),
            srtt: Some(100 * MS),
            acked_bytes: 1000,
            ..Default::default()
        }
    }

    #[test]
    fn rounds_track_minimum_and_backlog() {
        let mut r = RttRounds::default();
        assert!(!r.on_ack(&ack(0, 100 * MS)));
        assert!(!r.on_ack(&ack(50 * MS, 120 * MS)));
        assert!(r.on_ack(&ack(100 * MS, 150 * MS)));
        assert_eq!(r.base_rtt, Some(100 * MS));
        assert_eq!(r.last_round_min, Some(100 * MS));
        assert!(!r.on_ack(&ack(150 * MS, 125 * MS)));
        assert!(r.on_ack(&ack(200 * MS, 130 * MS)));
        assert_eq!(r.last_round_min, Some(125 * MS));
        // cwnd 10 segments, RTT 125 ms vs base 100 ms: 10 * 25/125 = 2 segments queued.
        assert!((r.backlog(10.0).unwrap() - 2.0).abs() < 1e-9);
    }
}
