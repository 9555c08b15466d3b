//! TacticalV: what `us` attacks now and can attack with one move.

use super::{bits::*, Info};
use crate::accumulate::Accumulator;
use crate::table::*;
use shakmaty::attacks::{between, bishop_attacks, knight_attacks, rook_attacks};
use shakmaty::{Color, Role};

pub(super) fn evaluate<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    attacks_now(info, us, acc);
    threats_by_a_move(info, us, acc);
}

/// Enemy pieces and pawns we attack now: by lesser pieces, undefended, defended once.
fn attacks_now<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let them = us.other();
    let (ui, ti) = (us as usize, them as usize);
    let our_att = info.all_attacks[ui];
    let their_def = info.all_attacks[ti];
    let their_pawns = info.pawns[ti];
    let their_pieces = info.board.by_color(them) & !their_pawns & !info.of(them, Role::King);
    let by = |r: Role| info.attacked_by(us, r);
    let minors_att = by(Role::Knight) | by(Role::Bishop);

    acc.add(
        us,
        PIECE_HANGING_TO_PAWN,
        count(their_pieces & by(Role::Pawn)),
    );
    acc.add(
        us,
        ROOK_HANGING_TO_MINOR,
        count(info.of(them, Role::Rook) & minors_att),
    );
    let lesser = minors_att | by(Role::Rook);
    acc.add(
        us,
        QUEEN_HANGING_TO_LESSER_PIECE,
        count(info.of(them, Role::Queen) & lesser),
    );
    let minor_on_minor = (info.of(them, Role::Knight) & by(Role::Bishop))
        | (info.of(them, Role::Bishop) & by(Role::Knight));
    acc.add(us, MINOR_ON_MINOR, count(minor_on_minor));
    acc.add(
        us,
        MINOR_ON_OUTPOST,
        count(minor_on_minor & info.outposts[ti]),
    );
    let their_minors = info.of(them, Role::Knight) | info.of(them, Role::Bishop);
    let pawn_defended = info.attacked_by(them, Role::Pawn);
    acc.add(
        us,
        ROOK_ON_MINOR,
        count(their_minors & by(Role::Rook) & !pawn_defended),
    );
    acc.add(
        us,
        UNDEFENDED_PIECE_HANGING,
        count(their_pieces & our_att & !their_def),
    );
    acc.add(
        us,
        UNDEFENDED_PAWN_HANGING,
        count(their_pawns & our_att & !their_def),
    );
    let defended_once = their_def & !info.double_attacks[ti] & !pawn_defended;
    acc.add(
        us,
        WEAKLY_DEFENDED_PAWN,
        count(their_pawns & our_att & defended_once),
    );
    acc.add(
        us,
        WEAKLY_DEFENDED_PIECE,
        count(their_pieces & our_att & defended_once),
    );
    acc.add(
        us,
        KING_ON_PAWN,
        count(their_pawns & by(Role::King) & !their_def),
    );
    acc.add(
        us,
        OPP_COVERED_SQS,
        count(own_half(us) & their_def & !our_att),
    );
}

/// What one move of ours would attack: pawn pushes onto pieces, the enemy queen, pinned
/// pieces.
fn threats_by_a_move<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let them = us.other();
    let (ui, ti) = (us as usize, them as usize);
    let our_att = info.all_attacks[ui];
    let their_def = info.all_attacks[ti];
    let their_pieces = info.board.by_color(them) & !info.pawns[ti] & !info.of(them, Role::King);
    let by = |r: Role| info.attacked_by(us, r);
    let pawn_defended = info.attacked_by(them, Role::Pawn);
    let pushes = forward(us, info.pawns[ui]) & !info.occupied;
    let safe_pushes = pushes & (!their_def | our_att);
    let push_threats = pawn_attacks(us, safe_pushes);
    acc.add(
        us,
        PIECE_CAN_BE_THREATENED_BY_PAWN,
        count(push_threats & their_pieces & !by(Role::Pawn)),
    );

    let landing = !info.board.by_color(us) & !pawn_defended;
    for q in info.of(them, Role::Queen) {
        acc.add_if(
            us,
            QUEEN_THREATENED_BY_KNIGHT_MOVE,
            any(knight_attacks(q) & by(Role::Knight) & landing),
        );
        let diag = bishop_attacks(q, info.occupied) & by(Role::Bishop);
        let line = rook_attacks(q, info.occupied) & by(Role::Rook);
        acc.add_if(
            us,
            QUEEN_THREATENED_BY_BISHOP_ROOK_MOVE,
            any((diag | line) & landing),
        );
        acc.add_if(us, QUEEN_BEHIND_PIN, queen_behind_pin(info, us, q));
    }
    let pinned = info.pinned[ti] & their_pieces;
    let exposed = !their_def | by(Role::Pawn);
    acc.add(
        us,
        PINNED_PIECE_THREATENED,
        count(pinned & our_att & exposed),
    );
    acc.add(us, PINNED_PAWN_PUSH_THREAT, count(pinned & push_threats));
}

/// One of our bishops or rooks sees the enemy queen through exactly one enemy piece.
fn queen_behind_pin(info: &Info, us: Color, q: shakmaty::Square) -> bool {
    let them = us.other();
    let diag = diagonals(q) & info.of(us, Role::Bishop);
    let line = lines(q) & info.of(us, Role::Rook);
    (diag | line).into_iter().any(|s| {
        let blockers = between(s, q) & info.occupied;
        blockers.count() == 1 && blockers.is_subset(info.board.by_color(them))
    })
}
