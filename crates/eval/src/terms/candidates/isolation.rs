//! Isolated and doubled variants (`IsolationV`): vertical isolation, the width of the gap
//! to the nearest own pawn, fixed isolated pawns, doubled files by count and immobilised
//! doubled pawns.

use super::super::{add_each, bits::*, Info};
use crate::accumulate::Accumulator;
use crate::table::*;
use shakmaty::{Bitboard, Color, Square};

pub(super) fn evaluate<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let own = info.pawns[us as usize];
    let theirs = info.pawns[us.other() as usize];
    let isolated = isolated(own);
    let detached = own & !isolated & !neighbours(own);
    add_each(acc, us, PAWN_DETACHED, detached);
    for sq in isolated | detached {
        let others = own & !Bitboard::from(sq);
        if let Some(gap) = isolation_gap(sq, others, isolated.contains(sq)) {
            acc.add(us, PAWN_ISOLATION_GAP, gap);
        }
    }
    let fixed = isolated & backward(us, theirs);
    let second = rel_rank_bb(us, 1);
    add_each(acc, us, PAWN_ISOLATED_FIXED.at(0), fixed & second);
    add_each(acc, us, PAWN_ISOLATED_FIXED.at(1), fixed & !second);
    for file in FILES {
        let on_file = own & Bitboard(file);
        let n = count(on_file);
        if n < 2 {
            continue;
        }
        acc.add(us, PAWN_DOUBLED_FILE.at_most(n as usize - 2), 1);
        doubled_fixed(info, us, on_file, acc);
    }
}

/// Whole files (isolated pawn) or ranks (detached pawn) between the pawn on `sq` and the
/// nearest other own pawn; `None` when it has none, or the gap is empty.
fn isolation_gap(sq: Square, others: Bitboard, isolated: bool) -> Option<i32> {
    let gap = if isolated {
        others
            .into_iter()
            .map(|o| (o.file() as i32 - sq.file() as i32).abs() - 1)
            .min()?
    } else {
        (others & adjacent_files(sq))
            .into_iter()
            .map(|o| (o.rank() as i32 - sq.rank() as i32).abs() - 1)
            .min()?
    };
    (gap > 0).then_some(gap)
}

/// A doubled file whose front pawn is rammed: the immobilised pair, the relief of an own
/// pawn on a neighbouring file further back, and the enemy's bonus for the ram.
fn doubled_fixed<A: Accumulator>(info: &Info, us: Color, on_file: Bitboard, acc: &mut A) {
    let own = info.pawns[us as usize];
    let theirs = info.pawns[us.other() as usize];
    let front = if us.is_white() {
        on_file.last()
    } else {
        on_file.first()
    };
    let Some(front) = front else {
        return;
    };
    if !any(forward(us, Bitboard::from(front)) & theirs) {
        return;
    }
    acc.add(us, PAWN_DOUBLED_FIXED.at(0), 1);
    acc.add_if(
        us,
        PAWN_DOUBLED_FIXED.at(1),
        any(ahead(us.other(), front) & adjacent_files(front) & own),
    );
    acc.add(us.other(), PAWN_DOUBLED_FIXED.at(2), 1);
}
