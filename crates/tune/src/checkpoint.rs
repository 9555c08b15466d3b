//! Checkpoints: everything a run needs to go on exactly where it stopped, written as
//! versioned JSON (floats as their exact bit patterns) and checked before use.

use crate::path::{OnPath, PathWalk, PullPoint, Walking};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::path::{Path, PathBuf};
use texel_files::write_atomically;
use texel_run::Settings;
use texel_solve::descent::{AdamState, Cursor, DescentState, Guards, NewtonState, Variable};
use texel_solve::model::{Model, Values};

/// The checkpoint format written now.
const FORMAT: &str = "texel-checkpoint-7";

/// The format before the run's kind was kept (every run was in memory): still read.
const FORMAT_WITHOUT_KIND: &str = "texel-checkpoint-6";

/// The format before Newton's real values were kept: still read.
const FORMAT_WITHOUT_NEWTON: &str = "texel-checkpoint-5";

/// The format before settings were recorded: still read (its settings are not checked).
const FORMAT_WITHOUT_SETTINGS: &str = "texel-checkpoint-4";

/// Why a checkpoint cannot be written or used.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// A file could not be read or written.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
    /// No checkpoint is there to continue.
    #[error(
        "checkpoint {0}: no such file: a run that finished removed its checkpoint (its values \
         are in its --out file); a run that was stopped keeps it where --checkpoint said \
         (without --resume the same command tunes afresh)"
    )]
    Missing(PathBuf),
    /// The checkpoint continues another run than the one asked for.
    #[error("checkpoint {path}: {mismatch}")]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// How it differs.
        mismatch: Mismatch,
    },
    /// The checkpoint cannot be used.
    #[error("checkpoint {path}: {reason}")]
    Unusable {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// Why a checkpoint does not continue the run asked for, in memory or streamed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Mismatch {
    /// It was made for another number of training positions.
    #[error("it was made for {then} positions, the data has {now}")]
    Positions {
        /// The checkpoint's.
        then: usize,
        /// The data's.
        now: usize,
    },
    /// Its values are not those of the evaluation tuned.
    #[error("it was made for {then} values, the evaluation has {now}")]
    Values {
        /// The checkpoint's.
        then: usize,
        /// The evaluation's.
        now: usize,
    },
    /// The data's fingerprint differs.
    #[error(
        "it was made for other data (the positions, their labels or scores, the validation \
         share or λ differ)"
    )]
    Data,
    /// It tunes other variables.
    #[error(
        "it tunes another selection ({then} values; this run tunes {now}): give the selection, \
         least support and steps of the run that wrote it"
    )]
    Selection {
        /// The checkpoint's.
        then: usize,
        /// This run's.
        now: usize,
    },
    /// A streamed run goes on from Newton's state, which it does not keep.
    #[error("it keeps no Newton state of its values")]
    NoNewtonState,
}

/// How a run holds its positions: a checkpoint continues only a run of its own kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunKind {
    /// The positions are read once and kept in memory.
    #[default]
    Memory,
    /// The positions are read from the file in every pass (`--stream`).
    Streamed,
}

impl RunKind {
    /// The kind in words.
    pub fn describe(self) -> &'static str {
        match self {
            RunKind::Memory => "in memory",
            RunKind::Streamed => "streamed",
        }
    }
}

/// The kind of run the checkpoint at `path` continues (without reading the rest).
///
/// # Errors
/// Unreadable, not JSON, or not a texel checkpoint.
pub(crate) fn checkpoint_kind(path: &Path) -> Result<RunKind, CheckpointError> {
    /// The fields that say a checkpoint's kind.
    #[derive(Deserialize)]
    struct Head {
        format: String,
        #[serde(default)]
        kind: RunKind,
    }
    let text = std::fs::read_to_string(path).map_err(|cause| CheckpointError::Io {
        path: path.to_path_buf(),
        cause,
    })?;
    match serde_json::from_str::<Head>(&text) {
        Ok(head) if head.format.starts_with("texel-checkpoint-") => Ok(head.kind),
        _ => Err(CheckpointError::Unusable {
            path: path.to_path_buf(),
            reason: "not a texel checkpoint".into(),
        }),
    }
}

