//! Newton through the chain rule, for a trace whose positions compose inner sums (its
//! answers to Newton, `texel_solve::newton::Exact`). At real values `x` each position's
//! evaluation is its linear part (the cached one moved by the linear columns times the move)
//! plus what its inner sums add, computed exactly at `x`; its Jacobian row is the linear
//! columns' coefficients plus, for every value an inner sum counts, the shape's slope at the
//! sum times the count (and, for a value a shape is multiplied by, the shape's value). Line
//! searches evaluate every trial exactly, so a clamp crossed or a square's curve is judged
//! as it is.

use super::{ComposedDataset, Inner, InnerPoint, ROW_PART};
use rayon::prelude::*;
use std::ops::Range;
use texel_solve::error::chunked_sum;
use texel_solve::jacobian::{hessian, rows, Exact, Hold, Jacobian, RowSink, System};
use texel_solve::model::Model;
use texel_solve::newton::{derivatives, real_error, Derivatives};

/// Every position of `ds` (scored at the integer values `at`, every slot) evaluated exactly
/// at real values `x` of `slots`: its linear part moved by the linear columns, and what its
/// inner sums add there (`ds` composes inner sums).
fn evals(ds: &ComposedDataset, at: &[i32], slots: &[usize], x: &[f64]) -> (Vec<f64>, InnerPoint) {
    let inner = &ds.inner;
    let mut real: Vec<f64> = at.iter().map(|&v| f64::from(v)).collect();
    slots.iter().zip(x).for_each(|(&s, &x)| real[s] = x);
    let mut point = inner.at(&real);
    let from = slots.iter().map(|&s| at[s]);
    let moved: Vec<f64> = x.iter().zip(from).map(|(x, a)| x - f64::from(a)).collect();
    let linear = rows::product(&ds.linear, slots, &moved);
    // A complexity reads the linear entries' endgame part: moved by the endgame columns.
    let end_moved = inner.has_complexity().then(|| {
        let ends = slots.iter().zip(&moved);
        let ends = ends.map(|(&s, &m)| if ds.end_slot(s) { m } else { 0.0 });
        rows::product(&ds.linear, slots, &ends.collect::<Vec<f64>>())
    });
    let linear_end = |i: usize| ds.linear_end(i) + end_moved.as_ref().map_or(0.0, |m| m[i]);
    if inner.has_complexity() {
        inner.settle(&mut point, linear_end);
    }
    let mut q = vec![0.0; ds.len()];
    inner.each_at(&point, &mut q, |i, sums, q| {
        let now = inner.added(i).with(ds.linear_end(i));
        *q = ds.exact_eval(i) - now + linear[i] + inner.added_at((&point, sums), i, linear_end(i));
    });
    (q, point)
}

/// The summed error of `ds` at real values `x` of `slots` (see [`evals`]), at `K` = `k`.
pub fn summed_error(ds: &ComposedDataset, at: &[i32], slots: &[usize], x: &[f64], k: f64) -> f64 {
    let (q, _) = evals(ds, at, slots, x);
    chunked_sum(ds.len(), |i| real_error(k, q[i], ds.target(i)))
}

/// The summed error of `ds` at `x` (see [`evals`]) and `f` of each position's slope and
/// curvature and the Jacobian there (through the chain rule).
fn at_point<T>(
    ds: &ComposedDataset,
    (at, slots, x): (&[i32], &[usize], &[f64]),
    k: f64,
    f: impl FnOnce(&ChainRows, &Derivatives) -> T,
) -> (f64, T) {
    let (q, point) = evals(ds, at, slots, x);
    let now = derivatives(ds, &q, k);
    // The evaluations gave the slopes and curvatures: the rows need their room.
    drop(q);
    let jac = ChainRows {
        model: ds,
        inner: &ds.inner,
        point: &point,
    };
    (now.sum, f(&jac, &now))
}

/// The summed error of `ds` at `x` (see [`evals`]) and its gradient and Gauss-Newton
/// Hessian through the chain rule.
pub fn system(
    ds: &ComposedDataset,
    at: &[i32],
    slots: &[usize],
    x: &[f64],
    k: f64,
) -> (f64, System) {
    at_point(ds, (at, slots, x), k, |jac, now| {
        hessian::system(jac, slots, &now.slopes, &now.curvatures)
    })
}

