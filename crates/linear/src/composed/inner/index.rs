//! Which position, term and side each inner sum is, and where each position's sums begin:
//! three lists, or none at all where every position has the same sums in the same order (a
//! trace that writes each term for both sides of every position, as Stash's tuner does).

use super::extend_toward;
use std::ops::Range;

/// The sums' index ([`SumIndex::position`], [`SumIndex::term_side`], [`SumIndex::first`]).
#[derive(Clone, Debug)]
pub(super) enum SumIndex {
    /// `positions` positions, each with the sums `pattern` (each sum's term and side, as
    /// `super::term_side` packs them), in that order.
    Uniform { pattern: Vec<u32>, positions: u32 },
    /// Per sum its position and its term and side; per position (and one past the last)
    /// its first sum.
    Lists {
        position: Vec<u32>,
        term_side: Vec<u32>,
        first: Vec<u32>,
    },
}

impl Default for SumIndex {
    fn default() -> SumIndex {
        SumIndex::Uniform {
            pattern: Vec::new(),
            positions: 0,
        }
    }
}

impl SumIndex {
    /// How many positions.
    pub(super) fn positions(&self) -> usize {
        match self {
            SumIndex::Uniform { positions, .. } => *positions as usize,
            SumIndex::Lists { first, .. } => first.len() - 1,
        }
    }

    /// How many sums.
    pub(super) fn len(&self) -> usize {
        self.first(self.positions()) as usize
    }

    /// Position `i`'s first sum (`i` up to the number of positions: one past the last sum).
    #[inline]
    pub(super) fn first(&self, i: usize) -> u32 {
        match self {
            SumIndex::Uniform { pattern, .. } => (i * pattern.len()) as u32,
            SumIndex::Lists { first, .. } => first[i],
        }
    }

    /// The sums of positions `positions`.
    #[inline]
    pub(super) fn sums_of(&self, positions: Range<usize>) -> Range<u32> {
        self.first(positions.start)..self.first(positions.end)
    }

    /// Sum `k`'s position.
    #[inline]
    pub(super) fn position(&self, k: usize) -> u32 {
        match self {
            SumIndex::Uniform { pattern, .. } => (k / pattern.len()) as u32,
            SumIndex::Lists { position, .. } => position[k],
        }
    }

    /// Sum `k`'s term and side.
    #[inline]
    pub(super) fn term_side(&self, k: usize) -> u32 {
        match self {
            SumIndex::Uniform { pattern, .. } => pattern[k % pattern.len()],
            SumIndex::Lists { term_side, .. } => term_side[k],
        }
    }

    /// Appends a position whose sums are `term_sides`.
    pub(super) fn push(&mut self, term_sides: &[u32]) {
        if let SumIndex::Uniform { pattern, positions } = self {
            if *positions == 0 {
                *pattern = term_sides.to_vec();
            }
            if pattern == term_sides {
                *positions += 1;
                return;
            }
        }
        let (position, term_side, first) = self.make_lists();
        position.extend(term_sides.iter().map(|_| first.len() as u32 - 1));
        term_side.extend_from_slice(term_sides);
        first.push(term_side.len() as u32);
    }

    /// Turns a uniform index into its lists, and hands them out: per sum its position, its
    /// term and side; per position (and one past the last) its first sum.
    fn make_lists(&mut self) -> (&mut Vec<u32>, &mut Vec<u32>, &mut Vec<u32>) {
        if let SumIndex::Uniform { .. } = self {
            let (position, term_side, first) = self.lists();
            *self = SumIndex::Lists {
                position,
                term_side,
                first,
            };
        }
        match self {
            SumIndex::Lists {
                position,
                term_side,
                first,
            } => (position, term_side, first),
            SumIndex::Uniform { .. } => unreachable!("made lists"),
        }
    }

