//! The streamed Gauss-Newton iterations: a pass for the system, a pass for the step lengths.

use super::{
    Stream, StreamError, StreamEvent, StreamState, ARMIJO, FIRST_DAMPING, MAX_DAMPING,
    MAX_ITERATIONS, TRIALS,
};
use crate::error::real_sigmoid;
use crate::model::Model;
use crate::newton::rows::{self, System};
use crate::newton::{Factor, NEWTON_TOLERANCE};
use std::time::Instant;

/// A step the line search took: the values, the summed error there and the objective.
struct Taken {
    x: Vec<f64>,
    sum: f64,
    objective: f64,
    full: bool,
}

impl Stream<'_> {
    /// Newton's iterations from `state` until one lowers the objective by less than
    /// `NEWTON_TOLERANCE` of it (or none can); then the values rounded for the polish.
    pub(super) fn newton(
        &self,
        state: &mut StreamState,
        on: &mut impl FnMut(StreamEvent),
    ) -> Result<(), StreamError> {
        let (mut sum, mut sys) = self.system(&state.x)?;
        state.real_error = sum / self.trained;
        while state.iterations < MAX_ITERATIONS {
            let clock = Instant::now();
            let objective = sum + self.penalty(&state.x);
            let Some((p, g)) = self.step(&state.x, &sys, &mut state.damping) else {
                break;
            };
            let Some(taken) = self.line_search(&state.x, objective, &p, &g)? else {
                break;
            };
            let fall = (objective - taken.objective) / taken.objective.abs().max(f64::MIN_POSITIVE);
            state.damping = match taken.full {
                true => state.damping / 3.0,
                false => (state.damping * 4.0).max(FIRST_DAMPING),
            };
            (state.x, sum) = (taken.x, taken.sum);
            (state.iterations, state.real_error) = (state.iterations + 1, sum / self.trained);
            let done = fall < NEWTON_TOLERANCE;
            if !done {
                (sum, sys) = self.system(&state.x)?;
            }
            on(StreamEvent::Iteration {
                number: state.iterations,
                error: state.real_error,
                fall,
                seconds: clock.elapsed().as_secs_f64(),
            });
            if done {
                break;
            }
            on(StreamEvent::Checkpoint(state.clone()));
        }
        state.polish = Some((self.rounded(&state.x), 0));
        on(StreamEvent::Checkpoint(state.clone()));
        Ok(())
    }

    /// The damped Gauss-Newton step at `x` from the error's system `sys` (the pull added),
    /// and the gradient; `None` when no damping makes the matrix positive definite or the
    /// step does not go downhill.
    fn step(&self, x: &[f64], sys: &System, damping: &mut f64) -> Option<(Vec<f64>, Vec<f64>)> {
        let (slope, curvature) = self.pull(x);
        let mut sys = sys.clone();
        let n = sys.n;
        for (j, slope) in slope.iter().enumerate() {
            sys.hessian[j * n + j] += curvature;
            sys.gradient[j] += slope;
        }
        while *damping <= MAX_DAMPING {
            if let Some(factor) = Factor::new(&sys.hessian, sys.n, *damping) {
                let p = factor.step(&sys.gradient);
                let downhill = p.iter().zip(&sys.gradient).map(|(p, g)| p * g).sum::<f64>() < 0.0;
                return downhill.then_some((p, sys.gradient));
            }
            *damping = (*damping * 10.0).max(1e-6);
        }
        None
    }

    /// The summed training error at real values `x` of the tuned slots, with its gradient
    /// and Gauss-Newton Hessian: one pass.
    fn system(&self, x: &[f64]) -> Result<(f64, System), StreamError> {
        let (delta, k) = (self.delta(x), self.k);
        let c = k * std::f64::consts::LN_10 / 400.0;
        let parts = self.chunks(false, self.start, |ds| {
            let q = rows::product(ds, &self.slots, &delta);
            let (mut sum, mut slopes, mut curvatures) = (0.0, Vec::new(), Vec::new());
            for (i, q) in q.iter().enumerate() {
                let (y, s) = (ds.target(i), real_sigmoid(k, ds.exact_eval(i) + q));
                let d = c * s * (1.0 - s);
                sum += (y - s) * (y - s);
                slopes.push(-2.0 * (y - s) * d);
                curvatures.push(2.0 * d * d);
            }
            (sum, rows::system(ds, &self.slots, &slopes, &curvatures))
        })?;
        let mut total = (0.0, System::zero(self.slots.len()));
        for (sum, sys) in &parts {
            total.0 += sum;
            total.1.add_system(sys);
        }
        Ok(total)
    }

    /// The largest of the step lengths 1, ½, … that lowers `objective` (at `x`) by Armijo's
    /// share of the fall the gradient `g` predicts along `p`: a pass judges [`TRIALS`] of
    /// them; `None` when none of 40 halvings does.
    fn line_search(
        &self,
        x: &[f64],
        objective: f64,
        p: &[f64],
        g: &[f64],
    ) -> Result<Option<Taken>, StreamError> {
        let along: f64 = p.iter().zip(g).map(|(p, g)| p * g).sum();
        let mut first = 1.0;
        for pass in 0..5 {
            let alphas: Vec<f64> = (0..TRIALS).map(|t| first / f64::from(1u32 << t)).collect();
            let sums = self.sums_along(x, p, &alphas)?;
            for (t, (&alpha, &sum)) in alphas.iter().zip(&sums).enumerate() {
                let moved: Vec<f64> = x.iter().zip(p).map(|(x, p)| x + alpha * p).collect();
                let value = sum + self.penalty(&moved);
                if value <= objective + ARMIJO * alpha * along && value < objective {
                    let full = pass == 0 && t == 0;
                    return Ok(Some(Taken {
                        x: moved,
                        sum,
                        objective: value,
                        full,
                    }));
                }
            }
            first /= f64::from(1u32 << TRIALS);
        }
        Ok(None)
    }

    /// The summed training error at `x + alpha · p` for each of `alphas`: one pass.
    fn sums_along(&self, x: &[f64], p: &[f64], alphas: &[f64]) -> Result<Vec<f64>, StreamError> {
        let (delta, k) = (self.delta(x), self.k);
        let parts = self.chunks(false, self.start, |ds| {
            let (q, jp) = (
                rows::product(ds, &self.slots, &delta),
                rows::product(ds, &self.slots, p),
            );
            let mut sums = vec![0.0; alphas.len()];
            for i in 0..ds.len() {
                let (y, e) = (ds.target(i), ds.exact_eval(i) + q[i]);
                for (sum, alpha) in sums.iter_mut().zip(alphas) {
                    let miss = y - real_sigmoid(k, e + alpha * jp[i]);
                    *sum += miss * miss;
                }
            }
            sums
        })?;
        let mut total = vec![0.0; alphas.len()];
        for part in parts {
            total.iter_mut().zip(part).for_each(|(t, s)| *t += s);
        }
        Ok(total)
    }
}