/// A Jacobian answering every question through its rows, built a whole block at a time
/// (the trait's own ways): what a model's own parts must sum to, in the tests, and the
/// composed gradient where a complexity gates the endgame columns.
pub(super) struct WholeBlocks<'j, J>(pub &'j J);

impl<J: Jacobian> Jacobian for WholeBlocks<'_, J> {
    fn pairs_with_next(&self, slot: usize) -> bool {
        self.0.pairs_with_next(slot)
    }

    fn row_blocks(&self) -> usize {
        self.0.row_blocks()
    }

    fn block_span(&self, b: usize) -> (usize, usize) {
        self.0.block_span(b)
    }

    fn block_rows<S: RowSink>(&self, b: usize, slots: &[usize], rows: &mut S) {
        self.0.block_rows(b, slots, rows);
    }
}

/// [`system`] with the Jacobian's rows built a whole block at a time.
#[cfg(test)]
pub(super) fn system_of_whole_blocks(
    ds: &ComposedDataset,
    (at, slots, x): (&[i32], &[usize], &[f64]),
    k: f64,
) -> (f64, System) {
    at_point(ds, (at, slots, x), k, |jac, now| {
        let whole = WholeBlocks(jac);
        hessian::system(&whole, slots, &now.slopes, &now.curvatures)
    })
}

/// The summed error of `ds` at `x` (see [`evals`]) and its gradient through the chain rule.
pub fn gradient(
    ds: &ComposedDataset,
    at: &[i32],
    slots: &[usize],
    x: &[f64],
    k: f64,
) -> (f64, Vec<f64>) {
    at_point(ds, (at, slots, x), k, |jac, now| {
        rows::gradient(jac, slots, &now.slopes)
    })
}

/// Records how a Jacobian's rows hold each variable.
struct Holds(Vec<Hold>);

impl RowSink for Holds {
    fn begin(&mut self, _start: usize, _len: usize) {}

    fn push(&mut self, _position: usize, var: u32, derivative: f64) {
        let hold = &mut self.0[var as usize];
        hold.counted = true;
        hold.moving |= derivative != 0.0;
    }
}

/// How the positions of `ds` hold each value of `slots` at real values `x` (see [`Hold`]).
pub fn holds(ds: &ComposedDataset, at: &[i32], slots: &[usize], x: &[f64]) -> Vec<Hold> {
    let (_, point) = evals(ds, at, slots, x);
    let jac = ChainRows {
        model: ds,
        inner: &ds.inner,
        point: &point,
    };
    // Each block's holds on any thread, then together (in any order: they only add up).
    let blocks: Vec<Vec<Hold>> = (0..jac.row_blocks())
        .into_par_iter()
        .map(|b| {
            let mut holds = Holds(vec![Hold::default(); slots.len()]);
            jac.block_rows(b, slots, &mut holds);
            holds.0
        })
        .collect();
    let mut holds = vec![Hold::default(); slots.len()];
    for block in blocks {
        holds.iter_mut().zip(block).for_each(|(h, b)| *h = h.and(b));
    }
    for ((hold, &slot), &x) in holds.iter_mut().zip(slots).zip(x) {
        hold.zero_weight = x == 0.0 && jac.inner.weighs(slot);
    }
    holds
}

/// The summed error's curvature among the variables `flat` (numbers among `slots`) at real
/// values `x`, where the Jacobian's columns of those variables are zero: `Σ slope ·
/// ∂²evaluation`, by rows (`flat.len()` squared). Their Gauss-Newton part is zero there.
pub fn flat_curvature(
    ds: &ComposedDataset,
    (at, slots, x): (&[i32], &[usize], &[f64]),
    flat: &[usize],
    k: f64,
) -> Vec<f64> {
    let (q, point) = evals(ds, at, slots, x);
    let now = derivatives(ds, &q, k);
    // The evaluations gave the slopes and curvatures: the rows need their room.
    drop(q);
    let inner = &ds.inner;
    let flat_slots: Vec<usize> = flat.iter().map(|&j| slots[j]).collect();
    let mut out = vec![0.0; flat.len() * flat.len()];
    inner.curvature(&point, &flat_slots, &now.slopes, &mut out);
    out
}

