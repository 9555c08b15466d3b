//! Any engine's linear evaluation as a [`Model`](texel_solve::model::Model), read from a trace (`docs/trace-format.md`).
//!
//! A position's evaluation is `offset + phase · M + (1 − phase) · scale · E + P + F`: `M` and
//! `E` sum whole counts times the middlegame and endgame values of tapered entries, `P` whole
//! counts times plain values (all three exact integers), and `F` every other coefficient (a
//! fractional or large count, a split count) as a weight times a value. The positions are
//! kept in blocks of [`BLOCK`]; per block, each entry has a column of (position, count)
//! pairs of three bytes, which serves both values of a tapered entry as texel's packed
//! columns do, and each value slot a column of (position, weight) pairs for the rest. A
//! probe reads one column, block by block in order; the full pass adds each block's columns
//! into its positions' sums, so sums never depend on the number of threads.

mod form;
mod full_pass;
mod model;
mod real;
mod since;

use crate::layout::{Columns, Layout, Part, Step, Sums, BLOCK};
use crate::rescoring::Rescoring;
use crate::zeros::ZeroList;

use rayon::prelude::*;
use std::ops::Range;
use std::sync::Arc;
use texel_solve::error::error_units;
use texel_solve::model::Move;
use texel_trace::{centipawns, Coef, ParamSpace, PositionSource, TracedPosition};

/// The columns of one block of positions.
#[derive(Clone, Debug, Default)]
pub(crate) struct Block {
    /// The first position.
    pub(crate) start: u32,
    /// Positions in the block.
    pub(crate) len: u32,
    /// Per entry, its whole counts from −128 to 127.
    counts: Columns<i8>,
    /// Per value slot, every other coefficient as centipawns per unit of the value.
    weights: Columns<f32>,
}

/// The coefficients of a block's positions as (key, position, factor) triples: whole counts
/// by entry, the rest as weights by slot, each key once per position (coefficients of one
/// key added up) and none zero. The buffers of one position are reused for the next.
#[derive(Default)]
struct Rows {
    counts: Vec<(u32, u16, i8)>,
    weights: Vec<(u32, u16, f32)>,
    row_counts: Vec<(u32, f64)>,
    row_weights: Vec<(u32, f64)>,
}

/// Sorts `pairs` by key and adds up the values of equal keys, dropping zeros.
pub(crate) fn merged(pairs: &mut Vec<(u32, f64)>) {
    pairs.sort_unstable_by_key(|e| e.0);
    let mut kept = 0;
    for i in 0..pairs.len() {
        if kept > 0 && pairs[kept - 1].0 == pairs[i].0 {
            pairs[kept - 1].1 += pairs[i].1;
        } else {
            pairs[kept] = pairs[i];
            kept += 1;
        }
    }
    pairs.truncate(kept);
    pairs.retain(|e| e.1 != 0.0);
}

impl Rows {
    /// Adds position `p` (number `at` in its block), with `layout` of its space.
    fn add(&mut self, layout: &Layout, p: &TracedPosition, at: u16) {
        let (phase, scale) = p.taper();
        let (counts, weights) = (&mut self.row_counts, &mut self.row_weights);
        counts.clear();
        weights.clear();
        for c in &p.coeffs {
            match *c {
                Coef::Count(i, n) => counts.push((i, f64::from(n))),
                Coef::Split(i, m, e) => {
                    // Weights are kept as 32-bit floats, formed in 64 bits.
                    let first = layout.first_slot[i as usize];
                    weights.extend([(first, f64::from(m)), (first + 1, f64::from(e) * scale)]);
                }
            }
        }
        merged(counts);
        // A slot takes one kind of column per position: an entry with a split count here
        // has its whole counts as weights too.
        let splits = weights.len();
        for &(entry, n) in counts.iter() {
            let first = layout.first_slot[entry as usize];
            let split = weights[..splits].iter().any(|w| w.0 == first);
            let whole = n == n.round() && (-128.0..=127.0).contains(&n) && !split;
            match (whole, layout.slots[first as usize].1) {
                (true, _) => self.counts.push((entry, at, n as i8)),
                (false, Part::Plain) => weights.push((first, n)),
                (false, _) => {
                    weights.extend([(first, n * phase), (first + 1, n * (1.0 - phase) * scale)])
                }
            }
        }
        merged(weights);
        let kept = weights.iter().map(|&(s, w)| (s, at, w as f32));
        self.weights.extend(kept.filter(|w| w.2 != 0.0));
    }
}

