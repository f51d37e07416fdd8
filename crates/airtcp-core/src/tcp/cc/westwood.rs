//! TCP Westwood (Casetti, Gerla, Mascolo, Sanadidi & Wang, Wireless Networks 8, 2002) and
//! Westwood+ (Grieco & Mascolo, ACM CCR 34(2), 2004): Reno's probing, but after a loss
//! ssthresh = BWE × RTTmin, with BWE estimated from the rate of returning ACKs.
//!
//! - Westwood: one bandwidth sample per ACK, b_k = d_k / (t_k − t_{k−1}), smoothed by the
//!   Tustin-discretized low-pass filter b̂_k = α_k b̂_{k−1} + (1 − α_k)(b_k + b_{k−1})/2 with
//!   α_k = (2τ − Δ_k)/(2τ + Δ_k); when no ACK arrives for τ/2, virtual zero samples are
//!   inserted (the paper's Nyquist condition, m = 2).
//! - Westwood+: one sample per RTT, b_k = D_k / Δ_k with D_k the bytes acknowledged during
//!   the last RTT, smoothed by b̂_k = α b̂_{k−1} + (1 − α) b_k, α = 0.9.
//!
//! Both count a duplicate ACK as one segment delivered and discount it from the cumulative ACK
//! that follows, so bytes are not counted twice.

use super::newreno::reno_increase;
use super::{AckInfo, CcState, CongestionControl, CongestionEvent, Params, Reaction};
use crate::engine::{Time, SEC};

#[derive(Clone, Debug)]
pub struct Westwood {
    plus: bool,
    /// Filtered bandwidth estimate, bytes per second.
    bwe: f64,
    /// Westwood: filter time constant τ (s).
    tau: f64,
    /// Westwood+: EWMA weight of the old estimate.
    alpha: f64,
    last_ack: Option<Time>,
    last_sample: f64,
    /// Bytes announced by duplicate ACKs not yet covered by a cumulative ACK.
    accounted: u64,
    /// Westwood+: start of the current RTT window and bytes acknowledged in it.
    window_start: Option<Time>,
    window_bytes: u64,
    /// Bytes of deliveries that arrived at the same instant as the previous sample.
    pending: u64,
}

impl Westwood {
    pub fn new(plus: bool, p: &mut Params) -> Result<Self, (String, String)> {
        let tau = p.get("tau", 0.5)?;
        let alpha = p.get("alpha", 0.9)?;
        if tau <= 0.0 {
            return Err(("tau".into(), format!("must be > 0, got {tau}")));
        }
        if !(0.0..1.0).contains(&alpha) {
            return Err(("alpha".into(), format!("must be in [0, 1), got {alpha}")));
        }
        Ok(Westwood {
            plus,
            bwe: 0.0,
            tau,
            alpha,
            last_ack: None,
            last_sample: 0.0,
            accounted: 0,
            window_start: None,
            window_bytes: 0,
            pending: 0,
        })
    }

    /// Bytes this ACK reports delivered.
    fn delivered(&mut self, ack: &AckInfo, mss: u64) -> u64 {
        if ack.dup_ack {
            self.accounted += mss;
            mss
        } else {
            let d = ack.acked_bytes.saturating_sub(self.accounted);
            self.accounted = self.accounted.saturating_sub(ack.acked_bytes);
            d
        }
    }

    /// One step of the Tustin low-pass filter for a sample `b` taken `dt` seconds after the
    /// previous one.
    fn tustin(&mut self, b: f64, dt: f64) {
        let a = (2.0 * self.tau - dt) / (2.0 * self.tau + dt);
        self.bwe = a * self.bwe + (1.0 - a) * (b + self.last_sample) / 2.0;
        self.last_sample = b;
    }

    fn per_ack(&mut self, now: Time, d: u64) {
        let Some(last) = self.last_ack else {
            self.last_ack = Some(now);
            return;
        };
        if now == last {
            self.pending += d;
            return;
        }
        let mut dt = (now - last) as f64 / SEC as f64;
        // Virtual null samples every τ/2 of silence.
        let step = self.tau / 2.0;
        let mut guard = 0;
        while dt > step && guard < 64 {
            self.tustin(0.0, step);
            dt -= step;
            guard += 1;
        }
        let gap = (now - last) as f64 / SEC as f64;
        let b = (d + self.pending) as f64 / gap;
        self.pending = 0;
        self.tustin(b, dt.max(1e-9));
        self.last_ack = Some(now);
    }

    fn per_rtt(&mut self, now: Time, d: u64, srtt: Option<Time>) {
        let start = *self.window_start.get_or_insert(now);
        self.window_bytes += d;
        let Some(rtt) = srtt else { return };
        if now - start >= rtt.max(1) {
            let b = self.window_bytes as f64 / ((now - start) as f64 / SEC as f64);
            self.bwe = if self.bwe == 0.0 {
                b
            } else {
                self.alpha * self.bwe + (1.0 - self.alpha) * b
            };
            self.window_start = Some(now);
            self.window_bytes = 0;
        }
    }

