//! Property test of the scenario builder on hostile input: any field of a valid scenario
//! replaced by any JSON value (wrong types, extreme numbers, unit strings at and past their
//! ranges, nested tables) is either refused with an error naming a field or runs with packets
//! conserved; the core never panics.

use crate::common;
use airtcp_core::scenario;
use common::Path;
use proptest::prelude::*;
use serde_json::{json, Value};

/// Strings a field may meet: units at and past their ranges, names, paths not to be read.
const STRINGS: &[&str] = &[
    "",
    "0",
    "1ns",
    "0s",
    "1e8s",
    "1.0000001e8s",
    "1e300s",
    "-1s",
    "nan",
    "inf",
    "1bps",
    "0.3bps",
    "1e15bps",
    "1.9e19bps",
    "1e30Gbps",
    "1TiB",
    "1e300GiB",
    "10 parsecs",
    "R1",
    "R1->R2",
    "S",
    "D",
    "newreno",
    "cubic",
    "snr",
    "bulk",
    "/dev/zero",
    "../x.csv",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|v| json!(v)),
        any::<u64>().prop_map(|v| json!(v)),
        prop::sample::select(vec![
            0.0,
            -0.0,
            1e-300,
            5e-324,
            0.5,
            1e8,
            1.8e10,
            1e15,
            1.9e19,
            1e300,
            -1e300,
            f64::MAX
        ])
        .prop_map(|v| json!(v)),
        any::<f64>()
            .prop_filter("JSON numbers are finite", |v| v.is_finite())
            .prop_map(|v| json!(v)),
        prop::sample::select(STRINGS).prop_map(|s| json!(s)),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    // Mostly single values, so that many cases get past parsing and run.
    prop_oneof![4 => leaf(), 1 => nested()]
}

fn nested() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(vec![
                    "kind", "model", "rate", "limit", "per", "size", "node", "x"
                ]),
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.into(), v)).collect())),
        ]
    })
}

/// Every path into `v` (as keys and indices), except the root.
fn paths(v: &Value, here: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    if !here.is_empty() {
        out.push(here.clone());
    }
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                here.push(json!(k));
                paths(x, here, out);
                here.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                here.push(json!(i));
                paths(x, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

fn get<'a>(v: &'a Value, path: &[Value]) -> &'a Value {
    path.iter().fold(v, |cur, step| match step {
        Value::String(k) => &cur[k.as_str()],
        Value::Number(i) => &cur[i.as_u64().unwrap() as usize],
        _ => unreachable!(),
    })
}

fn same_json_kind(a: &Value, b: &Value) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

fn replace(v: &mut Value, path: &[Value], new: Value) {
    let mut cur = v;
    for step in path {
        cur = match step {
            Value::String(k) => cur.get_mut(k.as_str()).expect("path exists"),
            Value::Number(i) => cur
                .get_mut(i.as_u64().unwrap() as usize)
                .expect("path exists"),
            _ => unreachable!(),
        };
    }
    *cur = new;
}

fn base() -> Value {
    let text = Path {
        duration: 1.0,
        per: 0.01,
        flows: 2,
        ..Default::default()
    }
    .toml()
        + "[trace]\ncwnd = true\nqueue = [\"R1->R2\"]\n[[agents]]\nkind = \"snoop\"\nnode = \"R2\"\n";
    let mut v: Value = toml::from_str(&text).unwrap();
    v["max_events"] = json!(200_000);
    v
}

#[test]
fn the_base_scenario_runs() {
    let sc = scenario::parse_json(&base().to_string()).unwrap();
    let r = airtcp_core::run(&sc).unwrap();
    assert!(r.packets.delivered > 100);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn any_field_replaced_by_any_value_is_refused_by_name_or_runs_conserving(
        picks in prop::collection::vec(
            (any::<prop::sample::Index>(), value(), any::<bool>()), 1..4),
    ) {
        let mut v = base();
        for (at, new, same_kind) in picks {
            let mut all = Vec::new();
            paths(&v, &mut Vec::new(), &mut all);
            let path = all[at.index(all.len())].clone();
            // Half the replacements keep the kind of value (a number for a number, a string
            // for a string), so that many cases get past parsing and run at extremes.
            if same_kind && !same_json_kind(get(&v, &path), &new) {
                continue;
            }
            replace(&mut v, &path, new);
        }
        // A budget a mutation made large is brought back, so no case runs long.
        let budget = v.get("max_events");
        if budget.is_none() || budget.and_then(Value::as_u64).is_some_and(|m| m > 200_000) {
            v["max_events"] = json!(200_000);
        }
        let text = v.to_string();
        let outcome = std::panic::catch_unwind(|| {
            scenario::parse_json(&text).and_then(|sc| airtcp_core::run(&sc))
        });
        let outcome = outcome.map_err(|_| format!("panic on {text}"))
            .expect("the core does not panic");
        match outcome {
            Err(e) => prop_assert!(!e.path.is_empty(), "unnamed error {e} on {text}"),
            Ok(r) => {
                let k = &r.packets;
                prop_assert_eq!(k.sent, k.delivered + k.dropped + k.in_flight);
                prop_assert_eq!(k.in_flight, k.live_in_arena);
                prop_assert_eq!(r.drops.values().sum::<u64>(), k.dropped);
            }
        }
    }
}
