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
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

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
        self.starts.clear();
        self.starts.resize(self.len + 1, 0);
        for e in &self.entries {
            self.starts[e.0 as usize + 1] += 1;
        }
        for j in 0..self.len {
            self.starts[j + 1] += self.starts[j];
        }
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
    /// `Σ curvature_i · J_i J_iᵀ`, `n × n` by rows (both halves filled by [`system`]).
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

/// A system's gradient and the upper half of its Hessian, row by row from the diagonal
/// (`n (n + 1) / 2` entries: half a Hessian): what [`system`] sums, made whole at the end.
struct Upper {
    n: usize,
    gradient: Vec<f64>,
    hessian: Vec<f64>,
}

/// Where row `a` of a half Hessian of `n` variables (its entry on the diagonal) begins;
/// row `n` is one past the last entry.
#[inline]
fn packed_row(n: usize, a: usize) -> usize {
    a * n - a * a.saturating_sub(1) / 2
}

impl Upper {
    fn zero(n: usize) -> Upper {
        Upper {
            n,
            gradient: vec![0.0; n],
            hessian: vec![0.0; n * (n + 1) / 2],
        }
    }

    /// The whole half Hessian as one stripe.
    fn stripe(&mut self) -> Stripe<'_> {
        Stripe {
            low: 0,
            added: 0,
            gradient: &mut self.gradient,
            hessian: &mut self.hessian,
        }
    }

    /// The whole system: the upper half, mirrored onto the lower, in the half's own room
    /// (grown to the whole, each row moved to its place from the last up: a row's place
    /// begins at or after where its half row does and ends before the next row's place).
    fn whole(self) -> System {
        let n = self.n;
        let mut hessian = self.hessian;
        hessian.resize(n * n, 0.0);
        for a in (0..n).rev() {
            let start = packed_row(n, a);
            hessian.copy_within(start..start + n - a, a * n + a);
        }
        for a in 0..n {
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

/// Stripes of the Hessian's rows a thread count has ([`Stripes`]).
const STRIPES_A_THREAD: usize = 8;

/// The gradient and Hessian of `Σ E_i` over the variables `slots` (variable `j` is slot
/// `slots[j]`), where position `i`'s error moves by `slopes[i]` and curves by
/// `curvatures[i]` per centipawn of its evaluation. The Hessian's sums between two
/// variables leave out the positions that curve by less than `FAINT` of the most any
/// position curves: a position adds as many of those products as its row's length squared
/// (on texel's table about 16,000 against 180 for its diagonal and gradient), and the
/// faint ones, whose evaluations are far from a draw, are about 45 % of texel's positions
/// with 0.5 % of the curvature. The diagonal and the gradient count every position, and
/// Newton's line search judges each step by the exact error.
///
/// Rows are built a part of a block at a time ([`Jacobian::row_part`]), so each thread
/// holds one part's rows, and every thread adds into the one half Hessian, a stripe of its
/// rows at a time, each stripe taking the parts in position order (`Stripes`): every
/// entry sums its positions in order, whatever the threads.
pub fn system<J: Jacobian>(
    model: &J,
    slots: &[usize],
    slopes: &[f64],
    curvatures: &[f64],
) -> System {
    let n = slots.len();
    let private = 8 * n * (n + 1) / 2 <= PRIVATE_HALF_BYTES;
    let threads = rayon::current_num_threads();
    system_on(model, slots, (slopes, curvatures), (threads, private))
}

/// [`system`] on `threads` threads of its own (a thread waits its turn at a stripe or for
/// the groups before its own, so none of them is one a model's own parallel work could be
/// waiting for); each group of parts into a half Hessian of its own where `private`, else
/// all into one.
fn system_on<J: Jacobian>(
    model: &J,
    slots: &[usize],
    (slopes, curvatures): (&[f64], &[f64]),
    (threads, private): (usize, bool),
) -> System {
    let n = slots.len();
    let parts = parts_of(model);
    let faint = FAINT * curvatures.iter().fold(0.0, |m: f64, &c| m.max(c));
    let threads = threads.clamp(1, parts.len().max(1));
    let new_part = || PartRows::new(slopes, curvatures, faint);
    let rows = |part: &mut PartRows, p: usize| {
        let (b, within) = &parts[p];
        model.part_rows(*b, within.clone(), slots, part);
        part.finish();
    };
    let upper = match private {
        true => grouped(n, (parts.len(), threads), new_part, rows),
        false => striped(n, (parts.len(), threads), new_part, rows),
    };
    upper.whole()
}

/// A half Hessian of at most this many bytes is summed a group of parts at a time, each
/// group into a half Hessian of its own (a thread's sums stay in its own cache: on the
/// synthetic race of `texel bench newton`, 296 values, a fresh iteration 15 % faster than
/// by stripes), then added up in group order.
const PRIVATE_HALF_BYTES: usize = 1 << 20;

/// Groups of parts of a privately summed Hessian (a fixed number: the sums do not depend on
/// the threads).
const GROUPS: usize = 32;

/// Runs `work` on `threads` threads of their own, until each returns.
fn on_threads(threads: usize, work: impl Fn() + Sync) {
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(&work);
        }
    });
}

