//! Tuning a binary trace whose tuner form does not fit in memory: every pass reads the
//! positions from the file again, a chunk at a time, and keeps nothing per position.
//!
//! The in-memory tuner keeps about 230 bytes a position (columns, labels, sums, Newton's
//! vectors). Here a chunk of positions is decoded into the same columns
//! ([`LinearDataset`]), scored, summed into what the pass needs, and dropped, so memory is
//! one chunk, the record index of the trace (8 bytes a position), a byte a position for the
//! validation split, and the `n × n` Hessian of the `n` tuned values, however many positions
//! there are. The objective is the in-memory one: the summed squared error of the unrounded
//! evaluations plus the L2 pull to the start, `l2 · Σ (x − start)² / 10,000`.
//!
//! Each Gauss-Newton iteration takes two passes: one sums the error, gradient and Hessian
//! at the current real values (`rows::system`, positions far from a draw adding their
//! diagonal only, as in memory), one judges eight step lengths at once (1, ½, … 1/128:
//! the largest that lowers the objective by Armijo's share is taken; Levenberg-Marquardt's
//! damping shrinks after a full step and grows after a cut one). Newton stops when an
//! iteration lowers the objective by less than `NEWTON_TOLERANCE` of it. The values are
//! then rounded and polished on the integer lattice by the rounds of `crate::polish`, the
//! in-memory run's polish of a trace: a pass probes every value one up and one down (the
//! exact change of the rounded evaluations' error), then passes of trials take the best
//! sets of the moves that gain. Chunks are summed in order and each chunk's sums in a fixed
//! order of blocks, so the result does not depend on the number of threads; the values
//! written are those of the in-memory run.

use crate::error::{choose_k, saturation_warning, KChoice, UnfitK};
use crate::job::{hold_unsupported, NothingToTune, L2};
use crate::linear::LinearDataset;
use crate::model::Model;
use crate::newton::{NewtonState, FIRST_DAMPING};
use crate::path::{PullChoice, PullPoint};
use crate::settings::{Streaming, TuneSettings, Unstreamed};
use crate::traces::{held_split, target};
use std::sync::atomic::{AtomicBool, Ordering};
use texel_data::HeldOut;
use texel_trace::{BinaryTrace, TraceError};

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
    /// Every value of the trace's space (the untuned ones as they started).
    pub values: Vec<i32>,
    /// The K used.
    pub k: f64,
    /// The mean training error of Newton's last real values, before rounding.
    pub real_error: f64,
    /// The mean training error of [`Streamed::values`].
    pub error: f64,
    /// The mean validation error of [`Streamed::values`] (none held out: `None`).
    pub validation: Option<f64>,
    /// The tuned values scored the held-out positions no better than the start: the start
    /// is given back (as an in-memory run gives back its best, the start among them).
    pub kept_start: bool,
    /// Newton iterations taken.
    pub iterations: u64,
    /// Polish rounds that moved values.
    pub polish_rounds: u32,
    /// The limit (passes or time) that ended the run before it converged, if one did.
    pub limited: Option<crate::RunEnd>,
    /// The slots tuned (those of the ones asked that enough positions use).
    pub tuned: Vec<usize>,
    /// The slots asked that were held at their start for want of support.
    pub held: Vec<usize>,
    /// The tuned slots whose values changed, with the training positions each counts in.
    pub support: Vec<(usize, usize)>,
}

impl Streamed {
    /// Passes taken: Newton's iterations and the polish rounds.
    pub fn passes(&self) -> usize {
        (self.iterations + u64::from(self.polish_rounds)) as usize
    }
}

/// What a streamed tune reports as it goes.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamEvent {
    /// K was chosen (not given): fitted, or the convention.
    Fitted(KChoice),
    /// A warning on the start's evaluations (saturated at the K in use).
    Warning(String),
    /// Values held at their start: they count in fewer than `min_support` training
    /// positions.
    Held {
        /// Their slots.
        slots: Vec<usize>,
        /// The support they lack.
        min_support: usize,
    },
    /// A Newton iteration was taken.
    Iteration {
        /// Its number, from 1.
        number: u64,
        /// The mean training error of the real values after it.
        error: f64,
        /// How much it lowered the objective, as a share of it.
        fall: f64,
        /// Its seconds.
        seconds: f64,
    },
    /// Newton started or converged with values flat and stepped off the saddle
    /// (`crate::newton::lift`); its iterations go on.
    Lifted {
        /// The flat values the step moved.
        values: usize,
        /// The mean training error of the real values after it.
        error: f64,
    },
    /// A polish round moved values.
    Polish {
        /// Its number, from 1.
        round: u32,
        /// Values moved.
        moved: usize,
        /// The mean training error of the integer values after it.
        error: f64,
        /// Its seconds.
        seconds: f64,
    },
    /// A pull of the path of pulls solved (`--l2 auto`).
    Pull(PullPoint),
    /// The pull the path chose, and how.
    PullChosen(PullChoice),
    /// Where the tune is now, for a checkpoint (after the start, every iteration and every
    /// polish round).
    Checkpoint(StreamState),
}

