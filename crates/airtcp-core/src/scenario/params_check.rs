//! The key table (`params_meta`) against the schema: every key serde accepts has exactly one
//! row and every row names a key serde accepts (found by walking the schema through its own
//! "unknown field" errors), defaults agree with what parsing and the TCP defaults give, choices
//! with what the parser or builder accepts, and declared ranges are what the validator enforces.

use super::params_meta::{self as meta, Param, Range, PARAMS, TABLES};
use super::{build, from_value};
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;

const PROBE: &str = "zz_probe";
const WHERE: &str = "crates/airtcp-core/src/scenario/params_meta.rs";

/// One step from a table into a key of it; `tag` is the variant of the table it leads to.
#[derive(Clone, Debug)]
struct Step {
    key: String,
    array: bool,
    tag: Option<(String, String)>,
}

fn display(steps: &[Step]) -> String {
    steps
        .iter()
        .map(|s| format!("{}{}", s.key, if s.array { "[]" } else { "" }))
        .collect::<Vec<_>>()
        .join(".")
}

fn concrete(steps: &[Step]) -> String {
    steps
        .iter()
        .map(|s| format!("{}{}", s.key, if s.array { "[0]" } else { "" }))
        .collect::<Vec<_>>()
        .join(".")
}

fn under(base: &str, key: &str) -> String {
    if base.is_empty() {
        key.to_string()
    } else {
        format!("{base}.{key}")
    }
}

/// A document holding `leaf` (with the tag of the last step) at the location; every table on
/// the way holds only the next key and its own tag. Serde reports the leaf's error before the
/// keys missing around it.
fn doc_at(steps: &[Step], leaf: Map<String, Value>) -> Value {
    let mut leaf = leaf;
    if let Some((t, v)) = steps.last().and_then(|s| s.tag.clone()) {
        leaf.insert(t, json!(v));
    }
    let mut v = Value::Object(leaf);
    for i in (0..steps.len()).rev() {
        let s = &steps[i];
        let mut m = Map::new();
        m.insert(s.key.clone(), if s.array { json!([v]) } else { v });
        if i > 0 {
            if let Some((t, tv)) = &steps[i - 1].tag {
                m.insert(t.clone(), json!(tv));
            }
        }
        v = Value::Object(m);
    }
    v
}

fn parse_err(doc: Value) -> Option<super::ScenarioError> {
    from_value(doc).err()
}

/// The names a serde message lists after the one it is about: "unknown field `x`, expected
/// one of `a`, `b`" gives a, b.
fn listed(msg: &str) -> Vec<String> {
    msg.split('`')
        .skip(1)
        .step_by(2)
        .skip(1)
        .map(str::to_string)
        .collect()
}

