//! The session's run when its subject reads the positions from their file in every pass
//! (`crate::holding`): the same protocol as a run in memory — the outputs locked, an earlier
//! run's files cleared or continued (of this kind, its settings compared), the data
//! surveyed (its fingerprint compared with the checkpoint's), the tune with a checkpoint in
//! the one format after every step, the values written, the checkpoint removed, what
//! changed — with the positions never held.

use super::{EndData, Ended, Opening, Session, SessionError, SessionEvent, Subject, ValuesOf};
use crate::checkpoint::{CheckpointError, RunKind};
use crate::end::{Ending, Tuned};
use crate::events::JobEvent;
use crate::holding::StreamPlan;
use crate::job::JobError;
use crate::run::{Event, RunEnd, RunResult};
use crate::stream::{tune_streamed, Labels, StreamError, StreamEvent, StreamRun, Streamed};
use crate::traces::{held_split, survey_trace, TraceSubjectError};
use std::sync::atomic::AtomicBool;
use texel_solve::descent::Variable;
use texel_solve::model::Model;

impl<S: Subject> Session<S> {
    /// The whole streamed run of `plan` (see the module's page).
    pub(super) fn run_streamed(
        self,
        plan: StreamPlan<ValuesOf<S>>,
        interrupt: &AtomicBool,
        on: &mut dyn FnMut(SessionEvent<S::Model>),
    ) -> Result<Ended<S::Model>, SessionError> {
        if let Some(what) = self.settings.unstreamed() {
            return Err(SessionError::Streamed(StreamError::Unstreamed(what)));
        }
        on(SessionEvent::Streaming(plan.why));
        let (_lock, resumed) = self.files().open::<Vec<i32>>(RunKind::Streamed, &mut |o| {
            on(match o {
                Opening::Cleared(c) => SessionEvent::Cleared(c),
                Opening::Resuming(notes) => SessionEvent::Resuming(notes),
            })
        })?;
        let (labels, fingerprint, held) = self.surveyed(&plan, interrupt, on)?;
        let mut settings = self.settings.clone();
        // The positions' tuner form beside the checkpoint while the tune runs.
        settings.stream.form = Some(self.outputs.scratch());
        settings.run.log = self.outputs.log.clone();
        settings.run.checkpoint = Some(self.outputs.checkpoint.clone());
        let run = StreamRun {
            settings: &settings,
            labels,
            fingerprint,
            record: self.record.clone(),
            held: Some(held),
        };
        let slots = (plan.start.as_slice(), plan.slots.as_slice());
        let tuned = tune_streamed(&plan.trace, slots, run, resumed, interrupt, |e| match e {
            StreamEvent::Job(e) => on(SessionEvent::Job(retyped(e))),
            e => on(SessionEvent::Stream(e)),
        });
        match tuned {
            Err(StreamError::Stopped) => Err(SessionError::Stopped),
            Err(StreamError::Checkpoint(mismatch)) => {
                let path = self.resume.clone().unwrap_or_default();
                let mismatch = CheckpointError::Mismatch { path, mismatch };
                Err(SessionError::Checkpoint(mismatch))
            }
            Err(e) => Err(SessionError::Streamed(e)),
            Ok(tuned) => self.streamed_end(&plan, tuned, on),
        }
    }

    /// The trace surveyed for the run (its split, λ resolved on the scores it holds, its
    /// fingerprint), what it holds said; its labels, fingerprint and split (which positions
    /// are held out).
    fn surveyed(
        &self,
        plan: &StreamPlan<ValuesOf<S>>,
        interrupt: &AtomicBool,
        on: &mut dyn FnMut(SessionEvent<S::Model>),
    ) -> Result<(Labels, u64, Vec<bool>), SessionError> {
        let streamed = |e: texel_trace::TraceError| SessionError::Streamed(e.into());
        let (held, split) = held_split(&plan.trace, plan.held_out).map_err(streamed)?;
        let chunk = self.settings.stream.chunk;
        let survey = survey_trace(&plan.trace, &held, plan.lambda, chunk, interrupt)
            .map_err(streamed)?
            .ok_or(SessionError::Stopped)?;
        if survey.lambda < 1.0 && survey.scored == 0 {
            let path = self.subject.source().into();
            let no_scores = TraceSubjectError::NoScores(path);
            return Err(SessionError::Subject(Box::new(no_scores)));
        }
        let mut about = format!(
            "{}: {} positions, {} values to tune, read from the file {chunk} at a time in every \
             pass",
            self.subject.source(),
            plan.trace.len(),
            plan.slots.len(),
        );
        if !split.nothing_held() {
            about += &format!("\n{split}");
        }
        if let Some(targets) = survey.targets.as_deref() {
            about += &format!("\n{targets}");
        }
        on(SessionEvent::Loaded {
            about: &about,
            chosen_k: None,
        });
        let labels = Labels {
            lambda: survey.lambda,
            held_out: plan.held_out,
        };
        Ok((labels, survey.fingerprint, held))
    }

