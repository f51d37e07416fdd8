//! 802.11 reception models and presets: frame error rates from the SINR over the frame
//! (`sinr`), OFDM frame timing (`80211g`), and the keys' errors.

use serde_json::{json, Value};

use crate::common;
use common::{mac_row as mac, run_err as err, run_value as run};

fn count(m: &Value, k: &str) -> f64 {
    m[k].as_f64().unwrap_or_else(|| panic!("no {k} in {m}"))
}

/// One saturated 2 Mbit/s link under the `ns3` preset, `dist` metres long, with `medium`'s
/// keys on top.
fn link(medium: Value, packet: u32) -> Value {
    let mut m = json!({"name": "air", "kind": "wifi", "preset": "ns3", "rate": "2Mbps",
                       "rx_threshold_dbm": -99, "cs_threshold_dbm": -99});
    m.as_object_mut()
        .unwrap()
        .extend(medium.as_object().unwrap().clone());
    json!({
        "duration": 20, "seed": 3,
        "nodes": [{"name": "a", "position": [0, 0]}, {"name": "b", "position": [100, 0]}],
        "media": [m],
        "flows": [{"src": "a", "dst": "b",
                   "app": {"kind": "cbr", "rate": 2e6, "packet_size": packet}}],
    })
}

#[test]
fn acks_fail_far_less_than_data_frames_at_the_same_sinr() {
    // At 100 m the ns3 preset loses 106.7 dB; 13.62 dBm puts -93.06 dBm at the receiver, 0.5
    // dB above its noise (-93.56 dBm: kTB over 22 MHz and a 7 dB noise figure). There DQPSK
    // loses about half the 1036-byte data frames (8288 bits at BER 8.4e-5) but only about 1%
    // of the 14-byte ACKs. (The preamble threshold is lowered from 4 dB so that frames are
    // detected at all.)
    let r = run(&link(
        json!({"tx_power_dbm": 13.62, "preamble_snr_db": 0}),
        1000,
    ));
    let (a, b) = (mac(&r, "a@air"), mac(&r, "b@air"));
    let data_per = count(b, "rx_channel_errors") / count(a, "data_frames");
    let ack_per = count(a, "rx_channel_errors") / count(b, "ack_frames");
    assert!((0.3..0.7).contains(&data_per), "data PER {data_per}");
    assert!(ack_per < 0.03, "ACK PER {ack_per}");
    assert!(count(b, "ack_frames") > 1000.0);
    // 3 dB more: the data frames get through nearly always.
    let r = run(&link(
        json!({"tx_power_dbm": 16.62, "preamble_snr_db": 0}),
        1000,
    ));
    let (a, b) = (mac(&r, "a@air"), mac(&r, "b@air"));
    let data_per = count(b, "rx_channel_errors") / count(a, "data_frames");
    assert!(data_per < 0.01, "data PER {data_per}");
}

#[test]
fn below_the_preamble_threshold_nothing_is_decoded() {
    // 3 dB of SNR is under a 4 dB preamble-detection threshold: no frame is received and the
    // sender gives every packet up.
    let r = run(&link(
        json!({"tx_power_dbm": 16.12, "preamble_snr_db": 4.0}),
        1000,
    ));
    assert_eq!(count(mac(&r, "b@air"), "rx_data"), 0.0);
    assert!(count(mac(&r, "a@air"), "drops_retry_limit") > 0.0);
    // With a 2 dB threshold they are.
    let r = run(&link(
        json!({"tx_power_dbm": 16.12, "preamble_snr_db": 2.0}),
        1000,
    ));
    assert!(count(mac(&r, "b@air"), "rx_data") > 100.0);
}

#[test]
fn ofdm_frames_fill_whole_symbols() {
    // 802.11g at 54 Mbit/s, one saturated sender 20 m away: per packet DIFS (28 µs), 7.5
    // slots of 9 µs on average, the data frame (20 µs preamble and SIGNAL, then 16 + 8·1036 +
    // 6 bits in 216-bit symbols: 39 symbols), SIFS and an ACK at 24 Mbit/s (20 µs + 2
    // symbols), a propagation delay each way.
    let sc = json!({
        "duration": 10,
        "nodes": [{"name": "a", "position": [0, 0]}, {"name": "b", "position": [20, 0]}],
        "media": [{"name": "air", "kind": "wifi", "preset": "80211g"}],
        "flows": [{"src": "a", "dst": "b",
                   "app": {"kind": "cbr", "rate": 60e6, "packet_size": 1000}}],
    });
    let r = run(&sc);
    let got: f64 = r["flows"][0]["throughput_bps"].as_f64().unwrap();
    let per_packet = 28e-6 + 7.5 * 9e-6 + (20e-6 + 39.0 * 4e-6) + 10e-6 + 28e-6 + 2.0 * 20.0 / 3e8;
    let want = 8000.0 / per_packet;
    assert!((got / want - 1.0).abs() < 0.01, "{got} vs {want}");
    assert_eq!(mac(&r, "a@air")["retries"], 0);
}

