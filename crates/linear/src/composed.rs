//! A trace whose positions compose inner sums (king safety, complexity and the other inner
//! terms of `docs/trace-format.md`) as a [`Model`](texel_solve::model::Model): a linear
//! dataset for every linear coefficient, the positions' inner sums beside it, and what a
//! composition changes — a position's evaluation adds what its sums give; a value a sum
//! counts or a shape multiplies by moves positions through the sums; a complexity reads the
//! whole endgame part. Everything else the linear dataset answers.

mod chain;
#[cfg(test)]
mod chain_tests;
mod inner;
mod model;
mod real;

use crate::layout::{Part, Step, Sums};
use crate::linear::{merged, LinearDataset, OnColumns};
use inner::{Added, Inner, InnerPoint};
use std::io::{self, Read, Write};
use texel_trace::ParamSpace;

/// Positions of a composed trace whose Jacobian rows are built at a time for the Hessian
/// ([`texel_solve::jacobian::Jacobian::row_part`]): a sixteenth of a block holds a sixteenth
/// of its rows (a composed position's row can name a hundred values); a linear trace's
/// short rows are built a whole block at a time.
const ROW_PART: usize = crate::layout::BLOCK / 16;

/// The positions of a trace that composes inner sums, ready for tuning an outside engine's
/// whole evaluation.
#[derive(Clone, Debug)]
pub struct ComposedDataset {
    /// The positions' linear coefficients and sums.
    linear: LinearDataset,
    /// The positions' inner sums.
    inner: Inner,
    /// Where a complexity reads the endgame part: each position's weighted endgame values
    /// (the part of its free sum they give); empty otherwise.
    free_end: Vec<f64>,
}

/// Built as the linear columns are, the positions' sums gathered beside them.
impl OnColumns for ComposedDataset {
    type Beside = Inner;

    fn on(linear: LinearDataset, mut inner: Inner) -> ComposedDataset {
        inner.shrink_to_fit();
        ComposedDataset::of(linear, inner)
    }
}

impl ComposedDataset {
    /// The dataset of `linear` and its positions' sums `inner`.
    fn of(linear: LinearDataset, mut inner: Inner) -> ComposedDataset {
        inner.share_tapers(&linear.tapers);
        ComposedDataset {
            linear,
            inner,
            free_end: Vec::new(),
        }
    }

    /// Bytes held in memory.
    pub fn memory_bytes(&self) -> usize {
        self.linear.memory_bytes() + 8 * self.free_end.capacity() + self.inner.memory_bytes()
    }

    /// The exact evaluation of position `i` under the current values (before rounding).
    pub fn exact_eval(&self, i: usize) -> f64 {
        self.value(i, self.linear.sums[i])
    }

    /// The evaluation of position `i` with sums `s`.
    #[inline]
    fn value(&self, i: usize, s: Sums) -> f64 {
        self.value_with(i, (s, self.free_end(i)), self.inner.added(i))
    }

    /// Position `i`'s weighted endgame values now (see `free_end`).
    #[inline]
    fn free_end(&self, i: usize) -> f64 {
        self.free_end.get(i).copied().unwrap_or(0.0)
    }

    /// The evaluation of position `i` with sums `s`, weighted endgame values `free_end`,
    /// and what its inner sums give `added`.
    #[inline]
    fn value_with(&self, i: usize, (s, free_end): (Sums, f64), added: Added) -> f64 {
        let end = self.linear.tapers[i][1] * s.end as f64;
        self.linear.value(i, s) + added.with(end + free_end)
    }

    /// Whether `slot` is an endgame value: one a complexity reads through the endgame part.
    fn end_slot(&self, slot: usize) -> bool {
        self.linear.layout.slots[slot].1 == Part::End
    }

    /// The endgame part of position `i`'s evaluation that its linear entries add now.
    fn linear_end(&self, i: usize) -> f64 {
        self.linear.tapers[i][1] * self.linear.sums[i].end as f64 + self.free_end(i)
    }

    /// How each position's unrounded evaluation changes if `slot` moves by `delta` from
    /// `values`: (position, change), positions rising, none twice.
    fn eval_changes(&self, values: &[i32], slot: usize, delta: i32) -> Vec<(u32, f64)> {
        if self.inner.has_complexity() {
            return self.exact_changes(values, slot, delta);
        }
        let mut out = self.linear.column_changes(slot, delta);
        if !self.inner.linear(slot) {
            let now = |i: u32| self.inner.added(i as usize).with(0.0);
            let moved = (values, slot, delta);
            let mut inner = self.inner.changes(moved, |i, a| a.with(0.0) - now(i));
            // Positions rising, none twice: merged already where no column counts the value.
            if out.is_empty() {
                inner.retain(|e| e.1 != 0.0);
                return inner;
            }
            out.extend(inner);
            merged(&mut out);
        }
        out
    }

    /// [`ComposedDataset::eval_changes`] where a complexity reads the endgame part: each
    /// position's evaluation with its sums and inner sums moved, less the one now.
    fn exact_changes(&self, values: &[i32], slot: usize, delta: i32) -> Vec<(u32, f64)> {
        let mut steps = self.linear.steps(slot);
        steps.sort_by_key(|m| m.0);
        let mut sums: Vec<(usize, (Sums, f64))> = Vec::with_capacity(steps.len());
        let moved = |(s, end): (Sums, f64), step: Step| {
            (
                s.moved(step, delta),
                end + step.end_weight() * f64::from(delta),
            )
        };
        for (i, step) in steps {
            match sums.last_mut() {
                Some(last) if last.0 == i => last.1 = moved(last.1, step),
                _ => sums.push((i, moved((self.linear.sums[i], self.free_end(i)), step))),
            }
        }
        let inner = self.inner.changes((values, slot, delta), |_, a| a);
        let positions = sums
            .iter()
            .map(|s| s.0 as u32)
            .chain(inner.iter().map(|c| c.0));
        let mut positions: Vec<u32> = positions.collect();
        positions.sort_unstable();
        positions.dedup();
        let change = |i: u32| {
            let at = i as usize;
            let s = (sums.binary_search_by_key(&at, |s| s.0))
                .map_or((self.linear.sums[at], self.free_end(at)), |k| sums[k].1);
            let added = (inner.binary_search_by_key(&i, |c| c.0))
                .map_or(self.inner.added(at), |k| inner[k].1);
            self.value_with(at, s, added) - self.exact_eval(at)
        };
        positions.into_iter().map(|i| (i, change(i))).collect()
    }

    /// Writes the dataset's tuner form, without its sums: the linear dataset's, then the
    /// inner sums'.
    pub fn write_form(&self, out: &mut impl Write) -> io::Result<()> {
        self.linear.write_form(out)?;
        self.inner.write(out)
    }

    /// Reads a dataset [`ComposedDataset::write_form`] wrote, in `space`, unscored.
    ///
    /// # Errors
    /// The input ends early or is not such a form.
    pub fn read_form(space: &ParamSpace, input: &mut impl Read) -> io::Result<ComposedDataset> {
        let linear = LinearDataset::read_form(space, input)?;
        let inner = Inner::read(space, linear.targets.len(), input)?;
        Ok(ComposedDataset::of(linear, inner))
    }
}