    /// The end of the streamed run of `plan`: a finished run's values written and its
    /// checkpoint removed (an interrupted run keeps its checkpoint and writes nothing), what
    /// changed, the log's last line.
    fn streamed_end(
        &self,
        plan: &StreamPlan<ValuesOf<S>>,
        tuned: Streamed,
        on: &mut dyn FnMut(SessionEvent<S::Model>),
    ) -> Result<Ended<S::Model>, SessionError> {
        let params = (plan.values)(tuned.values.clone());
        let interrupted = tuned.end == RunEnd::Interrupted;
        if !interrupted {
            self.written(&params, on)?;
        }
        let name = |slot: usize| self.subject.name(slot);
        let result = RunResult {
            params: tuned.values.clone(),
            end: tuned.end,
            passes: tuned.passes,
            best_pass: tuned.best_pass,
        };
        let variables = |slots: &[usize]| -> Vec<Variable> {
            (slots.iter())
                .map(|&slot| Variable { slot, step: 1 })
                .collect()
        };
        let (asked, tuned_vars) = (variables(&plan.slots), variables(&tuned.tuned));
        let ending = Ending {
            began: &plan.start,
            asked: &asked,
            tuned: &tuned_vars,
            held_out: tuned.validation.is_some(),
            log: self.outputs.log.as_deref(),
        };
        let support = |slots: &[usize]| -> Vec<usize> {
            let of = |slot| tuned.support.iter().find(|&&(s, _)| s == slot);
            (slots.iter())
                .map(|&slot| of(slot).map_or(0, |&(_, n)| n))
                .collect()
        };
        let ended = ending
            .tuned(result, &name, support)
            .map_err(JobError::from)?;
        let tuned_params = Tuned {
            result: RunResult {
                params,
                end: ended.result.end,
                passes: ended.result.passes,
                best_pass: ended.result.best_pass,
            },
            held: ended.held,
            changes: ended.changes,
            kept_start: ended.kept_start,
        };
        let figures = (!interrupted).then(|| Box::new(tuned));
        Ok(Ended {
            tuned: tuned_params,
            data: EndData::Streamed(figures),
        })
    }
}

/// A streamed tune's event as the session's model's: a pass's descent is `None` there.
fn retyped<M: Model>(e: JobEvent<texel_linear::TraceDataset>) -> JobEvent<M> {
    match e {
        JobEvent::Held { held, min_support } => JobEvent::Held { held, min_support },
        JobEvent::PullSolving(l2) => JobEvent::PullSolving(l2),
        JobEvent::Pull(p) => JobEvent::Pull(p),
        JobEvent::PullChosen(c) => JobEvent::PullChosen(c),
        JobEvent::LambdaSolving(lambda) => JobEvent::LambdaSolving(lambda),
        JobEvent::Lambda(p) => JobEvent::Lambda(p),
        JobEvent::LambdaChosen(c) => JobEvent::LambdaChosen(c),
        JobEvent::Fresh(vars, guards) => JobEvent::Fresh(vars, guards),
        JobEvent::Resumed(passes, vars) => JobEvent::Resumed(passes, vars),
        JobEvent::ResumedOnPath(walk, solved) => JobEvent::ResumedOnPath(walk, solved),
        JobEvent::Run(run) => JobEvent::Run(match run {
            Event::Progress(progress) => Event::Progress(progress),
            Event::Pass(record, _) => Event::Pass(record, None),
            Event::Checkpoint(path) => Event::Checkpoint(path),
        }),
    }
}
