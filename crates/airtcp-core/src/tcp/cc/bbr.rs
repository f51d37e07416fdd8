//! BBR v1 (Cardwell, Cheng, Gunn, Hassas Yeganeh & Jacobson, "BBR: Congestion-Based
//! Congestion Control", ACM Queue 14(5), 2016; draft-cardwell-iccrg-bbr-congestion-control-00;
//! the behaviour of Linux's `tcp_bbr.c`). A model-based scheme: the bottleneck bandwidth is the
//! windowed maximum of delivery-rate samples over 10 rounds, the propagation delay the windowed
//! minimum RTT over 10 s; the flow paces at pacing_gain × bandwidth and keeps at most
//! cwnd_gain × BDP (plus a small allowance) in flight. A loss does not shrink the model: only
//! the first round of recovery follows packet conservation, and the window held before the loss
//! is restored once it is repaired.
//!
//! States: STARTUP (gains 2/ln 2) until the bandwidth grew less than 25% in 3 rounds, DRAIN
//! (pacing gain ln 2/2) until inflight is down to the BDP, then PROBE_BW (an 8-phase pacing-gain
//! cycle, one phase per min RTT), with PROBE_RTT (cwnd 4 segments for 200 ms and a round) when
//! the min RTT has not been refreshed for 10 s.
//!
//! The sender keeps no per-packet delivery-rate state, so [`RateSampler`] rebuilds it from what
//! the scheme is told: every transmission (`on_sent`) and every ACK (`AckInfo`). Windows and
//! counts are in bytes, rates in bytes/s inside the scheme; `pacing_rate` gives bits/s.

pub use super::bbr_rate::{MaxFilter, RateSample, RateSampler};
use super::{
    AckInfo, CcState, CongestionControl, CongestionEvent, CongestionKind, ParamSpec, Params,
    Reaction,
};
use crate::engine::{Rng, Time, MS, SEC};

/// STARTUP's pacing and cwnd gain, 2/ln 2 ≈ 2.885: the smallest gain that lets the sending
/// rate double every round (ACM Queue 2016; Linux uses the fixed-point 739/256).
pub const HIGH_GAIN: f64 = 2.0 / std::f64::consts::LN_2;
/// DRAIN's pacing gain, 1/HIGH_GAIN, which drains STARTUP's queue in about one round.
pub const DRAIN_GAIN: f64 = std::f64::consts::LN_2 / 2.0;
/// ns-3's `TcpBbr` `HighGain` attribute (its STARTUP gains; DRAIN paces at its inverse).
pub const NS3_HIGH_GAIN: f64 = 2.89;
/// ns-3's `AckEpochAckedResetThresh` attribute: an ACK epoch of this many bytes starts anew.
const NS3_ACK_EPOCH_RESET: u64 = 1 << 12;
/// ns-3's `ExtraAckedRttWindowLength`: rounds each of the two extra-acked records covers.
const NS3_EXTRA_ACKED_ROUNDS: u32 = 5;
/// cwnd gain outside STARTUP and DRAIN: room for delayed and stretched ACKs.
pub const CWND_GAIN: f64 = 2.0;
/// PROBE_BW's pacing gains, one phase per min RTT: probe, drain what probing queued, cruise.
pub const GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// Length of the bandwidth max filter in rounds (the gain cycle plus two).
pub const BW_WINDOW_ROUNDS: u64 = 10;
/// Length of the min-RTT filter.
pub const MIN_RTT_WINDOW: Time = 10 * SEC;
/// Least time PROBE_RTT holds inflight at the minimum (about 2% of the 10 s window).
pub const PROBE_RTT_DURATION: Time = 200 * MS;
/// Minimum cwnd, and PROBE_RTT's cap, in segments: two delayed-ACK pairs in flight.
pub const MIN_CWND_SEGMENTS: u64 = 4;
/// STARTUP ends once the bandwidth estimate grew by less than this factor ...
pub const FULL_BW_GROWTH: f64 = 1.25;
/// ... in this many consecutive (non-application-limited) rounds.
pub const FULL_BW_ROUNDS: u32 = 3;
/// Pacing runs this fraction below gain × bandwidth, to keep the bottleneck queue low
/// (Linux `bbr_pacing_margin_percent`).
pub const PACING_MARGIN: f64 = 0.01;
/// Below this pacing rate (bits/s) the send quantum is one segment, above it two (Linux
/// `bbr_min_tso_rate`).
const MIN_QUANTUM_TWO_RATE: f64 = 1.2e6;

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::ns3(
        "ns3",
        0.0,
        1.0,
        "1: ns-3.44's TcpBbr (docs/tcp_profiles.md): its rate sampling (the initial window, and a sender held by the receive window, not cwnd, are application-limited; PROBE_RTT is not; the sample kept from ACK to ACK, read from the record of the first segment, in the order the ACK delivered them, sent with the most delivered and handed on by an ACK that delivers nothing; a timeout restarts it), its three-sample bandwidth filter, gains of 2.89, one-segment send quantum and ACK-aggregation allowance, its gain cycle (timed by each ACK's arrival, probing ended by a changed lost mark, started at offset 0-5), and its recovery window (entry at the flight, conservation ended by a round start on the same ACK, lost bytes taken off, cwnd = the ssthresh from before the ACK at the end, grown in 32 bits, nothing restored after a timeout), its min RTT (from the handshake's SRTT, then the RTT estimator's last sample), rates in whole bits/s; a timeout keeps STARTUP's bandwidth record",
    ),
    ParamSpec::new(
        "small_writes",
        1.0,
        "with ns3 = 1: the application writes less than a segment at a time (ns-3's BulkSend, 512 bytes), so ns-3 marks the initial window's samples and those of a sender held by the receive window application-limited; 0: it writes whole segments (BulkSend's SendSize at the segment size) and ns-3 marks none",
    ),
    ParamSpec::new(
        "cycle_start",
        -1.0,
        "the gain-cycle phase PROBE_BW starts in, 0-7 (0: the 1.25 phase); -1: drawn at random, as Linux and ns-3 do (fixing it lines up a run with another simulator's draw)",
    ),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Startup => "startup",
            Mode::Drain => "drain",
            Mode::ProbeBw => "probe_bw",
            Mode::ProbeRtt => "probe_rtt",
        }
    }
}

