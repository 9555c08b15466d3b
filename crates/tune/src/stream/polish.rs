//! The streamed polish on the integer lattice: the rounds of `crate::polish`, each of their
//! readings (the probes, then the trials) a pass over the chunks.

use super::{Stream, StreamError, StreamEvent, StreamState};
use crate::descent::Variable;
use crate::error::SigmoidTable;
use crate::model::Model;
use crate::polish::{probe_changes, round, summed_error, trial_sums, Lattice, Moves, Objective};
use crate::RunEnd;
use std::time::Instant;
use texel_trace::in_bounds;

impl Stream<'_> {
    /// Newton's real values rounded, as every value of the space.
    pub(super) fn rounded(&self, x: &[f64]) -> Vec<i32> {
        let mut values = self.start.to_vec();
        for (&slot, &x) in self.slots.iter().zip(x) {
            let v = x.round() as i32;
            // A real value that is no number keeps the integer it has.
            if x.is_finite() && in_bounds(v) {
                values[slot] = v;
            }
        }
        values
    }

    /// The polish from where `state` is: the values, their summed training error, and
    /// the limit that stopped it (pass or time), if one did. Its rounds are those of memory
    /// (`crate::polish`), each reading a pass over the chunks.
    pub(super) fn polish(
        &self,
        state: &mut StreamState,
        on: &mut impl FnMut(StreamEvent),
    ) -> Result<(Vec<i32>, f64, Option<RunEnd>), StreamError> {
        let table = SigmoidTable::new(self.k);
        let (mut values, mut rounds) = state.polish.clone().expect("Newton is done");
        let mut sum = self.integer_sum(false, &values, &table)?;
        let vars: Vec<Variable> = (self.slots.iter())
            .map(|&slot| Variable { slot, step: 1 })
            .collect();
        let anchor = self.start.to_vec();
        let objective = Objective {
            anchor: &anchor,
            l2: self.l2,
            constraints: false,
        };
        let mut lattice = Chunked {
            stream: self,
            table: &table,
        };
        loop {
            if (state.newton.iterations + u64::from(rounds)) as usize >= self.settings.run.passes {
                return Ok((values, sum, Some(RunEnd::PassLimit)));
            }
            if self.settings.run.out_of_time() {
                return Ok((values, sum, Some(RunEnd::TimeLimit)));
            }
            let clock = Instant::now();
            let Some(done) = round(&mut lattice, (&values, sum), &vars, &objective)? else {
                break;
            };
            (values, sum, rounds) = (done.values, done.sum, rounds + 1);
            on(StreamEvent::Polish {
                round: rounds,
                moved: done.moved,
                error: sum / self.trained,
                seconds: clock.elapsed().as_secs_f64(),
            });
            state.polish = Some((values.clone(), rounds));
            on(StreamEvent::Checkpoint(state.clone()));
        }
        Ok((values, sum, None))
    }

    /// The summed error of the rounded evaluations at `values` over the training (or
    /// validation) positions: one pass.
    pub(super) fn integer_sum(
        &self,
        validation: bool,
        values: &[i32],
        table: &SigmoidTable,
    ) -> Result<f64, StreamError> {
        let parts = self.chunks(validation, values, |ds| summed_error(ds, table))?;
        Ok(parts.iter().sum())
    }

    /// The tuned `values` (summed training error `sum`) with their mean validation error,
    /// or the start's where the tuned values score the held-out positions no better; and
    /// whether the start was given back.
    pub(super) fn kept_or_start(
        &self,
        values: Vec<i32>,
        sum: f64,
    ) -> Result<(Vec<i32>, f64, Option<f64>, bool), StreamError> {
        let Some(tuned) = self.validation_error(&values)? else {
            return Ok((values, sum, None, false));
        };
        let start = self.validation_error(self.start)?.unwrap_or(f64::INFINITY);
        if tuned < start || values == self.start {
            return Ok((values, sum, Some(tuned), false));
        }
        let table = SigmoidTable::new(self.k);
        let start_sum = self.integer_sum(false, self.start, &table)?;
        Ok((self.start.to_vec(), start_sum, Some(start), true))
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

/// The training positions read chunk by chunk, as a polish round reads them.
struct Chunked<'s, 'a> {
    stream: &'s Stream<'a>,
    table: &'s SigmoidTable,
}

impl Lattice<Vec<i32>> for Chunked<'_, '_> {
    type Error = StreamError;

    fn probes(&mut self, values: &Vec<i32>, moves: &Moves) -> Result<Vec<f64>, StreamError> {
        let table = self.table;
        let parts = self.stream.chunks(false, values, |ds| {
            let errors: Vec<f64> = (0..ds.len())
                .map(|i| table.squared_error(ds.eval(i), ds.target(i)))
                .collect();
            probe_changes(ds, &mut (), (values, &errors), (moves, None), table)
        })?;
        Ok(added(parts, moves.len()))
    }

    fn trials(
        &mut self,
        values: &Vec<i32>,
        moves: &Moves,
        sizes: &[usize],
    ) -> Result<Vec<f64>, StreamError> {
        let table = self.table;
        let parts = self.stream.chunks(false, values, |ds| {
            trial_sums((ds, &mut ()), values, moves, sizes, table)
        })?;
        Ok(added(parts, sizes.len()))
    }
}

/// The chunks' answers of `n` sums each, added in chunk order.
fn added(parts: Vec<Vec<f64>>, n: usize) -> Vec<f64> {
    let mut total = vec![0.0; n];
    for part in parts {
        total.iter_mut().zip(part).for_each(|(t, s)| *t += s);
    }
    total
}
