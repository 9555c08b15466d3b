//! Coordinate descent the Slow Chess way.
//!
//! A pass first walks every selected variable, probing one step up and one step down and
//! storing the better error reduction. It then keeps taking the variable with the largest
//! stored reduction, moves it while the error falls, and refreshes its stored reduction from
//! what the moving found (probing a step back only when that is not known). The pass ends
//! when no stored reduction is positive. Moves grow while they keep paying
//! (1, 2, 4, ... steps) and shrink back on a rise, so a value far from its optimum gets
//! there in a few probes; every value still ends where one step either way does not help.
//!
//! Probes are incremental: the [`Model`] recomputes only the positions a move touches,
//! and sums the error change in fixed blocks in position order, so results do not depend on
//! the number of threads. The descent knows nothing of whose evaluation it tunes.

use crate::error::{SigmoidTable, CHUNK};
use crate::jacobian::Factor;
use crate::model::{Model, Move, Values};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

mod memory;

pub use memory::Probed;
pub use memory::{AdamState, NewtonState};

/// The longest move of the descent, in steps.
pub const MAX_STRIDE: i32 = 64;

/// One variable of the descent: a flat parameter slot and its step.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    /// Flat parameter index.
    pub slot: usize,
    /// Step size.
    pub step: i32,
}

/// Where a pass is.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Cursor {
    /// A pass is under way.
    pub active: bool,
    /// Variables walked so far.
    pub walked: usize,
    /// Moves made so far in this pass.
    pub moves: u64,
    /// Which variables moved in this pass.
    pub moved: Vec<bool>,
    /// Probe count when the pass began.
    pub probes_at_start: u64,
    /// The mean training error when the pass began (checkpoints of older versions have
    /// none).
    #[serde(default)]
    pub error_at_start: Option<f64>,
}

/// What keeps a descent from fitting values to a handful of positions.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Guards {
    /// The L2 pull toward the start: moving a value 100 units away from where the run began
    /// costs as much summed squared error as `l2` positions that are wrong by a whole result
    /// (a value seen in few positions stays near its start; well-supported values move
    /// freely, and more data outweighs the pull as it should).
    pub l2: f64,
    /// Keep the table's declared orders and bounds (`rising`, `at_most 0`, ...): no move
    /// crosses one.
    pub constraints: bool,
}

/// The full state of a descent, for checkpoints.
#[derive(Clone, Debug, PartialEq)]
pub struct DescentState<V> {
    /// Current parameters.
    pub params: V,
    /// The parameters the run began with (the L2 pull's anchor).
    pub anchor: V,
    /// The guards of the run.
    pub guards: Guards,
    /// Summed error as tracked incrementally.
    pub sum: f64,
    /// Stored reduction and direction per variable.
    pub gains: Vec<(f64, i32)>,
    /// Probes made since the start.
    pub probes: u64,
    /// Where the current pass is.
    pub cursor: Cursor,
    /// Adam's memory, once an Adam epoch ran.
    pub adam: Option<AdamState>,
    /// Newton's real values and damping, once a Newton iteration ran.
    pub newton: Option<NewtonState>,
}

impl<V: Clone> DescentState<V> {
    /// A descent of `vars` variables that has not moved from `params` (the pull's anchor
    /// too), whose summed error is `sum` (NaN: not read yet), Newton not begun.
    pub fn starting(params: V, guards: Guards, sum: f64, vars: usize) -> Self {
        DescentState {
            sum,
            anchor: params.clone(),
            guards,
            params,
            gains: vec![(0.0, 0); vars],
            probes: 0,
            cursor: Cursor::default(),
            adam: None,
            newton: None,
        }
    }
}

/// What one pass did.
#[derive(Clone, Debug, PartialEq)]
pub struct PassSummary {
    /// Error at the end of the pass.
    pub error: f64,
    /// How much the pass lowered the error it minimises, as a share of that error at its
    /// start (infinite when the start is not known).
    pub fall: f64,
    /// Accepted moves.
    pub moves: u64,
    /// Distinct variables moved.
    pub changed: usize,
    /// Probes made.
    pub probes: u64,
    /// Values a Newton iteration stepped off a saddle after it converged with them flat
    /// (`newton::saddle`): the phase goes on from there.
    pub lifted: usize,
}

