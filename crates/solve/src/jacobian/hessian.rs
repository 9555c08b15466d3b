//! The Gauss-Newton system of a sum over positions, summed from the Jacobian's rows
//! ([`system`]): each row's outer product added into the upper half of the Hessian, two
//! variables by two at a time.
//!
//! A tapered value's two variables (its middlegame and endgame value) sit side by side and
//! move together in nearly every row that moves one of them. So the variables go in pairs
//! (where the model says two slots are one entry's: [`crate::Jacobian::pairs_with_next`]),
//! each row's entries are joined a pair at a time, and the half Hessian is kept in cells of
//! two by two entries, each in one cache line: the four products of two pairs go into one
//! cell (on Stash's problem, whose half Hessian is larger than a core's cache, a cell is one
//! miss where its four entries were two). Each product is the one the entries give alone
//! (`curvature · d_a`, times `d_b`), and every entry takes its positions in the same order,
//! so the sums are the same to the bit as entry by entry.

use super::rows::row_starts;
use super::{Jacobian, RowSink, System};
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

/// Two by two entries of the half Hessian: a pair's first variable with the other pair's
/// first and second, then its second with them (kept at 32 bytes' alignment: a cell in one
/// cache line).
type Cell = [f64; 4];

/// An entry of a part's rows: its position in the part, its pair and the pair's two
/// derivatives (zero where the row leaves one out).
type Entry = (u32, u32, [f64; 2]);

/// The tuned variables in pairs (a tapered value's two, where the model says so) and alone,
/// in their order: the blocks the half Hessian is kept in.
#[derive(Debug)]
struct Pairs {
    /// Per variable, its pair and its place in it (0 or 1).
    of: Vec<(u32, u8)>,
    /// Per pair, its first variable; then the number of variables.
    first: Vec<u32>,
}

impl Pairs {
    /// The variables `slots` in pairs: a variable with the next where their slots are one
    /// entry's two values ([`Jacobian::pairs_with_next`]).
    fn new<J: Jacobian>(model: &J, slots: &[usize]) -> Pairs {
        let (mut of, mut first) = (Vec::with_capacity(slots.len()), Vec::new());
        let mut j = 0;
        while j < slots.len() {
            let pair = first.len() as u32;
            first.push(j as u32);
            of.push((pair, 0));
            let next = slots.get(j + 1);
            if next == Some(&(slots[j] + 1)) && model.pairs_with_next(slots[j]) {
                of.push((pair, 1));
                j += 1;
            }
            j += 1;
        }
        first.push(slots.len() as u32);
        Pairs { of, first }
    }

    /// How many pairs (a variable alone counting as one).
    fn len(&self) -> usize {
        self.first.len() - 1
    }
}

/// A system's gradient and the upper half of its Hessian in pairs: the gradient a pair at a
/// time, the cells row by row from the diagonal (`m (m + 1) / 2` cells for `m` pairs), in
/// a room that grows to the whole Hessian's ([`Upper::whole`] moves them into place there).
struct Upper {
    pairs: usize,
    gradient: Vec<[f64; 2]>,
    /// The cells, beginning at `offset` (grown to the whole Hessian's room at the end).
    room: Vec<f64>,
    offset: usize,
}

/// Where row `a` of a half of `m` rows (its cell on the diagonal) begins; row `m` is one
/// past the last cell.
#[inline]
fn packed_row(m: usize, a: usize) -> usize {
    a * m - a * a.saturating_sub(1) / 2
}

impl Upper {
    fn zero(pairs: &Pairs) -> Upper {
        let m = pairs.len();
        let cells = size_of::<Cell>() / size_of::<f64>() * packed_row(m, m);
        // Three entries more, to begin the cells at 32 bytes' alignment.
        let room = vec![0.0; cells + 3];
        let offset = (room.as_ptr() as usize).wrapping_neg() % 32 / size_of::<f64>();
        Upper {
            pairs: m,
            gradient: vec![[0.0; 2]; m],
            room,
            offset,
        }
    }

