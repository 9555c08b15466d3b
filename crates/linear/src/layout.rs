//! Where a dataset's values sit (each slot's entry and part), its columns of
//! (position, factor) pairs, and a position's sums under the current values: the ground
//! the dataset, its inner sums and its tuner form stand on.

use texel_trace::ParamSpace;

/// Positions per block.
pub const BLOCK: usize = 4096;
// Positions in a block are indexed by `u16` and masked by `% BLOCK`.
const _: () = assert!(BLOCK.is_power_of_two() && BLOCK <= 1 << 16);

/// Which part of its entry a value slot is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// The middlegame value of a tapered entry.
    Mid,
    /// The endgame value of a tapered entry.
    End,
    /// A plain entry's value.
    Plain,
}

/// Where each value slot sits: its entry and part; where each entry's values begin.
#[derive(Clone, Debug, Default)]
pub(crate) struct Layout {
    pub(crate) slots: Vec<(u32, Part)>,
    pub(crate) first_slot: Vec<u32>,
}

impl Layout {
    pub(crate) fn new(space: &ParamSpace) -> Layout {
        let mut layout = Layout::default();
        for p in space.params() {
            for _ in 0..p.len {
                let entry = layout.first_slot.len() as u32;
                layout.first_slot.push(layout.slots.len() as u32);
                match p.tapered {
                    true => layout
                        .slots
                        .extend([(entry, Part::Mid), (entry, Part::End)]),
                    false => layout.slots.push((entry, Part::Plain)),
                }
            }
        }
        layout
    }
}

/// A column: per key (entry or slot) a range of (position, factor) pairs.
#[derive(Clone, Debug, Default)]
pub(crate) struct Columns<T> {
    pub(crate) starts: Vec<u32>,
    pub(crate) pos: Vec<u16>,
    pub(crate) factor: Vec<T>,
}

impl<T: Copy> Columns<T> {
    /// The columns of `keys` keys from (key, position, factor) triples in position order:
    /// a counting sort by key, which keeps each column in position order.
    pub(crate) fn build(keys: usize, triples: &[(u32, u16, T)], zero: T) -> Columns<T> {
        let mut starts = vec![0u32; keys + 1];
        for t in triples {
            starts[t.0 as usize + 1] += 1;
        }
        for k in 0..keys {
            starts[k + 1] += starts[k];
        }
        let mut next = starts.clone();
        let (mut pos, mut factor) = (vec![0u16; triples.len()], vec![zero; triples.len()]);
        for &(key, p, f) in triples {
            let at = &mut next[key as usize];
            (pos[*at as usize], factor[*at as usize]) = (p, f);
            *at += 1;
        }
        Columns {
            starts,
            pos,
            factor,
        }
    }

    /// The pairs of `key`.
    #[inline]
    pub(crate) fn get(&self, key: usize) -> (&[u16], &[T]) {
        let range = self.starts[key] as usize..self.starts[key + 1] as usize;
        (&self.pos[range.clone()], &self.factor[range])
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        4 * self.starts.capacity() + (2 + std::mem::size_of::<T>()) * self.pos.capacity()
    }
}

/// A position's sums under the current values: whole counts times middlegame, endgame and
/// plain values (exact), and every other coefficient times its value.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub(crate) struct Sums {
    pub(crate) mid: i64,
    pub(crate) end: i64,
    pub(crate) plain: i64,
    pub(crate) free: f64,
}

/// How a coefficient of a slot moves a position's sums per unit of the value.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Step {
    /// A whole count of a middlegame, endgame or plain value.
    Count(Part, i64),
    /// A weight of a middlegame, endgame or plain value.
    Weight(Part, f64),
}

impl Sums {
    /// The sums moved by `step` times `delta`.
    #[inline]
    pub(crate) fn moved(mut self, step: Step, delta: i32) -> Sums {
        match step {
            Step::Count(Part::Mid, c) => self.mid += c * i64::from(delta),
            Step::Count(Part::End, c) => self.end += c * i64::from(delta),
            Step::Count(Part::Plain, c) => self.plain += c * i64::from(delta),
            Step::Weight(_, w) => self.free += w * f64::from(delta),
        }
        self
    }
}

impl Step {
    /// How much the step moves the endgame values' weighted part (what a complexity reads
    /// beside the whole counts) per unit of the value.
    #[inline]
    pub(crate) fn end_weight(self) -> f64 {
        match self {
            Step::Weight(Part::End, w) => w,
            _ => 0.0,
        }
    }
}
