//! Small shared helpers.

/// Levenshtein distance, for "did you mean" suggestions.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// "unknown <what> 'x' (did you mean 'y'?)" or the list of known names.
pub fn unknown_name(what: &str, name: &str, known: &[&str]) -> String {
    let best = known
        .iter()
        .map(|k| (edit_distance(&name.to_lowercase(), &k.to_lowercase()), *k))
        .min();
    match best {
        Some((d, k)) if d <= 2.max(name.len() / 3) => {
            format!("unknown {what} '{name}' (did you mean '{k}'?)")
        }
        _ => format!("unknown {what} '{name}' (known: {})", known.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_and_suggestion() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(
            unknown_name("scheme", "nwereno", &["newreno", "vegas"]),
            "unknown scheme 'nwereno' (did you mean 'newreno'?)"
        );
        assert!(unknown_name("scheme", "zzzzzzzz", &["newreno"]).contains("known: newreno"));
    }
}
