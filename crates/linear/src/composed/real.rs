//! The composed dataset answering Newton at real values through the chain rule
//! (`super::chain`): every trial evaluated exactly.

use super::{chain, ComposedDataset};
use texel_solve::jacobian::{Hold, System};

impl ComposedDataset {
    /// The summed error at real values `x` of `slots` (the positions scored at the integer
    /// values `at`, every slot), its gradient and Gauss-Newton Hessian, at `K` = `k`.
    pub fn real_system(&self, at: &[i32], slots: &[usize], x: &[f64], k: f64) -> (f64, System) {
        chain::system(self, at, slots, x, k)
    }

    /// The summed error at real values `x` (as [`ComposedDataset::real_system`]) and its
    /// gradient.
    pub fn real_gradient(&self, at: &[i32], slots: &[usize], x: &[f64], k: f64) -> (f64, Vec<f64>) {
        chain::gradient(self, at, slots, x, k)
    }

    /// The summed error at real values `x` (as [`ComposedDataset::real_system`]).
    pub fn real_sum(&self, at: &[i32], slots: &[usize], x: &[f64], k: f64) -> f64 {
        chain::summed_error(self, at, slots, x, k)
    }

    /// The summed error at `x + alpha · p` for each of `alphas` (as
    /// [`ComposedDataset::real_system`]): each trial exactly.
    pub fn real_sums(
        &self,
        (at, slots): (&[i32], &[usize]),
        (x, p): (&[f64], &[f64]),
        alphas: &[f64],
        k: f64,
    ) -> Vec<f64> {
        let trial = |a: f64| -> Vec<f64> { x.iter().zip(p).map(|(x, p)| x + a * p).collect() };
        let each = alphas
            .iter()
            .map(|&a| chain::summed_error(self, at, slots, &trial(a), k));
        each.collect()
    }

    /// How the positions hold each of `slots` at real values `x` ([`Hold`]).
    pub fn real_holds(&self, at: &[i32], slots: &[usize], x: &[f64]) -> Vec<Hold> {
        chain::holds(self, at, slots, x)
    }

    /// The summed error's curvature among the flat variables `flat` at real values `x`, by
    /// rows.
    pub fn real_flat_curvature(
        &self,
        at: (&[i32], &[usize], &[f64]),
        flat: &[usize],
        k: f64,
    ) -> Vec<f64> {
        chain::flat_curvature(self, at, flat, k)
    }
}
