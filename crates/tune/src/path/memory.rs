//! The positions in memory walking the path of pulls: a [`Descent`] over the training
//! positions takes Newton's iterations at each pull, the held-out positions are rescored
//! with its rounded values.

use super::{PullSolver, Stop};
use crate::lambda::ScoredLabels;
use std::convert::Infallible;
use texel_solve::descent::Descent;
use texel_solve::error::mean_error;
use texel_solve::model::Model;

/// A descent over the training positions and the held-out positions it is judged on.
pub(crate) struct MemoryPulls<'a, 'd, M: Model> {
    /// Newton over the training positions (its anchor the start).
    pub descent: Descent<'d, M>,
    /// The held-out positions.
    pub held_out: &'a mut M,
}

impl<M: Model> PullSolver for MemoryPulls<'_, '_, M> {
    type Error = Infallible;
    type Values = M::Values;

    fn solve(&mut self, l2: f64, stop: Stop<'_>) -> Result<(f64, u64), Infallible> {
        self.descent.repull(l2);
        let taken = self.descent.newton_solve_until(|| stop.timed_out());
        let error = self.descent.real_error().unwrap_or(self.descent.error());
        Ok((error, u64::from(taken)))
    }

    fn held_out(&mut self) -> Result<f64, Infallible> {
        self.held_out.rescore(self.descent.params());
        Ok(mean_error(self.held_out, self.descent.k()))
    }

    fn values(&self) -> M::Values {
        self.descent.params().clone()
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
    type Error = Infallible;
    type Values = M::Values;

    fn solve(&mut self, lambda: f64, stop: Stop<'_>) -> Result<(f64, u64), Infallible> {
        let descent = &mut self.positions.descent;
        descent.retarget(self.labels.targets(lambda));
        let l2 = descent.guards().l2;
        self.positions.solve(l2, stop)
    }

    fn held_out(&mut self) -> Result<f64, Infallible> {
        self.positions.held_out()
    }

    fn values(&self) -> M::Values {
        self.positions.values()
    }
}
