//! The composed dataset answering what a model must ([`Model`]), its probes ([`Probes`],
//! the way into Newton through the chain rule among them) and its linear Jacobian's rows
//! ([`Jacobian`]): the linear dataset's answers where a value is linear, and the inner
//! sums' where it composes.

use super::{ComposedDataset, ROW_PART};
use rayon::prelude::*;
use std::ops::Range;
use texel_solve::error::{error_units, SigmoidTable, ERROR_UNITS};
use texel_solve::jacobian::{Exact, Jacobian, RowSink};
use texel_solve::model::{Model, Move, Probes};
use texel_trace::centipawns;

impl Model for ComposedDataset {
    type Values = Vec<i32>;

    fn len(&self) -> usize {
        self.linear.len()
    }

    fn slot_count(&self) -> usize {
        self.linear.slot_count()
    }

    fn target(&self, i: usize) -> f64 {
        self.linear.target(i)
    }

    fn set_targets(&mut self, targets: Vec<f32>) {
        self.linear.set_targets(targets);
    }

    fn eval(&self, i: usize) -> i32 {
        centipawns(self.exact_eval(i))
    }

    fn rescore(&mut self, values: &Vec<i32>) {
        // The new sums go over the old: no probe is updated over what changed.
        self.linear.rescore_over(values);
        if self.inner.has_complexity() {
            self.free_end = self.linear.weighted_ends(values);
        }
        self.inner.rescore(values);
    }

    fn sample(&self, n: usize) -> Self {
        let (linear, kept) = self.linear.sample_kept(n);
        let free_end = match self.free_end.is_empty() {
            true => Vec::new(),
            false => kept.iter().map(|&i| self.free_end[i]).collect(),
        };
        let inner = self.inner.only(&kept);
        ComposedDataset {
            free_end,
            ..ComposedDataset::of(linear, inner)
        }
    }

    fn support(&self, slots: &[usize]) -> usize {
        let mut seen = vec![false; self.len()];
        self.linear.mark_support(slots, &mut seen);
        for &slot in slots.iter().filter(|&&s| !self.inner.linear(s)) {
            self.inner
                .positions_of(slot)
                .iter()
                .for_each(|&i| seen[i as usize] = true);
        }
        seen.iter().filter(|&&s| s).count()
    }

    fn probe(&self, _cache: &mut (), mv: Move<'_, Vec<i32>>, errors: &[f64]) -> f64 {
        if Model::linear(self, mv.slot) {
            return self
                .linear
                .column_probe(mv, errors, |i, s| self.value(i, s));
        }
        // Not a column's move: an inner sum or a complexity reads the value.
        let changes = self.eval_changes(mv.values, mv.slot, mv.delta);
        // Whole error units: the same sum in any order, on any thread.
        let units: i64 = (changes.par_iter().with_min_len(4096))
            .map(|&(i, d)| {
                let i = i as usize;
                let new = centipawns(self.exact_eval(i) + d);
                let target = self.target(i);
                error_units(mv.sigmoid.squared_error(new, target) - errors[i])
            })
            .sum();
        units as f64 / ERROR_UNITS
    }

    fn apply(&mut self, _cache: &mut (), mv: Move<'_, Vec<i32>>, errors: &mut [f64]) {
        let steps = self.linear.move_sums(mv.slot, mv.delta);
        let mut touched: Vec<usize> = steps.iter().map(|m| m.0).collect();
        if !self.free_end.is_empty() {
            for (i, step) in steps {
                self.free_end[i] += step.end_weight() * f64::from(mv.delta);
            }
        }
        let inner = self.inner.apply(mv.values, mv.slot, mv.delta);
        if !inner.is_empty() {
            touched.extend(inner.iter().map(|&i| i as usize));
            touched.sort_unstable();
            touched.dedup();
        }
        for i in touched {
            errors[i] = mv.sigmoid.squared_error(self.eval(i), self.target(i));
        }
    }

    fn linear(&self, slot: usize) -> bool {
        self.inner.linear(slot) && !(self.end_slot(slot) && self.inner.has_complexity())
    }

    fn exact_eval(&self, i: usize) -> f64 {
        ComposedDataset::exact_eval(self, i)
    }
}

impl Probes for ComposedDataset {
    type Cache = ();

    /// The linear dataset's supports; a value an inner sum or a complexity reads as
    /// [`Model::support`] counts it.
    fn supports(&self, slots: &[usize]) -> Vec<usize> {
        let columns = self.linear.column_supports(slots);
        let inner = |&slot: &usize| !self.inner.linear(slot);
        (slots.iter().zip(columns))
            .map(|(s, n)| if inner(s) { self.support(&[*s]) } else { n })
            .collect()
    }

    fn cache(&self, _values: &Vec<i32>) {}

    fn cache_bytes(_cache: &()) -> usize {
        0
    }

    fn refresh(&mut self, _cache: &mut (), values: &Vec<i32>) {
        self.rescore(values);
    }

