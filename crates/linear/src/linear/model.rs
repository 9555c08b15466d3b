//! The linear dataset answering what a model must ([`Model`]), its faster probes
//! ([`Probes`]) and its Jacobian's rows ([`Jacobian`]).

use super::{Block, LinearDataset, Step, Sums, ZeroList, BLOCK};
use crate::layout::Part;
use crate::rescoring::Rescoring;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::Arc;
use texel_solve::error::{SigmoidTable, ERROR_UNITS};
use texel_solve::jacobian::{Jacobian, RowSink};
use texel_solve::model::{Model, Move, Probes};
use texel_trace::centipawns;

impl LinearDataset {
    /// A sample of about one block in `n` (see [`Model::sample`]) and the positions it
    /// kept, rising.
    pub(crate) fn sample_kept(&self, n: usize) -> (LinearDataset, Vec<usize>) {
        let mut sample = LinearDataset {
            layout: self.layout.clone(),
            targets: Vec::new(),
            offsets: ZeroList::default(),
            tapers: Arc::default(),
            sums: Vec::new(),
            blocks: Vec::new(),
            rescoring: Rescoring::default(),
        };
        let (mut kept, mut tapers) = (Vec::new(), Vec::new());
        let chosen = self.blocks.iter().enumerate();
        for (_, block) in chosen.filter(|&(i, _)| texel_data::sampled(i, n)) {
            let range = block.start as usize..(block.start + block.len) as usize;
            let mut copy = block.clone();
            copy.start = sample.targets.len() as u32;
            sample
                .targets
                .extend_from_slice(&self.targets[range.clone()]);
            sample.offsets.extend_from(&self.offsets, range.clone());
            tapers.extend_from_slice(&self.tapers[range.clone()]);
            sample.sums.extend_from_slice(&self.sums[range.clone()]);
            sample.blocks.push(copy);
            kept.extend(range);
        }
        sample.tapers = Arc::new(tapers);
        (sample, kept)
    }

    /// Whether the columns give position `i`, of those `seen`, a slope in any of `slots`:
    /// marks them.
    pub(crate) fn mark_support(&self, slots: &[usize], seen: &mut [bool]) {
        for block in &self.blocks {
            for &slot in slots {
                self.for_slot(block, slot, |i, step| seen[i] |= self.slope(i, step) != 0.0);
            }
        }
    }

    /// The change of the summed error if linear `mv` were made, block by block on every
    /// thread, position `i` with sums `s` evaluating to `value(i, s)`.
    pub(crate) fn column_probe(
        &self,
        mv: Move<'_, Vec<i32>>,
        errors: &[f64],
        value: impl Fn(usize, Sums) -> f64 + Sync,
    ) -> f64 {
        let blocks: Vec<i64> = (self.blocks.par_iter())
            .map(|block| self.block_change(block, mv, errors, &value))
            .collect();
        blocks.iter().sum::<i64>() as f64 / ERROR_UNITS
    }

    /// [`Probes::probe_each`] of linear `moves`: a block at a time, every move over it
    /// while its positions are in cache; whole error units, so the sums do not depend on
    /// the threads. Position `i` with sums `s` evaluates to `value(i, s)`.
    pub(crate) fn column_probes(
        &self,
        (values, moves): (&Vec<i32>, &[(usize, i32)]),
        sigmoid: &SigmoidTable,
        errors: &[f64],
        value: impl Fn(usize, Sums) -> f64 + Sync,
    ) -> Vec<f64> {
        let each = |&mv: &(usize, i32)| Move::of(values, mv, sigmoid);
        let units = (self.blocks.par_iter())
            .fold(
                || vec![0i64; moves.len()],
                |mut acc, block| {
                    for (a, mv) in acc.iter_mut().zip(moves) {
                        *a += self.block_change(block, each(mv), errors, &value);
                    }
                    acc
                },
            )
            .reduce(
                || vec![0i64; moves.len()],
                |mut a, b| {
                    a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
                    a
                },
            );
        units.into_iter().map(|u| u as f64 / ERROR_UNITS).collect()
    }

    /// Moves the sums of `slot`'s positions by `delta` for good; returns the steps taken,
    /// block by block.
    pub(crate) fn move_sums(&mut self, slot: usize, delta: i32) -> Vec<(usize, Step)> {
        self.rescoring.moved();
        let steps = self.steps(slot);
        for &(i, step) in &steps {
            self.sums[i] = self.sums[i].moved(step, delta);
        }
        steps
    }

    /// Each of `slots`' positions in the columns, a block at a time on every thread, each
    /// position once a value.
    pub(crate) fn column_supports(&self, slots: &[usize]) -> Vec<usize> {
        let in_columns = |block: &Block| {
            let mut last = vec![usize::MAX; block.len as usize];
            let each = slots.iter().enumerate().map(|(n, &slot)| {
                let mut count = 0;
                self.for_slot(block, slot, |i, step| {
                    let seen = &mut last[i - block.start as usize];
                    if *seen != n && self.slope(i, step) != 0.0 {
                        (*seen, count) = (n, count + 1);
                    }
                });
                count
            });
            each.collect::<Vec<usize>>()
        };
        let parts: Vec<Vec<usize>> = self.blocks.par_iter().map(in_columns).collect();
        let columns = (0..slots.len()).map(|n| parts.iter().map(|p| p[n]).sum::<usize>());
        columns.collect()
    }
}

