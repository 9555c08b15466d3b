//! Gauss-Newton steps in real numbers: the values are floats while they move, the error is
//! that of the unrounded evaluation, and every iteration takes a full-batch damped
//! Gauss-Newton step (Levenberg-Marquardt).
//!
//! Inside the sigmoid an evaluation is linear in the values it reads through columns, so
//! the evaluation at real values is the cached one plus the Jacobian times the move
//! (`rows::product`), and the gradient and Hessian of the summed error are sums over the
//! positions' Jacobian rows (`hessian::system`). The Hessian is Gauss-Newton's: each
//! position's squared error curves by `2 σ'²` per centipawn², the part of the exact
//! curvature that never goes negative, so the matrix is positive semi-definite and the first
//! steps from a table far from its optimum are full ones (the exact Hessian, indefinite
//! there, needed ten times the iterations on texel's table). Positions far from a draw,
//! which curve by less than 3 % of the most, add only their diagonal to it (about half of
//! texel's positions, half a percent of the curvature; see `hessian::system`). Each iteration solves
//! `(H + μ·diag H) p = −g` (`solve::Factor`), then halves the step until the exact
//! error (plus the L2 pull) falls enough. The damping shrinks after a full step and grows
//! after a cut one. Near the optimum (a full step that lowered the objective by less than
//! 1 %) the next iterations reuse that factored Hessian, a gradient pass each,
//! until a step is cut; a checkpoint keeps where it was taken, so a resumed run takes the
//! same one again. The phase ends when an iteration lowers the objective by less than
//! [`NEWTON_TOLERANCE`] of itself ([`COMPOSED_NEWTON_TOLERANCE`] where the evaluation
//! composes inner sums; a step its line search cut short does not end it where tuned
//! values multiply: `iteration::ends_phase`), unless values a composed evaluation
//! leaves flat there (a square at a zero sum, a sum weighed by a weight at zero: king
//! safety started at zero) have a direction of negative curvature: then the values step
//! along it (`saddle`, also before the first iteration) and the iterations go on, at most
//! [`MAX_LIFTS`] times. The values are then rounded and polished on the integer
//! lattice (what the engine plays): a trace's by the rounds of `crate::polish` (the streamed
//! run's too), from the lattice point the phase's last factored Hessian leads the rounded
//! values to (`lattice`: the race trace's rounded error 0.03554221 becomes 0.03553845, its
//! real values' being 0.03553751), texel's table by coordinate descent from its values
//! rounded. Declared constraints hold
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

mod answered;
mod iterate;
mod iteration;
mod lattice;
mod saddle;
mod secant;

use crate::descent::NewtonState;
use crate::descent::{Descent, PassSummary};
use crate::error::{chunked_sum, real_sigmoid, CHUNK};
use crate::jacobian::{hessian, rows, Factor, Jacobian};
use crate::model::{Model, Values};
use crate::values::in_bounds;
use iterate::conclude;
pub use iterate::{iterate, Course, Iterated};
use iteration::Taken;
pub use iteration::{propose, Memory, Passes, Pull, Shape, FIRST_DAMPING};
pub use iteration::{COMPOSED_NEWTON_TOLERANCE, NEWTON_TOLERANCE};
pub use lattice::settle;
use rayon::prelude::*;
pub use saddle::MAX_LIFTS;
use secant::Linearized;
use std::convert::Infallible;

/// Newton's iterations in one phase at most (a run's pass limit may stop it sooner).
pub const MAX_ITERATIONS: u32 = 200;

/// A step that moves values by secants must bring at least this share of the fall the
/// linearization promised, or those values are held from the next iteration on.
const FAITHFUL: f64 = 0.75;

