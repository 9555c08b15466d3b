//! The passes a run makes, chosen once by the tuner's type: Newton's iteration and its
//! lattice polish over any positions (the default, all that positions read from their file
//! take), or every method over positions in memory (coordinate descent, Adam, Newton with
//! either polish).

use super::runner::Runner;
use super::tuner::{MemoryTuner, Tuner};
use super::{Event, Progress, RunEnd, RunError};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use texel_solve::adam::Method;
use texel_solve::descent::{Descent, PassSummary};
use texel_solve::model::Model;

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
