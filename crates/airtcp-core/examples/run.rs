//! Run a TOML scenario and print the result as JSON: `cargo run --example run -- FILE.toml`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: run FILE.toml");
    let text = std::fs::read_to_string(&path).expect("readable scenario file");
    match airtcp_core::run_toml(&text) {
        Ok(mut r) => {
            r.series = Default::default();
            println!("{}", serde_json::to_string_pretty(&r).unwrap());
        }
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    }
}
