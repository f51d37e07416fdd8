//! Fingerprint of the simulator's sources, so stored results can tell which build produced
//! them: a results store keys runs by it and reruns them after the simulator changes. A unit-
//! test module at the end of a file, and a file of tests only, are left out (`fingerprint.rs`).

use std::path::Path;

include!("fingerprint.rs");

fn visit(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            visit(&p, files);
        } else if p.extension().is_some_and(|x| x == "rs") {
            files.push(p);
        }
    }
}

fn main() {
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=fingerprint.rs");
    let mut files = Vec::new();
    visit(Path::new("src"), &mut files);
    files.sort();
    // FNV-1a over paths and contents: stable across platforms.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for f in files
        .iter()
        .filter(|f| !test_only_file(&f.to_string_lossy()))
    {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        let kept = fingerprinted(&text).as_bytes().to_vec();
        for b in f.to_string_lossy().bytes().chain(kept) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
    println!("cargo:rustc-env=AIRTCP_BUILD_ID={h:016x}");
}
