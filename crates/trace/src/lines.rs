//! The lines of the text form as typed records: the header ([`HeaderLine`]) and one
//! position ([`PositionLine`]), read with the path of any field at fault and checked
//! against the format's ranges and the header's entries.

use crate::inner::{Curve, InnerSum, InnerTerm, Shape};
use crate::space::{writable_name, Param, ParamSpace, MAX_VALUES};
use crate::text::{Coef, Fault, TracedPosition, FORMAT, VERSION};
use serde::de::{DeserializeOwned, Error as _, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// The first line: the format, its version and the parameter space. Every field is
/// optional when read, so that a missing one is named.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct HeaderLine {
    format: Option<String>,
    version: Option<u64>,
    params: Option<Vec<ParamLine>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    inner: Option<Vec<InnerTermLine>>,
}

/// One inner term of the header: its name and the shape of each part.
#[derive(Debug, Default, Serialize, Deserialize)]
struct InnerTermLine {
    name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mid: Option<ShapeLine>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end: Option<ShapeLine>,
}

/// One part's shape: `"linear"`, `"square"` or `"complexity"`, its clamp, its factors.
#[derive(Debug, Default, Serialize, Deserialize)]
struct ShapeLine {
    shape: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    floor: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ceiling: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    times: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    times_param: Option<String>,
}

/// One inner sum of a position.
#[derive(Debug, Default, Serialize, Deserialize)]
struct InnerLine {
    term: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    side: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    offset: Option<OffsetLine>,
    coeffs: Option<Vec<CoefLine>>,
}

/// An inner sum's offset: one number for both parts, or `[mid, end]`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(untagged)]
enum OffsetLine {
    Both(f64),
    Parts([f64; 2]),
}

/// One parameter of the header.
#[derive(Debug, Default, Serialize, Deserialize)]
struct ParamLine {
    name: Option<String>,
    len: Option<u64>,
    tapered: Option<bool>,
    /// `len` entries (unwrapped when `len` is 1): numbers, or `[mid, end]` pairs.
    default: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    group: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    candidate: Option<bool>,
}

/// One position: result, phase and coefficients, and the optional fields.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct PositionLine {
    result: Option<f64>,
    phase: Option<f64>,
    coeffs: Option<Vec<CoefLine>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    offset: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    offset_end: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scale: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    inner: Option<Vec<InnerLine>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    game: Option<u64>,
}

/// One coefficient: `[i, c]` or `[i, c_mid, c_end]`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum CoefLine {
    Count(u64, f64),
    Split(u64, f64, f64),
}

impl Serialize for CoefLine {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            CoefLine::Count(i, c) => (i, c).serialize(s),
            CoefLine::Split(i, m, e) => (i, m, e).serialize(s),
        }
    }
}

/// Reads a coefficient, naming what is wrong with it.
struct CoefVisitor;

const COEF_SHAPE: &str = "[index, count] or [index, mid count, end count]";

impl<'de> Visitor<'de> for CoefVisitor {
    type Value = CoefLine;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(COEF_SHAPE)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<CoefLine, A::Error> {
        let mut items = [Value::Null, Value::Null, Value::Null];
        let mut n = 0;
        while let Some(v) = seq.next_element::<Value>()? {
            if let Some(item) = items.get_mut(n) {
                *item = v;
            }
            n += 1;
        }
        if !(2..=3).contains(&n) {
            return Err(A::Error::custom(format!("not {COEF_SHAPE}")));
        }
        let index = items[0]
            .as_u64()
            .ok_or_else(|| A::Error::custom(format!("index {} is not an entry", items[0])))?;
        let count = |v: &Value| {
            v.as_f64()
                .and_then(|x| check_count(x).ok())
                .ok_or_else(|| A::Error::custom(format!("count {v} is not a number")))
        };
        Ok(match n {
            2 => CoefLine::Count(index, count(&items[1])?),
            _ => CoefLine::Split(index, count(&items[1])?, count(&items[2])?),
        })
    }
}

impl<'de> Deserialize<'de> for CoefLine {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CoefLine, D::Error> {
        d.deserialize_seq(CoefVisitor)
    }
}

