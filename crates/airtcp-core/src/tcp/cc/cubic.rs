//! CUBIC (RFC 9438). In congestion avoidance the window follows
//! W_cubic(t) = C·(t − K)³ + W_max, K = ∛((W_max − cwnd_epoch)/C), with t the time since the
//! epoch began, aiming one RTT ahead; where standard TCP would be faster (the Reno-friendly
//! region) it follows W_est instead. On congestion W_max = cwnd (reduced further by fast
//! convergence when the window is shrinking) and ssthresh = β_cubic·cwnd.
//! Windows are in segments (floating point) inside the scheme, bytes outside.

use super::{AckInfo, CcState, CongestionControl, CongestionEvent, Params, Reaction};
use crate::engine::{Time, SEC};

#[derive(Clone, Debug)]
pub struct Cubic {
    c: f64,
    beta: f64,
    fast_convergence: bool,
    w_max: f64,
    k: f64,
    epoch_start: Option<Time>,
    /// Reno-friendly window estimate (segments).
    w_est: f64,
    /// Fractional window growth carried between ACKs (segments).
    carry: f64,
}

/// `cubic` with its parameters: RFC 9438 in floating point, or with `linux = 1` Linux's
/// integer arithmetic (`LinuxCubic`).
pub fn build(p: &mut Params) -> Result<Box<dyn CongestionControl>, (String, String)> {
    let rfc = Cubic::new(p)?;
    let linux = p.get("linux", 0.0)?;
    if ![0.0, 1.0, 2.0].contains(&linux) {
        return Err(("linux".into(), format!("must be 0, 1 or 2, got {linux}")));
    }
    let hz = p.get("hz", 0.0)?;
    if !(0.0..=10_000.0).contains(&hz) || hz.fract() != 0.0 {
        return Err((
            "hz".into(),
            format!("must be a whole number in 0..=10000, got {hz}"),
        ));
    }
    Ok(if linux == 0.0 {
        Box::new(rfc)
    } else {
        let mut l = LinuxCubic::new(rfc.c, rfc.beta, rfc.fast_convergence);
        l.ns3_slow_start = linux == 2.0;
        l.hz = hz as u64;
        // HyStart is part of Linux's CUBIC (tcp_cubic.c's `hystart = 1`); ns-3's port
        // (linux = 2) leaves it out.
        l.hystart = (linux == 1.0).then(HyStart::default);
        Box::new(l)
    })
}

impl Cubic {
    pub fn new(p: &mut Params) -> Result<Self, (String, String)> {
        let c = p.get("c", 0.4)?;
        let beta = p.get("beta", 0.7)?;
        let fc = p.get("fast_convergence", 1.0)?;
        if c <= 0.0 {
            return Err(("c".into(), format!("must be > 0, got {c}")));
        }
        if !(0.0 < beta && beta < 1.0) {
            return Err(("beta".into(), format!("must be in (0, 1), got {beta}")));
        }
        Ok(Cubic {
            c,
            beta,
            fast_convergence: fc != 0.0,
            w_max: 0.0,
            k: 0.0,
            epoch_start: None,
            w_est: 0.0,
            carry: 0.0,
        })
    }

