//! A trace's inner sums in a dataset (`texel_trace::InnerSum`): every position's sums, kept
//! at the current values, and what their shapes add to its evaluation. A value an inner sum
//! counts (or a shape multiplies by) is not linear: its probes and moves recompute the sums
//! it touches exactly, and Newton differentiates through them (`texel_solve::newton::chain`). A
//! complexity moves the whole endgame part of a position's evaluation, so what it adds is
//! settled only with the linear endgame part ([`Added::with`]).

mod added;
mod counts;
mod curvature;
mod index;
mod point;
mod walk;

pub use added::Added;
use added::AddedList;
use counts::{Count, EntryCounts, Parts, BOTH, END, MID};
use index::SumIndex;
pub use point::{InnerPoint, PointSums};

use crate::bytes::{list, put};
use crate::layout::{Layout, Part};
use crate::linear::Beside;
use crate::zeros::ZeroList;
use rayon::prelude::*;
use std::io::{self, Read, Write};
use std::ops::{ControlFlow, Range};
use std::sync::Arc;
use texel_trace::{Coef, InnerTerm, ParamSpace, TracedPosition};

/// Spans of positions ([`Inner::spans`]) a move made for good works out at a time.
const APPLY_SPANS: usize = 8;

/// A span's moved sums with their new sums, and its positions with what their sums give.
type MovedSums = (Vec<(usize, [f64; 2])>, Vec<(u32, Added)>);

/// Sums a thread adds up at a time when every sum is scored anew (a few hundred in the
/// unit tests, whose datasets then span many).
const SUM_SPAN: usize = if cfg!(test) { 1 << 8 } else { 1 << 16 };

/// Appends `items` to `list`, which then holds `share.0` of `share.1` positions' items:
/// where the list has no room for them, it first takes room for the whole at the rate so far
/// (and a sixty-fourth more).
pub(super) fn extend_toward<T>(
    list: &mut Vec<T>,
    (done, total): (usize, usize),
    items: impl ExactSizeIterator<Item = T>,
) {
    let after = list.len() + items.len();
    if after > list.capacity() {
        let whole = (after as u128 * total as u128 / done.max(1) as u128) as usize;
        list.reserve_exact(whole.max(after) + after / 64 - list.len());
    }
    list.extend(items);
}

/// Term `term` and side `side` (1 or −1) in one word (terms are fewer than 2³¹).
fn term_side(term: u32, side: f32) -> u32 {
    term << 1 | u32::from(side < 0.0)
}

/// Per value slot of `space`, its entry and the parts of a sum its value is counted in.
fn slot_parts(space: &ParamSpace) -> Vec<(u32, Parts)> {
    let layout = Layout::new(space);
    let parts = |part| match part {
        Part::Mid => MID,
        Part::End => END,
        Part::Plain => BOTH,
    };
    (layout.slots.iter())
        .map(|&(entry, part)| (entry, parts(part)))
        .collect()
}

/// The inner sums of a dataset's positions, in position order: what Newton differentiates
/// through ([`texel_solve::Probes::exact`]).
#[derive(Clone, Debug, Default)]
pub struct Inner {
    terms: Vec<InnerTerm>,
    /// Per sum: its position, its term and side (the term's number doubled, 1 added for
    /// Black's: [`Inner::term_of`], [`Inner::side_of`]); per position where its sums begin.
    index: SumIndex,
    /// Per sum, the part that is not tuned.
    offset: ZeroList<[f32; 2]>,
    /// Per position, the weight of its middlegame and endgame parts: the dataset's own
    /// tapers, shared ([`Inner::share_tapers`]).
    tapers: Arc<Vec<[f64; 2]>>,
    /// Per sum: its middlegame and endgame sums at the current values.
    sums: Vec<[f64; 2]>,
    /// Per entry, its counts, sums rising; per value slot, its entry and the parts of a sum
    /// its value is counted in (a tapered entry's middlegame value in the middlegame sum);
    /// and the terms a part of which it multiplies.
    counts: Vec<EntryCounts>,
    slots: Vec<(u32, Parts)>,
    factor_of: Vec<Vec<(u32, u8)>>,
    /// Per position: its fixed endgame part (tapered), and what its sums give now.
    end_offset: ZeroList<f64>,
    added: AddedList,
}