/// Everything a run needs to go on.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint<V> {
    /// How the run holds its positions.
    pub kind: RunKind,
    /// `K` of the run.
    pub k: f64,
    /// Training positions the run was made for.
    pub positions: usize,
    /// The fingerprint of the data the run was made for (`texel_dataset::LoadReport`, or a trace's fingerprint).
    pub data: u64,
    /// Passes completed.
    pub passes: usize,
    /// The variables tuned.
    pub vars: Vec<Variable>,
    /// The descent.
    pub descent: DescentState<V>,
    /// Best validation error so far and its parameters.
    pub best: Option<(f64, V)>,
    /// The pass `best` was measured after (0: the start; `None` in checkpoints written
    /// before it was kept).
    pub best_pass: Option<usize>,
    /// Passes in a row the validation error rose.
    pub rises: usize,
    /// Seconds spent so far.
    pub seconds: f64,
    /// A warm start on about one segment in `n` of the training data is under way
    /// ([`crate::RunOptions::warm_start`]).
    pub warm: Option<usize>,
    /// Passes of the warm start done (they are not counted by the pass limit).
    pub warm_passes: usize,
    /// The settings the run began with (`None` in checkpoints written before they were
    /// recorded).
    pub settings: Option<Settings>,
    /// The λ the path of λs chose for the training targets (`None`: the targets as loaded);
    /// a resumed run moves its targets to it again.
    pub lambda: Option<f64>,
    /// The walk a run stopped on its paths was on, before its run began (`None`: the run
    /// began); its resume walks on from there.
    pub path: Option<OnPath<V>>,
}

/// A float written as its exact bit pattern (16 hex digits).
#[derive(Copy, Clone, Debug, PartialEq)]
struct ExactFloat(f64);

impl Serialize for ExactFloat {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{:016x}", self.0.to_bits()))
    }
}

impl<'de> Deserialize<'de> for ExactFloat {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ExactFloat, D::Error> {
        let text = String::deserialize(d)?;
        u64::from_str_radix(&text, 16)
            .map(|bits| ExactFloat(f64::from_bits(bits)))
            .map_err(|_| serde::de::Error::custom(format!("{text:?} is not an exact float")))
    }
}

/// A 64-bit fingerprint written as 16 hex digits.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Hex(u64);

impl Serialize for Hex {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{:016x}", self.0))
    }
}

impl<'de> Deserialize<'de> for Hex {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Hex, D::Error> {
        let text = String::deserialize(d)?;
        u64::from_str_radix(&text, 16)
            .map(Hex)
            .map_err(|_| serde::de::Error::custom(format!("{text:?} is not a fingerprint")))
    }
}

/// The best validation error and its values.
#[derive(Serialize, Deserialize)]
struct BestFile {
    error: ExactFloat,
    params: Vec<i32>,
}

/// Adam's memory, floats exact.
#[derive(Serialize, Deserialize)]
struct AdamFile {
    values: Vec<ExactFloat>,
    mean: Vec<ExactFloat>,
    square: Vec<ExactFloat>,
    epochs: u64,
    handed_over: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<ExactFloat>,
    #[serde(default)]
    converged: bool,
}

fn exact(v: &[f64]) -> Vec<ExactFloat> {
    v.iter().map(|&x| ExactFloat(x)).collect()
}

fn floats(v: &[ExactFloat]) -> Vec<f64> {
    v.iter().map(|x| x.0).collect()
}

impl AdamFile {
    fn from_state(a: &AdamState) -> AdamFile {
        AdamFile {
            values: exact(&a.values),
            mean: exact(&a.mean),
            square: exact(&a.square),
            epochs: a.epochs,
            handed_over: a.handed_over,
            error: a.error.map(ExactFloat),
            converged: a.converged,
        }
    }

