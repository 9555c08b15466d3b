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
    acc.add(us, WING_COMMUNICATION, shared);
}

/// Pieces in a chain of three or more own pieces each defending the next.
fn serial_defence<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let pieces = &info.pieces[us as usize];
    // Per piece, the pieces it defends and those defending it, a bit per piece number,
    // found from the defended squares (a loop over the defences, not over every pair).
    let (mut number, mut on) = ([0u8; 64], Bitboard::EMPTY);
    for (i, p) in pieces.iter().enumerate() {
        number[p.sq as usize] = i as u8;
        on |= Bitboard::from(p.sq);
    }
    let (mut down, mut up) = ([0u16; 16], [0u16; 16]);
    for (i, p) in pieces.iter().enumerate() {
        for sq in p.attacks & on {
            let j = usize::from(number[sq as usize]);
            down[i] |= 1 << j;
            up[j] |= 1 << i;
        }
    }
    // The pieces one more step along `links` from the pieces in `set`.
    let step = |links: &[u16; 16], mut set: u16| {
        let mut out = 0;
        while set != 0 {
            out |= links[set.trailing_zeros() as usize];
            set &= set - 1;
        }
        out
    };
    let mut chained = 0;
    for i in 0..pieces.len() {
        let me = 1u16 << i;
        let middle = (down[i] != 0) & (up[i] != 0) & ((down[i] | up[i]).count_ones() > 1);
        let top = step(&down, down[i]) & !me != 0;
        let bottom = step(&up, up[i]) & !me != 0;
        chained += i32::from(middle | top | bottom);
    }
    acc.add(us, SERIAL_DEFENCE, chained);
}

/// Own rooks side by side; king and queen next to each other; pairs of own sliders (or a
/// slider and the king) a single enemy knight jump could fork.
fn clashes<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let rooks = info.of(us, Role::Rook);
    let side_by_side = count(rooks & Bitboard((rooks.0 & !FILES[7]) << 1));
    acc.add(us, PIECE_PLACEMENT_CLASH.at(0), side_by_side);
    let k = info.king[us as usize];
    acc.add_if(
        us,
        PIECE_PLACEMENT_CLASH.at(1),
        any(king_attacks(k) & info.of(us, Role::Queen)),
    );
    if info.of(us.other(), Role::Knight).is_empty() {
        return;
    }
    let sliders = info.of(us, Role::Bishop) | info.of(us, Role::Rook) | info.of(us, Role::Queen);
    let free = !info.board.by_color(us.other());
    let king_jumps = knight_attacks(k);
    // Forkable pairs of sliders, and of a slider and the king.
    let (mut later, mut pairs, mut with_king) = (sliders, 0, 0);
    for a in sliders {
        later &= !Bitboard::from(a);
        let forks = knight_attacks(a) & free;
        for b in later {
            pairs += i32::from(any(forks & knight_attacks(b)));
        }
        with_king += i32::from(any(forks & king_jumps));
    }
    for (i, n) in [(2, pairs), (3, with_king)] {
        acc.add(us, PIECE_PLACEMENT_CLASH.at(i), n);
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