    /// W_cubic(t) in segments, t in seconds since the epoch began (RFC 9438 eq. 1).
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.c * (t - self.k).powi(3) + self.w_max
    }

    pub fn k(&self) -> f64 {
        self.k
    }

    fn alpha_cubic(&self) -> f64 {
        // RFC 9438 eq. 4: 3(1 − β)/(1 + β), so the Reno-friendly region matches Reno's rate.
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }

    fn start_epoch(&mut self, now: Time, cwnd: f64) {
        self.epoch_start = Some(now);
        if cwnd < self.w_max {
            self.k = ((self.w_max - cwnd) / self.c).cbrt();
        } else {
            self.k = 0.0;
            self.w_max = cwnd;
        }
        self.w_est = cwnd;
        self.carry = 0.0;
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        if ack.no_growth() {
            return;
        }
        let mss = st.mss as f64;
        if st.cwnd < st.ssthresh {
            // Slow start as standard TCP (no HyStart).
            st.cwnd += ack.acked_bytes.min(st.mss);
            return;
        }
        let cwnd = st.cwnd as f64 / mss;
        if self.epoch_start.is_none() {
            self.start_epoch(ack.now, cwnd);
        }
        let t = (ack.now - self.epoch_start.unwrap_or(ack.now)) as f64 / SEC as f64;
        let rtt = ack.srtt.or(ack.min_rtt).unwrap_or(0) as f64 / SEC as f64;
        let acked = ack.acked_bytes as f64 / mss;
        // Reno-friendly estimate (RFC 9438 4.3).
        self.w_est += self.alpha_cubic() * acked / cwnd;
        let cubic_now = self.w_cubic(t);
        let growth = if cubic_now < self.w_est {
            // Reno-friendly region: track W_est.
            (self.w_est - cwnd).max(0.0)
        } else {
            // Concave/convex regions (4.4, 4.5): aim at W_cubic one RTT ahead, clamped to
            // [cwnd, 1.5 cwnd].
            let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
            (target - cwnd) / cwnd * acked
        };
        self.carry += growth * mss;
        let whole = self.carry.floor();
        self.carry -= whole;
        st.cwnd += whole as u64;
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        // The window in use is the flight size: equal to cwnd outside recovery, and not
        // inflated by duplicate ACKs when a timeout strikes during recovery (RFC 9438 4.6 uses
        // flight_size for ssthresh for the same reason).
        let w = (ev.flight_size.min(st.cwnd) as f64 / st.mss as f64).max(1.0);
        // Fast convergence (4.7): release bandwidth when the window shrinks epoch to epoch.
        self.w_max = if self.fast_convergence && w < self.w_max {
            w * (1.0 + self.beta) / 2.0
        } else {
            w
        };
        self.epoch_start = None;
        Reaction::cut(((w * self.beta) * st.mss as f64) as u64)
    }
}

/// CUBIC in Linux's integer arithmetic (`tcp_cubic.c`'s `bictcp_update`) as ns-3.44's
/// `TcpCubic` ports it, selected by `cc_params.linux = 1` (the `ns3` and `linux` profiles'
/// default). Windows are whole segments: the cubic target is truncated to a segment and turned
/// into `cnt`, the number of segments to acknowledge per one-segment increase; before the first
/// loss `cnt` is at most 20; the Reno-friendly window grows by one segment per
/// ⌊cwnd·15/8⌋ acknowledged (β = 0.7: 8(1024 + 717)/3/(1024 − 717) = 15 in Linux's fixed
/// point), and where it is ahead `cnt` is at most cwnd/(W_tcp − cwnd). Slow start counts every
/// acknowledged segment. Each ACK adds at most one segment. A timeout forgets W_max
/// (ns-3's `CubicReset` on `CA_LOSS`).
#[derive(Clone, Debug)]
pub struct LinuxCubic {
    /// ns-3.44's port: slow start adds every acknowledged segment, past ssthresh too, and
    /// passes nothing on to congestion avoidance (Linux's `tcp_slow_start` stops at
    /// ssthresh and hands the rest on).
    ns3_slow_start: bool,
    c: f64,
    beta: f64,
    fast_convergence: bool,
    cnt_clamp: u32,
    /// Segments acknowledged since the last increase.
    cwnd_cnt: u32,
    last_max: u32,
    origin: u32,
    k: f64,
    epoch_start: Option<Time>,
    ack_cnt: u32,
    tcp_cwnd: u32,
    delay_min: Time,
    /// Bytes acknowledged short of a whole segment, carried to the next ACK.
    carry_bytes: u64,
    /// Linux's HyStart (`hystart = 1`), None when off.
    hystart: Option<HyStart>,
    /// The kernel's clock rate (`CONFIG_HZ`) when `bictcp_update` runs on it (`hz` > 0): its
    /// time in whole jiffies, and `cnt` recomputed at most once per jiffy, and not for
    /// HZ/32 jiffies while cwnd stays the same. 0: exact time, `cnt` on every ACK.
    hz: u64,
    /// `cnt` as last computed, `last_cwnd` and `last_time` (jiffies) of that computation.
    cnt: u32,
    last_cwnd: u32,
    last_time: u64,
}

