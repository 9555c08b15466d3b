//! Positions held in the caller's own program, evaluated linearly: each position a sparse
//! row of coefficients (how many centipawns its evaluation moves per unit of each value, as
//! an engine's trace gives them: counts White minus Black, times the phase where the value
//! is tapered), a part no value moves, and its label. The [`Model`] an engine author hands
//! the solver without writing one.

use crate::jacobian::{Jacobian, RowSink};
use crate::model::{Model, Move, Probes};
use crate::sigmoid::{error_units, ERROR_UNITS};
use crate::values::centipawns;

/// Positions in one block of [`Jacobian::block_rows`] (and of a warm start's sample).
const BLOCK: usize = 4096;

/// Why a position was refused by [`LinearPositions::push`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PositionError {
    /// A coefficient names a value the positions do not have.
    #[error("value {slot} is out of range: the positions have {slots} values")]
    SlotOutOfRange {
        /// The slot named.
        slot: usize,
        /// How many there are.
        slots: usize,
    },
    /// A coefficient, the fixed part or the label is not a finite number.
    #[error("{what} is not a finite number")]
    NotFinite {
        /// What was not.
        what: &'static str,
    },
    /// The label is outside 0 (a loss) to 1 (a win).
    #[error("label {0} is outside 0 to 1")]
    LabelOutOfRange(f64),
}

/// Labelled positions whose evaluation is linear in integer values: a position's evaluation
/// is its fixed part plus the sum of coefficient × value over its row, rounded to whole
/// centipawns as an engine rounds it.
#[derive(Debug, Clone, Default)]
pub struct LinearPositions {
    slots: usize,
    /// Each position's row: its coefficients by (slot, coefficient), slots rising.
    rows: Vec<Vec<(u32, f64)>>,
    fixed: Vec<f64>,
    targets: Vec<f32>,
    /// Each slot's column: (position, coefficient), positions rising.
    columns: Vec<Vec<(u32, f64)>>,
    /// Each position's evaluation at the values last scored, before rounding.
    evals: Vec<f64>,
}

impl LinearPositions {
    /// No position yet, over `slots` values.
    pub fn new(slots: usize) -> LinearPositions {
        LinearPositions {
            slots,
            columns: vec![Vec::new(); slots],
            ..LinearPositions::default()
        }
    }

    /// Adds a position: its coefficients by (slot, coefficient) in any order (a slot named
    /// twice adds up), the part of its evaluation no value moves (centipawns, White's view)
    /// and its label (White's result, 0 to 1). Its evaluation is that of all-zero values
    /// until [`Model::rescore`].
    ///
    /// # Errors
    /// A slot out of range, a number that is not finite, a label outside 0 to 1.
    pub fn push(
        &mut self,
        row: &[(usize, f64)],
        fixed: f64,
        label: f64,
    ) -> Result<(), PositionError> {
        let finite = |x: f64, what| {
            x.is_finite()
                .then_some(())
                .ok_or(PositionError::NotFinite { what })
        };
        finite(fixed, "the fixed part")?;
        finite(label, "the label")?;
        if !(0.0..=1.0).contains(&label) {
            return Err(PositionError::LabelOutOfRange(label));
        }
        let mut sorted: Vec<(u32, f64)> = Vec::with_capacity(row.len());
        for &(slot, coefficient) in row {
            if slot >= self.slots {
                let slots = self.slots;
                return Err(PositionError::SlotOutOfRange { slot, slots });
            }
            finite(coefficient, "a coefficient")?;
            sorted.push((slot as u32, coefficient));
        }
        sorted.sort_by_key(|&(slot, _)| slot);
        sorted.dedup_by(|later, kept| {
            later.0 == kept.0 && {
                kept.1 += later.1;
                true
            }
        });
        let position = self.targets.len() as u32;
        for &(slot, coefficient) in &sorted {
            self.columns[slot as usize].push((position, coefficient));
        }
        self.rows.push(sorted);
        self.fixed.push(fixed);
        self.targets.push(label as f32);
        self.evals.push(fixed);
        Ok(())
    }

    fn row_eval(&self, i: usize, values: &[i32]) -> f64 {
        let terms = self.rows[i].iter();
        self.fixed[i]
            + terms
                .map(|&(s, c)| c * f64::from(values[s as usize]))
                .sum::<f64>()
    }

    /// The entries of `slot`'s column among positions `within`.
    fn column_within(&self, slot: usize, within: std::ops::Range<usize>) -> &[(u32, f64)] {
        let column = &self.columns[slot];
        let from = column.partition_point(|&(p, _)| (p as usize) < within.start);
        let to = column.partition_point(|&(p, _)| (p as usize) < within.end);
        &column[from..to]
    }
}

impl Model for LinearPositions {
    type Values = Vec<i32>;

    fn len(&self) -> usize {
        self.targets.len()
    }

    fn slot_count(&self) -> usize {
        self.slots
    }

    fn target(&self, i: usize) -> f64 {
        f64::from(self.targets[i])
    }

