//! Budgets of one run (memory, wall time, events), a stop flag and progress reports.
//!
//! The run loop calls [`Sim::checkpoint`] once every 4096 events, out of line, so the loop
//! itself keeps the single mask-and-compare it had for the event budget. A checkpoint reads
//! the stop flag and, when a deadline or a progress callback is set, the wall clock; every
//! 16th one (65,536 events) also adds up the memory that grows with the input. Nothing here
//! touches the simulated world: a run that is not stopped gives the same result, byte for
//! byte, whatever its budgets.

use crate::engine::{secs, Time};
use crate::sim::{Sim, Transport};
use crate::stats::scoring::LossRecord;
use crate::ScenarioError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Where a run is, as handed to a progress callback.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Simulated time reached and the scenario's end, in seconds.
    pub now_s: f64,
    pub end_s: f64,
    pub events: u64,
    /// Wall time since the run started.
    pub wall_s: f64,
}

/// Called every `progress_every` of wall time; returning false stops the run (as the stop
/// flag does).
pub type ProgressFn = Box<dyn FnMut(&Progress) -> bool>;

/// What the caller of a run may bound or watch. `Default` is the scenario's own budgets and
/// the default memory budget.
#[derive(Default)]
pub struct Limits {
    /// Memory budget in bytes, over the scenario's `memory_budget` and the default.
    pub memory: Option<u64>,
    /// Wall-time budget of the run (the simulation loop; building is not counted).
    pub timeout: Option<Duration>,
    /// Set from elsewhere (another thread, a signal handler) to stop the run.
    pub stop: Option<Arc<AtomicBool>>,
    pub progress: Option<ProgressFn>,
    /// How often `progress` is called (at most once per 4096 events).
    pub progress_every: Duration,
}

/// Why a run stopped before its end.
#[derive(Clone, Debug)]
pub enum Stop {
    /// The event budget (`max_events`).
    Events,
    /// The memory budget: the error names what grew and the field that drives it.
    Memory(ScenarioError),
    /// The wall-time budget.
    Time,
    /// The stop flag or the progress callback.
    Interrupted,
}

impl Stop {
    /// The name a partial result carries (`partial.reason`).
    pub fn reason(&self) -> &'static str {
        match self {
            Stop::Events => "max_events",
            Stop::Memory(_) => "memory_budget",
            Stop::Time => "timeout",
            Stop::Interrupted => "interrupted",
        }
    }
}

/// Where the memory budget came from, for the error message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BudgetSource {
    Default,
    Scenario,
    Caller,
}

/// The budgets and watch of a run, kept in [`Sim::watch`].
pub struct Watch {
    pub memory: u64,
    pub memory_source: BudgetSource,
    timeout: Option<Duration>,
    deadline: Option<Instant>,
    stop_flag: Option<Arc<AtomicBool>>,
    progress: Option<ProgressFn>,
    progress_every: Duration,
    next_progress: Option<Instant>,
    started: Option<Instant>,
    checks: u32,
    /// Why the run stopped early, if it did, and the error it reports (set by `Sim::run`).
    pub stopped: Option<Stop>,
    pub error: Option<ScenarioError>,
    /// The scenario's end, kept when a stopped run's end moves to where it stopped.
    pub planned_end: Time,
    /// The scenario path of each device's link or medium (`links[3]`, `media[0]`), which the
    /// memory error names.
    pub dev_fields: Vec<String>,
}

impl Default for Watch {
    fn default() -> Self {
        Watch {
            memory: default_memory_budget(),
            memory_source: BudgetSource::Default,
            timeout: None,
            deadline: None,
            stop_flag: None,
            progress: None,
            progress_every: Duration::ZERO,
            next_progress: None,
            started: None,
            checks: 0,
            stopped: None,
            error: None,
            planned_end: 0,
            dev_fields: Vec::new(),
        }
    }
}