/// The next of `count` items `taken` hands out, if any is left.
fn take(taken: &AtomicUsize, count: usize) -> Option<usize> {
    Some(taken.fetch_add(1, Ordering::Relaxed)).filter(|&p| p < count)
}

/// The half Hessian of `count` parts (each built by `rows` into a sink of `new_part`) summed
/// into one, a stripe at a time ([`Stripes`]).
fn striped<'a>(
    n: usize,
    (count, threads): (usize, usize),
    new_part: impl Fn() -> PartRows<'a> + Sync,
    rows: impl Fn(&mut PartRows<'a>, usize) + Sync,
) -> Upper {
    let mut upper = Upper::zero(n);
    let stripes = Stripes::new(&mut upper, threads * STRIPES_A_THREAD);
    let taken = AtomicUsize::new(0);
    on_threads(threads, || {
        let mut part = new_part();
        while let Some(p) = take(&taken, count) {
            rows(&mut part, p);
            stripes.add(p, &mut part);
        }
    });
    drop(stripes);
    upper
}

/// The half Hessian of `count` parts (as [`striped`]'s) summed a group of parts at a time,
/// each group into its own, the groups added up in order as they come in.
fn grouped<'a>(
    n: usize,
    (count, threads): (usize, usize),
    new_part: impl Fn() -> PartRows<'a> + Sync,
    rows: impl Fn(&mut PartRows<'a>, usize) + Sync,
) -> Upper {
    let per = count.div_ceil(GROUPS).max(1);
    let taken = AtomicUsize::new(0);
    let fold = Mutex::new((0, BTreeMap::new(), Upper::zero(n)));
    on_threads(threads, || {
        let mut part = new_part();
        while let Some(g) = take(&taken, count.div_ceil(per)) {
            let mut sum = Upper::zero(n);
            for p in g * per..((g + 1) * per).min(count) {
                rows(&mut part, p);
                sum.stripe().add(n, &mut part);
            }
            let mut fold = fold.lock().unwrap_or_else(PoisonError::into_inner);
            let (next, waiting, total) = &mut *fold;
            waiting.insert(g, sum);
            while let Some(ready) = waiting.remove(next) {
                add_entries(&mut total.gradient, &ready.gradient);
                add_entries(&mut total.hessian, &ready.hessian);
                *next += 1;
            }
        }
    });
    let (_, _, total) = fold.into_inner().unwrap_or_else(PoisonError::into_inner);
    total
}

/// Every part of every block [`Jacobian::part_rows`] is asked for, in position order: the
/// block and the positions.
fn parts_of<J: Jacobian>(model: &J) -> Vec<(usize, Range<usize>)> {
    let mut parts = Vec::new();
    for b in 0..model.row_blocks() {
        let (start, len) = model.block_span(b);
        let part = model.row_part().clamp(1, len.max(1));
        for from in (start..start + len).step_by(part) {
            parts.push((b, from..(from + part).min(start + len)));
        }
    }
    parts
}

