//! What the last scoring of a dataset's positions changed: the positions and their sums
//! before it, kept while they are few (`linear/since.rs` updates probes over them).

use crate::layout::Sums;

/// A rescoring keeps at most one position in this many (beyond it, a probe reads
/// its whole column as fast as an update would read the changed positions twice).
const KEPT_SHARE: usize = 8;

/// The scorings of the positions: how many, and what the last one changed.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rescoring {
    /// Scorings so far (each rescore and each move made for good).
    count: u64,
    /// The scoring since which `changed` holds what changed.
    pub(crate) since: u64,
    /// The positions whose sums changed since scoring `since`, rising, and their sums
    /// then; `None` when the last rescore did not keep them (too many, or an evaluation
    /// that is not linear in every value) or the positions moved since.
    pub(crate) changed: Option<(Vec<u32>, Vec<Sums>)>,
}

impl Rescoring {
    /// Counts a rescore from `before` to `after` (every position's sums), keeping the
    /// changed positions' old sums when `keep` and they are few enough. A rescore that
    /// changes nothing keeps what the one before it kept (a run scores the positions
    /// again after a round has).
    pub(crate) fn rescored(&mut self, before: &[Sums], after: &[Sums], keep: bool) {
        self.count += 1;
        if keep && self.changed.is_some() && before == after {
            return;
        }
        (self.since, self.changed) = (self.count - 1, None);
        if !keep || before.len() != after.len() {
            return;
        }
        let limit = before.len() / KEPT_SHARE;
        let (mut positions, mut sums) = (Vec::new(), Vec::new());
        for (i, (was, now)) in before.iter().zip(after).enumerate() {
            if was != now {
                if positions.len() == limit {
                    return;
                }
                positions.push(i as u32);
                sums.push(*was);
            }
        }
        self.changed = Some((positions, sums));
    }

    /// Counts a change of the positions that keeps nothing (a move made for good).
    pub(crate) fn moved(&mut self) {
        self.count += 1;
        self.changed = None;
    }

    /// Scorings so far.
    pub(crate) fn count(&self) -> u64 {
        self.count
    }

    /// Bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.changed.as_ref().map_or(0, |(p, s)| {
            4 * p.capacity() + std::mem::size_of::<Sums>() * s.capacity()
        })
    }
}
