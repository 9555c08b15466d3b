//! Backwardness varieties (`BackwardV`): pawns whose advance is held by enemy pawns, told
//! apart by how many enemy pawns hold the square (`att`), how many own pawns cover it now
//! (`def`) and whether own pawns further back could still come up (`later`).

use super::super::{bits::*, Info};
use super::{enemy_pawn_attackers, own_pawn_attackers};
use crate::accumulate::Accumulator;
use crate::table::*;
use shakmaty::{Bitboard, Color, Square};

/// How a pawn's advance is held.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Backwardness {
    /// One enemy pawn holds the stop square, no own pawn covers it or can come up.
    Full,
    /// One enemy pawn holds it, an own pawn covers it.
    Semi,
    /// Two enemy pawns hold it, no own pawn covers it or can come up.
    Fated,
    /// Two enemy pawns hold it, an own pawn covers it.
    SemiFated,
    /// One enemy pawn holds it, none covers it, but an own pawn behind can come up.
    Potential,
    /// The first held square is `d` (2 to 4) squares ahead, the way there free, held by
    /// enemy pawns that are rammed (cannot advance out of the way).
    Distant(usize),
}

/// The backwardness of the pawn of `us` on `sq`, if any.
pub(super) fn backwardness(info: &Info, us: Color, sq: Square) -> Option<Backwardness> {
    let own = info.pawns[us as usize];
    let later = any(ahead(us.other(), sq) & adjacent_files(sq) & own);
    let mut at = sq;
    for d in 1..=4 {
        at = at.offset(if us.is_white() { 8 } else { -8 })?;
        let attackers = enemy_pawn_attackers(info, us, at);
        let att = count(attackers);
        // A square further ahead is held for good only by enemy pawns that cannot advance.
        let held_for_good = (attackers & !info.rammed[us.other() as usize]).is_empty();
        if att == 0 || (d > 1 && !held_for_good) {
            if info.occupied.contains(at) {
                return None;
            }
            continue;
        }
        let def = count(own_pawn_attackers(info, us, at));
        return match (d, att, def, later) {
            (1, 1, 0, false) => Some(Backwardness::Full),
            (1, 1, 0, true) => Some(Backwardness::Potential),
            (1, 1, _, _) => Some(Backwardness::Semi),
            (1, _, 0, false) => Some(Backwardness::Fated),
            (1, _, 0, true) => None,
            (1, _, _, _) => Some(Backwardness::SemiFated),
            (d, _, 0, false) => Some(Backwardness::Distant(d)),
            _ => None,
        };
    }
    None
}

/// The pawns of `us` that are [`Backwardness::Full`], found once per evaluation (three
/// families ask).
pub(super) fn fully_backward(info: &Info, us: Color) -> Bitboard {
    let sides = info.fully_backward.get_or_init(|| {
        [Color::Black, Color::White].map(|c| {
            (info.pawns[c as usize].into_iter())
                .filter(|&sq| backwardness(info, c, sq) == Some(Backwardness::Full))
                .fold(Bitboard::EMPTY, |b, sq| b | Bitboard::from(sq))
        })
    });
    sides[us as usize]
}

pub(super) fn evaluate<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    for sq in info.pawns[us as usize] {
        let r = rel_rank(us, sq);
        if !(1..=4).contains(&r) {
            continue;
        }
        let i = r - 1;
        match backwardness(info, us, sq) {
            Some(Backwardness::Full) => acc.add(us, PAWN_BACKWARD_FULL.at(i), 1),
            Some(Backwardness::Semi) if i < 2 => acc.add(us, PAWN_SEMI_BACKWARD.at(i), 1),
            Some(Backwardness::Fated) => acc.add(us, PAWN_BACKWARD_FATED.at(i), 1),
            Some(Backwardness::SemiFated) => acc.add(us, PAWN_SEMI_BACKWARD_FATED.at(i), 1),
            Some(Backwardness::Potential) => acc.add(us, PAWN_POTENTIALLY_BACKWARD.at(i), 1),
            Some(Backwardness::Distant(d)) => acc.add(us, PAWN_BACKWARD_DISTANT.at(d - 2), 1),
            _ => {}
        }
    }
    stop_square_pressure(info, us, acc);
}

/// Our pieces attacking or standing on the stop square of an enemy fully backward pawn.
fn stop_square_pressure<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let them = us.other();
    let pieces = info.board.by_color(us) & !info.board.pawns() & !info.board.kings();
    for sq in fully_backward(info, them) {
        let Some(stop) = forward(them, Bitboard::from(sq)).first() else {
            continue;
        };
        let attackers = super::piece_attackers(info, us, stop);
        if attackers > 0 {
            acc.add(us, STOP_SQUARE_PRESSURE.at(0), attackers);
        }
        if pieces.contains(stop) {
            acc.add(us, STOP_SQUARE_PRESSURE.at(1), 1);
        }
    }
}
