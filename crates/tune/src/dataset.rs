//! The compact in-memory dataset: traced positions stored column by column.
//!
//! Per position: the label, phase, the cached sums and scale of the evaluation for the
//! current parameters, and the inputs of its formulas (king attack, endgame scale),
//! compactly coded. Per flat parameter: a column of (position, coefficient) pairs, delta-
//! and varint-coded, which is also the reverse index; per curve value a column of counts.
//! Per term read by a formula: the positions where it was read, or "all" when it is read in
//! most positions. Nothing depends on the board any more: every evaluation is recomputed
//! from these for any parameters.

use crate::touch::{Combiner, Touch};
use rayon::prelude::*;
use std::sync::LazyLock;
use texel_data::Label;
use texel_eval::curve::{slot_count, slot_curve};
use texel_eval::formula::Formula;
use texel_eval::params::{flat_params, Component};
use texel_eval::table::{FLAT_LEN, TERM_COUNT};
use texel_eval::varint;
use texel_eval::{taper, Formulas, Params, TermId, Trace, S};

/// For every flat parameter slot, the curve slots whose values read it.
static CURVE_DEPENDENTS: LazyLock<Vec<Vec<usize>>> = LazyLock::new(|| {
    let mut deps = vec![Vec::new(); FLAT_LEN];
    for d in 0..slot_count() {
        let (curve, index) = slot_curve(d);
        for p in curve.inputs(index) {
            for slot in [p.flat_index(), p.flat_index() + 1] {
                if deps[slot].last() != Some(&d) {
                    deps[slot].push(d);
                }
            }
        }
    }
    deps
});

/// Which positions a formula reads a term in.
#[derive(Clone, Debug)]
enum Reads {
    /// Never read by a formula.
    None,
    /// Read in these positions (delta-coded varints) — `count` of them.
    Some { bytes: Vec<u8>, count: u32 },
    /// Read in most positions: treated as read everywhere.
    All,
}

/// Positions summed at a time in a full pass: their sums stay in the cache.
const SLICE: usize = 131_072;

/// Walks a column forward through the positions, for the full pass.
struct ColumnCursor<'a> {
    bytes: &'a [u8],
    two: bool,
    /// Middlegame and endgame value the coefficients multiply.
    values: (i32, i32),
    at: usize,
    pos: u32,
    left: u32,
    /// The next entry not yet added: position and coefficients.
    next: Option<(u32, i32, i32)>,
}

impl<'a> ColumnCursor<'a> {
    /// A cursor at the first entry of `col` at or after position `start`.
    fn seek(col: &'a Column, kind: Kind, values: (i32, i32), start: usize) -> Self {
        // Entries of a block come after its recorded previous position.
        let b = col
            .blocks
            .partition_point(|blk| (blk.1 as usize) < start)
            .saturating_sub(1);
        let (at, pos) = col.blocks[b];
        let mut c = ColumnCursor {
            bytes: &col.bytes,
            two: kind == Kind::Scalar,
            values,
            at: at as usize,
            pos,
            left: col.entries - b as u32 * BLOCK,
            next: None,
        };
        c.advance();
        c.walk_until::<false>(start as u32, 0, &mut []);
        c
    }

    /// Decodes the next entry.
    #[inline]
    fn advance(&mut self) {
        self.next = (self.left > 0).then(|| {
            self.left -= 1;
            self.pos += varint::get(self.bytes, &mut self.at) as u32;
            let a = varint::unzigzag(varint::get(self.bytes, &mut self.at));
            let b = if self.two {
                varint::unzigzag(varint::get(self.bytes, &mut self.at))
            } else {
                a
            };
            (self.pos, a, b)
        });
    }

    /// Adds the entries before position `end` to `sums` (which start at position `first`).
    #[inline]
    fn add_until(&mut self, end: u32, first: usize, sums: &mut [[i32; 2]]) {
        self.walk_until::<true>(end, first, sums);
    }

