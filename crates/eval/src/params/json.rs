//! JSON parameter files: one object keyed by term name, in table order.
//!
//! `S` values are `[mid, end]`, arrays of `S` are `[[mid, end], ...]`, integers are plain
//! numbers. Terms missing from a file keep their declared default, so files written before
//! a term was added still load.

use super::{Params, Shape, TermId};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use texel_files::write_atomically;

/// Why a parameter file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ParamsError {
    /// The file could not be read or written.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
    /// No parameter file is there to read.
    #[error(
        "{0}: no such parameter file (`texel tune --out FILE` writes a tuned table; \
         `preset:tuned` names the one texel ships)"
    )]
    Missing(PathBuf),
    /// The text is not JSON.
    #[error("not valid JSON: {0}")]
    Json(String),
    /// What is wrong with a file's content, with the file.
    #[error("{path}: {error}")]
    InFile {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        error: Box<ParamsError>,
    },
    /// `preset:NAME` names no preset.
    #[error("no preset {0:?} (presets: {names})", names = super::Preset::names())]
    NoPreset(String),
    /// The top level is not an object.
    #[error("a parameter file must be a JSON object keyed by term name")]
    NotAnObject,
    /// A key names no term of the table.
    #[error("unknown term {0:?}")]
    UnknownTerm(String),
    /// A value does not have the term's shape.
    #[error("term {term}: expected {expected}, found {found}")]
    WrongShape {
        /// The term.
        term: &'static str,
        /// What the shape requires.
        expected: String,
        /// What the file holds.
        found: String,
    },
    /// A value beyond ±[`super::VALUE_BOUND`].
    #[error("term {slot}: {value} is outside the bounds -{bound}..{bound} every value keeps")]
    OutOfBounds {
        /// The value's name (`KNIGHT_OUTPOST[1].end`).
        slot: String,
        /// The offending value.
        value: i32,
        /// The bound.
        bound: i32,
    },
    /// A term is given twice.
    #[error("term {0} is given twice")]
    Duplicate(String),
    /// A number is not an integer that fits in 32 bits.
    #[error("term {term}: {value} is not a 32-bit integer")]
    NotInteger {
        /// The term.
        term: &'static str,
        /// The offending value.
        value: String,
    },
}

/// A file error carrying the path and a cause.
fn io_error(path: &Path, cause: std::io::Error) -> ParamsError {
    ParamsError::Io {
        path: path.to_path_buf(),
        cause,
    }
}

/// The JSON layout a shape requires, for error messages.
fn expected_layout(shape: Shape) -> String {
    match shape {
        Shape::Score => "[mid, end]".into(),
        Shape::Int => "an integer".into(),
        Shape::ScoreArray(n) => format!("an array of {n} [mid, end] pairs"),
        Shape::IntArray(n) => format!("an array of {n} integers"),
    }
}

impl Params {
    /// The parameters as a JSON object in table order.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        for term in TermId::all() {
            let info = term.info();
            let v = self.term_values(term);
            let value = match info.shape {
                Shape::Score => Value::from(v.to_vec()),
                Shape::Int => Value::from(v[0]),
                Shape::IntArray(_) => Value::from(v.to_vec()),
                Shape::ScoreArray(_) => {
                    Value::Array(v.chunks(2).map(|c| Value::from(c.to_vec())).collect())
                }
            };
            map.insert(info.name.to_string(), value);
        }
        Value::Object(map)
    }

    /// The parameters as pretty-printed JSON text, one term per line.
    pub fn to_json_string(&self) -> String {
        let Value::Object(map) = self.to_json() else {
            unreachable!("to_json builds an object")
        };
        let lines: Vec<String> = map
            .iter()
            .map(|(k, v)| format!("  {}: {}", Value::from(k.as_str()), v))
            .collect();
        format!("{{\n{}\n}}\n", lines.join(",\n"))
    }

    /// Parses a parameter file: every key must name a term and hold its shape; missing
    /// terms keep their declared default. A leading byte-order mark is skipped.
    ///
    /// # Errors
    /// Invalid JSON, an unknown term, a wrong shape or a non-integer value.
    pub fn from_json_str(text: &str) -> Result<Params, ParamsError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let entries: Entries = serde_json::from_str(text).map_err(|e| match e.to_string() {
            m if m.starts_with(NOT_AN_OBJECT) => ParamsError::NotAnObject,
            m => ParamsError::Json(m),
        })?;
        let mut params = Params::default();
        let mut seen = std::collections::HashSet::new();
        for (name, value) in &entries.0 {
            let term =
                TermId::by_name(name).ok_or_else(|| ParamsError::UnknownTerm(name.clone()))?;
            if !seen.insert(term) {
                return Err(ParamsError::Duplicate(name.clone()));
            }
            let values = term_values_from_json(term, value)?;
            let range = term.info().flat_range();
            for (slot, v) in range.zip(values) {
                if !super::in_bounds(v) {
                    return Err(ParamsError::OutOfBounds {
                        slot: super::flat_params()[slot].name(),
                        value: v,
                        bound: super::VALUE_BOUND,
                    });
                }
                params.set_flat(slot, v);
            }
        }
        Ok(params)
    }

    /// Reads a parameter file.
    ///
    /// # Errors
    /// An unreadable file, or any error of [`Params::from_json_str`].
    pub fn load(path: &Path) -> Result<Params, ParamsError> {
        let text = std::fs::read_to_string(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => ParamsError::Missing(path.to_path_buf()),
            _ => io_error(path, e),
        })?;
        Params::from_json_str(&text).map_err(|error| ParamsError::InFile {
            path: path.to_path_buf(),
            error: Box::new(error),
        })
    }

    /// Reads a parameter file, or a preset when `path` is `preset:NAME`.
    ///
    /// # Errors
    /// An unknown preset, or any error of [`Params::load`].
    pub fn load_or_preset(path: &Path) -> Result<Params, ParamsError> {
        match path.to_str().and_then(|s| s.strip_prefix("preset:")) {
            Some(name) => super::Preset::by_name(name)
                .map(super::Preset::params)
                .ok_or_else(|| ParamsError::NoPreset(name.to_string())),
            None => Params::load(path),
        }
    }

    /// Writes a parameter file atomically (a temporary file renamed over the target).
    ///
    /// # Errors
    /// The file could not be written.
    pub fn save(&self, path: &Path) -> Result<(), ParamsError> {
        write_atomically(path, self.to_json_string().as_bytes()).map_err(|e| io_error(path, e))
    }
}

