//! Any engine's linear evaluation as a [`Model`], read from a trace (`docs/trace-format.md`).
//!
//! Every value moves a position's evaluation by a fixed weight per unit: a middlegame value
//! by `count · phase`, an endgame value by `count · (1 − phase) · scale`, a plain value by
//! `count` (a split count gives its own middlegame and endgame weights). The positions are
//! kept in blocks of [`BLOCK`]; per block and value slot, a column of (position, weight)
//! entries. A probe sums over one column, block by block in order; the full pass adds each
//! block's columns into its positions' evaluations, slot by slot, so sums never depend on
//! the number of threads.

use crate::error::{error_slope, CHUNK};
use crate::model::{Model, Move};
use rayon::prelude::*;
use texel_trace::{Coef, ParamSpace, TracedPosition};

/// Positions per block.
pub const BLOCK: usize = 8192;

/// The columns of one block of positions.
#[derive(Clone, Debug, Default)]
struct Block {
    /// The first position.
    start: u32,
    /// Positions in the block.
    len: u32,
    /// Where each slot's entries begin (one more for the end).
    starts: Vec<u32>,
    /// Each entry's position, counted from `start`.
    pos: Vec<u16>,
    /// Each entry's weight: centipawns per unit of the slot's value.
    weight: Vec<f32>,
}

impl Block {
    /// The entries of `slot`: positions from `start` and weights.
    #[inline]
    fn column(&self, slot: usize) -> (&[u16], &[f32]) {
        let range = self.starts[slot] as usize..self.starts[slot + 1] as usize;
        (&self.pos[range.clone()], &self.weight[range])
    }

    /// The block of `positions`, whose first is position `start`, for `space`.
    fn build(space: &ParamSpace, positions: &[&TracedPosition], start: usize) -> Block {
        let slots = space.value_count();
        let mut entries: Vec<(u32, u16, f32)> = Vec::new();
        let mut row = Vec::new();
        for (p, position) in positions.iter().enumerate() {
            weights(space, position, &mut row);
            entries.extend(row.iter().map(|&(slot, w)| (slot, p as u16, w)));
        }
        // A stable sort by slot keeps each column in position order.
        entries.sort_by_key(|e| e.0);
        let mut starts = vec![0u32; slots + 1];
        for e in &entries {
            starts[e.0 as usize + 1] += 1;
        }
        for s in 0..slots {
            starts[s + 1] += starts[s];
        }
        Block {
            start: start as u32,
            len: positions.len() as u32,
            starts,
            pos: entries.iter().map(|e| e.1).collect(),
            weight: entries.iter().map(|e| e.2).collect(),
        }
    }

    /// Bytes held.
    fn memory_bytes(&self) -> usize {
        4 * self.starts.capacity() + 2 * self.pos.capacity() + 4 * self.weight.capacity()
    }
}

/// The weights of one position's values, one per slot it uses, in slot order (several
/// coefficients of one value added up, zero weights left out).
fn weights(space: &ParamSpace, p: &TracedPosition, row: &mut Vec<(u32, f32)>) {
    row.clear();
    let (phase, scale) = (f64::from(p.phase), f64::from(p.scale));
    for c in &p.coeffs {
        // Weights are kept as 32-bit floats, formed in 64 bits.
        let (entry, mid, end) = match *c {
            Coef::Count(i, n) => {
                let n = f64::from(n);
                (i, n * phase, n * (1.0 - phase) * scale)
            }
            Coef::Split(i, m, e) => (i, f64::from(m), f64::from(e) * scale),
        };
        let (mid, end) = (mid as f32, end as f32);
        // The reader checked every index against the header.
        let Some((param, at)) = space.entry(entry as usize) else {
            continue;
        };
        match (param.tapered, *c) {
            (false, Coef::Count(_, n)) => row.push((at as u32, n)),
            _ => row.extend([(at as u32, mid), (at as u32 + 1, end)]),
        }
    }
    row.sort_by_key(|e| e.0);
    let mut merged: Vec<(u32, f32)> = Vec::with_capacity(row.len());
    for &(slot, w) in row.iter() {
        match merged.last_mut() {
            Some(last) if last.0 == slot => last.1 += w,
            _ => merged.push((slot, w)),
        }
    }
    merged.retain(|e| e.1 != 0.0);
    *row = merged;
}

/// The positions of a trace, ready for tuning an outside engine's linear evaluation.
#[derive(Clone, Debug)]
pub struct LinearDataset {
    /// Values per position's evaluation.
    slots: usize,
    /// Each position's label: White's score, 0 to 1.
    targets: Vec<f32>,
    /// Each position's fixed part of the evaluation, centipawns.
    offsets: Vec<f32>,
    /// Each position's evaluation under the current values.
    evals: Vec<f64>,
    blocks: Vec<Block>,
}

impl LinearDataset {
    /// The dataset of `positions` of `space`, labelled by `label` (a position's result or
    /// score), with evaluations of all-zero values (see [`Model::rescore`]).
    pub fn new(
        space: &ParamSpace,
        positions: &[&TracedPosition],
        label: impl Fn(&TracedPosition) -> f32,
    ) -> LinearDataset {
        let chunks: Vec<(usize, &[&TracedPosition])> = positions
            .chunks(BLOCK)
            .enumerate()
            .map(|(b, c)| (b * BLOCK, c))
            .collect();
        let blocks = chunks
            .into_par_iter()
            .map(|(start, chunk)| Block::build(space, chunk, start))
            .collect();
        let offsets: Vec<f32> = positions.iter().map(|p| p.offset).collect();
        LinearDataset {
            slots: space.value_count(),
            targets: positions.iter().map(|p| label(p)).collect(),
            evals: offsets.iter().map(|&o| f64::from(o)).collect(),
            offsets,
            blocks,
        }
    }

