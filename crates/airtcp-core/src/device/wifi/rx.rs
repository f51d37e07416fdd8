//! Reception: what a station makes of a frame it sensed, from the signals that overlapped it,
//! by the medium's reception model ([`Reception`]; sources in docs/mac.md).

use super::params::{Reception, WifiParams};
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

/// The two parts of a frame that the `sinr` reception judges apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// The PLCP preamble and header, at the header's mode.
    Header,
    /// The rest, at the frame's rate.
    Payload,
}

/// Buffers of [`WifiNet::sinr_success`]: the cuts of a frame into pieces, and the (start,
/// end, power) of the signals that overlap it.
pub(super) type Scratch = (Vec<Time>, Vec<(Time, Time, f64)>);

/// Whether signals `a` and `b` overlap in time.
fn overlap(a: &Sig, b: &Sig) -> bool {
    a.start < b.end && b.start < a.end
}

/// [`sinr_lock_with`] with a buffer of its own.
#[cfg(test)]
fn sinr_lock(sigs: &[Sig], detectable: &[bool], i: usize, plcp: Time) -> Result<bool, usize> {
    sinr_lock_with(sigs, &mut |k| detectable[k], i, plcp, &mut Vec::new())
}

/// `sinr`: is the receiver free to lock onto signal `i` (`detectable` says which signals'
/// preambles it could detect, asked only of those that start while it is free; `plcp` is the
/// preamble and header's duration)? In start order
/// (ties to the earlier index), a signal is locked onto if detectable and no earlier own or
/// locked signal still holds the receiver when it starts. A locked frame whose PLCP header
/// failed holds it only to the header's end (ns-3.44 `PhyEntity`: the reception is aborted
/// there and the PHY goes back to CCA busy). `Err(k)`: the answer needs the fate of signal
/// `k`'s header, not yet drawn. `order` is a buffer reused from frame to frame.
fn sinr_lock_with(
    sigs: &[Sig],
    detectable: &mut dyn FnMut(usize) -> bool,
    i: usize,
    plcp: Time,
    order: &mut Vec<usize>,
) -> Result<bool, usize> {
    if !detectable(i) {
        return Ok(false);
    }
    let before = |j: usize, k: usize| {
        sigs[j].start < sigs[k].start || (sigs[j].start == sigs[k].start && j < k)
    };
    // The key (start, index) is unique, so an unstable sort gives the same order.
    order.clear();
    order.extend((0..sigs.len()).filter(|&j| j == i || before(j, i)));
    order.sort_unstable_by_key(|&a| (sigs[a].start, a));
    // Only the latest time the receiver is held to matters.
    let mut busy_until: Option<Time> = None;
    for (n, &k) in order.iter().enumerate() {
        let g = &sigs[k];
        let lock = busy_until.is_none_or(|e| e <= g.start) && detectable(k);
        if k == i {
            return Ok(lock);
        }
        let until = if g.own {
            g.end
        } else if lock {
            // The header's fate is asked only if a later signal starts while it decides
            // whether the receiver is still held.
            let he = (g.start + plcp).min(g.end);
            let matters = order[n + 1..]
                .iter()
                .any(|&j| sigs[j].start >= he && sigs[j].start < g.end);
            let ok = match g.header_ok {
                _ if !matters => true,
                Some(ok) => ok,
                // Judged without the question arising: it mattered to no one since.
                None if g.evaluated => true,
                None => return Err(k),
            };
            if ok {
                g.end
            } else {
                he
            }
        } else {
            continue;
        };
        busy_until = Some(busy_until.map_or(until, |e| e.max(until)));
    }
    unreachable!("signal i is in its own order")
}

