//! TCP receiver: cumulative ACKs, out-of-order buffering, optional delayed ACKs (RFC 5681 4.2,
//! RFC 1122), SACK blocks (RFC 2018), timestamp echo, and the advertised window.

use super::TcpConfig;
use crate::engine::{Time, Timed};
use crate::packet::{flags, Ecn, IpHeader, SackBlock, TcpHeader, MAX_SACK_BLOCKS};

mod ce_acks;
use ce_acks::CeAckState;
pub use ce_acks::CeAcks;

/// A receiver-side scheme that computes the window the receiver advertises (e.g. from a
/// bandwidth estimate). It sees every arriving segment with its IP header. While the receiver
/// holds out-of-order data it repeats the window of its last in-order ACK, so its duplicate
/// ACKs stay duplicates for the sender (RFC 5681 §2, condition (e)); the policy is asked again
/// once the hole is filled.
pub trait RwndPolicy {
    fn on_segment(&mut self, now: Time, ip: &IpHeader, tcp: &TcpHeader);
    /// The window to advertise, given the receive buffer (bytes).
    fn window(&self, now: Time, buffer: u64) -> u64;
    /// Figures reported as extra columns of the flow's result row (as
    /// `CongestionControl::metrics`).
    fn metrics(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

#[derive(Clone, Debug, Default)]
pub struct ReceiverStats {
    pub received_packets: u64,
    pub received_bytes: u64,
    /// In-order bytes handed to the application.
    pub delivered_bytes: u64,
    pub acks_sent: u64,
}

/// What the engine must do after a segment arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxOutcome {
    /// Bytes newly delivered in order to the application: [from, from + bytes).
    pub delivered_from: u64,
    pub delivered: u64,
    /// Send an ACK now.
    pub ack_now: bool,
}

pub struct TcpReceiver {
    pub rcv_nxt: u64,
    /// Disjoint, sorted byte ranges held above rcv_nxt.
    ooo: Vec<(u64, u64)>,
    /// Start of the range holding the most recent out-of-order arrival (first SACK block).
    last_ooo: Option<u64>,
    window: u64,
    delayed: bool,
    delack_count: u32,
    delack_timeout: Time,
    sack: bool,
    timestamps: bool,
    ts_echo_earliest: bool,
    ack_first_segment: bool,
    unacked_segments: u32,
    delack_deadline: Option<Time>,
    ts_recent: Time,
    /// The cumulative point of the last ACK sent (RFC 7323's Last.ACK.sent).
    last_ack_sent: u64,
    /// Most severe codepoint of the data segments since the last ACK, reflected in the next
    /// ACK's echo bits (multi-level ECN, seed paper 000 §2.2).
    last_codepoint: u8,
    /// RFC 3168: echo ECE on every ACK from a CE mark until a CWR segment arrives.
    ece: bool,
    /// ECN-capable end (configured).
    ecn_capable: bool,
    /// A SYN arrived: answer with a SYN-ACK (ECE set when ECN is agreed).
    synack_due: Option<bool>,
    /// SYN-RECEIVED (RFC 9293 3.10.7.4): a SYN arrived and nothing since.
    syn_received: bool,
    dda_delay: Option<Time>,
    /// Duplicate ACKs owed for the current hole, and how many of them are being held.
    dup_count: u32,
    held: u32,
    dda_deadline: Option<Time>,
    /// The hold expired for this hole: later duplicates go out at once.
    dda_released: bool,
    pub dupacks_dropped: u64,
    /// Router-written fields of the latest data segment, echoed in the next ACK.
    rate_index: Option<f32>,
    explicit_rate: Option<f32>,
    /// ACKs owed: sent by [`TcpReceiver::poll_ack`].
    acks_due: u32,
    policy: Option<Box<dyn RwndPolicy>>,
    /// The window of the last ACK sent, repeated while a hole is open.
    last_wnd: Option<u64>,
    /// DCTCP's receiver (`set_ce_state_acks`).
    ce_acks: Option<CeAckState>,
    /// An ACK made ahead of the segment being handled (a CE-state change), sent first.
    early_ack: Option<TcpHeader>,
    /// `sack_list = "ns3"`: the blocks reported, most recent first (ns-3's `m_sackList`).
    sack_list: Option<Vec<(u64, u64)>>,
    pub stats: ReceiverStats,
}

impl TcpReceiver {
    /// Bytes held on the heap (the out-of-order ranges), for the run's memory budget.
    pub fn heap_bytes(&self) -> usize {
        self.ooo.capacity() * std::mem::size_of::<(u64, u64)>()
    }

