//! Newton's integer polish of a trace, written once for positions in memory and positions
//! streamed from a file (texel's own table, always in memory, polishes by coordinate
//! descent: see [`crate::Probes::lattice_polish`]).
//!
//! Newton's real values, rounded, are near the optimum of the integer lattice (what the
//! engine plays) but not at it. A polish round reads the positions once to probe and then
//! a few times to score trials. The first reading
//! probes every tuned value one step up and one step down: the exact change of the summed
//! error of the rounded evaluations, to which the L2 pull's change is added; each value keeps
//! its better move where that gains, and the moves are ordered by gain (ties by slot). Moves
//! interact (values that count in the same positions), so the next reading scores all the
//! moves made together, the better half of them, the better quarter, ... the best one alone,
//! and takes the set whose objective is lowest, if it is below where the round stands; the
//! next reading tries the moves left the same way on top of those taken (a reading that finds
//! nothing better drops the best move left), up to `TRIAL_READINGS` readings; where the
//! positions compose inner sums, a reading after the first tries at most twice the moves
//! the one before took (`Widest`). A move alone
//! gains what its probe said, so a round moves something while any probe gains; the run
//! ends the polish after a round that gains less than its tolerance
//! (`texel_tune::LATTICE_POLISH_TOLERANCE` of the error), or when a round moves nothing (a
//! tolerance of 0: where no single step gains). Declared constraints hold: a move is
//! kept only where the values with the better moves before it made allow it.
//!
//! A round probes first only the values whose last probe was among the better quarter
//! (`screened`; each value's last change is kept with the run's state, so a resumed run
//! probes as the uninterrupted one), and every value only when those move nothing: a round
//! that moves nothing has probed every value, and a polish to the end ends where no
//! single step gains, as before, in a quarter of the probes a round.
//!
//! The readings are a [`Lattice`]: [`Descent::polish_round`] reads the positions in memory,
//! the streamed tune reads them chunk by chunk, and both score them through the same
//! functions of one dataset ([`probe_changes`], [`trial_sums`], [`summed_error`]), so a
//! problem tuned either way ends at the same values. A probe counts each position's change
//! in whole error units ([`crate::error::ERROR_UNITS`]), so its sum is the same in any
//! order: in memory, a round's probes are the last round's updated over the positions its
//! moves changed where the model keeps them ([`crate::Probes::probe_since`]: a trace linear in
//! every value, a few moves), and are those of a full reading to the last bit. A trial of
//! linear moves reads only the positions they move.

use crate::descent::{relative_fall, Descent, PassSummary, Probed, Variable};
use crate::error::{chunked_sum, error_units, SigmoidTable, ERROR_UNITS};
use crate::model::{Model, Move, Values};
use crate::values::in_bounds;
use rayon::prelude::*;

/// Readings of trials a round takes at most after its probes: each takes the best prefix
/// of the moves left (or drops the first, which no longer gains alone).
const TRIAL_READINGS: usize = 8;

/// The moves a round scores together: their slots and deltas, the best first.
pub type Moves = [(usize, i32)];

/// The two readings of the positions a polish round takes.
pub trait Lattice<V> {
    /// Why a reading failed.
    type Error;

    /// The change of the summed training error for each of `moves` made alone from
    /// `values`, in order.
    fn probes(&mut self, values: &V, moves: &Moves) -> Result<Vec<f64>, Self::Error>;

    /// The summed training error with the first `size` of `moves` made from `values`, for
    /// each size of `sizes`.
    fn trials(
        &mut self,
        values: &V,
        moves: &Moves,
        sizes: &[usize],
    ) -> Result<Vec<f64>, Self::Error>;

    /// Whether the positions compose inner sums, where moves that gain alone rarely gain
    /// together: a round's later readings then try fewer of them at once (`Widest`).
    fn composes(&self) -> bool {
        false
    }
}

/// How many of the moves left a reading's widest trial makes: all of them, or, where the
/// positions compose inner sums, all at the first reading and after it at most twice what
/// the reading before took (at least two). On Stash's problem of `reports/nonlinear/` the
/// first reading took 3 of 498 moves and the seven after it one or none each; each of them
/// scored 498 moves, half, a quarter, ... (1.8 s of the round's 2.6 s), where twice what the
/// last one took suffices (0.7 s, the same values file).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Widest {
    /// Every reading as wide as the moves left.
    Every,
    /// At most this many.
    Near(usize),
}

