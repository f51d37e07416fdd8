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

/// A TCP packet with ports, flags (real bits), window and a correct checksum.
fn tcp(src: u32, dst: u32, ports: (u16, u16), flags: u8, seq: u32, wnd: u16) -> Vec<u8> {
    let mut p = ip::build(src, dst, 6, 40, 0);
    p[20..22].copy_from_slice(&ports.0.to_be_bytes());
    p[22..24].copy_from_slice(&ports.1.to_be_bytes());
    p[24..28].copy_from_slice(&seq.to_be_bytes());
    p[33] = flags;
    p[34..36].copy_from_slice(&wnd.to_be_bytes());
    let c = ip::tcp_checksum_residue(&p);
    p[36..38].copy_from_slice(&c.to_be_bytes());
    p
}

#[test]
fn snr_gate_hides_the_window_while_closed_and_reopens_with_an_update() {
    // The mobile host MH's uplink carries the SNR series; the gate reads the sample that
    // ended at each 100 ms read: 20 dB (0-100 ms), 0, 0, then 20 dB again.
    let text = "duration = \"2s\"\n[[nodes]]\nname = \"MH\"\n[[nodes]]\nname = \"FH\"\n\
        [[links]]\nname = \"up\"\na = \"MH\"\nb = \"FH\"\nkind = \"wireless\"\n\
        rate = \"10Mbps\"\ndelay = \"1ms\"\n\
        error_ab = { model = \"snr\", modulation = \"cck5.5\", interval = \"100ms\", \
        samples = [20.0, 0.0, 0.0, 20.0, 20.0, 20.0] }\n\
        [[flows]]\nsrc = \"MH\"\ndst = \"FH\"\napp = { kind = \"bulk\" }\n\
        [[agents]]\nkind = \"snr_gate\"\nnode = \"MH\"\nlink = \"up\"\nthreshold_db = 5.0\n";
    let p = plan(&parse_toml(text).unwrap(), &FileAccess::default()).unwrap();
    assert_eq!(p.gates.len(), 1);
    let mut e = Emulator::new(p, &[A, B]);
    // MH opens a connection (its SYN), FH answers with ACKs of window 0x2000.
    e.ingress(0, 0, &tcp(A, B, (40000, 5001), 0x02, 7, 0xffff))
        .unwrap();
    let ack = |t: Time, e: &mut Emulator| {
        e.ingress(t, 1, &tcp(B, A, (5001, 40000), 0x10, 1, 0x2000))
            .unwrap();
    };
    ack(50 * MS, &mut e);
    ack(250 * MS, &mut e);
    // Another connection (not MH's own: FH opened it) passes untouched.
    e.ingress(260 * MS, 1, &tcp(B, A, (6000, 7000), 0x02, 1, 0x3000))
        .unwrap();
    let mut out: Vec<(usize, Time, Vec<u8>)> = Vec::new();
    e.advance(450 * MS, |h, pkt, due| out.push((h, due, pkt.to_vec())));
    let to_mh: Vec<(Time, u16)> = out
        .iter()
        .filter(|o| o.0 == 0)
        .map(|o| (o.1, u16::from_be_bytes([o.2[34], o.2[35]])))
        .collect();
    let tx = 32 * US; // 40 bytes at 10 Mbit/s
    assert_eq!(
        to_mh,
        vec![
            (50 * MS + tx + MS, 0x2000), // open
            (250 * MS + tx + MS, 0),     // closed at 200 ms: the window hidden
            (260 * MS + tx + MS, 0x3000),
            (400 * MS, 0x2000), // opened at 400 ms: the last ACK, real window
        ]
    );
    assert!(out.iter().all(|o| ip::tcp_checksum_residue(&o.2) == 0));
    assert_eq!(e.gate_open(0), Some(true));
    let row = &e.agent_rows(SECOND)[0];
    assert_eq!(row["closures"], 1);
    assert!((row["closed_s"].as_f64().unwrap() - 0.2).abs() < 1e-12);
}
