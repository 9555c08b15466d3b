//! A parameter space: the named values of an evaluation, whoever wrote it. Each parameter
//! is a single value or an array (`len` entries), tapered (a middlegame and an endgame
//! value per entry) or plain, with its defaults, and optionally a group and a candidate mark
//! for the tuner's `--group` and the term lab.

use crate::inner::InnerTerm;
use serde_json::Value;

/// One named parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The name, unique in its space.
    pub name: String,
    /// Entries: 1 for a single value.
    pub len: usize,
    /// Each entry has a middlegame and an endgame value.
    pub tapered: bool,
    /// The defaults, `len` entries of one value (plain) or two (tapered), flat.
    pub default: Vec<i32>,
    /// The group the parameter belongs to (`--group`).
    pub group: Option<String>,
    /// A candidate term: the term lab judges it, starting from zero.
    pub candidate: bool,
}

impl Param {
    /// Values per entry: 2 when tapered, else 1.
    pub fn width(&self) -> usize {
        if self.tapered {
            2
        } else {
            1
        }
    }

    /// Values in all: `len × width`.
    pub fn values(&self) -> usize {
        self.len * self.width()
    }

    /// The name of value `k` of this parameter (`PST[3].end`, `BISHOP_PAIR.mid`, `TEMPO`).
    pub fn value_name(&self, k: usize) -> String {
        let entry = k / self.width();
        let part = match (self.tapered, k % 2) {
            (false, _) => "",
            (true, 0) => ".mid",
            (true, _) => ".end",
        };
        match self.len {
            1 => format!("{}{part}", self.name),
            _ => format!("{}[{entry}]{part}", self.name),
        }
    }
}

/// Why a parameter space or a set of its values is not usable.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpaceError {
    /// Two parameters share a name.
    #[error("parameter {0:?} is declared twice")]
    Duplicate(String),
    /// A parameter has no name or no entries.
    #[error("parameter {0:?} needs a name and at least one entry")]
    Empty(String),
    /// A name that cannot be written where names go (`{{NAME[i].mid}}` in a template, a
    /// `--group`, a values file): blanks, control characters, brackets or braces.
    #[error(
        "parameter {0:?}: a name holds no blanks, control characters, brackets or braces \
         (it is written as NAME[i].mid and {{{{NAME}}}})"
    )]
    BadName(String),
    /// A default beyond ±[`crate::VALUE_BOUND`].
    #[error("parameter {name:?}: default {value} is beyond ±{bound}, the most a value may be")]
    Bound {
        /// The parameter.
        name: String,
        /// The default.
        value: i32,
        /// The bound.
        bound: i32,
    },
    /// The defaults do not have the parameter's shape.
    #[error("parameter {name:?}: default holds {found} values, {expected} are needed")]
    Defaults {
        /// The parameter.
        name: String,
        /// Values the shape needs.
        expected: usize,
        /// Values given.
        found: usize,
    },
    /// The space declares more values than [`MAX_VALUES`].
    #[error("the parameters declare {0} values or more: a space holds at most {MAX_VALUES}")]
    TooLarge(usize),
    /// A value set names a parameter the space does not have, or has the wrong shape.
    #[error("{0}")]
    Values(String),
    /// An inner term breaks a rule.
    #[error("{0}")]
    Inner(String),
}

/// The most values a parameter space holds (a tapered entry counts two): far above any
/// hand-crafted evaluation, and what a dense tuner can still hold; a header declaring more
/// is refused before anything is allocated for it.
pub const MAX_VALUES: usize = 1 << 20;

/// The parameters of one evaluation, in order; values are numbered through them (flat).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParamSpace {
    params: Vec<Param>,
    /// Where each parameter's values begin in the flat numbering.
    starts: Vec<usize>,
    /// Where each parameter's entries begin in the entry numbering of the trace format.
    entry_starts: Vec<usize>,
    /// The inner terms: sums the evaluation takes through a shape (`crate::inner`).
    inner: Vec<InnerTerm>,
}

