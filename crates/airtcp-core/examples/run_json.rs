//! Run a JSON scenario and print the result as JSON: `cargo run --example run_json -- FILE.json`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: run_json FILE.json");
    let text = std::fs::read_to_string(&path).expect("readable scenario file");
    match airtcp_core::run_json(&text) {
        Ok(r) => println!("{r}"),
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    }
}
