//! ns-3.44's RTT sampling rule (`rtt_sampling = "ns3"`), where its `TcpSocketBase` departs
//! from RFC 6298 and RFC 7323. The other timer rule it departs by, an RTO taken back to the
//! estimate at each new ACK (`rto_on_new_ack = "estimate"`), is
//! [`super::rtt::RttEstimator::reset_to_estimate`].
//!
//! ns-3 keeps a history of first transmissions (`UpdateRttHistory`: one entry per segment sent
//! for the first time; a resend only flags the entry it falls in) and `EstimateRtt` times an
//! ACK only by the history's oldest entry, and only if the ACK covers that entry whole:
//! from the echoed timestamp when timestamps are on, else from the entry's send time if it was
//! never resent. `ReTxTimeout` empties the history, so nothing sent before a timeout, and no
//! go-back-N resend after it, is timed again: the first sample after a timeout comes from
//! the first segment sent beyond the data outstanding at the timeout. RFC 7323 lets every
//! advancing ACK with an echo give a sample, retransmissions included.

use crate::engine::Time;

/// The oldest history entry when an ACK arrives: where it ends, when it was sent, and whether
/// it was resent since.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Front {
    pub end: u64,
    pub sent: Time,
    pub retx: bool,
}

/// ns-3's history, reduced to what decides a sample: segments are entered in sequence order
/// on their first transmission and leave when acknowledged, so the history is the
/// outstanding data first sent at or beyond `from`, the highest data sent at the last
/// timeout.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ns3History {
    from: u64,
}

impl Ns3History {
    /// A timeout empties the history: only data first sent from `snd_max` on enters it again.
    pub fn clear(&mut self, snd_max: u64) {
        self.from = snd_max;
    }

    /// Start of the oldest entry, before an ACK: the first unacknowledged segment, or the
    /// first sent after the last timeout; None while nothing sent since is outstanding.
    pub fn front_start(&self, snd_una: u64, snd_max: u64) -> Option<u64> {
        let s = snd_una.max(self.from);
        (s < snd_max).then_some(s)
    }