/// The sender's loss state as the scheme follows it (ordered as Linux's CA states).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum CaState {
    Open,
    /// Fast recovery.
    Recovery,
    /// After a retransmission timeout, until everything then outstanding is acknowledged.
    Loss,
}

#[derive(Clone, Debug)]
pub struct Bbr {
    rng: Rng,
    mode: Mode,
    ca: CaState,
    prev_ca: CaState,
    /// snd_max when recovery or the timeout began: the state ends once it is acknowledged.
    ca_high: u64,
    /// Highest cumulative ACK seen (snd_una).
    snd_una: u64,
    pub rs: RateSampler,
    bw: MaxFilter,
    round: u64,
    next_round_delivered: u64,
    round_start: bool,
    min_rtt: Option<Time>,
    min_rtt_stamp: Time,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    idle_restart: bool,
    full_bw: f64,
    full_bw_count: u32,
    full_bw_reached: bool,
    cycle_idx: usize,
    cycle_stamp: Time,
    pacing_gain: f64,
    cwnd_gain: f64,
    pacing_bps: f64,
    has_seen_rtt: bool,
    /// ns3: the RTT estimator's last sample (ns-3's `m_lastRtt`), kept between ACKs.
    last_rtt: Option<Time>,
    /// ns3: the application writes less than a segment at a time (`small_writes`).
    small_writes: bool,
    srtt: Option<Time>,
    packet_conservation: bool,
    prior_cwnd: u64,
    cwnd: u64,
    init_cwnd: u64,
    mss: u64,
    started: bool,
    /// Receive window of the last ACK (sending limited by it is not application-limited).
    rwnd: u64,
    probe_rtt_entries: u64,
    /// ns-3.44's rate sampling. `TcpRateLinux::CalculateAppLimited`, run at each write of
    /// the application, is its only application-limited rule: less than a segment unsent
    /// and bytes in flight below cwnd. Its bulk application keeps the send buffer full, so
    /// this is every ACK while the receive window, not cwnd, holds the sender (Linux, whose
    /// send buffer grows past the window, does not see it). And PROBE_RTT's samples are not
    /// marked (`HandleProbeRTT` sets a member the sampler does not read). And ns-3.44's
    /// recovery window (`TcpBbr::CongestionStateSet`, `ModulateCwndForRecovery`, and
    /// `TcpSocketBase::ProcessAck` at the end of fast recovery), with `ack_*` below.
    ns3: bool,
    /// `cycle_start`: the phase PROBE_BW starts in, when fixed.
    cycle_start: Option<usize>,
    /// The last ACK's `AckInfo::pipe`, `pipe_marked` and `lost_change` (ns-3 variant).
    ack_pipe: u64,
    ack_pipe_marked: u64,
    ack_lost_change: u64,
    ack_head_resend_adds: u64,
    /// ns-3's ACK-aggregation allowance (`UpdateAckAggregation`, `AckAggregationCwnd`): the
    /// bytes of the current ACK epoch, its start, the two records of extra bytes acknowledged
    /// beyond the estimate, the rounds the current record has run and which one it is.
    ack_epoch_acked: u64,
    ack_epoch_time: Time,
    extra_acked: [u64; 2],
    extra_acked_rounds: u32,
    extra_acked_idx: usize,
}

