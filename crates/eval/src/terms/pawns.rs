//! PawnV and the pawn terms of CoordV: the structure of one side's pawns.

use super::{bits::*, Info};
use crate::accumulate::Accumulator;
use crate::table::*;
use shakmaty::{Bitboard, Color};

pub(super) fn evaluate<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let them = us.other();
    let (own, theirs) = (info.pawns[us as usize], info.pawns[them as usize]);
    let their_attacks = info.attacked_by(them, shakmaty::Role::Pawn);
    let their_double = pawn_double_attacks(them, theirs);
    let own_pieces = info.board.by_color(us) & !own;
    for sq in own {
        let bb = Bitboard::from(sq);
        let file = centralness(sq.file());
        let rank = rel_rank(us, sq);
        let stop = forward(us, bb);
        let supporters = count(pawn_attacks(them, bb) & own);
        let phalanx = any(adjacent_files(sq) & Bitboard::from_rank(sq.rank()) & own);
        let connected = supporters > 0 || phalanx;
        let isolated = (adjacent_files(sq) & own).is_empty();
        let helpers_behind = adjacent_files(sq) & own & !ahead(us, sq);
        let backward = !isolated && helpers_behind.is_empty() && any(stop & their_attacks);
        let open = (front_span(us, sq) & theirs).is_empty();

        if supporters > 0 {
            acc.add(us, PAWN_SUPPORTED.at(supporters as usize - 1), 1);
        }
        if isolated {
            acc.add(us, PAWN_ISOLATED.at(file), 1);
        }
        if backward {
            acc.add(us, PAWN_BACKWARD.at(file), 1);
        }
        if !connected {
            acc.add(
                us,
                if open {
                    PAWN_UNCONNECTED_OPEN_FILE
                } else {
                    PAWN_UNCONNECTED_CLOSED_FILE
                },
                1,
            );
        }
        if (isolated || backward) && open {
            acc.add(us, PAWN_WEAK_OPEN_FILE, 1);
        }
        if any(front_span(us, sq) & own) {
            acc.add(us, PAWN_DOUBLED, 1);
        }
        if connected {
            acc.add(us, PAWN_CONNECTED_RANK.at(rank - 1), 1);
            acc.add(us, PAWN_CONNECTED_FILE.at(file), 1);
            if open {
                acc.add(us, PAWN_CONNECTED_OPEN_RANK.at(rank.max(3) - 3), 1);
            }
        }
        if any(stop & their_double) {
            acc.add(us, PAWN_PUSH_DOUBLE_COVERED, 1);
        }
        if any(stop & own_pieces) {
            let center = file == 3;
            acc.add(
                us,
                if center {
                    PAWN_BLOCKED_BY_PIECE_CENTER
                } else {
                    PAWN_BLOCKED_BY_PIECE
                },
                1,
            );
        }
    }
    let mut behind = backward(us, own);
    for _ in 0..5 {
        behind |= backward(us, behind);
    }
    let zone = (rel_rank_bb(us, 1) | rel_rank_bb(us, 2) | rel_rank_bb(us, 3))
        & Bitboard(FILES[2] | FILES[3] | FILES[4] | FILES[5]);
    let space = behind & zone & !info.occupied & !their_attacks;
    acc.add(us, OUR_SIDE_SAFE_MOVE, count(space));
}