impl NewtonState {
    /// A fresh phase going on from these real values at another pull, as a path of pulls
    /// goes on from one pull's solution: no iteration or lift yet, the values moved by
    /// secants held where they stand if `held` (a coarse solve of the linear values alone)
    /// and free otherwise, the first step a chord step with the last Hessian where it was
    /// taken over the same values, linear in every one (factored again with the new pull's
    /// curvature: the neighbouring pull's optimum is near, and the Hessian barely changes),
    /// else a fresh one at the first damping. (A phase that moves values by secants takes
    /// its Hessian anew at every iteration, and keeps none.)
    pub fn restarted(self, held: bool) -> NewtonState {
        let warm = self.hessian_at.clone().filter(|_| self.curves_held == held);
        NewtonState {
            damping: warm.as_ref().map_or(FIRST_DAMPING, |w| w.1),
            iterations: 0,
            handed_over: false,
            chord: warm,
            curves_held: held,
            lifts: 0,
            ..self
        }
    }
}

/// The integer a real value rounds to, where it is a number whose rounding a value may
/// hold (`None`: the value keeps the integer it has). Every run's rounding of Newton's
/// values, in memory and streamed.
pub fn whole(x: f64) -> Option<i32> {
    let target = x.round().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32;
    (x.is_finite() && in_bounds(target)).then_some(target)
}

/// The unrounded error of every position at evaluations `q`: the sum, and each position's
/// slope and Gauss-Newton curvature of its squared error per centipawn.
pub struct Derivatives {
    /// The summed squared error.
    pub sum: f64,
    /// Each position's slope of its error per centipawn.
    pub slopes: Vec<f64>,
    /// Each position's Gauss-Newton curvature per centipawn squared.
    pub curvatures: Vec<f64>,
}

/// The squared error of an evaluation of `q` (real) centipawns for a position labelled `y`.
#[inline]
pub fn real_error(k: f64, q: f64, y: f64) -> f64 {
    let d = y - real_sigmoid(k, q);
    d * d
}

