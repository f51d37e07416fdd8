//! TCP Hybla (Caini & Firrincieli, "TCP Hybla: a TCP enhancement for heterogeneous networks",
//! Int. J. Satellite Communications and Networking 22(5), 2004). The window rules are scaled by
//! ρ = RTT/RTT₀ so that a long-delay connection gains window at the rate of one with the
//! reference round trip RTT₀ = 25 ms:
//! - slow start: W ← W + 2^ρ − 1 per ACK,
//! - congestion avoidance: W ← W + ρ²/W per ACK,
//!
//! and the loss reaction is standard TCP's. ρ is taken at least 1 (a connection shorter than
//! RTT₀ behaves as standard TCP, as in Linux and ns-3), from the smallest smoothed RTT seen
//! (as Linux's `minrtt`): the paper's RTT is the connection's round trip, and one that took
//! in the queueing delay would raise ρ, and the growth by ρ², with the queue the flow itself
//! builds (on a shared buffer the long flow's growth outran the short one's). A slow-start
//! step stops at ssthresh and at the receiver's window (beyond either it could not be used).
//! The paper pairs the rules with packet spacing, since a step of 2^ρ − 1 segments per ACK
//! would otherwise leave in one burst: segments are paced at 1.1·cwnd/SRTT (the window spread
//! over the round trip; the 10% covers headers), once an RTT has been measured.
//!
//! `ns3 = 1` (the `ns3` profile's default) follows ns-3.44's `TcpHybla`: ρ from the minimum
//! RTT in whole milliseconds, recomputed when an ACK finds the SRTT at that minimum (ns-3
//! passes the SRTT to `PktsAcked` and keeps `m_minRtt` as the smallest SRTT, the handshake's
//! included, so after a handshake ρ stays 1 while data RTTs exceed the SYN's), with ns-3's
//! reference `RRTT` = 50 ms given by `rtt0` under that profile; congestion avoidance in whole
//! segments (ρ²/W per ACKed segment with W the window truncated to whole segments, added once
//! the sum reaches a segment); and no pacing (ns-3's TcpHybla does not pace).

use super::{
    half_flight, AckInfo, CcState, CongestionControl, CongestionEvent, ParamSpec, Params, Reaction,
};
use crate::engine::{Time, SEC};

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::ns3("rtt0", 0.025, 0.05, "reference round trip RTT0 (s)"),
    ParamSpec::ns3(
        "ns3",
        0.0,
        1.0,
        "1: ns-3's TcpHybla (rho from the smallest SRTT, growth in whole segments, no pacing)",
    ),
];

#[derive(Clone, Debug)]
pub struct Hybla {
    rtt0: f64,
    ns3: bool,
    /// ρ, at least 1.
    pub rho: f64,
    carry: f64,
    srtt: Option<Time>,
    /// The smallest SRTT so far (ns-3's `m_minRtt` under `ns3`).
    min_srtt: Option<Time>,
}

impl Hybla {
    pub fn new(p: &mut Params) -> Result<Self, (String, String)> {
        let rtt0 = p.spec(PARAMS, "rtt0")?;
        let ns3 = p.flag(PARAMS, "ns3")?;
        if rtt0 <= 0.0 {
            return Err(("rtt0".into(), format!("must be > 0, got {rtt0}")));
        }
        Ok(Hybla {
            rtt0,
            ns3,
            rho: 1.0,
            carry: 0.0,
            srtt: None,
            min_srtt: None,
        })
    }

    fn update_rho(&mut self, rtt: Option<Time>) {
        if let Some(r) = rtt {
            let r = if self.ns3 {
                // ns-3 counts whole milliseconds.
                (r as f64 / (SEC / 1000) as f64).floor() / 1000.0
            } else {
                r as f64 / SEC as f64
            };
            self.rho = (r / self.rtt0).max(1.0);
        }
    }
}

impl CongestionControl for Hybla {
    fn pacing_rate(&self, st: &CcState) -> Option<f64> {
        let srtt = self.srtt.filter(|_| !self.ns3)?;
        Some(1.1 * st.cwnd as f64 * 8.0 / (srtt.max(1) as f64 / SEC as f64))
    }

    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        self.srtt = ack.srtt.or(self.srtt);
        if self.ns3 {
            // ns-3 updates its minimum from each new SRTT and recomputes rho when the SRTT
            // it hands the scheme equals that minimum.
            // The minimum starts at the first SRTT, which is the first sample (the
            // handshake's, when there is one, smaller than any data sample).
            if let Some(s) = ack.srtt.filter(|_| ack.rtt.is_some()) {
                let m = *self.min_srtt.get_or_insert(ack.min_rtt.unwrap_or(s));
                if s <= m {
                    self.min_srtt = Some(s);
                    self.update_rho(Some(s));
                }
            }
        } else if let Some(s) = ack.srtt {
            if self.min_srtt.is_none_or(|m| s < m) {
                self.min_srtt = Some(s);
                self.update_rho(Some(s));
            }
        }
        if ack.no_growth() {
            return;
        }
        let mss = st.mss as f64;
        if st.cwnd < st.ssthresh {
            let inc = ((2f64.powf(self.rho) - 1.0) * mss) as u64;
            let mut cap = st.ssthresh;
            if ack.rwnd > 0 {
                cap = cap.min(ack.rwnd.max(st.cwnd));
            }
            st.cwnd = (st.cwnd + inc).min(cap).max(st.cwnd);
            return;
        }
        let acked = ack.acked_bytes as f64 / mss;
        if self.ns3 {
            // ns-3: the increase counted in segments against the truncated window, and the
            // window grown by whole segments only.
            let w = (st.cwnd / st.mss).max(1) as f64;
            self.carry += self.rho * self.rho / w * acked.round();
            let whole = self.carry.floor();
            self.carry -= whole;
            st.cwnd += whole as u64 * st.mss;
            return;
        }
        let w = st.cwnd as f64 / mss;
        self.carry += self.rho * self.rho / w * acked * mss;
        let whole = self.carry.floor();
        self.carry -= whole;
        st.cwnd += whole as u64;
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        Reaction::cut(half_flight(ev.in_flight, st.mss))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use std::collections::BTreeMap;