/// A part's Jacobian rows as [`system`] adds them (laid out by its [`RowBuilder`]): the
/// faint positions' rows, which add their gradient and diagonal only, and the others',
/// each with its position's slope and curvature. The faint rows are added first, so each
/// sum takes a part's faint positions, then its others, each in position order.
struct PartRows<'a> {
    builder: RowBuilder,
    faint: Vec<RowAt>,
    full: Vec<RowAt>,
    slopes: &'a [f64],
    curvatures: &'a [f64],
    faint_below: f64,
}

/// A row of a part: its entries' first not added yet (the stripes take a row's entries in
/// variable order, so none searches for where its own begin), one past its last, and its
/// position's slope and curvature.
struct RowAt {
    next: usize,
    end: usize,
    slope: f64,
    curvature: f64,
}

impl<'a> PartRows<'a> {
    fn new(slopes: &'a [f64], curvatures: &'a [f64], faint_below: f64) -> PartRows<'a> {
        PartRows {
            builder: RowBuilder::default(),
            faint: Vec::new(),
            full: Vec::new(),
            slopes,
            curvatures,
            faint_below,
        }
    }

    /// Lays the part's rows out and sorts those with entries into faint and full.
    fn finish(&mut self) {
        self.builder.lay_out();
        self.faint.clear();
        self.full.clear();
        for j in 0..self.builder.len {
            let Range { start, end } = self.builder.row(j);
            if start == end {
                continue;
            }
            let i = self.builder.start + j;
            let (slope, curvature) = (self.slopes[i], self.curvatures[i]);
            let rows = match curvature >= self.faint_below {
                true => &mut self.full,
                false => &mut self.faint,
            };
            rows.push(RowAt {
                next: start,
                end,
                slope,
                curvature,
            });
        }
    }
}

impl RowSink for PartRows<'_> {
    fn begin(&mut self, start: usize, len: usize) {
        self.builder.begin(start, len);
    }

    #[inline]
    fn push(&mut self, position: usize, var: u32, derivative: f64) {
        self.builder.push(position, var, derivative);
    }
}

/// A half Hessian's rows (with their gradient entries) cut into stripes of about equal
/// entries, each stripe taking the parts' sums in part order: a thread with part `p` waits
/// at each stripe until part `p − 1` has been added there.
struct Stripes<'a> {
    n: usize,
    stripes: Vec<(Mutex<Stripe<'a>>, Condvar)>,
}

/// One stripe: rows `low..` of the half Hessian, the parts added so far.
struct Stripe<'a> {
    low: usize,
    added: usize,
    gradient: &'a mut [f64],
    hessian: &'a mut [f64],
}

impl<'a> Stripes<'a> {
    /// `upper` in `count` stripes (at most one a row).
    fn new(upper: &'a mut Upper, count: usize) -> Stripes<'a> {
        let n = upper.n;
        let count = count.clamp(1, n.max(1));
        let total = n * (n + 1) / 2;
        let (mut gradient, mut hessian) = (&mut upper.gradient[..], &mut upper.hessian[..]);
        let mut stripes = Vec::with_capacity(count);
        let mut low = 0;
        for s in 1..=count {
            // The first row at or past this stripe's share of the entries.
            let target = total * s / count;
            let mut high = low + 1;
            while high < n && packed_row(n, high) < target {
                high += 1;
            }
            let high = if s == count { n } else { high.min(n) };
            let (g, rest_g) = std::mem::take(&mut gradient).split_at_mut(high - low);
            let rows = packed_row(n, high) - packed_row(n, low);
            let (h, rest_h) = std::mem::take(&mut hessian).split_at_mut(rows);
            (gradient, hessian) = (rest_g, rest_h);
            let stripe = Stripe {
                low,
                added: 0,
                gradient: g,
                hessian: h,
            };
            stripes.push((Mutex::new(stripe), Condvar::new()));
            low = high;
            if low >= n {
                break;
            }
        }
        Stripes { n, stripes }
    }

    /// Adds part `p`'s sums, stripe after stripe, each in its turn.
    fn add(&self, p: usize, part: &mut PartRows) {
        for (stripe, turn) in &self.stripes {
            let stripe = stripe.lock().unwrap_or_else(PoisonError::into_inner);
            let mut stripe = turn
                .wait_while(stripe, |s| s.added < p)
                .unwrap_or_else(PoisonError::into_inner);
            stripe.add(self.n, part);
            stripe.added = p + 1;
            turn.notify_all();
        }
    }
}

impl Stripe<'_> {
    /// The stripe's lines of the half Hessian's rows `rows` (rising), each from its
    /// diagonal.
    fn lines<const K: usize>(&mut self, n: usize, rows: [usize; K]) -> [&mut [f64]; K] {
        let base = packed_row(n, self.low);
        let mut rest = &mut self.hessian[packed_row(n, rows[0]) - base..];
        std::array::from_fn(|k| {
            let (line, tail) = std::mem::take(&mut rest).split_at_mut(n - rows[k]);
            if k + 1 < K {
                let gap = packed_row(n, rows[k + 1]) - packed_row(n, rows[k]) - line.len();
                rest = &mut tail[gap..];
            }
            line
        })
    }