impl Widest {
    /// The first reading's: every move left.
    fn first(composes: bool) -> Widest {
        match composes {
            true => Widest::Near(usize::MAX),
            false => Widest::Every,
        }
    }

    /// The widest trial of a reading with `left` moves left.
    fn of(self, left: usize) -> usize {
        match self {
            Widest::Every => left,
            Widest::Near(most) => left.min(most),
        }
    }

    /// The next reading's, after one that took `took` moves (1 where it dropped one).
    fn after(self, took: usize) -> Widest {
        match self {
            Widest::Every => Widest::Every,
            Widest::Near(most) => Widest::Near(most.min(2 * took.max(1))),
        }
    }
}

/// What a polish minimises besides the error: the L2 pull toward `anchor`, and whether
/// the declared constraints hold.
pub struct Objective<'a, V> {
    /// The values the run began with.
    pub anchor: &'a V,
    /// The L2 pull (see [`crate::Guards::l2`]).
    pub l2: f64,
    /// Keep the declared constraints.
    pub constraints: bool,
}

impl<V: Values> Objective<'_, V> {
    /// The pull of `values` over the slots of `vars`.
    fn pull(&self, values: &V, vars: &[Variable]) -> f64 {
        if self.l2 == 0.0 {
            return 0.0;
        }
        let (now, anchor) = (values.values(), self.anchor.values());
        let away = |s: usize| f64::from(now[s] - anchor[s]);
        let squares = vars
            .iter()
            .map(|v| away(v.slot) * away(v.slot))
            .sum::<f64>();
        crate::l2::penalty(self.l2, squares)
    }

    /// How the pull changes if `slot` moves by `delta` from `values`.
    fn pull_change(&self, values: &V, slot: usize, delta: i32) -> f64 {
        let away = f64::from(values.values()[slot] - self.anchor.values()[slot]);
        crate::l2::penalty_change(self.l2, away, f64::from(delta))
    }
}

/// A round that moved values.
#[derive(Clone, Debug, PartialEq)]
pub struct Round<V> {
    /// The values after it.
    pub values: V,
    /// Their summed training error.
    pub sum: f64,
    /// Values moved.
    pub moved: usize,
}

/// One polish round of `vars` from `values`, whose summed training error is `sum`; `None`
/// when no move lowers the objective. `last` holds each variable's last probed change of
/// the objective (its better move's, with that move's sign; a sign of 0: not probed yet),
/// which the round updates: the round probes the variables `screened` picks first, and
/// every variable only when those move nothing, so a round that moves nothing has probed
/// them all.
///
/// # Errors
/// A reading of the positions failed.
pub fn round<V: Values, L: Lattice<V>>(
    lattice: &mut L,
    (values, sum): (&V, f64),
    vars: &[Variable],
    objective: &Objective<V>,
    last: &mut [(f64, i32)],
) -> Result<Option<Round<V>>, L::Error> {
    // A round stopped part-way (a reading's error: an interrupt) leaves `last` as it was,
    // so the round a resume makes probes what the unbroken run's did.
    let mut probed = last.to_vec();
    let done = screened_round(lattice, (values, sum), vars, objective, &mut probed)?;
    last.copy_from_slice(&probed);
    Ok(done)
}

/// [`round`], writing `last` as it goes.
fn screened_round<V: Values, L: Lattice<V>>(
    lattice: &mut L,
    (values, sum): (&V, f64),
    vars: &[Variable],
    objective: &Objective<V>,
    last: &mut [(f64, i32)],
) -> Result<Option<Round<V>>, L::Error> {
    let first = screened(last);
    if first.len() < vars.len() {
        let done = attempt(lattice, (values, sum), (vars, &first), objective, last)?;
        if done.is_some() {
            return Ok(done);
        }
    }
    let all: Vec<usize> = (0..vars.len()).collect();
    attempt(lattice, (values, sum), (vars, &all), objective, last)
}

