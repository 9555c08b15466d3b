//! The transposition table: one entry per slot, always replaced unless a deeper entry of
//! the same position is there.

use shakmaty::Move;

/// What a stored score says about the true score.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The score is exact.
    Exact,
    /// The true score is at least this (a beta cut-off).
    Lower,
    /// The true score is at most this (no move reached alpha).
    Upper,
}

/// A move stored compactly: from, to and promotion piece.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct PackedMove(u16);

impl PackedMove {
    /// Packs a move (castling as king from → rook square, as shakmaty writes it).
    pub fn new(m: &Move) -> PackedMove {
        let from = m.from().map_or(0, |s| s as u16);
        let promo = m.promotion().map_or(0, |r| r as u16);
        PackedMove(1 << 15 | from | (m.to() as u16) << 6 | promo << 12)
    }

    /// Whether `m` is this move.
    pub fn matches(self, m: &Move) -> bool {
        self.0 != 0 && PackedMove::new(m) == self
    }

    /// Whether a move is stored.
    pub fn is_some(self) -> bool {
        self.0 != 0
    }
}

/// One stored search result.
#[derive(Copy, Clone, Debug, Default)]
pub struct Entry {
    key: u64,
    /// Best or refuting move.
    pub best: PackedMove,
    /// Score (mate scores relative to this node).
    pub score: i32,
    /// Depth searched.
    pub depth: i16,
    bound: u8,
}

impl Entry {
    /// The bound of the score.
    pub fn bound(&self) -> Bound {
        match self.bound {
            0 => Bound::Exact,
            1 => Bound::Lower,
            _ => Bound::Upper,
        }
    }
}

/// A table of `2^n` entries.
pub struct Table {
    entries: Vec<Entry>,
    mask: usize,
}

impl Table {
    /// A table of about `mb` megabytes (a single entry for 0).
    pub fn new(mb: usize) -> Table {
        let wanted = ((mb << 20) / std::mem::size_of::<Entry>()).max(1);
        let size = wanted.next_power_of_two() / if wanted.is_power_of_two() { 1 } else { 2 };
        Table {
            entries: vec![Entry::default(); size.max(1)],
            mask: size.max(1) - 1,
        }
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.entries.fill(Entry::default());
    }

    /// The entry of `key`, if stored.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let e = self.entries[key as usize & self.mask];
        (e.key == key && key != 0).then_some(e)
    }

    /// Stores a result; a deeper result of the same position is kept.
    pub fn store(&mut self, key: u64, best: PackedMove, score: i32, depth: i32, bound: Bound) {
        let slot = &mut self.entries[key as usize & self.mask];
        if slot.key == key && i32::from(slot.depth) > depth && bound != Bound::Exact {
            return;
        }
        let best = if best.is_some() || slot.key != key {
            best
        } else {
            slot.best
        };
        let bound = match bound {
            Bound::Exact => 0,
            Bound::Lower => 1,
            Bound::Upper => 2,
        };
        *slot = Entry {
            key,
            best,
            score,
            depth: depth as i16,
            bound,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position};

    #[test]
    fn stores_and_finds_moves() {
        let mut t = Table::new(1);
        let pos = Chess::default();
        let m = pos.legal_moves()[3];
        t.store(42, PackedMove::new(&m), 17, 5, Bound::Lower);
        let e = t.probe(42).unwrap();
        assert!(e.best.matches(&m));
        assert_eq!((e.score, e.depth, e.bound()), (17, 5, Bound::Lower));
        assert!(t.probe(43).is_none());
        t.store(42, PackedMove::default(), 3, 2, Bound::Upper);
        assert_eq!(t.probe(42).unwrap().score, 17, "the deeper entry stays");
    }
}