impl Inner {
    /// `f(sum, part, count)` of every count of `slot`'s value in the sums `within`
    /// (instances), sums rising, in the order they were added.
    #[inline]
    fn each_count(&self, slot: usize, within: Range<u32>, mut f: impl FnMut(u32, usize, f32)) {
        let (entry, reads) = self.slots[slot];
        let counts = &self.counts[entry as usize];
        let from = match within.start {
            0 => 0,
            start => counts.first_from(start),
        };
        counts.each_from(from, |c| {
            let (k, parts) = (c.instance(), c.parts() & reads);
            if k >= within.end {
                return ControlFlow::Break(());
            }
            if parts & MID != 0 {
                f(k, 0, c.count);
            }
            if parts & END != 0 {
                f(k, 1, c.count);
            }
            ControlFlow::Continue(())
        });
    }

    /// Whether a sum counts `slot`'s value.
    fn counts(&self, slot: usize) -> bool {
        let (entry, reads) = self.slots[slot];
        self.counts[entry as usize].any_in(reads)
    }

    /// Gives back the room no list filled.
    pub(super) fn shrink_to_fit(&mut self) {
        self.index.shrink_to_fit();
        self.offset.shrink_to_fit();
        self.sums.shrink_to_fit();
        self.counts.iter_mut().for_each(EntryCounts::shrink_to_fit);
        self.end_offset.shrink_to_fit();
        self.added.shrink_to_fit();
    }

    /// Whether a term is a complexity: every endgame value then moves the evaluation
    /// through it, not linearly.
    pub fn has_complexity(&self) -> bool {
        self.terms.iter().any(InnerTerm::is_complexity)
    }

    /// Whether the evaluation is linear in `slot`: no sum counts it, no shape multiplies
    /// by it.
    pub(super) fn linear(&self, slot: usize) -> bool {
        !self.counts(slot) && self.factor_of[slot].is_empty()
    }

    /// Whether `slot` weighs a part of an inner term (its `times_param`).
    pub fn weighs(&self, slot: usize) -> bool {
        self.factor_of.get(slot).is_some_and(|f| !f.is_empty())
    }

    /// What position `i`'s sums give now.
    #[inline]
    pub fn added(&self, i: usize) -> Added {
        self.added.get(i)
    }

    /// The position's tapers as the dataset has them: each position's weight of its
    /// middlegame and endgame parts.
    pub(super) fn share_tapers(&mut self, tapers: &Arc<Vec<[f64; 2]>>) {
        self.tapers = Arc::clone(tapers);
    }

    /// Sum `k`'s term.
    #[inline]
    fn term_of(&self, k: usize) -> u32 {
        self.index.term_side(k) >> 1
    }

    /// Sum `k`'s side: 1 White's, −1 Black's.
    #[inline]
    fn side_of(&self, k: usize) -> f64 {
        match self.index.term_side(k) & 1 {
            0 => 1.0,
            _ => -1.0,
        }
    }

    /// Sum `k`'s side times its position's weight of each part.
    #[inline]
    fn weight(&self, k: usize) -> [f64; 2] {
        let side = self.side_of(k);
        self.tapers[self.index.position(k) as usize].map(|w| side * w)
    }

    /// What each part of sum `k` gives at sums `sums` (tapered), `value` giving each slot's
    /// value.
    fn contribution(&self, k: usize, sums: [f64; 2], value: impl Fn(usize) -> f64) -> [f64; 2] {
        let term = &self.terms[self.term_of(k) as usize];
        let mut out = [0.0; 2];
        let parts = term.parts().into_iter().zip(sums).zip(self.weight(k));
        for (o, ((shape, x), w)) in out.iter_mut().zip(parts) {
            if let Some(s) = shape {
                *o = w * s.value(x) * s.times_value.map_or(1.0, &value);
            }
        }
        out
    }

