//! The gradient of the mean error with respect to the tuned values, at the descent's current
//! (integer) values and the positions' whole-centipawn evaluations.
//!
//! A value the evaluation is linear in acts through its Jacobian column, and its derivative
//! is a sum over the positions (`jacobian::rows::gradient`): `Σ ∂q_i/∂value · dE/dq` with
//! `dE/dq` the derivative of the squared error with respect to the evaluation
//! ([`crate::error::error_slope`]). Values that integer curves and formulas read get the
//! central difference of two one-step probes, computed by the probe machinery. Sums go per
//! block in position order: the result does not depend on the threads.

use crate::descent::{Descent, Variable};
use crate::error::{error_slope, CHUNK};
use crate::jacobian::rows;
use crate::model::Model;
use rayon::prelude::*;

impl<M: Model> Descent<'_, M> {
    /// The gradient of the mean error over `vars` (per unit of each value) at the current
    /// values: exact column sums for values the evaluation is linear in, central
    /// differences of one step for curve inputs and formula weights.
    pub fn gradient(&mut self, vars: &[Variable]) -> Vec<f64> {
        let ds = self.dataset();
        let linear: Vec<usize> = (vars.iter().filter(|v| ds.linear(v.slot)))
            .map(|v| v.slot)
            .collect();
        let k = self.k();
        let slopes: Vec<f64> = (0..ds.len())
            .into_par_iter()
            .with_min_len(CHUNK)
            .map(|i| error_slope(k, ds.eval(i), ds.target(i)))
            .collect();
        let n = ds.len() as f64;
        let mut columns = rows::gradient(ds, &linear, &slopes).into_iter();
        vars.iter()
            .map(|&v| match self.dataset().linear(v.slot) {
                true => columns.next().expect("one derivative per linear value") / n,
                false => (self.probe(v, v.step) - self.probe(v, -v.step)) / f64::from(2 * v.step),
            })
            .collect()
    }
}
