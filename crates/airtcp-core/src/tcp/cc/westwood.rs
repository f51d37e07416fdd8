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
//!
//! `ns3 = 1` (Westwood+ only; the `ns3` profile's default) estimates as ns-3.44's
//! `TcpWestwoodPlus` does instead: see [`Ns3Estimator`].

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
    /// ns-3.44's estimator, replacing the above when `ns3 = 1`.
    ns3: Option<Ns3Estimator>,
}

/// ns-3.44's `TcpWestwoodPlus` (tcp-westwood-plus.cc, with the calls of tcp-socket-base.cc):
///
/// - the count is in segments, as `TcpSocketBase::ProcessAck` hands them to `PktsAcked`: one
///   for an ACK that does not move the cumulative point (a duplicate, with or without new
///   SACK information) and for a partial ACK during fast recovery; otherwise what the ACK
///   delivered, in whole segments with the remainder carried over; nothing before the first
///   RTT estimate;
/// - a window opens at the first counted ACK and closes exactly one SRTT (as it was then)
///   later: the sample is the segments counted in it × segment size / that SRTT, in whole
///   bit/s (`DataRate`);
/// - the sample is filtered by Tustin's rule with α = 0.9, from zero: b̂_k = 0.9 b̂_{k−1} +
///   0.1 (b_k + b_{k−1}) / 2, each product truncated to whole bit/s;
/// - ssthresh = max(2 segments, b̂ × minRtt / 8), where minRtt is the smallest SRTT seen
///   (`TcpSocketBase::EstimateRtt` keeps `m_minRtt` as the minimum of `m_srtt`), not the
///   smallest RTT sample.
///
/// The paper's estimator (above) takes one sample per RTT from a plain EWMA started at the
/// first sample, and the minimum RTT sample.
#[derive(Clone, Debug, Default)]
pub struct Ns3Estimator {
    /// Segments counted in the open window.
    segments: u64,
    /// Bytes of delivered data below one segment, carried to the next ACK.
    remainder: u64,
    /// The open window's end and its length (the SRTT when it opened).
    window: Option<(Time, Time)>,
    /// Filtered estimate and the previous raw sample, bit/s.
    bw: u64,
    last_sample: u64,
    /// Smallest SRTT seen.
    min_srtt: Option<Time>,
}

impl Ns3Estimator {
    fn on_ack(&mut self, ack: &AckInfo, mss: u64) {
        self.close_due(ack.now, mss);
        let Some(srtt) = ack.srtt.filter(|&r| r > 0) else {
            return;
        };
        if ack.rtt.is_some() {
            self.min_srtt = Some(self.min_srtt.map_or(srtt, |m| m.min(srtt)));
        }
        let segments = if ack.acked_bytes == 0 || ack.in_recovery {
            1
        } else {
            let bytes = ack.acked_bytes + self.remainder;
            self.remainder = bytes % mss;
            bytes / mss
        };
        self.segments += segments;
        if self.window.is_none() {
            self.window = Some((ack.now + srtt, srtt));
        }
    }

    /// Takes the sample of a window whose end has passed by `now`.
    fn close_due(&mut self, now: Time, mss: u64) {
        let Some((end, len)) = self.window else {
            return;
        };
        if now < end {
            return;
        }
        let sample = (self.segments as f64 * mss as f64 * 8.0 / (len as f64 / SEC as f64)) as u64;
        let half = ((sample + self.last_sample) as f64 * 0.5) as u64;
        self.bw = (self.bw as f64 * 0.9) as u64 + (half as f64 * (1.0 - 0.9)) as u64;
        self.last_sample = sample;
        self.segments = 0;
        self.window = None;
    }

    fn ssthresh(&self, mss: u64) -> u64 {
        let rtt = self.min_srtt.unwrap_or(0) as f64 / SEC as f64;
        ((rtt * self.bw as f64 / 8.0) as u64).max(2 * mss)
    }
}

impl Westwood {
    pub fn new(plus: bool, p: &mut Params) -> Result<Self, (String, String)> {
        let tau = p.get("tau", 0.5)?;
        let alpha = p.get("alpha", 0.9)?;
        let ns3 = p.get("ns3", 0.0)?;
        if ns3 != 0.0 && ns3 != 1.0 {
            return Err(("ns3".into(), format!("must be 0 or 1, got {ns3}")));
        }
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
            // ns-3.44 has Westwood+ only: plain Westwood keeps the paper's estimator.
            ns3: (plus && ns3 == 1.0).then(Ns3Estimator::default),
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
        match &self.ns3 {
            Some(e) => e.bw as f64,
            None => self.bwe * 8.0,
        }
    }
}

