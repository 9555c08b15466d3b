//! The compact in-memory dataset: traced positions stored column by column.
//!
//! Per position: the label, phase, the cached sums and scale of the evaluation for the
//! current parameters, and the inputs of its formulas: the king attacks compactly coded,
//! the endgame scale's as the number of a distinct input ([`scales`]). The coefficients
//! are kept in segments of consecutive positions, each built by one thread while loading:
//! per flat parameter a column of (position, coefficient) entries (also the reverse
//! index), per curve value a column of counts, per term read by a formula the positions
//! where it is read. Nothing depends on the board any more: every evaluation is recomputed
//! from these for any parameters.

mod coding;
mod probe;
mod scales;
mod segment;

use crate::touch::Combiner;
use crate::touch::Touch;
use coding::{add_dense_pair, add_single, for_gaps, for_pair, for_single, nibble_products, Coding};
pub use probe::TableCache;
use rayon::prelude::*;
use scales::ScaleBook;
pub(crate) use segment::Part;
pub(crate) use segment::SegmentBuilder;
use segment::{curve_column, ScalarForm, Segment};
use std::sync::LazyLock;
use texel_data::{sampled, Label};
use texel_eval::curve::{slot_count, slot_curve};
use texel_eval::formula::{EndgameScale, KingAttackWeights};
use texel_eval::packed::{pack, unpack};
use texel_eval::params::{flat_params, Component};
use texel_eval::table::{FLAT_LEN, TERM_COUNT};
use texel_eval::{taper, Params, TermId, S};

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

/// Positions per segment built while loading (a batch's positions are split evenly).
pub(crate) const SEGMENT: usize = 8192;

// A stream column's bytes (an entry per position at most, a bridge per 15 positions) fit the
// word count in its two-byte header.
const _: () = assert!(SEGMENT * 16 / 15 / 8 < u16::MAX as usize);

/// What every probe reads of a position, kept together for locality.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Hot {
    /// White-minus-black sum of all terms for the current parameters (middlegame, endgame).
    sum: [i32; 2],
    phase: u8,
    scale: u8,
    /// The label: white's score in [`Label::steps`].
    label: u8,
}

/// Positions per 32-bit base of [`Offsets`].
const OFFSET_BLOCK: usize = 256;

/// Where each position's king attacks begin: a 32-bit base every [`OFFSET_BLOCK`]
/// positions and per position a 16-bit distance from it (a position's attacks take at most
/// 77 bytes, a block's far less than 64 KiB).
#[derive(Default)]
struct Offsets {
    base: Vec<u32>,
    rel: Vec<u16>,
}

impl Offsets {
    /// Appends the next position's offset.
    fn push(&mut self, at: u32) {
        if self.rel.len().is_multiple_of(OFFSET_BLOCK) {
            self.base.push(at);
        }
        let base = self.base[self.rel.len() / OFFSET_BLOCK];
        self.rel.push((at - base) as u16);
    }

    /// Position `i`'s offset, or `end` past the last position.
    fn next(&self, i: usize, end: usize) -> usize {
        if i < self.rel.len() {
            self.get(i)
        } else {
            end
        }
    }

    /// Position `i`'s offset.
    #[inline]
    fn get(&self, i: usize) -> usize {
        self.base[i / OFFSET_BLOCK] as usize + usize::from(self.rel[i])
    }
}

/// Traced positions ready for tuning.
pub struct Dataset {
    hot: Vec<Hot>,
    /// Every position's [`KingAttacks`], coded one after the other.
    formulas: Vec<u8>,
    /// Where each position's king attacks begin in `formulas`.
    offsets: Offsets,
    /// The distinct endgame scale inputs.
    scales: Vec<EndgameScale>,
    /// Each position's number in `scales`.
    scale_numbers: Vec<u32>,
    /// The column entries, in position order.
    segments: Vec<Segment>,
    /// Per term, how many positions' formulas read it.
    reads: Vec<u32>,
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

/// Parameters a probe tries, with what a position's formula change needs: which formulas
/// read the moved value, and the king attack formula under the trial values when it does.
pub(crate) struct Trial<'a> {
    /// The trial values.
    pub params: &'a Params,
    by: ReadBy,
    attack: Option<KingAttackWeights<'a>>,
}

impl std::fmt::Debug for Dataset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dataset")
            .field("positions", &self.len())
            .field("memory_bytes", &self.memory_bytes())
            .finish_non_exhaustive()
    }
}

