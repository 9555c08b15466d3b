//! KnightV, BishopV, RookV and QueenV: mobility curves and piece placement.

use super::{add_each, bits::*, distance, Info, Piece};
use crate::accumulate::Accumulator;
use crate::table::*;
use crate::Curve;
use shakmaty::attacks::{between, knight_attacks};
use shakmaty::{Bitboard, Color, Role, Square};

pub(super) fn evaluate<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    // One loop per role: no choice of role per piece.
    type Terms<A> = fn(&Info, Color, &Piece, &mut A);
    let roles: [(Role, Terms<A>); 4] = [
        (Role::Knight, knight),
        (Role::Bishop, bishop),
        (Role::Rook, rook),
        (Role::Queen, queen),
    ];
    for (role, terms) in roles {
        for piece in info.pieces_of(us, role) {
            mobility(info, us, piece, acc);
            terms(info, us, piece, acc);
        }
    }
    let minors = info.of(us, Role::Knight) | info.of(us, Role::Bishop);
    add_each(
        acc,
        us,
        MINOR_BEHIND_PAWN,
        minors & backward(us, info.pawns[us as usize]),
    );
    let on_seventh = info.of(us, Role::Rook) & rel_rank_bb(us, 6);
    acc.add_if(
        us,
        ROOKS_TWO_7_K8,
        count(on_seventh) >= 2 && rel_rank(us, info.king[us.other() as usize]) == 7,
    );
}

/// The piece's mobility, and whether it is pinned.
#[inline(always)]
fn mobility<A: Accumulator>(info: &Info, us: Color, piece: &Piece, acc: &mut A) {
    let mob = count(piece.attacks & info.mobility_area[us as usize]);
    let kind = piece.role as usize - 2;
    acc.add_curve(us, Curve::mobility(kind), mob as usize, 1);
    acc.add_if(
        us,
        PINNED_PIECE_MOBILITY.at(kind),
        info.pinned[us as usize].contains(piece.sq),
    );
}

/// Outpost array index: 0 for ranks 5-7, 1 for rank 4.
fn outpost_index(us: Color, sq: Square) -> usize {
    usize::from(rel_rank(us, sq) == 3)
}

fn knight<A: Accumulator>(info: &Info, us: Color, p: &Piece, acc: &mut A) {
    let i = us as usize;
    let safe = p.attacks & info.mobility_area[i];
    acc.add_if(
        us,
        KNIGHT_CENTER_MOVE_BONUS,
        !BIG_CENTER.contains(p.sq) && any(safe & BIG_CENTER),
    );
    acc.add_if(us, KNIGHT_AWOL, distance(p.sq, info.king[i]) >= 5);
    let on_outpost = info.outposts[i].contains(p.sq);
    if on_outpost {
        let idx = outpost_index(us, p.sq);
        acc.add(us, KNIGHT_OUTPOST.at(idx), 1);
        if distance(p.sq, info.king[us.other() as usize]) >= 5 {
            acc.add(us, KNIGHT_OUTPOST_AWOL.at(idx), 1);
        }
    } else if let Some(idx) = outpost_move(info, us, p) {
        acc.add(us, KNIGHT_OUTPOST_MOVE.at(idx), 1);
    }
}

/// The best outpost index among the empty outpost squares the piece can move to.
fn outpost_move(info: &Info, us: Color, p: &Piece) -> Option<usize> {
    let targets = p.attacks & info.outposts[us as usize] & !info.occupied;
    targets.into_iter().map(|sq| outpost_index(us, sq)).min()
}