/// `(before − after) / before`, zero for a zero `before`.
pub fn relative_fall(before: f64, after: f64) -> f64 {
    match before {
        0.0 => 0.0,
        _ => (before - after) / before.abs(),
    }
}

/// What moving a variable found: the moves, the reduction one more step would bring
/// (`None` where a constraint forbids it), and whether a step back is known to rise.
struct Moved {
    moves: u64,
    further: Option<f64>,
    back_rises: bool,
}

/// The descent state over one dataset.
pub struct Descent<'a, M: Model> {
    ds: &'a mut M,
    params: M::Values,
    anchor: M::Values,
    guards: Guards,
    sigmoid: SigmoidTable,
    vars: Vec<Variable>,
    /// Stored reduction and direction per variable (coordinate descent), or the lattice
    /// polish's last probed change per variable (`crate::polish::round`).
    pub gains: Vec<(f64, i32)>,
    sum: f64,
    /// Squared error of every position under the current parameters.
    errors: Vec<f64>,
    /// What the model keeps between probes.
    cache: M::Cache,
    probes: u64,
    cursor: Cursor,
    /// Adam's memory (see [`crate::adam`]).
    pub adam: Option<AdamState>,
    /// Newton's memory (see [`crate::newton`]).
    pub newton: Option<NewtonState>,
    /// The factored Hessian Newton's chord steps reuse (not kept in checkpoints: taken
    /// again from [`NewtonState::chord`]).
    pub newton_factor: Option<Factor>,
    /// The polish's last probes, which the next round updates (see [`crate::Probes::probe_since`]).
    pub probed: Option<Probed>,
}

impl<M: Model + std::fmt::Debug> std::fmt::Debug for Descent<'_, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Descent")
            .field("variables", &self.variables().len())
            .field("dataset", self.dataset())
            .finish_non_exhaustive()
    }
}

impl<'a, M: Model> Descent<'a, M> {
    /// A descent over `vars`, starting from `params` (the dataset's cached evaluations must
    /// be those of `params`: see [`Model::rescore`]).
    pub fn new(ds: &'a mut M, params: M::Values, k: f64, vars: Vec<Variable>) -> Self {
        let gains = vec![(0.0, 0); vars.len()];
        let cache = ds.cache(&params);
        let mut d = Descent {
            ds,
            anchor: params.clone(),
            guards: Guards::default(),
            params,
            sigmoid: SigmoidTable::new(k),
            vars,
            gains,
            sum: 0.0,
            errors: Vec::new(),
            cache,
            probes: 0,
            cursor: Cursor::default(),
            adam: None,
            newton: None,
            newton_factor: None,
            probed: None,
        };
        d.reset_errors();
        d
    }

    /// The dataset being tuned.
    pub fn dataset(&self) -> &M {
        self.ds
    }

    /// The current parameters.
    pub fn params(&self) -> &M::Values {
        &self.params
    }

    /// Newton goes on from where it is with the pull `l2` (its anchor kept), a fresh phase:
    /// what a path of pulls does between its solves.
    pub fn repull(&mut self, l2: f64) {
        self.guards.l2 = l2;
        self.restart_newton();
    }

    /// [`Descent::repull`] with the values that move only by secants held where they stand
    /// ([`Descent::moves_by_secants`]): a coarse solve of the linear values alone, as a
    /// path walks its coarse steps.
    pub fn repull_held(&mut self, l2: f64) {
        self.guards.l2 = l2;
        self.restart_newton_holding(true);
    }

    /// Newton begins afresh at `params`: the positions rescored there, Newton's memory
    /// dropped (its next iteration takes a fresh Hessian); the anchor and guards kept.
    pub fn restart_at(&mut self, params: &M::Values) {
        self.params = params.clone();
        self.newton = None;
        self.newton_factor = None;
        self.probed = None;
        self.refresh();
    }

