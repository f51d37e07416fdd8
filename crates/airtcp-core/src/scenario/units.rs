//! Values with units: rates, durations and sizes accept a plain number in base units or a string
//! such as "10Mbps", "2ms", "128KiB".

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;

use crate::engine::Time;

/// Splits "12.5 Mbps" into (12.5, "Mbps").
fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || *c == '-' || *c == '+' || *c == 'e'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    // An 'e' directly followed by a letter is a unit, not an exponent.
    let (mut num, mut unit) = s.split_at(end);
    if num.ends_with('e') {
        num = &num[..num.len() - 1];
        unit = &s[num.len()..];
    }
    let v: f64 = num.parse().ok()?;
    Some((v, unit.trim()))
}

pub fn parse_rate(s: &str) -> Result<f64, String> {
    let (v, unit) = split_number(s).ok_or_else(|| format!("invalid rate '{s}'"))?;
    let mult = match unit {
        "" | "bps" | "b/s" => 1.0,
        "kbps" | "Kbps" | "kb/s" => 1e3,
        "Mbps" | "mbps" | "Mb/s" => 1e6,
        "Gbps" | "gbps" | "Gb/s" => 1e9,
        _ => {
            return Err(format!(
                "invalid rate '{s}': unknown unit '{unit}' (use bps, kbps, Mbps or Gbps)"
            ))
        }
    };
    Ok(v * mult)
}

pub fn parse_duration(s: &str) -> Result<f64, String> {
    let (v, unit) = split_number(s).ok_or_else(|| format!("invalid duration '{s}'"))?;
    let mult = match unit {
        "" | "s" | "sec" => 1.0,
        "ms" => 1e-3,
        "us" | "µs" => 1e-6,
        "ns" => 1e-9,
        "min" => 60.0,
        _ => {
            return Err(format!(
                "invalid duration '{s}': unknown unit '{unit}' (use ns, us, ms, s or min)"
            ))
        }
    };
    Ok(v * mult)
}

pub fn parse_size(s: &str) -> Result<f64, String> {
    let (v, unit) = split_number(s).ok_or_else(|| format!("invalid size '{s}'"))?;
    let mult = match unit {
        "" | "B" => 1.0,
        "kB" | "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => {
            return Err(format!(
                "invalid size '{s}': unknown unit '{unit}' (use B, kB, MB, GB, KiB, MiB or GiB)"
            ))
        }
    };
    Ok(v * mult)
}

macro_rules! unit_type {
    ($name:ident, $what:expr, $parse:ident, $check:expr, $doc:expr) => {
        #[doc = $doc]
        #[derive(Clone, Copy, Debug, PartialEq, Serialize)]
        pub struct $name(pub f64);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        write!(f, "a {} (a number or a string with a unit)", $what)
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$name, E> {
                        let check: fn(f64) -> Result<(), String> = $check;
                        check(v).map_err(E::custom)?;
                        Ok($name(v))
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        self.visit_f64(v as f64)
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$name, E> {
                        self.visit_f64(v as f64)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$name, E> {
                        let v = $parse(s).map_err(E::custom)?;
                        let check: fn(f64) -> Result<(), String> = $check;
                        check(v).map_err(|m| E::custom(format!("'{s}': {m}")))?;
                        Ok($name(v))
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

/// Largest duration a scenario may give (about 3 years): every time stays below 2^63 ns even
/// after a few are added, so time arithmetic cannot overflow.
pub const MAX_DURATION_S: f64 = 1e8;
/// Fastest rate (1 Pb/s) and slowest (1 b/s) a link or source may have.
pub const MAX_RATE_BPS: f64 = 1e15;
pub const MIN_RATE_BPS: f64 = 1.0;
/// Largest size (2^53 bytes: whole bytes stay exact in a float).
pub const MAX_SIZE_B: f64 = 9_007_199_254_740_992.0;

fn finite(v: f64) -> Result<(), String> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(format!("must be finite, got {v}"))
    }
}

unit_type!(
    Rate,
    "rate",
    parse_rate,
    |v| {
        finite(v)?;
        if v <= 0.0 {
            Err(format!("rate must be > 0, got {v}"))
        } else if v < MIN_RATE_BPS {
            Err(format!("rate must be at least {MIN_RATE_BPS} bps, got {v}"))
        } else if v > MAX_RATE_BPS {
            Err(format!(
                "rate must be at most {MAX_RATE_BPS:e} bps, got {v:e}"
            ))
        } else {
            Ok(())
        }
    },
    "A rate in bits per second."
);
unit_type!(
    Duration,
    "duration",
    parse_duration,
    |v| {
        finite(v)?;
        if v < 0.0 {
            Err(format!("duration must be >= 0, got {v}"))
        } else if v > MAX_DURATION_S {
            Err(format!(
                "duration must be at most {MAX_DURATION_S:e} s, got {v:e}"
            ))
        } else {
            Ok(())
        }
    },
    "A duration in seconds."
);
unit_type!(
    Size,
    "size",
    parse_size,
    |v| {
        finite(v)?;
        if v < 0.0 {
            Err(format!("size must be >= 0, got {v}"))
        } else if v > MAX_SIZE_B {
            Err(format!("size must be at most 2^53 bytes, got {v:e}"))
        } else {
            Ok(())
        }
    },
    "A size in bytes."
);

impl Rate {
    pub fn bps(self) -> u64 {
        self.0.round().max(1.0) as u64
    }
}
impl Duration {
    pub fn ns(self) -> Time {
        (self.0 * 1e9).round() as Time
    }
    pub fn from_secs(s: f64) -> Self {
        Duration(s)
    }
}
impl Size {
    pub fn bytes(self) -> u64 {
        self.0.round() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units() {
        assert_eq!(parse_rate("10Mbps").unwrap(), 10e6);
        assert_eq!(parse_rate("1.5 Gbps").unwrap(), 1.5e9);
        assert_eq!(parse_rate("500kbps").unwrap(), 500e3);
        assert_eq!(parse_duration("2ms").unwrap(), 0.002);
        assert!((parse_duration("100 us").unwrap() - 1e-4).abs() < 1e-15);
        assert_eq!(parse_duration("1min").unwrap(), 60.0);
        assert_eq!(parse_size("128KiB").unwrap(), 131072.0);
        assert_eq!(parse_size("5MB").unwrap(), 5e6);
        assert_eq!(parse_size("1e3").unwrap(), 1000.0);
        assert!(parse_rate("10Mbs")
            .unwrap_err()
            .contains("unknown unit 'Mbs'"));
        assert!(parse_duration("fast").is_err());
    }

    #[test]
    fn rejects_negative_rate() {
        let e = serde_json::from_str::<Rate>("-5").unwrap_err().to_string();
        assert!(e.contains("rate must be > 0, got -5"), "{e}");
        let e = serde_json::from_str::<Rate>("\"-5Mbps\"")
            .unwrap_err()
            .to_string();
        assert!(e.contains("'-5Mbps'"), "{e}");
        assert_eq!(
            serde_json::from_str::<Duration>("\"2ms\"").unwrap().ns(),
            2_000_000
        );
    }
}