/// HyStart as `tcp_cubic.c` runs it (`hystart_detect` = ACK train and delay): in slow start at
/// 16 segments or more, each RTT sample may end slow start (ssthresh = cwnd) when
///
/// - ACK train: ACKs arriving at most 2 ms apart (`hystart_ack_delta_us`) span more than
///   (delay_min + ack delay) / 2 since the round began (halved because nothing paces), the
///   ack delay min(1 ms, 4 × 64 KiB / pacing rate) with Linux's slow-start pacing rate
///   2 cwnd / SRTT;
/// - delay: after 8 samples of a round (`HYSTART_MIN_SAMPLES`), the round's smallest RTT
///   exceeds delay_min + clamp(delay_min / 8, 4 ms, 16 ms).
///
/// A round ends once the cumulative ACK passes the `snd_nxt` of its start
/// (`bictcp_hystart_reset`).
#[derive(Clone, Debug, Default)]
pub struct HyStart {
    started: bool,
    round_start: Time,
    last_ack: Time,
    end_seq: u64,
    curr_rtt: Option<Time>,
    sample_cnt: u32,
}

impl HyStart {
    const LOW_WINDOW: u64 = 16;
    const ACK_DELTA: Time = 2 * crate::engine::MS;
    const MIN_SAMPLES: u32 = 8;
    const DELAY_MIN: Time = 4 * crate::engine::MS;
    const DELAY_MAX: Time = 16 * crate::engine::MS;

    fn reset(&mut self, now: Time, snd_nxt: u64) {
        self.started = true;
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = snd_nxt;
        self.curr_rtt = None;
        self.sample_cnt = 0;
    }

    /// `hystart_update` for one RTT sample `delay`; true when slow start should end.
    fn update(&mut self, ack: &AckInfo, delay: Time, delay_min: Time, cwnd: u64) -> bool {
        if !self.started || ack.ack_seq > self.end_seq {
            self.reset(ack.now, ack.snd_nxt);
        }
        let mut found = false;
        if ack.now - self.last_ack <= Self::ACK_DELTA {
            self.last_ack = ack.now;
            let ack_delay = match ack.srtt.filter(|&s| s > 0) {
                // 4 × 64 KiB at the pacing rate 2 cwnd / SRTT, at most 1 ms.
                Some(srtt) => ((4 * 65_536 * srtt as u128 / (2 * cwnd.max(1)) as u128) as Time)
                    .min(crate::engine::MS),
                None => 0,
            };
            if ack.now - self.round_start > (delay_min + ack_delay) / 2 {
                found = true;
            }
        }
        self.curr_rtt = Some(self.curr_rtt.map_or(delay, |c| c.min(delay)));
        if self.sample_cnt < Self::MIN_SAMPLES {
            self.sample_cnt += 1;
        } else if self.curr_rtt.unwrap_or(0)
            > delay_min + (delay_min / 8).clamp(Self::DELAY_MIN, Self::DELAY_MAX)
        {
            found = true;
        }
        found
    }
}

impl LinuxCubic {
    pub fn new(c: f64, beta: f64, fast_convergence: bool) -> Self {
        LinuxCubic {
            ns3_slow_start: false,
            c,
            beta,
            fast_convergence,
            cnt_clamp: 20,
            cwnd_cnt: 0,
            last_max: 0,
            origin: 0,
            k: 0.0,
            epoch_start: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            delay_min: 0,
            carry_bytes: 0,
            hystart: None,
            hz: 0,
            cnt: 0,
            last_cwnd: 0,
            last_time: 0,
        }
    }

    fn jiffies(&self, now: Time) -> u64 {
        (now as u128 * self.hz as u128 / SEC as u128) as u64
    }

    /// Linux's `tcp_cong_avoid_ai(tp, w, acked)` (net/ipv4/tcp_cong.c): the segments to add
    /// to cwnd for `acked` more acknowledged, one per `w`, as many as they cover (a counter
    /// already at `w`, because `w` shrank, first adds one and restarts). ns-3's port adds at
    /// most one per ACK.
    fn cong_avoid_ai(cwnd_cnt: &mut u32, w: u32, acked: u32) -> u32 {
        let w = w.max(1);
        let mut add = 0;
        if *cwnd_cnt >= w {
            *cwnd_cnt = 0;
            add += 1;
        }
        *cwnd_cnt += acked;
        if *cwnd_cnt >= w {
            let delta = *cwnd_cnt / w;
            *cwnd_cnt -= delta * w;
            add += delta;
        }
        add
    }

