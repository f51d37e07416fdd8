//! Bindings of the real-time emulator (airtcp-emu): the hosts a scenario needs, and the
//! emulation itself, run with the GIL released.

use super::{file_access, guarded};
use airtcp_emu::HostIf;
use pyo3::prelude::*;
use std::path::PathBuf;

/// The hosts (flow endpoints) an emulation of the scenario (JSON text) needs a namespace
/// and a TUN device for, in order; raises ScenarioError for what the emulator cannot run.
#[pyfunction]
#[pyo3(signature = (scenario, base_dir=None, allow_paths=None))]
pub fn emu_hosts(
    scenario: &str,
    base_dir: Option<PathBuf>,
    allow_paths: Option<Vec<PathBuf>>,
) -> PyResult<Vec<String>> {
    let files = file_access(base_dir, allow_paths);
    guarded(|| airtcp_emu::hosts_json(scenario, &files))
}

/// Emulate the scenario's links between `hosts` ((TUN descriptor, IPv4 address as an
/// integer) per host of `emu_hosts`, same order) until link time `seconds`, or until
/// `stop_fd` becomes readable; link time starts at `start_offset` seconds. Returns JSON
/// text: link rows, gate rows, drops, lateness.
#[pyfunction]
#[pyo3(signature = (
    scenario, hosts, stop_fd, seconds, start_offset=0.0, base_dir=None, allow_paths=None
))]
#[allow(clippy::too_many_arguments)]
pub fn emulate_json(
    py: Python<'_>,
    scenario: String,
    hosts: Vec<(i32, u32)>,
    stop_fd: i32,
    seconds: f64,
    start_offset: f64,
    base_dir: Option<PathBuf>,
    allow_paths: Option<Vec<PathBuf>>,
) -> PyResult<String> {
    let files = file_access(base_dir, allow_paths);
    let ifs: Vec<HostIf> = hosts
        .into_iter()
        .map(|(fd, addr)| HostIf { fd, addr })
        .collect();
    py.detach(move || {
        guarded(|| {
            airtcp_emu::emulate_json(&scenario, &files, &ifs, stop_fd, seconds, start_offset)
        })
    })
}
