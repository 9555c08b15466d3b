//! MaterialV and the piece values: what each side has on the board.

use super::{count, Info};
use crate::accumulate::Accumulator;
use crate::table::*;
use shakmaty::{Bitboard, Color, Role};

/// Piece values, base offsets and material-balance terms for `us`.
pub(super) fn evaluate<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let them = us.other();
    let n = |c: Color, r: Role| count(info.of(c, r));
    for (i, role) in [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
    ]
    .into_iter()
    .enumerate()
    {
        acc.add(us, PIECE_VALUE.at(i), n(us, role));
    }
    acc.add(us, PAWN_BASE_OFFSET, n(us, Role::Pawn));
    acc.add(us, KNIGHT_BASE_OFFSET, n(us, Role::Knight));
    acc.add(us, BISHOP_BASE_OFFSET, n(us, Role::Bishop));
    acc.add(us, ROOK_BASE_OFFSET, n(us, Role::Rook));
    acc.add(us, QUEEN_BASE_OFFSET, n(us, Role::Queen));

    let bishops = info.of(us, Role::Bishop);
    acc.add_if(
        us,
        BISHOP_PAIR,
        (bishops & Bitboard::LIGHT_SQUARES).any() && (bishops & Bitboard::DARK_SQUARES).any(),
    );
    acc.add_if(
        us,
        MORE_PIECE_BONUS,
        info.piece_count(us) > info.piece_count(them),
    );
    let minors = |c: Color| n(c, Role::Knight) + n(c, Role::Bishop);
    acc.add_if(
        us,
        TWO_MINORS_VS_ROOK,
        minors(us) - minors(them) == 2 && n(them, Role::Rook) - n(us, Role::Rook) == 1,
    );
    let lone_rook = info.piece_count(us) == 1 && n(us, Role::Rook) == 1;
    if lone_rook {
        let theirs = info.piece_count(them);
        if theirs == 1 && n(them, Role::Knight) == 1 {
            acc.add(us, ROOK_V_KNIGHT_END, 1);
        } else if theirs == 2 && n(them, Role::Knight) == 2 {
            acc.add(us, ROOK_V_2_KNIGHT_END, 1);
        } else if theirs == 1 && n(them, Role::Bishop) == 1 {
            acc.add(us, ROOK_V_BISHOP_END, 1);
        }
    }
}
