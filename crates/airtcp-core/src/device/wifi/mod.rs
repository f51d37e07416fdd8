//! IEEE 802.11 DCF in ad hoc mode on a shared radio medium.
//!
//! All stations of one medium live in one [`WifiNet`]; each station is a device of its node
//! ([`WifiDev`]) that forwards its calls and events to the shared state, because a
//! transmission changes what every station in carrier-sense range sees.
//!
//! The medium: a frame from station s reaches every station r whose received power from s is
//! at least the carrier-sense threshold, after the propagation delay. A station senses the
//! medium busy while such a signal (or its own transmission) lasts. It decodes a frame when
//! (ns-2's receiver rules) it was idle when the frame began and did not transmit during it
//! (it locks onto the first signal it senses), the power is at least the receive threshold,
//! and the power is at least the capture ratio times the noise plus every other signal that
//! overlaps the frame; then the medium's error model may still corrupt it.
//!
//! The MAC: DIFS, or EIFS after a frame it could not decode; binary exponential backoff in
//! slots that freezes while the medium is busy (physical sense) or reserved (NAV, virtual
//! sense); RTS/CTS for frames above the RTS threshold; a link ACK after SIFS for every
//! unicast data frame; short and long retry limits; a duplicate filter on (sender,
//! sequence number) so a frame resent because its ACK was lost is acknowledged, not
//! delivered twice. Channel access as ns-2's MAC does it (a fresh backoff before every
//! packet's first attempt) or as ns-3's DCF does (`WifiParams::post_backoff`: the backoff
//! drawn when an attempt ends counts down with or without a packet, and a packet reaching an
//! empty queue after it, on an idle medium, goes after DIFS).
//!
//! What a station does is decided from what it has sensed and decoded only; the simulator's
//! knowledge (why an attempt failed) is kept for the drop cause and the counters.

mod dev;
mod minstrel;
mod moving;
mod params;
mod ratectl;
mod rx;
mod station;

pub use dev::WifiDev;
pub use minstrel::MinstrelRates;
pub use moving::{Moving, RssiLog};
pub use params::{Reception, WifiParams};
pub use ratectl::{rate_column, rate_set, RateControl};
pub use station::{Hear, MacStats, Station};

use rx::Rx;
use station::{Cur, Frame, Kind, Pending, Sig, State, BCAST};

use super::{DevCtx, DevEv, DevOut, LinkLoss, LossNote};
use crate::engine::Rng;
use crate::engine::Time;
use crate::hook::Metric;
use crate::ids::{NodeId, PacketId};
use crate::packet::DropCause;
use crate::phy::{Fading, PairFading};
use crate::queue::{QueuePolicy, Verdict};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

// Event codes: the kind in the top 3 bits, a generation or frame index below.
const ACCESS: u32 = 0;
const TIMEOUT: u32 = 1;
const EVAL: u32 = 2;
const RESPOND: u32 = 3;
const LOW: u32 = (1 << 29) - 1;

fn code(kind: u32, v: u32) -> DevEv {
    DevEv::Timer((kind << 29) | (v & LOW))
}

pub struct WifiNet {
    pub name: String,
    pub p: WifiParams,
    pub stations: Vec<Station>,
    /// Station of each node on this medium (u32::MAX if none), by node index.
    by_node: Vec<u32>,
    frames: Vec<Frame>,
    free: Vec<u32>,
    /// Longest frame sent so far: how long a finished signal can still matter as interference.
    longest: Time,
    max_delay: Time,
    /// Longest delay to any station a transmission reaches, sensed or not.
    reach_delay: Time,
    /// Per-frame fading and the state of each station pair (by lower, higher index).
    fading: Option<(Fading, Vec<PairFading>)>,
    /// Every frame sent on the medium, as a sniffer in range of all stations sees it.
    pub capture: Option<MediumCapture>,
    /// A station sent a broadcast frame (the `macs` table then counts them).
    broadcasts: bool,
    /// Stations that move (None: the gains computed when the medium was built hold).
    pub moving: Option<Box<Moving>>,
    /// The power of each frame each station senses, when traced.
    pub rssi: Option<Box<RssiLog>>,
    /// Buffers of the `sinr` reception, reused from frame to frame.
    scratch: rx::Scratch,
    detectable: Vec<u8>,
    order: Vec<usize>,
}

/// A medium's packet trace (802.11 frames with radiotap headers).
pub struct MediumCapture {
    pub file: Rc<RefCell<crate::pcap::PcapWriter>>,
    pub flows: Vec<crate::pcap::FlowWire>,
    buf: Vec<u8>,
    ip: Vec<u8>,
}

impl MediumCapture {
    pub fn new(
        file: Rc<RefCell<crate::pcap::PcapWriter>>,
        flows: Vec<crate::pcap::FlowWire>,
    ) -> MediumCapture {
        MediumCapture {
            file,
            flows,
            buf: Vec::new(),
            ip: Vec::new(),
        }
    }
}