/// A dataset holds no more positions: position numbers are 32 bits, and its king attack
/// inputs take at most 4 GiB.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0} positions fill one dataset (32-bit position numbers, 4 GiB of king attack inputs): load fewer"
)]
pub struct DatasetFull(pub usize);

/// Builds a [`Dataset`] from segments, in order.
pub(crate) struct DatasetBuilder {
    ds: Dataset,
    scales: ScaleBook,
}

impl Default for DatasetBuilder {
    fn default() -> Self {
        DatasetBuilder {
            ds: Dataset {
                hot: Vec::new(),
                formulas: Vec::new(),
                offsets: Offsets::default(),
                scales: Vec::new(),
                scale_numbers: Vec::new(),
                segments: Vec::new(),
                reads: vec![0; TERM_COUNT],
                read_by: vec![ReadBy::default(); TERM_COUNT],
            },
            scales: ScaleBook::default(),
        }
    }
}

impl DatasetBuilder {
    /// Appends the positions of a finished segment after those already held.
    ///
    /// # Errors
    /// [`DatasetFull`] when they do not fit: positions are numbered with 32 bits and the
    /// king attack inputs of all positions take at most 4 GiB (about 400M positions).
    pub fn append(&mut self, part: Part) -> Result<(), DatasetFull> {
        let ds = &mut self.ds;
        let (n, base) = (ds.hot.len(), ds.formulas.len());
        if n + part.hot.len() >= u32::MAX as usize || base + part.formulas.len() > u32::MAX as usize
        {
            return Err(DatasetFull(n));
        }
        ds.hot.extend_from_slice(&part.hot);
        ds.formulas.extend_from_slice(&part.formulas);
        for &o in &part.offsets {
            ds.offsets.push(base as u32 + o);
        }
        let numbers: Vec<u32> = part.scales.iter().map(|s| self.scales.number(s)).collect();
        ds.scale_numbers
            .extend(part.scale_numbers.iter().map(|&n| numbers[n as usize]));
        let mut segment = part.segment;
        segment.start = n as u32;
        ds.segments.push(segment);
        for (total, count) in ds.reads.iter_mut().zip(&part.reads) {
            *total += count;
        }
        for (by, part) in ds.read_by.iter_mut().zip(&part.read_by) {
            by.attack |= part.attack;
            by.scale |= part.scale;
        }
        Ok(())
    }

    /// Number of positions so far.
    pub fn len(&self) -> usize {
        self.ds.hot.len()
    }

    /// Whether no position was appended.
    pub fn is_empty(&self) -> bool {
        self.ds.hot.is_empty()
    }

    /// The finished dataset.
    pub fn finish(mut self) -> Dataset {
        let ds = &mut self.ds;
        ds.hot.shrink_to_fit();
        ds.formulas.shrink_to_fit();
        ds.offsets.base.shrink_to_fit();
        ds.offsets.rel.shrink_to_fit();
        ds.scale_numbers.shrink_to_fit();
        ds.scales = self.scales.take();
        ds.segments.shrink_to_fit();
        self.ds
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

/// Calls `f(position, mid, end)` for the entries of `segment`'s column `col` coded for
/// `kind`.
#[inline]
fn decode(segment: &Segment, col: usize, kind: Kind, mut f: impl FnMut(u32, i32, i32)) {
    let start = segment.start;
    let (on_end, single) = match kind {
        Kind::Mid | Kind::End => (kind == Kind::End, segment.single(col)),
        Kind::Scalar => match segment.scalar(col) {
            (ScalarForm::Pairs, bytes, _) => {
                return for_pair(bytes, |p, a, b| f(start + p, a, b));
            }
            (form, bytes, coding) => (form == ScalarForm::EndOnly, (bytes, coding)),
        },
    };
    for_single(single.0, single.1, |p, c| {
        if on_end {
            f(start + p, 0, c)
        } else {
            f(start + p, c, 0)
        }
    })
}

/// A column with the values its coefficients multiply, for the full pass.
#[derive(Copy, Clone)]
enum Weighted {
    /// One coefficient times a middlegame and an endgame value.
    Single(usize, i32, i32),
    /// A middlegame and an endgame coefficient times one value.
    Pair(usize, i32),
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
        std::mem::size_of::<Hot>() * self.hot.capacity()
            + self.formulas.capacity()
            + 4 * self.offsets.base.capacity()
            + 2 * self.offsets.rel.capacity()
            + std::mem::size_of::<EndgameScale>() * self.scales.capacity()
            + 4 * self.scale_numbers.capacity()
            + self
                .segments
                .iter()
                .map(Segment::memory_bytes)
                .sum::<usize>()
            + 8 * TERM_COUNT
    }

    /// The label of position `i`: white's score from 0 to 1.
    #[inline]
    pub(crate) fn target(&self, i: usize) -> f64 {
        f64::from(self.hot[i].label) / f64::from(Label::STEPS)
    }

    /// Gives position `i` the label `label`.
    pub(crate) fn set_label(&mut self, i: usize, label: Label) {
        self.hot[i].label = label.steps();
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

    /// The endgame scale inputs of position `i`.
    #[inline]
    fn scale_input(&self, i: usize) -> &EndgameScale {
        &self.scales[self.scale_numbers[i] as usize]
    }

    /// Which formulas read flat parameter `slot`.
    pub(crate) fn read_by(&self, slot: usize) -> ReadBy {
        self.read_by[usize::from(flat_params()[slot].term.0)]
    }

    /// Trying `params`, which differ from the current values in `slot`.
    pub(crate) fn trial<'a>(&self, params: &'a Params, slot: usize) -> Trial<'a> {
        let by = self.read_by(slot);
        let attack = by.attack.then(|| KingAttackWeights::new(params));
        Trial { params, by, attack }
    }

