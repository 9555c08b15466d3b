//! Rooks, heavy pieces, pins and x-rays (`LinesV`).

use super::super::{bits::*, xray_lines, Info};
use super::QUEEN_WING;
use crate::accumulate::Accumulator;
use crate::table::*;
use shakmaty::attacks::{between, rook_attacks};
use shakmaty::{Bitboard, Color, Role, Square};

/// Material order of a unit for pins and x-rays (king highest).
fn rank_value(role: Role) -> i32 {
    [0, 1, 3, 3, 5, 9, 100][role as usize]
}

pub(super) fn evaluate<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    rooks(info, us, acc);
    for role in [Role::Bishop, Role::Rook, Role::Queen] {
        for p in info.pieces_of(us, role) {
            pins_and_xrays(info, us, p.sq, role, acc);
        }
    }
}

/// Rooks reaching both wings, connected on the back rank or stuck there, a king between
/// its rooks, rooks on the seventh and eighth ranks, open files toward the enemy king, and
/// rooks neutralised by an enemy minor defended by a pawn.
fn rooks<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let own = info.board.by_color(us);
    let rooks = info.of(us, Role::Rook);
    let back = rel_rank_bb(us, 0);
    let their_king = info.king[us.other() as usize];
    let king_files = file_bb(their_king) | adjacent_files(their_king);
    for sq in rooks {
        let attacks = rook_attacks(sq, info.occupied);
        acc.add_if(
            us,
            ROOK_BOTH_WINGS,
            any(attacks & QUEEN_WING) && any(attacks & !QUEEN_WING),
        );
        let free = attacks & !own;
        acc.add_if(
            us,
            ROOK_FIRST_RANK.at(1),
            any(free) && (free & !back).is_empty(),
        );
        match rel_rank(us, sq) {
            6 => {
                acc.add(us, HEAVY_ON_7TH_8TH.at(0), 1);
                let empty = count(rel_rank_bb(us, 6) & !info.occupied);
                acc.add(us, HEAVY_ON_7TH_8TH.at(2), empty);
            }
            7 => acc.add(us, HEAVY_ON_7TH_8TH.at(1), 1),
            _ => {}
        }
        let file = file_bb(sq);
        if king_files.contains(sq) && !any(file & info.pawns[us as usize]) {
            let open = !any(file & info.pawns[us.other() as usize]);
            acc.add(us, HEAVY_OPEN_FILE_VS_KING.at(usize::from(!open)), 1);
        }
        neutralised(info, us, sq, attacks, acc);
    }
    let on_back = rooks & back;
    if let (Some(a), Some(b)) = (on_back.first(), on_back.last()) {
        acc.add_if(
            us,
            ROOK_FIRST_RANK.at(0),
            a != b && (between(a, b) & info.occupied).is_empty(),
        );
        let k = info.king[us as usize];
        acc.add_if(
            us,
            ROOK_FIRST_RANK.at(2),
            a != b && between(a, b).contains(k),
        );
    }
}

/// A rook on `sq` (reaching `attacks`) on an open file, blocked further up by an enemy minor
/// that an enemy pawn defends.
fn neutralised<A: Accumulator>(info: &Info, us: Color, sq: Square, attacks: Bitboard, acc: &mut A) {
    let them = us.other();
    let all_pawns = info.pawns[0] | info.pawns[1];
    if any(file_bb(sq) & all_pawns) {
        return;
    }
    let minors = info.of(them, Role::Knight) | info.of(them, Role::Bishop);
    let blocker = attacks & front_span(us, sq) & minors;
    acc.add_if(
        us,
        ROOK_FILE_NEUTRALISED,
        any(blocker & info.attacked_by(them, Role::Pawn)),
    );
}

/// Pins by our slider on `sq` (a unit no more valuable than the pinner with a more
/// valuable one behind it) and x-rays through exactly one unit to an enemy unit.
fn pins_and_xrays<A: Accumulator>(info: &Info, us: Color, sq: Square, role: Role, acc: &mut A) {
    let theirs = info.board.by_color(us.other());
    let (direct, backs) = xray_lines(info.occupied, sq, role);
    let enemy_fronts = direct & theirs;
    for back in backs & theirs {
        let Some(target) = info.board.role_at(back) else {
            continue;
        };
        acc.add(us, XRAY_ATTACK.at(target as usize - 1), 1);
        // The unit in front is the one between the slider and the unit behind.
        let Some(front) = (between(sq, back) & enemy_fronts).first() else {
            continue;
        };
        let Some(pinned) = info.board.role_at(front) else {
            continue;
        };
        let (pinner, pinned, behind) = (rank_value(role), rank_value(pinned), rank_value(target));
        if pinned <= pinner && behind > pinned {
            acc.add(us, PIN.at(role as usize - 3), 1);
        }
    }
}
