//! A tune on files, whole, as one library call: the outputs checked and locked, an earlier
//! run's checkpoint continued (its settings compared) or a fresh start, the positions read
//! and K fitted, the selected values tuned by [`TuneJob`], the tuned values written and the
//! checkpoint removed. What is tuned — texel's own table read from EPD, or an outside
//! engine's evaluation read from a trace — is a [`Subject`]; `texel tune` and the loop are
//! fronts that show the [`SessionEvent`]s.

use crate::checkpoint::{Checkpoint, CheckpointError, RunKind};
use crate::end::Tuned;
use crate::events::JobEvent;
use crate::holding::{StreamPlan, StreamWhy};
use crate::job::{JobError, TuneData, TuneJob};
use crate::outputs::{Cleared, OutputError, Outputs};
use crate::run::RunEnd;
use crate::settings::TuneSettings;
use crate::stream::{StreamEvent, Streamed};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use texel_files::RunLocks;
use texel_run::{SettingChanged, Settings};
use texel_solve::descent::Variable;
use texel_solve::error::{samples, single_result, take_k, KChoice, UnfitK};
use texel_solve::model::{Model, Values};
use texel_trace::ParamSpace;

mod streamed;

/// What a subject's own failures are (reading its positions, writing its values).
pub type SubjectError = Box<dyn std::error::Error + Send + Sync>;

/// The values of a subject's model.
type ValuesOf<S> = <<S as Subject>::Model as Model>::Values;

/// What a tune on files works on: where its positions come from, which values it tunes and
/// how they are named, and how the tuned values are written.
pub trait Subject {
    /// The evaluation the positions are scored with.
    type Model: Model;

    /// The values a fresh run starts from.
    fn given(&self) -> &<Self::Model as Model>::Values;

    /// Reads the positions scored with `start`; `reading` is told the bytes read so far.
    /// When `interrupt` is raised the read may end early with anything: [`load_data`] then
    /// throws it away.
    ///
    /// # Errors
    /// The positions cannot be read.
    fn load(
        &self,
        start: &<Self::Model as Model>::Values,
        interrupt: &AtomicBool,
        reading: &(dyn Fn(u64) + Sync),
    ) -> Result<Positions<Self::Model>, SubjectError>;

    /// The bytes [`Subject::load`] reads and tells `reading` of (0: it tells nothing).
    fn bytes(&self) -> u64 {
        0
    }

    /// The values to tune, with their steps.
    fn variables(&self) -> &[Variable];

    /// A value's name by its slot.
    fn name(&self, slot: usize) -> String;

    /// The parameter space of the values (names, shapes, groups).
    fn space(&self) -> ParamSpace;

    /// Where the positions come from, in words.
    fn source(&self) -> String;

