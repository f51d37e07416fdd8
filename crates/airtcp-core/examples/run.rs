//! Run a TOML scenario and print the result as JSON: `cargo run --example run -- FILE.toml`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: run FILE.toml");
    let text = std::fs::read_to_string(&path).expect("readable scenario file");
    // Trace files are read relative to the scenario file, as the Python front reads them.
    let base = std::path::Path::new(&path)
        .parent()
        .unwrap_or(std::path::Path::new(""));
    let files = airtcp_core::FileAccess::within(base);
    match airtcp_core::scenario::parse_toml(&text).and_then(|sc| airtcp_core::run_with(&sc, &files))
    {
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