fn obj(pairs: &[(&str, Value)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

/// The keys the table at `steps` takes (with the tag set to a variant if given).
fn keys_of(steps: &[Step]) -> Option<Vec<String>> {
    let e = parse_err(doc_at(steps, obj(&[(PROBE, json!(1))])))?;
    e.message
        .contains(&format!("unknown field `{PROBE}`"))
        .then(|| listed(&e.message))
}

/// A key found in the schema: the table (as written in `TABLES`), the variant ("" if the table
/// has none) and the key.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Found {
    table: String,
    tag: String,
    variant: String,
    key: String,
}

/// Every key the schema accepts, table by table, variant by variant.
fn walk(steps: Vec<Step>, out: &mut Vec<Found>, tag_hint: Option<String>) {
    assert!(
        steps.len() < 8,
        "schema walk too deep at {}",
        display(&steps)
    );
    let here = concrete(&steps);
    // A `kind`/`model` key (or the key a tagged table said it misses) whose variants are
    // tables of their own keys.
    let mut variants: Option<(String, Vec<String>)> = None;
    let candidates = ["kind".to_string(), "model".to_string()];
    for tag in tag_hint.iter().chain(candidates.iter()) {
        let tag = tag.as_str();
        let Some(e) = parse_err(doc_at(&steps, obj(&[(tag, json!(PROBE))]))) else {
            continue;
        };
        if e.path == under(&here, tag) && e.message.contains(&format!("unknown variant `{PROBE}`"))
        {
            variants = Some((tag.to_string(), listed(&e.message)));
            break;
        }
    }
    let mut tables: Vec<(String, String, Vec<String>)> = Vec::new();
    if let Some((tag, names)) = variants {
        for v in names {
            let mut s = steps.clone();
            s.last_mut().expect("the top level has no variants").tag =
                Some((tag.clone(), v.clone()));
            let keys = keys_of(&s).unwrap_or_else(|| panic!("{here}: {tag} = {v} is not a table"));
            if keys.contains(&tag) {
                // A plain key naming a choice: one table for every value.
                tables.clear();
                break;
            }
            tables.push((tag.clone(), v, keys));
        }
    }
    if tables.is_empty() {
        let keys = keys_of(&steps).unwrap_or_else(|| panic!("{here}: not a table"));
        tables.push((String::new(), String::new(), keys));
    }
    for (tag, variant, keys) in tables {
        let mut s = steps.clone();
        if let Some(last) = s.last_mut() {
            last.tag = (!tag.is_empty()).then(|| (tag.clone(), variant.clone()));
        }
        for key in keys {
            out.push(Found {
                table: canonical(&display(&steps)),
                tag: tag.clone(),
                variant: variant.clone(),
                key: key.clone(),
            });
            for array in [false, true] {
                let inner = json!({ PROBE: 1 });
                let value = if array { json!([inner]) } else { inner };
                let Some(e) = parse_err(doc_at(&s, obj(&[(&key, value)]))) else {
                    continue;
                };
                let at = format!("{}{}", under(&here, &key), if array { "[0]" } else { "" });
                let unknown = e.message.contains(&format!("unknown field `{PROBE}`"))
                    && e.path.starts_with(&at);
                // A tagged table misses its tag first, whatever the tag is called.
                let tag = (e.message == "missing required field")
                    .then(|| e.path.strip_prefix(&format!("{at}.")))
                    .flatten()
                    .filter(|t| !t.contains(['.', '[']))
                    .map(str::to_string);
                if unknown || tag.is_some() {
                    let mut next = s.clone();
                    next.push(Step {
                        key: key.clone(),
                        array,
                        tag: None,
                    });
                    walk(next, out, tag);
                    break;
                }
            }
        }
    }
}

/// The path of a table as `TABLES` writes it (`media[].queue` is `links[].queue`).
fn canonical(path: &str) -> String {
    for t in TABLES {
        for a in t.also {
            if path == *a {
                return t.path.to_string();
            }
            if let Some(rest) = path.strip_prefix(&format!("{a}.")) {
                return format!("{}.{rest}", t.path);
            }
        }
    }
    path.to_string()
}

fn schema_keys() -> Vec<Found> {
    let mut out = Vec::new();
    walk(Vec::new(), &mut out, None);
    out.sort();
    out.dedup();
    out
}

fn hint(f: &Found) -> String {
    let v = if f.variant.is_empty() {
        String::new()
    } else {
        format!(" ({} = \"{}\")", f.tag, f.variant)
    };
    format!(
        "scenario key `{}`{v} has no metadata: add one line to PARAMS in {WHERE}, in the block of \
         table \"{}\", e.g. p(\"{}\", \"{}\", \"{}\", \"float\", \"unit\", \"default\", ANY, \
         \"what it does\")",
        under(&f.table, &f.key),
        f.table,
        f.table,
        f.variant,
        f.key
    )
}

#[test]
fn every_schema_key_has_exactly_one_row_and_every_row_a_key() {
    let found = schema_keys();
    // The walk reaches the nested and tagged tables, not only the top level.
    for (t, v, k) in [
        ("links[].queue", "red", "max_p"),
        ("links[].error.synth", "", "waypoints"),
        ("agents[]", "drai", "window"),
        ("media[].fading", "", "k_db"),
        ("tcp", "", "recover_guard"),
        ("flows[].app", "onoff", "off_mean"),
    ] {
        assert!(
            found
                .iter()
                .any(|f| f.table == t && f.variant == v && f.key == k),
            "the schema walk missed {t}.{k} ({v})"
        );
    }
    let mut problems = Vec::new();
    for f in &found {
        match meta::table(&f.table) {
            None => problems.push(format!(
                "table `{}` has no entry in TABLES in {WHERE}: add tbl(\"{}\", \"{}\", \
                 \"<section>\", &[]){}",
                f.table,
                f.table,
                f.tag,
                if f.tag.is_empty() {
                    ""
                } else {
                    ".of(<the enum>::VARIANTS)"
                }
            )),
            Some(t) if t.tag != f.tag => problems.push(format!(
                "TABLES says table `{}` is tagged by `{}`, the schema by `{}`",
                f.table, t.tag, f.tag
            )),
            Some(t) if !f.tag.is_empty() && !t.variants.contains(&f.variant.as_str()) => problems
                .push(format!(
                    "TABLES entry `{}` does not list variant `{}`",
                    f.table, f.variant
                )),
            Some(_) => {}
        }
        let rows: Vec<&Param> = PARAMS
            .iter()
            .filter(|p| p.table == f.table && p.key == f.key)
            .filter(|p| f.tag.is_empty() || p.takes(&f.variant))
            .collect();
        match rows.len() {
            0 => problems.push(hint(f)),
            1 => {}
            n => problems.push(format!(
                "scenario key `{}` ({}) has {n} rows in PARAMS ({WHERE}); keep one",
                under(&f.table, &f.key),
                f.variant
            )),
        }
    }
    for p in PARAMS {
        let here: Vec<&Found> = found
            .iter()
            .filter(|f| f.table == p.table && f.key == p.key)
            .collect();
        if here.is_empty() {
            problems.push(format!(
                "PARAMS row `{}` ({WHERE}) names a key the schema does not accept",
                p.path()
            ));
            continue;
        }
        let tagged = !here[0].tag.is_empty();
        for v in p.variants.split(' ').filter(|v| !v.is_empty()) {
            let known = if tagged {
                here.iter().any(|f| f.variant == v)
            } else {
                // An untagged table's variants are the values of its `kind` key.
                meta::find(p.table, "", "kind")
                    .is_some_and(|k| matches!(k.range, Range::OneOf(n) if n.contains(&v)))
            };
            if !known {
                problems.push(format!(
                    "PARAMS row `{}` lists variant `{v}`, which does not take the key",
                    p.path()
                ));
            }
        }
        if tagged && p.variants.is_empty() {
            problems.push(format!(
                "PARAMS row `{}` is in a tagged table: list the variants that take it",
                p.path()
            ));
        }
    }
    for t in TABLES {
        if !found.iter().any(|f| f.table == t.path) {
            problems.push(format!(
                "TABLES entry `{}` is not a table of the schema",
                t.path
            ));
        }
        if let Some(Range::OneOf(kinds)) = meta::find(t.path, "", "kind").map(|k| k.range) {
            if t.tag.is_empty() && !t.variants.is_empty() && t.variants != kinds {
                problems.push(format!(
                    "TABLES entry `{}`: variants are not its kinds",
                    t.path
                ));
            }
        }
        if meta::SECTIONS.iter().all(|(s, _)| *s != t.section) {
            problems.push(format!(
                "TABLES entry `{}`: unknown section {}",
                t.path, t.section
            ));
        }
    }
    let mut seen = BTreeSet::new();
    problems.retain(|p| seen.insert(p.clone()));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// documents built from the rows

/// A value of the row's type that parses (names resolve to the fixture's "a").
fn sample(p: &Param) -> Value {
    match (p.ty, p.range) {
        (_, Range::OneOf(names)) => json!(names[0]),
        ("duration", _) | ("float", _) => json!(0.5),
        ("rate", _) => json!(1e6),
        ("size", _) => json!(1000),
        ("int", _) => json!(1),
        ("bool", _) => json!(false),
        ("string", _) => json!("a"),
        ("list", _) => json!([]),
        ("[x, y]", _) | ("[min, max]", _) => json!([0.0, 0.0]),
        ("table", _) if p.path() == "flows[].app" => json!({"kind": "bulk"}),
        _ => panic!("no sample for required {} ({})", p.path(), p.ty),
    }
}

/// A table of `path` for `variant` holding its required keys.
fn fill(path: &str, variant: &str) -> Map<String, Value> {
    let t = meta::table(path).expect("a table of TABLES");
    let mut m = Map::new();
    if !t.tag.is_empty() {
        m.insert(t.tag.to_string(), json!(variant));
    }
    for p in PARAMS
        .iter()
        .filter(|p| p.table == path && p.default == "required")
    {
        if t.tag.is_empty() || p.takes(variant) {
            m.insert(p.key.to_string(), sample(p));
        }
    }
    if t.tag.is_empty() && !variant.is_empty() {
        // A table whose `kind` key selects the keys it takes (media).
        m.insert("kind".into(), json!(variant));
    }
    m
}

/// The tables from the top to `table`: (path, key leading to it, array).
fn chain(table: &str) -> Vec<(String, String, bool)> {
    let mut out = Vec::new();
    let mut path = String::new();
    for part in table.split('.').filter(|s| !s.is_empty()) {
        let (key, array) = match part.strip_suffix("[]") {
            Some(k) => (k, true),
            None => (part, false),
        };
        path = under(&path, part);
        out.push((path.clone(), key.to_string(), array));
    }
    out
}

/// `base` with `leaf` as the table at `table` (its ancestors filled or kept from `base`); the
/// variant of each ancestor is the first one that holds the next key.
fn put(base: &mut Value, table: &str, leaf: Map<String, Value>) -> String {
    let steps = chain(table);
    if steps.is_empty() {
        let m = base.as_object_mut().expect("a table");
        m.extend(leaf);
        return String::new();
    }
    let mut cur = base;
    let mut path = String::new();
    for (i, (tpath, key, array)) in steps.iter().enumerate() {
        let last = i + 1 == steps.len();
        let next = if last {
            leaf.clone()
        } else {
            fill(tpath, first_variant(tpath, &steps[i + 1].1))
        };
        let m = cur.as_object_mut().expect("a table");
        let slot =
            m.entry(key.clone())
                .or_insert_with(|| if *array { json!([{}]) } else { json!({}) });
        let slot = if *array { &mut slot[0] } else { slot };
        let sm = slot.as_object_mut().expect("a table");
        for (k, v) in next {
            if last || !sm.contains_key(&k) {
                sm.insert(k, v);
            }
        }
        cur = slot;
        path = format!("{}{}", under(&path, key), if *array { "[0]" } else { "" });
    }
    path
}

fn first_variant<'a>(table: &str, key: &str) -> &'a str {
    PARAMS
        .iter()
        .find(|p| p.table == table && p.key == key)
        .map_or("", |p| p.variants.split(' ').next().unwrap_or(""))
}

fn pick<'a>(v: &'a Value, path: &str) -> &'a Value {
    let mut cur = v;
    for part in path.split('.').filter(|s| !s.is_empty()) {
        match part.strip_suffix("[0]") {
            Some(k) => cur = &cur[k][0],
            None => cur = &cur[part],
        }
    }
    cur
}

