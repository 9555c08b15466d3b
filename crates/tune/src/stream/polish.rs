//! The streamed polish on the integer lattice: the rounds of `texel_solve::polish` (taken by
//! `super::tuner`), each of their readings (the probes, then the trials) a pass over the
//! chunks; the integer errors of the training and held-out positions.

use super::{Stream, StreamError};
use texel_linear::TraceDataset;
use texel_solve::error::SigmoidTable;
use texel_solve::jacobian::Factor;
use texel_solve::model::Model;
use texel_solve::newton::{settle, whole};
use texel_solve::polish::{probe_changes, summed_error, trial_sums, Lattice, Moves};
use texel_trace::in_bounds;

impl Stream<'_> {
    /// Newton's real values rounded, as every value of the space.
    pub(super) fn rounded(&self, x: &[f64]) -> Vec<i32> {
        let mut values = self.start.to_vec();
        for (&slot, &x) in self.slots.iter().zip(x) {
            if let Some(v) = whole(x) {
                values[slot] = v;
            }
        }
        values
    }

    /// `values` (Newton's real values `x` rounded) moved down Newton's model where the phase
    /// ends ([`settle`]), each within its bounds.
    pub(super) fn settled(&self, factor: &Factor, x: &[f64], values: &mut [i32]) {
        let mut z: Vec<i32> = self.slots.iter().map(|&slot| values[slot]).collect();
        let mut allow = |k: usize, value: i32| {
            let ok = in_bounds(value);
            if ok {
                values[self.slots[k]] = value;
            }
            ok
        };
        settle(factor, x, &mut z, &mut allow);
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
pub(super) struct Chunked<'s, 'a> {
    /// The stream read.
    pub stream: &'s Stream<'a>,
    /// The error function of the integer evaluations.
    pub table: &'s SigmoidTable,
    /// Probes read so far.
    pub probes: u64,
}

impl Lattice<Vec<i32>> for Chunked<'_, '_> {
    type Error = StreamError;

    fn probes(&mut self, values: &Vec<i32>, moves: &Moves) -> Result<Vec<f64>, StreamError> {
        self.probes += moves.len() as u64;
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

    fn composes(&self) -> bool {
        TraceDataset::composes(self.stream.trace.space())
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
