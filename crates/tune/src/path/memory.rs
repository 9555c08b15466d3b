//! The positions in memory walking the path of pulls: a [`Descent`] over the training
//! positions takes Newton's iterations at each pull, the held-out positions are rescored
//! with its rounded values.

use super::{PullSolver, Stop, COARSE_ITERATIONS, WHOLE_ITERATIONS};
use crate::lambda::ScoredLabels;
use crate::run::RunError;
use texel_solve::descent::{Descent, DescentState, Guards, Variable};
use texel_solve::error::mean_error;
use texel_solve::model::Model;
use texel_solve::newton::MAX_ITERATIONS;

/// A descent over the training positions and the held-out positions it is judged on.
pub(crate) struct MemoryPulls<'a, 'd, M: Model> {
    /// Newton over the training positions (its anchor the start).
    pub descent: Descent<'d, M>,
    /// The held-out positions.
    pub held_out: &'a mut M,
}

impl<M: Model> PullSolver for MemoryPulls<'_, '_, M> {
    type Error = RunError;
    type Values = M::Values;

    fn solve(&mut self, l2: f64, stop: Stop<'_>) -> Result<(f64, u64), RunError> {
        self.descent.repull(l2);
        Ok(self.solved(stop))
    }

    fn solve_coarse(&mut self, l2: f64, stop: Stop<'_>) -> Result<(f64, u64), RunError> {
        self.descent.repull_held(l2);
        Ok(self.iterated(COARSE_ITERATIONS, stop))
    }

    fn refines(&self) -> bool {
        self.descent.moves_by_secants()
    }

    fn refine(
        &mut self,
        l2: f64,
        from: &M::Values,
        stop: Stop<'_>,
    ) -> Result<(f64, u64), RunError> {
        self.descent.restart_at(from);
        Ok(self.refined(l2, stop))
    }

    fn held_out(&mut self) -> Result<f64, RunError> {
        self.held_out.rescore(self.descent.params());
        Ok(mean_error(self.held_out, self.descent.k()))
    }

    fn values(&self) -> M::Values {
        self.descent.params().clone()
    }

    fn state(&self) -> DescentState<M::Values> {
        self.descent.state()
    }
}

impl<M: Model> MemoryPulls<'_, '_, M> {
    /// Newton's iterations from the restarted descent until they converge or `stop` times
    /// out: the mean training error of the real values and the iterations taken.
    fn solved(&mut self, stop: Stop<'_>) -> (f64, u64) {
        self.iterated(MAX_ITERATIONS, stop)
    }

    /// A whole step at pull `l2` from where the descent was restarted: one Newton iteration
    /// ([`WHOLE_ITERATIONS`]).
    fn refined(&mut self, l2: f64, stop: Stop<'_>) -> (f64, u64) {
        self.descent.repull(l2);
        self.iterated(WHOLE_ITERATIONS, stop)
    }

    /// [`MemoryPulls::solved`] in at most `most` iterations.
    fn iterated(&mut self, most: u32, stop: Stop<'_>) -> (f64, u64) {
        let taken = self.descent.newton_iterate(most, || stop.timed_out());
        let error = self.descent.real_error().unwrap_or(self.descent.error());
        (error, u64::from(taken))
    }
}

impl<M: Model> Relabelled<'_, '_, M> {
    /// The training targets moved to `lambda`'s blend: the pull the solve goes on at.
    fn retargeted(&mut self, lambda: f64) -> f64 {
        let descent = &mut self.positions.descent;
        descent.retarget(self.labels.targets(lambda));
        descent.guards().l2
    }
}

/// The descent a walk over the training positions `train` solves with, of `vars` at `K`
/// `k`: fresh from `start` with `guards`, or where a resumed walk's solver stood (`at`,
/// the positions scored there).
pub(crate) fn path_descent<'d, M: Model>(
    train: &'d mut M,
    (start, k): (&M::Values, f64),
    vars: &[Variable],
    (guards, at): (Guards, Option<DescentState<M::Values>>),
) -> Descent<'d, M> {
    match at {
        None => Descent::new(train, start.clone(), k, vars.to_vec()).guarded(guards),
        Some(at) => {
            train.rescore(&at.params);
            Descent::resume(train, at, k, vars.to_vec())
        }
    }
}

/// The positions in memory walking the path of λs: each solve moves the training targets to
/// a λ's blend of `labels` and goes on warm, at the descent's pull, from the rounded values
/// the last solve ended at; the held-out positions keep their results.
pub(crate) struct Relabelled<'a, 'd, M: Model> {
    /// The descent and the held-out positions.
    pub positions: MemoryPulls<'a, 'd, M>,
    /// The training positions' results and scores.
    pub labels: &'a ScoredLabels,
}

impl<M: Model> PullSolver for Relabelled<'_, '_, M> {
    type Error = RunError;
    type Values = M::Values;

    fn solve(&mut self, lambda: f64, stop: Stop<'_>) -> Result<(f64, u64), RunError> {
        let l2 = self.retargeted(lambda);
        self.positions.solve(l2, stop)
    }

    fn solve_coarse(&mut self, lambda: f64, stop: Stop<'_>) -> Result<(f64, u64), RunError> {
        let l2 = self.retargeted(lambda);
        self.positions.solve_coarse(l2, stop)
    }

    fn refines(&self) -> bool {
        self.positions.refines()
    }

    fn refine(
        &mut self,
        lambda: f64,
        from: &M::Values,
        stop: Stop<'_>,
    ) -> Result<(f64, u64), RunError> {
        // The targets moved and the descent restarted at `from` with one scoring.
        let descent = &mut self.positions.descent;
        descent.retarget_at(self.labels.targets(lambda), from);
        let l2 = descent.guards().l2;
        Ok(self.positions.refined(l2, stop))
    }

    fn held_out(&mut self) -> Result<f64, RunError> {
        self.positions.held_out()
    }

    fn values(&self) -> M::Values {
        self.positions.values()
    }

    fn state(&self) -> DescentState<M::Values> {
        self.positions.state()
    }
}
