//! A fast reader of the position fields in their common form, for loading millions of
//! labelled lines: the board as eight bitboards from one table lookup per character, the
//! other fields as standard FEN writes them. Whatever it does not read (pockets and
//! promoted pieces of variants, castling rights given by file, remaining checks, `_` as a
//! separator, counters of ten digits or more) is left to shakmaty's full FEN parser, and
//! judging whether the position is legal always stays with shakmaty.

use shakmaty::{Bitboard, ByColor, ByRole, Color, File, Rank, Setup, Square};
use std::num::NonZeroU32;

/// What one character of a board field does.
#[derive(Copy, Clone)]
struct BoardChar {
    /// The role it places (0 = pawn .. 5 = king), 6 for none.
    role: u8,
    /// Whether the piece is white.
    white: bool,
    /// Whether it places a piece.
    piece: bool,
    /// Files it moves along the rank: 1 for a piece, the digit for a digit.
    advance: u8,
    /// Neither a piece, a digit nor `/`.
    bad: bool,
}

/// Every byte as a board character.
const BOARD_CHARS: [BoardChar; 256] = board_chars();

const fn board_chars() -> [BoardChar; 256] {
    let none = BoardChar {
        role: 6,
        white: false,
        piece: false,
        advance: 0,
        bad: true,
    };
    let mut table = [none; 256];
    table[b'/' as usize].bad = false;
    let letters = *b"pnbrqk";
    let mut role = 0;
    while role < 6 {
        let black = BoardChar {
            role: role as u8,
            white: false,
            piece: true,
            advance: 1,
            bad: false,
        };
        table[letters[role] as usize] = black;
        table[letters[role].to_ascii_uppercase() as usize] = BoardChar {
            white: true,
            ..black
        };
        role += 1;
    }
    let mut digit = b'1';
    while digit <= b'8' {
        table[digit as usize] = BoardChar {
            advance: digit - b'0',
            bad: false,
            ..none
        };
        digit += 1;
    }
    table
}

/// The setup that shakmaty's FEN parser makes of `fields` (FEN or EPD position fields),
/// when they are in the common form this reader knows; `None` otherwise (the caller then
/// asks shakmaty, which also names what is wrong).
pub(crate) fn setup(fields: &[u8]) -> Option<Setup> {
    // A field with `_` in it (shakmaty's other separator) is never read: it is no piece,
    // digit, side, castling letter, square or counter.
    let mut parts = fields.split(|&b| b == b' ').filter(|p| !p.is_empty());
    let board = board(parts.next()?)?;
    let turn = match parts.next() {
        Some(b"w") | None => Color::White,
        Some(b"b") => Color::Black,
        Some(_) => return None,
    };
    let castling_rights = match parts.next() {
        Some(b"-") | None => Bitboard::EMPTY,
        Some(letters) => castling(&board, letters)?,
    };
    let ep_square = match parts.next() {
        Some(b"-") | None => None,
        Some(&[file @ b'a'..=b'h', rank @ b'1'..=b'8']) => Some(Square::from_coords(
            File::new(u32::from(file - b'a')),
            Rank::new(u32::from(rank - b'1')),
        )),
        Some(_) => return None,
    };
    let halfmoves = parts.next().map_or(Some(0), counter)?;
    let fullmoves = match parts.next() {
        None => NonZeroU32::MIN,
        Some(part) => NonZeroU32::new(counter(part)?).unwrap_or(NonZeroU32::MIN),
    };
    if parts.next().is_some() {
        return None;
    }
    Some(Setup {
        board,
        turn,
        castling_rights,
        ep_square,
        halfmoves,
        fullmoves,
        ..Setup::empty()
    })
}

/// The board of a board field: eight ranks from the eighth down, `/` between them. Read
/// without a branch per character (what a character does is data the processor cannot
/// guess): every character is applied, and any misstep marks the field as not read.
fn board(field: &[u8]) -> Option<shakmaty::Board> {
    let (mut roles, mut colors) = ([0u64; 7], [0u64; 2]);
    let (mut rank, mut file, mut bad) = (7u32, 0u32, false);
    for &byte in field {
        let ch = BOARD_CHARS[usize::from(byte)];
        let slash = byte == b'/';
        // A `/` ends a full rank above the first; a piece needs a file left on its rank.
        bad |= ch.bad | (slash & ((file != 8) | (rank == 0))) | (ch.piece & (file >= 8));
        // Past the last file the shift wraps onto some square, but the field is bad then.
        let bit = u64::from(ch.piece).wrapping_shl(rank * 8 + file);
        roles[usize::from(ch.role)] |= bit;
        colors[usize::from(ch.white)] |= bit;
        file = if slash {
            0
        } else {
            file + u32::from(ch.advance)
        };
        rank -= u32::from(slash & (rank > 0));
        bad |= file > 8;
    }
    if bad || rank != 0 || file != 8 {
        return None;
    }
    let [pawn, knight, bishop, rook, queen, king, _] = roles.map(Bitboard);
    let by_role = ByRole {
        pawn,
        knight,
        bishop,
        rook,
        queen,
        king,
    };
    let [black, white] = colors.map(Bitboard);
    shakmaty::Board::try_from_bitboards(by_role, ByColor { white, black }).ok()
}

