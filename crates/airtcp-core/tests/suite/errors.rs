//! Bad scenarios produce errors that name the field path and the offending value.

use crate::common;
use airtcp_core::{run_toml, ScenarioError};
use common::Path;

fn error_of(text: &str) -> ScenarioError {
    match run_toml(text) {
        Ok(_) => panic!("scenario was accepted:\n{text}"),
        Err(e) => e,
    }
}

fn base() -> String {
    Path {
        duration: 1.0,
        ..Default::default()
    }
    .toml()
}

#[test]
fn unknown_field() {
    let t = base().replace("kind = \"wireless\"", "kind = \"wireless\"\nbogus = 1");
    let e = error_of(&t);
    assert_eq!(e.path, "links[2].bogus");
    assert!(e.message.contains("unknown field `bogus`"), "{e}");
}

#[test]
fn negative_rate() {
    let t = base().replacen("rate = \"10Mbps\"", "rate = -5", 1);
    let e = error_of(&t);
    assert_eq!(e.path, "links[0].rate");
    assert!(e.message.contains("rate must be > 0, got -5"), "{e}");
}

#[test]
fn bad_unit() {
    let t = base().replacen("delay = \"30ms\"", "delay = \"30 parsecs\"", 1);
    let e = error_of(&t);
    assert_eq!(e.path, "links[1].delay");
    assert!(e.message.contains("'30 parsecs'"), "{e}");
}

#[test]
fn unknown_node() {
    let t = base().replace("dst = \"D\"", "dst = \"D9\"");
    let e = error_of(&t);
    assert_eq!(e.path, "flows[0].dst");
    assert!(e.message.contains("unknown node 'D9'"), "{e}");
    assert!(e.message.contains("did you mean 'D'"), "{e}");
}

#[test]
fn unreachable_destination() {
    let t = base()
        .replace(
            "[[links]]\na = \"R2\"",
            "[[nodes]]\nname = \"X\"\n[[links]]\na = \"R2\"",
        )
        .replace("dst = \"D\"", "dst = \"X\"");
    let e = error_of(&t);
    assert_eq!(e.path, "flows[0].dst");
    assert_eq!(e.message, "'X' is not reachable from 'S'");
}

#[test]
fn unknown_scheme_suggests() {
    let t = base().replace("cc = \"newreno\"", "cc = \"nwereno\"");
    let e = error_of(&t);
    assert_eq!(
        e.to_string(),
        "flows[0].cc: unknown scheme 'nwereno' (did you mean 'newreno'?)"
    );
}

#[test]
fn per_out_of_range() {
    let t = Path {
        per: 1.5,
        duration: 1.0,
        ..Default::default()
    }
    .toml();
    let e = error_of(&t);
    assert_eq!(e.path, "links[2].error.per");
    assert!(e.message.contains("1.5"), "{e}");
}

#[test]
fn missing_required_field() {
    let t = base().replacen("duration = 1\n", "", 1);
    let e = error_of(&t);
    assert_eq!(e.to_string(), "duration: missing required field");
}

#[test]
fn tcp_option_checked_with_path() {
    let t = base().replace("[tcp]\n", "[tcp]\nsegment_size = 0\n");
    let e = error_of(&t);
    assert_eq!(e.path, "tcp.segment_size");
}

#[test]
fn router_cannot_be_an_endpoint() {
    let t = base().replace("src = \"S\"", "src = \"R1\"");
    let e = error_of(&t);
    assert_eq!(e.path, "flows[0].src");
    assert!(e.message.contains("is a router"), "{e}");
}

#[test]
fn unknown_trace_queue() {
    let t = base() + "[trace]\nqueue = [\"R1->R3\"]\n";
    let e = error_of(&t);
    assert_eq!(e.path, "trace.queue[0]");
    assert!(e.message.contains("did you mean 'R1->R2'"), "{e}");
}

#[test]
fn unknown_app_key() {
    let t = base().replace(
        "app = { kind = \"bulk\" }",
        "app = { kind = \"bulk\", bogus = 1 }",
    );
    let e = error_of(&t);
    assert!(e.path.starts_with("flows[0].app"), "{e}");
    assert!(e.message.contains("unknown field `bogus`"), "{e}");
}

