//! The emulator's logic, free of I/O and of any clock: packets enter with the time they were
//! read, and `advance(now)` runs every link event due by `now` at its own (due) time and hands
//! out the packets due at their destination. A packet's schedule follows the ideal timeline
//! (serialization at the link's rate behind the packets queued before it, the error model's
//! draw at the end of its transmission, the propagation delay), so a late wake-up delays the
//! release of a packet but never changes its fate or the schedule of the packets after it;
//! the I/O loop measures how late each release was.

use crate::gate::HostGate;
use crate::ip;
use crate::plan::{DirSpec, Plan};
use airtcp_core::engine::{tx_time, Time};
use airtcp_core::ids::PacketId;
use airtcp_core::link::snr::SnrSeries;
use airtcp_core::packet::{DropCause, Packet, Wire};
use airtcp_core::queue::{Fifo, QueuePolicy, Verdict};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// Counters of one link direction.
#[derive(Clone, Debug, Default)]
pub struct DirStats {
    pub arrivals: u64,
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub busy_ns: Time,
    pub drops: [u64; DropCause::ALL.len()],
    pub max_queue: usize,
    /// ∫ queue length dt (packets × ns), up to `last`.
    queue_area: u128,
    last: Time,
}

struct Dir {
    spec: DirSpec,
    fifo: Fifo,
    /// The packet being serialized and when its transmission ends.
    sending: Option<(u32, Time)>,
    stats: DirStats,
}

struct Slot {
    buf: Vec<u8>,
    wire: Wire,
    path: u32,
    hop: u16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// A packet read from a host enters its first link (an event, so that it meets the
    /// link in the state it has at that time, whatever was run before).
    Enter(u32),
    TxDone(u32),
    Arrive(u32),
    /// An SNR gate reads the measured SNR.
    Gate(u32),
}

/// Why an arriving packet was not taken in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ignored {
    NotIpv4,
    UnknownDestination,
}

pub struct Emulator {
    dirs: Vec<Dir>,
    hosts: usize,
    paths: Vec<Vec<usize>>,
    snr: Vec<SnrSeries>,
    by_addr: HashMap<u32, usize>,
    slots: Vec<Slot>,
    free: Vec<u32>,
    events: BinaryHeap<Reverse<(Time, u64, Ev)>>,
    seq: u64,
    gates: Vec<HostGate>,
    /// The gate at each host, if any.
    gate_of: Vec<Option<usize>>,
    pub ignored_not_ipv4: u64,
    pub ignored_unknown_dst: u64,
    pub delivered: u64,
}

impl Emulator {
    /// An emulator for `plan` whose hosts have the IPv4 addresses `addrs` (same order).
    pub fn new(plan: Plan, addrs: &[u32]) -> Emulator {
        assert_eq!(addrs.len(), plan.hosts.len(), "one address per host");
        let mut gate_of = vec![None; plan.hosts.len()];
        for (i, g) in plan.gates.iter().enumerate() {
            gate_of[g.host] = Some(i);
        }
        let mut emu = Emulator {
            gates: plan.gates.into_iter().map(HostGate::new).collect(),
            gate_of,
            hosts: plan.hosts.len(),
            dirs: plan
                .dirs
                .into_iter()
                .map(|spec| Dir {
                    spec,
                    fifo: Fifo::default(),
                    sending: None,
                    stats: DirStats::default(),
                })
                .collect(),
            paths: plan.paths,
            snr: plan.snr,
            by_addr: addrs.iter().enumerate().map(|(i, &a)| (a, i)).collect(),
            slots: Vec::new(),
            free: Vec::new(),
            events: BinaryHeap::new(),
            seq: 0,
            ignored_not_ipv4: 0,
            ignored_unknown_dst: 0,
            delivered: 0,
        };
        for i in 0..emu.gates.len() {
            emu.push(0, Ev::Gate(i as u32));
        }
        emu
    }

    fn push(&mut self, t: Time, ev: Ev) {
        self.seq += 1;
        self.events.push(Reverse((t, self.seq, ev)));
    }

    /// When the next link event is due (None when nothing is queued or in flight).
    pub fn next_due(&self) -> Option<Time> {
        self.events.peek().map(|Reverse((t, _, _))| *t)
    }