impl Watch {
    /// Take the caller's limits; the clocks start now.
    pub fn arm(&mut self, limits: Limits) {
        let now = Instant::now();
        if let Some(m) = limits.memory {
            self.memory = m;
            self.memory_source = BudgetSource::Caller;
        }
        self.timeout = limits.timeout;
        self.deadline = limits.timeout.map(|t| now + t);
        self.stop_flag = limits.stop;
        self.progress_every = limits.progress_every;
        self.next_progress = limits
            .progress
            .as_ref()
            .map(|_| now + limits.progress_every);
        self.progress = limits.progress;
        self.started = Some(now);
    }
}

/// The memory budget of a run when neither the caller nor the scenario sets one: a quarter
/// of what this process may use (the machine's memory, a cgroup's limit or the address-space
/// limit, `ulimit -v`, whichever is least), so that a vector doubling between two checks and
/// the interpreter around the run still fit. 4 GiB where none of them can be read.
pub fn default_memory_budget() -> u64 {
    static DEFAULT: OnceLock<u64> = OnceLock::new();
    *DEFAULT.get_or_init(|| {
        let mut least: Option<u64> = None;
        let mut take = |v: Option<u64>| {
            if let Some(v) = v {
                least = Some(least.map_or(v, |l| l.min(v)));
            }
        };
        take(meminfo_total());
        take(read_u64("/sys/fs/cgroup/memory.max"));
        take(read_u64("/sys/fs/cgroup/memory/memory.limit_in_bytes"));
        take(address_space_left());
        least.map_or(4 << 30, |l| l / 4)
    })
}

fn read_u64(path: &str) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

fn meminfo_total() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The address-space limit less what the process has mapped already.
fn address_space_left() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    let limit: u64 = line
        .trim_start_matches("Max address space")
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let vm_kib: u64 = status
        .lines()
        .find(|l| l.starts_with("VmSize:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0);
    Some(limit.saturating_sub(vm_kib * 1024))
}

/// Bytes as people read them ("1.50 GiB").
pub fn fmt_bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{v:.2} {}", UNITS[u])
    }
}

/// One kind of memory a run holds that grows with its input.
struct Part {
    what: &'static str,
    bytes: usize,
    /// The scenario field that drives it.
    field: String,
    detail: String,
}

impl Sim {
    /// Every 4096 events: the budgets, the stop flag and the progress callback. True when
    /// the run must stop (`watch.stopped` says why).
    #[cold]
    #[inline(never)]
    pub(crate) fn checkpoint(&mut self) -> bool {
        if self.counters.events >= self.max_events {
            self.budget_exceeded = true;
            self.watch.stopped = Some(Stop::Events);
            return true;
        }
        if let Some(flag) = &self.watch.stop_flag {
            if flag.load(Ordering::Relaxed) {
                self.watch.stopped = Some(Stop::Interrupted);
                return true;
            }
        }
        self.watch.checks = self.watch.checks.wrapping_add(1);
        if self.watch.checks.is_multiple_of(16) {
            if let Some(e) = self.memory_over_budget() {
                self.watch.stopped = Some(Stop::Memory(e));
                return true;
            }
        }
        if self.watch.deadline.is_none() && self.watch.next_progress.is_none() {
            return false;
        }
        let now = Instant::now();
        if self.watch.deadline.is_some_and(|d| now >= d) {
            self.watch.stopped = Some(Stop::Time);
            return true;
        }
        if self.watch.next_progress.is_some_and(|t| now >= t) {
            self.watch.next_progress = Some(now + self.watch.progress_every);
            let p = self.progress();
            if let Some(f) = self.watch.progress.as_mut() {
                if !f(&p) {
                    self.watch.stopped = Some(Stop::Interrupted);
                    return true;
                }
            }
        }
        false
    }

    /// A run stopped early: its error, and what was measured so far ends here. Out of line,
    /// so that the run loop around it is compiled (inlined) as without budgets.
    #[cold]
    #[inline(never)]
    pub(crate) fn end_early(&mut self) {
        self.watch.error = self.stop_error();
        self.end = self.now();
    }