/// The variables a round probes first: those not probed yet, and those whose last change
/// is in the better quarter of the others'. The values that gain come mostly from there
/// (on the race trace, after the first round, from the better half of the round before,
/// most from the better tenth), and a probe reading of every value is most of a round's
/// time. Measured (the race trace; Stash's problem of `reports/nonlinear/`): every value
/// 15.4–16.3 s, 0.03553542 and 32.7–38.6 s, 0.10631816; the better half 14.0 s,
/// 0.03553497 and 28.1 s, 0.10631772; the better quarter 14.0 s, 0.03553556 and 20.7 s,
/// 0.10631783; the better tenth 11.5 s, 0.03553569 and 12.4 s, 0.10631831 (higher than
/// every value's end).
fn screened(last: &[(f64, i32)]) -> Vec<usize> {
    let mut known: Vec<f64> = (last.iter().filter(|l| l.1 != 0)).map(|l| l.0).collect();
    if known.is_empty() {
        return (0..last.len()).collect();
    }
    known.sort_by(f64::total_cmp);
    let quartile = known[(known.len() - 1) / 4];
    (0..last.len())
        .filter(|&j| last[j].1 == 0 || last[j].0 <= quartile)
        .collect()
}

/// A round over the variables `which` of `vars`: their probes (written to `last`), then
/// the trials of the moves that gain.
fn attempt<V: Values, L: Lattice<V>>(
    lattice: &mut L,
    (values, sum): (&V, f64),
    (vars, which): (&[Variable], &[usize]),
    objective: &Objective<V>,
    last: &mut [(f64, i32)],
) -> Result<Option<Round<V>>, L::Error> {
    let asked: Vec<(usize, i32)> = (which.iter())
        .flat_map(|&j| [(vars[j].slot, vars[j].step), (vars[j].slot, -vars[j].step)])
        .collect();
    let changes = lattice.probes(values, &asked)?;
    for (n, &j) in which.iter().enumerate() {
        let of = |m: usize| changes[m] + objective.pull_change(values, asked[m].0, asked[m].1);
        let (up, down) = (of(2 * n), of(2 * n + 1));
        last[j] = if up <= down { (up, 1) } else { (down, -1) };
    }
    let mut remaining = gaining(values, &asked, &changes, objective);
    // The moves taken so far and their summed error; trials are always scored from
    // `values`, where the positions are.
    let (mut taken, mut taken_sum) = (Vec::new(), sum);
    let mut widest = Widest::first(lattice.composes());
    for _ in 0..TRIAL_READINGS {
        if remaining.is_empty() {
            break;
        }
        let sizes: Vec<usize> = (prefix_sizes(widest.of(remaining.len())).into_iter())
            .map(|size| taken.len() + size)
            .collect();
        let list = [taken.as_slice(), remaining.as_slice()].concat();
        let sums = lattice.trials(values, &list, &sizes)?;
        let mut best: Option<(f64, usize)> = None;
        let now = taken_sum + objective.pull(&moved(values, &taken), vars);
        for (t, &size) in sizes.iter().enumerate() {
            let value = sums[t] + objective.pull(&moved(values, &list[..size]), vars);
            if value < best.map_or(now, |b| b.0) {
                best = Some((value, t));
            }
        }
        // Without a better trial, the best move left no longer gains alone: it is dropped.
        let more = best.map_or(1, |(_, t)| sizes[t] - taken.len());
        widest = widest.after(more);
        if let Some((_, t)) = best {
            (taken, taken_sum) = (list[..sizes[t]].to_vec(), sums[t]);
        }
        remaining = allowed(&moved(values, &taken), &remaining[more..], objective);
    }
    Ok((!taken.is_empty()).then(|| Round {
        values: moved(values, &taken),
        sum: taken_sum,
        moved: taken.len(),
    }))
}

