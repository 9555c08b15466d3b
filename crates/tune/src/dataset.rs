//! The compact in-memory dataset: traced positions stored column by column.
//!
//! Per position: the label, phase, the cached sums and scale of the evaluation for the
//! current parameters, and the inputs of its formulas (king attack, endgame scale),
//! compactly coded. Per flat parameter: a column of (position, coefficient) pairs, delta-
//! and varint-coded, which is also the reverse index; per curve value a column of counts.
//! Per term read by a formula: the positions where it was read, or "all" when it is read in
//! most positions. Nothing depends on the board any more: every evaluation is recomputed
//! from these for any parameters.

use crate::varint;
use rayon::prelude::*;
use std::sync::LazyLock;
use texel_data::Label;
use texel_eval::curve::{slot_count, slot_curve};
use texel_eval::params::{flat_params, Component};
use texel_eval::table::{FLAT_LEN, TERM_COUNT};
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

/// A position a parameter change touches.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Touch {
    /// Position index.
    pub pos: u32,
    /// Change of the middlegame sum.
    pub mid: i32,
    /// Change of the endgame sum.
    pub end: i32,
    /// A formula reads the parameter here: its formulas must be computed again.
    pub formula: bool,
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
    mut at: usize,
    mut pos: u32,
    count: u32,
    mut f: impl FnMut(u32, i32, i32),
) {
    for _ in 0..count {
        pos += varint::get(bytes, &mut at) as u32;
        let a = varint::unzigzag(varint::get(bytes, &mut at));
        match kind {
            Kind::Mid => f(pos, a, 0),
            Kind::End => f(pos, 0, a),
            Kind::Scalar => f(pos, a, varint::unzigzag(varint::get(bytes, &mut at))),
        }
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
}

impl std::fmt::Debug for Dataset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dataset")
            .field("positions", &self.len())
            .field("memory_bytes", &self.memory_bytes())
            .finish_non_exhaustive()
    }
}

/// Builds a [`Dataset`] one traced position at a time, in order.
pub struct DatasetBuilder {
    ds: Dataset,
    column_last: Vec<u32>,
    curve_last: Vec<u32>,
    read_last: Vec<u32>,
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
            },
            column_last: vec![0; FLAT_LEN],
            curve_last: vec![0; slot_count()],
            read_last: vec![0; TERM_COUNT],
        }
    }
}

