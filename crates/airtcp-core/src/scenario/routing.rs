//! Building the routing layer from the scenario's `routing` keys (docs/routing.md).

use super::build::{err, R};
use super::schema::{RoutingProtocol, RoutingSpec, Scenario};
use crate::engine::{Rng, Time};
use crate::ids::{DevId, NodeId};
use crate::routing::{aodv, olsr, Layer, Protocol};
use crate::topology::{Node, NodeKind, Routes};

fn ns(d: Option<super::units::Duration>, default: Time, path: String) -> R<Time> {
    match d {
        None => Ok(default),
        Some(d) if d.0 > 0.0 && d.0.is_finite() => Ok(d.ns()),
        Some(d) => err(path, format!("must be > 0 s, got {}", d.0)),
    }
}

fn positive(v: Option<u32>, default: u32, path: String) -> R<u32> {
    match v {
        None => Ok(default),
        Some(0) => err(path, "must be >= 1"),
        Some(v) => Ok(v),
    }
}

/// AODV's configuration from a merged spec; `p` is the spec's path for errors.
fn aodv_config(s: &RoutingSpec, p: &str) -> R<aodv::Config> {
    let d = aodv::Config::default();
    for (set, k) in [
        (s.tc_interval.is_some(), "tc_interval"),
        (s.willingness.is_some(), "willingness"),
        (s.bundle.is_some(), "bundle"),
        (s.hysteresis.is_some(), "hysteresis"),
    ] {
        if set {
            return err(format!("{p}.{k}"), "is an OLSR setting (protocol is aodv)");
        }
    }
    let c = aodv::Config {
        hello: s.hello.unwrap_or(d.hello),
        hello_from: s.hello_from.unwrap_or(d.hello_from),
        data_liveness: s.data_liveness.unwrap_or(d.data_liveness),
        rreq_ratelimit: s.rreq_ratelimit.unwrap_or(d.rreq_ratelimit),
        gratuitous_rrep: s.gratuitous_rrep.unwrap_or(d.gratuitous_rrep),
        seq_on_break: s.seq_on_break.unwrap_or(d.seq_on_break),
        relay_every_rrep: s.relay_every_rrep.unwrap_or(d.relay_every_rrep),
        hear_revives: s.hear_revives.unwrap_or(d.hear_revives),
        rreq_revives: s.rreq_revives.unwrap_or(d.rreq_revives),
        rreq_loop_drop: s.rreq_loop_drop.unwrap_or(d.rreq_loop_drop),
        jitter_ns3: s.jitter_ns3.unwrap_or(d.jitter_ns3),
        control_routed: s.control_routed.unwrap_or(d.control_routed),
        rrep_ack: s.rrep_ack.unwrap_or(d.rrep_ack),
        hello_suppress: s.hello_suppress.unwrap_or(d.hello_suppress),
        rerr_no_route: s.rerr_no_route.unwrap_or(d.rerr_no_route),
        rerr_routes: s.rerr_routes.unwrap_or(d.rerr_routes),
        link_feedback: s.link_feedback.unwrap_or(d.link_feedback),
        on_break: s.on_break.unwrap_or(d.on_break),
        active_route_timeout: ns(
            s.active_route_timeout,
            d.active_route_timeout,
            format!("{p}.active_route_timeout"),
        )?,
        hello_interval: ns(
            s.hello_interval,
            d.hello_interval,
            format!("{p}.hello_interval"),
        )?,
        allowed_hello_loss: positive(
            s.allowed_hello_loss,
            d.allowed_hello_loss,
            format!("{p}.allowed_hello_loss"),
        )?,
        net_diameter: positive(s.net_diameter, d.net_diameter, format!("{p}.net_diameter"))?,
        node_traversal_time: ns(
            s.node_traversal_time,
            d.node_traversal_time,
            format!("{p}.node_traversal_time"),
        )?,
        rreq_retries: s.rreq_retries.unwrap_or(d.rreq_retries),
        ttl_start: positive(s.ttl_start, d.ttl_start, format!("{p}.ttl_start"))?,
        ttl_increment: positive(
            s.ttl_increment,
            d.ttl_increment,
            format!("{p}.ttl_increment"),
        )?,
        ttl_threshold: positive(
            s.ttl_threshold,
            d.ttl_threshold,
            format!("{p}.ttl_threshold"),
        )?,
        buffer_packets: positive(s.buffer, d.buffer_packets as u32, format!("{p}.buffer"))?
            as usize,
        buffer_timeout: ns(
            s.buffer_timeout,
            d.buffer_timeout,
            format!("{p}.buffer_timeout"),
        )?,
        max_jitter: match s.jitter {
            Some(j) if j.0 < 0.0 || !j.0.is_finite() => {
                return err(
                    format!("{p}.jitter"),
                    format!("must be >= 0 s, got {}", j.0),
                )
            }
            Some(j) => j.ns(),
            None => d.max_jitter,
        },
        ..d
    };
    if c.ttl_start > c.net_diameter {
        return err(
            format!("{p}.ttl_start"),
            format!("must be at most net_diameter ({})", c.net_diameter),
        );
    }
    if !c.hello && !c.link_feedback {
        return err(
            format!("{p}.link_feedback"),
            "AODV needs HELLOs or link-layer feedback to notice broken links: set hello or link_feedback to true",
        );
    }
    Ok(c)
}

