//! Run one scenario over many seeds and print each result as a JSON line:
//! `cargo run --release -p airtcp-core --example seeds -- FILE.json FIRST COUNT`.
//! For comparing two builds of the core on the same runs (`tools/compare_builds.py`), without
//! Python in between.
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, first, count] = args.as_slice() else {
        eprintln!("usage: seeds FILE.json|FILE.toml FIRST_SEED COUNT");
        std::process::exit(2);
    };
    let parse = |s: &str, what: &str| -> u64 {
        s.parse().unwrap_or_else(|_| {
            eprintln!("{what} must be an unsigned integer, not {s:?}");
            std::process::exit(2)
        })
    };
    let (first, count) = (parse(first, "FIRST_SEED"), parse(count, "COUNT"));
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| {
        eprintln!("{file}: {e}");
        std::process::exit(2)
    });
    let mut sc = if file.ends_with(".json") {
        airtcp_core::scenario::parse_json(&text)
    } else {
        airtcp_core::scenario::parse_toml(&text)
    }
    .unwrap_or_else(|e| {
        eprintln!("{file}: {e}");
        std::process::exit(2)
    });
    for seed in first..first + count {
        sc.seed = seed;
        match airtcp_core::run(&sc) {
            Ok(r) => println!("{}", serde_json::to_string(&r).expect("results serialize")),
            Err(e) => {
                eprintln!("{file} seed {seed}: {e}");
                std::process::exit(1)
            }
        }
    }
}
