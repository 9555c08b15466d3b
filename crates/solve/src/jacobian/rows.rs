//! Jacobian rows: how each position's evaluation moves per unit of each tuned value.
//!
//! Models keep their coefficients column by column (a value's positions); second-order steps
//! need them row by row (a position's values). A [`RowBuilder`] turns one block of columns
//! into rows, and the passes here walk every block in position order: the product of the
//! Jacobian with a direction and the gradient of the summed error (its Hessian:
//! [`super::hessian`]). Sums go per fixed group of blocks, added in group order, so results
//! do not depend on the threads.

use super::{Jacobian, RowSink};
use rayon::prelude::*;
use std::ops::Range;

/// One block's coefficients, taken column by column and handed out row by row: the
/// entries as pushed, then laid out position after position (a stable counting sort: each
/// row's variables in the order pushed), the variables and the derivatives in two lists.
#[derive(Debug, Default)]
pub struct RowBuilder {
    /// The block's first position and its number of positions.
    start: usize,
    len: usize,
    /// (position in the block, variable, derivative) in the order pushed.
    entries: Vec<(u32, u32, f64)>,
    /// Per position, where its row begins in `vars` (and one past the last).
    starts: Vec<u32>,
    /// The rows' variables, one row after another.
    vars: Vec<u32>,
    /// Their derivatives, entry for entry.
    derivatives: Vec<f64>,
    /// Per position, the next free entry of its row while they are laid out.
    free: Vec<u32>,
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
    /// Calls `f(position, variables, derivatives)` for every position of the block, in
    /// order, with its row's entries in the order pushed.
    pub fn for_each(&mut self, mut f: impl FnMut(usize, &[u32], &[f64])) {
        self.lay_out();
        for j in 0..self.len {
            let at = self.row(j);
            f(
                self.start + j,
                &self.vars[at.clone()],
                &self.derivatives[at],
            );
        }
    }

    /// Where the row of the block's `j`-th position lies in the laid-out lists.
    fn row(&self, j: usize) -> Range<usize> {
        self.starts[j] as usize..self.starts[j + 1] as usize
    }

    /// Lays the entries out position after position (a stable counting sort by position).
    fn lay_out(&mut self) {
        row_starts(&mut self.starts, self.len, self.entries.iter().map(|e| e.0));
        self.vars.resize(self.entries.len(), 0);
        self.derivatives.resize(self.entries.len(), 0.0);
        self.free.clone_from(&self.starts);
        for &(at, var, derivative) in &self.entries {
            let slot = &mut self.free[at as usize];
            self.vars[*slot as usize] = var;
            self.derivatives[*slot as usize] = derivative;
            *slot += 1;
        }
    }
}

/// Sets `starts` to where each of `len` positions' rows begins when entries at positions
/// `positions` (each below `len`) are laid out row after row, and one past the last row.
pub(super) fn row_starts(starts: &mut Vec<u32>, len: usize, positions: impl Iterator<Item = u32>) {
    starts.clear();
    starts.resize(len + 1, 0);
    for at in positions {
        starts[at as usize + 1] += 1;
    }
    for j in 0..len {
        starts[j + 1] += starts[j];
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
pub fn add_in_order(n: usize, parts: Vec<Vec<f64>>) -> Vec<f64> {
    let mut total = vec![0.0; n];
    for part in parts {
        total.iter_mut().zip(part).for_each(|(t, x)| *t += x);
    }
    total
}

/// The gradient and Hessian of a sum over positions, in the tuned variables.
#[derive(Clone, Debug, PartialEq)]
pub struct System {
    /// Number of variables.
    pub n: usize,
    /// `Σ slope_i · J_i`.
    pub gradient: Vec<f64>,
    /// `Σ curvature_i · J_i J_iᵀ`, `n × n` by rows (both halves filled by [`super::hessian::system`]).
    pub hessian: Vec<f64>,
}

impl System {
    /// The system of `n` values with every entry zero.
    pub fn zero(n: usize) -> System {
        System {
            n,
            gradient: vec![0.0; n],
            hessian: vec![0.0; n * n],
        }
    }

    /// `other`'s entries added into this system's (a sum over more positions).
    pub fn add_system(&mut self, other: &System) {
        add_entries(&mut self.gradient, &other.gradient);
        add_entries(&mut self.hessian, &other.hessian);
    }
}

/// `b` added into `a`, entry by entry.
fn add_entries(a: &mut [f64], b: &[f64]) {
    a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
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
        rows.for_each(|i, vars, derivatives| seen.push((i, vars.to_vec(), derivatives.to_vec())));
        let want = vec![
            (10, vec![0], vec![2.0]),
            (11, vec![], vec![]),
            (12, vec![0, 1], vec![-1.0, 0.5]),
        ];
        assert_eq!(seen, want);
    }
}
