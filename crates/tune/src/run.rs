//! Multi-pass runs: validation with patience, a JSONL log of every pass, checkpoints written
//! atomically (every few minutes and when stopped) and exact resumption.

use crate::adam::Method;
use crate::checkpoint::{Checkpoint, CheckpointError};
use crate::descent::{Descent, PassSummary, Variable};
use crate::error::mean_error;
use crate::log::{data_id, PassKind, PassLine, TuneLogLine, TUNE_LOG_VERSION};
use crate::model::Model;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How a run goes.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Stop after this many passes over all positions (a warm start's passes come on top).
    pub passes: usize,
    /// Stop when the validation error rose this many passes in a row (keeping the best).
    pub patience: Option<usize>,
    /// Append one JSON line per pass here.
    pub log: Option<PathBuf>,
    /// Write checkpoints here.
    pub checkpoint: Option<PathBuf>,
    /// Seconds between checkpoints.
    pub checkpoint_secs: f64,
    /// Newton then a coordinate polish, coordinate descent, Adam, or Adam then coordinate
    /// descent.
    pub method: Method,
    /// Adam's learning rate: the largest move of a value per epoch, in steps.
    pub adam_rate: f64,
    /// `adam+cd`: Adam epochs at most before coordinate descent takes over.
    pub adam_epochs: usize,
    /// Coordinate descent only: a fresh run first tunes about one segment in `n` of the
    /// training data ([`crate::Model::sample`]) until a pass there lowers its error by
    /// less than `WARM_GAIN` (0.5 %), then goes on with all of it. `Some(0)` or `Some(1)`: no warm
    /// start; `None`: [`WARM_SAMPLE`] from [`AUTO_WARM_POSITIONS`] training positions on.
    pub warm_start: Option<usize>,
    /// When the run ends at the latest: the first pass that would begin later does not, and
    /// the run ends as a converged one does (values written, checkpoint removed).
    pub deadline: Option<Instant>,
}

