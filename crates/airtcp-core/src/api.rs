//! What the Python front asks the core for, so the two never disagree: unit parsing, the
//! scheme registry, the TCP profiles and the defaults of every TCP option.

use serde_json::{json, Value};

use crate::engine::secs;
use crate::scenario::units;
use crate::scenario::ScenarioError;
use crate::tcp::cc::{RecoveryKind, SCHEMES};
use crate::tcp::{Profile, TcpConfig};

fn unit_error(what: &str, text: &str, msg: String) -> ScenarioError {
    ScenarioError::new("", format!("not a {what}: '{text}' ({msg})"))
}

/// A duration as seconds, exactly as scenario files read it ("2ms", "1.5s", "10").
pub fn parse_duration(text: &str) -> Result<f64, ScenarioError> {
    units::parse_duration(text).map_err(|m| unit_error("duration", text, m))
}

/// A rate in bits/s ("10Mbps", "512kbps").
pub fn parse_rate(text: &str) -> Result<f64, ScenarioError> {
    units::parse_rate(text).map_err(|m| unit_error("rate", text, m))
}

/// A size in bytes ("64KiB", "1MB").
pub fn parse_size(text: &str) -> Result<f64, ScenarioError> {
    units::parse_size(text).map_err(|m| unit_error("size", text, m))
}

fn recovery_name(r: RecoveryKind) -> &'static str {
    match r {
        RecoveryKind::Reno => "reno",
        RecoveryKind::NewReno => "newreno",
        RecoveryKind::Sack => "sack",
    }
}

/// The scheme registry: name, description, default loss recovery, whether it turns on
/// timestamps, and its `cc_params` (name, default, `ns3` profile default, description): the
/// declarations `cc_params` are checked against.
pub fn schemes() -> Value {
    Value::Array(
        SCHEMES
            .iter()
            .map(|s| {
                let params: Vec<Value> = s
                    .params
                    .iter()
                    .map(|p| {
                        json!({
                            "name": p.name,
                            "default": p.default,
                            "ns3_default": p.ns3_default,
                            "description": p.description,
                        })
                    })
                    .collect();
                json!({
                    "name": s.name,
                    "description": s.description,
                    "recovery": recovery_name(s.recovery),
                    "timestamps": s.timestamps,
                    "params": params,
                })
            })
            .collect(),
    )
}

/// Every scenario key from the key table (`scenario::params_meta`, the table the validator's
/// range messages and the schema check use): `sections` in listing order with titles, and
/// `params`, one row per key with where it is, which variants take it, type, unit, default,
/// range and description.
pub fn params() -> Value {
    use crate::scenario::params_meta::{self as meta, Range};
    let rows: Vec<Value> = meta::PARAMS
        .iter()
        .map(|p| {
            let t = meta::table(p.table);
            let variants: Vec<&str> = p.variants.split(' ').filter(|v| !v.is_empty()).collect();
            let choices: Vec<&str> = match p.range {
                Range::OneOf(n) => n.to_vec(),
                _ => vec![],
            };
            json!({
                "path": p.path(),
                "table": p.table,
                "also": t.map_or(&[][..], |t| t.also),
                "tag": t.map_or("", |t| t.tag),
                "variants": variants,
                "key": p.key,
                "section": p.section(),
                "type": p.ty,
                "unit": p.unit,
                "default": p.default,
                "range": p.range.text(),
                "choices": choices,
                "description": p.description,
            })
        })
        .collect();
    let tables: Vec<Value> = meta::TABLES
        .iter()
        .map(|t| {
            json!({"path": t.path, "tag": t.tag, "section": t.section, "also": t.also,
                   "variants": t.variants})
        })
        .collect();
    let sections: Vec<Value> = meta::SECTIONS
        .iter()
        .map(|(n, t)| json!({"name": n, "title": t}))
        .collect();
    let presets: Vec<Value> = meta::preset_values()
        .into_iter()
        .map(|(name, values)| json!({"name": name, "values": values}))
        .collect();
    json!({"sections": sections, "tables": tables, "params": rows, "presets": presets})
}

/// Names of `TcpConfig::linux_cubic`'s values.
const CUBIC_ARITHMETIC: [&str; 3] = ["rfc9438", "linux", "ns3"];