fn fault(field: impl Into<String>, what: impl Into<String>) -> Fault {
    (field.into(), what.into())
}

/// The record of one line of JSON `text`; a fault names the field at fault (`whole` for
/// the line as a whole) or, under `syntax`, says the text is not JSON.
pub(crate) fn parse<T: DeserializeOwned>(
    text: &[u8],
    whole: &str,
    syntax: &str,
) -> Result<T, Fault> {
    if text.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
        // serde would take an array for a struct, its fields in order.
        return Err(fault(whole, "not a JSON object"));
    }
    let de = &mut serde_json::Deserializer::from_slice(text);
    let parsed = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        match (inner.is_data(), path.as_str()) {
            (false, _) => fault(syntax, format!("not JSON ({inner})")),
            (true, ".") => fault(whole, inner.to_string()),
            (true, _) => fault(path, inner.to_string()),
        }
    })?;
    de.end()
        .map_err(|e| fault(syntax, format!("not JSON ({e})")))?;
    Ok(parsed)
}

/// The largest count (or split count) a coefficient may have, in either form.
pub(crate) const COUNT_BOUND: f64 = 1e7;
/// The largest offset (centipawns) a position may have, in either form.
pub(crate) const OFFSET_BOUND: f64 = 1e7;

/// A coefficient's count, finite and below [`COUNT_BOUND`]: the one check of both forms.
pub(crate) fn check_count(x: f64) -> Result<f64, String> {
    match x.is_finite() && x.abs() < COUNT_BOUND {
        true => Ok(x),
        false => Err(format!("count {x} is not a number below {COUNT_BOUND}")),
    }
}

/// The largest endgame scale a position may have, in either form: engines scale an ending
/// down (drawish) or up (Ethereal's 144/128 for a large pawn advantage).
pub(crate) const SCALE_BOUND: f64 = 1e3;

/// A position's fields checked against the format's ranges, the one check of both forms:
/// result, phase and score (absent: `None`) within 0 to 1, the scale from 0 to
/// [`SCALE_BOUND`], the offset within ±[`OFFSET_BOUND`].
pub(crate) fn check_fields(
    result: f64,
    phase_: f64,
    scale: f64,
    offset: f64,
    score: Option<f64>,
) -> Result<(), Fault> {
    number(Some(result), "result", None, 0.0, 1.0)?;
    phase(Some(phase_))?;
    number(Some(scale), "scale", None, 0.0, SCALE_BOUND)?;
    number(Some(offset), "offset", None, -OFFSET_BOUND, OFFSET_BOUND)?;
    (score.map(|s| number(Some(s), "score", None, 0.0, 1.0))).transpose()?;
    Ok(())
}

/// A number field within `lo..=hi`, or `absent` when missing.
fn number(x: Option<f64>, name: &str, absent: Option<f64>, lo: f64, hi: f64) -> Result<f64, Fault> {
    let x = match (x, absent) {
        (None, Some(d)) => return Ok(d),
        (None, None) => return Err(fault(name, "missing")),
        (Some(x), _) => x,
    };
    if !(lo..=hi).contains(&x) {
        return Err(fault(name, format!("{x} is outside {lo} to {hi}")));
    }
    Ok(x)
}

/// A position's phase, 0 to 1. An engine whose taper runs past its full phase (texel-tuner's
/// does not cap it) gives weights the format cannot take as a phase: the message says how to
/// write them instead.
fn phase(x: Option<f64>) -> Result<f64, Fault> {
    match x {
        Some(p) if p > 1.0 && p.is_finite() => Err(fault(
            "phase",
            format!(
                "{p} is above 1: an engine whose taper goes past the full phase writes each \
                 tapered entry as [i, c_mid, c_end] with the counts times its own middlegame \
                 and endgame weights (c · p and c · (1 − p)), and phase 1"
            ),
        )),
        _ => number(x, "phase", None, 0.0, 1.0),
    }
}

