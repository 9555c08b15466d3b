//! Curves: families of values that formulas compute from a few parameters, indexed by a
//! small integer (a mobility count, a passer's king distances).
//!
//! A term that adds `count × curve(index)` is not linear in its parameters, but it is linear
//! in the curve's values: the trace records the count per (curve, index), so the tuner can
//! recompute the curve for trial parameters and move only the positions whose indices
//! changed, without the board. The formula of each curve lives here, once.

use crate::params::{Handle as _, Params, SParam, TermId};
use crate::table::*;
use crate::S;

/// A family of formula values.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Curve {
    /// Knight mobility score by number of safe moves (0-8).
    KnightMobility,
    /// Bishop mobility score by number of safe moves (0-13).
    BishopMobility,
    /// Rook mobility score by number of safe moves (0-14).
    RookMobility,
    /// Queen mobility score by number of safe moves (0-27).
    QueenMobility,
    /// Passed-pawn king distances: index `(own × 8 + enemy) × 6 + squares to promotion − 1`.
    PasserKings,
    /// Candidate passer with its nearest sentry at most two ranks ahead: index
    /// `(rank − 2) × 4 + file centralness`.
    CandidateNear,
    /// Candidate passer with its sentries further ahead (same index).
    CandidateFar,
    /// A passed-pawn term against lone rooks, times `PP_V_ROOK_MULT` / 100: index of the
    /// term's element in [`passer_element`].
    RookPasser,
    /// [`Curve::PasserKings`] against lone rooks, times `PP_V_ROOK_MULT` / 100 (same index).
    RookPasserKings,
}

/// Number of linear passed-pawn elements that the rook multiplier scales.
const PASSER_ELEMENTS: usize = 32;

/// The linear passed-pawn element behind [`Curve::RookPasser`] index `i`: rank, file,
/// covered advance, covered path, free push, free path, connected, hanging.
pub fn passer_element(i: usize) -> SParam {
    match i {
        0..6 => PP_PASSED_RANK.at(i),
        6..10 => PP_PASSED_FILE.at(i - 6),
        10..14 => PP_COVERED_ADVANCE.at(i - 10),
        14..18 => PP_COVERED_ADVANCE_PATH.at(i - 14),
        18..22 => PP_FREE_PUSH.at(i - 18),
        22..26 => PP_FREE_ADVANCE_PATH.at(i - 22),
        26..30 => PP_CONNECTED.at(i - 26),
        _ => PP_HANGING.at(i - 30),
    }
}

/// The [`Curve::RookPasser`] index of a linear passed-pawn element.
///
/// # Panics
/// When `p` is not one of the elements of [`passer_element`].
pub fn passer_index(p: SParam) -> usize {
    (0..PASSER_ELEMENTS)
        .find(|&i| passer_element(i) == p)
        .expect("a passed-pawn element")
}

/// Maximum safe moves of each piece kind, knight to queen.
const MOST_MOVES: [usize; 4] = [8, 13, 14, 27];

impl Curve {
    /// Every curve, in slot order.
    pub const ALL: [Curve; 9] = [
        Curve::KnightMobility,
        Curve::BishopMobility,
        Curve::RookMobility,
        Curve::QueenMobility,
        Curve::PasserKings,
        Curve::CandidateNear,
        Curve::CandidateFar,
        Curve::RookPasser,
        Curve::RookPasserKings,
    ];

    /// Number of indices.
    pub const fn len(self) -> usize {
        match self {
            Curve::KnightMobility => MOST_MOVES[0] + 1,
            Curve::BishopMobility => MOST_MOVES[1] + 1,
            Curve::RookMobility => MOST_MOVES[2] + 1,
            Curve::QueenMobility => MOST_MOVES[3] + 1,
            Curve::PasserKings | Curve::RookPasserKings => 8 * 8 * 6,
            Curve::CandidateNear | Curve::CandidateFar => 6 * 4,
            Curve::RookPasser => PASSER_ELEMENTS,
        }
    }