impl Model for LinearDataset {
    type Values = Vec<i32>;

    fn len(&self) -> usize {
        self.targets.len()
    }

    fn slot_count(&self) -> usize {
        self.layout.slots.len()
    }

    fn target(&self, i: usize) -> f64 {
        f64::from(self.targets[i])
    }

    fn set_targets(&mut self, targets: Vec<f32>) {
        assert_eq!(targets.len(), self.targets.len(), "one target a position");
        self.targets = targets;
    }

    fn eval(&self, i: usize) -> i32 {
        centipawns(self.exact_eval(i))
    }

    fn rescore(&mut self, values: &Vec<i32>) {
        // Into a list beside the old one, whose changes the probes update over.
        let mut sums = vec![Sums::default(); self.len()];
        self.fill_sums(values, &mut sums);
        self.rescoring.rescored(&self.sums, &sums, true);
        self.sums = sums;
    }

    fn sample(&self, n: usize) -> Self {
        self.sample_kept(n).0
    }

    fn support(&self, slots: &[usize]) -> usize {
        let mut seen = vec![false; self.len()];
        self.mark_support(slots, &mut seen);
        seen.iter().filter(|&&s| s).count()
    }

    fn probe(&self, _cache: &mut (), mv: Move<'_, Vec<i32>>, errors: &[f64]) -> f64 {
        self.column_probe(mv, errors, |i, s| self.value(i, s))
    }

    fn apply(&mut self, _cache: &mut (), mv: Move<'_, Vec<i32>>, errors: &mut [f64]) {
        let steps = self.move_sums(mv.slot, mv.delta);
        for (i, _) in steps {
            let target = f64::from(self.targets[i]);
            errors[i] = mv.sigmoid.squared_error(self.eval(i), target);
        }
    }

    fn linear(&self, _slot: usize) -> bool {
        true
    }

    fn exact_eval(&self, i: usize) -> f64 {
        LinearDataset::exact_eval(self, i)
    }
}

impl Probes for LinearDataset {
    type Cache = ();

    /// The columns' positions a block at a time on every thread, each position once a
    /// value.
    fn supports(&self, slots: &[usize]) -> Vec<usize> {
        self.column_supports(slots)
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
        _cache: &mut (),
        moves: (&Vec<i32>, &[(usize, i32)]),
        sigmoid: &SigmoidTable,
        errors: &[f64],
    ) -> Vec<f64> {
        self.column_probes(moves, sigmoid, errors, |i, s| self.value(i, s))
    }

    fn scorings(&self) -> u64 {
        self.rescoring.count()
    }

    fn probe_since(
        &self,
        mv: Move<'_, Vec<i32>>,
        errors: &[f64],
        before: (u64, f64),
    ) -> Option<f64> {
        self.probe_update(mv, errors, before)
    }

    fn reach(&self, slot: usize) -> usize {
        let (entry, _) = self.layout.slots[slot];
        (self.blocks.iter())
            .map(|b| b.counts.get(entry as usize).0.len() + b.weights.get(slot).0.len())
            .sum()
    }

    fn eval_moves(&self, _cache: &mut (), mv: Move<'_, Vec<i32>>) -> Vec<(u32, f64)> {
        self.column_changes(mv.slot, mv.delta)
    }

    fn lattice_polish(&self) -> bool {
        true
    }
}

impl Jacobian for LinearDataset {
    /// A tapered entry's middlegame value pairs with its endgame value.
    fn pairs_with_next(&self, slot: usize) -> bool {
        self.layout.slots[slot].1 == Part::Mid
    }

    fn row_blocks(&self) -> usize {
        self.blocks.len()
    }

    fn block_span(&self, b: usize) -> (usize, usize) {
        let block = &self.blocks[b];
        (block.start as usize, block.len as usize)
    }

    fn block_rows<S: RowSink>(&self, b: usize, slots: &[usize], rows: &mut S) {
        let (start, len) = self.block_span(b);
        self.part_rows(b, start..start + len, slots, rows);
    }

    fn row_part(&self) -> usize {
        BLOCK / 4
    }

    fn part_rows<S: RowSink>(&self, b: usize, within: Range<usize>, slots: &[usize], rows: &mut S) {
        let block = &self.blocks[b];
        rows.begin(within.start, within.len());
        let first = block.start as usize;
        let local = within.start - first..within.end - first;
        for (j, &slot) in slots.iter().enumerate() {
            self.for_slot_in(block, slot, local.clone(), |i, step| {
                rows.push(i, j as u32, self.slope(i, step))
            });
        }
    }

    fn block_product(&self, b: usize, slots: &[usize], direction: &[f64], out: &mut [f64]) {
        self.full_product(b, slots, direction, out);
    }

    fn block_gradient(&self, b: usize, slots: &[usize], slopes: &[f64], gradient: &mut [f64]) {
        self.full_gradient(b, slots, slopes, gradient);
    }
}
