//! Bitboard helpers seen from one side: ranks, files, spans and shifts.

use shakmaty::{Bitboard, Color, File, Role, Square};

/// Squares of each file.
pub const FILES: [u64; 8] = {
    let mut f = [0u64; 8];
    let mut i = 0;
    while i < 8 {
        f[i] = 0x0101_0101_0101_0101u64 << i;
        i += 1;
    }
    f
};

/// Squares of the files next to each file.
pub const ADJACENT_FILES: [u64; 8] = {
    let mut f = [0u64; 8];
    let mut i = 0;
    while i < 8 {
        if i > 0 {
            f[i] |= FILES[i - 1];
        }
        if i < 7 {
            f[i] |= FILES[i + 1];
        }
        i += 1;
    }
    f
};

/// `AHEAD[color][rank]`: every square on ranks strictly ahead of `rank` for `color`.
const AHEAD: [[u64; 8]; 2] = {
    let mut t = [[0u64; 8]; 2];
    let mut r = 0;
    while r < 8 {
        // White (index 1) looks up the board, black (index 0) down.
        t[1][r] = if r == 7 { 0 } else { !0u64 << (8 * (r + 1)) };
        t[0][r] = if r == 0 { 0 } else { !0u64 >> (8 * (8 - r)) };
        r += 1;
    }
    t
};

/// The 16 squares c3-f6.
pub const BIG_CENTER: Bitboard = Bitboard(0x0000_3c3c_3c3c_0000);
/// d4, e4, d5, e5.
pub const CENTER: Bitboard = Bitboard::CENTER;

/// The files of each [`centralness`], as bytes for [`files_bb`]: a and h, b and g, c and f,
/// d and e.
pub const FILES_BY_CENTRALNESS: [u8; 4] = [0x81, 0x42, 0x24, 0x18];

/// The squares beside `bb` on the same rank.
#[inline]
pub fn beside(bb: Bitboard) -> Bitboard {
    Bitboard(((bb.0 & !FILES[0]) >> 1) | ((bb.0 & !FILES[7]) << 1))
}

/// The squares a slider on each square reaches on an empty board along `steps` (file,
/// rank).
const fn rays(steps: [(i32, i32); 4]) -> [u64; 64] {
    let mut out = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 4 {
            let (mut f, mut r) = (sq as i32 % 8 + steps[d].0, sq as i32 / 8 + steps[d].1);
            while f >= 0 && f < 8 && r >= 0 && r < 8 {
                out[sq] |= 1 << (r * 8 + f);
                f += steps[d].0;
                r += steps[d].1;
            }
            d += 1;
        }
        sq += 1;
    }
    out
}

/// Per square, its diagonals on an empty board.
const DIAGONALS: [u64; 64] = rays([(1, 1), (1, -1), (-1, 1), (-1, -1)]);

/// Per square, its file and rank on an empty board (the square itself not included).
const LINES: [u64; 64] = rays([(1, 0), (-1, 0), (0, 1), (0, -1)]);

/// The squares on the diagonals through `sq` (a bishop's reach on an empty board): a
/// small table, cheaper than the magic lookup with no blockers.
#[inline]
pub fn diagonals(sq: Square) -> Bitboard {
    Bitboard(DIAGONALS[sq as usize])
}

/// The other squares of the file and rank of `sq` (a rook's reach on an empty board).
#[inline]
pub fn lines(sq: Square) -> Bitboard {
    Bitboard(LINES[sq as usize])
}

/// The lines a slider of `role` (bishop, rook or queen) moves along from `sq`, on an empty
/// board.
#[inline]
pub fn slider_lines(role: Role, sq: Square) -> Bitboard {
    match role {
        Role::Bishop => diagonals(sq),
        Role::Rook => lines(sq),
        _ => diagonals(sq) | lines(sq),
    }
}

/// Rank of `sq` counted from `color`'s side: 0 is its back rank, 7 the promotion rank.
#[inline]
pub fn rel_rank(color: Color, sq: Square) -> usize {
    let r = sq.rank() as usize;
    if color.is_white() {
        r
    } else {
        7 - r
    }
}

/// The squares of `color`'s half of the board (its ranks 1-4).
#[inline]
pub fn own_half(color: Color) -> Bitboard {
    if color.is_white() {
        Bitboard(0x0000_0000_ffff_ffff)
    } else {
        Bitboard(0xffff_ffff_0000_0000)
    }
}

