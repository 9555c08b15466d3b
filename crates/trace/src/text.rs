//! The text form of the trace format: one JSON object a line, the header first
//! (`docs/trace-format.md`). A script in any language can write it.

use crate::space::{Param, ParamSpace};
use serde_json::{json, Map, Value};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// The `format` of a trace header.
pub const FORMAT: &str = "texel-trace";

/// The version of the format read and written here.
pub const VERSION: u64 = 1;

/// One coefficient of a position: an entry of the space and its White-minus-Black count,
/// or, for a tapered entry an engine tapers itself, its middlegame and endgame counts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Coef {
    /// `[i, c]`: `c · (phase · mid + (1 − phase) · scale · end)`, or `c · v` for a plain
    /// entry.
    Count(u32, f32),
    /// `[i, c_mid, c_end]`: `c_mid · mid + scale · c_end · end` (tapered entries only).
    Split(u32, f32, f32),
}

/// One position of a trace.
///
/// The default is an empty position with all fields zero: a buffer to decode into.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TracedPosition {
    /// The game result from White's view: 0, 0.5 or 1.
    pub result: f32,
    /// A score label from White's view (0 to 1), when the trace gives one.
    pub score: Option<f32>,
    /// The weight of the middlegame value, 0 to 1.
    pub phase: f32,
    /// The factor of the endgame part, 0 to 1 (1 when absent).
    pub scale: f32,
    /// The part of the evaluation that is not tuned, centipawns from White's view.
    pub offset: f32,
    /// The coefficients.
    pub coeffs: Vec<Coef>,
}

impl TracedPosition {
    /// The evaluation with flat `values` of `space`, centipawns from White's view.
    pub fn eval(&self, space: &ParamSpace, values: &[i32]) -> f64 {
        let (p, s) = (f64::from(self.phase), f64::from(self.scale));
        let mut sum = f64::from(self.offset);
        for c in &self.coeffs {
            let (entry, mid_weight, end_weight) = match *c {
                Coef::Count(i, n) => (i, f64::from(n) * p, f64::from(n) * (1.0 - p)),
                Coef::Split(i, m, e) => (i, f64::from(m), f64::from(e)),
            };
            let Some((param, at)) = space.entry(entry as usize) else {
                continue;
            };
            sum += match (param.tapered, *c) {
                (false, Coef::Count(_, n)) => f64::from(n) * f64::from(values[at]),
                _ => {
                    mid_weight * f64::from(values[at]) + s * end_weight * f64::from(values[at + 1])
                }
            };
        }
        sum
    }
}

/// Why a trace cannot be read or written: the file, and for bad content the line and field.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file could not be read or written.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
    /// The binary form does not follow the format at this byte.
    #[error("{path}: byte {offset}: {field}: {what}")]
    BadBytes {
        /// The file.
        path: PathBuf,
        /// Where the fault's record or field begins.
        offset: u64,
        /// The part at fault (`header`, `position 12`, ...).
        field: String,
        /// What is wrong.
        what: String,
    },
    /// A line does not follow the format.
    #[error("{path}:{line}: {field}: {what}")]
    Bad {
        /// The file.
        path: PathBuf,
        /// The line (1-based).
        line: u64,
        /// The field at fault (`coeffs[3]`, `params[0].default`, ...).
        field: String,
        /// What is wrong.
        what: String,
    },
}

/// A problem in one line: the field and what is wrong, placed by the reader.
pub(crate) type Fault = (String, String);

fn fault(field: impl Into<String>, what: impl Into<String>) -> Fault {
    (field.into(), what.into())
}

/// A number field of `object` within `range`, or `absent` when missing.
fn number(
    object: &Map<String, Value>,
    name: &str,
    absent: Option<f64>,
    lo: f64,
    hi: f64,
) -> Result<f64, Fault> {
    let x = match (object.get(name), absent) {
        (None, Some(d)) => return Ok(d),
        (None, None) => return Err(fault(name, "missing")),
        (Some(v), _) => v
            .as_f64()
            .ok_or_else(|| fault(name, format!("{v} is not a number")))?,
    };
    if !(lo..=hi).contains(&x) {
        return Err(fault(name, format!("{x} is outside {lo} to {hi}")));
    }
    Ok(x)
}

/// The list field `name` of `object`, each item read by `item`; a fault in item `k` is
/// placed at `name[k]` (and its own field).
fn list<T>(
    object: &Map<String, Value>,
    name: &str,
    item: impl Fn(&Value) -> Result<T, Fault>,
) -> Result<Vec<T>, Fault> {
    let items = object
        .get(name)
        .and_then(Value::as_array)
        .ok_or_else(|| fault(name, "missing or not a list"))?;
    items
        .iter()
        .enumerate()
        .map(|(k, v)| {
            item(v).map_err(|(f, w)| match f.as_str() {
                "" => fault(format!("{name}[{k}]"), w),
                f => fault(format!("{name}[{k}].{f}"), w),
            })
        })
        .collect()
}