    /// The training targets moved to `targets` (one a position) and Newton begun afresh at
    /// `params` ([`Descent::restart_at`]): the positions scored once, for both.
    pub fn retarget_at(&mut self, targets: Vec<f32>, params: &M::Values) {
        self.ds.set_targets(targets);
        self.restart_at(params);
    }

    /// The training targets moved to `targets` (one a position): Newton starts again from
    /// the values the descent stands at, its errors those of the new targets.
    pub fn retarget(&mut self, targets: Vec<f32>) {
        self.ds.set_targets(targets);
        self.newton = None;
        self.newton_factor = None;
        self.refresh();
    }

    /// The same descent with `guards`, anchored where it stands now.
    pub fn guarded(mut self, guards: Guards) -> Self {
        self.guards = guards;
        self.anchor = self.params.clone();
        self
    }

    /// The current mean error, as tracked incrementally.
    pub fn error(&self) -> f64 {
        self.sum / self.ds.len() as f64
    }

    /// Bytes the descent keeps besides the dataset: every position's error and the buffers
    /// that combine a probe's touches.
    pub fn memory_bytes(&self) -> usize {
        8 * self.errors.capacity() + M::cache_bytes(&self.cache)
    }

    /// The `K` of the descent.
    pub fn k(&self) -> f64 {
        self.sigmoid.k()
    }

    /// The variables being tuned.
    pub fn variables(&self) -> &[Variable] {
        &self.vars
    }

    /// Change of the summed error if `slot` moved by `delta`.
    fn probe_sum(&mut self, slot: usize, delta: i32) -> f64 {
        let mv = Move {
            values: &self.params,
            slot,
            delta,
            sigmoid: &self.sigmoid,
        };
        self.ds.probe(&mut self.cache, mv, &self.errors)
    }

    /// Moves `slot` by `delta` for good, updating the touched positions.
    fn apply(&mut self, slot: usize, delta: i32, change: f64) {
        let mv = Move {
            values: &self.params,
            slot,
            delta,
            sigmoid: &self.sigmoid,
        };
        self.ds.apply(&mut self.cache, mv, &mut self.errors);
        self.params = self.params.moved(slot, delta);
        self.sum += change;
    }

    /// Recomputes every position's error and the total from the cached sums.
    fn reset_errors(&mut self) {
        let (ds, k) = (&*self.ds, &self.sigmoid);
        let n = ds.len();
        self.errors = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .flat_map_iter(|c| {
                (c * CHUNK..((c + 1) * CHUNK).min(n))
                    .map(move |i| k.squared_error(ds.eval(i), ds.target(i)))
            })
            .collect();
        self.sum = crate::error::chunked_sum(n, |i| self.errors[i]);
    }

    /// The change of the mean error if `var` moved by `delta` (nothing is changed).
    pub fn probe(&mut self, var: Variable, delta: i32) -> f64 {
        self.probe_sum(var.slot, delta) / self.ds.len() as f64
    }

    /// The guards of the descent.
    pub fn guards(&self) -> Guards {
        self.guards
    }

    /// Moves to `params` without scoring: the caller refreshes before anything reads the
    /// positions' evaluations or errors.
    pub fn set_params_unscored(&mut self, params: M::Values) {
        self.params = params;
    }

    /// The values the L2 pull draws toward.
    pub fn anchor(&self) -> &M::Values {
        &self.anchor
    }

    /// The summed error of the current values, as tracked.
    pub fn summed(&self) -> f64 {
        self.sum
    }

    /// Probes made since the start.
    pub fn probe_count(&self) -> u64 {
        self.probes
    }

    /// What a probe of the positions reads: the dataset, its cache, every position's
    /// squared error now, and the error function.
    pub fn probing(&mut self) -> (&M, &mut M::Cache, &[f64], &SigmoidTable) {
        (&*self.ds, &mut self.cache, &self.errors, &self.sigmoid)
    }

    /// The dataset and its probing state to make trial moves in and unmake (the caller
    /// refreshes before the descent reads the positions again), and the error function.
    pub fn trialing(&mut self) -> (&mut M, &mut M::Cache, &SigmoidTable) {
        (&mut *self.ds, &mut self.cache, &self.sigmoid)
    }

