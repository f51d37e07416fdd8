//! BBR's delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation) and its
//! bandwidth filter: what the state machine in `bbr.rs` is fed on every ACK.

use std::collections::VecDeque;

use super::AckInfo;
use crate::engine::{Time, SEC};

/// Maximum over a window of rounds, in one of two forms. Exact (the default): samples taken
/// in round r are forgotten once the round count reaches r + window; a monotonic deque, so
/// the maximum is its front. Or the three-sample estimate of Nichols' windowed filter that
/// Linux (`lib/win_minmax.c`) and ns-3 (`windowed-filter.h`) keep: the best, second and third
/// best of the window's quarters and halves, which can fall below the exact maximum when the
/// best sample expires before the next best was recorded.
#[derive(Clone, Debug)]
pub struct MaxFilter {
    window: u64,
    samples: VecDeque<(u64, f64)>,
    /// The three-sample estimate `(round, value)`, best first, when in that form.
    three: Option<[(u64, f64); 3]>,
    /// A value the three-sample filter treats as unset (ns-3's zero value): the next sample
    /// replaces it whatever it is.
    unset: f64,
}

impl MaxFilter {
    pub fn new(window: u64) -> Self {
        MaxFilter {
            window: window.max(1),
            samples: VecDeque::new(),
            three: None,
            unset: 0.0,
        }
    }

    /// The three-sample form, holding `unset` (round 0) until the first sample.
    pub fn three_sample(window: u64, unset: f64) -> Self {
        MaxFilter {
            three: Some([(0, unset); 3]),
            unset,
            ..Self::new(window)
        }
    }

    pub fn update(&mut self, round: u64, value: f64) {
        if let Some(s) = self.three.as_mut() {
            Self::update_three(s, self.window, self.unset, round, value);
            return;
        }
        while self.samples.back().is_some_and(|&(_, v)| v <= value) {
            self.samples.pop_back();
        }
        self.samples.push_back((round, value));
        while self
            .samples
            .front()
            .is_some_and(|&(r, _)| r + self.window <= round)
        {
            self.samples.pop_front();
        }
    }

    fn update_three(s: &mut [(u64, f64); 3], win: u64, unset: f64, t: u64, v: f64) {
        let new = (t, v);
        if s[0].1 == unset || v >= s[0].1 || t.saturating_sub(s[2].0) > win {
            *s = [new; 3];
            return;
        }
        if v >= s[1].1 {
            s[1] = new;
            s[2] = new;
        } else if v >= s[2].1 {
            s[2] = new;
        }
        if t.saturating_sub(s[0].0) > win {
            // The best expired: the second and third move up.
            s[0] = s[1];
            s[1] = s[2];
            s[2] = new;
            if t.saturating_sub(s[0].0) > win {
                s[0] = s[1];
                s[1] = s[2];
            }
            return;
        }
        if s[1].1 == s[0].1 && t.saturating_sub(s[1].0) > win >> 2 {
            // A quarter of the window without a second best: take one from now on.
            s[1] = new;
            s[2] = new;
            return;
        }
        if s[2].1 == s[1].1 && t.saturating_sub(s[2].0) > win >> 1 {
            s[2] = new;
        }
    }

    pub fn get(&self) -> f64 {
        match self.three {
            Some(s) => s[0].1,
            None => self.samples.front().map_or(0.0, |s| s.1),
        }
    }
}

/// One ACK's delivery-rate sample and the figures the state machine reads with it.
#[derive(Clone, Copy, Debug, Default)]
pub struct RateSample {
    /// Bytes this ACK newly delivered (cumulatively acknowledged or SACKed).
    pub acked: u64,
    /// Bytes delivered so far, this ACK included.
    pub delivered: u64,
    /// When the latest delivery happened.
    pub delivered_time: Time,
    /// Delivery rate in bytes/s, if this ACK gave a valid sample.
    pub bw: Option<f64>,
    /// `delivered` when the packet that produced the sample was sent (round counting).
    pub prior_delivered: u64,
    /// That packet was sent while the sender was application-limited.
    pub app_limited: bool,
    /// Estimated bytes in the network before and after this ACK.
    pub prior_inflight: u64,
    pub inflight: u64,
    /// RTT sample from this ACK.
    pub rtt: Option<Time>,
    /// Losses are being repaired (recovery, or after a timeout).
    pub losses: bool,
}

/// Delivery state at one transmission (the per-packet record of the delivery-rate estimation
/// draft, draft-cheng-iccrg-delivery-rate-estimation), kept by send time.
#[derive(Clone, Copy, Debug)]
struct SendRecord {
    sent: Time,
    delivered: u64,
    delivered_time: Time,
    first_tx: Time,
    app_limited: bool,
}

/// Most send records kept (a flight larger than this many segments loses rate samples, never
/// correctness).
const MAX_RECORDS: usize = 1 << 17;