impl Default for Bbr {
    fn default() -> Self {
        Self::new()
    }
}

impl Bbr {
    pub fn new() -> Self {
        Bbr {
            // Replaced by the flow's own stream when the scenario builds the flow.
            rng: Rng::for_component(0, "bbr"),
            mode: Mode::Startup,
            ca: CaState::Open,
            prev_ca: CaState::Open,
            ca_high: 0,
            snd_una: 0,
            rs: RateSampler::default(),
            bw: MaxFilter::new(BW_WINDOW_ROUNDS),
            round: 0,
            next_round_delivered: 0,
            round_start: false,
            min_rtt: None,
            min_rtt_stamp: 0,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            idle_restart: false,
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_reached: false,
            cycle_idx: 0,
            cycle_stamp: 0,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            pacing_bps: 0.0,
            has_seen_rtt: false,
            last_rtt: None,
            small_writes: true,
            srtt: None,
            packet_conservation: false,
            prior_cwnd: 0,
            cwnd: 0,
            init_cwnd: 0,
            mss: 1,
            started: false,
            rwnd: u64::MAX,
            probe_rtt_entries: 0,
            ns3: false,
            cycle_start: None,
            ack_pipe: 0,
            ack_pipe_marked: 0,
            ack_lost_change: 0,
            ack_head_resend_adds: 0,
            ack_epoch_acked: 0,
            ack_epoch_time: 0,
            extra_acked: [0; 2],
            extra_acked_rounds: 0,
            extra_acked_idx: 0,
        }
    }

    pub fn with_params(p: &mut Params) -> Result<Self, (String, String)> {
        let ns3 = p.flag(PARAMS, "ns3")?;
        let small_writes = p.flag(PARAMS, "small_writes")?;
        let start = p.spec(PARAMS, "cycle_start")?;
        let cycle_start = match start {
            -1.0 => None,
            v if v.fract() == 0.0 && (0.0..GAIN_CYCLE.len() as f64).contains(&v) => {
                Some(v as usize)
            }
            v => {
                return Err((
                    "cycle_start".into(),
                    format!("must be -1 or a phase 0-7, got {v}"),
                ))
            }
        };
        let mut b = Bbr {
            ns3,
            small_writes,
            cycle_start,
            ..Self::new()
        };
        if ns3 {
            // ns-3 keeps the three-sample windowed filter (`windowed-filter.h`), as Linux does.
            b.bw = MaxFilter::three_sample(BW_WINDOW_ROUNDS, 0.0);
            (b.pacing_gain, b.cwnd_gain) = (NS3_HIGH_GAIN, NS3_HIGH_GAIN);
            // ns-3's applications write less than a segment at first (BulkSend: 512 bytes),
            // and `TcpSocketBase::Send` then marks the sampler application-limited
            // (`CalculateAppLimited`: `m_appLimited` = 1), so the initial window's samples
            // are application-limited.
            if small_writes {
                b.rs.app_limited_until = 1;
            }
        }
        b.rs.ns3_restart = ns3;
        Ok(b)
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }

    pub fn cwnd_gain(&self) -> f64 {
        self.cwnd_gain
    }

    /// Bottleneck bandwidth estimate, bytes/s.
    pub fn btl_bw(&self) -> f64 {
        self.bw.get()
    }

    pub fn min_rtt(&self) -> Option<Time> {
        self.min_rtt
    }