/// Where a streamed tune is: what its checkpoint keeps (as the one checkpoint format,
/// [`crate::Checkpoint`] of kind streamed), and what it resumes from.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamState {
    /// Positions of the trace it tunes.
    pub positions: usize,
    /// The K used.
    pub k: f64,
    /// The slots tuned.
    pub tuned: Vec<usize>,
    /// Newton's state, the in-memory run's: its real values of the tuned slots (in the
    /// order of `tuned`), damping, chord, iterations, lifts, the mean training error there,
    /// and whether it handed over to the polish.
    pub newton: NewtonState,
    /// Once Newton is done: the integer values (every value of the space) the polish is at,
    /// and its rounds so far.
    pub polish: Option<(Vec<i32>, u32)>,
    /// The L2 pull toward the start (given, or chosen by the path of pulls).
    pub l2: f64,
}

impl StreamState {
    /// Passes taken: Newton's iterations and the polish rounds.
    pub fn passes(&self) -> usize {
        let rounds = self.polish.as_ref().map_or(0, |p| p.1);
        (self.newton.iterations + u64::from(rounds)) as usize
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
    Checkpoint(String),
    /// K cannot be fitted to the start.
    #[error(transparent)]
    K(#[from] UnfitK),
    /// A setting a streamed tune does not have.
    #[error(
        "a streamed run does not take {0} (it is Newton and its polish, its values written at \
         the end, its checkpoint after every iteration)"
    )]
    Unstreamed(Unstreamed),
    /// The start values do not fit the trace's space.
    #[error("{found} start values for a space of {expected}")]
    Start {
        /// Values the space has.
        expected: usize,
        /// Values given.
        found: usize,
    },
}

/// Tunes the values `slots` of the binary trace `trace` from `start` (every value of its
/// space), reading the positions from the file in every pass (see the module's page), or
/// goes on from `resume` (a checkpoint's state of the same trace). `interrupt` is looked at
/// between chunks; `on` hears of every iteration and polish round, and of each state to
/// checkpoint.
///
/// # Errors
/// The trace cannot be read, the start or checkpoint does not fit, no position trains, or
/// `interrupt`.
pub fn tune_streamed(
    trace: &BinaryTrace,
    (start, slots): (&[i32], &[usize]),
    (settings, labels): (&TuneSettings, Labels),
    resume: Option<StreamState>,
    interrupt: &AtomicBool,
    mut on: impl FnMut(StreamEvent),
) -> Result<Streamed, StreamError> {
    if let Some(what) = settings.unstreamed() {
        return Err(StreamError::Unstreamed(what));
    }
    let expected = trace.space().value_count();
    if start.len() != expected {
        let found = start.len();
        return Err(StreamError::Start { expected, found });
    }
    let (held, _) = held_split(trace, labels.held_out)?;
    let trained = held.iter().filter(|&&h| !h).count();
    if trained == 0 {
        return Err(StreamError::Empty);
    }
    let mut stream = Stream {
        trace,
        held,
        start,
        slots: slots.to_vec(),
        settings,
        labels,
        streaming: settings.stream.clone(),
        l2: settings.l2.fixed(),
        k: settings.k.unwrap_or(1.0),
        interrupt,
        trained: trained as f64,
        form: None,
    };
    if let Some(path) = stream.streaming.form.clone() {
        stream.form = Some(stream.write_form(&path)?);
    }
    let fresh = resume.is_none();
    let mut state = match resume {
        Some(state) => stream.resumed(state)?,
        None => stream.fresh(&mut on)?,
    };
    (stream.k, stream.slots, stream.l2) = (state.k, state.tuned.clone(), state.l2);
    if fresh && settings.l2 == L2::Auto {
        state = stream.chosen_pull(state, &mut on)?;
    }
    if state.polish.is_none() {
        stream.newton(&mut state, &mut on)?;
    }
    let (values, sum, limited) = stream.polish(&mut state, &mut on)?;
    let (values, sum, validation, kept_start) = stream.kept_or_start(values, sum)?;
    let support = stream.changed_support(&values)?;
    let held = slots.iter().filter(|s| !stream.slots.contains(s));
    Ok(Streamed {
        held: held.copied().collect(),
        support,
        values,
        kept_start,
        k: stream.k,
        real_error: state.newton.error,
        error: sum / stream.trained,
        validation,
        iterations: state.newton.iterations,
        polish_rounds: state.polish.map_or(0, |p| p.1),
        limited,
        tuned: stream.slots,
    })
}

/// One streamed tune's inputs.
struct Stream<'a> {
    trace: &'a BinaryTrace,
    held: Vec<bool>,
    start: &'a [i32],
    slots: Vec<usize>,
    settings: &'a TuneSettings,
    labels: Labels,
    streaming: Streaming,
    /// The L2 pull (the path of pulls sets it for each of its solves).
    l2: f64,
    k: f64,
    interrupt: &'a AtomicBool,
    trained: f64,
    /// The positions' tuner form, once written.
    form: Option<form::FormFile>,
}