/// Every square of `color`'s relative rank `r` (0-based).
#[inline]
pub fn rel_rank_bb(color: Color, r: usize) -> Bitboard {
    let r = if color.is_white() { r } else { 7 - r };
    Bitboard(0xffu64 << (8 * r))
}

/// Every square of `color`'s relative ranks `first..=last` (0-based).
#[inline]
pub fn rel_ranks_bb(color: Color, first: usize, last: usize) -> Bitboard {
    (first..=last).fold(Bitboard::EMPTY, |b, r| b | rel_rank_bb(color, r))
}

/// The file of `sq` as a bitboard.
#[inline]
pub fn file_bb(sq: Square) -> Bitboard {
    Bitboard(FILES[sq.file() as usize])
}

/// The files next to the file of `sq`.
#[inline]
pub fn adjacent_files(sq: Square) -> Bitboard {
    Bitboard(ADJACENT_FILES[sq.file() as usize])
}

/// Every square on ranks strictly ahead of `sq` for `color`.
#[inline]
pub fn ahead(color: Color, sq: Square) -> Bitboard {
    Bitboard(AHEAD[color as usize][sq.rank() as usize])
}

/// Squares ahead of `sq` on its file.
#[inline]
pub fn front_span(color: Color, sq: Square) -> Bitboard {
    ahead(color, sq) & file_bb(sq)
}

/// Squares a pawn of `color` on `sq` could ever attack.
#[inline]
pub fn attack_span(color: Color, sq: Square) -> Bitboard {
    ahead(color, sq) & adjacent_files(sq)
}

/// Shifts a set one rank toward the opponent of `color`.
#[inline]
pub fn forward(color: Color, bb: Bitboard) -> Bitboard {
    if color.is_white() {
        Bitboard(bb.0 << 8)
    } else {
        Bitboard(bb.0 >> 8)
    }
}

/// Shifts a set one rank back toward `color`'s side.
#[inline]
pub fn backward(color: Color, bb: Bitboard) -> Bitboard {
    forward(color.other(), bb)
}

/// Squares attacked by the pawns in `pawns` of `color`.
#[inline]
pub fn pawn_attacks(color: Color, pawns: Bitboard) -> Bitboard {
    let f = forward(color, pawns).0;
    Bitboard(((f & !FILES[0]) >> 1) | ((f & !FILES[7]) << 1))
}

/// Squares attacked twice by the pawns in `pawns` of `color`.
#[inline]
pub fn pawn_double_attacks(color: Color, pawns: Bitboard) -> Bitboard {
    let f = forward(color, pawns).0;
    Bitboard(((f & !FILES[0]) >> 1) & ((f & !FILES[7]) << 1))
}

/// How central a file is: 0 for a/h, 1 for b/g, 2 for c/f, 3 for d/e.
#[inline]
pub fn centralness(file: File) -> usize {
    let f = file as usize;
    f.min(7 - f)
}

/// Steps of centre proximity: 0 on the edge ring, 3 on the four centre squares.
#[inline]
pub fn center_proximity(sq: Square) -> i32 {
    let f = centralness(sq.file());
    let r = sq.rank() as usize;
    f.min(r.min(7 - r)) as i32
}

/// The squares at least one, two and three steps of centre proximity in: the inner 6x6,
/// 4x4 and 2x2 blocks.
const CENTER_BLOCKS: [u64; 3] = [
    0x007e_7e7e_7e7e_7e00,
    0x0000_3c3c_3c3c_0000,
    0x0000_0018_1800_0000,
];

/// The sum of the centre proximities of the squares of `bb`, from three counts.
#[inline]
pub fn center_proximity_sum(bb: Bitboard) -> i32 {
    CENTER_BLOCKS.iter().map(|&b| count(bb & Bitboard(b))).sum()
}

/// Every square ahead of `bb` for `color`, and `bb` itself.
#[inline]
pub fn fill_forward(color: Color, bb: Bitboard) -> Bitboard {
    let mut b = bb.0;
    if color.is_white() {
        b |= b << 8;
        b |= b << 16;
        b |= b << 32;
    } else {
        b |= b >> 8;
        b |= b >> 16;
        b |= b >> 32;
    }
    Bitboard(b)
}

