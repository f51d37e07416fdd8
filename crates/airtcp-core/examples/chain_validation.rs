//! TCP NewReno over 802.11 chains (ns-2 defaults, 200 m spacing, 1460-byte segments, 50 s):
//! goodput against hop count, and against the advertised window on 8 and 16 hops.
//! `cargo run --release --example chain_validation [-- SEEDS]`; prints Markdown tables
//! (docs/validation.md holds their output).
use serde_json::{json, Value};

fn chain(hops: usize, seed: u64, window: Option<u64>) -> Value {
    let nodes: Vec<Value> = (0..=hops)
        .map(|i| {
            json!({"name": format!("n{i}"),
                   "kind": if i == 0 || i == hops { "host" } else { "router" },
                   "position": [200.0 * i as f64, 0.0]})
        })
        .collect();
    let mut tcp = json!({"profile": "ns2", "segment_size": 1460});
    if let Some(w) = window {
        tcp["rcv_window"] = json!(w * 1460);
    }
    json!({"duration": 50, "seed": seed, "tcp": tcp, "nodes": nodes,
           "media": [{"name": "air", "kind": "wifi", "preset": "ns2"}],
           "flows": [{"src": "n0", "dst": format!("n{hops}"), "cc": "newreno",
                      "app": {"kind": "bulk"}}]})
}

fn goodput(hops: usize, seeds: u64, window: Option<u64>) -> (f64, f64) {
    let (mut g, mut retx) = (0.0, 0.0);
    for s in 1..=seeds {
        let r: Value = serde_json::from_str(
            &airtcp_core::run_json(&chain(hops, s, window).to_string()).unwrap(),
        )
        .unwrap();
        g += r["flows"][0]["goodput_bps"].as_f64().unwrap();
        retx += r["flows"][0]["retransmissions"].as_f64().unwrap();
    }
    (g / seeds as f64, retx / seeds as f64)
}

fn main() {
    let seeds: u64 = std::env::args()
        .nth(1)
        .map_or(5, |s| s.parse().expect("seeds"));
    println!("| hops | goodput (kbit/s, mean of {seeds} seeds) | relative to 1 hop | TCP retransmissions |");
    println!("|---:|---:|---:|---:|");
    let (one, _) = goodput(1, seeds, None);
    for h in [1usize, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16] {
        let (g, r) = goodput(h, seeds, None);
        println!("| {h} | {:.1} | {:.3} | {r:.1} |", g / 1e3, g / one);
    }
    println!();
    let wins = [1u64, 2, 3, 4, 5, 6, 8, 10, 16, 32];
    print!("| hops |");
    for w in wins {
        print!(" w = {w} |");
    }
    println!(" knee (smallest w within 5% of the best) | hops / 4 |");
    print!("|---:|");
    for _ in wins {
        print!("---:|");
    }
    println!("---:|---:|");
    for h in [4usize, 8, 16] {
        let g: Vec<f64> = wins.iter().map(|&w| goodput(h, seeds, Some(w)).0).collect();
        let best = g.iter().cloned().fold(0.0, f64::max);
        let knee = wins[g.iter().position(|&x| x >= 0.95 * best).unwrap()];
        print!("| {h} |");
        for x in &g {
            print!(" {:.0} |", x / 1e3);
        }
        println!(" {knee} | {} |", h as f64 / 4.0);
    }
}