    /// The gradient and the cells.
    fn split(&mut self) -> (&mut [[f64; 2]], &mut [Cell]) {
        let len = packed_row(self.pairs, self.pairs);
        let cells = self.room[self.offset..].as_chunks_mut().0;
        (&mut self.gradient, &mut cells[..len])
    }

    /// The whole half as one stripe.
    fn stripe(&mut self) -> Stripe<'_> {
        let (gradient, hessian) = self.split();
        Stripe {
            low: 0,
            added: 0,
            gradient,
            hessian,
        }
    }

    /// `other`'s sums added into this one's.
    fn add(&mut self, other: &mut Upper) {
        let ((gradient, cells), (others, other_cells)) = (self.split(), other.split());
        add_entries(gradient.as_flattened_mut(), others.as_flattened());
        add_entries(cells.as_flattened_mut(), other_cells.as_flattened());
    }

    /// The whole system of the variables `pairs` holds: the cells moved into their places
    /// in the same room, from the last row of pairs to the first (the places of later rows
    /// begin past where most rows' cells end; the cells of a row whose end they pass are
    /// read out first), then the upper half mirrored onto the lower.
    fn whole(self, pairs: &Pairs) -> System {
        let (m, n, offset) = (self.pairs, pairs.of.len(), self.offset);
        let gradient = pairs.of.iter();
        let gradient = gradient.map(|&(p, place)| self.gradient[p as usize][place as usize]);
        let mut room = self.room;
        // The whole Hessian's room only now: the sums took half of it.
        room.resize(room.len().max(n * n), 0.0);
        let cells_of = |p: usize| 4 * packed_row(m, p) + offset..4 * packed_row(m, p + 1) + offset;
        // Where the places of the rows after row `p` begin.
        let later = |p: usize| pairs.first[p + 1] as usize * (n + 1);
        let kept: Vec<Vec<f64>> = (0..m)
            .map(|p| match cells_of(p).end > later(p) {
                true => room[cells_of(p)].to_vec(),
                false => Vec::new(),
            })
            .collect();
        let mut row = Vec::with_capacity(4 * m);
        for p in (0..m).rev() {
            row.clear();
            match kept[p].is_empty() {
                true => row.extend_from_slice(&room[cells_of(p)]),
                false => row.extend_from_slice(&kept[p]),
            }
            for a in pairs.first[p] as usize..pairs.first[p + 1] as usize {
                let first = 2 * (a - pairs.first[p] as usize);
                for (b, &(q, place)) in pairs.of.iter().enumerate().skip(a) {
                    room[a * n + b] = row[4 * (q as usize - p) + first + place as usize];
                }
            }
        }
        room.truncate(n * n);
        for a in 0..n {
            for b in 0..a {
                room[a * n + b] = room[b * n + a];
            }
        }
        System {
            n,
            gradient: gradient.collect(),
            hessian: room,
        }
    }
}

/// `b` added into `a`, entry by entry.
fn add_entries(a: &mut [f64], b: &[f64]) {
    a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
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
    let pairs = Pairs::new(model, slots);
    let m = pairs.len();
    let private = size_of::<Cell>() * packed_row(m, m) <= PRIVATE_HALF_BYTES;
    let threads = rayon::current_num_threads();
    system_on(
        model,
        (slots, &pairs),
        (slopes, curvatures),
        (threads, private),
    )
}

