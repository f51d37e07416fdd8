//! TCP EWR (Ryoo & Kim, seed paper 002): the receiver estimates the bandwidth from packet
//! arrivals and advertises the window it implies; the sender follows it and, on a loss,
//! chooses among three states by a Vegas-like backlog.
//!
//! Receiver (`EwrReceiver`, a receive-window policy), on the n-th arriving data segment at t_n:
//!
//! - Eq. 1: Bw_sample(n) = d_n / (t_n − t_{n−1}), d_n the segment's bytes;
//! - Eq. 2: Bw_est(n) = δ_n · Bw_est(n−1) + (1 − δ_n) · Bw_sample(n), δ_n = 0.7 for n ≥ 2 and
//!   0 for n = 1 (the first sample is taken whole). The first segment has no t_{n−1}: it
//!   only starts the clock, so sample 1 comes from the first two arrivals;
//! - Eq. 3: oCwnd = RTT_min · Bw_est / seg_size, advertised as the receive window (bytes, at
//!   least two segments, at most the receive buffer).
//!
//! RTT_min at the receiver comes from the timestamp option (RFC 7323): the sender echoes the
//! TSval of the receiver's latest ACK in the TSecr of its segments, so a segment arriving with
//! TSecr = T closes a round trip that began when the receiver sent T; the smallest such time
//! is RTT_min. A segment counts only if other data arrived after T (else the sender was
//! silent, e.g. waiting for its retransmission timer, and the echo is stale). Until it has
//! both an estimate and RTT_min the receiver advertises two segments.
//!
//! Two readings of the paper are parameters of the receiver (docs/schemes/ewr.md):
//!
//! - `interval` (default 0): 0 takes Eq. 1 per packet, as above. k > 0 takes one sample per
//!   interval of at least k · RTT_min: d_n is the bytes that arrived since the previous
//!   sample and t_n − t_{n−1} the time between the two. This measures the flow's own arrival
//!   rate (cwnd / RTT) rather than the link's, so oCwnd = RTT_min · cwnd / RTT ≤ cwnd: the
//!   window can no longer grow by (b), only by the +2 of (c), which the advertised window caps.
//! - `loss_term` (default 0): 1 caps Bw_est in Eq. 3 at the throughput of Padhye et al. [6]
//!   for the loss rate the receiver sees (new holes in the sequence space over segments
//!   received), R = RTT_min, T0 = 4 · RTT_min, one ACK per segment: the paper's "including
//!   congestion-related packet loss probability into the packet arrival rate calculation",
//!   for which it gives no formula. The receiver cannot tell congestion losses from others, so
//!   every hole counts.
//!
//! Sender (`Ewr`), per the paper's pseudo-code:
//!
//! - (b) on each ACK outside loss recovery: cwnd = oCwnd (the advertised window);
//! - (c) on three duplicate ACKs or a timeout, with the backlog x = (cwnd/RTT_min −
//!   cwnd/RTT) · RTT_min in segments (RTT the smoothed RTT), ssthresh = oCwnd, and
//!   - x < α: cwnd = oCwnd if cwnd > ssthresh, else cwnd + 2 segments (linear increase);
//!   - α ≤ x ≤ β: cwnd = oCwnd if cwnd > ssthresh, else unchanged (wait-and-see);
//!   - x > β: cwnd = 1 segment (congestion).
//!
//!   A loss with x ≤ β is judged wireless, one with x > β congestion. Where the prose says
//!   the congestion state "decreases the window adaptively", the pseudo-code's cwnd = 1 is
//!   followed; the next ACK after recovery brings cwnd back to oCwnd by (b), so EWR has no slow
//!   start.

use super::{AckInfo, CcState, CongestionControl, CongestionEvent, LossClass, Params, Reaction};
use crate::engine::{Time, SEC};
use crate::packet::{IpHeader, TcpHeader};
use crate::tcp::receiver::RwndPolicy;