fn bishop<A: Accumulator>(info: &Info, us: Color, p: &Piece, acc: &mut A) {
    let (i, them) = (us as usize, us.other());
    let colour = if p.sq.is_light() {
        Bitboard::LIGHT_SQUARES
    } else {
        Bitboard::DARK_SQUARES
    };
    let rammed = info.rammed[us as usize];
    let center_files = Bitboard(FILES[3] | FILES[4]);
    acc.add(us, BISHOP_COLOR_PAWNS, count(info.pawns[i] & colour));
    acc.add(us, BISHOP_COLOR_BLOCKED_PAWN, count(rammed & colour));
    acc.add(
        us,
        BISHOP_COLOR_BLOCKED_CENTER_PAWN,
        count(rammed & colour & center_files),
    );
    let front_diagonals = pawn_attacks(us, Bitboard::from(p.sq));
    acc.add(
        us,
        BISHOP_FORWARD_BLOCKED_PAWN,
        count(rammed & front_diagonals),
    );
    acc.add_if(
        us,
        BISHOP_STUCK_BLOCKED_PAWN,
        rel_rank(us, p.sq) == 0 && front_diagonals.is_subset(rammed),
    );
    let king_file = info.king[i].file() as usize;
    let b2 = square_for(us, 1, 1);
    let g2 = square_for(us, 6, 1);
    acc.add_if(
        us,
        BISHOP_FIANCHETTO,
        (p.sq == b2 && king_file <= 2) || (p.sq == g2 && king_file >= 5),
    );
    if info.outposts[i].contains(p.sq) {
        acc.add(us, BISHOP_OUTPOST, 1);
    } else if outpost_move(info, us, p).is_some() {
        acc.add(us, BISHOP_OUTPOST_MOVE, 1);
    }
    let moves = p.attacks & !info.board.by_color(us);
    let half = own_half(us);
    acc.add_if(
        us,
        BISHOP_ONLY_REACHES_ONE_SIDE,
        any(moves) && (moves.is_subset(half) || (moves & half).is_empty()),
    );
    let their_pawns = info.pawns[them as usize];
    acc.add_if(
        us,
        BISHOP_NO_PAWN_TARGETS,
        any(their_pawns) && (their_pawns & colour).is_empty(),
    );
    acc.add_if(us, BISHOP_MAJOR_ALIGNED, major_aligned(info, us, p.sq));
    let center = count(p.attacks & CENTER);
    acc.add_if(us, BISHOP_CENTER_CONTROL.at(0), center == 1);
    acc.add_if(us, BISHOP_CENTER_CONTROL.at(1), center >= 2);
    acc.add(us, BISHOP_TRAPPED_OVER_5, trapped_fifths(info, us, p.sq));
}

/// The square on `file` (0 = a) and relative rank `rank` (0 = own back rank) of `us`.
fn square_for(us: Color, file: u32, rank: u32) -> Square {
    let r = if us.is_white() { rank } else { 7 - rank };
    Square::new(r * 8 + file)
}

/// An enemy rook, queen or king on the bishop's diagonals with no own blocked pawn and no
/// pawn-defended enemy pawn in between.
fn major_aligned(info: &Info, us: Color, sq: Square) -> bool {
    let them = us.other();
    let targets = diagonals(sq)
        & (info.of(them, Role::Rook) | info.of(them, Role::Queen) | info.of(them, Role::King));
    let walls =
        info.rammed[us as usize] | (info.pawns[them as usize] & info.attacked_by(them, Role::Pawn));
    targets
        .into_iter()
        .any(|t| (between(sq, t) & walls).is_empty())
}

/// 5 for a bishop on a7/h7 behind an enemy pawn on b6/g6, 2 on a6/h6 behind b5/g5.
fn trapped_fifths(info: &Info, us: Color, sq: Square) -> i32 {
    let their_pawns = info.pawns[us.other() as usize];
    let file = sq.file() as u32;
    if file != 0 && file != 7 {
        return 0;
    }
    let inner = if file == 0 { 1 } else { 6 };
    match rel_rank(us, sq) {
        6 if their_pawns.contains(square_for(us, inner, 5)) => 5,
        5 if their_pawns.contains(square_for(us, inner, 4)) => 2,
        _ => 0,
    }
}

