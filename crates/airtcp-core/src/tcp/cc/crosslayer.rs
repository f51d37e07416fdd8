//! NewReno with the MEMBRANE cross-layer notifications (seed paper 001):
//!
//! - `newreno-ern`: the routers' explicit rate notification (the smallest rate the hops of the
//!   path offer, echoed by the receiver) caps cwnd at rate × smoothed RTT: the data in flight
//!   that the path can carry at that rate with the delay it has now (on a TDMA path the wait
//!   for each hop's slot is part of that delay, so the minimum RTT would starve the pipe).
//!   ELN marks are ignored.
//! - `newreno-adaptive`: NewReno that uses ERN while the path's packet error rate is below a
//!   threshold (1%, the paper's) and ELN above it. The lower layers pass the error rate up
//!   through the ELN notifications themselves: the sender counts its segments reported lost to
//!   channel errors (each hole an ELN-marked ACK reports, once) against the segments it sent,
//!   over a window that decays with each segment sent (`per_window`, 500 segments). It goes
//!   back to ERN only when the rate falls 20% below the threshold (`hysteresis`), so the mode
//!   does not flap with each loss while the estimate sits at the threshold.
//!
//!   The threshold is a per-link PER (the paper's axis is the links' PER), while the ELN
//!   notifications count losses on the whole path: with the route's hop count `hops` (static
//!   routing knows it) the path estimate p is put on the link scale, 1 − (1 − p)^(1/hops),
//!   before it is compared. `hops = 1` compares the path estimate itself.
//! - `newreno-adaptive-online`: the threshold estimated online as the loss rate at which
//!   NewReno's loss-limited rate falls to the echoed explicit rate: by Padhye et al.'s model
//!   with timeouts (`online_model = 1`, the default; the sender's RTO from its RTT samples,
//!   RFC 6298, floored at `min_rto`), or by Mathis et al.'s without (`online_model = 0`). On a
//!   short path the window is a few segments and a channel loss costs a timeout, which only
//!   the first model sees. The estimate is a path loss rate, put on the link scale as above.
//!
//! Plain `newreno` honours ELN marks whenever ELN agents put them there (NewReno + ELN).

use super::newreno::reno_increase;
use super::{half_flight, AckInfo, CcState, CongestionControl, CongestionEvent, Params, Reaction};
use crate::engine::{Time, SEC};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    Ern,
    Adaptive {
        threshold: f64,
    },
    /// The threshold estimated online: the loss rate at which NewReno's loss-limited rate
    /// (Mathis et al.: 1.22·MSS / (RTT·√p)) falls to the path's explicit rate. Below it the
    /// window cuts cost nothing the cap would not also cost, and ERN's cap avoids overload;
    /// above it each cut on a channel loss leaves the path idle, which ELN avoids.
    AdaptiveOnline,
}

#[derive(Clone, Debug)]
pub struct CrossLayer {
    pub mode: Mode,
    /// Decay per segment sent of the loss-rate window.
    decay: f64,
    /// Decayed counts of channel losses reported and segments sent.
    lost: f64,
    sent: f64,
    /// The hole the last ELN-marked ACK reported (each hole counts once).
    last_eln_hole: Option<u64>,
    /// The adaptive scheme is using ELN (above the threshold).
    pub using_eln: bool,
    pub switches: u64,
    /// Relative band below the threshold before switching back to ERN.
    hysteresis: f64,
    /// The online threshold estimate (AdaptiveOnline), a path loss rate.
    pub online: Option<f64>,
    /// Hops of the route: puts path loss rates on the per-link scale of the threshold.
    hops: f64,
    /// The online crossing point by Padhye's model with timeouts (else Mathis's).
    padhye: bool,
    /// Floor of the RTO estimate (s) and the RTT variation (s) of RFC 6298.
    min_rto: f64,
    rttvar: Option<f64>,
    /// ACKs on which the ERN cap lowered cwnd.
    pub capped: u64,
    mss: u64,
}