/// Whether `name` can stand where names are written: no blank, control character,
/// bracket or brace.
pub(crate) fn writable_name(name: &str) -> bool {
    !(name.chars()).any(|c| c.is_whitespace() || c.is_control() || "[]{}".contains(c))
}

impl ParamSpace {
    /// A space of `params`, checked: names unique and non-empty, defaults of the right shape.
    ///
    /// # Errors
    /// The first parameter that breaks a rule.
    pub fn new(params: Vec<Param>) -> Result<ParamSpace, SpaceError> {
        let mut seen = std::collections::HashSet::new();
        let (mut starts, mut entry_starts) = (Vec::new(), Vec::new());
        let (mut flat, mut entries) = (0, 0);
        for p in &params {
            if p.name.is_empty() || p.len == 0 {
                return Err(SpaceError::Empty(p.name.clone()));
            }
            if !writable_name(&p.name) {
                return Err(SpaceError::BadName(p.name.clone()));
            }
            if p.len > MAX_VALUES {
                return Err(SpaceError::TooLarge(p.len));
            }
            if !seen.insert(p.name.as_str()) {
                return Err(SpaceError::Duplicate(p.name.clone()));
            }
            if p.default.len() != p.values() {
                return Err(SpaceError::Defaults {
                    name: p.name.clone(),
                    expected: p.values(),
                    found: p.default.len(),
                });
            }
            if let Some(&value) = p.default.iter().find(|&&v| !crate::in_bounds(v)) {
                let (name, bound) = (p.name.clone(), crate::VALUE_BOUND);
                return Err(SpaceError::Bound { name, value, bound });
            }
            starts.push(flat);
            entry_starts.push(entries);
            flat += p.values();
            entries += p.len;
            if flat > MAX_VALUES {
                return Err(SpaceError::TooLarge(flat));
            }
        }
        starts.push(flat);
        entry_starts.push(entries);
        Ok(ParamSpace {
            params,
            starts,
            entry_starts,
            inner: Vec::new(),
        })
    }

    /// This space with the inner terms `terms`, checked: names unique and non-empty, a part
    /// at least, factors finite, a parameter factor a plain value of this space.
    ///
    /// # Errors
    /// The first term that breaks a rule.
    pub fn with_inner(mut self, terms: Vec<InnerTerm>) -> Result<ParamSpace, SpaceError> {
        let mut seen = std::collections::HashSet::new();
        for t in &terms {
            let bad = |what: &str| SpaceError::Inner(format!("inner term {:?}: {what}", t.name));
            if t.name.is_empty() || !seen.insert(t.name.as_str()) {
                return Err(bad("needs a name of its own"));
            }
            if !writable_name(&t.name) {
                return Err(bad(
                    "a name holds no blanks, control characters, brackets or braces",
                ));
            }
            if t.mid.is_none() && t.end.is_none() {
                return Err(bad("needs a mid or an end part"));
            }
            let complexity = |s: &Option<crate::inner::Shape>| {
                s.as_ref()
                    .is_some_and(|s| s.curve == crate::inner::Curve::Complexity)
            };
            if complexity(&t.mid) || (t.is_complexity() && t.mid.is_some()) {
                return Err(bad(
                    "a complexity moves the endgame score: it is an end part, alone",
                ));
            }
            for shape in t.parts().into_iter().flatten() {
                if let Some((field, why)) = shape.problem() {
                    return Err(bad(&format!("{field}: {why}")));
                }
                let plain = |slot: usize| {
                    let p = self.starts.partition_point(|&s| s <= slot) - 1;
                    self.params.get(p).is_some_and(|p| !p.tapered)
                };
                if shape.times_value.is_some_and(|slot| !plain(slot)) {
                    return Err(bad("a parameter factor must be a plain value"));
                }
            }
        }
        self.inner = terms;
        Ok(self)
    }

