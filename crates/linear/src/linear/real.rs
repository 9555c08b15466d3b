//! A linear dataset answering Newton at real values: the cached evaluation plus the
//! Jacobian times the move, read from the columns.

use super::LinearDataset;
use texel_solve::error::real_sigmoid;
use texel_solve::error::{error_gradient, error_sum};
use texel_solve::jacobian::{hessian, rows, System};
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
        (sum, hessian::system(self, slots, &slopes, &curvatures))
    }

    /// The summed error at real values `x` (as [`LinearDataset::real_system`]) and its
    /// gradient.
    pub fn real_gradient(&self, at: &[i32], slots: &[usize], x: &[f64], k: f64) -> (f64, Vec<f64>) {
        let got = error_gradient(self, slots, &moved(at, slots, x), k);
        (got.sum, got.gradient)
    }

    /// The summed error at real values `x` (as [`LinearDataset::real_system`]).
    pub fn real_sum(&self, at: &[i32], slots: &[usize], x: &[f64], k: f64) -> f64 {
        error_sum(self, slots, &moved(at, slots, x), k)
    }

    /// The summed error at `x + alpha · p` for each of `alphas` (as
    /// [`LinearDataset::real_system`]).
    pub fn real_sums(
        &self,
        (at, slots): (&[i32], &[usize]),
        (x, p): (&[f64], &[f64]),
        alphas: &[f64],
        k: f64,
    ) -> Vec<f64> {
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
}