/// The Jacobian at a point of a composed evaluation: the model's linear columns and the
/// inner sums' derivatives there, merged position by position.
struct ChainRows<'a> {
    model: &'a ComposedDataset,
    inner: &'a Inner,
    point: &'a InnerPoint,
}

/// A column's entries as (position, derivative), whatever block they are handed in.
struct Collect<'v>(&'v mut Vec<(usize, f64)>);

impl RowSink for Collect<'_> {
    fn begin(&mut self, _start: usize, _len: usize) {}

    fn push(&mut self, position: usize, _var: u32, derivative: f64) {
        self.0.push((position, derivative));
    }
}

impl Jacobian for ChainRows<'_> {
    fn pairs_with_next(&self, slot: usize) -> bool {
        self.model.pairs_with_next(slot)
    }

    fn row_blocks(&self) -> usize {
        self.model.row_blocks()
    }

    fn block_span(&self, b: usize) -> (usize, usize) {
        self.model.block_span(b)
    }

    fn block_rows<S: RowSink>(&self, b: usize, slots: &[usize], rows: &mut S) {
        let (start, len) = self.model.block_span(b);
        self.part_rows(b, start..start + len, slots, rows);
    }

    fn row_part(&self) -> usize {
        ROW_PART
    }

    /// The linear columns' gradient and the inner sums' beside it, a whole block of
    /// positions at a time, no row built; where a complexity gates the endgame columns,
    /// through the rows.
    fn block_gradient(&self, b: usize, slots: &[usize], slopes: &[f64], gradient: &mut [f64]) {
        if self.inner.has_complexity() {
            return WholeBlocks(self).block_gradient(b, slots, slopes, gradient);
        }
        self.model.block_gradient(b, slots, slopes, gradient);
        let (start, len) = self.model.block_span(b);
        let sums = self.inner.sums_at(self.point, start..start + len);
        let within = (slots, start..start + len);
        (self.inner).add_gradient((self.point, &sums), within, slopes, gradient);
    }

    fn part_rows<S: RowSink>(&self, b: usize, within: Range<usize>, slots: &[usize], rows: &mut S) {
        rows.begin(within.start, within.len());
        let sums = self.inner.sums_at(self.point, within.clone());
        let mut column = Vec::new();
        for (j, &slot) in slots.iter().enumerate() {
            column.clear();
            let collect = &mut Collect(&mut column);
            self.model.part_rows(b, within.clone(), &[slot], collect);
            if self.model.end_slot(slot) {
                // Where a complexity holds the endgame part at zero, it does not move.
                column
                    .iter_mut()
                    .for_each(|c| c.1 *= self.point.end_gate(c.0));
            }
            let at = (self.point, &sums);
            (self.inner).derivatives(at, slot, within.clone(), &mut column);
            column.sort_by_key(|c| c.0);
            let mut at = 0;
            while at < column.len() {
                let position = column[at].0;
                let mut derivative = 0.0;
                while at < column.len() && column[at].0 == position {
                    derivative += column[at].1;
                    at += 1;
                }
                rows.push(position, j as u32, derivative);
            }
        }
    }
}

impl Exact for ComposedDataset {
    fn system(&self, at: &[i32], slots: &[usize], x: &[f64], k: f64) -> (f64, System) {
        system(self, at, slots, x, k)
    }

    fn gradient(&self, at: &[i32], slots: &[usize], x: &[f64], k: f64) -> (f64, Vec<f64>) {
        gradient(self, at, slots, x, k)
    }

    fn summed_error(&self, at: &[i32], slots: &[usize], x: &[f64], k: f64) -> f64 {
        summed_error(self, at, slots, x, k)
    }

    fn holds(&self, at: &[i32], slots: &[usize], x: &[f64]) -> Vec<Hold> {
        holds(self, at, slots, x)
    }

    fn flat_curvature(&self, at: (&[i32], &[usize], &[f64]), flat: &[usize], k: f64) -> Vec<f64> {
        flat_curvature(self, at, flat, k)
    }

    fn weighs(&self, slot: usize) -> bool {
        self.inner.weighs(slot)
    }
}
