//! Jacobian rows: how each position's evaluation moves per unit of each tuned value.
//!
//! Models keep their coefficients column by column (a value's positions); second-order steps
//! need them row by row (a position's values). A [`RowBuilder`] turns one block of columns
//! into rows, and the passes here walk every block in position order: the product of the
//! Jacobian with a direction, and the gradient and Hessian of the summed error. Sums go per
//! fixed group of blocks, added in group order, so results do not depend on the threads.

use crate::error::real_sigmoid;
use crate::model::{Jacobian, Model};
use rayon::prelude::*;

/// Where a model puts one block's Jacobian entries ([`crate::Jacobian::block_rows`]).
pub trait RowSink {
    /// The block of `len` positions from position `start` on begins.
    fn begin(&mut self, start: usize, len: usize);

    /// Position `position` (of the whole model) moves by `derivative` per unit of variable
    /// `var`. Variables come in rising order, each at most once per position.
    fn push(&mut self, position: usize, var: u32, derivative: f64);
}

/// One block's coefficients, taken column by column and handed out row by row.
#[derive(Debug, Default)]
pub struct RowBuilder {
    /// The block's first position and its number of positions.
    start: usize,
    len: usize,
    /// (position in the block, variable, derivative) in the order pushed.
    entries: Vec<(u32, u32, f64)>,
    /// Per position, where its row begins in `rows` (and one past the last).
    starts: Vec<u32>,
    /// The rows, position after position.
    rows: Vec<(u32, f64)>,
}

impl RowSink for RowBuilder {
    fn begin(&mut self, start: usize, len: usize) {
        (self.start, self.len) = (start, len);
        self.entries.clear();
    }

    /// Each row lists its variables in the order pushed.
    #[inline]
    fn push(&mut self, position: usize, var: u32, derivative: f64) {
        if derivative != 0.0 {
            let at = (position - self.start) as u32;
            self.entries.push((at, var, derivative));
        }
    }
}

impl RowBuilder {
    /// Calls `f(position, row)` for every position of the block, in order, with its
    /// (variable, derivative) pairs (a stable counting sort of the entries by position).
    pub fn for_each(&mut self, mut f: impl FnMut(usize, &[(u32, f64)])) {
        self.starts.clear();
        self.starts.resize(self.len + 1, 0);
        for e in &self.entries {
            self.starts[e.0 as usize + 1] += 1;
        }
        for j in 0..self.len {
            self.starts[j + 1] += self.starts[j];
        }
        self.rows.resize(self.entries.len(), (0, 0.0));
        let mut next = self.starts.clone();
        for &(at, var, d) in &self.entries {
            let slot = &mut next[at as usize];
            self.rows[*slot as usize] = (var, d);
            *slot += 1;
        }
        for j in 0..self.len {
            let row = &self.rows[self.starts[j] as usize..self.starts[j + 1] as usize];
            f(self.start + j, row);
        }
    }
}

/// `J · direction`: for every position, how far its evaluation moves when variable `j`
/// (slot `slots[j]`) moves by `direction[j]`. Each position's terms are added in variable
/// order, whatever the threads.
pub fn product<J: Jacobian>(model: &J, slots: &[usize], direction: &[f64]) -> Vec<f64> {
    let parts: Vec<Vec<f64>> = (0..model.row_blocks())
        .into_par_iter()
        .map(|b| {
            let mut out = vec![0.0; model.block_span(b).1];
            model.block_product(b, slots, direction, &mut out);
            out
        })
        .collect();
    parts.concat()
}

/// The gradient of `Σ E_i` over the variables `slots`, where position `i`'s error moves by
/// `slopes[i]` per centipawn: per block, then the blocks in order.
pub fn gradient<J: Jacobian>(model: &J, slots: &[usize], slopes: &[f64]) -> Vec<f64> {
    let parts: Vec<Vec<f64>> = (0..model.row_blocks())
        .into_par_iter()
        .map(|b| {
            let (start, len) = model.block_span(b);
            let mut sum = vec![0.0; slots.len()];
            model.block_gradient(b, slots, &slopes[start..start + len], &mut sum);
            sum
        })
        .collect();
    add_in_order(slots.len(), parts)
}

/// The element-wise sum of `parts`, added in their order.
fn add_in_order(n: usize, parts: Vec<Vec<f64>>) -> Vec<f64> {
    let mut total = vec![0.0; n];
    for part in parts {
        total.iter_mut().zip(part).for_each(|(t, x)| *t += x);
    }
    total
}

/// The summed error and its gradient at real values: one pass over the positions.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorGradient {
    /// `Σ E_i` of the evaluations moved by `J · delta`.
    pub sum: f64,
    /// Its derivative per unit of each variable.
    pub gradient: Vec<f64>,
}

/// The summed squared error `Σ E_i` (at `K` = `k`) and its gradient over the variables
/// `slots` when each position's evaluation is its unrounded cached one
/// ([`Model::exact_eval`]) moved by `J · delta`: block by block, the product, each
/// position's error and slope, and the gradient while the block is still in the caches
/// (Adam's epoch). Blocks are added in order, whatever the threads.
pub fn error_gradient<M: Model>(
    model: &M,
    slots: &[usize],
    delta: &[f64],
    k: f64,
) -> ErrorGradient {
    let c = k * std::f64::consts::LN_10 / 400.0;
    let parts: Vec<(f64, Vec<f64>)> = (0..model.row_blocks())
        .into_par_iter()
        .map(|b| {
            let (start, len) = model.block_span(b);
            let mut q = vec![0.0; len];
            model.block_product(b, slots, delta, &mut q);
            let mut sum = 0.0;
            for (at, q) in q.iter_mut().enumerate() {
                let i = start + at;
                let s = real_sigmoid(k, model.exact_eval(i) + *q);
                let miss = model.target(i) - s;
                sum += miss * miss;
                *q = -2.0 * miss * c * s * (1.0 - s);
            }
            let mut gradient = vec![0.0; slots.len()];
            model.block_gradient(b, slots, &q, &mut gradient);
            (sum, gradient)
        })
        .collect();
    let sum = parts.iter().map(|p| p.0).sum();
    let gradient = add_in_order(slots.len(), parts.into_iter().map(|p| p.1).collect());
    ErrorGradient { sum, gradient }
}