/// The moves of `asked` whose objective `changes` gain, a value's better one only, the
/// largest gain first (ties by slot), each in bounds and, when constraints hold, allowed
/// by the values with the moves before it made.
fn gaining<V: Values>(
    values: &V,
    asked: &Moves,
    changes: &[f64],
    objective: &Objective<V>,
) -> Vec<(usize, i32)> {
    let mut gains: Vec<(f64, usize, i32)> = Vec::new();
    for (&(slot, delta), &change) in asked.iter().zip(changes) {
        let change = change + objective.pull_change(values, slot, delta);
        if change < 0.0 && in_bounds(values.values()[slot] + delta) {
            gains.push((change, slot, delta));
        }
    }
    gains.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut seen = std::collections::HashSet::new();
    let better: Vec<(usize, i32)> = (gains.into_iter())
        .filter(|g| seen.insert(g.1))
        .map(|g| (g.1, g.2))
        .collect();
    allowed(values, &better, objective)
}

/// The moves of `moves`, in order, that the declared constraints allow from `values` with
/// the kept moves before each made (all of them when constraints do not hold).
fn allowed<V: Values>(values: &V, moves: &Moves, objective: &Objective<V>) -> Vec<(usize, i32)> {
    if !objective.constraints {
        return moves.to_vec();
    }
    let (mut at, mut kept) = (values.clone(), Vec::new());
    for &(slot, delta) in moves {
        let value = at.values()[slot] + delta;
        if at.allows_value(slot, value) {
            at.set_value(slot, value);
            kept.push((slot, delta));
        }
    }
    kept
}

/// How many of the best moves each trial of a round makes: all of `n`, half, a quarter,
/// ... one.
fn prefix_sizes(n: usize) -> Vec<usize> {
    std::iter::successors(Some(n), |&s| Some(s / 2))
        .take_while(|&s| s > 0)
        .collect()
}

/// `values` with every move of `moves` made.
fn moved<V: Values>(values: &V, moves: &Moves) -> V {
    let mut out = values.clone();
    for &(slot, delta) in moves {
        out.set_value(slot, out.values()[slot] + delta);
    }
    out
}

/// The summed squared error of `ds`'s rounded evaluations as they are cached.
pub fn summed_error<M: Model>(ds: &M, table: &SigmoidTable) -> f64 {
    chunked_sum(ds.len(), |i| table.squared_error(ds.eval(i), ds.target(i)))
}

/// The change of `ds`'s summed error for each of `moves` made alone from `values` (at
/// which `ds` is scored; `errors` its positions' squared errors there). Given `before`
/// (the same moves probed at the scoring before `ds`'s last), a move `ds` can update over
/// the positions its last scoring changed is updated, the others probed anew together
/// ([`crate::Probes::probe_each`]: a linear dataset reads each block once for all of them): the
/// changes are the same either way.
pub fn probe_changes<M: Model>(
    ds: &M,
    cache: &mut M::Cache,
    (values, errors): (&M::Values, &[f64]),
    (moves, before): (&Moves, Option<&Probed>),
    sigmoid: &SigmoidTable,
) -> Vec<f64> {
    let each = |&mv: &(usize, i32)| Move::of(values, mv, sigmoid);
    let updated = |n: usize, m| {
        let b = before?;
        ds.probe_since(each(m), errors, (b.scoring, b.changes[n]))
    };
    let mut changes: Vec<Option<f64>> = (moves.iter().enumerate())
        .map(|(n, m)| updated(n, m))
        .collect();
    let afresh: Vec<usize> = (0..moves.len()).filter(|&n| changes[n].is_none()).collect();
    let asked: Vec<(usize, i32)> = afresh.iter().map(|&n| moves[n]).collect();
    let read = ds.probe_each(cache, (values, &asked), sigmoid, errors);
    for (&n, change) in afresh.iter().zip(read) {
        changes[n] = Some(change);
    }
    changes.into_iter().flatten().collect()
}