    /// Adds `part`'s sums into this stripe's rows: the faint rows' gradient and diagonal,
    /// then the full rows' gradient and products (the part's stripes before this one
    /// added, each row's entries below it).
    fn add(&mut self, n: usize, part: &mut PartRows) {
        let (low, high) = (self.low, self.low + self.gradient.len());
        let (vars, derivatives) = (&part.builder.vars, &part.builder.derivatives);
        // The row's entries in this stripe, taken (the row's next entry moves past them).
        let take_share = |row: &mut RowAt| {
            let inside = vars[row.next..row.end]
                .iter()
                .take_while(|&&v| (v as usize) < high);
            let at = row.next..row.next + inside.count();
            row.next = at.end;
            at
        };
        for row in &mut part.faint {
            for k in take_share(row) {
                let (a, d) = (vars[k] as usize, derivatives[k]);
                self.gradient[a - low] += row.slope * d;
                self.hessian[packed_row(n, a) - packed_row(n, low)] += row.curvature * d * d;
            }
        }
        for row in &mut part.full {
            let (from, mine) = (row.next, take_share(row).len());
            let entries = (&vars[from..row.end], &derivatives[from..row.end]);
            self.add_row(n, entries, mine, (row.slope, row.curvature));
        }
    }

    /// Adds a row's share of this stripe: its entries from its first in the stripe to its
    /// last (`vars`, rising, and their `derivatives`), the first `mine` in the stripe, of a
    /// position with `slope` and `curvature`.
    fn add_row(
        &mut self,
        n: usize,
        (vars, derivatives): (&[u32], &[f64]),
        mine: usize,
        (slope, curvature): (f64, f64),
    ) {
        // Four of the row's entries at a time: each later entry is read once for the four
        // lines (every sum still takes this position's product once, in its turn).
        let mut p = 0;
        while p + 4 <= mine {
            self.add_lines::<4>(n, (&vars[p..], &derivatives[p..]), (slope, curvature));
            p += 4;
        }
        if p + 2 <= mine {
            self.add_lines::<2>(n, (&vars[p..], &derivatives[p..]), (slope, curvature));
            p += 2;
        }
        if p < mine {
            self.add_lines::<1>(n, (&vars[p..], &derivatives[p..]), (slope, curvature));
        }
    }

