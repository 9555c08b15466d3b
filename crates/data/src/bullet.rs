//! bulletformat: the 32-byte position records of the bullet NNUE trainer (its
//! `ChessBoard`), each a position from the side to move's view with that side's score and
//! result.
//!
//! A record, little-endian: the occupied squares as a 64-bit board (a1 the lowest bit),
//! seen from the side to move (the board turned over, rank 1 to rank 8, when Black is to
//! move); a nibble per occupied square in square order (16 bytes, the low nibble first),
//! its low three bits the piece (pawn 0 to king 5), its high bit set for the side not to
//! move; the score in centipawns (16 bits, the side to move's view); the result (0 the side
//! to move lost, 1 a draw, 2 it won); the mover's king square; the other king's square seen
//! from the other side (turned over again); three bytes that are not read.
//!
//! A record keeps neither whose move it was nor castling rights, en passant or clocks: it
//! reads as the position with the side to move as White (the board as the record holds
//! it), which an evaluation that treats both colours alike scores as the original.

use crate::epd::{Label, Labelled, Outcome};
use crate::records::{outcome_of, read_board, result_byte, RecordError, RECORD};
use shakmaty::{CastlingMode, Chess, Color, FromSetup, Piece, Position, Role, Square};

/// The piece of a nibble: its role, and whether it is the side to move's.
fn piece_of(nibble: u8) -> Option<(Role, bool)> {
    let role = Role::ALL.get(usize::from(nibble & 7))?;
    Some((*role, nibble & 8 == 0))
}

/// Reads one record: the position with the side to move as White, its result and score
/// (that side's view, so White's).
///
/// # Errors
/// A slice that is not a record of a legal position with a result and its kings.
pub fn read_bytes(record: &[u8]) -> Result<Labelled, RecordError> {
    let setup = read_board(record, |nibble| {
        let (role, ours) = piece_of(nibble)?;
        let color = Color::from_white(ours);
        Some((Piece { color, role }, false))
    })?;
    let king = |color| setup.board.king_of(color).map(|sq| sq as u8);
    let their_turned = king(Color::Black).map(|sq| sq ^ 56);
    if king(Color::White) != Some(record[27]) || their_turned != Some(record[28]) {
        return Err(RecordError::Kings);
    }
    let score = i16::from_le_bytes([record[24], record[25]]);
    let outcome = outcome_of(record[26])?;
    let position =
        Chess::from_setup(setup, CastlingMode::Standard).map_err(|_| RecordError::Illegal)?;
    Ok(Labelled {
        position,
        label: Label::from(outcome),
        score: Some(i32::from(score)),
        game: None,
    })
}

/// The record of `position`, its game's `outcome` and `score` (centipawns, White's view,
/// clamped to 16 bits): turned to the side to move's view.
pub fn write_record(position: &Chess, outcome: Outcome, score: i32) -> [u8; RECORD] {
    let mover = position.turn();
    let seen = |sq: Square| match mover {
        Color::White => sq,
        Color::Black => sq.flip_vertical(),
    };
    let mut pieces: Vec<(Square, Piece)> = position
        .board()
        .iter()
        .map(|(sq, piece)| (seen(sq), piece))
        .collect();
    pieces.sort_by_key(|(sq, _)| *sq);
    let mut record = [0u8; RECORD];
    let mut occupied = 0u64;
    for (k, (square, piece)) in pieces.iter().enumerate() {
        occupied |= 1 << *square as u64;
        let theirs = if piece.color == mover { 0 } else { 8 };
        record[8 + k / 2] |= ((piece.role as u8 - 1) | theirs) << (4 * (k % 2));
        if piece.role == Role::King {
            let at = if piece.color == mover { 27 } else { 28 };
            record[at] = if piece.color == mover {
                *square as u8
            } else {
                *square as u8 ^ 56
            };
        }
    }
    record[0..8].copy_from_slice(&occupied.to_le_bytes());
    let (score, result) = match mover {
        Color::White => (score, result_byte(outcome)),
        Color::Black => (-score, 2 - result_byte(outcome)),
    };
    let score = score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
    record[24..26].copy_from_slice(&score.to_le_bytes());
    record[26] = result;
    record
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::EnPassantMode;

    fn fen_of(position: &Chess) -> String {
        Fen::from_position(position, EnPassantMode::Legal).to_string()
    }

    fn position(fen: &str) -> Chess {
        let fen: Fen = fen.parse().unwrap();
        fen.into_position(CastlingMode::Standard).unwrap()
    }

    #[test]
    fn a_record_reads_back_from_the_side_to_moves_view() {
        // White to move: the same board (castling and clocks are not kept).
        let white = position("r3k2r/8/8/3pP3/8/8/8/R3K2R w Kq - 4 20");
        let read = read_bytes(&write_record(&white, Outcome::WhiteWins, 35)).unwrap();
        assert_eq!(
            fen_of(&read.position),
            "r3k2r/8/8/3pP3/8/8/8/R3K2R w - - 0 1"
        );
        assert_eq!(
            (read.label, read.score),
            (Outcome::WhiteWins.into(), Some(35))
        );
        // Black to move: the board turned over and the colours swapped, the result and
        // score the mover's.
        let black = position("8/5k2/8/8/3q4/8/2P5/1K6 b - - 0 1");
        let read = read_bytes(&write_record(&black, Outcome::WhiteWins, 120)).unwrap();
        assert_eq!(fen_of(&read.position), "1k6/2p5/8/3Q4/8/8/5K2/8 w - - 0 1");
        assert_eq!(
            (read.label, read.score),
            (Outcome::BlackWins.into(), Some(-120))
        );
    }

    #[test]
    fn a_record_built_from_the_documented_layout_reads_right() {
        // Black to move in 4k3/8/8/8/8/8/4P3/4K3 b: from Black's view the board turns over,
        // so Black's king stands on e1 (4) as the mover's and White's king on e8 (60), the
        // pawn on e7 (52) as the other side's. Score −25 and a loss for the mover.
        let mut record = [0u8; RECORD];
        let occupied: u64 = (1 << 4) | (1 << 52) | (1 << 60);
        record[0..8].copy_from_slice(&occupied.to_le_bytes());
        record[8] = 0x05 | (8 << 4); // e1: mover's king; e7: the other side's pawn
        record[9] = 8 | 5; // e8: the other side's king
        record[24..26].copy_from_slice(&(-25i16).to_le_bytes());
        record[26] = 0;
        record[27] = 4;
        record[28] = 60 ^ 56;
        let read = read_bytes(&record).unwrap();
        assert_eq!(fen_of(&read.position), "4k3/4p3/8/8/8/8/8/4K3 w - - 0 1");
        assert_eq!(
            (read.label, read.score),
            (Outcome::BlackWins.into(), Some(-25))
        );
    }

    #[test]
    fn broken_records_are_refused() {
        let good = write_record(&Chess::default(), Outcome::Draw, 0);
        let mut result = good;
        result[26] = 3;
        assert_eq!(read_bytes(&result).unwrap_err(), RecordError::Result(3));
        let mut kings = good;
        kings[27] = 3;
        assert_eq!(read_bytes(&kings).unwrap_err(), RecordError::Kings);
        let mut nibble = good;
        nibble[8] = 0x06;
        assert_eq!(read_bytes(&nibble).unwrap_err(), RecordError::Pieces);
        // A marlinformat record of the same position is not a bulletformat one.
        let marlin = crate::marlin::write_record(&Chess::default(), Outcome::Draw, 0);
        assert!(read_bytes(&marlin).is_err());
    }
}
