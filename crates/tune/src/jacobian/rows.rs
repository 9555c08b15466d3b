//! Jacobian rows: how each position's evaluation moves per unit of each tuned value.
//!
//! Models keep their coefficients column by column (a value's positions); second-order steps
//! need them row by row (a position's values). A [`RowBuilder`] turns one block of columns
//! into rows, and the passes here walk every block in position order: the product of the
//! Jacobian with a direction, and the gradient and Hessian of the summed error. Sums go per
//! fixed group of blocks, added in group order, so results do not depend on the threads.

use super::{Jacobian, RowSink};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// One block's coefficients, taken column by column and handed out row by row: the
/// entries as pushed, and their order position after position (an index of four bytes an
/// entry, where a copy of the rows would take sixteen); each row is gathered as it is
/// handed out.
#[derive(Debug, Default)]
pub struct RowBuilder {
    /// The block's first position and its number of positions.
    start: usize,
    len: usize,
    /// (position in the block, variable, derivative) in the order pushed.
    entries: Vec<(u32, u32, f64)>,
    /// Per position, where its row begins in `order` (and one past the last).
    starts: Vec<u32>,
    /// The entries' indices, position after position, each row in the order pushed.
    order: Vec<u32>,
    /// The row handed out.
    row: Vec<(u32, f64)>,
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
    /// (variable, derivative) pairs in the order pushed.
    pub fn for_each(&mut self, mut f: impl FnMut(usize, &[(u32, f64)])) {
        self.sort();
        let RowBuilder {
            entries,
            starts,
            order,
            row,
            ..
        } = self;
        for j in 0..self.len {
            let at = starts[j] as usize..starts[j + 1] as usize;
            row.clear();
            row.extend(order[at].iter().map(|&k| {
                let (_, var, d) = entries[k as usize];
                (var, d)
            }));
            f(self.start + j, row);
        }
    }