impl CrossLayer {
    pub fn new(mode: Mode, p: &mut Params) -> Result<Self, (String, String)> {
        let mode = match mode {
            Mode::Adaptive { threshold } => {
                let t = p.get("threshold", threshold)?;
                if !(t > 0.0 && t < 1.0) {
                    return Err(("threshold".into(), format!("must be in (0, 1), got {t}")));
                }
                Mode::Adaptive { threshold: t }
            }
            m => m,
        };
        let hysteresis = p.get("hysteresis", 0.2)?;
        if !(0.0..1.0).contains(&hysteresis) {
            return Err((
                "hysteresis".into(),
                format!("must be in [0, 1), got {hysteresis}"),
            ));
        }
        let window = p.get("per_window", 500.0)?;
        if window < 1.0 {
            return Err(("per_window".into(), format!("must be >= 1, got {window}")));
        }
        let hops = p.get("hops", 1.0)?;
        if !(hops >= 1.0 && hops.is_finite()) {
            return Err(("hops".into(), format!("must be >= 1, got {hops}")));
        }
        let model = p.get("online_model", 1.0)?;
        if model != 0.0 && model != 1.0 {
            return Err((
                "online_model".into(),
                format!("must be 0 (Mathis) or 1 (Padhye), got {model}"),
            ));
        }
        let min_rto = p.get("min_rto", 0.2)?;
        if !(min_rto > 0.0 && min_rto.is_finite()) {
            return Err(("min_rto".into(), format!("must be > 0 s, got {min_rto}")));
        }
        Ok(CrossLayer {
            mode,
            decay: 1.0 - 1.0 / window,
            lost: 0.0,
            sent: 0.0,
            last_eln_hole: None,
            using_eln: false,
            switches: 0,
            hysteresis,
            online: None,
            hops,
            padhye: model == 1.0,
            min_rto,
            rttvar: None,
            capped: 0,
            mss: 0,
        })
    }

    /// Channel-loss rate of the connection's segments, as the ELN notifications report it.
    pub fn per(&self) -> f64 {
        if self.sent > 0.0 {
            self.lost / self.sent
        } else {
            0.0
        }
    }

    /// A path loss rate on the per-link scale: 1 − (1 − p)^(1/hops).
    pub fn link_scale(&self, p: f64) -> f64 {
        if self.hops == 1.0 {
            return p;
        }
        1.0 - (1.0 - p.clamp(0.0, 1.0)).powf(1.0 / self.hops)
    }

    /// The channel-loss estimate on the per-link scale of the threshold.
    pub fn per_link(&self) -> f64 {
        self.link_scale(self.per())
    }

    fn ern_active(&self) -> bool {
        match self.mode {
            Mode::Ern => true,
            Mode::Adaptive { .. } | Mode::AdaptiveOnline => !self.using_eln,
        }
    }

    /// The crossing point for a path of `rate_bps` and round trip `srtt`: the loss rate p at
    /// which 1.22·MSS/(RTT·√p) = rate.
    #[cfg(test)]
    fn cross_check() -> f64 {
        Self::crossing(1e6, 100 * crate::engine::MS, 1000)
    }

    pub fn crossing(rate_bps: f64, srtt: Time, mss: u64) -> f64 {
        let rtt = srtt as f64 / SEC as f64;
        if rate_bps <= 0.0 || rtt <= 0.0 {
            return 1.0;
        }
        (1.22 * (mss * 8) as f64 / (rtt * rate_bps))
            .powi(2)
            .min(1.0)
    }

    /// Padhye et al.'s (1998) approximate throughput in bytes/s at loss rate `p`, one
    /// segment acknowledged per ACK: MSS / (RTT·√(2p/3) + RTO·min(1, 3·√(3p/8))·p·(1 + 32p²)).
    pub fn padhye_rate(p: f64, rtt: f64, rto: f64, mss: u64) -> f64 {
        let d = rtt * (2.0 * p / 3.0).sqrt()
            + rto * (3.0 * (3.0 * p / 8.0).sqrt()).min(1.0) * p * (1.0 + 32.0 * p * p);
        mss as f64 / d
    }

