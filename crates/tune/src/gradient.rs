//! The gradient of the mean error with respect to the tuned values, at the descent's current
//! values: the footing of gradient methods beside coordinate descent.
//!
//! A value that no curve or formula reads acts through its column alone, and its derivative
//! is a sum over that column: `Σ coefficient · slope · dE/dq` per position, with `slope` the
//! continuous derivative of the tapered, scaled evaluation with respect to the middlegame or
//! endgame sum and `dE/dq` that of the squared error with respect to the evaluation. Curve
//! inputs and formula weights act through integer curves and formulas, so their derivative
//! is the central difference of two one-step probes, computed by the probe machinery.
//! Sums go per column block in position order: the result does not depend on the threads.

use crate::descent::{Descent, Variable};
use crate::error::sigmoid;
use rayon::prelude::*;

impl Descent<'_> {
    /// Per position, how its squared error moves per unit of its middlegame and endgame
    /// sums: `dE/dq` (the error against the evaluation) times the slopes of the tapered,
    /// scaled evaluation. Computed once per gradient, shared by every column.
    fn sum_slopes(&self) -> Vec<[f64; 2]> {
        let (ds, k) = (self.dataset(), self.k());
        (0..ds.len())
            .into_par_iter()
            .map(|i| {
                let s = sigmoid(k, ds.eval(i));
                let ds_dq = s * (1.0 - s) * k * std::f64::consts::LN_10 / 400.0;
                let de_dq = -2.0 * (ds.target(i) - s) * ds_dq;
                ds.slopes(i).map(|slope| slope * de_dq)
            })
            .collect()
    }

    /// The derivative of the mean error with respect to the value of `slot`, when no curve or
    /// formula reads it, from the positions' [`Descent::sum_slopes`].
    fn column_derivative(&self, slot: usize, slopes: &[[f64; 2]]) -> f64 {
        let ds = self.dataset();
        let blocks: Vec<f64> = (0..ds.blocks(slot))
            .into_par_iter()
            .map(|b| {
                let mut sum = 0.0;
                ds.for_block(slot, b, |pos, mid, end| {
                    let [d_mid, d_end] = slopes[pos as usize];
                    sum += f64::from(mid) * d_mid + f64::from(end) * d_end;
                });
                sum
            })
            .collect();
        blocks.iter().sum::<f64>() / ds.len() as f64
    }

    /// Probes [`Descent::gradient`] makes for `vars`: two per curve input or formula weight.
    pub(crate) fn gradient_probes(&self, vars: &[Variable]) -> u64 {
        let read = vars
            .iter()
            .filter(|v| self.dataset().read_by_formulas(v.slot));
        2 * read.count() as u64
    }

    /// The gradient of the mean error over `vars` (per unit of each value) at the current
    /// values: exact column sums for values only their column carries, central differences
    /// of one step for curve inputs and formula weights.
    pub fn gradient(&mut self, vars: &[Variable]) -> Vec<f64> {
        let linear = vars
            .iter()
            .any(|v| !self.dataset().read_by_formulas(v.slot));
        let slopes = if linear {
            self.sum_slopes()
        } else {
            Vec::new()
        };
        vars.iter()
            .map(|&v| {
                if self.dataset().read_by_formulas(v.slot) {
                    (self.probe(v, v.step) - self.probe(v, -v.step)) / f64::from(2 * v.step)
                } else {
                    self.column_derivative(v.slot, &slopes)
                }
            })
            .collect()
    }
}
