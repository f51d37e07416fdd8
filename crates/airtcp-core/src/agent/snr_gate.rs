//! SNR-driven activation/deactivation (seed paper 004): a thin layer at a mobile host, between
//! IP and TCP, samples the channel's SNR every `interval`. When the SNR falls below the
//! threshold it stops the local TCP senders by presenting a zero receive window on the ACKs it
//! passes up; when the SNR rises above the threshold it resumes them with a window update
//! carrying the real window. TCP itself is unchanged, and packets already below TCP (queued
//! at the interface) still go out.

use crate::engine::Time;
use crate::ids::{FlowId, NodeId};
use crate::packet::TcpHeader;

pub struct SnrGate {
    pub node: NodeId,
    /// Index of the SNR series of the node's wireless channel.
    pub series: usize,
    pub threshold_db: f64,
    pub interval: Time,
    pub open: bool,
    prev_snr: Option<f64>,
    closed_since: Option<Time>,
    pub closed_total: Time,
    pub closures: u64,
    pub new_data_while_closed: u64,
    /// Last real ACK passed up to each local sender, to rebuild the window update.
    last_ack: Vec<(FlowId, TcpHeader)>,
}

/// What a sample decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GateChange {
    None,
    Closed,
    Opened,
}

impl SnrGate {
    pub fn new(node: NodeId, series: usize, threshold_db: f64, interval: Time) -> Self {
        SnrGate {
            node,
            series,
            threshold_db,
            interval,
            open: true,
            prev_snr: None,
            closed_since: None,
            closed_total: 0,
            closures: 0,
            new_data_while_closed: 0,
            last_ack: Vec::new(),
        }
    }

    /// Feed the SNR sampled at `now`.
    pub fn sample(&mut self, now: Time, snr_db: f64) -> GateChange {
        let falling = self.prev_snr.is_none_or(|p| snr_db < p);
        self.prev_snr = Some(snr_db);
        if self.open && snr_db < self.threshold_db && falling {
            self.open = false;
            self.closures += 1;
            self.closed_since = Some(now);
            GateChange::Closed
        } else if !self.open && snr_db > self.threshold_db {
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
    pub fn filter_ack(&mut self, flow: FlowId, h: &mut TcpHeader) {
        match self.last_ack.iter_mut().find(|(f, _)| *f == flow) {
            Some(slot) => slot.1 = *h,
            None => self.last_ack.push((flow, *h)),
        }
        if !self.open {
            h.wnd = 0;
        }
    }

    /// Window updates to hand to the local senders when the gate opens.
    pub fn window_updates(&self) -> impl Iterator<Item = (FlowId, TcpHeader)> + '_ {
        self.last_ack.iter().map(|(f, h)| {
            let mut u = *h;
            // A pure window update: no SACK news, no ECN signal.
            u.n_sack = 0;
            u.flags &= !(crate::packet::flags::ECE | crate::packet::flags::ELN);
            (*f, u)
        })
    }

    /// Close time integrals at the end of the run.
    pub fn finish(&mut self, end: Time) {
        if let Some(s) = self.closed_since.take() {
            self.closed_total += end - s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;

    #[test]
    fn closes_only_while_falling_and_opens_above_threshold() {
        let mut g = SnrGate::new(NodeId(0), 0, 5.0, 100 * MS);
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
        let mut g2 = SnrGate::new(NodeId(0), 0, 5.0, 100 * MS);
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

    #[test]
    fn hides_window_while_closed_and_restores_it() {
        let mut g = SnrGate::new(NodeId(0), 0, 5.0, 100 * MS);
        let mut h = TcpHeader {
            ack: 5000,
            wnd: 65_536,
            ..Default::default()
        };
        g.filter_ack(FlowId(3), &mut h);
        assert_eq!(h.wnd, 65_536);
        g.sample(0, 1.0);
        let mut h2 = TcpHeader {
            ack: 6000,
            wnd: 65_536,
            ..Default::default()
        };
        g.filter_ack(FlowId(3), &mut h2);
        assert_eq!(h2.wnd, 0);
        g.sample(MS, 9.0);
        let ups: Vec<_> = g.window_updates().collect();
        assert_eq!(ups.len(), 1);
        assert_eq!(
            (ups[0].0, ups[0].1.ack, ups[0].1.wnd),
            (FlowId(3), 6000, 65_536)
        );
    }
}