/// Delivery-rate estimation from transmissions and ACKs alone. Each transmission records the
/// delivery state (bytes delivered, when, and the send time of the latest delivered packet).
/// An ACK finds the record of the packet it reports by that packet's send time, now − RTT
/// (exact when the ACK carries an RTT sample; with the latest sample otherwise, e.g. for SACKed
/// or retransmitted data), and the sample is the data delivered since that record over the
/// longer of its send and ACK intervals (the longer one guards against ACK compression and
/// stretched ACKs); an interval below the connection's min RTT is discarded, as in Linux.
#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    pub delivered: u64,
    pub delivered_time: Time,
    /// Send time of the most recently sent packet among those delivered.
    first_tx: Time,
    /// SACKed bytes the cumulative ACK has not reached yet.
    sacked_out: u64,
    /// Non-zero while sending is application-limited: the `delivered` count after which the
    /// gap has left the network.
    pub app_limited_until: u64,
    sends: VecDeque<SendRecord>,
    /// Estimated bytes in the network: outstanding less SACKed (and, after a timeout, sent
    /// since it less delivered since it).
    pub pipe: u64,
    /// Outstanding bytes (snd_max − snd_una as of the last ACK, plus sends since).
    pub(super) flight: u64,
    last_rtt: Option<Time>,
    pub(super) last_send: Option<Time>,
    loss_sent: u64,
    loss_delivered: u64,
    /// ns-3.44: a timeout leaves nothing in flight (`SetSentListLost` marks every segment
    /// lost), so the next transmission starts the intervals afresh as from idle
    /// (`TcpRateLinux::SkbSent` with `BytesInFlight() == 0`).
    pub ns3_restart: bool,
    restart_due: bool,
    /// ns-3.44's sample, kept from ACK to ACK (`ns3_restart` on).
    ns3: Ns3Sample,
    /// The send time [`Self::choose_delivered`] picked for the ACK being handed over.
    pub(super) chosen: Option<Time>,
}

/// ns-3.44's `TcpRateLinux` keeps its rate sample as a member, where Linux builds one per ACK:
/// its prior fields change only when an ACK delivers a packet sent after the one they came
/// from (`SkbDelivered`), so until then each ACK's sample is the data delivered since that
/// packet over the interval taken when it was delivered; and the delivery rate it hands on
/// changes only for a sample not application-limited or faster than the last recorded one
/// (`GenerateSample`), the last one being handed on again otherwise.
#[derive(Clone, Copy, Debug, Default)]
struct Ns3Sample {
    prior_delivered: u64,
    /// `m_priorTime` non-zero: a sample can be taken.
    valid: bool,
    send_elapsed: Time,
    ack_elapsed: Time,
    app_limited: bool,
    rate_delivered: u64,
    rate_interval: Time,
    rate: f64,
}

impl RateSampler {
    pub fn on_sent(&mut self, now: Time, bytes: u64) {
        if self.flight == 0 || self.restart_due {
            self.restart_due = false;
            // Starting from idle: the idle time is no part of any delivery interval.
            self.first_tx = now;
            self.delivered_time = now;
        }
        if self.sends.len() >= MAX_RECORDS {
            self.sends.pop_front();
        }
        self.sends.push_back(SendRecord {
            sent: now,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_tx: self.first_tx,
            app_limited: self.app_limited_until != 0,
        });
        self.flight += bytes;
        self.pipe += bytes;
        self.loss_sent += bytes;
        self.last_send = Some(now);
    }

    /// ns-3's `SkbDelivered`, called for each segment an ACK delivers in the order it
    /// processes them, moves the prior sample only to a segment sent with more delivered
    /// than the last it moved to: of the segments sent with the most delivered, the first in
    /// that order. Its send time is kept for [`Self::on_ack`].
    pub fn choose_delivered(&mut self, sends: &[Time]) {
        let mut best: Option<(u64, Time)> = None;
        for &t in sends {
            let i = self.sends.partition_point(|r| r.sent <= t);
            let Some(rec) = i.checked_sub(1).map(|i| self.sends[i]) else {
                continue;
            };
            if best.is_none_or(|(d, _)| rec.delivered > d) {
                best = Some((rec.delivered, t));
            }
        }
        self.chosen = best.map(|(_, t)| t);
    }

    /// A retransmission timeout: from now on the pipe counts only what is sent anew.
    pub fn on_timeout(&mut self) {
        self.loss_sent = 0;
        self.loss_delivered = 0;
        self.restart_due = self.ns3_restart;
    }