    pub fn new(cfg: &TcpConfig) -> Self {
        TcpReceiver {
            rcv_nxt: 0,
            ooo: Vec::new(),
            last_ooo: None,
            window: cfg.rcv_window,
            delayed: cfg.delayed_ack,
            delack_count: cfg.delack_count,
            delack_timeout: cfg.delack_timeout,
            sack: cfg.sack,
            timestamps: cfg.timestamps,
            ts_echo_earliest: cfg.ts_echo_earliest,
            ack_first_segment: cfg.ack_first_segment,
            // Counting the first segment as the second of a pair acknowledges it at once.
            unacked_segments: if cfg.ack_first_segment {
                cfg.delack_count.saturating_sub(1)
            } else {
                0
            },
            delack_deadline: None,
            ts_recent: 0,
            last_ack_sent: 0,
            last_codepoint: 0,
            ece: false,
            ecn_capable: cfg.ecn,
            synack_due: None,
            syn_received: false,
            dda_delay: cfg.dda_delay,
            dup_count: 0,
            held: 0,
            dda_deadline: None,
            dda_released: false,
            dupacks_dropped: 0,
            rate_index: None,
            explicit_rate: None,
            acks_due: 0,
            policy: None,
            last_wnd: None,
            ce_acks: None,
            early_ack: None,
            sack_list: cfg.sack_list_ns3.then(Vec::new),
            stats: ReceiverStats::default(),
        }
    }

    /// Let `policy` compute the advertised window.
    pub fn set_window_policy(&mut self, policy: Box<dyn RwndPolicy>) {
        self.policy = Some(policy);
    }

    /// The receive-window policy, if one is installed.
    pub fn window_policy(&self) -> Option<&dyn RwndPolicy> {
        self.policy.as_deref()
    }

    /// The next ACK owed, if any (call until None).
    pub fn poll_ack(&mut self, now: Time) -> Option<TcpHeader> {
        if let Some(h) = self.early_ack.take() {
            return Some(h);
        }
        if self.acks_due == 0 {
            return None;
        }
        self.acks_due -= 1;
        Some(self.make_ack(now))
    }

    /// A segment arrived: what it delivered, with any ACK it calls for queued for
    /// [`TcpReceiver::poll_ack`].
    pub fn receive(&mut self, now: Time, ip: &IpHeader, h: &TcpHeader) -> RxOutcome {
        if h.len > 0 {
            self.rate_index = ip.rate_index;
            self.explicit_rate = ip.explicit_rate;
        }
        if let Some(p) = &mut self.policy {
            p.on_segment(now, ip, h);
        }
        let out = self.on_segment(now, h, ip.ecn);
        if out.ack_now {
            self.acks_due += 1;
        }
        out
    }

    pub fn delack_deadline(&self) -> Option<Time> {
        self.delack_deadline
    }