    /// How every position's unrounded evaluation moves if `slot` moved by `delta` (counted as
    /// a probe; nothing is changed): (position, centipawns), positions rising.
    pub fn eval_moves(&mut self, slot: usize, delta: i32) -> Vec<(u32, f64)> {
        let mv = Move {
            values: &self.params,
            slot,
            delta,
            sigmoid: &self.sigmoid,
        };
        self.probes += 1;
        self.ds.eval_moves(&mut self.cache, mv)
    }

    /// Counts `n` probes made outside the coordinate moves (gradient differences).
    pub fn count_probes(&mut self, n: u64) {
        self.probes += n;
    }

    /// Change of the L2 penalty if `slot` moved by `delta`.
    fn penalty_change(&self, slot: usize, delta: i32) -> f64 {
        if self.guards.l2 == 0.0 {
            return 0.0;
        }
        let away = f64::from(self.params.values()[slot] - self.anchor.values()[slot]);
        crate::l2::penalty_change(self.guards.l2, away, f64::from(delta))
    }

    /// Probes moving `v` by `delta`: the change of the summed error and of the objective
    /// (the error plus the L2 penalty), or `None` when the move would cross a constraint.
    fn probe_move(&mut self, v: Variable, delta: i32) -> Option<(f64, f64)> {
        let value = self.params.values()[v.slot] + delta;
        let allowed = !self.guards.constraints || self.params.allows_value(v.slot, value);
        if !allowed || !crate::values::in_bounds(value) {
            return None;
        }
        self.probes += 1;
        let change = self.probe_sum(v.slot, delta);
        Some((change, change + self.penalty_change(v.slot, delta)))
    }

    /// The better of one step up and one step down: (reduction of the objective, delta).
    fn best_step(&mut self, v: Variable) -> (f64, i32) {
        let mut best = (0.0, 0);
        for delta in [v.step, -v.step] {
            if let Some((_, objective)) = self.probe_move(v, delta) {
                if -objective > best.0 {
                    best = (-objective, delta);
                }
            }
        }
        best
    }

    /// Moves `v` in the direction of `delta` (one step) while the objective falls by more than
    /// `threshold`, with adaptive steps: each accepted move doubles the next (up to
    /// [`MAX_STRIDE`] steps), a rejected one halves it, and the moving ends when a single step
    /// is rejected, so the value ends at a local optimum under one step.
    fn move_while_better(&mut self, v: Variable, delta: i32, threshold: f64) -> Moved {
        let (mut stride, mut moves, mut last_single) = (1, 0, false);
        loop {
            // The stored reduction may be stale: other variables moved since it was probed.
            let probe = self.probe_move(v, stride * delta);
            match probe {
                Some((error, objective)) if -objective > threshold => {
                    self.apply(v.slot, stride * delta, error);
                    (moves, last_single) = (moves + 1, stride == 1);
                    stride = (stride * 2).min(MAX_STRIDE);
                }
                _ if stride > 1 => stride /= 2,
                _ => {
                    return Moved {
                        moves,
                        further: probe.map(|(_, objective)| -objective),
                        back_rises: last_single,
                    }
                }
            }
        }
    }

    /// The stored reduction of `v` after [`Descent::move_while_better`] in the direction of
    /// `delta`: a step further is known from its last probe; a step back is known to rise
    /// when the last move was a single step (it is that move undone), and probed otherwise.
    fn gain_after(&mut self, v: Variable, delta: i32, moved: &Moved) -> (f64, i32) {
        let mut best = match moved.further {
            Some(reduction) if reduction > 0.0 => (reduction, delta),
            _ => (0.0, 0),
        };
        if !moved.back_rises {
            if let Some((_, objective)) = self.probe_move(v, -delta) {
                if -objective > best.0 {
                    best = (-objective, -delta);
                }
            }
        }
        best
    }

