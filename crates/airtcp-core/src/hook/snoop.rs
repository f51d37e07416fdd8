//! Snoop (Balakrishnan, Seshan, Amir & Katz, "Improving TCP/IP Performance over Wireless
//! Networks", MobiCom 1995) at a base station: caches the data segments it forwards onto a
//! wireless link, retransmits them locally on a duplicate ACK or when its local timer expires,
//! and keeps the duplicate ACKs it handled from reaching the sender.

use super::{Hook, HookAction, HookCtx, Metric, Points, Verdict};
use crate::device::DeviceView;
use crate::engine::Time;
use crate::ids::{FlowId, NodeId};
use crate::packet::{flags, DropCause, Proto, Wire};
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug)]
struct Cached {
    pkt: Wire,
    /// The sender marked this copy a retransmission.
    sender_retx: bool,
    /// Last time this segment went out on the wireless link.
    sent: Time,
    local_retx: bool,
}

#[derive(Default)]
struct FlowState {
    cache: BTreeMap<u64, Cached>,
    last_ack: u64,
    /// Duplicate ACKs to swallow after a local retransmission (one per segment that was in
    /// flight behind the lost one).
    expected_dups: u32,
    /// End of the highest segment seen: a segment starting below it is one the sender sent
    /// again (what a base station can tell from sequence numbers alone).
    high: u64,
    srtt: Option<Time>,
    /// Smallest local RTT sample.
    min_rtt: Option<Time>,
    last_progress: Time,
}

pub struct Snoop {
    pub node: NodeId,
    flows: BTreeMap<FlowId, FlowState>,
    /// Floor of the local retransmission timeout.
    pub min_rto: Time,
    pub local_retransmits: u64,
    pub suppressed: u64,
}

/// What the agent wants done with an ACK it saw.
#[derive(Debug)]
pub enum AckAction {
    Forward,
    /// Swallow the ACK; retransmit this cached segment locally first, if given.
    Suppress(Option<Wire>),
}

impl Snoop {
    pub fn new(node: NodeId, min_rto: Time) -> Self {
        Snoop {
            node,
            flows: BTreeMap::new(),
            min_rto,
            local_retransmits: 0,
            suppressed: 0,
        }
    }

    /// A data segment is forwarded onto the wireless link at `now`.
    pub fn on_data(&mut self, now: Time, pkt: &Wire) {
        let st = self.flows.entry(pkt.flow).or_default();
        let sender_retx = pkt.tcp.seq < st.high;
        st.high = st.high.max(pkt.tcp.seq + pkt.tcp.len as u64);
        if pkt.tcp.seq < st.last_ack {
            return; // already acknowledged by the mobile host
        }
        // The timer runs from when the segment the mobile host waits for went out.
        if st.cache.is_empty() || pkt.tcp.seq == st.last_ack {
            st.last_progress = now;
        }
        st.cache.insert(
            pkt.tcp.seq,
            Cached {
                pkt: *pkt,
                sender_retx,
                sent: now,
                local_retx: false,
            },
        );
    }

    /// An ACK from the mobile host passes toward the sender.
    pub fn on_ack(&mut self, now: Time, flow: FlowId, ack: u64) -> AckAction {
        let Some(st) = self.flows.get_mut(&flow) else {
            return AckAction::Forward;
        };
        if ack > st.last_ack {
            // New ACK: clean the cache, and time the newest segment it frees unless it frees
            // a resent one. Karn's rule, locally: an ACK that covers a copy resent by us or by
            // the sender may have been caused by either copy; and when that copy filled a
            // hole, the ACK also covers segments that reached the mobile host long before,
            // whose send times would time the repair, not the link.
            let mut newest = None;
            let mut resent = false;
            while let Some((&seq, c)) = st.cache.first_key_value() {
                if seq >= ack {
                    break;
                }
                resent |= c.local_retx || c.sender_retx;
                newest = Some(c.sent);
                st.cache.pop_first();
            }
            let sample = newest
                .filter(|_| !resent)
                .map(|sent| now.saturating_sub(sent));
            if let Some(r) = sample {
                st.srtt = Some(st.srtt.map_or(r, |s| (7 * s + r) / 8));
                st.min_rtt = Some(st.min_rtt.map_or(r, |m| m.min(r)));
            }
            st.last_ack = ack;
            st.expected_dups = 0;
            st.last_progress = now;
            return AckAction::Forward;
        }
        if ack < st.last_ack {
            return AckAction::Forward;
        }
        // Duplicate ACK for the segment at `ack`.
        let Some(c) = st.cache.get_mut(&ack) else {
            return AckAction::Forward; // not cached: the sender must repair it
        };
        if c.sender_retx && !c.local_retx {
            // The sender is already repairing this segment (it was lost before the base
            // station); duplicates sent before its retransmission arrived belong to the
            // sender's recovery.
            return AckAction::Forward;
        }
        if st.expected_dups > 0 {
            st.expected_dups -= 1;
            self.suppressed += 1;
            return AckAction::Suppress(None);
        }
        if st.min_rtt.is_some_and(|m| now < c.sent + m) {
            // Sent less than a local round trip ago: this duplicate left the mobile host
            // before the segment could have arrived, so it says nothing about its loss.
            self.suppressed += 1;
            return AckAction::Suppress(None);
        }
        // First duplicate: retransmit locally, then swallow the duplicates the segments
        // already in flight behind it will cause.
        c.local_retx = true;
        c.sent = now;
        let pkt = c.pkt;
        st.expected_dups = st.cache.range(ack + 1..).count() as u32;
        self.local_retransmits += 1;
        self.suppressed += 1;
        AckAction::Suppress(Some(pkt))
    }

