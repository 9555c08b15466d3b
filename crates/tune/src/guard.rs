//! Choosing the L2 pull on the validation split (`texel tune --l2 auto`).

use crate::descent::{Descent, Guards, Variable};
use crate::error::mean_error;
use crate::model::{Model, Values};
use std::sync::atomic::AtomicBool;

/// The pulls `--l2 auto` tries, weakest first.
pub const L2_GRID: [f64; 6] = [0.0, 0.01, 0.03, 0.1, 0.3, 1.0];

/// A search for the L2 pull: short tunings from the same start, one per candidate pull,
/// judged by the validation error they reach.
pub struct L2Search<'a, V> {
    /// Where every tuning starts (the datasets must be scored with it).
    pub start: &'a V,
    /// `K` of the run.
    pub k: f64,
    /// The variables tuned.
    pub vars: &'a [Variable],
    /// Whether the declared constraints hold in the tunings.
    pub constraints: bool,
    /// Passes per tuning at most.
    pub passes: usize,
}

impl<V: Values> L2Search<'_, V> {
    /// Each pull of `grid` with the best validation error its tuning reached, in grid
    /// order. Both datasets are scored with `start` again afterwards.
    pub fn run<M: Model<Values = V>>(
        &self,
        train: &mut M,
        validation: &mut M,
        grid: &[f64],
    ) -> Vec<(f64, f64)> {
        grid.iter()
            .map(|&l2| (l2, self.trial(train, validation, l2)))
            .collect()
    }

    /// The best validation error over the passes of one tuning with pull `l2`.
    fn trial<M: Model<Values = V>>(&self, train: &mut M, validation: &mut M, l2: f64) -> f64 {
        let guards = Guards {
            l2,
            constraints: self.constraints,
        };
        let mut descent =
            Descent::new(train, self.start.clone(), self.k, self.vars.to_vec()).guarded(guards);
        let mut best = mean_error(validation, self.k);
        for _ in 0..self.passes {
            let Some(summary) = descent.pass(&AtomicBool::new(false), &mut |_| {}) else {
                break;
            };
            validation.rescore(descent.params());
            best = best.min(mean_error(validation, self.k));
            if summary.moves == 0 {
                break;
            }
        }
        train.rescore(self.start);
        validation.rescore(self.start);
        best
    }
}

/// The pull with the lowest validation error (the weakest of equals).
pub fn best_pull(trials: &[(f64, f64)]) -> f64 {
    trials
        .iter()
        .fold(None, |best: Option<(f64, f64)>, &t| match best {
            Some(b) if b.1 <= t.1 => Some(b),
            _ => Some(t),
        })
        .map_or(0.0, |b| b.0)
}
