//! Wireless MECN, the source-centric congestion filter of seed paper 000 §3.2.
//!
//! The sender keeps the weights of the last ten congestion feedbacks (echoed '01' → 0,
//! '10' → 1, '11' → 2), the *filtering context*. On every loss (duplicate ACKs or timeout)
//! their sum, the summed weighted feedback (SWF), decides:
//!
//! | SWF    | verdict                | window        | entry added |
//! |--------|------------------------|---------------|-------------|
//! | ≤ 10   | wireless               | unchanged     | 0           |
//! | 11–13  | mild congestion        | × 0.8         | none        |
//! | 14–16  | moderate congestion    | × 0.6         | 1           |
//! | 17–20  | severe congestion      | × 0.5         | 2           |
//!
//! The window is reduced at most once per RTT (further losses in that RTT are only
//! repaired). Marks themselves reduce the window as MECN-TCP does ('10' × (1−β1), '11' ×
//! (1−β2)), sharing the once-per-RTT limit; `react_to_marks = 0` turns that off. How each
//! sentence of the paper was read is in docs/schemes/wmecn.md.

use super::mecn::{betas, cut_base, cut_window, OncePerRtt, MILD, SEVERE};
use super::newreno::reno_increase;
use super::{
    AckInfo, CcState, CongestionControl, CongestionEvent, CongestionKind, LossClass, Params,
    Reaction,
};
use crate::engine::Time;

/// Number of feedbacks in the filtering context.
pub const CONTEXT: usize = 10;

/// The congestion level an SWF value stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// SWF ≤ 10: the loss is taken as wireless.
    None,
    Mild,
    Moderate,
    Severe,
}

impl Level {
    pub fn of(swf: u32) -> Level {
        match swf {
            0..=10 => Level::None,
            11..=13 => Level::Mild,
            14..=16 => Level::Moderate,
            _ => Level::Severe,
        }
    }

    /// The factor cwnd is multiplied by.
    pub fn factor(self) -> f64 {
        match self {
            Level::None => 1.0,
            Level::Mild => 0.8,
            Level::Moderate => 0.6,
            Level::Severe => 0.5,
        }
    }

    /// The entry a decision at this level adds to the context, if any.
    pub fn entry(self) -> Option<u8> {
        match self {
            Level::None => Some(0),
            Level::Mild => None,
            Level::Moderate => Some(1),
            Level::Severe => Some(2),
        }
    }
}

/// The last [`CONTEXT`] feedback weights, oldest first overwritten.
#[derive(Clone, Debug, Default)]
pub struct FilterContext {
    weights: [u8; CONTEXT],
    next: usize,
    len: usize,
}

impl FilterContext {
    pub fn push(&mut self, weight: u8) {
        self.weights[self.next] = weight;
        self.next = (self.next + 1) % CONTEXT;
        self.len = (self.len + 1).min(CONTEXT);
    }