impl RunOptions {
    /// Whether the deadline has passed.
    pub fn out_of_time(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

impl Default for RunOptions {
    /// At most 200 passes (a cap: a run ends by its method's own rule first), no patience,
    /// log or checkpoint, the default method (Newton).
    fn default() -> RunOptions {
        RunOptions {
            passes: 200,
            patience: None,
            log: None,
            checkpoint: None,
            checkpoint_secs: 300.0,
            method: Method::default(),
            adam_rate: ADAM_RATE,
            adam_epochs: ADAM_EPOCHS,
            warm_start: None,
            deadline: None,
        }
    }
}

/// The automatic warm start's sample: about one segment in this many.
pub const WARM_SAMPLE: usize = 8;
/// Coordinate descent on at least this many training positions starts warm unless told
/// otherwise: the sample then holds 62,500 positions or more, about the shipped set, and
/// the descent reaches within 1 % of its final error in half the time with an error no
/// worse (`texel bench converge`, docs/speed.md).
pub const AUTO_WARM_POSITIONS: usize = 500_000;

impl RunOptions {
    /// The share a fresh run on `positions` training positions warm-starts on (about one
    /// segment in the number returned), if it does.
    pub fn warm_sample(&self, positions: usize) -> Option<usize> {
        if self.method != Method::Cd {
            return None;
        }
        match self.warm_start {
            Some(n) => (n > 1).then_some(n),
            None => (positions >= AUTO_WARM_POSITIONS).then_some(WARM_SAMPLE),
        }
    }
}

/// The warm start ends after a pass that lowered the sample's error by less than this
/// share, or after [`WARM_PASSES`] passes.
pub const WARM_GAIN: f64 = 0.005;
/// Passes of the warm start at most.
pub const WARM_PASSES: usize = 10;

/// Newton's coordinate polish (texel's table) ends after a pass that lowered the training
/// error by less than this share of it: its last passes move a value or two each for gains
/// a hundred times smaller than the Newton steps' rounding costs. The lattice polish of a
/// trace ends when a round moves nothing.
pub const POLISH_TOLERANCE: f64 = 1e-3;

/// Adam's default learning rate (steps per epoch at most).
pub const ADAM_RATE: f64 = 2.0;
/// `adam+cd`'s default number of Adam epochs at most (it hands over sooner when Adam's
/// error stops changing).
pub const ADAM_EPOCHS: usize = 1000;

/// What a run reports while it works.
#[derive(Debug)]
pub enum Event<'e, M: Model> {
    /// A safe point inside a pass.
    Progress {
        /// Pass number (from 1).
        pass: usize,
        /// Variables walked in this pass.
        walked: usize,
        /// Variables in all.
        vars: usize,
        /// After the walk: variables whose stored gain still asks for a move (the pass ends
        /// when none is left).
        pending: usize,
        /// Moves in this pass.
        moves: u64,
        /// Current training error.
        error: f64,
        /// The pass tunes about one segment in `n` only (the warm start): the error is
        /// that sample's.
        sample: Option<usize>,
    },
    /// A pass ended; the descent's dataset is scored with its parameters (the pass's
    /// result, not necessarily the best on validation).
    Pass(&'e PassRecord, &'e Descent<'e, M>),
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
    /// The pass tuned about one segment in `n` only (the warm start): its training error
    /// is that sample's.
    pub sample: Option<usize>,
    /// A Newton iteration or an Adam pass: the training error of its real values,
    /// unrounded (the training error above is that of the values rounded).
    pub real_error: Option<f64>,
    /// What the pass was.
    pub kind: PassKind,
}

/// How a run ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// The method converged: a coordinate pass moved nothing, Newton's polish or Adam stopped
    /// paying (their tolerances).
    Converged,
    /// The pass limit was reached.
    PassLimit,
    /// The validation error rose for `patience` passes.
    Patience,
    /// Stopped from outside (Ctrl-C); the checkpoint holds the state.
    Interrupted,
    /// The time limit was reached: the run ended as a converged one does.
    TimeLimit,
}

/// The result of a run.
#[derive(Clone, Debug)]
pub struct RunResult<V> {
    /// The tuned parameters: the best on validation when a validation set exists (the
    /// start among them: never worse on validation than where the run began).
    pub params: V,
    /// Why it ended.
    pub end: RunEnd,
    /// Passes completed.
    pub passes: usize,
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The log could not be written.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
    /// A checkpoint could not be written, or does not fit the run.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
}

/// How a run goes on after a pass.
enum Next {
    /// Another pass.
    Pass,
    /// The warm start is done: on with all positions.
    WarmDone,
    /// The run ends.
    End(RunEnd),
}

/// Where a run stands between passes: what a checkpoint holds besides the descent.
struct Standing<V> {
    k: f64,
    data: u64,
    vars: Vec<Variable>,
    passes: usize,
    best: Option<(f64, V)>,
    rises: usize,
    began: Instant,
    /// Training positions of the run (the checkpoint's check).
    positions: usize,
    /// The warm start under way, if any: about one segment in `n`.
    warm: Option<usize>,
    /// Warm passes done in the run, and the sample's error after the last one.
    warm_passes: usize,
    warm_error: f64,
    /// The settings the run began with, carried into every checkpoint.
    settings: Option<texel_run::Settings>,
}

impl<V: crate::Values> Standing<V> {
    /// The checkpoint of the run with descent `d`.
    fn checkpoint<M: Model<Values = V>>(&self, d: &Descent<M>) -> Checkpoint<V> {
        Checkpoint {
            kind: crate::checkpoint::RunKind::Memory,
            k: self.k,
            positions: self.positions,
            data: self.data,
            passes: self.passes,
            vars: self.vars.clone(),
            descent: d.state(),
            best: self.best.clone(),
            rises: self.rises,
            seconds: self.began.elapsed().as_secs_f64(),
            warm: self.warm,
            warm_passes: self.warm_passes,
            settings: self.settings.clone(),
        }
    }