    /// Moves past the entries before position `end`, adding them to `sums` (which start at
    /// position `first`) when `ADD`.
    #[inline]
    fn walk_until<const ADD: bool>(&mut self, end: u32, first: usize, sums: &mut [[i32; 2]]) {
        let Some(mut entry) = self.next else {
            return;
        };
        if entry.0 >= end {
            return;
        }
        let (mid, end_value) = self.values;
        let (bytes, two) = (self.bytes, self.two);
        let (mut at, mut pos, mut left) = (self.at, self.pos, self.left);
        loop {
            if ADD {
                let s = &mut sums[entry.0 as usize - first];
                s[0] += entry.1 * mid;
                s[1] += entry.2 * end_value;
            }
            if left == 0 {
                self.next = None;
                break;
            }
            left -= 1;
            pos += varint::get(bytes, &mut at) as u32;
            let a = varint::unzigzag(varint::get(bytes, &mut at));
            let b = if two {
                varint::unzigzag(varint::get(bytes, &mut at))
            } else {
                a
            };
            entry = (pos, a, b);
            if pos >= end {
                self.next = Some(entry);
                break;
            }
        }
        (self.at, self.pos, self.left) = (at, pos, left);
    }
}

/// Entries per block of a column: blocks can be decoded independently, in parallel.
pub(crate) const BLOCK: u32 = 4096;

/// One parameter's (position, coefficient) pairs, delta- and varint-coded.
#[derive(Clone, Debug, Default)]
struct Column {
    bytes: Vec<u8>,
    /// Byte offset and previous position at the start of every [`BLOCK`] entries.
    blocks: Vec<(u32, u32)>,
    entries: u32,
}

impl Column {
    /// Appends position `p` with its `values`; `last` is the column's previous position
    /// (the gap is what is stored) and becomes `p`.
    fn append(&mut self, p: u32, last: &mut u32, values: &[i32]) {
        if self.entries.is_multiple_of(BLOCK) {
            self.blocks.push((self.bytes.len() as u32, *last));
        }
        self.entries += 1;
        varint::put(&mut self.bytes, u64::from(p - *last));
        for &v in values {
            varint::put(&mut self.bytes, varint::zigzag(v));
        }
        *last = p;
    }
}

/// How a column's coefficients act on the two sums.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// The middlegame slot of an `S`: one coefficient, on the middlegame sum.
    Mid,
    /// The endgame slot of an `S`: the same coefficient, on the endgame sum.
    End,
    /// An untapered integer: a middlegame and an endgame coefficient.
    Scalar,
}

/// Decodes entries of a column from a block start, calling `f(pos, mid, end)`.
fn decode(
    bytes: &[u8],
    kind: Kind,
    at: usize,
    pos: u32,
    count: u32,
    mut f: impl FnMut(u32, i32, i32),
) {
    match kind {
        Kind::Mid => decode_as::<false>(bytes, at, pos, count, |p, a, _| f(p, a, 0)),
        Kind::End => decode_as::<false>(bytes, at, pos, count, |p, a, _| f(p, 0, a)),
        Kind::Scalar => decode_as::<true>(bytes, at, pos, count, f),
    }
}

/// [`decode`] for one or two coefficients per entry (the second is 0 with one).
#[inline]
fn decode_as<const TWO: bool>(
    bytes: &[u8],
    mut at: usize,
    mut pos: u32,
    count: u32,
    mut f: impl FnMut(u32, i32, i32),
) {
    for _ in 0..count {
        pos += varint::get(bytes, &mut at) as u32;
        let a = varint::unzigzag(varint::get(bytes, &mut at));
        let b = if TWO {
            varint::unzigzag(varint::get(bytes, &mut at))
        } else {
            0
        };
        f(pos, a, b);
    }
}

/// What every probe reads of a position, kept together for locality.
#[derive(Copy, Clone, Debug)]
struct Hot {
    /// White-minus-black sum of all terms for the current parameters (middlegame, endgame).
    sum: [i32; 2],
    phase: u8,
    scale: u8,
    /// The label: white's score in [`Label::steps`].
    label: u8,
}

/// Traced positions ready for tuning.
pub struct Dataset {
    hot: Vec<Hot>,
    /// Every position's [`Formulas`], coded one after the other.
    formulas: Vec<u8>,
    /// Where each position's formulas begin in `formulas` (one more entry: the end).
    offsets: Vec<u32>,
    columns: Vec<Column>,
    /// Counts of curve values, one column per curve slot (coefficient only).
    curve_columns: Vec<Column>,
    reads: Vec<Reads>,
    /// Per term, which formulas read it.
    read_by: Vec<ReadBy>,
}