/// Every position's error at evaluations `q`, with its slope and curvature.
pub fn derivatives<M: Model>(model: &M, q: &[f64], k: f64) -> Derivatives {
    let c = k * std::f64::consts::LN_10 / 400.0;
    // Written in place: no list of pairs beside the two lists.
    let (mut slopes, mut curvatures) = (vec![0.0; q.len()], vec![0.0; q.len()]);
    (slopes.par_iter_mut().zip(&mut curvatures).enumerate())
        .with_min_len(CHUNK)
        .for_each(|(i, (slope, curvature))| {
            let (y, s) = (model.target(i), real_sigmoid(k, q[i]));
            let ds = c * s * (1.0 - s);
            (*slope, *curvature) = (-2.0 * (y - s) * ds, 2.0 * ds * ds);
        });
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

impl Phase {
    /// Whether the phase moves values by secants (the evaluation is not linear in them).
    fn secants(&self) -> bool {
        self.linear < self.slots.len()
    }

    /// `state` with its values and chord in the phase's order.
    fn narrowed(&self, state: &NewtonState) -> NewtonState {
        let by_phase = |at: &Vec<f64>| self.vars.iter().map(|&j| at[j]).collect();
        NewtonState {
            values: self.x.clone(),
            chord: (state.chord.as_ref()).map(|(at, d)| (by_phase(at), *d)),
            hessian_at: (state.hessian_at.as_ref()).map(|(at, d)| (by_phase(at), *d)),
            ..state.clone()
        }
    }

    /// `state` moved as `in_phase` (the phase's iteration) moved: the phase's values and
    /// chord at their variables, the others where they were.
    fn widen(&self, state: &mut NewtonState, in_phase: NewtonState) {
        let before = std::mem::take(&mut state.values);
        let by_variable = |at: Vec<f64>| {
            let mut all = before.clone();
            self.vars.iter().zip(at).for_each(|(&j, x)| all[j] = x);
            all
        };
        let chord = (in_phase.chord.clone()).map(|(at, d)| (by_variable(at), d));
        let hessian_at = (in_phase.hessian_at.clone()).map(|(at, d)| (by_variable(at), d));
        *state = NewtonState {
            values: by_variable(in_phase.values.clone()),
            chord,
            hessian_at,
            ..in_phase
        };
    }
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
            hessian_at: None,
            curves_held: false,
            lifts: 0,
        }
    }

    fn phase(&self, state: &NewtonState) -> Phase {
        let by_secants = |j: &usize| self.by_secants(self.variables()[*j].slot);
        let (others, mut vars): (Vec<usize>, Vec<usize>) =
            (0..self.variables().len()).partition(by_secants);
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

    /// One Newton iteration (see the module docs) over the phase's values: the one
    /// iteration of every run (`iterate`), or, where the phase moves values by secants,
    /// their step checked exactly before it is taken (a failed check holds those values
    /// and takes the iteration again without them). The run rescores the positions with
    /// the rounded values after it.
    pub fn newton_iteration(&mut self) -> PassSummary {
        let mut state = self.newton.take().unwrap_or_else(|| self.newton_start());
        let phase = self.phase(&state);
        let mut in_phase = phase.narrowed(&state);
        let mut factor = self.newton_factor.take();
        let course = Course {
            pull: self.pull(&phase),
            positions: self.dataset().len() as f64,
            chords: !phase.secants(),
        };
        let done = match phase.secants() {
            true => self.secant_iteration(&phase, &mut in_phase, &mut factor, &course),
            false => Some(self.answered_iteration(&phase, &mut in_phase, &mut factor, &course)),
        };
        let Some(done) = done else {
            (state.curves_held, state.damping) = (true, in_phase.damping);
            self.newton = Some(state);
            return self.newton_iteration();
        };
        phase.widen(&mut state, in_phase);
        // Where the phase ends, the lattice polish starts from the model's lattice point;
        // texel's table, polished by coordinate descent, from its values rounded.
        let lattice = self.dataset().lattice_polish();
        let before = self.params().values().to_vec();
        self.round_to(&state.values);
        if let Some(factor) = factor.as_ref().filter(|_| state.handed_over && lattice) {
            self.settle_by_model(&phase, factor, &state.values);
        }
        self.newton_factor = factor;
        let now = self.params().values();
        let changed = before.iter().zip(now).filter(|(a, b)| a != b).count();
        let error = state.error;
        self.newton = Some(state);
        PassSummary {
            fall: done.fall,
            error,
            moves: changed as u64,
            changed,
            probes: 0,
            lifted: done.lifted,
        }
    }

    /// The iteration of a phase whose values the positions answer for (`iterate`): by the
    /// evaluation's own exact answers where it gives them, else by its columns.
    fn answered_iteration(
        &self,
        phase: &Phase,
        state: &mut NewtonState,
        factor: &mut Option<Factor>,
        course: &Course,
    ) -> Iterated {
        let slots = &phase.slots;
        let done = match self.dataset().exact() {
            Some(exact) => {
                let mut passes = answered::Answered {
                    descent: self,
                    exact,
                    slots,
                };
                iterate(&mut passes, state, factor, course)
            }
            None => iterate(
                &mut CachedPasses::new(self, self.dataset(), slots),
                state,
                factor,
                course,
            ),
        };
        let Ok(done) = done;
        done
    }

    /// The iteration of a phase that moves values by secants: the step found over the
    /// linearized evaluation, checked exactly (`None` when that check fails), and those
    /// values held from the next iteration on when it brings too little of the fall it
    /// promised.
    fn secant_iteration(
        &mut self,
        phase: &Phase,
        state: &mut NewtonState,
        factor: &mut Option<Factor>,
        course: &Course,
    ) -> Option<Iterated> {
        let mut memory = Memory {
            damping: state.damping,
            chord: state.chord.take(),
            factor: factor.take(),
        };
        let columns = self.secant_columns(phase);
        let jac = Linearized::new(self.dataset(), phase.linear, &columns);
        let mut passes = CachedPasses::new(self, &jac, &phase.slots);
        let Ok(mut tried) = propose(&mut passes, &state.values, &course.pull, &mut memory);
        if let Some(t) = tried.taken.take() {
            let (objective, promised) = (tried.objective, t.objective);
            let Some(t) = self.checked(phase, t, objective) else {
                state.damping = memory.damping;
                return None;
            };
            state.curves_held |= objective - t.objective < FAITHFUL * (objective - promised);
            tried.taken = Some(t);
        }
        let (fall, _) = conclude(state, memory, tried, (course, Shape::default()), factor);
        Some(Iterated { fall, lifted: 0 })
    }

    /// The L2 pull of the phase's values.
    fn pull<'p>(&self, phase: &'p Phase) -> Pull<'p> {
        Pull {
            l2: self.guards().l2,
            anchor: &phase.anchor,
        }
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
        let pull = Pull {
            l2: self.guards().l2,
            anchor: &phase.anchor,
        };
        let value = sum + pull.penalty(&taken.x);
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

    /// Real values `x` of the slots `slots` moved into the declared constraints (the other
    /// values fixed at their integers), when the run keeps constraints.
    pub fn projected(&self, slots: &[usize], x: &[f64]) -> Vec<f64> {
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
    pub fn round_to(&mut self, values: &[f64]) -> usize {
        let mut params = self.params().clone();
        let mut changed = 0;
        for (v, &x) in self.variables().iter().zip(values) {
            changed += usize::from(self.round_into(&mut params, v.slot, x));
        }
        self.set_params_unscored(params);
        changed
    }

    /// The phase's values, rounded, moved down Newton's model where the phase ends
    /// ([`lattice::settle`]) within their bounds and the declared constraints.
    fn settle_by_model(&mut self, phase: &Phase, factor: &Factor, values: &[f64]) {
        let mut params = self.params().clone();
        let x: Vec<f64> = phase.vars.iter().map(|&j| values[j]).collect();
        let mut z: Vec<i32> = (phase.slots.iter()).map(|&s| params.values()[s]).collect();
        let constraints = self.guards().constraints;
        let mut allow = |k: usize, value: i32| {
            let slot = phase.slots[k];
            let ok = in_bounds(value) && (!constraints || params.allows_value(slot, value));
            if ok {
                params.set_value(slot, value);
            }
            ok
        };
        lattice::settle(factor, &x, &mut z, &mut allow);
        self.set_params_unscored(params);
    }

    /// Moves `slot` of `params` to `x` rounded, where its bounds and the declared
    /// constraints allow; whether it moved.
    fn round_into(&self, params: &mut M::Values, slot: usize, x: f64) -> bool {
        let Some(target) = whole(x) else {
            return false;
        };
        let allowed = !self.guards().constraints || params.allows_value(slot, target);
        let moves = target != params.values()[slot] && allowed;
        if moves {
            params.set_value(slot, target);
        }
        moves
    }

    /// Newton starts a fresh phase from where it is (at the current values when it has not
    /// begun), its factored Hessian dropped.
    pub fn restart_newton(&mut self) {
        self.restart_newton_holding(false);
    }

    /// [`Descent::restart_newton`], the values moved by secants held where they stand if
    /// `held`.
    pub(crate) fn restart_newton_holding(&mut self, held: bool) {
        let state = self.newton.take().unwrap_or_else(|| self.newton_start());
        self.newton = Some(state.restarted(held));
    }

    /// Whether some tuned value moves only by secants (a curve's input or a formula's
    /// weight of texel's table): then a solve with them held differs from a whole one.
    pub fn moves_by_secants(&self) -> bool {
        (self.variables().iter()).any(|v| self.by_secants(v.slot))
    }

    /// Whether Newton moves the value in `slot` by secants: one the evaluation is not
    /// linear in, where it gives no exact answers (an evaluation that does takes none).
    fn by_secants(&self, slot: usize) -> bool {
        self.dataset().exact().is_none() && !self.dataset().linear(slot)
    }

    /// Newton iterations taken.
    pub fn newton_iterations(&self) -> u64 {
        self.newton.as_ref().map_or(0, |s| s.iterations)
    }

    /// Whether Newton has handed over to the polish.
    pub fn newton_handed_over(&self) -> bool {
        self.newton.as_ref().is_some_and(|s| s.handed_over)
    }

    /// The mean error of the unrounded evaluation at Newton's (or Adam's) real values, once
    /// an iteration (or epoch) ran.
    pub fn real_error(&self) -> Option<f64> {
        let adam = self.adam.as_ref().and_then(|a| a.error);
        self.newton.as_ref().map(|s| s.error).or(adam)
    }

    /// Newton is done (converged, or stopped by the run): the polish goes on from
    /// the rounded values.
    pub fn hand_over_to_polish(&mut self) {
        let mut state = self.newton.take().unwrap_or_else(|| self.newton_start());
        state.handed_over = true;
        self.newton = Some(state);
    }
}