    /// Whether the curve has no index (never: every curve has values).
    pub const fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The mobility curve of a piece kind (knight 0 to queen 3).
    pub const fn mobility(kind: usize) -> Curve {
        [
            Curve::KnightMobility,
            Curve::BishopMobility,
            Curve::RookMobility,
            Curve::QueenMobility,
        ][kind]
    }

    /// The first derived slot of this curve; slots of all curves follow one another.
    #[inline]
    pub const fn first_slot(self) -> usize {
        let mut first = 0;
        let mut i = 0;
        while i < Curve::ALL.len() {
            if Curve::ALL[i] as usize == self as usize {
                break;
            }
            first += Curve::ALL[i].len();
            i += 1;
        }
        first
    }

    /// The term a curve's contribution is shown under.
    pub fn label(self) -> TermId {
        match self {
            Curve::KnightMobility => KNIGHT_MOB_MIN.term(),
            Curve::BishopMobility => BISHOP_MOB_MIN.term(),
            Curve::RookMobility => ROOK_MOB_MIN.term(),
            Curve::QueenMobility => QUEEN_MOB_MIN.term(),
            Curve::PasserKings => PP_KING_DIST.term(),
            Curve::CandidateNear => PP_CANDIDATE_NEAR_MULT.term(),
            Curve::CandidateFar => PP_CANDIDATE_FAR_MULT.term(),
            Curve::RookPasser | Curve::RookPasserKings => PP_V_ROOK_MULT.term(),
        }
    }

    /// The value at `index`, reading parameters through `read`.
    ///
    /// Mobility: `MIN + (MAX − MIN) · m(100 + c) / (100·M + c·m)` for `m` safe moves out of
    /// at most `M`, each half with its curve factor `c` clamped to -99..=1000 (monotonic).
    /// Passer kings: `(PP_KING_DIST[own] + PP_O_KING_DIST[enemy]) · PP_PROMO_DIST[d] / 128`.
    /// Candidates: `(PP_PASSED_RANK[r] + PP_PASSED_FILE[f]) · MULT / 100`.
    /// Against lone rooks: the passed-pawn value · `PP_V_ROOK_MULT` / 100.
    #[inline(always)]
    pub fn value_with(self, index: usize, mut read: impl FnMut(SParam) -> S) -> S {
        match self {
            Curve::KnightMobility
            | Curve::BishopMobility
            | Curve::RookMobility
            | Curve::QueenMobility => {
                let (lo, hi, bend, kind) = match self {
                    Curve::KnightMobility => {
                        (KNIGHT_MOB_MIN, KNIGHT_MOB_MAX, KNIGHT_MOB_CURVE_FACTOR, 0)
                    }
                    Curve::BishopMobility => {
                        (BISHOP_MOB_MIN, BISHOP_MOB_MAX, BISHOP_MOB_CURVE_FACTOR, 1)
                    }
                    Curve::RookMobility => (ROOK_MOB_MIN, ROOK_MOB_MAX, ROOK_MOB_CURVE_FACTOR, 2),
                    _ => (QUEEN_MOB_MIN, QUEEN_MOB_MAX, QUEEN_MOB_CURVE_FACTOR, 3),
                };
                let (l, h, b) = (read(lo), read(hi), read(bend));
                let (m, most) = (index as i32, MOST_MOVES[kind] as i32);
                let curve = |l: i32, h: i32, c: i32| {
                    let c = c.clamp(-99, 1000);
                    l + (h - l) * m * (100 + c) / (100 * most + c * m)
                };
                S(curve(l.0, h.0, b.0), curve(l.1, h.1, b.1))
            }
            Curve::PasserKings => passer_kings(index, &mut read),
            Curve::CandidateNear | Curve::CandidateFar => {
                let mult = if self == Curve::CandidateNear {
                    PP_CANDIDATE_NEAR_MULT
                } else {
                    PP_CANDIDATE_FAR_MULT
                };
                let base = read(PP_PASSED_RANK.at(index / 4)) + read(PP_PASSED_FILE.at(index % 4));
                let m = read(mult);
                S(scaled(base.0, m.0, 100), scaled(base.1, m.1, 100))
            }
            Curve::RookPasser | Curve::RookPasserKings => {
                let base = match self {
                    Curve::RookPasser => read(passer_element(index)),
                    _ => passer_kings(index, &mut read),
                };
                let m = read(PP_V_ROOK_MULT);
                S(scaled(base.0, m.0, 100), scaled(base.1, m.1, 100))
            }
        }
    }