fn tcp_json(c: &TcpConfig) -> Value {
    let mut v = json!({
        "segment_size": c.mss,
        "header_size": c.header,
        "initial_cwnd": c.initial_cwnd,
        "initial_ssthresh": c.initial_ssthresh,
        "rcv_window": c.rcv_window,
        "min_rto": secs(c.min_rto),
        "initial_rto": secs(c.initial_rto),
        "syn_timeout": secs(c.syn_timeout),
        "max_rto": secs(c.max_rto),
        "delayed_ack": c.delayed_ack,
        "delack_count": c.delack_count,
        "delack_timeout": secs(c.delack_timeout),
        "sack": c.sack,
        "timestamps": c.timestamps,
        "ecn": c.ecn,
        "dupack_threshold": c.dupack_threshold,
        "handshake": c.handshake,
        "limited_transmit": c.limited_transmit,
        "prr": c.prr,
        "rack": c.rack,
        "tlp": c.tlp,
        "frto": c.frto,
        "recover_guard": c.recover_guard.name(),
        "rto_formula": if c.rto_min_added { "linux" } else { "rfc6298" },
        "clock_granularity": secs(c.clock_granularity),
        "ts_tick": secs(c.ts_tick),
        "cut_basis": if c.cut_from_pipe { "pipe" } else { "flight" },
        "prr_variant": if c.prr_ns3 { "ns3" } else { "rfc6937" },
        "rescue_retransmit": c.rescue_retransmit,
        "fast_retransmit_restarts_rto": c.fast_retransmit_restarts_rto,
        "partial_ack_retransmit": c.partial_ack_retransmit,
        "timeout_keeps_ssthresh": c.timeout_keeps_ssthresh,
        "exit_ack_grows": c.exit_ack_grows,
        "ack_first_segment": c.ack_first_segment,
        "ts_echo_earliest": c.ts_echo_earliest,
        "pipe_keeps_retransmissions": c.pipe_keeps_retransmissions,
        "acked_count": if c.acked_delivered { "delivered" } else { "advance" },
        "window_growth": if c.linux_growth { "linux" } else { "rfc5681" },
        "recovery": match c.recovery {
            None => "scheme",
            Some(crate::tcp::cc::RecoveryKind::Reno) => "reno",
            Some(crate::tcp::cc::RecoveryKind::NewReno) => "newreno",
            Some(crate::tcp::cc::RecoveryKind::Sack) => "sack",
        },
        "cubic_arithmetic": CUBIC_ARITHMETIC[c.linux_cubic as usize],
        "ns3_schemes": c.ns3_schemes,
    });
    // Added after the literal, which is at json!'s recursion limit.
    let timer = [
        (
            "rto_on_new_ack",
            if c.rto_reset_on_new_ack {
                "estimate"
            } else {
                "keep_backoff"
            },
        ),
        ("rtt_sampling", if c.rtt_sample_ns3 { "ns3" } else { "rfc" }),
        ("pacing", if c.pacing_ns3 { "ns3" } else { "slots" }),
        (
            "timeout_resend",
            if c.timeout_resend_below_sack {
                "below_sack"
            } else {
                "all"
            },
        ),
        ("ack_options", c.sack_bytes.name()),
        (
            "disorder_acks",
            if c.disorder_hold { "hold" } else { "grow" },
        ),
        ("sack_list", if c.sack_list_ns3 { "ns3" } else { "ranges" }),
    ];
    let obj = v.as_object_mut().expect("an object literal");
    for (k, val) in timer {
        obj.insert(k.into(), val.into());
    }
    obj.insert("syn_options".into(), c.syn_options.into());
    obj.insert("handshake_ack".into(), c.handshake_ack.into());
    obj.insert("reno_sack".into(), c.reno_sack.into());
    v
}

/// Defaults of the TCP options (times in seconds, sizes in bytes): without a profile, and for
/// each profile.
pub fn defaults() -> Value {
    let mut profiles = serde_json::Map::new();
    for name in Profile::NAMES {
        let p = Profile::from_name(name).expect("listed");
        profiles.insert(name.to_string(), tcp_json(&p.config()));
    }
    json!({
        "tcp": tcp_json(&TcpConfig::default()),
        "profiles": profiles,
        "queue": serde_json::to_value(crate::scenario::schema::QueueSpec::default())
            .expect("serializes"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_parse_as_in_scenarios_and_errors_name_the_text() {
        assert_eq!(parse_duration("2ms").unwrap(), 0.002);
        assert_eq!(parse_rate("10Mbps").unwrap(), 1e7);
        assert_eq!(parse_size("64KiB").unwrap(), 65536.0);
        let e = parse_duration("10 parsecs").unwrap_err();
        assert!(e.message.contains("'10 parsecs'"), "{e}");
    }

    #[test]
    fn registry_and_defaults() {
        let s = schemes();
        assert!(s
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["name"] == "sack" && x["recovery"] == "sack"));
        let d = defaults();
        assert_eq!(d["tcp"]["initial_cwnd"], 2);
        assert_eq!(d["profiles"]["ns3"]["segment_size"], 536);
        assert_eq!(d["queue"]["kind"], "droptail");
        assert_eq!(d["queue"]["limit"], 100);
    }

    #[test]
    fn params_rows_carry_the_table() {
        let p = params();
        let rows = p["params"].as_array().unwrap();
        let max_p = rows
            .iter()
            .find(|r| r["path"] == "links[].queue.max_p")
            .unwrap();
        assert_eq!(max_p["range"], "(0, 1]");
        assert_eq!(max_p["section"], "queues");
        assert_eq!(max_p["variants"], json!(["red", "mecn", "wmecn"]));
        assert_eq!(max_p["also"], json!(["media[].queue"]));
        let budget = rows.iter().find(|r| r["path"] == "max_events").unwrap();
        assert_eq!(budget["section"], "budgets");
        assert_eq!(p["sections"][0]["name"], "globals");
        assert_eq!(p["presets"][0]["name"], "ns2");
        assert_eq!(p["presets"][0]["values"][0], json!(["rate", "2Mbps"]));
    }
}
