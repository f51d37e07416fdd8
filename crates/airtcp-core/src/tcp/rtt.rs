//! Retransmission timeout estimation (RFC 6298).

use crate::engine::Time;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    pub srtt: Option<Time>,
    pub rttvar: Time,
    pub min_rtt: Option<Time>,
    /// Current RTO, backed off on timeouts.
    pub rto: Time,
    /// The RTO before any sample.
    pub initial: Time,
    pub min_rto: Time,
    pub max_rto: Time,
    /// Clock granularity G of RFC 6298 (2.2/2.3).
    pub granularity: Time,
    /// Linux's rule: RTO = SRTT + max(4·RTTVAR, min RTO), the minimum added to SRTT rather
    /// than a floor under the whole (tcp_input.c, tcp_rtt_estimator / tcp_set_rto).
    pub min_rto_added: bool,
    pub samples: u64,
    pub sum: u128,
    /// Sum of the RTO after each sample, for the mean RTO a run used.
    pub rto_sum: u128,
}

impl RttEstimator {
    pub fn new(initial_rto: Time, min_rto: Time, max_rto: Time) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: 0,
            min_rtt: None,
            rto: initial_rto.clamp(min_rto, max_rto),
            initial: initial_rto.clamp(min_rto, max_rto),
            min_rto,
            max_rto,
            granularity: 1_000_000,
            min_rto_added: false,
            samples: 0,
            sum: 0,
            rto_sum: 0,
        }
    }

    /// Feed one RTT measurement `r` (RFC 6298 2.2 and 2.3, alpha = 1/8, beta = 1/4).
    pub fn sample(&mut self, r: Time) {
        self.samples += 1;
        self.sum += r as u128;
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                let err = srtt.abs_diff(r);
                self.rttvar = (3 * self.rttvar + err) / 4;
                self.srtt = Some((7 * srtt + r) / 8);
            }
        }
        self.rto = self.computed_rto();
        self.rto_sum += self.rto as u128;
    }

    fn computed_rto(&self) -> Time {
        let srtt = self.srtt.unwrap_or(0);
        if self.min_rto_added {
            return (srtt + self.min_rto.max(4 * self.rttvar)).min(self.max_rto);
        }
        (srtt + self.granularity.max(4 * self.rttvar)).clamp(self.min_rto, self.max_rto)
    }

    /// The RTO from the estimate, any backoff dropped: ns-3.44's `NewAck` does this at every
    /// ACK that restarts the timer, sample or not, where RFC 6298 (5.5 to 5.7, with Karn's
    /// rule) keeps the backed-off RTO until a valid sample (`rto_on_new_ack = "estimate"`).
    pub fn reset_to_estimate(&mut self) {
        self.rto = if self.srtt.is_some() {
            self.computed_rto()
        } else {
            self.initial
        };
    }

    /// Exponential backoff after a timeout (RFC 6298 5.5).
    pub fn backoff(&mut self) {
        self.rto = (self.rto.saturating_mul(2)).min(self.max_rto);
    }

    pub fn mean(&self) -> Option<f64> {
        (self.samples > 0).then(|| self.sum as f64 / self.samples as f64)
    }

    /// Mean RTO over the samples (ns).
    pub fn mean_rto(&self) -> Option<f64> {
        (self.samples > 0).then(|| self.rto_sum as f64 / self.samples as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;

    #[test]
    fn first_and_subsequent_samples() {
        let mut e = RttEstimator::new(1000 * MS, 200 * MS, 60_000 * MS);
        assert_eq!(e.rto, 1000 * MS);
        e.sample(100 * MS);
        // SRTT = R, RTTVAR = R/2, RTO = SRTT + 4*RTTVAR = 300 ms.
        assert_eq!(e.srtt, Some(100 * MS));
        assert_eq!(e.rttvar, 50 * MS);
        assert_eq!(e.rto, 300 * MS);
        e.sample(200 * MS);
        // RTTVAR = 3/4*50 + 1/4*100 = 62.5; SRTT = 7/8*100 + 1/8*200 = 112.5
        assert_eq!(e.rttvar, 62_500_000);
        assert_eq!(e.srtt, Some(112_500_000));
        assert_eq!(e.rto, 112_500_000 + 250 * MS);
        assert_eq!(e.min_rtt, Some(100 * MS));
    }

    #[test]
    fn linux_adds_the_minimum_to_srtt() {
        let mut e = RttEstimator::new(1000 * MS, 200 * MS, 60_000 * MS);
        e.min_rto_added = true;
        e.sample(100 * MS);
        assert_eq!(e.rto, 100 * MS + 200 * MS, "SRTT + max(4 * 50 ms, 200 ms)");
        e.sample(100 * MS);
        // RTTVAR = 3/4 * 50 = 37.5 ms: 4 * RTTVAR = 150 ms is below the minimum.
        assert_eq!(e.rto, 300 * MS);
        let mut r = RttEstimator::new(1000 * MS, 200 * MS, 60_000 * MS);
        r.sample(100 * MS);
        r.sample(100 * MS);
        assert_eq!(r.rto, 250 * MS, "RFC 6298: max(200 ms, 100 ms + 150 ms)");
    }

    #[test]
    fn clamps_and_backs_off() {
        let mut e = RttEstimator::new(1000 * MS, 200 * MS, 3000 * MS);
        e.sample(10 * MS);
        assert_eq!(e.rto, 200 * MS, "min RTO applies");
        e.backoff();
        assert_eq!(e.rto, 400 * MS);
        for _ in 0..10 {
            e.backoff();
        }
        assert_eq!(e.rto, 3000 * MS, "max RTO caps the backoff");
    }

    #[test]
    fn reset_to_estimate_drops_the_backoff() {
        let mut e = RttEstimator::new(1000 * MS, 200 * MS, 60_000 * MS);
        e.backoff();
        e.reset_to_estimate();
        assert_eq!(e.rto, 1000 * MS, "no sample yet: the initial RTO");
        e.sample(100 * MS);
        e.backoff();
        e.backoff();
        assert_eq!(e.rto, 1200 * MS);
        e.reset_to_estimate();
        assert_eq!(e.rto, 300 * MS, "SRTT + 4 RTTVAR = 100 + 4 * 50 ms");
    }
}
