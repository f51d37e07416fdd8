//! Shared-medium MACs: 802.11 DCF against closed forms and Bianchi's model, hidden terminals,
//! TCP over multi-hop chains, and the TDMA slot frame.

use airtcp_core::device::bianchi::fhss;
use serde_json::{json, Value};

use crate::common;
use common::run_err as err;

fn run(sc: &Value) -> Value {
    let r = common::run_value(sc);
    common::assert_conserved(&r);
    let p = &r["packets"];
    assert_eq!(p["in_flight"], p["live_in_arena"]);
    r
}

fn total_throughput(r: &Value) -> f64 {
    r["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["throughput_bps"].as_f64().unwrap())
        .sum()
}

fn mac<'a>(r: &'a Value, node: &str) -> &'a Value {
    r["macs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["node"] == node)
        .unwrap_or_else(|| panic!("no MAC row for {node}"))
}

/// An ad hoc chain of `hops` hops, 200 m apart, ns-2 802.11 defaults, one bulk TCP flow.
fn chain(hops: usize, seed: u64, tcp: Value) -> Value {
    let nodes: Vec<Value> = (0..=hops)
        .map(|i| {
            json!({
                "name": format!("n{i}"),
                "kind": if i == 0 || i == hops { "host" } else { "router" },
                "position": [200.0 * i as f64, 0.0],
            })
        })
        .collect();
    let mut t = json!({"profile": "ns2", "segment_size": 1460});
    t.as_object_mut()
        .unwrap()
        .extend(tcp.as_object().unwrap().clone());
    json!({
        "name": format!("chain{hops}"), "duration": 50, "seed": seed, "tcp": t,
        "nodes": nodes,
        "media": [{"name": "air", "kind": "wifi", "preset": "ns2"}],
        "flows": [{"src": "n0", "dst": format!("n{hops}"), "cc": "newreno",
                   "app": {"kind": "bulk"}}],
    })
}

/// Mean time per packet of one saturated sender: DIFS, CWmin/2 slots of backoff on average,
/// [RTS, SIFS, CTS, SIFS,] data, SIFS, ACK, and a propagation delay each way per frame pair.
fn one_hop_closed_form(packet: f64, data_rate: f64, basic: f64, rts: bool, dist: f64) -> f64 {
    let (slot, sifs, difs, plcp) = (20e-6, 10e-6, 50e-6, 192e-6);
    let ctl = |bytes: f64| plcp + bytes * 8.0 / basic;
    let delta = dist / 299_792_458.0;
    let mut t = difs + 31.0 / 2.0 * slot;
    if rts {
        t += ctl(20.0) + sifs + ctl(14.0) + sifs + 2.0 * delta;
    }
    t += plcp + (packet + 28.0) * 8.0 / data_rate + sifs + ctl(14.0) + 2.0 * delta;
    packet * 8.0 / t
}

#[test]
fn single_hop_udp_reaches_the_closed_form_maximum() {
    for (preset, rate, basic, rts) in [("ns2", 2e6, 1e6, true), ("80211b", 11e6, 1e6, false)] {
        let sc = json!({
            "duration": 20,
            "nodes": [{"name": "a", "position": [0, 0]}, {"name": "b", "position": [50, 0]}],
            "media": [{"name": "air", "kind": "wifi", "preset": preset}],
            "flows": [{"src": "a", "dst": "b",
                       "app": {"kind": "cbr", "rate": rate, "packet_size": 1000}}],
        });
        let r = run(&sc);
        let got = total_throughput(&r);
        let want = one_hop_closed_form(1000.0, rate, basic, rts, 50.0);
        // About 4,000-10,000 backoffs: the mean's relative error is under 0.3%.
        assert!(
            (got / want - 1.0).abs() < 0.01,
            "{preset}: {got} vs closed form {want}"
        );
        assert_eq!(mac(&r, "a@air")["retries"], 0, "one sender never collides");
    }
}

#[test]
fn saturation_throughput_matches_bianchi_within_five_percent() {
    for rts in [false, true] {
        for n in [1, 5, 20, 50] {
            let r = run(&fhss::scenario(n, rts, 20.0, 1));
            let got = total_throughput(&r);
            let want = fhss::model(n, rts);
            assert!(
                (got / want - 1.0).abs() < 0.05,
                "n = {n}, rts = {rts}: {got} vs model {want}"
            );
        }
    }
}

