//! 802.11 DCF saturation throughput against Bianchi's model (FHSS parameters), basic access
//! and RTS/CTS: `cargo run --release --example mac_validation [-- SECONDS SEEDS]`. Prints a
//! Markdown table (docs/validation.md holds its output).
use airtcp_core::device::bianchi::fhss;

fn main() {
    let mut args = std::env::args().skip(1);
    let secs: f64 = args.next().map_or(60.0, |s| s.parse().expect("seconds"));
    let seeds: u64 = args.next().map_or(3, |s| s.parse().expect("seeds"));
    println!("| stations | access | model (Mbit/s) | airtcp (Mbit/s, mean of {seeds} seeds × {secs} s) | difference |");
    println!("|---:|---|---:|---:|---:|");
    for rts in [false, true] {
        for n in [1u32, 2, 5, 10, 20, 30, 40, 50] {
            let mut total = 0.0;
            for seed in 1..=seeds {
                let sc = fhss::scenario(n, rts, secs, seed).to_string();
                let r: serde_json::Value =
                    serde_json::from_str(&airtcp_core::run_json(&sc).expect("runs")).unwrap();
                let bits: f64 = r["flows"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| f["throughput_bps"].as_f64().unwrap())
                    .sum();
                total += bits;
            }
            let sim = total / seeds as f64;
            let model = fhss::model(n, rts);
            println!(
                "| {n} | {} | {:.4} | {:.4} | {:+.1}% |",
                if rts { "RTS/CTS" } else { "basic" },
                model / 1e6,
                sim / 1e6,
                (sim / model - 1.0) * 100.0
            );
        }
    }
}