    /// The loss rate at which Padhye's throughput falls to `rate_bps` (it falls as p rises):
    /// bisection on a log scale between 10⁻⁶ and 1, 60 halvings.
    ///
    /// Each midpoint of the bisection depends only on the sides the earlier ones fell on, so
    /// a midpoint's side may be read from a bracket of the crossing instead of the model: the
    /// throughput at p = e^m does not rise with m (each IEEE operation of `padhye_rate` is
    /// monotone, and so is `exp` here, which a test checks), so a midpoint at or below a point
    /// found above the target falls on the low side, one at or above a point found at or below
    /// it on the high side.
    /// Newton's method brackets the crossing to a few ulps first, the bisection evaluates the
    /// model only at the midpoints inside that bracket, and it stops once a halving leaves the
    /// interval as it was (the remaining ones would too). The value is the plain bisection's,
    /// bit for bit, with about 13 evaluations of the model instead of 62.
    pub fn padhye_crossing(rate_bps: f64, rtt: f64, rto: f64, mss: u64) -> f64 {
        let target = rate_bps / 8.0;
        if rate_bps <= 0.0 || rtt <= 0.0 {
            return 1.0;
        }
        if Self::padhye_rate(1e-6, rtt, rto, mss) <= target {
            return 1e-6;
        }
        if Self::padhye_rate(1.0, rtt, rto, mss) >= target {
            return 1.0;
        }
        let above = |m: f64| Self::padhye_rate(m.exp(), rtt, rto, mss) > target;
        let (a, b) = Self::padhye_bracket(rtt, rto, mss, target);
        let (mut lo, mut hi) = (1e-6f64.ln(), 0.0f64);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            let up = if mid <= a {
                true
            } else if mid >= b {
                false
            } else {
                above(mid)
            };
            let (l, h) = if up { (mid, hi) } else { (lo, mid) };
            if l == lo && h == hi {
                break;
            }
            (lo, hi) = (l, h);
        }
        (0.5 * (lo + hi)).exp()
    }

    /// A bracket [a, b] of `padhye_crossing`'s crossing on its log scale: the throughput at
    /// e^a above `target`, at e^b not above it (−∞ or +∞ where no such point was found).
    /// Newton steps on g(m) = ln B(e^m) − ln target, B Padhye's throughput, from Mathis's
    /// crossing (the model without timeouts), then the nearest points on either side of the
    /// estimate; the sides come from the bisection's own comparison, g only places the points.
    fn padhye_bracket(rtt: f64, rto: f64, mss: u64, target: f64) -> (f64, f64) {
        let none = (f64::NEG_INFINITY, f64::INFINITY);
        let (lo, hi) = (1e-6f64.ln(), 0.0f64);
        let log_target = target.ln();
        // g and its slope: with d = t1 + t2 the denominator of `padhye_rate` (t1 the RTT
        // term, t2 the timeout term), dg/dm = −(p·d′(p))/d.
        let newton = |m: f64| {
            let p = m.exp();
            let t1 = rtt * (2.0 * p / 3.0).sqrt();
            let q = 3.0 * (3.0 * p / 8.0).sqrt();
            let t2 = rto * q.min(1.0) * p * (1.0 + 32.0 * p * p);
            let e2 = if q < 1.0 { 1.5 } else { 1.0 } + 64.0 * p * p / (1.0 + 32.0 * p * p);
            let d = t1 + t2;
            let g = (mss as f64 / d).ln() - log_target;
            (g, -(0.5 * t1 + e2 * t2) / d)
        };
        // Mathis's crossing, 3/2·(MSS/(RTT·rate))², lies above Padhye's: timeouts only add.
        let mut x = (1.5 * (mss as f64 / (rtt * target)).powi(2))
            .ln()
            .clamp(lo, hi);
        for _ in 0..20 {
            let (g, slope) = newton(x);
            let next = (x - g / slope).clamp(lo, hi);
            if !next.is_finite() {
                return none;
            }
            let done = (next - x).abs() <= f64::EPSILON * x.abs();
            x = next;
            if done {
                break;
            }
        }
        let above = |m: f64| Self::padhye_rate(m.exp(), rtt, rto, mss) > target;
        // The sides next to the estimate: widen the step until each side is found.
        let (mut a, mut b) = none;
        let mut width = f64::EPSILON * x.abs().max(1.0);
        for _ in 0..40 {
            if a == f64::NEG_INFINITY && above((x - width).max(lo)) {
                a = (x - width).max(lo);
            }
            if b == f64::INFINITY && !above((x + width).min(hi)) {
                b = (x + width).min(hi);
            }
            if a > f64::NEG_INFINITY && b < f64::INFINITY {
                break;
            }
            width *= 4.0;
        }
        (a, b)
    }

    /// The threshold in force, on the per-link scale.
    pub fn threshold(&self) -> Option<f64> {
        match self.mode {
            Mode::Ern => None,
            Mode::Adaptive { threshold } => Some(threshold),
            Mode::AdaptiveOnline => self.online.map(|p| self.link_scale(p)),
        }
    }

    /// cwnd capped at the echoed explicit rate × smoothed RTT (never below two segments).
    pub fn cap(rate_bps: f64, srtt: Time, mss: u64) -> u64 {
        ((rate_bps / 8.0 * srtt as f64 / SEC as f64) as u64).max(2 * mss)
    }
}