    /// Settings of the positions a run records beside its own (a resume must repeat them),
    /// as (name, value): e.g. what each source of a mix gives. None by default.
    fn recorded(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    /// Whether this run reads the positions from their file in every pass instead of
    /// loading them (`crate::holding`: a binary trace asked to, too large for the memory
    /// budget, or a streamed run's checkpoint continued from `resume`), and its data then.
    /// `None`, the default: the positions are loaded.
    ///
    /// # Errors
    /// The trace or the checkpoint cannot be looked at, or cannot be streamed.
    fn streamed(
        &self,
        _resume: Option<&Path>,
    ) -> Result<Option<StreamPlan<<Self::Model as Model>::Values>>, SubjectError> {
        Ok(None)
    }

    /// Writes the tuned values to `out` (and whatever else the subject writes).
    ///
    /// # Errors
    /// A file cannot be written.
    fn save(&self, values: &<Self::Model as Model>::Values, out: &Path)
        -> Result<(), SubjectError>;
}

/// Positions a subject read: training and validation sets, their fingerprint, and what
/// was read, in words.
#[derive(Debug)]
pub struct Positions<M> {
    /// Training positions.
    pub train: M,
    /// Held-out positions (may be empty).
    pub validation: M,
    /// The fingerprint of the positions, labels and split.
    pub fingerprint: u64,
    /// What was read (lines, positions, time), one or more lines.
    pub about: String,
    /// Where λ auto walks its path: the training positions' results and scores.
    pub labels: Option<crate::lambda::ScoredLabels>,
}

/// The data a tune runs on, with what was read and whether K was fitted.
#[derive(Debug)]
pub struct LoadedData<M> {
    /// The sets scored with the start, and K.
    pub data: TuneData<M>,
    /// What was read, in words.
    pub about: String,
    /// How K was chosen, when it was not given.
    pub chosen_k: Option<KChoice>,
}

/// Why a tune on files cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The outputs cannot be used.
    #[error(transparent)]
    Outputs(#[from] OutputError),
    /// The checkpoint to continue cannot be read.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// The checkpoint records as many passes as the run may make, or more: nothing is left
    /// to run (a checkpoint edited by hand, or a run stopped at its limit).
    #[error(
        "cannot resume {path}: it records {passes} passes done, and this run makes at most \
         {cap}: nothing is left to run (a larger pass limit goes on from it)"
    )]
    Spent {
        /// The checkpoint.
        path: PathBuf,
        /// The passes it records.
        passes: usize,
        /// The run's pass limit.
        cap: usize,
    },
    /// The checkpoint is of a run of the other kind.
    #[error(
        "cannot resume {path}: its run was {}, this one is {}",
        then.describe(),
        now.describe()
    )]
    Kind {
        /// The checkpoint.
        path: PathBuf,
        /// Its run's kind.
        then: RunKind,
        /// This run's.
        now: RunKind,
    },
    /// The run continued began with another setting.
    #[error("cannot resume {path}: {changed}")]
    Changed {
        /// The checkpoint.
        path: PathBuf,
        /// The setting.
        changed: SettingChanged,
    },
    /// The subject failed.
    #[error("{0}")]
    Subject(SubjectError),
    /// Every position has the same result.
    #[error(
        "every one of the {count} labels in {origin} is {}: no K or error can be fitted to \
         one result; tuning needs wins, draws and losses",
        result_words(*result)
    )]
    OneResult {
        /// Positions read.
        count: usize,
        /// Where they come from.
        origin: String,
        /// Their result (White's score).
        result: f64,
    },
    /// K cannot be fitted to the start.
    #[error(transparent)]
    K(#[from] UnfitK),
    /// The tune failed.
    #[error(transparent)]
    Job(#[from] JobError),
    /// The streamed tune failed.
    #[error(transparent)]
    Streamed(#[from] crate::stream::StreamError),
    /// Stopped while the positions were read: nothing was tuned or written.
    #[error(
        "stopped while the positions were read: nothing was tuned or written, nothing is left \
         to resume (the same command starts the run again)"
    )]
    Stopped,
}

impl SessionError {
    /// Whether the positions themselves cannot be tuned on: they have one result, or no K
    /// turns their evaluations into win probabilities (too few, or too one-sided).
    pub fn positions_unfit(&self) -> bool {
        matches!(self, SessionError::OneResult { .. } | SessionError::K(_))
    }
}

/// A result in words.
fn result_words(result: f64) -> String {
    match result {
        1.0 => "1-0 (white wins)".to_string(),
        0.0 => "0-1 (black wins)".to_string(),
        0.5 => "1/2-1/2 (a draw)".to_string(),
        s => format!("{s} (white's score)"),
    }
}

/// Reads the positions of `subject` scored with `start`, refuses positions of one result,
/// and fits K to them unless `k` is given.
///
/// # Errors
/// The subject cannot read its positions, they have one result, K cannot be fitted, or
/// `interrupt` was raised while they were read.
pub fn load_data<S: Subject>(
    subject: &S,
    start: &ValuesOf<S>,
    k: Option<f64>,
    interrupt: &AtomicBool,
    reading: &(dyn Fn(u64) + Sync),
) -> Result<LoadedData<S::Model>, SessionError> {
    let read = subject.load(start, interrupt, reading);
    if interrupt.load(Ordering::SeqCst) {
        return Err(SessionError::Stopped);
    }
    let p = read.map_err(SessionError::Subject)?;
    if let Some(result) = single_result(&[&p.train, &p.validation]) {
        return Err(SessionError::OneResult {
            count: p.train.len() + p.validation.len(),
            origin: subject.source(),
            result,
        });
    }
    let taken = take_k(k, &samples(&p.train))?;
    let mut about = p.about;
    if let Some(warning) = taken.warning {
        about = format!("{about}\n{warning}");
    }
    let data = TuneData {
        train: p.train,
        validation: p.validation,
        k: taken.k,
        fingerprint: p.fingerprint,
        labels: p.labels,
    };
    Ok(LoadedData {
        data,
        about,
        chosen_k: taken.chosen,
    })
}