/// The positions in memory as Newton's passes: the evaluations at real values are the
/// cached ones plus the (linearized) Jacobian times the move from the integer values.
struct CachedPasses<'a, 'd, M: Model, J: Jacobian> {
    descent: &'a Descent<'d, M>,
    jac: &'a J,
    slots: &'a [usize],
    /// Every position's real evaluation at `x`, the values of the last system or gradient.
    q: Vec<f64>,
    x: Vec<f64>,
    /// The last direction searched and the Jacobian times it.
    along: Option<(Vec<f64>, Vec<f64>)>,
}

impl<'a, 'd, M: Model, J: Jacobian> CachedPasses<'a, 'd, M, J> {
    /// The passes of `descent`'s positions over the variables `slots`, served by `jac`.
    fn new(descent: &'a Descent<'d, M>, jac: &'a J, slots: &'a [usize]) -> Self {
        CachedPasses {
            descent,
            jac,
            slots,
            q: Vec::new(),
            x: Vec::new(),
            along: None,
        }
    }

    /// The derivatives at `x`, which become the values the searches start from.
    fn at(&mut self, x: &[f64]) -> Derivatives {
        self.q = self.descent.real_evals(self.jac, self.slots, x);
        self.x = x.to_vec();
        derivatives(self.descent.dataset(), &self.q, self.descent.k())
    }
}