    /// Where the run is now.
    pub fn progress(&self) -> Progress {
        Progress {
            now_s: secs(self.now()),
            end_s: secs(self.end),
            events: self.counters.events,
            wall_s: self
                .watch
                .started
                .map_or(0.0, |s| s.elapsed().as_secs_f64()),
        }
    }

    /// The memory that grows with the input, by kind. Capacities, not lengths: what the
    /// allocator holds.
    fn memory_parts(&self) -> [Part; 5] {
        let mut packets = Part {
            what: "packets held in queues and in flight",
            bytes: self.pool.heap_bytes(),
            field: String::new(),
            detail: format!("{} packets", self.pool.live()),
        };
        if let Some((d, held)) = self
            .devices
            .iter()
            .enumerate()
            .map(|(i, d)| (i, d.in_network()))
            .max_by_key(|&(i, n)| (n, std::cmp::Reverse(i)))
        {
            let dev = &self.devices[d];
            let queued = dev.queue_len() as u64;
            packets.detail = format!(
                "{} packets, {held} of them at {}: {queued} queued, {} being sent or on the \
                 wire",
                self.pool.live(),
                dev.name(),
                held.saturating_sub(queued)
            );
            // Queued packets are bounded by the queue's limit; those on the wire by the
            // link's rate times its delay.
            let key = if 2 * queued >= held {
                "queue.limit"
            } else {
                "delay"
            };
            packets.field = match self.watch.dev_fields.get(d) {
                Some(p) if !p.is_empty() => format!("{p}.{key}"),
                _ => "links".into(),
            };
        }

        let rec = std::mem::size_of::<LossRecord>();
        let mut drops = Part {
            what: "drop records",
            bytes: 0,
            field: "duration".into(),
            detail: String::new(),
        };
        let mut series = Part {
            what: "series samples",
            bytes: 0,
            field: "trace.cwnd".into(),
            detail: String::new(),
        };
        let mut flows = Part {
            what: "per-flow state",
            bytes: 0,
            field: "flows".into(),
            detail: format!("{} flows", self.flows.len()),
        };
        let (mut most_drops, mut most_state) = ((0, 0), (0, 0));
        let (mut cwnd_samples, mut records) = (0usize, 0usize);
        for (i, f) in self.flows.iter().enumerate() {
            let d = f.loss_log.capacity() * rec;
            drops.bytes += d;
            records += f.loss_log.len();
            if d > most_drops.1 {
                most_drops = (i, d);
            }
            series.bytes += f.cwnd_series.capacity() * std::mem::size_of::<(Time, u64, u64)>()
                + f.state_series.capacity() * std::mem::size_of::<(Time, &str)>();
            cwnd_samples += f.cwnd_series.len() + f.state_series.len();
            let own = match &f.transport {
                Transport::Tcp(t) => {
                    std::mem::size_of::<crate::sim::TcpFlow>()
                        + t.tx.heap_bytes()
                        + t.rx.heap_bytes()
                }
                Transport::Udp(_) => 0,
            };
            flows.bytes += std::mem::size_of::<crate::sim::Flow>() + own;
            if own > most_state.1 {
                most_state = (i, own);
            }
        }
        if let Some(f) = self.flows.get(most_drops.0).filter(|_| most_drops.1 > 0) {
            let i = most_drops.0;
            drops.detail = format!(
                "{records} records, {} of them of flow '{}'",
                f.loss_log.len(),
                f.name
            );
            // A UDP flow keeps a record of every drop: its rate drives them. A TCP flow's
            // records are pruned; the run's length is what is left.
            if matches!(f.transport, Transport::Udp(_)) {
                drops.field = format!("flows[{i}].app.rate");
            }
        }
        // A large window keeps a large scoreboard; many flows a large base.
        if most_state.1 > flows.bytes / 2 {
            flows.field = format!("flows[{}].tcp.rcv_window", most_state.0);
            flows.detail = format!(
                "{} flows, {} in flow '{}'",
                self.flows.len(),
                fmt_bytes(most_state.1 as u64),
                self.flows[most_state.0].name
            );
        }
        let mut queue_samples = 0;
        let mut queue_bytes = 0;
        for (_, s) in &self.queue_trace {
            queue_bytes += s.capacity() * std::mem::size_of::<(Time, u32)>();
            queue_samples += s.len();
        }
        if queue_bytes > series.bytes {
            series.field = "trace.queue_interval".into();
        }
        series.bytes += queue_bytes;
        series.detail =
            format!("{cwnd_samples} cwnd and state samples, {queue_samples} queue samples");
        if let Some(t) = self.radio_trace.as_ref() {
            let (bytes, n) = t.rssi_bytes();
            if bytes > series.bytes {
                series.field = "trace.rssi".into();
            }
            series.bytes += bytes;
            series.detail += &format!(", {n} received-power samples");
        }
        let events = Part {
            what: "pending events",
            bytes: self.sched.heap_bytes(),
            field: "flows".into(),
            detail: format!("{} events", self.sched.len()),
        };
        [packets, drops, series, flows, events]
    }

