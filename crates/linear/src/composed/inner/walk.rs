//! The moves of one value through the sums that count it, walked once for several steps:
//! what a polish probe of a value a sum counts reads. Each position the value reaches is
//! met once, its moved sums made for every step at a time, so the probes up and down of a
//! value take one walk of its counts and no list of the positions it moves.

use super::{Added, Inner};

/// The sums of the position being walked that count the value, with their sums now.
struct Pending {
    position: u32,
    /// Per moved sum: the sum and its sums now; per count, the moved sum (its index here),
    /// its part and its count, in the order they were read.
    sums: Vec<(usize, [f64; 2])>,
    counts: Vec<(usize, usize, f32)>,
    /// The moved sums of one step (room kept from position to position).
    moved: Vec<(usize, [f64; 2])>,
}

impl Inner {
    /// Whether moving `slot` moves only the sums that count it (no shape multiplies by it):
    /// what [`Inner::each_moved`] walks.
    pub(in crate::composed) fn only_counted(&self, slot: usize) -> bool {
        !self.linear(slot) && self.factor_of[slot].is_empty()
    }

    /// For every position a sum of which counts `slot` (a value only counted,
    /// [`Inner::only_counted`]), positions rising: `f(position, step, added)` for each of
    /// `steps` in order, `added` what its sums give if `slot` moves by that step from
    /// `values` — the same numbers as [`Inner::changes`] gives for a move of that step.
    pub(in crate::composed) fn each_moved(
        &self,
        (values, slot): (&[i32], usize),
        steps: &[i32],
        mut f: impl FnMut(u32, usize, Added),
    ) {
        let mut pending = Pending {
            position: u32::MAX,
            sums: Vec::new(),
            counts: Vec::new(),
            moved: Vec::new(),
        };
        self.each_count(slot, 0..u32::MAX, |k, part, count| {
            let (k, i) = (k as usize, self.index.position(k as usize));
            if i != pending.position {
                self.flush(&mut pending, (values, slot), steps, &mut f);
                pending.position = i;
                pending.sums.clear();
                pending.counts.clear();
            }
            if pending.sums.last().is_none_or(|s| s.0 != k) {
                pending.sums.push((k, self.sums[k]));
            }
            pending.counts.push((pending.sums.len() - 1, part, count));
        });
        self.flush(&mut pending, (values, slot), steps, &mut f);
    }

    /// [`Inner::each_moved`]'s answers for the position `pending` holds.
    fn flush(
        &self,
        pending: &mut Pending,
        (values, slot): (&[i32], usize),
        steps: &[i32],
        f: &mut impl FnMut(u32, usize, Added),
    ) {
        if pending.sums.is_empty() {
            return;
        }
        for (n, &delta) in steps.iter().enumerate() {
            // Each moved sum as `moved_sums` makes it: its sums now, then its counts in order.
            let moved = &mut pending.moved;
            moved.clone_from(&pending.sums);
            for &(m, part, count) in &pending.counts {
                moved[m].1[part] += f64::from(count) * f64::from(delta);
            }
            let sum = |k: usize| {
                moved
                    .iter()
                    .find(|m| m.0 == k)
                    .map_or(self.sums[k], |m| m.1)
            };
            let after = |s: usize| f64::from(values[s] + if s == slot { delta } else { 0 });
            let i = pending.position;
            f(i, n, self.position_added(i as usize, sum, after));
        }
    }
}
