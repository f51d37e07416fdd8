//! SNR-driven activation/deactivation (seed paper 004): a thin layer at a mobile host, between
//! IP and TCP, reads the SNR its card has measured every `interval`. When the SNR falls below
//! the threshold it stops the local TCP senders by presenting a zero receive window on the
//! ACKs it passes up; when the SNR rises above the threshold it resumes them with a window
//! update carrying the real window. TCP itself is unchanged, and packets already below TCP
//! (queued at the interface) still go out.
//!
//! The gate acts only on measurements: it reads the channel through
//! [`SnrSeries::measured`](crate::link::SnrSeries::measured), which returns the sample the
//! channel held `delay` ago (by default the interval that just ended), optionally smoothed by
//! an EWMA. It never sees the SNR a coming packet will meet, except as far as the channel
//! itself holds a value for longer than the reading's age.
//!
//! The paper closes "when the SNR is decreasing and goes below" the threshold. As written the
//! "decreasing" condition never matters: while the gate is open every sample since it opened
//! was at or above the threshold, so the first sample below it is lower than the one before.
//! A real hysteresis is `hysteresis_db`: the gate opens only above threshold + hysteresis.

use super::{Hook, HookAction, HookCtx, LocalEnd, Metric, Points, Verdict};
use crate::engine::Time;
use crate::ids::{FlowId, NodeId};
use crate::link::snr::Measured;
use crate::packet::Wire;

pub struct SnrGate {
    pub node: NodeId,
    /// Index of the SNR series of the node's wireless channel.
    pub series: usize,
    pub threshold_db: f64,
    pub interval: Time,
    /// How far behind the channel the measurements are (from a sample's start).
    pub delay: Time,
    /// Weight of the newest sample in the EWMA of measured SNR (1: no smoothing).
    pub ewma_weight: f64,
    /// The gate opens only above threshold_db + hysteresis_db (0: one threshold).
    pub hysteresis_db: f64,
    pub open: bool,
    prev_snr: Option<f64>,
    /// EWMA of the measured SNR (dB) and the start of the last sample folded into it.
    smoothed: Option<f64>,
    last_sample: Option<Time>,
    /// Decisions taken, and the youngest sample any of them used (now − its start).
    pub decisions: u64,
    pub min_sample_age: Option<Time>,
    closed_since: Option<Time>,
    pub closed_total: Time,
    pub closures: u64,
    pub new_data_while_closed: u64,
    /// Last real ACK passed up to each local sender, to rebuild the window update.
    last_ack: Vec<(FlowId, Wire)>,
    /// Highest sequence number sent so far per local sender: a segment below it is a
    /// retransmission, one at it is new data.
    sent_end: Vec<(FlowId, u64)>,
    /// When the next SNR sample is due.
    next_sample: Time,
}

/// What a sample decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GateChange {
    None,
    Closed,
    Opened,
}

impl SnrGate {
    pub fn new(
        node: NodeId,
        series: usize,
        threshold_db: f64,
        interval: Time,
        delay: Time,
        ewma_weight: f64,
    ) -> Self {
        SnrGate {
            node,
            series,
            threshold_db,
            interval,
            delay,
            ewma_weight,
            hysteresis_db: 0.0,
            open: true,
            prev_snr: None,
            smoothed: None,
            last_sample: None,
            decisions: 0,
            min_sample_age: None,
            closed_since: None,
            closed_total: 0,
            closures: 0,
            new_data_while_closed: 0,
            last_ack: Vec::new(),
            sent_end: Vec::new(),
            next_sample: 0,
        }
    }

    /// The gate with two thresholds: it reopens only above threshold + `hysteresis_db`.
    pub fn with_hysteresis(mut self, hysteresis_db: f64) -> Self {
        self.hysteresis_db = hysteresis_db;
        self
    }

    /// Fold a newly measured sample into the EWMA: s ← w·x + (1 − w)·s (the first sample
    /// starts it). Returns the smoothed SNR (dB).
    pub fn smooth(&mut self, snr_db: f64) -> f64 {
        let w = self.ewma_weight;
        let s = match self.smoothed {
            None => snr_db,
            Some(prev) => w * snr_db + (1.0 - w) * prev,
        };
        self.smoothed = Some(s);
        s
    }

    /// Take what has been measured by `now`: a sample not seen before is smoothed and
    /// decided on; otherwise nothing changes (nothing new is known).
    pub fn measure(&mut self, now: Time, m: Option<Measured>) -> GateChange {
        let Some(m) = m else {
            return GateChange::None;
        };
        if self.last_sample.is_some_and(|s| m.start <= s) {
            return GateChange::None;
        }
        self.last_sample = Some(m.start);
        self.decisions += 1;
        let age = now - m.start;
        self.min_sample_age = Some(self.min_sample_age.map_or(age, |a| a.min(age)));
        let snr = self.smooth(m.snr_db);
        self.sample(now, snr)
    }