impl CongestionControl for Westwood {
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        if let Some(e) = &mut self.ns3 {
            e.on_ack(ack, st.mss);
            reno_increase(ack, st);
            return;
        }
        let d = self.delivered(ack, st.mss);
        if self.plus {
            self.per_rtt(ack.now, d, ack.srtt);
        } else {
            self.per_ack(ack.now, d);
        }
        reno_increase(ack, st);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        if let Some(e) = &mut self.ns3 {
            // ns-3's window closes by a timer, which may have fired before this loss.
            e.close_due(ev.now, st.mss);
            return Reaction::cut(e.ssthresh(st.mss));
        }
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

    fn ns3_westwood() -> Westwood {
        let mut m = BTreeMap::new();
        m.insert("ns3".to_string(), 1.0);
        Westwood::new(true, &mut Params::new(&m)).unwrap()
    }

    fn sampled(now: Time, bytes: u64, srtt: Time) -> AckInfo {
        AckInfo {
            now,
            acked_bytes: bytes,
            rtt: Some(srtt),
            srtt: Some(srtt),
            ..Default::default()
        }
    }

    #[test]
    fn ns3_estimator_counts_segments_over_one_srtt_and_filters_from_zero() {
        let mut w = ns3_westwood();
        let mut st = CcState {
            cwnd: 10_000,
            ssthresh: 5_000,
            mss: 1000,
        };
        // A window opens at t = 0 with SRTT 100 ms: 2 + 2 segments, a duplicate ACK (one
        // segment) and a partial ACK in recovery (one segment, whatever it covers).
        w.on_ack(&sampled(0, 2000, 100 * MS), &mut st);
        w.on_ack(&sampled(30 * MS, 2500, 120 * MS), &mut st);
        w.on_ack(&sampled(40 * MS, 0, 120 * MS), &mut st);
        let mut partial = sampled(50 * MS, 5000, 120 * MS);
        partial.in_recovery = true;
        w.on_ack(&partial, &mut st);
        // The 500 bytes left over count with the next ACK, which comes after the window's
        // end (100 ms, the SRTT at its start) and so opens the next window.
        w.on_ack(&sampled(100 * MS, 500, 120 * MS), &mut st);
        // Sample 6 segments x 1000 B x 8 / 0.1 s = 480 kbit/s; Tustin from zero:
        // 0.9 x 0 + (1 - 0.9) x (480000 + 0) / 2, truncated: 23999 bit/s (1 - 0.9 is
        // slightly below 0.1 in binary, as in ns-3).
        assert_eq!(w.estimate_bps(), 23_999.0);
        // The next window (1 segment so far) closes at the loss, 120 ms after it opened:
        // sample 1000 x 8 / 0.12 = 66666; 0.9 x 23999 + 0.1 x (66666 + 480000) / 2.
        let ev = CongestionEvent {
            now: 220 * MS,
            kind: super::super::CongestionKind::DupAcks,
            in_flight: 10_000,
            flight_size: 10_000,
            min_rtt: Some(50 * MS),
            true_cause: None,
        };
        let r = w.on_congestion(&ev, &st);
        let bw = 21_599 + 27_333;
        assert_eq!(w.estimate_bps(), bw as f64);
        // ssthresh = estimate x the smallest SRTT (100 ms, not the 50 ms sample) / 8, at
        // least two segments: 611 B, so two segments.
        assert_eq!(r.ssthresh, 2000);
        let e = w.ns3.as_ref().unwrap();
        assert_eq!(e.ssthresh(100), (bw as f64 * 0.1 / 8.0) as u64);
    }

    #[test]
    fn ns3_parameter_is_checked() {
        let mut m = BTreeMap::new();
        m.insert("ns3".to_string(), 1.0);
        assert!(Westwood::new(false, &mut Params::new(&m))
            .unwrap()
            .ns3
            .is_none());
        m.insert("ns3".to_string(), 2.0);
        assert!(Westwood::new(true, &mut Params::new(&m)).is_err());
    }
}