    /// Counts a pass's validation error: a new best, or one more rise.
    fn validated(&mut self, error: f64, params: &V) {
        match &self.best {
            Some((b, _)) if error >= *b => self.rises += 1,
            _ => {
                self.best = Some((error, params.clone()));
                self.rises = 0;
            }
        }
    }

    /// Whether the warm start under way ends with the pass of `record` (its training error
    /// is the sample's); counts the pass.
    fn warm_ends(&mut self, record: &PassRecord) -> bool {
        if self.warm.is_none() {
            return false;
        }
        self.warm_passes += 1;
        let gain = (self.warm_error - record.train_error) / self.warm_error;
        self.warm_error = record.train_error;
        let done = gain < WARM_GAIN || record.summary.moves == 0 || self.warm_passes >= WARM_PASSES;
        if done {
            self.warm = None;
        }
        done
    }

    /// The parameters to keep: the best on validation when there is one.
    fn finish<M: Model<Values = V>>(&self, descent: &Descent<M>, end: RunEnd) -> RunResult<V> {
        let params = self
            .best
            .as_ref()
            .map_or_else(|| descent.params().clone(), |(_, p)| p.clone());
        RunResult {
            params,
            end,
            passes: self.passes,
        }
    }
}

/// A run in progress: the descent, where the run stands, and its outputs.
struct Runner<'r, 'd, M: Model> {
    descent: Descent<'d, M>,
    standing: Standing<M::Values>,
    validation: &'r mut M,
    options: &'r RunOptions,
    log: Option<std::fs::File>,
    last_checkpoint: Instant,
    /// Raised, the run stops at its next safe point.
    interrupt: &'r AtomicBool,
}

impl<M: Model> Runner<'_, '_, M> {
    /// Writes a checkpoint, if the run keeps one.
    fn save(&mut self) -> Result<(), RunError> {
        if let Some(path) = &self.options.checkpoint {
            self.standing.checkpoint(&self.descent).save(path)?;
            self.last_checkpoint = Instant::now();
        }
        Ok(())
    }

    /// Whether the next pass is an Adam epoch.
    fn in_adam(&self) -> bool {
        matches!(self.options.method, Method::Adam | Method::AdamThenCd)
            && !self.descent.adam_handed_over()
    }

    /// Whether the next pass is a Newton iteration.
    fn in_newton(&self) -> bool {
        self.options.method == Method::Newton && !self.descent.newton_handed_over()
    }

    /// One pass that takes every position at once (a Newton iteration or an Adam epoch),
    /// made by `step` after its progress event; `None` when the run was stopped before it
    /// began.
    fn whole_pass(
        &mut self,
        events: &mut dyn FnMut(Event<M>),
        step: impl FnOnce(&mut Descent<M>) -> PassSummary,
    ) -> Option<PassSummary> {
        let progress = Event::Progress {
            pass: self.standing.passes + 1,
            walked: 0,
            vars: self.descent.variables().len(),
            pending: 0,
            moves: 0,
            error: self.descent.real_error().unwrap_or(self.descent.error()),
            sample: None,
        };
        events(progress);
        if self.interrupt.load(Ordering::SeqCst) {
            return None;
        }
        Some(step(&mut self.descent))
    }

