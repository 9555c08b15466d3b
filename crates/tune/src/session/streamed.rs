//! The session's run when its subject reads the positions from their file in every pass
//! (`crate::holding`): the same protocol as a run in memory — the outputs locked, an earlier
//! run's files cleared or continued (of this kind, its settings compared), the data
//! surveyed (its fingerprint compared with the checkpoint's), the tune with a checkpoint in
//! the one format after every step, the values written, the checkpoint removed, what
//! changed — with the positions never held.

use super::{EndData, Ended, Opening, Session, SessionError, SessionEvent, Subject, ValuesOf};
use crate::checkpoint::{CheckpointError, RunKind};
use crate::events::JobEvent;
use crate::holding::StreamPlan;
use crate::job::Tuned;
use crate::log::ValueChange;
use crate::run::{Event, RunEnd, RunResult};
use crate::stream::{tune_streamed, Labels, StreamError, StreamEvent, StreamRun, Streamed};
use crate::traces::{held_split, survey_trace, TraceSubjectError};
use std::sync::atomic::AtomicBool;
use texel_solve::model::Model;

impl<S: Subject> Session<S> {
    /// The whole streamed run of `plan` (see the module's page).
    pub(super) fn run_streamed(
        self,
        mut plan: StreamPlan<ValuesOf<S>>,
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
        let (labels, fingerprint) = self.surveyed(&plan, interrupt, on)?;
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
        };
        let slots = (plan.start.as_slice(), plan.slots.as_slice());
        let tuned = tune_streamed(&plan.trace, slots, run, resumed, interrupt, |e| match e {
            StreamEvent::Job(e) => on(SessionEvent::Job(retyped(e))),
            e => on(SessionEvent::Stream(e)),
        });
        let start = std::mem::take(&mut plan.start);
        match tuned {
            Err(StreamError::Stopped) => Err(SessionError::Stopped),
            Err(StreamError::Checkpoint(reason)) => {
                let path = self.resume.clone().unwrap_or_default();
                let unusable = CheckpointError::Unusable { path, reason };
                Err(SessionError::Checkpoint(unusable))
            }
            Err(e) => Err(SessionError::Streamed(e)),
            Ok(tuned) if tuned.end == RunEnd::Interrupted => {
                Ok(self.stopped(start, tuned.passes, plan.values))
            }
            Ok(tuned) => self.streamed_end(start, tuned, plan.values, on),
        }
    }

    /// The trace surveyed for the run (its split, λ resolved on the scores it holds, its
    /// fingerprint), what it holds said; its labels and fingerprint.
    fn surveyed(
        &self,
        plan: &StreamPlan<ValuesOf<S>>,
        interrupt: &AtomicBool,
        on: &mut dyn FnMut(SessionEvent<S::Model>),
    ) -> Result<(Labels, u64), SessionError> {
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
        Ok((labels, survey.fingerprint))
    }

    /// A streamed run interrupted after `passes` (its checkpoint kept): nothing written.
    fn stopped(
        &self,
        start: Vec<i32>,
        passes: usize,
        values: fn(Vec<i32>) -> ValuesOf<S>,
    ) -> Ended<S::Model> {
        let result = RunResult {
            params: values(start),
            end: RunEnd::Interrupted,
            passes,
        };
        let tuned = Tuned {
            result,
            held: Vec::new(),
            changes: Vec::new(),
            kept_start: false,
        };
        Ended {
            tuned,
            data: EndData::Streamed(None),
        }
    }

    /// A finished streamed run: its values written, the checkpoint removed, what changed.
    fn streamed_end(
        &self,
        start: Vec<i32>,
        tuned: Streamed,
        values: fn(Vec<i32>) -> ValuesOf<S>,
        on: &mut dyn FnMut(SessionEvent<S::Model>),
    ) -> Result<Ended<S::Model>, SessionError> {
        let params = values(tuned.values.clone());
        self.written(&params, on)?;
        let name = |slot: usize| self.subject.name(slot);
        let result = RunResult {
            params,
            end: tuned.end,
            passes: tuned.passes,
        };
        let changed = Tuned {
            result,
            held: tuned.held.iter().map(|&s| name(s)).collect(),
            changes: changes(&start, &tuned, &name),
            kept_start: tuned.kept_start,
        };
        if let Some(log) = &self.outputs.log {
            // Every run's log ends with what was held and what changed, as in memory.
            let (held, changes) = (changed.held.clone(), changed.changes.clone());
            crate::log::append_changes(log, held, changes).map_err(|cause| {
                SessionError::Job(crate::job::JobError::Log {
                    path: log.clone(),
                    cause,
                })
            })?;
        }
        Ok(Ended {
            tuned: changed,
            data: EndData::Streamed(Some(Box::new(tuned))),
        })
    }
}

/// What changed from `start` to the streamed run's values, the largest change first, with
/// the training positions each changed value counts in.
fn changes(start: &[i32], tuned: &Streamed, name: &dyn Fn(usize) -> String) -> Vec<ValueChange> {
    let mut changed: Vec<ValueChange> = (tuned.support.iter())
        .filter(|&&(slot, _)| start[slot] != tuned.values[slot])
        .map(|&(slot, support)| ValueChange {
            value: name(slot),
            before: start[slot],
            after: tuned.values[slot],
            support,
        })
        .collect();
    changed.sort_by_key(|c| std::cmp::Reverse((c.after - c.before).abs()));
    changed
}

/// A streamed tune's event as the session's model's: a pass's descent is `None` there.
fn retyped<M: Model>(e: JobEvent<crate::linear::LinearDataset>) -> JobEvent<M> {
    match e {
        JobEvent::Held { held, min_support } => JobEvent::Held { held, min_support },
        JobEvent::Pull(p) => JobEvent::Pull(p),
        JobEvent::PullChosen(c) => JobEvent::PullChosen(c),
        JobEvent::Lambda(p) => JobEvent::Lambda(p),
        JobEvent::LambdaChosen(c) => JobEvent::LambdaChosen(c),
        JobEvent::Fresh(vars, guards) => JobEvent::Fresh(vars, guards),
        JobEvent::Resumed(passes, vars) => JobEvent::Resumed(passes, vars),
        JobEvent::Run(run) => JobEvent::Run(match run {
            Event::Progress(progress) => Event::Progress(progress),
            Event::Pass(record, _) => Event::Pass(record, None),
            Event::Checkpoint(path) => Event::Checkpoint(path),
        }),
    }
}
