//! The counts of an entry in the inner sums: each sum it counts in (with the parts) and its
//! count, sums rising, the counts kept in a byte where every count of the entry is a whole
//! number from −128 to 127 (5 bytes a count instead of 8, where tens of millions are kept).

use super::extend_toward;
use std::ops::ControlFlow;

/// One count of an entry in an inner sum: the sum (instance) and the parts it counts in
/// packed in one word (the parts in the lowest two bits), the count. A whole count counts in both parts of its sum, once for
/// both values of a tapered entry; a split one is two counts, one a part.
#[derive(Copy, Clone, Debug)]
pub(super) struct Count {
    pub(super) key: u32,
    pub(super) count: f32,
}

/// The parts a count counts in, or a slot reads: bit 0 the middlegame sum, bit 1 the endgame.
pub(super) type Parts = u8;

/// The middlegame part, the endgame part, both.
pub(super) const MID: Parts = 0b01;
pub(super) const END: Parts = 0b10;
pub(super) const BOTH: Parts = 0b11;

impl Count {
    /// `count` of sum `instance` in parts `parts` (fewer than 2³⁰ sums).
    pub(super) fn new(instance: u32, parts: Parts, count: f32) -> Count {
        debug_assert!(instance < 1 << 30, "a count keeps 30 bits of its sum");
        Count {
            key: instance << 2 | u32::from(parts & BOTH),
            count,
        }
    }

    /// The sum.
    pub(super) fn instance(&self) -> u32 {
        self.key >> 2
    }

    /// The parts it counts in.
    pub(super) fn parts(&self) -> Parts {
        (self.key & u32::from(BOTH)) as Parts
    }

    /// The same count of sum `instance`.
    pub(super) fn of(self, instance: u32) -> Count {
        Count::new(instance, self.parts(), self.count)
    }
}

/// An entry's counts, sums rising.
#[derive(Clone, Debug, Default)]
pub(super) struct EntryCounts {
    keys: Vec<u32>,
    counts: Numbers,
}

/// The counts themselves: in a byte each while every count is a whole one from −128 to 127.
#[derive(Clone, Debug)]
enum Numbers {
    Small(Vec<i8>),
    Wide(Vec<f32>),
}

impl Default for Numbers {
    fn default() -> Numbers {
        Numbers::Small(Vec::new())
    }
}

/// `count` as a byte, where it is a whole number a byte holds.
fn small(count: f32) -> Option<i8> {
    let byte = count as i8;
    (f32::from(byte) == count).then_some(byte)
}

/// `f(count)` of counts `keys` and `numbers` until it breaks.
#[inline]
fn each<T: Copy + Into<f32>>(
    keys: &[u32],
    numbers: &[T],
    mut f: impl FnMut(Count) -> ControlFlow<()>,
) {
    for (&key, &count) in keys.iter().zip(numbers) {
        let count = count.into();
        if f(Count { key, count }).is_break() {
            return;
        }
    }
}

impl EntryCounts {
    /// The counts `keys` and `counts` (in one order, sums rising).
    pub(super) fn from_parts(keys: Vec<u32>, counts: Vec<f32>) -> EntryCounts {
        let bytes: Option<Vec<i8>> = counts.iter().map(|&c| small(c)).collect();
        let counts = bytes.map_or(Numbers::Wide(counts), Numbers::Small);
        EntryCounts { keys, counts }
    }

    /// Counts.
    pub(super) fn len(&self) -> usize {
        self.keys.len()
    }

    /// Appends `count` (of a later sum than any kept); one no byte holds widens them all.
    pub(super) fn push(&mut self, count: Count) {
        self.keys.push(count.key);
        if let (Numbers::Small(n), None) = (&self.counts, small(count.count)) {
            self.counts = Numbers::Wide(n.iter().map(|&c| f32::from(c)).collect());
        }
        match &mut self.counts {
            Numbers::Small(n) => n.extend(small(count.count)),
            Numbers::Wide(n) => n.push(count.count),
        }
    }

    /// Appends `other`'s counts, their sums `instances` on, these and those being `share.0`
    /// of `share.1` positions' ([`extend_toward`]).
    pub(super) fn extend(&mut self, other: EntryCounts, instances: u32, share: (usize, usize)) {
        let keys = other.keys.into_iter().map(|k| k + (instances << 2));
        extend_toward(&mut self.keys, share, keys);
        match (&mut self.counts, other.counts) {
            (Numbers::Small(n), Numbers::Small(o)) => extend_toward(n, share, o.into_iter()),
            (Numbers::Wide(n), Numbers::Small(o)) => {
                extend_toward(n, share, o.into_iter().map(f32::from))
            }
            (mine, Numbers::Wide(o)) => {
                let mut wide = mine.wide();
                extend_toward(&mut wide, share, o.into_iter());
                *mine = Numbers::Wide(wide);
            }
        }
    }

