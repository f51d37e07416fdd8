//! The sender with ns-3's guessed SACK marks (`reno_sack`, no SACK): what the marks make it
//! do that RFC 6582's NewReno does not.

use super::sender::{Segment, TcpSender};
use super::{cc, RecoverGuard, TcpConfig};
use crate::engine::{Time, MS};
use crate::packet::{flags, TcpHeader};

fn sender(reno_sack: bool) -> TcpSender {
    let (c, r) = cc::build_default("newreno");
    let cfg = TcpConfig {
        reno_sack,
        recover_guard: RecoverGuard::Off,
        ..TcpConfig::default()
    };
    let mut s = TcpSender::new(cfg, c, r, 0);
    s.set_app_end(u64::MAX);
    s.st.cwnd = 10_000;
    assert_eq!(drain(&mut s, 0).len(), 10);
    s
}

fn ack(n: u64) -> TcpHeader {
    TcpHeader {
        ack: n,
        wnd: 64 * 1024,
        flags: flags::ACK,
        ..Default::default()
    }
}

fn drain(s: &mut TcpSender, now: Time) -> Vec<Segment> {
    std::iter::from_fn(|| s.next_segment(now)).collect()
}

#[test]
fn a_marked_head_is_resent_at_once_and_leftover_marks_start_recovery_early() {
    for reno_sack in [false, true] {
        let mut s = sender(reno_sack);
        // Two duplicates mark 1000 and 2000; then the ACK of 0 leaves the marked 1000 at the
        // head: its mark moves on to 3000 and 1000 goes out again at once.
        s.on_ack(50 * MS, &ack(0));
        s.on_ack(51 * MS, &ack(0));
        s.on_ack(60 * MS, &ack(1000));
        let out = drain(&mut s, 60 * MS);
        let resent = out.first().is_some_and(|g| (g.seq, g.retx) == (1000, true));
        assert_eq!(resent, reno_sack, "reno_sack = {reno_sack}: {out:?}");
        // One duplicate more marks 4000: three marks above the head make it lost (RFC 6675
        // IsLost), so recovery starts on the first duplicate of this loss.
        s.on_ack(70 * MS, &ack(1000));
        assert_eq!(s.stats.fast_retransmits, u64::from(reno_sack));
        assert_eq!(s.in_recovery(), reno_sack);
    }
}

#[test]
fn a_timeout_forgets_the_marks() {
    let mut s = sender(true);
    s.on_ack(50 * MS, &ack(0));
    s.on_ack(51 * MS, &ack(0));
    // The timeout clears the marks on 1000 and 2000 (ns-3's ResetRenoSack).
    s.on_timeout(1000 * MS);
    let out = drain(&mut s, 1000 * MS);
    assert_eq!((out[0].seq, out[0].retx), (0, true));
    s.on_ack(1100 * MS, &ack(1000));
    // 1000 had no mark left: go-back-N resends it in order, not as a marked head.
    let out = drain(&mut s, 1100 * MS);
    assert_eq!(out.iter().map(|g| g.seq).collect::<Vec<_>>(), [1000, 2000]);
    // Kept, the marks would have reached three with the first duplicate; cleared, two
    // duplicates mark only 2000 and 3000.
    s.on_ack(1150 * MS, &ack(1000));
    s.on_ack(1151 * MS, &ack(1000));
    assert_eq!(s.stats.fast_retransmits, 0);
}

#[test]
fn duplicates_after_a_timeout_add_no_marks() {
    let mut s = sender(true);
    s.on_timeout(1000 * MS);
    drain(&mut s, 1000 * MS);
    // Duplicates of the go-back-N resends: ns-3 ignores them until the ACK reaches the
    // recovery point, so no mark makes the head lost.
    for k in 0..3 {
        s.on_ack((1050 + k) * MS, &ack(0));
    }
    assert_eq!(s.stats.fast_retransmits, 0);
    // The ACK of 0 finds no mark on 1000: no extra resend, go-back-N goes on in order.
    s.on_ack(1100 * MS, &ack(1000));
    let out = drain(&mut s, 1100 * MS);
    assert_eq!(out.iter().map(|g| g.seq).collect::<Vec<_>>(), [1000, 2000]);
}
