//! LEDBAT (RFC 6817), a less-than-best-effort sender that keeps the queueing delay it adds at
//! TARGET and yields to standard TCP. Per ACK (section 2.4.2):
//! - one-way delay sample = the receiver's timestamp less the sender's send time (RFC 7323
//!   timestamps; a clock offset between the ends cancels in the difference below);
//! - base delay = minimum over BASE_HISTORY = 10 one-minute intervals; current delay = FILTER
//!   (the minimum) of the last CURRENT_FILTER = 4 samples;
//! - queuing_delay = current − base, off_target = (TARGET − queuing_delay)/TARGET;
//! - cwnd += GAIN·off_target·bytes_newly_acked·MSS/cwnd (negative above TARGET), then
//!   cwnd ≤ flightsize + ALLOWED_INCREASE·MSS and cwnd ≥ MIN_CWND·MSS;
//! - on loss, cwnd = max(cwnd/2, MIN_CWND·MSS), once per round trip (section 2.4.3).
//!
//! TARGET = 100 ms (the RFC's upper bound), GAIN = 1, ALLOWED_INCREASE = 1, MIN_CWND = 2.
//! The RFC's pseudocode has no slow start: the window grows by the controller from the start.
//!
//! `ns3 = 1` (the `ns3` profile's default) follows ns-3.44's `TcpLedbat`: slow start (its
//! `SSParam = DO_SLOWSTART`) while cwnd <= ssthresh, until the window first leaves it, and
//! again once a timeout has brought it to one segment; ssthresh kept below cwnd after each
//! controller step; the
//! window capped at the flight before the ACK without ALLOWED_INCREASE (`max_cwnd` in
//! `CongestionAvoidance`: out of slow start the controller can only hold or shrink a window
//! the flight fills); and delays in whole milliseconds (ns-3's timestamps).

use super::{
    half_flight, reno_increase, AckInfo, CcState, CongestionControl, CongestionEvent, ParamSpec,
    Params, Reaction,
};
use crate::engine::{Time, MS, SEC};
use std::collections::VecDeque;

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::new("target", 0.1, "TARGET, the queueing delay aimed at (s)"),
    ParamSpec::new("gain", 1.0, "GAIN of the controller"),
    ParamSpec::new(
        "base_history",
        10.0,
        "BASE_HISTORY, one-minute intervals of base delay kept",
    ),
    ParamSpec::new(
        "current_filter",
        4.0,
        "CURRENT_FILTER, samples the current delay is the minimum of",
    ),
    ParamSpec::new("min_cwnd", 2.0, "MIN_CWND (segments)"),
    ParamSpec::ns3(
        "ns3",
        0.0,
        1.0,
        "1: ns-3's TcpLedbat (slow start first and after a timeout, capped at the flight, millisecond delays)",
    ),
];

#[derive(Clone, Debug)]
pub struct Ledbat {
    target: f64,
    gain: f64,
    base_history: usize,
    current_filter: usize,
    min_cwnd: u64,
    ns3: bool,
    /// Per-minute minima, oldest first, and the minute of the last.
    base: VecDeque<Time>,
    base_minute: Option<u64>,
    current: VecDeque<Time>,
    /// Slow start is still allowed (`ns3` only).
    can_ss: bool,
    carry: f64,
}

impl Ledbat {
    pub fn new(p: &mut Params) -> Result<Self, (String, String)> {
        let target = p.spec(PARAMS, "target")?;
        let gain = p.spec(PARAMS, "gain")?;
        let base_history = p.spec(PARAMS, "base_history")?;
        let current_filter = p.spec(PARAMS, "current_filter")?;
        let min_cwnd = p.spec(PARAMS, "min_cwnd")?;
        let ns3 = p.flag(PARAMS, "ns3")?;
        if target <= 0.0 {
            return Err(("target".into(), format!("must be > 0, got {target}")));
        }
        if gain <= 0.0 {
            return Err(("gain".into(), format!("must be > 0, got {gain}")));
        }
        for (k, v) in [
            ("base_history", base_history),
            ("current_filter", current_filter),
            ("min_cwnd", min_cwnd),
        ] {
            if v < 1.0 {
                return Err((k.into(), format!("must be >= 1, got {v}")));
            }
        }
        Ok(Ledbat {
            target,
            gain,
            base_history: base_history as usize,
            current_filter: current_filter as usize,
            min_cwnd: min_cwnd as u64,
            ns3,
            base: VecDeque::new(),
            base_minute: None,
            current: VecDeque::new(),
            can_ss: ns3,
            carry: 0.0,
        })
    }