    pub fn cycle_index(&self) -> usize {
        self.cycle_idx
    }

    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    pub fn round_count(&self) -> u64 {
        self.round
    }

    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }

    /// Pacing rate at `gain` × `bw` (bytes/s), in bits/s.
    fn rate_bps(bw: f64, gain: f64) -> f64 {
        gain * bw * 8.0 * (1.0 - PACING_MARGIN)
    }

    /// HIGH_GAIN × cwnd / RTT, with a nominal 1 ms before the first RTT sample.
    fn nominal_pacing(&self, cwnd: u64) -> f64 {
        if self.ns3 {
            return NS3_HIGH_GAIN * cwnd as f64 * 8.0 / 1e-3;
        }
        let rtt = self.srtt.unwrap_or(MS).max(1) as f64 / SEC as f64;
        Self::rate_bps(cwnd as f64 / rtt, HIGH_GAIN)
    }

    /// ns-3's `InitPacingRate` once the connection's min RTT is known (at the handshake):
    /// HIGH_GAIN × cwnd over that RTT in whole milliseconds, with no margin, and the
    /// bandwidth filter seeded with cwnd / RTT, which its first sample replaces.
    fn init_pacing_ns3(&mut self, min_rtt: Time) {
        let secs = (min_rtt / MS).max(1) as f64 / 1e3;
        // In whole bits/s, as `DataRate` keeps them.
        let bps = (self.cwnd as f64 * 8.0 / secs).trunc();
        self.bw = MaxFilter::three_sample(BW_WINDOW_ROUNDS, bps / 8.0);
        self.pacing_bps = (NS3_HIGH_GAIN * bps).trunc();
        self.has_seen_rtt = true;
    }

    /// Take the flow's starting values at its first transmission or ACK.
    fn start(&mut self, now: Time, st: &CcState) {
        if self.started {
            return;
        }
        self.started = true;
        self.mss = st.mss.max(1);
        self.cwnd = st.cwnd;
        self.init_cwnd = st.cwnd;
        self.min_rtt_stamp = now;
        self.cycle_stamp = now;
        self.ack_epoch_time = now;
        self.pacing_bps = self.nominal_pacing(st.cwnd);
    }

    /// Segments per send quantum: about 1 ms at the pacing rate, at least one below 1.2 Mb/s
    /// and two above, at most 64 KB (Linux `bbr_tso_segs_goal`).
    fn quantum_segments(&self) -> u64 {
        let min = if self.pacing_bps < MIN_QUANTUM_TWO_RATE {
            1
        } else {
            2
        };
        let bytes = (self.pacing_bps / 8.0 / 1024.0).min(65_536.0);
        ((bytes as u64) / self.mss).max(min).min(127)
    }

    /// ceil(bw × min_rtt × gain) in segments; the initial window before any RTT sample.
    fn bdp_segments(&self, bw: f64, gain: f64) -> u64 {
        match self.min_rtt {
            None => self.init_cwnd.div_ceil(self.mss),
            Some(r) => (bw * (r as f64 / SEC as f64) * gain / self.mss as f64).ceil() as u64,
        }
    }

    /// The inflight target at `gain`: BDP plus the allowance for three send quanta (Linux
    /// `bbr_quantization_budget`), rounded up to an even number of segments against delayed
    /// ACKs, and two more in the probing phase so it gets above the BDP even when that is small.
    fn inflight(&self, bw: f64, gain: f64) -> u64 {
        if self.ns3 {
            return self.inflight_ns3(bw, gain);
        }
        let mut segs = self.bdp_segments(bw, gain) + 3 * self.quantum_segments();
        segs = (segs + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            segs += 2;
        }
        segs * self.mss
    }

    /// ns-3's `InFlight`: gain × BDP in bytes, not rounded, plus three one-segment quanta
    /// (`SetSendQuantum` keeps one segment whatever the rate) and two segments in the
    /// probing phase.
    fn inflight_ns3(&self, bw: f64, gain: f64) -> u64 {
        let Some(r) = self.min_rtt else {
            return self.init_cwnd;
        };
        let mut bytes = gain * bw * (r as f64 / SEC as f64) + 3.0 * self.mss as f64;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            bytes += 2.0 * self.mss as f64;
        }
        bytes as u64
    }

    /// ns-3's `UpdateAckAggregation`. Its epoch's length is taken in whole seconds, so an
    /// epoch under a second expects nothing and the record is what the epoch acknowledged,
    /// the epoch starting anew once it reaches `NS3_ACK_EPOCH_RESET` bytes.
    fn update_ack_aggregation(&mut self, now: Time, rs: &RateSample) {
        if rs.acked == 0 {
            return;
        }
        if self.round_start {
            self.extra_acked_rounds = (self.extra_acked_rounds + 1).min(31);
            if self.extra_acked_rounds >= NS3_EXTRA_ACKED_ROUNDS {
                self.extra_acked_rounds = 0;
                self.extra_acked_idx ^= 1;
                self.extra_acked[self.extra_acked_idx] = 0;
            }
        }
        let whole_secs = now.saturating_sub(self.ack_epoch_time) / SEC;
        let mut expected = (self.bw.get() * 8.0) as u64 * whole_secs / 8;
        if self.ack_epoch_acked <= expected
            || self.ack_epoch_acked + rs.acked >= NS3_ACK_EPOCH_RESET
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_time = now;
            expected = 0;
        }
        self.ack_epoch_acked += rs.acked;
        let extra = (self.ack_epoch_acked - expected).min(self.cwnd);
        let rec = &mut self.extra_acked[self.extra_acked_idx];
        *rec = (*rec).max(extra);
    }

    /// ns-3's `AckAggregationCwnd`: the larger record, at most 100 ms at the estimate, once
    /// the pipe is full.
    fn ack_aggregation_cwnd(&self) -> u64 {
        if !self.ns3 || !self.full_bw_reached {
            return 0;
        }
        let cap = (self.bw.get() * 8.0) as u64 / 80;
        self.extra_acked[0].max(self.extra_acked[1]).min(cap)
    }

    fn set_mode(&mut self, m: Mode) {
        self.mode = m;
    }

    fn save_cwnd(&mut self) {
        if self.prev_ca < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            // Recovery or PROBE_RTT has cut cwnd for now: keep the larger, older value.
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    fn advance_cycle_phase(&mut self, delivered_time: Time) {
        self.cycle_idx = (self.cycle_idx + 1) % GAIN_CYCLE.len();
        self.cycle_stamp = delivered_time;
    }

    /// Enter PROBE_BW at a random phase other than the 0.75 one (so a flow never starts by
    /// yielding bandwidth): index 7 − U{0..6}, then advanced by one.
    fn reset_probe_bw(&mut self, delivered_time: Time) {
        self.set_mode(Mode::ProbeBw);
        // Linux draws the offset from 0..=6; ns-3 from 0..=5 (`GetValue(0, 6)` truncated),
        // so it never starts a cycle in the phase after the 0.75 one.
        let span = GAIN_CYCLE.len() as u64 - if self.ns3 { 2 } else { 1 };
        self.cycle_idx = GAIN_CYCLE.len() - 1 - self.rng.below(span) as usize;
        if let Some(k) = self.cycle_start {
            // The phase before it, so that advancing lands on it.
            self.cycle_idx = (k + GAIN_CYCLE.len() - 1) % GAIN_CYCLE.len();
        }
        self.advance_cycle_phase(delivered_time);
    }

    fn reset_mode(&mut self, delivered_time: Time) {
        if self.full_bw_reached {
            self.reset_probe_bw(delivered_time);
        } else {
            self.set_mode(Mode::Startup);
        }
    }

    /// Round counting by delivered data, and the bandwidth max filter.
    fn update_bw(&mut self, rs: &RateSample) {
        self.round_start = false;
        let Some(bw) = rs.bw else {
            return;
        };
        // A round ends when a packet sent after the round began is delivered.
        if rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = rs.delivered;
            self.round += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        // An application-limited sample says how fast the application was, not the path:
        // taken only if it does not lower the estimate.
        if !rs.app_limited || bw >= self.bw.get() {
            self.bw.update(self.round, bw);
        }
    }

    fn is_next_cycle_phase(&self, at: Time, rs: &RateSample) -> bool {
        let min_rtt = self.min_rtt.unwrap_or(Time::MAX);
        let full_length = at.saturating_sub(self.cycle_stamp) > min_rtt;
        let g = self.pacing_gain;
        if g == 1.0 {
            return full_length;
        }
        let bw = self.bw.get();
        if g > 1.0 {
            // Probe until inflight reached gain × BDP (which may take longer than a min RTT),
            // but not on when losses say the path cannot hold it.
            // ns-3 asks whether this ACK changed the lost marks (`m_bytesLoss`).
            let losses = if self.ns3 {
                self.ack_lost_change > 0
            } else {
                rs.losses
            };
            full_length && (losses || rs.prior_inflight >= self.inflight(bw, g))
        } else {
            // Drain the probe's queue: done when inflight is back at the BDP.
            full_length || rs.prior_inflight <= self.inflight(bw, 1.0)
        }
    }

    fn update_cycle_phase(&mut self, now: Time, rs: &RateSample) {
        let at = self.cycle_clock(now, rs.delivered_time);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(at, rs) {
            self.advance_cycle_phase(at);
        }
    }

    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.app_limited {
            return;
        }
        let max = self.bw.get();
        if max >= self.full_bw * FULL_BW_GROWTH {
            self.full_bw = max;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_reached = self.full_bw_count >= FULL_BW_ROUNDS;
    }

    /// The gain cycle's clock: Linux's delivery time, ns-3's `Simulator::Now()`.
    fn cycle_clock(&self, now: Time, delivered_time: Time) -> Time {
        if self.ns3 {
            now
        } else {
            delivered_time
        }
    }

    fn check_drain(&mut self, now: Time, rs: &RateSample, st: &mut CcState) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.set_mode(Mode::Drain);
            // Informational, as in Linux: the window the pipe holds.
            st.ssthresh = self.inflight(self.bw.get(), 1.0);
        }
        if self.mode == Mode::Drain && rs.inflight <= self.inflight(self.bw.get(), 1.0) {
            self.reset_probe_bw(self.cycle_clock(now, rs.delivered_time));
        }
    }

    fn check_probe_rtt_done(&mut self, now: Time, delivered_time: Time) {
        if self.probe_rtt_done.is_none_or(|d| now <= d) {
            return;
        }
        // The min RTT is fresh: wait a whole window before the next PROBE_RTT.
        self.min_rtt_stamp = now;
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        self.reset_mode(self.cycle_clock(now, delivered_time));
    }

    fn update_min_rtt(&mut self, now: Time, rs: &RateSample) {
        let expired = now > self.min_rtt_stamp + MIN_RTT_WINDOW;
        // ns-3's `UpdateRTprop` reads `m_lastRtt`, which keeps its value from ACK to ACK.
        let sample = if self.ns3 { self.last_rtt } else { rs.rtt };
        if let Some(r) = sample {
            if self.min_rtt.is_none_or(|m| r <= m) || expired {
                self.min_rtt = Some(r);
                self.min_rtt_stamp = now;
            }
        }
        if expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.set_mode(Mode::ProbeRtt);
            self.save_cwnd();
            self.probe_rtt_done = None;
            self.probe_rtt_entries += 1;
        }
        if self.mode == Mode::ProbeRtt {
            // What is sent now is held back on purpose: its rate samples are not the path's.
            // (ns-3's HandleProbeRTT sets TcpBbr's own m_appLimited, which its rate sampler
            // never reads: there PROBE_RTT's samples count in full.)
            if !self.ns3 {
                self.rs.app_limited_until = (rs.delivered + rs.inflight).max(1);
            }
            let floor = MIN_CWND_SEGMENTS * self.mss;
            if self.probe_rtt_done.is_none() && rs.inflight <= floor {
                // Hold for 200 ms and one round, both counted from here.
                self.probe_rtt_done = Some(now + PROBE_RTT_DURATION);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = rs.delivered;
            } else if self.probe_rtt_done.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(now, rs.delivered_time);
                }
            }
        }
        if rs.acked > 0 {
            self.idle_restart = false;
        }
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup if self.ns3 => (NS3_HIGH_GAIN, NS3_HIGH_GAIN),
            Mode::Drain if self.ns3 => (1.0 / NS3_HIGH_GAIN, NS3_HIGH_GAIN),
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw => (GAIN_CYCLE[self.cycle_idx], CWND_GAIN),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    fn set_pacing_rate(&mut self, gain: f64) {
        if !self.has_seen_rtt && self.srtt.is_some() && !self.ns3 {
            self.has_seen_rtt = true;
            self.pacing_bps = self.nominal_pacing(self.cwnd);
        }
        let rate = if self.ns3 {
            // `DataRate` keeps whole bits/s: the gain's product is truncated, then the
            // margin's.
            let bps = (self.bw.get() * 8.0).round();
            ((gain * bps).trunc() * (1.0 - PACING_MARGIN)).trunc()
        } else {
            Self::rate_bps(self.bw.get(), gain)
        };
        // Before the pipe is full the rate only grows, so a low early sample cannot slow
        // STARTUP down.
        if self.full_bw_reached || rate > self.pacing_bps {
            self.pacing_bps = rate;
        }
    }

    /// Packet conservation in the first round of recovery; the saved window back after it.
    /// Returns the window and whether conservation decides it.
    fn recover_or_restore(&mut self, rs: &RateSample, cwnd: u64, ssthresh: u64) -> (u64, bool) {
        if self.ns3 {
            return self.recover_or_restore_ns3(rs, cwnd, ssthresh);
        }
        let mut cwnd = cwnd;
        if self.ca == CaState::Recovery && self.prev_ca != CaState::Recovery {
            self.packet_conservation = true;
            self.next_round_delivered = rs.delivered;
            // Drop window the flight was not using.
            cwnd = rs.inflight + rs.acked;
        } else if self.prev_ca >= CaState::Recovery && self.ca < CaState::Recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca = self.ca;
        if self.packet_conservation {
            return (cwnd.max(rs.inflight + rs.acked), true);
        }
        (cwnd, false)
    }

    /// ns-3.44's recovery window. Entering recovery (`CongestionStateSet`): the bytes in
    /// flight before the head is marked lost plus what the ACK delivered (at least a
    /// segment), the round going on. On each ACK in recovery (`ModulateCwndForRecovery`):
    /// less the bytes whose lost mark the ACK changed, and in the first round at least the
    /// flight plus what it delivered. At the end of fast recovery `TcpSocketBase` sets cwnd
    /// to ssthresh after `RestoreCwnd` (BBR's ssthresh: the initial one until STARTUP ends,
    /// then the pipe's estimate); after a timeout nothing is restored.
    fn recover_or_restore_ns3(&mut self, rs: &RateSample, cwnd: u64, ssthresh: u64) -> (u64, bool) {
        let mut cwnd = cwnd;
        let entered = self.ca == CaState::Recovery && self.prev_ca != CaState::Recovery;
        let exited = self.prev_ca == CaState::Recovery && self.ca != CaState::Recovery;
        self.prev_ca = self.ca;
        if entered {
            cwnd = self.ack_pipe + rs.acked.max(self.mss);
            // `CongestionStateSet(CA_RECOVERY)` starts conserving before `CongControl`, whose
            // `UpdateRound` ends it again when this ACK starts a round.
            self.packet_conservation = !self.round_start;
        } else if exited {
            self.packet_conservation = false;
            // ns-3's initial ssthresh is `UINT32_MAX` bytes (airtcp's initial one stands
            // for it here); what BBR adds to it below wraps in 32 bits.
            let ssthresh = if ssthresh == 1 << 30 {
                u64::from(u32::MAX)
            } else {
                ssthresh
            };
            return (ssthresh, false);
        }
        if self.ca == CaState::Recovery {
            cwnd = cwnd.saturating_sub(self.ack_lost_change).max(self.mss);
            if self.packet_conservation {
                // ns-3 reads `m_bytesInFlight` as last computed: on the ACK that enters
                // recovery, after `EnterRecovery` sent the fast retransmission, which adds
                // to it unless the head already counted as resent.
                let resent = if entered {
                    self.ack_head_resend_adds
                } else {
                    0
                };
                return (cwnd.max(self.ack_pipe_marked + resent + rs.acked), true);
            }
        }
        (cwnd, false)
    }

    fn set_cwnd(&mut self, rs: &RateSample, ssthresh: u64) {
        let mut cwnd = self.cwnd;
        if rs.acked > 0 {
            let (c, conserving) = self.recover_or_restore(rs, cwnd, ssthresh);
            cwnd = c;
            if !conserving {
                let target =
                    self.inflight(self.bw.get(), self.cwnd_gain) + self.ack_aggregation_cwnd();
                // ns-3's `m_cWnd` is 32 bits: growth from its initial ssthresh wraps.
                let grown = if self.ns3 {
                    (cwnd + rs.acked) & u64::from(u32::MAX)
                } else {
                    cwnd + rs.acked
                };
                if self.full_bw_reached {
                    cwnd = grown.min(target);
                } else if cwnd < target || rs.delivered < self.init_cwnd {
                    // Grow like slow start toward the target while the pipe is not full.
                    cwnd = grown;
                }
                cwnd = cwnd.max(MIN_CWND_SEGMENTS * self.mss);
            }
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(MIN_CWND_SEGMENTS * self.mss);
        }
        self.cwnd = cwnd;
    }

    /// One ACK's update of the model and the controls (Linux `bbr_main`).
    pub fn step(&mut self, now: Time, rs: &RateSample, st: &mut CcState) {
        // The end of fast recovery sets cwnd to ssthresh as it was before this ACK: ns-3's
        // `ProcessAck` does so before `CongControl`, where DRAIN may set a new one.
        let ssthresh = st.ssthresh;
        self.update_bw(rs);
        if self.ns3 {
            self.update_ack_aggregation(now, rs);
        }
        self.update_cycle_phase(now, rs);
        self.check_full_bw_reached(rs);
        self.check_drain(now, rs, st);
        self.update_min_rtt(now, rs);
        self.update_gains();
        self.set_pacing_rate(self.pacing_gain);
        self.set_cwnd(rs, ssthresh);
        st.cwnd = self.cwnd;
    }

    /// Follow the sender's loss state from the ACK: recovery or the timeout's loss state end
    /// once the data outstanding when they began is acknowledged.
    fn track_ca_state(&mut self, ack: &AckInfo) {
        self.snd_una = self.snd_una.max(ack.ack_seq);
        let mut exited = false;
        if self.ca != CaState::Open && ack.ack_seq >= self.ca_high {
            self.ca = CaState::Open;
            exited = true;
        }
        if self.ca == CaState::Recovery && !ack.in_recovery {
            self.ca = CaState::Open;
            exited = true;
        }
        if self.ca == CaState::Open && ack.in_recovery && !exited {
            // Recovery the scheme was not asked about (a loss repaired on an ELN report).
            self.save_cwnd();
            self.ca = CaState::Recovery;
            self.ca_high = ack.ack_seq + ack.in_flight;
        }
    }

    /// The sender stopped with room in both windows and the pacing gap long past: it had
    /// nothing to send (Linux marks this when the write queue runs dry).
    fn check_app_limited(&mut self, now: Time) {
        let Some(last) = self.rs.last_send else {
            return;
        };
        if self.ca != CaState::Open || self.pacing_bps <= 0.0 {
            return;
        }
        if self.ns3 {
            // ns-3's only rule, on the state the last ACK's transmissions left: the flight at
            // the receive window and below cwnd (an application write then finds less than a
            // segment unsent, which whole-segment writes never do).
            if self.small_writes
                && self.rs.flight < self.cwnd
                && self.rs.flight + self.mss > self.rwnd
            {
                self.rs.app_limited_until = (self.rs.delivered + self.rs.pipe).max(1);
            }
            return;
        }
        let gap = (self.mss as f64 * 8.0 / self.pacing_bps * SEC as f64) as Time;
        let room = self.rs.flight + self.mss <= self.cwnd.min(self.rwnd);
        if room && now > last + 2 * gap + 1 {
            self.rs.app_limited_until = (self.rs.delivered + self.rs.pipe).max(1);
        }
    }
}

