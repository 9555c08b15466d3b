//! Tuning a binary trace whose tuner form does not fit in memory: every pass reads the
//! positions from the file again, a chunk at a time, and keeps nothing per position.
//!
//! The in-memory tuner keeps about 230 bytes a position (columns, labels, sums, Newton's
//! vectors). Here a chunk of positions is decoded into the same columns
//! ([`TraceDataset`]), scored, summed into what the pass needs, and dropped, so memory is
//! one chunk, the record index of the trace (8 bytes a position), a byte a position for the
//! validation split, and the `n × n` Hessian of the `n` tuned values, however many positions
//! there are. The objective is the in-memory one: the summed squared error of the unrounded
//! evaluations plus the L2 pull to the start, `l2 · Σ (x − start)² / 10,000`.
//!
//! Each Gauss-Newton iteration takes two passes: one sums the error, gradient and Hessian
//! at the current real values (`hessian::system`, positions far from a draw adding their
//! diagonal only, as in memory), one judges eight step lengths at once (1, ½, … 1/128:
//! the largest that lowers the objective by Armijo's share is taken; Levenberg-Marquardt's
//! damping shrinks after a full step and grows after a cut one). Newton stops when an
//! iteration lowers the objective by less than `NEWTON_TOLERANCE` of it. The values are
//! then rounded and polished on the integer lattice by the rounds of `texel_solve::polish`, the
//! in-memory run's polish of a trace: a pass probes every value one up and one down (the
//! exact change of the rounded evaluations' error), then passes of trials take the best
//! sets of the moves that gain. Chunks are summed in order and each chunk's sums in a fixed
//! order of blocks, so the result does not depend on the number of threads; the values
//! written are those of the in-memory run.
//!
//! The iterations and rounds are passes of the one run (`crate::run`, over the
//! `tuner::StreamTuner`): after each, the training error of the rounded values from scratch
//! (a pass more after a Newton iteration; a round knows it) and the held-out error, the log
//! line, the best values on validation, patience, the limits and the checkpoint, as in
//! memory.

mod form;
mod passes;
mod path;
mod polish;
mod tuner;

use crate::begin::{begin, Beginning, NothingToTune, StoppedOnPath};
use crate::checkpoint::{Checkpoint, Mismatch, RunKind};
use crate::events::JobEvent;
use crate::lambda::{LambdaChoice, LambdaPoint};
use crate::path::{Hooks, OnPath, PullPoint, Walked};
use crate::run::{RunEnd, RunError, RunResult, Unstreamed};
use crate::settings::{Streaming, TuneSettings};
use crate::traces::{held_split, target};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use texel_data::HeldOut;
use texel_linear::TraceDataset;
use texel_run::Settings;
use texel_solve::descent::{DescentState, Guards, NewtonState, Variable};
use texel_solve::error::{take_k, KChoice, UnfitK};
use texel_solve::model::{Model, Probes};
use texel_solve::newton::FIRST_DAMPING;
use texel_trace::{BinaryTrace, TraceError};
use tuner::StreamTuner;

/// How a streamed trace's positions are labelled and split (what the in-memory load does
/// for a [`crate::TraceSubject`]).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Labels {
    /// The share of the game result in each target (1: results alone; see [`target`]).
    pub lambda: f64,
    /// Positions in 1,000 held out for validation (by a hash of each position's number, as
    /// the in-memory tune does).
    pub held_out: HeldOut,
}

impl Default for Labels {
    /// Results alone, nothing held out.
    fn default() -> Labels {
        Labels {
            lambda: 1.0,
            held_out: HeldOut::NONE,
        }
    }
}