    fn set_targets(&mut self, targets: Vec<f32>) {
        assert_eq!(targets.len(), self.targets.len(), "one target a position");
        self.targets = targets;
    }

    fn eval(&self, i: usize) -> i32 {
        centipawns(self.evals[i])
    }

    fn rescore(&mut self, values: &Vec<i32>) {
        self.evals = (0..self.len()).map(|i| self.row_eval(i, values)).collect();
    }

    /// Every `n`-th block of positions, scored as here.
    fn sample(&self, n: usize) -> Self {
        let mut sample = LinearPositions::new(self.slots);
        let kept = (0..self.len()).filter(|i| (i / BLOCK).is_multiple_of(n.max(1)));
        for i in kept {
            let row: Vec<(usize, f64)> =
                self.rows[i].iter().map(|&(s, c)| (s as usize, c)).collect();
            let pushed = sample.push(&row, self.fixed[i], self.target(i));
            pushed.expect("a position of these positions is valid");
            *sample.evals.last_mut().expect("just pushed") = self.evals[i];
        }
        sample
    }

    fn support(&self, slots: &[usize]) -> usize {
        let mut seen = vec![false; self.len()];
        for &slot in slots {
            self.columns[slot]
                .iter()
                .filter(|&&(_, c)| c != 0.0)
                .for_each(|&(p, _)| seen[p as usize] = true);
        }
        seen.iter().filter(|&&s| s).count()
    }

    /// Whole error units over the slot's column: the same sum whatever the order.
    fn probe(&self, _cache: &mut (), mv: Move<'_, Vec<i32>>, errors: &[f64]) -> f64 {
        let delta = f64::from(mv.delta);
        let units: i64 = (self.columns[mv.slot].iter())
            .map(|&(p, c)| {
                let p = p as usize;
                let now = centipawns(self.evals[p] + c * delta);
                error_units(mv.sigmoid.squared_error(now, self.target(p)) - errors[p])
            })
            .sum();
        units as f64 / ERROR_UNITS
    }

    fn apply(&mut self, _cache: &mut (), mv: Move<'_, Vec<i32>>, errors: &mut [f64]) {
        let delta = f64::from(mv.delta);
        for &(p, c) in &self.columns[mv.slot] {
            let p = p as usize;
            self.evals[p] += c * delta;
            errors[p] = mv.sigmoid.squared_error(self.eval(p), self.target(p));
        }
    }

    fn linear(&self, _slot: usize) -> bool {
        true
    }

    fn exact_eval(&self, i: usize) -> f64 {
        self.evals[i]
    }
}

impl Probes for LinearPositions {
    type Cache = ();

    fn cache(&self, _values: &Vec<i32>) {}

    fn cache_bytes(_cache: &()) -> usize {
        0
    }

    fn refresh(&mut self, _cache: &mut (), values: &Vec<i32>) {
        self.rescore(values);
    }

    fn reach(&self, slot: usize) -> usize {
        self.columns[slot].len()
    }

    fn lattice_polish(&self) -> bool {
        true
    }
}

impl Jacobian for LinearPositions {
    fn row_blocks(&self) -> usize {
        self.len().div_ceil(BLOCK)
    }

    fn block_span(&self, b: usize) -> (usize, usize) {
        let start = b * BLOCK;
        (start, BLOCK.min(self.len() - start))
    }