#[test]
fn hidden_terminals_collide_without_rts_and_far_less_with_it() {
    // a and c both reach b but cannot sense each other.
    let sc = |rts: u32| {
        json!({
            "duration": 20,
            "nodes": [{"name": "a", "position": [0, 0]}, {"name": "b", "position": [200, 0]},
                      {"name": "c", "position": [400, 0]}],
            "media": [{"name": "air", "kind": "wifi", "range": 250, "cs_range": 250,
                       "rts_threshold": rts}],
            "flows": [
                {"src": "a", "dst": "b", "app": {"kind": "cbr", "rate": "1Mbps", "packet_size": 1000}},
                {"src": "c", "dst": "b", "app": {"kind": "cbr", "rate": "1Mbps", "packet_size": 1000}},
            ],
        })
    };
    let basic = run(&sc(100_000));
    let rts = run(&sc(0));
    let coll = |r: &Value| mac(r, "b@air")["rx_collisions"].as_u64().unwrap();
    assert!(coll(&basic) > 1000, "{}", coll(&basic));
    assert!(
        coll(&rts) * 3 < coll(&basic),
        "{} vs {}",
        coll(&rts),
        coll(&basic)
    );
    assert!(total_throughput(&rts) > 2.0 * total_throughput(&basic));
    // The give-ups are counted as contention losses.
    assert!(basic["drops"]["collision"].as_u64().unwrap() > 0);
}

#[test]
fn chain_throughput_falls_to_three_or_four_hops_then_levels_off() {
    let t = |h| {
        (1..=3)
            .map(|s| {
                run(&chain(h, s, json!({})))["flows"][0]["goodput_bps"]
                    .as_f64()
                    .unwrap()
            })
            .sum::<f64>()
            / 3.0
    };
    let (t1, t4, t8, t16) = (t(1), t(4), t(8), t(16));
    // Spatial reuse ends at about 3-4 hops (interference range 550 m over 200 m hops): most
    // of the loss is there, and from 8 to 16 hops far less is lost.
    assert!(t4 < 0.3 * t1, "{t1} {t4}");
    assert!(t16 > 0.7 * t8, "{t8} {t16}");
    assert!(t1 > 1.0e6 && t1 < 1.6e6, "one hop at 2 Mbit/s: {t1}");
}

#[test]
fn the_window_that_reaches_full_throughput_is_about_a_quarter_of_the_hops() {
    // Fu et al. (INFOCOM 2003): on an h-hop chain the window that maximises throughput is
    // about h/4. Measured: the smallest advertised window (segments) whose goodput is within
    // 5% of the best over windows 1-32.
    for h in [8usize, 16] {
        let wins = [1u64, 2, 3, 4, 5, 6, 8, 10, 16, 32];
        let g: Vec<f64> = wins
            .iter()
            .map(|w| {
                (1..=3)
                    .map(|s| {
                        let sc = chain(h, s, json!({"rcv_window": w * 1460}));
                        run(&sc)["flows"][0]["goodput_bps"].as_f64().unwrap()
                    })
                    .sum::<f64>()
            })
            .collect();
        let best = g.iter().cloned().fold(0.0, f64::max);
        let knee = wins[g.iter().position(|&x| x >= 0.95 * best).unwrap()] as f64;
        let quarter = h as f64 / 4.0;
        assert!(
            (knee - quarter).abs() <= 1.0,
            "h = {h}: knee at {knee} segments, h/4 = {quarter}; {g:?}"
        );
        assert!(
            g[0] < 0.9 * best,
            "a window of 1 under-uses the chain: {g:?}"
        );
    }
}

