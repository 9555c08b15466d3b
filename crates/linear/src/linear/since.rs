//! Probes updated over the positions a scoring changed.
//!
//! A polish round probes every value one step up and one step down, and the next round
//! probes them again after a few moves. Where the evaluation is linear in every value, a
//! probe's change of the summed error is a sum over the positions of its value's column,
//! and only the positions the moves changed contribute anything new: the rescoring keeps
//! those positions' sums from before it ([`Rescoring`]), and the next probe takes their old
//! terms away and adds their new ones. Each term is a whole number of [`error_units`], so
//! the updated probe is the one a full reading gives, to the last bit.

use super::{Block, LinearDataset, Step, Sums};
use rayon::prelude::*;
use texel_solve::error::{error_units, ERROR_UNITS};
use texel_solve::model::Move;

impl LinearDataset {
    /// [`texel_solve::Probes::probe_since`].
    pub(super) fn probe_update(
        &self,
        mv: Move<'_, Vec<i32>>,
        errors: &[f64],
        (scoring, before): (u64, f64),
    ) -> Option<f64> {
        let changed = self.rescoring.changed.as_ref()?;
        if self.rescoring.since != scoring {
            return None;
        }
        let parts: Vec<i64> = (self.blocks.par_iter())
            .map(|block| self.block_update(block, changed, mv, errors))
            .collect();
        let units = (before * ERROR_UNITS).round() as i64 + parts.iter().sum::<i64>();
        Some(units as f64 / ERROR_UNITS)
    }

    /// What `block`'s positions among `changed` add to `mv`'s probe: their new terms less
    /// their terms before the rescore, in error units.
    fn block_update(
        &self,
        block: &Block,
        (positions, before): &(Vec<u32>, Vec<Sums>),
        mv: Move<'_, Vec<i32>>,
        errors: &[f64],
    ) -> i64 {
        let end = block.start + block.len;
        let from = positions.partition_point(|&p| p < block.start);
        let to = from + positions[from..].partition_point(|&p| p < end);
        let (k, delta) = (mv.sigmoid, mv.delta);
        let error = |i: usize, s: Sums| {
            let eval = texel_trace::centipawns(self.value(i, s));
            k.squared_error(eval, f64::from(self.targets[i]))
        };
        let mut sum = 0;
        self.for_slot_among(block, mv.slot, &positions[from..to], |at, step| {
            let i = positions[from + at] as usize;
            let was = before[from + at];
            // The terms a probe at each scoring adds (`LinearDataset::block_change`).
            let new = error_units(error(i, self.sums[i].moved(step, delta)) - errors[i]);
            let old = error_units(error(i, was.moved(step, delta)) - error(i, was));
            sum += new - old;
        });
        sum
    }

    /// Calls `f(k, step)` for every coefficient of `slot` in `block` at position
    /// `among[k]` (`among` rising, within the block).
    fn for_slot_among(
        &self,
        block: &Block,
        slot: usize,
        among: &[u32],
        mut f: impl FnMut(usize, Step),
    ) {
        let (entry, part) = self.layout.slots[slot];
        let (pos, count) = block.counts.get(entry as usize);
        meet(block.start, pos, among, |at, k| {
            f(k, Step::Count(part, i64::from(count[at])))
        });
        let (pos, weight) = block.weights.get(slot);
        meet(block.start, pos, among, |at, k| {
            f(k, Step::Weight(part, f64::from(weight[at])))
        });
    }
}

/// Calls `f(at, k)` wherever position `first + pos[at]` is `among[k]` (both rising): a
/// walk through both, or a search of `pos` for each of `among` when it is much the shorter.
fn meet(first: u32, pos: &[u16], among: &[u32], mut f: impl FnMut(usize, usize)) {
    let local = |p: u32| (p - first) as u16;
    if among.len() * 16 < pos.len() {
        for (k, &p) in among.iter().enumerate() {
            if let Ok(at) = pos.binary_search(&local(p)) {
                f(at, k);
            }
        }
        return;
    }
    let (mut at, mut k) = (0, 0);
    while at < pos.len() && k < among.len() {
        match pos[at].cmp(&local(among[k])) {
            std::cmp::Ordering::Less => at += 1,
            std::cmp::Ordering::Greater => k += 1,
            std::cmp::Ordering::Equal => {
                f(at, k);
                (at, k) = (at + 1, k + 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::meet;

    #[test]
    fn meeting_finds_the_common_positions_by_walk_and_by_search() {
        let pos: Vec<u16> = (0..200).map(|p| p * 3).collect();
        // Few among many positions (searched), many (walked).
        let few = vec![1000, 1003, 1004, 1300, 1598];
        let many: Vec<u32> = (1000..1050).chain([1297, 1300, 1599]).collect();
        for among in [few, many] {
            let mut met = Vec::new();
            meet(1000, &pos, &among, |at, k| met.push((pos[at], k)));
            let expected: Vec<(u16, usize)> = (among.iter().enumerate())
                .filter(|(_, &p)| (p - 1000) % 3 == 0)
                .map(|(k, &p)| ((p - 1000) as u16, k))
                .collect();
            assert_eq!(met, expected);
        }
    }
}
