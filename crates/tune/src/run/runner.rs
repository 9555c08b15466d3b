//! The one run: passes until the method converges, a limit, patience or the interrupt;
//! a log line, the errors from scratch and a checkpoint after every pass; the best values
//! on validation kept. It drives any [`Tuner`]: the positions in memory or read from their
//! file in every pass.

use super::standing::Standing;
use super::tuner::Tuner;
use super::{
    Event, PassRecord, Progress, RunEnd, RunError, RunOptions, RunResult, LATTICE_POLISH_TOLERANCE,
    POLISH_TOLERANCE,
};
use crate::checkpoint::{Checkpoint, RunKind};
use crate::log::{data_id, PassKind, PassLine, TuneLogLine, TUNE_LOG_VERSION};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use texel_solve::adam::Method;
use texel_solve::descent::{Descent, PassSummary};
use texel_solve::model::Model;

/// How a run goes on after a pass.
pub(super) enum Next {
    /// Another pass.
    Pass,
    /// The warm start is done: on with all positions.
    WarmDone,
    /// The run ends.
    End(RunEnd),
}

/// What a tuner's run can make of a pass.
pub(crate) trait Methods<'d>: Tuner<'d> + Sized + 'd {
    /// The next pass, reporting progress; `None` when the run was stopped.
    ///
    /// # Errors
    /// The positions could not be read, or a checkpoint written.
    fn next_pass(
        runner: &mut Runner<'_, 'd, Self>,
        events: &mut dyn FnMut(Event<Self::Model>),
    ) -> Result<Option<PassSummary>, RunError> {
        runner.newton_pass(events)
    }

    /// Whether the next pass is an Adam epoch.
    fn in_adam(_runner: &Runner<'_, 'd, Self>) -> bool {
        false
    }

    /// The end after an Adam epoch, given the end so far: converged, or handed over to
    /// coordinate descent.
    fn after_adam_epoch(_runner: &mut Runner<'_, 'd, Self>, end: Option<RunEnd>) -> Option<RunEnd> {
        end
    }

    /// The descent a pass's event shows (positions in memory only).
    fn descent(&self) -> Option<&Descent<'d, Self::Model>> {
        None
    }
}

/// The values of a tuner's model.
type ValuesOf<'d, T> = <<T as Tuner<'d>>::Model as Model>::Values;

/// A run in progress: the tuner, where the run stands, and its outputs.
pub(crate) struct Runner<'r, 'd, T: Methods<'d>> {
    /// The positions and the values moving over them.
    pub tuner: T,
    pub(super) standing: Standing<ValuesOf<'d, T>>,
    pub(super) options: &'r RunOptions,
    pub(super) log: Option<std::fs::File>,
    pub(super) last_checkpoint: Instant,
    /// Raised, the run stops at its next safe point.
    pub(super) interrupt: &'r AtomicBool,
}

