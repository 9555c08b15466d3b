//! Multi-pass runs: validation with patience, a JSONL log of every pass, checkpoints written
//! atomically (every few minutes and when stopped) and exact resumption.

use crate::dataset::Dataset;
use crate::descent::{Control, Cursor, Descent, DescentState, Guards, PassSummary, Variable};
use crate::error::mean_error;
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;
use texel_eval::params::write_atomically;
use texel_eval::table::TERMS;
use texel_eval::Params;

/// How a run goes.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Stop after this many passes in all.
    pub passes: usize,
    /// Stop when the validation error rose this many passes in a row (keeping the best).
    pub patience: Option<usize>,
    /// Append one JSON line per pass here.
    pub log: Option<PathBuf>,
    /// Write checkpoints here.
    pub checkpoint: Option<PathBuf>,
    /// Seconds between checkpoints.
    pub checkpoint_secs: f64,
}

/// What a run reports while it works.
#[derive(Debug)]
pub enum Event<'e> {
    /// A safe point inside a pass.
    Progress {
        /// Pass number (from 1).
        pass: usize,
        /// Variables walked in this pass.
        walked: usize,
        /// Variables in all.
        vars: usize,
        /// Moves in this pass.
        moves: u64,
        /// Current training error.
        error: f64,
    },
    /// A pass ended.
    Pass(&'e PassRecord),
    /// A checkpoint was written.
    Checkpoint(&'e Path),
}

/// One line of the log.
#[derive(Clone, Debug, PartialEq)]
pub struct PassRecord {
    /// Pass number (from 1).
    pub pass: usize,
    /// Training error after the pass (recomputed from scratch).
    pub train_error: f64,
    /// Validation error after the pass, when a validation set exists.
    pub validation_error: Option<f64>,
    /// What the pass did.
    pub summary: PassSummary,
    /// Seconds since the run began (resumed runs count on).
    pub seconds: f64,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// A pass moved nothing.
    Converged,
    /// The pass limit was reached.
    PassLimit,
    /// The validation error rose for `patience` passes.
    Patience,
    /// Stopped from outside (Ctrl-C); the checkpoint holds the state.
    Interrupted,
}

/// The result of a run.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// The tuned parameters: the best on validation when a validation set exists.
    pub params: Params,
    /// Why it ended.
    pub end: RunEnd,
    /// Passes completed.
    pub passes: usize,
}

