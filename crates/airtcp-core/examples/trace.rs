//! Print the cwnd trace of the first flow of a TOML scenario as "t cwnd ssthresh" lines:
//! `cargo run --example trace -- FILE.toml`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: trace FILE.toml");
    let text = std::fs::read_to_string(&path).expect("readable scenario file");
    let text = text + "\n[trace]\ncwnd = true\n";
    let r = airtcp_core::run_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    for (name, s) in &r.series.cwnd {
        for i in 0..s.t.len() {
            println!("{name} {:.4} {:.2} {:.2}", s.t[i], s.cwnd[i], s.ssthresh[i]);
        }
    }
}
