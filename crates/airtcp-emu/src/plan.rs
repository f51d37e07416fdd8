//! What the emulator builds from a scenario: one emulated link direction per direction of
//! each point-to-point link, with the queue policy and error model the simulator would build
//! for it (same constructors, same random streams), the hosts that become network
//! namespaces (the flows' endpoints) and the path of link directions between each pair.

use crate::gate::GateSpec;
use airtcp_core::engine::Rng;
use airtcp_core::engine::Time;
use airtcp_core::link::error::ErrorKind;
use airtcp_core::link::error::ErrorModel;
use airtcp_core::link::snr::SnrSeries;
use airtcp_core::queue::AnyQueue;
use airtcp_core::scenario::build::{error_model, queue_policy};
use airtcp_core::scenario::schema::AgentSpec;
use airtcp_core::scenario::{FileAccess, Scenario, ScenarioError};
use airtcp_core::topology::LinkKind;
use std::collections::{BTreeMap, VecDeque};

type R<T> = Result<T, ScenarioError>;

fn refuse<T>(path: impl Into<String>, msg: impl Into<String>) -> R<T> {
    Err(ScenarioError::new(path, msg))
}

/// One direction of a point-to-point link.
pub struct DirSpec {
    /// "A->B", as in the simulator's link table.
    pub name: String,
    pub link: String,
    pub from: String,
    pub to: String,
    pub kind: LinkKind,
    pub rate_bps: u64,
    pub delay: Time,
    pub policy: AnyQueue,
    pub error: ErrorModel,
}

pub struct Plan {
    pub dirs: Vec<DirSpec>,
    /// Hosts that get a namespace: every flow endpoint, in order of first mention.
    pub hosts: Vec<String>,
    /// `paths[s * hosts.len() + d]`: link directions from host s to host d (empty for s == d
    /// or no path).
    pub paths: Vec<Vec<usize>>,
    pub snr: Vec<SnrSeries>,
    /// SNR gates at hosts (the one node agent a host runs below its TCP).
    pub gates: Vec<GateSpec>,
}

const SUPPORTED: &str = "the emulator supports point-to-point links (wired or wireless, every \
     queue kind, every error model, rates and delays) between hosts with one link each";

/// Check that `sc` is something the emulator can run and build its link models.
pub fn plan(sc: &Scenario, files: &FileAccess) -> R<Plan> {
    // Everything the simulator checks holds here too (ranges, names, units).
    airtcp_core::scenario::build_with(sc, files)?;
    if !sc.media.is_empty() {
        return refuse(
            "media",
            format!("shared media (802.11, TDMA) cannot be emulated: {SUPPORTED}"),
        );
    }
    for (i, a) in sc.agents.iter().enumerate() {
        if !matches!(a, AgentSpec::SnrGate { .. }) {
            return refuse(
                format!("agents[{i}].kind"),
                format!(
                    "of the node agents only the SNR gate runs in the emulator; ECN marking \
                     by routers is available through the queue kinds (ecn_threshold, red, \
                     mecn, wmecn, cw): {SUPPORTED}"
                ),
            );
        }
    }
    let end = sc.duration.ns();
    let mut snr = Vec::new();
    let mut dirs = Vec::new();
    let mut adj: BTreeMap<&str, Vec<(usize, &str)>> = BTreeMap::new();
    for (i, l) in sc.links.iter().enumerate() {
        let p = format!("links[{i}]");
        if l.arq.is_some() {
            return refuse(
                format!("{p}.arq"),
                format!("link-layer ARQ is not emulated: {SUPPORTED}"),
            );
        }
        let name = l.name.clone().unwrap_or_else(|| format!("{}-{}", l.a, l.b));
        let rate = l.rate.bps();
        for (dir, from, to, spec, spath) in [
            (
                "ab",
                &l.a,
                &l.b,
                l.error_ab.as_deref().or(l.error.as_deref()),
                if l.error_ab.is_some() {
                    "error_ab"
                } else {
                    "error"
                },
            ),
            (
                "ba",
                &l.b,
                &l.a,
                l.error_ba.as_deref().or(l.error.as_deref()),
                if l.error_ba.is_some() {
                    "error_ba"
                } else {
                    "error"
                },
            ),
        ] {
            let policy = queue_policy(&l.queue, &format!("{p}.queue"), rate, || {
                Rng::for_component(sc.seed, &format!("link/{name}/{dir}/queue"))
            })?;
            let error = error_model(
                spec,
                &format!("{p}.{spath}"),
                sc.seed,
                &format!("link/{name}/{dir}/error"),
                end,
                &mut snr,
                files,
            )?;
            adj.entry(from.as_str())
                .or_default()
                .push((dirs.len(), to.as_str()));
            dirs.push(DirSpec {
                name: format!("{from}->{to}"),
                link: name.clone(),
                from: from.clone(),
                to: to.clone(),
                kind: l.kind,
                rate_bps: rate,
                delay: l.delay.ns(),
                policy,
                error,
            });
        }
    }
    let mut hosts: Vec<String> = Vec::new();
    for (i, f) in sc.flows.iter().enumerate() {
        for (k, h) in [("src", &f.src), ("dst", &f.dst)] {
            let n = adj.get(h.as_str()).map_or(0, |v| v.len());
            if n != 1 {
                return refuse(
                    format!("flows[{i}].{k}"),
                    format!(
                        "endpoint '{h}' has {n} links; an emulated endpoint is a namespace \
                         with one interface, so it needs exactly one: {SUPPORTED}"
                    ),
                );
            }
            if !hosts.contains(h) {
                hosts.push(h.clone());
            }
        }
    }
    let n = hosts.len();
    let mut paths = vec![Vec::new(); n * n];
    for (s, src) in hosts.iter().enumerate() {
        // Fewest hops, as the simulator routes; ties go to the link listed first.
        let mut prev: BTreeMap<&str, usize> = BTreeMap::new();
        let mut q = VecDeque::from([src.as_str()]);
        let mut seen = std::collections::BTreeSet::from([src.as_str()]);
        while let Some(u) = q.pop_front() {
            for &(d, v) in adj.get(u).map_or(&[][..], |v| v.as_slice()) {
                if seen.insert(v) {
                    prev.insert(v, d);
                    q.push_back(v);
                }
            }
        }
        for (d, dst) in hosts.iter().enumerate() {
            if s == d {
                continue;
            }
            let mut path = Vec::new();
            let mut at = dst.as_str();
            while let Some(&dir) = prev.get(at) {
                path.push(dir);
                at = dirs[dir].from.as_str();
            }
            path.reverse();
            paths[s * n + d] = path;
        }
    }
    for (i, f) in sc.flows.iter().enumerate() {
        let s = hosts
            .iter()
            .position(|h| h == &f.src)
            .expect("listed above");
        let d = hosts
            .iter()
            .position(|h| h == &f.dst)
            .expect("listed above");
        if paths[s * n + d].is_empty() || paths[d * n + s].is_empty() {
            return refuse(
                format!("flows[{i}]"),
                format!("no path between '{}' and '{}'", f.src, f.dst),
            );
        }
    }
    let gates = gates(sc, &dirs, &hosts, &snr)?;
    Ok(Plan {
        dirs,
        hosts,
        paths,
        snr,
        gates,
    })
}