/// `ds`'s summed error with the first `size` of `moves` made from `values` (at which `ds`
/// is scored), for each of `sizes`. Where every moved value is linear, a trial moves the
/// cached evaluations by the Jacobian and reads only the positions it moves (their change
/// counted in whole error units, added to the summed error now); otherwise the moves are
/// made one after another, each over the positions it moves, and unmade after the largest
/// trial ([`made_trials`]). `ds` is left scored at `values`.
pub fn trial_sums<M: Model>(
    (ds, cache): (&mut M, &mut M::Cache),
    values: &M::Values,
    moves: &Moves,
    sizes: &[usize],
    table: &SigmoidTable,
) -> Vec<f64> {
    let linear = ds.exact().is_none() && moves.iter().all(|m| ds.linear(m.0));
    if !linear {
        let largest_made = made_sizes(&*ds, moves, sizes);
        return made_trials((ds, cache), (values, moves), (sizes, largest_made), table);
    }
    let now = summed_error(ds, table);
    let ds = &*ds;
    let parts: Vec<Vec<i64>> = (0..ds.row_blocks())
        .into_par_iter()
        .map(|b| block_trials(ds, b, moves, sizes, table))
        .collect();
    (0..sizes.len())
        .map(|t| now + parts.iter().map(|p| p[t]).sum::<i64>() as f64 / ERROR_UNITS)
        .collect()
}

/// [`trial_sums`] of moves that are not all linear. The trials of up to `largest_made`
/// moves make them for good in turn (the positions each reaches, their evaluations and
/// errors), read the summed error where a trial's moves are made, and unmake them in
/// reverse order; the larger ones score every position anew, after which `ds` is scored
/// at `values` again. [`trial_sums`] draws the line where it costs least ([`made_sizes`]).
pub fn made_trials<M: Model>(
    (ds, cache): (&mut M, &mut M::Cache),
    (values, moves): (&M::Values, &Moves),
    (sizes, largest_made): (&[usize], usize),
    table: &SigmoidTable,
) -> Vec<f64> {
    let made = |size: usize| size <= largest_made;
    let mut sums = vec![0.0; sizes.len()];
    let mut errors: Vec<f64> = (0..ds.len())
        .map(|i| table.squared_error(ds.eval(i), ds.target(i)))
        .collect();
    let mut at = values.clone();
    let mut step = |(ds, errors): (&mut M, &mut [f64]), at: &mut M::Values, (slot, delta)| {
        let mv = Move {
            values: &*at,
            slot,
            delta,
            sigmoid: table,
        };
        ds.apply(cache, mv, errors);
        at.set_value(slot, at.values()[slot] + delta);
    };
    for (n, &m) in moves[..largest_made].iter().enumerate() {
        step((ds, &mut errors), &mut at, m);
        for (t, _) in sizes.iter().enumerate().filter(|s| *s.1 == n + 1) {
            sums[t] = chunked_sum(ds.len(), |i| errors[i]);
        }
    }
    for &(slot, delta) in moves[..largest_made].iter().rev() {
        step((ds, &mut errors), &mut at, (slot, -delta));
    }
    let scored: Vec<usize> = (0..sizes.len()).filter(|&t| !made(sizes[t])).collect();
    for &t in &scored {
        ds.rescore(&moved(values, &moves[..sizes[t]]));
        sums[t] = summed_error(ds, table);
    }
    if !scored.is_empty() {
        ds.rescore(values);
    }
    sums
}

/// The largest of `sizes` whose trials [`made_trials`] makes move by move (0: none): the
/// one that costs least, a move made and unmade costing twice the positions it reaches and a
/// trial scored anew every position (and one more scoring back when there is one).
pub fn made_sizes<M: Model>(ds: &M, moves: &Moves, sizes: &[usize]) -> usize {
    let mut ascending = sizes.to_vec();
    ascending.sort_unstable();
    let (n, mut reached, mut done) = (ds.len(), 0usize, 0usize);
    let scored = |left: usize| n * (left + usize::from(left > 0));
    let mut best = (scored(sizes.len()), 0);
    for (k, &size) in ascending.iter().enumerate() {
        reached += moves[done..size]
            .iter()
            .map(|m| ds.reach(m.0))
            .sum::<usize>();
        done = size;
        let cost = 2 * reached + scored(sizes.len() - k - 1);
        if cost < best.0 {
            best = (cost, size);
        }
    }
    best.1
}

