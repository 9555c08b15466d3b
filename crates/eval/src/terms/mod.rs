//! The evaluation's terms, one module per group of the table: one code path, generic over the
//! [`Accumulator`].
//!
//! [`Info`] gathers what several terms share (attack maps, pins, outposts, passed pawns);
//! each group of the table then has its own module.

mod bits;
mod candidates;
mod endgame;
mod gnu;
mod gnu_more;
mod king;
mod material;
mod passed;
mod pawns;
mod pieces;
mod scale;
mod threats;

use crate::accumulate::Accumulator;
use crate::score::phase;
use arrayvec::ArrayVec;
use bits::*;
use shakmaty::attacks::{
    between, bishop_attacks, king_attacks, knight_attacks, queen_attacks, ray, rook_attacks,
};
use shakmaty::{Bitboard, Board, Castles, Chess, Color, Position, Role, Square};
use std::cell::OnceCell;

/// Evaluates `pos`, reporting every term to `acc` and finishing with phase and scale.
pub fn evaluate_with<A: Accumulator>(pos: &Chess, acc: &mut A) {
    let info = Info::new(pos);
    for color in Color::ALL {
        material::evaluate(&info, color, acc);
        gnu::evaluate(&info, color, acc);
        pieces::evaluate(&info, color, acc);
        threats::evaluate(&info, color, acc);
        king::evaluate(&info, color, acc);
        pawns::evaluate(&info, color, acc);
        passed::evaluate(&info, color, acc);
        endgame::evaluate(&info, color, acc);
    }
    candidates::evaluate(&info, acc);
    acc.finish(phase(info.board), &scale::scale(&info));
}

/// One non-king, non-pawn piece with its attacks.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Piece {
    pub sq: Square,
    pub role: Role,
    /// Squares attacked (restricted to the pin line when pinned).
    pub attacks: Bitboard,
}

/// Per-position facts shared by the terms. Indices by colour use `color as usize`.
pub(crate) struct Info<'a> {
    pub board: &'a Board,
    pub turn: Color,
    pub castles: &'a Castles,
    pub occupied: Bitboard,
    pub pawns: [Bitboard; 2],
    pub king: [Square; 2],
    /// Attacked squares by side and role (index `role as usize - 1`).
    pub attacks: [[Bitboard; 6]; 2],
    /// Squares each side attacks.
    pub all_attacks: [Bitboard; 2],
    /// Squares each side attacks at least twice.
    pub double_attacks: [Bitboard; 2],
    /// Pieces of each side pinned to their own king.
    pub pinned: [Bitboard; 2],
    /// Knights, bishops, rooks and queens with their attacks, per side, in that order.
    pub pieces: [ArrayVec<Piece, 16>; 2],
    /// Per side, where the knights, bishops, rooks and queens begin in `pieces`, and the
    /// end of the queens.
    role_starts: [[u8; 5]; 2],
    /// Squares where a side's pieces count a move: not own-occupied, not attacked by enemy pawns.
    pub mobility_area: [Bitboard; 2],
    /// Outpost squares per side: ranks 4-7, defended by own pawn, out of enemy pawns' reach.
    pub outposts: [Bitboard; 2],
    /// Passed pawns per side.
    pub passed: [Bitboard; 2],
    /// Files with no pawn of either side.
    pub open_files: Bitboard,
    /// Pawns of each side whose square in front holds an enemy pawn.
    pub rammed: [Bitboard; 2],
    /// Squares each side attacks with anything but its king.
    pub defended_without_king: [Bitboard; 2],
    /// The checks each side can give.
    pub checks: [king::Checks; 2],
    /// Pawns of each side by how enemy pawns hold their advance (a fact of the candidate
    /// families, found when first asked for).
    backward: OnceCell<[candidates::Backward; 2]>,
}

