//! TCP Jersey (Xu, Tian & Ansari, IEEE JSAC 22(4), 2004) and TCP New Jersey (the same
//! authors, Computer Networks 47(2), 2005): Reno's window growth, an available-bandwidth
//! estimate at the sender, and congestion warnings (CW) from routers that mark every packet
//! while their average queue is above a threshold (`queue::CongestionWarning`).
//!
//! - Estimator (Jersey's ABE, a time-sliding window): on the n-th ACK,
//!   R_n = (RTT · R_{n−1} + L_n) / ((t_n − t_{n−1}) + RTT), with L_n the bytes it reports
//!   delivered and RTT the sender's smoothed round-trip time. Jersey takes t_n as the ACK's
//!   arrival at the sender; New Jersey's TABE takes the receiver's timestamp of the ACK
//!   (TSval), so jitter and compression of ACKs on the way back do not reach the estimate, and
//!   a lost ACK only widens one interval (the next ACK reports its bytes).
//! - Optimal window: ownd = RTT · R / seg_size segments (in bytes here, RTT · R).
//! - A CW-marked ACK (echoed CE) runs rate control: ssthresh = ownd, cwnd = min(cwnd, ownd),
//!   and the window does not grow on it; an unmarked ACK grows it as Reno does.
//! - Three duplicate ACKs of which one carries a CW mark: a congestion loss, rate control then
//!   fast retransmit and recovery (ssthresh = ownd). Without a mark: a wireless loss, the
//!   segment is retransmitted and the window kept.
//! - A timeout: ssthresh = ownd, cwnd one segment (no verdict: the ACK clock is lost either
//!   way).
//!
//! Duplicate ACKs count one segment delivered each, discounted from the cumulative ACK that
//! follows (as in Westwood), so bytes are not counted twice.

use super::newreno::reno_increase;
use super::{
    half_flight, AckInfo, CcState, CongestionControl, CongestionEvent, CongestionKind, LossClass,
    Params, Reaction,
};
use crate::engine::{Time, SEC};

/// The echoed codepoint of a CW (CE) mark.
const CW: u8 = 0b11;

/// Jersey's time-sliding-window estimator of the available bandwidth.
#[derive(Clone, Debug, Default)]
pub struct Abe {
    /// R, bytes per second.
    pub rate: f64,
    /// t_{n−1}: when the previous ACK arrived (or was stamped by the receiver).
    last: Option<Time>,
}

impl Abe {
    /// One step for an ACK at `t` reporting `bytes` delivered, with window `rtt` (seconds).
    /// The first ACK only starts the clock; time running backwards counts as no time.
    pub fn sample(&mut self, t: Time, bytes: u64, rtt: f64) {
        let Some(prev) = self.last.replace(t.max(self.last.unwrap_or(0))) else {
            return;
        };
        let dt = t.saturating_sub(prev) as f64 / SEC as f64;
        if rtt + dt > 0.0 {
            self.rate = (rtt * self.rate + bytes as f64) / (dt + rtt);
        }
    }
}

#[derive(Clone, Debug)]
pub struct Jersey {
    /// New Jersey: time ACKs by the receiver's timestamp (TABE) instead of their arrival.
    timestamps: bool,
    pub abe: Abe,
    srtt: Option<Time>,
    /// Bytes announced by duplicate ACKs not yet covered by a cumulative ACK.
    accounted: u64,
    /// The ACK being processed carries a CW mark.
    cw_now: bool,
    /// A CW mark came on an ACK since the last one that acknowledged new data (the duplicates
    /// that report a loss).
    cw_dups: bool,
    pub cw_acks: u64,
    pub rate_controls: u64,
}

impl Jersey {
    pub fn new(timestamps: bool, _p: &mut Params) -> Result<Self, (String, String)> {
        Ok(Jersey {
            timestamps,
            abe: Abe::default(),
            srtt: None,
            accounted: 0,
            cw_now: false,
            cw_dups: false,
            cw_acks: 0,
            rate_controls: 0,
        })
    }

    /// ownd in bytes: smoothed RTT × estimate, at least two segments (RFC 5681's floor for
    /// ssthresh).
    pub fn ownd(&self, mss: u64) -> u64 {
        let rtt = self.srtt.unwrap_or(0) as f64 / SEC as f64;
        ((rtt * self.abe.rate) as u64).max(2 * mss)
    }

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
}

