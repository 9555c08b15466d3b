//! Fixed structures, space and weak squares (`FixedV`): pawns gaining space on the fifth
//! rank, space and weaknesses on both wings, central pawns splitting the enemy wings, and
//! squares of the own third and fourth ranks no own pawn can guard.

use super::super::{add_each, bits::*, Info};
use super::backward::fully_backward;
use super::shelter::immediate_zone;
use super::QUEEN_WING;
use crate::accumulate::Accumulator;
use crate::table::*;
use shakmaty::{Bitboard, Color, Role};

pub(super) fn evaluate<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    space_pawns(info, us, acc);
    wings(info, us, acc);
    weak_spots(info, us, acc);
}

/// Own pawns on the fifth rank: pawn-defended, defendable with one push, defended by
/// pieces, and the enemy's bonus for ramming them. Central pawns splitting the wings.
fn space_pawns<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let own = info.pawns[us as usize];
    let pushes = forward(us, own) & !info.occupied;
    for sq in own & rel_rank_bb(us, 4) {
        let one = Bitboard::from(sq);
        if any(super::own_pawn_attackers(info, us, sq)) {
            acc.add(us, SPACE_PAWN.at(0), 1);
        } else if any(pawn_attacks(us, pushes) & one) {
            acc.add(us, SPACE_PAWN.at(1), 1);
        }
        let pieces = super::piece_attackers(info, us, sq);
        acc.add(us, SPACE_PAWN.at(2), pieces);
        acc.add_if(
            us.other(),
            SPACE_PAWN.at(3),
            info.rammed[us as usize].contains(sq),
        );
    }
    let central = Bitboard(FILES[3] | FILES[4]);
    let deep = rel_rank_bb(us, 4) | rel_rank_bb(us, 5);
    acc.add_if(
        us,
        SEPARATING_CENTRAL_PAWN.at(0),
        any(info.rammed[us as usize] & central & deep),
    );
    let deeper = rel_rank_bb(us, 5) | rel_rank_bb(us, 6);
    acc.add_if(
        us,
        SEPARATING_CENTRAL_PAWN.at(1),
        any(info.passed[us as usize] & central & deeper),
    );
}

/// Space (pawns on rank 5 or beyond) and weaknesses (isolated, doubled or fully backward
/// pawns) on both wings.
fn wings<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let own = info.pawns[us as usize];
    let both = |bb: Bitboard| any(bb & QUEEN_WING) && any(bb & !QUEEN_WING);
    acc.add_if(us, BOTH_WINGS.at(0), both(own & !own_half(us)));
    let isolated = isolated(own);
    let them = us.other();
    let doubled = own & (front_spans(us, own) | front_spans(them, own));
    let weak = isolated | doubled | fully_backward(info, us);
    acc.add_if(us, BOTH_WINGS.at(1), both(weak));
}

/// Squares of the own third and fourth ranks that no own pawn attacks (in or in front of
/// the own king's shelter separately), own pieces guarding them, and enemy pieces on them.
fn weak_spots<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let guarded = info.attacked_by(us, Role::Pawn);
    let k = info.king[us as usize];
    let shelter = expand(immediate_zone(us, k));
    let in_front = forward(us, shelter);
    let third = rel_rank_bb(us, 2) & !guarded;
    let fourth = rel_rank_bb(us, 3) & !guarded;
    let counts = [
        (third & !shelter, WEAK_SPOT.at(0)),
        (third & shelter, WEAK_SPOT.at(1)),
        (fourth & !in_front, WEAK_SPOT.at(2)),
        (fourth & in_front, WEAK_SPOT.at(3)),
    ];
    for (squares, param) in counts {
        add_each(acc, us, param, squares);
    }
    for p in info.pieces[us as usize].iter() {
        let cover = [(third, 0), (fourth, 1)];
        for (squares, i) in cover {
            add_each(acc, us, WEAK_SPOT_CONTROL.at(i), p.attacks & squares);
        }
    }
    let theirs = info.board.by_color(us.other()) & !info.board.pawns() & !info.board.kings();
    for (squares, i) in [(third, 2), (fourth, 3)] {
        add_each(acc, us.other(), WEAK_SPOT_CONTROL.at(i), theirs & squares);
    }
}
