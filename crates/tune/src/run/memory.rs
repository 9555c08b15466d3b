//! A run over positions in memory: the start checked against the data, a warm start on a
//! sample where the method takes one, then the one run over all of them.

use super::runner::{open_log, Methods, Runner};
use super::standing::Standing;
use super::tuner::{MemoryTuner, Tuner};
use super::{Event, Progress, RunEnd, RunError, RunOptions, RunResult};
use crate::checkpoint::{Checkpoint, CheckpointError, RunKind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use texel_solve::adam::Method;
use texel_solve::descent::{Descent, PassSummary};
use texel_solve::model::Model;

/// Refuses a start made for another number of training positions or values (its data and
/// variables are the job's to check: `crate::job`).
fn check_start<M: Model>(
    train: &M,
    start: &Checkpoint<M::Values>,
    options: &RunOptions,
) -> Result<(), RunError> {
    let own = (train.len(), start.data);
    let fits = start.continues(own, train.slot_count(), &start.vars);
    fits.map_err(|mismatch| {
        let path = options.checkpoint.clone().unwrap_or_default();
        CheckpointError::Mismatch { path, mismatch }.into()
    })
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
    let (mut standing, mut log) = (
        Standing::new(&start, RunKind::Memory, train.len(), warm),
        open_log(options)?,
    );
    let mut state = start.descent;
    if let Some(n) = warm {
        let mut sample = train.sample(n);
        sample.rescore(&state.params);
        let mut descent = Descent::resume(&mut sample, state, k, vars.clone());
        if start.warm.is_none() {
            // A fresh run's error sum is that of every position: the sample's from scratch.
            descent.refresh();
        }
        standing.warm_error = descent.error();
        let tuner = MemoryTuner {
            descent,
            validation: &mut *validation,
        };
        let mut runner = Runner::new(tuner, standing, (options, log), interrupt);
        runner.judge_start()?;
        if let Some(result) = runner.passes(events)? {
            return Ok(result);
        }
        state = runner.tuner.descent.state();
        state.gains.fill((0.0, 0));
        (standing, log) = (runner.standing, runner.log);
    }
    let mut descent = Descent::resume(train, state, k, vars);
    if warm.is_some() {
        // Over all positions from the warm start's values: every error from scratch.
        descent.refresh();
    }
    let tuner = MemoryTuner {
        descent,
        validation,
    };
    let mut runner = Runner::new(tuner, standing, (options, log), interrupt);
    match warm {
        Some(_) => runner.save()?,
        None => runner.judge_start()?,
    }
    let result = runner.passes(events)?;
    Ok(result.unwrap_or_else(|| runner.finish(RunEnd::PassLimit)))
}

impl<'r: 'd, 'd, M: Model + 'd> Methods<'d> for MemoryTuner<'r, 'd, M> {
    fn next_pass(
        runner: &mut Runner<'_, 'd, Self>,
        events: &mut dyn FnMut(Event<M>),
    ) -> Result<Option<PassSummary>, RunError> {
        if Self::in_adam(runner) {
            let rate = runner.options.adam_rate;
            return runner.whole_pass(events, |t| Ok(Some(t.descent.adam_pass(rate))));
        }
        let lattice = runner.tuner.lattice_polish();
        if runner.options.method == Method::Newton && (runner.in_newton() || lattice) {
            return runner.newton_pass(events);
        }
        coordinate_pass(runner, events)
    }

    fn in_adam(runner: &Runner<'_, 'd, Self>) -> bool {
        matches!(runner.options.method, Method::Adam | Method::AdamThenCd)
            && !runner.tuner.descent.adam_handed_over()
    }

    fn after_adam_epoch(runner: &mut Runner<'_, 'd, Self>, end: Option<RunEnd>) -> Option<RunEnd> {
        let descent = &mut runner.tuner.descent;
        let end = end.or(descent.adam_converged().then_some(RunEnd::Converged));
        if runner.options.method != Method::AdamThenCd {
            return end;
        }
        if end.is_some() || descent.adam_epochs() >= runner.options.adam_epochs as u64 {
            descent.hand_over_to_cd();
            runner.standing.rises = 0;
            return None;
        }
        end
    }

    fn descent(&self) -> Option<&Descent<'d, M>> {
        Some(&self.descent)
    }
}

/// A pass of coordinate descent over the positions in memory, reporting progress and
/// writing checkpoints when they are due; `None` when the run was stopped.
fn coordinate_pass<'r: 'd, 'd, M: Model + 'd>(
    runner: &mut Runner<'_, 'd, MemoryTuner<'r, 'd, M>>,
    events: &mut dyn FnMut(Event<M>),
) -> Result<Option<PassSummary>, RunError> {
    let Runner {
        tuner,
        standing,
        options,
        last_checkpoint,
        interrupt,
        ..
    } = runner;
    let (pass, sample) = (standing.passes + 1, standing.warm);
    let mut failed = None;
    // Raised when the run is stopped or a checkpoint cannot be written.
    let halt = AtomicBool::new(false);
    let summary = tuner.descent.pass(&halt, &mut |d| {
        let (walked, moves) = d.progress();
        let (vars, error) = (d.variables().len(), d.error());
        let progress = Event::Progress(Progress {
            pass,
            walked,
            vars,
            pending: if walked < vars { 0 } else { d.pending() },
            moves,
            error,
            sample,
            whole: false,
        });
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
        match standing.checkpoint(d.state()).save(path) {
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