impl WifiNet {
    pub fn new(name: String, p: WifiParams, stations: Vec<Station>, nodes: usize) -> WifiNet {
        let mut by_node = vec![u32::MAX; nodes];
        for (i, s) in stations.iter().enumerate() {
            by_node[s.node.idx()] = i as u32;
        }
        let max_delay = stations.iter().map(|s| s.max_delay).max().unwrap_or(0);
        let reach_delay = stations
            .iter()
            .flat_map(|s| s.hears.iter().map(|h| h.delay))
            .max()
            .unwrap_or(0)
            .max(max_delay);
        WifiNet {
            name,
            p,
            stations,
            by_node,
            frames: Vec::new(),
            free: Vec::new(),
            longest: 0,
            max_delay,
            reach_delay,
            fading: None,
            capture: None,
            broadcasts: false,
            moving: None,
            rssi: None,
            scratch: Default::default(),
            detectable: Vec::new(),
            order: Vec::new(),
        }
    }

    /// Fade every frame's power by `f`, pair `(a, b)` (a < b) drawing from `stream(a, b)`.
    pub fn set_fading(&mut self, f: Fading, stream: impl Fn(usize, usize) -> Rng) {
        let n = self.stations.len();
        let mut pairs = Vec::with_capacity(n * n);
        for a in 0..n {
            for b in 0..n {
                pairs.push(PairFading::new(stream(a.min(b), a.max(b))));
            }
        }
        self.fading = Some((f, pairs));
    }

    fn free_at(&self, s: usize) -> Time {
        let st = &self.stations[s];
        let ifs = if st.eifs { self.p.eifs() } else { self.p.difs };
        st.busy_until.max(st.nav_until) + ifs
    }

    fn arm_access(&mut self, s: usize, ctx: &mut DevCtx) {
        let slot = self.p.slot;
        let st = &mut self.stations[s];
        st.gen = (st.gen + 1) & LOW;
        st.access_at = st.bo_from + st.bo_slots as Time * slot;
        // A backoff with nothing to send (ns-3's post-backoff) needs no event: a packet that
        // arrives reads where its countdown stands (`try_start`).
        st.armed = !(self.p.post_backoff && st.cur.is_none() && st.fifo.is_empty());
        if st.armed {
            Self::schedule_access(st, ctx);
        }
    }

    /// The ACCESS event of the countdown just armed (`access_at`, the station's `gen`). Its
    /// place among same-instant events is taken now; it is pushed now only if no wake-up is
    /// pending at or before `access_at` (most restarts push it later: each frame a station
    /// hears while counting down restarts its countdown).
    fn schedule_access(st: &mut Station, ctx: &mut DevCtx) {
        st.arm_seq = ctx.reserve();
        st.arm_gen = st.gen;
        match st.wake {
            Some(t) if t <= st.access_at => st.wake_exact = false,
            _ => Self::push_access(st, ctx),
        }
    }

    fn push_access(st: &mut Station, ctx: &mut DevCtx) {
        st.wake_id = (st.wake_id + 1) & LOW;
        st.wake = Some(st.access_at);
        st.wake_exact = true;
        ctx.at_reserved(st.access_at, st.arm_seq, st.dev, code(ACCESS, st.wake_id));
    }

    /// The pending ACCESS event fired: the countdown's own (its access, if still current) or
    /// an earlier one, which pushes the countdown's.
    fn on_wake(&mut self, s: usize, ctx: &mut DevCtx) {
        let st = &mut self.stations[s];
        st.wake = None;
        // What the armed event, scheduled when armed, would find: stale if the generation
        // moved on or the countdown stopped.
        if st.arm_gen != st.gen || !st.backing_off || !st.armed {
            return;
        }
        if st.wake_exact {
            self.on_access(s, ctx);
        } else {
            Self::push_access(st, ctx);
        }
    }

    /// Move the next queued packet into the exchange; false when none waits.
    fn load_next(&mut self, s: usize, ctx: &mut DevCtx) -> bool {
        let st = &mut self.stations[s];
        st.note_queue(ctx.now);
        let Some(pkt) = st.fifo.pop() else {
            return false;
        };
        let to = st.next.pop_front().expect("next hop per queued packet");
        let seq = st.next_seq;
        st.next_seq = st.next_seq.wrapping_add(1);
        st.cur = Some(Cur {
            pkt,
            hdr: *ctx.pool.get(pkt),
            to,
            seq,
            short: 0,
            long: 0,
            delivered: false,
            rate: 0,
            fail: None,
        });
        true
    }