    /// Every sum at `values` (one a slot) into `sums` (one a sum): in fixed spans, on any
    /// thread (the same sums as one thread's, see [`Inner::fill_sums`]).
    fn fill_every_sum(&self, sums: &mut [[f64; 2]], values: &[f64]) {
        sums.par_chunks_mut(SUM_SPAN)
            .enumerate()
            .for_each(|(span, sums)| self.fill_sums((span * SUM_SPAN) as u32, sums, values));
    }

    /// Sums `from..` (as many as `sums` holds) at `values` (one a slot) into `sums`: each
    /// its fixed part, then its counts times their values in slot order, whatever the span.
    /// An entry's counts are read once for its values of both parts (a tapered entry's two
    /// slots are neighbours, so each part's sum takes its terms in slot order still).
    fn fill_sums(&self, from: u32, sums: &mut [[f64; 2]], values: &[f64]) {
        for (k, sum) in (from as usize..).zip(sums.iter_mut()) {
            *sum = self.offset.get(k).map(f64::from);
        }
        let end = from + sums.len() as u32;
        let mut read = vec![[0.0; 2]; self.counts.len()];
        for (&(entry, parts), &v) in self.slots.iter().zip(values) {
            let both = &mut read[entry as usize];
            if parts & MID != 0 {
                both[0] = v;
            }
            if parts & END != 0 {
                both[1] = v;
            }
        }
        for (counts, v) in self.counts.iter().zip(&read) {
            let first = match from {
                0 => 0,
                start => counts.first_from(start),
            };
            counts.each_from(first, |c| {
                let (k, parts) = (c.instance(), c.parts());
                if k >= end {
                    return ControlFlow::Break(());
                }
                let sum = &mut sums[(k - from) as usize];
                if parts & MID != 0 {
                    sum[0] += f64::from(c.count) * v[0];
                }
                if parts & END != 0 {
                    sum[1] += f64::from(c.count) * v[1];
                }
                ControlFlow::Continue(())
            });
        }
    }

    /// Whether every sum at `values` (one a slot), filled a span of positions at a time
    /// as Newton's points are ([`Inner::sums_at`]), is the sum kept now to the bit.
    #[cfg(test)]
    pub(super) fn sums_agree(&self, values: &[f64]) -> bool {
        let point = self.at(values);
        self.spans().all(|span| {
            let sums = self.sums_at(&point, span.clone());
            let run = self.index.sums_of(span);
            run.into_iter()
                .all(|k| sums.get(k as usize) == self.sums[k as usize])
        })
    }

    /// Every sum and what it adds, from scratch at `values`.
    pub(super) fn rescore(&mut self, values: &[i32]) {
        let value: Vec<f64> = values.iter().map(|&v| f64::from(v)).collect();
        // Over the old lists, which neither is read for: no new room at each scoring.
        let mut sums = std::mem::take(&mut self.sums);
        sums.resize(self.index.len(), [0.0; 2]);
        self.fill_every_sum(&mut sums, &value);
        self.sums = sums;
        let mut added = std::mem::take(&mut self.added);
        added.set_each(|i| self.position_added(i, |k| self.sums[k], |slot| value[slot]));
        self.added = added;
    }

    /// What position `i`'s sums give, sum `k` being `sum(k)`, `value` giving each slot's
    /// value.
    fn position_added(
        &self,
        i: usize,
        sum: impl Fn(usize) -> [f64; 2],
        value: impl Fn(usize) -> f64,
    ) -> Added {
        let mut added = Added {
            end: self.end_offset.get(i),
            ..Added::default()
        };
        for k in self.index.sums_of(i..i + 1) {
            let k = k as usize;
            let [mid, end] = self.contribution(k, sum(k), &value);
            if self.terms[self.term_of(k) as usize].is_complexity() {
                added.complexity += end;
            } else {
                added.all += mid + end;
                added.end += end;
            }
        }
        added
    }

    /// The sums of `run` that `slot` moving by `delta` changes (those that count it), with
    /// their new sums, sums rising.
    fn moved_sums(&self, (slot, delta): (usize, i32), run: Range<u32>) -> Vec<(usize, [f64; 2])> {
        let mut moved: Vec<(usize, [f64; 2])> = Vec::new();
        self.each_count(slot, run, |k, part, count| {
            let k = k as usize;
            if moved.last().is_none_or(|m| m.0 != k) {
                moved.push((k, self.sums[k]));
            }
            let last = moved.last_mut().expect("pushed");
            last.1[part] += f64::from(count) * f64::from(delta);
        });
        moved
    }

