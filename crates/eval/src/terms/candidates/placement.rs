//! Piece placement and grading (`PlacementV`): pieces by rank and by centre ring, mobility
//! in the enemy half and in how many directions, a lone piece in the enemy camp, pawn
//! support for knights, pieces against fixed pairs, queen and bishop colours, pieces ahead
//! of own pawns, several queens, and piece and pawn values by the material on the board.

use super::super::{add_each, bits::*, Info};
use crate::accumulate::Accumulator;
use crate::table::*;
use shakmaty::attacks::{king_attacks, knight_attacks};
use shakmaty::{Bitboard, Color, Role};

/// Light squares.
const LIGHT: Bitboard = Bitboard(0x55aa_55aa_55aa_55aa);

pub(super) fn evaluate<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let own = info.board.by_color(us);
    let enemy_half = !own_half(us);
    let (mut deep, mut ways) = (0, 0);
    for p in info.pieces[us as usize].iter() {
        acc.add(us, PIECE_RANK.at(rel_rank(us, p.sq)), 1);
        let ring = 3 - center_proximity(p.sq) as usize;
        acc.add(us, PIECE_CENTER_RING.at(ring), 1);
        deep += count(p.attacks & info.mobility_area[us as usize] & enemy_half);
        ways += directions(p.sq, p.role, p.attacks & !own);
        if p.role == Role::Knight {
            let support = count(super::own_pawn_attackers(info, us, p.sq));
            if support > 0 {
                acc.add(us, KNIGHT_PAWN_SUPPORT.at_most(support as usize - 1), 1);
            }
        }
    }
    for (param, n) in [(MOBILITY_ENEMY_CAMP, deep), (MOBILITY_DIRECTIONS, ways)] {
        acc.add(us, param, n);
    }
    let pieces = own & !info.board.pawns() & !info.board.kings();
    acc.add_if(
        us,
        SINGLE_PIECE_IN_ENEMY_CAMP,
        count(pieces & enemy_half) == 1,
    );
    fixed_pairs(info, us, acc);
    pieces_and_pawns(info, us, acc);
    material(info, us, acc);
}

/// In how many directions a piece on `sq` has a move (`moves`): lines for sliders, the
/// long leg of the jump (forward, back, left, right) for a knight.
fn directions(sq: shakmaty::Square, role: Role, moves: Bitboard) -> i32 {
    if role == Role::Knight {
        // The jumps two ranks up, two down, two files right and two left: one direction
        // each, whatever the side.
        let jumps = (knight_attacks(sq) & moves).0;
        let (r, f) = (sq.rank() as i32, sq.file() as i32);
        let on_rank = |r: i32| (0..8).contains(&r) && jumps & (0xff << (8 * r)) != 0;
        let on_file = |f: i32| (0..8).contains(&f) && jumps & FILES[f as usize] != 0;
        return [
            on_rank(r + 2),
            on_rank(r - 2),
            on_file(f + 2),
            on_file(f - 2),
        ]
        .into_iter()
        .map(i32::from)
        .sum();
    }
    let lines = match role {
        Role::Bishop => diagonals(sq),
        Role::Rook => lines(sq),
        _ => diagonals(sq) | lines(sq),
    };
    count(king_attacks(sq) & lines & moves)
}

/// Own knights, rooks, queens and bishops, once per fixed pair of pawns on the board.
fn fixed_pairs<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let pairs = count(info.rammed[0]);
    if pairs == 0 {
        return;
    }
    for (i, role) in [Role::Knight, Role::Rook, Role::Queen, Role::Bishop]
        .into_iter()
        .enumerate()
    {
        let n = count(info.of(us, role));
        acc.add(us, FIXED_PAIR_PIECE_AFFINITY.at(i), n * pairs);
    }
}

/// Pieces ahead of or behind own pawns on their file or diagonal; a queen on the colour
/// the own bishops do not cover.
fn pieces_and_pawns<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let own = info.pawns[us as usize];
    for p in info.pieces[us as usize].iter() {
        let on_file = file_bb(p.sq) & own;
        let on_diagonal = diagonals(p.sq) & own;
        for (pawns, i) in [(on_file, 0), (on_diagonal, 2)] {
            let behind_piece = count(pawns & ahead(us.other(), p.sq));
            let ahead_of_piece = count(pawns & ahead(us, p.sq));
            acc.add(us, PIECE_AHEAD_OF_PAWN.at(i), behind_piece);
            acc.add(us, PIECE_AHEAD_OF_PAWN.at(i + 1), ahead_of_piece);
        }
    }
    let bishops = info.of(us, Role::Bishop);
    let queens = info.of(us, Role::Queen);
    let one_colour = any(bishops) && (bishops & LIGHT == bishops || (bishops & LIGHT).is_empty());
    if one_colour && any(queens & if any(bishops & LIGHT) { !LIGHT } else { LIGHT }) {
        acc.add(us, QUEEN_BISHOP_OPPOSITE_COLOR, 1);
    }
}

/// Several queens; piece values by the pawns on the board; pawn values by the pieces.
fn material<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let queens = count(info.of(us, Role::Queen));
    if queens >= 2 {
        acc.add(us, MULTIPLE_QUEENS.at_most(queens as usize - 2), queens);
    }
    let bucket = match info.pawn_total() {
        13.. => 0,
        9..=12 => 1,
        5..=8 => 2,
        _ => 3,
    };
    for (i, role) in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight]
        .into_iter()
        .enumerate()
    {
        add_each(
            acc,
            us,
            PIECE_VALUE_BY_PAWN_COUNT.at(i * 4 + bucket),
            info.of(us, role),
        );
    }
    let b = info.board;
    let material =
        6 * count(b.knights() | b.bishops()) + 9 * count(b.rooks()) + 18 * count(b.queens());
    let pawns = count(info.pawns[us as usize]);
    if pawns > 0 {
        let i = match material {
            91.. => 0,
            61..=90 => 1,
            31..=60 => 2,
            _ => 3,
        };
        acc.add(us, PAWN_VALUE_BY_PIECE_MATERIAL.at(i), pawns);
    }
}
