//! The build fingerprint leaves out a unit-test module that closes a source file, and nothing
//! else.

include!("../../fingerprint.rs");

#[test]
fn a_closing_test_module_is_left_out() {
    let code = "fn a() -> u32 {\n    1\n}\n\n";
    let tests = "#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn t() {\n        let s = \"}}{\";\n        let c = '}';\n        let r = r#\"}\"#;\n        // }\n        /* { */\n        fn f<'a>(x: &'a str) -> &'a str { x }\n        assert_eq!(a(), 1);\n    }\n}\n";
    let file = format!("{code}{tests}");
    assert_eq!(fingerprinted(&file), code);
    // Editing the tests leaves the fingerprinted text alone.
    let edited = format!("{code}{}", tests.replace("a(), 1", "a() + 1, 2"));
    assert_eq!(fingerprinted(&edited), code);
    let public = format!(
        "{code}{}",
        tests.replace("mod tests", "pub(crate) mod tests")
    );
    assert_eq!(fingerprinted(&public), code);
}

#[test]
fn anything_not_provably_last_is_kept() {
    let code = "fn a() {}\n\n";
    // Code after the test module.
    let after = format!("{code}#[cfg(test)]\nmod tests {{\n    fn t() {{}}\n}}\n\nfn b() {{}}\n");
    assert_eq!(fingerprinted(&after), after);
    // A test-only item that is not a module.
    let item = format!("{code}#[cfg(test)]\nfn helper() {{}}\n");
    assert_eq!(fingerprinted(&item), item);
    // An indented attribute (inside an impl), an unclosed block, no test module at all.
    let inner = "impl A {\n    #[cfg(test)]\n    fn t() {}\n}\n";
    assert_eq!(fingerprinted(inner), inner);
    let open = format!("{code}#[cfg(test)]\nmod tests {{\n    fn t() {{\n}}\n");
    assert_eq!(fingerprinted(&open), open);
    assert_eq!(fingerprinted(code), code);
}

#[test]
fn the_core_s_closing_test_modules_are_recognised() {
    // The lexer gets through the real test modules (strings, lifetimes, raw strings): most
    // files end in one, and what is cut is exactly a `#[cfg(test)]` module.
    let mut files = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src"
    ))];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    let mut cut = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let kept = fingerprinted(&text);
        assert!(text.starts_with(kept));
        let removed = &text[kept.len()..];
        if !removed.is_empty() {
            assert!(removed.starts_with("#[cfg(test)]\n"), "{}", f.display());
            assert!(removed.trim_end().ends_with('}'), "{}", f.display());
            assert!(!kept.contains("#[test]"), "{}", f.display());
            cut += 1;
        }
    }
    assert!(
        cut * 10 >= files.len() * 5,
        "{cut} of {} files cut",
        files.len()
    );
    assert!(cut > 40, "{cut} files cut");
}

#[test]
fn test_only_files_are_named_so_and_declared_behind_cfg_test() {
    assert!(test_only_file("src/tcp/cc/bbr_tests.rs"));
    assert!(test_only_file("src/tcp/sender/tests/recovery.rs"));
    assert!(!test_only_file("src/tcp/sender/recovery.rs"));
    assert!(!test_only_file("src/tests.rs"));
    // Every file the rule leaves out is compiled only for tests: its declaration in the
    // parent directory follows `#[cfg(test)]` (a file inside a test-only `tests/mod.rs` is
    // covered by that module's own declaration).
    let src = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/src"));
    let mut files = Vec::new();
    let mut dirs = vec![src.clone()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    let mut left_out = 0;
    for f in &files {
        let rel = format!("src/{}", f.strip_prefix(&src).unwrap().display());
        if !test_only_file(&rel) {
            continue;
        }
        left_out += 1;
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let dir = f.parent().unwrap();
        let (decl_dir, wanted) = if name == "mod.rs" && dir.ends_with("tests") {
            (
                dir.parent().unwrap().to_path_buf(),
                vec!["mod tests;".to_string()],
            )
        } else if dir.ends_with("tests") {
            continue;
        } else {
            let stem = name.trim_end_matches(".rs");
            (
                dir.to_path_buf(),
                vec![format!("mod {stem};"), format!("\"{name}\"")],
            )
        };
        let mut declared = false;
        for e in std::fs::read_dir(&decl_dir).unwrap().flatten() {
            let p = e.path();
            if p == *f || p.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            for (i, l) in lines.iter().enumerate() {
                if wanted.iter().any(|w| l.contains(w.as_str())) {
                    let before = &lines[i.saturating_sub(2)..i];
                    assert!(
                        before.iter().any(|b| b.trim() == "#[cfg(test)]"),
                        "{} declares {rel} without #[cfg(test)]",
                        p.display()
                    );
                    declared = true;
                }
            }
        }
        assert!(declared, "no declaration of {rel} found");
    }
    assert!(left_out >= 6, "{left_out} test-only files");
}
