//! GNU Chess heuristics (John Stanback, 1987) beyond the piece values.

use super::{add_each, bits::*, Info};
use crate::accumulate::Accumulator;
use crate::table::*;
use shakmaty::{Bitboard, Color, Role, Square};

pub(super) fn evaluate<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    super::gnu_more::evaluate(info, us, acc);
    let i = us as usize;
    let pawns = info.pawns[i];
    for sq in isolated(pawns) {
        acc.add(us, GNU_ISOLATED_PAWN.at(sq.file() as usize), 1);
    }
    let knights = center_proximity_sum(info.of(us, Role::Knight));
    acc.add(us, GNU_KNIGHT_CENTER, knights);

    let k = info.king[i];
    acc.add(us, GNU_KING_CENTER, center_proximity(k));
    acc.add_if(
        us,
        GNU_KING_OPEN_FILE.at(0),
        (file_bb(k) & pawns).is_empty(),
    );
    let toward_corner = if (k.file() as usize) < 4 { -1 } else { 1 };
    if let Some(side) = k.offset(toward_corner) {
        acc.add_if(
            us,
            GNU_KING_OPEN_FILE.at(1),
            side.rank() == k.rank() && (file_bb(side) & pawns).is_empty(),
        );
    }
    let safe_checks = info.checks[us.other() as usize].safe;
    if safe_checks > 0 {
        acc.add(us, GNU_SAFE_CHECKS.at_most(safe_checks as usize - 1), 1);
    }

    let can_castle = info.castles.has_color(us);
    let on_back_rank = rel_rank(us, k) == 0;
    let castled_file = matches!(k.file() as usize, 0..=2 | 6 | 7);
    acc.add_if(us, GNU_CASTLED, !can_castle && on_back_rank && castled_file);
    acc.add_if(
        us,
        GNU_KING_MOVED_UNCASTLED,
        !can_castle && matches!(k.file() as usize, 3..=5) && !castled_file,
    );
    acc.add_if(us, GNU_HUNG_PIECES, hung_pieces(info, us) > 1);
    acc.add_if(
        us,
        GNU_KING_NO_ADJACENT_PAWN,
        (king_neighbours(k) & pawns).is_empty(),
    );
    let start_center = rel_rank_bb(us, 1) & Bitboard(FILES[3] | FILES[4]);
    let unmoved = pawns & start_center;
    add_each(acc, us, GNU_CENTER_PAWN_UNMOVED, unmoved);
    // A pawn is blocked when the square in front of it is occupied.
    let blocked = unmoved & backward(us, info.occupied);
    add_each(acc, us, GNU_CENTER_PAWN_BLOCKED, blocked);
}

/// The squares around `k`.
fn king_neighbours(k: Square) -> Bitboard {
    shakmaty::attacks::king_attacks(k)
}

/// Pieces and pawns of `us` that are attacked and undefended or attacked by a
/// lower-valued enemy piece, or pinned to the king.
fn hung_pieces(info: &Info, us: Color) -> i32 {
    let them = us.other();
    let (ti, ui) = (them as usize, us as usize);
    let by_pawn = info.attacked_by(them, Role::Pawn);
    let by_minor =
        by_pawn | info.attacked_by(them, Role::Knight) | info.attacked_by(them, Role::Bishop);
    let by_rook = by_minor | info.attacked_by(them, Role::Rook);
    let attacked = info.all_attacks[ti];
    let undefended = attacked & info.board.by_color(us) & !info.all_attacks[ui];
    let hung = undefended
        | (info.of(us, Role::Knight) & by_pawn)
        | (info.of(us, Role::Bishop) & by_pawn)
        | (info.of(us, Role::Rook) & by_minor)
        | (info.of(us, Role::Queen) & by_rook);
    // The document treats pinned pieces like hung ones.
    count((hung | info.pinned[ui]) & !info.of(us, Role::King))
}