    /// Bytes held by what grows with the input (what the memory budget is checked against).
    pub fn memory_in_use(&self) -> u64 {
        self.memory_parts().iter().map(|p| p.bytes as u64).sum()
    }

    /// The error that stops a run over its memory budget, naming the largest part.
    fn memory_over_budget(&self) -> Option<ScenarioError> {
        let parts = self.memory_parts();
        let total: u64 = parts.iter().map(|p| p.bytes as u64).sum();
        if total <= self.watch.memory {
            return None;
        }
        let top = parts.iter().max_by_key(|p| p.bytes).expect("five parts");
        let source = match self.watch.memory_source {
            BudgetSource::Default => "the default, a quarter of the memory this process may use",
            BudgetSource::Scenario => "the scenario's memory_budget",
            BudgetSource::Caller => "as given to the run",
        };
        let rest: Vec<String> = parts
            .iter()
            .filter(|p| !std::ptr::eq(*p, top) && p.bytes > 0)
            .map(|p| format!("{} {}", p.what, fmt_bytes(p.bytes as u64)))
            .collect();
        Some(ScenarioError::new(
            top.field.clone(),
            format!(
                "the run's memory budget of {} ({source}) was exceeded at t = {} s of {} s: \
                 {} take {} ({}){}; lower {} or raise the budget (memory_budget in the \
                 scenario, --memory-budget, memory_budget=)",
                fmt_bytes(self.watch.memory),
                secs(self.now()),
                secs(self.end),
                top.what,
                fmt_bytes(top.bytes as u64),
                top.detail,
                if rest.is_empty() {
                    String::new()
                } else {
                    format!(", beside {}", rest.join(", "))
                },
                top.field,
            ),
        ))
    }

    /// Why the run stopped early, as the error the run reports; None for a run that ended or
    /// was interrupted. Asked before the run's end moves to where it stopped.
    #[inline(never)]
    pub fn stop_error(&self) -> Option<ScenarioError> {
        let (now, end) = (secs(self.now()), secs(self.end.max(self.watch.planned_end)));
        match self.watch.stopped.as_ref()? {
            Stop::Events => Some(ScenarioError::new(
                "max_events",
                format!(
                    "the run reached its budget of {} events at t = {now} s of {end} s; raise \
                     max_events or make the scenario smaller",
                    self.max_events,
                ),
            )),
            Stop::Memory(e) => Some(e.clone()),
            Stop::Time => {
                let p = self.progress();
                let whole = if p.now_s > 0.0 {
                    format!(
                        "; at this pace the whole run would take about {:.0} s",
                        p.wall_s * p.end_s / p.now_s
                    )
                } else {
                    String::new()
                };
                Some(ScenarioError::new(
                    "duration",
                    format!(
                        "the run's time budget of {} s ran out at t = {now} s of {end} s (after \
                         {} events){whole}; raise the timeout (--run-timeout, timeout=) or \
                         shorten duration",
                        self.watch.timeout.map_or(0.0, |t| t.as_secs_f64()),
                        self.counters.events,
                    ),
                ))
            }
            Stop::Interrupted => None,
        }
    }
}