impl CongestionControl for Jersey {
    fn on_feedback(&mut self, _now: Time, codepoint: u8) {
        self.cw_now = codepoint == CW;
        if self.cw_now {
            self.cw_acks += 1;
            self.cw_dups = true;
        }
    }

    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        if ack.srtt.is_some() {
            self.srtt = ack.srtt;
        }
        let d = self.delivered(ack, st.mss);
        let t = if self.timestamps {
            ack.ts_val.unwrap_or(ack.now)
        } else {
            ack.now
        };
        if let Some(rtt) = self.srtt {
            self.abe.sample(t, d, rtt as f64 / SEC as f64);
        }
        if ack.acked_bytes > 0 && !self.cw_now {
            // New data without a warning: the next loss is judged on fresh duplicates.
            self.cw_dups = false;
        }
        if ack.in_recovery {
            return;
        }
        if self.cw_now {
            // Rate control: the window may not exceed what the path is delivering.
            let ownd = self.ownd(st.mss);
            st.ssthresh = ownd;
            st.cwnd = st.cwnd.min(ownd);
            self.rate_controls += 1;
        } else {
            reno_increase(ack, st);
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        let ownd = self.ownd(st.mss);
        match ev.kind {
            CongestionKind::DupAcks if self.cw_dups => {
                Reaction::cut(ownd).judged(LossClass::Congestion)
            }
            CongestionKind::DupAcks => Reaction::keep().judged(LossClass::Wireless),
            CongestionKind::Timeout => Reaction {
                ssthresh: ownd,
                cwnd: Some(st.mss),
                verdict: None,
                keep_window: false,
            },
            _ => Reaction::cut(half_flight(ev.in_flight, st.mss)),
        }
    }

    fn bandwidth_estimate(&self) -> Option<f64> {
        Some(self.abe.rate * 8.0)
    }