impl WifiNet {
    /// Did station `r` lock onto signal `i` (was it idle when the signal began)?
    pub(super) fn locked(sigs: &[Sig], i: usize) -> bool {
        // A station locks onto the first signal it senses and stays with it to its end; ties
        // in start time go to the signal that arrived first in processing order.
        let before = |j: usize, k: usize| {
            sigs[j].start < sigs[k].start || (sigs[j].start == sigs[k].start && j < k)
        };
        // Sized up front (collecting a filter grows it step by step); the key (start, index)
        // is unique, so an unstable sort gives the same order.
        let mut order: Vec<usize> = Vec::with_capacity(sigs.len());
        order.extend((0..sigs.len()).filter(|&j| j == i || before(j, i)));
        order.sort_unstable_by_key(|&a| (sigs[a].start, a));
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
        // Sized up front (collecting a filter grows it step by step); the key (start, index)
        // is unique, so an unstable sort gives the same order.
        let mut order: Vec<usize> = Vec::with_capacity(sigs.len());
        order.extend(
            (0..sigs.len())
                .filter(|&j| !sigs[j].own && sigs[j].sensed && sigs[j].start < sigs[i].end),
        );
        order.sort_unstable_by_key(|&a| (sigs[a].start, a));
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
    fn at_start(p: &WifiParams, sigs: &[Sig], k: usize) -> f64 {
        let t = sigs[k].start;
        p.noise_w
            + sigs
                .iter()
                .enumerate()
                .filter(|&(j, g)| j != k && !g.own && g.start <= t && t < g.end)
                .map(|(_, g)| g.power)
                .sum::<f64>()
    }

    /// `sinr`: could station `r` detect the preamble of signal `k` on its own? Its power is
    /// at least the receive threshold (ns-3's minimum RSSI) and its SNR over the noise and the
    /// signals present at its start at least the preamble threshold.
    fn sinr_detectable(p: &WifiParams, sigs: &[Sig], k: usize) -> bool {
        let g = &sigs[k];
        !g.own
            && g.sensed
            && g.power >= p.rx_threshold_w
            && g.power >= p.preamble_snr * Self::at_start(p, sigs, k)
    }

    /// `sinr`: did station `r` detect the preamble of signal `i`? Only if detectable while
    /// the station is neither transmitting nor receiving another frame it detected.
    fn sinr_detected(&mut self, r: usize, i: usize) -> bool {
        if !Self::sinr_detectable(&self.p, &self.stations[r].signals, i) {
            return false;
        }
        // Only signals that start no later than signal i are asked about, each at most once:
        // drawing a header's fate below changes no signal's detectability, so the answers
        // are kept (0: not yet asked, 1: no, 2: yes) in a reused buffer.
        let mut detectable = std::mem::take(&mut self.detectable);
        detectable.clear();
        detectable.resize(self.stations[r].signals.len(), 0);
        let mut order = std::mem::take(&mut self.order);
        let lock = loop {
            let answer = {
                let (p, sigs) = (&self.p, &self.stations[r].signals);
                let mut ask = |k: usize| {
                    if k == i {
                        return true;
                    }
                    if detectable[k] == 0 {
                        detectable[k] = 1 + u8::from(Self::sinr_detectable(p, sigs, k));
                    }
                    detectable[k] == 2
                };
                sinr_lock_with(sigs, &mut ask, i, p.plcp, &mut order)
            };
            match answer {
                Ok(lock) => break lock,
                Err(k) => {
                    self.sinr_header_ok(r, k);
                }
            }
        };
        self.detectable = detectable;
        self.order = order;
        lock
    }

    /// `sinr`: did the PLCP header of signal `k`, whose preamble station `r` detected,
    /// decode? One draw from the receiver's stream the first time it matters, kept with the
    /// signal; the header's interference is all known by then (it ended before the signal
    /// that asks began, or it is this signal's own judgement).
    fn sinr_header_ok(&mut self, r: usize, k: usize) -> bool {
        let g = self.stations[r].signals[k];
        if let Some(ok) = g.header_ok {
            return ok;
        }
        let f = self.frames[g.fid as usize];
        let sigs = &self.stations[r].signals;
        let ph = Self::sinr_success(&self.p, sigs, k, &f, Part::Header, &mut self.scratch);
        let ok = ph >= 1.0 || self.stations[r].rx_rng.uniform() < ph;
        self.stations[r].signals[k].header_ok = Some(ok);
        ok
    }

    /// `sinr`: the probability that `part` of signal `i` (frame `f`) survives at a station
    /// whose signals are `sigs`. Every start and end of another signal within the part opens
    /// a new piece of constant SINR; a piece's bits are its duration times its mode's rate.
    /// `scratch` holds buffers reused from call to call.
    fn sinr_success(
        p: &WifiParams,
        sigs: &[Sig],
        i: usize,
        f: &Frame,
        part: Part,
        scratch: &mut Scratch,
    ) -> f64 {
        let sig = sigs[i];
        let header_end = (sig.start + p.plcp).min(sig.end);
        let (mode, from, to) = match part {
            Part::Header => (p.mode(f.rate).header_mode(), sig.start, header_end),
            Part::Payload => (p.mode(f.rate), header_end, sig.end),
        };
        // The other signals that overlap this one, in index order (the order their powers
        // are summed in).
        let (cuts, others) = scratch;
        others.clear();
        others.extend(
            sigs.iter()
                .enumerate()
                .filter(|&(j, g)| j != i && !g.own && overlap(g, &sig))
                .map(|(_, g)| (g.start, g.end, g.power)),
        );
        // No piece has more interference than all the overlapping signals together (the
        // same non-negative terms in the same order, some left out, and rounding is
        // monotone), so no piece's SINR is below this one; where that is certain, so is every
        // piece, and the product is exactly 1.0.
        let all: f64 = others.iter().map(|g| g.2).sum();
        if sig.power / (p.noise_w + all) >= mode.certain_sinr() {
            return 1.0;
        }
        cuts.clear();
        cuts.extend([from, to]);
        for &(start, end, _) in others.iter() {
            for t in [start, end] {
                if t > from && t < to {
                    cuts.push(t);
                }
            }
        }
        cuts.sort_unstable();
        cuts.dedup();
        let mut ps = 1.0;
        for w in cuts.windows(2) {
            let (a, b) = (w[0], w[1]);
            let interference: f64 = others
                .iter()
                .filter(|g| g.0 <= a && a < g.1)
                .map(|g| g.2)
                .sum();
            let sinr = sig.power / (p.noise_w + interference);
            let secs = (b - a) as f64 * 1e-9;
            ps *= mode.chunk_success(sinr, secs * mode.rate_bps());
        }
        ps
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
                let crowded = sigs
                    .iter()
                    .enumerate()
                    .any(|(j, g)| j != i && overlap(g, &sig));
                if !self.sinr_detected(r, i) {
                    return Rx::Missed(crowded);
                }
                // A header failure leaves the station energy only; a payload failure is a
                // reception error (EIFS). Header and payload are drawn apart, as in ns-3.
                if !self.sinr_header_ok(r, i) {
                    return Rx::Missed(crowded);
                }
                let sigs = &self.stations[r].signals;
                let payload =
                    Self::sinr_success(&self.p, sigs, i, f, Part::Payload, &mut self.scratch);
                if payload < 1.0 && self.stations[r].rx_rng.uniform() >= payload {
                    return if crowded { Rx::Collision } else { Rx::Channel };
                }
            }
        }
        let corrupt = match f.kind {
            Kind::Data | Kind::Bcast => {
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
            header_ok: None,
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
    fn sinr_header_failure_frees_the_receiver_at_the_header_end() {
        let plcp = 192;
        let all = [true, true, true];
        // Frame 0 locked [0, 1000); frame 1 starts at 500, after 0's header ended.
        let mut s = [sig(0, 0, 1000, 1.0), sig(1, 500, 900, 1.0)];
        // Its header's fate decides, and is not drawn yet: asked for.
        assert_eq!(sinr_lock(&s, &all, 1, plcp), Err(0));
        s[0].header_ok = Some(true);
        assert_eq!(sinr_lock(&s, &all, 1, plcp), Ok(false));
        s[0].header_ok = Some(false);
        assert_eq!(sinr_lock(&s, &all, 1, plcp), Ok(true));
        // A frame arriving during the failed header still finds the receiver held, and the
        // header's fate is not asked for.
        let s = [sig(0, 0, 1000, 1.0), sig(1, 100, 900, 1.0)];
        assert_eq!(sinr_lock(&s, &all, 1, plcp), Ok(false));
        // Right at the header's end the receiver is free again.
        let mut s = [sig(0, 0, 1000, 1.0), sig(1, 192, 900, 1.0)];
        s[0].header_ok = Some(false);
        assert_eq!(sinr_lock(&s, &all, 1, plcp), Ok(true));
        // A frame judged without the question arising held the receiver to its end.
        s[0].evaluated = true;
        s[0].header_ok = None;
        assert_eq!(sinr_lock(&s, &all, 1, plcp), Ok(false));
        // The frame locked after a failed header holds the receiver in turn; an undetected
        // preamble holds nothing.
        let mut s = [
            sig(0, 0, 1000, 1.0),
            sig(1, 300, 1200, 1.0),
            sig(2, 600, 900, 1.0),
        ];
        s[0].header_ok = Some(false);
        s[1].header_ok = Some(true);
        assert_eq!(sinr_lock(&s, &all, 2, plcp), Ok(false));
        assert_eq!(sinr_lock(&s, &[true, false, true], 2, plcp), Ok(true));
        // The station's own transmission holds it to its end.
        let mut own = sig(9, 0, 1000, f64::INFINITY);
        own.own = true;
        let s = [own, sig(1, 500, 900, 1.0)];
        assert_eq!(sinr_lock(&s, &[false, true], 1, plcp), Ok(false));
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