impl Stream<'_> {
    /// The state of a fresh tune: K (fitted when not given), the slots enough positions
    /// use, Newton at the start values.
    fn fresh(&mut self, on: &mut impl FnMut(StreamEvent)) -> Result<StreamState, StreamError> {
        let samples = self.start_samples()?;
        if self.settings.k.is_none() {
            let chosen = choose_k(&samples)?;
            self.k = chosen.k();
            on(StreamEvent::Fitted(chosen));
        }
        if let Some(warning) = saturation_warning(&samples, self.k) {
            on(StreamEvent::Warning(warning));
        }
        self.slots = self.supported(on)?;
        let state = StreamState {
            positions: self.trace.len(),
            k: self.k,
            tuned: self.slots.clone(),
            newton: NewtonState {
                values: self
                    .slots
                    .iter()
                    .map(|&s| f64::from(self.start[s]))
                    .collect(),
                damping: FIRST_DAMPING,
                iterations: 0,
                error: f64::NAN,
                handed_over: false,
                chord: None,
                curves_held: false,
                lifts: 0,
            },
            polish: None,
            l2: self.l2,
        };
        on(StreamEvent::Checkpoint(state.clone()));
        Ok(state)
    }

    /// `state` checked against this trace and selection.
    fn resumed(&self, state: StreamState) -> Result<StreamState, StreamError> {
        let wrong = |why: String| Err(StreamError::Checkpoint(why));
        if state.positions != self.trace.len() {
            let n = self.trace.len();
            return wrong(format!("{} positions, the trace has {n}", state.positions));
        }
        let asked: std::collections::HashSet<usize> = self.slots.iter().copied().collect();
        if state.newton.values.len() != state.tuned.len()
            || state.tuned.iter().any(|s| !asked.contains(s))
        {
            return wrong("it tunes values this run does not select".into());
        }
        let values = self.trace.space().value_count();
        if state.polish.as_ref().is_some_and(|p| p.0.len() != values) {
            return wrong(format!("its polish is not at {values} values"));
        }
        Ok(state)
    }

    /// `f` of each chunk of the training (or validation) positions, in order, each scored
    /// at `values` (every value of the space).
    fn chunks<T>(
        &self,
        validation: bool,
        values: &[i32],
        mut f: impl FnMut(&mut LinearDataset) -> T,
    ) -> Result<Vec<T>, StreamError> {
        if let Some(form) = &self.form {
            return form.chunks(self, validation, values, &mut f);
        }
        let (n, size) = (self.trace.len(), self.streaming.chunk.max(1));
        let mut out = Vec::new();
        for first in (0..n).step_by(size) {
            if self.interrupt.load(Ordering::Relaxed) {
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
    fn decoded(&self, chosen: &[usize], values: &[i32]) -> Result<LinearDataset, StreamError> {
        let lambda = self.labels.lambda;
        let label = |p: &texel_trace::TracedPosition| target(p, lambda);
        let space = self.trace.space();
        let (mut ds, _) = LinearDataset::from_source(space, self.trace, chosen, label, |_| ())?;
        ds.rescore(&values.to_vec());
        Ok(ds)
    }

    /// The evaluations at the start and targets of the first [`crate::error::K_SAMPLE`]
    /// training positions, as in memory: what K is chosen on and saturation judged by.
    fn start_samples(&self) -> Result<Vec<(i32, f64)>, StreamError> {
        let trained = (0..self.trace.len()).filter(|&i| !self.held[i]);
        let first: Vec<usize> = trained.take(crate::error::K_SAMPLE).collect();
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

    /// The slots asked that at least `min_support` training positions use (one pass), the
    /// others held and said.
    fn supported(&self, on: &mut impl FnMut(StreamEvent)) -> Result<Vec<usize>, StreamError> {
        let min = self.settings.min_support;
        if min == 0 {
            return Ok(self.slots.clone());
        }
        let counted = self.support_of(&self.slots)?;
        let (kept, held) = hold_unsupported(&counted, |c| c.1, min)?;
        if !held.is_empty() {
            let slots = held.iter().map(|c| c.0).collect();
            on(StreamEvent::Held {
                slots,
                min_support: min,
            });
        }
        Ok(kept.iter().map(|c| c.0).collect())
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
        let parts = self.chunks(false, self.start, |ds| {
            let each = slots.iter().map(|&s| ds.support(&[s]));
            each.collect::<Vec<usize>>()
        })?;
        let mut support = vec![0; slots.len()];
        for part in parts {
            support.iter_mut().zip(part).for_each(|(t, n)| *t += n);
        }
        Ok(slots.iter().copied().zip(support).collect())
    }

    /// How far real values `x` of the tuned slots are from the start.
    fn delta(&self, x: &[f64]) -> Vec<f64> {
        let at = self.slots.iter().map(|&s| f64::from(self.start[s]));
        x.iter().zip(at).map(|(x, a)| x - a).collect()
    }
}

mod form;
mod passes;
mod path;
mod polish;