    fn into_state(self, vars: usize) -> Result<AdamState, String> {
        if [self.values.len(), self.mean.len(), self.square.len()] != [vars; 3] {
            return Err("Adam's lists do not agree with the variables".into());
        }
        Ok(AdamState {
            values: floats(&self.values),
            mean: floats(&self.mean),
            square: floats(&self.square),
            epochs: self.epochs,
            handed_over: self.handed_over,
            error: self.error.map(|e| e.0),
            converged: self.converged,
        })
    }
}

/// Newton's memory, floats exact.
#[derive(Serialize, Deserialize)]
struct NewtonFile {
    values: Vec<ExactFloat>,
    damping: ExactFloat,
    iterations: u64,
    error: ExactFloat,
    handed_over: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    chord: Option<(Vec<ExactFloat>, ExactFloat)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hessian_at: Option<(Vec<ExactFloat>, ExactFloat)>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    curves_held: bool,
    #[serde(default, skip_serializing_if = "is_zero")]
    lifts: u32,
}

/// Whether a count is zero (left out of the file).
fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl NewtonFile {
    fn from_state(n: &NewtonState) -> NewtonFile {
        NewtonFile {
            values: exact(&n.values),
            damping: ExactFloat(n.damping),
            iterations: n.iterations,
            error: ExactFloat(n.error),
            handed_over: n.handed_over,
            chord: n.chord.as_ref().map(|(at, d)| (exact(at), ExactFloat(*d))),
            hessian_at: (n.hessian_at.as_ref()).map(|(at, d)| (exact(at), ExactFloat(*d))),
            curves_held: n.curves_held,
            lifts: n.lifts,
        }
    }

    fn into_state(self, vars: usize) -> Result<NewtonState, String> {
        let len =
            |at: &Option<(Vec<ExactFloat>, ExactFloat)>| at.as_ref().map_or(vars, |c| c.0.len());
        if self.values.len() != vars || len(&self.chord) != vars || len(&self.hessian_at) != vars {
            return Err("Newton's values do not agree with the variables".into());
        }
        Ok(NewtonState {
            values: floats(&self.values),
            damping: self.damping.0,
            iterations: self.iterations,
            error: self.error.0,
            handed_over: self.handed_over,
            chord: self.chord.map(|(at, d)| (floats(&at), d.0)),
            hessian_at: self.hessian_at.map(|(at, d)| (floats(&at), d.0)),
            curves_held: self.curves_held,
            lifts: self.lifts,
        })
    }
}

/// The file as written: a checkpoint in the field order and encodings of the format (the
/// run's descent among its own fields).
#[derive(Serialize, Deserialize)]
struct CheckpointFile {
    format: String,
    #[serde(default)]
    kind: RunKind,
    table: Hex,
    data: Hex,
    k: ExactFloat,
    positions: usize,
    passes: usize,
    vars: Vec<(usize, i32)>,
    #[serde(flatten)]
    descent: DescentFile,
    best: Option<BestFile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    best_pass: Option<usize>,
    rises: usize,
    seconds: ExactFloat,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    warm: Option<usize>,
    #[serde(default)]
    warm_passes: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    settings: Option<Settings>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lambda: Option<ExactFloat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    path: Option<PathFile>,
}

/// A descent's state, floats exact: the run's (written in the checkpoint's own fields) or
/// a path's solver's.
#[derive(Serialize, Deserialize)]
struct DescentFile {
    params: Vec<i32>,
    anchor: Vec<i32>,
    l2: ExactFloat,
    constraints: bool,
    sum: ExactFloat,
    gains: Vec<(ExactFloat, i32)>,
    probes: u64,
    cursor: Cursor,
    adam: Option<AdamFile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    newton: Option<NewtonFile>,
}