impl<'a> Info<'a> {
    fn new(pos: &'a Chess) -> Info<'a> {
        let board = pos.board();
        let occupied = board.occupied();
        let pawns = [
            board.by_piece(Color::Black.pawn()),
            board.by_piece(Color::White.pawn()),
        ];
        let king = [Color::Black, Color::White]
            .map(|c| board.king_of(c).expect("legal position has kings"));
        let mut info = Info {
            board,
            turn: pos.turn(),
            castles: pos.castles(),
            occupied,
            pawns,
            king,
            attacks: [[Bitboard::EMPTY; 6]; 2],
            all_attacks: [Bitboard::EMPTY; 2],
            double_attacks: [Bitboard::EMPTY; 2],
            pinned: [Bitboard::EMPTY; 2],
            pieces: [ArrayVec::new(), ArrayVec::new()],
            role_starts: [[0; 5]; 2],
            mobility_area: [Bitboard::EMPTY; 2],
            outposts: [Bitboard::EMPTY; 2],
            passed: [Bitboard::EMPTY; 2],
            open_files: Bitboard::EMPTY,
            rammed: [Bitboard::EMPTY; 2],
            defended_without_king: [Bitboard::EMPTY; 2],
            checks: [king::Checks::default(); 2],
            backward: OnceCell::new(),
        };
        for c in Color::ALL {
            info.pinned[c as usize] = info.pinned_pieces(c);
        }
        for c in Color::ALL {
            info.collect_attacks(c);
        }
        let all_pawns = info.pawns[0] | info.pawns[1];
        info.open_files = files_bb(!file_set(all_pawns));
        for c in Color::ALL {
            let i = c as usize;
            let them = c.other() as usize;
            info.mobility_area[i] = !board.by_color(c) & !info.attacks[them][0];
            let reachable = fill_forward(c.other(), info.attacks[them][0]);
            let ranks_4_to_7 =
                rel_rank_bb(c, 3) | rel_rank_bb(c, 4) | rel_rank_bb(c, 5) | rel_rank_bb(c, 6);
            info.outposts[i] = ranks_4_to_7 & info.attacks[i][0] & !reachable;
            let blocked = fill_forward(c.other(), info.pawns[them] | info.attacks[them][0]);
            info.passed[i] = info.pawns[i] & !blocked;
            info.rammed[i] = info.pawns[i] & backward(c, info.pawns[them]);
            info.defended_without_king[i] = info.attacks[i][..5]
                .iter()
                .fold(Bitboard::EMPTY, |acc, &a| acc | a);
        }
        info.checks = [
            king::checks(&info, Color::Black),
            king::checks(&info, Color::White),
        ];
        info
    }

    /// Pieces of `color` that stand alone between an enemy slider and their king.
    fn pinned_pieces(&self, color: Color) -> Bitboard {
        let k = self.king[color as usize];
        let them = self.board.by_color(color.other());
        let snipers = (lines(k) & them & self.board.rooks_and_queens())
            | (diagonals(k) & them & self.board.bishops_and_queens());
        let mut pinned = Bitboard::EMPTY;
        for s in snipers {
            let blockers = between(k, s) & self.occupied;
            if blockers.count() == 1 && (blockers & self.board.by_color(color)).any() {
                pinned |= blockers;
            }
        }
        pinned
    }

    fn collect_attacks(&mut self, c: Color) {
        let i = c as usize;
        let occ = self.occupied;
        let pawn_att = pawn_attacks(c, self.pawns[i]);
        let double = pawn_double_attacks(c, self.pawns[i]);
        self.attacks[i][0] = pawn_att;
        let katt = king_attacks(self.king[i]);
        self.attacks[i][Role::King as usize - 1] = katt;
        let mut union = (pawn_att | katt, double | (pawn_att & katt));
        // One loop per role, each with its own attack function (no choice per piece).
        self.collect_role(c, Role::Knight, &mut union, knight_attacks);
        self.collect_role(c, Role::Bishop, &mut union, |sq| bishop_attacks(sq, occ));
        self.collect_role(c, Role::Rook, &mut union, |sq| rook_attacks(sq, occ));
        self.collect_role(c, Role::Queen, &mut union, |sq| queen_attacks(sq, occ));
        self.role_starts[i][4] = self.pieces[i].len() as u8;
        (self.all_attacks[i], self.double_attacks[i]) = union;
    }

    /// Records `c`'s pieces of `role` with their attacks (`attacks` of their square, kept
    /// to the pin line when pinned), adding the attacks to `(all, double)`: the squares
    /// attacked, and those attacked twice.
    #[inline(always)]
    fn collect_role(
        &mut self,
        c: Color,
        role: Role,
        (all, double): &mut (Bitboard, Bitboard),
        attacks: impl Fn(Square) -> Bitboard,
    ) {
        let i = c as usize;
        self.role_starts[i][role as usize - 2] = self.pieces[i].len() as u8;
        for sq in self.board.by_piece(role.of(c)) {
            let mut a = attacks(sq);
            if self.pinned[i].contains(sq) {
                a &= ray(self.king[i], sq);
            }
            self.attacks[i][role as usize - 1] |= a;
            *double |= *all & a;
            *all |= a;
            // More than 16 pieces cannot arise from a legal game; extra ones are ignored.
            let _ = self.pieces[i].try_push(Piece {
                sq,
                role,
                attacks: a,
            });
        }
    }

    /// The side's pieces of `role` (knight to queen).
    pub fn pieces_of(&self, c: Color, role: Role) -> &[Piece] {
        let (i, r) = (c as usize, role as usize - 2);
        let starts = &self.role_starts[i];
        &self.pieces[i][usize::from(starts[r])..usize::from(starts[r + 1])]
    }

    /// The side's knights and bishops.
    pub fn minor_pieces(&self, c: Color) -> &[Piece] {
        let i = c as usize;
        &self.pieces[i][..usize::from(self.role_starts[i][2])]
    }

    /// Squares attacked by `c` with pieces of `role`.
    pub fn attacked_by(&self, c: Color, role: Role) -> Bitboard {
        self.attacks[c as usize][role as usize - 1]
    }

    /// `c`'s pieces of `role`.
    pub fn of(&self, c: Color, role: Role) -> Bitboard {
        self.board.by_piece(role.of(c))
    }

    /// Number of knights, bishops, rooks and queens of `c`.
    pub fn piece_count(&self, c: Color) -> i32 {
        self.pieces[c as usize].len() as i32
    }

    /// Total number of pawns on the board.
    pub fn pawn_total(&self) -> i32 {
        count(self.pawns[0] | self.pawns[1])
    }

    /// Board openness: 0 with more than 12 pawns, 1 with 7 to 12, 2 with 6 or fewer.
    pub fn openness(&self) -> usize {
        match self.pawn_total() {
            13.. => 0,
            7..=12 => 1,
            _ => 2,
        }
    }
}

/// For a bishop, rook or queen of `role` on `sq`: the squares it attacks, and the units
/// right behind the units it attacks on the same lines (each seen through exactly one).
pub(crate) fn xray_lines(occupied: Bitboard, sq: Square, role: Role) -> (Bitboard, Bitboard) {
    let attacks = |occ: Bitboard| match role {
        Role::Bishop => bishop_attacks(sq, occ),
        Role::Rook => rook_attacks(sq, occ),
        _ => queen_attacks(sq, occ),
    };
    let direct = attacks(occupied);
    let fronts = direct & occupied;
    // Removing the units in front uncovers each line up to the first unit behind them.
    (direct, attacks(occupied & !fronts) & !direct & occupied)
}

/// Adds `param` for `color` once per square of `squares`.
#[inline]
pub(crate) fn add_each<A: Accumulator>(
    acc: &mut A,
    color: Color,
    param: crate::params::SParam,
    squares: Bitboard,
) {
    acc.add(color, param, count(squares));
}

/// Adds `array.at(r - first)` for `color` once per square of `squares` on `color`'s
/// relative rank `r`; every square of `squares` lies on ranks `first..first + N`. A loop
/// over the squares, for sets that are mostly empty (a count per rank adds `N` zeros).
#[inline]
pub(crate) fn add_by_rank<A: Accumulator, const N: usize>(
    acc: &mut A,
    color: Color,
    array: crate::params::SArray<N>,
    squares: Bitboard,
    first: usize,
) {
    for sq in squares {
        acc.add(color, array.at(rel_rank(color, sq) - first), 1);
    }
}

/// Chebyshev distance between two squares.
#[inline]
pub(crate) fn distance(a: Square, b: Square) -> i32 {
    a.distance(b) as i32
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Square::*;

    fn squares(list: &[Square]) -> Bitboard {
        list.iter()
            .fold(Bitboard::EMPTY, |b, &s| b | Bitboard::from(s))
    }

    #[test]
    fn xray_lines_see_one_unit_behind_each_unit_attacked() {
        // A rook on a1: a3 in front of a5 and a7 on the file, c1 in front of e1 on the rank.
        let occupied = squares(&[A1, A3, A5, A7, C1, E1]);
        let (direct, backs) = xray_lines(occupied, A1, Role::Rook);
        assert_eq!(direct, squares(&[A2, A3, B1, C1]));
        assert_eq!(backs, squares(&[A5, E1]), "a7 is two units behind");
        // A bishop on c1 sees nothing behind e3 when the diagonal beyond it is empty.
        let (direct, backs) = xray_lines(squares(&[C1, E3]), C1, Role::Bishop);
        assert_eq!(direct, squares(&[B2, A3, D2, E3]));
        assert_eq!(backs, Bitboard::EMPTY);
        // A queen combines both.
        let (_, backs) = xray_lines(squares(&[D1, D3, D6, F3, G4]), D1, Role::Queen);
        assert_eq!(backs, squares(&[D6, G4]));
    }
}