    /// Runs a pass, or the rest of an interrupted one (see the module docs). `hook` is called
    /// at every safe point (after each variable of the walk, after each variable's moves);
    /// when `interrupt` is raised there, after the hook, the pass stops and returns `None`, and
    /// [`Descent::state`] holds everything needed to go on exactly where it stopped.
    pub fn pass(
        &mut self,
        interrupt: &AtomicBool,
        hook: &mut dyn FnMut(&Descent<M>),
    ) -> Option<PassSummary> {
        if !self.cursor.active {
            self.cursor = Cursor {
                active: true,
                walked: 0,
                moves: 0,
                moved: vec![false; self.vars.len()],
                probes_at_start: self.probes,
                error_at_start: Some(self.error()),
            };
        }
        while self.cursor.walked < self.vars.len() {
            let i = self.cursor.walked;
            self.gains[i] = self.best_step(self.vars[i]);
            self.cursor.walked += 1;
            hook(self);
            if interrupt.load(Ordering::SeqCst) {
                return None;
            }
        }
        // The same threshold as `pending`.
        let threshold = |sum: f64| sum.abs() * 1e-14;
        while let Some(i) = self
            .largest_gain()
            .filter(|&i| self.gains[i].0 > threshold(self.sum))
        {
            let (v, delta) = (self.vars[i], self.gains[i].1);
            let moved = self.move_while_better(v, delta, threshold(self.sum));
            if moved.moves > 0 {
                self.cursor.moves += moved.moves;
                self.cursor.moved[i] = true;
            }
            self.gains[i] = self.gain_after(v, delta, &moved);
            hook(self);
            if interrupt.load(Ordering::SeqCst) {
                return None;
            }
        }
        self.cursor.active = false;
        let (start, error) = (self.cursor.error_at_start, self.error());
        Some(PassSummary {
            error,
            fall: start.map_or(f64::INFINITY, |start| relative_fall(start, error)),
            moves: self.cursor.moves,
            changed: self.cursor.moved.iter().filter(|&&m| m).count(),
            probes: self.probes - self.cursor.probes_at_start,
            lifted: 0,
        })
    }

    /// How far the current pass is: variables walked and moves made.
    pub fn progress(&self) -> (usize, u64) {
        (self.cursor.walked, self.cursor.moves)
    }

    /// Variables whose stored gain still asks for a move: after the walk, the pass goes on
    /// until none is left.
    pub fn pending(&self) -> usize {
        let threshold = self.sum.abs() * 1e-14;
        self.gains.iter().filter(|g| g.0 > threshold).count()
    }

    /// Everything needed to continue exactly from here (see [`Descent::resume`]).
    pub fn state(&self) -> DescentState<M::Values> {
        DescentState {
            params: self.params.clone(),
            anchor: self.anchor.clone(),
            guards: self.guards,
            sum: self.sum,
            gains: self.gains.clone(),
            probes: self.probes,
            cursor: self.cursor.clone(),
            adam: self.adam.clone(),
            newton: self.newton.clone(),
        }
    }

    /// A descent that continues from `state`. The dataset's cached evaluations must be
    /// those of `state.params`; `vars` and `k` must be those of the run that saved the state.
    pub fn resume(
        ds: &'a mut M,
        state: DescentState<M::Values>,
        k: f64,
        vars: Vec<Variable>,
    ) -> Self {
        let mut d = Descent::new(ds, state.params, k, vars);
        d.anchor = state.anchor;
        d.guards = state.guards;
        d.sum = state.sum;
        d.gains = state.gains;
        d.probes = state.probes;
        d.cursor = state.cursor;
        d.adam = state.adam;
        d.newton = state.newton;
        d
    }

    /// The variable with the largest stored reduction (the first of equals).
    fn largest_gain(&self) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (i, g) in self.gains.iter().enumerate() {
            if g.0 > 0.0 && best.is_none_or(|b| g.0 > self.gains[b].0) {
                best = Some(i);
            }
        }
        best
    }

    /// Recomputes every evaluation with the current parameters and the error from scratch
    /// (drops any drift of the incremental sum).
    pub fn refresh(&mut self) -> f64 {
        self.ds.refresh(&mut self.cache, &self.params);
        self.reset_errors();
        self.error()
    }
}