    fn multilevel_ecn(&self) -> bool {
        // The scheme reads the echoed codepoint itself: new data goes out ECN-capable and
        // RFC 3168's once-per-window reaction to ECE is left out.
        true
    }

    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("jersey_cw_acks", self.cw_acks as f64));
        out.push(("jersey_rate_controls", self.rate_controls as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use std::collections::BTreeMap;

    fn jersey(ts: bool) -> Jersey {
        let m = BTreeMap::new();
        Jersey::new(ts, &mut Params::new(&m)).unwrap()
    }

    fn ack(now: Time, bytes: u64) -> AckInfo {
        AckInfo {
            now,
            acked_bytes: bytes,
            srtt: Some(100 * MS),
            ..Default::default()
        }
    }

    fn st(cwnd: u64) -> CcState {
        CcState {
            cwnd,
            ssthresh: 1 << 30,
            mss: 1000,
        }
    }

    fn ev(kind: CongestionKind) -> CongestionEvent {
        CongestionEvent {
            now: 0,
            kind,
            in_flight: 20_000,
            flight_size: 20_000,
            min_rtt: Some(80 * MS),
            true_cause: None,
        }
    }

    #[test]
    fn abe_is_the_time_sliding_window_of_the_paper() {
        let mut a = Abe::default();
        a.sample(0, 1000, 0.1);
        assert_eq!(a.rate, 0.0, "the first ACK only starts the clock");
        // R1 = (0.1 * 0 + 1000) / (0.01 + 0.1) = 9090.9...
        a.sample(10 * MS, 1000, 0.1);
        assert!((a.rate - 1000.0 / 0.11).abs() < 1e-6, "{}", a.rate);
        // R2 = (0.1 * R1 + 2000) / (0.02 + 0.1).
        let r1 = a.rate;
        a.sample(30 * MS, 2000, 0.1);
        assert!((a.rate - (0.1 * r1 + 2000.0) / 0.12).abs() < 1e-6);
    }

    #[test]
    fn abe_converges_to_a_constant_rate() {
        let mut a = Abe::default();
        // 1000 bytes every 2 ms = 500 kB/s.
        for k in 0..2000u64 {
            a.sample(k * 2 * MS, 1000, 0.05);
        }
        assert!((a.rate - 500_000.0).abs() < 1.0, "{}", a.rate);
    }

    #[test]
    fn ownd_is_rtt_times_the_estimate() {
        let mut j = jersey(false);
        j.srtt = Some(80 * MS);
        j.abe.rate = 125_000.0; // 1 Mb/s
        assert_eq!(j.ownd(1000), 10_000);
        j.abe.rate = 0.0;
        assert_eq!(j.ownd(1000), 2_000, "floor of two segments");
    }

    #[test]
    fn new_jersey_times_acks_by_the_receivers_timestamp() {
        // ACKs leave the receiver every 10 ms but reach the sender compressed into bursts:
        // arrival times say 100 kB/s in bursts, the timestamps say the true spacing.
        let mut by_arrival = jersey(false);
        let mut by_stamp = jersey(true);
        let mut s = st(10_000);
        for k in 0..400u64 {
            let stamp = k * 10 * MS;
            let arrival = (k / 5) * 50 * MS + 40 * MS + (k % 5) * MS / 10;
            let mut a = ack(arrival, 1000);
            a.ts_val = Some(stamp);
            by_arrival.on_ack(&a, &mut s);
            by_stamp.on_ack(&a, &mut s);
        }
        // The true rate is 1000 bytes per 10 ms = 100 kB/s.
        assert!(
            (by_stamp.abe.rate - 100_000.0).abs() < 1_000.0,
            "{}",
            by_stamp.abe.rate
        );
        // Both average out over a window of one RTT, but the arrival-timed one ends on a
        // burst, high by the compression.
        assert!(by_arrival.abe.rate > 1.2 * by_stamp.abe.rate);
    }

    #[test]
    fn a_cw_marked_ack_caps_the_window_at_ownd_and_does_not_grow_it() {
        let mut j = jersey(false);
        j.srtt = Some(100 * MS);
        j.abe.rate = 100_000.0; // ownd = 10 segments
        let mut s = st(20_000);
        j.on_feedback(0, CW);
        j.on_ack(&ack(MS, 1000), &mut s);
        assert_eq!((s.cwnd, s.ssthresh), (10_000, 10_000));
        assert_eq!(j.rate_controls, 1);
        // Below ownd a mark leaves the window where it is.
        let mut s = st(6_000);
        j.on_feedback(0, CW);
        j.on_ack(&ack(2 * MS, 1000), &mut s);
        assert_eq!(s.cwnd, 6_000);
        // An unmarked ACK grows it (slow start below ssthresh).
        j.on_feedback(0, 0b01);
        j.on_ack(&ack(3 * MS, 1000), &mut s);
        assert_eq!(s.cwnd, 7_000);
    }

    #[test]
    fn losses_with_a_warning_are_congestion_without_are_wireless() {
        let mut j = jersey(true);
        j.srtt = Some(100 * MS);
        j.abe.rate = 100_000.0;
        let mut s = st(20_000);
        // A new ACK, then duplicates without marks: wireless, window kept.
        j.on_feedback(0, 0b01);
        j.on_ack(&ack(MS, 1000), &mut s);
        for _ in 0..3 {
            j.on_feedback(0, 0b01);
        }
        let r = j.on_congestion(&ev(CongestionKind::DupAcks), &s);
        assert!(r.keep_window);
        assert_eq!(r.verdict, Some(LossClass::Wireless));
        // One of the duplicates marked: congestion, ssthresh = ownd.
        j.on_feedback(0, 0b01);
        j.on_feedback(0, CW);
        j.on_feedback(0, 0b01);
        let r = j.on_congestion(&ev(CongestionKind::DupAcks), &s);
        assert!(!r.keep_window);
        assert_eq!(
            (r.ssthresh, r.verdict),
            (10_000, Some(LossClass::Congestion))
        );
        // New data without a mark clears it.
        j.on_feedback(0, 0b01);
        j.on_ack(&ack(2 * MS, 1000), &mut s);
        let r = j.on_congestion(&ev(CongestionKind::DupAcks), &s);
        assert_eq!(r.verdict, Some(LossClass::Wireless));
        // A timeout: one segment, ssthresh = ownd (the ACKs above moved the estimate), no
        // verdict.
        let r = j.on_congestion(&ev(CongestionKind::Timeout), &s);
        let ownd = j.ownd(1000);
        assert!(ownd > 10_000);
        assert_eq!((r.ssthresh, r.cwnd, r.verdict), (ownd, Some(1000), None));
    }

    #[test]
    fn duplicate_acks_count_once() {
        let mut j = jersey(false);
        let d = AckInfo {
            dup_ack: true,
            ..Default::default()
        };
        assert_eq!(j.delivered(&d, 1000), 1000);
        assert_eq!(j.delivered(&d, 1000), 1000);
        assert_eq!(j.delivered(&ack(0, 5000), 1000), 3000);
    }
}