/// What a tune on files reports on its way, in order.
pub enum SessionEvent<'e, M: Model> {
    /// An earlier run's file cleared for a fresh start.
    Cleared(Cleared),
    /// A checkpoint is continued; notes on its settings (those that only change how long
    /// the run goes, or why they are not compared).
    Resuming(Vec<String>),
    /// The positions were read: what was read, and how K was chosen when it was not given.
    Loaded {
        /// What was read, in words.
        about: &'e str,
        /// How K was chosen, when it was not given.
        chosen_k: Option<KChoice>,
    },
    /// The data, scored with `start`, the values the run goes on from, before the tune;
    /// `first` is where the run first began (a resumed run's first start).
    Start {
        /// The data.
        data: &'e mut TuneData<M>,
        /// The values the run goes on from.
        start: &'e M::Values,
        /// The values of the run's first start.
        first: &'e M::Values,
        /// Seconds the run has gone already (a resumed run's).
        seconds: f64,
    },
    /// The tune's own event; what the callback returns stops or continues the run.
    Job(JobEvent<'e, M>),
    /// The positions are read from their file in every pass, not loaded (before the files
    /// are opened), and why.
    Streaming(StreamWhy),
    /// A streamed run's own event.
    Stream(StreamEvent<'e>),
    /// The tuned values were written, but the checkpoint could not be removed.
    CheckpointKept(OutputError),
}

/// What a tune on files ended with.
pub struct Ended<M: Model> {
    /// The tune: its end (an interrupted run wrote nothing but its checkpoint), values,
    /// changes.
    pub tuned: Tuned<M::Values>,
    /// The data of a run in memory, or a streamed run's figures.
    pub data: EndData<M>,
}

/// What a tune on files keeps of its data at the end.
pub enum EndData<M> {
    /// The positions in memory, scored with the tuned values unless the run was
    /// interrupted.
    Memory(TuneData<M>),
    /// A streamed run's figures (`None` when it was interrupted): K, errors, Newton
    /// iterations and polish rounds.
    Streamed(Option<Box<Streamed>>),
}

/// A tune on files: the subject, the outputs, and how the run goes.
#[derive(Clone, Debug)]
pub struct Session<S> {
    /// What is tuned.
    pub subject: S,
    /// Where the run writes (the run's log and checkpoint are these).
    pub outputs: Outputs,
    /// How the run goes (K, guards, passes, method; its log and checkpoint are the
    /// outputs'; `stream` is read when the subject streams its positions).
    pub settings: TuneSettings,
    /// The checkpoint to continue.
    pub resume: Option<PathBuf>,
    /// Clear an earlier run's checkpoint and log instead of refusing to start.
    pub fresh: bool,
    /// The settings record the run keeps; a resume compares it with the checkpoint's.
    pub record: Option<Settings>,
}

impl<S: Subject> Session<S> {
    /// A session tuning `subject` into `outputs` with the default guards and run.
    pub fn new(subject: S, outputs: Outputs) -> Session<S> {
        Session {
            subject,
            outputs,
            settings: TuneSettings::default(),
            resume: None,
            fresh: false,
            record: None,
        }
    }

    /// Runs the whole tune, reporting to `on`, until it ends or `interrupt` is raised (Ctrl-C, or
    /// the caller's own reason: looked at while loading and after every event of the run,
    /// which then keeps its checkpoint); `reading` is told the bytes read while loading.
    ///
    /// # Errors
    /// See [`SessionError`].
    pub fn run(
        self,
        interrupt: &AtomicBool,
        reading: &(dyn Fn(u64) + Sync),
        on: &mut dyn FnMut(SessionEvent<S::Model>),
    ) -> Result<Ended<S::Model>, SessionError> {
        let plan =
            (self.subject.streamed(self.resume.as_deref())).map_err(SessionError::Subject)?;
        if let Some(plan) = plan {
            return self.run_streamed(plan, interrupt, on);
        }
        let (_lock, resumed) =
            self.files()
                .open::<ValuesOf<S>>(RunKind::Memory, &mut |o| match o {
                    Opening::Cleared(c) => on(SessionEvent::Cleared(c)),
                    Opening::Resuming(notes) => on(SessionEvent::Resuming(notes)),
                })?;
        let start = resumed.as_ref().map_or_else(
            || self.subject.given().clone(),
            |c| c.descent.params.clone(),
        );
        let k = resumed.as_ref().map(|c| c.k).or(self.settings.k);
        let loaded = load_data(&self.subject, &start, k, interrupt, reading)?;
        on(SessionEvent::Loaded {
            about: &loaded.about,
            chosen_k: loaded.chosen_k,
        });
        let mut data = loaded.data;
        let first = resumed
            .as_ref()
            .map_or(&start, |c| &c.descent.anchor)
            .clone();
        on(SessionEvent::Start {
            data: &mut data,
            start: &start,
            first: &first,
            seconds: resumed.as_ref().map_or(0.0, |c| c.seconds),
        });
        let job = self.job(start, resumed);
        let name = |slot: usize| self.subject.name(slot);
        let tuned = job.run(&mut data, &name, interrupt, &mut |e| {
            on(SessionEvent::Job(e))
        })?;
        if tuned.result.end != RunEnd::Interrupted {
            self.finish(&tuned.result.params, &mut data, on)?;
        }
        let data = EndData::Memory(data);
        Ok(Ended { tuned, data })
    }

    /// The run's files and how it treats an earlier run's.
    fn files(&self) -> RunFiles<'_> {
        RunFiles {
            outputs: &self.outputs,
            resume: self.resume.as_deref(),
            fresh: self.fresh,
            record: self.record.as_ref(),
            cap: self.settings.run.passes,
        }
    }

    /// The tune job from `start` (or continuing `resumed`).
    fn job(
        &self,
        start: ValuesOf<S>,
        resumed: Option<Checkpoint<ValuesOf<S>>>,
    ) -> TuneJob<ValuesOf<S>> {
        let mut settings = self.settings.clone();
        settings.run.log = self.outputs.log.clone();
        settings.run.checkpoint = Some(self.outputs.checkpoint.clone());
        TuneJob {
            settings,
            resume: self.resume.clone().zip(resumed),
            record: self.record.clone(),
            ..TuneJob::new(start, self.subject.variables().to_vec())
        }
    }

    /// Writes `tuned`, removes the checkpoint it replaces, and scores the data with it.
    fn finish(
        &self,
        tuned: &ValuesOf<S>,
        data: &mut TuneData<S::Model>,
        on: &mut dyn FnMut(SessionEvent<S::Model>),
    ) -> Result<(), SessionError> {
        self.written(tuned, on)?;
        data.train.rescore(tuned);
        data.validation.rescore(tuned);
        Ok(())
    }

    /// Writes `tuned` through the subject and removes the checkpoint it replaces (one that
    /// cannot be removed is said): how every finished run ends, in memory or streamed.
    fn written(
        &self,
        tuned: &ValuesOf<S>,
        on: &mut dyn FnMut(SessionEvent<S::Model>),
    ) -> Result<(), SessionError> {
        (self.subject)
            .save(tuned, &self.outputs.out)
            .map_err(SessionError::Subject)?;
        if let Err(e) = self.outputs.remove_checkpoint() {
            on(SessionEvent::CheckpointKept(e));
        }
        Ok(())
    }
}