    /// The value at `index` under `params`.
    #[inline(always)]
    pub fn value(self, params: &Params, index: usize) -> S {
        self.value_with(index, |p| params.get(p))
    }

    /// The parameters the value at `index` reads.
    pub fn inputs(self, index: usize) -> Vec<SParam> {
        let mut read = Vec::new();
        self.value_with(index, |p| {
            read.push(p);
            S::ZERO
        });
        read
    }
}

/// `(PP_KING_DIST[own] + PP_O_KING_DIST[enemy]) · PP_PROMO_DIST[d] / 128` for the index
/// `(own × 8 + enemy) × 6 + d`.
fn passer_kings(index: usize, read: &mut impl FnMut(SParam) -> S) -> S {
    let (own, enemy, promo) = (index / 48, index / 6 % 8, index % 6);
    let kings = read(PP_KING_DIST.at(own)) + read(PP_O_KING_DIST.at(enemy));
    let weight = read(PP_PROMO_DIST.at(promo));
    S(
        scaled(kings.0, weight.0, 128),
        scaled(kings.1, weight.1, 128),
    )
}

/// The largest magnitude of a derived value: products of two parameters near their bound
/// are held here instead of overflowing (no table within reason comes near it).
const DERIVED_LIMIT: i64 = 1_000_000;

/// `a · b / d` (rounded toward zero, as integer division is), held within
/// ±[`DERIVED_LIMIT`].
fn scaled(a: i32, b: i32, d: i32) -> i32 {
    (i64::from(a) * i64::from(b) / i64::from(d)).clamp(-DERIVED_LIMIT, DERIVED_LIMIT) as i32
}

/// Number of derived slots: all indices of all curves.
pub const fn slot_count() -> usize {
    let (mut n, mut i) = (0, 0);
    while i < Curve::ALL.len() {
        n += Curve::ALL[i].len();
        i += 1;
    }
    n
}

/// The curve and index of a derived slot.
pub fn slot_curve(slot: usize) -> (Curve, usize) {
    let mut first = 0;
    for c in Curve::ALL {
        if slot < first + c.len() {
            return (c, slot - first);
        }
        first += c.len();
    }
    panic!("derived slot {slot} out of range")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_map_back_to_curves() {
        for c in Curve::ALL {
            for i in [0, c.len() - 1] {
                assert_eq!(slot_curve(c.first_slot() + i), (c, i));
            }
        }
        assert_eq!(slot_count(), Curve::RookPasserKings.first_slot() + 384);
        for i in 0..PASSER_ELEMENTS {
            assert_eq!(passer_index(passer_element(i)), i);
        }
    }

    #[test]
    fn mobility_runs_from_min_to_max() {
        let p = Params::default();
        assert_eq!(Curve::KnightMobility.value(&p, 0), p.get(KNIGHT_MOB_MIN));
        assert_eq!(Curve::KnightMobility.value(&p, 8), p.get(KNIGHT_MOB_MAX));
        assert_eq!(Curve::QueenMobility.inputs(5).len(), 3);
    }

    #[test]
    fn passer_king_index_reads_its_three_entries() {
        let index = (2 * 8 + 5) * 6 + 3;
        let inputs = Curve::PasserKings.inputs(index);
        assert_eq!(
            inputs,
            vec![
                PP_KING_DIST.at(2),
                PP_O_KING_DIST.at(5),
                PP_PROMO_DIST.at(3)
            ]
        );
    }
}
