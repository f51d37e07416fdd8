//! The emulator's timing and queue logic against hand-computed schedules, with the clock
//! injected (packets enter at chosen times, `advance` is called at chosen times).

use crate::engine::Emulator;
use crate::ip;
use crate::plan::plan;
use crate::tun::{self, Clock};
use airtcp_core::engine::{Time, MS, US};
use airtcp_core::scenario::{parse_toml, FileAccess};
use std::cell::Cell;

const A: u32 = 0x0a00_0001;
const B: u32 = 0x0a00_0002;

fn two_hosts(link: &str) -> Emulator {
    let text = format!(
        "duration = \"10s\"\n[[nodes]]\nname = \"A\"\n[[nodes]]\nname = \"B\"\n\
         [[links]]\na = \"A\"\nb = \"B\"\n{link}\n\
         [[flows]]\nsrc = \"A\"\ndst = \"B\"\napp = {{ kind = \"bulk\" }}\n"
    );
    let p = plan(&parse_toml(&text).unwrap(), &FileAccess::default()).unwrap();
    Emulator::new(p, &[A, B])
}

/// Advance to `until` in one call; the release times and packet sizes in order.
fn drain(emu: &mut Emulator, until: Time) -> Vec<(usize, Time, usize)> {
    let mut out = Vec::new();
    emu.advance(until, |h, p, due| out.push((h, due, p.len())));
    out
}

#[test]
fn serialization_then_propagation_behind_the_queue() {
    // 1 Mbit/s: 1000 bytes take 8 ms; then 10 ms on the wire.
    let mut e = two_hosts("rate = \"1Mbps\"\ndelay = \"10ms\"");
    let pkt = ip::build(A, B, 17, 1000, 0);
    e.ingress(0, 0, &pkt).unwrap();
    e.ingress(0, 0, &pkt).unwrap();
    e.ingress(30 * MS, 0, &pkt).unwrap();
    // The packets enter at their read time; then the first transmission ends at 8 ms.
    assert_eq!(e.next_due(), Some(0));
    assert!(drain(&mut e, 0).is_empty());
    assert_eq!(e.next_due(), Some(8 * MS));
    // Advancing late changes no due time: the schedule is the ideal one.
    let out = drain(&mut e, 100 * MS);
    assert_eq!(
        out,
        vec![(1, 18 * MS, 1000), (1, 26 * MS, 1000), (1, 48 * MS, 1000)]
    );
    assert_eq!(e.in_flight(), 0);
    let s = e.stats("A->B").unwrap();
    assert_eq!((s.tx_packets, s.tx_bytes, s.busy_ns), (3, 3000, 24 * MS));
}

#[test]
fn droptail_counts_waiting_packets_only() {
    // Limit 2: one packet on the wire and two waiting; the next two overflow.
    let mut e =
        two_hosts("rate = \"1Mbps\"\ndelay = \"1ms\"\nqueue = { kind = \"droptail\", limit = 2 }");
    let pkt = ip::build(A, B, 17, 500, 0);
    for _ in 0..5 {
        e.ingress(0, 0, &pkt).unwrap();
    }
    let out = drain(&mut e, SECOND);
    assert_eq!(out.len(), 3);
    let s = e.stats("A->B").unwrap();
    assert_eq!(s.drops[0], 2, "queue_overflow");
    assert_eq!(s.max_queue, 2);
    assert_eq!(e.drops()["queue_overflow"], 2);
}

const SECOND: Time = 1_000_000_000;

#[test]
fn bernoulli_loss_rate_and_data_only() {
    let mut e = two_hosts(
        "rate = \"100Mbps\"\ndelay = \"1ms\"\n\
         error = { model = \"bernoulli\", per = 0.1, applies_to = \"data\" }",
    );
    let data = ip::build(A, B, 6, 1040, 0);
    let ack = ip::build(A, B, 6, 40, 0);
    let n = 20_000u64;
    for i in 0..n {
        e.ingress(i * 100 * US, 0, &data).unwrap();
        e.ingress(i * 100 * US + 50 * US, 0, &ack).unwrap();
    }
    let out = drain(&mut e, 10 * SECOND);
    let acks = out.iter().filter(|o| o.2 == 40).count() as u64;
    assert_eq!(acks, n, "pure ACKs are exempt");
    let lost = n - (out.len() as u64 - acks);
    // Binomial(20000, 0.1): sd = 42; 5 sd either side fails one run in ~1.7 million.
    assert!((lost as i64 - 2000).abs() < 212, "lost {lost}");
    assert_eq!(e.drops()["channel_error"], lost);
}