/// Which formulas read a term.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ReadBy {
    /// The king attack formula.
    pub attack: bool,
    /// The endgame scale rules.
    pub scale: bool,
}

impl std::fmt::Debug for Dataset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dataset")
            .field("positions", &self.len())
            .field("memory_bytes", &self.memory_bytes())
            .finish_non_exhaustive()
    }
}

/// A dataset holds no more positions: see [`DatasetBuilder::push`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0} positions fill one dataset (32-bit position numbers, 4 GiB of formula inputs): load fewer"
)]
pub struct DatasetFull(pub usize);

/// Builds a [`Dataset`] one traced position at a time, in order.
pub struct DatasetBuilder {
    ds: Dataset,
    column_last: Vec<u32>,
    curve_last: Vec<u32>,
    read_last: Vec<u32>,
    /// Scratch: the terms the formulas of one position read.
    terms_read: Vec<usize>,
}

impl Default for DatasetBuilder {
    fn default() -> Self {
        DatasetBuilder {
            ds: Dataset {
                hot: Vec::new(),
                formulas: Vec::new(),
                offsets: vec![0],
                columns: vec![Column::default(); FLAT_LEN],
                curve_columns: vec![Column::default(); slot_count()],
                reads: vec![Reads::None; TERM_COUNT],
                read_by: vec![ReadBy::default(); TERM_COUNT],
            },
            column_last: vec![0; FLAT_LEN],
            curve_last: vec![0; slot_count()],
            read_last: vec![0; TERM_COUNT],
            terms_read: Vec::new(),
        }
    }
}

impl DatasetBuilder {
    /// Appends a position with its label and its trace, its evaluation cached for `params`.
    ///
    /// # Errors
    /// [`DatasetFull`] when the position does not fit: positions are numbered with 32 bits
    /// and the formula inputs of all positions take at most 4 GiB (about 200M positions).
    pub fn push(
        &mut self,
        label: Label,
        trace: &Trace,
        params: &Params,
    ) -> Result<(), DatasetFull> {
        let ds = &mut self.ds;
        let start = ds.formulas.len();
        trace.inputs.encode(&mut ds.formulas);
        let end = ds.formulas.len();
        if ds.hot.len() >= u32::MAX as usize || end > u32::MAX as usize {
            ds.formulas.truncate(start);
            return Err(DatasetFull(ds.hot.len()));
        }
        let p = ds.hot.len() as u32;
        let sum = trace.sum(params);
        ds.hot.push(Hot {
            sum: [sum.0, sum.1],
            phase: trace.phase as u8,
            scale: trace.inputs.scale(params) as u8,
            label: label.steps(),
        });
        ds.offsets.push(end as u32);
        let flat = flat_params();
        for c in &trace.coefs {
            let slot = usize::from(c.index);
            let last = &mut self.column_last[slot];
            match flat[slot].component {
                Component::End => {}
                Component::Mid => ds.columns[slot].append(p, last, &[c.mid]),
                Component::Scalar => ds.columns[slot].append(p, last, &[c.mid, c.end]),
            }
        }
        for c in &trace.curves {
            let slot = usize::from(c.slot);
            ds.curve_columns[slot].append(p, &mut self.curve_last[slot], &[c.count]);
        }
        self.record_reads(p, trace);
        Ok(())
    }

    /// Records which terms the formulas of position `p` read (and by which formula).
    fn record_reads(&mut self, p: u32, trace: &Trace) {
        let ds = &mut self.ds;
        let flat = flat_params();
        let terms = &mut self.terms_read;
        terms.clear();
        trace.inputs.for_each_read(|p, formula| {
            let t = usize::from(flat[p.flat_index()].term.0);
            match formula {
                Formula::KingAttack => ds.read_by[t].attack = true,
                Formula::Scale => ds.read_by[t].scale = true,
            }
            terms.push(t);
        });
        terms.sort_unstable();
        terms.dedup();
        for &t in terms.iter() {
            let delta = p - self.read_last[t];
            match &mut ds.reads[t] {
                r @ Reads::None => {
                    let mut bytes = Vec::new();
                    varint::put(&mut bytes, u64::from(delta));
                    *r = Reads::Some { bytes, count: 1 };
                }
                Reads::Some { bytes, count } => {
                    varint::put(bytes, u64::from(delta));
                    *count += 1;
                }
                Reads::All => unreachable!("lists become `All` only when finished"),
            }
            self.read_last[t] = p;
        }
    }

