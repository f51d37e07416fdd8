//! Reno/NewReno congestion control (RFC 5681): slow start below ssthresh, one segment per RTT
//! above it, ssthresh = max(FlightSize/2, 2*SMSS) on loss. The schemes `reno` and `newreno`
//! share these rules and differ only in the sender's shared recovery (RFC 5681 fast recovery
//! vs RFC 6582 partial-ACK handling), which is not part of this file.

use super::{half_flight, AckInfo, CcState, CongestionControl, CongestionEvent, Reaction};

#[derive(Default, Clone, Debug)]
pub struct NewReno;

/// Slow start / congestion avoidance growth shared by the Reno family.
pub fn reno_increase(ack: &AckInfo, st: &mut CcState) {
    if ack.no_growth() {
        return;
    }
    if ack.linux_growth {
        if ack.delivered_bytes > 0 {
            linux_reno_increase(ack.delivered_bytes, st);
        }
        return;
    }
    if st.cwnd < st.ssthresh {
        // Slow start with byte counting limited to one SMSS per ACK (RFC 5681 3.1, RFC 3465 L=1).
        st.cwnd += ack.acked_bytes.min(st.mss);
    } else {
        // Congestion avoidance: cwnd += SMSS*SMSS/cwnd per ACK (RFC 5681 eq. 3).
        st.cwnd += (st.mss * st.mss / st.cwnd).max(1);
    }
}

/// Linux's `tcp_reno_cong_avoid` (net/ipv4/tcp_cong.c), in bytes: `tcp_slow_start` adds
/// everything acknowledged up to ssthresh (no per-ACK limit), the rest goes to
/// `tcp_cong_avoid_ai`, one segment per cwnd of data acknowledged. With an ACK for every
/// second segment this grows twice as fast as RFC 5681's per-ACK rule.
pub fn linux_reno_increase(acked: u64, st: &mut CcState) {
    let mut acked = acked;
    if st.cwnd < st.ssthresh {
        let before = st.cwnd;
        st.cwnd = (st.cwnd + acked).min(st.ssthresh);
        acked -= st.cwnd - before;
        if acked == 0 {
            return;
        }
    }
    st.cwnd += (acked * st.mss / st.cwnd.max(1)).max(1);
}

impl CongestionControl for NewReno {
    fn on_ack(&mut self, ack: &AckInfo, st: &mut CcState) {
        reno_increase(ack, st);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, st: &CcState) -> Reaction {
        Reaction::cut(half_flight(ev.in_flight, st.mss))
    }
}

#[cfg(test)]
mod tests {
    use super::super::CongestionKind;
    use super::*;

    fn st(cwnd: u64, ssthresh: u64) -> CcState {
        CcState {
            cwnd,
            ssthresh,
            mss: 1000,
        }
    }

    fn ack(bytes: u64) -> AckInfo {
        AckInfo {
            acked_bytes: bytes,
            ..Default::default()
        }
    }

    #[test]
    fn slow_start_adds_at_most_one_mss_per_ack() {
        let mut s = st(2000, 100_000);
        NewReno.on_ack(&ack(2000), &mut s);
        assert_eq!(s.cwnd, 3000);
        NewReno.on_ack(&ack(500), &mut s);
        assert_eq!(s.cwnd, 3500);
    }

    #[test]
    fn congestion_avoidance_adds_mss_squared_over_cwnd() {
        let mut s = st(10_000, 5_000);
        NewReno.on_ack(&ack(1000), &mut s);
        assert_eq!(s.cwnd, 10_100);
        // A full window of ACKs grows cwnd by about one segment.
        let mut s = st(10_000, 5_000);
        for _ in 0..10 {
            NewReno.on_ack(&ack(1000), &mut s);
        }
        assert!((10_900..=11_000).contains(&s.cwnd), "{}", s.cwnd);
    }

    fn linux_ack(bytes: u64) -> AckInfo {
        AckInfo {
            acked_bytes: bytes,
            delivered_bytes: bytes,
            linux_growth: true,
            ..Default::default()
        }
    }

    #[test]
    fn linux_slow_start_adds_all_acknowledged_data_up_to_ssthresh() {
        // tcp_slow_start: cwnd = min(cwnd + acked, ssthresh), no per-ACK limit.
        let mut s = st(2000, 100_000);
        NewReno.on_ack(&linux_ack(2000), &mut s);
        assert_eq!(s.cwnd, 4000);
        // Crossing ssthresh: 1000 bytes fill it, the other 1000 go to congestion avoidance
        // (tcp_cong_avoid_ai: 1000 * 1000 / 5000 = 200 bytes).
        let mut s = st(4000, 5000);
        NewReno.on_ack(&linux_ack(2000), &mut s);
        assert_eq!(s.cwnd, 5200);
    }

    #[test]
    fn linux_congestion_avoidance_adds_one_segment_per_window_acknowledged() {
        // With delayed ACKs (2 segments each), a window of 10 segments is 5 ACKs; Linux still
        // grows by about one segment per window, RFC 5681's per-ACK rule by about half.
        let mut linux = st(10_000, 5_000);
        let mut rfc = st(10_000, 5_000);
        for _ in 0..5 {
            NewReno.on_ack(&linux_ack(2000), &mut linux);
            NewReno.on_ack(&ack(2000), &mut rfc);
        }
        assert!((10_900..=11_000).contains(&linux.cwnd), "{}", linux.cwnd);
        assert!((10_400..=10_500).contains(&rfc.cwnd), "{}", rfc.cwnd);
        // Not in recovery, and nothing for an ACK that delivered nothing.
        let mut a = linux_ack(2000);
        a.in_recovery = true;
        let mut s = st(10_000, 5_000);
        NewReno.on_ack(&a, &mut s);
        NewReno.on_ack(&linux_ack(0), &mut s);
        assert_eq!(s.cwnd, 10_000);
    }

    #[test]
    fn no_growth_in_recovery_or_on_dupacks() {
        let mut s = st(2000, 100_000);
        let mut a = ack(1000);
        a.in_recovery = true;
        NewReno.on_ack(&a, &mut s);
        NewReno.on_ack(&ack(0), &mut s);
        assert_eq!(s.cwnd, 2000);
    }

    #[test]
    fn halves_flight_with_floor_of_two_segments() {
        let s = st(20_000, 1 << 30);
        let ev = |f| CongestionEvent::at(0, CongestionKind::DupAcks, f);
        assert_eq!(NewReno.on_congestion(&ev(20_000), &s).ssthresh, 10_000);
        assert_eq!(NewReno.on_congestion(&ev(3_000), &s).ssthresh, 2_000);
    }
}
