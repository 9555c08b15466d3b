//! A streamed tune on files, whole, as one library call, through the protocol every tune
//! follows ([`RunFiles`]): the outputs checked and locked, an earlier run's files cleared or
//! continued (of this kind, its settings compared), the trace surveyed (its fingerprint
//! compared with the checkpoint's), the tune, its checkpoint in the one format, the values
//! written and the checkpoint removed.

use super::{tune_streamed, Labels, StreamError, StreamEvent, StreamState, Streamed};
use crate::checkpoint::{Checkpoint, CheckpointError, RunKind};
use crate::descent::{Cursor, DescentState, Guards, Variable};
use crate::lambda::Lambda;
use crate::session::{Opening, RunFiles, SessionError};
use crate::settings::TuneSettings;
use crate::traces::{held_split, survey_trace, TraceSubjectError, TraceSurvey};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use texel_data::{HeldOut, SplitCounts};
use texel_trace::BinaryTrace;

/// A streamed tune of a binary trace into its run's files.
pub struct StreamSession<'a> {
    /// The trace.
    pub trace: &'a BinaryTrace,
    /// Its file.
    pub path: &'a Path,
    /// Every value of the space the run starts from.
    pub start: &'a [i32],
    /// The slots asked to tune.
    pub slots: &'a [usize],
    /// How the tune runs: the one settings record of every tune (its `stream` read as
    /// given, or the default chunk when `None`; the scratch file is kept beside the
    /// checkpoint).
    pub settings: TuneSettings,
    /// The share of the result in the targets, resolved once the scores are counted.
    pub lambda: Lambda,
    /// Positions in 1,000 held out for validation.
    pub held_out: HeldOut,
    /// The run's files.
    pub files: RunFiles<'a>,
}

/// What a streamed session reports on its way, in order.
pub enum StreamSessionEvent<'e> {
    /// The run's files were opened.
    Opening(Opening),
    /// The positions were split: what the held-out side holds (when something is held).
    Split(SplitCounts),
    /// The trace was surveyed.
    Surveyed(&'e TraceSurvey),
    /// The tune's own event (its checkpoints are written by the session).
    Tune(StreamEvent),
}

impl StreamSession<'_> {
    /// Runs the whole streamed tune, reporting to `on`, until it ends or `interrupt` is
    /// raised (the checkpoint then kept: [`SessionError::Stopped`] before the survey ends,
    /// [`crate::StreamError::Stopped`] after).
    ///
    /// # Errors
    /// See [`SessionError`].
    pub fn run(
        mut self,
        interrupt: &AtomicBool,
        on: &mut dyn FnMut(StreamSessionEvent),
    ) -> Result<Streamed, SessionError> {
        if let Some(what) = self.settings.unstreamed() {
            return Err(SessionError::Streamed(StreamError::Unstreamed(what)));
        }
        let clock = Instant::now();
        let (_lock, resumed) = self.files.open::<Vec<i32>>(RunKind::Streamed, &mut |o| {
            on(StreamSessionEvent::Opening(o))
        })?;
        let (held, split) =
            held_split(self.trace, self.held_out).map_err(|e| SessionError::Streamed(e.into()))?;
        if !split.nothing_held() {
            on(StreamSessionEvent::Split(split));
        }
        let mut streaming = self.settings.stream.clone().unwrap_or_default();
        let survey = survey_trace(self.trace, &held, self.lambda, streaming.chunk, interrupt)
            .map_err(|e| SessionError::Streamed(e.into()))?
            .ok_or(SessionError::Stopped)?;
        on(StreamSessionEvent::Surveyed(&survey));
        if survey.lambda < 1.0 && survey.scored == 0 {
            let path = self.path.to_path_buf();
            return Err(SessionError::Subject(Box::new(
                TraceSubjectError::NoScores(path),
            )));
        }
        let labels = Labels {
            lambda: survey.lambda,
            held_out: self.held_out,
        };
        // The positions' tuner form beside the checkpoint while the tune runs.
        let form = format!("{}.form", self.files.outputs.checkpoint.display());
        streaming.form = Some(form.into());
        self.settings.stream = Some(streaming);
        let earlier = resumed.as_ref().map_or(0.0, |c| c.seconds);
        let state = match resumed {
            Some(c) => Some(self.continued(c, survey.fingerprint)?),
            None => None,
        };
        let mut saved = Ok(());
        let record = |state: &StreamState| {
            let seconds = earlier + clock.elapsed().as_secs_f64();
            let checkpoint = self.checkpoint(state, survey.fingerprint, seconds);
            checkpoint.save(&self.files.outputs.checkpoint)
        };
        let tuned = tune_streamed(
            self.trace,
            (self.start, self.slots),
            (&self.settings, labels),
            state,
            interrupt,
            |e| match e {
                StreamEvent::Checkpoint(state) if saved.is_ok() => saved = record(&state),
                e => on(StreamSessionEvent::Tune(e)),
            },
        );
        saved?;
        let tuned = tuned.map_err(SessionError::Streamed)?;
        let space = self.trace.space();
        (space.save_values(&tuned.values, &self.files.outputs.out))
            .map_err(|e| SessionError::Subject(Box::new(e)))?;
        self.files.outputs.remove_checkpoint()?;
        Ok(tuned)
    }

    /// The state a checkpoint of this kind continues, checked against the survey's
    /// fingerprint.
    fn continued(
        &self,
        c: Checkpoint<Vec<i32>>,
        fingerprint: u64,
    ) -> Result<StreamState, SessionError> {
        let path = self.files.resume.unwrap_or(&self.files.outputs.checkpoint);
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
        let newton = c
            .descent
            .newton
            .ok_or_else(|| bad("it keeps no Newton state"))?;
        let rounds = (c.passes as u64).saturating_sub(newton.iterations);
        let rounds = u32::try_from(rounds).map_err(|_| bad("too many polish rounds"))?;
        let polish = newton
            .handed_over
            .then(|| (c.descent.params.clone(), rounds));
        Ok(StreamState {
            positions: c.positions,
            k: c.k,
            tuned: c.vars.iter().map(|v| v.slot).collect(),
            newton,
            polish,
            l2: c.descent.guards.l2,
        })
    }

    /// `state` in the one checkpoint format, of kind streamed.
    fn checkpoint(&self, state: &StreamState, data: u64, seconds: f64) -> Checkpoint<Vec<i32>> {
        let vars: Vec<Variable> = (state.tuned.iter())
            .map(|&slot| Variable { slot, step: 1 })
            .collect();
        let rounds = state.polish.as_ref().map_or(0, |p| p.1);
        let params = state.polish.as_ref().map_or(self.start, |p| &p.0);
        Checkpoint {
            kind: RunKind::Streamed,
            k: state.k,
            positions: state.positions,
            data,
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
            seconds,
            warm: None,
            warm_passes: 0,
            settings: self.files.record.cloned(),
        }
    }
}