    /// What the sums of every position they touch give if `slot` moves by `delta` from
    /// `values`, as `f(position, what they give then)`: (position, that), positions rising,
    /// none twice.
    pub(super) fn changes<T: Send>(
        &self,
        (values, slot, delta): (&[i32], usize, i32),
        f: impl Fn(u32, Added) -> T + Sync,
    ) -> Vec<(u32, T)> {
        if self.linear(slot) {
            return Vec::new();
        }
        let after = |s: usize| f64::from(values[s] + if s == slot { delta } else { 0 });
        if !self.factor_of[slot].is_empty() {
            let moved = self.moved_sums((slot, delta), 0..u32::MAX);
            let each = self.weighed_changes(slot, &moved, after).into_iter();
            return each.map(|(i, a)| (i, f(i, a))).collect();
        }
        let spans: Vec<Range<usize>> = self.spans().collect();
        let parts = self.by_span(&spans, (slot, delta), after, |_, added| {
            let each = added.into_iter().map(|(i, a)| (i, f(i, a)));
            each.collect::<Vec<_>>()
        });
        let mut all = Vec::with_capacity(parts.iter().map(Vec::len).sum());
        parts.into_iter().for_each(|part| all.extend(part));
        all
    }

    /// What the sums of every position of a slot that weighs a part give when the sums
    /// `moved` (rising) have their new sums and `value` gives each slot's value.
    fn weighed_changes(
        &self,
        slot: usize,
        moved: &[(usize, [f64; 2])],
        value: impl Fn(usize) -> f64 + Copy,
    ) -> Vec<(u32, Added)> {
        let sum = |k: usize| match moved.binary_search_by_key(&k, |m| m.0) {
            Ok(at) => moved[at].1,
            Err(_) => self.sums[k],
        };
        (self.positions_of(slot).into_iter())
            .map(|i| (i, self.position_added(i as usize, sum, value)))
            .collect()
    }

    /// `f(moved, added)` of each of the spans of positions `spans` (on any thread, in
    /// order), for a slot that only counts in sums: the span's sums that `slot` moving by
    /// `delta` changes, with their new sums, and what the sums of their positions give then
    /// (`value` giving each slot's value). No list of every moved sum is held.
    fn by_span<T: Send>(
        &self,
        spans: &[Range<usize>],
        (slot, delta): (usize, i32),
        value: impl Fn(usize) -> f64 + Copy + Sync,
        f: impl Fn(Vec<(usize, [f64; 2])>, Vec<(u32, Added)>) -> T + Sync,
    ) -> Vec<T> {
        (spans.par_iter().cloned())
            .map(|p| {
                let run = self.index.sums_of(p);
                let moved = self.moved_sums((slot, delta), run);
                let added = self.added_in(&moved, value);
                f(moved, added)
            })
            .collect()
    }

    /// What the sums of the positions of the `moved` sums (rising) give, read in one sweep.
    fn added_in(
        &self,
        moved: &[(usize, [f64; 2])],
        value: impl Fn(usize) -> f64 + Copy,
    ) -> Vec<(u32, Added)> {
        let mut out: Vec<(u32, Added)> = Vec::new();
        let mut rest = moved;
        while let Some(&(k, _)) = rest.first() {
            let i = self.index.position(k);
            let own = (rest.iter())
                .take_while(|m| self.index.position(m.0) == i)
                .count();
            let (mine, later) = rest.split_at(own);
            let sum = |k: usize| mine.iter().find(|m| m.0 == k).map_or(self.sums[k], |m| m.1);
            out.push((i, self.position_added(i as usize, sum, value)));
            rest = later;
        }
        out
    }