    /// Summed weighted feedback; entries not yet filled count as 0.
    pub fn swf(&self) -> u32 {
        self.weights[..self.len].iter().map(|&w| w as u32).sum()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Weight of an echoed codepoint, or None for an ACK that carries no feedback ('00': the
/// segment was not ECN-capable, e.g. a retransmission).
pub fn weight(codepoint: u8) -> Option<u8> {
    match codepoint & 0b11 {
        0b01 => Some(0),
        MILD => Some(1),
        SEVERE => Some(2),
        _ => None,
    }
}

#[derive(Clone, Debug)]
pub struct Wmecn {
    pub beta1: f64,
    pub beta2: f64,
    pub react_to_marks: bool,
    pub context: FilterContext,
    gate: OncePerRtt,
    srtt: Option<Time>,
    /// Verdicts by level: [wireless, mild, moderate, severe].
    pub verdicts: [u64; 4],
    /// Losses judged congestion but left without a cut (a cut earlier in the same RTT).
    pub uncut_congestion: u64,
    pub mark_reductions: u64,
}

impl Wmecn {
    pub fn new(p: &mut Params) -> Result<Self, (String, String)> {
        let (beta1, beta2) = betas(p)?;
        let r = p.get("react_to_marks", 1.0)?;
        if r != 0.0 && r != 1.0 {
            return Err(("react_to_marks".into(), format!("must be 0 or 1, got {r}")));
        }
        Ok(Wmecn {
            beta1,
            beta2,
            react_to_marks: r == 1.0,
            context: FilterContext::default(),
            gate: OncePerRtt::default(),
            srtt: None,
            verdicts: [0; 4],
            uncut_congestion: 0,
            mark_reductions: 0,
        })
    }
}

impl CongestionControl for Wmecn {
    fn on_feedback(&mut self, _now: Time, codepoint: u8) {
        if let Some(w) = weight(codepoint) {
            self.context.push(w);
        }
    }

    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        self.srtt = ack.srtt.or(self.srtt);
        reno_increase(ack, st);
        if !self.react_to_marks || ack.in_recovery || !self.gate.allowed(ack.now) {
            return;
        }
        let beta = match ack.ecn_echo {
            MILD => self.beta1,
            SEVERE => self.beta2,
            _ => return,
        };
        cut_window(st, ack.in_flight, 1.0 - beta);
        self.gate.note(ack.now, self.srtt);
        self.mark_reductions += 1;
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        if ev.kind == CongestionKind::Ecn {
            // Classic ECN-Echo is not used by this scheme.
            return Reaction::keep();
        }
        let level = Level::of(self.context.swf());
        if let Some(e) = level.entry() {
            self.context.push(e);
        }
        let w = cut_base(st.cwnd, ev.in_flight, st.mss);
        let timeout = ev.kind == CongestionKind::Timeout;
        if level == Level::None {
            self.verdicts[0] += 1;
            // A timeout still restarts from one segment (the ACK clock is gone), but slow
            // start leads straight back to the window in use.
            return if timeout {
                Reaction::cut(w).judged(LossClass::Wireless)
            } else {
                Reaction::keep().judged(LossClass::Wireless)
            };
        }
        self.verdicts[level as usize] += 1;
        if !self.gate.allowed(ev.now) {
            self.uncut_congestion += 1;
            return if timeout {
                Reaction::cut(w).judged(LossClass::Congestion)
            } else {
                Reaction::keep().judged(LossClass::Congestion)
            };
        }
        self.gate.note(ev.now, self.srtt);
        let ssthresh = ((w as f64 * level.factor()) as u64).max(2 * st.mss);
        Reaction::cut(ssthresh).judged(LossClass::Congestion)
    }

    fn multilevel_ecn(&self) -> bool {
        true
    }

    fn mark_reductions(&self) -> u64 {
        self.mark_reductions
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use std::collections::BTreeMap;

    fn wmecn() -> Wmecn {
        Wmecn::new(&mut Params::new(&BTreeMap::new())).unwrap()
    }

    fn st() -> CcState {
        CcState {
            cwnd: 20_000,
            ssthresh: 1 << 30,
            mss: 1000,
        }
    }

    fn loss(c: &mut Wmecn, now: Time, kind: CongestionKind) -> Reaction {
        let ev = CongestionEvent {
            now,
            kind,
            in_flight: 20_000,
            flight_size: 20_000,
            min_rtt: None,
            true_cause: None,
        };
        c.on_congestion(&ev, &st())
    }

    /// A context with SWF = `swf` (ten entries).
    fn with_swf(swf: u32) -> Wmecn {
        let mut c = wmecn();
        let twos = swf.saturating_sub(10).min(10);
        let ones = swf - 2 * twos;
        assert!(twos + ones <= 10);
        for i in 0..10 {
            let w = if i < twos {
                SEVERE
            } else if i < twos + ones {
                MILD
            } else {
                0b01
            };
            c.on_feedback(0, w);
        }
        assert_eq!(c.context.swf(), swf);
        c
    }

    #[test]
    fn weights_of_codepoints() {
        assert_eq!(weight(0b01), Some(0));
        assert_eq!(weight(0b10), Some(1));
        assert_eq!(weight(0b11), Some(2));
        assert_eq!(weight(0b00), None);
    }

    #[test]
    fn context_keeps_the_last_ten() {
        let mut c = FilterContext::default();
        assert_eq!(c.swf(), 0);
        for _ in 0..10 {
            c.push(2);
        }
        assert_eq!(c.swf(), 20, "the maximum");
        for _ in 0..4 {
            c.push(0);
        }
        assert_eq!(c.swf(), 12);
        assert_eq!(c.len(), 10);
    }

    #[test]
    fn decision_table_boundaries() {
        for (swf, level) in [
            (0, Level::None),
            (10, Level::None),
            (11, Level::Mild),
            (13, Level::Mild),
            (14, Level::Moderate),
            (16, Level::Moderate),
            (17, Level::Severe),
            (20, Level::Severe),
        ] {
            assert_eq!(Level::of(swf), level, "SWF {swf}");
        }
    }

    #[test]
    fn reactions_at_the_boundaries() {
        let cases = [
            (10, None),
            (11, Some(16_000)),
            (13, Some(16_000)),
            (14, Some(12_000)),
            (16, Some(12_000)),
            (17, Some(10_000)),
            (20, Some(10_000)),
        ];
        for (swf, want) in cases {
            let mut c = with_swf(swf);
            let r = loss(&mut c, 0, CongestionKind::DupAcks);
            match want {
                None => {
                    assert!(r.keep_window, "SWF {swf}");
                    assert_eq!(r.verdict, Some(LossClass::Wireless));
                }
                Some(ss) => {
                    assert!(!r.keep_window, "SWF {swf}");
                    assert_eq!(r.ssthresh, ss, "SWF {swf}");
                    assert_eq!(r.verdict, Some(LossClass::Congestion));
                }
            }
        }
    }

    #[test]
    fn decisions_feed_the_context() {
        // Wireless adds a 0: SWF 10 -> the oldest entry leaves, a 0 arrives.
        let mut c = with_swf(10);
        loss(&mut c, 0, CongestionKind::DupAcks);
        assert_eq!(c.context.swf(), 9);
        // Mild adds nothing.
        let mut c = with_swf(12);
        loss(&mut c, 0, CongestionKind::DupAcks);
        assert_eq!(c.context.swf(), 12);
        // Moderate adds a 1 in place of the oldest (a 2): 15 - 2 + 1.
        let mut c = with_swf(15);
        loss(&mut c, 0, CongestionKind::DupAcks);
        assert_eq!(c.context.swf(), 14);
        // Severe adds a 2: 18 - 2 + 2.
        let mut c = with_swf(18);
        loss(&mut c, 0, CongestionKind::DupAcks);
        assert_eq!(c.context.swf(), 18);
    }

    #[test]
    fn at_most_one_cut_per_rtt() {
        let mut c = with_swf(20);
        c.on_ack(
            &AckInfo {
                now: 0,
                srtt: Some(100 * MS),
                ..Default::default()
            },
            &mut st(),
        );
        let first = loss(&mut c, 0, CongestionKind::DupAcks);
        assert!(!first.keep_window);
        let second = loss(&mut c, 50 * MS, CongestionKind::DupAcks);
        assert!(second.keep_window, "same RTT: repaired, not cut");
        assert_eq!(second.verdict, Some(LossClass::Congestion));
        assert_eq!(c.uncut_congestion, 1);
        let third = loss(&mut c, 100 * MS, CongestionKind::DupAcks);
        assert!(!third.keep_window, "next RTT: cut again");
    }

    #[test]
    fn marks_share_the_once_per_rtt_limit() {
        let mut c = wmecn();
        let mut s = st();
        s.ssthresh = 10_000;
        let a = |now, echo| AckInfo {
            now,
            acked_bytes: 1000,
            ecn_echo: echo,
            srtt: Some(100 * MS),
            in_flight: 20_000,
            ..Default::default()
        };
        c.on_feedback(0, MILD);
        c.on_ack(&a(0, MILD), &mut s);
        assert_eq!(s.cwnd, 16_000);
        // A loss judged congestion in the same RTT is not cut again.
        for _ in 0..10 {
            c.on_feedback(0, SEVERE);
        }
        let r = loss(&mut c, 10 * MS, CongestionKind::DupAcks);
        assert!(r.keep_window && r.verdict == Some(LossClass::Congestion));
        let mut off = Wmecn::new(&mut Params::new(
            &[("react_to_marks".to_string(), 0.0)].into(),
        ))
        .unwrap();
        let mut s = st();
        off.on_ack(&a(0, SEVERE), &mut s);
        assert!(s.cwnd > 20_000, "marks only feed the filter");
    }

    #[test]
    fn timeouts_restart_but_keep_the_target_when_wireless() {
        let mut c = with_swf(4);
        let r = loss(&mut c, 0, CongestionKind::Timeout);
        assert_eq!(r.verdict, Some(LossClass::Wireless));
        assert_eq!((r.ssthresh, r.cwnd, r.keep_window), (20_000, None, false));
        let mut c = with_swf(14);
        let r = loss(&mut c, 0, CongestionKind::Timeout);
        assert_eq!(r.verdict, Some(LossClass::Congestion));
        assert_eq!(r.ssthresh, 12_000);
    }
}
