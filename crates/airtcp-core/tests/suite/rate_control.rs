//! Per-station rate adaptation (`rate_control`): the managers (ARF, AARF, Ideal, Minstrel)
//! pick a lower rate on a long link than on a short one, and there beat a rate fixed at
//! 11 Mbit/s; the keys' errors.

use serde_json::{json, Value};

use crate::common;
use common::{mac_row as mac, run_err as err, run_value as run};

/// One TCP bulk flow a -> b over `dist` metres under the `ns3` preset (11 Mbit/s top rate,
/// sinr reception), 20 dBm, detection and sensing down to -99 dBm, with `medium`'s keys on
/// top.
fn link(dist: f64, medium: Value) -> Value {
    let mut m = json!({"name": "air", "kind": "wifi", "preset": "ns3", "tx_power_dbm": 20,
                       "rx_threshold_dbm": -99, "cs_threshold_dbm": -99});
    m.as_object_mut()
        .unwrap()
        .extend(medium.as_object().unwrap().clone());
    json!({
        "duration": 10, "seed": 1,
        "nodes": [{"name": "a", "position": [0, 0]}, {"name": "b", "position": [dist, 0]}],
        "media": [m],
        "flows": [{"src": "a", "dst": "b", "cc": "newreno", "app": {"kind": "bulk"}}],
    })
}

const RATES: [&str; 4] = [
    "data_frames_1mbps",
    "data_frames_2mbps",
    "data_frames_5_5mbps",
    "data_frames_11mbps",
];

/// Share of the sender's data frames at 11 Mbit/s, and their mean rate (Mbit/s).
fn rate_use(r: &Value) -> (f64, f64) {
    let a = mac(r, "a@air");
    let n: Vec<f64> = RATES.iter().map(|k| a[k].as_f64().unwrap()).collect();
    let total: f64 = n.iter().sum();
    assert_eq!(
        total,
        a["data_frames"].as_f64().unwrap(),
        "every frame has a rate"
    );
    let mean = [1.0, 2.0, 5.5, 11.0]
        .iter()
        .zip(&n)
        .map(|(r, k)| r * k)
        .sum::<f64>()
        / total;
    (n[3] / total, mean)
}

fn goodput(r: &Value) -> f64 {
    r["flows"][0]["goodput_bps"].as_f64().unwrap()
}

#[test]
fn managers_settle_lower_on_a_long_link_and_beat_a_fixed_rate() {
    // At 10 m (SNR about 33 dB) every rate gets through; at 120 m (20 dBm - 46.7 dB - 30 log10
    // 120 = -89.1 dBm, 4.4 dB above the -93.6 dBm noise) 11 Mbit/s CCK loses nearly every
    // frame while DQPSK and 5.5 Mbit/s CCK mostly get through.
    let fixed_long = goodput(&run(&link(120.0, json!({}))));
    for mgr in ["arf", "aarf", "ideal", "minstrel"] {
        let rc = json!({"rate_control": {"manager": mgr}});
        let short = run(&link(10.0, rc.clone()));
        let long = run(&link(120.0, rc));
        let (top_short, mean_short) = rate_use(&short);
        let (top_long, mean_long) = rate_use(&long);
        assert!(
            top_short > 0.9,
            "{mgr}: {top_short} of frames at 11 Mbit/s at 10 m"
        );
        assert!(
            top_long < 0.1,
            "{mgr}: {top_long} of frames at 11 Mbit/s at 120 m"
        );
        assert!(
            mean_long < mean_short - 4.0,
            "{mgr}: {mean_long} vs {mean_short}"
        );
        assert!(
            goodput(&long) > 1e6 && goodput(&long) > 10.0 * fixed_long,
            "{mgr}: {} against {fixed_long} at a fixed 11 Mbit/s",
            goodput(&long)
        );
    }
}

#[test]
fn constant_manager_is_the_default() {
    // `manager = "constant"` is the medium without the key: the same result, and no rate
    // columns in the macs table.
    let plain = run(&link(60.0, json!({})));
    let constant = run(&link(
        60.0,
        json!({"rate_control": {"manager": "constant"}}),
    ));
    assert_eq!(plain, constant);
    assert!(mac(&plain, "a@air").get("data_frames_11mbps").is_none());
}

#[test]
fn rate_control_key_errors() {
    let e = err(&link(
        10.0,
        json!({"reception": "summed", "noise_dbm": -95, "rate_control": {"manager": "aarf"}}),
    ));
    assert!(e.contains("media[0].rate_control.manager"), "{e}");
    assert!(e.contains("sinr"), "{e}");
    let e = err(&link(
        10.0,
        json!({"rate_control": {"manager": "arf", "ber": 1e-5}}),
    ));
    assert!(e.contains("media[0].rate_control.ber"), "{e}");
    let e = err(&link(
        10.0,
        json!({"rate_control": {"manager": "ideal", "ber": 0.7}}),
    ));
    assert!(e.contains("media[0].rate_control.ber"), "{e}");
    let e = err(&link(10.0, json!({"rate_control": {"manager": "fast"}})));
    assert!(e.contains("rate_control"), "{e}");
}