/// Every square ahead of a square of `bb` for `color` on its file (`bb` itself only where
/// it is ahead of another).
#[inline]
pub fn front_spans(color: Color, bb: Bitboard) -> Bitboard {
    forward(color, fill_forward(color, bb))
}

/// The files holding a square of `bb`, as a byte (bit 0 = file a).
#[inline]
pub fn file_set(bb: Bitboard) -> u8 {
    let mut b = bb.0;
    b |= b >> 32;
    b |= b >> 16;
    b |= b >> 8;
    b as u8
}

/// The lowest and highest file holding a square of `bb`.
#[inline]
pub fn file_span(bb: Bitboard) -> Option<(usize, usize)> {
    let files = file_set(bb);
    (files != 0).then(|| {
        (
            files.trailing_zeros() as usize,
            7 - files.leading_zeros() as usize,
        )
    })
}

/// Every square of the files in `files` (bit 0 = file a).
#[inline]
pub fn files_bb(files: u8) -> Bitboard {
    Bitboard(u64::from(files) * 0x0101_0101_0101_0101)
}

/// `bb` and every square one king step away from it.
#[inline]
pub fn expand(bb: Bitboard) -> Bitboard {
    let w = (bb.0 & !FILES[0]) >> 1;
    let e = (bb.0 & !FILES[7]) << 1;
    let row = bb.0 | w | e;
    Bitboard(row | (row << 8) | (row >> 8))
}

/// The pawns of `pawns` with no other on a neighbouring file.
#[inline]
pub fn isolated(pawns: Bitboard) -> Bitboard {
    let files = file_set(pawns);
    pawns & !files_bb((files << 1) | (files >> 1))
}

/// Every square one king step away from a square of `bb` (a square of `bb` only when it
/// is next to another).
#[inline]
pub fn neighbours(bb: Bitboard) -> Bitboard {
    let row = bb | beside(bb);
    beside(bb) | Bitboard((row.0 << 8) | (row.0 >> 8))
}

/// Whether any set bit exists.
#[inline]
pub fn any(bb: Bitboard) -> bool {
    bb.0 != 0
}

/// Squares whose rank number (0 = the first rank) has bit 0, bit 1 and bit 2 set.
const RANK_BITS: [u64; 3] = [
    0xff00_ff00_ff00_ff00,
    0xffff_0000_ffff_0000,
    0xffff_ffff_0000_0000,
];

/// The sum of the relative ranks (0 = own back rank) of the squares of `bb` for `color`,
/// from three counts: the rank's bits one by one.
#[inline]
pub fn rel_rank_sum(color: Color, bb: Bitboard) -> i32 {
    let sum = RANK_BITS
        .iter()
        .enumerate()
        .map(|(bit, &ranks)| count(bb & Bitboard(ranks)) << bit)
        .sum::<i32>();
    if color.is_white() {
        sum
    } else {
        7 * count(bb) - sum
    }
}

/// Number of set bits.
#[inline]
pub fn count(bb: Bitboard) -> i32 {
    bb.0.count_ones() as i32
}

