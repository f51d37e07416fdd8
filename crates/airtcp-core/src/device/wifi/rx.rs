//! Reception: what a station makes of a frame it sensed, from the signals that overlapped it.

use super::station::{Frame, Kind, Sig};
use super::WifiNet;
use crate::device::DevCtx;
use crate::engine::Time;

/// Outcome of a frame at one receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Rx {
    Ok,
    /// It was transmitting during part of the frame: it detected nothing (no EIFS, no NAV).
    Deaf,
    /// Sensed but below the receive threshold.
    Weak,
    Collision,
    Channel,
}

impl WifiNet {
    /// Did station `r` lock onto signal `i` (was it idle when the signal began)?
    pub(super) fn locked(sigs: &[Sig], i: usize) -> bool {
        // A station locks onto the first signal it senses and stays with it to its end; ties
        // in start time go to the signal that arrived first in processing order.
        let before = |j: usize, k: usize| {
            sigs[j].start < sigs[k].start || (sigs[j].start == sigs[k].start && j < k)
        };
        let mut order: Vec<usize> = (0..sigs.len())
            .filter(|&j| j == i || before(j, i))
            .collect();
        order.sort_by(|&a, &b| sigs[a].start.cmp(&sigs[b].start).then(a.cmp(&b)));
        let mut lock = vec![false; sigs.len()];
        for (n, &k) in order.iter().enumerate() {
            let busy = order[..n]
                .iter()
                .any(|&j| sigs[j].end > sigs[k].start && (sigs[j].own || lock[j]) && before(j, k));
            lock[k] = !sigs[k].own && !busy;
        }
        lock[i]
    }

    /// Judge signal `i` at station `r`.
    pub(super) fn judge(
        &mut self,
        r: usize,
        i: usize,
        f: &Frame,
        now: Time,
        ctx: &mut DevCtx,
    ) -> Rx {
        let sig = self.stations[r].signals[i];
        let mut interference = 0.0;
        for (j, g) in self.stations[r].signals.iter().enumerate() {
            if j == i || g.start >= sig.end || sig.start >= g.end {
                continue;
            }
            if g.own {
                // Half duplex: it was transmitting during part of the frame.
                return Rx::Deaf;
            }
            interference += g.power;
        }
        if !Self::locked(&self.stations[r].signals, i) {
            return Rx::Collision;
        }
        if sig.power < self.p.rx_threshold_w {
            return Rx::Weak;
        }
        if sig.power < self.p.capture_ratio * (self.p.noise_w + interference) {
            return Rx::Collision;
        }
        let corrupt = match f.kind {
            Kind::Data => {
                let hdr = self.stations[f.from as usize]
                    .cur
                    .as_ref()
                    .map(|c| c.hdr)
                    .expect("a data frame belongs to its sender's exchange");
                self.stations[r].error.corrupts(now, &hdr, ctx.snr)
            }
            _ => self.stations[r].error.corrupts_control(f.bytes),
        };
        if corrupt {
            Rx::Channel
        } else {
            Rx::Ok
        }
    }
}