/// Castling rights given as `K`, `Q`, `k` and `q`, as the rooks they stand for: the
/// outermost rook on that side of the back rank (past the king), else the corner.
fn castling(board: &shakmaty::Board, letters: &[u8]) -> Option<Bitboard> {
    let mut rights = Bitboard::EMPTY;
    for &ch in letters {
        let color = Color::from_white(ch.is_ascii_uppercase());
        let back = color.backrank();
        let candidates = board.by_color(color) & (board.rooks() | board.kings()) & back;
        let (outermost, corner) = match ch.to_ascii_lowercase() {
            b'k' => (candidates.last(), File::H),
            b'q' => (candidates.first(), File::A),
            _ => return None,
        };
        let rook = outermost.filter(|&sq| board.rooks().contains(sq));
        rights.add(rook.unwrap_or_else(|| Square::from_coords(corner, back)));
    }
    let per_side_at_most_two = Color::ALL
        .into_iter()
        .all(|c| (rights & c.backrank()).count() <= 2);
    per_side_at_most_two.then_some(rights)
}

/// A move counter of one to nine digits.
fn counter(part: &[u8]) -> Option<u32> {
    if part.is_empty() || part.len() > 9 || !part.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(part.iter().fold(0, |n, &d| n * 10 + u32::from(d - b'0')))
}

#[cfg(test)]
mod tests {
    use super::setup;
    use shakmaty::fen::Fen;

    /// What shakmaty's own parser makes of `fields`.
    fn shakmaty(fields: &str) -> Option<shakmaty::Setup> {
        Fen::from_ascii(fields.as_bytes()).ok().map(Fen::into_setup)
    }

    #[test]
    fn common_fields_read_as_shakmaty_reads_them() {
        let cases = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R w Kq -",
            "r3k2r/8/8/8/8/8/8/1R2K1R1 w KQkq - 3 40",
            "4k3/8/8/8/8/8/8/4K2R w K - 99 100",
            "8/8/8/8/8/8/8/K6k b - -",
            "8/8/8/8/8/8/8/K6k",
            "8/8/8/8/8/8/8/K6k w - - 0 0",
            "5k2/r6p/3p4/5n2/7P/8/7K/8 w - - 2 54",
            "4k3/8/8/8/8/8/8/4K3  w  -  -",
            "4k3/8/8/8/8/8/44/4K3 w - -",
        ];
        for case in cases {
            let fast = setup(case.as_bytes());
            assert!(fast.is_some(), "{case}: the common form is read");
            assert_eq!(fast, shakmaty(case), "{case}");
        }
    }

    #[test]
    fn every_shipped_position_reads_as_shakmaty_reads_it() {
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/");
        let mut lines = 0;
        for file in ["train.epd", "others.epd", "openings.epd", "positions.fen"] {
            let text = std::fs::read_to_string(format!("{data}{file}")).expect("shipped data");
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let (fields, _) = crate::epd::split_position(line);
                let fast = setup(fields.as_bytes());
                assert!(fast.is_some(), "{file}: {line}");
                assert_eq!(fast, shakmaty(&fields), "{file}: {line}");
                lines += 1;
            }
        }
        assert!(lines > 70_000, "{lines} lines");
    }

    /// Asserts the fast reader leaves every case to shakmaty, which reads it or not as
    /// `shakmaty_reads` says.
    fn left_to_shakmaty(cases: &[&str], shakmaty_reads: bool) {
        for case in cases {
            assert_eq!(setup(case.as_bytes()), None, "{case}");
            assert_eq!(shakmaty(case).is_some(), shakmaty_reads, "{case}");
        }
    }

    #[test]
    fn other_forms_are_left_to_shakmaty() {
        let valid = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ~KBNR w KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3+3 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR_w_KQkq_-_0_1",
            "8/8/8/8/8/8/8/K6k w - - 12345678901 1",
            // An eighth `/` starts a pocket (empty here).
            "8/8/8/8/8/8/8/K6k/ w - -",
        ];
        left_to_shakmaty(&valid, true);
    }

    #[test]
    fn malformed_fields_are_never_read() {
        let malformed = [
            "8/8/8/8/8/8/8/K6k x - -",
            "8/8/8/8/8/8/8/K6",
            "8/8/8/8/8/8/8/K7k",
            "8/8/8/8/8/8/8/8/K6k",
            "8/8/8/8/8/8/8/K6k w - e9",
            "8/8/8/8/8/8/8/K6k w X -",
            "8/8/8/8/8/8/8/K6k w - - x 1",
            "8/8/8/8/8/8/8/K6k w - - 0 1 extra",
            "8/8/8/8/8/8/8/K5xk w - -",
            "/8/8/8/8/8/8/8/K6k w - -",
            "8/8/8/8/8/8/8/K6k1 w - -",
            "8/8/8/8/8/8/8/K6kK w - -",
        ];
        left_to_shakmaty(&malformed, false);
    }
}