/// The row's default as the value serialization gives (None: not a value).
fn literal(p: &Param) -> Option<Value> {
    use super::units::{parse_duration, parse_rate, parse_size};
    let d = p.default;
    match p.ty {
        "duration" => parse_duration(d).ok().map(|v| json!(v)),
        "rate" => parse_rate(d).ok().map(|v| json!(v)),
        "size" => parse_size(d).ok().map(|v| json!(v)),
        "int" | "float" => d.parse::<f64>().ok().map(|v| json!(v)),
        "bool" => d.parse::<bool>().ok().map(|v| json!(v)),
        "list" if d == "[]" => Some(json!([])),
        "string" | "choice" => Some(json!(d)),
        _ => None,
    }
}

fn same(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => (x - y).abs() <= 1e-12 * x.abs().max(1.0),
        _ => a == b,
    }
}

#[test]
fn defaults_agree_with_parsing_and_the_tcp_defaults() {
    let tcp = crate::api::defaults()["tcp"].clone();
    let mut problems = Vec::new();
    let mut checked = 0;
    for p in PARAMS {
        let variant = p.variants.split(' ').next().unwrap_or("");
        let mut doc = Value::Object(if p.table.is_empty() {
            Map::new()
        } else {
            fill("", "")
        });
        let mut leaf = fill(p.table, variant);
        let required = leaf.remove(p.key).is_some();
        let at = put(&mut doc, p.table, leaf);
        let key_path = under(&at, p.key);
        let parsed = from_value(doc);
        if required {
            match parsed {
                Err(e) if e.path == key_path && e.message == "missing required field" => {}
                other => problems.push(format!(
                    "{}: declared required, but without it: {other:?}",
                    p.path()
                )),
            }
            continue;
        }
        let sc = match parsed {
            Ok(sc) => serde_json::to_value(&sc).expect("serializes"),
            Err(e) => {
                problems.push(format!(
                    "{}: not declared required, but without it: {e}",
                    p.path()
                ));
                continue;
            }
        };
        let got = pick(&sc, &key_path);
        let got = if got.is_null() && p.table == "tcp" {
            &tcp[p.key]
        } else {
            got
        };
        if got.is_null() || matches!(p.ty, "table" | "map") {
            continue;
        }
        checked += 1;
        match literal(p) {
            Some(want) if same(&want, got) => {}
            _ => problems.push(format!(
                "{}: PARAMS says default `{}`, the schema gives {got}",
                p.path(),
                p.default
            )),
        }
    }
    assert!(checked > 40, "only {checked} defaults were checked");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A scenario that builds: nodes, link and flow all named "a" where a name is needed.
fn buildable() -> Value {
    json!({
        "duration": 1,
        "nodes": [{"name": "a", "position": [0, 0]}, {"name": "b", "position": [50, 0]}],
        "links": [{"name": "a", "a": "a", "b": "b", "rate": 1e6, "delay": 0.001}],
        "flows": [{"name": "a", "src": "a", "dst": "b", "app": {"kind": "bulk"}}],
    })
}

/// Keys a row's table needs beside the required ones for its variant to build.
fn extras(p: &Param, variant: &str, doc: &mut Value) -> Vec<(&'static str, Value)> {
    let snr = json!({"model": "snr", "modulation": "dsss1", "samples": [20.0]});
    match (p.table, variant) {
        ("links[].error", "snr") => vec![("samples", json!([20.0]))],
        ("agents[]", "snr_gate") => {
            doc["links"][0]["error"] = snr;
            vec![]
        }
        ("media[]", _) if p.key == "path_loss_exponent" => {
            vec![("propagation", json!("log_distance"))]
        }
        // Keys of the sinr reception (which needs noise).
        ("media[]", _)
            if [
                "rx_sensitivity_dbm",
                "noise_figure_db",
                "preamble_snr_db",
                "cca_ed_threshold_dbm",
            ]
            .contains(&p.key) =>
        {
            vec![
                ("reception", json!("sinr")),
                ("noise_figure_db", json!(7.0)),
            ]
        }
        ("media[].rate_control", _) if p.key == "ber" => {
            // The ideal manager under the sinr reception (the ns3 preset's).
            doc["media"] = json!([{"name": "a", "kind": "wifi", "preset": "ns3"}]);
            vec![("manager", json!("ideal"))]
        }
        ("media[].fading", _) if p.key == "k_db" => vec![("model", json!("rician"))],
        ("media[].fading", _) if p.key == "m" => vec![("model", json!("nakagami"))],
        _ => vec![],
    }
}

/// Values just outside a numeric range.
fn outside(r: Range) -> Vec<f64> {
    let below = |v: f64, inc: bool| if inc { v - 1.0 } else { v };
    let above = |v: f64, inc: bool| if inc { v + 1.0 } else { v };
    match r {
        Range::Min(lo, i) => vec![below(lo, i)],
        Range::Max(hi, i) => vec![above(hi, i)],
        Range::Within(lo, li, hi, hi_i) => vec![below(lo, li), above(hi, hi_i)],
        Range::Any | Range::OneOf(_) => vec![],
    }
}

/// `doc` parsed and built: the error, if any.
fn build_err(doc: Value) -> Option<super::ScenarioError> {
    match from_value(doc) {
        Err(e) => Some(e),
        Ok(sc) => build(&sc).err(),
    }
}

#[test]
fn declared_ranges_and_choices_are_what_the_validator_enforces() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for p in PARAMS {
        for variant in p.variants.split(' ') {
            let mut bad: Vec<Value> = outside(p.range)
                .into_iter()
                .map(|v| {
                    if p.ty == "int" {
                        json!(v as i64)
                    } else {
                        json!(v)
                    }
                })
                .collect();
            let choice = matches!(p.range, Range::OneOf(_));
            if choice {
                bad.push(json!(PROBE));
            }
            for v in bad {
                let mut doc = buildable();
                let mut leaf = fill(p.table, variant);
                for (k, x) in extras(p, variant, &mut doc) {
                    leaf.insert(k.to_string(), x);
                }
                leaf.insert(p.key.to_string(), v.clone());
                let at = put(&mut doc, p.table, leaf);
                let key_path = under(&at, p.key);
                checked += 1;
                let Some(e) = build_err(doc) else {
                    problems.push(format!("{key_path} = {v} ({variant}): accepted"));
                    continue;
                };
                let ok = if let Range::OneOf(names) = p.range {
                    let named: BTreeSet<String> = match e.message.split_once("(known: ") {
                        Some((_, rest)) => rest
                            .trim_end_matches(')')
                            .split(", ")
                            .map(str::to_string)
                            .collect(),
                        None => listed(&e.message).into_iter().collect(),
                    };
                    let want: BTreeSet<String> = names.iter().map(|s| s.to_string()).collect();
                    e.path.ends_with(p.key) && named == want
                } else {
                    e.path.ends_with(p.key) && e.message.contains(&p.range.text())
                };
                if !ok {
                    problems.push(format!(
                        "{key_path} = {v} ({variant}): expected an error naming {}, got `{e}`",
                        p.range.text()
                    ));
                }
            }
        }
    }
    assert!(checked > 40, "only {checked} values were checked");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn range_text_and_check_message() {
    assert_eq!(Range::Within(0.0, false, 1.0, true).text(), "(0, 1]");
    assert_eq!(Range::Min(1.0, true).text(), ">= 1");
    assert_eq!(Range::Max(1000.0, true).text(), "<= 1000");
    assert_eq!(Range::OneOf(&["a", "b"]).text(), "a | b");
    assert_eq!(
        meta::check("links[].queue", "red", "max_p", 2.0).unwrap_err(),
        "must be in (0, 1], got 2"
    );
    assert_eq!(
        meta::check("tcp", "", "segment_size", 0.0).unwrap_err(),
        "must be in [1, 65000] bytes, got 0"
    );
    assert_eq!(meta::check("tcp", "", "segment_size", 1.0), Ok(1.0));
    assert!(meta::medium_takes("tdma", "guard") && !meta::medium_takes("tdma", "cw_min"));
}

#[test]
fn the_keys_a_preset_sets_are_the_rows_whose_default_is_the_preset() {
    let rows: BTreeSet<&str> = PARAMS
        .iter()
        .filter(|p| p.table == "media[]" && p.default == "preset")
        .map(|p| p.key)
        .collect();
    let presets = super::wifi::preset_values();
    let names: Vec<&str> = presets.iter().map(|(n, _)| n.as_str()).collect();
    let Some(Range::OneOf(choices)) = meta::find("media[]", "wifi", "preset").map(|p| p.range)
    else {
        panic!("media[].preset is a choice")
    };
    assert_eq!(names, choices.to_vec());
    for (name, values) in &presets {
        let keys: BTreeSet<&str> = values.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, rows, "preset {name}");
    }
}