impl DescentFile {
    fn from_state<V: Values>(d: &DescentState<V>) -> DescentFile {
        DescentFile {
            params: d.params.values().to_vec(),
            anchor: d.anchor.values().to_vec(),
            l2: ExactFloat(d.guards.l2),
            constraints: d.guards.constraints,
            sum: ExactFloat(d.sum),
            gains: (d.gains.iter())
                .map(|&(g, dir)| (ExactFloat(g), dir))
                .collect(),
            probes: d.probes,
            cursor: d.cursor.clone(),
            adam: d.adam.as_ref().map(AdamFile::from_state),
            newton: d.newton.as_ref().map(NewtonFile::from_state),
        }
    }

    /// The state the file describes, of `vars` variables, after checking that its lists
    /// agree.
    fn into_state<V: Values>(self, vars: usize) -> Result<DescentState<V>, String> {
        let active = self.cursor.active;
        if self.gains.len() != vars || (active && self.cursor.moved.len() != vars) {
            return Err("variable lists do not agree".into());
        }
        let len = self.params.len();
        Ok(DescentState {
            params: values(&self.params, len)?,
            anchor: values(&self.anchor, len)?,
            guards: Guards {
                l2: self.l2.0,
                constraints: self.constraints,
            },
            sum: self.sum.0,
            gains: self.gains.iter().map(|&(g, dir)| (g.0, dir)).collect(),
            probes: self.probes,
            cursor: self.cursor,
            adam: self.adam.map(|a| a.into_state(vars)).transpose()?,
            newton: self.newton.map(|n| n.into_state(vars)).transpose()?,
        })
    }
}

/// A step of a path, floats exact.
#[derive(Serialize, Deserialize)]
struct PointFile {
    step: ExactFloat,
    train: ExactFloat,
    held_out: ExactFloat,
    iterations: u64,
    seconds: ExactFloat,
    /// A coarse step (absent: a whole one, as every step before coarse steps were kept).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    coarse: bool,
}

/// A run stopped on its paths: the walk and its solver's state.
#[derive(Serialize, Deserialize)]
struct PathFile {
    walk: PathWalk,
    solved: Vec<PointFile>,
    best: Option<Vec<i32>>,
    at: Option<DescentFile>,
    pull: Option<ExactFloat>,
    earlier: Option<Vec<i32>>,
    /// The values each coarse step ended at (absent: none, as before they were kept).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    coarse_ends: Vec<Vec<i32>>,
}

impl PathFile {
    fn from_path<V: Values>(p: &OnPath<V>) -> PathFile {
        let point = |p: &PullPoint| PointFile {
            step: ExactFloat(p.l2),
            train: ExactFloat(p.train),
            held_out: ExactFloat(p.held_out),
            iterations: p.iterations,
            seconds: ExactFloat(p.seconds),
            coarse: p.coarse,
        };
        PathFile {
            walk: p.walk,
            solved: p.walking.solved.iter().map(point).collect(),
            best: p.walking.best.as_ref().map(|v| v.values().to_vec()),
            at: p.at.as_ref().map(DescentFile::from_state),
            pull: p.pull.map(ExactFloat),
            earlier: p.earlier.as_ref().map(|v| v.values().to_vec()),
            coarse_ends: (p.walking.coarse_ends.iter())
                .map(|v| v.values().to_vec())
                .collect(),
        }
    }

    /// The walk the file describes, of `vars` variables and `len` values.
    fn into_path<V: Values>(self, vars: usize, len: usize) -> Result<OnPath<V>, String> {
        let point = |p: PointFile| PullPoint {
            l2: p.step.0,
            train: p.train.0,
            held_out: p.held_out.0,
            iterations: p.iterations,
            seconds: p.seconds.0,
            coarse: p.coarse,
        };
        let list = |v: Option<Vec<i32>>| v.map(|v| values(&v, len)).transpose();
        Ok(OnPath {
            walk: self.walk,
            walking: Walking {
                solved: self.solved.into_iter().map(point).collect(),
                best: list(self.best)?,
                coarse_ends: (self.coarse_ends.iter())
                    .map(|v| values(v, len))
                    .collect::<Result<_, _>>()?,
            },
            at: self.at.map(|at| at.into_state(vars)).transpose()?,
            pull: self.pull.map(|p| p.0),
            earlier: list(self.earlier)?,
        })
    }
}