    /// Position `i` when the parameters go to `trial` and the linear terms move the sums by
    /// `delta`: the change of its cached sums, its scale, and (when the king attack reads
    /// the moved value) its new king attack; `attack` is its king attack now.
    #[inline]
    pub(crate) fn formula_change(
        &self,
        i: usize,
        (delta, attack): ([i32; 2], [i32; 2]),
        trial: &Trial,
    ) -> ([i32; 2], u8, Option<[i32; 2]>) {
        let (mut d, mut new_attack) = (delta, None);
        if let Some(weights) = &trial.attack {
            let new = weights.value(&self.formulas, &mut self.offsets.get(i));
            d = [d[0] + new.0 - attack[0], d[1] + new.1 - attack[1]];
            new_attack = Some([new.0, new.1]);
        }
        let scale = if trial.by.scale {
            self.scale_input(i).value(trial.params) as u8
        } else {
            self.hot[i].scale
        };
        (d, scale, new_attack)
    }

    /// Every position's king attack (white's minus black's) under `params`.
    pub(crate) fn attacks(&self, params: &Params) -> Vec<[i32; 2]> {
        let weights = KingAttackWeights::new(params);
        let parts: Vec<Vec<[i32; 2]>> = self
            .segments
            .par_iter()
            .map(|segment| {
                let mut at = self.offsets.get(segment.start as usize);
                (0..segment.len)
                    .map(|_| {
                        let a = weights.value(&self.formulas, &mut at);
                        [a.0, a.1]
                    })
                    .collect()
            })
            .collect();
        parts.concat()
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

    /// Every column whose values are not both zero, with those values.
    fn weighted(params: &Params) -> Vec<Weighted> {
        let flat = params.flat();
        let mut out = Vec::new();
        for (slot, p) in flat_params().iter().enumerate() {
            match p.component {
                Component::Mid if flat[slot] != 0 || flat[slot + 1] != 0 => {
                    out.push(Weighted::Single(slot, flat[slot], flat[slot + 1]));
                }
                Component::Scalar if flat[slot] != 0 => out.push(Weighted::Pair(slot, flat[slot])),
                _ => {}
            }
        }
        for (d, v) in params.curve_values().iter().enumerate() {
            if *v != S::ZERO {
                out.push(Weighted::Single(curve_column(d), v.0, v.1));
            }
        }
        out
    }

    /// Recomputes every position's cached sums and scale for `params` from the stored
    /// columns, curve counts and formula inputs: the full evaluation pass, without boards.
    ///
    /// Threads take whole segments, each summed front to back in its own buffer, then add
    /// the formulas; integer sums make the result independent of the split.
    pub fn rescore(&mut self, params: &Params) {
        self.rescore_into(params, None);
    }

    /// [`Dataset::rescore`], keeping every position's king attack (white's minus black's)
    /// under `params` as well.
    pub(crate) fn rescore_keeping_attacks(&mut self, params: &Params) -> Vec<[i32; 2]> {
        let mut attacks = vec![[0; 2]; self.len()];
        self.rescore_into(params, Some(&mut attacks));
        attacks
    }

    /// The full pass, writing the king attacks to `attacks` when given.
    fn rescore_into(&mut self, params: &Params, mut attacks: Option<&mut [[i32; 2]]>) {
        let weighted = Self::weighted(params);
        let attack_weights = KingAttackWeights::new(params);
        let scales: Vec<u8> = self.scales.iter().map(|s| s.value(params) as u8).collect();
        let (formulas, offsets) = (&self.formulas, &self.offsets);
        let numbers = &self.scale_numbers;
        let mut work = Vec::with_capacity(self.segments.len());
        let mut rest = &mut self.hot[..];
        for segment in &self.segments {
            let len = segment.len as usize;
            let (mine, others) = std::mem::take(&mut rest).split_at_mut(len);
            let kept = attacks.take().map(|a| a.split_at_mut(len));
            let (my_attacks, other_attacks) = kept.unzip();
            work.push((segment, mine, my_attacks));
            (rest, attacks) = (others, other_attacks);
        }
        work.into_par_iter()
            .for_each_init(Vec::new, |sums, (segment, hot, mut kept)| {
                sum_columns(segment, &weighted, sums);
                // A segment's formula inputs lie one after the other.
                let mut at = offsets.get(segment.start as usize);
                let first = segment.start as usize;
                for (j, h) in hot.iter_mut().enumerate() {
                    let [mid, end] = unpack(sums[j]);
                    let attack = attack_weights.value(formulas, &mut at);
                    h.sum = [mid + attack.0, end + attack.1];
                    h.scale = scales[numbers[first + j] as usize];
                    if let Some(kept) = kept.as_mut() {
                        kept[j] = [attack.0, attack.1];
                    }
                }
            });
    }

    /// How position `i`'s evaluation moves per unit of its middlegame and endgame sums (the
    /// continuous slopes of the tapered, scaled evaluation).
    #[inline]
    pub(crate) fn slopes(&self, i: usize) -> [f64; 2] {
        self.slopes_scaled(i, self.hot[i].scale)
    }

    /// [`Dataset::slopes`] of position `i` at scale `scale`.
    #[inline]
    fn slopes_scaled(&self, i: usize, scale: u8) -> [f64; 2] {
        let (phase, max) = (
            f64::from(self.hot[i].phase),
            f64::from(texel_eval::MAX_PHASE),
        );
        let scale = f64::from(scale) / f64::from(texel_eval::FULL_SCALE);
        [phase / max, (max - phase) / max * scale]
    }

    /// Position `i`'s evaluation before rounding, with its sums moved by `delta` and scale
    /// `scale`.
    #[inline]
    pub(crate) fn exact_eval_moved(&self, i: usize, delta: [i32; 2], scale: u8) -> f64 {
        let [m, e] = self.slopes_scaled(i, scale);
        let [mid, end] = self.hot[i].sum;
        f64::from(mid + delta[0]) * m + f64::from(end + delta[1]) * e
    }

    /// Position `i`'s cached endgame scale.
    #[inline]
    pub(crate) fn scale(&self, i: usize) -> u8 {
        self.hot[i].scale
    }

    /// Number of segments.
    pub(crate) fn segment_count(&self) -> usize {
        self.segments.len()
    }

    /// Segment `b`'s first position and number of positions.
    pub(crate) fn segment_positions(&self, b: usize) -> (usize, usize) {
        let segment = &self.segments[b];
        (segment.start as usize, segment.len as usize)
    }

    /// Applies a linear change of the cached sums.
    #[inline]
    pub(crate) fn shift_linear(&mut self, i: usize, delta: [i32; 2]) {
        self.hot[i].sum[0] += delta[0];
        self.hot[i].sum[1] += delta[1];
    }

    /// The column holding `slot`'s coefficients and how they act.
    fn column(slot: usize) -> (usize, Kind) {
        match flat_params()[slot].component {
            Component::Mid => (slot, Kind::Mid),
            Component::End => (slot - 1, Kind::End),
            Component::Scalar => (slot, Kind::Scalar),
        }
    }

    /// Whether moving `slot` needs more than its own column: a formula or a curve reads it.
    pub(crate) fn read_by_formulas(&self, slot: usize) -> bool {
        self.reads[usize::from(flat_params()[slot].term.0)] > 0
            || !CURVE_DEPENDENTS[slot].is_empty()
    }

    /// Number of blocks a column is split into: one per segment.
    pub(crate) fn blocks(&self, _slot: usize) -> usize {
        self.segments.len()
    }

    /// Calls `f(pos, mid, end)` for the entries of block `b` of `slot`'s column.
    pub(crate) fn for_block(&self, slot: usize, b: usize, f: impl FnMut(u32, i32, i32)) {
        let (col, kind) = Self::column(slot);
        let segment = &self.segments[b];
        decode(segment, col, kind, f);
    }

    /// Calls `f(pos, mid, end)` for every entry of column `col` coded for `kind`, in order.
    fn for_column(&self, col: usize, kind: Kind, mut f: impl FnMut(u32, i32, i32)) {
        for segment in &self.segments {
            decode(segment, col, kind, &mut f);
        }
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
        let (col, kind) = Self::column(slot);
        self.for_column(col, kind, |pos, mid, end| {
            combiner.add(pos, mid * delta, end * delta)
        });
        let deps = &CURVE_DEPENDENTS[slot];
        if !deps.is_empty() {
            let mut trial = params.clone();
            trial.set_flat(slot, params.flat()[slot] + delta);
            for &d in deps {
                let (curve, index) = slot_curve(d);
                let change = curve.value(&trial, index) - curve.value(params, index);
                if change != S::ZERO {
                    self.for_column(curve_column(d), Kind::Mid, |pos, count, _| {
                        combiner.add(pos, change.0 * count, change.1 * count)
                    });
                }
            }
        }
        self.for_formula_reads(slot, |pos| combiner.add_formula(pos));
        combiner.drain()
    }

    /// Calls `f` with every position where a formula reads `slot`'s term, in order (every
    /// position of a segment where most of them read it).
    fn for_formula_reads(&self, slot: usize, mut f: impl FnMut(u32)) {
        let term = usize::from(flat_params()[slot].term.0);
        if self.reads[term] == 0 {
            return;
        }
        for segment in &self.segments {
            let start = segment.start;
            for_gaps(segment.reads(term), segment.len, |p| f(start + p));
        }
    }

    /// How many positions one of the flat `slots` counts in: a coefficient of its own, a
    /// curve value it shapes, or a formula that reads it (a formula read by most positions
    /// of a segment counts as read by all of them).
    pub fn support(&self, slots: &[usize]) -> usize {
        let mut seen = vec![0u64; self.len().div_ceil(64)];
        let mut mark = |pos: u32| seen[pos as usize / 64] |= 1 << (pos % 64);
        for &slot in slots {
            let (col, kind) = Self::column(slot);
            self.for_column(col, kind, |pos, _, _| mark(pos));
            for &d in &CURVE_DEPENDENTS[slot] {
                self.for_column(curve_column(d), Kind::Mid, |pos, _, _| mark(pos));
            }
            self.for_formula_reads(slot, &mut mark);
        }
        seen.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// About one segment in `n`, picked by a fixed hash of the segment's index (the first
    /// always among them), as a dataset of its own: a sample of the positions for a warm
    /// start, scored as this dataset is. A hash, not every `n`-th segment: data with a
    /// period (files of similar games one after the other) must not put the same kind of
    /// segment in the sample every time.
    pub fn sample(&self, n: usize) -> Dataset {
        let mut sample = DatasetBuilder::default();
        let chosen = self
            .segments
            .iter()
            .enumerate()
            .filter(|&(i, _)| sampled(i, n));
        for (_, segment) in chosen {
            let range = segment.start as usize..(segment.start + segment.len) as usize;
            let first = self.offsets.get(range.start);
            let end = self.offsets.next(range.end, self.formulas.len());
            let mut reads = vec![0; TERM_COUNT];
            for (t, count) in reads.iter_mut().enumerate() {
                if self.reads[t] > 0 {
                    for_gaps(segment.reads(t), segment.len, |_| *count += 1);
                }
            }
            let mut scales = ScaleBook::default();
            let part = Part {
                segment: segment.clone(),
                hot: self.hot[range.clone()].to_vec(),
                formulas: self.formulas[first..end].to_vec(),
                offsets: range
                    .clone()
                    .map(|i| (self.offsets.get(i) - first) as u32)
                    .collect(),
                scale_numbers: range.map(|i| scales.number(self.scale_input(i))).collect(),
                scales: scales.take(),
                reads,
                read_by: self.read_by.clone(),
            };
            // Part of a dataset that fits: it fits on its own.
            sample
                .append(part)
                .expect("a sample is smaller than its dataset");
        }
        sample.finish()
    }

    /// How many positions read `term` through a formula.
    pub fn formula_reads(&self, term: TermId) -> usize {
        self.reads[usize::from(term.0)] as usize
    }
}

/// Sums the weighted columns of `segment` into `sums` ([`pack`]ed, one per position of
/// the segment).
#[inline(never)]
fn sum_columns(segment: &Segment, weighted: &[Weighted], sums: &mut Vec<i64>) {
    sums.clear();
    sums.resize(segment.len as usize, 0);
    // The weights of the dense columns that share their bytes, added a pair at a time.
    let mut paired = Vec::new();
    for &w in weighted {
        match w {
            Weighted::Single(col, mid, end) => {
                let weight = pack(mid, end);
                match segment.single(col) {
                    (_, Coding::DenseLow | Coding::DenseHigh) => paired.push((col, weight)),
                    single => add_single(single, weight, &nibble_products(weight), sums),
                }
            }
            Weighted::Pair(col, value) => {
                let weight = match segment.scalar(col) {
                    (ScalarForm::Pairs, bytes, _) => {
                        for_pair(bytes, |p, a, b| {
                            sums[p as usize] += pack(a * value, b * value);
                        });
                        continue;
                    }
                    (ScalarForm::MidOnly, ..) => pack(value, 0),
                    (ScalarForm::EndOnly, ..) => pack(0, value),
                };
                add_single(segment.single(col), weight, &nibble_products(weight), sums);
            }
        }
    }
    let weight = |c| paired.iter().find(|&&(p, _)| p == c).map_or(0, |&(_, w)| w);
    for (low, high) in segment.dense_pairs() {
        let (low_weight, high_weight) = (weight(low), weight(high));
        if low_weight != 0 || high_weight != 0 {
            let (low_products, high_products) =
                (nibble_products(low_weight), nibble_products(high_weight));
            add_dense_pair(segment.column(low), &low_products, &high_products, sums);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use texel_eval::{Coef, Trace};

    #[test]
    fn scalar_columns_with_one_sum_read_as_single_columns_and_mixed_ones_as_pairs() {
        let scalar = |n: usize| {
            let slots = flat_params().iter().enumerate();
            slots
                .filter(|(_, p)| p.component == Component::Scalar)
                .nth(n)
                .unwrap()
                .0
        };
        let (mid_only, end_only, mixed) = (scalar(0), scalar(1), scalar(2));
        let coef = |slot: usize, mid, end| Coef {
            index: slot as u16,
            tapered: false,
            mid,
            end,
        };
        let mut builder = SegmentBuilder::default();
        let mut expected = vec![Vec::new(); 3];
        for p in 0..300 {
            let (a, b) = ((p % 5) - 2, (p % 3) + 20);
            let mut trace = Trace::default();
            if p % 2 == 0 {
                trace.coefs.push(coef(mid_only, a, 0));
                expected[0].push((p as u32, a, 0));
            }
            trace.coefs.push(coef(end_only, 0, b));
            expected[1].push((p as u32, 0, b));
            if p % 7 == 0 {
                trace.coefs.push(coef(mixed, a, -b));
                expected[2].push((p as u32, a, -b));
            }
            trace.coefs.retain(|c| c.mid != 0 || c.end != 0);
            builder.push(Label::from_steps(1).unwrap(), &trace);
        }
        expected[0].retain(|e| e.1 != 0);
        let segment = builder.finish().segment;
        let forms = [mid_only, end_only, mixed].map(|c| segment.scalar(c).0);
        let wanted = [ScalarForm::MidOnly, ScalarForm::EndOnly, ScalarForm::Pairs];
        assert_eq!(forms, wanted);
        let mut sums_expected = vec![0i64; 300];
        let mut weighted = Vec::new();
        for (i, col) in [mid_only, end_only, mixed].into_iter().enumerate() {
            let mut back = Vec::new();
            decode(&segment, col, Kind::Scalar, |p, a, b| back.push((p, a, b)));
            assert_eq!(back, expected[i]);
            let value = 3 + i as i32;
            weighted.push(Weighted::Pair(col, value));
            for &(p, a, b) in &expected[i] {
                sums_expected[p as usize] += pack(a * value, b * value);
            }
        }
        let mut sums = Vec::new();
        sum_columns(&segment, &weighted, &mut sums);
        assert_eq!(sums, sums_expected);
    }
}
