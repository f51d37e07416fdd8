//! Run budgets: a run over its memory budget stops with an error naming what grew and the
//! field that drives it; the wall-time budget, the stop flag and the progress callback stop
//! a run with a partial result; budgets that are not reached change no result.

use airtcp_core::scenario::parse_json;
use airtcp_core::{run_json_limited, run_limited, FileAccess, Limits, Progress};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// A UDP CBR source S -> R -> D; the first hop at `fast` bit/s with delay `delay`, the second
/// 1 Mbps with a DropTail queue of `limit` packets.
fn cbr(rate: f64, fast: f64, delay: &str, limit: u64) -> Value {
    json!({
        "name": "cbr", "duration": "10s",
        "nodes": [{"name": "S"}, {"name": "R", "kind": "router"}, {"name": "D"}],
        "links": [
            {"a": "S", "b": "R", "rate": format!("{fast}bps"), "delay": delay},
            {"a": "R", "b": "D", "rate": "1Mbps", "delay": "10ms",
             "queue": {"kind": "droptail", "limit": limit}},
        ],
        "flows": [{"name": "u", "src": "S", "dst": "D",
                   "app": {"kind": "cbr", "rate": format!("{rate}bps")}}],
    })
}

fn dumbbell(duration: &str) -> Value {
    json!({
        "name": "db", "duration": duration,
        "nodes": [{"name": "S"}, {"name": "R", "kind": "router"}, {"name": "D"}],
        "links": [
            {"a": "S", "b": "R", "rate": "10Mbps", "delay": "2ms"},
            {"a": "R", "b": "D", "rate": "1Mbps", "delay": "30ms",
             "queue": {"kind": "droptail", "limit": 20},
             "error": {"model": "bernoulli", "per": 0.01}},
        ],
        "flows": [{"name": "f", "src": "S", "dst": "D", "cc": "newreno",
                   "app": {"kind": "bulk"}}],
    })
}

fn run(v: &Value, limits: Limits) -> airtcp_core::Outcome {
    let sc = parse_json(&v.to_string()).expect("valid scenario");
    run_limited(sc, &FileAccess::default(), limits).expect("builds")
}

fn mib(n: u64) -> Option<u64> {
    Some(n << 20)
}

/// Packets conserved in a partial result as in a complete one.
fn conserved(r: &airtcp_core::RunResult) {
    let p = &r.packets;
    assert_eq!(p.sent, p.delivered + p.dropped + p.in_flight);
}

#[test]
fn a_full_queue_over_the_budget_names_the_queue_limit() {
    // The case, scaled down: 1e15 bit/s into a queue of 1e7 packets.
    let out = run(
        &cbr(1e15, 1e15, "0s", 10_000_000),
        Limits {
            memory: mib(32),
            ..Default::default()
        },
    );
    let e = out.error.expect("stopped by the memory budget");
    assert_eq!(e.path, "links[1].queue.limit");
    assert!(e.message.contains("memory budget of 32.00 MiB"), "{e}");
    assert!(e.message.contains("packets held in queues"), "{e}");
    let p = out.result.partial.as_ref().expect("partial result");
    assert_eq!(p.reason, "memory_budget");
    assert!(p.reached_s > 0.0 && p.reached_s < 10.0);
    assert_eq!(p.duration_s, 10.0);
    assert_eq!(out.result.duration_s, p.reached_s);
    conserved(&out.result);
}

#[test]
fn packets_on_a_long_fast_wire_name_its_delay() {
    let out = run(
        &cbr(1e15, 1e15, "1ms", 10),
        Limits {
            memory: mib(32),
            ..Default::default()
        },
    );
    assert_eq!(out.error.expect("stopped").path, "links[0].delay");
}

#[test]
fn drop_records_of_a_udp_source_name_its_rate() {
    // A short queue: every packet past it is dropped and recorded.
    let out = run(
        &cbr(1e15, 1e15, "0s", 10),
        Limits {
            memory: mib(16),
            ..Default::default()
        },
    );
    let e = out.error.expect("stopped by the memory budget");
    assert_eq!(e.path, "flows[0].app.rate");
    assert!(e.message.contains("drop records take"), "{e}");
    assert!(e.message.contains("of flow 'u'"), "{e}");
}

#[test]
fn queue_samples_name_the_trace_interval() {
    let mut v = dumbbell("500s");
    v["trace"] = json!({"queue": ["R->D"], "queue_interval": "100us"});
    let out = run(
        &v,
        Limits {
            memory: mib(4),
            ..Default::default()
        },
    );
    let e = out.error.expect("stopped by the memory budget");
    assert_eq!(e.path, "trace.queue_interval");
    assert!(e.message.contains("series samples take"), "{e}");
}