impl<M: Model, J: Jacobian> Passes for CachedPasses<'_, '_, M, J> {
    type Error = Infallible;

    fn system(&mut self, x: &[f64]) -> Result<(f64, rows::System), Infallible> {
        let now = self.at(x);
        let sys = hessian::system(self.jac, self.slots, &now.slopes, &now.curvatures);
        Ok((now.sum, sys))
    }

    fn gradient(&mut self, x: &[f64]) -> Result<(f64, Vec<f64>), Infallible> {
        let now = self.at(x);
        Ok((now.sum, rows::gradient(self.jac, self.slots, &now.slopes)))
    }

    fn sums_along(&mut self, _: &[f64], p: &[f64], alphas: &[f64]) -> Result<Vec<f64>, Infallible> {
        if self.along.as_ref().is_none_or(|(d, _)| d != p) {
            self.along = Some((p.to_vec(), rows::product(self.jac, self.slots, p)));
        }
        let jp = &self.along.as_ref().expect("set above").1;
        let (ds, k, q) = (self.descent.dataset(), self.descent.k(), &self.q);
        let sum = |alpha: f64| {
            chunked_sum(ds.len(), |i| {
                real_error(k, q[i] + alpha * jp[i], ds.target(i))
            })
        };
        Ok(alphas.iter().map(|&alpha| sum(alpha)).collect())
    }

    fn sum_at(&mut self, y: &[f64]) -> Result<f64, Infallible> {
        let moved: Vec<f64> = y.iter().zip(&self.x).map(|(a, b)| a - b).collect();
        let shift = rows::product(self.jac, self.slots, &moved);
        let (ds, k, q) = (self.descent.dataset(), self.descent.k(), &self.q);
        Ok(chunked_sum(ds.len(), |i| {
            real_error(k, q[i] + shift[i], ds.target(i))
        }))
    }

    fn project(&self, x: &[f64]) -> Vec<f64> {
        self.descent.projected(self.slots, x)
    }

    fn lengths_per_pass(&self) -> usize {
        1
    }
}