/// The receiver's half: Eqs. 1-3.
#[derive(Clone, Debug)]
pub struct EwrReceiver {
    /// δ, the filter gain for n ≥ 2.
    delta: f64,
    /// Arrival time of the previous data segment, t_{n−1} (of the previous sample, with
    /// `interval`).
    last: Option<Time>,
    /// Arrival time of the previous data segment.
    arrived: Option<Time>,
    /// Bytes that arrived at the same instant as the previous segment (no interval yet).
    pending: u64,
    /// Samples taken so far (n).
    pub samples: u64,
    /// Bw_est(n), bytes per second.
    pub estimate: f64,
    /// Smallest round trip timed through the timestamp echo.
    pub rtt_min: Option<Time>,
    /// The largest segment seen (seg_size).
    seg: u64,
    /// Sampling interval in RTT_min (0: per packet).
    interval: f64,
    /// Cap the estimate at Padhye's throughput for the loss rate seen.
    loss_term: bool,
    /// End of the highest segment received, and how many holes opened above it.
    high: u64,
    pub holes: u64,
    pub segments: u64,
}

impl EwrReceiver {
    pub fn new(p: &mut Params) -> Result<Self, (String, String)> {
        let delta = p.get("delta", 0.7)?;
        if !(0.0..1.0).contains(&delta) {
            return Err(("delta".into(), format!("must be in [0, 1), got {delta}")));
        }
        let interval = p.get("interval", 0.0)?;
        if !(0.0..=1000.0).contains(&interval) {
            return Err((
                "interval".into(),
                format!("must be in [0, 1000] round trips, got {interval}"),
            ));
        }
        let loss_term = p.get("loss_term", 0.0)?;
        if loss_term != 0.0 && loss_term != 1.0 {
            return Err((
                "loss_term".into(),
                format!("must be 0 (off) or 1 (on), got {loss_term}"),
            ));
        }
        Ok(EwrReceiver {
            delta,
            last: None,
            arrived: None,
            pending: 0,
            samples: 0,
            estimate: 0.0,
            rtt_min: None,
            seg: 0,
            interval,
            loss_term: loss_term == 1.0,
            high: 0,
            holes: 0,
            segments: 0,
        })
    }

    /// The receiver's loss rate: holes opened over segments received.
    pub fn loss_rate(&self) -> f64 {
        if self.segments == 0 {
            0.0
        } else {
            self.holes as f64 / self.segments as f64
        }
    }

    /// Padhye et al.'s throughput (bytes/s) for loss rate `p`, round trip `r` (s), segment
    /// `seg` bytes, T0 = 4r and one ACK per segment (b = 1).
    pub fn padhye(p: f64, r: f64, seg: f64) -> f64 {
        let t0 = 4.0 * r;
        let denom = r * (2.0 * p / 3.0).sqrt()
            + t0 * (3.0 * (3.0 * p / 8.0).sqrt()).min(1.0) * p * (1.0 + 32.0 * p * p);
        seg / denom
    }

    /// Eqs. 1 and 2 for a segment of `bytes` arriving at `now`.
    pub fn on_arrival(&mut self, now: Time, bytes: u64) {
        let Some(prev) = self.last else {
            self.last = Some(now);
            return;
        };
        if self.interval > 0.0 {
            // One sample per interval: wait until k · RTT_min has passed (no sample before
            // RTT_min is known), counting every byte since the previous sample.
            self.pending += bytes;
            let Some(r) = self.rtt_min else { return };
            let span = ((self.interval * r as f64) as Time).max(1);
            if now < prev + span {
                return;
            }
            let bytes = std::mem::take(&mut self.pending);
            self.take_sample(bytes as f64 / ((now - prev) as f64 / SEC as f64), now);
            return;
        }
        if now <= prev {
            self.pending += bytes;
            return;
        }
        let sample = (bytes + self.pending) as f64 / ((now - prev) as f64 / SEC as f64);
        self.take_sample(sample, now);
    }

    fn take_sample(&mut self, sample: f64, now: Time) {
        self.pending = 0;
        self.last = Some(now);
        self.samples += 1;
        // δ_1 = 0: the first sample stands alone.
        let d = if self.samples == 1 { 0.0 } else { self.delta };
        self.estimate = d * self.estimate + (1.0 - d) * sample;
    }