/// For each of `sizes`, the change of block `b`'s summed error (error units) with the
/// first `size` of the linear `moves` made.
fn block_trials<M: Model>(
    ds: &M,
    b: usize,
    moves: &Moves,
    sizes: &[usize],
    table: &SigmoidTable,
) -> Vec<i64> {
    let (start, len) = ds.block_span(b);
    let slots: Vec<usize> = moves.iter().map(|m| m.0).collect();
    let direction: Vec<f64> = moves.iter().map(|m| f64::from(m.1)).collect();
    let mut q = vec![0.0; len];
    let each = sizes.iter().map(|&size| {
        q.iter_mut().for_each(|x| *x = 0.0);
        ds.block_product(b, &slots[..size], &direction[..size], &mut q);
        let mut change = 0;
        for (j, &moved) in q.iter().enumerate().filter(|(_, &m)| m != 0.0) {
            let (i, target) = (start + j, ds.target(start + j));
            let new = crate::values::centipawns(ds.exact_eval(i) + moved);
            let was = table.squared_error(ds.eval(i), target);
            change += error_units(table.squared_error(new, target) - was);
        }
        change
    });
    each.collect()
}

impl<M: Model> Lattice<M::Values> for Descent<'_, M> {
    type Error = std::convert::Infallible;

    fn probes(&mut self, values: &M::Values, moves: &Moves) -> Result<Vec<f64>, Self::Error> {
        self.count_probes(moves.len() as u64);
        let before = self.probed.take().filter(|b| b.moves == moves);
        let (ds, cache, errors, table) = self.probing();
        let changes = probe_changes(ds, cache, (values, errors), (moves, before.as_ref()), table);
        self.probed = Some(Probed {
            scoring: self.dataset().scorings(),
            moves: moves.to_vec(),
            changes: changes.clone(),
        });
        Ok(changes)
    }

    fn trials(
        &mut self,
        values: &M::Values,
        moves: &Moves,
        sizes: &[usize],
    ) -> Result<Vec<f64>, Self::Error> {
        let (ds, cache, table) = self.trialing();
        Ok(trial_sums((ds, cache), values, moves, sizes, table))
    }

    fn composes(&self) -> bool {
        self.dataset().exact().is_some()
    }
}