    /// Runs one pass (or the rest of one), reporting progress and writing checkpoints when
    /// they are due; `None` when the run was stopped.
    fn pass(&mut self, events: &mut dyn FnMut(Event<M>)) -> Result<Option<PassSummary>, RunError> {
        if self.in_adam() {
            let rate = self.options.adam_rate;
            return Ok(self.whole_pass(events, |d| d.adam_pass(rate)));
        }
        if self.in_newton() {
            return Ok(self.whole_pass(events, |d| d.newton_iteration()));
        }
        if self.options.method == Method::Newton && self.descent.dataset().lattice_polish() {
            return Ok(self.whole_pass(events, |d| d.polish_round()));
        }
        let Runner {
            descent,
            standing,
            options,
            last_checkpoint,
            interrupt,
            ..
        } = self;
        let (pass, sample) = (standing.passes + 1, standing.warm);
        let mut failed = None;
        // Raised when the run is stopped or a checkpoint cannot be written.
        let halt = AtomicBool::new(false);
        let summary = descent.pass(&halt, &mut |d| {
            let (walked, moves) = d.progress();
            let (vars, error) = (d.variables().len(), d.error());
            let progress = Event::Progress {
                pass,
                walked,
                vars,
                pending: if walked < vars { 0 } else { d.pending() },
                moves,
                error,
                sample,
            };
            events(progress);
            if interrupt.load(Ordering::SeqCst) {
                return halt.store(true, Ordering::SeqCst);
            }
            let Some(path) = &options.checkpoint else {
                return;
            };
            if last_checkpoint.elapsed().as_secs_f64() < options.checkpoint_secs {
                return;
            }
            *last_checkpoint = Instant::now();
            match standing.checkpoint(d).save(path) {
                Ok(()) => events(Event::Checkpoint(path)),
                Err(e) => {
                    failed = Some(e);
                    halt.store(true, Ordering::SeqCst);
                }
            }
        });
        match failed {
            Some(e) => Err(e.into()),
            None => Ok(summary),
        }
    }

    /// After a finished pass: errors from scratch, the log line, the event, validation and
    /// patience, the end of a warm start, a checkpoint. Returns how the run goes on.
    fn after_pass(
        &mut self,
        summary: PassSummary,
        events: &mut dyn FnMut(Event<M>),
    ) -> Result<Next, RunError> {
        self.standing.passes += 1;
        let newton = self.options.method == Method::Newton
            && (self.descent.newton_iterations() as usize) == self.standing.passes;
        let adam = self.in_adam();
        let train_error = self.descent.refresh();
        let k = self.standing.k;
        let validation_error = (!self.validation.is_empty()).then(|| {
            self.validation.rescore(self.descent.params());
            mean_error(self.validation, k)
        });
        let record = PassRecord {
            pass: self.standing.passes,
            train_error,
            validation_error,
            summary,
            seconds: self.standing.began.elapsed().as_secs_f64(),
            sample: self.standing.warm,
            real_error: (newton || adam)
                .then(|| self.descent.real_error())
                .flatten(),
            kind: match (newton, adam) {
                (true, _) => PassKind::Newton,
                (_, true) => PassKind::Adam,
                _ => PassKind::Descent,
            },
        };
        self.log_pass(&record)?;
        events(Event::Pass(&record, &self.descent));
        let mut end = None;
        if let Some(v) = validation_error {
            self.standing.validated(v, self.descent.params());
            if self
                .options
                .patience
                .is_some_and(|p| self.standing.rises >= p)
            {
                end = Some(RunEnd::Patience);
            }
        }
        if record.summary.moves == 0 && self.standing.warm.is_none() && !newton && !adam {
            end = end.or(Some(RunEnd::Converged));
        }
        if adam && self.descent.adam_converged() {
            end = end.or(Some(RunEnd::Converged));
        }
        let polish = self.options.method == Method::Newton && !newton;
        let lattice = self.descent.dataset().lattice_polish();
        if polish && !lattice && record.summary.fall < POLISH_TOLERANCE {
            end = end.or(Some(RunEnd::Converged));
        }
        if newton && (end.is_some() || self.descent.newton_handed_over()) {
            self.descent.hand_over_to_polish();
            self.standing.rises = 0;
            end = None;
        }
        if adam && self.options.method == Method::AdamThenCd {
            let epochs = self.descent.adam_epochs();
            if end.is_some() || epochs >= self.options.adam_epochs as u64 {
                self.descent.hand_over_to_cd();
                self.standing.rises = 0;
                end = None;
            }
        }
        if end.is_none() && self.standing.warm_ends(&record) {
            // The run goes on over all positions, which saves the next checkpoint.
            return Ok(Next::WarmDone);
        }
        self.save()?;
        Ok(end.map_or(Next::Pass, Next::End))
    }