/// What a streamed tune ends with.
#[derive(Clone, Debug, PartialEq)]
pub struct Streamed {
    /// Every value of the trace's space (the untuned ones as they started): the best on
    /// validation where positions are held out (the start among them), else the last.
    pub values: Vec<i32>,
    /// The K used.
    pub k: f64,
    /// The mean training error of Newton's last real values, before rounding.
    pub real_error: f64,
    /// The mean training error of [`Streamed::values`].
    pub error: f64,
    /// The mean validation error of [`Streamed::values`] (none held out: `None`).
    pub validation: Option<f64>,
    /// Newton iterations taken.
    pub iterations: u64,
    /// Passes taken: Newton's iterations and the polish rounds.
    pub passes: usize,
    /// The pass whose values [`Streamed::values`] are, chosen on validation (0: the start;
    /// `None`: nothing held out, the last pass's).
    pub best_pass: Option<usize>,
    /// How the run ended (interrupted: its checkpoint holds where it was).
    pub end: RunEnd,
    /// The slots tuned (those of the ones asked that enough positions use).
    pub tuned: Vec<usize>,
    /// The tuned slots whose values changed, with the training positions each counts in.
    pub support: Vec<(usize, usize)>,
}

/// What a streamed tune reports as it goes: the K chosen, a warning on the start, and what
/// a tune in memory reports (values held, the path of pulls, the start, every pass).
pub enum StreamEvent<'e> {
    /// K was chosen (not given): fitted, or the convention.
    Fitted(KChoice),
    /// A warning on the start's evaluations (saturated at the K in use).
    Warning(String),
    /// The tune's own event, as a tune in memory reports it (a pass's descent is `None`).
    Job(JobEvent<'e, TraceDataset>),
}

/// A streamed tune's setup besides its trace and values.
#[derive(Clone, Debug)]
pub struct StreamRun<'a> {
    /// How the tune runs (its log and checkpoint are written where its run says).
    pub settings: &'a TuneSettings,
    /// How the positions are labelled and split.
    pub labels: Labels,
    /// The fingerprint of the trace, labels and split a checkpoint is made for (a resume
    /// of another is refused).
    pub fingerprint: u64,
    /// The settings record the checkpoints keep (a resume compares it).
    pub record: Option<Settings>,
    /// Which positions `labels` holds out, where the caller read the split already (a
    /// session surveys the trace first); `None`, or a split of another length than the
    /// trace: the tune reads it.
    pub held: Option<Vec<bool>>,
}

