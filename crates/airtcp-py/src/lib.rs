//! Thin Python bindings: conversion and error mapping only. A scenario arrives as JSON text and
//! the result leaves as JSON text; Rust panics are caught and raised as `SimulationError`.

use airtcp_core::FileAccess;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "A scenario value is invalid. `path` is the field path (\"flows[2].cc\"; empty for the whole \
     document), `message` what is wrong with it; str() is \"<path>: <message>\"."
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

/// Run a scenario (JSON text) and return the result as JSON text (its time series empty
/// unless `series`). Releases the GIL while the simulation runs.
#[pyfunction]
#[pyo3(signature = (scenario, base_dir=None, allow_paths=None, series=true))]
fn run_json(
    py: Python<'_>,
    scenario: String,
    base_dir: Option<PathBuf>,
    allow_paths: Option<Vec<PathBuf>>,
    series: bool,
) -> PyResult<String> {
    let files = file_access(base_dir, allow_paths);
    py.detach(move || guarded(|| airtcp_core::run_json_opts(&scenario, &files, series)))
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
    m.add_function(wrap_pyfunction!(schemes, m)?)?;
    m.add_function(wrap_pyfunction!(scheme_info_json, m)?)?;
    m.add_function(wrap_pyfunction!(defaults_json, m)?)?;
    m.add_function(wrap_pyfunction!(parse_duration, m)?)?;
    m.add_function(wrap_pyfunction!(parse_rate, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_error, m)?)?;
    let se = m.py().get_type::<ScenarioError>();
    // Defaults for an instance made without them (ScenarioError("text") from user code).
    se.setattr("path", "")?;
    se.setattr("message", "")?;
    se.setattr("detail", "")?;
    // Importable name, so the exceptions pickle across a process pool.
    se.setattr("__module__", "airtcp._core")?;
    m.add("ScenarioError", se)?;
    let sim_err = m.py().get_type::<SimulationError>();
    sim_err.setattr("__module__", "airtcp._core")?;
    m.add("SimulationError", sim_err)?;
    m.add("__version__", airtcp_core::VERSION)?;
    m.add("__build__", airtcp_core::BUILD_ID)?;
    Ok(())
}
