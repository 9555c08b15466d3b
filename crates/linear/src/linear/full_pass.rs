//! The passes that take every position of a block at once: `J · direction` and
//! `Σ slope · J` over the tuned values (Adam's epochs, Newton's products and gradients).
//!
//! Both walk each entry's count column once for its two values. The product scatters into
//! a block-sized table of (middlegame, endgame) sums, no two adds of a column touching the
//! same position, and applies the tapers per position afterwards; the gradient splits each
//! position's slope by its tapers first, then gathers along each column with four
//! independent sums, so neither waits on the latency of its own adds.

use super::{LinearDataset, Part, BLOCK};

/// An entry some of whose values are variables of a full pass.
#[derive(Copy, Clone, Debug)]
struct EntryVars {
    entry: u32,
    /// A plain entry: its one value is `vars[0]`.
    plain: bool,
    /// The variables of its middlegame (or plain) and endgame values, if tuned.
    vars: [Option<u32>; 2],
}

impl EntryVars {
    /// The entry's two parts of `direction` (zero where a value is not a variable; a plain
    /// entry's second is zero).
    #[inline]
    fn of(&self, direction: &[f64]) -> [f64; 2] {
        self.vars.map(|v| v.map_or(0.0, |j| direction[j as usize]))
    }

    /// Adds `parts` into the variables' entries of `gradient`.
    #[inline]
    fn add_to(&self, gradient: &mut [f64], parts: [f64; 2]) {
        for (v, x) in self.vars.iter().zip(parts) {
            if let Some(j) = v {
                gradient[*j as usize] += x;
            }
        }
    }
}

impl LinearDataset {
    /// The entries whose values are among `slots` (variable `j` is `slots[j]`), in entry
    /// order.
    fn entry_vars(&self, slots: &[usize]) -> Vec<EntryVars> {
        let mut by_entry: Vec<Option<EntryVars>> = vec![None; self.layout.first_slot.len()];
        for (j, &slot) in slots.iter().enumerate() {
            let (entry, part) = self.layout.slots[slot];
            let e = by_entry[entry as usize].get_or_insert(EntryVars {
                entry,
                plain: part == Part::Plain,
                vars: [None; 2],
            });
            e.vars[usize::from(part == Part::End)] = Some(j as u32);
        }
        by_entry.into_iter().flatten().collect()
    }

    /// [`crate::Jacobian::block_product`].
    pub(super) fn full_product(&self, b: usize, slots: &[usize], dir: &[f64], out: &mut [f64]) {
        let (block, vars) = (&self.blocks[b], self.entry_vars(slots));
        let n = block.len as usize;
        let mut parts = Box::new([[0.0f64; 2]; BLOCK]);
        for e in &vars {
            let (pos, count) = block.counts.get(e.entry as usize);
            let [d0, d1] = e.of(dir);
            if e.plain {
                for (&p, &c) in pos.iter().zip(count) {
                    out[usize::from(p)] += f64::from(c) * d0;
                }
                continue;
            }
            for (&p, &c) in pos.iter().zip(count) {
                // In the block by construction; the mask lets the bounds check go.
                let at = &mut parts[usize::from(p) % BLOCK];
                at[0] += f64::from(c) * d0;
                at[1] += f64::from(c) * d1;
            }
        }
        for (j, &slot) in slots.iter().enumerate() {
            let (pos, weight) = block.weights.get(slot);
            for (&p, &w) in pos.iter().zip(weight) {
                out[usize::from(p)] += f64::from(w) * dir[j];
            }
        }
        let tapers = &self.tapers[block.start as usize..][..n];
        for ((out, [m, e]), [a, z]) in out.iter_mut().zip(tapers).zip(parts.iter()) {
            *out += m * a + e * z;
        }
    }

    /// [`crate::Jacobian::block_gradient`].
    pub(super) fn full_gradient(&self, b: usize, slots: &[usize], slopes: &[f64], out: &mut [f64]) {
        let (block, vars) = (&self.blocks[b], self.entry_vars(slots));
        let tapers = &self.tapers[block.start as usize..][..block.len as usize];
        let mut split = Box::new([[0.0f64; 2]; BLOCK]);
        for ((at, [m, e]), s) in split.iter_mut().zip(tapers).zip(slopes) {
            *at = [m * s, e * s];
        }
        for e in &vars {
            let (pos, count) = block.counts.get(e.entry as usize);
            let parts = match e.plain {
                true => [dot(pos, count, |p| [slopes[p], 0.0])[0], 0.0],
                false => dot(pos, count, |p| split[p % BLOCK]),
            };
            e.add_to(out, parts);
        }
        for (j, &slot) in slots.iter().enumerate() {
            let (pos, weight) = block.weights.get(slot);
            let terms = pos.iter().zip(weight);
            out[j] += terms
                .map(|(&p, &w)| f64::from(w) * slopes[usize::from(p)])
                .sum::<f64>();
        }
    }
}

/// `Σ count · at(position)` (two sums at once) over a count column, in four interleaved
/// partial sums added at the end: the same order whatever the threads.
#[inline]
fn dot(pos: &[u16], count: &[i8], at: impl Fn(usize) -> [f64; 2]) -> [f64; 2] {
    let mut lanes = [[0.0f64; 2]; 4];
    let (pos4, count4) = (pos.chunks_exact(4), count.chunks_exact(4));
    let (pos_rest, count_rest) = (pos4.remainder(), count4.remainder());
    for (p, c) in pos4.zip(count4) {
        for (lane, (&p, &c)) in lanes.iter_mut().zip(p.iter().zip(c)) {
            let [m, z] = at(usize::from(p));
            lane[0] += f64::from(c) * m;
            lane[1] += f64::from(c) * z;
        }
    }
    for (lane, (&p, &c)) in lanes.iter_mut().zip(pos_rest.iter().zip(count_rest)) {
        let [m, z] = at(usize::from(p));
        lane[0] += f64::from(c) * m;
        lane[1] += f64::from(c) * z;
    }
    let [a, b, c, d] = lanes;
    [(a[0] + b[0]) + (c[0] + d[0]), (a[1] + b[1]) + (c[1] + d[1])]
}
