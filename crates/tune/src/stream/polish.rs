//! The streamed polish on the integer lattice: every value probed one up and one down in a
//! pass, the moves that gain made together, checked by a second pass.

use super::{Stream, StreamError, StreamEvent, StreamState};
use crate::error::SigmoidTable;
use crate::model::{Model, Move};
use crate::newton::rows;
use std::time::Instant;
use texel_trace::in_bounds;

impl Stream<'_> {
    /// Newton's real values rounded, as every value of the space.
    pub(super) fn rounded(&self, x: &[f64]) -> Vec<i32> {
        let mut values = self.start.to_vec();
        for (&slot, &x) in self.slots.iter().zip(x) {
            let v = x.round() as i32;
            if in_bounds(v) {
                values[slot] = v;
            }
        }
        values
    }

    /// The polish from where `state` is: the values, their summed training error, and
    /// whether the pass limit stopped it.
    pub(super) fn polish(
        &self,
        state: &mut StreamState,
        on: &mut impl FnMut(StreamEvent),
    ) -> Result<(Vec<i32>, f64, bool), StreamError> {
        let table = SigmoidTable::new(self.k);
        let (mut values, mut rounds) = state.polish.clone().expect("Newton is done");
        let mut sum = self.integer_sum(false, &values, &table)?;
        let limit = self.settings.passes;
        loop {
            if (state.iterations + rounds) as usize >= limit {
                return Ok((values, sum, true));
            }
            let clock = Instant::now();
            let moves = self.gaining_moves(&values, &table)?;
            let now = sum + self.integer_penalty(&values);
            let sizes = prefix_sizes(moves.len());
            let sums = self.prefix_sums(&values, &moves, &sizes, &table)?;
            let mut best: Option<(f64, usize)> = None;
            for (&size, &trial_sum) in sizes.iter().zip(&sums) {
                let value = trial_sum + self.integer_penalty(&moved(&values, &moves[..size]));
                if value < best.map_or(now, |b| b.0) {
                    best = Some((value, size));
                }
            }
            let Some((_, size)) = best else {
                break;
            };
            values = moved(&values, &moves[..size]);
            sum = sums[sizes.iter().position(|&s| s == size).expect("a size tried")];
            rounds += 1;
            on(StreamEvent::Polish {
                round: rounds,
                moved: size,
                error: sum / self.trained,
                seconds: clock.elapsed().as_secs_f64(),
            });
            state.polish = Some((values.clone(), rounds));
            on(StreamEvent::Checkpoint(state.clone()));
        }
        Ok((values, sum, false))
    }

    /// The summed training error with the first `size` of `moves` made from `values`, for
    /// each of `sizes`: one pass (the evaluations are linear, so each is the one at `values`
    /// moved by the Jacobian times the moves, then rounded).
    fn prefix_sums(
        &self,
        values: &[i32],
        moves: &[(usize, i32, f64)],
        sizes: &[usize],
        table: &SigmoidTable,
    ) -> Result<Vec<f64>, StreamError> {
        let index: std::collections::HashMap<usize, usize> = self
            .slots
            .iter()
            .enumerate()
            .map(|(j, &s)| (s, j))
            .collect();
        let directions: Vec<Vec<f64>> = sizes
            .iter()
            .map(|&size| {
                let mut d = vec![0.0; self.slots.len()];
                for &(slot, delta, _) in &moves[..size] {
                    d[index[&slot]] = f64::from(delta);
                }
                d
            })
            .collect();
        let composed = !self.trace.space().inner().is_empty();
        let parts = self.chunks(false, values, |ds| {
            if composed {
                // Inner sums are not linear: each trial is scored exactly.
                let trials = sizes.iter().map(|&size| moved(values, &moves[..size]));
                let each = trials.map(|trial| {
                    ds.rescore(&trial);
                    (0..ds.len())
                        .map(|i| table.squared_error(ds.eval(i), ds.target(i)))
                        .sum::<f64>()
                });
                return each.collect::<Vec<f64>>();
            }
            let each = directions.iter().map(|d| {
                let q = rows::product(ds, &self.slots, d);
                let rounded = |i: usize| (ds.exact_eval(i) + q[i]).round() as i32;
                (0..ds.len())
                    .map(|i| table.squared_error(rounded(i), ds.target(i)))
                    .sum::<f64>()
            });
            each.collect::<Vec<f64>>()
        })?;
        let mut total = vec![0.0; sizes.len()];
        for part in parts {
            total.iter_mut().zip(part).for_each(|(t, s)| *t += s);
        }
        Ok(total)
    }

    /// The pull of integer `values` (every value of the space).
    fn integer_penalty(&self, values: &[i32]) -> f64 {
        let x: Vec<f64> = self.slots.iter().map(|&s| f64::from(values[s])).collect();
        self.penalty(&x)
    }

    /// The summed error of the rounded evaluations at `values` over the training (or
    /// validation) positions: one pass.
    pub(super) fn integer_sum(
        &self,
        validation: bool,
        values: &[i32],
        table: &SigmoidTable,
    ) -> Result<f64, StreamError> {
        let parts = self.chunks(validation, values, |ds| {
            (0..ds.len())
                .map(|i| table.squared_error(ds.eval(i), ds.target(i)))
                .sum::<f64>()
        })?;
        Ok(parts.iter().sum())
    }

    /// Every move of a tuned value by one that lowers the objective by itself, as (slot,
    /// delta, change of the objective), the largest gain first: one pass of probes.
    fn gaining_moves(
        &self,
        values: &[i32],
        table: &SigmoidTable,
    ) -> Result<Vec<(usize, i32, f64)>, StreamError> {
        let owned = values.to_vec();
        let parts = self.chunks(false, values, |ds| {
            let errors: Vec<f64> = (0..ds.len())
                .map(|i| table.squared_error(ds.eval(i), ds.target(i)))
                .collect();
            let mut changes = Vec::with_capacity(2 * self.slots.len());
            for &slot in &self.slots {
                for delta in [1, -1] {
                    let mv = Move {
                        values: &owned,
                        slot,
                        delta,
                        sigmoid: table,
                    };
                    changes.push(ds.probe(&mut (), mv, &errors));
                }
            }
            changes
        })?;
        let mut total = vec![0.0; 2 * self.slots.len()];
        for part in parts {
            total.iter_mut().zip(part).for_each(|(t, c)| *t += c);
        }
        let pull = self.settings.l2 / 10_000.0;
        let mut moves = Vec::new();
        for (j, &slot) in self.slots.iter().enumerate() {
            for (d, delta) in [1, -1].into_iter().enumerate() {
                let (v, a) = (values[slot], self.start[slot]);
                let away = |v: i32| f64::from(v - a) * f64::from(v - a);
                let change = total[2 * j + d] + pull * (away(v + delta) - away(v));
                if change < 0.0 && in_bounds(v + delta) {
                    moves.push((slot, delta, change));
                }
            }
        }
        // A value's better direction only; the largest gains first, ties by slot.
        moves.sort_by(|a, b| a.2.total_cmp(&b.2).then(a.0.cmp(&b.0)));
        let mut seen = std::collections::HashSet::new();
        moves.retain(|m| seen.insert(m.0));
        Ok(moves)
    }

    /// The mean validation error of `values` (`None` when nothing is held out).
    pub(super) fn validation_error(&self, values: &[i32]) -> Result<Option<f64>, StreamError> {
        let held = self.held.iter().filter(|&&h| h).count();
        if held == 0 {
            return Ok(None);
        }
        let table = SigmoidTable::new(self.k);
        let sum = self.integer_sum(true, values, &table)?;
        Ok(Some(sum / held as f64))
    }
}

/// How many of the best moves each trial of a polish round makes: all of `n`, half, a
/// quarter, ... one.
fn prefix_sizes(n: usize) -> Vec<usize> {
    let mut sizes = Vec::new();
    let mut size = n;
    while size > 0 {
        sizes.push(size);
        size /= 2;
    }
    sizes
}

/// `values` with every move of `moves` made.
fn moved(values: &[i32], moves: &[(usize, i32, f64)]) -> Vec<i32> {
    let mut out = values.to_vec();
    for &(slot, delta, _) in moves {
        out[slot] += delta;
    }
    out
}
