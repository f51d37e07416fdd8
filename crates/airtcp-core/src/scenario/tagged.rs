//! Tables whose `kind` (or `model`) key names a variant: `{ model = "ber", ber = 1e-5 }`.
//!
//! Serde forgets where it is inside an internally tagged enum, so an error in such a table
//! would name only the table. [`tagged_enum!`] reads the tag itself, then the variant's fields
//! as a struct of their own, and hands the path inside the table out at the start of the
//! message (`"\u{1f}<path>\u{1f}<message>"`); `scenario::from_value` joins it to the table's
//! path, so the error names the field (`links[3].error.mean_good`).

use serde_json::Value;

const INNER: char = '\u{1f}';

/// A message carrying `path` (relative to the table), merged with any inner path `msg` has.
pub(crate) fn with_inner_path(path: &str, msg: &str) -> String {
    let (p, m) = match split_inner_path(msg) {
        Some((q, m)) => (join_path(path, q), m),
        None => (join_path(path, ""), msg),
    };
    format!("{INNER}{p}{INNER}{m}")
}

/// `(inner path, message)` of a message made by [`with_inner_path`].
pub(crate) fn split_inner_path(msg: &str) -> Option<(&str, &str)> {
    msg.strip_prefix(INNER)?.split_once(INNER)
}

/// `a.b` from `a` and `b`; either may be empty (or `.`, serde_path_to_error's empty path), and
/// `b` may start with an index (`[2]`).
pub(crate) fn join_path(a: &str, b: &str) -> String {
    let a = if a == "." { "" } else { a };
    let b = if b == "." { "" } else { b };
    if a.is_empty() {
        b.to_string()
    } else if b.is_empty() {
        a.to_string()
    } else if b.starts_with('[') {
        format!("{a}{b}")
    } else {
        format!("{a}.{b}")
    }
}

/// Deserialize one variant's fields from what is left of a tagged table, keeping the path of
/// a bad value inside it.
pub(crate) fn variant_fields<T: serde::de::DeserializeOwned, E: serde::de::Error>(
    v: Value,
) -> Result<T, E> {
    serde_path_to_error::deserialize::<_, T>(v).map_err(|e| {
        let path = e.path().to_string();
        E::custom(with_inner_path(&path, &e.into_inner().to_string()))
    })
}

/// The tag of a tagged table, removed from it; errors about it name the tag key.
pub(crate) fn take_tag<E: serde::de::Error>(
    v: &mut Value,
    tag: &str,
    variants: &[&str],
) -> Result<String, E> {
    let list = variants
        .iter()
        .map(|v| format!("`{v}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let Some(m) = v.as_object_mut() else {
        return Err(E::custom(format!(
            "invalid type: {}, expected a table with `{tag}` (one of {list})",
            json_kind(v)
        )));
    };
    match m.remove(tag) {
        Some(Value::String(s)) if variants.contains(&s.as_str()) => Ok(s),
        Some(Value::String(s)) => Err(E::custom(with_inner_path(
            tag,
            &format!("unknown variant `{s}`, expected one of {list}"),
        ))),
        Some(other) => Err(E::custom(with_inner_path(
            tag,
            &format!(
                "invalid type: {}, expected one of {list}",
                json_kind(&other)
            ),
        ))),
        None => Err(E::custom(format!("missing field `{tag}`"))),
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "a table",
    }
}

/// An enum written as a table whose `tag` key names the variant. Serialization is serde's
/// internally tagged form; deserialization is described in the module docs. Each variant is
/// `Name = "tag value" { fields }`, fields with their serde attributes as in a struct.
macro_rules! tagged_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident (tag = $tag:literal) {
            $(
                $(#[$vmeta:meta])*
                $variant:ident = $vname:literal {
                    $( $(#[$fmeta:meta])* $field:ident : $fty:ty ),* $(,)?
                }
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Serialize)]
        #[serde(tag = $tag)]
        pub enum $name {
            $(
                $(#[$vmeta])*
                #[serde(rename = $vname)]
                $variant { $( $(#[$fmeta])* $field: $fty ),* }
            ),*
        }

        impl $name {
            /// The variants' names, as the tag gives them.
            pub const VARIANTS: &'static [&'static str] = &[$($vname),*];
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                use $crate::scenario::tagged::{take_tag, variant_fields};
                let mut v = serde_json::Value::deserialize(d)?;
                let tag = take_tag::<D::Error>(&mut v, $tag, Self::VARIANTS)?;
                match tag.as_str() {
                    $(
                        $vname => {
                            #[derive(Deserialize)]
                            #[serde(deny_unknown_fields)]
                            struct V { $( $(#[$fmeta])* $field: $fty ),* }
                            #[allow(unused_variables)]
                            let f: V = variant_fields::<V, D::Error>(v)?;
                            Ok($name::$variant { $( $field: f.$field ),* })
                        }
                    )*
                    _ => unreachable!("take_tag checked the variant"),
                }
            }
        }
    };
}
