//! airtcp-emu: real-time emulation of a scenario's links for real TCP stacks. The hosts at
//! the flows' ends are network namespaces, each with one TUN device (set up by the caller);
//! every packet they send is read here, carried along its path through the same queue
//! policies and error models the simulator builds from the scenario, and written to the
//! destination's TUN device when it is due. See docs/emulation.md.

pub mod engine;
pub mod gate;
pub mod ip;
pub mod lateness;
pub mod plan;
pub mod simnet;
pub mod tun;

#[cfg(test)]
mod media_tests;
#[cfg(test)]
mod tests;

use airtcp_core::engine::SEC;
use airtcp_core::scenario::{parse_json, FileAccess, ScenarioError};
use std::os::fd::RawFd;

/// The hosts of a scenario that the caller must give a namespace and a TUN device each
/// (every flow endpoint, in order), after checking that the emulator can run it.
pub fn hosts_json(text: &str, files: &FileAccess) -> Result<Vec<String>, ScenarioError> {
    let sc = parse_json(text)?;
    if on_media_path(&sc) {
        return Ok(simnet::plan(&sc, files)?.hosts);
    }
    Ok(plan::plan(&sc, files)?.hosts)
}

/// Whether the scenario needs the simulator itself in real time (`simnet.rs`): a shared
/// medium, a link with ARQ, or a flow endpoint with more than one link (the simulated node
/// then routes the host's packets over its links). Point-to-point paths without ARQ between
/// single-link hosts keep their own engine.
pub fn on_media_path(sc: &airtcp_core::Scenario) -> bool {
    let links = |h: &str| sc.links.iter().filter(|l| l.a == h || l.b == h).count();
    !sc.media.is_empty()
        || sc.links.iter().any(|l| l.arq.is_some())
        || sc
            .flows
            .iter()
            .any(|f| links(&f.src) > 1 || links(&f.dst) > 1)
}

/// One host's interface: its TUN descriptor (open, attached) and its IPv4 address.
pub struct HostIf {
    pub fd: RawFd,
    pub addr: u32,
}

/// Emulate the scenario's links until link time `seconds` (or until `stop_fd` is readable)
/// between the hosts' interfaces, given in the order of [`hosts_json`]; the link clock starts
/// at `start_offset` seconds (the run began that long ago). Returns the link table, the
/// gates' rows, drops by cause and the lateness of releases, as JSON text.
pub fn emulate_json(
    text: &str,
    files: &FileAccess,
    hosts: &[HostIf],
    stop_fd: RawFd,
    seconds: f64,
    start_offset: f64,
) -> Result<String, ScenarioError> {
    let sc = parse_json(text)?;
    if on_media_path(&sc) {
        return emulate_media(&sc, files, hosts, stop_fd, seconds, start_offset);
    }
    let plan = plan::plan(&sc, files)?;
    if plan.hosts.len() != hosts.len() {
        return Err(ScenarioError::new(
            "",
            format!(
                "{} interfaces given for {} hosts",
                hosts.len(),
                plan.hosts.len()
            ),
        ));
    }
    let addrs: Vec<u32> = hosts.iter().map(|h| h.addr).collect();
    let fds: Vec<RawFd> = hosts.iter().map(|h| h.fd).collect();
    let mut emu = engine::Emulator::new(plan, &addrs);
    let clock = tun::RealClock::start((start_offset.max(0.0) * SEC as f64) as u64);
    let end = (seconds.max(0.0) * SEC as f64) as u64;
    let io = tun::run(&mut emu, &fds, stop_fd, end, &clock);
    let out = serde_json::json!({
        "elapsed_s": io.ended_at as f64 / SEC as f64,
        "stopped": io.stopped,
        "realtime": io.realtime,
        "read_packets": io.read_packets,
        "delivered_packets": emu.delivered,
        "in_flight_packets": emu.in_flight(),
        "ignored_not_ipv4": emu.ignored_not_ipv4,
        "ignored_unknown_destination": emu.ignored_unknown_dst,
        "write_errors": io.write_errors,
        "lateness": io.lateness.summary(),
        "drops": emu.drops(),
        "links": emu.link_rows(io.ended_at),
        "agents": emu.agent_rows(io.ended_at),
    });
    Ok(out.to_string())
}

/// [`emulate_json`] of a scenario with a shared medium or ARQ: the simulator runs in real
/// time between the hosts (`simnet.rs`); the report has the same layout, with the media's
/// `macs` rows beside the `links` rows.
fn emulate_media(
    sc: &airtcp_core::Scenario,
    files: &FileAccess,
    hosts: &[HostIf],
    stop_fd: RawFd,
    seconds: f64,
    start_offset: f64,
) -> Result<String, ScenarioError> {
    let addrs: Vec<u32> = hosts.iter().map(|h| h.addr).collect();
    let fds: Vec<RawFd> = hosts.iter().map(|h| h.fd).collect();
    let end = (seconds.max(0.0) * SEC as f64) as u64;
    let planned = simnet::plan(sc, files)?.hosts.len();
    if planned != hosts.len() {
        return Err(ScenarioError::new(
            "",
            format!("{} interfaces given for {planned} hosts", hosts.len()),
        ));
    }
    let mut emu = simnet::SimEngine::new(sc, files, &addrs, end)?;
    let clock = tun::RealClock::start((start_offset.max(0.0) * SEC as f64) as u64);
    let io = tun::run(&mut emu, &fds, stop_fd, end, &clock);
    let (delivered, in_flight) = (emu.delivered, emu.in_flight());
    let (not_ipv4, unknown) = (emu.ignored_not_ipv4, emu.ignored_unknown_dst);
    let events = emu.events();
    let unmatched = emu.unmatched;
    let tables = emu.close(io.ended_at);
    let out = serde_json::json!({
        "elapsed_s": io.ended_at as f64 / SEC as f64,
        "stopped": io.stopped,
        "realtime": io.realtime,
        "engine": "simulator",
        "events": events,
        "unmatched_packets": unmatched,
        "read_packets": io.read_packets,
        "delivered_packets": delivered,
        "in_flight_packets": in_flight,
        "ignored_not_ipv4": not_ipv4,
        "ignored_unknown_destination": unknown,
        "write_errors": io.write_errors,
        "lateness": io.lateness.summary(),
        "drops": tables["drops"],
        "links": tables["links"],
        "macs": tables["macs"],
        "routing": tables["routing"],
        "agents": [],
    });
    Ok(out.to_string())
}
