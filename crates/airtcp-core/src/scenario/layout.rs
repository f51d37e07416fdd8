//! What a picture of the network needs, computed by the same code a run uses: each node's
//! position over the run (its mobility model sampled), each 802.11 medium's receive and
//! carrier-sense ranges and stations, and each flow's route.

use super::build::{build_with, R};
use super::files::FileAccess;
use super::mobility::Models;
use super::schema::{MediumKind, Scenario};
use super::wifi::wifi_params;
use crate::device::{AnyDevice, WifiDev};
use crate::engine::{Time, SEC};
use crate::mobility::series::Tracks;
use serde_json::{json, Value};

/// The layout of `sc`: positions sampled every `interval` (default: the scenario's
/// `trace.positions`, else a 200th of the run, at least 10 ms).
pub fn layout(sc: &Scenario, files: &FileAccess, interval: Option<f64>) -> R<Value> {
    // Built to be looked at, not run: no packet trace files are opened.
    let mut quiet = sc.clone();
    quiet.trace.pcap.clear();
    let sim = build_with(&quiet, files)?;
    let models = Models::new(sc, files).all()?;
    let end = (sc.duration.0 * SEC as f64) as Time;
    let iv = interval
        .or(sc.trace.positions.map(|d| d.0))
        .unwrap_or((sc.duration.0 / 200.0).max(0.01))
        .max(1e-3);
    let tracks = Tracks {
        interval: (iv * SEC as f64) as Time,
        nodes: models
            .iter()
            .enumerate()
            .filter_map(|(i, m)| Some((sc.nodes[i].name.clone(), m.clone()?)))
            .collect(),
    };
    let nodes: Vec<Value> = sc
        .nodes
        .iter()
        .zip(&models)
        .map(|(n, m)| {
            json!({
                "name": n.name,
                "kind": n.kind,
                "moves": m.as_ref().is_some_and(|m| !m.is_static()),
                "placed": m.is_some(),
            })
        })
        .collect();
    let mut media = Vec::new();
    for (i, m) in sc.media.iter().enumerate() {
        if m.kind != MediumKind::Wifi {
            continue;
        }
        let (p, radio) = wifi_params(m, &format!("media[{i}]"))?;
        let mut stations = Vec::new();
        for d in &sim.devices {
            if let AnyDevice::Other(dev) = d {
                if let Some(w) = dev.as_any().downcast_ref::<WifiDev>() {
                    let net = w.net.borrow();
                    if net.name == m.name && stations.is_empty() {
                        stations = net
                            .stations
                            .iter()
                            .map(|s| sim.nodes[s.node.idx()].name.clone())
                            .collect();
                    }
                }
            }
        }
        media.push(json!({
            "name": m.name,
            "rx_range": radio.range_for(p.rx_threshold_w),
            "cs_range": radio.range_for(p.cs_threshold_w),
            "stations": stations,
        }));
    }
    let links: Vec<Value> = sc
        .links
        .iter()
        .map(|l| json!({"a": l.a, "b": l.b, "kind": l.kind.name()}))
        .collect();
    let mut flows = Vec::new();
    for (fi, f) in sim.flows.iter().enumerate() {
        let mut route = vec![sim.nodes[f.src.idx()].name.clone()];
        let mut at = f.src;
        while at != f.dst && route.len() <= sim.nodes.len() {
            let Some((_, to)) = sim.routes.next_hop(at, f.dst) else {
                break;
            };
            route.push(sim.nodes[to.idx()].name.clone());
            at = to;
        }
        flows.push(json!({
            "name": f.name,
            "src": sim.nodes[f.src.idx()].name,
            "dst": sim.nodes[f.dst.idx()].name,
            "transport": if sc.flows[fi].app.is_tcp() { "tcp" } else { "udp" },
            "route": route,
        }));
    }
    Ok(json!({
        "name": sc.name,
        "duration_s": sc.duration.0,
        "nodes": nodes,
        "positions": tracks.series(end),
        "media": media,
        "links": links,
        "flows": flows,
    }))
}

/// [`layout`] of a scenario given as JSON text, as JSON text.
pub fn layout_json(text: &str, files: &FileAccess, interval: Option<f64>) -> R<String> {
    let sc = super::parse_json(text)?;
    Ok(layout(&sc, files, interval)?.to_string())
}