    /// Local timeout: max(2·local SRTT, floor).
    fn rto(min_rto: Time, st: &FlowState) -> Time {
        st.srtt.map_or(min_rto, |s| (2 * s).max(min_rto))
    }

    /// Segments to retransmit because no progress was made for a local timeout. Only the
    /// segment the mobile host waits for (at its cumulative ACK) is resent, and only if it is
    /// cached: a hole that opened before the base station (a congestion loss upstream) is the
    /// sender's to repair, and resending later segments would only cause duplicate ACKs.
    pub fn on_timer(&mut self, now: Time, out: &mut Vec<HookAction>) {
        let min_rto = self.min_rto;
        for st in self.flows.values_mut() {
            let rto = Self::rto(min_rto, st);
            if let Some(c) = st.cache.get(&st.last_ack) {
                if now >= st.last_progress + rto {
                    let mut c = *c;
                    c.local_retx = true;
                    c.sent = now;
                    st.cache.insert(c.pkt.tcp.seq, c);
                    st.last_progress = now;
                    out.push(HookAction::Send {
                        pkt: c.pkt,
                        front: true,
                    });
                    self.local_retransmits += 1;
                }
            }
        }
    }

    /// When the agent next needs its timer.
    pub fn next_deadline(&self) -> Option<Time> {
        self.flows
            .values()
            .filter(|st| st.cache.contains_key(&st.last_ack))
            .map(|st| st.last_progress + Self::rto(self.min_rto, st))
            .min()
    }
}

