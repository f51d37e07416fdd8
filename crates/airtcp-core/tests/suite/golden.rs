//! Golden files: the complete result JSON of fixed scenarios (tests/golden, written by
//! `tools/make_golden.py`). A restructuring of the core must leave every one byte-identical; a
//! change meant to move results regenerates them in a commit of its own.

use std::path::PathBuf;

#[test]
fn results_are_byte_identical_to_the_golden_files() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/golden exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".scenario.json"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 40, "only {} golden cases", cases.len());
    let mut differ = vec![];
    for sc in &cases {
        let text = std::fs::read_to_string(sc).unwrap();
        let want_path = PathBuf::from(
            sc.to_string_lossy()
                .replace(".scenario.json", ".result.json"),
        );
        let want = std::fs::read_to_string(&want_path).unwrap();
        let got = airtcp_core::run_json(text.trim_end()).unwrap_or_else(|e| panic!("{sc:?}: {e}"));
        if let Ok(dump) = std::env::var("AIRTCP_GOLDEN_DUMP") {
            // For inspecting a difference: write what this build produces.
            let name = want_path.file_name().unwrap();
            std::fs::write(PathBuf::from(dump).join(name), format!("{got}\n")).unwrap();
        }
        if got != want.trim_end() {
            let at = got
                .bytes()
                .zip(want.bytes())
                .position(|(a, b)| a != b)
                .unwrap_or(got.len().min(want.len()));
            let lo = at.saturating_sub(80);
            differ.push(format!(
                "{}: first difference at byte {at}:\n  got  ...{}\n  want ...{}",
                sc.file_name().unwrap().to_string_lossy(),
                &got[lo..(at + 80).min(got.len())],
                &want[lo..(at + 80).min(want.len())]
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} golden results differ:\n{}",
        differ.len(),
        cases.len(),
        differ.join("\n")
    );
}