impl HeaderLine {
    /// The header of `space`.
    pub(crate) fn of(space: &ParamSpace) -> HeaderLine {
        let params = space.params().iter().map(|p| {
            let one = ParamSpace::new(vec![p.clone()]).expect("a parameter of a checked space");
            ParamLine {
                name: Some(p.name.clone()),
                len: Some(p.len as u64),
                tapered: Some(p.tapered),
                default: one.to_json(&p.default).get_mut(&p.name).map(Value::take),
                group: p.group.clone(),
                candidate: p.candidate.then_some(true),
            }
        });
        let inner = space.inner().iter().map(|t| InnerTermLine {
            name: Some(t.name.clone()),
            mid: t.mid.as_ref().map(|s| ShapeLine::of(s, space)),
            end: t.end.as_ref().map(|s| ShapeLine::of(s, space)),
        });
        let inner: Vec<InnerTermLine> = inner.collect();
        HeaderLine {
            format: Some(FORMAT.into()),
            version: Some(if inner.is_empty() { 1 } else { VERSION }),
            params: Some(params.collect()),
            inner: (!inner.is_empty()).then_some(inner),
        }
    }

    /// The parameter space the header declares.
    pub(crate) fn space(self) -> Result<ParamSpace, Fault> {
        if self.format.as_deref() != Some(FORMAT) {
            return Err(fault(
                "format",
                format!("the first line must be a header with \"format\": \"{FORMAT}\""),
            ));
        }
        if !self.version.is_some_and(|v| (1..=VERSION).contains(&v)) {
            let other = self.version;
            return Err(fault(
                "version",
                format!("{other:?}: this texel reads versions 1 to {VERSION}"),
            ));
        }
        let lines = self
            .params
            .ok_or_else(|| fault("params", "missing or not a list"))?;
        // The values are counted before any parameter's defaults are made.
        let mut total = 0u64;
        let params = (lines.into_iter().enumerate())
            .map(|(k, p)| {
                let width = 1 + u64::from(p.tapered.unwrap_or(false));
                total = total.saturating_add(p.len.unwrap_or(0).saturating_mul(width));
                if total > MAX_VALUES as u64 {
                    let most = format!(
                        "the parameters up to here declare {total} values: a space holds at \
                         most {MAX_VALUES}"
                    );
                    return Err(fault(format!("params[{k}]"), most));
                }
                p.param()
                    .map_err(|(f, w)| fault(format!("params[{k}].{f}"), w))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let space = ParamSpace::new(params).map_err(|e| fault("params", e.to_string()))?;
        let Some(lines) = self.inner else {
            return Ok(space);
        };
        if self.version == Some(1) {
            return Err(fault("inner", "inner terms need \"version\": 2"));
        }
        let terms = (lines.into_iter().enumerate())
            .map(|(k, t)| {
                t.term(&space)
                    .map_err(|(f, w)| fault(format!("inner[{k}].{f}"), w))
            })
            .collect::<Result<Vec<_>, _>>()?;
        space
            .with_inner(terms)
            .map_err(|e| fault("inner", e.to_string()))
    }
}

impl InnerTermLine {
    /// The term, its parameter factors found in `space`.
    fn term(self, space: &ParamSpace) -> Result<InnerTerm, Fault> {
        let name = self
            .name
            .ok_or_else(|| fault("name", "missing or not text"))?;
        let shape = |line: Option<ShapeLine>, part: &str| {
            line.map(|l| {
                l.shape(space)
                    .map_err(|(f, w)| fault(format!("{part}.{f}"), w))
            })
            .transpose()
        };
        Ok(InnerTerm {
            name,
            mid: shape(self.mid, "mid")?,
            end: shape(self.end, "end")?,
        })
    }
}

impl ShapeLine {
    /// The line of `shape`.
    fn of(shape: &Shape, space: &ParamSpace) -> ShapeLine {
        let name = |slot: usize| space.value_name(slot).expect("a slot of the space");
        ShapeLine {
            shape: Some(shape.curve.name().into()),
            floor: shape.floor,
            ceiling: shape.ceiling,
            times: (shape.times != 1.0).then_some(shape.times),
            times_param: shape.times_value.map(name),
        }
    }

    /// The shape, checked.
    fn shape(self, space: &ParamSpace) -> Result<Shape, Fault> {
        let curve = (self.shape.as_deref().and_then(Curve::named))
            .ok_or_else(|| fault("shape", "must be \"linear\", \"square\" or \"complexity\""))?;
        let times_value = (self.times_param.as_deref())
            .map(|name| {
                let known = space.params().iter().any(|p| p.name == name);
                space.plain_slot(name).ok_or_else(|| match known {
                    true => fault(
                        "times_param",
                        format!("{name:?} is not a plain single value"),
                    ),
                    false => fault(
                        "times_param",
                        format!("{name:?} names no parameter of the header"),
                    ),
                })
            })
            .transpose()?;
        let shape = Shape {
            curve,
            floor: self.floor,
            ceiling: self.ceiling,
            times: self.times.unwrap_or(1.0),
            times_value,
        };
        match shape.problem() {
            Some((field, why)) => Err(fault(field, why)),
            None => Ok(shape),
        }
    }
}

impl ParamLine {
    /// The parameter, checked.
    fn param(self) -> Result<Param, Fault> {
        let name = self
            .name
            .ok_or_else(|| fault("name", "missing or not text"))?;
        if name.is_empty() || !writable_name(&name) {
            let rule =
                "a name is not empty and holds no blank, control character, bracket or brace";
            return Err(fault("name", format!("{name:?}: {rule}")));
        }
        let len = (self.len.filter(|&n| n >= 1))
            .ok_or_else(|| fault("len", "missing or not a whole number from 1"))?;
        let len = usize::try_from(len).map_err(|_| fault("len", "too large"))?;
        let tapered = self.tapered.unwrap_or(false);
        let shape = Param {
            name,
            len,
            tapered,
            default: Vec::new(),
            group: self.group,
            candidate: self.candidate.unwrap_or(false),
        };
        let default = match &self.default {
            None => vec![0; shape.values()],
            Some(d) => defaults(&shape, d).ok_or_else(|| {
                let what = match tapered {
                    true => "[mid, end] pairs of integers",
                    false => "integers",
                };
                fault("default", format!("needs {len} {what}"))
            })?,
        };
        Ok(Param { default, ..shape })
    }
}

/// The defaults of `shape` from `d`: `len` entries (unwrapped when `len` is 1, or a list of
/// its one entry: `[[30, 50]]` as `[30, 50]`, `[7]` as `7`).
fn defaults(shape: &Param, d: &Value) -> Option<Vec<i32>> {
    let d = match d.as_array().map(Vec::as_slice) {
        Some([one]) if shape.len == 1 && (one.is_array() || !shape.tapered) => one,
        _ => d,
    };
    let mut map = serde_json::Map::new();
    map.insert(shape.name.clone(), d.clone());
    let space = ParamSpace::new(vec![Param {
        default: vec![0; shape.values()],
        ..shape.clone()
    }])
    .ok()?;
    space.values_from_json(&Value::Object(map)).ok()
}

impl PositionLine {
    /// The line of position `p`.
    pub(crate) fn of(p: &TracedPosition) -> PositionLine {
        let coeffs = p.coeffs.iter().map(coef_line);
        PositionLine {
            result: Some(p.result.into()),
            phase: Some(p.phase.into()),
            coeffs: Some(coeffs.collect()),
            offset: (p.offset != 0.0).then_some(p.offset.into()),
            offset_end: (p.offset_end != 0.0).then_some(p.offset_end.into()),
            scale: (p.scale != 1.0).then_some(p.scale.into()),
            score: p.score.map(f64::from),
            inner: (!p.inner.is_empty()).then(|| p.inner.iter().map(InnerLine::of).collect()),
            game: p.game,
        }
    }

    /// The position, checked against the format's ranges and the entries of `space`.
    pub(crate) fn position(self, space: &ParamSpace) -> Result<TracedPosition, Fault> {
        let result = number(self.result, "result", None, 0.0, 1.0)? as f32;
        let score = (self.score)
            .map(|s| number(Some(s), "score", None, 0.0, 1.0))
            .transpose()?;
        let coeffs = coefficients(self.coeffs, space)?;
        Ok(TracedPosition {
            result,
            score: score.map(|s| s as f32),
            phase: phase(self.phase)? as f32,
            scale: number(self.scale, "scale", Some(1.0), 0.0, SCALE_BOUND)? as f32,
            offset: number(
                self.offset,
                "offset",
                Some(0.0),
                -OFFSET_BOUND,
                OFFSET_BOUND,
            )? as f32,
            offset_end: number(
                self.offset_end,
                "offset_end",
                Some(0.0),
                -OFFSET_BOUND,
                OFFSET_BOUND,
            )? as f32,
            coeffs,
            inner: (self.inner.unwrap_or_default().into_iter().enumerate())
                .map(|(k, u)| {
                    u.sum(space)
                        .map_err(|(f, w)| fault(format!("inner[{k}].{f}"), w))
                })
                .collect::<Result<Vec<_>, _>>()?,
            game: self.game,
        })
    }
}

/// The coefficient line of `c`.
fn coef_line(c: &Coef) -> CoefLine {
    match *c {
        Coef::Count(i, n) => CoefLine::Count(i.into(), n.into()),
        Coef::Split(i, m, e) => CoefLine::Split(i.into(), m.into(), e.into()),
    }
}

impl InnerLine {
    /// The line of inner sum `u`.
    fn of(u: &InnerSum) -> InnerLine {
        let [m, e] = u.offset.map(f64::from);
        InnerLine {
            term: Some(u.term.into()),
            side: (u.side != 1.0).then_some(-1),
            offset: match (m, e) {
                (0.0, 0.0) => None,
                _ if m == e => Some(OffsetLine::Both(m)),
                _ => Some(OffsetLine::Parts([m, e])),
            },
            coeffs: Some(u.coeffs.iter().map(coef_line).collect()),
        }
    }

    /// The inner sum, checked against the terms and entries of `space`.
    fn sum(self, space: &ParamSpace) -> Result<InnerSum, Fault> {
        let terms = space.inner().len();
        let term = (self.term)
            .and_then(|t| u32::try_from(t).ok())
            .filter(|&t| (t as usize) < terms)
            .ok_or_else(|| {
                fault(
                    "term",
                    format!("must be the number of one of the header's {terms} inner terms"),
                )
            })?;
        let side = match self.side.unwrap_or(1) {
            1 => 1.0,
            -1 => -1.0,
            other => {
                return Err(fault(
                    "side",
                    format!("{other} is not 1 (White) or -1 (Black)"),
                ))
            }
        };
        let [m, e] = match self.offset {
            None => [0.0, 0.0],
            Some(OffsetLine::Both(x)) => [x, x],
            Some(OffsetLine::Parts(p)) => p,
        };
        for x in [m, e] {
            number(Some(x), "offset", None, -OFFSET_BOUND, OFFSET_BOUND)?;
        }
        let coeffs = coefficients(self.coeffs, space)?;
        Ok(InnerSum {
            term,
            side,
            offset: [m as f32, e as f32],
            coeffs,
        })
    }
}

/// A `coeffs` list with every entry checked against `space`.
fn coefficients(list: Option<Vec<CoefLine>>, space: &ParamSpace) -> Result<Vec<Coef>, Fault> {
    let list = list.ok_or_else(|| fault("coeffs", "missing or not a list"))?;
    (list.into_iter().enumerate())
        .map(|(k, c)| coef(c, space).map_err(|w| fault(format!("coeffs[{k}]"), w)))
        .collect()
}

/// One coefficient with its entry checked against `space`.
fn coef(c: CoefLine, space: &ParamSpace) -> Result<Coef, String> {
    let (CoefLine::Count(index, _) | CoefLine::Split(index, _, _)) = c;
    let n = space.entry_count();
    let entry = u32::try_from(index)
        .ok()
        .filter(|&i| (i as usize) < n)
        .ok_or_else(|| format!("index {index} is not an entry of the header's {n} entries"))?;
    match c {
        CoefLine::Count(_, c) => Ok(Coef::Count(entry, c as f32)),
        CoefLine::Split(_, m, e) if space.entry(entry as usize).is_some_and(|(p, _)| p.tapered) => {
            Ok(Coef::Split(entry, m as f32, e as f32))
        }
        CoefLine::Split(..) => Err(format!("entry {index} is not tapered: it takes one count")),
    }
}
