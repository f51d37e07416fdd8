//! ns-2 movement files, as ns-2's `setdest` tool and hand-written scenarios give them:
//!
//! ```text
//! $node_(0) set X_ 83.4
//! $node_(0) set Y_ 239.4
//! $node_(0) set Z_ 0.0
//! $ns_ at 2.0 "$node_(0) setdest 369.5 170.5 3.37"
//! $god_ set-dist 0 1 2
//! $ns_ at 30.0 "$god_ set-dist 0 1 1"
//! ```
//!
//! `set X_`/`Y_` place a node at the start (Z_ is read and ignored: the radio models take the
//! antenna height instead); `setdest x y speed` at time t sends it from where it is then
//! towards (x, y) at `speed` m/s, in a straight line; it stops there until its next setdest,
//! and a setdest before it arrives turns it from where it is. `$god_` lines (setdest's
//! shortest-path hints) are skipped, so are comments (`#`) and blank lines. Anything else is
//! an error naming its line.

use super::{advance, ns, Leg, Pos};
use crate::engine::Time;
use std::collections::BTreeMap;

/// One node's part of a movement file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ns2Moves {
    pub x: Option<f64>,
    pub y: Option<f64>,
    /// (time, destination, speed m/s), in time order.
    pub dests: Vec<(Time, Pos, f64)>,
}

/// A movement file: each node's moves, by ns-2 node index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ns2File {
    pub nodes: BTreeMap<usize, Ns2Moves>,
}

fn num(s: &str, line: usize, what: &str) -> Result<f64, String> {
    match s.trim_matches('"').parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("line {line}: {what} must be a number, got '{s}'")),
    }
}

/// `$node_(3)` → 3.
fn node_index(tok: &str, line: usize) -> Result<usize, String> {
    let t = tok.trim_matches('"');
    t.strip_prefix("$node_(")
        .and_then(|r| r.strip_suffix(')'))
        .and_then(|i| i.parse::<usize>().ok())
        .ok_or_else(|| format!("line {line}: expected a node like '$node_(0)', got '{tok}'"))
}

/// Parse a movement file.
pub fn parse_ns2(text: &str) -> Result<Ns2File, String> {
    let mut f = Ns2File::default();
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let toks: Vec<&str> = l.split_whitespace().collect();
        if toks[0] == "$god_" {
            continue;
        }
        if toks[0].starts_with("$node_(") {
            // $node_(i) set X_ v
            if toks.len() != 4 || toks[1] != "set" {
                return Err(format!(
                    "line {line}: expected '$node_(i) set X_|Y_|Z_ value', got '{l}'"
                ));
            }
            let i = node_index(toks[0], line)?;
            let v = num(toks[3], line, toks[2])?;
            let n = f.nodes.entry(i).or_default();
            match toks[2] {
                "X_" => n.x = Some(v),
                "Y_" => n.y = Some(v),
                "Z_" => {}
                other => {
                    return Err(format!(
                        "line {line}: unknown node variable '{other}' (X_, Y_ or Z_)"
                    ))
                }
            }
            continue;
        }
        if toks[0] == "$ns_" && toks.get(1) == Some(&"at") {
            // $ns_ at t "$node_(i) setdest x y s"  (or "$god_ ...")
            let t = num(toks.get(2).unwrap_or(&""), line, "the time")?;
            if t < 0.0 {
                return Err(format!("line {line}: the time must be >= 0, got {t}"));
            }
            let rest: Vec<&str> = toks[3..].iter().map(|s| s.trim_matches('"')).collect();
            if rest.first() == Some(&"$god_") {
                continue;
            }
            if rest.len() != 5 || rest[1] != "setdest" {
                return Err(format!(
                    "line {line}: expected '$ns_ at T \"$node_(i) setdest X Y SPEED\"', got '{l}'"
                ));
            }
            let i = node_index(rest[0], line)?;
            let x = num(rest[2], line, "X")?;
            let y = num(rest[3], line, "Y")?;
            let s = num(rest[4], line, "the speed")?;
            if s < 0.0 {
                return Err(format!("line {line}: the speed must be >= 0, got {s}"));
            }
            f.nodes.entry(i).or_default().dests.push((ns(t), [x, y], s));
            continue;
        }
        return Err(format!(
            "line {line}: not a movement command ('$node_(i) set X_ v' or '$ns_ at T \
             \"$node_(i) setdest X Y SPEED\"'): '{l}'"
        ));
    }
    for n in f.nodes.values_mut() {
        // Stable: two setdests at one time keep the file's order, the later one wins.
        n.dests.sort_by_key(|d| d.0);
    }
    Ok(f)
}

/// A node following its moves of a movement file.
#[derive(Clone, Debug)]
pub struct Ns2Trace {
    dests: Vec<(Time, Pos, f64)>,
    /// Index of the next setdest not yet begun.
    next: usize,
    leg: Leg,
}

impl Ns2Trace {
    pub fn new(start: Pos, dests: Vec<(Time, Pos, f64)>) -> Ns2Trace {
        let first = dests.first().map_or(Time::MAX, |d| d.0);
        Ns2Trace {
            dests,
            next: 0,
            leg: Leg::pause(0, start, first),
        }
    }