    /// Eq. 3 in bytes (RTT_min · Bw_est), once both are known; with the loss term the
    /// estimate is capped at Padhye's throughput once a loss has been seen.
    pub fn ocwnd(&self) -> Option<f64> {
        let rtt = self.rtt_min? as f64 / SEC as f64;
        let p = self.loss_rate();
        let bw = if self.loss_term && p > 0.0 && rtt > 0.0 {
            self.estimate.min(Self::padhye(p, rtt, self.seg as f64))
        } else {
            self.estimate
        };
        (self.samples > 0).then_some(rtt * bw)
    }
}

impl RwndPolicy for EwrReceiver {
    fn on_segment(&mut self, now: Time, _ip: &IpHeader, tcp: &TcpHeader) {
        if tcp.len == 0 {
            return;
        }
        // The sample counts only if data arrived after the echoed ACK was sent. If nothing
        // did, the sender was silent (waiting for its retransmission timer), the echo is
        // stale and the time would include the wait.
        let fresh = self.arrived.is_some_and(|prev| prev > tcp.ts_ecr);
        self.arrived = Some(now);
        if tcp.ts_ecr > 0 && now >= tcp.ts_ecr && fresh {
            let rtt = now - tcp.ts_ecr;
            self.rtt_min = Some(self.rtt_min.map_or(rtt, |m| m.min(rtt)));
        }
        self.seg = self.seg.max(tcp.len as u64);
        self.segments += 1;
        let end = tcp.seq + tcp.len as u64;
        if self.segments > 1 && tcp.seq > self.high {
            self.holes += 1;
        }
        self.high = self.high.max(end);
        self.on_arrival(now, tcp.len as u64);
    }

    fn window(&self, _now: Time, buffer: u64) -> u64 {
        if self.seg == 0 {
            return buffer;
        }
        let floor = 2 * self.seg;
        match self.ocwnd() {
            Some(w) => (w as u64).clamp(floor, buffer.max(floor)),
            None => floor.min(buffer.max(self.seg)),
        }
    }

    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("ewr_rx_estimate_bps", self.estimate * 8.0));
        out.push((
            "ewr_rx_rtt_min_s",
            self.rtt_min.map_or(f64::NAN, |t| t as f64 / SEC as f64),
        ));
        if self.loss_term {
            out.push(("ewr_rx_loss_rate", self.loss_rate()));
        }
    }
}

/// Which branch of the pseudo-code a loss took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EwrState {
    LinearIncrease,
    WaitAndSee,
    Congestion,
}

/// The sender's half: (b) and (c) of the pseudo-code.
#[derive(Clone, Debug)]
pub struct Ewr {
    alpha: f64,
    beta: f64,
    srtt: Option<Time>,
    /// oCwnd as the latest ACK advertised it (bytes).
    ocwnd: u64,
    /// Losses by state: linear increase, wait-and-see, congestion.
    pub states: [u64; 3],
}

impl Ewr {
    pub fn new(p: &mut Params) -> Result<Self, (String, String)> {
        let alpha = p.get("alpha", 1.0)?;
        let beta = p.get("beta", 9.0)?;
        if alpha < 0.0 {
            return Err(("alpha".into(), format!("must be >= 0, got {alpha}")));
        }
        if beta < alpha {
            return Err((
                "beta".into(),
                format!("must be >= alpha ({alpha}), got {beta}"),
            ));
        }
        Ok(Ewr {
            alpha,
            beta,
            srtt: None,
            ocwnd: 0,
            states: [0; 3],
        })
    }

    /// The backlog x = (cwnd/RTT_min − cwnd/RTT) · RTT_min, in segments; 0 before both RTTs
    /// are known.
    pub fn backlog(cwnd_segments: f64, min_rtt: Option<Time>, srtt: Option<Time>) -> f64 {
        match (min_rtt, srtt) {
            (Some(base), Some(rtt)) if rtt > 0 && base > 0 => {
                let (base, rtt) = (base as f64, rtt as f64);
                (cwnd_segments / base - cwnd_segments / rtt) * base
            }
            _ => 0.0,
        }
    }

