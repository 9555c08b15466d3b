//! Passed pawns and blockers (`BlockerV`): own pieces on the stop squares of enemy
//! passers, root pawns and weak pawns; the king as a blocker; connected passers and
//! passers against the enemy king.

use super::super::{bits::*, Info};
use super::backward::fully_backward;
use super::chains::Chains;
use super::unopposed::{free_path, Free};
use crate::accumulate::Accumulator;
use crate::table::*;
use shakmaty::{Bitboard, Color, Role, Square};

/// Our piece of `role` (knight to king) standing on `sq`, if any.
fn blocker(info: &Info, us: Color, sq: Square) -> Option<Role> {
    info.board
        .piece_at(sq)
        .filter(|p| p.color == us && p.role != Role::Pawn)
        .map(|p| p.role)
}

pub(super) fn evaluate<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let them = us.other();
    let theirs = info.pawns[them as usize];
    let roots = Chains::of(them, theirs, false).root | Chains::of(them, theirs, true).root;
    let fixed_pairs = count(info.rammed[0]);
    // Only the enemy pawns with one of our pieces or our king on their stop square.
    let ours = info.board.by_color(us) & !info.board.pawns();
    for sq in backward(them, forward(them, theirs) & ours) {
        let Some(stop) = forward(them, Bitboard::from(sq)).first() else {
            continue;
        };
        let Some(role) = blocker(info, us, stop) else {
            continue;
        };
        let ri = role as usize - 2;
        if info.passed[them as usize].contains(sq) {
            acc.add(us, PASSER_BLOCKER.at(ri), 1);
            let separate = !any(adjacent_files(sq) & theirs);
            acc.add_if(us, KING_BLOCKER.at(1), role == Role::King && separate);
            continue;
        }
        if role == Role::King {
            acc.add_if(us, KING_BLOCKER.at(0), fixed_pairs >= 3);
            continue;
        }
        if roots.contains(sq) {
            acc.add(us, ROOT_PAWN_BLOCKER.at(ri), 1);
        }
        weak_pawn_blocked(info, us, sq, role, acc);
    }
    connected_passers(info, us, acc);
}

/// Our piece (not the king) on the stop square of an enemy pawn that is not passed, by
/// the kind of pawn.
fn weak_pawn_blocked<A: Accumulator>(info: &Info, us: Color, sq: Square, role: Role, acc: &mut A) {
    let them = us.other();
    let theirs = info.pawns[them as usize];
    let isolated = !any(adjacent_files(sq) & theirs);
    let doubled = count(file_bb(sq) & theirs) > 1;
    let leads = Chains::of(them, theirs, false).lead | Chains::of(them, theirs, true).lead;
    let kinds = [
        isolated && !doubled,
        isolated && doubled,
        fully_backward(info, them).contains(sq),
        leads.contains(sq),
        role != Role::Rook && own_half(us).contains(sq),
    ];
    for (i, _) in kinds.iter().enumerate().filter(|k| *k.1) {
        acc.add(us, PIECE_BLOCKS_PAWN.at(i), 1);
    }
}

/// Passers side by side or diagonally linked on neighbouring files, central ones, a
/// majority of separate passers, and passers on the enemy king's wing.
fn connected_passers<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let passed = info.passed[us as usize];
    let mut connected = Bitboard::EMPTY;
    for sq in passed {
        let right_neighbours = expand(Bitboard::from(sq)) & passed & adjacent_files(sq);
        for other in right_neighbours
            .into_iter()
            .filter(|o| o.file() > sq.file())
        {
            acc.add(us, PP_CONNECTED_EXTRA.at(0), 1);
            acc.add_if(us, PP_CONNECTED_EXTRA.at(1), other.rank() != sq.rank());
            connected |= Bitboard::from(sq) | Bitboard::from(other);
        }
    }
    for sq in connected {
        match centralness(sq.file()) {
            3 => acc.add(us, PP_CONNECTED_EXTRA.at(2), 1),
            2 => acc.add(us, PP_CONNECTED_EXTRA.at(3), 1),
            _ => {}
        }
    }
    let their_passers = count(info.passed[us.other() as usize]);
    acc.add_if(
        us,
        PP_SEPARATE_MAJORITY,
        count(passed) >= 2 && !any(connected) && their_passers == 1,
    );
    let wing =
        adjacent_files(info.king[us.other() as usize]) | file_bb(info.king[us.other() as usize]);
    acc.add_if(us, PP_DUO_VS_KING.at(0), count(connected & wing) >= 2);
    for sq in passed & wing {
        let beside = adjacent_files(sq) & wing & info.pawns[us as usize];
        if beside
            .into_iter()
            .any(|o| free_path(info, us, o) == Some(Free::Unopposed))
        {
            acc.add(us, PP_DUO_VS_KING.at(1), 1);
        }
    }
}
