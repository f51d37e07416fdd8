//! Scenario files: the serde schema, parsing with field paths in errors, validation, and
//! building a simulation.

pub mod build;
pub mod files;
#[cfg(test)]
mod params_check;
pub mod params_meta;
mod pcap;
#[macro_use]
mod tagged;
pub mod layout;
pub mod mobility;
mod routing;
pub mod schema;
pub mod tcp_options;
pub mod units;
mod wifi;

pub use build::{build, build_with};
pub use files::FileAccess;
pub use schema::Scenario;

use serde::Deserialize;
use std::fmt;

/// A bad scenario value: where it is and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Field path such as `flows[2].cc` (empty for the document as a whole).
    pub path: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

fn from_value(v: serde_json::Value) -> Result<Scenario, ScenarioError> {
    serde_path_to_error::deserialize::<_, Scenario>(v).map_err(|e| {
        let path = e.path().to_string();
        path_error(path, e.into_inner().to_string())
    })
}

/// A deserialization error at `path` as a ScenarioError naming the field.
fn path_error(path: String, msg: String) -> ScenarioError {
    {
        // A tagged table (error model, app, agent, queue) names the field inside it.
        let (path, msg) = match tagged::split_inner_path(&msg) {
            Some((inner, m)) => (tagged::join_path(&path, inner), m.to_string()),
            None => (tagged::join_path(&path, ""), msg),
        };
        // serde reports a missing key at its parent; name the key itself in the path.
        if let Some(field) = msg
            .strip_prefix("missing field `")
            .and_then(|r| r.strip_suffix('`'))
        {
            let full = if field.is_empty() {
                // An empty key has no name to show: write it as a quoted one.
                tagged::join_path(path.strip_suffix('.').unwrap_or(&path), "[\"\"]")
            } else if path.is_empty() {
                field.to_string()
            } else {
                format!("{path}.{field}")
            };
            return ScenarioError::new(full, "missing required field");
        }
        // Likewise an unknown key: name it in the path.
        if let Some((field, rest)) = msg
            .strip_prefix("unknown field `")
            .and_then(|r| r.split_once('`'))
        {
            // serde_path_to_error already names it; a table that checks its own keys (the
            // queue) reports at the table.
            let full = if field.is_empty() {
                // An empty key has no name to show: write it as a quoted one.
                tagged::join_path(path.strip_suffix('.').unwrap_or(&path), "[\"\"]")
            } else if path.is_empty() {
                field.to_string()
            } else if path == field || path.ends_with(&format!(".{field}")) {
                path.clone()
            } else {
                format!("{path}.{field}")
            };
            return ScenarioError::new(full, format!("unknown field `{field}`{rest}"));
        }
        ScenarioError::new(path, msg)
    }
}

/// Parse a scenario from JSON text. A valid document goes straight into the scenario (no
/// intermediate document, so a large scenario costs little more memory than its text); an
/// invalid one is read again through a `serde_json::Value`, whose errors name the field the
/// same way for every input.
pub fn parse_json(text: &str) -> Result<Scenario, ScenarioError> {
    let mut de = serde_json::Deserializer::from_str(text);
    if let Ok(sc) = Scenario::deserialize(&mut de) {
        if de.end().is_ok() {
            return Ok(sc);
        }
    }
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| ScenarioError::new("", format!("invalid JSON: {e}")))?;
    from_value(v)
}

/// Parse a scenario from TOML text.
pub fn parse_toml(text: &str) -> Result<Scenario, ScenarioError> {
    let v: serde_json::Value =
        toml::from_str(text).map_err(|e| ScenarioError::new("", format!("invalid TOML: {e}")))?;
    from_value(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The document path: what parse_json gave before it read valid text directly.
    fn through_value(text: &str) -> Result<Scenario, ScenarioError> {
        let v: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| ScenarioError::new("", format!("invalid JSON: {e}")))?;
        from_value(v)
    }

    #[test]
    fn reading_json_directly_changes_neither_scenarios_nor_errors() {
        let ok = r#"{"duration": 2, "seed": 3, "nodes": [{"name": "A"}, {"name": "B"}],
            "links": [{"a": "A", "b": "B", "rate": "1Mbps", "delay": "1ms"}],
            "flows": [{"name": "f", "src": "A", "dst": "B", "app": {"kind": "bulk"}}]}"#;
        let cases = [
            ok.to_string(),
            ok.replace(r#""seed": 3"#, r#""seed": "three""#),
            ok.replace(r#""seed": 3"#, r#""seed": 3, "sede": 1"#),
            ok.replace(r#""seed": 3"#, r#""seed": 3, "seed": 4"#),
            ok.replace(r#""kind": "bulk""#, r#""kind": null"#),
            format!("{ok} trailing"),
            ok[..40].to_string(),
        ];
        for text in &cases {
            assert_eq!(
                format!("{:?}", parse_json(text)),
                format!("{:?}", through_value(text)),
                "{text}"
            );
        }
        assert!(parse_json(&cases[0]).is_ok());
    }
}