fn rook<A: Accumulator>(info: &Info, us: Color, p: &Piece, acc: &mut A) {
    let open = info.open_files;
    let (i, them) = (us as usize, us.other());
    let ti = them as usize;
    acc.add(us, ROOK_OPEN_FILE_COUNT, count(open) / 8);
    acc.add_if(us, ROOK_OUTPOST_BONUS, info.outposts[i].contains(p.sq));
    let file = file_bb(p.sq);
    let own_on_file = info.pawns[i] & file;
    let their_on_file = info.pawns[ti] & file;
    let on_open = open.contains(p.sq);
    let half_open = !on_open && own_on_file.is_empty();
    acc.add_if(us, ROOK_FILE_OPEN, on_open);
    acc.add_if(us, ROOK_FILE_HALF_OPEN, half_open);
    let defended = any(their_on_file & info.attacked_by(them, Role::Pawn));
    acc.add_if(us, ROOK_FILE_HALF_OPEN_DEFENDED_PAWN, half_open & defended);
    acc.add_if(
        us,
        ROOK_CAN_MOVE_TO_OPEN_FILE.at(usize::from(any(own_on_file))),
        !on_open & any(p.attacks & info.mobility_area[i] & open),
    );
    let stops = forward(us, own_on_file);
    acc.add_if(us, ROOK_FILE_MOBILE_PAWN, any(stops & !info.occupied));
    let all_pawns = info.pawns[0] | info.pawns[1];
    acc.add_if(
        us,
        ROOK_FILE_BLOCKED_PAWN_BY_PIECE,
        any(stops & info.occupied & !all_pawns),
    );
    acc.add_if(us, ROOK_FILE_BLOCKED_PAWN, any(stops & all_pawns));
    let knight_moves = info.attacked_by(them, Role::Knight)
        & !info.board.by_color(them)
        & !info.attacked_by(us, Role::Pawn);
    acc.add_if(
        us,
        ROOK_THREATENED_BY_KNIGHT_MOVE,
        any(knight_attacks(p.sq) & knight_moves),
    );
    trapped_by_king(info, us, p, acc);
    let queens = info.of(us, Role::Queen) & file;
    let gun = queens.into_iter().any(|q| {
        rel_rank(us, q) < rel_rank(us, p.sq) && (between(q, p.sq) & info.occupied).is_empty()
    });
    acc.add_if(us, ROOK_QUEEN_GUN, gun && own_on_file.is_empty());
}

/// A back-rank rook shut in toward the corner by its own king (with three or fewer moves).
fn trapped_by_king<A: Accumulator>(info: &Info, us: Color, p: &Piece, acc: &mut A) {
    let k = info.king[us as usize];
    let (kf, rf) = (k.file() as u32, p.sq.file() as u32);
    let shut_in = (kf >= 4 && rf > kf) || (kf <= 3 && rf < kf);
    let king_rank = rel_rank(us, k);
    if rel_rank(us, p.sq) != 0 || !shut_in || king_rank > 1 {
        return;
    }
    if count(p.attacks & info.mobility_area[us as usize]) > 3 {
        return;
    }
    if king_rank == 0 && !info.castles.has_color(us) {
        acc.add(us, ROOK_TRAPPED_BY_KING, 1);
    } else {
        acc.add(us, ROOK_TRAPPED_BY_KING_PARTIAL, 1);
    }
}

fn queen<A: Accumulator>(info: &Info, us: Color, p: &Piece, acc: &mut A) {
    let (i, them) = (us as usize, us.other());
    if let Some((lo, hi)) = file_span(info.pawns[0] | info.pawns[1]) {
        acc.add(us, QUEEN_PAWN_SPREAD, (hi - lo) as i32);
    }
    let file = file_bb(p.sq);
    acc.add_if(
        us,
        QUEEN_OPP_ROOK_ON_FILE,
        any(info.of(them, Role::Rook) & file),
    );
    let safe = p.attacks & !info.board.by_color(us) & !info.all_attacks[them as usize];
    let half = own_half(us);
    acc.add_if(us, QUEEN_OPP_SIDE, any(safe & !half));
    acc.add_if(us, QUEEN_NO_RETREAT, (safe & half).is_empty());
    acc.add_if(
        us,
        QUEEN_CLOSED_FILE,
        any(front_span(us, p.sq) & info.pawns[i]) && any(file & info.pawns[them as usize]),
    );
}
