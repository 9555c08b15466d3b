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
//! there, needed ten times the iterations on texel's table). Positions far from a draw,
//! which curve by less than 3 % of the most, add only their diagonal to it (about half of
//! texel's positions, half a percent of the curvature; see `rows::system`). Each iteration solves
//! `(H + μ·diag H) p = −g` (`solve::Factor`), then halves the step until the exact
//! error (plus the L2 pull) falls enough. The damping shrinks after a full step and grows
//! after a cut one. Near the optimum (a full step that lowered the objective by less than
//! 1 %) the next iterations reuse that factored Hessian, a gradient pass each,
//! until a step is cut; a checkpoint keeps where it was taken, so a resumed run takes the
//! same one again. The phase ends when an iteration lowers the objective by less than
//! [`NEWTON_TOLERANCE`] of itself; the values are then rounded and coordinate descent
//! polishes them on the integer lattice (what the engine plays). Declared constraints hold
//! for the real values too (each trial is projected onto them).
//!
//! Values a curve or formula reads (texel's king attack weights, scale rules) are not linear:
//! each iteration linearizes them where they stand, by secant columns of exact probes one
//! unit up and down (`secant`), and moves them with the rest. Their evaluations exist at
//! whole values only, so a step rounds them, rescores the positions there and is taken only
//! when that exact objective falls. The first step that fails holds them for the rest of the
//! phase (the polish moves them), and the iteration is taken again without them; a step
//! that brings less than three quarters of the fall its linearization promised is taken,
//! and holds them from the next iteration on. Chord steps are for phases that are linear
//! throughout (a secant Hessian would not be reused where it was taken).

pub(crate) mod rows;
mod secant;
mod solve;

use crate::descent::{Descent, PassSummary};
use crate::error::{chunked_sum, real_sigmoid, CHUNK};
use crate::model::{Jacobian, Model, Values};
use rayon::prelude::*;
pub use rows::{RowBuilder, RowSink};
use secant::Linearized;
use serde::{Deserialize, Serialize};
pub(crate) use solve::Factor;
use texel_trace::in_bounds;

/// The Newton phase ends after an iteration that lowers the objective by less than this
/// share of it.
pub const NEWTON_TOLERANCE: f64 = 1e-4;

/// Marquardt's damping of the first iteration.
const FIRST_DAMPING: f64 = 1e-3;
/// A step that moves values by secants must bring at least this share of the fall the
/// linearization promised, or those values are held from the next iteration on.
const FAITHFUL: f64 = 0.75;
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
    /// The values the evaluation is not linear in are held for the polish (a secant step
    /// failed its exact check, or brought too little of the fall it promised).
    pub curves_held: bool,
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