    /// The inner terms (none for a linear evaluation).
    pub fn inner(&self) -> &[InnerTerm] {
        &self.inner
    }

    /// The flat slot of the plain single value named `name`.
    pub fn plain_slot(&self, name: &str) -> Option<usize> {
        let p = self.params.iter().position(|p| p.name == name)?;
        (!self.params[p].tapered && self.params[p].len == 1).then_some(self.starts[p])
    }

    /// The parameters in order.
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// Where each parameter's values begin in the flat numbering, in parameter order.
    pub fn param_starts(&self) -> &[usize] {
        &self.starts[..self.params.len()]
    }

    /// Values in all (a tapered entry counts two).
    pub fn value_count(&self) -> usize {
        self.starts.last().copied().unwrap_or(0)
    }

    /// Entries in all: the indices a trace's coefficients use.
    pub fn entry_count(&self) -> usize {
        self.entry_starts.last().copied().unwrap_or(0)
    }

    /// Every default, flat.
    pub fn defaults(&self) -> Vec<i32> {
        self.params
            .iter()
            .flat_map(|p| p.default.iter().copied())
            .collect()
    }

    /// The parameter of entry `index` and the flat slot of the entry's first value (its
    /// middlegame value when tapered); `None` past the last entry.
    pub fn entry(&self, index: usize) -> Option<(&Param, usize)> {
        let p = self.entry_starts.partition_point(|&s| s <= index) - 1;
        let param = self.params.get(p)?;
        Some((
            param,
            self.starts[p] + (index - self.entry_starts[p]) * param.width(),
        ))
    }

    /// The name of flat value `slot` (`PST[3].end`).
    pub fn value_name(&self, slot: usize) -> Option<String> {
        let p = self.starts.partition_point(|&s| s <= slot).checked_sub(1)?;
        let param = self.params.get(p)?;
        Some(param.value_name(slot - self.starts[p]))
    }

    /// `values` (flat) as JSON: each name with its values in the shape of its default (a
    /// single value unwrapped, `[mid, end]` pairs when tapered).
    pub fn to_json(&self, values: &[i32]) -> Value {
        let mut map = serde_json::Map::new();
        for (p, &start) in self.params.iter().zip(&self.starts) {
            let own = &values[start..start + p.values()];
            let entries: Vec<Value> = own
                .chunks(p.width())
                .map(|c| match c {
                    [v] => Value::from(*v),
                    pair => Value::from(pair.to_vec()),
                })
                .collect();
            let value = match p.len {
                1 => entries.into_iter().next().expect("one entry"),
                _ => Value::from(entries),
            };
            map.insert(p.name.clone(), value);
        }
        Value::Object(map)
    }

    /// Flat values from JSON written by [`ParamSpace::to_json`]; parameters it leaves out
    /// keep their defaults.
    ///
    /// # Errors
    /// A name the space does not have, or a value of another shape.
    pub fn values_from_json(&self, json: &Value) -> Result<Vec<i32>, SpaceError> {
        let map = json
            .as_object()
            .ok_or_else(|| SpaceError::Values("values must be a JSON object".into()))?;
        let mut values = self.defaults();
        for (name, value) in map {
            let p = self
                .params
                .iter()
                .position(|p| p.name == *name)
                .ok_or_else(|| SpaceError::Values(format!("no parameter {name:?}")))?;
            let param = &self.params[p];
            let read = shaped_values(param, value).ok_or_else(|| {
                SpaceError::Values(format!(
                    "{name}: {value} is not in the shape of its default"
                ))
            })?;
            values[self.starts[p]..self.starts[p + 1]].copy_from_slice(&read);
        }
        Ok(values)
    }
}