    fn probe_each(
        &self,
        cache: &mut (),
        (values, moves): (&Vec<i32>, &[(usize, i32)]),
        sigmoid: &SigmoidTable,
        errors: &[f64],
    ) -> Vec<f64> {
        let (columns, others): (Vec<usize>, Vec<usize>) =
            (0..moves.len()).partition(|&m| Model::linear(self, moves[m].0));
        let (walked, others): (Vec<usize>, Vec<usize>) =
            others.into_iter().partition(|&m| self.walks(moves[m].0));
        let mut changes = vec![0.0; moves.len()];
        for (m, change) in self.walked_probes((values, moves), &walked, sigmoid, errors) {
            changes[m] = change;
        }
        for m in others {
            changes[m] = self.probe(cache, Move::of(values, moves[m], sigmoid), errors);
        }
        let linear: Vec<(usize, i32)> = columns.iter().map(|&m| moves[m]).collect();
        let value = |i, s| self.value(i, s);
        let probes = (self.linear).column_probes((values, &linear), sigmoid, errors, value);
        for (&m, change) in columns.iter().zip(probes) {
            changes[m] = change;
        }
        changes
    }

    fn scorings(&self) -> u64 {
        self.linear.scorings()
    }

    fn reach(&self, slot: usize) -> usize {
        self.linear.reach(slot) + self.inner.reach(slot)
    }

    fn eval_moves(&self, _cache: &mut (), mv: Move<'_, Vec<i32>>) -> Vec<(u32, f64)> {
        self.eval_changes(mv.values, mv.slot, mv.delta)
    }

    fn lattice_polish(&self) -> bool {
        true
    }

    fn exact(&self) -> Option<&dyn Exact> {
        Some(self)
    }
}

impl ComposedDataset {
    /// Whether a probe of `slot` walks its counts ([`Inner::each_moved`]): a value only
    /// counted in sums, in no column, where no complexity reads the endgame part.
    pub(super) fn walks(&self, slot: usize) -> bool {
        !self.inner.has_complexity()
            && self.inner.only_counted(slot)
            && self.linear.reach(slot) == 0
    }

    /// The change of the summed error for each of the moves `which` of `moves` (values
    /// that [`ComposedDataset::walks`]), with the move's number: each value's moves in one
    /// walk of its counts, the values on any thread, each change summed in whole error units
    /// as [`Model::probe`] sums it (the same changes).
    fn walked_probes(
        &self,
        (values, moves): (&Vec<i32>, &[(usize, i32)]),
        which: &[usize],
        sigmoid: &SigmoidTable,
        errors: &[f64],
    ) -> Vec<(usize, f64)> {
        let mut by_slot: Vec<(usize, Vec<usize>)> = Vec::new();
        for &m in which {
            match by_slot.iter_mut().find(|s| s.0 == moves[m].0) {
                Some(s) => s.1.push(m),
                None => by_slot.push((moves[m].0, vec![m])),
            }
        }
        let walk = |(slot, ms): &(usize, Vec<usize>)| {
            let steps: Vec<i32> = ms.iter().map(|&m| moves[m].1).collect();
            let mut units = vec![0i64; steps.len()];
            self.inner
                .each_moved((values, *slot), &steps, |i, n, added| {
                    let i = i as usize;
                    let d = added.with(0.0) - self.inner.added(i).with(0.0);
                    if d != 0.0 {
                        let new = centipawns(self.exact_eval(i) + d);
                        let error = sigmoid.squared_error(new, self.target(i));
                        units[n] += error_units(error - errors[i]);
                    }
                });
            let each = ms.iter().zip(units);
            each.map(|(&m, u)| (m, u as f64 / ERROR_UNITS))
                .collect::<Vec<_>>()
        };
        by_slot.par_iter().flat_map_iter(walk).collect()
    }
}

/// The linear dataset's rows, built a sixteenth of a block at a time.
impl Jacobian for ComposedDataset {
    fn pairs_with_next(&self, slot: usize) -> bool {
        self.linear.pairs_with_next(slot)
    }

    fn row_blocks(&self) -> usize {
        self.linear.row_blocks()
    }

    fn block_span(&self, b: usize) -> (usize, usize) {
        self.linear.block_span(b)
    }

    fn block_rows<S: RowSink>(&self, b: usize, slots: &[usize], rows: &mut S) {
        self.linear.block_rows(b, slots, rows);
    }

    fn row_part(&self) -> usize {
        ROW_PART
    }

    fn part_rows<S: RowSink>(&self, b: usize, within: Range<usize>, slots: &[usize], rows: &mut S) {
        self.linear.part_rows(b, within, slots, rows);
    }

    fn block_product(&self, b: usize, slots: &[usize], direction: &[f64], out: &mut [f64]) {
        self.linear.block_product(b, slots, direction, out);
    }

    fn block_gradient(&self, b: usize, slots: &[usize], slopes: &[f64], gradient: &mut [f64]) {
        self.linear.block_gradient(b, slots, slopes, gradient);
    }
}
