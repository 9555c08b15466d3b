//! PawnV and the pawn terms of CoordV: the structure of one side's pawns.

use super::{bits::*, Info};
use crate::accumulate::Accumulator;
use crate::table::*;
use shakmaty::{Bitboard, Color};

pub(super) fn evaluate<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let them = us.other();
    let (own, theirs) = (info.pawns[us as usize], info.pawns[them as usize]);
    let their_attacks = info.attacked_by(them, shakmaty::Role::Pawn);
    let mut add = |pawns: Bitboard, param| {
        let n = count(pawns);
        if n > 0 {
            acc.add(us, param, n);
        }
    };
    // The structure as sets of own pawns.
    let supported = own & pawn_attacks(us, own);
    let supported_twice = own & pawn_double_attacks(us, own);
    let connected = supported | (own & beside(own));
    let files = file_set(own);
    let isolated = own & !files_bb((files << 1) | (files >> 1));
    // A helper on a neighbouring file level with or behind the pawn.
    let helped = beside(fill_forward(us, own));
    let held_back = own & !isolated & !helped & backward(us, their_attacks);
    let open = own & !forward(them, fill_forward(them, theirs));
    let doubled = own & fill_forward(them, backward(us, own));
    let blocked = own & backward(us, info.board.by_color(us) & !own);

    add(supported & !supported_twice, PAWN_SUPPORTED.at(0));
    add(supported_twice, PAWN_SUPPORTED.at(1));
    for (i, files) in FILES_BY_CENTRALNESS.into_iter().enumerate() {
        let group = files_bb(files);
        add(isolated & group, PAWN_ISOLATED.at(i));
        add(held_back & group, PAWN_BACKWARD.at(i));
        add(connected & group, PAWN_CONNECTED_FILE.at(i));
    }
    add(own & !connected & open, PAWN_UNCONNECTED_OPEN_FILE);
    add(own & !connected & !open, PAWN_UNCONNECTED_CLOSED_FILE);
    add((isolated | held_back) & open, PAWN_WEAK_OPEN_FILE);
    add(doubled, PAWN_DOUBLED);
    for rank in 1..=6 {
        let on_rank = connected & rel_rank_bb(us, rank);
        add(on_rank, PAWN_CONNECTED_RANK.at(rank - 1));
        add(on_rank & open, PAWN_CONNECTED_OPEN_RANK.at(rank.max(3) - 3));
    }
    let push_double_covered = backward(us, pawn_double_attacks(them, theirs));
    add(own & push_double_covered, PAWN_PUSH_DOUBLE_COVERED);
    let center = Bitboard(FILES[3] | FILES[4]);
    add(blocked & center, PAWN_BLOCKED_BY_PIECE_CENTER);
    add(blocked & !center, PAWN_BLOCKED_BY_PIECE);
    let mut behind = backward(us, own);
    for _ in 0..5 {
        behind |= backward(us, behind);
    }
    let zone = (rel_rank_bb(us, 1) | rel_rank_bb(us, 2) | rel_rank_bb(us, 3))
        & Bitboard(FILES[2] | FILES[3] | FILES[4] | FILES[5]);
    let space = behind & zone & !info.occupied & !their_attacks;
    acc.add(us, OUR_SIDE_SAFE_MOVE, count(space));
}