    /// Record a one-way delay sample taken at `now`.
    pub fn add_delay(&mut self, now: Time, owd: Time) {
        let owd = if self.ns3 { owd / MS * MS } else { owd };
        let minute = now / (60 * SEC);
        match self.base.back_mut() {
            Some(last) if self.base_minute == Some(minute) => *last = (*last).min(owd),
            _ => {
                self.base.push_back(owd);
                if self.base.len() > self.base_history {
                    self.base.pop_front();
                }
                self.base_minute = Some(minute);
            }
        }
        self.current.push_back(owd);
        if self.current.len() > self.current_filter {
            self.current.pop_front();
        }
    }

    /// Current queueing delay estimate (s), once a sample has arrived.
    pub fn queuing_delay(&self) -> Option<f64> {
        let base = self.base.iter().min()?;
        let cur = self.current.iter().min()?;
        Some(cur.saturating_sub(*base) as f64 / SEC as f64)
    }

    pub fn off_target(&self) -> Option<f64> {
        Some((self.target - self.queuing_delay()?) / self.target)
    }
}

impl CongestionControl for Ledbat {
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        if let (Some(tsv), Some(rtt)) = (ack.ts_val, ack.rtt) {
            // Forward delay: the receiver stamped the ACK when the segment arrived.
            let sent = ack.now.saturating_sub(rtt);
            self.add_delay(ack.now, tsv.saturating_sub(sent));
        }
        if ack.no_growth() {
            return;
        }
        if self.ns3 && st.cwnd <= st.mss {
            // ns-3 allows slow start again once the window is down to one segment (after a
            // timeout).
            self.can_ss = true;
        }
        if self.can_ss {
            // ns-3's TcpLedbat slow-starts while cwnd <= ssthresh (TcpNewReno while below).
            if st.cwnd < st.ssthresh || (self.ns3 && st.cwnd == st.ssthresh) {
                st.cwnd += ack.acked_bytes.min(st.mss);
                return;
            }
            self.can_ss = false;
        }
        let Some(off) = self.off_target() else {
            // No delay sample yet (no timestamps): standard TCP.
            reno_increase(ack, st);
            return;
        };
        let mss = st.mss as f64;
        self.carry += self.gain * off * ack.acked_bytes as f64 * mss / st.cwnd as f64;
        let whole = self.carry.trunc();
        self.carry -= whole;
        let mut cwnd = (st.cwnd as f64 + whole).max(0.0) as u64;
        // Flightsize before this ACK plus ALLOWED_INCREASE (ns-3: without it, so the
        // controller never takes the window above the flight it had).
        let allowed = if self.ns3 { 0 } else { st.mss };
        let cap = ack.in_flight + ack.acked_bytes + allowed;
        cwnd = cwnd.min(cap).max(self.min_cwnd * st.mss);
        st.cwnd = cwnd;
        if self.ns3 {
            if st.cwnd <= st.ssthresh {
                st.ssthresh = st.cwnd.saturating_sub(1);
            }
        } else {
            // The controller, not slow start, owns the window.
            st.ssthresh = st.ssthresh.min(st.cwnd);
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        self.carry = 0.0;
        Reaction::cut(half_flight(ev.in_flight, st.mss).max(self.min_cwnd * st.mss))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn ledbat(ns3: bool) -> Ledbat {
        let mut m = BTreeMap::new();
        m.insert("ns3".to_string(), ns3 as u8 as f64);
        Ledbat::new(&mut Params::new(&m)).unwrap()
    }

    /// An ACK at `now` for a segment with forward delay `owd` and round trip 2 owd.
    fn ack(now: Time, owd: Time) -> AckInfo {
        AckInfo {
            now,
            acked_bytes: 1000,
            rtt: Some(2 * owd),
            ts_val: Some(now - owd),
            in_flight: 1 << 30,
            ..Default::default()
        }
    }

    /// Base delay 20 ms, and the current filter filled with `owd`.
    fn seeded(owd: Time) -> Ledbat {
        let mut l = ledbat(false);
        l.add_delay(0, 20 * MS);
        for _ in 0..4 {
            l.add_delay(SEC, owd);
        }
        l
    }

    fn window_of_acks(l: &mut Ledbat, owd: Time) -> f64 {
        let mut st = CcState {
            cwnd: 50_000,
            ssthresh: 1 << 40,
            mss: 1000,
        };
        for k in 0..50 {
            l.on_ack(&ack(SEC + k * MS, owd), &mut st);
        }
        (st.cwnd as f64 - 50_000.0) / 1000.0
    }

    #[test]
    fn off_target_gain_per_window() {
        // Base 20 ms; queueing 50 ms = half of TARGET: off_target 0.5, about half a segment
        // per window of ACKs (the window moves little within it).
        let mut l = seeded(70 * MS);
        assert!((window_of_acks(&mut l, 70 * MS) - 0.5).abs() < 0.05);
        assert!((l.off_target().unwrap() - 0.5).abs() < 1e-9);
        // Queueing 200 ms: off_target -1, a segment less per window.
        let mut l = seeded(220 * MS);
        assert!((window_of_acks(&mut l, 220 * MS) + 1.0).abs() < 0.05);
        // At TARGET the window holds.
        let mut l = seeded(120 * MS);
        assert!(window_of_acks(&mut l, 120 * MS).abs() < 0.01);
    }

    #[test]
    fn window_is_capped_by_flight_plus_one_and_floored_at_min_cwnd() {
        let mut l = ledbat(false);
        l.add_delay(0, 20 * MS);
        let mut st = CcState {
            cwnd: 50_000,
            ssthresh: 1 << 40,
            mss: 1000,
        };
        let mut a = ack(SEC, 20 * MS);
        a.in_flight = 10_000;
        l.on_ack(&a, &mut st);
        assert_eq!(
            st.cwnd, 12_000,
            "flightsize 11 segments before the ACK, plus one"
        );
        let mut st = CcState {
            cwnd: 2_000,
            ssthresh: 1 << 40,
            mss: 1000,
        };
        let mut l = seeded(5 * SEC);
        // The ACK comes late enough that its timestamp (now - owd) is after time zero.
        l.on_ack(&ack(10 * SEC, 5 * SEC), &mut st);
        assert_eq!(st.cwnd, 2_000);
    }

    #[test]
    fn base_delay_is_a_per_minute_history_of_ten() {
        let mut l = ledbat(false);
        l.add_delay(0, 10 * MS);
        for minute in 1..=10 {
            l.add_delay(minute * 60 * SEC, 30 * MS);
        }
        // The 10 ms minute has rolled out of the ten kept.
        assert_eq!(l.base.len(), 10);
        assert_eq!(l.queuing_delay(), Some(0.0));
        // The current delay is the minimum of the last four samples.
        for d in [90, 50, 70, 60] {
            l.add_delay(11 * 60 * SEC, d * MS);
        }
        assert!((l.queuing_delay().unwrap() - 0.020).abs() < 1e-9);
    }

    #[test]
    fn ns3_slow_starts_first() {
        let mut l = ledbat(true);
        let mut st = CcState {
            cwnd: 10_000,
            ssthresh: 1 << 40,
            mss: 1000,
        };
        l.on_ack(&ack(SEC, 20 * MS), &mut st);
        assert_eq!(st.cwnd, 11_000);
        let mut d = ledbat(false);
        let mut st = CcState {
            cwnd: 10_000,
            ssthresh: 1 << 40,
            mss: 1000,
        };
        d.on_ack(&ack(SEC, 20 * MS), &mut st);
        // Off target 1 at an empty queue: 1000 x 1000 / 10000 = 100 bytes.
        assert_eq!(st.cwnd, 10_100);
    }

    #[test]
    fn ns3_caps_at_the_flight_and_slow_starts_again_from_one_segment() {
        let mut l = ledbat(true);
        l.can_ss = false;
        l.add_delay(0, 20 * MS);
        let mut st = CcState {
            cwnd: 11_000,
            ssthresh: 1,
            mss: 1000,
        };
        // The flight fills the window: the controller cannot take it above 11 segments.
        let mut a = ack(SEC, 20 * MS);
        a.in_flight = 10_000;
        l.on_ack(&a, &mut st);
        assert_eq!(st.cwnd, 11_000);
        // After a timeout's one segment, slow start again, up to ssthresh and one segment
        // past it (IncreaseWindow tests cwnd <= ssthresh), then the controller.
        st.cwnd = 1000;
        st.ssthresh = 2000;
        a.in_flight = 0;
        l.on_ack(&a, &mut st);
        assert_eq!(st.cwnd, 2000);
        a.in_flight = 1000;
        l.on_ack(&a, &mut st);
        assert_eq!(st.cwnd, 3000);
        a.in_flight = 2000;
        l.on_ack(&a, &mut st);
        assert!(st.cwnd < 4000 && !l.can_ss, "{}", st.cwnd);
    }
}
