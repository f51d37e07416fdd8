//! Thin Python bindings: conversion and error mapping only. A scenario arrives as JSON text and
//! the result leaves as JSON text; Rust panics are caught and raised as `SimulationError`.

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "A scenario value is invalid; the message starts with its field path."
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

fn guarded<T>(f: impl FnOnce() -> Result<T, airtcp_core::ScenarioError>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(ScenarioError::new_err((e.to_string(), e.path, e.message))),
        Err(p) => Err(SimulationError::new_err(format!(
            "internal simulator error: {}",
            panic_message(p)
        ))),
    }
}

/// Run a scenario (JSON text) and return the result as JSON text. Releases the GIL while the
/// simulation runs.
#[pyfunction]
fn run_json(py: Python<'_>, scenario: String) -> PyResult<String> {
    py.detach(move || guarded(|| airtcp_core::run_json(&scenario)))
}

/// Check a scenario (JSON text) without running it.
#[pyfunction]
fn validate_json(scenario: &str) -> PyResult<()> {
    guarded(|| airtcp_core::validate_json(scenario))
}

/// Known congestion-control schemes as (name, description) pairs.
#[pyfunction]
fn schemes() -> Vec<(&'static str, &'static str)> {
    airtcp_core::schemes()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(schemes, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("__version__", airtcp_core::VERSION)?;
    m.add("__build__", airtcp_core::BUILD_ID)?;
    Ok(())
}