impl Block {
    /// The block of the positions in `rows`, whose first is position `start`.
    fn from_rows(layout: &Layout, rows: &Rows, start: usize, len: usize) -> Block {
        Block {
            start: start as u32,
            len: len as u32,
            counts: Columns::build(layout.first_slot.len(), &rows.counts, 0),
            weights: Columns::build(layout.slots.len(), &rows.weights, 0.0),
        }
    }

    /// Bytes held.
    fn memory_bytes(&self) -> usize {
        self.counts.memory_bytes() + self.weights.memory_bytes()
    }
}

/// What a dataset keeps of its positions beside their linear columns, built as the columns
/// are: a block's worth at a time, in position order (a composed trace's inner sums; nothing
/// for a linear one).
pub(crate) trait Beside: Send + Sized {
    /// An empty set for positions of `space`.
    fn new(space: &ParamSpace) -> Self;
    /// Adds position `p`, the next position.
    fn add(&mut self, p: &TracedPosition);
    /// Appends `other`, whose positions follow these, of `total` positions in all.
    fn extend(&mut self, other: Self, total: usize);
}

/// A linear evaluation keeps nothing beside its columns.
impl Beside for () {
    fn new(_space: &ParamSpace) {}

    fn add(&mut self, _p: &TracedPosition) {}

    fn extend(&mut self, _other: (), _total: usize) {}
}

/// A dataset built on a linear dataset's columns: the linear one itself, or one that keeps
/// more of each position beside them.
pub(crate) trait OnColumns: Sized {
    /// What it keeps beside the columns.
    type Beside: Beside;
    /// The dataset of `linear` and what its positions keep `beside` it.
    fn on(linear: LinearDataset, beside: Self::Beside) -> Self;
}

impl OnColumns for LinearDataset {
    type Beside = ();

    fn on(linear: LinearDataset, _beside: ()) -> LinearDataset {
        linear
    }
}

/// One block of a dataset being built: its columns and its positions' fields, in order.
struct BlockPart<B, X> {
    block: Block,
    beside: B,
    targets: Vec<f32>,
    offsets: ZeroList<f64>,
    tapers: Vec<[f64; 2]>,
    extras: Vec<X>,
}

impl<B: Beside, X> BlockPart<B, X> {
    /// The block of positions `chosen` of `source`, whose first is position `start` of the
    /// dataset, with each position's label and `extra`.
    fn build<S: PositionSource + ?Sized>(
        (layout, space): (&Layout, &ParamSpace),
        source: &S,
        chosen: &[usize],
        start: usize,
        label: &impl Fn(&TracedPosition) -> f32,
        extra: &impl Fn(&TracedPosition) -> X,
    ) -> Result<BlockPart<B, X>, S::Error> {
        let n = chosen.len();
        let (mut rows, mut scratch) = (Rows::default(), TracedPosition::default());
        let (mut targets, mut offsets) = (Vec::with_capacity(n), ZeroList::default());
        let (mut tapers, mut extras) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut beside = B::new(space);
        source.for_each(chosen, &mut scratch, |at, p| {
            rows.add(layout, p, at as u16);
            beside.add(p);
            targets.push(label(p));
            let ((phase, scale), (offset, offset_end)) = (p.taper(), p.fixed());
            offsets.push(offset + (1.0 - phase) * scale * offset_end);
            tapers.push([phase, (1.0 - phase) * scale]);
            extras.push(extra(p));
        })?;
        Ok(BlockPart {
            block: Block::from_rows(layout, &rows, start, n),
            beside,
            targets,
            offsets,
            tapers,
            extras,
        })
    }
}