    /// Number of positions so far.
    pub fn len(&self) -> usize {
        self.ds.hot.len()
    }

    /// Whether no position was pushed.
    pub fn is_empty(&self) -> bool {
        self.ds.hot.is_empty()
    }

    /// The finished dataset. Terms read in more than half of the positions are treated as
    /// read everywhere (a list would cost more than it saves).
    pub fn finish(mut self) -> Dataset {
        let n = self.ds.hot.len() as u32;
        for r in &mut self.ds.reads {
            if let Reads::Some { count, .. } = r {
                if *count > n / 2 {
                    *r = Reads::All;
                }
            }
        }
        let ds = &mut self.ds;
        ds.hot.shrink_to_fit();
        ds.formulas.shrink_to_fit();
        ds.offsets.shrink_to_fit();
        for c in ds.columns.iter_mut().chain(ds.curve_columns.iter_mut()) {
            c.bytes.shrink_to_fit();
            c.blocks.shrink_to_fit();
        }
        for r in &mut ds.reads {
            if let Reads::Some { bytes, .. } = r {
                bytes.shrink_to_fit();
            }
        }
        self.ds
    }
}

impl Dataset {
    /// Number of positions.
    pub fn len(&self) -> usize {
        self.hot.len()
    }

    /// Whether the dataset holds no position.
    pub fn is_empty(&self) -> bool {
        self.hot.is_empty()
    }

    /// Bytes held in memory, reverse index and formula inputs included.
    pub fn memory_bytes(&self) -> usize {
        let fixed = std::mem::size_of::<Hot>() * self.hot.capacity()
            + self.formulas.capacity()
            + 4 * self.offsets.capacity();
        let columns: usize = self
            .columns
            .iter()
            .chain(&self.curve_columns)
            .map(|c| c.bytes.capacity() + 8 * c.blocks.capacity() + 56)
            .sum();
        let reads: usize = self
            .reads
            .iter()
            .map(|r| match r {
                Reads::Some { bytes, .. } => bytes.capacity() + 32,
                _ => 32,
            })
            .sum();
        fixed + columns + reads
    }

    /// The label of position `i`: white's score from 0 to 1.
    #[inline]
    pub(crate) fn target(&self, i: usize) -> f64 {
        f64::from(self.hot[i].label) / f64::from(Label::STEPS)
    }

    /// The evaluation of position `i` from the cached sums, moved by `delta`.
    #[inline]
    pub(crate) fn eval_with(&self, i: usize, delta: [i32; 2]) -> i32 {
        self.eval_scaled(i, delta, self.hot[i].scale)
    }

    /// The evaluation of position `i` from the cached sums.
    #[inline]
    pub(crate) fn eval(&self, i: usize) -> i32 {
        self.eval_with(i, [0, 0])
    }

    /// Which formulas read flat parameter `slot`.
    pub(crate) fn read_by(&self, slot: usize) -> ReadBy {
        self.read_by[usize::from(flat_params()[slot].term.0)]
    }

    /// The change of position `i`'s cached sums and its scale when the parameters go from
    /// `current` to `trial`, whose difference the formulas in `by` read, and the linear
    /// terms move the sums by `delta`.
    #[inline]
    pub(crate) fn formula_change(
        &self,
        i: usize,
        delta: [i32; 2],
        (current, trial, by): (&Params, &Params, ReadBy),
    ) -> ([i32; 2], u8) {
        let at = self.offsets[i] as usize;
        let f = Formulas::decode_part(&self.formulas, at, by.attack, by.scale);
        let mut d = delta;
        if by.attack {
            let change = f.attack(trial) - f.attack(current);
            d = [d[0] + change.0, d[1] + change.1];
        }
        let scale = if by.scale {
            f.scale(trial) as u8
        } else {
            self.hot[i].scale
        };
        (d, scale)
    }