/// The values of `param` from `value` in the shape of its default.
fn shaped_values(param: &Param, value: &Value) -> Option<Vec<i32>> {
    let int = |v: &Value| v.as_i64().and_then(|x| i32::try_from(x).ok());
    let entry = |v: &Value| -> Option<Vec<i32>> {
        match (param.tapered, v) {
            (false, v) => Some(vec![int(v)?]),
            (true, Value::Array(pair)) if pair.len() == 2 => {
                Some(vec![int(&pair[0])?, int(&pair[1])?])
            }
            _ => None,
        }
    };
    let entries: Vec<&Value> = match (param.len, value) {
        (1, v) => vec![v],
        (n, Value::Array(list)) if list.len() == n => list.iter().collect(),
        _ => return None,
    };
    let mut out = Vec::with_capacity(param.values());
    for e in entries {
        out.extend(entry(e)?);
    }
    Some(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn small() -> ParamSpace {
        ParamSpace::new(vec![
            Param {
                name: "PAWN".into(),
                len: 1,
                tapered: true,
                default: vec![80, 100],
                group: Some("material".into()),
                candidate: false,
            },
            Param {
                name: "PST".into(),
                len: 3,
                tapered: false,
                default: vec![1, 2, 3],
                group: None,
                candidate: false,
            },
        ])
        .unwrap()
    }

    #[test]
    fn values_are_numbered_through_the_parameters() {
        let s = small();
        assert_eq!((s.value_count(), s.entry_count()), (5, 4));
        assert_eq!(
            s.entry(0).map(|(p, at)| (p.name.as_str(), at)),
            Some(("PAWN", 0))
        );
        assert_eq!(
            s.entry(2).map(|(p, at)| (p.name.as_str(), at)),
            Some(("PST", 3))
        );
        assert!(s.entry(4).is_none());
        let names: Vec<String> = (0..5).filter_map(|i| s.value_name(i)).collect();
        assert_eq!(
            names,
            ["PAWN.mid", "PAWN.end", "PST[0]", "PST[1]", "PST[2]"]
        );
    }

    #[test]
    fn values_round_trip_through_json_in_the_defaults_shapes() {
        let s = small();
        let json = s.to_json(&[7, 8, 9, 10, 11]);
        assert_eq!(json.to_string(), r#"{"PAWN":[7,8],"PST":[9,10,11]}"#);
        assert_eq!(s.values_from_json(&json).unwrap(), vec![7, 8, 9, 10, 11]);
        let partial = serde_json::json!({"PST": [0, 0, 5]});
        assert_eq!(
            s.values_from_json(&partial).unwrap(),
            vec![80, 100, 0, 0, 5]
        );
        assert!(s
            .values_from_json(&serde_json::json!({"PST": [1, 2]}))
            .is_err());
        assert!(s.values_from_json(&serde_json::json!({"KING": 1})).is_err());
    }

    #[test]
    fn bad_spaces_are_refused_by_name() {
        let mut params = small().params().to_vec();
        params[1].default.pop();
        let err = ParamSpace::new(params.clone()).unwrap_err().to_string();
        assert!(
            err.contains("\"PST\"") && err.contains("3 are needed"),
            "{err}"
        );
        params[1] = params[0].clone();
        assert_eq!(
            ParamSpace::new(params.clone()).unwrap_err(),
            SpaceError::Duplicate("PAWN".into())
        );
        let mut huge = small().params().to_vec();
        huge[0].default[1] = 2_147_483_647;
        let err = ParamSpace::new(huge).unwrap_err().to_string();
        assert!(
            err.contains("\"PAWN\"") && err.contains("2147483647") && err.contains("10000"),
            "{err}"
        );
        for name in [" ", "KING SAFETY", "PST[1]", "A{B}", "TAB\t"] {
            let mut named = small().params().to_vec();
            named[0].name = name.into();
            let err = ParamSpace::new(named).unwrap_err();
            assert_eq!(err, SpaceError::BadName(name.into()), "{name:?}");
        }
        let mut fine = small().params().to_vec();
        fine[0].name = "pst.pawn_2".into();
        assert!(ParamSpace::new(fine).is_ok());
    }
}
