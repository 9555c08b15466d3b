//! Typed handles to the parameters of the table.
//!
//! The table declares one constant handle per term (`BISHOP_PAIR`, `KNIGHT_OUTPOST`, ...).
//! A handle knows its term and where the term's values start in the flat vector, so
//! reading it is one indexed load: no string look-up ever happens during evaluation.

use super::{Params, Shape, TermId};
use crate::S;

/// What every handle can do, whatever its shape.
pub trait Handle: Copy {
    /// The shape this handle type stands for.
    const SHAPE: Shape;
    /// Number of flat slots (integers) the term occupies.
    const SLOTS: usize;
    /// The Rust value of the whole term (`S`, `[S; N]`, `i32` or `[i32; N]`).
    type Value: Copy;
    /// The term this handle belongs to.
    fn term(self) -> TermId;
    /// Reads the whole term.
    fn get(self, params: &Params) -> Self::Value;
    /// Writes the whole term.
    fn set(self, params: &mut Params, value: Self::Value);
}

/// One tapered value: a middlegame and an endgame slot.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SParam {
    pub(crate) term: u16,
    pub(crate) offset: u16,
}

/// One untapered integer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct IParam {
    pub(crate) term: u16,
    pub(crate) offset: u16,
}

/// An array of `N` tapered values; [`SArray::at`] picks one.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SArray<const N: usize> {
    term: u16,
    offset: u16,
}

/// An array of `N` untapered integers; [`IArray::at`] picks one.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct IArray<const N: usize> {
    term: u16,
    offset: u16,
}

impl SParam {
    /// A handle for the term `term` whose slots start at `offset`.
    pub const fn new(term: u16, offset: usize) -> SParam {
        SParam {
            term,
            offset: offset as u16,
        }
    }

    /// The flat index of the middlegame slot (the endgame slot follows it).
    pub const fn flat_index(self) -> usize {
        self.offset as usize
    }
}

impl IParam {
    /// A handle for the term `term` whose slot is `offset`.
    pub const fn new(term: u16, offset: usize) -> IParam {
        IParam {
            term,
            offset: offset as u16,
        }
    }

    /// The flat index of the slot.
    pub const fn flat_index(self) -> usize {
        self.offset as usize
    }
}

impl<const N: usize> SArray<N> {
    /// A handle for the term `term` whose slots start at `offset`.
    pub const fn new(term: u16, offset: usize) -> Self {
        SArray {
            term,
            offset: offset as u16,
        }
    }

    /// The element at `index`.
    ///
    /// # Panics
    /// In debug builds, when `index >= N`.
    #[inline]
    pub fn at(self, index: usize) -> SParam {
        debug_assert!(index < N, "index {index} out of {N}");
        SParam {
            term: self.term,
            offset: self.offset + 2 * index as u16,
        }
    }

    /// The element at `index`, clamped to the last element.
    #[inline]
    pub fn at_most(self, index: usize) -> SParam {
        self.at(index.min(N - 1))
    }
}

impl<const N: usize> IArray<N> {
    /// A handle for the term `term` whose slots start at `offset`.
    pub const fn new(term: u16, offset: usize) -> Self {
        IArray {
            term,
            offset: offset as u16,
        }
    }

    /// The element at `index`.
    ///
    /// # Panics
    /// In debug builds, when `index >= N`.
    #[inline]
    pub fn at(self, index: usize) -> IParam {
        debug_assert!(index < N, "index {index} out of {N}");
        IParam {
            term: self.term,
            offset: self.offset + index as u16,
        }
    }

    /// The element at `index`, clamped to the last element.
    #[inline]
    pub fn at_most(self, index: usize) -> IParam {
        self.at(index.min(N - 1))
    }
}

impl Handle for SParam {
    const SHAPE: Shape = Shape::Score;
    const SLOTS: usize = 2;
    type Value = S;
    fn term(self) -> TermId {
        TermId(self.term)
    }
    #[inline]
    fn get(self, p: &Params) -> S {
        p.score_at(self.offset as usize)
    }
    fn set(self, p: &mut Params, v: S) {
        p.set_flat(self.offset as usize, v.0);
        p.set_flat(self.offset as usize + 1, v.1);
    }
}

impl Handle for IParam {
    const SHAPE: Shape = Shape::Int;
    const SLOTS: usize = 1;
    type Value = i32;
    fn term(self) -> TermId {
        TermId(self.term)
    }
    #[inline]
    fn get(self, p: &Params) -> i32 {
        p.flat()[self.offset as usize]
    }
    fn set(self, p: &mut Params, v: i32) {
        p.set_flat(self.offset as usize, v);
    }
}

impl<const N: usize> Handle for SArray<N> {
    const SHAPE: Shape = Shape::ScoreArray(N);
    const SLOTS: usize = 2 * N;
    type Value = [S; N];
    fn term(self) -> TermId {
        TermId(self.term)
    }
    fn get(self, p: &Params) -> [S; N] {
        std::array::from_fn(|i| self.at(i).get(p))
    }
    fn set(self, p: &mut Params, v: [S; N]) {
        for (i, s) in v.into_iter().enumerate() {
            self.at(i).set(p, s);
        }
    }
}

impl<const N: usize> Handle for IArray<N> {
    const SHAPE: Shape = Shape::IntArray(N);
    const SLOTS: usize = N;
    type Value = [i32; N];
    fn term(self) -> TermId {
        TermId(self.term)
    }
    fn get(self, p: &Params) -> [i32; N] {
        std::array::from_fn(|i| self.at(i).get(p))
    }
    fn set(self, p: &mut Params, v: [i32; N]) {
        for (i, x) in v.into_iter().enumerate() {
            self.at(i).set(p, x);
        }
    }
}