    /// `bictcp_update`: segments to acknowledge per one-segment increase.
    fn update(&mut self, now: Time, seg_cwnd: u32, acked: u32) -> u32 {
        self.ack_cnt += acked;
        if self.hz > 0 {
            let j = self.jiffies(now);
            // The cubic part runs at most once per HZ/32 jiffies while cwnd stays (the
            // Reno-friendly count is not brought up to date either) and once per jiffy.
            if self.last_cwnd == seg_cwnd && j.saturating_sub(self.last_time) <= self.hz / 32 {
                return self.cnt;
            }
            if self.epoch_start.is_some() && j == self.last_time {
                self.cnt = self.friendliness(self.cnt, seg_cwnd);
                return self.cnt;
            }
            self.last_cwnd = seg_cwnd;
            self.last_time = j;
        }
        if self.epoch_start.is_none() {
            // On the kernel's clock an epoch begins at the jiffy's start.
            let at = if self.hz > 0 {
                (self.jiffies(now) as u128 * SEC as u128 / self.hz as u128) as Time
            } else {
                now
            };
            self.epoch_start = Some(at);
            self.ack_cnt = acked;
            self.tcp_cwnd = seg_cwnd;
            if self.last_max <= seg_cwnd {
                self.k = 0.0;
                self.origin = seg_cwnd;
            } else {
                self.k = ((self.last_max - seg_cwnd) as f64 / self.c).cbrt();
                self.origin = self.last_max;
            }
        }
        let t = if self.hz > 0 {
            // Whole jiffies since the epoch began plus delay_min rounded up to a jiffy
            // (usecs_to_jiffies), in 1/1024 s (BICTCP_HZ).
            let since = self.jiffies(now) - self.jiffies(self.epoch_start.unwrap_or(now));
            let dmin = (self.delay_min as u128 * self.hz as u128).div_ceil(SEC as u128) as u64;
            ((since + dmin) * 1024 / self.hz) as f64 / 1024.0
        } else {
            (now - self.epoch_start.unwrap_or(now) + self.delay_min) as f64 / SEC as f64
        };
        let offs = (t - self.k).abs();
        let delta = (self.c * offs.powi(3)) as u32;
        let target = if t < self.k {
            self.origin.saturating_sub(delta)
        } else {
            self.origin + delta
        };
        let mut cnt = if target > seg_cwnd {
            seg_cwnd / (target - seg_cwnd)
        } else {
            100 * seg_cwnd
        };
        if self.last_max == 0 {
            cnt = cnt.min(self.cnt_clamp);
        }
        self.cnt = self.friendliness(cnt, seg_cwnd);
        self.cnt
    }

    /// The Reno-friendly window (Linux's `tcp_friendliness`, beta_scale = 15 for β = 0.7)
    /// bounds `cnt`, which is at least 2.
    fn friendliness(&mut self, mut cnt: u32, seg_cwnd: u32) -> u32 {
        let scale = (8.0 * (1.0 + self.beta) / 3.0 / (1.0 - self.beta)) as u32;
        let per = ((seg_cwnd * scale) >> 3).max(1);
        while self.ack_cnt > per {
            self.ack_cnt -= per;
            self.tcp_cwnd += 1;
        }
        if self.tcp_cwnd > seg_cwnd {
            cnt = cnt.min(seg_cwnd / (self.tcp_cwnd - seg_cwnd));
        }
        cnt.max(2)
    }
}