    /// The evaluation of position `i` with its sums moved by `delta` and scale `scale`.
    #[inline]
    pub(crate) fn eval_scaled(&self, i: usize, delta: [i32; 2], scale: u8) -> i32 {
        let h = &self.hot[i];
        let sum = S(h.sum[0] + delta[0], h.sum[1] + delta[1]);
        taper(sum, i32::from(h.phase), i32::from(scale))
    }

    /// Sets position `i`'s scale.
    #[inline]
    pub(crate) fn set_scale(&mut self, i: usize, scale: u8) {
        self.hot[i].scale = scale;
    }

    /// Recomputes every position's cached sums and scale for `params` from the stored
    /// columns, curve counts and formula inputs: the full evaluation pass, without boards.
    ///
    /// Threads take contiguous ranges of positions and walk every column through their range
    /// in slices small enough for the cache, then add the formulas; integer sums make the
    /// result independent of the split.
    pub fn rescore(&mut self, params: &Params) {
        let flat = params.flat();
        let curves = params.curve_values();
        // Every column with the values its coefficients multiply.
        let mut columns: Vec<(&Column, Kind, i32, i32)> = Vec::new();
        for (slot, col) in self.columns.iter().enumerate() {
            match flat_params()[slot].component {
                Component::Mid => columns.push((col, Kind::Mid, flat[slot], flat[slot + 1])),
                Component::End => {}
                Component::Scalar => columns.push((col, Kind::Scalar, flat[slot], flat[slot])),
            }
        }
        for (col, v) in self.curve_columns.iter().zip(curves) {
            columns.push((col, Kind::Mid, v.0, v.1));
        }
        columns.retain(|c| c.0.entries > 0);
        let n = self.len();
        let range = (n.div_ceil(4 * rayon::current_num_threads())).max(SLICE);
        let (formulas, offsets) = (&self.formulas, &self.offsets);
        self.hot
            .par_chunks_mut(range)
            .enumerate()
            .for_each(|(r, hot)| {
                let start = r * range;
                let mut cursors: Vec<ColumnCursor> = columns
                    .iter()
                    .map(|&(col, kind, mid, end)| ColumnCursor::seek(col, kind, (mid, end), start))
                    .collect();
                let mut sums = vec![[0i32; 2]; SLICE];
                for (s, hot) in hot.chunks_mut(SLICE).enumerate() {
                    let first = start + s * SLICE;
                    let end = (first + hot.len()) as u32;
                    sums.fill([0, 0]);
                    for c in &mut cursors {
                        c.add_until(end, first, &mut sums);
                    }
                    for (j, h) in hot.iter_mut().enumerate() {
                        let i = first + j;
                        let f = Formulas::decode(formulas, &mut (offsets[i] as usize));
                        let attack = f.attack(params);
                        h.sum = [sums[j][0] + attack.0, sums[j][1] + attack.1];
                        h.scale = f.scale(params) as u8;
                    }
                }
            });
    }

    /// How position `i`'s evaluation moves per unit of its middlegame and endgame sums (the
    /// continuous slopes of the tapered, scaled evaluation).
    #[inline]
    pub(crate) fn slopes(&self, i: usize) -> [f64; 2] {
        let h = &self.hot[i];
        let (phase, max) = (f64::from(h.phase), f64::from(texel_eval::MAX_PHASE));
        let scale = f64::from(h.scale) / f64::from(texel_eval::FULL_SCALE);
        [phase / max, (max - phase) / max * scale]
    }

    /// Applies a linear change of the cached sums.
    #[inline]
    pub(crate) fn shift_linear(&mut self, i: usize, delta: [i32; 2]) {
        self.hot[i].sum[0] += delta[0];
        self.hot[i].sum[1] += delta[1];
    }

    /// The column holding `slot`'s coefficients and how they act.
    fn column(&self, slot: usize) -> (&Column, Kind) {
        match flat_params()[slot].component {
            Component::Mid => (&self.columns[slot], Kind::Mid),
            Component::End => (&self.columns[slot - 1], Kind::End),
            Component::Scalar => (&self.columns[slot], Kind::Scalar),
        }
    }