#[test]
fn reception_keys_are_checked() {
    let mut sc = link(json!({}), 1000);
    sc["media"][0]["reception"] = json!("ns2");
    sc["media"][0]["noise_figure_db"] = json!(7);
    assert!(
        err(&sc).starts_with("media[0].noise_figure_db: applies to the sinr reception only"),
        "{}",
        err(&sc)
    );
    let mut sc = link(json!({}), 1000);
    sc["media"][0]["rate"] = json!("3Mbps");
    assert!(
        err(&sc).starts_with("media[0].rate: must be an 802.11b/g rate"),
        "{}",
        err(&sc)
    );
    let mut sc = link(json!({}), 1000);
    sc["media"][0]["preset"] = json!("80211g");
    sc["media"][0]["rate"] = json!("11Mbps");
    assert!(
        err(&sc).starts_with("media[0].rate: must be an OFDM rate"),
        "{}",
        err(&sc)
    );
    let mut sc = link(json!({}), 1000);
    sc["media"][0]["reception"] = json!("ns2");
    sc["media"][0]["cca_ed_threshold_dbm"] = json!(-62);
    assert!(
        err(&sc).starts_with("media[0].cca_ed_threshold_dbm: applies to the sinr reception only"),
        "{}",
        err(&sc)
    );
    let mut sc = link(json!({}), 1000);
    sc["media"][0]["reception"] = json!("capture");
    assert!(err(&sc).contains("reception"), "{}", err(&sc));
}

#[test]
fn rayleigh_fading_loses_frames_a_steady_channel_keeps() {
    // 4.9 dB of mean SNR, just above the 4 dB preamble threshold: without fading every frame
    // is decoded; with Rayleigh fading the gain falls below -0.9 dB (the frame is missed) with
    // probability 1 - exp(-0.81) = 0.56, and frames 100 Hz of Doppler apart fade
    // independently enough to see it.
    let steady = run(&link(json!({"tx_power_dbm": 18.0}), 1000));
    let faded = run(&link(
        json!({"tx_power_dbm": 18.0, "fading": {"model": "rayleigh", "doppler_hz": 100}}),
        1000,
    ));
    let lost = |r: &Value| {
        let (a, b) = (mac(r, "a@air"), mac(r, "b@air"));
        count(b, "rx_channel_errors") / count(a, "data_frames")
    };
    assert_eq!(lost(&steady), 0.0);
    let l = lost(&faded);
    assert!((0.4..0.7).contains(&l), "faded loss {l}");
    // Rician with K = 15 dB: the amplitude is about 0.985 + 0.124·N(0, 1) (the in-phase part
    // of the scattered field), below √0.81 = 0.9 with probability Φ(-0.68) = 0.25.
    let los = run(&link(
        json!({"tx_power_dbm": 18.0,
               "fading": {"model": "rician", "k_db": 15, "doppler_hz": 100}}),
        1000,
    ));
    let lr = lost(&los);
    assert!((0.1..0.3).contains(&lr), "Rician loss {lr}");
}

#[test]
fn fading_keys_are_checked() {
    let mut sc = link(json!({}), 1000);
    sc["media"][0]["fading"] = json!({"model": "rician"});
    assert!(
        err(&sc).starts_with("media[0].fading.k_db: a rician model needs"),
        "{}",
        err(&sc)
    );
    sc["media"][0]["fading"] = json!({"model": "nakagami", "m": 1.2});
    assert!(
        err(&sc).starts_with("media[0].fading.m: must be a multiple of 0.5"),
        "{}",
        err(&sc)
    );
    sc["media"][0]["fading"] = json!({"model": "rayleigh", "speed": 1, "doppler_hz": 3});
    assert!(
        err(&sc).starts_with("media[0].fading.doppler_hz: give one of"),
        "{}",
        err(&sc)
    );
}

/// Two saturated 2 Mbit/s links under the `ns3` preset, a -> b and c -> d, 10 m long, their
/// senders 32 m apart: each sender gets the other's frames at -75.8 dBm (46.68 dB at 1 m,
/// exponent 3, 16.02 dBm), sensed (the carrier-sense threshold is -82 dBm) and 14 dB above
/// the noise. Packets delivered over both links in 10 s.
fn two_links(medium: Value) -> f64 {
    let mut m = json!({"name": "air", "kind": "wifi", "preset": "ns3", "rate": "2Mbps"});
    m.as_object_mut()
        .unwrap()
        .extend(medium.as_object().unwrap().clone());
    let sc = json!({
        "duration": 10, "seed": 5,
        "nodes": [{"name": "a", "position": [0, 0]}, {"name": "b", "position": [-10, 0]},
                  {"name": "c", "position": [32, 0]}, {"name": "d", "position": [42, 0]}],
        "media": [m],
        "flows": [
            {"src": "a", "dst": "b", "app": {"kind": "cbr", "rate": 4e6, "packet_size": 1000}},
            {"src": "c", "dst": "d", "app": {"kind": "cbr", "rate": 4e6, "packet_size": 1000}},
        ],
    });
    let r = run(&sc);
    r["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| count(f, "received_packets"))
        .sum()
}

#[test]
fn an_undetectable_preamble_holds_the_medium_only_from_the_energy_threshold_up() {
    // ns-3: a preamble below the minimum RSSI is not detected, and CCA then stays idle below
    // CcaEdThreshold (-62 dBm by default, the preset's). With the receive threshold raised to
    // -70 dBm the senders cannot detect each other's preambles, so each sends as if alone:
    // together they deliver about twice what one shared medium carries.
    let apart = two_links(json!({"rx_threshold_dbm": -70}));
    // The energy threshold at carrier sense (as the ns-3 chain programs set it): every sensed
    // signal holds the medium, and the two links share it.
    let shared = two_links(json!({"rx_threshold_dbm": -70, "cca_ed_threshold_dbm": -82}));
    // A preamble the sender can detect (the preset's -82 dBm receive threshold) holds the
    // medium whatever the energy threshold.
    let detected = two_links(json!({}));
    assert!(apart > 1.5 * shared, "apart {apart}, shared {shared}");
    assert!(
        (detected - shared).abs() < 0.1 * shared,
        "detected {detected}, shared {shared}"
    );
}