    /// Moves `slot` by `delta` from `values` for good: the sums it counts in, and what the
    /// sums of every position they touch give; returns those positions. A slot only
    /// counted in sums moves them `APPLY_SPANS` spans of positions at a time: a move of a
    /// value a million positions count holds a few megabytes of new sums, not all of them.
    pub(super) fn apply(&mut self, values: &[i32], slot: usize, delta: i32) -> Vec<u32> {
        if self.linear(slot) {
            return Vec::new();
        }
        let after = |s: usize| f64::from(values[s] + if s == slot { delta } else { 0 });
        let mut positions = Vec::new();
        if !self.factor_of[slot].is_empty() {
            let moved = self.moved_sums((slot, delta), 0..u32::MAX);
            let touched = self.weighed_changes(slot, &moved, after);
            self.set_moved(vec![(moved, touched)], &mut positions);
            return positions;
        }
        let spans: Vec<Range<usize>> = self.spans().collect();
        for batch in spans.chunks(APPLY_SPANS) {
            let parts = self.by_span(batch, (slot, delta), after, |moved, added| (moved, added));
            self.set_moved(parts, &mut positions);
        }
        positions
    }

    /// Writes the moved sums and what their positions' sums give of `parts`, the positions
    /// appended to `positions`.
    fn set_moved(&mut self, parts: Vec<MovedSums>, positions: &mut Vec<u32>) {
        for (moved, touched) in parts {
            for (k, sums) in moved {
                self.sums[k] = sums;
            }
            for (i, added) in touched {
                self.added.set(i as usize, added);
                positions.push(i);
            }
        }
    }