/// The start of the error for a top level that is not an object.
const NOT_AN_OBJECT: &str = "a parameter file must be a JSON object";

/// A JSON object's entries in file order, duplicates kept (a map would drop all but one).
struct Entries(Vec<(String, Value)>);

impl<'de> serde::Deserialize<'de> for Entries {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Entries, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Entries;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(NOT_AN_OBJECT)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Entries, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, Value>()? {
                    out.push(entry);
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(Visit)
    }
}

/// One JSON number as an `i32`.
fn int(term: &'static str, v: &Value) -> Result<i32, ParamsError> {
    v.as_i64()
        .and_then(|x| i32::try_from(x).ok())
        .ok_or_else(|| ParamsError::NotInteger {
            term,
            value: v.to_string(),
        })
}

/// A JSON array of exactly `n` elements.
fn array<'a>(
    term: &'static str,
    shape: Shape,
    v: &'a Value,
    n: usize,
) -> Result<&'a Vec<Value>, ParamsError> {
    match v {
        Value::Array(a) if a.len() == n => Ok(a),
        _ => Err(ParamsError::WrongShape {
            term,
            expected: expected_layout(shape),
            found: v.to_string(),
        }),
    }
}

/// The flat slots of `term` read from its JSON value.
fn term_values_from_json(term: TermId, v: &Value) -> Result<Vec<i32>, ParamsError> {
    let info = term.info();
    let (name, shape) = (info.name, info.shape);
    let scalar = |v: &Value| match v {
        Value::Number(_) => int(name, v),
        _ => Err(ParamsError::WrongShape {
            term: name,
            expected: expected_layout(shape),
            found: v.to_string(),
        }),
    };
    let pair = |v: &Value| -> Result<[i32; 2], ParamsError> {
        let a = array(name, shape, v, 2)?;
        Ok([scalar(&a[0])?, scalar(&a[1])?])
    };
    match shape {
        Shape::Int => Ok(vec![scalar(v)?]),
        Shape::Score => Ok(pair(v)?.to_vec()),
        Shape::IntArray(n) => array(name, shape, v, n)?.iter().map(scalar).collect(),
        Shape::ScoreArray(n) => {
            let mut out = Vec::with_capacity(2 * n);
            for e in array(name, shape, v, n)? {
                out.extend(pair(e)?);
            }
            Ok(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::*;
    use crate::S;

    #[test]
    fn round_trip_keeps_every_value() {
        let mut p = Params::default();
        p.set(BISHOP_PAIR, S(1, -2));
        p.set(KS_ATTACK_SUB, 7);
        p.set(KNIGHT_OUTPOST, [S(3, 4), S(5, 6)]);
        let back = Params::from_json_str(&p.to_json_string()).unwrap();
        assert_eq!(back, p);
    }

    #[test]
    fn missing_terms_keep_defaults() {
        let p = Params::from_json_str(r#"{"BISHOP_PAIR": [1, 2]}"#).unwrap();
        assert_eq!(p.get(BISHOP_PAIR), S(1, 2));
        assert_eq!(p.get(KS_ATTACK_SUB), 280);
    }

    #[test]
    fn bad_files_name_the_problem() {
        let err = |s: &str| Params::from_json_str(s).unwrap_err().to_string();
        assert_eq!(err(r#"{"NO_SUCH": 1}"#), r#"unknown term "NO_SUCH""#);
        assert!(err(r#"{"BISHOP_PAIR": 1}"#).contains("BISHOP_PAIR: expected [mid, end]"));
        assert!(err(r#"{"KNIGHT_OUTPOST": [[1, 2]]}"#).contains("array of 2"));
        assert!(err(r#"{"KS_ATTACK_SUB": 2.5}"#).contains("KS_ATTACK_SUB: 2.5 is not"));
        assert!(err(r#"{"KS_ATTACK_SUB": 9999999999}"#).contains("not a 32-bit"));
        assert!(err("[1]").contains("JSON object"));
        assert!(err("7").contains("JSON object"));
        assert_eq!(
            err(r#"{"BISHOP_PAIR": [1, 2], "BISHOP_PAIR": [3, 4]}"#),
            "term BISHOP_PAIR is given twice"
        );
        assert_eq!(
            err(r#"{"BISHOP_PAIR": [1, 10001]}"#),
            "term BISHOP_PAIR.end: 10001 is outside the bounds -10000..10000 every value keeps"
        );
        assert!(Params::from_json_str(r#"{"BISHOP_PAIR": [-10000, 10000]}"#).is_ok());
        assert!(err("{").contains("not valid JSON"));
    }
}
