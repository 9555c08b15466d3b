//! How a model's evaluations move with its values, and what Newton's step is made of: the
//! [`Jacobian`], block by block of positions (each position's row of derivatives, through a
//! [`RowSink`]); the products, gradients and Gauss-Newton [`System`] those rows sum to, in
//! an order no thread count changes (`rows`); the factored, damped system solved for a step
//! ([`Factor`]); and the [`Exact`] answers an evaluation gives where its columns cannot
//! (a composed evaluation, through the chain rule). Nothing here knows whose evaluation it
//! is, or how a run goes.

mod exact;
pub mod hessian;
pub mod rows;
mod solve;

pub use exact::{Exact, Hold};
pub use hessian::system;
pub use rows::{RowBuilder, System};
pub use solve::Factor;

use std::ops::Range;

/// Where a model puts one block's Jacobian entries ([`crate::Jacobian::block_rows`]).
pub trait RowSink {
    /// The block of `len` positions from position `start` on begins.
    fn begin(&mut self, start: usize, len: usize);

    /// Position `position` (of the whole model) moves by `derivative` per unit of variable
    /// `var`. Variables come in rising order, each at most once per position.
    fn push(&mut self, position: usize, var: u32, derivative: f64);
}

/// The Jacobian of a model's evaluations in its values, block by block of positions: what
/// second-order steps and gradient epochs read (Newton, Adam).
pub trait Jacobian: Sync {
    /// Number of blocks of positions [`Jacobian::block_rows`] takes, in position order.
    fn row_blocks(&self) -> usize;

    /// The positions of block `b`: its first and how many.
    fn block_span(&self, b: usize) -> (usize, usize);

    /// Block `b`'s Jacobian rows: begins `rows` with the block's positions ([`RowSink::begin`]), then pushes, for
    /// variable `j` from the first to the last, every position of the block whose
    /// evaluation slot `slots[j]` moves, with how many centipawns per unit of the value.
    /// Every slot asked is `Model::linear`.
    fn block_rows<S: RowSink>(&self, b: usize, slots: &[usize], rows: &mut S);

    /// Whether `slot` and `slot + 1` are one entry's two values (its middlegame and endgame
    /// value, which most rows move together): the Hessian's sums then keep the two as a
    /// pair ([`hessian::system`]). No slot by default.
    fn pairs_with_next(&self, _slot: usize) -> bool {
        false
    }

    /// Positions of a block whose rows [`Jacobian::part_rows`] gives well at a time (the
    /// Hessian's sums hold one part's rows per thread at once): the whole block by default.
    fn row_part(&self) -> usize {
        usize::MAX
    }

    /// [`Jacobian::block_rows`] of block `b`'s positions `within` alone (a part of its span,
    /// whole positions of the model): begins `rows` with them, then pushes their entries as
    /// `block_rows` does. By default the whole block's rows, the others left out.
    fn part_rows<S: RowSink>(&self, b: usize, within: Range<usize>, slots: &[usize], rows: &mut S) {
        rows.begin(within.start, within.len());
        self.block_rows(b, slots, &mut Within { within, rows });
    }

    /// Adds block `b`'s `J · direction` into `out` (an entry per position of the block,
    /// from its first): how far each evaluation moves when variable `j` (slot `slots[j]`,
    /// all `Model::linear`) moves by `direction[j]`. Each position's terms are added in
    /// variable order. Models may walk their columns faster than [`Jacobian::block_rows`] does.
    fn block_product(&self, b: usize, slots: &[usize], direction: &[f64], out: &mut [f64]) {
        let mut sink = ProductSink {
            direction,
            start: 0,
            out,
        };
        self.block_rows(b, slots, &mut sink);
    }

    /// Adds block `b`'s `Σ slopes[p] · J_p` into `gradient` (one entry per variable, slot
    /// `slots[j]`), where `slopes` holds a factor per position of the block, from its first.
    fn block_gradient(&self, b: usize, slots: &[usize], slopes: &[f64], gradient: &mut [f64]) {
        let mut sink = GradientSink {
            slopes,
            start: 0,
            gradient,
        };
        self.block_rows(b, slots, &mut sink);
    }
}

/// [`Jacobian::part_rows`] through the whole block's: the entries of positions `within`.
struct Within<'s, S> {
    within: Range<usize>,
    rows: &'s mut S,
}

impl<S: RowSink> RowSink for Within<'_, S> {
    fn begin(&mut self, _start: usize, _len: usize) {}

    #[inline]
    fn push(&mut self, position: usize, var: u32, derivative: f64) {
        if self.within.contains(&position) {
            self.rows.push(position, var, derivative);
        }
    }
}

/// [`Jacobian::block_product`] through the rows: each entry added into its position.
struct ProductSink<'s> {
    direction: &'s [f64],
    start: usize,
    out: &'s mut [f64],
}

impl RowSink for ProductSink<'_> {
    fn begin(&mut self, start: usize, _len: usize) {
        self.start = start;
    }

    #[inline]
    fn push(&mut self, position: usize, var: u32, derivative: f64) {
        self.out[position - self.start] += derivative * self.direction[var as usize];
    }
}

/// [`Jacobian::block_gradient`] through the rows: each entry weighed by its position's slope.
struct GradientSink<'s> {
    slopes: &'s [f64],
    start: usize,
    gradient: &'s mut [f64],
}

impl RowSink for GradientSink<'_> {
    fn begin(&mut self, start: usize, _len: usize) {
        self.start = start;
    }

    #[inline]
    fn push(&mut self, position: usize, var: u32, derivative: f64) {
        self.gradient[var as usize] += self.slopes[position - self.start] * derivative;
    }
}
