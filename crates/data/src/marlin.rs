//! marlinformat: the 32-byte position records of NNUE data generators (marlinflow's
//! `PackedBoard`), each a position with its engine's score and its game's result.
//!
//! A record, little-endian: the occupied squares as a 64-bit board (a1 the lowest bit); a
//! nibble per occupied square in square order (16 bytes, the low nibble first), its low
//! three bits the piece (pawn 0, knight 1, bishop 2, rook 3, queen 4, king 5, and 6 for a
//! rook its side may still castle with), its high bit set for Black; a byte of the side to
//! move (bit 7 set: Black) and the en passant square (64: none); the halfmove clock (a
//! byte) and the move number (16 bits); the score in centipawns (16 bits, White's view);
//! the result (0 Black won, 1 a draw, 2 White won); a byte that is not read.

use crate::epd::{Label, Labelled, Outcome};
use shakmaty::{
    CastlingMode, Chess, Color, EnPassantMode, FromSetup, Piece, Position, Role, Square,
};
use std::num::NonZeroU32;

use crate::records::{outcome_of, read_board, result_byte};
pub use crate::records::{RecordError, RECORD};

/// The role and castling mark of a piece nibble's low three bits.
fn role_of(code: u8) -> Option<(Role, bool)> {
    Some(match code {
        0 => (Role::Pawn, false),
        1 => (Role::Knight, false),
        2 => (Role::Bishop, false),
        3 => (Role::Rook, false),
        4 => (Role::Queen, false),
        5 => (Role::King, false),
        6 => (Role::Rook, true),
        _ => return None,
    })
}

/// Reads one record: the position, White's result and the score (White's view).
///
/// # Errors
/// A record whose bytes are not a legal position with a result.
pub fn read_record(record: &[u8; RECORD]) -> Result<Labelled, RecordError> {
    read_bytes(record)
}

/// [`read_record`] of a slice of [`RECORD`] bytes.
///
/// # Errors
/// As [`read_record`]; a slice of another length is not a board.
pub fn read_bytes(record: &[u8]) -> Result<Labelled, RecordError> {
    let mut setup = read_board(record, |nibble| {
        let (role, castles) = role_of(nibble & 7)?;
        let color = Color::from_white(nibble & 8 == 0);
        Some((Piece { color, role }, castles))
    })?;
    setup.turn = Color::from_white(record[24] & 0x80 == 0);
    setup.ep_square = Square::try_from(record[24] & 0x7F).ok();
    setup.halfmoves = u32::from(record[25]);
    let fullmoves = u16::from_le_bytes([record[26], record[27]]);
    setup.fullmoves = NonZeroU32::new(u32::from(fullmoves)).unwrap_or(NonZeroU32::MIN);
    let score = i16::from_le_bytes([record[28], record[29]]);
    let outcome = outcome_of(record[30])?;
    let position = Chess::from_setup(setup, CastlingMode::Standard)
        .or_else(shakmaty::PositionError::ignore_invalid_ep_square)
        .map_err(|_| RecordError::Illegal)?;
    Ok(Labelled {
        position,
        label: Label::from(outcome),
        score: Some(i32::from(score)),
        game: None,
    })
}

/// The record of `position`, its game's `outcome` and `score` (centipawns, White's view,
/// clamped to 16 bits).
pub fn write_record(position: &Chess, outcome: Outcome, score: i32) -> [u8; RECORD] {
    let mut record = [0u8; RECORD];
    let board = position.board();
    record[0..8].copy_from_slice(&board.occupied().0.to_le_bytes());
    let castling = position.castles().castling_rights();
    for (k, square) in board.occupied().into_iter().enumerate() {
        let piece = board.piece_at(square).expect("an occupied square");
        let code = match piece.role {
            Role::Rook if castling.contains(square) => 6,
            role => role as u8 - 1,
        };
        let nibble = code | if piece.color == Color::Black { 8 } else { 0 };
        record[8 + k / 2] |= nibble << (4 * (k % 2));
    }
    let ep = position
        .ep_square(EnPassantMode::Legal)
        .map_or(64, |sq| sq as u8);
    let black = if position.turn() == Color::Black {
        0x80
    } else {
        0
    };
    record[24] = black | ep;
    record[25] = u8::try_from(position.halfmoves()).unwrap_or(u8::MAX);
    let fullmoves = u16::try_from(position.fullmoves().get()).unwrap_or(u16::MAX);
    record[26..28].copy_from_slice(&fullmoves.to_le_bytes());
    let score = score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
    record[28..30].copy_from_slice(&score.to_le_bytes());
    record[30] = result_byte(outcome);
    record
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn position(fen: &str) -> Chess {
        let fen: Fen = fen.parse().unwrap();
        fen.into_position(CastlingMode::Standard).unwrap()
    }

    #[test]
    fn a_record_reads_back_as_the_position_result_and_score() {
        for (fen, outcome, score) in [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                Outcome::Draw,
                12,
            ),
            (
                "r3k2r/8/8/3pP3/8/8/8/R3K2R w Kq d6 0 2",
                Outcome::WhiteWins,
                -340,
            ),
            ("8/8/4k3/8/8/3K4/8/7R b - - 37 81", Outcome::BlackWins, 900),
        ] {
            let start = position(fen);
            let read = read_record(&write_record(&start, outcome, score)).unwrap();
            assert_eq!(read.position, start, "{fen}");
            assert_eq!(read.label, Label::from(outcome), "{fen}");
            assert_eq!(read.score, Some(score), "{fen}");
        }
    }

    #[test]
    fn a_record_built_from_the_documented_layout_reads_right() {
        // White: king e1 (square 4), pawn e2 (12); Black: king e8 (60); Black to move, no
        // en passant, halfmove 3, move 40, score −25, White won.
        let mut record = [0u8; RECORD];
        let occupied: u64 = (1 << 4) | (1 << 12) | (1 << 60);
        record[0..8].copy_from_slice(&occupied.to_le_bytes());
        // Square order: e1 king (5, low nibble), e2 pawn (0, high nibble), e8 black king
        // (8 | 5).
        record[8] = 0x05;
        record[9] = 8 | 5;
        record[24] = 0x80 | 64;
        record[25] = 3;
        record[26..28].copy_from_slice(&40u16.to_le_bytes());
        record[28..30].copy_from_slice(&(-25i16).to_le_bytes());
        record[30] = 2;
        let read = read_record(&record).unwrap();
        let fen = Fen::from_position(&read.position, EnPassantMode::Legal).to_string();
        assert_eq!(fen, "4k3/8/8/8/8/8/4P3/4K3 b - - 3 40");
        assert_eq!(
            (read.label, read.score),
            (Outcome::WhiteWins.into(), Some(-25))
        );
    }

    #[test]
    fn broken_records_are_refused() {
        let mut record = write_record(&Chess::default(), Outcome::Draw, 0);
        record[30] = 3;
        assert!(matches!(read_record(&record), Err(RecordError::Result(3))));
        let mut kings = write_record(&Chess::default(), Outcome::Draw, 0);
        // Every white piece a king: not a legal position.
        kings[8..16].fill(0x55);
        assert!(matches!(read_record(&kings), Err(RecordError::Illegal)));
        let mut nibble = write_record(&Chess::default(), Outcome::Draw, 0);
        nibble[8] = 0x07;
        assert!(matches!(read_record(&nibble), Err(RecordError::Pieces)));
    }
}