/// The header's parameter space.
pub(crate) fn header_value(v: &Value) -> Result<ParamSpace, Fault> {
    let o = v
        .as_object()
        .ok_or_else(|| fault("header", "not a JSON object"))?;
    if o.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(fault(
            "format",
            format!("the first line must be a header with \"format\": \"{FORMAT}\""),
        ));
    }
    match o.get("version").and_then(Value::as_u64) {
        Some(VERSION) => {}
        other => {
            return Err(fault(
                "version",
                format!("{other:?}: this texel reads version {VERSION}"),
            ))
        }
    }
    let params = list(o, "params", param)?;
    ParamSpace::new(params).map_err(|e| fault("params", e.to_string()))
}

/// One parameter of the header.
fn param(v: &Value) -> Result<Param, Fault> {
    let o = v
        .as_object()
        .ok_or_else(|| fault("", "not a JSON object"))?;
    let name = o
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| fault("name", "missing or not text"))?;
    let len = o
        .get("len")
        .and_then(Value::as_u64)
        .filter(|&n| n >= 1)
        .ok_or_else(|| fault("len", "missing or not a whole number from 1"))?;
    let tapered = o
        .get("tapered")
        .map_or(Some(false), Value::as_bool)
        .ok_or_else(|| fault("tapered", "not true or false"))?;
    let len = usize::try_from(len).map_err(|_| fault("len", "too large"))?;
    let shape = Param {
        name: name.into(),
        len,
        tapered,
        default: Vec::new(),
        group: None,
        candidate: false,
    };
    let default = match o.get("default") {
        None => vec![0; shape.values()],
        Some(d) => defaults(&shape, d).ok_or_else(|| {
            fault(
                "default",
                format!(
                    "needs {len} {}",
                    if tapered {
                        "[mid, end] pairs of integers"
                    } else {
                        "integers"
                    }
                ),
            )
        })?,
    };
    let group = o
        .get("group")
        .map(|g| {
            g.as_str()
                .map(str::to_string)
                .ok_or_else(|| fault("group", "not text"))
        })
        .transpose()?;
    let candidate = o
        .get("candidate")
        .map_or(Some(false), Value::as_bool)
        .ok_or_else(|| fault("candidate", "not true or false"))?;
    Ok(Param {
        default,
        group,
        candidate,
        ..shape
    })
}

/// The defaults of `shape` from `d`: `len` entries (unwrapped when `len` is 1).
fn defaults(shape: &Param, d: &Value) -> Option<Vec<i32>> {
    let json = json!({ &shape.name: d });
    let space = ParamSpace::new(vec![Param {
        default: vec![0; shape.values()],
        ..shape.clone()
    }])
    .ok()?;
    space.values_from_json(&json).ok()
}

/// One position line of a trace of `space`.
fn position(v: &Value, space: &ParamSpace) -> Result<TracedPosition, Fault> {
    let o = v
        .as_object()
        .ok_or_else(|| fault("position", "not a JSON object"))?;
    let result = number(o, "result", None, 0.0, 1.0)? as f32;
    let score = o
        .contains_key("score")
        .then(|| number(o, "score", None, 0.0, 1.0))
        .transpose()?;
    let coeffs = list(o, "coeffs", |c| coef(c, space).map_err(|w| fault("", w)))?;
    Ok(TracedPosition {
        result,
        score: score.map(|s| s as f32),
        phase: number(o, "phase", None, 0.0, 1.0)? as f32,
        scale: number(o, "scale", Some(1.0), 0.0, 1.0)? as f32,
        offset: number(o, "offset", Some(0.0), -1e7, 1e7)? as f32,
        coeffs,
    })
}

/// One coefficient: `[i, c]` or `[i, c_mid, c_end]` with `i` an entry of `space`.
fn coef(v: &Value, space: &ParamSpace) -> Result<Coef, String> {
    let list = v
        .as_array()
        .filter(|l| (2..=3).contains(&l.len()))
        .ok_or_else(|| format!("{v} is not [index, count] or [index, mid count, end count]"))?;
    let index = list[0]
        .as_u64()
        .filter(|&i| (i as usize) < space.entry_count())
        .ok_or_else(|| {
            format!(
                "index {} is not an entry of the header's {} entries",
                list[0],
                space.entry_count()
            )
        })?;
    let count = |k: usize| {
        list[k]
            .as_f64()
            .filter(|x| x.is_finite() && x.abs() < 1e7)
            .map(|x| x as f32)
            .ok_or_else(|| format!("count {} is not a number", list[k]))
    };
    let entry = index as u32;
    match list.len() {
        2 => Ok(Coef::Count(entry, count(1)?)),
        _ if space.entry(index as usize).is_some_and(|(p, _)| p.tapered) => {
            Ok(Coef::Split(entry, count(1)?, count(2)?))
        }
        _ => Err(format!("entry {index} is not tapered: it takes one count")),
    }
}