/// OLSR's configuration from a merged spec.
fn olsr_config(s: &RoutingSpec, p: &str) -> R<olsr::Config> {
    let d = olsr::Config::default();
    for (set, k) in [
        (s.hello.is_some(), "hello"),
        (s.hello_from.is_some(), "hello_from"),
        (s.data_liveness.is_some(), "data_liveness"),
        (s.rreq_ratelimit.is_some(), "rreq_ratelimit"),
        (s.gratuitous_rrep.is_some(), "gratuitous_rrep"),
        (s.seq_on_break.is_some(), "seq_on_break"),
        (s.relay_every_rrep.is_some(), "relay_every_rrep"),
        (s.hear_revives.is_some(), "hear_revives"),
        (s.rreq_revives.is_some(), "rreq_revives"),
        (s.rreq_loop_drop.is_some(), "rreq_loop_drop"),
        (s.jitter_ns3.is_some(), "jitter_ns3"),
        (s.control_routed.is_some(), "control_routed"),
        (s.rrep_ack.is_some(), "rrep_ack"),
        (s.hello_suppress.is_some(), "hello_suppress"),
        (s.rerr_no_route.is_some(), "rerr_no_route"),
        (s.rerr_routes.is_some(), "rerr_routes"),
        (s.on_break.is_some(), "on_break"),
        (s.buffer.is_some(), "buffer"),
        (s.net_diameter.is_some(), "net_diameter"),
        (s.rreq_retries.is_some(), "rreq_retries"),
        (s.ttl_start.is_some(), "ttl_start"),
    ] {
        if set {
            return err(format!("{p}.{k}"), "is an AODV setting (protocol is olsr)");
        }
    }
    let hello_interval = ns(
        s.hello_interval,
        d.hello_interval,
        format!("{p}.hello_interval"),
    )?;
    let tc_interval = ns(s.tc_interval, d.tc_interval, format!("{p}.tc_interval"))?;
    let willingness = match s.willingness {
        None => d.willingness,
        Some(w) if w <= 7 => w,
        Some(w) => return err(format!("{p}.willingness"), format!("must be 0..7, got {w}")),
    };
    Ok(olsr::Config {
        hello_interval,
        tc_interval,
        // Hold times are three emission intervals (RFC 3626 section 18.3).
        neighb_hold_time: 3 * hello_interval,
        top_hold_time: 3 * tc_interval,
        willingness,
        link_feedback: s.link_feedback.unwrap_or(d.link_feedback),
        bundle: s.bundle.unwrap_or(d.bundle),
        hysteresis: s.hysteresis.unwrap_or(d.hysteresis),
        max_jitter: match s.jitter {
            Some(j) if j.0 < 0.0 || !j.0.is_finite() => {
                return err(
                    format!("{p}.jitter"),
                    format!("must be >= 0 s, got {}", j.0),
                )
            }
            Some(j) => j.ns(),
            // MAXJITTER = HELLO_INTERVAL / 4 (RFC 3626 3.5).
            None => hello_interval / 4,
        },
        ..d
    })
}