    /// The sample an ACK up to `ack` gives: None unless it covers the oldest entry whole;
    /// then `ts` (now less the echoed timestamp) when the ACK carries an echo, else the time
    /// since the entry was sent, if it never was resent (Karn's rule).
    pub fn sample(front: Option<Front>, ack: u64, ts: Option<Time>, now: Time) -> Option<Time> {
        let f = front.filter(|f| ack >= f.end)?;
        match ts {
            Some(r) => Some(r),
            None if f.retx => None,
            None => Some(now.saturating_sub(f.sent)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use crate::packet::{flags, TcpHeader};
    use crate::tcp::sender::{Segment, TcpSender};
    use crate::tcp::{cc, TcpConfig};

    fn sender(start: Time, f: impl FnOnce(&mut TcpConfig)) -> TcpSender {
        let (c, r) = cc::build_default("newreno");
        let mut cfg = TcpConfig::default();
        f(&mut cfg);
        let mut s = TcpSender::new(cfg, c, r, start);
        s.set_app_end(u64::MAX);
        s
    }

    fn ack(n: u64, ts_ecr: Time) -> TcpHeader {
        TcpHeader {
            ack: n,
            wnd: 64 * 1024,
            flags: flags::ACK,
            ts_ecr,
            ..Default::default()
        }
    }

    fn drain(s: &mut TcpSender, now: Time) -> Vec<Segment> {
        std::iter::from_fn(|| s.next_segment(now)).collect()
    }

    /// A sample of 100 ms (RTO 300 ms), a timeout at 400 ms (RTO 600 ms), then at 450 ms an
    /// ACK of the resent segment only, which gives no sample (Karn). Returns the RTO after it.
    fn rto_after_an_unsampled_new_ack(estimate: bool) -> (Time, Option<Time>) {
        let mut s = sender(0, |c| c.rto_reset_on_new_ack = estimate);
        s.st.cwnd = 5_000;
        drain(&mut s, 0);
        s.on_ack(100 * MS, &ack(1000, 0));
        assert_eq!(s.rtt.rto, 300 * MS, "max(200 ms, 100 ms + 4 * 50 ms)");
        s.on_timeout(400 * MS);
        assert_eq!(s.rtt.rto, 600 * MS, "RFC 6298 5.5: doubled");
        let resent = drain(&mut s, 400 * MS);
        assert_eq!((resent[0].seq, resent[0].retx), (1000, true));
        s.on_ack(450 * MS, &ack(2000, 0));
        assert_eq!(s.rtt.samples, 1, "an ACK of a resent segment times nothing");
        (s.rtt.rto, s.rto_deadline())
    }

    #[test]
    fn keep_backoff_holds_the_doubled_rto_until_a_sample() {
        // RFC 6298 5.7 with Karn's rule: the backed-off RTO stays for the restarted timer.
        assert_eq!(
            rto_after_an_unsampled_new_ack(false),
            (600 * MS, Some(1050 * MS))
        );
    }

    #[test]
    fn estimate_drops_the_backoff_at_the_first_new_ack() {
        // ns-3's NewAck: max(MinRto, SRTT + max(G, 4 RTTVAR)) at every new ACK.
        assert_eq!(
            rto_after_an_unsampled_new_ack(true),
            (300 * MS, Some(750 * MS))
        );
    }

    /// Timestamps on, sent from 10 ms (a zero TSval is no echo): a sample of 100 ms, a
    /// timeout at 410 ms, and the echoed ACK of the segment resent then, at 460 ms.
    fn after_the_ack_of_a_resent_segment(ns3: bool) -> TcpSender {
        let mut s = sender(10 * MS, |c| {
            c.timestamps = true;
            c.rtt_sample_ns3 = ns3;
        });
        s.st.cwnd = 5_000;
        drain(&mut s, 10 * MS);
        s.on_ack(110 * MS, &ack(1000, 10 * MS));
        assert_eq!((s.rtt.samples, s.rtt.srtt), (1, Some(100 * MS)));
        s.on_timeout(410 * MS);
        drain(&mut s, 410 * MS);
        s.on_ack(460 * MS, &ack(2000, 410 * MS));
        s
    }

    #[test]
    fn rfc_times_the_echoed_ack_of_a_retransmission() {
        // RFC 7323 3.2: the echo makes the sample unambiguous.
        let s = after_the_ack_of_a_resent_segment(false);
        assert_eq!(s.rtt.samples, 2);
        assert_eq!(s.rtt.srtt, Some((7 * 100 * MS + 50 * MS) / 8));
    }

    #[test]
    fn ns3_times_nothing_sent_before_the_last_timeout() {
        let mut s = after_the_ack_of_a_resent_segment(true);
        assert_eq!(s.rtt.samples, 1, "the timeout emptied the history");
        // Go-back-N resends 2000..5000 and sends the first new segment, 5000, at 460 ms.
        s.st.cwnd = 5_000;
        let out = drain(&mut s, 460 * MS);
        let first_new = out.iter().find(|g| !g.retx).map(|g| g.seq);
        assert_eq!(first_new, Some(5000));
        // ACKs of the resends still time nothing, echo or not.
        s.on_ack(500 * MS, &ack(5000, 460 * MS));
        assert_eq!(s.rtt.samples, 1);
        // The ACK covering segment 5000 does: now less its echo.
        s.on_ack(530 * MS, &ack(6000, 460 * MS));
        assert_eq!(s.rtt.samples, 2);
        assert_eq!(s.rtt.srtt, Some((7 * 100 * MS + 70 * MS) / 8));
    }

    #[test]
    fn ns3_without_timestamps_times_the_oldest_segment_an_ack_covers() {
        // Segments 0 and 1000 leave at 0; the ACK of 0 at 100 ms (a sample of 100 ms both
        // ways) lets 2000 and 3000 out; one ACK at 250 ms covers 1000 (sent at 0) and 2000
        // (sent at 100 ms): RFC 6298 times the newest (150 ms), ns-3 the oldest (250 ms).
        for (ns3, r) in [(false, 150 * MS), (true, 250 * MS)] {
            let mut s = sender(0, |c| c.rtt_sample_ns3 = ns3);
            assert_eq!(drain(&mut s, 0).len(), 2);
            s.on_ack(100 * MS, &ack(1000, 0));
            assert_eq!(drain(&mut s, 100 * MS).len(), 2);
            s.on_ack(250 * MS, &ack(3000, 0));
            assert_eq!(s.rtt.srtt, Some((7 * 100 * MS + r) / 8), "ns3 = {ns3}");
        }
    }

    const FRONT: Front = Front {
        end: 2000,
        sent: 100 * MS,
        retx: false,
    };

    #[test]
    fn only_an_ack_covering_the_oldest_entry_whole_times_it() {
        let now = 300 * MS;
        assert_eq!(Ns3History::sample(Some(FRONT), 1999, None, now), None);
        assert_eq!(
            Ns3History::sample(Some(FRONT), 2000, None, now),
            Some(200 * MS)
        );
        assert_eq!(Ns3History::sample(None, 5000, Some(50 * MS), now), None);
    }

    #[test]
    fn a_resent_entry_is_timed_only_by_its_echo() {
        let f = Front {
            retx: true,
            ..FRONT
        };
        let now = 300 * MS;
        assert_eq!(Ns3History::sample(Some(f), 3000, None, now), None);
        assert_eq!(
            Ns3History::sample(Some(f), 3000, Some(40 * MS), now),
            Some(40 * MS)
        );
    }

    #[test]
    fn a_timeout_leaves_only_later_data_in_the_history() {
        let mut h = Ns3History::default();
        assert_eq!(h.front_start(1000, 5000), Some(1000));
        h.clear(5000);
        // The go-back-N resends below 5000 are not in the history.
        assert_eq!(h.front_start(1000, 5000), None);
        assert_eq!(h.front_start(1000, 6000), Some(5000));
        assert_eq!(h.front_start(5500, 7000), Some(5500));
    }
}