impl DatasetBuilder {
    /// Appends a position with its label and its trace under `params`.
    pub fn push(&mut self, label: Label, trace: &Trace, params: &Params) {
        let ds = &mut self.ds;
        let p = ds.hot.len() as u32;
        let sum = trace.linear_sum(params) + trace.curve_sum(params) + trace.formulas;
        ds.hot.push(Hot {
            sum: [sum.0, sum.1],
            phase: trace.phase as u8,
            scale: trace.scale as u8,
            label: label.steps(),
        });
        trace.inputs.encode(&mut ds.formulas);
        ds.offsets.push(ds.formulas.len() as u32);
        let flat = flat_params();
        for c in &trace.coefs {
            let slot = usize::from(c.index);
            let col = &mut ds.columns[slot];
            let component = flat[slot].component;
            if component == Component::End {
                continue;
            }
            if col.entries.is_multiple_of(BLOCK) {
                col.blocks
                    .push((col.bytes.len() as u32, self.column_last[slot]));
            }
            col.entries += 1;
            varint::put(&mut col.bytes, u64::from(p - self.column_last[slot]));
            varint::put(&mut col.bytes, varint::zigzag(c.mid));
            if component == Component::Scalar {
                varint::put(&mut col.bytes, varint::zigzag(c.end));
            }
            self.column_last[slot] = p;
        }
        for c in &trace.curves {
            let slot = usize::from(c.slot);
            let col = &mut ds.curve_columns[slot];
            if col.entries.is_multiple_of(BLOCK) {
                col.blocks
                    .push((col.bytes.len() as u32, self.curve_last[slot]));
            }
            col.entries += 1;
            varint::put(&mut col.bytes, u64::from(p - self.curve_last[slot]));
            varint::put(&mut col.bytes, varint::zigzag(c.count));
            self.curve_last[slot] = p;
        }
        let mut last_term = None;
        for &slot in &trace.formula_reads {
            let term = flat[usize::from(slot)].term;
            if last_term == Some(term) {
                continue;
            }
            last_term = Some(term);
            let t = term.0 as usize;
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
        let h = &self.hot[i];
        let sum = S(h.sum[0] + delta[0], h.sum[1] + delta[1]);
        taper(sum, i32::from(h.phase), i32::from(h.scale))
    }

    /// The evaluation of position `i` from the cached sums.
    #[inline]
    pub(crate) fn eval(&self, i: usize) -> i32 {
        self.eval_with(i, [0, 0])
    }

    /// The formula inputs of position `i`.
    fn formulas(&self, i: usize) -> Formulas {
        let mut at = self.offsets[i] as usize;
        Formulas::decode(&self.formulas, &mut at)
    }

    /// The change of position `i`'s cached sums and its scale when the parameters go from
    /// `current` to `trial` (which differ in `slot` only) and the linear terms move the sums
    /// by `delta`.
    #[inline]
    pub(crate) fn formula_change(
        &self,
        i: usize,
        delta: [i32; 2],
        (current, trial, slot): (&Params, &Params, usize),
    ) -> ([i32; 2], u8) {
        let f = self.formulas(i);
        let change = f.attack_change(current, trial, slot);
        (
            [delta[0] + change.0, delta[1] + change.1],
            f.scale(trial) as u8,
        )
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
    pub fn rescore(&mut self, params: &Params) {
        let n = self.len();
        let mut sums = vec![[0i32; 2]; n];
        let flat = params.flat();
        for (slot, col) in self.columns.iter().enumerate() {
            let (kind, mid, end) = match flat_params()[slot].component {
                Component::Mid => (Kind::Mid, flat[slot], flat[slot + 1]),
                Component::End => continue,
                Component::Scalar => (Kind::Scalar, flat[slot], flat[slot]),
            };
            decode(&col.bytes, kind, 0, 0, col.entries, |pos, a, b| {
                let s = &mut sums[pos as usize];
                s[0] += a * mid;
                s[1] += if kind == Kind::Mid { a } else { b } * end;
            });
        }
        let curves = params.curve_values();
        for (slot, col) in self.curve_columns.iter().enumerate() {
            let v = curves[slot];
            decode(&col.bytes, Kind::Mid, 0, 0, col.entries, |pos, count, _| {
                let s = &mut sums[pos as usize];
                s[0] += count * v.0;
                s[1] += count * v.1;
            });
        }
        let ds = &*self;
        let formulas: Vec<(S, u8)> = (0..n)
            .into_par_iter()
            .map(|i| {
                let f = ds.formulas(i);
                (f.attack(params), f.scale(params) as u8)
            })
            .collect();
        for ((h, s), (attack, scale)) in self.hot.iter_mut().zip(sums).zip(formulas) {
            h.sum = [s[0] + attack.0, s[1] + attack.1];
            h.scale = scale;
        }
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
    pub(crate) fn touches(&self, slot: usize, delta: i32, params: &Params) -> Vec<Touch> {
        let (col, kind) = self.column(slot);
        let mut all = Vec::with_capacity(col.entries as usize);
        decode(&col.bytes, kind, 0, 0, col.entries, |pos, mid, end| {
            all.push(Touch {
                pos,
                mid: mid * delta,
                end: end * delta,
                formula: false,
            })
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
                    all.push(Touch {
                        pos,
                        mid: change.0 * count,
                        end: change.1 * count,
                        formula: false,
                    })
                });
            }
        }
        match &self.reads[flat_params()[slot].term.0 as usize] {
            Reads::None => {}
            Reads::All => all.extend((0..self.len() as u32).map(|pos| Touch {
                pos,
                mid: 0,
                end: 0,
                formula: true,
            })),
            Reads::Some { bytes, .. } => {
                let (mut at, mut pos) = (0, 0u32);
                while at < bytes.len() {
                    pos += varint::get(bytes, &mut at) as u32;
                    all.push(Touch {
                        pos,
                        mid: 0,
                        end: 0,
                        formula: true,
                    });
                }
            }
        }
        combine(all)
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

/// Sorts touches by position and combines those of one position: changes add up, and a
/// position any source marks for its formulas has them computed again.
fn combine(mut touches: Vec<Touch>) -> Vec<Touch> {
    touches.sort_by_key(|t| t.pos);
    let mut out: Vec<Touch> = Vec::with_capacity(touches.len());
    for t in touches {
        match out.last_mut() {
            Some(last) if last.pos == t.pos => {
                last.mid += t.mid;
                last.end += t.end;
                last.formula |= t.formula;
            }
            _ => out.push(t),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touches_of_one_position_combine() {
        let t = |pos, mid, formula| Touch {
            pos,
            mid,
            end: 0,
            formula,
        };
        let combined = combine(vec![
            t(4, 1, false),
            t(1, 2, false),
            t(4, 3, false),
            t(0, 0, true),
            t(1, 0, true),
        ]);
        let got: Vec<_> = combined.iter().map(|t| (t.pos, t.mid, t.formula)).collect();
        assert_eq!(got, vec![(0, 0, true), (1, 2, true), (4, 4, false)]);
    }
}