impl<'a> StreamRun<'a> {
    /// A run with `settings` on positions labelled by `labels`, fingerprint 0, no record.
    pub fn new(settings: &'a TuneSettings, labels: Labels) -> StreamRun<'a> {
        StreamRun {
            settings,
            labels,
            fingerprint: 0,
            record: None,
            held: None,
        }
    }
}

/// Why a streamed tune did not finish.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// The trace could not be read.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// The interrupt flag was raised (between chunks).
    #[error("stopped")]
    Stopped,
    /// No position is left for training.
    #[error("no training positions")]
    Empty,
    /// Every selected value has too little support.
    #[error(transparent)]
    NothingToTune(#[from] NothingToTune),
    /// Ctrl-C on the path of pulls before the run began.
    #[error(transparent)]
    StoppedOnPath(#[from] StoppedOnPath),
    /// The scratch file of the tuner form cannot be written or read.
    #[error("the scratch file {}: {cause}", path.display())]
    Form {
        /// The file.
        path: std::path::PathBuf,
        /// What failed.
        cause: std::io::Error,
    },
    /// A checkpoint that is not of this trace and selection.
    #[error("the checkpoint is not of this run: {0}")]
    Checkpoint(#[from] Mismatch),
    /// K cannot be fitted to the start.
    #[error(transparent)]
    K(#[from] UnfitK),
    /// A setting a streamed tune does not have.
    #[error("a streamed run does not take {0} (it is Newton and its polish over the whole trace)")]
    Unstreamed(Unstreamed),
    /// The start values do not fit the trace's space.
    #[error("{found} start values for a space of {expected}")]
    Start {
        /// Values the space has.
        expected: usize,
        /// Values given.
        found: usize,
    },
    /// The run around the tune failed (its log or checkpoint).
    #[error(transparent)]
    Run(RunError),
}

impl From<RunError> for StreamError {
    /// A reading of the positions that failed inside the run is the stream's own error.
    fn from(e: RunError) -> StreamError {
        match e {
            RunError::Positions(cause) => match cause.downcast::<StreamError>() {
                Ok(own) => *own,
                Err(other) => StreamError::Run(RunError::Positions(other)),
            },
            e => StreamError::Run(e),
        }
    }
}

/// Tunes the values `slots` of the binary trace `trace` from `start` (every value of its
/// space), reading the positions from the file in every pass (see the module's page), or
/// goes on from `resume` (a checkpoint of the same trace, of kind streamed). Its passes
/// are the one run's (`crate::run`): log, checkpoint, validation, limits. `interrupt` is
/// looked at between chunks; `on` hears what the tune does.
///
/// # Errors
/// The trace cannot be read, the start or checkpoint does not fit, no position trains,
/// `interrupt` before the run began, or its log or checkpoint cannot be written.
pub fn tune_streamed(
    trace: &BinaryTrace,
    (start, slots): (&[i32], &[usize]),
    mut run: StreamRun,
    resume: Option<Checkpoint<Vec<i32>>>,
    interrupt: &AtomicBool,
    mut on: impl FnMut(StreamEvent),
) -> Result<Streamed, StreamError> {
    let settings = run.settings;
    if let Some(what) = settings.unstreamed() {
        return Err(StreamError::Unstreamed(what));
    }
    let expected = trace.space().value_count();
    if start.len() != expected {
        let found = start.len();
        return Err(StreamError::Start { expected, found });
    }
    let held = match run.held.take() {
        Some(held) if held.len() == trace.len() => held,
        _ => held_split(trace, run.labels.held_out)?.0,
    };
    let trained = held.iter().filter(|&&h| !h).count();
    if trained == 0 {
        return Err(StreamError::Empty);
    }
    let mut stream = Stream {
        trace,
        held,
        start,
        slots: slots.to_vec(),
        run: run.clone(),
        streaming: settings.stream.clone(),
        k: settings.k.unwrap_or(1.0),
        interrupt,
        whole: Cell::new(false),
        trained: trained as f64,
        form: None,
    };
    if let Some(path) = stream.streaming.form.clone() {
        stream.form = Some(stream.write_form(&path)?);
    }
    match &resume {
        // A run stopped on its path of pulls walks on at its K.
        Some(c) => stream.k = c.k,
        None => stream.take_k(&mut on)?,
    }
    let selected: Vec<Variable> = (slots.iter())
        .map(|&slot| Variable { slot, step: 1 })
        .collect();
    let record = run.record.clone();
    let begun = begin(
        &mut stream,
        (&selected, settings),
        resume,
        record,
        &mut |e| on(StreamEvent::Job(e)),
    )?;
    (stream.k, stream.slots) = (begun.k, begun.vars.iter().map(|v| v.slot).collect());
    let (result, tuner) = crate::run::drive(
        StreamTuner::new(&stream, begun.descent.clone()),
        (&begun, RunKind::Streamed, trace.len()),
        &settings.run,
        interrupt,
        &mut |e| on(StreamEvent::Job(JobEvent::Run(e))),
    )?;
    stream.ended(result, &tuner)
}

/// One streamed tune's inputs.
pub(crate) struct Stream<'a> {
    trace: &'a BinaryTrace,
    held: Vec<bool>,
    start: &'a [i32],
    /// The slots tuned (those asked that enough positions use, once the hold is done).
    slots: Vec<usize>,
    run: StreamRun<'a>,
    streaming: Streaming,
    k: f64,
    interrupt: &'a AtomicBool,
    /// Raised while a reading must not stop half-way (the errors a finished pass is judged
    /// by): the interrupt is then looked at after it.
    whole: Cell<bool>,
    trained: f64,
    /// The positions' tuner form, once written.
    form: Option<form::FormFile>,
}

impl Stream<'_> {
    /// K for a fresh tune: given, or fitted to the start's evaluations (`take_k`), said.
    fn take_k(&mut self, on: &mut impl FnMut(StreamEvent)) -> Result<(), StreamError> {
        let taken = take_k(self.run.settings.k, &self.start_samples()?)?;
        self.k = taken.k;
        if let Some(chosen) = taken.chosen {
            on(StreamEvent::Fitted(chosen));
        }
        if let Some(warning) = taken.warning {
            on(StreamEvent::Warning(warning));
        }
        Ok(())
    }

    /// The checkpoint a fresh tune of `vars` with `guards` begins from (a trace's values
    /// declare no constraints).
    fn checkpoint(
        &mut self,
        vars: Vec<Variable>,
        guards: Guards,
        from: Option<Vec<i32>>,
    ) -> Checkpoint<Vec<i32>> {
        self.slots = vars.iter().map(|v| v.slot).collect();
        let guards = Guards {
            constraints: false,
            ..guards
        };
        let params = from.unwrap_or_else(|| self.start.to_vec());
        let real = self.slots.iter().map(|&s| f64::from(params[s])).collect();
        let mut start = DescentState::starting(params, guards, f64::NAN, vars.len());
        start.anchor = self.start.to_vec();
        start.newton = Some(NewtonState {
            values: real,
            ..self.newton_start()
        });
        let figures = (self.k, self.run.fingerprint, self.trace.len());
        Checkpoint::begun(RunKind::Streamed, figures, start, vars)
    }

    /// Newton's state at the start values of the tuned slots.
    fn newton_start(&self) -> NewtonState {
        NewtonState {
            values: self.anchor(),
            damping: FIRST_DAMPING,
            iterations: 0,
            error: f64::NAN,
            handed_over: false,
            chord: None,
            hessian_at: None,
            curves_held: false,
            lifts: 0,
        }
    }

    /// The start values of the tuned slots, as reals (the L2 pull's anchor).
    fn anchor(&self) -> Vec<f64> {
        self.slots
            .iter()
            .map(|&s| f64::from(self.start[s]))
            .collect()
    }

    /// What the run ended with: its values' errors, the support of those that changed.
    fn ended(
        &self,
        result: RunResult<Vec<i32>>,
        tuner: &StreamTuner,
    ) -> Result<Streamed, StreamError> {
        let values = result.params;
        let table = texel_solve::error::SigmoidTable::new(self.k);
        let sum = match tuner.values == values && tuner.sum().is_some() {
            true => tuner.sum().unwrap_or_default(),
            false => self.whole(|| self.integer_sum(false, &values, &table))?,
        };
        let validation = self.whole(|| self.validation_error(&values))?;
        let support = self.whole(|| self.changed_support(&values))?;
        Ok(Streamed {
            support,
            values,
            k: self.k,
            real_error: tuner.newton.error,
            error: sum / self.trained,
            validation,
            iterations: tuner.newton.iterations,
            passes: result.passes,
            best_pass: result.best_pass,
            end: result.end,
            tuned: self.slots.clone(),
        })
    }

    /// Whether the interrupt stops the reading under way.
    fn stopped(&self) -> bool {
        !self.whole.get() && self.interrupt.load(Ordering::Relaxed)
    }

    /// `f`, its readings not stopped half-way by the interrupt.
    fn whole<T>(&self, f: impl FnOnce() -> T) -> T {
        let was = self.whole.replace(true);
        let answer = f();
        self.whole.set(was);
        answer
    }

    /// `f` of each chunk of the training (or validation) positions, in order, each scored
    /// at `values` (every value of the space).
    fn chunks<T>(
        &self,
        validation: bool,
        values: &[i32],
        mut f: impl FnMut(&mut TraceDataset) -> T,
    ) -> Result<Vec<T>, StreamError> {
        if let Some(form) = &self.form {
            return form.chunks(self, validation, values, &mut f);
        }
        let (n, size) = (self.trace.len(), self.streaming.chunk.max(1));
        let mut out = Vec::new();
        for first in (0..n).step_by(size) {
            if self.stopped() {
                return Err(StreamError::Stopped);
            }
            let chosen: Vec<usize> = (first..(first + size).min(n))
                .filter(|&i| self.held[i] == validation)
                .collect();
            if !chosen.is_empty() {
                out.push(f(&mut self.decoded(&chosen, values)?));
            }
        }
        Ok(out)
    }

    /// The positions `chosen` decoded from the file, labelled and scored at `values`.
    fn decoded(&self, chosen: &[usize], values: &[i32]) -> Result<TraceDataset, StreamError> {
        let lambda = self.run.labels.lambda;
        let label = |p: &texel_trace::TracedPosition| target(p, lambda);
        let space = self.trace.space();
        let (mut ds, _) = TraceDataset::from_source(space, self.trace, chosen, label, |_| ())?;
        ds.rescore(&values.to_vec());
        Ok(ds)
    }

    /// The evaluations at the start and targets of the first [`texel_solve::error::K_SAMPLE`]
    /// training positions, as in memory: what K is chosen on and saturation judged by.
    fn start_samples(&self) -> Result<Vec<(i32, f64)>, StreamError> {
        let trained = (0..self.trace.len()).filter(|&i| !self.held[i]);
        let first: Vec<usize> = trained.take(texel_solve::error::K_SAMPLE).collect();
        if first.is_empty() {
            return Err(StreamError::Empty);
        }
        let mut samples = Vec::with_capacity(first.len());
        for chosen in first.chunks(self.streaming.chunk.max(1)) {
            let ds = self.decoded(chosen, self.start)?;
            samples.extend((0..ds.len()).map(|i| (ds.eval(i), ds.target(i))));
        }
        Ok(samples)
    }

    /// The tuned slots whose `values` differ from the start, with the training positions
    /// each counts in (one pass, when any changed).
    fn changed_support(&self, values: &[i32]) -> Result<Vec<(usize, usize)>, StreamError> {
        let changed: Vec<usize> = (self.slots.iter().copied())
            .filter(|&s| values[s] != self.start[s])
            .collect();
        match changed.is_empty() {
            true => Ok(Vec::new()),
            false => self.support_of(&changed),
        }
    }

    /// Each of `slots` with the training positions it counts in (one pass).
    fn support_of(&self, slots: &[usize]) -> Result<Vec<(usize, usize)>, StreamError> {
        let parts = self.chunks(false, self.start, |ds| ds.supports(slots))?;
        let mut support = vec![0; slots.len()];
        for part in parts {
            support.iter_mut().zip(part).for_each(|(t, n)| *t += n);
        }
        Ok(slots.iter().copied().zip(support).collect())
    }
}

/// The streamed positions as a tune's beginning: each answer reads the file.
impl Beginning for Stream<'_> {
    type Model = TraceDataset;
    type Error = StreamError;

    fn support(&mut self, vars: &[Variable]) -> Result<Vec<usize>, StreamError> {
        let slots: Vec<usize> = vars.iter().map(|v| v.slot).collect();
        Ok(self.support_of(&slots)?.into_iter().map(|c| c.1).collect())
    }

    fn walk_pulls(
        &mut self,
        vars: &[Variable],
        guards: Guards,
        from: Option<OnPath<Vec<i32>>>,
        hooks: Hooks<'_, PullPoint, Vec<i32>>,
    ) -> Result<Option<Walked<Vec<i32>>>, StreamError> {
        let begun = self.checkpoint(vars.to_vec(), guards, None);
        self.chosen_pull(begun.descent, from, hooks)
    }

    /// Streamed positions take λ as their survey resolved it: no path.
    fn walk_lambdas(
        &mut self,
        _: &[Variable],
        _: Guards,
        _: Option<OnPath<Vec<i32>>>,
        _: Hooks<'_, LambdaPoint, Vec<i32>>,
    ) -> Result<Option<Walked<Vec<i32>, LambdaChoice>>, StreamError> {
        Ok(None)
    }

    fn relabel(&mut self, _: f64) {}

    fn fresh(
        &mut self,
        vars: Vec<Variable>,
        guards: Guards,
        from: Option<Vec<i32>>,
    ) -> Checkpoint<Vec<i32>> {
        self.checkpoint(vars, guards, from)
    }

    fn continues(&self, c: &Checkpoint<Vec<i32>>, vars: &[Variable]) -> Result<(), StreamError> {
        let data = (self.trace.len(), self.run.fingerprint);
        c.continues(data, self.trace.space().value_count(), vars)?;
        let newton = c.descent.newton.as_ref();
        if newton.is_none_or(|n| n.values.len() != c.vars.len()) {
            return Err(Mismatch::NoNewtonState.into());
        }
        Ok(())
    }
}