/// [`system`] of the variables `slots` in `pairs`, on `threads` threads of its own (a
/// thread waits its turn at a stripe or for the groups before its own, so none of them is
/// one a model's own parallel work could be waiting for); each group of parts into a half
/// Hessian of its own where `private`, else all into one.
fn system_on<J: Jacobian>(
    model: &J,
    (slots, pairs): (&[usize], &Pairs),
    (slopes, curvatures): (&[f64], &[f64]),
    (threads, private): (usize, bool),
) -> System {
    let parts = parts_of(model);
    let faint = FAINT * curvatures.iter().fold(0.0, |m: f64, &c| m.max(c));
    let threads = threads.clamp(1, parts.len().max(1));
    let new_part = || PartRows::new(pairs, slopes, curvatures, faint);
    let rows = |part: &mut PartRows, p: usize| {
        let (b, within) = &parts[p];
        model.part_rows(*b, within.clone(), slots, part);
        part.finish();
    };
    let upper = match private {
        true => grouped(pairs, (parts.len(), threads), new_part, rows),
        false => striped(pairs, (parts.len(), threads), new_part, rows),
    };
    upper.whole(pairs)
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

/// The half Hessian of `pairs` pairs from `count` parts (each built by `rows` into a sink of
/// `new_part`) summed into one, a stripe at a time ([`Stripes`]).
fn striped<'a>(
    pairs: &Pairs,
    (count, threads): (usize, usize),
    new_part: impl Fn() -> PartRows<'a> + Sync,
    rows: impl Fn(&mut PartRows<'a>, usize) + Sync,
) -> Upper {
    let mut upper = Upper::zero(pairs);
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
    pairs: &Pairs,
    (count, threads): (usize, usize),
    new_part: impl Fn() -> PartRows<'a> + Sync,
    rows: impl Fn(&mut PartRows<'a>, usize) + Sync,
) -> Upper {
    let per = count.div_ceil(GROUPS).max(1);
    let taken = AtomicUsize::new(0);
    let fold = Mutex::new((0, BTreeMap::new(), Upper::zero(pairs)));
    on_threads(threads, || {
        let mut part = new_part();
        while let Some(g) = take(&taken, count.div_ceil(per)) {
            let mut sum = Upper::zero(pairs);
            for p in g * per..((g + 1) * per).min(count) {
                rows(&mut part, p);
                sum.stripe().add(pairs.len(), &mut part);
            }
            let mut fold = fold.lock().unwrap_or_else(PoisonError::into_inner);
            let (next, waiting, total) = &mut *fold;
            waiting.insert(g, sum);
            while let Some(mut ready) = waiting.remove(next) {
                total.add(&mut ready);
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

/// A part's Jacobian rows as [`system`] adds them, in pairs: the entries as pushed, a
/// pair's second value joined to its first's entry of the same position where the row holds
/// both, then laid out position after position by a counting sort (the pair and its two
/// derivatives, zero where the row leaves one out); the faint positions' rows, which add
/// their gradient and diagonal only, and the others', each with its position's slope and
/// curvature. The faint rows are added first, so each sum takes a part's faint positions,
/// then its others, each in position order.
struct PartRows<'a> {
    pairs: &'a Pairs,
    /// The part's first position and its number of positions.
    start: usize,
    len: usize,
    /// The entries as pushed; laid out, one row after another.
    entries: Vec<Entry>,
    /// Per position of the part, the last pair whose first value it was pushed, and that
    /// entry's place.
    firsts: Vec<(u32, u32)>,
    /// Per position, where its row begins among the laid-out entries (one past the last row
    /// at the end); while they are laid out, its next free place, and each entry's place.
    starts: Vec<u32>,
    next: Vec<u32>,
    places: Vec<u32>,
    faint: Vec<RowAt>,
    full: Vec<RowAt>,
    slopes: &'a [f64],
    curvatures: &'a [f64],
    faint_below: f64,
}

/// A row of a part: its pairs' first not added yet (the stripes take a row's pairs in
/// order, so none searches for where its own begin), one past its last, and its position's
/// slope and curvature.
struct RowAt {
    next: usize,
    end: usize,
    slope: f64,
    curvature: f64,
}

impl<'a> PartRows<'a> {
    fn new(
        pairs: &'a Pairs,
        slopes: &'a [f64],
        curvatures: &'a [f64],
        faint_below: f64,
    ) -> PartRows<'a> {
        PartRows {
            pairs,
            start: 0,
            len: 0,
            entries: Vec::new(),
            firsts: Vec::new(),
            starts: Vec::new(),
            next: Vec::new(),
            places: Vec::new(),
            faint: Vec::new(),
            full: Vec::new(),
            slopes,
            curvatures,
            faint_below,
        }
    }

    /// Lays the part's rows out and sorts those with entries into faint and full.
    fn finish(&mut self) {
        self.lay_out();
        self.faint.clear();
        self.full.clear();
        for j in 0..self.len {
            let (start, end) = (self.starts[j] as usize, self.starts[j + 1] as usize);
            if start == end {
                continue;
            }
            let i = self.start + j;
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

    /// Lays the entries out position after position, in their own room: each entry's place
    /// by a stable counting sort by position (each row's pairs in the order pushed,
    /// rising), then every entry moved to its place along the cycles the places make.
    fn lay_out(&mut self) {
        row_starts(&mut self.starts, self.len, self.entries.iter().map(|e| e.0));
        self.next.clear();
        self.next.extend_from_slice(&self.starts[..self.len]);
        let next = &mut self.next;
        self.places.clear();
        self.places.extend(self.entries.iter().map(|e| {
            next[e.0 as usize] += 1;
            next[e.0 as usize] - 1
        }));
        for i in 0..self.entries.len() {
            while self.places[i] as usize != i {
                let place = self.places[i] as usize;
                self.entries.swap(i, place);
                self.places.swap(i, place);
            }
        }
    }
}

impl RowSink for PartRows<'_> {
    fn begin(&mut self, start: usize, len: usize) {
        (self.start, self.len) = (start, len);
        self.entries.clear();
        self.firsts.clear();
        self.firsts.resize(len, (u32::MAX, 0));
    }

    /// A pair's second value joins its first's entry of the position where there is one
    /// (whatever order the columns come in: a row's pairs still rise).
    #[inline]
    fn push(&mut self, position: usize, var: u32, derivative: f64) {
        if derivative == 0.0 {
            return;
        }
        let at = (position - self.start) as u32;
        let (pair, place) = self.pairs.of[var as usize];
        let first = &mut self.firsts[at as usize];
        if place == 1 && first.0 == pair {
            self.entries[first.1 as usize].2[1] = derivative;
            return;
        }
        if place == 0 {
            *first = (pair, self.entries.len() as u32);
        }
        let mut derivatives = [0.0; 2];
        derivatives[place as usize] = derivative;
        self.entries.push((at, pair, derivatives));
    }
}

/// A half Hessian's rows of pairs (with their gradient entries) cut into stripes of about
/// equal cells, each stripe taking the parts' sums in part order: a thread with part `p`
/// waits at each stripe until part `p − 1` has been added there.
struct Stripes<'a> {
    pairs: usize,
    stripes: Vec<(Mutex<Stripe<'a>>, Condvar)>,
}

/// One stripe: rows `low..` of the half Hessian, the parts added so far.
struct Stripe<'a> {
    low: usize,
    added: usize,
    gradient: &'a mut [[f64; 2]],
    hessian: &'a mut [Cell],
}

impl<'a> Stripes<'a> {
    /// `upper` in `count` stripes (at most one a row).
    fn new(upper: &'a mut Upper, count: usize) -> Stripes<'a> {
        let m = upper.pairs;
        let count = count.clamp(1, m.max(1));
        let total = m * (m + 1) / 2;
        let (mut gradient, mut hessian) = upper.split();
        let mut stripes = Vec::with_capacity(count);
        let mut low = 0;
        for s in 1..=count {
            // The first row at or past this stripe's share of the cells.
            let target = total * s / count;
            let mut high = low + 1;
            while high < m && packed_row(m, high) < target {
                high += 1;
            }
            let high = if s == count { m } else { high.min(m) };
            let (g, rest_g) = std::mem::take(&mut gradient).split_at_mut(high - low);
            let rows = packed_row(m, high) - packed_row(m, low);
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
            if low >= m {
                break;
            }
        }
        Stripes { pairs: m, stripes }
    }

    /// Adds part `p`'s sums, stripe after stripe, each in its turn.
    fn add(&self, p: usize, part: &mut PartRows) {
        for (stripe, turn) in &self.stripes {
            let stripe = stripe.lock().unwrap_or_else(PoisonError::into_inner);
            let mut stripe = turn
                .wait_while(stripe, |s| s.added < p)
                .unwrap_or_else(PoisonError::into_inner);
            stripe.add(self.pairs, part);
            stripe.added = p + 1;
            turn.notify_all();
        }
    }
}

impl Stripe<'_> {
    /// The stripe's lines of the half's rows `rows` (rising), each from its diagonal, of a
    /// half of `m` pairs.
    fn lines<const K: usize>(&mut self, m: usize, rows: [usize; K]) -> [&mut [Cell]; K] {
        let base = packed_row(m, self.low);
        let mut rest = &mut self.hessian[packed_row(m, rows[0]) - base..];
        std::array::from_fn(|k| {
            let (line, tail) = std::mem::take(&mut rest).split_at_mut(m - rows[k]);
            if k + 1 < K {
                let gap = packed_row(m, rows[k + 1]) - packed_row(m, rows[k]) - line.len();
                rest = &mut tail[gap..];
            }
            line
        })
    }

    /// Adds `part`'s sums into this stripe's rows (of a half of `m` pairs): the faint rows'
    /// gradient and diagonal, then the full rows' gradient and products (the part's stripes
    /// before this one added, each row's pairs below it).
    fn add(&mut self, m: usize, part: &mut PartRows) {
        let (low, high) = (self.low, self.low + self.gradient.len());
        let entries = &part.entries;
        // The row's pairs in this stripe, taken (the row's next pair moves past them).
        let take_share = |row: &mut RowAt| {
            let inside = entries[row.next..row.end]
                .iter()
                .take_while(|e| (e.1 as usize) < high);
            let at = row.next..row.next + inside.count();
            row.next = at.end;
            at
        };
        for row in &mut part.faint {
            for k in take_share(row) {
                let (a, d) = (entries[k].1 as usize, entries[k].2);
                let diagonal = &mut self.hessian[packed_row(m, a) - packed_row(m, low)];
                for place in 0..2 {
                    self.gradient[a - low][place] += row.slope * d[place];
                    diagonal[3 * place] += row.curvature * d[place] * d[place];
                }
            }
        }
        for row in &mut part.full {
            let (from, mine) = (row.next, take_share(row).len());
            let row_entries = &entries[from..row.end];
            self.add_row(m, row_entries, mine, (row.slope, row.curvature));
        }
    }

    /// Adds a row's share of this stripe: its entries from its first in the stripe to its
    /// last (pairs rising), the first `mine` in the stripe, of a position with `slope` and
    /// `curvature`.
    fn add_row(
        &mut self,
        m: usize,
        entries: &[Entry],
        mine: usize,
        (slope, curvature): (f64, f64),
    ) {
        // Four of the row's pairs at a time: each later pair is read once for the four
        // lines (every sum still takes this position's product once, in its turn).
        let mut p = 0;
        while p + 4 <= mine {
            self.add_lines::<4>(m, &entries[p..], (slope, curvature));
            p += 4;
        }
        if p + 2 <= mine {
            self.add_lines::<2>(m, &entries[p..], (slope, curvature));
            p += 2;
        }
        if p < mine {
            self.add_lines::<1>(m, &entries[p..], (slope, curvature));
        }
    }

    /// Adds the gradient entries and the half's lines of a row's first `K` entries (pairs
    /// rising, the row's later entries after them).
    #[inline]
    fn add_lines<const K: usize>(
        &mut self,
        m: usize,
        entries: &[Entry],
        (slope, curvature): (f64, f64),
    ) {
        let rows: [usize; K] = std::array::from_fn(|k| entries[k].1 as usize);
        // Each line's weights for the four entries of a cell: its pair's first derivative
        // twice, then its second twice, each times the curvature.
        let weights: [[f64; 4]; K] = std::array::from_fn(|k| {
            let [d0, d1] = entries[k].2.map(|d| curvature * d);
            [d0, d0, d1, d1]
        });
        for k in 0..K {
            let gradient = &mut self.gradient[rows[k] - self.low];
            for (g, d) in gradient.iter_mut().zip(entries[k].2) {
                *g += slope * d;
            }
        }
        let lines = self.lines(m, rows);
        for k in 0..K {
            for &(_, c, dc) in &entries[k..K - 1] {
                add_product(&mut lines[k][c as usize - rows[k]], &weights[k], dc);
            }
        }
        for &(_, c, dc) in &entries[K - 1..] {
            for k in 0..K {
                add_product(&mut lines[k][c as usize - rows[k]], &weights[k], dc);
            }
        }
    }
}

/// Adds into `cell` a line's `weights` times a later pair's derivatives `[d0, d1]`: the
/// four products of the two pairs' entries.
#[inline(always)]
fn add_product(cell: &mut Cell, weights: &[f64; 4], [d0, d1]: [f64; 2]) {
    let d = [d0, d1, d0, d1];
    for e in 0..4 {
        cell[e] += weights[e] * d[e];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// `rows` as a model: blocks of 5 positions, each asked for in parts of `.2` positions;
    /// where `.3`, each even slot pairs with the next. An odd variable's column comes with its
    /// positions falling (a model need not hand a column out in position order).
    struct Given<'r>(&'r [Vec<(u32, f64)>], usize, usize, bool);

    impl Jacobian for Given<'_> {
        fn pairs_with_next(&self, slot: usize) -> bool {
            self.3 && slot.is_multiple_of(2)
        }
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
                let mut column: Vec<usize> = within.clone().collect();
                if var % 2 == 1 {
                    column.reverse();
                }
                for i in column {
                    if let Some(&(_, d)) = self.0[i].iter().find(|e| e.0 == var) {
                        rows.push(i, var, d);
                    }
                }
            }
        }
    }

    /// The system of `rows`, a column each variable, through `system`.
    fn built_system(
        rows: &[Vec<(u32, f64)>],
        slopes: &[f64],
        curv: &[f64],
        paired: bool,
    ) -> System {
        let n = width(rows);
        let slots: Vec<usize> = (0..n).collect();
        system(&Given(rows, n, usize::MAX, paired), &slots, slopes, curv)
    }

    #[test]
    fn a_row_adds_its_outer_product_and_gradient() {
        for paired in [false, true] {
            let s = built_system(&[vec![(0, 1.0), (2, 3.0)]], &[0.5], &[2.0], paired);
            assert_eq!(s.gradient, vec![0.5, 0.0, 1.5]);
            let want = [2.0, 0.0, 6.0, 0.0, 0.0, 0.0, 6.0, 0.0, 18.0];
            assert_eq!(s.hessian, want);
        }
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
        for paired in [false, true] {
            let built = built_system(&rows, &slopes, &curv, paired);
            assert_eq!(built, plain_system(&rows, &slopes, &curv, FAINT * 2.0));
            assert_ne!(built, plain_system(&rows, &slopes, &curv, 0.0));
        }
    }

    #[test]
    fn the_system_is_the_same_bits_whatever_the_threads_and_the_pairs() {
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
        // Slots with gaps: some even slots have no next to pair with.
        let slots: Vec<usize> = (0..n).map(|j| j + j / 3).collect();
        let plain = plain_system(&rows, &slopes, &curv, FAINT * 1.1);
        for private in [false, true] {
            let on = |threads, paired| {
                let model = Given(&rows, n, 2, paired);
                let pairs = Pairs::new(&model, &slots);
                system_on(
                    &model,
                    (&slots, &pairs),
                    (&slopes, &curv),
                    (threads, private),
                )
            };
            let one = on(1, false);
            for (threads, paired) in [(3, false), (4, false), (1, true), (3, true), (4, true)] {
                assert_eq!(one, on(threads, paired));
            }
            let close = one.hessian.iter().zip(&plain.hessian);
            assert!(close
                .into_iter()
                .all(|(a, b)| (a - b).abs() < 1e-9 * (1.0 + b.abs())));
        }
    }

    #[test]
    fn variables_pair_where_the_model_pairs_their_slots_and_the_next_is_tuned() {
        let rows = [vec![(0, 1.0)]];
        let model = Given(&rows, 1, 1, true);
        let pairs = Pairs::new(&model, &[0, 1, 2, 4, 5, 7, 8]);
        assert_eq!(pairs.first, vec![0, 2, 3, 5, 6, 7]);
        let places: Vec<u8> = pairs.of.iter().map(|p| p.1).collect();
        assert_eq!(places, vec![0, 1, 0, 0, 1, 0, 0]);
        assert_eq!(Pairs::new(&Given(&rows, 1, 1, false), &[0, 1]).len(), 2);
    }
}