    /// Packets held by the links (queued, being sent, propagating).
    pub fn in_flight(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// A packet read at `now` from host `from`'s interface; it enters its path when
    /// `advance` reaches `now`.
    pub fn ingress(&mut self, now: Time, from: usize, buf: &[u8]) -> Result<(), Ignored> {
        let Some(p) = ip::parse(buf) else {
            self.ignored_not_ipv4 += 1;
            return Err(Ignored::NotIpv4);
        };
        let to = match self.by_addr.get(&p.dst) {
            Some(&to) if to != from && !self.paths[from * self.hosts + to].is_empty() => to,
            _ => {
                self.ignored_unknown_dst += 1;
                return Err(Ignored::UnknownDestination);
            }
        };
        if let Some(g) = self.gate_of[from] {
            self.gates[g].outgoing(buf, &p);
        }
        let slot = Slot {
            buf: buf[..p.wire.size as usize].to_vec(),
            wire: p.wire,
            path: (from * self.hosts + to) as u32,
            hop: 0,
        };
        let id = match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = slot;
                i
            }
            None => {
                self.slots.push(slot);
                (self.slots.len() - 1) as u32
            }
        };
        self.push(now, Ev::Enter(id));
        Ok(())
    }

    fn note_queue(d: &mut Dir, t: Time) {
        let s = &mut d.stats;
        s.queue_area += d.fifo.len() as u128 * t.saturating_sub(s.last) as u128;
        s.last = s.last.max(t);
    }

    /// Packet `id` arrives at link direction `dir` at `t`: the queue policy decides, as in
    /// the simulator, with the packets waiting (not the one being sent) in `fifo`.
    fn enqueue(&mut self, t: Time, dir: usize, id: u32) {
        let d = &mut self.dirs[dir];
        Self::note_queue(d, t);
        d.stats.arrivals += 1;
        let slot = &mut self.slots[id as usize];
        let ecn = slot.wire.ip.ecn.0;
        match d.spec.policy.admit(t, &mut slot.wire, &d.fifo) {
            Verdict::Drop(c) => {
                d.stats.drops[c.index()] += 1;
                self.free.push(id);
                return;
            }
            Verdict::Accept => {}
        }
        if slot.wire.ip.ecn.0 != ecn {
            ip::set_ecn(&mut slot.buf, slot.wire.ip.ecn.0);
        }
        if d.sending.is_none() {
            self.start(t, dir, id);
        } else {
            d.fifo.push(PacketId(id), slot.wire.size);
            d.stats.max_queue = d.stats.max_queue.max(d.fifo.len());
        }
    }

    fn start(&mut self, t: Time, dir: usize, id: u32) {
        let d = &mut self.dirs[dir];
        let size = self.slots[id as usize].wire.size;
        let end = t + tx_time(size as u64, d.spec.rate_bps);
        d.sending = Some((id, end));
        d.stats.busy_ns += end - t;
        self.push(end, Ev::TxDone(dir as u32));
    }

    /// Run every event due by `now`, each at its own time; `release(host, packet, due)` gets
    /// each packet that reached its destination host.
    pub fn advance(&mut self, now: Time, mut release: impl FnMut(usize, &[u8], Time)) {
        while let Some(&Reverse((t, _, ev))) = self.events.peek() {
            if t > now {
                break;
            }
            self.events.pop();
            match ev {
                Ev::Enter(id) => {
                    let first = self.paths[self.slots[id as usize].path as usize][0];
                    self.enqueue(t, first, id);
                }
                Ev::TxDone(dir) => self.tx_done(t, dir as usize),
                Ev::Gate(i) => {
                    let g = &mut self.gates[i as usize];
                    for update in g.sample(t, &self.snr) {
                        release(g.spec.host, &update, t);
                    }
                    let next = t + g.spec.interval;
                    self.push(next, Ev::Gate(i));
                }
                Ev::Arrive(id) => {
                    let slot = &mut self.slots[id as usize];
                    slot.hop += 1;
                    let path = &self.paths[slot.path as usize];
                    if slot.hop as usize == path.len() {
                        let to = slot.path as usize % self.hosts;
                        if let Some(g) = self.gate_of[to] {
                            let p = ip::parse(&slot.buf).expect("parsed on the way in");
                            self.gates[g].incoming(&mut slot.buf, &p);
                        }
                        release(to, &slot.buf, t);
                        self.delivered += 1;
                        self.free.push(id);
                    } else {
                        let next = path[slot.hop as usize];
                        self.enqueue(t, next, id);
                    }
                }
            }
        }
    }

    fn tx_done(&mut self, t: Time, dir: usize) {
        let d = &mut self.dirs[dir];
        let (id, _) = d.sending.take().expect("a transmission was under way");
        let slot = &self.slots[id as usize];
        d.stats.tx_packets += 1;
        d.stats.tx_bytes += slot.wire.size as u64;
        let pkt = Packet::new(slot.wire, 0);
        if d.spec.error.corrupts(t, &pkt, &self.snr) {
            d.stats.drops[DropCause::ChannelError.index()] += 1;
            self.free.push(id);
        } else {
            let at = t + d.spec.delay;
            self.push(at, Ev::Arrive(id));
        }
        let d = &mut self.dirs[dir];
        Self::note_queue(d, t);
        match d.fifo.pop() {
            Some(next) => self.start(t, dir, next.0),
            None if d.spec.policy.tracks_idle() => d.spec.policy.on_idle(t),
            None => {}
        }
    }

    /// Each link direction's row, in the simulator's `links` table layout, over `[0, end]`.
    pub fn link_rows(&mut self, end: Time) -> Vec<serde_json::Value> {
        let span = end.max(1) as f64;
        self.dirs
            .iter_mut()
            .map(|d| {
                Self::note_queue(d, end);
                let s = &d.stats;
                let m = d.spec.policy.marks();
                let drop = |c: DropCause| s.drops[c.index()];
                serde_json::json!({
                    "name": d.spec.name,
                    "link": d.spec.link,
                    "from": d.spec.from,
                    "to": d.spec.to,
                    "kind": match d.spec.kind {
                        airtcp_core::topology::LinkKind::Wired => "wired",
                        airtcp_core::topology::LinkKind::Wireless => "wireless",
                    },
                    "rate_bps": d.spec.rate_bps,
                    "utilization": (s.busy_ns as f64 / span).min(1.0),
                    "tx_packets": s.tx_packets,
                    "tx_bytes": s.tx_bytes,
                    "mean_queue_packets": s.queue_area as f64 / span,
                    "max_queue_packets": s.max_queue,
                    "drops_queue_overflow": drop(DropCause::QueueOverflow),
                    "drops_aqm": drop(DropCause::Aqm),
                    "drops_channel_error": drop(DropCause::ChannelError),
                    "ecn_marks": m.mild + m.severe,
                    "ecn_marks_mild": m.mild,
                    "ecn_marks_severe": m.severe,
                    "red_avg_queue": d.spec.policy.average(),
                    "arq_retransmissions": 0,
                    "backend": "linux",
                })
            })
            .collect()
    }

    /// The `agents` table: one row per SNR gate, closed over `[0, end]`.
    pub fn agent_rows(&mut self, end: Time) -> Vec<serde_json::Value> {
        self.gates.iter_mut().map(|g| g.row(end)).collect()
    }

    /// Whether the gate at `host` is open (None without one).
    pub fn gate_open(&self, host: usize) -> Option<bool> {
        self.gate_of[host].map(|g| self.gates[g].is_open())
    }

    /// Drops by cause over every link direction.
    pub fn drops(&self) -> BTreeMapDrops {
        let mut out = BTreeMapDrops::new();
        // Routes do not break here: `route_break` is left out, as a static-routed run does.
        for c in DropCause::ALL
            .into_iter()
            .filter(|c| *c != DropCause::RouteBreak)
        {
            let n: u64 = self.dirs.iter().map(|d| d.stats.drops[c.index()]).sum();
            out.insert(c.name().to_string(), n);
        }
        out
    }

    /// A direction's counters by name (tests).
    pub fn stats(&self, name: &str) -> Option<&DirStats> {
        self.dirs
            .iter()
            .find(|d| d.spec.name == name)
            .map(|d| &d.stats)
    }
}

pub type BTreeMapDrops = std::collections::BTreeMap<String, u64>;