    /// The three lists: per sum its position, its term and side; per position (and one
    /// past the last) its first sum.
    pub(super) fn lists(&self) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
        let sums = 0..self.len();
        let position = sums.clone().map(|k| self.position(k)).collect();
        let term_side = sums.map(|k| self.term_side(k)).collect();
        let first = (0..=self.positions()).map(|i| self.first(i)).collect();
        (position, term_side, first)
    }

    /// The index of three lists ([`SumIndex::lists`]), uniform where they are; `None` where
    /// they disagree (a sum outside its position's, positions not in order).
    pub(super) fn from_lists(
        position: Vec<u32>,
        term_side: Vec<u32>,
        first: Vec<u32>,
    ) -> Option<SumIndex> {
        let n = first.len().checked_sub(1)?;
        let agree = first.first() == Some(&0)
            && first.last().map(|&f| f as usize) == Some(position.len())
            && term_side.len() == position.len()
            && first.windows(2).all(|w| w[0] <= w[1])
            && (0..n).all(|i| {
                position[first[i] as usize..first[i + 1] as usize]
                    .iter()
                    .all(|&p| p as usize == i)
            });
        if !agree {
            return None;
        }
        let mut uniform = SumIndex::default();
        for i in 0..n {
            uniform.push(&term_side[first[i] as usize..first[i + 1] as usize]);
            if let SumIndex::Lists { .. } = uniform {
                return Some(SumIndex::Lists {
                    position,
                    term_side,
                    first,
                });
            }
        }
        Some(uniform)
    }

    /// Appends `other`, whose positions follow these; `share` is as `extend_toward`'s.
    pub(super) fn extend(&mut self, other: SumIndex, share: (usize, usize)) {
        if other.positions() == 0 {
            return;
        }
        if self.positions() == 0 {
            *self = other;
            return;
        }
        if let (
            SumIndex::Uniform { pattern, positions },
            SumIndex::Uniform {
                pattern: theirs,
                positions: more,
            },
        ) = (&mut *self, &other)
        {
            if pattern == theirs {
                *positions += more;
                return;
            }
        }
        let (at, sums) = (self.positions() as u32, self.len() as u32);
        let (position, term_side, first) = self.make_lists();
        let (their_position, their_term_side, their_first) = other.lists();
        extend_toward(position, share, their_position.iter().map(|p| p + at));
        extend_toward(term_side, share, their_term_side.into_iter());
        extend_toward(first, share, their_first[1..].iter().map(|f| f + sums));
    }

    /// Gives back the room no list filled.
    pub(super) fn shrink_to_fit(&mut self) {
        if let SumIndex::Lists {
            position,
            term_side,
            first,
        } = self
        {
            position.shrink_to_fit();
            term_side.shrink_to_fit();
            first.shrink_to_fit();
        }
    }

    /// Bytes held.
    pub(super) fn memory_bytes(&self) -> usize {
        match self {
            SumIndex::Uniform { pattern, .. } => 4 * pattern.capacity(),
            SumIndex::Lists {
                position,
                term_side,
                first,
            } => 4 * (position.capacity() + term_side.capacity() + first.capacity()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SumIndex;

    /// The index of positions with sums `each` (one list a position), pushed one by one.
    fn pushed(each: &[&[u32]]) -> SumIndex {
        let mut index = SumIndex::default();
        each.iter().for_each(|sums| index.push(sums));
        index
    }

    fn is_uniform(index: &SumIndex) -> bool {
        matches!(index, SumIndex::Uniform { .. })
    }

    #[test]
    fn positions_with_the_same_sums_hold_no_lists_and_answer_as_lists_would() {
        let uniform = pushed(&[&[2, 3], &[2, 3], &[2, 3]]);
        assert!(is_uniform(&uniform));
        assert_eq!(uniform.memory_bytes(), 8);
        let (position, term_side, first) = uniform.lists();
        assert_eq!(position, [0, 0, 1, 1, 2, 2]);
        assert_eq!(term_side, [2, 3, 2, 3, 2, 3]);
        assert_eq!(first, [0, 2, 4, 6]);
        assert_eq!((uniform.position(5), uniform.term_side(4)), (2, 2));
        assert_eq!(uniform.sums_of(1..3), 2..6);
        let back = SumIndex::from_lists(position, term_side, first).unwrap();
        assert!(is_uniform(&back));
    }

    #[test]
    fn a_position_with_other_sums_turns_the_index_into_lists() {
        let mixed = pushed(&[&[2, 3], &[2, 3], &[], &[4]]);
        assert!(!is_uniform(&mixed));
        assert_eq!(
            mixed.lists(),
            (
                vec![0, 0, 1, 1, 3],
                vec![2, 3, 2, 3, 4],
                vec![0, 2, 4, 4, 5]
            )
        );
        assert_eq!((mixed.position(4), mixed.first(3), mixed.len()), (3, 4, 5));
    }

    #[test]
    fn appending_keeps_a_shared_pattern_and_renumbers_the_rest() {
        let mut a = pushed(&[&[2, 3], &[2, 3]]);
        a.extend(pushed(&[&[2, 3]]), (3, 3));
        assert!(is_uniform(&a) && a.positions() == 3);
        a.extend(pushed(&[&[5]]), (4, 4));
        assert_eq!(
            a.lists(),
            pushed(&[&[2, 3], &[2, 3], &[2, 3], &[5]]).lists()
        );
    }

    #[test]
    fn lists_that_disagree_are_refused() {
        assert!(SumIndex::from_lists(vec![0, 1], vec![2, 3], vec![0, 2]).is_none());
        assert!(SumIndex::from_lists(vec![0], vec![2], vec![0, 2]).is_none());
        assert!(SumIndex::from_lists(vec![], vec![], vec![]).is_none());
    }
}