    /// Decide on the (smoothed) SNR measured at `now`.
    pub fn sample(&mut self, now: Time, snr_db: f64) -> GateChange {
        let falling = self.prev_snr.is_none_or(|p| snr_db < p);
        self.prev_snr = Some(snr_db);
        if self.open && snr_db < self.threshold_db && falling {
            self.open = false;
            self.closures += 1;
            self.closed_since = Some(now);
            GateChange::Closed
        } else if !self.open && snr_db > self.threshold_db + self.hysteresis_db {
            self.open = true;
            if let Some(s) = self.closed_since.take() {
                self.closed_total += now - s;
            }
            GateChange::Opened
        } else {
            GateChange::None
        }
    }

    /// An ACK for local sender `flow` passes up: remember it, and hide the window while closed.
    pub fn filter_ack(&mut self, pkt: &mut Wire) {
        match self.last_ack.iter_mut().find(|(f, _)| *f == pkt.flow) {
            Some(slot) => slot.1 = *pkt,
            None => self.last_ack.push((pkt.flow, *pkt)),
        }
        if !self.open {
            pkt.tcp.wnd = 0;
        }
    }

    /// A local sender sends `pkt`: count new data produced while closed.
    pub fn on_send(&mut self, pkt: &Wire) {
        if pkt.tcp.len == 0 {
            return;
        }
        let end = pkt.tcp.seq + pkt.tcp.len as u64;
        let slot = match self.sent_end.iter_mut().find(|(f, _)| *f == pkt.flow) {
            Some(s) => s,
            None => {
                self.sent_end.push((pkt.flow, 0));
                self.sent_end.last_mut().expect("just pushed")
            }
        };
        if pkt.tcp.seq >= slot.1 {
            if !self.open {
                self.new_data_while_closed += 1;
            }
            slot.1 = end;
        }
    }

    /// Window updates to hand to the local senders when the gate opens.
    pub fn window_updates(&self) -> impl Iterator<Item = Wire> + '_ {
        self.last_ack.iter().map(|(_, p)| {
            let mut u = *p;
            // A pure window update: no SACK news, no ECN signal.
            u.tcp.n_sack = 0;
            u.tcp.flags &= !(crate::packet::flags::ECE | crate::packet::flags::ELN);
            u
        })
    }
}