    /// Bytes held in memory.
    pub fn memory_bytes(&self) -> usize {
        4 * (self.targets.capacity() + self.offsets.capacity())
            + 8 * self.evals.capacity()
            + self.blocks.iter().map(Block::memory_bytes).sum::<usize>()
    }

    /// The exact evaluation of position `i` under the current values (before rounding).
    pub fn exact_eval(&self, i: usize) -> f64 {
        self.evals[i]
    }

    /// The evaluations of the positions of `block` under `values`, from scratch.
    fn block_evals(&self, block: &Block, values: &[i32]) -> Vec<f64> {
        let first = block.start as usize;
        let mut evals: Vec<f64> = self.offsets[first..first + block.len as usize]
            .iter()
            .map(|&o| f64::from(o))
            .collect();
        for (slot, &v) in values.iter().enumerate().filter(|(_, &v)| v != 0) {
            let (pos, weight) = block.column(slot);
            for (&p, &w) in pos.iter().zip(weight) {
                evals[usize::from(p)] += f64::from(w) * f64::from(v);
            }
        }
        evals
    }
}

/// An evaluation in whole centipawns, as an engine computes it.
#[inline]
fn centipawns(eval: f64) -> i32 {
    eval.round() as i32
}

impl Model for LinearDataset {
    type Values = Vec<i32>;
    type Cache = ();

    fn len(&self) -> usize {
        self.targets.len()
    }

    fn slot_count(&self) -> usize {
        self.slots
    }

    fn target(&self, i: usize) -> f64 {
        f64::from(self.targets[i])
    }

    fn eval(&self, i: usize) -> i32 {
        centipawns(self.evals[i])
    }

    fn rescore(&mut self, values: &Vec<i32>) {
        let parts: Vec<Vec<f64>> = self
            .blocks
            .par_iter()
            .map(|b| self.block_evals(b, values))
            .collect();
        self.evals = parts.concat();
    }

    fn sample(&self, n: usize) -> Self {
        let mut sample = LinearDataset {
            slots: self.slots,
            targets: Vec::new(),
            offsets: Vec::new(),
            evals: Vec::new(),
            blocks: Vec::new(),
        };
        let chosen = self.blocks.iter().enumerate();
        for (_, block) in chosen.filter(|&(i, _)| crate::dataset::sampled(i, n)) {
            let range = block.start as usize..(block.start + block.len) as usize;
            let mut copy = block.clone();
            copy.start = sample.targets.len() as u32;
            sample
                .targets
                .extend_from_slice(&self.targets[range.clone()]);
            sample
                .offsets
                .extend_from_slice(&self.offsets[range.clone()]);
            sample.evals.extend_from_slice(&self.evals[range]);
            sample.blocks.push(copy);
        }
        sample
    }

    fn support(&self, slots: &[usize]) -> usize {
        let mut seen = vec![false; self.len()];
        for block in &self.blocks {
            for &slot in slots {
                for &p in block.column(slot).0 {
                    seen[block.start as usize + usize::from(p)] = true;
                }
            }
        }
        seen.iter().filter(|&&s| s).count()
    }

    fn cache(&self, _values: &Vec<i32>) {}

    fn cache_bytes(_cache: &()) -> usize {
        0
    }

    fn refresh(&mut self, _cache: &mut (), values: &Vec<i32>) {
        self.rescore(values);
    }

    fn probe(&self, _cache: &mut (), mv: Move<'_, Vec<i32>>, errors: &[f64]) -> f64 {
        let (k, delta) = (mv.sigmoid, f64::from(mv.delta));
        let blocks: Vec<f64> = self
            .blocks
            .par_iter()
            .map(|block| {
                let first = block.start as usize;
                let (pos, weight) = block.column(mv.slot);
                let mut sum = 0.0;
                for (&p, &w) in pos.iter().zip(weight) {
                    let i = first + usize::from(p);
                    let new = centipawns(self.evals[i] + f64::from(w) * delta);
                    sum += k.squared_error(new, f64::from(self.targets[i])) - errors[i];
                }
                sum
            })
            .collect();
        blocks.iter().sum()
    }

    fn apply(&mut self, _cache: &mut (), mv: Move<'_, Vec<i32>>, errors: &mut [f64]) {
        let delta = f64::from(mv.delta);
        for block in &self.blocks {
            let first = block.start as usize;
            let (pos, weight) = block.column(mv.slot);
            for (&p, &w) in pos.iter().zip(weight) {
                let i = first + usize::from(p);
                self.evals[i] += f64::from(w) * delta;
                let target = f64::from(self.targets[i]);
                errors[i] = mv.sigmoid.squared_error(centipawns(self.evals[i]), target);
            }
        }
    }

    fn linear(&self, _slot: usize) -> bool {
        true
    }

    fn linear_gradient(&self, slots: &[usize], k: f64) -> Vec<f64> {
        let n = self.len();
        let de_dq: Vec<f64> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .flat_map_iter(|c| {
                (c * CHUNK..((c + 1) * CHUNK).min(n))
                    .map(|i| error_slope(k, self.eval(i), self.target(i)))
            })
            .collect();
        slots
            .iter()
            .map(|&slot| {
                let blocks: Vec<f64> = self
                    .blocks
                    .par_iter()
                    .map(|block| {
                        let (pos, weight) = block.column(slot);
                        let first = block.start as usize;
                        let terms = pos.iter().zip(weight);
                        terms
                            .map(|(&p, &w)| f64::from(w) * de_dq[first + usize::from(p)])
                            .sum::<f64>()
                    })
                    .collect();
                blocks.iter().sum::<f64>() / n as f64
            })
            .collect()
    }
}