/// The positions of a trace whose evaluation is linear in its values, ready for tuning an
/// outside engine's evaluation: the ground a composed evaluation stands on
/// (`ComposedDataset`).
#[derive(Clone, Debug)]
pub struct LinearDataset {
    pub(crate) layout: Layout,
    /// Each position's label: White's score, 0 to 1.
    pub(crate) targets: Vec<f32>,
    /// Each position's fixed part of the evaluation, centipawns.
    offsets: ZeroList<f64>,
    /// Each position's weight of middlegame values (its phase) and of endgame values
    /// (`(1 − phase) · scale`).
    pub(crate) tapers: Arc<Vec<[f64; 2]>>,
    /// Each position's sums under the current values.
    pub(crate) sums: Vec<Sums>,
    pub(crate) blocks: Vec<Block>,
    /// What the last scoring changed, for probes updated over those positions.
    pub(crate) rescoring: Rescoring,
}

impl LinearDataset {
    /// The dataset of `positions` of `space`, labelled by `label` (a position's result or
    /// score), with evaluations of all-zero values (see [`Model::rescore`](texel_solve::model::Model::rescore)).
    pub fn new(
        space: &ParamSpace,
        positions: &[&TracedPosition],
        label: impl Fn(&TracedPosition) -> f32 + Sync,
    ) -> LinearDataset {
        let all: Vec<usize> = (0..positions.len()).collect();
        let Ok((set, _)) = LinearDataset::build(space, positions, &all, label, |_| ());
        set
    }

    /// The dataset of positions `chosen` (by number, in this order) of `source`, labelled by
    /// `label`, with evaluations of all-zero values, and `extra` of each chosen position, in
    /// order: a linear dataset, or one built on its columns (`D`). Each block's positions
    /// are visited once, on any thread, so a binary trace is decoded straight into the
    /// columns.
    pub(crate) fn build<D, S, X>(
        space: &ParamSpace,
        source: &S,
        chosen: &[usize],
        label: impl Fn(&TracedPosition) -> f32 + Sync,
        extra: impl Fn(&TracedPosition) -> X + Sync,
    ) -> Result<(D, Vec<X>), S::Error>
    where
        D: OnColumns,
        S: PositionSource + ?Sized,
        X: Send,
    {
        let layout = Layout::new(space);
        let n = chosen.len();
        let mut set = LinearDataset {
            layout,
            targets: Vec::with_capacity(n),
            offsets: ZeroList::default(),
            tapers: Arc::default(),
            sums: vec![Sums::default(); n],
            blocks: Vec::with_capacity(n.div_ceil(BLOCK)),
            rescoring: Rescoring::default(),
        };
        let (mut tapers, mut beside, mut extras) = (
            Vec::with_capacity(n),
            D::Beside::new(space),
            Vec::with_capacity(n),
        );
        // Two blocks a thread at a time, appended in order: the parts held at once stay a
        // few blocks (all built first, they would hold the whole dataset twice). One at a
        // time in the unit tests, whose datasets then take several turns.
        let group = BLOCK
            * if cfg!(test) {
                1
            } else {
                2 * rayon::current_num_threads()
            };
        for (g, chunk) in chosen.chunks(group).enumerate() {
            let parts: Vec<Result<BlockPart<D::Beside, X>, _>> = (chunk.par_chunks(BLOCK))
                .enumerate()
                .map(|(b, chunk)| {
                    let start = g * group + b * BLOCK;
                    BlockPart::build((&set.layout, space), source, chunk, start, &label, &extra)
                })
                .collect();
            for part in parts {
                let part = part?;
                set.targets.extend(part.targets);
                set.offsets.extend(part.offsets);
                tapers.extend(part.tapers);
                set.blocks.push(part.block);
                beside.extend(part.beside, n);
                extras.extend(part.extras);
            }
        }
        set.offsets.shrink_to_fit();
        set.tapers = Arc::new(tapers);
        Ok((D::on(set, beside), extras))
    }

    /// Bytes held in memory.
    pub fn memory_bytes(&self) -> usize {
        4 * self.targets.capacity()
            + self.offsets.memory_bytes()
            + 16 * self.tapers.capacity()
            + std::mem::size_of::<Sums>() * self.sums.capacity()
            + self.blocks.iter().map(Block::memory_bytes).sum::<usize>()
            + self.rescoring.memory_bytes()
    }

    /// The exact evaluation of position `i` under the current values (before rounding).
    pub fn exact_eval(&self, i: usize) -> f64 {
        self.value(i, self.sums[i])
    }

