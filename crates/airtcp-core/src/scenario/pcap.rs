//! `trace.pcap`: which nodes and 802.11 media write packet traces, and where.

use super::schema::Scenario;
use super::ScenarioError;
use crate::device::wifi::{MediumCapture, WifiDev};
use crate::device::AnyDevice;
use crate::pcap::{Capture, FlowWire, PcapWriter, LINKTYPE_IEEE802_11_RADIOTAP, LINKTYPE_RAW};
use crate::sim::{Sim, Transport};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::rc::Rc;

/// Set up the traces `sc.trace.pcap` names on a built simulation (the files are created when
/// the run writes them).
pub(super) fn captures(sc: &Scenario, sim: &mut Sim) -> Result<(), ScenarioError> {
    let dir = PathBuf::from(sc.trace.pcap_dir.as_deref().unwrap_or("pcap"));
    if dir.as_os_str().is_empty() {
        return Err(ScenarioError::new("trace.pcap_dir", "must not be empty"));
    }
    let flows: Vec<FlowWire> = sim
        .flows
        .iter()
        .map(|f| match &f.transport {
            Transport::Tcp(t) => FlowWire {
                src: f.src.0,
                timestamps: t.tx.cfg.timestamps,
                sack: t.tx.cfg.sack,
                mss: t.tx.cfg.mss.min(u16::MAX as u32) as u16,
            },
            Transport::Udp(_) => FlowWire {
                src: f.src.0,
                ..FlowWire::default()
            },
        })
        .collect();
    // The 802.11 media, by name, with one of their devices.
    let mut wifi: BTreeMap<String, usize> = BTreeMap::new();
    for (i, d) in sim.devices.iter().enumerate() {
        if let AnyDevice::Other(dev) = d {
            if let Some(w) = dev.as_any().downcast_ref::<WifiDev>() {
                wifi.entry(w.medium()).or_insert(i);
            }
        }
    }
    let nodes: BTreeMap<&str, usize> = sc
        .nodes
        .iter()
        .filter_map(|n| Some((n.name.as_str(), sim.node_named(&n.name)?.idx())))
        .collect();
    let mut cap = Capture::new(sim.nodes.len(), flows.clone());
    let mut seen = std::collections::BTreeSet::new();
    let mut names: Vec<(usize, String)> = Vec::new();
    for (i, name) in sc.trace.pcap.iter().enumerate() {
        if name == "*" {
            names.extend(sc.nodes.iter().map(|n| (i, n.name.clone())));
            names.extend(wifi.keys().map(|m| (i, m.clone())));
        } else {
            names.push((i, name.clone()));
        }
    }
    for (i, name) in names {
        if !seen.insert(name.clone()) {
            continue;
        }
        let path = dir.join(format!("{name}.pcap"));
        match (nodes.get(name.as_str()), wifi.get(&name)) {
            (Some(_), Some(_)) => {
                return Err(ScenarioError::new(
                    format!("trace.pcap[{i}]"),
                    format!("'{name}' names both a node and a medium"),
                ))
            }
            (Some(&n), None) => {
                let w = Rc::new(RefCell::new(PcapWriter::new(path, LINKTYPE_RAW)));
                cap.trace_node(n, name, w);
            }
            (None, Some(&d)) => {
                let w = Rc::new(RefCell::new(PcapWriter::new(
                    path,
                    LINKTYPE_IEEE802_11_RADIOTAP,
                )));
                let AnyDevice::Other(dev) = &sim.devices[d] else {
                    unreachable!("a wifi station is an Other device")
                };
                let net = &dev
                    .as_any()
                    .downcast_ref::<WifiDev>()
                    .expect("found above")
                    .net;
                net.borrow_mut().capture = Some(MediumCapture::new(w.clone(), flows.clone()));
                cap.add_file(name, w);
            }
            (None, None) => {
                let media: Vec<&str> = sc.media.iter().map(|m| m.name.as_str()).collect();
                let what = if media.contains(&name.as_str()) {
                    "is a TDMA medium: name its nodes to trace its links"
                } else {
                    "is no node or 802.11 medium"
                };
                return Err(ScenarioError::new(
                    format!("trace.pcap[{i}]"),
                    format!("'{name}' {what}"),
                ));
            }
        }
    }
    sim.capture = Some(Box::new(cap));
    Ok(())
}