impl Hook for Snoop {
    fn kind(&self) -> &'static str {
        "snoop"
    }

    fn points(&self) -> Points {
        Points {
            forward: true,
            ..Default::default()
        }
    }

    fn sends_ahead_of_queue(&self) -> bool {
        true
    }

    fn forward(&mut self, ctx: &mut HookCtx, pkt: &mut Wire, out: &DeviceView) -> Verdict {
        if pkt.proto != Proto::Tcp || pkt.tcp.has(flags::SYN) {
            return Verdict::Accept;
        }
        if pkt.tcp.len > 0 {
            // Cache only what goes out on a wireless link.
            if out.wireless {
                self.on_data(ctx.now, pkt);
            }
            return Verdict::Accept;
        }
        match self.on_ack(ctx.now, pkt.flow, pkt.tcp.ack) {
            AckAction::Forward => Verdict::Accept,
            AckAction::Suppress(resend) => {
                if let Some(p) = resend {
                    ctx.actions.push(HookAction::Send {
                        pkt: p,
                        front: true,
                    });
                }
                Verdict::Drop(DropCause::Suppressed)
            }
        }
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.next_deadline()
    }

    fn handle_timeout(&mut self, ctx: &mut HookCtx) {
        self.on_timer(ctx.now, ctx.actions);
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn metrics(&self, out: &mut Vec<(&'static str, Metric)>) {
        out.push(("local_retransmits", Metric::Count(self.local_retransmits)));
        // Duplicate ACKs kept from the sender.
        out.push(("suppressed", Metric::Count(self.suppressed)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use crate::packet::{IpHeader, TcpHeader};

    fn seg(seq: u64) -> Wire {
        Wire {
            flow: FlowId(0),
            src: NodeId(0),
            dst: NodeId(2),
            size: 1040,
            proto: Proto::Tcp,
            ip: IpHeader::default(),
            tcp: TcpHeader {
                seq,
                len: 1000,
                ..Default::default()
            },
            udp_seq: 0,
        }
    }

    /// An agent that forwarded segments 0, 1000, ... (n of them, 1 ms apart) and saw the ACK
    /// of the first at 10 ms: a local round trip of 10 ms, segment 1000 at the cumulative point.
    fn after_first_ack(n: u64) -> Snoop {
        let mut s = Snoop::new(NodeId(1), 20 * MS);
        for i in 0..n {
            s.on_data(i * MS, &seg(i * 1000));
        }
        assert!(matches!(
            s.on_ack(10 * MS, FlowId(0), 1000),
            AckAction::Forward
        ));
        s
    }

    #[test]
    fn local_retransmit_on_first_dupack_and_suppression() {
        let mut s = after_first_ack(5);
        // Segment 1000 lost: the first dupack triggers a local retransmission.
        match s.on_ack(11 * MS, FlowId(0), 1000) {
            AckAction::Suppress(Some(p)) => assert_eq!(p.tcp.seq, 1000),
            other => panic!("{other:?}"),
        }
        // Three more segments were in flight: their dupacks are swallowed.
        for _ in 0..3 {
            assert!(matches!(
                s.on_ack(12 * MS, FlowId(0), 1000),
                AckAction::Suppress(None)
            ));
        }
        // A further duplicate a local round trip later means the local retransmission was
        // lost too: resend again.
        match s.on_ack(25 * MS, FlowId(0), 1000) {
            AckAction::Suppress(Some(p)) => assert_eq!(p.tcp.seq, 1000),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            s.on_ack(30 * MS, FlowId(0), 5000),
            AckAction::Forward
        ));
        assert_eq!(s.next_deadline(), None, "cache empty");
    }

    /// Karn's rule on a cumulative ACK: once a locally resent segment filled a hole, the ACK
    /// that jumps over it also frees segments the mobile host held for long; timing those
    /// would time the repair. No sample then, and the local timeout stays near the link's.
    #[test]
    fn an_ack_that_frees_a_resent_segment_times_nothing() {
        let mut s = after_first_ack(5);
        let st = |s: &Snoop| (s.flows[&FlowId(0)].srtt, s.flows[&FlowId(0)].min_rtt);
        assert_eq!(st(&s), (Some(10 * MS), Some(10 * MS)));
        // 1000 lost; 2000-4000 arrive: the first duplicate resends 1000 locally.
        assert!(matches!(
            s.on_ack(13 * MS, FlowId(0), 1000),
            AckAction::Suppress(Some(_))
        ));
        // The resent copy fills the hole 300 ms later: the ACK jumps to 5000.
        s.on_ack(313 * MS, FlowId(0), 5000);
        assert_eq!(st(&s), (Some(10 * MS), Some(10 * MS)));
        // An ordinary in-order ACK is timed again.
        s.on_data(320 * MS, &seg(5000));
        s.on_ack(332 * MS, FlowId(0), 6000);
        assert_eq!(st(&s), (Some((7 * 10 * MS + 12 * MS) / 8), Some(10 * MS)));
    }

    /// A duplicate for a cached segment that went out less than a local round trip ago left
    /// the mobile host before that copy could arrive: the agent is already repairing the loss,
    /// so the duplicate is kept from the sender (it would count toward a fast retransmit).
    #[test]
    fn a_duplicate_older_than_the_local_resend_is_swallowed() {
        let mut s = after_first_ack(3);
        // Local resend of 1000 at 11 ms; one segment (2000) behind it: one duplicate expected.
        assert!(matches!(
            s.on_ack(11 * MS, FlowId(0), 1000),
            AckAction::Suppress(Some(_))
        ));
        assert!(matches!(
            s.on_ack(12 * MS, FlowId(0), 1000),
            AckAction::Suppress(None)
        ));
        // One more duplicate within a local round trip (10 ms) of the resend: swallowed,
        // without another resend.
        assert!(matches!(
            s.on_ack(15 * MS, FlowId(0), 1000),
            AckAction::Suppress(None)
        ));
        assert_eq!((s.local_retransmits, s.suppressed), (1, 3));
    }

    #[test]
    fn uncached_dupack_is_forwarded_and_timer_retransmits() {
        let mut s = Snoop::new(NodeId(1), 20 * MS);
        assert!(matches!(s.on_ack(0, FlowId(0), 0), AckAction::Forward));
        s.on_data(0, &seg(0));
        assert_eq!(s.next_deadline(), Some(20 * MS));
        let mut out = vec![];
        s.on_timer(10 * MS, &mut out);
        assert!(out.is_empty());
        s.on_timer(20 * MS, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(s.local_retransmits, 1);
    }

    #[test]
    fn dupacks_for_a_sender_retransmission_are_forwarded() {
        let mut s = Snoop::new(NodeId(1), 20 * MS);
        s.on_data(0, &seg(0));
        s.on_ack(5 * MS, FlowId(0), 1000);
        s.on_data(6 * MS, &seg(2000));
        // The sender's own retransmission of a segment lost before the base station: below
        // the highest sequence seen, so the base station knows it is a resend.
        s.on_data(100 * MS, &seg(1000));
        // A duplicate the mobile sent before the retransmission reached it.
        assert!(matches!(
            s.on_ack(101 * MS, FlowId(0), 1000),
            AckAction::Forward
        ));
        assert_eq!(s.local_retransmits, 0);
    }

    #[test]
    fn upstream_hole_is_left_to_the_sender() {
        let mut s = Snoop::new(NodeId(1), 20 * MS);
        s.on_data(0, &seg(0));
        s.on_ack(5 * MS, FlowId(0), 1000);
        // Segment 1000 was lost before the base station: 2000 and 3000 arrive and are cached.
        s.on_data(6 * MS, &seg(2000));
        s.on_data(7 * MS, &seg(3000));
        assert!(matches!(
            s.on_ack(10 * MS, FlowId(0), 1000),
            AckAction::Forward
        ));
        assert_eq!(s.next_deadline(), None, "nothing local to repair");
        let mut out = vec![];
        s.on_timer(500 * MS, &mut out);
        assert!(out.is_empty());
        // The sender's retransmission passes: now the timer covers it.
        s.on_data(600 * MS, &seg(1000));
        assert_eq!(s.next_deadline(), Some(600 * MS + 20 * MS));
    }
}