    /// BWE × RTTmin in bytes, at least two segments.
    fn target(&self, min_rtt: Option<Time>, mss: u64) -> u64 {
        let rtt = min_rtt.unwrap_or(0) as f64 / SEC as f64;
        ((self.bwe * rtt) as u64).max(2 * mss)
    }

    pub fn estimate_bps(&self) -> f64 {
        self.bwe * 8.0
    }
}

impl CongestionControl for Westwood {
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        let d = self.delivered(ack, st.mss);
        if self.plus {
            self.per_rtt(ack.now, d, ack.srtt);
        } else {
            self.per_ack(ack.now, d);
        }
        reno_increase(ack, st);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        Reaction::cut(self.target(ev.min_rtt, st.mss))
    }

    fn bandwidth_estimate(&self) -> Option<f64> {
        Some(self.estimate_bps())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use std::collections::BTreeMap;

    fn ww(plus: bool) -> Westwood {
        let m = BTreeMap::new();
        Westwood::new(plus, &mut Params::new(&m)).unwrap()
    }

    fn ack(now: Time, bytes: u64) -> AckInfo {
        AckInfo {
            now,
            acked_bytes: bytes,
            srtt: Some(100 * MS),
            ..Default::default()
        }
    }

    #[test]
    fn tustin_filter_step() {
        let mut w = ww(false);
        w.tau = 1.0;
        w.bwe = 100.0;
        w.last_sample = 100.0;
        // dt = 0.5: alpha = (2 - 0.5)/(2 + 0.5) = 0.6; new = 0.6*100 + 0.4*(300+100)/2 = 140.
        w.tustin(300.0, 0.5);
        assert!((w.bwe - 140.0).abs() < 1e-9, "{}", w.bwe);
    }

    #[test]
    fn per_ack_estimate_converges_to_constant_rate() {
        let mut w = ww(false);
        let mut st = CcState {
            cwnd: 10_000,
            ssthresh: 5_000,
            mss: 1000,
        };
        // 1000 bytes every 1 ms = 1 MB/s.
        for k in 0..20_000u64 {
            w.on_ack(&ack(k * MS, 1000), &mut st);
        }
        assert!((w.bwe - 1e6).abs() < 0.01e6, "{}", w.bwe);
    }

    #[test]
    fn silence_decays_estimate_through_null_samples() {
        let mut w = ww(false);
        w.bwe = 1e6;
        w.last_sample = 1e6;
        w.last_ack = Some(0);
        w.per_ack(5 * SEC, 1000);
        assert!(w.bwe < 0.2e6, "{}", w.bwe);
    }

    #[test]
    fn per_rtt_samples_and_ewma() {
        let mut w = ww(true);
        let mut st = CcState {
            cwnd: 10_000,
            ssthresh: 5_000,
            mss: 1000,
        };
        // 10 ACKs of 1000 B over 100 ms: first sample = 100 kB/s... sampled at t = 100 ms.
        for k in 0..=10u64 {
            w.on_ack(&ack(k * 10 * MS, 1000), &mut st);
        }
        assert!((w.bwe - 110_000.0).abs() < 1.0, "{}", w.bwe);
        // Next window at 300 kB/s: EWMA 0.9*110k + 0.1*300k = 129k.
        for k in 1..=30u64 {
            w.on_ack(&ack(100 * MS + k * 10 * MS / 3, 1000), &mut st);
        }
        assert!((w.bwe - 129_000.0).abs() < 1.0, "{}", w.bwe);
    }

    #[test]
    fn dupacks_count_once() {
        let mut w = ww(true);
        let mut d = AckInfo {
            dup_ack: true,
            ..Default::default()
        };
        assert_eq!(w.delivered(&d, 1000), 1000);
        assert_eq!(w.delivered(&d, 1000), 1000);
        d.dup_ack = false;
        d.acked_bytes = 5000;
        assert_eq!(w.delivered(&d, 1000), 3000, "two segments already counted");
        assert_eq!(w.accounted, 0);
    }

    #[test]
    fn ssthresh_is_bwe_times_min_rtt() {
        let mut w = ww(true);
        w.bwe = 125_000.0; // 1 Mbps
        let st = CcState {
            cwnd: 50_000,
            ssthresh: 1 << 30,
            mss: 1000,
        };
        let ev = CongestionEvent {
            now: 0,
            kind: super::super::CongestionKind::DupAcks,
            in_flight: 50_000,
            flight_size: 50_000,
            min_rtt: Some(80 * MS),
            true_cause: None,
        };
        assert_eq!(w.on_congestion(&ev, &st).ssthresh, 10_000);
        w.bwe = 0.0;
        assert_eq!(
            w.on_congestion(&ev, &st).ssthresh,
            2_000,
            "floor of two segments"
        );
    }
}
