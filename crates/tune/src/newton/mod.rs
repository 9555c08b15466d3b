//! Gauss-Newton steps in real numbers: the values are floats while they move, the error is
//! that of the unrounded evaluation, and every iteration takes a full-batch damped
//! Gauss-Newton step (Levenberg-Marquardt).
//!
//! Inside the sigmoid an evaluation is linear in the values it reads through columns, so
//! the evaluation at real values is the cached one plus the Jacobian times the move
//! (`rows::product`), and the gradient and Hessian of the summed error are sums over the
//! positions' Jacobian rows (`rows::system`). The Hessian is Gauss-Newton's: each
//! position's squared error curves by `2 σ'²` per centipawn², the part of the exact
//! curvature that never goes negative, so the matrix is positive semi-definite and the first
//! steps from a table far from its optimum are full ones (the exact Hessian, indefinite
//! there, needed ten times the iterations on texel's table). Each iteration solves
//! `(H + μ·diag H) p = −g` (`solve::Factor`), then halves the step until the exact
//! error (plus the L2 pull) falls enough. The damping shrinks after a full step and grows
//! after a cut one. Near the optimum (a full step that lowered the objective by less than
//! 1 %) the next iterations reuse that factored Hessian, a gradient pass each,
//! until a step is cut; a checkpoint keeps where it was taken, so a resumed run takes the
//! same one again. The phase ends when an iteration lowers the objective by less than
//! [`NEWTON_TOLERANCE`] of itself; the values are then rounded and coordinate descent
//! polishes them on the integer lattice (what the engine plays). Values a formula or curve
//! reads are left to that polish; declared constraints hold for the real values too (each
//! trial is projected onto them).

pub(crate) mod rows;
mod solve;

use crate::descent::{Descent, PassSummary};
use crate::error::{chunked_sum, real_sigmoid, CHUNK};
use crate::model::{Model, Values};
use rayon::prelude::*;
pub use rows::{RowBuilder, RowSink};
use serde::{Deserialize, Serialize};
pub(crate) use solve::Factor;
use texel_eval::params::in_bounds;

/// The Newton phase ends after an iteration that lowers the objective by less than this
/// share of it.
pub const NEWTON_TOLERANCE: f64 = 1e-4;

/// Marquardt's damping of the first iteration.
const FIRST_DAMPING: f64 = 1e-3;
/// The damping never grows past this: the matrix is then as good as diagonal.
const MAX_DAMPING: f64 = 1e12;
/// Halvings of a step before the iteration counts as stuck.
const MAX_HALVINGS: usize = 40;
/// Armijo's share of the predicted fall a step must bring.
const ARMIJO: f64 = 1e-4;
/// After a full step that lowered the objective by less than this share, the next
/// iterations reuse its Hessian (chord steps: a gradient pass instead of a Hessian), until a
/// step is cut or stalls.
const CHORD_BELOW: f64 = 5e-2;

/// The Newton phase's memory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NewtonState {
    /// Every tuned variable's real value, by variable.
    pub values: Vec<f64>,
    /// Marquardt's damping for the next iteration.
    pub damping: f64,
    /// Iterations taken.
    pub iterations: u64,
    /// The mean error of the unrounded evaluation at `values`.
    pub error: f64,
    /// Newton is done: the values were rounded and coordinate descent polishes them.
    pub handed_over: bool,
    /// The real values (by variable) where the Hessian the next iteration reuses was
    /// taken, and its damping; `None` when the next iteration takes a fresh one.
    pub chord: Option<(Vec<f64>, f64)>,
}

/// The unrounded error of every position at evaluations `q`: the sum, and each position's
/// slope and Gauss-Newton curvature of its squared error per centipawn.
struct Derivatives {
    sum: f64,
    slopes: Vec<f64>,
    curvatures: Vec<f64>,
}

/// The squared error of an evaluation of `q` (real) centipawns for a position labelled `y`.
#[inline]
fn real_error(k: f64, q: f64, y: f64) -> f64 {
    let d = y - real_sigmoid(k, q);
    d * d
}