impl<V: Values> Checkpoint<V> {
    /// The checkpoint as JSON.
    pub fn to_json(&self) -> Value {
        let file = CheckpointFile {
            format: FORMAT.into(),
            kind: self.kind,
            table: Hex(self.descent.params.layout()),
            data: Hex(self.data),
            k: ExactFloat(self.k),
            positions: self.positions,
            passes: self.passes,
            vars: self.vars.iter().map(|v| (v.slot, v.step)).collect(),
            descent: DescentFile::from_state(&self.descent),
            best: self.best.as_ref().map(|(e, p)| BestFile {
                error: ExactFloat(*e),
                params: p.values().to_vec(),
            }),
            best_pass: self.best_pass,
            rises: self.rises,
            seconds: ExactFloat(self.seconds),
            warm: self.warm,
            warm_passes: self.warm_passes,
            settings: self.settings.clone(),
            lambda: self.lambda.map(ExactFloat),
            path: self.path.as_ref().map(PathFile::from_path),
        };
        serde_json::to_value(file).expect("a checkpoint is plain data")
    }

    /// Reads a checkpoint written by [`Checkpoint::to_json`].
    ///
    /// # Errors
    /// A description of what is wrong: another format or table, a missing or bad field.
    fn from_json(v: &Value) -> Result<Checkpoint<V>, String> {
        /// The format a checkpoint of any version names, read first.
        #[derive(Deserialize)]
        struct Format {
            format: Option<String>,
        }
        let format = Format::deserialize(v).ok().and_then(|f| f.format);
        match format.as_deref() {
            Some(
                FORMAT | FORMAT_WITHOUT_KIND | FORMAT_WITHOUT_NEWTON | FORMAT_WITHOUT_SETTINGS,
            ) => {}
            Some(f) if f.starts_with("texel-checkpoint-") => {
                return Err(format!(
                    "written by another version of texel ({f}); start the run again"
                ))
            }
            _ => return Err("not a texel checkpoint".into()),
        }
        let f: CheckpointFile = serde_json::from_value(v.clone()).map_err(|e| e.to_string())?;
        let layout = V::from_values(&f.descent.params).map(|p| p.layout());
        if layout != Ok(f.table.0) {
            return Err("it was written for a different parameter table (terms added, removed or reshaped since)".into());
        }
        f.into_checkpoint()
    }

    /// Checks that this checkpoint continues a run over `positions` training positions of
    /// the data with fingerprint `data`, an evaluation of `values` values and the variables
    /// `vars`.
    ///
    /// # Errors
    /// How it differs, the first found in that order.
    pub fn continues(
        &self,
        (positions, data): (usize, u64),
        values: usize,
        vars: &[Variable],
    ) -> Result<(), Mismatch> {
        let then = self.descent.params.values().len();
        if self.positions != positions {
            let (then, now) = (self.positions, positions);
            return Err(Mismatch::Positions { then, now });
        }
        if then != values {
            return Err(Mismatch::Values { then, now: values });
        }
        if self.data != data {
            return Err(Mismatch::Data);
        }
        if self.vars != vars {
            let (then, now) = (self.vars.len(), vars.len());
            return Err(Mismatch::Selection { then, now });
        }
        Ok(())
    }

