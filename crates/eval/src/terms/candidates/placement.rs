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
    }
    for p in info.pieces_of(us, Role::Knight) {
        ways += knight_directions(p.sq, p.attacks & !own);
        let support = count(super::own_pawn_attackers(info, us, p.sq));
        if support > 0 {
            acc.add(us, KNIGHT_PAWN_SUPPORT.at_most(support as usize - 1), 1);
        }
    }
    for role in [Role::Bishop, Role::Rook, Role::Queen] {
        for p in info.pieces_of(us, role) {
            ways += slider_directions(p.sq, role, p.attacks & !own);
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

/// In how many directions a knight on `sq` has a move (`moves`): the long leg of the jump
/// (forward, back, left, right).
fn knight_directions(sq: shakmaty::Square, moves: Bitboard) -> i32 {
    let jumps = knight_attacks(sq) & moves;
    KNIGHT_LEGS[sq as usize]
        .iter()
        .map(|&leg| i32::from(any(jumps & Bitboard(leg))))
        .sum()
}

/// In how many directions a slider of `role` on `sq` has a move (`moves`): its lines.
fn slider_directions(sq: shakmaty::Square, role: Role, moves: Bitboard) -> i32 {
    count(king_attacks(sq) & slider_lines(role, sq) & moves)
}

/// Per square, a knight's jumps two ranks up, two ranks down, two files right and two
/// files left: one direction each, whatever the side.
const KNIGHT_LEGS: [[u64; 4]; 64] = knight_legs();

const fn knight_legs() -> [[u64; 4]; 64] {
    let mut out = [[0; 4]; 64];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = (sq as i32 % 8, sq as i32 / 8);
        let steps = [
            [(1, 2), (-1, 2)],
            [(1, -2), (-1, -2)],
            [(2, 1), (2, -1)],
            [(-2, 1), (-2, -1)],
        ];
        let mut leg = 0;
        while leg < 4 {
            let mut k = 0;
            while k < 2 {
                let (tf, tr) = (f + steps[leg][k].0, r + steps[leg][k].1);
                if tf >= 0 && tf < 8 && tr >= 0 && tr < 8 {
                    out[sq][leg] |= 1 << (tr * 8 + tf);
                }
                k += 1;
            }
            leg += 1;
        }
        sq += 1;
    }
    out
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
    // Own pawns behind and ahead of each piece: on its file, on its diagonals.
    let mut pawns = [0; 4];
    for p in info.pieces[us as usize].iter() {
        let (behind, before) = (ahead(us.other(), p.sq) & own, ahead(us, p.sq) & own);
        for (line, i) in [(file_bb(p.sq), 0), (diagonals(p.sq), 2)] {
            pawns[i] += count(line & behind);
            pawns[i + 1] += count(line & before);
        }
    }
    for (i, n) in pawns.into_iter().enumerate() {
        acc.add(us, PIECE_AHEAD_OF_PAWN.at(i), n);
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

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Square;

    #[test]
    fn knight_legs_split_the_jumps_into_four_directions() {
        for sq in Square::ALL {
            let legs = KNIGHT_LEGS[sq as usize];
            let union = legs.iter().fold(0, |u, &leg| u | leg);
            assert_eq!(Bitboard(union), knight_attacks(sq), "{sq}");
            let total: u32 = legs.iter().map(|leg| leg.count_ones()).sum();
            assert_eq!(
                total,
                knight_attacks(sq).count() as u32,
                "{sq}: legs overlap"
            );
        }
        // From b1: up to a3 and c3, right to d2; nothing down or left.
        let b1 = KNIGHT_LEGS[Square::B1 as usize];
        assert_eq!(
            b1[0],
            (Bitboard::from(Square::A3) | Bitboard::from(Square::C3)).0
        );
        assert_eq!([b1[1], b1[3]], [0, 0]);
        assert_eq!(b1[2], Bitboard::from(Square::D2).0);
    }
}