/// Reads a trace file: the header first, then one position a line (blank lines skipped).
pub struct TraceReader<R> {
    input: R,
    path: PathBuf,
    line: u64,
    space: ParamSpace,
    text: String,
}

impl TraceReader<std::io::BufReader<std::fs::File>> {
    /// Opens `path` and reads its header.
    ///
    /// # Errors
    /// An unreadable file or a bad header.
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let file = std::fs::File::open(path).map_err(|cause| TraceError::Io {
            path: path.into(),
            cause,
        })?;
        TraceReader::new(std::io::BufReader::new(file), path)
    }
}

impl<R: BufRead> TraceReader<R> {
    /// Reads the header from `input` (named `path` in errors).
    ///
    /// # Errors
    /// Unreadable input or a bad header.
    pub fn new(input: R, path: &Path) -> Result<Self, TraceError> {
        let mut reader = TraceReader {
            input,
            path: path.into(),
            line: 0,
            space: ParamSpace::default(),
            text: String::new(),
        };
        let value = reader
            .next_value()?
            .ok_or_else(|| reader.bad(fault("header", "the file is empty")))?;
        reader.space = header_value(&value).map_err(|f| reader.bad(f))?;
        Ok(reader)
    }

    /// The header's parameter space.
    pub fn space(&self) -> &ParamSpace {
        &self.space
    }

    /// The line last read (1-based).
    pub fn line(&self) -> u64 {
        self.line
    }

    fn bad(&self, (field, what): Fault) -> TraceError {
        TraceError::Bad {
            path: self.path.clone(),
            line: self.line,
            field,
            what,
        }
    }

    /// The next non-blank line as JSON.
    fn next_value(&mut self) -> Result<Option<Value>, TraceError> {
        loop {
            self.text.clear();
            let n = self
                .input
                .read_line(&mut self.text)
                .map_err(|cause| TraceError::Io {
                    path: self.path.clone(),
                    cause,
                })?;
            if n == 0 {
                return Ok(None);
            }
            self.line += 1;
            let text = self.text.trim().trim_start_matches('\u{feff}');
            if text.is_empty() {
                continue;
            }
            return serde_json::from_str(text)
                .map(Some)
                .map_err(|e| self.bad(fault("line", format!("not JSON ({e})"))));
        }
    }
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = Result<TracedPosition, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        let value = match self.next_value() {
            Ok(Some(v)) => v,
            Ok(None) => return None,
            Err(e) => return Some(Err(e)),
        };
        Some(position(&value, &self.space).map_err(|f| self.bad(f)))
    }
}

/// The header line of `space`.
pub fn header_line(space: &ParamSpace) -> String {
    let params: Vec<Value> = space
        .params()
        .iter()
        .map(|p| {
            let one = ParamSpace::new(vec![p.clone()]).expect("a parameter of a checked space");
            let mut v = json!({"name": p.name, "len": p.len, "tapered": p.tapered, "default": one.to_json(&p.default)[&p.name]});
            if let Some(g) = &p.group {
                v["group"] = json!(g);
            }
            if p.candidate {
                v["candidate"] = json!(true);
            }
            v
        })
        .collect();
    json!({"format": FORMAT, "version": VERSION, "params": params}).to_string()
}

/// The line of one position.
pub fn position_line(p: &TracedPosition) -> String {
    let coeffs: Vec<Value> = p
        .coeffs
        .iter()
        .map(|c| match *c {
            Coef::Count(i, n) => json!([i, n]),
            Coef::Split(i, m, e) => json!([i, m, e]),
        })
        .collect();
    let mut v = json!({"result": p.result, "phase": p.phase, "coeffs": coeffs});
    if p.offset != 0.0 {
        v["offset"] = json!(p.offset);
    }
    if p.scale != 1.0 {
        v["scale"] = json!(p.scale);
    }
    if let Some(s) = p.score {
        v["score"] = json!(s);
    }
    v.to_string()
}

/// Writes `space`'s header and then `positions` to `out`, a line each.
///
/// # Errors
/// A failed write.
pub fn write_trace<'a>(
    out: &mut impl Write,
    space: &ParamSpace,
    positions: impl IntoIterator<Item = &'a TracedPosition>,
) -> std::io::Result<()> {
    writeln!(out, "{}", header_line(space))?;
    for p in positions {
        writeln!(out, "{}", position_line(p))?;
    }
    Ok(())
}