impl<M: Model> Descent<'_, M> {
    /// One round of Newton's integer polish from the current values (see the module's
    /// page); the positions are scored anew at its end.
    pub fn polish_round(&mut self) -> PassSummary {
        let (before, probes) = (self.error(), self.probe_count());
        let guards = self.guards();
        let (values, anchor) = (self.params().clone(), self.anchor().clone());
        let objective = Objective {
            anchor: &anchor,
            l2: guards.l2,
            constraints: guards.constraints,
        };
        let vars = self.variables().to_vec();
        let sum = self.summed();
        // The lattice polish keeps each variable's last change where coordinate descent
        // keeps its gains (a run polishes one way).
        let mut last = std::mem::take(&mut self.gains);
        let Ok(done) = round(self, (&values, sum), &vars, &objective, &mut last);
        self.gains = last;
        let moved = done.as_ref().map_or(0, |r| r.moved);
        if let Some(done) = done {
            self.set_params_unscored(done.values);
        }
        let error = self.refresh();
        PassSummary {
            error,
            fall: relative_fall(before, error),
            moves: moved as u64,
            changed: moved,
            probes: self.probe_count() - probes,
            lifted: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A summed error that is a quadratic of the values with one interaction (two values
    /// that count together): `Σ (v − target)² + 3 (v₀ + v₁ − 4)²`.
    struct Bowl {
        target: Vec<i32>,
    }

    impl Bowl {
        fn sum(&self, v: &[i32]) -> f64 {
            let own: f64 = (v.iter().zip(&self.target))
                .map(|(&a, &t)| f64::from((a - t) * (a - t)))
                .sum();
            own + 3.0 * f64::from((v[0] + v[1] - 4) * (v[0] + v[1] - 4))
        }
    }

    impl Lattice<Vec<i32>> for Bowl {
        type Error = ();

        fn probes(&mut self, values: &Vec<i32>, moves: &Moves) -> Result<Vec<f64>, ()> {
            let now = self.sum(values);
            let each = moves
                .iter()
                .map(|&(s, d)| self.sum(&moved(values, &[(s, d)])) - now);
            Ok(each.collect())
        }

        fn trials(&mut self, v: &Vec<i32>, moves: &Moves, sizes: &[usize]) -> Result<Vec<f64>, ()> {
            Ok(sizes
                .iter()
                .map(|&n| self.sum(&moved(v, &moves[..n])))
                .collect())
        }
    }

    fn vars(n: usize) -> Vec<Variable> {
        (0..n).map(|slot| Variable { slot, step: 1 }).collect()
    }

    /// The lattice point no single step improves, from `values`, and the rounds taken.
    fn polished(
        bowl: &mut Bowl,
        mut values: Vec<i32>,
        objective: &Objective<Vec<i32>>,
    ) -> (Vec<i32>, u32) {
        let mut rounds = 0;
        let vars = vars(values.len());
        let mut last = vec![(0.0, 0); vars.len()];
        let sum = |v: &Vec<i32>, bowl: &Bowl| bowl.sum(v);
        while let Some(r) = round(
            bowl,
            (&values, sum(&values, bowl)),
            &vars,
            objective,
            &mut last,
        )
        .unwrap()
        {
            assert!(
                r.sum + objective.pull(&r.values, &vars)
                    < bowl.sum(&values) + objective.pull(&values, &vars)
            );
            (values, rounds) = (r.values, rounds + 1);
        }
        (values, rounds)
    }

    #[test]
    fn rounds_end_where_no_single_step_gains() {
        let mut bowl = Bowl {
            target: vec![5, -3, 7, 0],
        };
        let anchor = vec![0; 4];
        let free = Objective {
            anchor: &anchor,
            l2: 0.0,
            constraints: false,
        };
        let (end, rounds) = polished(&mut bowl, vec![0; 4], &free);
        assert!(rounds > 0);
        let at = bowl.sum(&end);
        for slot in 0..4 {
            for delta in [1, -1] {
                assert!(bowl.sum(&moved(&end, &[(slot, delta)])) >= at, "{end:?}");
            }
        }
        // The values that do not interact reach their own targets.
        assert_eq!((end[2], end[3]), (7, 0));
    }

    /// A bowl whose trials fail (an interrupt) once its probes have been read.
    struct Stopped(Bowl);

    impl Lattice<Vec<i32>> for Stopped {
        type Error = ();

        fn probes(&mut self, values: &Vec<i32>, moves: &Moves) -> Result<Vec<f64>, ()> {
            self.0.probes(values, moves)
        }

        fn trials(&mut self, _: &Vec<i32>, _: &Moves, _: &[usize]) -> Result<Vec<f64>, ()> {
            Err(())
        }
    }

    #[test]
    fn a_round_stopped_part_way_leaves_the_probes_memory_as_it_was() {
        let bowl = Bowl {
            target: vec![5, -3, 7, 0],
        };
        let anchor = vec![0; 4];
        let free = Objective {
            anchor: &anchor,
            l2: 0.0,
            constraints: false,
        };
        let values = vec![0; 4];
        let sum = bowl.sum(&values);
        let before = vec![(-1.0, 1), (0.0, 0), (-9.0, -1), (0.5, 1)];
        let mut last = before.clone();
        let mut stopped = Stopped(bowl);
        let done = round(&mut stopped, (&values, sum), &vars(4), &free, &mut last);
        assert_eq!((done, last), (Err(()), before.clone()));
        // Not stopped, the same round writes it.
        let mut last = before.clone();
        round(&mut stopped.0, (&values, sum), &vars(4), &free, &mut last).unwrap();
        assert_ne!(last, before);
    }

    #[test]
    fn the_pull_keeps_values_nearer_their_anchor() {
        let mut bowl = Bowl {
            target: vec![0, 0, 40, 0],
        };
        let anchor = vec![0; 4];
        let pulled = Objective {
            anchor: &anchor,
            l2: 10_000.0,
            constraints: false,
        };
        // Each step away costs (2v + 1) by the pull, as much as the error gains: halfway.
        let (end, _) = polished(&mut bowl, vec![0; 4], &pulled);
        assert_eq!(end[2], 20);
    }

    #[test]
    fn a_round_with_nothing_to_gain_moves_nothing() {
        let mut bowl = Bowl {
            target: vec![2, 2, 1, 1],
        };
        let anchor = vec![2, 2, 1, 1];
        let objective = Objective {
            anchor: &anchor,
            l2: 0.0,
            constraints: false,
        };
        let sum = bowl.sum(&anchor);
        assert_eq!(
            round(
                &mut bowl,
                (&anchor, sum),
                &vars(4),
                &objective,
                &mut [(0.0, 0); 4]
            ),
            Ok(None)
        );
    }

    #[test]
    fn a_round_probes_the_better_quarter_first() {
        // Known changes -0.2, 0.5, 1.0, 3.0: the better quarter is -0.2's; never probed: 4.
        let last = [(0.5, 1), (-0.2, -1), (3.0, 1), (1.0, 1), (0.0, 0)];
        assert_eq!(screened(&last), vec![1, 4]);
        assert_eq!(screened(&[(0.0, 0); 3]), vec![0, 1, 2]);
    }

    #[test]
    fn a_value_left_out_of_the_first_probes_still_moves_before_the_polish_ends() {
        let mut bowl = Bowl {
            target: vec![2, 2, 5, 0],
        };
        let start = vec![2, 2, 0, 0];
        let objective = Objective {
            anchor: &start,
            l2: 0.0,
            constraints: false,
        };
        // Value 2 probed badly last time: only 0, 1 and 3 are probed first, and gain nothing.
        let mut last = [(-1.0, 1), (-1.0, 1), (9.0, 1), (-1.0, 1)];
        let sum = bowl.sum(&start);
        let done = round(&mut bowl, (&start, sum), &vars(4), &objective, &mut last);
        let done = done.unwrap().expect("value 2 gains");
        assert_eq!(done.values, vec![2, 2, 1, 0]);
        assert_eq!(last[2], (-9.0, 1), "its probe is kept");
    }

    /// Positions that compose inner sums: eight values that each gain a step up alone, and
    /// together overshoot what their sum should be (`Σ (v − 1)² + 10 (Σ v − 2)²`); the
    /// sizes of the trials asked are recorded.
    struct Crowd {
        asked: Vec<Vec<usize>>,
    }

    impl Crowd {
        fn sum(v: &[i32]) -> f64 {
            let own: i32 = v.iter().map(|&a| (a - 1) * (a - 1)).sum();
            let total: i32 = v.iter().sum();
            f64::from(own + 10 * (total - 2) * (total - 2))
        }
    }

    impl Lattice<Vec<i32>> for Crowd {
        type Error = ();

        fn probes(&mut self, values: &Vec<i32>, moves: &Moves) -> Result<Vec<f64>, ()> {
            let now = Crowd::sum(values);
            let each = moves
                .iter()
                .map(|&m| Crowd::sum(&moved(values, &[m])) - now);
            Ok(each.collect())
        }

        fn trials(&mut self, v: &Vec<i32>, moves: &Moves, sizes: &[usize]) -> Result<Vec<f64>, ()> {
            self.asked.push(sizes.to_vec());
            let each = sizes.iter().map(|&n| Crowd::sum(&moved(v, &moves[..n])));
            Ok(each.collect())
        }

        fn composes(&self) -> bool {
            true
        }
    }

    #[test]
    fn where_positions_compose_later_readings_try_twice_what_the_last_took() {
        let mut crowd = Crowd { asked: Vec::new() };
        let anchor = vec![0; 8];
        let free = Objective {
            anchor: &anchor,
            l2: 0.0,
            constraints: false,
        };
        let sum = Crowd::sum(&anchor);
        let mut last = vec![(0.0, 0); 8];
        let done = round(&mut crowd, (&anchor, sum), &vars(8), &free, &mut last).unwrap();
        assert_eq!(done.expect("moves gain").moved, 2);
        // The first reading: every prefix; it takes two moves. Then at most four more, then
        // (none taken, the best left dropped) at most two.
        assert_eq!(
            crowd.asked[..3],
            [vec![8, 4, 2, 1], vec![6, 4, 3], vec![4, 3]]
        );
        assert_eq!(Widest::first(false).after(1).of(40), 40);
        assert_eq!(Widest::first(true).after(3).after(9).of(40), 6);
    }

    #[test]
    fn prefix_sizes_halve_down_to_one() {
        assert_eq!(prefix_sizes(9), vec![9, 4, 2, 1]);
        assert_eq!(prefix_sizes(1), vec![1]);
        assert!(prefix_sizes(0).is_empty());
    }
}
