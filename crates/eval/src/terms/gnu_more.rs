//! The GNU Chess heuristics of the document beyond the first eleven: pawn advancement,
//! doubled and backward pawns, pawns near the own king, passed pawns by rank and their
//! obstacles, knight placement, bishop and rook mobility with x-rays through pieces,
//! bishop placement and king attacks, rook files and the heavy pieces' distance to the
//! enemy king.

use super::{add_each, bits::*, distance, xray_lines, Info};
use crate::accumulate::Accumulator;
use crate::table::*;
use shakmaty::attacks::{bishop_attacks, king_attacks, rook_attacks};
use shakmaty::{Bitboard, Color, Role, Square};

pub(super) fn evaluate<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    pawns(info, us, acc);
    passed(info, us, acc);
    knights(info, us, acc);
    sliders(info, us, acc);
}

/// Pawn advancement by file, doubled and backward pawns, pawns near the own king.
fn pawns<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let them = us.other();
    let own = info.pawns[us as usize];
    let theirs = info.pawns[them as usize];
    let guarded = info.attacked_by(us, Role::Pawn);
    // Ranks advanced beyond the second, summed by file group; a pawn on its back rank
    // (not in a legal game) counts 0, not -1.
    let back_rank = rel_rank_bb(us, 0);
    for (i, files) in FILES_BY_CENTRALNESS.into_iter().enumerate() {
        let group = own & files_bb(files);
        let advance = rel_rank_sum(us, group) - count(group) + count(group & back_rank);
        acc.add(us, GNU_PAWN_ADVANCE.at(i), advance);
    }
    // Neither the pawn nor the square in front guarded by an own pawn.
    let unguarded = own & !guarded & !backward(us, guarded);
    add_each(acc, us, GNU_BACKWARD_PAWN.at(0), unguarded);
    let ahead_once = forward(us, unguarded).0;
    let (left, right) = ((ahead_once & !FILES[0]) >> 1, (ahead_once & !FILES[7]) << 1);
    let attacks = count(Bitboard(left) & theirs) + count(Bitboard(right) & theirs);
    acc.add(us, GNU_BACKWARD_PAWN.at(1), attacks);
    let open = !front_spans(them, theirs);
    add_each(acc, us, GNU_BACKWARD_PAWN.at(2), unguarded & open);
    let k = info.king[us as usize];
    add_each(
        acc,
        us,
        GNU_PAWN_NEAR_KING,
        own & expand(expand(Bitboard::from(k))),
    );
    // Every pawn beyond the first on its file, on files with a pawn on a neighbouring file.
    let supported = own & !isolated(own);
    let doubled = count(supported) - file_set(supported).count_ones() as i32;
    acc.add(us, GNU_DOUBLED_PAWN, doubled);
}

/// Passed pawns by rank; blocked or attacked squares in front; the enemy king in the
/// pawn's square; a pawn no piece and no king can stop.
fn passed<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let them = us.other();
    let their_pieces = info.piece_count(them) > 0;
    for sq in info.passed[us as usize] {
        let r = rel_rank(us, sq);
        if !(1..=6).contains(&r) {
            continue;
        }
        acc.add(us, GNU_PASSED_PAWN.at(r - 1), 1);
        let path = front_span(us, sq);
        let blocked = any(path & info.board.by_color(them));
        acc.add_if(us, GNU_PASSED_HINDERED.at(0), blocked);
        acc.add_if(
            us,
            GNU_PASSED_HINDERED.at(1),
            any(path & info.all_attacks[them as usize]),
        );
        let last = if us.is_white() {
            shakmaty::Rank::Eighth
        } else {
            shakmaty::Rank::First
        };
        let queening = Square::from_coords(sq.file(), last);
        let to_go = 7 - r as i32 + i32::from(info.turn != us);
        let in_square = distance(info.king[them as usize], queening) <= to_go;
        if in_square {
            acc.add(us, GNU_PASSED_HINDERED.at(2), 1);
        } else if !their_pieces && !blocked {
            acc.add(us, GNU_PASSED_UNSTOPPABLE, 1);
        }
    }
}

/// Knights near enemy pieces, far from either king, and where no enemy pawn can drive them.
fn knights<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let them = us.other();
    let enemy_pieces = info.board.by_color(them) & !info.board.pawns() & !info.board.kings();
    // Every square an enemy pawn attacks now or after advancing.
    let their_pawn_span = fill_forward(them, info.attacks[them as usize][0]);
    for sq in info.of(us, Role::Knight) {
        let near = count(expand(expand(Bitboard::from(sq))) & enemy_pieces);
        acc.add(us, GNU_KNIGHT_NEAR_ENEMY, near);
        let far = distance(sq, info.king[0]) + distance(sq, info.king[1]);
        acc.add(us, GNU_KNIGHT_KING_DISTANCE, far);
        acc.add_if(us, GNU_KNIGHT_SAFE, !their_pawn_span.contains(sq));
    }
}

/// Bishops and rooks: mobility through pieces (not pawns), x-rays on heavy or undefended
/// enemy units; bishops by centre proximity, by material gone and on squares next to the
/// enemy king; rooks by their file; rooks and queens by taxicab distance to the enemy king.
fn sliders<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let them = us.other();
    let pawns = info.pawns[0] | info.pawns[1];
    let their_king = info.king[them as usize];
    let taxicab = |sq: Square| {
        (sq.file() as i32 - their_king.file() as i32).abs()
            + (sq.rank() as i32 - their_king.rank() as i32).abs()
    };
    let targets = xray_targets(info, them);
    let bishops = info.of(us, Role::Bishop);
    add_each(acc, us, GNU_BISHOP_MATERIAL, bishops);
    for sq in bishops {
        let through = bishop_attacks(sq, pawns);
        acc.add(us, GNU_BISHOP_MOBILITY.at_most(count(through) as usize), 1);
        acc.add(us, GNU_BISHOP_CENTER.at(center_proximity(sq) as usize), 1);
        let (direct, backs) = xray_lines(info.occupied, sq, Role::Bishop);
        add_each(acc, us, GNU_XRAY.at(0), backs & targets);
        let near_king = direct & king_attacks(their_king);
        add_each(acc, us, GNU_BISHOP_KING_ATTACK, near_king);
    }
    for sq in info.of(us, Role::Rook) {
        let through = rook_attacks(sq, pawns);
        acc.add(us, GNU_ROOK_MOBILITY.at_most(count(through) as usize), 1);
        let file = file_bb(sq);
        acc.add_if(
            us,
            GNU_ROOK_FILE.at(0),
            !any(file & info.pawns[us as usize]),
        );
        acc.add_if(
            us,
            GNU_ROOK_FILE.at(1),
            !any(file & info.pawns[them as usize]),
        );
        acc.add(us, GNU_ROOK_KING_TAXICAB, taxicab(sq));
        let (_, backs) = xray_lines(info.occupied, sq, Role::Rook);
        add_each(acc, us, GNU_XRAY.at(1), backs & targets);
    }
    for sq in info.of(us, Role::Queen) {
        acc.add(us, GNU_QUEEN_KING_TAXICAB, taxicab(sq));
    }
}

/// What an x-ray through one unit hits in the document: an enemy rook, queen or king, or an
/// undefended enemy piece.
fn xray_targets(info: &Info, them: Color) -> Bitboard {
    let heavy = info.of(them, Role::Rook) | info.of(them, Role::Queen) | info.of(them, Role::King);
    let pieces = info.board.by_color(them) & !info.board.pawns();
    heavy | (pieces & !info.all_attacks[them as usize])
}