    /// What the linear entries and the fixed part give position `i` with sums `s`.
    #[inline]
    pub(crate) fn value(&self, i: usize, s: Sums) -> f64 {
        let [m, e] = self.tapers[i];
        let o = self.offsets.get(i);
        o + m * s.mid as f64 + e * s.end as f64 + s.plain as f64 + s.free
    }

    /// The sums of the positions of `block` under `values`, from scratch, into `out` (one
    /// a position of the block).
    fn block_sums(&self, block: &Block, values: &[i32], out: &mut [Sums]) {
        let n = block.len as usize;
        // A tapered entry's two values move together: one packed multiply-add for both.
        let (mut tapered, mut plain) = (vec![0i64; n], vec![0i64; n]);
        for (entry, &first) in self.layout.first_slot.iter().enumerate() {
            let (pos, count) = block.counts.get(entry);
            let first = first as usize;
            if self.layout.slots[first].1 == Part::Plain {
                add_counts(&mut plain, pos, count, i64::from(values[first]));
            } else {
                let packed = pack(values[first], values[first + 1]);
                add_counts(&mut tapered, pos, count, packed);
            }
        }
        let mut free = vec![0f64; n];
        for (slot, &v) in values.iter().enumerate().filter(|(_, &v)| v != 0) {
            let (pos, weight) = block.weights.get(slot);
            for (&p, &w) in pos.iter().zip(weight) {
                free[usize::from(p)] += f64::from(w) * f64::from(v);
            }
        }
        for (j, out) in out.iter_mut().enumerate() {
            let (mid, end) = unpack(tapered[j]);
            *out = Sums {
                mid,
                end,
                plain: plain[j],
                free: free[j],
            };
        }
    }

    /// Each position's endgame values times their weights under `values`: the part of its
    /// free sum ([`Sums::free`]) they give, from scratch.
    pub(crate) fn weighted_ends(&self, values: &[i32]) -> Vec<f64> {
        let parts: Vec<Vec<f64>> = (self.blocks.par_iter())
            .map(|b| self.block_weighted_ends(b, values))
            .collect();
        parts.concat()
    }

    /// [`LinearDataset::weighted_ends`] of the positions of `block`.
    fn block_weighted_ends(&self, block: &Block, values: &[i32]) -> Vec<f64> {
        let mut ends = vec![0f64; block.len as usize];
        let slots = (self.layout.slots.iter()).enumerate();
        let tuned = slots.filter(|&(slot, s)| s.1 == Part::End && values[slot] != 0);
        for (slot, _) in tuned {
            let (pos, weight) = block.weights.get(slot);
            for (&p, &w) in pos.iter().zip(weight) {
                ends[usize::from(p)] += f64::from(w) * f64::from(values[slot]);
            }
        }
        ends
    }

    /// Every position's sums under `values`, each block's straight into its place in `sums`.
    fn fill_sums(&self, values: &[i32], sums: &mut [Sums]) {
        let mut rest = sums;
        let mut places = Vec::with_capacity(self.blocks.len());
        for block in &self.blocks {
            let (place, later) = rest.split_at_mut(block.len as usize);
            places.push((block, place));
            rest = later;
        }
        (places.into_par_iter()).for_each(|(block, place)| self.block_sums(block, values, place));
    }

    /// Scores every position anew at `values` over the sums it has, keeping no changes:
    /// for an evaluation that adds more than the sums give (`ComposedDataset`),
    /// which probes no update over them.
    pub(crate) fn rescore_over(&mut self, values: &[i32]) {
        let mut sums = std::mem::take(&mut self.sums);
        self.fill_sums(values, &mut sums);
        self.rescoring.rescored(&self.sums, &sums, false);
        self.sums = sums;
    }

    /// Calls `f(position, step)` for every coefficient of `slot` in `block`, in position
    /// order within each kind of column.
    #[inline]
    pub(crate) fn for_slot(&self, block: &Block, slot: usize, f: impl FnMut(usize, Step)) {
        self.for_slot_in(block, slot, 0..block.len as usize, f);
    }

