//! A tune as one library call on loaded data of any [`Model`]: values with too little
//! support held at their start, the L2 pull fixed or chosen on the validation split, a
//! fresh start or a checkpoint continued, the run ([`run`]), and what it changed (written
//! to the run's log as its last line). `texel tune` (texel's table or a trace), the loop and
//! [`crate::tune_engine`] are fronts over it; what happens on the way comes to the caller as
//! [`JobEvent`]s.
//!
//! ```
//! use texel_tune::texel_trace::{Coef, Param, ParamSpace, TracedPosition};
//! use texel_solve::{Model, Variable};
//! use texel_tune::{TraceDataset, RunOptions, TuneData, TuneJob, L2};
//!
//! // One plain value: centipawns per pawn White has more; labels of 100 a pawn at K = 1.
//! let pawn = Param { name: "PAWN".into(), len: 1, tapered: false, default: vec![0],
//!                    group: None, candidate: false };
//! let space = ParamSpace::new(vec![pawn]).unwrap();
//! let positions: Vec<TracedPosition> = (-3..=3)
//!     .map(|pawns| TracedPosition {
//!         result: 1.0 / (1.0 + 10f32.powf(-(pawns * 100) as f32 / 400.0)),
//!         coeffs: vec![Coef::Count(0, pawns as f32)],
//!         phase: 1.0,
//!         scale: 1.0,
//!         ..TracedPosition::default()
//!     })
//!     .collect();
//! let refs: Vec<&TracedPosition> = positions.iter().collect();
//! let mut train = TraceDataset::new(&space, &refs, |p| p.result);
//! train.rescore(&vec![0]);
//! let validation = TraceDataset::new(&space, &[], |p| p.result);
//! let mut data = TuneData { train, validation, k: 1.0, fingerprint: 0, labels: None };
//! let mut job = TuneJob::new(vec![0], vec![Variable { slot: 0, step: 1 }]);
//! job.settings.min_support = 0;
//! job.settings.l2 = L2::Fixed(0.0);
//! let name = |slot: usize| space.value_name(slot).unwrap_or_default();
//! let never = std::sync::atomic::AtomicBool::new(false);
//! let tuned = job.run(&mut data, &name, &never, &mut |_| {}).unwrap();
//! assert_eq!(tuned.result.params, vec![100]);
//! assert_eq!((tuned.changes[0].value.as_str(), tuned.changes[0].after), ("PAWN", 100));
//! ```

use crate::begin::{begin, Beginning, NothingToTune, StoppedOnPath};
use crate::checkpoint::{fresh, Checkpoint, CheckpointError};
use crate::end::{Ending, LogError, Tuned};
use crate::events::JobEvent;
use crate::lambda::{LambdaChoice, LambdaPoint, ScoredLabels, LAMBDA_PATH};
use crate::path::{
    path_descent, walk, walk_path, Hooks, MemoryPulls, OnPath, PathStep, PullChoice, PullPoint,
    Relabelled, Stop, Walked,
};
use crate::run::{run, RunError, RunOptions, RunResult};
use crate::settings::{TuneSettings, DEFAULT_L2};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use texel_run::Settings;
use texel_solve::descent::{Guards, Variable};
use texel_solve::error::mean_error;
use texel_solve::model::Model;

/// The data a tune runs on: training and validation sets scored with the start, `K`, and
/// the fingerprint a checkpoint is made for.
#[derive(Debug)]
pub struct TuneData<M> {
    /// Training positions.
    pub train: M,
    /// Held-out positions (may be empty).
    pub validation: M,
    /// `K`, fitted or given.
    pub k: f64,
    /// The fingerprint of the positions and labels.
    pub fingerprint: u64,
    /// Where λ auto walks its path: the training positions' results and scores (their
    /// targets the results until the path chooses); `None`: the targets are final.
    pub labels: Option<ScoredLabels>,
}

/// What a tune does, besides its data.
#[derive(Clone, Debug)]
pub struct TuneJob<V> {
    /// The values the run starts from (the data must be scored with them).
    pub start: V,
    /// The values selected for tuning, with their steps.
    pub vars: Vec<Variable>,
    /// How the run goes: its guards, passes, method, log and checkpoint (its `k` was the
    /// data's business: the run tunes at [`TuneData::k`]; its `stream` is not read, the
    /// data being in memory).
    pub settings: TuneSettings,
    /// A checkpoint to continue (and the file it came from, for errors) instead of a fresh
    /// start: it must be of the same data and variables.
    pub resume: Option<(PathBuf, Checkpoint<V>)>,
    /// The settings record the run keeps in its checkpoints (a resume compares them).
    pub record: Option<Settings>,
}