impl Hook for SnrGate {
    fn kind(&self) -> &'static str {
        "snr_gate"
    }

    fn points(&self) -> Points {
        Points {
            local_in: true,
            local_out: true,
            ..Default::default()
        }
    }

    fn local_in(&mut self, _ctx: &mut HookCtx, pkt: &mut Wire, end: LocalEnd) -> Verdict {
        if end == LocalEnd::Sender {
            self.filter_ack(pkt);
        }
        Verdict::Accept
    }

    fn local_out(&mut self, _ctx: &mut HookCtx, pkt: &mut Wire, end: LocalEnd) -> Verdict {
        if end == LocalEnd::Sender {
            self.on_send(pkt);
        }
        Verdict::Accept
    }

    fn poll_timeout(&self) -> Option<Time> {
        Some(self.next_sample)
    }

    fn handle_timeout(&mut self, ctx: &mut HookCtx) {
        if ctx.now < self.next_sample {
            return;
        }
        // The only read of the channel: what has been measured by now.
        let m = ctx.snr_measured(self.series, self.delay);
        if self.measure(ctx.now, m) == GateChange::Opened {
            for u in self.window_updates() {
                ctx.actions.push(HookAction::DeliverLocal(u));
            }
        }
        self.next_sample = ctx.now + self.interval;
    }

    fn finish(&mut self, end: Time) {
        if let Some(s) = self.closed_since.take() {
            self.closed_total += end - s;
        }
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn metrics(&self, out: &mut Vec<(&'static str, Metric)>) {
        // Times the gate closed, total time closed (s), and new data segments the node's
        // senders produced while closed (must be 0).
        out.push(("closures", Metric::Count(self.closures)));
        out.push((
            "closed_s",
            Metric::Real(crate::engine::secs(self.closed_total)),
        ));
        out.push((
            "new_data_while_closed",
            Metric::Count(self.new_data_while_closed),
        ));
        // Decisions taken, and the age (now − start) of the youngest sample any used: at least
        // the measurement delay and the channel's sample interval (0 when no decision).
        out.push(("decisions", Metric::Count(self.decisions)));
        out.push((
            "min_sample_age_s",
            Metric::Real(crate::engine::secs(self.min_sample_age.unwrap_or(0))),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use crate::link::SnrSeries;
    use crate::packet::TcpHeader;

    #[test]
    fn closes_only_while_falling_and_opens_above_threshold() {
        let mut g = SnrGate::new(NodeId(0), 0, 5.0, 100 * MS, 100 * MS, 1.0);
        assert_eq!(g.sample(0, 10.0), GateChange::None);
        assert_eq!(g.sample(100 * MS, 6.0), GateChange::None);
        assert_eq!(
            g.sample(200 * MS, 4.0),
            GateChange::Closed,
            "below and falling"
        );
        assert_eq!(g.sample(300 * MS, 3.0), GateChange::None);
        assert_eq!(
            g.sample(400 * MS, 4.5),
            GateChange::None,
            "rising but still below"
        );
        assert_eq!(g.sample(500 * MS, 5.5), GateChange::Opened);
        assert_eq!(g.closed_total, 300 * MS);
        // Below the threshold but rising: stays open.
        assert_eq!(g.sample(600 * MS, 2.0), GateChange::Closed);
        assert_eq!(g.sample(700 * MS, 6.0), GateChange::Opened);
        let mut g2 = SnrGate::new(NodeId(0), 0, 5.0, 100 * MS, 100 * MS, 1.0);
        g2.sample(0, 1.0);
        g2.open = true;
        g2.closures = 0;
        assert_eq!(
            g2.sample(100 * MS, 3.0),
            GateChange::None,
            "rising below the threshold"
        );
        assert_eq!(g.closures, 2);
    }

    /// The decisions a gate takes on `samples`, with or without the paper's "decreasing" rule.
    fn decisions(samples: &[f64], falling_rule: bool, hysteresis: f64) -> Vec<GateChange> {
        let mut g = SnrGate::new(NodeId(0), 0, 5.0, 100 * MS, 100 * MS, 1.0);
        g.hysteresis_db = hysteresis;
        samples
            .iter()
            .enumerate()
            .map(|(k, &x)| {
                if !falling_rule {
                    // Without the rule: every sample counts as falling.
                    g.prev_snr = Some(f64::INFINITY);
                }
                g.sample(k as u64 * 100 * MS, x)
            })
            .collect()
    }

    #[test]
    fn the_decreasing_condition_never_changes_a_decision() {
        // Random walks around the threshold, with and without hysteresis, values on a 0.5 dB
        // grid so that ties with the threshold and with the previous sample occur.
        let mut rng = crate::engine::Rng::new(41);
        for run in 0..400 {
            let mut x = 5.0;
            let samples: Vec<f64> = (0..200)
                .map(|_| {
                    x += ((rng.uniform() * 9.0).floor() - 4.0) * 0.5;
                    x = x.clamp(-5.0, 15.0);
                    x
                })
                .collect();
            for h in [0.0, 2.0] {
                assert_eq!(
                    decisions(&samples, true, h),
                    decisions(&samples, false, h),
                    "run {run}, hysteresis {h}"
                );
            }
        }
    }

    #[test]
    fn hysteresis_opens_only_above_the_upper_threshold() {
        let mut g = SnrGate::new(NodeId(0), 0, 5.0, 100 * MS, 100 * MS, 1.0);
        g.hysteresis_db = 2.0;
        assert_eq!(g.sample(0, 8.0), GateChange::None);
        assert_eq!(g.sample(100 * MS, 4.9), GateChange::Closed);
        assert_eq!(
            g.sample(200 * MS, 6.0),
            GateChange::None,
            "above 5, below 7"
        );
        assert_eq!(
            g.sample(300 * MS, 7.0),
            GateChange::None,
            "7 is not above 7"
        );
        assert_eq!(g.sample(400 * MS, 7.1), GateChange::Opened);
        assert_eq!(
            g.sample(500 * MS, 5.0),
            GateChange::None,
            "5 is not below 5"
        );
        assert_eq!(g.sample(600 * MS, 4.0), GateChange::Closed);
        assert_eq!(g.closed_total, 300 * MS);
        // Without hysteresis the same series reopens at 6 dB.
        let plain = decisions(&[8.0, 4.9, 6.0], true, 0.0);
        assert_eq!(plain[2], GateChange::Opened);
    }

    fn ack(flow: u32, ack: u64) -> Wire {
        Wire {
            flow: FlowId(flow),
            src: NodeId(1),
            dst: NodeId(0),
            size: 40,
            proto: crate::packet::Proto::Tcp,
            ip: Default::default(),
            tcp: TcpHeader {
                ack,
                wnd: 65_536,
                ..Default::default()
            },
            udp_seq: 0,
        }
    }

    #[test]
    fn hides_window_while_closed_and_restores_it() {
        let mut g = SnrGate::new(NodeId(0), 0, 5.0, 100 * MS, 100 * MS, 1.0);
        let mut h = ack(3, 5000);
        g.filter_ack(&mut h);
        assert_eq!(h.tcp.wnd, 65_536);
        g.sample(0, 1.0);
        let mut h2 = ack(3, 6000);
        g.filter_ack(&mut h2);
        assert_eq!(h2.tcp.wnd, 0);
        g.sample(MS, 9.0);
        let ups: Vec<_> = g.window_updates().collect();
        assert_eq!(ups.len(), 1);
        assert_eq!(
            (ups[0].flow, ups[0].tcp.ack, ups[0].tcp.wnd),
            (FlowId(3), 6000, 65_536)
        );
    }

    #[test]
    fn counts_new_data_sent_while_closed_but_not_retransmissions() {
        let mut g = SnrGate::new(NodeId(0), 0, 5.0, 100 * MS, 100 * MS, 1.0);
        let mut seg = ack(1, 0);
        seg.tcp.len = 1000;
        for s in [0, 1000] {
            seg.tcp.seq = s;
            g.on_send(&seg);
        }
        g.sample(0, 1.0);
        // A resend below the highest sequence sent is not new data.
        seg.tcp.seq = 0;
        g.on_send(&seg);
        assert_eq!(g.new_data_while_closed, 0);
        seg.tcp.seq = 2000;
        g.on_send(&seg);
        assert_eq!(g.new_data_while_closed, 1);
    }

    #[test]
    fn ewma_weights_the_newest_sample() {
        let mut g = SnrGate::new(NodeId(0), 0, 5.0, 100 * MS, 100 * MS, 0.25);
        assert_eq!(g.smooth(8.0), 8.0, "the first sample starts the average");
        assert_eq!(g.smooth(4.0), 0.25 * 4.0 + 0.75 * 8.0);
        assert_eq!(g.smooth(0.0), 0.75 * 7.0);
        let mut plain = SnrGate::new(NodeId(0), 0, 5.0, 100 * MS, 100 * MS, 1.0);
        plain.smooth(8.0);
        assert_eq!(plain.smooth(3.5), 3.5, "weight 1: no smoothing");
    }

    #[test]
    fn decides_once_per_measured_sample_on_the_smoothed_value() {
        let series = SnrSeries {
            interval: 100 * MS,
            samples_db: vec![10.0, 2.0, 2.0, 10.0, 10.0],
        };
        let mut g = SnrGate::new(NodeId(0), 0, 5.0, 50 * MS, 100 * MS, 0.5);
        let mut log = Vec::new();
        for k in 0..10 {
            let now = k * 50 * MS;
            let c = g.measure(now, series.measured(now, g.delay));
            log.push((now, c, g.smoothed));
        }
        // Nothing is known before 100 ms; then one decision per new sample, none in between.
        assert_eq!(log[0].2, None);
        assert_eq!(log[1].2, None);
        assert_eq!(g.decisions, 4);
        // EWMA: 10, 6, 4 (closes: below 5 and falling), 7 (opens).
        assert_eq!(log[2].2, Some(10.0));
        assert_eq!((log[4].1, log[4].2), (GateChange::None, Some(6.0)));
        assert_eq!((log[6].1, log[6].2), (GateChange::Closed, Some(4.0)));
        assert_eq!(log[7].1, GateChange::None, "same sample, no new decision");
        assert_eq!((log[8].1, log[8].2), (GateChange::Opened, Some(7.0)));
        assert_eq!(g.min_sample_age, Some(100 * MS));
    }

    #[test]
    fn the_gate_never_reads_the_present_and_reads_a_held_sample_at_its_age() {
        // A fade in [1.0 s, 1.1 s). A gate reading the sample the channel held `delay` ago
        // closes at 1.0 s + delay (polling every 10 ms), never at 1.0 s: a reading is always
        // of the past. A delay shorter than the hold reads into the sample still running.
        let mut v = vec![20.0; 30];
        v[10] = 0.0;
        let series = SnrSeries {
            interval: 100 * MS,
            samples_db: v,
        };
        for delay in [10 * MS, 50 * MS, 100 * MS, 300 * MS] {
            let mut g = SnrGate::new(NodeId(0), 0, 5.0, 10 * MS, delay, 1.0);
            let mut closed_at = None;
            for k in 0..300 {
                let now = k * 10 * MS;
                if g.measure(now, series.measured(now, g.delay)) == GateChange::Closed {
                    closed_at.get_or_insert(now);
                }
            }
            assert_eq!(closed_at, Some(1000 * MS + delay), "delay {delay}");
            assert_eq!(g.min_sample_age.unwrap(), delay);
            // One decision per sample, however often the gate polls.
            assert_eq!(g.decisions, (3000 * MS - delay).div_ceil(100 * MS));
        }
    }
}
