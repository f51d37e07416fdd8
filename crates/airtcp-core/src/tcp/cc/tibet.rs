//! TIBET, Time Intervals based Bandwidth Estimation Technique (Capone, Fratta & Martignon,
//! IEEE TMC 3(2), 2004): the sender low-pass filters the length of the data each ACK reports
//! delivered and the interval between ACKs separately, and estimates the bandwidth as their
//! ratio, BwE = avg_len / avg_interval, which avoids the bias of filtering rate samples
//! directly (ACK compression makes single samples huge). Window growth is Reno's; after a loss
//! ssthresh = BwE × RTTmin (the MEMBRANE paper: "CW = BwE × RTTmin"), cwnd = ssthresh after
//! duplicate ACKs and one segment after a timeout.
//!
//! Both averages use the same constant weight α per ACK (`alpha`, default 0.99, as in TIBET's
//! ns-2 evaluation). Duplicate ACKs count one segment delivered, discounted from the
//! cumulative ACK that follows (as Westwood does).

use super::newreno::reno_increase;
use super::{
    AckInfo, CcState, CongestionControl, CongestionEvent, CongestionKind, Params, Reaction,
};
use crate::engine::{Time, SEC};

#[derive(Clone, Debug)]
pub struct Tibet {
    alpha: f64,
    /// Filtered bytes per ACK and seconds between ACKs.
    avg_len: f64,
    avg_int: f64,
    last_ack: Option<Time>,
    /// Bytes announced by duplicate ACKs not yet covered by a cumulative ACK.
    accounted: u64,
    /// Bytes of ACKs that arrived at the same instant as the previous one.
    pending: u64,
    samples: u64,
}

impl Tibet {
    pub fn new(p: &mut Params) -> Result<Self, (String, String)> {
        let alpha = p.get("alpha", 0.99)?;
        if !(0.0..1.0).contains(&alpha) {
            return Err(("alpha".into(), format!("must be in [0, 1), got {alpha}")));
        }
        Ok(Tibet {
            alpha,
            avg_len: 0.0,
            avg_int: 0.0,
            last_ack: None,
            accounted: 0,
            pending: 0,
            samples: 0,
        })
    }

    /// Bandwidth estimate in bytes per second (0 before two ACKs).
    pub fn bwe(&self) -> f64 {
        if self.avg_int > 0.0 {
            self.avg_len / self.avg_int
        } else {
            0.0
        }
    }

    fn sample(&mut self, now: Time, bytes: u64) {
        let Some(last) = self.last_ack else {
            self.last_ack = Some(now);
            self.pending = bytes;
            return;
        };
        if now == last {
            // Same instant: one sample with the bytes together.
            self.pending += bytes;
            return;
        }
        let len = (bytes + self.pending) as f64;
        let int = (now - last) as f64 / SEC as f64;
        self.pending = 0;
        if self.samples == 0 {
            self.avg_len = len;
            self.avg_int = int;
        } else {
            self.avg_len = self.alpha * self.avg_len + (1.0 - self.alpha) * len;
            self.avg_int = self.alpha * self.avg_int + (1.0 - self.alpha) * int;
        }
        self.samples += 1;
        self.last_ack = Some(now);
    }

    fn target(&self, min_rtt: Option<Time>, mss: u64) -> u64 {
        let rtt = min_rtt.unwrap_or(0) as f64 / SEC as f64;
        ((self.bwe() * rtt) as u64).max(2 * mss)
    }
}

impl CongestionControl for Tibet {
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        let d = if ack.dup_ack {
            self.accounted += st.mss;
            st.mss
        } else {
            let d = ack.acked_bytes.saturating_sub(self.accounted);
            self.accounted = self.accounted.saturating_sub(ack.acked_bytes);
            d
        };
        if d > 0 {
            self.sample(ack.now, d);
        }
        reno_increase(ack, st);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        let ss = self.target(ev.min_rtt, st.mss);
        match ev.kind {
            CongestionKind::Timeout => Reaction {
                ssthresh: ss,
                cwnd: Some(st.mss),
                verdict: None,
                keep_window: false,
            },
            // Recovery ends with cwnd = ssthresh, as for Westwood.
            _ => Reaction::cut(ss),
        }
    }

    fn bandwidth_estimate(&self) -> Option<f64> {
        Some(self.bwe() * 8.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use std::collections::BTreeMap;

    fn tibet() -> Tibet {
        let m = BTreeMap::new();
        Tibet::new(&mut Params::new(&m)).unwrap()
    }

    fn ack(now: Time, bytes: u64) -> AckInfo {
        AckInfo {
            now,
            acked_bytes: bytes,
            ..Default::default()
        }
    }

    #[test]
    fn estimate_is_the_ratio_of_the_two_averages() {
        let mut t = tibet();
        let mut st = CcState {
            cwnd: 10_000,
            ssthresh: 5_000,
            mss: 1000,
        };
        // Alternating 1000 bytes after 1 ms and 3000 bytes after 1 ms: 2000 bytes / ms on
        // average, 2 MB/s, whatever the order.
        let mut now = 0;
        for k in 0..5000u64 {
            now += MS;
            t.on_ack(&ack(now, if k % 2 == 0 { 1000 } else { 3000 }), &mut st);
        }
        assert!((t.bwe() - 2e6).abs() < 0.02e6, "{}", t.bwe());
    }

    #[test]
    fn compressed_acks_do_not_blow_up_the_estimate() {
        // Bursts of 4 ACKs 10 µs apart every 4 ms, 1000 bytes each: 1 MB/s on average.
        // Filtering rate samples would average 25 MB/s bursts; filtering length and interval
        // apart gives the true rate.
        let mut t = tibet();
        let mut st = CcState {
            cwnd: 10_000,
            ssthresh: 5_000,
            mss: 1000,
        };
        let mut now = 0;
        for _ in 0..3000 {
            now += 4 * MS - 30_000;
            for i in 0..4 {
                if i > 0 {
                    now += 10_000;
                }
                t.on_ack(&ack(now, 1000), &mut st);
            }
        }
        assert!((t.bwe() - 1e6).abs() < 0.05e6, "{}", t.bwe());
    }

    #[test]
    fn loss_sets_ssthresh_to_bwe_times_rtt_min() {
        let mut t = tibet();
        t.avg_len = 1000.0;
        t.avg_int = 0.001;
        t.samples = 10;
        let st = CcState {
            cwnd: 50_000,
            ssthresh: 100_000,
            mss: 1000,
        };
        let ev = |kind| CongestionEvent {
            now: 0,
            kind,
            in_flight: 50_000,
            flight_size: 50_000,
            min_rtt: Some(20 * MS),
            true_cause: None,
        };
        // 1 MB/s × 20 ms = 20,000 bytes.
        assert_eq!(
            t.on_congestion(&ev(CongestionKind::DupAcks), &st).ssthresh,
            20_000
        );
        let r = t.on_congestion(&ev(CongestionKind::Timeout), &st);
        assert_eq!((r.ssthresh, r.cwnd), (20_000, Some(1000)));
    }
}