    /// Branch (c) of the pseudo-code: the state and the new (ssthresh, cwnd) in bytes.
    pub fn eer(&self, x: f64, cwnd: u64, ocwnd: u64, mss: u64) -> (EwrState, u64, u64) {
        let ssthresh = ocwnd;
        if x < self.alpha {
            let w = if cwnd > ssthresh {
                ocwnd
            } else {
                cwnd + 2 * mss
            };
            (EwrState::LinearIncrease, ssthresh, w)
        } else if x <= self.beta {
            let w = if cwnd > ssthresh { ocwnd } else { cwnd };
            (EwrState::WaitAndSee, ssthresh, w)
        } else {
            (EwrState::Congestion, ssthresh, mss)
        }
    }
}

impl CongestionControl for Ewr {
    fn on_ack_header(&mut self, ack: &AckInfo) {
        // A loss this ACK reveals is handled with the window it advertises.
        self.ocwnd = ack.rwnd;
    }

    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        if ack.srtt.is_some() {
            self.srtt = ack.srtt;
        }
        if !ack.in_recovery {
            // (b): the receiver has measured the path; no slow start or additive increase.
            st.cwnd = ack.rwnd.max(st.mss);
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        let x = Self::backlog(st.cwnd as f64 / st.mss as f64, ev.min_rtt, self.srtt);
        let ocwnd = if self.ocwnd > 0 { self.ocwnd } else { st.cwnd };
        let (state, ssthresh, cwnd) = self.eer(x, st.cwnd, ocwnd, st.mss);
        self.states[state as usize] += 1;
        let class = if state == EwrState::Congestion {
            LossClass::Congestion
        } else {
            LossClass::Wireless
        };
        Reaction {
            ssthresh,
            cwnd: Some(cwnd.max(st.mss)),
            verdict: Some(class),
            keep_window: false,
        }
    }

    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("ewr_linear_increase", self.states[0] as f64));
        out.push(("ewr_wait_and_see", self.states[1] as f64));
        out.push(("ewr_congestion", self.states[2] as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use crate::tcp::cc::CongestionKind;
    use std::collections::BTreeMap;

    fn rx() -> EwrReceiver {
        let m = BTreeMap::new();
        EwrReceiver::new(&mut Params::new(&m)).unwrap()
    }

    fn ewr() -> Ewr {
        let m = BTreeMap::new();
        Ewr::new(&mut Params::new(&m)).unwrap()
    }

    #[test]
    fn equations_1_and_2_on_an_arrival_sequence() {
        let mut r = rx();
        // 1000-byte segments at 0, 1, 3 and 4 ms.
        r.on_arrival(0, 1000);
        assert_eq!(r.samples, 0, "no interval yet");
        r.on_arrival(MS, 1000);
        // n = 1: δ = 0, Bw_est = Bw_sample = 1000 B / 1 ms = 1 MB/s.
        assert!((r.estimate - 1e6).abs() < 1e-6);
        r.on_arrival(3 * MS, 1000);
        // n = 2: sample 0.5 MB/s; 0.7 * 1e6 + 0.3 * 0.5e6 = 0.85 MB/s.
        assert!((r.estimate - 0.85e6).abs() < 1e-6, "{}", r.estimate);
        r.on_arrival(4 * MS, 500);
        // n = 3: sample 0.5 MB/s again (500 B in 1 ms); 0.7 * 0.85e6 + 0.3 * 0.5e6.
        assert!((r.estimate - (0.595e6 + 0.15e6)).abs() < 1e-6);
        assert_eq!(r.samples, 3);
    }

    #[test]
    fn equation_3_is_advertised_once_rtt_min_is_known() {
        let mut r = rx();
        let seg = |seq: u64, ts_ecr: Time| TcpHeader {
            seq,
            len: 1000,
            ts_ecr,
            ..Default::default()
        };
        let ip = IpHeader::default();
        assert_eq!(r.window(0, 65_536), 65_536, "nothing received yet");
        // The initial window: two segments, ACKed at 10 and 11 ms.
        r.on_segment(10 * MS, &ip, &seg(0, 0));
        r.on_segment(11 * MS, &ip, &seg(1000, 0));
        assert_eq!(
            r.window(11 * MS, 65_536),
            2000,
            "no RTT_min yet: two segments"
        );
        // The segment sent on the ACK of 10 ms arrives at 60 ms: RTT 50 ms.
        r.on_segment(60 * MS, &ip, &seg(2000, 10 * MS));
        assert_eq!(r.rtt_min, Some(50 * MS));
        // Estimate: 1 MB/s, then 0.7e6 + 0.3 * (1000 B / 49 ms).
        let est = 0.7e6 + 0.3 * 1000.0 / 0.049;
        assert!((r.estimate - est).abs() < 1e-6);
        // oCwnd = 50 ms * the estimate, in bytes (about 35.3 segments).
        assert_eq!(r.window(60 * MS, 65_536), (0.05 * est) as u64);
        assert_eq!(r.window(60 * MS, 20_000), 20_000, "never above the buffer");
        // A later, shorter round trip lowers RTT_min.
        r.on_segment(61 * MS, &ip, &seg(3000, 21 * MS));
        assert_eq!(r.rtt_min, Some(40 * MS));
    }

    #[test]
    fn a_stale_echo_after_a_silent_sender_is_no_sample() {
        let mut r = rx();
        let ip = IpHeader::default();
        let seg = |seq: u64, ts_ecr: Time| TcpHeader {
            seq,
            len: 1000,
            ts_ecr,
            ..Default::default()
        };
        r.on_segment(10 * MS, &ip, &seg(0, 0));
        r.on_segment(11 * MS, &ip, &seg(1000, 0));
        // Nothing arrives for half a second: the sender's segment was lost and its timer
        // fired; the retransmission echoes the ACK of 11 ms. 550 ms is not a round trip.
        r.on_segment(561 * MS, &ip, &seg(2000, 11 * MS));
        assert_eq!(r.rtt_min, None);
        assert_eq!(r.window(561 * MS, 65_536), 2000);
        // The sender answers the ACK of 561 ms with two segments. The first arrives after
        // a silence again (no sample); the second, right behind it, times the path.
        r.on_segment(611 * MS, &ip, &seg(3000, 561 * MS));
        assert_eq!(r.rtt_min, None);
        r.on_segment(612 * MS, &ip, &seg(4000, 561 * MS));
        assert_eq!(r.rtt_min, Some(51 * MS));
    }

    #[test]
    fn backlog_is_the_vegas_difference_in_segments() {
        // cwnd 20, RTT_min 100 ms, RTT 125 ms: (20/0.1 - 20/0.125) * 0.1 = 4 segments.
        let x = Ewr::backlog(20.0, Some(100 * MS), Some(125 * MS));
        assert!((x - 4.0).abs() < 1e-9);
        assert_eq!(Ewr::backlog(20.0, None, Some(MS)), 0.0);
    }

    #[test]
    fn each_branch_of_the_pseudo_code() {
        let e = ewr();
        let m = 1000;
        // x < α: above ssthresh = oCwnd -> oCwnd; at or below -> cwnd + 2.
        assert_eq!(
            e.eer(0.5, 12_000, 10_000, m),
            (EwrState::LinearIncrease, 10_000, 10_000)
        );
        assert_eq!(
            e.eer(0.5, 10_000, 10_000, m),
            (EwrState::LinearIncrease, 10_000, 12_000)
        );
        // α ≤ x ≤ β (both ends): oCwnd, or the window retained.
        assert_eq!(
            e.eer(1.0, 12_000, 10_000, m),
            (EwrState::WaitAndSee, 10_000, 10_000)
        );
        assert_eq!(
            e.eer(9.0, 8_000, 10_000, m),
            (EwrState::WaitAndSee, 10_000, 8_000)
        );
        // x > β: one segment.
        assert_eq!(
            e.eer(9.01, 8_000, 10_000, m),
            (EwrState::Congestion, 10_000, 1000)
        );
    }

    #[test]
    fn the_window_follows_the_advertisement_outside_recovery_and_losses_are_judged() {
        let mut e = ewr();
        let mut st = CcState {
            cwnd: 2000,
            ssthresh: 1 << 30,
            mss: 1000,
        };
        let mut a = AckInfo {
            now: 0,
            acked_bytes: 1000,
            rwnd: 30_000,
            srtt: Some(100 * MS),
            ..Default::default()
        };
        e.on_ack_header(&a);
        e.on_ack(&a, &mut st);
        assert_eq!(st.cwnd, 30_000, "(b) cwnd = oCwnd");
        a.in_recovery = true;
        a.rwnd = 50_000;
        e.on_ack(&a, &mut st);
        assert_eq!(st.cwnd, 30_000, "recovery keeps its own window");
        a.in_recovery = false;
        e.on_ack_header(&a);
        e.on_ack(&a, &mut st);
        assert_eq!(st.cwnd, 50_000);
        let ev = |kind, base| CongestionEvent {
            now: 0,
            kind,
            in_flight: 50_000,
            flight_size: 50_000,
            min_rtt: Some(base),
            true_cause: None,
        };
        // 50 segments at srtt 100 ms: base 99 ms gives x = 0.5 < α, linear increase.
        let r = e.on_congestion(&ev(CongestionKind::DupAcks, 99 * MS), &st);
        assert_eq!((r.ssthresh, r.cwnd), (50_000, Some(52_000)));
        assert_eq!(r.verdict, Some(LossClass::Wireless));
        // base 90 ms: x = 5, wait-and-see, still judged wireless.
        let r = e.on_congestion(&ev(CongestionKind::Timeout, 90 * MS), &st);
        assert_eq!(
            (r.cwnd, r.verdict),
            (Some(50_000), Some(LossClass::Wireless))
        );
        // base 50 ms: x = 25 > β, congestion: one segment.
        let r = e.on_congestion(&ev(CongestionKind::DupAcks, 50 * MS), &st);
        assert_eq!(
            (r.cwnd, r.verdict),
            (Some(1000), Some(LossClass::Congestion))
        );
        assert_eq!(e.states, [1, 1, 1]);
    }

    fn rx_with(k: &str, v: f64) -> EwrReceiver {
        let mut m = BTreeMap::new();
        m.insert(k.to_string(), v);
        EwrReceiver::new(&mut Params::new(&m)).unwrap()
    }

    #[test]
    fn the_interval_reading_samples_once_per_rtt_min_and_cannot_exceed_the_flow_rate() {
        let mut r = rx_with("interval", 1.0);
        let ip = IpHeader::default();
        let seg = |seq: u64, ts_ecr: Time| TcpHeader {
            seq,
            len: 1000,
            ts_ecr,
            ..Default::default()
        };
        // Two segments back to back: per packet this would be a 1 MB/s sample.
        r.on_segment(10 * MS, &ip, &seg(0, 0));
        r.on_segment(11 * MS, &ip, &seg(1000, 0));
        assert_eq!(r.samples, 0, "no sample before RTT_min is known");
        // RTT_min 50 ms from the echo of the ACK sent at 10 ms.
        r.on_segment(60 * MS, &ip, &seg(2000, 10 * MS));
        assert_eq!(r.rtt_min, Some(50 * MS));
        // 50 ms after the first arrival: 2000 bytes (the first only starts the clock) in
        // 50 ms, 40 kB/s, a window of two segments per round trip.
        assert_eq!(r.samples, 1);
        assert!((r.estimate - 40_000.0).abs() < 1e-6, "{}", r.estimate);
        // Segments 1 ms apart do not make a sample until 50 ms have passed.
        r.on_segment(61 * MS, &ip, &seg(3000, 11 * MS));
        r.on_segment(62 * MS, &ip, &seg(4000, 11 * MS));
        assert_eq!(r.samples, 1);
        r.on_segment(110 * MS, &ip, &seg(5000, 60 * MS));
        assert_eq!(r.samples, 2);
        // 3000 bytes in 50 ms: 60 kB/s; 0.7 * 40e3 + 0.3 * 60e3 = 46 kB/s.
        assert!((r.estimate - 46_000.0).abs() < 1e-6, "{}", r.estimate);
        // oCwnd = 50 ms * 46 kB/s = 2300 bytes: what the flow sent per round trip, no more.
        assert_eq!(r.window(110 * MS, 65_536), 2300);
    }

    #[test]
    fn padhye_throughput_and_the_loss_term_cap() {
        // p = 1%, R = 100 ms, T0 = 400 ms, 1000-byte segments:
        // R sqrt(2p/3) = 0.1 * 0.0816497 = 0.00816497;
        // T0 min(1, 3 sqrt(3p/8)) p (1 + 32p²) = 0.4 * 0.1837117 * 0.01 * 1.0032 = 0.00073720.
        let b = EwrReceiver::padhye(0.01, 0.1, 1000.0);
        assert!(
            (b - 1000.0 / (0.008_164_97 + 0.000_737_20)).abs() < 0.5,
            "{b}"
        );
        let mut off = rx();
        let mut on = rx_with("loss_term", 1.0);
        let ip = IpHeader::default();
        for r in [&mut off, &mut on] {
            // Nine segments 1 ms apart, the fifth missing: one hole in eight arrivals.
            for (k, t) in (0..9u64).zip(10u64..) {
                if k == 4 {
                    continue;
                }
                let h = TcpHeader {
                    seq: k * 1000,
                    len: 1000,
                    ts_ecr: if k >= 2 { 10 * MS } else { 0 },
                    ..Default::default()
                };
                r.on_segment(t * MS + if k >= 2 { 40 * MS } else { 0 }, &ip, &h);
            }
        }
        assert_eq!((on.holes, on.segments), (1, 8));
        assert_eq!(on.loss_rate(), 0.125);
        let rtt = on.rtt_min.unwrap() as f64 / SEC as f64;
        let cap = EwrReceiver::padhye(0.125, rtt, 1000.0);
        assert!(cap < on.estimate, "the cap binds at 12.5% loss");
        assert!((on.ocwnd().unwrap() - rtt * cap).abs() < 1e-6);
        assert!((off.ocwnd().unwrap() - rtt * off.estimate).abs() < 1e-6);
        assert_eq!(off.estimate, on.estimate, "the filter itself is the same");
    }

    #[test]
    fn the_cwnd_above_ssthresh_branches_leave_the_usable_window_as_it_was() {
        // The sender sends min(cwnd, rwnd) and rwnd is oCwnd = ssthresh. Where (c) sets
        // cwnd = oCwnd because cwnd > ssthresh (linear increase and wait-and-see), the usable
        // window is oCwnd before and after; wait-and-see below ssthresh keeps cwnd; only +2 below
        // oCwnd and the congestion branch change what may be sent.
        let e = ewr();
        let m = 1000;
        let ocwnd = 10_000;
        let usable = |cwnd: u64| cwnd.min(ocwnd);
        for x in [0.5, 5.0] {
            let (_, _, w) = e.eer(x, 14_000, ocwnd, m);
            assert_eq!(usable(w), usable(14_000), "x = {x}");
        }
        let (_, _, w) = e.eer(5.0, 6_000, ocwnd, m);
        assert_eq!(usable(w), usable(6_000));
        // cwnd = oCwnd (as (b) leaves it): +2 is above the advertised window, no effect.
        let (_, _, w) = e.eer(0.5, ocwnd, ocwnd, m);
        assert_eq!(usable(w), usable(ocwnd));
        // Below oCwnd +2 counts, and the congestion branch cuts.
        let (_, _, w) = e.eer(0.5, 6_000, ocwnd, m);
        assert_eq!(usable(w), 8_000);
        let (_, _, w) = e.eer(20.0, 6_000, ocwnd, m);
        assert_eq!(usable(w), 1000);
    }

    #[test]
    fn parameters_are_checked() {
        for (k, v) in [("interval", -1.0), ("loss_term", 0.5)] {
            let mut m = BTreeMap::new();
            m.insert(k.to_string(), v);
            assert_eq!(EwrReceiver::new(&mut Params::new(&m)).err().unwrap().0, k);
        }
        let mut m = BTreeMap::new();
        m.insert("beta".to_string(), 0.5);
        assert_eq!(Ewr::new(&mut Params::new(&m)).err().unwrap().0, "beta");
        let mut m = BTreeMap::new();
        m.insert("delta".to_string(), 1.0);
        assert_eq!(
            EwrReceiver::new(&mut Params::new(&m)).err().unwrap().0,
            "delta"
        );
    }
}
