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
    /// `dE/dq` of position `i`: the derivative of its squared error with respect to its
    /// evaluation in centipawns.
    fn error_slope(&self, i: usize, k: f64) -> f64 {
        let ds = self.dataset();
        let s = sigmoid(k, ds.eval(i));
        let ds_dq = s * (1.0 - s) * k * std::f64::consts::LN_10 / 400.0;
        -2.0 * (ds.target(i) - s) * ds_dq
    }

    /// The derivative of the mean error with respect to the value of `slot`, when no curve or
    /// formula reads it.
    fn column_derivative(&self, slot: usize, k: f64) -> f64 {
        let ds = self.dataset();
        let blocks: Vec<f64> = (0..ds.blocks(slot))
            .into_par_iter()
            .map(|b| {
                let mut sum = 0.0;
                ds.for_block(slot, b, |pos, mid, end| {
                    let i = pos as usize;
                    let [mid_slope, end_slope] = ds.slopes(i);
                    let dq = f64::from(mid) * mid_slope + f64::from(end) * end_slope;
                    sum += dq * self.error_slope(i, k);
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
        let k = self.k();
        vars.iter()
            .map(|&v| {
                if self.dataset().read_by_formulas(v.slot) {
                    (self.probe(v, v.step) - self.probe(v, -v.step)) / f64::from(2 * v.step)
                } else {
                    self.column_derivative(v.slot, k)
                }
            })
            .collect()
    }
}
