//! airtcp-core: a deterministic packet-level simulator for TCP over error-prone wireless
//! networks. Pure Rust; the Python bindings live in `airtcp-py`.

pub mod api;
pub mod app;
pub mod budget;
pub mod device;
pub mod engine;
pub mod harness;
pub mod hook;
pub mod ids;
pub mod link;
pub mod medium;
pub mod mobility;
pub mod packet;
pub mod pcap;
pub mod phy;
pub mod queue;
pub mod routing;
pub mod scenario;
pub mod sim;
pub mod stats;
pub mod tcp;
pub mod topology;
pub mod util;

pub use budget::{Limits, Progress, Stop};
pub use scenario::{FileAccess, Scenario, ScenarioError};
pub use sim::Sim;
pub use stats::RunResult;

/// Build and run a parsed scenario (files it names are read below the working directory).
pub fn run(sc: &Scenario) -> Result<RunResult, ScenarioError> {
    run_with(sc, &FileAccess::default())
}

/// Build and run a parsed scenario, reading the files it names as `files` allows.
pub fn run_with(sc: &Scenario, files: &FileAccess) -> Result<RunResult, ScenarioError> {
    finish_run(scenario::build_with(sc, files)?)
}

/// Build a scenario, let go of it, then run: the scenario's own records (a few hundred bytes
/// a link) do not stay in memory beside the simulation's.
pub fn run_owned(sc: Scenario, files: &FileAccess) -> Result<RunResult, ScenarioError> {
    let sim = scenario::build_with(&sc, files)?;
    drop(sc);
    finish_run(sim)
}

fn finish_run(mut sim: Sim) -> Result<RunResult, ScenarioError> {
    sim.watch.arm(Limits::default());
    sim.run();
    finish_capture(&mut sim)?;
    if let Some(e) = sim.watch.error.take() {
        return Err(e);
    }
    Ok(RunResult::from_finished(sim))
}

/// Close a run's packet capture files, if it writes any.
fn finish_capture(sim: &mut Sim) -> Result<(), ScenarioError> {
    if let Some(c) = sim.capture.as_mut() {
        c.finish()
            .map_err(|m| ScenarioError::new("trace.pcap_dir", m))?;
    }
    Ok(())
}

/// What a run under [`Limits`] gives: its result, partial (`result.partial`) when the run
/// stopped early, and the error of the budget that stopped it, if one did (none for a run
/// interrupted by the stop flag or the progress callback).
pub struct Outcome {
    pub result: RunResult,
    pub error: Option<ScenarioError>,
}

/// Build and run a scenario under `limits`. A run stopped by a budget or interrupted still
/// returns what it measured up to then; only a bad scenario is an `Err`.
pub fn run_limited(
    sc: Scenario,
    files: &FileAccess,
    limits: Limits,
) -> Result<Outcome, ScenarioError> {
    let mut sim = scenario::build_with(&sc, files)?;
    drop(sc);
    sim.watch.arm(limits);
    sim.run();
    finish_capture(&mut sim)?;
    let error = sim.watch.error.clone();
    Ok(Outcome {
        result: RunResult::from_finished(sim),
        error,
    })
}

/// The budget that stopped a run (`memory_budget`, `timeout` or `max_events`) and its error.
pub type BudgetStop = (&'static str, ScenarioError);

/// [`run_limited`] of a scenario given as JSON text: the result as JSON text (time series
/// left empty unless `series`) and, if a budget stopped the run, which one (the reason a
/// partial result names: `memory_budget`, `timeout`, `max_events`) and its error.
pub fn run_json_limited(
    text: &str,
    files: &FileAccess,
    series: bool,
    limits: Limits,
) -> Result<(String, Option<BudgetStop>), ScenarioError> {
    let sc = scenario::parse_json(text)?;
    let mut out = run_limited(sc, files, limits)?;
    if !series {
        out.result.series = stats::Series::default();
    }
    let json = serde_json::to_string(&out.result).expect("results serialize");
    let reason = out.result.partial.as_ref().map_or("", |p| p.reason);
    Ok((json, out.error.map(|e| (reason, e))))
}

/// Run a scenario given as JSON text; the result as JSON text.
pub fn run_json(text: &str) -> Result<String, ScenarioError> {
    run_json_with(text, &FileAccess::default())
}

/// [`run_json`] reading the files the scenario names as `files` allows.
pub fn run_json_with(text: &str, files: &FileAccess) -> Result<String, ScenarioError> {
    run_json_opts(text, files, true)
}

/// [`run_json_with`], leaving the time series empty unless `series`: a caller that keeps
/// none (a sweep) need not write and parse them, and on a short run they are most of the
/// text.
pub fn run_json_opts(
    text: &str,
    files: &FileAccess,
    series: bool,
) -> Result<String, ScenarioError> {
    let sc = scenario::parse_json(text)?;
    let mut r = run_owned(sc, files)?;
    if !series {
        r.series = stats::Series::default();
    }
    Ok(serde_json::to_string(&r).expect("results serialize"))
}

/// Run a scenario given as TOML text.
pub fn run_toml(text: &str) -> Result<RunResult, ScenarioError> {
    run(&scenario::parse_toml(text)?)
}

/// Check a scenario (JSON text) without running it.
pub fn validate_json(text: &str) -> Result<(), ScenarioError> {
    validate_json_with(text, &FileAccess::default())
}

/// [`validate_json`] reading the files the scenario names as `files` allows.
pub fn validate_json_with(text: &str, files: &FileAccess) -> Result<(), ScenarioError> {
    scenario::build_with(&scenario::parse_json(text)?, files).map(|_| ())
}

/// Known congestion-control schemes: (name, one-line description).
pub fn schemes() -> Vec<(&'static str, &'static str)> {
    tcp::cc::SCHEMES
        .iter()
        .map(|s| (s.name, s.description))
        .collect()
}

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Fingerprint of the simulator's sources (see build.rs): results from different builds may
/// differ, so stores key runs by it.
pub const BUILD_ID: &str = env!("AIRTCP_BUILD_ID");