/// Every position's error at evaluations `q`, with its slope and curvature.
fn derivatives<M: Model>(model: &M, q: &[f64], k: f64) -> Derivatives {
    let c = k * std::f64::consts::LN_10 / 400.0;
    let per: Vec<(f64, f64)> = q
        .par_iter()
        .enumerate()
        .with_min_len(CHUNK)
        .map(|(i, &q)| {
            let (y, s) = (model.target(i), real_sigmoid(k, q));
            let ds = c * s * (1.0 - s);
            (-2.0 * (y - s) * ds, 2.0 * ds * ds)
        })
        .collect();
    let (slopes, curvatures) = per.into_iter().unzip();
    let sum = chunked_sum(q.len(), |i| real_error(k, q[i], model.target(i)));
    Derivatives {
        sum,
        slopes,
        curvatures,
    }
}

/// The tuned values Newton moves: the variables whose slots the evaluation is linear in.
struct Phase {
    /// Their numbers among the descent's variables.
    vars: Vec<usize>,
    /// Their slots.
    slots: Vec<usize>,
    /// Their real values now.
    x: Vec<f64>,
    /// Their anchors (the L2 pull's).
    anchor: Vec<f64>,
}

impl<M: Model> Descent<'_, M> {
    /// The state Newton starts from at the current values.
    fn newton_start(&self) -> NewtonState {
        let values = self.variables().iter();
        NewtonState {
            values: values
                .map(|v| f64::from(self.params().values()[v.slot]))
                .collect(),
            damping: FIRST_DAMPING,
            iterations: 0,
            error: self.error(),
            handed_over: false,
            chord: None,
        }
    }

    fn phase(&self, state: &NewtonState) -> Phase {
        let vars: Vec<usize> = (0..self.variables().len())
            .filter(|&j| self.dataset().linear(self.variables()[j].slot))
            .collect();
        let slots: Vec<usize> = vars.iter().map(|&j| self.variables()[j].slot).collect();
        let anchor = slots
            .iter()
            .map(|&s| f64::from(self.anchor().values()[s]))
            .collect();
        Phase {
            x: vars.iter().map(|&j| state.values[j]).collect(),
            vars,
            slots,
            anchor,
        }
    }

    /// The L2 pull of real values `x` (summed-error units).
    fn real_penalty(&self, phase: &Phase, x: &[f64]) -> f64 {
        let away = x.iter().zip(&phase.anchor).map(|(x, a)| (x - a) * (x - a));
        self.guards().l2 * away.sum::<f64>() / 10_000.0
    }

    /// Every position's unrounded evaluation at real values `x` of the phase: the cached one
    /// (at the integer values) plus the Jacobian times the difference.
    fn real_evals(&self, phase: &Phase, x: &[f64]) -> Vec<f64> {
        let at = phase.slots.iter().map(|&s| self.params().values()[s]);
        let moved: Vec<f64> = x.iter().zip(at).map(|(x, a)| x - f64::from(a)).collect();
        let shift = rows::product(self.dataset(), &phase.slots, &moved);
        let ds = self.dataset();
        shift
            .iter()
            .enumerate()
            .map(|(i, s)| ds.exact_eval(i) + s)
            .collect()
    }

    /// One Newton iteration (see the module docs); the run rescores the positions with the
    /// rounded values after it.
    pub fn newton_iteration(&mut self) -> PassSummary {
        let mut state = self.newton.take().unwrap_or_else(|| self.newton_start());
        let mut phase = self.phase(&state);
        let q = self.real_evals(&phase, &phase.x);
        let now = derivatives(self.dataset(), &q, self.k());
        let objective = now.sum + self.real_penalty(&phase, &phase.x);
        let chord = state.chord.take();
        let reused = chord.is_some();
        let (factor, g, at) = match chord {
            Some((at, damping)) => {
                let g = self.pulled(
                    &phase,
                    rows::gradient(self.dataset(), &phase.slots, &now.slopes),
                );
                (self.chord_factor(&phase, &at, damping), g, (at, damping))
            }
            None => {
                let (factor, g) = self.fresh_factor(&phase, &now, &mut state.damping);
                (factor, g, (state.values.clone(), state.damping))
            }
        };
        let step = factor.as_ref().map(|f| f.step(&g));
        let step = step.filter(|p| p.iter().zip(&g).map(|(p, g)| p * g).sum::<f64>() < 0.0);
        let (mut sum, mut fall) = (now.sum, 0.0);
        let taken = step.and_then(|p| self.line_search(&phase, &q, objective, (p, g)));
        if let Some(taken) = taken {
            fall = (objective - taken.objective) / taken.objective.abs().max(f64::MIN_POSITIVE);
            if !reused {
                state.damping = match taken.full {
                    true => state.damping / 3.0,
                    false => (state.damping * 4.0).max(FIRST_DAMPING),
                };
            }
            let chord_next = taken.full && (NEWTON_TOLERANCE..CHORD_BELOW).contains(&fall);
            state.chord = chord_next.then_some(at);
            (phase.x, sum) = (taken.x, taken.sum);
        }
        self.newton_factor = factor.filter(|_| state.chord.is_some());
        for (&j, &x) in phase.vars.iter().zip(&phase.x) {
            state.values[j] = x;
        }
        state.error = sum / self.dataset().len() as f64;
        state.iterations += 1;
        state.handed_over = fall < NEWTON_TOLERANCE;
        let changed = self.round_to(&state.values);
        let error = state.error;
        self.newton = Some(state);
        PassSummary {
            fall,
            error,
            moves: changed as u64,
            changed,
            probes: 0,
        }
    }

    /// `g` with the L2 pull's slope at the phase's values added.
    fn pulled(&self, phase: &Phase, mut g: Vec<f64>) -> Vec<f64> {
        let pull = 2.0 * self.guards().l2 / 10_000.0;
        for (j, g) in g.iter_mut().enumerate() {
            *g += pull * (phase.x[j] - phase.anchor[j]);
        }
        g
    }

    /// The Hessian (with the pull's curvature) and gradient at the phase's values: the
    /// factor of the damped Hessian, raising `damping` until it is positive definite (`None`
    /// when even the largest damping does not make it so), and the gradient.
    fn fresh_factor(
        &self,
        phase: &Phase,
        now: &Derivatives,
        damping: &mut f64,
    ) -> (Option<solve::Factor>, Vec<f64>) {
        let mut sys = rows::system(self.dataset(), &phase.slots, &now.slopes, &now.curvatures);
        let pull = 2.0 * self.guards().l2 / 10_000.0;
        for j in 0..sys.n {
            sys.hessian[j * sys.n + j] += pull;
        }
        let g = self.pulled(phase, std::mem::take(&mut sys.gradient));
        while *damping <= MAX_DAMPING {
            if let Some(factor) = solve::Factor::new(&sys.hessian, sys.n, *damping) {
                return (Some(factor), g);
            }
            *damping = (*damping * 10.0).max(1e-6);
        }
        (None, g)
    }

    /// The factor a chord step reuses: the one kept from the iteration that took it, or
    /// (after a resume) the same one taken again at the real values `at` (by variable).
    fn chord_factor(&mut self, phase: &Phase, at: &[f64], damping: f64) -> Option<solve::Factor> {
        if let Some(factor) = self.newton_factor.take() {
            return Some(factor);
        }
        let x: Vec<f64> = phase.vars.iter().map(|&j| at[j]).collect();
        let q = self.real_evals(phase, &x);
        let then = derivatives(self.dataset(), &q, self.k());
        let sys = rows::system(self.dataset(), &phase.slots, &then.slopes, &then.curvatures);
        let mut h = sys.hessian;
        let pull = 2.0 * self.guards().l2 / 10_000.0;
        for j in 0..sys.n {
            h[j * sys.n + j] += pull;
        }
        solve::Factor::new(&h, sys.n, damping)
    }

    /// Halves the step `p` from the phase's values (evaluations `q`, objective `objective`,
    /// gradient `g`), each trial moved into the declared constraints, until the objective
    /// falls by Armijo's share of the predicted fall.
    fn line_search(
        &self,
        phase: &Phase,
        q: &[f64],
        objective: f64,
        (p, g): (Vec<f64>, Vec<f64>),
    ) -> Option<Taken> {
        let ds = self.dataset();
        let jp = rows::product(ds, &phase.slots, &p);
        let k = self.k();
        let mut alpha = 1.0;
        for halvings in 0..MAX_HALVINGS {
            let straight: Vec<f64> = phase.x.iter().zip(&p).map(|(x, p)| x + alpha * p).collect();
            let x = self.projected(&phase.slots, &straight);
            let moved: Vec<f64> = x.iter().zip(&phase.x).map(|(a, b)| a - b).collect();
            let sum = match x == straight {
                true => chunked_sum(ds.len(), |i| {
                    real_error(k, q[i] + alpha * jp[i], ds.target(i))
                }),
                false => {
                    let shift = rows::product(ds, &phase.slots, &moved);
                    chunked_sum(ds.len(), |i| real_error(k, q[i] + shift[i], ds.target(i)))
                }
            };
            let value = sum + self.real_penalty(phase, &x);
            let predicted: f64 = moved.iter().zip(&g).map(|(m, g)| m * g).sum();
            if value <= objective + ARMIJO * predicted.min(0.0) && value < objective {
                return Some(Taken {
                    x,
                    sum,
                    objective: value,
                    full: halvings == 0,
                });
            }
            alpha /= 2.0;
        }
        None
    }

    /// Real values `x` of the slots `slots` moved into the declared constraints (the other
    /// values fixed at their integers), when the run keeps constraints.
    pub(crate) fn projected(&self, slots: &[usize], x: &[f64]) -> Vec<f64> {
        if !self.guards().constraints {
            return x.to_vec();
        }
        let values = self.params().values();
        let mut real: Vec<f64> = values.iter().map(|&v| f64::from(v)).collect();
        let mut free = vec![false; real.len()];
        for (&slot, &v) in slots.iter().zip(x) {
            (real[slot], free[slot]) = (v, true);
        }
        M::Values::project_real(&mut real, &free);
        slots.iter().map(|&slot| real[slot]).collect()
    }

    /// Moves every variable to its real value rounded, where its bounds and the declared
    /// constraints allow (the positions are rescored by the run); returns how many moved.
    pub(crate) fn round_to(&mut self, values: &[f64]) -> usize {
        let mut params = self.params().clone();
        let mut changed = 0;
        for (v, &x) in self.variables().iter().zip(values) {
            let target = x.round().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32;
            let allowed = !self.guards().constraints || params.allows_value(v.slot, target);
            if target != params.values()[v.slot] && allowed && in_bounds(target) {
                params.set_value(v.slot, target);
                changed += 1;
            }
        }
        self.set_params_unscored(params);
        changed
    }

    /// Newton iterations taken.
    pub fn newton_iterations(&self) -> u64 {
        self.newton.as_ref().map_or(0, |s| s.iterations)
    }

    /// Whether Newton has handed over to coordinate descent.
    pub fn newton_handed_over(&self) -> bool {
        self.newton.as_ref().is_some_and(|s| s.handed_over)
    }

    /// The mean error of the unrounded evaluation at Newton's (or Adam's) real values, once
    /// an iteration (or epoch) ran.
    pub fn real_error(&self) -> Option<f64> {
        let adam = self.adam.as_ref().and_then(|a| a.error);
        self.newton.as_ref().map(|s| s.error).or(adam)
    }

    /// Newton is done (converged, or stopped by the run): coordinate descent goes on from
    /// the rounded values.
    pub fn hand_over_to_polish(&mut self) {
        let mut state = self.newton.take().unwrap_or_else(|| self.newton_start());
        state.handed_over = true;
        self.newton = Some(state);
    }
}

/// A step the line search took.
struct Taken {
    /// The new real values.
    x: Vec<f64>,
    /// The summed error there.
    sum: f64,
    /// The objective there (error and pull).
    objective: f64,
    /// Whether the whole step was taken.
    full: bool,
}