    /// Begin contending for the medium if the station has a packet and nothing under way.
    /// `arrival`: a packet just reached an empty queue, which under ns-3's access goes out
    /// after DIFS without a backoff when the medium is idle (the last backoff has run out,
    /// or the station would be backing off already).
    fn try_start(&mut self, s: usize, ctx: &mut DevCtx, arrival: bool) {
        let now = ctx.now;
        {
            let st = &mut self.stations[s];
            if st.backing_off && !st.armed && !st.fifo.is_empty() {
                // A post-backoff counted without an event, and now a packet to send: arm it,
                // or note that it has run out.
                if st.access_at > now {
                    st.armed = true;
                    Self::schedule_access(st, ctx);
                    return;
                }
                st.backoff_ran_out();
            }
            if st.state != State::Idle || st.backing_off {
                return;
            }
        }
        if self.stations[s].cur.is_none() && !self.load_next(s, ctx) {
            return;
        }
        let st = &mut self.stations[s];
        // ns-3's test is whether the medium is busy at the arrival (ChannelAccessManager::
        // IsBusy: receiving, sending, NAV or CCA), not whether DIFS has passed.
        let immediate =
            self.p.post_backoff && arrival && st.busy_until <= now && st.nav_until <= now;
        st.bo_slots = if immediate {
            0
        } else {
            st.rng.below(st.cw as u64 + 1) as u32
        };
        st.backing_off = true;
        let floor = if immediate { now + self.p.difs } else { now };
        self.stations[s].bo_from = self.free_at(s).max(floor);
        self.arm_access(s, ctx);
    }

    /// An attempt ended (delivered, failed or given up; a broadcast sent). ns-3's access
    /// draws the next backoff now, with or without a packet waiting; ns-2's at the next packet.
    fn release(&mut self, s: usize, ctx: &mut DevCtx) {
        if !self.p.post_backoff {
            self.try_start(s, ctx, false);
            return;
        }
        let st = &mut self.stations[s];
        st.bo_slots = st.rng.below(st.cw as u64 + 1) as u32;
        st.backing_off = true;
        self.stations[s].bo_from = self.free_at(s).max(ctx.now);
        self.arm_access(s, ctx);
    }

    /// Station `r` senses a busy period [a, b): account for it and freeze its countdown.
    fn on_busy(&mut self, r: usize, a: Time, b: Time, ctx: &mut DevCtx) {
        let slot = self.p.slot;
        let st = &mut self.stations[r];
        let from = a.max(st.busy_until);
        if b > from {
            st.stats.busy_time += b - from;
        }
        st.busy_until = st.busy_until.max(b);
        // A countdown that ends before the signal arrives goes ahead: the station transmits
        // without having sensed it.
        if st.backing_off && a < st.access_at {
            if a > st.bo_from {
                let done = ((a - st.bo_from) / slot) as u32;
                st.bo_slots -= done.min(st.bo_slots);
            }
            self.restart_countdown(r, ctx);
        }
    }

    /// The medium's free time moved (NAV, EIFS): restart the countdown from it.
    fn restart_countdown(&mut self, r: usize, ctx: &mut DevCtx) {
        if !self.stations[r].backing_off {
            return;
        }
        let st = &mut self.stations[r];
        if self.p.post_backoff && st.cur.is_none() && st.fifo.is_empty() && st.access_at <= ctx.now
        {
            // A post-backoff without an event that has already run out.
            st.backoff_ran_out();
            return;
        }
        self.stations[r].bo_from = self.free_at(r).max(ctx.now);
        self.arm_access(r, ctx);
    }