#[test]
fn unknown_scheme_parameter() {
    let t = base().replace(
        "cc = \"newreno\"",
        "cc = \"veno\"\ncc_params = { betta = 2 }",
    );
    let e = error_of(&t);
    assert_eq!(
        e.to_string(),
        "flows[0].cc_params.betta: 'veno' has no parameter 'betta' (did you mean 'beta'?)"
    );
    let t = base().replace(
        "cc = \"newreno\"",
        "cc = \"newreno\"\ncc_params = { x = 1 }",
    );
    assert_eq!(error_of(&t).message, "'newreno' takes no parameters");
}

#[test]
fn unknown_keys_inside_tagged_tables_are_named_in_the_path() {
    let t = base().replacen(
        "queue = { limit = 1000 }",
        "queue = { kind = \"droptail\", limit = 5, max_p = 0.1 }",
        1,
    );
    let e = error_of(&t);
    assert_eq!(e.path, "links[0].queue.max_p");
    assert!(
        e.message.contains("a droptail queue does not take it"),
        "{e}"
    );
    // A queue table without a kind is DropTail.
    let t = base().replacen(
        "queue = { limit = 1000 }",
        "queue = { limit = 5, weight = 0.1 }",
        1,
    );
    assert_eq!(error_of(&t).path, "links[0].queue.weight");
}

#[test]
fn bad_values_inside_tagged_tables_name_the_field() {
    let err_table = "error = { model = \"bernoulli\", per = 0, applies_to = \"data\" }";
    let cases = [
        (
            err_table,
            "error = { model = \"gilbert_elliott\", mean_good = \"abc\", mean_bad = 1 }",
            "links[2].error.mean_good",
            "invalid duration 'abc'",
        ),
        (
            err_table,
            "error = { model = \"snr\", modulation = \"cck11\", synth = { waypoints = [[0, 1], [1, \"x\"]] } }",
            "links[2].error.synth.waypoints[1][1]",
            "invalid type",
        ),
        (
            err_table,
            "error = { model = \"snr\", modulation = \"cck11\", synth = {} }",
            "links[2].error.synth.waypoints",
            "missing required field",
        ),
        (
            err_table,
            "error = { model = \"fading\" }",
            "links[2].error.model",
            "unknown variant `fading`",
        ),
        (
            err_table,
            "error = { per = 0.1 }",
            "links[2].error.model",
            "missing required field",
        ),
        (
            "app = { kind = \"bulk\" }",
            "app = { kind = \"cbr\", rate = \"fast\" }",
            "flows[0].app.rate",
            "invalid rate 'fast'",
        ),
        (
            "queue = { limit = 1000 }",
            "queue = { kind = \"red\", max_p = \"high\" }",
            "links[0].queue.max_p",
            "invalid type",
        ),
    ];
    for (from, to, path, what) in cases {
        let t = base().replacen(from, to, 1);
        assert_ne!(t, base(), "{from}");
        let e = error_of(&t);
        assert_eq!(e.path, path, "{e}");
        assert!(e.message.contains(what), "{e}");
    }
    let t = base() + "[[agents]]\nkind = \"snoop\"\nnode = \"R2\"\nmin_rto = \"soon\"\n";
    let e = error_of(&t);
    assert_eq!(e.path, "agents[0].min_rto", "{e}");
}

#[test]
fn values_outside_their_documented_range_are_refused_with_the_field() {
    let cases = [
        (
            "delay = \"30ms\"",
            "delay = 1e11",
            "links[1].delay",
            "at most",
        ),
        (
            "rate = \"10Mbps\"",
            "rate = \"0.3bps\"",
            "links[0].rate",
            "at least",
        ),
        (
            "rate = \"10Mbps\"",
            "rate = 1e30",
            "links[0].rate",
            "at most",
        ),
        (
            "queue = { limit = 1000 }",
            "queue = { limit = 9223372036854775807 }",
            "links[0].queue.limit",
            "at most",
        ),
    ];
    for (from, to, path, what) in cases {
        let t = base().replacen(from, to, 1);
        assert!(t.contains(to), "{from} not in the base scenario");
        let e = error_of(&t);
        assert_eq!(e.path, path, "{to}: {e}");
        assert!(e.message.contains(what), "{to}: {e}");
    }
    let t = base().replacen("duration = ", "duration = 1e300 #", 1);
    assert_eq!(error_of(&t).path, "duration");
    let t = base().replacen("[tcp]\n", "[tcp]\ninitial_cwnd = 4294967295\n", 1);
    let e = error_of(&t);
    assert_eq!(e.path, "tcp.initial_cwnd", "{e}");
}

