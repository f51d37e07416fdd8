//! Benchmark the core without Python: `cargo run --release --example bench -- FILE.toml...`.
//! Prints wall time, events, packet-hops and the process's peak resident memory (VmHWM), so
//! the figures compare directly with a C++ simulator's.
use std::time::Instant;

fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn main() {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: bench FILE.toml|FILE.json...");
        std::process::exit(2);
    }
    println!(
        "{:<28} {:>8} {:>12} {:>10} {:>12} {:>12} {:>8}",
        "scenario", "wall s", "events", "events/s", "packet-hops", "hops/s", "peak MB"
    );
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{f}: {e}"));
        // JSON is read straight into the scenario; TOML goes through a document first, which
        // for a large scenario can be the run's peak memory.
        let sc = if f.ends_with(".json") {
            airtcp_core::scenario::parse_json(&text)
        } else {
            airtcp_core::scenario::parse_toml(&text)
        }
        .unwrap_or_else(|e| panic!("{f}: {e}"));
        drop(text);
        let t0 = Instant::now();
        let r =
            airtcp_core::run_owned(sc, &Default::default()).unwrap_or_else(|e| panic!("{f}: {e}"));
        let wall = t0.elapsed().as_secs_f64();
        println!(
            "{:<28} {:>8.3} {:>12} {:>9.2}M {:>12} {:>11.2}M {:>8.1}",
            f,
            wall,
            r.events,
            r.events as f64 / wall / 1e6,
            r.packet_hops,
            r.packet_hops as f64 / wall / 1e6,
            peak_rss_mb()
        );
    }
}