    /// Whether moving `slot` needs more than its own column: a formula or a curve reads it.
    pub(crate) fn read_by_formulas(&self, slot: usize) -> bool {
        !matches!(self.reads[flat_params()[slot].term.0 as usize], Reads::None)
            || !CURVE_DEPENDENTS[slot].is_empty()
    }

    /// Number of column blocks of `slot`.
    pub(crate) fn blocks(&self, slot: usize) -> usize {
        self.column(slot).0.blocks.len()
    }

    /// Calls `f(pos, mid, end)` for the entries of block `b` of `slot`'s column.
    pub(crate) fn for_block(&self, slot: usize, b: usize, f: impl FnMut(u32, i32, i32)) {
        let (col, kind) = self.column(slot);
        let (at, prev) = col.blocks[b];
        let count = (col.entries - b as u32 * BLOCK).min(BLOCK);
        decode(&col.bytes, kind, at as usize, prev, count, f);
    }

    /// The positions that moving flat parameter `slot` by `delta` from `params` touches, in
    /// position order, with the change of their sums (column and curves), marked where a
    /// formula reads the parameter.
    pub(crate) fn touches(
        &self,
        slot: usize,
        delta: i32,
        params: &Params,
        combiner: &mut Combiner,
    ) -> Vec<Touch> {
        let (col, kind) = self.column(slot);
        decode(&col.bytes, kind, 0, 0, col.entries, |pos, mid, end| {
            combiner.add(pos, mid * delta, end * delta)
        });
        let deps = &CURVE_DEPENDENTS[slot];
        if !deps.is_empty() {
            let mut trial = params.clone();
            trial.set_flat(slot, params.flat()[slot] + delta);
            for &d in deps {
                let (curve, index) = slot_curve(d);
                let change = curve.value(&trial, index) - curve.value(params, index);
                if change == S::ZERO {
                    continue;
                }
                let col = &self.curve_columns[d];
                decode(&col.bytes, Kind::Mid, 0, 0, col.entries, |pos, count, _| {
                    combiner.add(pos, change.0 * count, change.1 * count)
                });
            }
        }
        self.for_formula_reads(slot, |pos| combiner.add_formula(pos));
        combiner.drain()
    }

    /// Calls `f` with every position where a formula reads `slot`'s term, in order.
    fn for_formula_reads(&self, slot: usize, mut f: impl FnMut(u32)) {
        match &self.reads[flat_params()[slot].term.0 as usize] {
            Reads::None => {}
            Reads::All => (0..self.len() as u32).for_each(f),
            Reads::Some { bytes, .. } => {
                let (mut at, mut pos) = (0, 0u32);
                while at < bytes.len() {
                    pos += varint::get(bytes, &mut at) as u32;
                    f(pos);
                }
            }
        }
    }

    /// How many positions one of the flat `slots` counts in: a coefficient of its own, a
    /// curve value it shapes, or a formula that reads it (a formula read by most positions
    /// counts as read by all).
    pub fn support(&self, slots: &[usize]) -> usize {
        let mut seen = vec![0u64; self.len().div_ceil(64)];
        let mut mark = |pos: u32| seen[pos as usize / 64] |= 1 << (pos % 64);
        for &slot in slots {
            let (col, kind) = self.column(slot);
            decode(&col.bytes, kind, 0, 0, col.entries, |pos, _, _| mark(pos));
            for &d in &CURVE_DEPENDENTS[slot] {
                let col = &self.curve_columns[d];
                decode(&col.bytes, Kind::Mid, 0, 0, col.entries, |pos, _, _| {
                    mark(pos)
                });
            }
            self.for_formula_reads(slot, &mut mark);
        }
        seen.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// How many positions read `term` through a formula (all of them when `None`).
    pub fn formula_reads(&self, term: TermId) -> Option<usize> {
        match &self.reads[term.0 as usize] {
            Reads::None => Some(0),
            Reads::Some { count, .. } => Some(*count as usize),
            Reads::All => None,
        }
    }
}
