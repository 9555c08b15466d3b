//! The gradient of the mean error with respect to the tuned values, at the descent's current
//! values: the footing of gradient methods beside coordinate descent.
//!
//! A value the evaluation is linear in acts through its column alone, and its derivative is
//! a sum over that column ([`Model::linear_gradient`]): `Σ coefficient · slope · dE/dq` per
//! position, with `dE/dq` the derivative of the squared error with respect to the
//! evaluation ([`crate::error::error_slope`]). Values that integer curves and formulas read
//! get the central difference of two one-step probes, computed by the probe machinery.
//! Sums go per column block in position order: the result does not depend on the threads.

use crate::descent::{Descent, Variable};
use crate::model::Model;

impl<M: Model> Descent<'_, M> {
    /// Probes [`Descent::gradient`] makes for `vars`: two per value the evaluation is not
    /// linear in.
    pub(crate) fn gradient_probes(&self, vars: &[Variable]) -> u64 {
        let read = vars.iter().filter(|v| !self.dataset().linear(v.slot));
        2 * read.count() as u64
    }

    /// The gradient of the mean error over `vars` (per unit of each value) at the current
    /// values: exact column sums for values the evaluation is linear in, central
    /// differences of one step for curve inputs and formula weights.
    pub fn gradient(&mut self, vars: &[Variable]) -> Vec<f64> {
        let linear: Vec<usize> = vars
            .iter()
            .filter(|v| self.dataset().linear(v.slot))
            .map(|v| v.slot)
            .collect();
        let mut columns = self
            .dataset()
            .linear_gradient(&linear, self.k())
            .into_iter();
        vars.iter()
            .map(|&v| {
                if self.dataset().linear(v.slot) {
                    columns.next().expect("one derivative per linear value")
                } else {
                    (self.probe(v, v.step) - self.probe(v, -v.step)) / f64::from(2 * v.step)
                }
            })
            .collect()
    }
}