#[test]
fn runs_are_deterministic_and_seeds_matter() {
    let a = airtcp_core::run_json(&chain(6, 7, json!({})).to_string()).unwrap();
    let b = airtcp_core::run_json(&chain(6, 7, json!({})).to_string()).unwrap();
    let c = airtcp_core::run_json(&chain(6, 8, json!({})).to_string()).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn channel_errors_on_the_medium_keep_their_cause() {
    let mut sc = chain(3, 1, json!({}));
    sc["media"][0]["error"] = json!({"model": "bernoulli", "per": 0.3, "applies_to": "data"});
    sc["media"][0]["short_retry_limit"] = json!(2);
    sc["media"][0]["long_retry_limit"] = json!(1);
    let r = run(&sc);
    assert!(r["drops"]["channel_error"].as_u64().unwrap() > 0);
    let failed: u64 = r["macs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["failed_channel"].as_u64().unwrap())
        .sum();
    assert!(failed > 0);
    assert!(r["flows"][0]["lost_channel_error"].as_u64().unwrap() > 0);
}

fn tdma_chain(hops: usize, app: Value) -> Value {
    let nodes: Vec<Value> = (0..=hops)
        .map(|i| json!({"name": format!("n{i}"), "kind": if i == 0 || i == hops { "host" } else { "router" }}))
        .collect();
    let links: Vec<Value> = (0..hops)
        .map(|i| {
            json!({"a": format!("n{i}"), "b": format!("n{}", i + 1), "rate": "10Mbps",
                   "delay": "33us", "medium": "mesh", "queue": {"limit": 200}})
        })
        .collect();
    json!({
        "duration": 30, "nodes": nodes, "links": links,
        "media": [{"name": "mesh", "kind": "tdma", "slot": "2ms", "guard": "100us"}],
        "flows": [{"src": "n0", "dst": format!("n{hops}"), "app": app}],
    })
}

#[test]
fn a_saturated_tdma_hop_gets_its_slot_share() {
    // One hop, two slots (data and reverse direction): 1.9 ms of every 4 ms at 10 Mbit/s.
    let r = run(&tdma_chain(
        1,
        json!({"kind": "cbr", "rate": "8Mbps", "packet_size": 1000}),
    ));
    let got = total_throughput(&r);
    let share = 10e6 * 1.9 / 4.0;
    assert!((got / share - 1.0).abs() < 0.001, "{got} vs {share}");
}

#[test]
fn tcp_over_a_tdma_chain_runs_at_the_schedule_bottleneck() {
    // Four hops, eight scheduled link directions: each sends 1.9 ms of every 16 ms.
    let r = run(&tdma_chain(4, json!({"kind": "bulk"})));
    let g = r["flows"][0]["goodput_bps"].as_f64().unwrap();
    let bottleneck = 10e6 * 1.9 / 16.0 * 1460.0 / 1500.0;
    assert!(g <= bottleneck, "{g} above the bottleneck {bottleneck}");
    assert!(g > 0.95 * bottleneck, "{g} vs {bottleneck}");
}

#[test]
fn media_errors_name_the_field() {
    let mut sc = chain(2, 1, json!({}));
    sc["nodes"][1].as_object_mut().unwrap().remove("position");
    sc["media"][0]["nodes"] = json!(["n0", "n1", "n2"]);
    assert!(
        err(&sc)
            .contains("media[0].nodes[1]: node 'n1' is on wifi medium 'air' but has no position"),
        "{}",
        err(&sc)
    );

    let mut sc = chain(2, 1, json!({}));
    sc["media"][0]["guard"] = json!(0.001);
    assert!(err(&sc).contains("media[0].guard: a wifi medium does not take `guard`"));

    let mut sc = chain(2, 1, json!({}));
    sc["media"][0]["range"] = json!(300);
    sc["media"][0]["cs_range"] = json!(200);
    assert!(err(&sc).starts_with("media[0].cs_range: carrier sense must reach"));

    let mut sc = chain(2, 1, json!({}));
    sc["nodes"][2]["position"] = json!([2000, 0]);
    assert!(
        err(&sc).contains("'n2' is not reachable from 'n0'"),
        "{}",
        err(&sc)
    );

    let mut sc = tdma_chain(2, json!({"kind": "bulk"}));
    sc["links"][1]["medium"] = json!("mesh2");
    assert!(err(&sc).starts_with("links[1].medium: unknown TDMA medium 'mesh2'"));

    let mut sc = tdma_chain(2, json!({"kind": "bulk"}));
    sc["media"][0]["guard"] = json!("3ms");
    assert!(err(&sc).starts_with("media[0].guard: must be shorter than the slot"));
}

/// `a` sends CBR packets of 500 bytes to `b` 10 m away from 1 s, one every `gap_us`, on the
/// `ns3` preset (11 Mbit/s, no RTS) with the given channel access; returns the start of each
/// of a's frames and of b's ACKs (s), from the arrival times the rssi series records.
fn cbr_frames(access: &str, gap_us: f64, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let sc = json!({
        "name": "access", "duration": 1.2, "seed": seed,
        "nodes": [{"name": "a", "position": [0.0, 0.0]}, {"name": "b", "position": [10.0, 0.0]}],
        "media": [{"name": "air", "kind": "wifi", "preset": "ns3", "access": access}],
        "flows": [{"name": "f", "src": "a", "dst": "b", "start": "1s",
                   "app": {"kind": "cbr", "rate": format!("{}bps", 4000.0 * 1e6 / gap_us),
                           "packet_size": 500}}],
        "trace": {"rssi": ["air"]},
    });
    let r = run(&sc);
    let delay = 10.0 / 299_792_458.0;
    let starts = |at: &str| -> Vec<f64> {
        r["series"]["rssi"][at]["t"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_f64().unwrap() - delay)
            .collect()
    };
    (starts("b@air"), starts("a@air"))
}

#[test]
fn ns3_access_sends_a_packet_reaching_an_idle_medium_after_difs_and_ns2_draws_a_backoff() {
    // 802.11-2016 10.3.4.2 as ns-3's ChannelAccessManager applies it: the medium has been
    // idle since the last exchange (100 ms earlier), the post-backoff has run out, so each
    // packet goes exactly DIFS (50 us) after it is generated.
    let (data, _) = cbr_frames("ns3", 100_000.0, 2);
    assert_eq!(data.len(), 2, "packets at 1.0 and 1.1 s");
    for (i, s) in data.iter().enumerate() {
        let gen = 1.0 + 0.1 * i as f64;
        assert!((s - gen - 50e-6).abs() < 2e-9, "frame {i} at {s}");
    }
    // ns-2's rule: a fresh backoff for every packet, in whole slots (20 us), drawn anew.
    let mut offsets = Vec::new();
    for seed in 1..=4 {
        let (data, _) = cbr_frames("ns2", 100_000.0, seed);
        for (i, s) in data.iter().enumerate() {
            let slots = (s - 1.0 - 0.1 * i as f64) / 20e-6;
            assert!((slots - slots.round()).abs() < 1e-4 && slots.round() <= 31.0);
            offsets.push(slots.round() as i64);
        }
    }
    offsets.sort();
    offsets.dedup();
    assert!(offsets.len() > 2, "backoffs drawn: {offsets:?}");
}

#[test]
fn ns3_access_makes_a_packet_wait_out_the_backoff_drawn_after_the_last_exchange() {
    // Packets every 1.25 ms: each arrives about 400 us after the last ACK ended, while the
    // backoff drawn at that ACK (DIFS and 0-31 slots, ns-3's post-backoff) may still run.
    // A frame then starts at the ACK's end + DIFS + whole slots; once it has run out, DIFS
    // after the packet. `a` counts from the ACK's end as it arrives (10 m later).
    let ack = 192e-6 + 14.0 * 8.0 / 11e6 + 10.0 / 299_792_458.0;
    let (data, acks) = cbr_frames("ns3", 1250.0, 5);
    assert!(data.len() >= 150 && acks.len() >= data.len() - 1);
    let (mut waited, mut immediate) = (0, 0);
    for i in 1..data.len() {
        let gen = 1.0 + 1.25e-3 * i as f64;
        let s = data[i];
        if (s - gen - 50e-6).abs() < 2e-9 {
            immediate += 1;
            continue;
        }
        let slots = (s - acks[i - 1] - ack - 50e-6) / 20e-6;
        assert!(
            s > gen
                && (slots - slots.round()).abs() < 1e-3
                && (0.0..=31.0).contains(&slots.round()),
            "frame {i} at {s}: {slots} slots after its DIFS"
        );
        waited += 1;
    }
    assert!(
        waited > 20 && immediate > 20,
        "{waited} waited, {immediate} at once"
    );
}