impl CongestionControl for CrossLayer {
    fn on_ack_header(&mut self, ack: &AckInfo) {
        if ack.eln && self.last_eln_hole != Some(ack.ack_seq) {
            self.lost += 1.0;
            self.last_eln_hole = Some(ack.ack_seq);
        }
        if let Some(threshold) = self.threshold() {
            // Until the window holds enough segments to see a loss at the threshold's rate,
            // the estimate says nothing: stay with ERN, the low-loss mode.
            if self.sent < 1.0 / threshold {
                return;
            }
            // A band below the threshold keeps the mode from flapping on each loss while the
            // estimate sits near it.
            let per = self.per_link();
            let want = if self.using_eln {
                per > threshold * (1.0 - self.hysteresis)
            } else {
                per > threshold
            };
            if want != self.using_eln {
                self.using_eln = want;
                self.switches += 1;
            }
        }
    }

    fn honours_eln(&self) -> bool {
        !self.ern_active()
    }

    fn on_sent(&mut self, _now: Time, bytes: u64, st: &mut CcState) {
        self.mss = st.mss;
        let segs = (bytes as f64 / st.mss.max(1) as f64).max(1.0);
        // Decay once per segment.
        self.sent = self.sent * self.decay.powf(segs) + segs;
        self.lost *= self.decay.powf(segs);
    }

    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        if let (Some(r), Some(srtt)) = (ack.rtt, ack.srtt) {
            // RFC 6298's RTT variation, for the RTO the sender would compute.
            let (r, s) = (r as f64 / SEC as f64, srtt as f64 / SEC as f64);
            self.rttvar = Some(
                self.rttvar
                    .map_or(r / 2.0, |v| 0.75 * v + 0.25 * (s - r).abs()),
            );
        }
        if let (Mode::AdaptiveOnline, Some(rate), Some(srtt)) =
            (self.mode, ack.explicit_rate, ack.srtt)
        {
            let p = if self.padhye {
                let rtt = srtt as f64 / SEC as f64;
                let rto = (rtt + 4.0 * self.rttvar.unwrap_or(rtt / 2.0)).max(self.min_rto);
                Self::padhye_crossing(rate as f64, rtt, rto, st.mss)
            } else {
                Self::crossing(rate as f64, srtt, st.mss)
            };
            // Smoothed: RTT samples jump with the TDMA slot waits.
            self.online = Some(self.online.map_or(p, |o| 0.9 * o + 0.1 * p));
        }
        reno_increase(ack, st);
        if self.ern_active() {
            if let (Some(rate), Some(srtt)) = (ack.explicit_rate, ack.srtt) {
                let cap = Self::cap(rate as f64, srtt, st.mss);
                if st.cwnd > cap && !ack.in_recovery {
                    st.cwnd = cap;
                    self.capped += 1;
                }
            }
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        Reaction::cut(half_flight(ev.in_flight, st.mss))
    }

    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("xl_per_estimate", self.per()));
        out.push(("xl_per_link_estimate", self.per_link()));
        out.push(("xl_switches", self.switches as f64));
        out.push(("xl_ern_capped_acks", self.capped as f64));
        out.push(("xl_using_eln_at_end", f64::from(u8::from(self.using_eln))));
        if let Some(t) = self.threshold() {
            out.push(("xl_threshold_at_end", t));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use std::collections::BTreeMap;

    fn xl(mode: Mode) -> CrossLayer {
        let m = BTreeMap::new();
        CrossLayer::new(mode, &mut Params::new(&m)).unwrap()
    }

    #[test]
    fn the_online_crossing_point_follows_rate_and_rtt() {
        // 1 Mbit/s, 100 ms, 1000-byte segments: 1.22·8000/(0.1·1e6) = 0.0976, squared.
        let p = CrossLayer::cross_check();
        assert!((p - 0.0976f64.powi(2)).abs() < 1e-9, "{p}");
        // Ten times the rate: a hundredth of the loss rate.
        let q = CrossLayer::crossing(10e6, 100 * MS, 1000);
        assert!((q / p - 0.01).abs() < 1e-9);
        let mut c = with(Mode::AdaptiveOnline, &[("online_model", 0.0)]);
        let mut st = CcState {
            cwnd: 10_000,
            ssthresh: 20_000,
            mss: 1000,
        };
        c.on_ack(
            &AckInfo {
                explicit_rate: Some(1e6),
                srtt: Some(100 * MS),
                ..Default::default()
            },
            &mut st,
        );
        assert!((c.threshold().unwrap() - p).abs() < 1e-9);
    }

    fn with(mode: Mode, params: &[(&str, f64)]) -> CrossLayer {
        let m: BTreeMap<String, f64> = params.iter().map(|&(k, v)| (k.to_string(), v)).collect();
        CrossLayer::new(mode, &mut Params::new(&m)).unwrap()
    }

    #[test]
    fn padhye_throughput_and_its_crossing_point() {
        // p = 1%, RTT 100 ms, RTO 1 s, 1000 B: 0.1·√(0.02/3) + 1·min(1, 3·√0.00375)·0.01·1.0032.
        let d = 0.1 * (0.02f64 / 3.0).sqrt() + 3.0 * 0.00375f64.sqrt() * 0.01 * 1.0032;
        let b = CrossLayer::padhye_rate(0.01, 0.1, 1.0, 1000);
        assert!((b - 1000.0 / d).abs() < 1e-6, "{b}");
        // The crossing point gives back the rate it was solved for.
        let p = CrossLayer::padhye_crossing(1e6, 0.1, 1.0, 1000);
        let back = CrossLayer::padhye_rate(p, 0.1, 1.0, 1000) * 8.0;
        assert!((back / 1e6 - 1.0).abs() < 1e-6, "{p} {back}");
        // Timeouts make losses costlier: the crossing lies below Mathis's, far below on a
        // short path (a few ms, RTO 200 ms), where Mathis's model never sees a cost.
        assert!(p < CrossLayer::crossing(1e6, 100 * MS, 1000));
        let short = CrossLayer::padhye_crossing(10e6, 0.003, 0.2, 1460);
        let mathis = CrossLayer::crossing(10e6, 3 * MS, 1460);
        assert!(
            short > 0.005 && short < 0.05 && mathis > 0.2,
            "{short} {mathis}"
        );
    }

    /// The plain bisection `padhye_crossing` replaced: its value is the reference.
    fn padhye_crossing_bisection(rate_bps: f64, rtt: f64, rto: f64, mss: u64) -> f64 {
        let target = rate_bps / 8.0;
        if rate_bps <= 0.0 || rtt <= 0.0 {
            return 1.0;
        }
        let (mut lo, mut hi) = (1e-6f64.ln(), 0.0f64);
        if CrossLayer::padhye_rate(1e-6, rtt, rto, mss) <= target {
            return 1e-6;
        }
        if CrossLayer::padhye_rate(1.0, rtt, rto, mss) >= target {
            return 1.0;
        }
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if CrossLayer::padhye_rate(mid.exp(), rtt, rto, mss) > target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        (0.5 * (lo + hi)).exp()
    }

    #[test]
    fn the_bracketed_crossing_is_the_bisections_bit_for_bit() {
        // Rates from 10 kbit/s to 10 Gbit/s, RTTs from 0.1 ms to 2 s, RTOs from the 200 ms
        // floor up, the usual segment sizes: crossings from the 10⁻⁶ floor to 1.
        let mut rng = crate::engine::Rng::for_component(7, "padhye-crossing");
        let mut inside = 0;
        for k in 0..20_000 {
            let rate = 10f64.powf(4.0 + 6.0 * rng.uniform());
            let rtt = 10f64.powf(-4.0 + 3.3 * rng.uniform());
            // RFC 6298 puts the RTO at srtt + 4·rttvar, most often raised to the floor.
            let floor = if k % 2 == 0 { 0.2 } else { 1e-3 };
            let rto = (rtt + 4.0 * rtt * rng.uniform()).max(floor);
            let mss = [536, 1000, 1460, 9000][k % 4];
            let new = CrossLayer::padhye_crossing(rate, rtt, rto, mss);
            let old = padhye_crossing_bisection(rate, rtt, rto, mss);
            assert_eq!(
                new.to_bits(),
                old.to_bits(),
                "{rate} {rtt} {rto} {mss}: {new} {old}"
            );
            inside += usize::from(new > 1e-6 && new < 1.0);
        }
        // Most inputs need the search (not one of the early returns).
        assert!(inside > 10_000, "{inside}");
        // The grid of the MEMBRANE paths: 1-4 Mbit/s, RTTs of a few to tens of ms.
        for rate in [0.5e6, 1e6, 2e6, 4e6, 11e6] {
            for rtt_us in (500..200_000).step_by(997) {
                let rtt = f64::from(rtt_us) * 1e-6;
                for rto in [0.2, rtt + 0.01, 1.0] {
                    let new = CrossLayer::padhye_crossing(rate, rtt, rto, 1460);
                    let old = padhye_crossing_bisection(rate, rtt, rto, 1460);
                    assert_eq!(new.to_bits(), old.to_bits(), "{rate} {rtt} {rto}");
                }
            }
        }
    }

    #[test]
    fn exp_is_monotone_over_the_crossings_scale() {
        // The bracket's reading of a midpoint's side rests on exp not falling between two
        // neighbouring doubles of [ln 10⁻⁶, 0]; checked on a million of them.
        let (lo, hi) = (1e-6f64.ln(), 0.0f64);
        let n = 1_000_000u64;
        for k in 0..n {
            let x = lo + (hi - lo) * (k as f64 / n as f64);
            // The next double toward zero (x is negative).
            let up = f64::from_bits(x.to_bits() - 1);
            assert!(up > x && up.exp() >= x.exp(), "{x}");
        }
    }

    #[test]
    fn the_path_estimate_is_put_on_the_links_scale() {
        // Two hops of 1% each lose 1.99% of the path's segments: 1% a link again.
        let c = with(Mode::Adaptive { threshold: 0.01 }, &[("hops", 2.0)]);
        assert!((c.link_scale(0.0199) - 0.01).abs() < 1e-12);
        let one = with(Mode::Adaptive { threshold: 0.01 }, &[]);
        assert_eq!(one.link_scale(0.0199), 0.0199);
        let m = BTreeMap::from([("hops".to_string(), 0.5)]);
        assert!(CrossLayer::new(Mode::Ern, &mut Params::new(&m)).is_err());
        // At 1.5% a path of two hops (0.75% a link) stays with ERN; one hop switches.
        for (hops, eln) in [(2.0, false), (1.0, true)] {
            let mut c = with(Mode::Adaptive { threshold: 0.01 }, &[("hops", hops)]);
            let mut st = CcState {
                cwnd: 10_000,
                ssthresh: 20_000,
                mss: 1000,
            };
            for k in 0..4000u64 {
                c.on_sent(0, 1000, &mut st);
                let lost = k % 200 < 3;
                c.on_ack_header(&AckInfo {
                    eln: lost,
                    dup_ack: lost,
                    ack_seq: k,
                    ..Default::default()
                });
            }
            assert!((c.per() - 0.015).abs() < 0.004, "{}", c.per());
            assert_eq!(c.using_eln, eln, "hops {hops}");
        }
    }

    #[test]
    fn ern_caps_cwnd_at_rate_times_srtt() {
        // 1 Mbit/s × 80 ms = 10,000 bytes.
        assert_eq!(CrossLayer::cap(1e6, 80 * MS, 1000), 10_000);
        assert_eq!(CrossLayer::cap(1e3, 80 * MS, 1000), 2_000);
        let mut c = xl(Mode::Ern);
        let mut st = CcState {
            cwnd: 30_000,
            ssthresh: 20_000,
            mss: 1000,
        };
        c.on_ack(
            &AckInfo {
                acked_bytes: 1000,
                explicit_rate: Some(1e6),
                srtt: Some(80 * MS),
                ..Default::default()
            },
            &mut st,
        );
        assert_eq!(st.cwnd, 10_000);
        assert!(!c.honours_eln());
    }

    #[test]
    fn adaptive_switches_to_eln_above_the_threshold() {
        let mut c = xl(Mode::Adaptive { threshold: 0.01 });
        let mut st = CcState {
            cwnd: 10_000,
            ssthresh: 20_000,
            mss: 1000,
        };
        let eln = |on, hole: u64| AckInfo {
            eln: on,
            dup_ack: on,
            ack_seq: hole,
            ..Default::default()
        };
        // 2000 segments, 5 channel losses (0.25%): stays with ERN.
        for k in 0..2000 {
            c.on_sent(0, 1000, &mut st);
            let lost = k % 400 == 0;
            c.on_ack_header(&eln(lost, k));
            if lost {
                // Further marked duplicates for the same hole count once.
                c.on_ack_header(&eln(true, k));
                c.on_ack_header(&eln(false, k + 1));
            }
        }
        assert!(c.per() < 0.01 && c.per() > 0.0, "{}", c.per());
        assert!(!c.using_eln && !c.honours_eln());
        assert_eq!(c.switches, 0);
        // Then 3% for a while: switches to ELN.
        for k in 0..1000 {
            c.on_sent(0, 1000, &mut st);
            let lost = k % 33 == 0;
            c.on_ack_header(&eln(lost, 10_000 + k));
            if lost {
                c.on_ack_header(&eln(false, 10_000 + k + 1));
            }
        }
        assert!(c.per() > 0.02, "{}", c.per());
        assert!(c.using_eln && c.honours_eln());
        assert_eq!(c.switches, 1);
    }
}