    /// Account for an ACK and take its rate sample. `in_loss`: after a timeout; `min_rtt`:
    /// the connection's minimum RTT (shorter intervals are not trusted).
    pub fn on_ack(
        &mut self,
        ack: &AckInfo,
        mss: u64,
        in_loss: bool,
        min_rtt: Option<Time>,
    ) -> RateSample {
        let prior_inflight = self.pipe;
        // SACKed bytes count once: a cumulative ACK that reaches them credits only the hole it
        // filled (Linux's rule for duplicate-ACK counting: one segment, the rest was counted).
        let mut newly = ack.sacked_bytes;
        self.sacked_out += ack.sacked_bytes;
        if ack.acked_bytes > 0 {
            let a = ack.acked_bytes;
            newly += a.saturating_sub(self.sacked_out).max(a.min(mss));
            self.sacked_out = self.sacked_out.saturating_sub(a.saturating_sub(mss));
        }
        if self.ns3_restart && ack.delivered_bytes > 0 {
            // The scoreboard's count (`TcpRateLinux::SkbDelivered` per segment), where the
            // estimate above takes an advance to fill one hole. Taken even when the sender
            // reports no advance for the window (the ACK that ends the timeout's loss state
            // counts only what lies above its recovery point): the sampler counts it all.
            newly = ack.delivered_bytes;
        }
        self.sacked_out = self.sacked_out.min(ack.in_flight);
        self.delivered += newly;
        self.flight = ack.in_flight;
        self.pipe = ack.in_flight - self.sacked_out;
        if in_loss {
            self.loss_delivered += newly;
            self.pipe = self
                .pipe
                .min(self.loss_sent.saturating_sub(self.loss_delivered));
        }
        if self.ns3_restart && ack.scoreboard {
            // ns-3's `BytesInFlight()`, from its scoreboard and lost marks.
            self.pipe = ack.pipe_marked;
        }
        if let Some(r) = ack.rtt {
            self.last_rtt = Some(r);
        }
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        let mut rs = RateSample {
            acked: newly,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            prior_inflight,
            inflight: self.pipe,
            rtt: ack.rtt,
            ..Default::default()
        };
        let now = ack.now;
        if newly == 0 {
            if self.ns3_restart {
                // ns-3 generates a sample on every ACK from the one it keeps.
                return self.ns3_sample(rs, None, now, min_rtt);
            }
            return rs;
        }
        if self.ns3_restart {
            if let Some(t) = self.chosen.take().or(ack.newest_delivered_sent) {
                // ns-3's `SkbDelivered` reads the record of each delivered segment: the
                // latest sent has the largest delivered count, and no record older than it
                // can raise the prior count again, so they are dropped.
                let i = self.sends.partition_point(|r| r.sent <= t);
                let found = (i > 0).then(|| self.sends[i - 1]);
                self.sends.drain(..i.saturating_sub(1));
                self.delivered_time = now;
                rs.delivered_time = now;
                return self.ns3_sample(rs, found, now, min_rtt);
            }
        }
        let found = ack.rtt.or(self.last_rtt).and_then(|rtt| {
            let p_sent = now.saturating_sub(rtt);
            let i = self.sends.partition_point(|r| r.sent <= p_sent);
            // Records more than a further RTT older will not be looked up again.
            let old = self
                .sends
                .partition_point(|r| r.sent + rtt < p_sent)
                .min(i.saturating_sub(1));
            self.sends.drain(..old);
            (i > 0).then(|| self.sends[i - 1 - old])
        });
        self.delivered_time = now;
        rs.delivered_time = now;
        if self.ns3_restart {
            return self.ns3_sample(rs, found, now, min_rtt);
        }
        let Some(rec) = found else {
            return rs;
        };
        self.first_tx = rec.sent;
        rs.prior_delivered = rec.delivered;
        rs.app_limited = rec.app_limited;
        let send_elapsed = rec.sent.saturating_sub(rec.first_tx);
        let ack_elapsed = now.saturating_sub(rec.delivered_time);
        let interval = send_elapsed.max(ack_elapsed);
        if interval == 0 || min_rtt.is_some_and(|m| interval < m) {
            return rs;
        }
        rs.bw = Some((self.delivered - rec.delivered) as f64 * SEC as f64 / interval as f64);
        rs
    }

    /// ns-3.44's sample (`Ns3Sample`) for an ACK that delivered data and whose reported
    /// packet's record is `found`.
    fn ns3_sample(
        &mut self,
        mut rs: RateSample,
        found: Option<SendRecord>,
        now: Time,
        min_rtt: Option<Time>,
    ) -> RateSample {
        let p = &mut self.ns3;
        if let Some(rec) = found {
            if p.prior_delivered == 0 || rec.delivered > p.prior_delivered {
                p.prior_delivered = rec.delivered;
                p.valid = true;
                p.ack_elapsed = now.saturating_sub(rec.delivered_time);
                p.send_elapsed = rec.sent.saturating_sub(rec.first_tx);
                p.app_limited = rec.app_limited;
                self.first_tx = rec.sent;
            }
        }
        rs.prior_delivered = p.prior_delivered;
        rs.app_limited = p.app_limited;
        if !p.valid {
            return rs;
        }
        let interval = p.send_elapsed.max(p.ack_elapsed);
        // ns-3's minimum RTT is unset (infinite) before the first sample.
        if min_rtt.is_none_or(|m| interval < m) || interval == 0 {
            p.valid = false;
            return rs;
        }
        let delivered = self.delivered - p.prior_delivered;
        if !p.app_limited
            || delivered as u128 * p.rate_interval as u128
                >= p.rate_delivered as u128 * interval as u128
        {
            p.rate_delivered = delivered;
            p.rate_interval = interval;
            // ns-3's `DataRate` holds whole bits per second.
            let bps = (delivered as f64 * 8.0 / (interval as f64 / SEC as f64)).trunc();
            p.rate = bps / 8.0;
        }
        rs.bw = Some(p.rate);
        rs
    }
}
