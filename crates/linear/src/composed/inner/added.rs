//! What a position's inner sums give ([`Added`]), and the list of it a position
//! ([`AddedList`]), which keeps the endgame part and the complexity only where a term is a
//! complexity.

use super::extend_toward;
use rayon::prelude::*;
use texel_trace::{complexity_moved, is_zero_end};

/// What a position's inner sums give at some values: their addition to the evaluation
/// (complexity aside), its endgame part with the position's fixed endgame part, and the
/// position's complexity (tapered; 0 where it has none, as a complexity of 0 moves nothing).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Added {
    pub(super) all: f64,
    pub(super) end: f64,
    pub(super) complexity: f64,
}

impl Added {
    /// What the sums add to an evaluation whose linear entries' endgame part is
    /// `linear_end`: their addition, and the complexity's move of the whole endgame part.
    #[inline]
    pub fn with(&self, linear_end: f64) -> f64 {
        match self.complexity {
            0.0 => self.all,
            c => {
                let end = linear_end + self.end;
                self.all + complexity_moved(end, c) - end
            }
        }
    }

    /// At `linear_end` (see [`Added::with`]): the factor of every endgame derivative (0 where
    /// the complexity holds the endgame part at zero, else 1), and the derivative in the
    /// complexity (the endgame part's sign where the complexity moves it freely).
    pub(super) fn gates(&self, linear_end: f64) -> (f64, f64) {
        let end = linear_end + self.end;
        match (is_zero_end(end), self.complexity < -end.abs()) {
            (true, _) => (1.0, 0.0),
            (false, true) => (0.0, 0.0),
            (false, false) => (1.0, end.signum()),
        }
    }
}

/// Per position, what its sums give: the addition always; the endgame part and the
/// complexity only where some term is a complexity (without one, [`Added::with`] and the
/// derivatives read neither: 8 bytes a position, not 24).
#[derive(Clone, Debug, Default)]
pub(super) struct AddedList {
    all: Vec<f64>,
    /// Per position its endgame part and complexity; empty without a complexity.
    rest: Vec<[f64; 2]>,
    complexity: bool,
}

impl AddedList {
    /// `n` positions whose sums give nothing, kept whole where a term is a `complexity`.
    pub(super) fn zeros(n: usize, complexity: bool) -> AddedList {
        AddedList {
            all: vec![0.0; n],
            rest: if complexity {
                vec![[0.0; 2]; n]
            } else {
                Vec::new()
            },
            complexity,
        }
    }

    /// Sets every position's to `f(position)`, on any thread.
    pub(super) fn set_each(&mut self, f: impl Fn(usize) -> Added + Sync) {
        let all = self.all.par_iter_mut().enumerate().with_min_len(4096);
        match self.complexity {
            false => all.for_each(|(i, all)| *all = f(i).all),
            true => (all.zip(self.rest.par_iter_mut())).for_each(|((i, all), rest)| {
                let a = f(i);
                (*all, *rest) = (a.all, [a.end, a.complexity]);
            }),
        }
    }

    /// Positions.
    pub(super) fn len(&self) -> usize {
        self.all.len()
    }

    /// Position `i`'s (nothing past the last).
    #[inline]
    pub(super) fn get(&self, i: usize) -> Added {
        let Some(&all) = self.all.get(i) else {
            return Added::default();
        };
        let [end, complexity] = self.rest.get(i).copied().unwrap_or_default();
        Added {
            all,
            end,
            complexity,
        }
    }

    /// Sets position `i`'s.
    pub(super) fn set(&mut self, i: usize, added: Added) {
        self.all[i] = added.all;
        if self.complexity {
            self.rest[i] = [added.end, added.complexity];
        }
    }

    /// Appends a position's.
    pub(super) fn push(&mut self, added: Added) {
        self.all.push(added.all);
        if self.complexity {
            self.rest.push([added.end, added.complexity]);
        }
    }

    /// Appends `other`'s positions, these and those being `share.0` of `share.1` positions
    /// (see [`extend_toward`]).
    pub(super) fn extend(&mut self, other: AddedList, share: (usize, usize)) {
        extend_toward(&mut self.all, share, other.all.into_iter());
        extend_toward(&mut self.rest, share, other.rest.into_iter());
    }

    /// Gives back the room no position filled.
    pub(super) fn shrink_to_fit(&mut self) {
        self.all.shrink_to_fit();
        self.rest.shrink_to_fit();
    }

    /// Bytes held.
    pub(super) fn memory_bytes(&self) -> usize {
        8 * self.all.capacity() + 16 * self.rest.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::{Added, AddedList};

    #[test]
    fn without_a_complexity_only_the_addition_is_kept() {
        let one = Added {
            all: 3.0,
            end: -2.0,
            complexity: 5.0,
        };
        let mut plain = AddedList::zeros(2, false);
        plain.set(1, one);
        plain.push(one);
        plain.shrink_to_fit();
        assert_eq!((plain.len(), plain.memory_bytes()), (3, 8 * 3));
        let kept = Added {
            all: 3.0,
            ..Added::default()
        };
        assert_eq!(
            [plain.get(0), plain.get(1), plain.get(2)],
            [Added::default(), kept, kept]
        );
        let mut whole = AddedList::zeros(1, true);
        whole.set(0, one);
        let mut more = AddedList::zeros(2, true);
        more.set_each(|i| [one, kept][i]);
        whole.extend(more, (3, 3));
        assert_eq!([whole.get(0), whole.get(1), whole.get(2)], [one, one, kept]);
        assert_eq!(whole.get(3), Added::default());
    }
}
