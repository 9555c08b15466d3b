//! The positions in memory as Newton's passes where their evaluation answers Newton itself
//! ([`Exact`]): each pass one question to it, at the real values asked.

use super::Passes;
use crate::descent::Descent;
use crate::jacobian::{Exact, Hold, System};
use crate::model::{Model, Values};
use std::convert::Infallible;

/// The positions in memory as Newton's passes, answered by their evaluation exactly.
pub(super) struct Answered<'a, 'd, M: Model> {
    pub(super) descent: &'a Descent<'d, M>,
    pub(super) exact: &'a dyn Exact,
    pub(super) slots: &'a [usize],
}

impl<M: Model> Answered<'_, '_, M> {
    /// The integer values the positions are scored at, and K.
    fn at(&self) -> (&[i32], f64) {
        (self.descent.params().values(), self.descent.k())
    }
}

impl<M: Model> Passes for Answered<'_, '_, M> {
    type Error = Infallible;

    fn system(&mut self, x: &[f64]) -> Result<(f64, System), Infallible> {
        let (at, k) = self.at();
        Ok(self.exact.system(at, self.slots, x, k))
    }

    fn gradient(&mut self, x: &[f64]) -> Result<(f64, Vec<f64>), Infallible> {
        let (at, k) = self.at();
        Ok(self.exact.gradient(at, self.slots, x, k))
    }

    fn sums_along(&mut self, x: &[f64], p: &[f64], alphas: &[f64]) -> Result<Vec<f64>, Infallible> {
        let trial =
            |alpha: f64| -> Vec<f64> { x.iter().zip(p).map(|(x, p)| x + alpha * p).collect() };
        alphas.iter().map(|&a| self.sum_at(&trial(a))).collect()
    }

    fn sum_at(&mut self, y: &[f64]) -> Result<f64, Infallible> {
        let (at, k) = self.at();
        Ok(self.exact.summed_error(at, self.slots, y, k))
    }

    fn project(&self, x: &[f64]) -> Vec<f64> {
        self.descent.projected(self.slots, x)
    }

    fn lengths_per_pass(&self) -> usize {
        1
    }

    fn may_hold_flat(&self) -> bool {
        true
    }

    fn multiplies(&self) -> bool {
        self.slots.iter().any(|&s| self.exact.weighs(s))
    }

    fn holds(&mut self, x: &[f64]) -> Result<Vec<Hold>, Infallible> {
        let (at, _) = self.at();
        Ok(self.exact.holds(at, self.slots, x))
    }

    fn flat_curvature(&mut self, x: &[f64], flat: &[usize]) -> Result<Vec<f64>, Infallible> {
        let (at, k) = self.at();
        Ok(self.exact.flat_curvature((at, self.slots, x), flat, k))
    }
}
