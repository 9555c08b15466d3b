//! Coordination (`HarmonyV`): spread of control over empty squares, pawn and piece
//! control on the same square, chains of defending pieces, pieces of both wings working
//! together, clashes between own pieces, and the "magic square".

use super::super::{add_each, bits::*, Info};
use super::QUEEN_WING;
use crate::accumulate::Accumulator;
use crate::table::*;
use shakmaty::attacks::{king_attacks, knight_attacks};
use shakmaty::{Bitboard, Color, Role};

pub(super) fn evaluate<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    complementarity(info, us, acc);
    serial_defence(info, us, acc);
    clashes(info, us, acc);
    magic_square(info, us, acc);
}

/// Empty squares attacked by one, two, three or more own pieces; squares attacked by an
/// own pawn and an own piece; squares covered from both wings.
fn complementarity<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let pieces = &info.pieces[us as usize];
    let (mut once, mut twice, mut thrice) = (Bitboard::EMPTY, Bitboard::EMPTY, Bitboard::EMPTY);
    let (mut from_queen_wing, mut from_king_wing) = (Bitboard::EMPTY, Bitboard::EMPTY);
    for p in pieces.iter() {
        thrice |= twice & p.attacks;
        twice |= once & p.attacks;
        once |= p.attacks;
        if QUEEN_WING.contains(p.sq) {
            from_queen_wing |= p.attacks;
        } else {
            from_king_wing |= p.attacks;
        }
    }
    let empty = !info.occupied;
    for (i, squares) in [once, twice, thrice].into_iter().enumerate() {
        add_each(acc, us, COMPLEMENTARITY.at(i), squares & empty);
    }
    let pawn_cover = info.attacked_by(us, Role::Pawn);
    let minors = info.attacked_by(us, Role::Knight) | info.attacked_by(us, Role::Bishop);
    for (i, cover) in [
        minors,
        info.attacked_by(us, Role::Rook),
        info.attacked_by(us, Role::Queen),
    ]
    .into_iter()
    .enumerate()
    {
        add_each(acc, us, PAWN_PIECE_COVER_OVERLAP.at(i), cover & pawn_cover);
    }
    let shared = count(from_queen_wing & from_king_wing);
    if shared > 0 {
        acc.add(us, WING_COMMUNICATION, shared);
    }
}

/// Pieces in a chain of three or more own pieces each defending the next.
fn serial_defence<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let pieces = &info.pieces[us as usize];
    let all = pieces
        .iter()
        .fold(Bitboard::EMPTY, |b, p| b | Bitboard::from(p.sq));
    // By square of an own piece: the own pieces it defends, and those defending it.
    let mut defends = [Bitboard::EMPTY; 64];
    let mut defended_by = [Bitboard::EMPTY; 64];
    for p in pieces.iter() {
        let down = p.attacks & all & !Bitboard::from(p.sq);
        defends[p.sq as usize] = down;
        for d in down {
            defended_by[d as usize] |= Bitboard::from(p.sq);
        }
    }
    let n = pieces
        .iter()
        .filter(|p| {
            let me = Bitboard::from(p.sq);
            let (up, down) = (defended_by[p.sq as usize], defends[p.sq as usize]);
            let middle = any(up) && any(down) && (count(up | down) > 1);
            let top = down.into_iter().any(|d| any(defends[d as usize] & !me));
            let bottom = up.into_iter().any(|u| any(defended_by[u as usize] & !me));
            middle || top || bottom
        })
        .count() as i32;
    if n > 0 {
        acc.add(us, SERIAL_DEFENCE, n);
    }
}

/// Own rooks side by side; king and queen next to each other; pairs of own sliders (or a
/// slider and the king) a single enemy knight jump could fork.
fn clashes<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let rooks = info.of(us, Role::Rook);
    let side_by_side = count(rooks & Bitboard((rooks.0 & !FILES[7]) << 1));
    if side_by_side > 0 {
        acc.add(us, PIECE_PLACEMENT_CLASH.at(0), side_by_side);
    }
    let k = info.king[us as usize];
    if any(king_attacks(k) & info.of(us, Role::Queen)) {
        acc.add(us, PIECE_PLACEMENT_CLASH.at(1), 1);
    }
    if info.of(us.other(), Role::Knight).is_empty() {
        return;
    }
    let sliders = info.of(us, Role::Bishop) | info.of(us, Role::Rook) | info.of(us, Role::Queen);
    for (i, a) in sliders.into_iter().enumerate() {
        for b in sliders.into_iter().skip(i + 1).chain(std::iter::once(k)) {
            if any(knight_attacks(a) & knight_attacks(b) & !info.board.by_color(us.other())) {
                let with_king = usize::from(b == k);
                acc.add(us, PIECE_PLACEMENT_CLASH.at(2 + with_king), 1);
            }
        }
    }
}

/// Four own pieces on the corners of a 4x4 block (c3, f3, c6, f6).
fn magic_square<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let pieces = (info.board.by_color(us) & !info.board.pawns() & !info.board.kings()).0;
    // Lower left corners: files a to e, ranks 1 to 5 (the block then fits the board).
    const CORNERS: u64 = 0x0000_001f_1f1f_1f1f;
    add_each(
        acc,
        us,
        MAGIC_SQUARE,
        Bitboard(pieces & (pieces >> 3) & (pieces >> 24) & (pieces >> 27) & CORNERS),
    );
}
