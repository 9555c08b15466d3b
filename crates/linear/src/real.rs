//! A set of a trace's positions answering Newton at real values, whatever its positions
//! compose: through the chain rule where they compose inner sums (`super::chain`), else
//! from the columns (the cached evaluation plus the Jacobian times the move). The streamed
//! tune asks each chunk these questions; it does not know the shapes.

use super::{chain, LinearDataset};
use texel_solve::error::real_sigmoid;
use texel_solve::error::{error_gradient, error_sum};
use texel_solve::jacobian::{rows, Hold, System};
use texel_solve::model::Model;

/// The move from the integer values `at` to real values `x` of `slots`.
fn moved(at: &[i32], slots: &[usize], x: &[f64]) -> Vec<f64> {
    let from = slots.iter().map(|&s| f64::from(at[s]));
    x.iter().zip(from).map(|(x, a)| x - a).collect()
}

impl LinearDataset {
    /// The summed error at real values `x` of `slots` (the positions scored at the integer
    /// values `at`, every slot), its gradient and Gauss-Newton Hessian, at `K` = `k`.
    pub fn real_system(&self, at: &[i32], slots: &[usize], x: &[f64], k: f64) -> (f64, System) {
        if self.inner.is_used() {
            return chain::system(self, at, slots, x, k);
        }
        let c = k * std::f64::consts::LN_10 / 400.0;
        let q = rows::product(self, slots, &moved(at, slots, x));
        let (mut sum, mut slopes, mut curvatures) = (0.0, Vec::new(), Vec::new());
        for (i, q) in q.iter().enumerate() {
            let (y, s) = (self.target(i), real_sigmoid(k, self.exact_eval(i) + q));
            let d = c * s * (1.0 - s);
            sum += (y - s) * (y - s);
            slopes.push(-2.0 * (y - s) * d);
            curvatures.push(2.0 * d * d);
        }
        (sum, rows::system(self, slots, &slopes, &curvatures))
    }

    /// The summed error at real values `x` (as [`LinearDataset::real_system`]) and its
    /// gradient.
    pub fn real_gradient(&self, at: &[i32], slots: &[usize], x: &[f64], k: f64) -> (f64, Vec<f64>) {
        if self.inner.is_used() {
            return chain::gradient(self, at, slots, x, k);
        }
        let got = error_gradient(self, slots, &moved(at, slots, x), k);
        (got.sum, got.gradient)
    }

    /// The summed error at real values `x` (as [`LinearDataset::real_system`]).
    pub fn real_sum(&self, at: &[i32], slots: &[usize], x: &[f64], k: f64) -> f64 {
        if self.inner.is_used() {
            return chain::summed_error(self, at, slots, x, k);
        }
        error_sum(self, slots, &moved(at, slots, x), k)
    }

    /// The summed error at `x + alpha · p` for each of `alphas` (as
    /// [`LinearDataset::real_system`]): each trial exactly.
    pub fn real_sums(
        &self,
        (at, slots): (&[i32], &[usize]),
        (x, p): (&[f64], &[f64]),
        alphas: &[f64],
        k: f64,
    ) -> Vec<f64> {
        if self.inner.is_used() {
            let trial = |a: f64| -> Vec<f64> { x.iter().zip(p).map(|(x, p)| x + a * p).collect() };
            let each = alphas
                .iter()
                .map(|&a| chain::summed_error(self, at, slots, &trial(a), k));
            return each.collect();
        }
        let q = rows::product(self, slots, &moved(at, slots, x));
        let jp = rows::product(self, slots, p);
        let mut sums = vec![0.0; alphas.len()];
        for i in 0..self.len() {
            let (y, e) = (self.target(i), self.exact_eval(i) + q[i]);
            for (sum, alpha) in sums.iter_mut().zip(alphas) {
                let miss = y - real_sigmoid(k, e + alpha * jp[i]);
                *sum += miss * miss;
            }
        }
        sums
    }

    /// How the positions hold each of `slots` at real values `x` ([`Hold`]): a set linear
    /// in its values holds none flat (the answer is empty).
    pub fn real_holds(&self, at: &[i32], slots: &[usize], x: &[f64]) -> Vec<Hold> {
        match self.inner.is_used() {
            true => chain::holds(self, at, slots, x),
            false => Vec::new(),
        }
    }

    /// The summed error's curvature among the flat variables `flat` at real values `x`, by
    /// rows: zero where the positions are linear in their values.
    pub fn real_flat_curvature(
        &self,
        at: (&[i32], &[usize], &[f64]),
        flat: &[usize],
        k: f64,
    ) -> Vec<f64> {
        match self.inner.is_used() {
            true => chain::flat_curvature(self, at, flat, k),
            false => vec![0.0; flat.len() * flat.len()],
        }
    }

    /// Whether a trace of this space may hold values flat where Newton stands (a square at
    /// a zero sum, a sum weighed by a weight at zero): it composes inner sums.
    pub fn may_hold_flat(space: &texel_trace::ParamSpace) -> bool {
        !space.inner().is_empty()
    }

    /// Whether value `slot` of a trace of this space weighs a part of an inner term (its
    /// `times_param`): tuned, it multiplies the values that part's sums count.
    pub fn weighs(space: &texel_trace::ParamSpace, slot: usize) -> bool {
        (space.inner().iter())
            .flat_map(|term| term.parts())
            .any(|shape| shape.is_some_and(|s| s.times_value == Some(slot)))
    }
}
