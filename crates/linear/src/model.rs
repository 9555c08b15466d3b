//! The linear dataset answering what a model must ([`Model`]), its faster probes and
//! capabilities ([`Probes`]) and its Jacobian's rows ([`Jacobian`]).

use super::{
    Block, Inner, LinearDataset, Part, Rescoring, Sums, ZeroList, BLOCK, COMPOSED_ROW_PART,
};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::Arc;
use texel_solve::error::{error_units, SigmoidTable, ERROR_UNITS};
use texel_solve::jacobian::{Exact, Jacobian, RowSink};
use texel_solve::model::{Model, Move, Probes};
use texel_trace::centipawns;

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
        // Each block's sums straight into their place: one list beside the old one, whose
        // changes a linear dataset keeps; a composed one's new sums go over the old.
        let linear = !self.inner.is_used();
        let mut sums = match linear {
            true => vec![Sums::default(); self.len()],
            false => std::mem::take(&mut self.sums),
        };
        let mut rest = &mut sums[..];
        let mut places = Vec::with_capacity(self.blocks.len());
        for block in &self.blocks {
            let (place, later) = rest.split_at_mut(block.len as usize);
            places.push((block, place));
            rest = later;
        }
        (places.into_par_iter()).for_each(|(block, place)| self.block_sums(block, values, place));
        self.rescoring.rescored(&self.sums, &sums, linear);
        self.sums = sums;
        if self.inner.has_complexity() {
            let parts: Vec<Vec<f64>> = (self.blocks.par_iter())
                .map(|b| self.block_free_end(b, values))
                .collect();
            self.free_end = parts.concat();
        }
        self.inner.rescore(values);
    }

    fn sample(&self, n: usize) -> Self {
        let mut sample = LinearDataset {
            layout: self.layout.clone(),
            targets: Vec::new(),
            offsets: ZeroList::default(),
            tapers: Arc::default(),
            sums: Vec::new(),
            free_end: Vec::new(),
            blocks: Vec::new(),
            inner: Inner::default(),
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
            if !self.free_end.is_empty() {
                sample
                    .free_end
                    .extend_from_slice(&self.free_end[range.clone()]);
            }
            sample.blocks.push(copy);
            kept.extend(range);
        }
        if self.inner.is_used() {
            sample.inner = self.inner.only(&kept);
        }
        sample.set_tapers(tapers);
        sample
    }

    fn support(&self, slots: &[usize]) -> usize {
        let mut seen = vec![false; self.len()];
        for block in &self.blocks {
            for &slot in slots {
                self.for_slot(block, slot, |i, step| seen[i] |= self.slope(i, step) != 0.0);
            }
        }
        for &slot in slots.iter().filter(|&&s| !self.inner.linear(s)) {
            self.inner
                .positions_of(slot)
                .iter()
                .for_each(|&i| seen[i as usize] = true);
        }
        seen.iter().filter(|&&s| s).count()
    }

    fn probe(&self, _cache: &mut (), mv: Move<'_, Vec<i32>>, errors: &[f64]) -> f64 {
        let (k, delta) = (mv.sigmoid, mv.delta);
        // Not a column's move: an inner sum or a complexity reads the value.
        if !Model::linear(self, mv.slot) {
            let changes = self.eval_changes(mv.values, mv.slot, delta);
            // Whole error units: the same sum in any order, on any thread.
            let units: i64 = (changes.par_iter().with_min_len(4096))
                .map(|&(i, d)| {
                    let i = i as usize;
                    let new = centipawns(self.exact_eval(i) + d);
                    error_units(k.squared_error(new, f64::from(self.targets[i])) - errors[i])
                })
                .sum();
            return units as f64 / ERROR_UNITS;
        }
        let blocks: Vec<i64> = (self.blocks.par_iter())
            .map(|block| self.block_change(block, mv, errors))
            .collect();
        blocks.iter().sum::<i64>() as f64 / ERROR_UNITS
    }

    fn apply(&mut self, _cache: &mut (), mv: Move<'_, Vec<i32>>, errors: &mut [f64]) {
        self.rescoring.moved();
        let mut moves = Vec::new();
        for block in &self.blocks {
            self.for_slot(block, mv.slot, |i, step| moves.push((i, step)));
        }
        let mut touched: Vec<usize> = moves.iter().map(|m| m.0).collect();
        for (i, step) in moves {
            self.sums[i] = self.sums[i].moved(step, mv.delta);
            if let Some(end) = self.free_end.get_mut(i) {
                *end += step.end_weight() * f64::from(mv.delta);
            }
        }
        let inner = self.inner.apply(mv.values, mv.slot, mv.delta);
        if !inner.is_empty() {
            touched.extend(inner.iter().map(|&i| i as usize));
            touched.sort_unstable();
            touched.dedup();
        }
        for i in touched {
            let target = f64::from(self.targets[i]);
            errors[i] = mv.sigmoid.squared_error(self.eval(i), target);
        }
    }

    fn linear(&self, slot: usize) -> bool {
        let end = self.layout.slots[slot].1 == Part::End;
        self.inner.linear(slot) && !(end && self.inner.has_complexity())
    }

    fn exact_eval(&self, i: usize) -> f64 {
        LinearDataset::exact_eval(self, i)
    }
}

impl Probes for LinearDataset {
    type Cache = ();

    /// The columns' positions a block at a time on every thread, each position once a
    /// value; a value an inner sum or a complexity reads as [`Model::support`] counts it.
    fn supports(&self, slots: &[usize]) -> Vec<usize> {
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
        let each = |&mv: &(usize, i32)| Move::of(values, mv, sigmoid);
        let (columns, others): (Vec<usize>, Vec<usize>) =
            (0..moves.len()).partition(|&m| Model::linear(self, moves[m].0));
        let mut changes = vec![0.0; moves.len()];
        for m in others {
            changes[m] = self.probe(cache, each(&moves[m]), errors);
        }
        // A block at a time, every move over it while its positions are in cache; whole
        // error units, so the sums do not depend on the threads.
        let units = (self.blocks.par_iter())
            .fold(
                || vec![0i64; columns.len()],
                |mut acc, block| {
                    for (a, &m) in acc.iter_mut().zip(&columns) {
                        *a += self.block_change(block, each(&moves[m]), errors);
                    }
                    acc
                },
            )
            .reduce(
                || vec![0i64; columns.len()],
                |mut a, b| {
                    a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
                    a
                },
            );
        for (&m, u) in columns.iter().zip(units) {
            changes[m] = u as f64 / ERROR_UNITS;
        }
        changes
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
        let columns: usize = (self.blocks.iter())
            .map(|b| b.counts.get(entry as usize).0.len() + b.weights.get(slot).0.len())
            .sum();
        columns + self.inner.reach(slot)
    }

    fn eval_moves(&self, _cache: &mut (), mv: Move<'_, Vec<i32>>) -> Vec<(u32, f64)> {
        self.eval_changes(mv.values, mv.slot, mv.delta)
    }

    fn lattice_polish(&self) -> bool {
        true
    }

    fn exact(&self) -> Option<&dyn Exact> {
        self.inner.is_used().then_some(self as &dyn Exact)
    }
}

impl Jacobian for LinearDataset {
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
        match self.inner.is_used() {
            true => COMPOSED_ROW_PART,
            false => BLOCK / 4,
        }
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