    /// Adds the gradient entries and the half Hessian's lines of a row's first `K` entries
    /// (`vars`, rising, and their `derivatives`, the row's later entries after them).
    #[inline]
    fn add_lines<const K: usize>(
        &mut self,
        n: usize,
        (vars, derivatives): (&[u32], &[f64]),
        (slope, curvature): (f64, f64),
    ) {
        let rows: [usize; K] = std::array::from_fn(|k| vars[k] as usize);
        let weights: [f64; K] = std::array::from_fn(|k| curvature * derivatives[k]);
        for k in 0..K {
            self.gradient[rows[k] - self.low] += slope * derivatives[k];
        }
        let lines = self.lines(n, rows);
        for k in 0..K {
            for m in k..K - 1 {
                lines[k][vars[m] as usize - rows[k]] += weights[k] * derivatives[m];
            }
        }
        let rest = vars[K - 1..].iter().zip(&derivatives[K - 1..]);
        for (&c, &dc) in rest {
            for k in 0..K {
                lines[k][c as usize - rows[k]] += weights[k] * dc;
            }
        }
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
        rows.for_each(|i, vars, derivatives| seen.push((i, vars.to_vec(), derivatives.to_vec())));
        let want = vec![
            (10, vec![0], vec![2.0]),
            (11, vec![], vec![]),
            (12, vec![0, 1], vec![-1.0, 0.5]),
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

    /// `rows` as a model: blocks of 5 positions, each asked for in parts of `.2` positions.
    struct Given<'r>(&'r [Vec<(u32, f64)>], usize, usize);

    impl Jacobian for Given<'_> {
        fn row_blocks(&self) -> usize {
            self.0.len().div_ceil(5)
        }
        fn block_span(&self, b: usize) -> (usize, usize) {
            (5 * b, 5.min(self.0.len() - 5 * b))
        }
        fn block_rows<S: RowSink>(&self, b: usize, _: &[usize], rows: &mut S) {
            let (start, len) = self.block_span(b);
            self.part_rows(b, start..start + len, &[], rows);
        }
        fn row_part(&self) -> usize {
            self.2
        }
        fn part_rows<S: RowSink>(&self, _: usize, within: Range<usize>, _: &[usize], rows: &mut S) {
            rows.begin(within.start, within.len());
            for var in 0..self.1 as u32 {
                for i in within.clone() {
                    if let Some(&(_, d)) = self.0[i].iter().find(|e| e.0 == var) {
                        rows.push(i, var, d);
                    }
                }
            }
        }
    }

    /// The system of `rows`, a column each variable, through `system`.
    fn built_system(rows: &[Vec<(u32, f64)>], slopes: &[f64], curv: &[f64]) -> System {
        let n = width(rows);
        let slots: Vec<usize> = (0..n).collect();
        system(&Given(rows, n, usize::MAX), &slots, slopes, curv)
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

    #[test]
    fn the_system_is_the_same_bits_whatever_the_threads() {
        // 300 positions of 1-12 entries among 60 variables (more rows than the stripes of
        // 4 threads), values whose sums round differently in another order.
        let rows: Vec<Vec<(u32, f64)>> = (0..300u32)
            .map(|i| {
                let vars: std::collections::BTreeSet<u32> = (0..1 + i % 12)
                    .map(|k| (i * 7 + k * 13 + k * k) % 60)
                    .collect();
                let x = |v: u32| (f64::from(i * 31 + v) * 0.37).sin() * 3.3;
                vars.into_iter().map(|v| (v, x(v))).collect()
            })
            .collect();
        let slopes: Vec<f64> = (0..300)
            .map(|i| (f64::from(i) * 0.11).cos() / 7.0)
            .collect();
        let curv: Vec<f64> = (0..300)
            .map(|i| 0.1 + (f64::from(i) * 0.23).sin().abs())
            .collect();
        let n = width(&rows);
        let slots: Vec<usize> = (0..n).collect();
        let model = Given(&rows, n, 2);
        let plain = plain_system(&rows, &slopes, &curv, FAINT * 1.1);
        for private in [false, true] {
            let on = |threads| system_on(&model, &slots, (&slopes, &curv), (threads, private));
            let one = on(1);
            assert_eq!(one, on(3));
            assert_eq!(one, on(4));
            let close = one.hessian.iter().zip(&plain.hessian);
            assert!(close
                .into_iter()
                .all(|(a, b)| (a - b).abs() < 1e-9 * (1.0 + b.abs())));
        }
    }
}
