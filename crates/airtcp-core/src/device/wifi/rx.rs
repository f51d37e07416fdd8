//! Reception: what a station makes of a frame it sensed, from the signals that overlapped it,
//! by the medium's reception model ([`Reception`]; sources in docs/mac.md).

use super::params::Reception;
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
    /// Not detected (`sinr`): no preamble found (too weak, or the station was receiving
    /// another frame) or the PLCP header failed; the station saw energy only, no EIFS.
    /// `true` if interference played a part.
    Missed(bool),
}

/// Whether signals `a` and `b` overlap in time.
fn overlap(a: &Sig, b: &Sig) -> bool {
    a.start < b.end && b.start < a.end
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

    /// ns-2's receiver: did it lock onto signal `i` and keep it to its end without a
    /// collision? It locks onto the first signal it senses while not receiving (also while
    /// transmitting); a later arrival is captured (ignored) if the locked frame is at least
    /// `capture` times stronger, else both collide and the receiver stays with whichever ends
    /// later, which is lost too (Mac802_11::recv, capture and collision in ns-2.35).
    pub(super) fn ns2_clean(sigs: &[Sig], i: usize, capture: f64) -> bool {
        let mut order: Vec<usize> = (0..sigs.len())
            .filter(|&j| !sigs[j].own && sigs[j].sensed && sigs[j].start < sigs[i].end)
            .collect();
        order.sort_by(|&a, &b| sigs[a].start.cmp(&sigs[b].start).then(a.cmp(&b)));
        // (signal received, its end, collided)
        let mut cur: Option<(usize, Time, bool)> = None;
        for k in order {
            let g = &sigs[k];
            if cur.is_some_and(|c| c.1 <= g.start) {
                cur = None;
            }
            cur = match cur {
                None => Some((k, g.end, false)),
                Some(c) if sigs[c.0].power >= capture * g.power => Some(c),
                Some(c) if g.end > c.1 => Some((k, g.end, true)),
                Some(c) => Some((c.0, c.1, true)),
            };
        }
        cur.is_some_and(|c| c.0 == i && !c.2)
    }

    /// Noise plus the power of every other signal present at the start of signal `k`.
    fn at_start(&self, sigs: &[Sig], k: usize) -> f64 {
        let t = sigs[k].start;
        self.p.noise_w
            + sigs
                .iter()
                .enumerate()
                .filter(|&(j, g)| j != k && !g.own && g.start <= t && t < g.end)
                .map(|(_, g)| g.power)
                .sum::<f64>()
    }

    /// `sinr`: did station `r` detect the preamble of signal `i`? A preamble is detected when
    /// its power is at least the receive threshold (ns-3's minimum RSSI) and its SNR over the
    /// noise and the signals present at its start at least the preamble threshold, while the
    /// station is neither transmitting nor receiving another frame it detected.
    fn sinr_detected(&self, sigs: &[Sig], i: usize) -> bool {
        let detectable = |k: usize| {
            let g = &sigs[k];
            !g.own
                && g.sensed
                && g.power >= self.p.rx_threshold_w
                && g.power >= self.p.preamble_snr * self.at_start(sigs, k)
        };
        if !detectable(i) {
            return false;
        }
        let before = |j: usize, k: usize| {
            sigs[j].start < sigs[k].start || (sigs[j].start == sigs[k].start && j < k)
        };
        let mut order: Vec<usize> = (0..sigs.len())
            .filter(|&j| j == i || before(j, i))
            .collect();
        order.sort_by(|&a, &b| sigs[a].start.cmp(&sigs[b].start).then(a.cmp(&b)));
        // In start order (signal i comes last), a signal is locked onto if no earlier own or
        // locked signal is still on when it starts: only the latest end among those matters.
        let mut busy_until: Option<Time> = None;
        for &k in &order {
            let busy = busy_until.is_some_and(|e| e > sigs[k].start);
            let lock = !busy && detectable(k);
            if k == i {
                return lock;
            }
            if sigs[k].own || lock {
                busy_until = Some(busy_until.map_or(sigs[k].end, |e| e.max(sigs[k].end)));
            }
        }
        unreachable!("signal i is in its own order")
    }

    /// `sinr`: the probability that signal `i` (frame `f`) survives at station `r`, as
    /// (PLCP preamble and header, whole frame), and whether any interference overlapped it.
    /// Every start and end of another signal within the frame opens a new piece of constant
    /// SINR; a piece's bits are its duration times its mode's rate.
    fn sinr_success(&self, sigs: &[Sig], i: usize, f: &Frame) -> (f64, f64, bool) {
        let sig = sigs[i];
        let p = &self.p;
        let mode = p.mode(f.rate);
        let header = mode.header_mode();
        let header_end = (sig.start + p.plcp).min(sig.end);
        let mut cuts = vec![sig.start, header_end, sig.end];
        let others: Vec<&Sig> = sigs
            .iter()
            .enumerate()
            .filter(|&(j, g)| j != i && !g.own && overlap(g, &sig))
            .map(|(_, g)| g)
            .collect();
        for g in &others {
            for t in [g.start, g.end] {
                if t > sig.start && t < sig.end {
                    cuts.push(t);
                }
            }
        }
        cuts.sort_unstable();
        cuts.dedup();
        let (mut ph, mut pp) = (1.0, 1.0);
        for w in cuts.windows(2) {
            let (a, b) = (w[0], w[1]);
            let interference: f64 = others
                .iter()
                .filter(|g| g.start <= a && a < g.end)
                .map(|g| g.power)
                .sum();
            let sinr = sig.power / (p.noise_w + interference);
            let secs = (b - a) as f64 * 1e-9;
            if b <= header_end {
                ph *= header.chunk_success(sinr, secs * header.rate_bps());
            } else {
                pp *= mode.chunk_success(sinr, secs * mode.rate_bps());
            }
        }
        (ph, ph * pp, !others.is_empty())
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
        let sigs = &self.stations[r].signals;
        let sig = sigs[i];
        match self.p.reception {
            Reception::Summed => {
                let mut interference = 0.0;
                for (j, g) in sigs.iter().enumerate() {
                    if j == i || g.start >= sig.end || sig.start >= g.end {
                        continue;
                    }
                    if g.own {
                        // Half duplex: it was transmitting during part of the frame.
                        return Rx::Deaf;
                    }
                    interference += g.power;
                }
                if !Self::locked(sigs, i) {
                    return Rx::Collision;
                }
                if sig.power < self.p.rx_threshold_w {
                    return Rx::Weak;
                }
                if sig.power < self.p.capture_ratio * (self.p.noise_w + interference) {
                    return Rx::Collision;
                }
            }
            Reception::Ns2 => {
                if sigs.iter().any(|g| g.own && overlap(g, &sig)) {
                    return Rx::Deaf;
                }
                if !Self::ns2_clean(sigs, i, self.p.capture_ratio) {
                    return Rx::Collision;
                }
                if sig.power < self.p.rx_threshold_w {
                    return Rx::Weak;
                }
            }
            Reception::Sinr => {
                if sigs.iter().any(|g| g.own && overlap(g, &sig)) {
                    return Rx::Deaf;
                }
                if !self.sinr_detected(sigs, i) {
                    let crowded = sigs
                        .iter()
                        .enumerate()
                        .any(|(j, g)| j != i && overlap(g, &sig));
                    return Rx::Missed(crowded);
                }
                let (header, whole, crowded) = self.sinr_success(sigs, i, f);
                if whole < 1.0 {
                    // One draw decides both: a header failure (the station saw energy only) or
                    // a payload failure (a reception error: EIFS).
                    let u = self.stations[r].rx_rng.uniform();
                    if u >= header {
                        return Rx::Missed(crowded);
                    }
                    if u >= whole {
                        return if crowded { Rx::Collision } else { Rx::Channel };
                    }
                }
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(fid: u32, start: Time, end: Time, power: f64) -> Sig {
        Sig {
            fid,
            start,
            end,
            power,
            own: false,
            sensed: true,
            evaluated: false,
        }
    }

    #[test]
    fn ns2_capture_compares_the_locked_frame_with_each_arrival_alone() {
        let cap = 10.0;
        // Locked frame 12x stronger than each of two later arrivals that overlap each other:
        // ns-2 captures both (their sum, 6x weaker, would lose under the summed rule).
        let s = [
            sig(0, 0, 100, 12.0),
            sig(1, 10, 60, 1.0),
            sig(2, 20, 80, 1.0),
        ];
        assert!(WifiNet::ns2_clean(&s, 0, cap));
        // An arrival within 10 dB corrupts the locked frame and is lost itself.
        let s = [sig(0, 0, 100, 5.0), sig(1, 10, 60, 1.0)];
        assert!(!WifiNet::ns2_clean(&s, 0, cap));
        assert!(!WifiNet::ns2_clean(&s, 1, cap));
        // A strong frame arriving during a weak locked one is lost, however strong.
        let s = [sig(0, 0, 100, 1.0), sig(1, 10, 60, 1000.0)];
        assert!(!WifiNet::ns2_clean(&s, 1, cap));
        // After a collision the receiver stays with the longer frame, and a frame arriving
        // after the first ended still finds it busy.
        let s = [
            sig(0, 0, 50, 1.0),
            sig(1, 10, 120, 2.0),
            sig(2, 60, 100, 1000.0),
        ];
        assert!(!WifiNet::ns2_clean(&s, 2, cap));
        // A frame after the medium went quiet is locked cleanly.
        let s = [sig(0, 0, 50, 1.0), sig(1, 60, 100, 1.0)];
        assert!(WifiNet::ns2_clean(&s, 1, cap));
    }

    #[test]
    fn ns2_locks_while_transmitting() {
        // A frame that arrives during the station's own transmission is locked onto (in
        // error) and blocks a frame arriving after the transmission ends (Mac802_11::recv).
        let mut own = sig(9, 0, 30, f64::INFINITY);
        own.own = true;
        let s = [own, sig(0, 10, 100, 1.0), sig(1, 40, 90, 5.0)];
        assert!(!WifiNet::ns2_clean(&s, 1, 10.0));
        // Signals too weak to sense play no part.
        let mut faint = sig(0, 10, 100, 1.0);
        faint.sensed = false;
        let s = [faint, sig(1, 40, 90, 5.0)];
        assert!(WifiNet::ns2_clean(&s, 1, 10.0));
    }
}