/// The tuned values Newton moves: the variables whose slots the evaluation is linear in,
/// then (unless held) the others.
struct Phase {
    /// Their numbers among the descent's variables.
    vars: Vec<usize>,
    /// How many of them (the first) the evaluation is linear in.
    linear: usize,
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
            curves_held: false,
        }
    }

    fn phase(&self, state: &NewtonState) -> Phase {
        let is_linear = |j: &usize| self.dataset().linear(self.variables()[*j].slot);
        let (mut vars, others): (Vec<usize>, Vec<usize>) =
            (0..self.variables().len()).partition(is_linear);
        let linear = vars.len();
        if !state.curves_held {
            vars.extend(others);
        }
        let slots: Vec<usize> = vars.iter().map(|&j| self.variables()[j].slot).collect();
        let anchor = slots
            .iter()
            .map(|&s| f64::from(self.anchor().values()[s]))
            .collect();
        Phase {
            x: vars.iter().map(|&j| state.values[j]).collect(),
            vars,
            linear,
            slots,
            anchor,
        }
    }

    /// The L2 pull of real values `x` (summed-error units).
    fn real_penalty(&self, phase: &Phase, x: &[f64]) -> f64 {
        let away = x.iter().zip(&phase.anchor).map(|(x, a)| (x - a) * (x - a));
        self.guards().l2 * away.sum::<f64>() / 10_000.0
    }

    /// Every position's unrounded evaluation at real values `x` of the slots `slots` (the
    /// variables `jac` serves): the cached one (at the integer values) plus the Jacobian
    /// times the difference.
    fn real_evals<J: Jacobian>(&self, jac: &J, slots: &[usize], x: &[f64]) -> Vec<f64> {
        let at = slots.iter().map(|&s| self.params().values()[s]);
        let moved: Vec<f64> = x.iter().zip(at).map(|(x, a)| x - f64::from(a)).collect();
        let shift = rows::product(jac, slots, &moved);
        let ds = self.dataset();
        shift
            .iter()
            .enumerate()
            .map(|(i, s)| ds.exact_eval(i) + s)
            .collect()
    }

    /// The secant columns of the phase's variables the evaluation is not linear in, at the
    /// current values.
    fn secant_columns(&mut self, phase: &Phase) -> Vec<Vec<(u32, f64)>> {
        let others = &phase.slots[phase.linear..];
        let mut columns = Vec::with_capacity(others.len());
        for &slot in others {
            let up = self.eval_moves(slot, 1);
            let down = self.eval_moves(slot, -1);
            columns.push(secant::secant(&up, &down));
        }
        columns
    }

    /// One Newton iteration (see the module docs); the run rescores the positions with the
    /// rounded values after it.
    pub fn newton_iteration(&mut self) -> PassSummary {
        let mut state = self.newton.take().unwrap_or_else(|| self.newton_start());
        let mut phase = self.phase(&state);
        let secants = phase.linear < phase.slots.len();
        let Some(tried) = self.newton_step(&mut state, &phase) else {
            state.curves_held = true;
            self.newton = Some(state);
            return self.newton_iteration();
        };
        state.curves_held |= tried.hold_curves;
        let (mut sum, mut fall) = (tried.sum_now, 0.0);
        if let Some(taken) = tried.taken {
            fall =
                (tried.objective - taken.objective) / taken.objective.abs().max(f64::MIN_POSITIVE);
            if !tried.reused {
                state.damping = match taken.full {
                    true => state.damping / 3.0,
                    false => (state.damping * 4.0).max(FIRST_DAMPING),
                };
            }
            let chord_next = taken.full && (NEWTON_TOLERANCE..CHORD_BELOW).contains(&fall);
            state.chord = (chord_next && !secants).then_some(tried.at);
            (phase.x, sum) = (taken.x, taken.sum);
        }
        self.newton_factor = tried.factor.filter(|_| state.chord.is_some());
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

    /// The step of one iteration at the phase's values: the factor (fresh or reused), the
    /// step it gives and the line search along it; where the phase moves values by secants,
    /// the step found is checked exactly (`None` when that check fails).
    fn newton_step(&mut self, state: &mut NewtonState, phase: &Phase) -> Option<Tried> {
        let columns = self.secant_columns(phase);
        let kept = self.newton_factor.take();
        let jac = Linearized::new(self.dataset(), phase.linear, &columns);
        let q = self.real_evals(&jac, &phase.slots, &phase.x);
        let now = derivatives(self.dataset(), &q, self.k());
        let objective = now.sum + self.real_penalty(phase, &phase.x);
        let chord = state.chord.take();
        let reused = chord.is_some();
        let (factor, g, at) = match chord {
            Some((at, damping)) => {
                let g = self.pulled(phase, rows::gradient(&jac, &phase.slots, &now.slopes));
                let factor = kept.or_else(|| self.chord_factor(&jac, phase, &at, damping));
                (factor, g, (at, damping))
            }
            None => {
                let (factor, g) = self.fresh_factor(&jac, phase, &now, &mut state.damping);
                (factor, g, (state.values.clone(), state.damping))
            }
        };
        let step = factor.as_ref().map(|f| f.step(&g));
        let step = step.filter(|p| p.iter().zip(&g).map(|(p, g)| p * g).sum::<f64>() < 0.0);
        let mut taken = step.and_then(|p| self.line_search(&jac, phase, &q, objective, (p, g)));
        let mut hold_curves = false;
        if phase.linear < phase.slots.len() {
            if let Some(t) = taken {
                let promised = t.objective;
                let t = self.checked(phase, t, objective)?;
                hold_curves = objective - t.objective < FAITHFUL * (objective - promised);
                taken = Some(t);
            }
        }
        Some(Tried {
            hold_curves,
            taken,
            objective,
            sum_now: now.sum,
            reused,
            factor,
            at,
        })
    }

    /// Step `taken` with the values moved by secants rounded (their evaluations exist at
    /// whole values only) and its objective computed exactly, the positions rescored there;
    /// `None`, the positions as they were, when that objective does not fall below
    /// `objective`.
    fn checked(&mut self, phase: &Phase, mut taken: Taken, objective: f64) -> Option<Taken> {
        let before = self.params().clone();
        let mut params = before.clone();
        for k in phase.linear..phase.slots.len() {
            let slot = phase.slots[k];
            self.round_into(&mut params, slot, taken.x[k]);
            taken.x[k] = f64::from(params.values()[slot]);
        }
        let moved = params != before;
        if moved {
            self.set_params_unscored(params);
            self.refresh();
        }
        let (ds, k) = (self.dataset(), self.k());
        let own = &phase.slots[..phase.linear];
        let q = self.real_evals(ds, own, &taken.x[..phase.linear]);
        let sum = chunked_sum(ds.len(), |i| real_error(k, q[i], ds.target(i)));
        let value = sum + self.real_penalty(phase, &taken.x);
        if value < objective {
            (taken.sum, taken.objective) = (sum, value);
            return Some(taken);
        }
        if moved {
            self.set_params_unscored(before);
            self.refresh();
        }
        None
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
    fn fresh_factor<J: Jacobian>(
        &self,
        jac: &J,
        phase: &Phase,
        now: &Derivatives,
        damping: &mut f64,
    ) -> (Option<solve::Factor>, Vec<f64>) {
        let mut sys = rows::system(jac, &phase.slots, &now.slopes, &now.curvatures);
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

    /// The factor a chord step reuses when it was not kept from the iteration that took it
    /// (after a resume): the same one taken again at the real values `at` (by variable).
    fn chord_factor<J: Jacobian>(
        &self,
        jac: &J,
        phase: &Phase,
        at: &[f64],
        damping: f64,
    ) -> Option<solve::Factor> {
        let x: Vec<f64> = phase.vars.iter().map(|&j| at[j]).collect();
        let q = self.real_evals(jac, &phase.slots, &x);
        let then = derivatives(self.dataset(), &q, self.k());
        let sys = rows::system(jac, &phase.slots, &then.slopes, &then.curvatures);
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
    fn line_search<J: Jacobian>(
        &self,
        jac: &J,
        phase: &Phase,
        q: &[f64],
        objective: f64,
        (p, g): (Vec<f64>, Vec<f64>),
    ) -> Option<Taken> {
        let ds = self.dataset();
        let jp = rows::product(jac, &phase.slots, &p);
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
                    let shift = rows::product(jac, &phase.slots, &moved);
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
            changed += usize::from(self.round_into(&mut params, v.slot, x));
        }
        self.set_params_unscored(params);
        changed
    }

    /// Moves `slot` of `params` to `x` rounded, where its bounds and the declared
    /// constraints allow; whether it moved.
    fn round_into(&self, params: &mut M::Values, slot: usize, x: f64) -> bool {
        let target = x.round().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32;
        let allowed = !self.guards().constraints || params.allows_value(slot, target);
        let moves = target != params.values()[slot] && allowed && in_bounds(target);
        if moves {
            params.set_value(slot, target);
        }
        moves
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

/// What one iteration tried: the step taken (if any), the objective and summed error it
/// started from, whether its factor was reused, the factor and where it was taken.
struct Tried {
    /// The step moved values by secants, and their linearization promised far more than
    /// the exact objective gave: they are held from the next iteration on.
    hold_curves: bool,
    taken: Option<Taken>,
    objective: f64,
    sum_now: f64,
    reused: bool,
    factor: Option<solve::Factor>,
    at: (Vec<f64>, f64),
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