    /// [`LinearDataset::for_slot`] of the positions `within` of `block` (numbered in it).
    #[inline]
    fn for_slot_in(
        &self,
        block: &Block,
        slot: usize,
        within: Range<usize>,
        mut f: impl FnMut(usize, Step),
    ) {
        let first = block.start as usize;
        let (entry, part) = self.layout.slots[slot];
        let (pos, count) = part_of(block.counts.get(entry as usize), &within);
        for (&p, &c) in pos.iter().zip(count) {
            f(first + usize::from(p), Step::Count(part, i64::from(c)));
        }
        let (pos, weight) = part_of(block.weights.get(slot), &within);
        for (&p, &w) in pos.iter().zip(weight) {
            f(first + usize::from(p), Step::Weight(part, f64::from(w)));
        }
    }

    /// Every coefficient of `slot` as (position, step), block by block.
    pub(crate) fn steps(&self, slot: usize) -> Vec<(usize, Step)> {
        let mut steps = Vec::new();
        for block in &self.blocks {
            self.for_slot(block, slot, |i, step| steps.push((i, step)));
        }
        steps
    }

    /// The change of `block`'s summed error if linear `mv` were made (`errors`: every
    /// position's squared error now), in error units, position `i` with sums `s` evaluating
    /// to `value(i, s)`.
    #[inline]
    pub(crate) fn block_change(
        &self,
        block: &Block,
        mv: Move<'_, Vec<i32>>,
        errors: &[f64],
        value: impl Fn(usize, Sums) -> f64,
    ) -> i64 {
        let mut sum = 0;
        self.for_slot(block, mv.slot, |i, step| {
            let new = centipawns(value(i, self.sums[i].moved(step, mv.delta)));
            let error = mv.sigmoid.squared_error(new, f64::from(self.targets[i]));
            sum += error_units(error - errors[i]);
        });
        sum
    }

    /// How many centipawns `step` moves position `i`'s evaluation per unit of the value.
    #[inline]
    pub(crate) fn slope(&self, i: usize, step: Step) -> f64 {
        match step {
            Step::Count(Part::Mid, c) => c as f64 * self.tapers[i][0],
            Step::Count(Part::End, c) => c as f64 * self.tapers[i][1],
            Step::Count(Part::Plain, c) => c as f64,
            Step::Weight(_, w) => w,
        }
    }

    /// How each position's evaluation changes if `slot` moves by `delta`: (position,
    /// change), positions rising within each block's kinds of column.
    pub(crate) fn column_changes(&self, slot: usize, delta: i32) -> Vec<(u32, f64)> {
        let mut out = Vec::new();
        for block in &self.blocks {
            self.for_slot(block, slot, |i, step| {
                out.push((i as u32, self.slope(i, step) * f64::from(delta)));
            });
        }
        out
    }
}

/// The pairs of a column (positions rising) whose positions lie `within`.
#[inline]
fn part_of<'c, T>(
    (pos, factor): (&'c [u16], &'c [T]),
    within: &Range<usize>,
) -> (&'c [u16], &'c [T]) {
    let whole = within.start == 0 && pos.last().is_none_or(|&p| usize::from(p) < within.end);
    if whole {
        return (pos, factor);
    }
    let from = pos.partition_point(|&p| usize::from(p) < within.start);
    let to = from + pos[from..].partition_point(|&p| usize::from(p) < within.end);
    (&pos[from..to], &factor[from..to])
}

/// Adds `count × value` into `sums` at each position of a count column.
#[inline]
fn add_counts(sums: &mut [i64], pos: &[u16], count: &[i8], value: i64) {
    if value == 0 {
        return;
    }
    for (&p, &c) in pos.iter().zip(count) {
        sums[usize::from(p)] += i64::from(c) * value;
    }
}

/// A middlegame and an endgame sum in one integer: `mid · 2³² + end`. Sums of packed
/// values are the packed sums while each part stays within ±2³¹.
#[inline]
fn pack(mid: i32, end: i32) -> i64 {
    (i64::from(mid) << 32) + i64::from(end)
}

/// The middlegame and endgame sums of a packed sum.
#[inline]
fn unpack(x: i64) -> (i64, i64) {
    let end = i64::from(x as i32);
    ((x - end) >> 32, end)
}