/// What opening a run's files did before its work.
pub enum Opening {
    /// An earlier run's file cleared for a fresh start.
    Cleared(Cleared),
    /// A checkpoint is continued; notes on its settings (those that only change how long
    /// the run goes, or why they are not compared).
    Resuming(Vec<String>),
}

/// The files of a tune on files and how it treats an earlier run's: the protocol every
/// tune follows before its work, in memory or streamed.
pub struct RunFiles<'a> {
    /// Where the run writes.
    pub outputs: &'a Outputs,
    /// The checkpoint to continue.
    pub resume: Option<&'a Path>,
    /// Clear an earlier run's checkpoint and log instead of refusing to start.
    pub fresh: bool,
    /// The settings record the run keeps; a resume compares it with the checkpoint's.
    pub record: Option<&'a Settings>,
    /// The run's pass limit: a checkpoint that records as many passes has nothing left.
    pub cap: usize,
}

impl RunFiles<'_> {
    /// Checks the outputs writable and locks them for this run (another live run on them is
    /// refused, naming its process), clears an earlier run's files with `fresh` or refuses
    /// them, and reads the checkpoint to continue: of a run of this `kind`, its settings
    /// compared with the run's.
    ///
    /// # Errors
    /// The outputs cannot be used, the checkpoint cannot be read, is of the other kind, or
    /// its run began with another setting.
    pub fn open<V: Values>(
        &self,
        kind: RunKind,
        on: &mut dyn FnMut(Opening),
    ) -> Result<(RunLocks, Option<Checkpoint<V>>), SessionError> {
        let (lock, cleared) = self.outputs.prepare(self.resume.is_some(), self.fresh)?;
        cleared.into_iter().for_each(|c| on(Opening::Cleared(c)));
        let Some(path) = self.resume else {
            return Ok((lock, None));
        };
        let checkpoint = Checkpoint::<V>::read(path)?;
        if checkpoint.passes >= self.cap {
            return Err(SessionError::Spent {
                path: path.to_path_buf(),
                passes: checkpoint.passes,
                cap: self.cap,
            });
        }
        if checkpoint.kind != kind {
            return Err(SessionError::Kind {
                path: path.to_path_buf(),
                then: checkpoint.kind,
                now: kind,
            });
        }
        let notes = match (&checkpoint.settings, self.record) {
            (Some(then), Some(now)) => {
                then.check_resume(now)
                    .map_err(|changed| SessionError::Changed {
                        path: path.to_path_buf(),
                        changed,
                    })?
            }
            (None, Some(_)) => vec![format!(
                "{} was written before texel recorded settings; they are not compared",
                path.display()
            )],
            (_, None) => Vec::new(),
        };
        on(Opening::Resuming(notes));
        Ok((lock, Some(checkpoint)))
    }
}