impl<V> TuneJob<V> {
    /// The job tuning `vars` from `start` with the default guards and run.
    pub fn new(start: V, vars: Vec<Variable>) -> TuneJob<V> {
        TuneJob {
            start,
            vars,
            settings: TuneSettings::default(),
            resume: None,
            record: None,
        }
    }
}

/// Why a tune cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// Every selected value has too little support.
    #[error(transparent)]
    NothingToTune(#[from] NothingToTune),
    /// Ctrl-C on a path before the run began.
    #[error(transparent)]
    StoppedOnPath(#[from] StoppedOnPath),
    /// The checkpoint does not continue this data and selection.
    #[error(transparent)]
    Resume(#[from] CheckpointError),
    /// The run failed.
    #[error(transparent)]
    Run(#[from] RunError),
    /// The log's last line could not be written.
    #[error(transparent)]
    Log(#[from] LogError),
}

impl<V: texel_solve::model::Values> TuneJob<V> {
    /// Runs the whole tune on `data`, reporting to `on`, until it ends or `interrupt` is raised:
    /// begins ([`TuneJob::begin`]), runs, and lists what changed, by `name` (a value's name
    /// by slot), in the log's last line too (an interrupted run's as well).
    ///
    /// # Errors
    /// As [`TuneJob::begin`] and [`run`]; the log cannot be written.
    pub fn run<M: Model<Values = V>>(
        self,
        data: &mut TuneData<M>,
        name: &dyn Fn(usize) -> String,
        interrupt: &AtomicBool,
        on: &mut dyn FnMut(JobEvent<M>),
    ) -> Result<Tuned<V>, JobError> {
        let (options, selected) = (self.settings.run.clone(), self.vars.clone());
        let start = self.begin(data, interrupt, on)?;
        let began = start.descent.anchor.clone();
        let tuned = start.vars.clone();
        let result = run_from(data, start, &options, interrupt, on)?;
        let ending = Ending {
            began: &began,
            asked: &selected,
            tuned: &tuned,
            held_out: data.validation.len() > 0,
            log: options.log.as_deref(),
        };
        let train = &data.train;
        Ok(ending.tuned(result, name, |slots| train.supports(slots))?)
    }

    /// The run's starting point (`crate::begin`): the values with too little support
    /// held, and a fresh checkpoint with its guards, or the one to continue after checking
    /// it fits.
    ///
    /// # Errors
    /// Nothing left to tune, or a checkpoint of other data or variables.
    pub fn begin<M: Model<Values = V>>(
        self,
        data: &mut TuneData<M>,
        interrupt: &AtomicBool,
        on: &mut dyn FnMut(JobEvent<M>),
    ) -> Result<Checkpoint<V>, JobError> {
        let (path, resumed) = self.resume.unzip();
        let mut loaded = MemoryStart {
            data,
            start: &self.start,
            resume: path,
            interrupt,
            deadline: self.settings.run.deadline,
        };
        let settings = (self.vars.as_slice(), &self.settings);
        begin(&mut loaded, settings, resumed, self.record, on)
    }
}

/// The positions in memory as a tune's beginning.
struct MemoryStart<'d, M: Model> {
    data: &'d mut TuneData<M>,
    start: &'d M::Values,
    /// The checkpoint continued, which its refusal names.
    resume: Option<PathBuf>,
    interrupt: &'d AtomicBool,
    /// The run's end at the latest.
    deadline: Option<Instant>,
}

impl<'d, M: Model> MemoryStart<'d, M> {
    /// What ends a path early.
    fn stop(&self) -> Stop<'d> {
        Stop {
            interrupt: self.interrupt,
            deadline: self.deadline,
        }
    }
}

impl<M: Model> Beginning for MemoryStart<'_, M> {
    type Model = M;
    type Error = JobError;

    fn support(&mut self, vars: &[Variable]) -> Result<Vec<usize>, JobError> {
        let train = &self.data.train;
        let slots: Vec<usize> = vars.iter().map(|v| v.slot).collect();
        Ok(train.supports(&slots))
    }

    /// The path walked over the training positions (on from `from`), judged on the
    /// held-out ones (both sets are scored with the start again afterwards).
    fn walk_pulls(
        &mut self,
        vars: &[Variable],
        guards: Guards,
        from: Option<OnPath<M::Values>>,
        hooks: Hooks<'_, PullPoint, M::Values>,
    ) -> Result<Option<Walked<M::Values>>, JobError> {
        let stop = self.stop();
        let data = &mut *self.data;
        if data.validation.len() == 0 {
            return Ok(None);
        }
        let start_error = mean_error(&data.validation, data.k);
        let (walking, at) = from.map(|p| (p.walking, p.at)).unzip();
        let at = at.flatten();
        let descent = path_descent(&mut data.train, (self.start, data.k), vars, (guards, at));
        let mut solver = MemoryPulls {
            descent,
            held_out: &mut data.validation,
        };
        let walking = (start_error, walking.unwrap_or_default());
        let walked = walk(&mut solver, walking, (DEFAULT_L2, stop), hooks);
        data.train.rescore(self.start);
        data.validation.rescore(self.start);
        Ok(Some(walked?))
    }

    /// The λs walked at the pull of `guards` (on from `from`), warm from the start, each
    /// judged on the held-out positions' results (the training targets back to the
    /// results after).
    fn walk_lambdas(
        &mut self,
        vars: &[Variable],
        guards: Guards,
        from: Option<OnPath<M::Values>>,
        hooks: Hooks<'_, LambdaPoint, M::Values>,
    ) -> Result<Option<Walked<M::Values, LambdaChoice>>, JobError> {
        let stop = self.stop();
        let data = &mut *self.data;
        let Some(labels) = data.labels.as_ref() else {
            return Ok(None);
        };
        let start_error = mean_error(&data.validation, data.k);
        let (walking, at) = from.map(|p| (p.walking, p.at)).unzip();
        let at = at.flatten();
        let walking = walking.unwrap_or_default();
        if let Some(last) = walking.solved.last() {
            // The targets the last λ solved left.
            data.train.set_targets(labels.targets(last.l2));
        }
        let descent = path_descent(&mut data.train, (self.start, data.k), vars, (guards, at));
        let mut solver = Relabelled {
            positions: MemoryPulls {
                descent,
                held_out: &mut data.validation,
            },
            labels,
        };
        let on = hooks.on;
        let mut told = |step: PathStep<PullPoint>| on(step.map(LambdaPoint::from));
        let hooks = Hooks {
            on: &mut told,
            keep: hooks.keep,
        };
        let walked = walk_path(
            &mut solver,
            (&LAMBDA_PATH, start_error, walking),
            (1.0, stop),
            hooks,
        );
        data.train.set_targets(labels.targets(1.0));
        data.train.rescore(self.start);
        data.validation.rescore(self.start);
        let Walked {
            choice,
            best,
            interrupted,
            goes_on,
        } = walked?;
        let choice = match choice {
            PullChoice::Path {
                l2: lambda,
                held_out,
                solved,
                ..
            } => LambdaChoice::Path {
                lambda,
                held_out,
                l2: guards.l2,
                solved,
            },
            PullChoice::Default(lambda) => LambdaChoice::Default(lambda),
            PullChoice::Stopped(lambda) => LambdaChoice::Stopped(lambda),
        };
        Ok(Some(Walked {
            choice,
            best,
            interrupted,
            goes_on,
        }))
    }

    fn relabel(&mut self, lambda: f64) {
        if let Some(labels) = &self.data.labels {
            self.data.train.set_targets(labels.targets(lambda));
        }
    }

    fn fresh(
        &mut self,
        vars: Vec<Variable>,
        guards: Guards,
        from: Option<M::Values>,
    ) -> Checkpoint<M::Values> {
        let data = &mut *self.data;
        let params = match from {
            Some(values) => {
                data.train.rescore(&values);
                values
            }
            None => self.start.clone(),
        };
        let mut c = fresh(&data.train, data.fingerprint, params, data.k, vars, guards);
        c.descent.anchor = self.start.clone();
        c
    }

    fn continues(
        &self,
        resumed: &Checkpoint<M::Values>,
        vars: &[Variable],
    ) -> Result<(), JobError> {
        let train = &self.data.train;
        let data = (train.len(), self.data.fingerprint);
        let fits = resumed.continues(data, train.slot_count(), vars);
        fits.map_err(|mismatch| {
            let path = self.resume.clone().unwrap_or_default();
            CheckpointError::Mismatch { path, mismatch }.into()
        })
    }
}

/// Runs from `start` on `data` with `options` until it ends or `interrupt` is raised, the run's
/// events passed to `on`.
///
/// # Errors
/// As [`run`].
pub(crate) fn run_from<M: Model>(
    data: &mut TuneData<M>,
    start: Checkpoint<M::Values>,
    options: &RunOptions,
    interrupt: &AtomicBool,
    on: &mut dyn FnMut(JobEvent<M>),
) -> Result<RunResult<M::Values>, RunError> {
    let (train, validation) = (&mut data.train, &mut data.validation);
    run(train, validation, start, options, interrupt, &mut |e| {
        on(JobEvent::Run(e))
    })
}
