//! PawnV and the pawn terms of CoordV: the structure of one side's pawns.

use super::{add_each, bits::*, Info};
use crate::accumulate::Accumulator;
use crate::table::*;
use shakmaty::{Bitboard, Color};

pub(super) fn evaluate<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let them = us.other();
    let (own, theirs) = (info.pawns[us as usize], info.pawns[them as usize]);
    let their_attacks = info.attacked_by(them, shakmaty::Role::Pawn);
    // The structure as sets of own pawns.
    let supported = own & pawn_attacks(us, own);
    let supported_twice = own & pawn_double_attacks(us, own);
    let connected = supported | (own & beside(own));
    let isolated = isolated(own);
    // A helper on a neighbouring file level with or behind the pawn.
    let helped = beside(fill_forward(us, own));
    let held_back = own & !isolated & !helped & backward(us, their_attacks);
    let open = own & !front_spans(them, theirs);
    let doubled = own & front_spans(them, own);
    let blocked = own & backward(us, info.board.by_color(us) & !own);

    add_each(acc, us, PAWN_SUPPORTED.at(0), supported & !supported_twice);
    add_each(acc, us, PAWN_SUPPORTED.at(1), supported_twice);
    for (i, files) in FILES_BY_CENTRALNESS.into_iter().enumerate() {
        let group = files_bb(files);
        add_each(acc, us, PAWN_ISOLATED.at(i), isolated & group);
        add_each(acc, us, PAWN_BACKWARD.at(i), held_back & group);
        add_each(acc, us, PAWN_CONNECTED_FILE.at(i), connected & group);
    }
    add_each(acc, us, PAWN_UNCONNECTED_OPEN_FILE, own & !connected & open);
    add_each(
        acc,
        us,
        PAWN_UNCONNECTED_CLOSED_FILE,
        own & !connected & !open,
    );
    add_each(acc, us, PAWN_WEAK_OPEN_FILE, (isolated | held_back) & open);
    add_each(acc, us, PAWN_DOUBLED, doubled);
    for rank in 1..=6 {
        let on_rank = connected & rel_rank_bb(us, rank);
        add_each(acc, us, PAWN_CONNECTED_RANK.at(rank - 1), on_rank);
        let open_rank = PAWN_CONNECTED_OPEN_RANK.at(rank.max(3) - 3);
        add_each(acc, us, open_rank, on_rank & open);
    }
    let push_double_covered = backward(us, pawn_double_attacks(them, theirs));
    add_each(acc, us, PAWN_PUSH_DOUBLE_COVERED, own & push_double_covered);
    let center = Bitboard(FILES[3] | FILES[4]);
    add_each(acc, us, PAWN_BLOCKED_BY_PIECE_CENTER, blocked & center);
    add_each(acc, us, PAWN_BLOCKED_BY_PIECE, blocked & !center);
    let mut behind = backward(us, own);
    for _ in 0..5 {
        behind |= backward(us, behind);
    }
    let zone = (rel_rank_bb(us, 1) | rel_rank_bb(us, 2) | rel_rank_bb(us, 3))
        & Bitboard(FILES[2] | FILES[3] | FILES[4] | FILES[5]);
    let space = behind & zone & !info.occupied & !their_attacks;
    acc.add(us, OUR_SIDE_SAFE_MOVE, count(space));
}