#[test]
fn ecn_threshold_marks_the_real_header() {
    let mut e = two_hosts(
        "rate = \"1Mbps\"\ndelay = \"1ms\"\n\
         queue = { kind = \"ecn_threshold\", limit = 10, mark_threshold = 2 }",
    );
    let ect = ip::build(A, B, 6, 1040, 2);
    let mut out = Vec::new();
    for _ in 0..5 {
        e.ingress(0, 0, &ect).unwrap();
    }
    e.advance(SECOND, |_, p, _| out.push(p.to_vec()));
    assert_eq!(out.len(), 5);
    let ce: Vec<bool> = out.iter().map(|p| p[1] & 3 == 3).collect();
    // Arrivals find 0 (the link is idle: sent at once), 0, 1, 2, 3 waiting: the last two
    // find the threshold reached.
    assert_eq!(ce, [false, false, false, true, true]);
    assert!(out.iter().all(|p| ip::checksum(&p[..20]) == 0));
}

#[test]
fn multi_hop_path_adds_each_hop() {
    let text = include_str!("../../../scenarios/dumbbell.toml");
    let p = plan(&parse_toml(text).unwrap(), &FileAccess::default()).unwrap();
    // Hosts S1, D1, S2, D2.
    let addrs = [1, 2, 3, 4];
    let mut e = Emulator::new(p, &addrs);
    // A pure ACK from S1 to D1 (exempt from D1's data-only errors): 40 bytes at 10 Mb/s
    // (32 µs) + 2 ms, at 1 Mb/s (320 µs) + 30 ms, at 10 Mb/s (32 µs) + 4 ms.
    e.ingress(0, 0, &ip::build(1, 2, 6, 40, 0)).unwrap();
    let out = drain(&mut e, SECOND);
    assert_eq!(out, vec![(1, 36_384 * US, 40)]);
    // Unknown destinations are counted and not carried.
    assert!(e.ingress(0, 0, &ip::build(1, 9, 6, 40, 0)).is_err());
    assert_eq!(e.ignored_unknown_dst, 1);
}

/// A clock that moves 10 µs each time it is read.
struct Ticking(Cell<Time>);

impl Clock for Ticking {
    fn now(&self) -> Time {
        let t = self.0.get();
        self.0.set(t + 10 * US);
        t
    }
}

fn seqpacket_pair() -> [i32; 2] {
    let mut fds = [0; 2];
    // SAFETY: socketpair writes two descriptors into the array.
    let r = unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_SEQPACKET, 0, fds.as_mut_ptr()) };
    assert_eq!(r, 0);
    fds
}

#[test]
fn io_loop_carries_packets_between_descriptors_and_measures_lateness() {
    // Packet-preserving socket pairs stand in for the TUN devices.
    let mut e = two_hosts("rate = \"10Mbps\"\ndelay = \"1ms\"");
    let a = seqpacket_pair();
    let b = seqpacket_pair();
    let stop = seqpacket_pair();
    let pkt = ip::build(A, B, 17, 200, 0);
    // SAFETY: writing a valid buffer to an open descriptor.
    let n = unsafe { libc::write(a[1], pkt.as_ptr().cast(), pkt.len()) };
    assert_eq!(n, 200);
    let io = tun::run(
        &mut e,
        &[a[0], b[0]],
        stop[0],
        5 * MS,
        &Ticking(Cell::new(0)),
    );
    assert_eq!(io.read_packets, 1);
    assert!(!io.stopped);
    let mut buf = [0u8; 512];
    // SAFETY: reading into a buffer of the given length.
    let n = unsafe { libc::read(b[1], buf.as_mut_ptr().cast(), buf.len()) };
    assert_eq!(n, 200);
    assert_eq!(&buf[..200], &pkt[..]);
    let s = io.lateness.summary();
    assert_eq!(s.packets, 1);
    // The ticking clock makes each release at most a few ticks late.
    assert!(s.max_us <= 30.0, "{s:?}");
    // A readable stop descriptor ends the loop at once.
    // SAFETY: as above.
    unsafe { libc::write(stop[1], pkt.as_ptr().cast(), 1) };
    let io = tun::run(
        &mut e,
        &[a[0], b[0]],
        stop[0],
        10 * SECOND,
        &Ticking(Cell::new(0)),
    );
    assert!(io.stopped);
    for fd in a.iter().chain(&b).chain(&stop) {
        // SAFETY: closing descriptors this test opened.
        unsafe { libc::close(*fd) };
    }
}