/// The routing layer of a scenario, or None when every node routes statically. A node with
/// a protocol must have exactly one device, an 802.11 station (`stations`).
pub(super) fn layer(
    sc: &Scenario,
    nodes: &[Node],
    stations: &[(DevId, usize)],
    routes: &Routes,
) -> R<Option<Layer>> {
    let top = sc.routing.clone().unwrap_or_default();
    let any = top.protocol.is_some_and(|p| p != RoutingProtocol::Static)
        || sc.nodes.iter().any(|n| {
            n.routing
                .as_ref()
                .and_then(|r| r.protocol)
                .is_some_and(|p| p != RoutingProtocol::Static)
        });
    if !any {
        for (i, n) in sc.nodes.iter().enumerate() {
            let (spec, path) = match &n.routing {
                Some(r) => (top.merged(r), format!("nodes[{i}].routing")),
                None => (top.clone(), "routing".to_string()),
            };
            if spec.has_settings() {
                return err(
                    path,
                    "settings without a protocol: set protocol = \"aodv\" or \"olsr\"",
                );
            }
        }
        return Ok(None);
    }
    let mut agents: Vec<Option<Box<dyn Protocol>>> = Vec::with_capacity(nodes.len());
    let mut radio = Vec::with_capacity(nodes.len());
    for (i, n) in sc.nodes.iter().enumerate() {
        let (spec, path) = match &n.routing {
            Some(r) => (top.merged(r), format!("nodes[{i}].routing")),
            None => (top.clone(), "routing".to_string()),
        };
        let proto = spec.protocol.unwrap_or(RoutingProtocol::Static);
        if proto == RoutingProtocol::Static {
            agents.push(None);
            radio.push(None);
            continue;
        }
        let devs = &nodes[i].devices;
        let on_air: Vec<DevId> = devs
            .iter()
            .copied()
            .filter(|d| stations.iter().any(|s| s.0 == *d))
            .collect();
        // AODV may also serve hosts on wired links (a gateway); OLSR has no HNA here.
        let aodv = proto == RoutingProtocol::Aodv;
        if on_air.len() != 1 || (devs.len() > 1 && !aodv) {
            return err(
                format!("{path}.protocol"),
                format!(
                    "node '{}' has {} 802.11 station(s) and {} device(s); {}",
                    n.name,
                    on_air.len(),
                    devs.len(),
                    if aodv {
                        "AODV needs exactly one station"
                    } else {
                        "OLSR needs exactly one device, an 802.11 station"
                    },
                ),
            );
        }
        let station = on_air[0];
        let me = NodeId(i as u32);
        // Hosts it reaches over its other devices.
        let attached: Vec<NodeId> = (0..nodes.len() as u32)
            .map(NodeId)
            .filter(|&h| h != me && nodes[h.idx()].kind == NodeKind::Host)
            .filter(|&h| routes.next_hop(me, h).is_some_and(|r| r.0 != station))
            .collect();
        let rng = Rng::for_component(sc.seed, &format!("routing/{}", n.name));
        let agent: Box<dyn Protocol> = match proto {
            RoutingProtocol::Aodv => {
                let mut a = aodv::Aodv::new(me, aodv_config(&spec, &path)?, rng);
                a.attached = attached;
                Box::new(a)
            }
            RoutingProtocol::Olsr => Box::new(olsr::Olsr::new(me, olsr_config(&spec, &path)?, rng)),
            RoutingProtocol::Static => unreachable!("handled above"),
        };
        agents.push(Some(agent));
        radio.push(Some(station));
    }
    Ok(Some(Layer::new(agents, radio)))
}

impl RoutingSpec {
    /// Whether any key other than `protocol` is set.
    fn has_settings(&self) -> bool {
        let bare = RoutingSpec {
            protocol: self.protocol,
            ..Default::default()
        };
        *self != bare
    }
}

impl PartialEq for RoutingSpec {
    fn eq(&self, o: &RoutingSpec) -> bool {
        // Compared through their serialized form (Duration has no equality of its own).
        serde_json::to_value(self).ok() == serde_json::to_value(o).ok()
    }
}
