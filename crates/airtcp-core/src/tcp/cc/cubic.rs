//! CUBIC (RFC 9438). In congestion avoidance the window follows
//! W_cubic(t) = C·(t − K)³ + W_max, K = ∛((W_max − cwnd_epoch)/C), with t the time since the
//! epoch began, aiming one RTT ahead; where standard TCP would be faster (the Reno-friendly
//! region) it follows W_est instead. On congestion W_max = cwnd (reduced further by fast
//! convergence when the window is shrinking) and ssthresh = β_cubic·cwnd.
//! Windows are in segments (floating point) inside the scheme, bytes outside.

use super::{AckInfo, CcState, CongestionControl, CongestionEvent, Params, Reaction};
use crate::engine::{Time, SEC};

#[derive(Clone, Debug)]
pub struct Cubic {
    c: f64,
    beta: f64,
    fast_convergence: bool,
    w_max: f64,
    k: f64,
    epoch_start: Option<Time>,
    /// Reno-friendly window estimate (segments).
    w_est: f64,
    /// Fractional window growth carried between ACKs (segments).
    carry: f64,
}

impl Cubic {
    pub fn new(p: &mut Params) -> Result<Self, (String, String)> {
        let c = p.get("c", 0.4)?;
        let beta = p.get("beta", 0.7)?;
        let fc = p.get("fast_convergence", 1.0)?;
        if c <= 0.0 {
            return Err(("c".into(), format!("must be > 0, got {c}")));
        }
        if !(0.0 < beta && beta < 1.0) {
            return Err(("beta".into(), format!("must be in (0, 1), got {beta}")));
        }
        Ok(Cubic {
            c,
            beta,
            fast_convergence: fc != 0.0,
            w_max: 0.0,
            k: 0.0,
            epoch_start: None,
            w_est: 0.0,
            carry: 0.0,
        })
    }

    /// W_cubic(t) in segments, t in seconds since the epoch began (RFC 9438 eq. 1).
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.c * (t - self.k).powi(3) + self.w_max
    }

    pub fn k(&self) -> f64 {
        self.k
    }

    fn alpha_cubic(&self) -> f64 {
        // RFC 9438 eq. 4: 3(1 − β)/(1 + β), so the Reno-friendly region matches Reno's rate.
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }

    fn start_epoch(&mut self, now: Time, cwnd: f64) {
        self.epoch_start = Some(now);
        if cwnd < self.w_max {
            self.k = ((self.w_max - cwnd) / self.c).cbrt();
        } else {
            self.k = 0.0;
            self.w_max = cwnd;
        }
        self.w_est = cwnd;
        self.carry = 0.0;
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        if ack.in_recovery || ack.acked_bytes == 0 {
            return;
        }
        let mss = st.mss as f64;
        if st.cwnd < st.ssthresh {
            // Slow start as standard TCP (no HyStart).
            st.cwnd += ack.acked_bytes.min(st.mss);
            return;
        }
        let cwnd = st.cwnd as f64 / mss;
        if self.epoch_start.is_none() {
            self.start_epoch(ack.now, cwnd);
        }
        let t = (ack.now - self.epoch_start.unwrap_or(ack.now)) as f64 / SEC as f64;
        let rtt = ack.srtt.or(ack.min_rtt).unwrap_or(0) as f64 / SEC as f64;
        let acked = ack.acked_bytes as f64 / mss;
        // Reno-friendly estimate (RFC 9438 4.3).
        self.w_est += self.alpha_cubic() * acked / cwnd;
        let cubic_now = self.w_cubic(t);
        let growth = if cubic_now < self.w_est {
            // Reno-friendly region: track W_est.
            (self.w_est - cwnd).max(0.0)
        } else {
            // Concave/convex regions (4.4, 4.5): aim at W_cubic one RTT ahead, clamped to
            // [cwnd, 1.5 cwnd].
            let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
            (target - cwnd) / cwnd * acked
        };
        self.carry += growth * mss;
        let whole = self.carry.floor();
        self.carry -= whole;
        st.cwnd += whole as u64;
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        // The window in use is the flight size: equal to cwnd outside recovery, and not
        // inflated by duplicate ACKs when a timeout strikes during recovery (RFC 9438 4.6 uses
        // flight_size for ssthresh for the same reason).
        let w = (ev.flight_size.min(st.cwnd) as f64 / st.mss as f64).max(1.0);
        // Fast convergence (4.7): release bandwidth when the window shrinks epoch to epoch.
        self.w_max = if self.fast_convergence && w < self.w_max {
            w * (1.0 + self.beta) / 2.0
        } else {
            w
        };
        self.epoch_start = None;
        Reaction::cut(((w * self.beta) * st.mss as f64) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use crate::tcp::cc::CongestionKind;
    use std::collections::BTreeMap;

    fn cubic() -> Cubic {
        let m = BTreeMap::new();
        Cubic::new(&mut Params::new(&m)).unwrap()
    }

    #[test]
    fn k_and_w_of_t() {
        let mut c = cubic();
        c.w_max = 100.0;
        c.start_epoch(0, 70.0);
        // K = cbrt(30 / 0.4) = cbrt(75) = 4.217...
        assert!((c.k() - 75f64.cbrt()).abs() < 1e-12);
        assert!((c.w_cubic(0.0) - 70.0).abs() < 1e-9);
        assert!((c.w_cubic(c.k()) - 100.0).abs() < 1e-9);
        assert!((c.w_cubic(c.k() + 1.0) - 100.4).abs() < 1e-9);
        assert!((c.alpha_cubic() - 0.9 / 1.7).abs() < 1e-12);
    }

    #[test]
    fn congestion_sets_wmax_and_beta_ssthresh_with_fast_convergence() {
        let mut c = cubic();
        let st = CcState {
            cwnd: 100_000,
            ssthresh: 1 << 30,
            mss: 1000,
        };
        let ev = CongestionEvent {
            now: 0,
            kind: CongestionKind::DupAcks,
            in_flight: 100_000,
            flight_size: 100_000,
            min_rtt: None,
            true_cause: None,
        };
        assert_eq!(c.on_congestion(&ev, &st).ssthresh, 70_000);
        assert_eq!(c.w_max, 100.0);
        let st2 = CcState { cwnd: 80_000, ..st };
        c.on_congestion(&ev, &st2);
        assert!(
            (c.w_max - 80.0 * 1.7 / 2.0).abs() < 1e-9,
            "fast convergence"
        );
    }

    #[test]
    fn ack_clocked_window_follows_w_of_t() {
        // Drive the scheme with one window of ACKs per 100 ms RTT and compare cwnd(t) with
        // W_cubic(t).
        let mut c = cubic();
        c.w_max = 100.0;
        let mut st = CcState {
            cwnd: 70_000,
            ssthresh: 70_000,
            mss: 1000,
        };
        let rtt = 100 * MS;
        let mut now = 0;
        let mut worst: f64 = 0.0;
        for _round in 0..80 {
            let n = st.cwnd / 1000;
            for i in 0..n {
                let a = AckInfo {
                    now: now + rtt * i / n,
                    acked_bytes: 1000,
                    srtt: Some(rtt),
                    ..Default::default()
                };
                c.on_ack(&a, &mut st);
            }
            now += rtt;
            let t = now as f64 / SEC as f64;
            let w = c.w_cubic(t);
            let cw = st.cwnd as f64 / 1000.0;
            worst = worst.max((cw - w).abs() / w);
        }
        assert!(worst < 0.05, "cwnd strays {:.1}% from W(t)", worst * 100.0);
    }
}