/// Why a run or a checkpoint failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A file could not be read or written.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
    /// The checkpoint cannot be used.
    #[error("checkpoint {path}: {reason}")]
    Checkpoint {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// A hash of the table's layout (term names and shapes): checkpoints of another table are
/// refused.
pub fn table_fingerprint() -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for t in TERMS.iter() {
        for b in t.name.bytes().chain(t.shape.rust_type().bytes()).chain([0]) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// The checkpoint format written now.
const FORMAT: &str = "texel-checkpoint-3";

/// Everything a run needs to go on: written as JSON (floats as exact bit patterns).
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// `K` of the run.
    pub k: f64,
    /// Training positions the run was made for.
    pub positions: usize,
    /// The fingerprint of the data the run was made for ([`crate::LoadReport`]).
    pub data: u64,
    /// Passes completed.
    pub passes: usize,
    /// The variables tuned.
    pub vars: Vec<Variable>,
    /// The descent.
    pub descent: DescentState,
    /// Best validation error so far and its parameters.
    pub best: Option<(f64, Params)>,
    /// Passes in a row the validation error rose.
    pub rises: usize,
    /// Seconds spent so far.
    pub seconds: f64,
}

fn bits(x: f64) -> Value {
    Value::from(format!("{:016x}", x.to_bits()))
}

fn unbits(v: &Value) -> Option<f64> {
    u64::from_str_radix(v.as_str()?, 16)
        .ok()
        .map(f64::from_bits)
}

impl Checkpoint {
    /// The checkpoint as JSON.
    pub fn to_json(&self) -> Value {
        let c = &self.descent.cursor;
        json!({
            "format": FORMAT,
            "table": format!("{:016x}", table_fingerprint()),
            "data": format!("{:016x}", self.data),
            "k": bits(self.k),
            "positions": self.positions,
            "passes": self.passes,
            "vars": self.vars.iter().map(|v| json!([v.slot, v.step])).collect::<Vec<_>>(),
            "params": self.descent.params.flat().to_vec(),
            "anchor": self.descent.anchor.flat().to_vec(),
            "l2": bits(self.descent.guards.l2),
            "constraints": self.descent.guards.constraints,
            "sum": bits(self.descent.sum),
            "gains": self.descent.gains.iter().map(|g| json!([bits(g.0), g.1])).collect::<Vec<_>>(),
            "probes": self.descent.probes,
            "cursor": {
                "active": c.active, "walked": c.walked, "moves": c.moves,
                "moved": c.moved, "probes_at_start": c.probes_at_start,
            },
            "best": self.best.as_ref().map(|(e, p)| json!({"error": bits(*e), "params": p.flat().to_vec()})),
            "rises": self.rises,
            "seconds": bits(self.seconds),
        })
    }

    /// Reads a checkpoint written by [`Checkpoint::to_json`].
    ///
    /// # Errors
    /// A description of what is missing or wrong, including a different table.
    pub fn from_json(v: &Value) -> Result<Checkpoint, String> {
        let field = |name: &str| v.get(name).ok_or_else(|| format!("missing field {name:?}"));
        let uint = |name: &str| {
            field(name)?
                .as_u64()
                .ok_or_else(|| format!("field {name:?} is not a count"))
        };
        let float = |name: &str| {
            unbits(field(name)?).ok_or_else(|| format!("field {name:?} is not a float"))
        };
        match field("format")?.as_str() {
            Some(FORMAT) => {}
            Some(f) if f.starts_with("texel-checkpoint-") => {
                return Err(format!(
                    "written by another version of texel ({f}); start the run again"
                ))
            }
            _ => return Err("not a texel checkpoint".into()),
        }
        let table = format!("{:016x}", table_fingerprint());
        if field("table")?.as_str() != Some(table.as_str()) {
            return Err("it was written for a different parameter table (terms added, removed or reshaped since)".into());
        }
        let flat = |v: &Value| -> Result<Params, String> {
            let values = v.as_array().ok_or("parameters are not a list")?;
            let mut p = Params::zeroed();
            if values.len() != p.flat().len() {
                return Err("parameter count does not match the table".into());
            }
            for (i, x) in values.iter().enumerate() {
                let x = x
                    .as_i64()
                    .and_then(|x| i32::try_from(x).ok())
                    .ok_or("a parameter is not an integer")?;
                p.set_flat(i, x);
            }
            Ok(p)
        };
        let vars = field("vars")?
            .as_array()
            .ok_or("vars is not a list")?
            .iter()
            .map(|v| {
                let slot = v.get(0).and_then(Value::as_u64).ok_or("bad variable")? as usize;
                let step = v.get(1).and_then(Value::as_i64).ok_or("bad variable")? as i32;
                if slot >= texel_eval::table::FLAT_LEN {
                    return Err("variable outside the table".to_string());
                }
                Ok(Variable { slot, step })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let gains = field("gains")?
            .as_array()
            .ok_or("gains is not a list")?
            .iter()
            .map(|g| Some((unbits(g.get(0)?)?, i32::try_from(g.get(1)?.as_i64()?).ok()?)))
            .collect::<Option<Vec<_>>>()
            .ok_or("bad gains")?;
        let c = field("cursor")?;
        let cursor = Cursor {
            active: c
                .get("active")
                .and_then(Value::as_bool)
                .ok_or("bad cursor")?,
            walked: c
                .get("walked")
                .and_then(Value::as_u64)
                .ok_or("bad cursor")? as usize,
            moves: c.get("moves").and_then(Value::as_u64).ok_or("bad cursor")?,
            moved: c
                .get("moved")
                .and_then(Value::as_array)
                .ok_or("bad cursor")?
                .iter()
                .map(Value::as_bool)
                .collect::<Option<Vec<_>>>()
                .ok_or("bad cursor")?,
            probes_at_start: c
                .get("probes_at_start")
                .and_then(Value::as_u64)
                .ok_or("bad cursor")?,
        };
        if gains.len() != vars.len() || (cursor.active && cursor.moved.len() != vars.len()) {
            return Err("variable lists do not agree".into());
        }
        let best = match field("best")? {
            Value::Null => None,
            b => Some((
                unbits(b.get("error").ok_or("bad best")?).ok_or("bad best")?,
                flat(b.get("params").ok_or("bad best")?)?,
            )),
        };
        let data = field("data")?
            .as_str()
            .and_then(|d| u64::from_str_radix(d, 16).ok())
            .ok_or("field \"data\" is not a fingerprint")?;
        Ok(Checkpoint {
            k: float("k")?,
            positions: uint("positions")? as usize,
            data,
            passes: uint("passes")? as usize,
            vars,
            descent: DescentState {
                params: flat(field("params")?)?,
                anchor: flat(field("anchor")?)?,
                guards: Guards {
                    l2: float("l2")?,
                    constraints: field("constraints")?
                        .as_bool()
                        .ok_or("field \"constraints\" is not a flag")?,
                },
                sum: float("sum")?,
                gains,
                probes: uint("probes")?,
                cursor,
            },
            best,
            rises: uint("rises")? as usize,
            seconds: float("seconds")?,
        })
    }

    /// Checks that this checkpoint (read from `path`) continues a run on the data with
    /// fingerprint `data` and the variables `vars`.
    ///
    /// # Errors
    /// Other data or another selection of variables, naming `path`.
    pub fn check_continues(
        &self,
        path: &Path,
        data: u64,
        vars: &[Variable],
    ) -> Result<(), RunError> {
        let bad = |reason: String| RunError::Checkpoint {
            path: path.to_path_buf(),
            reason,
        };
        if self.data != data {
            return Err(bad(
                "it was made for other data (the positions or labels differ, or --validate)".into(),
            ));
        }
        if self.vars != vars {
            return Err(bad(format!(
                "it tunes another selection ({} variables; this command selects {}): give the \
                 --group/--param/--exclude/--freeze-material/--min-support and steps of the run \
                 that wrote it",
                self.vars.len(),
                vars.len()
            )));
        }
        Ok(())
    }

    /// Writes the checkpoint atomically.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn save(&self, path: &Path) -> Result<(), RunError> {
        write_atomically(path, self.to_json().to_string().as_bytes()).map_err(|cause| {
            RunError::Io {
                path: path.to_path_buf(),
                cause,
            }
        })
    }

    /// Reads a checkpoint file.
    ///
    /// # Errors
    /// Unreadable, not JSON, or not a usable checkpoint (with the reason).
    pub fn load(path: &Path) -> Result<Checkpoint, RunError> {
        let bad = |reason: String| RunError::Checkpoint {
            path: path.to_path_buf(),
            reason,
        };
        let text = std::fs::read_to_string(path).map_err(|cause| RunError::Io {
            path: path.to_path_buf(),
            cause,
        })?;
        let v: Value = serde_json::from_str(&text).map_err(|e| bad(format!("corrupt ({e})")))?;
        Checkpoint::from_json(&v).map_err(bad)
    }
}

/// Runs passes until convergence, the pass limit, patience, or a stop from `events`.
/// Starts from `start` (a fresh checkpoint, `passes` 0) — the training set must be traced
/// with `start.descent.params`.
///
/// # Errors
/// A checkpoint made for other data, or a log or checkpoint that cannot be written.
pub fn run(
    train: &mut Dataset,
    validation: &mut Dataset,
    start: Checkpoint,
    options: &RunOptions,
    events: &mut dyn FnMut(Event) -> Control,
) -> Result<RunResult, RunError> {
    if start.positions != train.len() {
        let path = options.checkpoint.clone().unwrap_or_default();
        let reason = format!(
            "made for {} training positions, the data has {}",
            start.positions,
            train.len()
        );
        return Err(RunError::Checkpoint { path, reason });
    }
    let Checkpoint {
        k,
        data,
        mut passes,
        vars,
        descent,
        mut best,
        mut rises,
        seconds,
        ..
    } = start;
    let began = Instant::now() - std::time::Duration::from_secs_f64(seconds);
    let mut descent = Descent::resume(train, descent, k, vars.clone());
    let mut last_checkpoint = Instant::now();
    let mut log = match &options.log {
        Some(path) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|cause| RunError::Io {
                    path: path.clone(),
                    cause,
                })?,
        ),
        None => None,
    };
    let snapshot =
        |d: &Descent, passes: usize, best: &Option<(f64, Params)>, rises: usize| Checkpoint {
            k,
            positions: d.dataset().len(),
            data,
            passes,
            vars: vars.clone(),
            descent: d.state(),
            best: best.clone(),
            rises,
            seconds: began.elapsed().as_secs_f64(),
        };
    let mut io_error = None;
    while passes < options.passes {
        let pass = passes + 1;
        let mut stopped = false;
        let summary = descent.pass(&mut |d| {
            let (walked, moves) = d.progress();
            let event = Event::Progress {
                pass,
                walked,
                vars: d.variables().len(),
                moves,
                error: d.error(),
            };
            if events(event) == Control::Stop {
                stopped = true;
                return Control::Stop;
            }
            if let Some(path) = &options.checkpoint {
                if last_checkpoint.elapsed().as_secs_f64() >= options.checkpoint_secs {
                    match snapshot(d, passes, &best, rises).save(path) {
                        Ok(()) => {
                            events(Event::Checkpoint(path));
                        }
                        Err(e) => {
                            io_error = Some(e);
                            return Control::Stop;
                        }
                    }
                    last_checkpoint = Instant::now();
                }
            }
            Control::Continue
        });
        if let Some(e) = io_error {
            return Err(e);
        }
        let Some(summary) = summary else {
            debug_assert!(stopped);
            if let Some(path) = &options.checkpoint {
                snapshot(&descent, passes, &best, rises).save(path)?;
                events(Event::Checkpoint(path));
            }
            return Ok(RunResult {
                params: descent.params().clone(),
                end: RunEnd::Interrupted,
                passes,
            });
        };
        passes = pass;
        let train_error = descent.refresh();
        let validation_error = (!validation.is_empty()).then(|| {
            validation.rescore(descent.params());
            mean_error(validation, k)
        });
        let record = PassRecord {
            pass,
            train_error,
            validation_error,
            summary,
            seconds: began.elapsed().as_secs_f64(),
        };
        if let Some(file) = &mut log {
            let line = json!({
                "pass": record.pass,
                "train_error": record.train_error,
                "validation_error": record.validation_error,
                "changed": record.summary.changed,
                "moves": record.summary.moves,
                "probes": record.summary.probes,
                "seconds": record.seconds,
            });
            writeln!(file, "{line}")
                .and_then(|()| file.flush())
                .map_err(|cause| RunError::Io {
                    path: options.log.clone().unwrap_or_default(),
                    cause,
                })?;
        }
        events(Event::Pass(&record));
        let mut end = None;
        if let Some(v) = validation_error {
            match &best {
                Some((b, _)) if v >= *b => rises += 1,
                _ => {
                    best = Some((v, descent.params().clone()));
                    rises = 0;
                }
            }
            if options.patience.is_some_and(|p| rises >= p) {
                end = Some(RunEnd::Patience);
            }
        }
        if record.summary.moves == 0 {
            end = end.or(Some(RunEnd::Converged));
        }
        if let Some(path) = &options.checkpoint {
            snapshot(&descent, passes, &best, rises).save(path)?;
            last_checkpoint = Instant::now();
        }
        if let Some(end) = end {
            return Ok(finish(&descent, best, end, passes));
        }
    }
    Ok(finish(&descent, best, RunEnd::PassLimit, passes))
}

/// The parameters to keep: the best on validation when there is one.
fn finish(descent: &Descent, best: Option<(f64, Params)>, end: RunEnd, passes: usize) -> RunResult {
    let params = best.map_or_else(|| descent.params().clone(), |(_, p)| p);
    RunResult {
        params,
        end,
        passes,
    }
}

/// A checkpoint for a run that has not started: `params` must be what `train` is scored with;
/// `data` is the fingerprint of the loaded data ([`crate::LoadReport`]).
pub fn fresh(
    train: &Dataset,
    data: u64,
    params: Params,
    k: f64,
    vars: Vec<Variable>,
    guards: Guards,
) -> Checkpoint {
    let gains = vec![(0.0, 0); vars.len()];
    Checkpoint {
        k,
        positions: train.len(),
        data,
        passes: 0,
        descent: DescentState {
            sum: crate::error::chunked_sum(train.len(), |i| {
                crate::error::squared_error(k, train.eval(i), train.target(i))
            }),
            anchor: params.clone(),
            guards,
            params,
            gains,
            probes: 0,
            cursor: Cursor::default(),
        },
        vars,
        best: None,
        rises: 0,
        seconds: 0.0,
    }
}