impl<'r, 'd, T: Methods<'d>> Runner<'r, 'd, T> {
    /// The run of `tuner` from where `standing` says, with `options`, its log opened.
    pub(super) fn new(
        tuner: T,
        standing: Standing<ValuesOf<'d, T>>,
        (options, log): (&'r RunOptions, Option<std::fs::File>),
        interrupt: &'r AtomicBool,
    ) -> Self {
        Runner {
            tuner,
            standing,
            options,
            log,
            last_checkpoint: Instant::now(),
            interrupt,
        }
    }

    /// On a fresh start with positions held out, the start is a candidate too: a run whose
    /// every pass is worse on validation gives back the values it began with.
    ///
    /// # Errors
    /// The held-out positions could not be read.
    pub(super) fn judge_start(&mut self) -> Result<(), RunError> {
        if self.standing.best.is_some() || self.standing.passes > 0 {
            return Ok(());
        }
        if let Some(error) = self.tuner.validation_error()? {
            self.standing.validated(error, &self.tuner.params().clone());
        }
        Ok(())
    }

    /// Writes a checkpoint, if the run keeps one.
    pub(super) fn save(&mut self) -> Result<(), RunError> {
        if let Some(path) = &self.options.checkpoint {
            self.standing.checkpoint(self.tuner.state()).save(path)?;
            self.last_checkpoint = Instant::now();
        }
        Ok(())
    }

    /// Whether the next pass is a Newton iteration.
    pub(super) fn in_newton(&self) -> bool {
        self.options.method == Method::Newton && !self.tuner.newton_handed_over()
    }

    /// One pass that takes every position at once (a Newton iteration, a polish round or
    /// an Adam epoch), made by `step` after its progress event; `None` when the run was
    /// stopped before it began or during it.
    pub(super) fn whole_pass(
        &mut self,
        events: &mut dyn FnMut(Event<T::Model>),
        step: impl FnOnce(&mut T) -> Result<Option<PassSummary>, RunError>,
    ) -> Result<Option<PassSummary>, RunError> {
        let progress = Event::Progress(Progress {
            pass: self.standing.passes + 1,
            walked: 0,
            vars: self.tuner.variables(),
            pending: 0,
            moves: 0,
            error: self.tuner.real_error().unwrap_or(self.tuner.error()),
            sample: None,
            whole: true,
        });
        events(progress);
        if self.interrupt.load(Ordering::SeqCst) {
            return Ok(None);
        }
        step(&mut self.tuner)
    }

    /// A pass of Newton's method: an iteration until Newton hands over, then a round of
    /// its lattice polish; `None` when the run was stopped.
    pub(super) fn newton_pass(
        &mut self,
        events: &mut dyn FnMut(Event<T::Model>),
    ) -> Result<Option<PassSummary>, RunError> {
        match self.in_newton() {
            true => self.whole_pass(events, |t| t.newton_iteration()),
            false => self.whole_pass(events, |t| t.polish_round()),
        }
    }

    /// After a finished pass: errors from scratch, the log line, the event, validation and
    /// patience, the end of a warm start, a checkpoint. Returns how the run goes on.
    fn after_pass(
        &mut self,
        summary: PassSummary,
        events: &mut dyn FnMut(Event<T::Model>),
    ) -> Result<Next, RunError> {
        self.standing.passes += 1;
        let newton = self.options.method == Method::Newton
            && (self.tuner.newton_iterations() as usize) == self.standing.passes;
        let adam = T::in_adam(self);
        let train_error = self.tuner.train_error()?;
        let validation_error = self.tuner.validation_error()?;
        let record = PassRecord {
            pass: self.standing.passes,
            train_error,
            validation_error,
            summary,
            seconds: self.standing.began.elapsed().as_secs_f64(),
            sample: self.standing.warm,
            real_error: (newton || adam).then(|| self.tuner.real_error()).flatten(),
            kind: match (newton, adam) {
                (true, _) => PassKind::Newton,
                (_, true) => PassKind::Adam,
                _ => PassKind::Descent,
            },
        };
        self.log_pass(&record)?;
        events(Event::Pass(&record, self.tuner.descent()));
        let end = self.end_after(&record, newton, adam);
        if end.is_none() && self.standing.warm_ends(&record) {
            // The run goes on over all positions, which saves the next checkpoint.
            return Ok(Next::WarmDone);
        }
        self.save()?;
        Ok(end.map_or(Next::Pass, Next::End))
    }

    /// Whether the run ends after the pass of `record` (a Newton iteration, an Adam epoch or
    /// neither): patience, a converged method; a phase that ends hands over to the next.
    fn end_after(&mut self, record: &PassRecord, newton: bool, adam: bool) -> Option<RunEnd> {
        let mut end = None;
        if let Some(v) = record.validation_error {
            self.standing.validated(v, self.tuner.params());
            let patience = self.options.patience;
            if patience.is_some_and(|p| self.standing.rises >= p) {
                end = Some(RunEnd::Patience);
            }
        }
        if record.summary.moves == 0 && self.standing.warm.is_none() && !newton && !adam {
            end = end.or(Some(RunEnd::Converged));
        }
        let polish = self.options.method == Method::Newton && !newton;
        let tolerance =
            (self.options.polish_tolerance).unwrap_or(match self.tuner.lattice_polish() {
                true => LATTICE_POLISH_TOLERANCE,
                false => POLISH_TOLERANCE,
            });
        if polish && record.summary.fall < tolerance {
            end = end.or(Some(RunEnd::Converged));
        }
        if newton && (end.is_some() || self.tuner.newton_handed_over()) {
            self.tuner.hand_over_to_polish();
            self.standing.rises = 0;
            end = None;
        }
        if adam {
            end = T::after_adam_epoch(self, end);
        }
        end
    }

    /// Runs passes until the run ends (its result) or a warm start is done (`None`).
    pub(super) fn passes(
        &mut self,
        events: &mut dyn FnMut(Event<T::Model>),
    ) -> Result<Option<RunResult<ValuesOf<'d, T>>>, RunError> {
        while self.standing.passes - self.standing.warm_passes < self.options.passes {
            if self.options.out_of_time() {
                return Ok(Some(self.finish(RunEnd::TimeLimit)));
            }
            let Some(summary) = T::next_pass(self, events)? else {
                self.save()?;
                if let Some(path) = &self.options.checkpoint {
                    events(Event::Checkpoint(path));
                }
                return Ok(Some(RunResult {
                    params: self.tuner.params().clone(),
                    end: RunEnd::Interrupted,
                    passes: self.standing.passes,
                    best_pass: None,
                }));
            };
            match self.after_pass(summary, events)? {
                Next::Pass => {}
                Next::WarmDone => return Ok(None),
                Next::End(end) => return Ok(Some(self.finish(end))),
            }
        }
        Ok(Some(self.finish(RunEnd::PassLimit)))
    }

    /// The run's result as it ends by `end`.
    pub(super) fn finish(&self, end: RunEnd) -> RunResult<ValuesOf<'d, T>> {
        self.standing.finish(self.tuner.params(), end)
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

/// The one run of `tuner` from checkpoint `start` (of `kind`, over `positions` training
/// positions): its passes, log, checkpoints and validation until it ends; its result, and
/// the tuner where it ended.
///
/// # Errors
/// A reading of the positions, the log or a checkpoint failed.
pub(crate) fn drive<'d, T: Methods<'d>>(
    tuner: T,
    (start, kind, positions): (&Checkpoint<ValuesOf<'d, T>>, RunKind, usize),
    options: &RunOptions,
    interrupt: &AtomicBool,
    events: &mut dyn FnMut(Event<T::Model>),
) -> Result<(RunResult<ValuesOf<'d, T>>, T), RunError> {
    let standing = Standing::new(start, kind, positions, None);
    let mut runner = Runner::new(tuner, standing, (options, open_log(options)?), interrupt);
    runner.judge_start()?;
    let result = runner.passes(events)?;
    let result = result.unwrap_or_else(|| runner.finish(RunEnd::PassLimit));
    Ok((result, runner.tuner))
}

/// The log file, opened for appending.
pub(super) fn open_log(options: &RunOptions) -> Result<Option<std::fs::File>, RunError> {
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
