//! Where a run stands between passes: what a checkpoint holds besides the tuner's state.

use super::{PassRecord, RunEnd, RunResult, WARM_GAIN, WARM_PASSES};
use crate::checkpoint::{Checkpoint, RunKind};
use std::time::{Duration, Instant};
use texel_solve::descent::{DescentState, Variable};

/// Where a run stands between passes: what a checkpoint holds besides the tuner's state.
pub(super) struct Standing<V> {
    /// How the run holds its positions.
    pub kind: RunKind,
    pub k: f64,
    pub data: u64,
    pub vars: Vec<Variable>,
    pub passes: usize,
    pub best: Option<(f64, V)>,
    /// The pass whose values `best` holds (0: the start).
    pub best_pass: Option<usize>,
    pub rises: usize,
    pub began: Instant,
    /// Training positions of the run (the checkpoint's check).
    pub positions: usize,
    /// The warm start under way, if any: about one segment in `n`.
    pub warm: Option<usize>,
    /// Warm passes done in the run, and the sample's error after the last one.
    pub warm_passes: usize,
    pub warm_error: f64,
    /// The settings the run began with, carried into every checkpoint.
    pub settings: Option<texel_run::Settings>,
    /// The λ of the training targets, carried into every checkpoint.
    pub lambda: Option<f64>,
}

impl<V: texel_solve::model::Values> Standing<V> {
    /// Where the run of `start` stands as it begins (or goes on), of kind `kind`, over
    /// `positions` training positions, warm on about one segment in `warm` if it is.
    pub fn new(
        start: &Checkpoint<V>,
        kind: RunKind,
        positions: usize,
        warm: Option<usize>,
    ) -> Self {
        Standing {
            kind,
            k: start.k,
            data: start.data,
            vars: start.vars.clone(),
            passes: start.passes,
            best: start.best.clone(),
            best_pass: start.best_pass,
            rises: start.rises,
            began: Instant::now() - Duration::from_secs_f64(start.seconds),
            positions,
            warm,
            warm_passes: start.warm_passes,
            warm_error: 0.0,
            settings: start.settings.clone(),
            lambda: start.lambda,
        }
    }

    /// The checkpoint of the run whose tuner's state is `descent`.
    pub fn checkpoint(&self, descent: DescentState<V>) -> Checkpoint<V> {
        Checkpoint {
            kind: self.kind,
            k: self.k,
            positions: self.positions,
            data: self.data,
            passes: self.passes,
            vars: self.vars.clone(),
            descent,
            best: self.best.clone(),
            best_pass: self.best_pass,
            rises: self.rises,
            seconds: self.began.elapsed().as_secs_f64(),
            warm: self.warm,
            warm_passes: self.warm_passes,
            settings: self.settings.clone(),
            lambda: self.lambda,
            path: None,
        }
    }

    /// Counts a pass's validation error: a new best, or one more rise.
    pub fn validated(&mut self, error: f64, params: &V) {
        match &self.best {
            Some((b, _)) if error >= *b => self.rises += 1,
            _ => {
                self.best = Some((error, params.clone()));
                self.best_pass = Some(self.passes);
                self.rises = 0;
            }
        }
    }

    /// Whether the warm start under way ends with the pass of `record` (its training error
    /// is the sample's); counts the pass.
    pub fn warm_ends(&mut self, record: &PassRecord) -> bool {
        if self.warm.is_none() {
            return false;
        }
        self.warm_passes += 1;
        let gain = (self.warm_error - record.train_error) / self.warm_error;
        self.warm_error = record.train_error;
        let done = gain < WARM_GAIN || record.summary.moves == 0 || self.warm_passes >= WARM_PASSES;
        if done {
            self.warm = None;
        }
        done
    }

    /// The values to keep (`now` where nothing was validated): the best on validation
    /// when there is one.
    pub fn finish(&self, now: &V, end: RunEnd) -> RunResult<V> {
        let params = self
            .best
            .as_ref()
            .map_or_else(|| now.clone(), |(_, p)| p.clone());
        RunResult {
            params,
            end,
            passes: self.passes,
            best_pass: self.best.as_ref().and(self.best_pass),
        }
    }
}
