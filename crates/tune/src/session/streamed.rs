//! The session's run when its subject reads the positions from their file in every pass
//! (`crate::holding`): the same protocol as a run in memory — the outputs locked, an earlier
//! run's files cleared or continued (of this kind, its settings compared), the data
//! surveyed (its fingerprint compared with the checkpoint's), the tune with a checkpoint in
//! the one format after every step, the values written, the checkpoint removed, what
//! changed — with the positions never held.

use super::{EndData, Ended, Opening, Session, SessionError, SessionEvent, Subject, ValuesOf};
use crate::checkpoint::{Checkpoint, CheckpointError, RunKind};
use crate::descent::{Cursor, DescentState, Guards, Variable};
use crate::holding::StreamPlan;
use crate::job::Tuned;
use crate::log::ValueChange;
use crate::run::{RunEnd, RunResult};
use crate::stream::{tune_streamed, Labels, StreamError, StreamEvent, StreamState, Streamed};
use crate::traces::{held_split, survey_trace, TraceSubjectError};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// A streamed run's checkpoints: where it began, and what its files are.
struct Keeper<'a> {
    start: &'a [i32],
    fingerprint: u64,
    record: Option<&'a texel_run::Settings>,
    earlier: f64,
    clock: Instant,
}

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
        // The positions' tuner form beside the checkpoint while the tune runs.
        let mut settings = self.settings.clone();
        settings.stream.form = Some(self.outputs.scratch());
        let keeper = Keeper {
            start: &plan.start,
            fingerprint,
            record: self.record.as_ref(),
            earlier: resumed.as_ref().map_or(0.0, |c| c.seconds),
            clock: Instant::now(),
        };
        let state = match resumed {
            Some(c) => Some(self.continued(c, fingerprint)?),
            None => None,
        };
        let mut saved = Ok(());
        let mut last = state.clone();
        let tuned = tune_streamed(
            &plan.trace,
            (&plan.start, &plan.slots),
            (&settings, labels),
            state,
            interrupt,
            |e| match e {
                StreamEvent::Checkpoint(state) => {
                    if saved.is_ok() {
                        saved = keeper.checkpoint(&state).save(&self.outputs.checkpoint);
                    }
                    last = Some(state);
                }
                e => on(SessionEvent::Stream(e)),
            },
        );
        saved?;
        let start = std::mem::take(&mut plan.start);
        match tuned {
            Err(StreamError::Stopped) => Ok(self.stopped(start, last, plan.values)),
            Err(e) => Err(SessionError::Streamed(e)),
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

    /// A streamed run interrupted after `last` (its checkpoint kept): nothing written.
    fn stopped(
        &self,
        start: Vec<i32>,
        last: Option<StreamState>,
        values: fn(Vec<i32>) -> ValuesOf<S>,
    ) -> Ended<S::Model> {
        let passes = last.map_or(0, |s| s.passes());
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
        (self.subject.save(&params, &self.outputs.out)).map_err(SessionError::Subject)?;
        if let Err(e) = self.outputs.remove_checkpoint() {
            on(SessionEvent::CheckpointKept(e));
        }
        let name = |slot: usize| self.subject.name(slot);
        let result = RunResult {
            params,
            end: tuned.limited.unwrap_or(RunEnd::Converged),
            passes: tuned.passes(),
        };
        let changed = Tuned {
            result,
            held: tuned.held.iter().map(|&s| name(s)).collect(),
            changes: changes(&start, &tuned, &name),
            kept_start: tuned.kept_start,
        };
        Ok(Ended {
            tuned: changed,
            data: EndData::Streamed(Some(Box::new(tuned))),
        })
    }

    /// The state a checkpoint of this kind continues, checked against the survey's
    /// fingerprint.
    fn continued(
        &self,
        c: Checkpoint<Vec<i32>>,
        fingerprint: u64,
    ) -> Result<StreamState, SessionError> {
        let path = self.resume.as_deref().unwrap_or(&self.outputs.checkpoint);
        let bad = |reason: &str| {
            SessionError::Checkpoint(CheckpointError::Unusable {
                path: path.to_path_buf(),
                reason: reason.into(),
            })
        };
        if c.data != fingerprint {
            return Err(bad(
                "it was made for other data (the positions, their labels or scores, \
                 the validation share or λ differ)",
            ));
        }
        let newton = (c.descent.newton).ok_or_else(|| bad("it keeps no Newton state"))?;
        let rounds = (c.passes as u64).saturating_sub(newton.iterations);
        let rounds = u32::try_from(rounds).map_err(|_| bad("too many polish rounds"))?;
        let polish = (newton.handed_over).then(|| (c.descent.params.clone(), rounds));
        Ok(StreamState {
            positions: c.positions,
            k: c.k,
            tuned: c.vars.iter().map(|v| v.slot).collect(),
            newton,
            polish,
            l2: c.descent.guards.l2,
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

impl Keeper<'_> {
    /// `state` in the one checkpoint format, of kind streamed.
    fn checkpoint(&self, state: &StreamState) -> Checkpoint<Vec<i32>> {
        let vars: Vec<Variable> = (state.tuned.iter())
            .map(|&slot| Variable { slot, step: 1 })
            .collect();
        let rounds = state.polish.as_ref().map_or(0, |p| p.1);
        let params = state.polish.as_ref().map_or(self.start, |p| &p.0);
        Checkpoint {
            kind: RunKind::Streamed,
            k: state.k,
            positions: state.positions,
            data: self.fingerprint,
            passes: (state.newton.iterations + u64::from(rounds)) as usize,
            descent: DescentState {
                params: params.to_vec(),
                anchor: self.start.to_vec(),
                guards: Guards {
                    l2: state.l2,
                    constraints: false,
                },
                sum: state.newton.error,
                gains: vec![(0.0, 0); vars.len()],
                probes: 0,
                cursor: Cursor::default(),
                adam: None,
                newton: Some(state.newton.clone()),
            },
            vars,
            best: None,
            rises: 0,
            seconds: self.earlier + self.clock.elapsed().as_secs_f64(),
            warm: None,
            warm_passes: 0,
            settings: self.record.cloned(),
        }
    }
}