    /// The positions a sum of which counts `slot` or a shape of which it multiplies.
    pub(super) fn positions_of(&self, slot: usize) -> Vec<u32> {
        let mut out: Vec<u32> = Vec::new();
        self.each_count(slot, 0..u32::MAX, |k, _, _| {
            out.push(self.index.position(k as usize));
        });
        for &(term, _) in &self.factor_of[slot] {
            let of_term = (0..self.index.len()).filter(|&k| self.term_of(k) == term);
            out.extend(of_term.map(|k| self.index.position(k)));
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// About how many positions a move of `slot` reaches through the sums (at most): its
    /// counts, or every sum of a term it weighs.
    pub(super) fn reach(&self, slot: usize) -> usize {
        match self.factor_of.get(slot).is_some_and(|f| !f.is_empty()) {
            true => self.index.len(),
            false => (self.slots.get(slot)).map_or(0, |s| self.counts[s.0 as usize].len()),
        }
    }

    /// The sums of the positions `kept` (rising), renumbered from 0: a sample's.
    pub(super) fn only(&self, kept: &[usize]) -> Inner {
        let mut out = Inner {
            terms: self.terms.clone(),
            added: AddedList::zeros(0, self.has_complexity()),
            counts: vec![EntryCounts::default(); self.counts.len()],
            slots: self.slots.clone(),
            factor_of: self.factor_of.clone(),
            ..Inner::default()
        };
        let mut renumbered = vec![u32::MAX; self.index.len()];
        for &i in kept {
            let sums = self.index.sums_of(i..i + 1);
            let range = sums.start as usize..sums.end as usize;
            let term_sides: Vec<u32> = range.clone().map(|k| self.index.term_side(k)).collect();
            for (k, slot) in range.clone().zip(&mut renumbered[range]) {
                *slot = out.index.len() as u32 + (k - sums.start as usize) as u32;
                out.offset.push(self.offset.get(k));
                out.sums.push(self.sums[k]);
            }
            out.index.push(&term_sides);
            out.end_offset.push(self.end_offset.get(i));
            out.added.push(self.added.get(i));
        }
        out.counts = (self.counts.iter())
            .map(|c| c.renumbered(&renumbered))
            .collect();
        out
    }

    /// Bytes held.
    pub(super) fn memory_bytes(&self) -> usize {
        // The index and the sums; the tapers are the dataset's.
        let counts: usize = self.counts.iter().map(EntryCounts::memory_bytes).sum();
        self.index.memory_bytes()
            + 16 * self.sums.capacity()
            + self.offset.memory_bytes()
            + self.end_offset.memory_bytes()
            + self.added.memory_bytes()
            + counts
    }
}

/// The sums are gathered as the linear dataset's columns are built.
impl Beside for Inner {
    /// An empty set of sums for the positions of `space`.
    fn new(space: &ParamSpace) -> Inner {
        let slots = space.value_count();
        let mut factor_of = vec![Vec::new(); slots];
        for (t, term) in space.inner().iter().enumerate() {
            for (part, shape) in term.parts().into_iter().enumerate() {
                if let Some(slot) = shape.and_then(|s| s.times_value) {
                    factor_of[slot].push((t as u32, part as u8));
                }
            }
        }
        let terms = space.inner().to_vec();
        let complexity = terms.iter().any(InnerTerm::is_complexity);
        Inner {
            terms,
            added: AddedList::zeros(0, complexity),
            counts: vec![EntryCounts::default(); space.entry_count()],
            slots: slot_parts(space),
            factor_of,
            ..Inner::default()
        }
    }

    /// Adds the sums of position `p` (the next position) of `space`.
    fn add(&mut self, p: &TracedPosition) {
        let (phase, scale) = p.taper();
        let term_sides: Vec<u32> = (p.inner.iter())
            .map(|u| term_side(u.term, u.side))
            .collect();
        for (u, instance) in p.inner.iter().zip(self.index.len() as u32..) {
            debug_assert!(instance < 1 << 31, "a count keeps 31 bits of its sum");
            self.offset.push(u.offset);
            self.sums.push([0.0; 2]);
            for c in &u.coeffs {
                let counts = match *c {
                    Coef::Count(i, n) => [(i, BOTH, n), (i, 0, 0.0)],
                    Coef::Split(i, m, e) if m == e => [(i, BOTH, m), (i, 0, 0.0)],
                    Coef::Split(i, m, e) => [(i, MID, m), (i, END, e)],
                };
                for (entry, parts, n) in counts.into_iter().filter(|c| c.1 != 0) {
                    self.counts[entry as usize].push(Count::new(instance, parts, n));
                }
            }
        }
        self.index.push(&term_sides);
        self.end_offset.push((1.0 - phase) * scale * p.fixed().1);
        self.added.push(Added::default());
    }

    /// Appends `other`, whose positions follow these, of `total` positions in all: each list
    /// that runs out of room takes what its share so far says the whole will need (grown by
    /// doubling, tens of millions of counts could hold up to twice their bytes).
    fn extend(&mut self, other: Inner, total: usize) {
        let instances = self.index.len() as u32;
        let share = (self.added.len() + other.added.len(), total);
        self.index.extend(other.index, share);
        self.offset.extend(other.offset);
        extend_toward(&mut self.sums, share, other.sums.into_iter());
        for (mine, theirs) in self.counts.iter_mut().zip(other.counts) {
            mine.extend(theirs, instances, share);
        }
        self.end_offset.extend(other.end_offset);
        self.added.extend(other.added, share);
    }
}

impl Inner {
    /// Writes the sums' part of a composed dataset's tuner form.
    pub(super) fn write(&self, out: &mut impl Write) -> io::Result<()> {
        let (position, _, first) = self.index.lists();
        put(out, &position, u32::to_le_bytes)?;
        let terms: Vec<u32> = (0..self.index.len()).map(|k| self.term_of(k)).collect();
        let sides: Vec<f32> = (0..self.index.len())
            .map(|k| self.side_of(k) as f32)
            .collect();
        put(out, &terms, u32::to_le_bytes)?;
        let flat = |pairs: &[[f32; 2]]| -> Vec<f32> { pairs.iter().flatten().copied().collect() };
        put(out, &sides, f32::to_le_bytes)?;
        put(out, &flat(self.offset.stored()), f32::to_le_bytes)?;
        put(out, &first, u32::to_le_bytes)?;
        put(out, self.end_offset.stored(), f64::to_le_bytes)?;
        let starts: Vec<u32> = (self.counts.iter())
            .scan(0u32, |at, c| {
                *at += c.len() as u32;
                Some(*at)
            })
            .collect();
        put(out, &starts, u32::to_le_bytes)?;
        let (mut keys, mut counts) = (Vec::new(), Vec::new());
        for entry in &self.counts {
            let (k, c) = entry.parts();
            keys.extend_from_slice(k);
            counts.extend(c);
        }
        put(out, &keys, u32::to_le_bytes)?;
        put(out, &counts, f32::to_le_bytes)
    }

    /// Reads what [`Inner::write`] wrote for `n` positions of `space`; the sums are those of
    /// all-zero values until the dataset is scored.
    pub(super) fn read(space: &ParamSpace, n: usize, input: &mut impl Read) -> io::Result<Inner> {
        let mut inner = <Inner as Beside>::new(space);
        let position: Vec<u32> = list(input, u32::from_le_bytes)?;
        let pairs = |flat: Vec<f32>| -> Vec<[f32; 2]> {
            flat.chunks_exact(2).map(|p| [p[0], p[1]]).collect()
        };
        let terms: Vec<u32> = list(input, u32::from_le_bytes)?;
        let sides: Vec<f32> = list(input, f32::from_le_bytes)?;
        let signed = |s: &f32| *s == 1.0 || *s == -1.0;
        if terms.len() != sides.len() || !sides.iter().all(signed) {
            return Err(io::Error::other("not a tuner form"));
        }
        let term_sides = terms.iter().zip(&sides).map(|(&t, &s)| term_side(t, s));
        let term_sides: Vec<u32> = term_sides.collect();
        let offset = pairs(list(input, f32::from_le_bytes)?);
        let first: Vec<u32> = list(input, u32::from_le_bytes)?;
        let end_offset = list(input, f64::from_le_bytes)?;
        let starts: Vec<u32> = list(input, u32::from_le_bytes)?;
        let keys: Vec<u32> = list(input, u32::from_le_bytes)?;
        let counts: Vec<f32> = list(input, f32::from_le_bytes)?;
        let sums = position.len();
        let fits = first.len() == n + 1;
        match SumIndex::from_lists(position, term_sides, first) {
            Some(index) if fits => inner.index = index,
            _ => return Err(io::Error::other("not a tuner form")),
        }
        let offsets = (
            ZeroList::from_stored(offset, sums),
            ZeroList::from_stored(end_offset, n),
        );
        let (Some(offset), Some(end_offset)) = offsets else {
            return Err(io::Error::other("not a tuner form"));
        };
        (inner.offset, inner.end_offset) = (offset, end_offset);
        let fits = starts.len() == inner.counts.len()
            && starts.last().map_or(0, |&s| s as usize) == keys.len()
            && counts.len() == keys.len()
            && keys.iter().all(|&k| ((k >> 2) as usize) < sums);
        if !fits {
            return Err(io::Error::other("not a tuner form"));
        }
        let mut from = 0;
        for (entry, &to) in starts.iter().enumerate() {
            let range = from..to as usize;
            let (Some(k), Some(c)) = (keys.get(range.clone()), counts.get(range.clone())) else {
                return Err(io::Error::other("not a tuner form"));
            };
            inner.counts[entry] = EntryCounts::from_parts(k.to_vec(), c.to_vec());
            from = range.end;
        }
        let mut zero_sums = vec![[0.0; 2]; sums];
        inner.fill_sums(0, &mut zero_sums, &vec![0.0; inner.slots.len()]);
        inner.sums = zero_sums;
        inner.added = AddedList::zeros(n, inner.has_complexity());
        Ok(inner)
    }
}

#[cfg(test)]
mod tests {
    use super::extend_toward;

    #[test]
    fn a_list_takes_room_for_the_whole_at_the_rate_so_far() {
        let mut list: Vec<u32> = Vec::new();
        // 10 items for the first 5 of 50 positions: room for about 100.
        extend_toward(&mut list, (5, 50), 0..10);
        let room = list.capacity();
        assert!((100..=110).contains(&room), "{room}");
        // Appends within the estimate take no new room.
        for done in 6..=45 {
            extend_toward(&mut list, (done, 50), 0..2);
        }
        assert_eq!((list.len(), list.capacity()), (90, room));
        // Beyond it, room for the whole at the new rate, not twice the list.
        extend_toward(&mut list, (50, 50), 0..40);
        assert_eq!(list.len(), 130);
        assert!(
            (130..=135).contains(&list.capacity()),
            "{}",
            list.capacity()
        );
        assert_eq!(list[..12], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1]);
    }
}
