//! The sender with ns-3's guessed SACK marks (`reno_sack`, no SACK): what the marks make it
//! do that RFC 6582's NewReno does not.

use super::{ack, drain};
use crate::engine::MS;
use crate::packet::TcpHeader;
use crate::tcp::sender::TcpSender;
use crate::tcp::{cc, RecoverGuard, TcpConfig};

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

/// A sender with the `ns3` profile and SACK off, ten segments out.
fn ns3_sender() -> TcpSender {
    let (c, r) = cc::build_default("newreno");
    let cfg = TcpConfig {
        sack: false,
        ..crate::tcp::Profile::Ns3.config()
    };
    let mut s = TcpSender::new(cfg, c, r, 0);
    s.set_app_end(u64::MAX);
    assert_eq!(drain(&mut s, 0).len(), 10);
    s
}

fn dup_ns3() -> TcpHeader {
    TcpHeader {
        wnd: 131_072,
        ..ack(0)
    }
}

#[test]
fn ns3_recovery_without_sack_counts_the_head_and_sees_pipe_before_each_mark() {
    let mut s = ns3_sender();
    for k in 0..3 {
        s.on_ack((50 + k) * MS, &dup_ns3());
    }
    // Ten segments of 536 out, three marked, the head lost: pipe 6 segments (3216 bytes).
    // EnterRecovery without SACK halves BytesInFlight + one segment: (3216 + 536) / 2.
    assert_eq!(s.st.ssthresh, 1876);
    // DoRecovery: RecoverFS 3216, one segment delivered, the fast retransmission forced.
    assert_eq!(s.st.cwnd, 3216 + 536);
    let out = drain(&mut s, 53 * MS);
    assert_eq!(
        out.iter().map(|g| (g.seq, g.retx)).collect::<Vec<_>>(),
        [(0, true)]
    );
    // The next duplicate marks a segment (pipe 3216 again) but ns-3's PRR takes the
    // in-flight count from before the mark, 3752, and a duplicate delivers one segment (the
    // mark is not delivered data): prr_delivered 1072, ceil(1072 * 1876 / 3216) - 536 = 90.
    s.on_ack(53 * MS, &dup_ns3());
    assert_eq!(s.st.cwnd, 3752 + 90);
    // So every duplicate sends a segment, where with pipe after the mark (or the mark
    // counted delivered) PRR would send about one for every two.
    let mut sent = drain(&mut s, 53 * MS).len();
    for k in 4..10 {
        s.on_ack((50 + k) * MS, &dup_ns3());
        sent += drain(&mut s, (50 + k) * MS).len();
    }
    assert_eq!(sent, 7);
}

#[test]
fn without_sack_an_advancing_ack_starts_no_recovery_whatever_its_marks() {
    let mut s = ns3_sender();
    for k in 0..3 {
        s.on_ack((50 + k) * MS, &dup_ns3());
        drain(&mut s, (50 + k) * MS);
    }
    assert_eq!(s.stats.fast_retransmits, 1);
    // Duplicates mark what the recovery sends beyond its recovery point.
    let mut k = 3;
    while s.in_recovery() {
        s.on_ack((50 + k) * MS, &dup_ns3());
        drain(&mut s, (50 + k) * MS);
        k += 1;
        if k == 30 {
            // The ACK of everything sent before recovery began ends it, and leaves the
            // marks above its recovery point: three or more above the new head.
            s.on_ack(
                100 * MS,
                &TcpHeader {
                    ack: 5360 + 2 * 536,
                    ..dup_ns3()
                },
            );
            break;
        }
    }
    drain(&mut s, 100 * MS);
    assert!(!s.in_recovery());
    // ns-3 looks for a loss only on a duplicate: the advancing ACK did not start another
    // recovery, the next duplicate does.
    assert_eq!(s.stats.fast_retransmits, 1);
    s.on_ack(
        101 * MS,
        &TcpHeader {
            ack: 5360 + 2 * 536,
            ..dup_ns3()
        },
    );
    assert_eq!(s.stats.fast_retransmits, 2);
}