    fn set_eifs(&mut self, r: usize, on: bool, ctx: &mut DevCtx) {
        if self.stations[r].eifs != on {
            self.stations[r].eifs = on;
            if self.stations[r].access_at > ctx.now {
                self.restart_countdown(r, ctx);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn transmit(
        &mut self,
        s: usize,
        kind: Kind,
        to: u32,
        nav: Time,
        bytes: u32,
        seq: u32,
        pkt: Option<PacketId>,
        rate: u64,
        ctx: &mut DevCtx,
    ) {
        let now = ctx.now;
        let p = &self.p;
        let dur = match kind {
            Kind::Data => p.data_time_at(bytes, rate),
            Kind::Ack => p.air_time(bytes, rate),
            Kind::Bcast => p.air_time(bytes + p.mac_overhead, rate),
            _ => p.control_time(bytes),
        };
        let end = now + dur;
        if self.capture.is_some() {
            self.capture_frame(s, kind, to, nav, seq, rate, ctx.now);
        }
        self.longest = self.longest.max(dur);
        let frame = Frame {
            kind,
            from: s as u32,
            to,
            nav,
            bytes,
            seq,
            pkt,
            end,
            rate,
        };
        let fid = match self.free.pop() {
            Some(i) => {
                self.frames[i as usize] = frame;
                i
            }
            None => {
                self.frames.push(frame);
                (self.frames.len() - 1) as u32
            }
        };
        {
            let st = &mut self.stations[s];
            st.stats.tx_time += dur;
            match kind {
                Kind::Rts => st.stats.rts_frames += 1,
                Kind::Cts => st.stats.cts_frames += 1,
                Kind::Data => {
                    st.stats.data_frames += 1;
                    if !st.stats.rate_frames.is_empty() {
                        if let Some(k) = self.p.rates.iter().position(|&r| r == rate) {
                            st.stats.rate_frames[k] += 1;
                        }
                    }
                }
                Kind::Ack => st.stats.ack_frames += 1,
                Kind::Bcast => st.stats.bcast_frames += 1,
            }
            st.signals.push(Sig {
                fid,
                start: now,
                end,
                power: f64::INFINITY,
                own: true,
                sensed: true,
                evaluated: true,
                header_ok: None,
            });
        }
        if matches!(kind, Kind::Data | Kind::Bcast) {
            *ctx.packet_hops += 1;
        }
        if let Some(m) = self.moving.as_mut() {
            let reach = m.refresh(s, now, &mut self.stations, &self.p);
            self.reach_delay = self.reach_delay.max(reach);
            self.max_delay = self.max_delay.max(self.stations[s].max_delay);
        }
        self.on_busy(s, now, end, ctx);
        for k in 0..self.stations[s].hears.len() {
            let h = self.stations[s].hears[k];
            let r = h.to as usize;
            let power = match self.fading.as_mut() {
                None => h.power_w,
                Some((f, pairs)) => {
                    let n = self.stations.len();
                    h.power_w * pairs[s.min(r) * n + s.max(r)].gain(f, now)
                }
            };
            self.stations[r].signals.push(Sig {
                fid,
                start: now + h.delay,
                end: end + h.delay,
                power,
                own: false,
                sensed: h.sensed,
                evaluated: false,
                header_ok: None,
            });
            if h.sensed && self.p.holds_medium(power) {
                self.on_busy(r, now + h.delay, end + h.delay, ctx);
            }
        }
        if self.rssi.is_some() {
            self.log_rssi(s, fid);
        }
        let st = &self.stations[s];
        ctx.at(end + st.max_delay, st.dev, code(EVAL, fid));
    }

    /// Note the power each station that senses frame `fid` of `s` gets (the signal just
    /// pushed, fading included).
    #[cold]
    #[inline(never)]
    fn log_rssi(&mut self, s: usize, fid: u32) {
        let Some(log) = self.rssi.as_mut() else {
            return;
        };
        for h in &self.stations[s].hears {
            let r = h.to as usize;
            if let Some(g) = self.stations[r].signals.last() {
                if g.fid == fid && g.sensed {
                    log.stations[r].push((g.start, s as u32, g.power));
                }
            }
        }
    }

    /// Write a frame station `s` starts sending to the medium's trace. A data frame's packet
    /// is the sender's copy of it (a resend after a lost ACK has no other). Out of line: a
    /// medium without a trace keeps only the test of `capture`.
    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn capture_frame(
        &mut self,
        s: usize,
        kind: Kind,
        to: u32,
        nav: Time,
        seq: u32,
        rate: u64,
        now: Time,
    ) {
        use crate::pcap::{frame_80211, ip_packet, FrameKind};
        let from = self.stations[s].node.0;
        // The broadcast address is all ones (`pcap::mac_addr` maps u32::MAX to it).
        let to_node = match to {
            BCAST => u32::MAX,
            _ => self.stations[to as usize].node.0,
        };
        let fk = match kind {
            Kind::Rts => FrameKind::Rts,
            Kind::Cts => FrameKind::Cts,
            Kind::Ack => FrameKind::Ack,
            Kind::Data | Kind::Bcast => FrameKind::Data,
        };
        let cur = self.stations[s]
            .cur
            .filter(|_| matches!(kind, Kind::Data | Kind::Bcast));
        let Some(c) = self.capture.as_mut() else {
            return;
        };
        c.buf.clear();
        let full = match cur {
            Some(cur) => {
                c.ip.clear();
                let w = &cur.hdr.wire;
                let f = c.flows.get(w.flow.idx()).copied().unwrap_or_default();
                let ip_len = ip_packet(w, w.flow.0, f, &mut c.ip);
                let retry = cur.short > 0 || cur.long > 0;
                let data = Some((c.ip.as_slice(), ip_len));
                frame_80211(fk, rate, from, to_node, nav, seq, retry, data, &mut c.buf)
            }
            None => frame_80211(fk, rate, from, to_node, nav, seq, false, None, &mut c.buf),
        };
        c.file.borrow_mut().record(now, &c.buf, full + 10);
    }

    fn note_fail(&mut self, owner: usize, cause: DropCause) {
        if let Some(c) = self.stations[owner].cur.as_mut() {
            c.fail = Some(cause);
        }
    }

    /// A frame ended at every station that sensed it: decide what each of them makes of it.
    fn on_eval(&mut self, fid: u32, ctx: &mut DevCtx) {
        let now = ctx.now;
        let f = self.frames[fid as usize];
        let s = f.from as usize;
        for k in 0..self.stations[s].hears.len() {
            let r = self.stations[s].hears[k].to as usize;
            let horizon = self.longest + 2 * self.reach_delay;
            self.stations[r]
                .signals
                .retain(|g| !g.evaluated || g.end + horizon >= now);
            let Some(i) = self.stations[r]
                .signals
                .iter()
                .position(|g| g.fid == fid && !g.evaluated && !g.own)
            else {
                continue;
            };
            let end_r = self.stations[r].signals[i].end;
            if !self.stations[r].signals[i].sensed {
                // Energy below carrier sense: interference for others, nothing to decide.
                self.stations[r].signals[i].evaluated = true;
                continue;
            }
            let rx = self.judge(r, i, &f, now, ctx);
            self.stations[r].signals[i].evaluated = true;
            let addressed = f.to as usize == r;
            if rx == Rx::Ok {
                if !self.p.rate_control.is_constant() {
                    // What the station measured on a frame it decoded from the peer.
                    let snr = self.stations[r].signals[i].power / self.p.noise_w;
                    self.peer(r, s).on_snr(snr);
                }
                self.set_eifs(r, false, ctx);
                if f.kind == Kind::Bcast {
                    self.received_broadcast(r, &f, ctx);
                } else if addressed {
                    self.received(r, &f, end_r, ctx);
                } else if f.nav > 0 {
                    let until = end_r + f.nav;
                    if until > self.stations[r].nav_until {
                        self.stations[r].nav_until = until;
                        self.restart_countdown(r, ctx);
                    }
                }
            } else {
                if !matches!(rx, Rx::Deaf | Rx::Missed(_)) {
                    self.set_eifs(r, true, ctx);
                }
                if addressed {
                    let cause = if matches!(rx, Rx::Collision | Rx::Deaf | Rx::Missed(true)) {
                        self.stations[r].stats.rx_collisions += 1;
                        DropCause::Collision
                    } else {
                        self.stations[r].stats.rx_channel_errors += 1;
                        DropCause::ChannelError
                    };
                    // The exchange this frame belonged to: the sender's for RTS/data, the
                    // receiver's for CTS/ACK.
                    let owner = match f.kind {
                        Kind::Rts | Kind::Data | Kind::Bcast => s,
                        Kind::Cts | Kind::Ack => r,
                    };
                    self.note_fail(owner, cause);
                }
            }
        }
        // The sender's own view of its frame.
        let p = &self.p;
        let timeout = |resp: Time| f.end + p.sifs + resp + p.slot + 2 * self.max_delay;
        match f.kind {
            Kind::Rts => {
                let at = timeout(p.cts_time());
                self.wait(s, State::WaitCts, at, ctx);
            }
            Kind::Data => {
                let at = timeout(p.ack_time_for(f.rate));
                self.wait(s, State::WaitAck, at, ctx);
            }
            Kind::Cts | Kind::Ack => {
                self.stations[s].state = State::Idle;
                self.try_start(s, ctx, false);
            }
            Kind::Bcast => {
                // Nothing to wait for: the frame is done, every receiver has its copy.
                let st = &mut self.stations[s];
                st.state = State::Idle;
                st.cw = self.p.cw_min;
                if let Some(c) = st.cur.take() {
                    ctx.out.push(DevOut::Sent(c.pkt));
                }
                self.release(s, ctx);
            }
        }
        self.free.push(fid);
    }

    fn wait(&mut self, s: usize, state: State, at: Time, ctx: &mut DevCtx) {
        let st = &mut self.stations[s];
        st.state = state;
        st.gen = (st.gen + 1) & LOW;
        ctx.at(at, st.dev, code(TIMEOUT, st.gen));
    }

    fn respond_at(&mut self, r: usize, at: Time, pending: Pending, ctx: &mut DevCtx) {
        let st = &mut self.stations[r];
        st.pending = Some(pending);
        ctx.at(at, st.dev, code(RESPOND, 0));
    }

    /// Station `r` decoded a frame addressed to it.
    fn received(&mut self, r: usize, f: &Frame, end_r: Time, ctx: &mut DevCtx) {
        let p_sifs = self.p.sifs;
        match f.kind {
            Kind::Rts => {
                let st = &self.stations[r];
                // CTS only if the NAV is clear and it is not in an exchange of its own.
                if st.nav_until <= ctx.now && st.state == State::Idle && st.pending.is_none() {
                    let nav = f.nav.saturating_sub(p_sifs + self.p.cts_time());
                    let pend = Pending {
                        kind: Kind::Cts,
                        to: f.from,
                        nav,
                        rate: self.p.basic_rate,
                    };
                    self.respond_at(r, end_r + p_sifs, pend, ctx);
                } else {
                    self.note_fail(f.from as usize, DropCause::Collision);
                }
            }
            Kind::Cts => {
                let st = &mut self.stations[r];
                if let Some(c) = st
                    .cur
                    .filter(|c| st.state == State::WaitCts && c.to == f.from)
                {
                    st.gen = (st.gen + 1) & LOW;
                    st.state = State::Tx;
                    let nav = p_sifs + self.p.ack_time_for(c.rate);
                    let pend = Pending {
                        kind: Kind::Data,
                        to: f.from,
                        nav,
                        rate: c.rate,
                    };
                    self.respond_at(r, end_r + p_sifs, pend, ctx);
                }
            }
            Kind::Data => {
                let st = &mut self.stations[r];
                st.stats.rx_data += 1;
                let dup = match st.last_seq.iter_mut().find(|e| e.0 == f.from) {
                    Some(e) if e.1 == f.seq => true,
                    Some(e) => {
                        e.1 = f.seq;
                        false
                    }
                    None => {
                        st.last_seq.push((f.from, f.seq));
                        false
                    }
                };
                if dup {
                    st.stats.rx_duplicates += 1;
                } else {
                    let node = st.node;
                    let pkt = f.pkt.expect("a data frame carries a packet");
                    if let Some(c) = self.stations[f.from as usize].cur.as_mut() {
                        c.delivered = true;
                    }
                    ctx.out.push(DevOut::Receive(node, pkt));
                }
                let st = &self.stations[r];
                if st.state == State::Idle && st.pending.is_none() {
                    let pend = Pending {
                        kind: Kind::Ack,
                        to: f.from,
                        nav: 0,
                        rate: self.p.response_rate(f.rate),
                    };
                    self.respond_at(r, end_r + p_sifs, pend, ctx);
                }
            }
            Kind::Ack => {
                let st = &mut self.stations[r];
                if st.state == State::WaitAck && st.cur.is_some_and(|c| c.to == f.from) {
                    st.gen = (st.gen + 1) & LOW;
                    st.state = State::Idle;
                    st.cur = None;
                    st.cw = self.p.cw_min;
                    if !self.p.rate_control.is_constant() {
                        let top = self.p.rates.len() - 1;
                        let rc = &self.p.rate_control;
                        self.stations[r].peers[f.from as usize].on_success(rc, top);
                    }
                    self.release(r, ctx);
                }
            }
            Kind::Bcast => {}
        }
    }

    /// Station `r` decoded a broadcast frame: its node gets a copy of the packet (the
    /// sender keeps the original until the frame is done).
    fn received_broadcast(&mut self, r: usize, f: &Frame, ctx: &mut DevCtx) {
        let pkt = f.pkt.expect("a broadcast frame carries a packet");
        let mut copy = *ctx.pool.get(pkt);
        copy.meta.link_tries = 0;
        let id = ctx.pool.alloc(copy);
        let st = &mut self.stations[r];
        st.stats.rx_bcast += 1;
        ctx.out.push(DevOut::Receive(st.node, id));
    }

    /// Take the packets station `s` has queued for `next_hop` out of its queue (not the
    /// one in an exchange), in queue order: a routing layer told that the link to it broke
    /// drops them or routes them again.
    pub fn take_queued_for(&mut self, s: usize, next_hop: NodeId, now: Time) -> Vec<PacketId> {
        let to = self
            .by_node
            .get(next_hop.idx())
            .copied()
            .unwrap_or(u32::MAX);
        let st = &mut self.stations[s];
        if to == u32::MAX || !st.next.contains(&to) {
            return Vec::new();
        }
        st.note_queue(now);
        let mut keep = crate::queue::Fifo::default();
        let mut keep_next = std::collections::VecDeque::new();
        let mut taken = Vec::new();
        for &(id, size) in st.fifo.items() {
            let n = st.next.pop_front().expect("next hop per queued packet");
            if n == to {
                taken.push(id);
            } else {
                keep.push(id, size);
                keep_next.push_back(n);
            }
        }
        st.fifo = keep;
        st.next = keep_next;
        taken
    }

    /// Stop stations `a` and `b` from hearing each other (both ways), as if they had moved
    /// out of range: for experiments and tests that break a link mid-run.
    pub fn cut_link(&mut self, a: NodeId, b: NodeId) {
        let (sa, sb) = (self.by_node[a.idx()], self.by_node[b.idx()]);
        for (x, y) in [(sa, sb), (sb, sa)] {
            if x != u32::MAX {
                self.stations[x as usize].hears.retain(|h| h.to != y);
            }
        }
    }

    /// Station `r`'s rate-control state for peer `s` (created on first use).
    fn peer(&mut self, r: usize, s: usize) -> &mut ratectl::PeerRate {
        let n = self.stations.len();
        let p = &self.p;
        let st = &mut self.stations[r];
        if st.peers.is_empty() {
            let top = p.rates.len() - 1;
            st.peers = vec![ratectl::PeerRate::new(&p.rate_control, top); n];
            st.stats.rate_frames = vec![0; p.rates.len()];
        }
        &mut st.peers[s]
    }

    /// Rate of the next data attempt from station `s` to `to` (`first`: a new frame's).
    fn pick_rate(&mut self, s: usize, to: u32, now: Time, first: bool) -> u64 {
        if self.p.rate_control.is_constant() {
            return self.p.data_rate;
        }
        let top = self.p.rates.len() - 1;
        self.peer(s, to as usize);
        let st = &mut self.stations[s];
        let k = st.peers[to as usize].pick_at(&self.p.rate_control, top, now, first, &mut st.rng);
        self.p.rates[k]
    }

    fn on_access(&mut self, s: usize, ctx: &mut DevCtx) {
        if self.stations[s].cur.is_none() && !self.load_next(s, ctx) {
            self.stations[s].backoff_ran_out();
            return;
        }
        if let Some((to, first)) = self.stations[s]
            .cur
            .map(|c| (c.to, c.short == 0 && c.long == 0))
        {
            // Broadcasts go at the basic rate, with no peer to adapt to.
            let rate = if to == BCAST {
                self.p.basic_rate
            } else {
                self.pick_rate(s, to, ctx.now, first)
            };
            if let Some(c) = self.stations[s].cur.as_mut() {
                c.rate = rate;
            }
        }
        let st = &mut self.stations[s];
        st.backing_off = false;
        if st.state != State::Idle || st.pending.is_some() {
            // A response is due first; contend again afterwards.
            st.backing_off = true;
            st.bo_slots = 0;
            let at = self.free_at(s).max(ctx.now);
            self.stations[s].bo_from = at;
            self.arm_access(s, ctx);
            return;
        }
        let Some(c) = st.cur.as_mut() else { return };
        c.fail = None;
        if c.short > 0 || c.long > 0 {
            st.stats.retries += 1;
        }
        let (to, seq, pkt, size, rate) = (c.to, c.seq, c.pkt, c.hdr.size, c.rate);
        st.state = State::Tx;
        let p = &self.p;
        if to == BCAST {
            self.broadcasts = true;
            let basic = p.basic_rate;
            self.transmit(s, Kind::Bcast, to, 0, size, seq, Some(pkt), basic, ctx);
        } else if size > p.rts_threshold {
            let nav = 3 * p.sifs + p.cts_time() + p.data_time_at(size, rate) + p.ack_time_for(rate);
            let b = p.rts_bytes;
            let basic = p.basic_rate;
            self.transmit(s, Kind::Rts, to, nav, b, seq, None, basic, ctx);
        } else {
            let nav = p.sifs + p.ack_time_for(rate);
            self.transmit(s, Kind::Data, to, nav, size, seq, Some(pkt), rate, ctx);
        }
    }

    fn on_respond(&mut self, r: usize, ctx: &mut DevCtx) {
        let Some(pend) = self.stations[r].pending.take() else {
            return;
        };
        match pend.kind {
            Kind::Data => {
                let c = self.stations[r].cur.expect("data follows its CTS");
                self.stations[r].state = State::Tx;
                self.transmit(
                    r,
                    Kind::Data,
                    c.to,
                    pend.nav,
                    c.hdr.size,
                    c.seq,
                    Some(c.pkt),
                    pend.rate,
                    ctx,
                );
            }
            kind => {
                // A CTS or ACK goes out SIFS after the frame, without sensing the medium.
                let bytes = if kind == Kind::Cts {
                    self.p.cts_bytes
                } else {
                    self.p.ack_bytes
                };
                self.stations[r].state = State::Respond;
                self.transmit(r, kind, pend.to, pend.nav, bytes, 0, None, pend.rate, ctx);
            }
        }
    }

    fn on_timeout(&mut self, s: usize, ctx: &mut DevCtx) {
        let to_node = self.stations[s]
            .cur
            .map(|c| self.stations[c.to as usize].node);
        let p = &self.p;
        let st = &mut self.stations[s];
        let waited = st.state;
        let c = st.cur.as_mut().expect("an exchange times out");
        // The data frame of an RTS/CTS exchange counts against the long retry limit; RTS and
        // short data frames against the short one (802.11-2016, 10.3.3).
        let long = waited == State::WaitAck && c.hdr.size > p.rts_threshold;
        if long {
            c.long += 1;
        } else {
            c.short += 1;
        }
        let cause = c.fail.unwrap_or(DropCause::Collision);
        if waited == State::WaitAck && !p.rate_control.is_constant() {
            // All the manager learns: the data frame went unacknowledged.
            let to = c.to as usize;
            st.peers[to].on_failure(&p.rate_control);
        }
        if cause == DropCause::ChannelError {
            st.stats.failed_channel += 1;
        } else {
            st.stats.failed_collision += 1;
        }
        st.state = State::Idle;
        if c.short >= p.short_retry_limit || c.long >= p.long_retry_limit {
            let c = st.cur.take().expect("checked");
            st.cw = p.cw_min;
            // All the sender knows: its frame went unacknowledged to the retry limit (its
            // own copy of the packet says which one).
            ctx.notes.push(LossNote {
                node: st.node,
                at: ctx.now,
                loss: LinkLoss::GaveUp(st.dev),
                wire: c.hdr.wire,
                next_hop: to_node,
            });
            if c.delivered {
                st.stats.gave_up_after_delivery += 1;
            } else {
                st.stats.drops[cause.index()] += 1;
                ctx.out.push(DevOut::Drop(c.pkt, cause));
            }
            self.release(s, ctx);
        } else {
            st.cw = (2 * st.cw + 1).min(p.cw_max);
            self.release(s, ctx);
        }
    }

    fn handle(&mut self, s: usize, ctx: &mut DevCtx, v: u32) {
        let (kind, low) = (v >> 29, v & LOW);
        match kind {
            ACCESS if low == self.stations[s].wake_id && self.stations[s].wake.is_some() => {
                self.on_wake(s, ctx)
            }
            TIMEOUT
                if low == self.stations[s].gen
                    && matches!(self.stations[s].state, State::WaitCts | State::WaitAck) =>
            {
                self.on_timeout(s, ctx)
            }
            EVAL => self.on_eval(low, ctx),
            RESPOND => self.on_respond(s, ctx),
            _ => {}
        }
    }

    fn enqueue(&mut self, s: usize, ctx: &mut DevCtx, id: PacketId, next_hop: NodeId, front: bool) {
        let to = if next_hop == super::BROADCAST {
            BCAST
        } else {
            let to = self.by_node[next_hop.idx()];
            assert!(to != u32::MAX, "next hop is not on this medium");
            to
        };
        let now = ctx.now;
        let st = &mut self.stations[s];
        if !front {
            if let Verdict::Drop(cause) = st.policy.admit(now, ctx.pool.get_mut(id), &st.fifo) {
                st.stats.drops[cause.index()] += 1;
                ctx.out.push(DevOut::Drop(id, cause));
                return;
            }
        }
        st.note_queue(now);
        let arrival = st.cur.is_none() && st.fifo.is_empty();
        let size = ctx.pool.get(id).size;
        if front {
            st.fifo.push_front(id, size);
            st.next.push_front(to);
        } else {
            st.fifo.push(id, size);
            st.next.push_back(to);
        }
        st.stats.max_queue = st.stats.max_queue.max(st.fifo.len() as u64);
        self.try_start(s, ctx, arrival);
    }

    /// Packets station `s` holds: queued, or in an exchange and not yet delivered.
    fn in_network(&self, s: usize) -> u64 {
        let st = &self.stations[s];
        st.fifo.len() as u64 + u64::from(st.cur.is_some_and(|c| !c.delivered))
    }

    /// The row of station `s` in the `macs` table.
    pub fn metrics(&self, s: usize, end: Time) -> BTreeMap<&'static str, Metric> {
        let st = &self.stations[s];
        let x = &st.stats;
        let end_f = end.max(1) as f64;
        let mut m = BTreeMap::new();
        let mut c = |k, v| {
            m.insert(k, Metric::Count(v));
        };
        c("data_frames", x.data_frames);
        c("rts_frames", x.rts_frames);
        c("cts_frames", x.cts_frames);
        c("ack_frames", x.ack_frames);
        if self.broadcasts {
            c("broadcast_frames", x.bcast_frames);
            c("rx_broadcast", x.rx_bcast);
        }
        c("retries", x.retries);
        c("failed_collision", x.failed_collision);
        c("failed_channel", x.failed_channel);
        c(
            "drops_retry_collision",
            x.drops[DropCause::Collision.index()],
        );
        c(
            "drops_retry_channel",
            x.drops[DropCause::ChannelError.index()],
        );
        c(
            "drops_retry_limit",
            x.drops[DropCause::Collision.index()] + x.drops[DropCause::ChannelError.index()],
        );
        c(
            "drops_queue_overflow",
            x.drops[DropCause::QueueOverflow.index()],
        );
        c("drops_aqm", x.drops[DropCause::Aqm.index()]);
        c("gave_up_after_delivery", x.gave_up_after_delivery);
        c("rx_data", x.rx_data);
        c("rx_duplicates", x.rx_duplicates);
        c("rx_collisions", x.rx_collisions);
        c("rx_channel_errors", x.rx_channel_errors);
        c("max_queue_packets", x.max_queue);
        m.insert(
            "busy_fraction",
            Metric::Real((x.busy_time.min(end) as f64 / end_f).min(1.0)),
        );
        m.insert(
            "tx_fraction",
            Metric::Real((x.tx_time as f64 / end_f).min(1.0)),
        );
        m.insert(
            "mean_queue_packets",
            Metric::Real(x.queue_area as f64 / end_f),
        );
        if !self.p.rate_control.is_constant() {
            // The rate use of the station's manager: data frames sent at each rate.
            for (k, &rate) in self.p.rates.iter().enumerate() {
                let n = x.rate_frames.get(k).copied().unwrap_or(0);
                m.insert(rate_column(rate), Metric::Count(n));
            }
        }
        m
    }
}