impl CongestionControl for Bbr {
    fn on_ack_header(&mut self, ack: &AckInfo) {
        self.snd_una = self.snd_una.max(ack.ack_seq);
    }

    fn on_sent(&mut self, now: Time, bytes: u64, st: &mut CcState) {
        self.start(now, st);
        if self.rs.flight == 0 && self.rs.app_limited_until != 0 {
            // Restarting after an idle period.
            self.idle_restart = true;
            if self.mode == Mode::ProbeBw {
                // No need to probe while the application restarts: pace at the estimate.
                self.pacing_bps = Self::rate_bps(self.bw.get(), 1.0);
            } else if self.mode == Mode::ProbeRtt {
                self.check_probe_rtt_done(now, self.rs.delivered_time);
                st.cwnd = self.cwnd;
            }
        }
        self.rs.on_sent(now, bytes);
    }

    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        self.start(ack.now, st);
        self.check_app_limited(ack.now);
        self.track_ca_state(ack);
        self.srtt = ack.srtt;
        if self.ns3 && !self.has_seen_rtt {
            if let Some(r) = ack.min_rtt {
                self.init_pacing_ns3(r);
                // ns-3 starts its min RTT from the SRTT of the handshake
                // (`CongestionStateSet(CA_OPEN)`), stamped when the flow starts.
                self.min_rtt = Some(r);
            }
        }
        if ack.estimator_rtt.is_some() {
            self.last_rtt = ack.estimator_rtt;
        }
        (self.ack_pipe, self.ack_pipe_marked, self.ack_lost_change) =
            (ack.pipe, ack.pipe_marked, ack.lost_change);
        self.ack_head_resend_adds = ack.head_resend_adds;
        let mut rs = self
            .rs
            .on_ack(ack, self.mss, self.ca == CaState::Loss, ack.min_rtt);
        rs.losses = self.ca != CaState::Open;
        self.step(ack.now, &rs, st);
        self.rwnd = ack.rwnd;
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        match ev.kind {
            CongestionKind::DupAcks => {
                self.save_cwnd();
                self.ca = CaState::Recovery;
                self.ca_high = self.snd_una + ev.flight_size;
                // Repair without a cut; the first recovery round conserves packets.
                Reaction::keep()
            }
            CongestionKind::Timeout => {
                self.save_cwnd();
                self.ca = CaState::Loss;
                // Entered at once, so no packet conservation: the window grows from one
                // segment by what is delivered (Linux `bbr_set_state`).
                self.prev_ca = CaState::Loss;
                self.ca_high = self.snd_una + ev.flight_size;
                if !self.ns3 {
                    // Linux `bbr_set_state`; ns-3's CongestionStateSet(CA_LOSS) keeps it.
                    self.full_bw = 0.0;
                }
                self.round_start = true;
                self.cwnd = st.mss;
                self.rs.on_timeout();
                Reaction {
                    ssthresh: st.ssthresh,
                    cwnd: Some(st.mss),
                    verdict: None,
                    keep_window: false,
                }
            }
            // BBR v1 does not read ECN.
            CongestionKind::Ecn => Reaction {
                ssthresh: st.ssthresh,
                cwnd: Some(st.cwnd),
                verdict: None,
                keep_window: false,
            },
        }
    }

    fn wants_scoreboard(&self) -> bool {
        self.ns3
    }

    fn on_delivered_sends(&mut self, sends: &[Time]) {
        self.rs.choose_delivered(sends);
    }

    fn pacing_rate(&self, st: &CcState) -> Option<f64> {
        Some(if self.started {
            self.pacing_bps
        } else {
            self.nominal_pacing(st.cwnd)
        })
    }

    fn bandwidth_estimate(&self) -> Option<f64> {
        let bw = self.bw.get();
        (bw > 0.0).then_some(bw * 8.0)
    }

    fn state_label(&self) -> Option<&'static str> {
        Some(self.mode.name())
    }

    fn set_rng(&mut self, rng: Rng) {
        self.rng = rng;
    }

    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("bbr_rounds", self.round as f64));
        out.push(("bbr_probe_rtt_entries", self.probe_rtt_entries as f64));
        if let Some(m) = self.min_rtt {
            out.push(("bbr_min_rtt_s", m as f64 / SEC as f64));
        }
    }
}

#[cfg(test)]
#[path = "bbr_tests.rs"]
mod tests;
