//! Thin Python bindings: conversion and error mapping only. A scenario arrives as JSON text and
//! the result leaves as JSON text; Rust panics are caught and raised as `SimulationError`.

use airtcp_core::{FileAccess, Limits, Progress};
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Duration;

mod emu;

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "A scenario value is invalid. `path` is the field path (\"flows[2].cc\"; empty for the whole \
     document), `message` what is wrong with it; str() is \"<path>: <message>\"."
);
create_exception!(
    _core,
    BudgetError,
    ScenarioError,
    "A run stopped by a budget (memory, wall time or events). `path` names the scenario field \
     that drives what ran out, `kind` the budget (\"memory_budget\", \"timeout\", \
     \"max_events\"), `partial` the result JSON up to where the run stopped."
);
create_exception!(
    _core,
    SimulationError,
    PyRuntimeError,
    "The simulator failed internally (a bug: please report it with the scenario)."
);

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".into()
    }
}

/// A ScenarioError carrying its field path and message as attributes. They live in the
/// instance's __dict__, so the exception survives pickling (process pools) whole.
fn scenario_err(py: Python<'_>, path: &str, message: &str) -> PyErr {
    let full = if path.is_empty() {
        message.to_string()
    } else {
        format!("{path}: {message}")
    };
    let err = ScenarioError::new_err(full);
    let v = err.value(py);
    // Setting attributes on a fresh exception object cannot fail.
    let _ = v.setattr("path", path);
    let _ = v.setattr("message", message);
    // Older name of `message`, kept for existing code.
    let _ = v.setattr("detail", message);
    err
}

fn guarded<T>(f: impl FnOnce() -> Result<T, airtcp_core::ScenarioError>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(Python::attach(|py| scenario_err(py, &e.path, &e.message))),
        Err(p) => Err(SimulationError::new_err(format!(
            "internal simulator error: {}",
            panic_message(p)
        ))),
    }
}

/// Where the scenario's files are read: relative to `base_dir` (the working directory when
/// None) and only below it or one of `allow_paths`.
fn file_access(base_dir: Option<PathBuf>, allow_paths: Option<Vec<PathBuf>>) -> FileAccess {
    FileAccess {
        base: base_dir,
        allow: allow_paths.unwrap_or_default(),
    }
}

fn seconds(name: &str, v: Option<f64>) -> PyResult<Option<Duration>> {
    match v {
        None => Ok(None),
        Some(s) if s.is_finite() && s > 0.0 && s < 1e9 => Ok(Some(Duration::from_secs_f64(s))),
        Some(s) => Err(PyValueError::new_err(format!(
            "{name} must be a number of seconds > 0, got {s}"
        ))),
    }
}

/// Run a scenario (JSON text) and return the result as JSON text (its time series empty
/// unless `series`). Releases the GIL while the simulation runs, taking it back every
/// `progress_interval` seconds of wall time to see to pending signals (Ctrl-C) and call
/// `progress(now_s, end_s, events, wall_s)` if given.
///
/// `memory_budget` (bytes) overrides the scenario's and the default; `timeout` (seconds) is
/// the run's wall-time budget. A run stopped by a budget raises BudgetError (its `partial`
/// holds what was measured); a run interrupted (Ctrl-C, or `progress` returned False)
/// returns its result with a `partial` block.
#[pyfunction]
#[pyo3(signature = (
    scenario, base_dir=None, allow_paths=None, series=true, memory_budget=None, timeout=None,
    progress=None, progress_interval=0.1
))]
#[allow(clippy::too_many_arguments)]
fn run_json(
    py: Python<'_>,
    scenario: String,
    base_dir: Option<PathBuf>,
    allow_paths: Option<Vec<PathBuf>>,
    series: bool,
    memory_budget: Option<u64>,
    timeout: Option<f64>,
    progress: Option<Py<PyAny>>,
    progress_interval: f64,
) -> PyResult<String> {
    let files = file_access(base_dir, allow_paths);
    let timeout = seconds("timeout", timeout)?;
    let every = seconds("progress_interval", Some(progress_interval))?.expect("given");
    if memory_budget == Some(0) {
        return Err(PyValueError::new_err("memory_budget must be > 0 bytes"));
    }
    let (out, raised) = py.detach(move || {
        // What the callback raised (KeyboardInterrupt from a signal handler, or the
        // progress function's own exception), handed back once the run has stopped.
        let raised: Rc<RefCell<Option<PyErr>>> = Rc::default();
        let seen = raised.clone();
        let watch = move |p: &Progress| -> bool {
            Python::attach(|py| {
                if let Err(e) = py.check_signals() {
                    *seen.borrow_mut() = Some(e);
                    return false;
                }
                let Some(f) = &progress else { return true };
                match f.call1(py, (p.now_s, p.end_s, p.events, p.wall_s)) {
                    Ok(v) => !v.bind(py).is(&*pyo3::types::PyBool::new(py, false)),
                    Err(e) => {
                        *seen.borrow_mut() = Some(e);
                        false
                    }
                }
            })
        };
        let limits = Limits {
            memory: memory_budget,
            timeout,
            stop: None,
            progress: Some(Box::new(watch)),
            progress_every: every,
        };
        let out = guarded(|| airtcp_core::run_json_limited(&scenario, &files, series, limits));
        let raised = raised.borrow_mut().take();
        (out, raised)
    });
    let (json, budget) = out?;
    if let Some(e) = raised {
        // Ctrl-C: the result so far, marked partial. Anything else the callback raised
        // propagates.
        if !e.is_instance_of::<PyKeyboardInterrupt>(py) {
            return Err(e);
        }
    }
    if let Some((kind, b)) = budget {
        let err = BudgetError::new_err(b.to_string());
        let v = err.value(py);
        let _ = v.setattr("path", &b.path);
        let _ = v.setattr("message", &b.message);
        let _ = v.setattr("detail", &b.message);
        let _ = v.setattr("kind", kind);
        let _ = v.setattr("partial", json);
        return Err(err);
    }
    Ok(json)
}