    /// Writes the checkpoint atomically.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn save(&self, path: &Path) -> Result<(), CheckpointError> {
        write_atomically(path, self.to_json().to_string().as_bytes()).map_err(|cause| {
            CheckpointError::Io {
                path: path.to_path_buf(),
                cause,
            }
        })
    }

    /// Reads a checkpoint file.
    ///
    /// # Errors
    /// Unreadable, not JSON, or not a usable checkpoint (with the reason).
    pub fn read(path: &Path) -> Result<Checkpoint<V>, CheckpointError> {
        let bad = |reason: String| CheckpointError::Unusable {
            path: path.to_path_buf(),
            reason,
        };
        let text = std::fs::read_to_string(path).map_err(|cause| match cause.kind() {
            std::io::ErrorKind::NotFound => CheckpointError::Missing(path.to_path_buf()),
            _ => CheckpointError::Io {
                path: path.to_path_buf(),
                cause,
            },
        })?;
        let v: Value = serde_json::from_str(&text).map_err(|e| bad(format!("corrupt ({e})")))?;
        Checkpoint::from_json(&v).map_err(bad)
    }
}

impl CheckpointFile {
    /// The checkpoint the file describes, after checking that its lists agree.
    fn into_checkpoint<V: Values>(self) -> Result<Checkpoint<V>, String> {
        let len = self.descent.params.len();
        let vars = self
            .vars
            .iter()
            .map(|&(slot, step)| {
                (slot < len)
                    .then_some(Variable { slot, step })
                    .ok_or_else(|| "variable outside the table".to_string())
            })
            .collect::<Result<Vec<_>, _>>()?;
        let best = match self.best {
            Some(b) => Some((b.error.0, values(&b.params, len)?)),
            None => None,
        };
        let path = (self.path)
            .map(|p| p.into_path(vars.len(), len))
            .transpose()?;
        Ok(Checkpoint {
            kind: self.kind,
            k: self.k.0,
            positions: self.positions,
            data: self.data.0,
            passes: self.passes,
            descent: self.descent.into_state(vars.len())?,
            vars,
            best,
            best_pass: self.best_pass,
            rises: self.rises,
            seconds: self.seconds.0,
            warm: self.warm.filter(|&n| n > 1),
            warm_passes: self.warm_passes,
            settings: self.settings,
            lambda: self.lambda.map(|l| l.0),
            path,
        })
    }
}

/// Values from a checkpoint's list, which must be as long as its current values.
fn values<V: Values>(list: &[i32], len: usize) -> Result<V, String> {
    if list.len() != len {
        return Err("value lists do not agree".into());
    }
    V::from_values(list)
}

/// A checkpoint for a run that has not started: `params` must be what `train` is scored with;
/// `data` is the fingerprint of the loaded data (`texel_dataset::LoadReport`, or a trace's fingerprint).
pub fn fresh<M: Model>(
    train: &M,
    data: u64,
    params: M::Values,
    k: f64,
    vars: Vec<Variable>,
    guards: Guards,
) -> Checkpoint<M::Values> {
    let sum = texel_solve::error::chunked_sum(train.len(), |i| {
        texel_solve::error::squared_error(k, train.eval(i), train.target(i))
    });
    let start = DescentState::starting(params, guards, sum, vars.len());
    Checkpoint::begun(RunKind::Memory, (k, data, train.len()), start, vars)
}

impl<V> Checkpoint<V> {
    /// The checkpoint of a run of `kind` that has not started: K `k`, the fingerprint
    /// `data` of its `positions` training positions, the descent `start` of `vars`.
    pub(crate) fn begun(
        kind: RunKind,
        (k, data, positions): (f64, u64, usize),
        start: DescentState<V>,
        vars: Vec<Variable>,
    ) -> Self {
        Checkpoint {
            kind,
            k,
            positions,
            data,
            passes: 0,
            descent: start,
            vars,
            best: None,
            best_pass: None,
            rises: 0,
            seconds: 0.0,
            warm: None,
            warm_passes: 0,
            settings: None,
            lambda: None,
            path: None,
        }
    }
}