    fn block_rows<S: RowSink>(&self, b: usize, slots: &[usize], rows: &mut S) {
        let (start, len) = self.block_span(b);
        rows.begin(start, len);
        for (var, &slot) in slots.iter().enumerate() {
            for &(p, c) in self.column_within(slot, start..start + len) {
                rows.push(p as usize, var as u32, c);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::descent::{Descent, NewtonState, Variable};
    use crate::error::mean_error;
    use crate::sigmoid::real_sigmoid;
    use crate::values::Values;

    /// Positions whose labels are the sigmoid of `truth`'s evaluation: rows of small counts
    /// over three values, drawn by a fixed linear congruence.
    fn labelled_by(truth: &[i32], n: usize) -> LinearPositions {
        let mut positions = LinearPositions::new(truth.len());
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % 5) as f64 - 2.0
        };
        for _ in 0..n {
            let row: Vec<(usize, f64)> = (0..truth.len()).map(|s| (s, next())).collect();
            let eval: f64 = row.iter().map(|&(s, c)| c * f64::from(truth[s])).sum();
            positions
                .push(&row, 5.0, real_sigmoid(1.0, eval + 5.0))
                .unwrap();
        }
        positions
    }

    #[test]
    fn minimising_finds_the_values_the_labels_were_made_from() {
        let truth = [90, 310, -40];
        let mut positions = labelled_by(&truth, 3000);
        let start = vec![0, 0, 0];
        positions.rescore(&start);
        let vars = (0..3).map(|slot| Variable { slot, step: 1 }).collect();
        let mut descent = Descent::new(&mut positions, start, 1.0, vars);
        descent.minimise(0.0);
        let found = descent.params().clone();
        for (f, t) in found.iter().zip(truth) {
            assert!((f - t).abs() <= 2, "found {found:?}, made from {truth:?}");
        }
    }

    /// A descent solved at a pull of 1000, then restarted at 100: its Newton state after
    /// the first iteration there, and after the solve, with the kept factor dropped at the
    /// restart (as a resume has none) or not.
    fn solved_at_a_second_pull(drop_factor: bool) -> (f64, NewtonState, NewtonState, Vec<i32>) {
        let mut positions = labelled_by(&[90, 310, -40, 25], 4000);
        let start = vec![0; 4];
        positions.rescore(&start);
        let vars = (0..4).map(|slot| Variable { slot, step: 1 }).collect();
        let guards = crate::descent::Guards {
            l2: 1000.0,
            constraints: false,
        };
        let mut descent = Descent::new(&mut positions, start, 1.0, vars).guarded(guards);
        descent.newton_solve();
        descent.repull(100.0);
        let state = descent.newton.clone().unwrap();
        assert!(
            state.chord.is_some(),
            "the next pull begins with a chord step"
        );
        assert_eq!(state.chord, state.hessian_at);
        if drop_factor {
            descent.newton_factor = None;
        }
        descent.newton_iteration();
        descent.refresh();
        let first = descent.newton.clone().unwrap();
        descent.newton_solve();
        let solved = descent.newton.clone().unwrap();
        (state.error, first, solved, descent.params().clone())
    }

    #[test]
    fn a_path_s_next_pull_steps_with_the_last_hessian_and_a_resume_takes_it_again() {
        let ours = solved_at_a_second_pull(false);
        let (at_first_pull, first, _, _) = &ours;
        assert!(
            first.error < *at_first_pull,
            "the chord step lowered the error"
        );
        let again = solved_at_a_second_pull(true);
        assert_eq!(ours, again, "bit for bit without the kept factor");
    }

    #[test]
    fn newton_restarted_at_some_values_goes_on_as_a_descent_begun_there() {
        let mut positions = labelled_by(&[90, 310, -40, 25], 2000);
        let (start, middle) = (vec![0; 4], vec![60, 200, -10, 5]);
        let vars: Vec<Variable> = (0..4).map(|slot| Variable { slot, step: 1 }).collect();
        let guards = crate::descent::Guards {
            l2: 30.0,
            constraints: false,
        };
        positions.rescore(&start);
        let descent = Descent::new(&mut positions, start.clone(), 1.0, vars.clone());
        let mut restarted = descent.guarded(guards);
        restarted.newton_solve();
        restarted.restart_at(&middle);
        assert_eq!(restarted.newton_iterate(1, || false), 1);
        let (ended, error) = (restarted.params().clone(), restarted.real_error());
        // Begun at `middle`, anchored at the start as the path's descent is.
        let mut fresh = labelled_by(&[90, 310, -40, 25], 2000);
        fresh.rescore(&start);
        let mut begun = Descent::new(&mut fresh, start, 1.0, vars).guarded(guards);
        begun.restart_at(&middle);
        begun.newton_iterate(1, || false);
        assert_eq!((begun.params(), begun.real_error()), (&ended, error));
        assert_ne!(ended, middle, "the iteration moved the values");
    }

    #[test]
    fn a_probe_is_the_change_a_full_rescoring_gives() {
        let mut positions = labelled_by(&[50, 120, 7], 500);
        let values = vec![40, 100, 0];
        positions.rescore(&values);
        let sigmoid = crate::SigmoidTable::new(1.0);
        let errors: Vec<f64> = (0..positions.len())
            .map(|i| sigmoid.squared_error(positions.eval(i), positions.target(i)))
            .collect();
        let (slot, delta) = (1, 9);
        let mv = Move {
            values: &values,
            slot,
            delta,
            sigmoid: &sigmoid,
        };
        let probed = positions.probe(&mut (), mv, &errors);
        let before = mean_error(&positions, 1.0) * positions.len() as f64;
        positions.rescore(&values.moved(slot, delta));
        let after = mean_error(&positions, 1.0) * positions.len() as f64;
        assert!(
            (probed - (after - before)).abs() < 1e-6,
            "{probed} against {}",
            after - before
        );
    }

    #[test]
    fn bad_positions_are_refused_with_their_reason() {
        let mut positions = LinearPositions::new(2);
        let slot = positions.push(&[(2, 1.0)], 0.0, 0.5);
        assert_eq!(
            slot,
            Err(PositionError::SlotOutOfRange { slot: 2, slots: 2 })
        );
        let label = positions.push(&[(0, 1.0)], 0.0, 1.5);
        assert_eq!(label, Err(PositionError::LabelOutOfRange(1.5)));
        let nan = positions.push(&[(0, f64::NAN)], 0.0, 0.5);
        assert_eq!(
            nan,
            Err(PositionError::NotFinite {
                what: "a coefficient"
            })
        );
        assert_eq!(positions.len(), 0);
        positions
            .push(&[(1, 1.0), (0, 2.0), (1, 3.0)], 0.0, 0.5)
            .unwrap();
        positions.rescore(&vec![10, 100]);
        assert_eq!(positions.eval(0), 420, "a slot named twice adds up");
    }
}