    fn hybla(ns3: bool) -> Hybla {
        let mut m = BTreeMap::new();
        m.insert("ns3".to_string(), ns3 as u8 as f64);
        Hybla::new(&mut Params::new(&m)).unwrap()
    }

    fn ack(srtt: Time) -> AckInfo {
        AckInfo {
            acked_bytes: 1000,
            rtt: Some(srtt),
            srtt: Some(srtt),
            min_rtt: Some(srtt),
            ..Default::default()
        }
    }

    #[test]
    fn rho_scales_slow_start_to_two_to_the_rho_minus_one() {
        let mut h = hybla(false);
        let mut st = CcState {
            cwnd: 2000,
            ssthresh: 1 << 40,
            mss: 1000,
        };
        // RTT 100 ms = 4 RTT0: each ACK adds 2^4 - 1 = 15 segments.
        h.on_ack(&ack(100 * MS), &mut st);
        assert_eq!(h.rho, 4.0);
        assert_eq!(st.cwnd, 17_000);
        // Stops at ssthresh.
        st.ssthresh = 20_000;
        h.on_ack(&ack(100 * MS), &mut st);
        assert_eq!(st.cwnd, 20_000);
    }

    #[test]
    fn congestion_avoidance_adds_rho_squared_per_round() {
        let mut h = hybla(false);
        let mut st = CcState {
            cwnd: 100_000,
            ssthresh: 1,
            mss: 1000,
        };
        // RTT 75 ms: rho 3, a window of ACKs adds about 9 segments.
        for _ in 0..100 {
            h.on_ack(&ack(75 * MS), &mut st);
        }
        let grown = (st.cwnd - 100_000) as f64 / 1000.0;
        assert!((grown - 9.0).abs() < 0.5, "{grown}");
        // A path shorter than RTT0 is standard TCP (rho = 1).
        h.on_ack(&ack(10 * MS), &mut st);
        assert_eq!(h.rho, 1.0);
    }

    #[test]
    fn queueing_delay_does_not_raise_rho() {
        let mut h = hybla(false);
        let mut st = CcState {
            cwnd: 100_000,
            ssthresh: 1,
            mss: 1000,
        };
        // A 50 ms path (rho 2) whose SRTT grows to 130 ms with the queue: rho stays 2.
        h.on_ack(&ack(50 * MS), &mut st);
        h.on_ack(&ack(130 * MS), &mut st);
        assert_eq!(h.rho, 2.0);
        // A smaller SRTT than any before lowers it.
        h.on_ack(&ack(40 * MS), &mut st);
        assert!((h.rho - 1.6).abs() < 1e-9, "{}", h.rho);
    }

    #[test]
    fn ns3_takes_rho_from_the_minimum_rtt() {
        let mut h = hybla(true);
        let mut st = CcState {
            cwnd: 100_000,
            ssthresh: 1,
            mss: 1000,
        };
        h.on_ack(&ack(100 * MS), &mut st);
        assert_eq!(h.rho, 100.0 / 25.0);
        // An SRTT above its minimum leaves rho; a new smallest SRTT (whole ms) sets it.
        h.on_ack(&ack(200 * MS), &mut st);
        assert_eq!(h.rho, 4.0, "the SRTT is not the minimum: rho unchanged");
        h.on_ack(&ack(75 * MS + MS / 2), &mut st);
        assert!((h.rho - 3.0).abs() < 1e-9, "{}", h.rho);
        // After a handshake whose sample (the first SRTT) is below every SRTT that follows,
        // rho is never recomputed.
        let mut h = hybla(true);
        let mut a = ack(100 * MS);
        a.min_rtt = Some(90 * MS);
        h.on_ack(&a, &mut st);
        assert_eq!(h.rho, 1.0);
    }

    #[test]
    fn ns3_grows_in_whole_segments_against_the_truncated_window() {
        let mut h = hybla(true);
        h.rho = 2.0;
        h.min_srtt = Some(0);
        // 2.9 segments count as 2: each ACKed segment adds rho^2/2 = 2 segments, whole.
        let mut st = CcState {
            cwnd: 2900,
            ssthresh: 1,
            mss: 1000,
        };
        let mut a = ack(100 * MS);
        a.rtt = None;
        h.on_ack(&a, &mut st);
        assert_eq!(st.cwnd, 4900);
        // 4.9 segments count as 4: one segment per ACK.
        h.on_ack(&a, &mut st);
        assert_eq!(st.cwnd, 5900);
    }
}
