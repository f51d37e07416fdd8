//! The real-time loop: read packets from the hosts' TUN devices, run the link models, write
//! each packet to its destination's TUN device when it is due, and measure how late.

use crate::engine::{Emulator, Ignored};
use crate::lateness::Lateness;
use crate::simnet::SimEngine;
use airtcp_core::engine::Time;
use std::os::fd::RawFd;
use std::time::Instant;

/// A clock the loop reads: monotonic nanoseconds since the run started.
pub trait Clock {
    fn now(&self) -> Time;
}

pub struct RealClock(Instant, Time);

impl RealClock {
    /// A clock that reads `offset` now (the run started that long ago).
    pub fn start(offset: Time) -> Self {
        RealClock(Instant::now(), offset)
    }
}

impl Clock for RealClock {
    fn now(&self) -> Time {
        self.0.elapsed().as_nanos() as Time + self.1
    }
}

/// What the loop drives: the point-to-point engine (`engine.rs`) or the simulator in real
/// time (`simnet.rs`). Neither reads a clock: the loop gives each call its time.
pub trait Engine {
    /// A packet read from host `from` at `now`.
    fn ingress(&mut self, now: Time, from: usize, buf: &[u8]) -> Result<(), Ignored>;
    /// Run what is due by `now`, handing each packet for a host to `release` with its due
    /// time.
    fn advance<F: FnMut(usize, &[u8], Time)>(&mut self, now: Time, release: F);
    /// When the engine next needs the clock (None: only when a packet arrives).
    fn next_due(&mut self) -> Option<Time>;
}

impl Engine for Emulator {
    fn ingress(&mut self, now: Time, from: usize, buf: &[u8]) -> Result<(), Ignored> {
        Emulator::ingress(self, now, from, buf)
    }
    fn advance<F: FnMut(usize, &[u8], Time)>(&mut self, now: Time, release: F) {
        Emulator::advance(self, now, release)
    }
    fn next_due(&mut self) -> Option<Time> {
        Emulator::next_due(self)
    }
}

impl Engine for SimEngine {
    fn ingress(&mut self, now: Time, from: usize, buf: &[u8]) -> Result<(), Ignored> {
        SimEngine::ingress(self, now, from, buf)
    }
    fn advance<F: FnMut(usize, &[u8], Time)>(&mut self, now: Time, release: F) {
        SimEngine::advance(self, now, release)
    }
    fn next_due(&mut self) -> Option<Time> {
        SimEngine::next_due(self)
    }
}

/// What the loop saw besides the links' counters.
#[derive(Default)]
pub struct IoStats {
    pub lateness: Lateness,
    pub read_packets: u64,
    pub write_errors: u64,
    pub ended_at: Time,
    pub stopped: bool,
    /// The loop ran under the real-time scheduler (SCHED_FIFO).
    pub realtime: bool,
}

/// Priority of the emulator thread under SCHED_FIFO: above every ordinary process, so a
/// busy machine does not delay releases by whole time slices; low among real-time ones.
/// The kernel's real-time throttling (95 % of each second by default) keeps a spinning
/// loop from starving the rest.
const RT_PRIORITY: i32 = 10;

/// Put the calling thread under SCHED_FIFO (needs CAP_SYS_NICE; false when refused).
pub fn go_realtime() -> bool {
    let p = libc::sched_param {
        sched_priority: RT_PRIORITY,
    };
    // SAFETY: pid 0 is the calling thread; `p` is a valid sched_param.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) == 0 }
}

/// Back to the ordinary scheduler (the thread returns to Python afterwards).
pub fn leave_realtime() {
    let p = libc::sched_param { sched_priority: 0 };
    // SAFETY: as in go_realtime.
    unsafe {
        libc::sched_setscheduler(0, libc::SCHED_OTHER, &p);
    }
}

/// Wake this much before a packet is due and wait the rest out on the CPU. Short: a
/// real-time thread with no timer slack wakes within a few microseconds, and a loop that
/// spins most of the time at high packet rates runs into the kernel's real-time throttling
/// (a 50 ms stall each second at the default 95 % share).
const SPIN_NS: Time = 10_000;

/// Run until `end` (ns on `clock`) or until `stop_fd` becomes readable.
pub fn run(
    emu: &mut impl Engine,
    fds: &[RawFd],
    stop_fd: RawFd,
    end: Time,
    clock: &impl Clock,
) -> IoStats {
    let realtime = go_realtime();
    let mut io = run_loop(emu, fds, stop_fd, end, clock);
    if realtime {
        leave_realtime();
    }
    io.realtime = realtime;
    io
}

fn run_loop(
    emu: &mut impl Engine,
    fds: &[RawFd],
    stop_fd: RawFd,
    end: Time,
    clock: &impl Clock,
) -> IoStats {
    // The loop's timeouts are short and many: ask for no timer slack (default 50 µs).
    // SAFETY: prctl with an integer argument only changes this thread's timer slack.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1u64, 0u64, 0u64, 0u64);
    }
    for &fd in fds {
        // SAFETY: fcntl on a descriptor the caller owns.
        unsafe {
            let fl = libc::fcntl(fd, libc::F_GETFL);
            libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK);
        }
    }
    let mut pfds: Vec<libc::pollfd> = fds
        .iter()
        .chain(std::iter::once(&stop_fd))
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let mut io = IoStats::default();
    let mut buf = vec![0u8; 65_536];
    loop {
        let now = clock.now();
        let lateness = &mut io.lateness;
        let errors = &mut io.write_errors;
        emu.advance(now, |host, pkt, due| {
            // SAFETY: writing an initialized buffer to a descriptor the caller owns.
            let n = unsafe { libc::write(fds[host], pkt.as_ptr().cast(), pkt.len()) };
            if n < 0 {
                *errors += 1;
            }
            lateness.record(clock.now().saturating_sub(due));
        });
        let now = clock.now();
        if now >= end {
            io.ended_at = now;
            return io;
        }
        let due = emu.next_due().unwrap_or(end).min(end);
        let wait = due.saturating_sub(now);
        let timeout = if wait > SPIN_NS {
            libc::timespec {
                tv_sec: ((wait - SPIN_NS) / 1_000_000_000) as libc::time_t,
                tv_nsec: ((wait - SPIN_NS) % 1_000_000_000) as libc::c_long,
            }
        } else {
            libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            }
        };
        // SAFETY: pfds is a valid array of pollfd for the call's duration.
        let r = unsafe {
            libc::ppoll(
                pfds.as_mut_ptr(),
                pfds.len() as libc::nfds_t,
                &timeout,
                std::ptr::null(),
            )
        };
        if r <= 0 {
            continue;
        }
        if pfds[fds.len()].revents != 0 {
            io.ended_at = clock.now();
            io.stopped = true;
            return io;
        }
        for (host, p) in pfds[..fds.len()].iter().enumerate() {
            if p.revents & libc::POLLIN == 0 {
                continue;
            }
            loop {
                // SAFETY: reading into a buffer of the given length.
                let n = unsafe { libc::read(p.fd, buf.as_mut_ptr().cast(), buf.len()) };
                if n <= 0 {
                    break;
                }
                io.read_packets += 1;
                let _ = emu.ingress(clock.now(), host, &buf[..n as usize]);
            }
        }
    }
}