/// The memory budget of a run that sets none, in bytes (a quarter of what this process may
/// use: physical memory, a cgroup limit or `ulimit -v`, whichever is least).
#[pyfunction]
fn default_memory_budget() -> u64 {
    airtcp_core::budget::default_memory_budget()
}

/// Check a scenario (JSON text) without running it.
#[pyfunction]
#[pyo3(signature = (scenario, base_dir=None, allow_paths=None))]
fn validate_json(
    scenario: &str,
    base_dir: Option<PathBuf>,
    allow_paths: Option<Vec<PathBuf>>,
) -> PyResult<()> {
    let files = file_access(base_dir, allow_paths);
    guarded(|| airtcp_core::validate_json_with(scenario, &files))
}

/// What a picture of the network needs (positions over time, radio ranges, routes), as JSON.
#[pyfunction]
#[pyo3(signature = (scenario, base_dir=None, allow_paths=None, interval=None))]
fn layout_json(
    scenario: &str,
    base_dir: Option<PathBuf>,
    allow_paths: Option<Vec<PathBuf>>,
    interval: Option<f64>,
) -> PyResult<String> {
    let files = file_access(base_dir, allow_paths);
    guarded(|| airtcp_core::scenario::layout::layout_json(scenario, &files, interval))
}

/// Known congestion-control schemes as (name, description) pairs.
#[pyfunction]
fn schemes() -> Vec<(&'static str, &'static str)> {
    airtcp_core::schemes()
}

/// The scheme registry as JSON: name, description and default recovery of each scheme.
#[pyfunction]
fn scheme_info_json() -> String {
    airtcp_core::api::schemes().to_string()
}

/// Defaults of the TCP options (without a profile and per profile) and of a link's queue.
#[pyfunction]
fn defaults_json() -> String {
    airtcp_core::api::defaults().to_string()
}

/// Every scenario key (type, unit, default, range, description) as JSON: the core's key table.
#[pyfunction]
fn params_json() -> String {
    airtcp_core::api::params().to_string()
}

/// A duration in seconds, parsed as scenario files are.
#[pyfunction]
fn parse_duration(text: &str) -> PyResult<f64> {
    guarded(|| airtcp_core::api::parse_duration(text))
}

/// A rate in bits/s, parsed as scenario files are.
#[pyfunction]
fn parse_rate(text: &str) -> PyResult<f64> {
    guarded(|| airtcp_core::api::parse_rate(text))
}

/// A size in bytes, parsed as scenario files are.
#[pyfunction]
fn parse_size(text: &str) -> PyResult<f64> {
    guarded(|| airtcp_core::api::parse_size(text))
}

/// A ScenarioError with `path` and `message`, for the Python front to raise.
#[pyfunction]
#[pyo3(signature = (path, message))]
fn scenario_error(py: Python<'_>, path: &str, message: &str) -> Py<PyAny> {
    scenario_err(py, path, message).into_value(py).into_any()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(layout_json, m)?)?;
    m.add_function(wrap_pyfunction!(schemes, m)?)?;
    m.add_function(wrap_pyfunction!(scheme_info_json, m)?)?;
    m.add_function(wrap_pyfunction!(defaults_json, m)?)?;
    m.add_function(wrap_pyfunction!(params_json, m)?)?;
    m.add_function(wrap_pyfunction!(parse_duration, m)?)?;
    m.add_function(wrap_pyfunction!(parse_rate, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_error, m)?)?;
    m.add_function(wrap_pyfunction!(default_memory_budget, m)?)?;
    m.add_function(wrap_pyfunction!(emu::emu_hosts, m)?)?;
    m.add_function(wrap_pyfunction!(emu::emulate_json, m)?)?;
    let se = m.py().get_type::<ScenarioError>();
    // Defaults for an instance made without them (ScenarioError("text") from user code).
    se.setattr("path", "")?;
    se.setattr("message", "")?;
    se.setattr("detail", "")?;
    // Importable name, so the exceptions pickle across a process pool.
    se.setattr("__module__", "airtcp._core")?;
    m.add("ScenarioError", se)?;
    let be = m.py().get_type::<BudgetError>();
    be.setattr("kind", "")?;
    be.setattr("partial", "")?;
    be.setattr("__module__", "airtcp._core")?;
    m.add("BudgetError", be)?;
    let sim_err = m.py().get_type::<SimulationError>();
    sim_err.setattr("__module__", "airtcp._core")?;
    m.add("SimulationError", sim_err)?;
    m.add("__version__", airtcp_core::VERSION)?;
    m.add("__build__", airtcp_core::BUILD_ID)?;
    Ok(())
}