    pub fn leg(&mut self, now: Time) -> Leg {
        let Ns2Trace { dests, next, leg } = self;
        advance(leg, now, |l| {
            let here = l.end();
            let t = l.t1;
            // Setdests due now begin (the last of several at one time wins).
            let mut target = None;
            while *next < dests.len() && dests[*next].0 <= t {
                target = Some(dests[*next]);
                *next += 1;
            }
            let until = dests.get(*next).map_or(Time::MAX, |d| d.0);
            let Some((_, to, s)) = target else {
                // Arrived: wait for the next setdest.
                return Leg::pause(t, here, until);
            };
            let d = crate::medium::radio::distance(here, to);
            if s <= 0.0 || d == 0.0 {
                return Leg::pause(t, here, until);
            }
            let arrive = t.saturating_add(ns(d / s).max(1));
            let dt = (arrive - t) as f64 / crate::engine::SEC as f64;
            let v = [(to[0] - here[0]) / dt, (to[1] - here[1]) / dt];
            Leg {
                t0: t,
                p0: here,
                v,
                t1: arrive.min(until),
            }
        });
        *leg
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SEC;

    const FILE: &str = r#"
# nodes: 2, pause: 2.00, max speed: 10.00, max x: 500.00, max y: 500.00
$node_(0) set X_ 100.0
$node_(0) set Y_ 200.0
$node_(0) set Z_ 0.000000000000
$node_(1) set X_ 0.0
$node_(1) set Y_ 0.0

$god_ set-dist 0 1 1
$ns_ at 2.0 "$node_(0) setdest 130.0 240.0 5.0"
$ns_ at 1.0 "$node_(1) setdest 100.0 0.0 10.0"
$ns_ at 5.0 "$node_(1) setdest 50.0 0.0 10.0"
$ns_ at 3.00 "$god_ set-dist 0 1 2"
"#;

    #[test]
    fn parses_setdest_output() {
        let f = parse_ns2(FILE).unwrap();
        assert_eq!(f.nodes.len(), 2);
        let n0 = &f.nodes[&0];
        assert_eq!((n0.x, n0.y), (Some(100.0), Some(200.0)));
        assert_eq!(n0.dests, vec![(2 * SEC, [130.0, 240.0], 5.0)]);
        assert_eq!(f.nodes[&1].dests.len(), 2);
    }

    #[test]
    fn follows_setdest() {
        let f = parse_ns2(FILE).unwrap();
        let n0 = &f.nodes[&0];
        let mut m = Ns2Trace::new([n0.x.unwrap(), n0.y.unwrap()], n0.dests.clone());
        assert_eq!(m.leg(SEC).at(SEC), [100.0, 200.0]);
        // 50 m at 5 m/s: arrives at 12 s; halfway at 7 s.
        let p = m.leg(7 * SEC).at(7 * SEC);
        assert!(
            (p[0] - 115.0).abs() < 1e-6 && (p[1] - 220.0).abs() < 1e-6,
            "{p:?}"
        );
        let p = m.leg(100 * SEC).at(100 * SEC);
        assert!(
            (p[0] - 130.0).abs() < 1e-6 && (p[1] - 240.0).abs() < 1e-6,
            "{p:?}"
        );
        assert_eq!(m.leg(100 * SEC).speed(), 0.0);
        // Node 1 turns at 5 s, at x = 40, before reaching 100, and heads back to 50.
        let n1 = &f.nodes[&1];
        let mut m = Ns2Trace::new([0.0, 0.0], n1.dests.clone());
        let p = m.leg(5 * SEC).at(5 * SEC);
        assert!((p[0] - 40.0).abs() < 1e-6, "{p:?}");
        let p = m.leg(6 * SEC).at(6 * SEC);
        assert!((p[0] - 50.0).abs() < 1e-6, "{p:?}");
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse_ns2("$node_(0) set X_ 1\n\n$node_(0) set W_ 3\n").unwrap_err();
        assert!(e.starts_with("line 3: unknown node variable 'W_'"), "{e}");
        let e = parse_ns2("# c\n$ns_ at 2.0 \"$node_(0) setdest 1 abc 3\"").unwrap_err();
        assert!(
            e.starts_with("line 2: Y must be a number, got 'abc'"),
            "{e}"
        );
        let e = parse_ns2("$ns_ at x \"$node_(0) setdest 1 2 3\"").unwrap_err();
        assert!(e.starts_with("line 1: the time must be a number"), "{e}");
        let e = parse_ns2("set opt(x) 5").unwrap_err();
        assert!(e.starts_with("line 1: not a movement command"), "{e}");
        let e = parse_ns2("$node_(a) set X_ 1").unwrap_err();
        assert!(e.starts_with("line 1: expected a node"), "{e}");
        let e = parse_ns2("$ns_ at 1 \"$node_(0) setdest 1 2 -3\"").unwrap_err();
        assert!(e.starts_with("line 1: the speed must be >= 0"), "{e}");
    }
}