/// The summed squared error `Σ E_i` (at `K` = `k`) when each position's evaluation is its
/// unrounded cached one moved by `J · delta` (the variables `slots`): per block, then the
/// blocks in order.
pub fn error_sum<M: Model>(model: &M, slots: &[usize], delta: &[f64], k: f64) -> f64 {
    let parts: Vec<f64> = (0..model.row_blocks())
        .into_par_iter()
        .map(|b| {
            let (start, len) = model.block_span(b);
            let mut q = vec![0.0; len];
            model.block_product(b, slots, delta, &mut q);
            let errors = q.iter().enumerate().map(|(at, q)| {
                let i = start + at;
                let miss = model.target(i) - real_sigmoid(k, model.exact_eval(i) + q);
                miss * miss
            });
            errors.sum::<f64>()
        })
        .collect();
    parts.iter().sum()
}

/// The gradient and Hessian of a sum over positions, in the tuned variables.
#[derive(Clone, Debug, PartialEq)]
pub struct System {
    /// Number of variables.
    pub n: usize,
    /// `Σ slope_i · J_i`.
    pub gradient: Vec<f64>,
    /// `Σ curvature_i · J_i J_iᵀ`, `n × n` by rows (both halves filled by [`system`]).
    pub hessian: Vec<f64>,
}

impl System {
    fn zero(n: usize) -> System {
        System {
            n,
            gradient: vec![0.0; n],
            hessian: vec![0.0; n * n],
        }
    }

    /// Adds a position whose error moves by `slope` and curves by `curvature` per
    /// centipawn, with its row (variables rising): the upper half of the Hessian only.
    #[inline]
    fn add(&mut self, row: &[(u32, f64)], slope: f64, curvature: f64) {
        let n = self.n;
        for (p, &(a, da)) in row.iter().enumerate() {
            let a = a as usize;
            self.gradient[a] += slope * da;
            let weight = curvature * da;
            let line = &mut self.hessian[a * n..(a + 1) * n];
            for &(b, db) in &row[p..] {
                line[b as usize] += weight * db;
            }
        }
    }

    fn add_system(&mut self, other: &System) {
        let pairs = self.gradient.iter_mut().zip(&other.gradient);
        pairs.for_each(|(a, b)| *a += b);
        let pairs = self.hessian.iter_mut().zip(&other.hessian);
        pairs.for_each(|(a, b)| *a += b);
    }

    /// Copies the upper half onto the lower.
    fn mirror(&mut self) {
        let n = self.n;
        for a in 0..n {
            for b in 0..a {
                self.hessian[a * n + b] = self.hessian[b * n + a];
            }
        }
    }
}

/// Groups of blocks the system is summed in: each group front to back, then the groups in
/// order, whatever the number of threads.
const GROUPS: usize = 8;

/// The gradient and Hessian of `Σ E_i` over the variables `slots` (variable `j` is slot
/// `slots[j]`), where position `i`'s error moves by `slopes[i]` and curves by
/// `curvatures[i]` per centipawn of its evaluation.
pub fn system<J: Jacobian>(
    model: &J,
    slots: &[usize],
    slopes: &[f64],
    curvatures: &[f64],
) -> System {
    let (n, blocks) = (slots.len(), model.row_blocks());
    let per = blocks.div_ceil(GROUPS).max(1);
    let groups: Vec<System> = (0..blocks.div_ceil(per))
        .into_par_iter()
        .map(|g| {
            let (mut sum, mut rows) = (System::zero(n), RowBuilder::default());
            for b in g * per..((g + 1) * per).min(blocks) {
                model.block_rows(b, slots, &mut rows);
                rows.for_each(|i, row| sum.add(row, slopes[i], curvatures[i]));
            }
            sum
        })
        .collect();
    let mut total = System::zero(n);
    groups.iter().for_each(|g| total.add_system(g));
    total.mirror();
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_come_out_by_position_with_variables_in_pushed_order() {
        let mut rows = RowBuilder::default();
        rows.begin(10, 3);
        // Column of variable 0, then of variable 1, each in position order.
        rows.push(10, 0, 2.0);
        rows.push(12, 0, -1.0);
        rows.push(11, 1, 0.0);
        rows.push(12, 1, 0.5);
        let mut seen = Vec::new();
        rows.for_each(|i, row| seen.push((i, row.to_vec())));
        let want = vec![
            (10, vec![(0, 2.0)]),
            (11, vec![]),
            (12, vec![(0, -1.0), (1, 0.5)]),
        ];
        assert_eq!(seen, want);
    }

    #[test]
    fn a_row_adds_its_outer_product_and_gradient() {
        let mut s = System::zero(3);
        s.add(&[(0, 1.0), (2, 3.0)], 0.5, 2.0);
        s.mirror();
        assert_eq!(s.gradient, vec![0.5, 0.0, 1.5]);
        let want = [2.0, 0.0, 6.0, 0.0, 0.0, 0.0, 6.0, 0.0, 18.0];
        assert_eq!(s.hessian, want);
    }
}
