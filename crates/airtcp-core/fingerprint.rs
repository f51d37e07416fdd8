// The part of a source file that decides what the simulator does, for the build fingerprint
// (`build.rs`; tested in `tests/suite/fingerprint.rs`): the whole file, less a unit-test
// module that closes it, so that editing unit tests does not mark stored results as stale.
// Only a module that is provably last is left out (`#[cfg(test)]` at the start of a line, then
// `mod name {`, its braces balanced to the end of the file); anything else is kept whole.

/// `text` without a trailing `#[cfg(test)] mod ... { ... }` block.
pub fn fingerprinted(text: &str) -> &str {
    let marker = "\n#[cfg(test)]\n";
    let Some(at) = text.rfind(marker) else {
        return text;
    };
    let rest = &text[at + marker.len()..];
    let header_end = rest.find('\n').unwrap_or(rest.len());
    let header = rest[..header_end].trim_end();
    let name = header
        .strip_prefix("pub(crate) mod ")
        .or_else(|| header.strip_prefix("mod "))
        .and_then(|h| h.strip_suffix(" {"));
    if !name.is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || c == '_'))
    {
        return text;
    }
    match block_end(&rest[header_end..]) {
        Some(end) if rest[header_end + end..].trim().is_empty() => &text[..at + 1],
        _ => text,
    }
}

/// Where the block opened just before `s` closes (the index after its `}`), skipping
/// comments, strings and character literals; `None` if it does not close.
fn block_end(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut depth = 1usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut nest = 1;
                i += 2;
                while i < b.len() && nest > 0 {
                    if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        nest += 1;
                        i += 1;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        nest -= 1;
                        i += 1;
                    }
                    i += 1;
                }
                continue;
            }
            b'r' if matches!(b.get(i + 1), Some(b'"') | Some(b'#'))
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
            {
                // A raw string: r"..." or r#"..."#, closed by a quote and as many hashes.
                let mut j = i + 1;
                let mut hashes = 0;
                while b.get(j) == Some(&b'#') {
                    hashes += 1;
                    j += 1;
                }
                if b.get(j) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                j += 1;
                loop {
                    if j >= b.len() {
                        return None;
                    }
                    if b[j] == b'"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&b'#')) {
                        i = j + 1 + hashes;
                        break;
                    }
                    j += 1;
                }
                continue;
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'\'' => {
                // A character literal ('x', '\n', '\''), or else a lifetime or label.
                if b.get(i + 1) == Some(&b'\\') {
                    i += 2;
                    while i < b.len() && b[i] != b'\'' {
                        i += 1;
                    }
                } else if b.get(i + 2) == Some(&b'\'') {
                    i += 2;
                } else if let Some(c) = s[i + 1..].chars().next() {
                    // A multi-byte character literal.
                    if b.get(i + 1 + c.len_utf8()) == Some(&b'\'') {
                        i += c.len_utf8() + 1;
                    }
                }
            }
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// A file of unit tests only, which its parent declares behind `#[cfg(test)]` (checked in
/// `tests/suite/fingerprint.rs`): `*_tests.rs`, or a file in a `tests` directory under `src`.
/// Left out of the fingerprint whole, as a closing test module is.
pub fn test_only_file(rel: &str) -> bool {
    let rel = rel.replace('\\', "/");
    let mut dirs = rel.split('/').rev().skip(1);
    rel.ends_with("_tests.rs") || dirs.any(|c| c == "tests")
}