#[test]
fn a_run_over_its_event_budget_stops_with_an_error() {
    // Long enough to pass the budget many times over (it is checked every 4096 events).
    let t = format!(
        "max_events = 1000\n{}",
        base().replacen("duration = ", "duration = 20 #", 1)
    );
    let e = error_of(&t);
    assert_eq!(e.path, "max_events");
    assert!(e.message.contains("budget of 1000 events"), "{e}");
}

#[test]
fn a_trace_that_would_not_fit_in_memory_is_refused() {
    let t = base().replacen("duration = ", "duration = 100 #", 1)
        + "[trace]\nqueue = [\"R1->R2\"]\nqueue_interval = \"1us\"\n";
    let e = error_of(&t);
    assert_eq!(e.path, "trace.queue_interval");
    assert!(e.message.contains("limit"), "{e}");
}

#[test]
fn a_seed_beyond_64_bits_is_named() {
    for bad in ["18446744073709551616", "-1", "1.5", "\"7\""] {
        let t = format!("{{\"duration\": 1, \"seed\": {bad}}}");
        let e = airtcp_core::scenario::parse_json(&t).unwrap_err();
        assert_eq!(e.path, "seed", "{bad}: {e}");
        assert!(e.message.contains("integer from 0 to 2^64 - 1"), "{e}");
    }
}

#[test]
fn the_largest_seed_is_accepted() {
    let sc = airtcp_core::scenario::parse_json(r#"{"duration": 1, "seed": 18446744073709551615}"#);
    assert_eq!(sc.unwrap().seed, u64::MAX);
}

#[test]
fn series_are_bounded_in_all_not_only_each() {
    // Each queue trace is within its own limit, together they are not.
    let many: Vec<String> = ["S->R1", "R1->S", "R1->R2", "R2->R1"]
        .iter()
        .map(|q| format!("\"{q}\""))
        .collect();
    let t = base().replace("duration = 1\n", "duration = 90\n")
        + &format!(
            "[trace]\nqueue = [{}]\nqueue_interval = \"10us\"\n",
            many.join(", ")
        );
    let e = error_of(&t);
    assert_eq!(e.path, "trace.queue", "{e}");
    assert!(e.message.contains("may hold together"), "{e}");
    // A queue listed twice is named.
    let t = base() + "[trace]\nqueue = [\"R1->R2\", \"R1->R2\"]\n";
    let e = error_of(&t);
    assert_eq!(e.to_string(), "trace.queue[1]: 'R1->R2' is listed twice");
    // Synthesized SNR series: 9e6 samples each, two per link (one each way).
    let snr = "error = { model = \"snr\", modulation = \"cck11\", interval = \"1ms\", synth = { \
               waypoints = [[0, 30]], shadowing_db = 0, fading = \"none\" } }\n";
    let t = base()
        .replace("duration = 1\n", "duration = 9000\n")
        .replacen(
            "queue = { limit = 1000 }\n",
            &format!("queue = {{ limit = 1000 }}\n{snr}"),
            2,
        );
    let e = error_of(&t);
    assert_eq!(e.path, "links[1].error", "{e}");
    assert!(e.message.contains("all series may hold together"), "{e}");
}

#[test]
fn an_empty_key_is_named_as_a_quoted_one() {
    let e = airtcp_core::scenario::parse_json(r#"{"duration": 1, "": 2}"#).unwrap_err();
    assert_eq!(e.path, r#"[""]"#, "{e}");
    let t = r#"{"duration": 1, "links": [{"a": "x", "b": "y", "rate": 1, "delay": 0, "": 1}]}"#;
    let e = airtcp_core::scenario::parse_json(t).unwrap_err();
    assert_eq!(e.path, r#"links[0][""]"#, "{e}");
    let t =
        r#"{"duration": 1, "flows": [{"src": "x", "dst": "y", "app": {"kind": "bulk", "": 1}}]}"#;
    let e = airtcp_core::scenario::parse_json(t).unwrap_err();
    assert_eq!(e.path, r#"flows[0].app[""]"#, "{e}");
}