    /// The earliest of the delayed-ACK and DDA timers.
    pub fn timer_deadline(&self) -> Option<Time> {
        match (self.delack_deadline, self.dda_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Timers due at `now`: how many ACKs to send.
    pub fn on_timer(&mut self, now: Time) -> u32 {
        let mut n = u32::from(self.on_delack_timer(now));
        if self.dda_deadline.is_some_and(|d| d <= now) {
            // The hole did not fill in time: release the held duplicates.
            n += self.held;
            self.held = 0;
            self.dda_deadline = None;
            self.dda_released = true;
        }
        n
    }

    /// Bytes held out of order.
    pub fn buffered(&self) -> u64 {
        self.ooo.iter().map(|(s, e)| e - s).sum()
    }

    /// Advertised window. The application reads in-order data at once, and out-of-order data
    /// lies inside [rcv_nxt, rcv_nxt + window), so the full buffer is offered: the right edge
    /// never moves left (RFC 9293 3.8.6.2.2), and duplicate ACKs keep an unchanged window.
    pub fn advertised_window(&self, now: Time) -> u64 {
        match &self.policy {
            Some(p) => p.window(now, self.window),
            None => self.window,
        }
    }

    pub fn on_segment(&mut self, now: Time, h: &TcpHeader, ecn: Ecn) -> RxOutcome {
        if h.has(flags::SYN) {
            // ECN-setup SYN (ECE and CWR) and a capable end: agree in the SYN-ACK.
            let agree = self.ecn_capable && h.has(flags::ECE) && h.has(flags::CWR);
            self.synack_due = Some(agree);
            self.syn_received = true;
            return RxOutcome {
                delivered_from: self.rcv_nxt,
                delivered: 0,
                ack_now: true,
            };
        }
        if std::mem::take(&mut self.syn_received) && h.len == 0 {
            // The sender's ACK of the SYN-ACK completes the handshake and calls for no ACK.
            return RxOutcome {
                delivered_from: self.rcv_nxt,
                delivered: 0,
                ack_now: false,
            };
        }
        self.stats.received_packets += 1;
        self.stats.received_bytes += h.len as u64;
        // With delayed ACKs one ACK answers several segments: echo the most severe level.
        self.last_codepoint = self.last_codepoint.max(ecn.bits());
        if h.has(flags::CWR) {
            self.ece = false;
        }
        if ecn == Ecn::CE {
            self.ece = true;
        }
        if h.len > 0 && ecn.is_ect() {
            self.ce_state_change(now, h.seq, ecn == Ecn::CE);
        }
        // RFC 7323 4.3: TS.Recent is taken only from a segment that holds Last.ACK.sent, so
        // an ACK that answers several segments echoes the earliest one's timestamp and its
        // RTT sample includes the time the receiver held it (a delayed ACK).
        let holds_last_ack =
            h.seq <= self.last_ack_sent && self.last_ack_sent < h.seq + (h.len as u64).max(1);
        if self.timestamps
            && (!self.ts_echo_earliest || (h.ts_val >= self.ts_recent && holds_last_ack))
        {
            self.ts_recent = h.ts_val;
        }
        // Taken from every segment, so that a change that came with an old or out-of-order
        // segment (acknowledged at once anyway) does not carry over to the next one.
        let ce_now = self
            .ce_acks
            .as_mut()
            .is_some_and(|c| std::mem::take(&mut c.ack_now));
        let (start, end) = (h.seq, h.seq + h.len as u64);
        let before = self.rcv_nxt;
        let had_hole = !self.ooo.is_empty();
        let mut out = RxOutcome {
            delivered_from: before,
            delivered: 0,
            ack_now: false,
        };
        if end <= self.rcv_nxt {
            // Entirely old: ACK at once so the sender learns where we are.
            out.ack_now = true;
        } else if start <= self.rcv_nxt {
            self.rcv_nxt = end;
            // Pull in buffered ranges that are now contiguous.
            let mut k = 0;
            while k < self.ooo.len() && self.ooo[k].0 <= self.rcv_nxt {
                self.rcv_nxt = self.rcv_nxt.max(self.ooo[k].1);
                k += 1;
            }
            self.ooo.drain(..k);
            if self.last_ooo.is_some_and(|s| s < self.rcv_nxt) {
                self.last_ooo = None;
            }
            out.delivered = self.rcv_nxt - before;
            if let Some(list) = &mut self.sack_list {
                // ns-3's ClearSackList: blocks now below the cumulative point go.
                let rcv_nxt = self.rcv_nxt;
                list.retain(|b| b.1 > rcv_nxt);
            }
            // The hole (if any) is filled: held duplicates are no longer needed.
            self.dupacks_dropped += self.held as u64;
            self.dup_count = 0;
            self.held = 0;
            self.dda_deadline = None;
            self.dda_released = false;
            self.stats.delivered_bytes += out.delivered;
            self.unacked_segments += 1;
            // Filling a hole is acknowledged at once (RFC 5681 4.2).
            out.ack_now =
                had_hole || !self.delayed || self.unacked_segments >= self.delack_count || ce_now;
            if let Some(c) = &mut self.ce_acks {
                // ns-3's CA_EVENT_DELAYED_ACK / CA_EVENT_NON_DELAYED_ACK.
                c.reserved = !out.ack_now;
            }
            if !out.ack_now && self.delack_deadline.is_none() {
                self.delack_deadline = Some(now + self.delack_timeout);
            }
        } else {
            if self.sack_list.is_some() {
                self.ns3_sack_block(start, end);
            }
            self.insert_ooo(start, end);
            if let Some(c) = &mut self.ce_acks {
                // A gap: ns-3 acknowledges at once (CA_EVENT_NON_DELAYED_ACK).
                c.reserved = false;
            }
            // Out-of-order: an immediate duplicate ACK (RFC 5681 4.2), unless DDA holds the
            // third and later ones to give link-level retransmission time to fill the hole.
            self.dup_count += 1;
            match self.dda_delay {
                Some(d) if self.dup_count >= 3 && !self.dda_released && !ce_now => {
                    self.held += 1;
                    self.dda_deadline.get_or_insert(now + d);
                    out.ack_now = false;
                }
                _ => out.ack_now = true,
            }
        }
        out
    }

    /// ns-3's `TcpRxBuffer::Add` and `UpdateSackList` for an out-of-order segment: the part
    /// not held yet becomes the first block, merged with listed blocks it adjoins exactly;
    /// four blocks at most are kept.
    fn ns3_sack_block(&mut self, start: u64, end: u64) {
        let (mut head, mut tail) = (start, end);
        for &(s, e) in &self.ooo {
            if s <= head && head < e {
                head = e;
            }
            if s < tail && tail <= e {
                tail = s;
            }
        }
        let Some(list) = &mut self.sack_list else {
            return;
        };
        if head >= tail {
            return;
        }
        list.insert(0, (head, tail));
        let mut i = 1;
        while i < list.len() {
            let (b, c) = (list[0], list[i]);
            let merged = if b.0 == c.1 {
                Some((c.0, b.1))
            } else if b.1 == c.0 {
                Some((b.0, c.1))
            } else {
                None
            };
            match merged {
                Some(m) => {
                    list.remove(i);
                    list[0] = m;
                    i = 1;
                }
                None => i += 1,
            }
        }
        list.truncate(4);
    }

    fn insert_ooo(&mut self, start: u64, end: u64) {
        let pos = self.ooo.partition_point(|r| r.1 < start);
        let mut s = start;
        let mut e = end;
        let mut j = pos;
        while j < self.ooo.len() && self.ooo[j].0 <= e {
            s = s.min(self.ooo[j].0);
            e = e.max(self.ooo[j].1);
            j += 1;
        }
        self.ooo.splice(pos..j, std::iter::once((s, e)));
        self.last_ooo = Some(s);
    }

    /// Build the ACK to send now; resets the delayed-ACK state.
    pub fn make_ack(&mut self, now: Time) -> TcpHeader {
        self.unacked_segments = 0;
        self.last_ack_sent = self.rcv_nxt;
        self.delack_deadline = None;
        self.stats.acks_sent += 1;
        let echo = std::mem::take(&mut self.last_codepoint);
        let wnd = match self.last_wnd {
            // A duplicate ACK keeps the window, or the sender would not count it.
            Some(w) if !self.ooo.is_empty() => w,
            _ => self.advertised_window(now),
        };
        self.last_wnd = Some(wnd);
        let mut h = TcpHeader {
            ack: self.rcv_nxt,
            flags: if self.ece {
                flags::ACK | flags::ECE
            } else {
                flags::ACK
            },
            wnd,
            ecn_echo: echo,
            rate_index_echo: self.rate_index,
            explicit_rate_echo: self.explicit_rate,
            ..Default::default()
        };
        if let Some(c) = self.ce_acks {
            // DCTCP's receiver reports the CE state of the latest segment.
            (h.ecn_echo, h.flags) = Self::ce_echo(c.ce);
        }
        if self.timestamps {
            h.ts_val = now;
            h.ts_ecr = self.ts_recent;
        }
        if let Some(agree) = self.synack_due.take() {
            h.flags = flags::SYN | flags::ACK | if agree { flags::ECE } else { 0 };
            if self.ack_first_segment {
                // ns-3 sets this once the handshake is done.
                self.unacked_segments = self.delack_count.saturating_sub(1);
            }
            return h;
        }
        if let Some(list) = self.sack_list.as_ref().filter(|_| self.sack) {
            for (k, &(start, end)) in list.iter().take(MAX_SACK_BLOCKS).enumerate() {
                h.sack[k] = SackBlock { start, end };
            }
            h.n_sack = list.len().min(MAX_SACK_BLOCKS) as u8;
            return h;
        }
        if self.sack && !self.ooo.is_empty() {
            // First block: the one holding the latest arrival (RFC 2018 4); then the others,
            // highest first.
            let mut n = 0;
            if let Some(s) = self.last_ooo {
                if let Some(r) = self.ooo.iter().find(|r| r.0 == s) {
                    h.sack[0] = SackBlock {
                        start: r.0,
                        end: r.1,
                    };
                    n = 1;
                }
            }
            for r in self.ooo.iter().rev() {
                if n == MAX_SACK_BLOCKS {
                    break;
                }
                if Some(r.0) == self.last_ooo {
                    continue;
                }
                h.sack[n] = SackBlock {
                    start: r.0,
                    end: r.1,
                };
                n += 1;
            }
            h.n_sack = n as u8;
        }
        h
    }

    /// The delayed-ACK timer fired; true if an ACK is owed.
    pub fn on_delack_timer(&mut self, now: Time) -> bool {
        match self.delack_deadline {
            Some(d) if d <= now => {
                self.delack_deadline = None;
                if let Some(c) = &mut self.ce_acks {
                    // ns-3's DelAckTimeout raises CA_EVENT_DELAYED_ACK as it sends.
                    c.reserved = true;
                }
                self.unacked_segments > 0
            }
            _ => false,
        }
    }
}

impl Timed for TcpReceiver {
    fn poll_timeout(&self) -> Option<Time> {
        self.timer_deadline()
    }

    fn handle_timeout(&mut self, now: Time) -> bool {
        let n = self.on_timer(now);
        self.acks_due += n;
        n > 0
    }
}

#[cfg(test)]
#[path = "receiver_tests.rs"]
mod tests;