#[test]
fn the_scenario_sets_the_memory_budget_and_rejects_zero() {
    let mut v = cbr(1e15, 1e15, "0s", 10_000_000);
    v["memory_budget"] = json!("8MiB");
    let out = run(&v, Limits::default());
    let e = out.error.expect("stopped");
    assert!(
        e.message
            .contains("8.00 MiB (the scenario's memory_budget)"),
        "{e}"
    );
    // The caller's budget wins over the scenario's.
    let out = run(
        &v,
        Limits {
            memory: mib(16),
            ..Default::default()
        },
    );
    assert!(out.error.expect("stopped").message.contains("16.00 MiB"));
    v["memory_budget"] = json!(0);
    let sc = parse_json(&v.to_string()).expect("parses");
    let e = run_limited(sc, &FileAccess::default(), Limits::default())
        .err()
        .expect("refused");
    assert_eq!(e.path, "memory_budget");
}

#[test]
fn the_time_budget_stops_a_long_run_naming_duration() {
    let out = run(
        &dumbbell("100000s"),
        Limits {
            timeout: Some(Duration::from_millis(50)),
            ..Default::default()
        },
    );
    let e = out.error.expect("stopped by the time budget");
    assert_eq!(e.path, "duration");
    assert!(e.message.contains("time budget of 0.05 s ran out"), "{e}");
    let p = out.result.partial.as_ref().expect("partial");
    assert_eq!(p.reason, "timeout");
    assert!(p.reached_s < 100000.0);
    conserved(&out.result);
}

#[test]
fn the_stop_flag_interrupts_without_an_error() {
    let flag = Arc::new(AtomicBool::new(true));
    let out = run(
        &dumbbell("100s"),
        Limits {
            stop: Some(flag),
            ..Default::default()
        },
    );
    assert!(out.error.is_none());
    let p = out.result.partial.as_ref().expect("partial");
    assert_eq!(p.reason, "interrupted");
    // Stopped at the first check, after 4096 events.
    assert_eq!(out.result.events, 4096);
    conserved(&out.result);
}

#[test]
fn the_progress_callback_sees_the_run_advance_and_can_stop_it() {
    let seen: Rc<RefCell<Vec<Progress>>> = Rc::default();
    let log = seen.clone();
    let out = run(
        &dumbbell("100000s"),
        Limits {
            progress: Some(Box::new(move |p: &Progress| {
                log.borrow_mut().push(*p);
                log.borrow().len() < 5
            })),
            progress_every: Duration::ZERO,
            ..Default::default()
        },
    );
    let seen = seen.borrow();
    assert_eq!(seen.len(), 5);
    for w in seen.windows(2) {
        assert!(w[1].now_s > w[0].now_s && w[1].events == w[0].events + 4096);
        assert_eq!(w[0].end_s, 100000.0);
    }
    let p = out.result.partial.as_ref().expect("partial");
    assert_eq!(p.reason, "interrupted");
    assert_eq!(p.reached_s, out.result.duration_s);
    assert!(out.error.is_none());
}

#[test]
fn budgets_not_reached_change_no_result() {
    for v in [dumbbell("20s"), cbr(2e6, 1e7, "1ms", 50)] {
        let text = v.to_string();
        let plain = airtcp_core::run_json(&text).expect("runs");
        let calls = Rc::new(RefCell::new(0u32));
        let c = calls.clone();
        let (watched, stop) = run_json_limited(
            &text,
            &FileAccess::default(),
            true,
            Limits {
                memory: mib(1024),
                timeout: Some(Duration::from_secs(3600)),
                stop: Some(Arc::new(AtomicBool::new(false))),
                progress: Some(Box::new(move |_: &Progress| {
                    *c.borrow_mut() += 1;
                    true
                })),
                progress_every: Duration::ZERO,
            },
        )
        .expect("runs");
        assert!(stop.is_none());
        assert!(*calls.borrow() > 0);
        assert_eq!(plain, watched);
        assert!(!watched.contains("\"partial\""));
    }
}

#[test]
fn the_event_budget_is_one_of_the_budgets() {
    let mut v = dumbbell("1000s");
    v["max_events"] = json!(10_000);
    let out = run(&v, Limits::default());
    let e = out.error.expect("stopped");
    assert_eq!(e.path, "max_events");
    assert_eq!(
        out.result.partial.as_ref().expect("partial").reason,
        "max_events"
    );
    assert_eq!(out.result.events, 12288);
}