    /// Orders the entries position after position (a stable counting sort of their
    /// indices by position).
    fn sort(&mut self) {
        self.starts.clear();
        self.starts.resize(self.len + 1, 0);
        for e in &self.entries {
            self.starts[e.0 as usize + 1] += 1;
        }
        for j in 0..self.len {
            self.starts[j + 1] += self.starts[j];
        }
        self.order.resize(self.entries.len(), 0);
        let mut next = self.starts.clone();
        for (k, &(at, ..)) in self.entries.iter().enumerate() {
            let slot = &mut next[at as usize];
            self.order[*slot as usize] = k as u32;
            *slot += 1;
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
pub(crate) fn add_in_order(n: usize, parts: Vec<Vec<f64>>) -> Vec<f64> {
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
    /// `Σ curvature_i · J_i J_iᵀ`, `n × n` by rows (both halves filled by [`system`]).
    pub hessian: Vec<f64>,
}

impl System {
    pub(crate) fn zero(n: usize) -> System {
        System {
            n,
            gradient: vec![0.0; n],
            hessian: vec![0.0; n * n],
        }
    }

    pub(crate) fn add_system(&mut self, other: &System) {
        add_entries(&mut self.gradient, &other.gradient);
        add_entries(&mut self.hessian, &other.hessian);
    }
}

/// `b` added into `a`, entry by entry.
fn add_entries(a: &mut [f64], b: &[f64]) {
    a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
}

/// A system's gradient and the upper half of its Hessian, row by row from the diagonal
/// (`n (n + 1) / 2` entries: half a Hessian): what the groups of [`system`] sum and add in
/// order, made whole at the end.
struct Upper {
    n: usize,
    gradient: Vec<f64>,
    hessian: Vec<f64>,
}

impl Upper {
    fn zero(n: usize) -> Upper {
        Upper {
            n,
            gradient: vec![0.0; n],
            hessian: vec![0.0; n * (n + 1) / 2],
        }
    }

    /// Where row `a` (its entry on the diagonal) begins.
    #[inline]
    fn row(&self, a: usize) -> usize {
        a * self.n - a * a.saturating_sub(1) / 2
    }

    /// Adds position `i`'s `row` (variables rising), whose error moves by `slope` and
    /// curves by `curvature` per centipawn.
    fn add_row(&mut self, row: &[(u32, f64)], (slope, curvature): (f64, f64)) {
        for (p, &(a, da)) in row.iter().enumerate() {
            let a = a as usize;
            self.gradient[a] += slope * da;
            let weight = curvature * da;
            let start = self.row(a);
            let line = &mut self.hessian[start..start + self.n - a];
            for &(b, db) in &row[p..] {
                line[b as usize - a] += weight * db;
            }
        }
    }

    /// Adds `other`'s sums, entry by entry.
    fn add(&mut self, other: &Upper) {
        add_entries(&mut self.gradient, &other.gradient);
        add_entries(&mut self.hessian, &other.hessian);
    }

    /// The whole system: the upper half, mirrored onto the lower.
    fn whole(self) -> System {
        let n = self.n;
        let mut hessian = vec![0.0; n * n];
        for a in 0..n {
            let start = self.row(a);
            hessian[a * n + a..(a + 1) * n].copy_from_slice(&self.hessian[start..start + n - a]);
            for b in 0..a {
                hessian[a * n + b] = hessian[b * n + a];
            }
        }
        System {
            n,
            gradient: self.gradient,
            hessian,
        }
    }
}

/// A position whose curvature is under this share of the largest any position has adds
/// only its diagonal to the Hessian (see [`system`]).
const FAINT: f64 = 3e-2;

/// Groups of blocks the system is summed in: each group front to back, then the groups in
/// order, whatever the number of threads.
const GROUPS: usize = 8;

/// The gradient and Hessian of `Σ E_i` over the variables `slots` (variable `j` is slot
/// `slots[j]`), where position `i`'s error moves by `slopes[i]` and curves by
/// `curvatures[i]` per centipawn of its evaluation. The Hessian's sums between two
/// variables leave out the positions that curve by less than [`FAINT`] of the most any
/// position curves: a position adds as many of those products as its row's length squared
/// (on texel's table about 16,000 against 180 for its diagonal and gradient), and the
/// faint ones, whose evaluations are far from a draw, are about 45 % of texel's positions
/// with 0.5 % of the curvature. The diagonal and the gradient count every position, and
/// Newton's line search judges each step by the exact error. Rows are built a part of a
/// block at a time ([`Jacobian::row_part`]), so each thread holds one part's rows.
pub fn system<J: Jacobian>(
    model: &J,
    slots: &[usize],
    slopes: &[f64],
    curvatures: &[f64],
) -> System {
    let (n, blocks) = (slots.len(), model.row_blocks());
    let per = blocks.div_ceil(GROUPS).max(1);
    let faint = FAINT * curvatures.iter().fold(0.0, |m: f64, &c| m.max(c));
    let group = |g: usize| {
        let mut split = FaintSplit {
            sum: Upper::zero(n),
            rows: RowBuilder::default(),
            slopes,
            curvatures,
            faint,
        };
        for b in g * per..((g + 1) * per).min(blocks) {
            let (start, len) = model.block_span(b);
            let part = model.row_part().clamp(1, len.max(1));
            for from in (start..start + len).step_by(part) {
                model.part_rows(b, from..(from + part).min(start + len), slots, &mut split);
                let FaintSplit { sum, rows, .. } = &mut split;
                rows.for_each(|i, row| sum.add_row(row, (slopes[i], curvatures[i])));
            }
        }
        split.sum
    };
    // Each thread takes the next group when it is free, and each group's sums join the
    // total in group order as soon as the groups before them have: a few half Hessians
    // held at once (the upper halves), not one a group.
    let groups = blocks.div_ceil(per);
    let taken = AtomicUsize::new(0);
    let fold = Mutex::new(Fold {
        next: 0,
        waiting: BTreeMap::new(),
        total: None,
    });
    (0..rayon::current_num_threads().max(1))
        .into_par_iter()
        .for_each(|_| loop {
            let g = taken.fetch_add(1, Ordering::Relaxed);
            if g >= groups {
                break;
            }
            let sum = group(g);
            let mut fold = fold.lock().unwrap_or_else(PoisonError::into_inner);
            fold.waiting.insert(g, sum);
            fold.add_ready();
        });
    let fold = fold.into_inner().unwrap_or_else(PoisonError::into_inner);
    fold.total.unwrap_or_else(|| Upper::zero(n)).whole()
}

/// Groups' sums joining a total in group order.
struct Fold {
    /// The group whose sums join next.
    next: usize,
    /// Sums of later groups, done before it.
    waiting: BTreeMap<usize, Upper>,
    /// The sums of the groups joined so far (the first group's own, then added to).
    total: Option<Upper>,
}

impl Fold {
    /// Adds every waiting group's sums whose turn has come.
    fn add_ready(&mut self) {
        while let Some(sum) = self.waiting.remove(&self.next) {
            match &mut self.total {
                Some(total) => total.add(&sum),
                None => self.total = Some(sum),
            }
            self.next += 1;
        }
    }
}

/// A block's Jacobian entries as [`system`] takes them: a faint position's go straight to
/// the gradient and the Hessian's diagonal, the others into rows.
struct FaintSplit<'a> {
    sum: Upper,
    rows: RowBuilder,
    slopes: &'a [f64],
    curvatures: &'a [f64],
    faint: f64,
}

impl RowSink for FaintSplit<'_> {
    fn begin(&mut self, start: usize, len: usize) {
        self.rows.begin(start, len);
    }

    #[inline]
    fn push(&mut self, position: usize, var: u32, derivative: f64) {
        let curvature = self.curvatures[position];
        if curvature >= self.faint {
            return self.rows.push(position, var, derivative);
        }
        let (var, diagonal) = (var as usize, self.sum.row(var as usize));
        self.sum.gradient[var] += self.slopes[position] * derivative;
        self.sum.hessian[diagonal] += curvature * derivative * derivative;
    }
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

    /// How many variables `rows` name (one past the highest).
    fn width(rows: &[Vec<(u32, f64)>]) -> usize {
        let vars = rows.iter().flatten().map(|e| e.0 as usize + 1);
        vars.max().unwrap_or(0)
    }

    /// The system of `rows` added position by position, entry by entry: a position curving
    /// by less than `faint` adds its diagonal only.
    fn plain_system(rows: &[Vec<(u32, f64)>], slopes: &[f64], curv: &[f64], faint: f64) -> System {
        let n = width(rows);
        let mut s = System::zero(n);
        for (i, row) in rows.iter().enumerate() {
            for (p, &(a, da)) in row.iter().enumerate() {
                s.gradient[a as usize] += slopes[i] * da;
                for &(b, db) in &row[p..] {
                    if a == b || curv[i] >= faint {
                        s.hessian[a as usize * n + b as usize] += curv[i] * da * db;
                    }
                }
            }
        }
        for a in 0..n {
            for b in 0..a {
                s.hessian[a * n + b] = s.hessian[b * n + a];
            }
        }
        s
    }

    /// The system of `rows`, a column each variable, through `system`.
    fn built_system(rows: &[Vec<(u32, f64)>], slopes: &[f64], curv: &[f64]) -> System {
        let n = width(rows);
        struct Given<'r>(&'r [Vec<(u32, f64)>], usize);
        impl Jacobian for Given<'_> {
            fn row_blocks(&self) -> usize {
                self.0.len().div_ceil(5)
            }
            fn block_span(&self, b: usize) -> (usize, usize) {
                (5 * b, 5.min(self.0.len() - 5 * b))
            }
            fn block_rows<S: RowSink>(&self, b: usize, _: &[usize], rows: &mut S) {
                let (start, len) = self.block_span(b);
                rows.begin(start, len);
                for var in 0..self.1 as u32 {
                    for i in start..start + len {
                        if let Some(&(_, d)) = self.0[i].iter().find(|e| e.0 == var) {
                            rows.push(i, var, d);
                        }
                    }
                }
            }
        }
        let slots: Vec<usize> = (0..n).collect();
        system(&Given(rows, n), &slots, slopes, curv)
    }

    #[test]
    fn a_row_adds_its_outer_product_and_gradient() {
        let s = built_system(&[vec![(0, 1.0), (2, 3.0)]], &[0.5], &[2.0]);
        assert_eq!(s.gradient, vec![0.5, 0.0, 1.5]);
        let want = [2.0, 0.0, 6.0, 0.0, 0.0, 0.0, 6.0, 0.0, 18.0];
        assert_eq!(s.hessian, want);
    }

    #[test]
    fn a_faint_position_adds_its_diagonal_and_gradient_only() {
        let rows: Vec<Vec<(u32, f64)>> = (0..23)
            .map(|i| {
                let vars = [i % 4, 4 + i % 3, 7 + i % 5];
                vars.iter()
                    .map(|&v| (v, f64::from(i) / 4.0 - 2.0))
                    .collect()
            })
            .collect();
        let slopes: Vec<f64> = (0..rows.len()).map(|i| (i % 7) as f64 - 3.0).collect();
        // Every third position curves by less than 1 % of the most.
        let curv: Vec<f64> = (0..rows.len())
            .map(|i| {
                if i % 3 == 0 {
                    0.004
                } else {
                    1.0 + (i % 2) as f64
                }
            })
            .collect();
        let built = built_system(&rows, &slopes, &curv);
        assert_eq!(built, plain_system(&rows, &slopes, &curv, FAINT * 2.0));
        assert_ne!(built, plain_system(&rows, &slopes, &curv, 0.0));
    }
}