/// A count as a formula input byte (formula inputs are bytes; counts beyond 255 saturate).
#[inline]
pub fn small(n: i32) -> u8 {
    n.clamp(0, 255) as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Square::*;

    #[test]
    fn slider_lines_are_the_moves_of_the_slider_on_an_empty_board() {
        use shakmaty::attacks::{bishop_attacks, queen_attacks, rook_attacks};
        for sq in Square::ALL {
            let empty = Bitboard::EMPTY;
            assert_eq!(slider_lines(Role::Bishop, sq), bishop_attacks(sq, empty));
            assert_eq!(slider_lines(Role::Rook, sq), rook_attacks(sq, empty));
            assert_eq!(slider_lines(Role::Queen, sq), queen_attacks(sq, empty));
        }
    }

    #[test]
    fn relative_rank_sums_count_ranks_from_each_side() {
        let bb = Bitboard::from(A1) | Bitboard::from(C4) | Bitboard::from(H8);
        assert_eq!(rel_rank_sum(Color::White, bb), 3 + 7);
        assert_eq!(rel_rank_sum(Color::Black, bb), 7 + 4);
        for sq in Square::ALL {
            let one = Bitboard::from(sq);
            for color in Color::ALL {
                assert_eq!(rel_rank_sum(color, one), rel_rank(color, sq) as i32, "{sq}");
            }
        }
    }

    #[test]
    fn empty_board_rays_are_the_sliders_reach_with_no_blocker() {
        use shakmaty::attacks::{bishop_attacks, rook_attacks};
        for sq in Square::ALL {
            assert_eq!(diagonals(sq), bishop_attacks(sq, Bitboard::EMPTY), "{sq}");
            assert_eq!(lines(sq), rook_attacks(sq, Bitboard::EMPTY), "{sq}");
        }
        assert_eq!(count(diagonals(D4)), 13);
        assert_eq!(count(lines(A1)), 14);
    }

    #[test]
    fn files_by_centralness_hold_the_files_of_each_centralness() {
        for file in shakmaty::File::ALL {
            let group = files_bb(FILES_BY_CENTRALNESS[centralness(file)]);
            assert!(group.contains(Square::from_coords(file, shakmaty::Rank::First)));
        }
        let all = FILES_BY_CENTRALNESS.iter().fold(0u8, |a, &f| a | f);
        assert_eq!(
            (
                all,
                FILES_BY_CENTRALNESS.iter().map(|f| f.count_ones()).sum()
            ),
            (0xff, 8)
        );
    }

    #[test]
    fn sets_of_pawns_by_their_neighbours() {
        let pawns =
            Bitboard::from(A2) | Bitboard::from(C2) | Bitboard::from(D3) | Bitboard::from(H4);
        assert_eq!(isolated(pawns), Bitboard::from(A2) | Bitboard::from(H4));
        assert_eq!(
            neighbours(pawns) & pawns,
            Bitboard::from(C2) | Bitboard::from(D3)
        );
        assert_eq!(beside(Bitboard::from(A2)), Bitboard::from(B2));
        let spans = front_spans(Color::White, Bitboard::from(E2) | Bitboard::from(E5));
        assert!(spans.contains(E5) && spans.contains(E8) && !spans.contains(E2));
        assert_eq!(
            front_spans(Color::Black, Bitboard::from(B7)),
            Bitboard::from_file(shakmaty::File::B) & !Bitboard::from(B8) & !Bitboard::from(B7)
        );
    }

    #[test]
    fn spans_look_ahead_for_each_side() {
        assert!(front_span(Color::White, E4).contains(E8));
        assert!(!front_span(Color::White, E4).contains(E4));
        assert!(front_span(Color::Black, E4).contains(E1));
        assert!(attack_span(Color::White, A2).contains(B7));
        assert!(!attack_span(Color::White, A2).contains(A7));
        assert_eq!(count(ahead(Color::White, H8)), 0);
        assert_eq!(count(ahead(Color::Black, A1)), 0);
    }

    #[test]
    fn pawn_attacks_stay_on_the_board() {
        let a = pawn_attacks(Color::White, Bitboard::from(A2) | Bitboard::from(H2));
        assert_eq!(a, Bitboard::from(B3) | Bitboard::from(G3));
        let d = pawn_double_attacks(Color::Black, Bitboard::from(C5) | Bitboard::from(E5));
        assert_eq!(d, Bitboard::from(D4));
    }

    #[test]
    fn file_helpers_agree_with_the_board() {
        let bb = Bitboard::from(B3) | Bitboard::from(G7);
        assert_eq!(file_span(bb), Some((1, 6)));
        assert_eq!(file_span(Bitboard::EMPTY), None);
        assert_eq!(files_bb(!file_set(bb)).count(), 48);
        assert!(fill_forward(Color::Black, Bitboard::from(E4)).contains(E1));
        assert!(!fill_forward(Color::White, Bitboard::from(E4)).contains(E3));
    }

    #[test]
    fn centre_proximity_runs_from_edge_to_centre() {
        assert_eq!(center_proximity(A1), 0);
        assert_eq!(center_proximity(B2), 1);
        assert_eq!(center_proximity(C6), 2);
        assert_eq!(center_proximity(E4), 3);
        for sq in Square::ALL {
            assert_eq!(
                center_proximity_sum(Bitboard::from(sq)),
                center_proximity(sq),
                "{sq}"
            );
        }
        assert_eq!(
            center_proximity_sum(Bitboard::from(A1) | Bitboard::from(E4)),
            3
        );
    }
}