/// The scenario's SNR gates (already checked by the simulator's builder), each at a host.
fn gates(sc: &Scenario, dirs: &[DirSpec], hosts: &[String], snr: &[SnrSeries]) -> R<Vec<GateSpec>> {
    let mut out = Vec::new();
    for (i, a) in sc.agents.iter().enumerate() {
        let AgentSpec::SnrGate {
            node,
            link,
            threshold_db,
            interval,
            measurement_delay,
            ewma_weight,
            hysteresis_db,
        } = a
        else {
            continue;
        };
        let Some(host) = hosts.iter().position(|h| h == node) else {
            return refuse(
                format!("agents[{i}].node"),
                format!(
                    "the SNR gate acts on a host's own TCP senders; '{node}' is no flow's \
                     endpoint here"
                ),
            );
        };
        // The direction of `link` leaving the node, whose error model is `snr` (checked).
        let series = dirs
            .iter()
            .find(|d| &d.link == link && &d.from == node)
            .and_then(|d| match &d.error.kind {
                ErrorKind::Snr(e) => Some(e.series),
                _ => None,
            })
            .expect("the builder checked the gate's link");
        out.push(GateSpec {
            node: node.clone(),
            host,
            series,
            threshold_db: *threshold_db,
            interval: interval.ns(),
            delay: measurement_delay.map_or(snr[series].interval, |d| d.ns()),
            ewma_weight: *ewma_weight,
            hysteresis_db: *hysteresis_db,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use airtcp_core::scenario::parse_toml;

    const DUMBBELL: &str = include_str!("../../../scenarios/dumbbell.toml");

    #[test]
    fn dumbbell_paths_follow_the_links() {
        let sc = parse_toml(DUMBBELL).unwrap();
        let p = plan(&sc, &FileAccess::default()).unwrap();
        assert_eq!(p.hosts, ["S1", "D1", "S2", "D2"]);
        let names = |s: usize, d: usize| -> Vec<&str> {
            p.paths[s * 4 + d]
                .iter()
                .map(|&i| p.dirs[i].name.as_str())
                .collect()
        };
        assert_eq!(names(0, 1), ["S1->R1", "R1->R2", "R2->D1"]);
        assert_eq!(names(1, 0), ["D1->R2", "R2->R1", "R1->S1"]);
        assert_eq!(p.dirs.len(), 10);
    }

    #[test]
    fn refuses_what_it_cannot_emulate() {
        let text = format!("{DUMBBELL}\n[[agents]]\nkind = \"eln\"\nnode = \"R2\"\n");
        let e = plan(&parse_toml(&text).unwrap(), &FileAccess::default())
            .err()
            .unwrap();
        assert_eq!(e.path, "agents[0].kind");
        let arq = DUMBBELL.replace(
            "error = { model = \"bernoulli\", per = 0.01, applies_to = \"data\" }",
            "error = { model = \"bernoulli\", per = 0.01 }\narq = { retry_limit = 3 }",
        );
        let e = plan(&parse_toml(&arq).unwrap(), &FileAccess::default())
            .err()
            .unwrap();
        assert_eq!(e.path, "links[3].arq");
    }
}