    /// Runs passes until the run ends (its result) or a warm start is done (`None`).
    fn passes(
        &mut self,
        events: &mut dyn FnMut(Event<M>),
    ) -> Result<Option<RunResult<M::Values>>, RunError> {
        while self.standing.passes - self.standing.warm_passes < self.options.passes {
            if self.options.out_of_time() {
                return Ok(Some(self.standing.finish(&self.descent, RunEnd::TimeLimit)));
            }
            let Some(summary) = self.pass(events)? else {
                self.save()?;
                if let Some(path) = &self.options.checkpoint {
                    events(Event::Checkpoint(path));
                }
                return Ok(Some(RunResult {
                    params: self.descent.params().clone(),
                    end: RunEnd::Interrupted,
                    passes: self.standing.passes,
                }));
            };
            match self.after_pass(summary, events)? {
                Next::Pass => {}
                Next::WarmDone => return Ok(None),
                Next::End(end) => return Ok(Some(self.standing.finish(&self.descent, end))),
            }
        }
        Ok(Some(self.standing.finish(&self.descent, RunEnd::PassLimit)))
    }

    /// Appends the pass's line to the log.
    fn log_pass(&mut self, record: &PassRecord) -> Result<(), RunError> {
        let Some(file) = &mut self.log else {
            return Ok(());
        };
        let line = TuneLogLine::Pass(PassLine {
            version: TUNE_LOG_VERSION,
            pass: record.pass,
            train_error: record.train_error,
            validation_error: record.validation_error,
            changed: record.summary.changed,
            moves: record.summary.moves,
            probes: record.summary.probes,
            seconds: record.seconds,
            sample: record.sample,
            real_error: record.real_error,
            kind: Some(record.kind),
            data: Some(data_id(self.standing.data)),
        });
        let line = serde_json::to_string(&line).expect("plain data");
        writeln!(file, "{line}")
            .and_then(|()| file.flush())
            .map_err(|cause| RunError::Io {
                path: self.options.log.clone().unwrap_or_default(),
                cause,
            })
    }
}

/// The log file, opened for appending.
fn open_log(options: &RunOptions) -> Result<Option<std::fs::File>, RunError> {
    let Some(path) = &options.log else {
        return Ok(None);
    };
    texel_files::open_lines_for_append(path)
        .map(Some)
        .map_err(|cause| RunError::Io {
            path: path.clone(),
            cause,
        })
}

/// Refuses a start made for another number of training positions or values.
fn check_start<M: Model>(
    train: &M,
    start: &Checkpoint<M::Values>,
    options: &RunOptions,
) -> Result<(), RunError> {
    let values = crate::Values::values(&start.descent.params).len();
    let reason = if start.positions != train.len() {
        format!(
            "made for {} training positions, the data has {}",
            start.positions,
            train.len()
        )
    } else if values != train.slot_count() {
        format!(
            "made for {values} values, the evaluation has {}",
            train.slot_count()
        )
    } else {
        return Ok(());
    };
    let path = options.checkpoint.clone().unwrap_or_default();
    Err(CheckpointError::Unusable { path, reason }.into())
}

/// The warm start's sample of a run from `start` over `positions`: a checkpoint's, or on a
/// fresh start the options'.
fn warm_of<V>(start: &Checkpoint<V>, options: &RunOptions, positions: usize) -> Option<usize> {
    start.warm.or_else(|| {
        let fresh = start.passes == 0 && !start.descent.cursor.active;
        options.warm_sample(positions).filter(|_| fresh)
    })
}

/// Runs passes until convergence, the pass limit, patience, or `interrupt` is raised (it is
/// looked at after every event: Ctrl-C, or the caller's own reason).
/// Starts from `start` (a fresh checkpoint, `passes` 0) — the training set must be traced
/// with `start.descent.params`. With validation positions, the values kept are those with
/// the lowest validation error of the start and every pass.
///
/// # Errors
/// A checkpoint made for other data, or a log or checkpoint that cannot be written.
pub fn run<M: Model>(
    train: &mut M,
    validation: &mut M,
    start: Checkpoint<M::Values>,
    options: &RunOptions,
    interrupt: &AtomicBool,
    events: &mut dyn FnMut(Event<M>),
) -> Result<RunResult<M::Values>, RunError> {
    check_start(train, &start, options)?;
    let warm = warm_of(&start, options, train.len());
    let (k, vars) = (start.k, start.vars.clone());
    let mut standing = Standing {
        k,
        data: start.data,
        vars: start.vars,
        passes: start.passes,
        best: start.best,
        rises: start.rises,
        began: Instant::now() - Duration::from_secs_f64(start.seconds),
        positions: train.len(),
        warm,
        warm_passes: start.warm_passes,
        warm_error: 0.0,
        settings: start.settings,
    };
    let (mut state, mut log) = (start.descent, open_log(options)?);
    if standing.best.is_none() && standing.passes == 0 && !validation.is_empty() {
        // The start is a candidate too: a run whose every pass is worse on validation
        // gives back the values it began with.
        validation.rescore(&state.params);
        standing.best = Some((mean_error(validation, k), state.params.clone()));
    }
    if let Some(n) = warm {
        let mut sample = train.sample(n);
        sample.rescore(&state.params);
        let mut descent = Descent::resume(&mut sample, state, k, vars.clone());
        if start.warm.is_none() {
            // A fresh run's error sum is that of every position: the sample's from scratch.
            descent.refresh();
        }
        standing.warm_error = descent.error();
        let mut runner = Runner {
            descent,
            standing,
            validation: &mut *validation,
            options,
            log,
            last_checkpoint: Instant::now(),
            interrupt,
        };
        if let Some(result) = runner.passes(events)? {
            return Ok(result);
        }
        state = runner.descent.state();
        state.gains.fill((0.0, 0));
        (standing, log) = (runner.standing, runner.log);
    }
    let mut descent = Descent::resume(train, state, k, vars);
    if warm.is_some() {
        // Over all positions from the warm start's values: every error from scratch.
        descent.refresh();
    }
    let mut runner = Runner {
        descent,
        standing,
        validation,
        options,
        log,
        last_checkpoint: Instant::now(),
        interrupt,
    };
    if warm.is_some() {
        runner.save()?;
    }
    Ok(runner
        .passes(events)?
        .unwrap_or_else(|| runner.standing.finish(&runner.descent, RunEnd::PassLimit)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_sets_start_warm_unless_told_otherwise_and_only_with_cd() {
        let with = |method, warm_start| RunOptions {
            method,
            warm_start,
            ..RunOptions::default()
        };
        let (small, large) = (AUTO_WARM_POSITIONS - 1, AUTO_WARM_POSITIONS);
        assert_eq!(with(Method::Cd, None).warm_sample(small), None);
        assert_eq!(with(Method::Cd, None).warm_sample(large), Some(WARM_SAMPLE));
        for off in [Some(0), Some(1)] {
            assert_eq!(with(Method::Cd, off).warm_sample(large), None);
        }
        assert_eq!(with(Method::Cd, Some(3)).warm_sample(small), Some(3));
        for method in [Method::Adam, Method::AdamThenCd] {
            assert_eq!(with(method, None).warm_sample(large), None);
        }
    }
}
