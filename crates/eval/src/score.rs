//! The tapered score `S(mid, end)`, the game phase and the one tapering function.

use std::fmt;
use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// A score with a middlegame and an endgame component, in centipawns.
///
/// Every tapered evaluation term is an `S`; the two halves are blended by [`taper`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct S(pub i32, pub i32);

impl S {
    /// The zero score.
    pub const ZERO: S = S(0, 0);

    /// The middlegame component.
    #[inline]
    pub const fn mid(self) -> i32 {
        self.0
    }

    /// The endgame component.
    #[inline]
    pub const fn end(self) -> i32 {
        self.1
    }
}

impl fmt::Display for S {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "S({}, {})", self.0, self.1)
    }
}

impl Add for S {
    type Output = S;
    #[inline]
    fn add(self, o: S) -> S {
        S(self.0 + o.0, self.1 + o.1)
    }
}

impl AddAssign for S {
    #[inline]
    fn add_assign(&mut self, o: S) {
        self.0 += o.0;
        self.1 += o.1;
    }
}

impl Sub for S {
    type Output = S;
    #[inline]
    fn sub(self, o: S) -> S {
        S(self.0 - o.0, self.1 - o.1)
    }
}

impl SubAssign for S {
    #[inline]
    fn sub_assign(&mut self, o: S) {
        self.0 -= o.0;
        self.1 -= o.1;
    }
}

impl Neg for S {
    type Output = S;
    #[inline]
    fn neg(self) -> S {
        S(-self.0, -self.1)
    }
}

impl Mul<i32> for S {
    type Output = S;
    #[inline]
    fn mul(self, k: i32) -> S {
        S(self.0 * k, self.1 * k)
    }
}

/// The phase of a position with all pieces on the board.
pub const MAX_PHASE: i32 = 24;

/// The full scale: an endgame score is multiplied by `scale / FULL_SCALE`.
pub const FULL_SCALE: i32 = 100;

/// Weight of each role in the game phase (pawn, knight, bishop, rook, queen, king).
const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];

/// Game phase from non-pawn material: knight and bishop 1, rook 2, queen 4, so the
/// starting position is [`MAX_PHASE`] and a pawn ending is 0. Promoted extra pieces are
/// capped at [`MAX_PHASE`].
pub fn phase(board: &shakmaty::Board) -> i32 {
    use shakmaty::Role;
    let p: i32 = Role::ALL
        .iter()
        .map(|&r| PHASE_WEIGHT[r as usize - 1] * board.by_role(r).count() as i32)
        .sum();
    p.min(MAX_PHASE)
}

/// Blend a score into centipawns: the middlegame part weighs `phase / 24`, the endgame part
/// `(24 - phase) / 24` and is first multiplied by `scale / 100`. Rounds toward zero.
///
/// This is the only place where the two halves of a score meet.
#[inline]
pub fn taper(score: S, phase: i32, scale: i32) -> i32 {
    let mid = i64::from(score.0) * i64::from(phase) * i64::from(FULL_SCALE);
    let end = i64::from(score.1) * i64::from(MAX_PHASE - phase) * i64::from(scale);
    ((mid + end) / i64::from(MAX_PHASE * FULL_SCALE)) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_prints_both_halves() {
        assert_eq!(S(12, -3).to_string(), "S(12, -3)");
    }

    #[test]
    fn taper_blends_by_phase_and_scales_the_endgame() {
        assert_eq!(taper(S(100, 200), MAX_PHASE, 100), 100);
        assert_eq!(taper(S(100, 200), 0, 100), 200);
        assert_eq!(taper(S(100, 200), 0, 50), 100);
        assert_eq!(taper(S(100, 200), 12, 100), 150);
        assert_eq!(taper(S(-100, -200), 12, 100), -150);
    }

    #[test]
    fn phase_counts_non_pawn_material() {
        assert_eq!(phase(&shakmaty::Board::new()), MAX_PHASE);
        let kpk: shakmaty::Board = "8/8/8/4k3/8/8/4P3/4K3".parse().unwrap();
        assert_eq!(phase(&kpk), 0);
        let krk: shakmaty::Board = "8/8/8/4k3/8/8/4R3/4K3".parse().unwrap();
        assert_eq!(phase(&krk), 2);
    }
}