    /// Count `i`.
    fn get(&self, i: usize) -> Count {
        let count = match &self.counts {
            Numbers::Small(n) => f32::from(n[i]),
            Numbers::Wide(n) => n[i],
        };
        Count {
            key: self.keys[i],
            count,
        }
    }

    /// `f(count)` of every count from the `from`th, in order, until `f` breaks.
    #[inline]
    pub(super) fn each_from(&self, from: usize, f: impl FnMut(Count) -> ControlFlow<()>) {
        let keys = &self.keys[from..];
        match &self.counts {
            Numbers::Small(n) => each(keys, &n[from..], f),
            Numbers::Wide(n) => each(keys, &n[from..], f),
        }
    }

    /// Where the first count of a sum from `instance` on is.
    pub(super) fn first_from(&self, instance: u32) -> usize {
        self.keys.partition_point(|&k| k >> 2 < instance)
    }

    /// Whether a count counts in one of `parts`.
    pub(super) fn any_in(&self, parts: Parts) -> bool {
        self.keys.iter().any(|&k| k & u32::from(parts) != 0)
    }

    /// The counts of sums `renumbered` keeps (`u32::MAX` where it drops one), renumbered.
    pub(super) fn renumbered(&self, renumbered: &[u32]) -> EntryCounts {
        let mut out = EntryCounts::default();
        for i in 0..self.len() {
            let c = self.get(i);
            match renumbered[c.instance() as usize] {
                u32::MAX => {}
                k => out.push(c.of(k)),
            }
        }
        out
    }

    /// The keys and the counts, as a form keeps them.
    pub(super) fn parts(&self) -> (&[u32], Vec<f32>) {
        (&self.keys, self.counts.wide())
    }

    /// Gives back the room no count filled.
    pub(super) fn shrink_to_fit(&mut self) {
        self.keys.shrink_to_fit();
        match &mut self.counts {
            Numbers::Small(n) => n.shrink_to_fit(),
            Numbers::Wide(n) => n.shrink_to_fit(),
        }
    }

    /// Bytes held.
    pub(super) fn memory_bytes(&self) -> usize {
        4 * self.keys.capacity()
            + match &self.counts {
                Numbers::Small(n) => n.capacity(),
                Numbers::Wide(n) => 4 * n.capacity(),
            }
    }
}

impl Numbers {
    /// Every count as a float.
    fn wide(&self) -> Vec<f32> {
        match self {
            Numbers::Small(n) => n.iter().map(|&c| f32::from(c)).collect(),
            Numbers::Wide(n) => n.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Count, EntryCounts, Numbers, BOTH, END, MID};
    use std::ops::ControlFlow;

    fn all(counts: &EntryCounts, from: usize) -> Vec<(u32, u8, f32)> {
        let mut out = Vec::new();
        counts.each_from(from, |c| {
            out.push((c.instance(), c.parts(), c.count));
            ControlFlow::Continue(())
        });
        out
    }

    #[test]
    fn whole_counts_take_a_byte_until_one_does_not_fit() {
        let mut counts = EntryCounts::default();
        counts.push(Count::new(0, BOTH, 1.0));
        counts.push(Count::new(3, MID, -128.0));
        assert!(matches!(counts.counts, Numbers::Small(_)));
        counts.shrink_to_fit();
        assert_eq!(counts.memory_bytes(), 5 * 2);
        let mut later = EntryCounts::default();
        later.push(Count::new(1, END, 0.5));
        counts.extend(later, 5, (2, 2));
        assert!(matches!(counts.counts, Numbers::Wide(_)));
        let expected = vec![(0, BOTH, 1.0), (3, MID, -128.0), (6, END, 0.5)];
        assert_eq!(all(&counts, 0), expected);
        assert_eq!((counts.first_from(3), counts.first_from(4)), (1, 2));
        assert_eq!(all(&counts, 2), expected[2..]);
        assert!(counts.any_in(END) && !EntryCounts::default().any_in(BOTH));
        let (keys, numbers) = counts.parts();
        let again = EntryCounts::from_parts(keys.to_vec(), numbers);
        assert_eq!(all(&again, 0), expected);
        let mut wide = EntryCounts::default();
        wide.push(Count::new(2, BOTH, 200.0));
        assert!(matches!(wide.counts, Numbers::Wide(_)));
        let kept = counts.renumbered(&[u32::MAX, 0, 0, 1, 0, 0, 2]);
        assert_eq!(all(&kept, 0), [(1, MID, -128.0), (2, END, 0.5)]);
        let bytes = EntryCounts::from_parts(vec![0, 4], vec![2.0, -3.0]);
        assert!(matches!(bytes.counts, Numbers::Small(_)));
    }
}