impl CongestionControl for LinuxCubic {
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        if let Some(r) = ack.rtt {
            // PktsAcked: the minimum delay, except just after an epoch began (ns-3's
            // CubicDelta, 10 ms; Linux's bictcp_acked ignores the sample, HyStart's use too,
            // for a second).
            let hold = if self.ns3_slow_start {
                10 * crate::engine::MS
            } else {
                SEC
            };
            let fresh = self
                .epoch_start
                .is_some_and(|e| ack.now.saturating_sub(e) < hold);
            if !fresh && (self.delay_min == 0 || r < self.delay_min) {
                self.delay_min = r;
            }
            // bictcp_acked runs HyStart before the ACK grows the window.
            if let Some(h) = self.hystart.as_mut().filter(|_| !fresh) {
                if st.cwnd < st.ssthresh
                    && st.cwnd / st.mss >= HyStart::LOW_WINDOW
                    && h.update(ack, r.max(1), self.delay_min, st.cwnd)
                {
                    st.ssthresh = st.cwnd;
                }
            }
        }
        // Linux counts what the ACK delivered (acked_sacked) under `window_growth = "linux"`.
        let acked = if ack.linux_growth {
            ack.delivered_bytes
        } else {
            ack.acked_bytes
        };
        if ack.in_recovery || acked == 0 || ack.hold_growth {
            return;
        }
        self.carry_bytes += acked;
        let mut segs = (self.carry_bytes / st.mss) as u32;
        self.carry_bytes %= st.mss;
        if segs == 0 {
            return;
        }
        if st.cwnd < st.ssthresh && self.ns3_slow_start {
            st.cwnd += segs as u64 * st.mss;
            return;
        }
        if st.cwnd < st.ssthresh {
            let before = st.cwnd;
            st.cwnd = (st.cwnd + segs as u64 * st.mss).min(st.ssthresh);
            segs -= ((st.cwnd - before) / st.mss) as u32;
            if segs == 0 {
                return;
            }
        }
        let seg_cwnd = (st.cwnd / st.mss) as u32;
        if self.ns3_slow_start {
            self.cwnd_cnt += segs;
            let cnt = self.update(ack.now, seg_cwnd, segs);
            if self.cwnd_cnt >= cnt {
                st.cwnd += st.mss;
                self.cwnd_cnt -= cnt;
            }
        } else {
            let cnt = self.update(ack.now, seg_cwnd, segs);
            let add = Self::cong_avoid_ai(&mut self.cwnd_cnt, cnt, segs);
            st.cwnd += add as u64 * st.mss;
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        let seg_cwnd = (st.cwnd / st.mss) as u32;
        self.last_max = if self.fast_convergence && seg_cwnd < self.last_max {
            (seg_cwnd as f64 * (1.0 + self.beta) / 2.0) as u32
        } else {
            seg_cwnd
        };
        self.epoch_start = None;
        if ev.kind == super::CongestionKind::Timeout {
            // CubicReset: the timeout's slow start begins a history of its own.
            *self = LinuxCubic {
                ns3_slow_start: self.ns3_slow_start,
                hystart: self.hystart.as_ref().map(|_| HyStart::default()),
                hz: self.hz,
                ..LinuxCubic::new(self.c, self.beta, self.fast_convergence)
            };
        }
        let segs = ((seg_cwnd as f64 * self.beta) as u64).max(2);
        Reaction::cut(segs * st.mss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use crate::tcp::cc::CongestionKind;
    use std::collections::BTreeMap;

    fn cubic() -> Cubic {
        let m = BTreeMap::new();
        Cubic::new(&mut Params::new(&m)).unwrap()
    }

    #[test]
    fn k_and_w_of_t() {
        let mut c = cubic();
        c.w_max = 100.0;
        c.start_epoch(0, 70.0);
        // K = cbrt(30 / 0.4) = cbrt(75) = 4.217...
        assert!((c.k() - 75f64.cbrt()).abs() < 1e-12);
        assert!((c.w_cubic(0.0) - 70.0).abs() < 1e-9);
        assert!((c.w_cubic(c.k()) - 100.0).abs() < 1e-9);
        assert!((c.w_cubic(c.k() + 1.0) - 100.4).abs() < 1e-9);
        assert!((c.alpha_cubic() - 0.9 / 1.7).abs() < 1e-12);
    }

    #[test]
    fn congestion_sets_wmax_and_beta_ssthresh_with_fast_convergence() {
        let mut c = cubic();
        let st = CcState {
            cwnd: 100_000,
            ssthresh: 1 << 30,
            mss: 1000,
        };
        let ev = CongestionEvent::at(0, CongestionKind::DupAcks, 100_000);
        assert_eq!(c.on_congestion(&ev, &st).ssthresh, 70_000);
        assert_eq!(c.w_max, 100.0);
        let st2 = CcState { cwnd: 80_000, ..st };
        c.on_congestion(&ev, &st2);
        assert!(
            (c.w_max - 80.0 * 1.7 / 2.0).abs() < 1e-9,
            "fast convergence"
        );
    }

    #[test]
    fn ack_clocked_window_follows_w_of_t() {
        // Drive the scheme with one window of ACKs per 100 ms RTT and compare cwnd(t) with
        // W_cubic(t).
        let mut c = cubic();
        c.w_max = 100.0;
        let mut st = CcState {
            cwnd: 70_000,
            ssthresh: 70_000,
            mss: 1000,
        };
        let rtt = 100 * MS;
        let mut now = 0;
        let mut worst: f64 = 0.0;
        for _round in 0..80 {
            let n = st.cwnd / 1000;
            for i in 0..n {
                let a = AckInfo {
                    now: now + rtt * i / n,
                    acked_bytes: 1000,
                    srtt: Some(rtt),
                    ..Default::default()
                };
                c.on_ack(&a, &mut st);
            }
            now += rtt;
            let t = now as f64 / SEC as f64;
            let w = c.w_cubic(t);
            let cw = st.cwnd as f64 / 1000.0;
            worst = worst.max((cw - w).abs() / w);
        }
        assert!(worst < 0.05, "cwnd strays {:.1}% from W(t)", worst * 100.0);
    }

    #[test]
    fn linux_arithmetic_counts_acks_per_segment() {
        // bictcp_update at the start of an epoch with no loss yet: the cubic target equals
        // cwnd, so cnt = 100·cwnd, clamped to 20 (no W_max yet).
        let mut c = LinuxCubic::new(0.4, 0.7, true);
        assert_eq!(c.update(0, 10, 1), 20);
        // The Reno-friendly window: one segment per ⌊10·15/8⌋ = 18 acknowledged; once it
        // is ahead of cwnd by one, cnt is at most cwnd / 1.
        assert_eq!(c.update(0, 10, 18), 10);
        assert_eq!(c.tcp_cwnd, 11);
        // After a loss at 14 segments: W_max = 14, K = ∛((14 − 9)/0.4) s; one RTT (100 ms)
        // into the epoch the target is W_max − ⌊0.4·(K − 0.1)³⌋.
        let mut c = LinuxCubic::new(0.4, 0.7, true);
        c.last_max = 14;
        c.delay_min = 100 * MS;
        let k = (5.0f64 / 0.4).cbrt();
        let target = 14 - (0.4 * (k - 0.1).powi(3)) as u32;
        assert_eq!(target, 10);
        assert_eq!(c.update(0, 9, 1), (9 / (target - 9)).max(2));
    }

    #[test]
    fn on_the_kernel_clock_cnt_waits_hz_over_32_jiffies_while_cwnd_stays() {
        // bictcp_update with HZ = 250: a jiffy is 4 ms, HZ/32 = 7 jiffies. No W_max yet, so
        // cnt is clamped to 20 at the epoch's start (jiffy 0).
        let mut c = LinuxCubic::new(0.4, 0.7, true);
        c.hz = 250;
        assert_eq!(c.update(0, 10, 1), 20);
        // 18 more segments acknowledged at jiffy 7: the Reno-friendly window would be one
        // ahead, but with cwnd still 10 the kernel keeps cnt and does not count it yet.
        assert_eq!(c.update(28 * MS, 10, 18), 20);
        assert_eq!(c.tcp_cwnd, 10);
        // At jiffy 8 it recomputes: cnt = 10 / (11 − 10).
        assert_eq!(c.update(32 * MS, 10, 0), 10);
        assert_eq!(c.tcp_cwnd, 11);
        // On exact time the same ACKs give cnt = 10 at once.
        let mut c = LinuxCubic::new(0.4, 0.7, true);
        assert_eq!(c.update(0, 10, 1), 20);
        assert_eq!(c.update(28 * MS, 10, 18), 10);
    }

    #[test]
    fn on_the_kernel_clock_cnt_is_computed_once_per_jiffy() {
        // After a loss at 14 segments, delay_min 100 ms (25 jiffies): the target one RTT into
        // the epoch is 10, so at cwnd 9 cnt = 9. cwnd grows to 10 within the same jiffy:
        // the kernel keeps cnt (only the Reno-friendly bound is applied); exact time
        // recomputes (target 10 = cwnd: cnt = 100 · 10).
        for (hz, want) in [(250, 9), (0, 1000)] {
            let mut c = LinuxCubic::new(0.4, 0.7, true);
            c.hz = hz;
            c.last_max = 14;
            c.delay_min = 100 * MS;
            assert_eq!(c.update(0, 9, 1), 9, "hz = {hz}");
            assert_eq!(c.update(MS, 10, 1), want, "hz = {hz}");
        }
    }

    fn hystart_cubic() -> LinuxCubic {
        let mut c = LinuxCubic::new(0.4, 0.7, true);
        c.hystart = Some(HyStart::default());
        c.delay_min = 40 * MS;
        c
    }

    fn rtt_ack(now: Time, rtt: Time, ack_seq: u64, snd_nxt: u64) -> AckInfo {
        AckInfo {
            now,
            acked_bytes: 2000,
            rtt: Some(rtt),
            srtt: Some(40 * MS),
            ack_seq,
            snd_nxt,
            ..Default::default()
        }
    }

    #[test]
    fn hystart_delay_ends_slow_start_once_a_rounds_rtt_rises() {
        // delay_min 40 ms: the threshold is 40 + clamp(5, 4, 16) = 45 ms. ACKs 3 ms apart
        // (no ACK train), all in one round (snd_nxt far ahead).
        for (rtt, ends) in [(46 * MS, true), (44 * MS, false)] {
            let mut c = hystart_cubic();
            let mut st = CcState {
                cwnd: 20_000,
                ssthresh: 1 << 30,
                mss: 1000,
            };
            let mut ended_at = None;
            for i in 0..12u64 {
                c.on_ack(&rtt_ack(SEC + i * 3 * MS, rtt, i, 1 << 20), &mut st);
                if ended_at.is_none() && st.ssthresh < 1 << 30 {
                    ended_at = Some(i);
                }
            }
            // The first 8 samples only collect; the 9th decides.
            assert_eq!(ended_at, ends.then_some(8), "rtt {rtt}");
            if ends {
                // ssthresh = cwnd at that ACK (before it grew), then slow start is over.
                assert_eq!(st.ssthresh, 20_000 + 8 * 2000);
            }
        }
    }

    #[test]
    fn hystart_ack_train_ends_slow_start_after_half_the_min_rtt() {
        // ACKs 1 ms apart: the train exceeds (40 ms + 1 ms ack delay) / 2 = 20.5 ms at the
        // ACK 21 ms after the round began; RTT samples at delay_min (no delay signal).
        let mut c = hystart_cubic();
        let mut st = CcState {
            cwnd: 20_000,
            ssthresh: 1 << 30,
            mss: 1000,
        };
        let mut ended_at = None;
        for i in 0..30u64 {
            c.on_ack(&rtt_ack(SEC + i * MS, 40 * MS, i, 1 << 20), &mut st);
            if ended_at.is_none() && st.ssthresh < 1 << 30 {
                ended_at = Some(i);
            }
        }
        assert_eq!(ended_at, Some(21));
        // A gap above 2 ms breaks the train: ACKs 3 ms apart never trigger it, and below
        // 16 segments HyStart does not run at all.
        for (gap, cwnd) in [(3 * MS, 20_000), (MS, 15_000)] {
            let mut c = hystart_cubic();
            let mut st = CcState {
                cwnd,
                ssthresh: 1 << 30,
                mss: 1000,
            };
            let mut g = st;
            for i in 0..30u64 {
                g.cwnd = cwnd;
                c.on_ack(&rtt_ack(SEC + i * gap, 40 * MS, i, 1 << 20), &mut g);
            }
            st.ssthresh = g.ssthresh;
            assert_eq!(st.ssthresh, 1 << 30, "gap {gap}, cwnd {cwnd}");
        }
    }

    #[test]
    fn hystart_starts_a_new_round_when_the_ack_passes_its_end() {
        // Round 1 ends at sequence 100; its samples are high but only 5 of them. Round 2's
        // first sample is the lowest of the round so far: the count starts again.
        let mut c = hystart_cubic();
        let mut st = CcState {
            cwnd: 20_000,
            ssthresh: 1 << 30,
            mss: 1000,
        };
        for i in 0..5u64 {
            c.on_ack(&rtt_ack(SEC + i * 3 * MS, 50 * MS, i, 100), &mut st);
        }
        for i in 0..8u64 {
            c.on_ack(
                &rtt_ack(SEC + (10 + i) * 3 * MS, 41 * MS, 101 + i, 500),
                &mut st,
            );
        }
        assert_eq!(st.ssthresh, 1 << 30);
        let h = c.hystart.as_ref().unwrap();
        assert_eq!(
            (h.end_seq, h.sample_cnt, h.curr_rtt),
            (500, 8, Some(41 * MS))
        );
    }

    #[test]
    fn linux_cong_avoid_ai_adds_every_increment_an_ack_covers() {
        // tcp_cong_avoid_ai(w = 4): 2 + 2 acknowledged reach w: one segment, counter 0.
        let mut cnt = 2;
        assert_eq!(LinuxCubic::cong_avoid_ai(&mut cnt, 4, 2), 1);
        assert_eq!(cnt, 0);
        // 9 acknowledged at once (an ACK after a recovery): two segments, 1 carried.
        assert_eq!(LinuxCubic::cong_avoid_ai(&mut cnt, 4, 9), 2);
        assert_eq!(cnt, 1);
        // w shrank below the counter: one segment and a fresh count before adding.
        let mut cnt = 7;
        assert_eq!(LinuxCubic::cong_avoid_ai(&mut cnt, 5, 1), 1);
        assert_eq!(cnt, 1);
        // In the scheme: linux = 1 adds both increments of one large ACK, ns-3's port one.
        let grow = |ns3: bool| {
            let mut c = LinuxCubic::new(0.4, 0.7, true);
            c.ns3_slow_start = ns3;
            c.last_max = 10;
            let mut st = CcState {
                cwnd: 10 * 1000,
                ssthresh: 5 * 1000,
                mss: 1000,
            };
            let a = AckInfo {
                now: 0,
                acked_bytes: 60 * 1000,
                ..Default::default()
            };
            c.on_ack(&a, &mut st);
            st.cwnd / 1000
        };
        // cnt is 100·cwnd at the origin, but the Reno-friendly window (one segment per 18
        // acknowledged) is 3 ahead after 60: cnt = 10 / 3 = 3, so 60 segments add 20.
        assert_eq!(grow(false), 30);
        assert_eq!(grow(true), 11);
    }

    #[test]
    fn linux_arithmetic_cuts_whole_segments_and_forgets_wmax_on_timeout() {
        let mut c = LinuxCubic::new(0.4, 0.7, true);
        let st = CcState {
            cwnd: 15 * 536 + 100,
            ssthresh: 1 << 30,
            mss: 536,
        };
        let ev = |kind| CongestionEvent {
            now: 0,
            kind,
            in_flight: 15 * 536,
            flight_size: 15 * 536,
            min_rtt: None,
            true_cause: None,
        };
        // ⌊15 · 0.7⌋ = 10 segments; W_max = 15.
        assert_eq!(
            c.on_congestion(&ev(CongestionKind::DupAcks), &st).ssthresh,
            10 * 536
        );
        assert_eq!(c.last_max, 15);
        // Smaller next time: fast convergence, ⌊12 · 1.7 / 2⌋ = 10.
        let st12 = CcState {
            cwnd: 12 * 536,
            ..st
        };
        c.on_congestion(&ev(CongestionKind::DupAcks), &st12);
        assert_eq!(c.last_max, 10);
        assert_eq!(
            c.on_congestion(&ev(CongestionKind::Timeout), &st12)
                .ssthresh,
            8 * 536
        );
        assert_eq!((c.last_max, c.tcp_cwnd, c.epoch_start), (0, 0, None));
    }

    #[test]
    fn ns3_slow_start_is_not_capped_at_ssthresh() {
        // ns-3.44's TcpCubic adds every acknowledged segment in slow start, past ssthresh;
        // Linux's tcp_slow_start stops at ssthresh (2) and hands the other 15 to congestion
        // avoidance: the Reno-friendly window (one segment per ⌊2·15/8⌋ = 3) is 4 ahead, so
        // cnt = 2 and tcp_cong_avoid_ai adds ⌊15/2⌋ = 7.
        for (ns3, want) in [(false, 9), (true, 17)] {
            let mut c = LinuxCubic::new(0.4, 0.7, true);
            c.ns3_slow_start = ns3;
            let mut st = CcState {
                cwnd: 1000,
                ssthresh: 2000,
                mss: 1000,
            };
            let a = AckInfo {
                now: SEC,
                acked_bytes: 16_000,
                ..Default::default()
            };
            c.on_ack(&a, &mut st);
            assert_eq!(st.cwnd / 1000, want, "ns3 = {ns3}");
        }
    }

    #[test]
    fn the_linux_parameter_selects_the_arithmetic() {
        let mut m = BTreeMap::new();
        m.insert("linux".to_string(), 3.0);
        assert_eq!(build(&mut Params::new(&m)).err().unwrap().0, "linux");
    }
}
