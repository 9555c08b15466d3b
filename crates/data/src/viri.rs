//! viriformat: the game records of Viridithas's data generator (and of the NNUE trainers
//! that read them): each game a marlinformat start record ([`crate::marlin`], whose result
//! is the game's) and then, per move played, the move and the engine's score of the
//! position it was played from, until four zero bytes.
//!
//! A move is 16 bits, little-endian: the from square (6 bits), the to square (6 bits; a
//! castling move goes from the king to its rook), the promotion piece (2 bits: knight 0,
//! bishop 1, rook 2, queen 3) and the kind (2 bits: en passant 1, castling 2, promotion 3,
//! any other move 0). A score is 16 bits, signed, in centipawns from White's view.
//!
//! A game gives the position before each of its moves, with that move's score and the
//! game's result; the position after the last move has no score and is not read.

use crate::epd::{Labelled, Outcome};
use crate::marlin;
use crate::records::{cut_short, RecordError, RECORD};
use shakmaty::{Chess, Move, Position, Role, Square};

/// The longest game read (plies): longer than any game the fifty-move rule allows, so a
/// file without terminators is refused rather than read into memory whole.
pub const MOST_PLIES: usize = 12_000;

/// Bytes of a (move, score) pair, and of the terminator.
const PAIR: usize = 4;

/// Reads whole games of `reader` into `block` (emptied first) until it holds at least
/// `bytes` bytes or the input ends; `false` when no game was left.
///
/// # Errors
/// A read error, an input that ends inside a game, or a game longer than [`MOST_PLIES`].
pub fn read_games(
    reader: &mut dyn std::io::BufRead,
    bytes: usize,
    block: &mut Vec<u8>,
) -> std::io::Result<bool> {
    block.clear();
    while block.len() < bytes && !reader.fill_buf()?.is_empty() {
        read_game(reader, block)?;
    }
    Ok(!block.is_empty())
}

/// Appends one game of `reader` to `block`.
fn read_game(reader: &mut dyn std::io::BufRead, block: &mut Vec<u8>) -> std::io::Result<()> {
    let short = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => cut_short("a game"),
        _ => e,
    };
    let start = block.len();
    block.resize(start + RECORD, 0);
    reader.read_exact(&mut block[start..]).map_err(short)?;
    for _ in 0..=MOST_PLIES {
        let at = block.len();
        block.resize(at + PAIR, 0);
        reader.read_exact(&mut block[at..]).map_err(short)?;
        if block[at..] == [0; PAIR] {
            return Ok(());
        }
    }
    let msg = format!("a game of more than {MOST_PLIES} moves: not viriformat");
    Err(std::io::Error::new(std::io::ErrorKind::InvalidData, msg))
}

/// The games of a block of whole games ([`read_games`]), each with its terminator.
pub fn games(block: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = block;
    std::iter::from_fn(move || {
        if rest.len() < RECORD {
            return None;
        }
        let mut end = RECORD;
        while let Some(pair) = rest.get(end..end + PAIR) {
            end += PAIR;
            if pair == [0; PAIR] {
                break;
            }
        }
        let (game, after) = rest.split_at(end.min(rest.len()));
        rest = after;
        Some(game)
    })
}

/// [`positions`] of game number `number` of its file: each names its game.
pub fn numbered_positions(
    game: &[u8],
    number: u64,
) -> impl Iterator<Item = Result<Labelled, RecordError>> {
    let named = move |l: Labelled| Labelled {
        game: Some(number),
        ..l
    };
    positions(game).into_iter().map(move |r| r.map(named))
}

/// The positions of a game: the one before each move, with its score and the game's
/// result, as far as the moves are legal (the first illegal move ends the game with its
/// reason).
pub fn positions(game: &[u8]) -> Vec<Result<Labelled, RecordError>> {
    let start = match marlin::read_bytes(&game[..RECORD.min(game.len())]) {
        Ok(start) => start,
        Err(e) => return vec![Err(e)],
    };
    let (mut position, label) = (start.position, start.label);
    let mut out = Vec::new();
    for (ply, pair) in game[RECORD..].chunks_exact(PAIR).enumerate() {
        let raw = u16::from_le_bytes([pair[0], pair[1]]);
        if raw == 0 && pair[2..] == [0, 0] {
            break;
        }
        let score = i16::from_le_bytes([pair[2], pair[3]]);
        let Some(m) = decode_move(&position, raw) else {
            out.push(Err(RecordError::Move(ply + 1)));
            break;
        };
        let before = position.clone();
        position.play_unchecked(m);
        out.push(Ok(Labelled {
            position: before,
            label,
            score: Some(i32::from(score)),
            game: None,
        }));
    }
    out
}

/// The promotion pieces in the order of their 2-bit codes.
const PROMOTIONS: [Role; 4] = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen];

/// The 16 bits of a move.
pub fn encode_move(m: Move) -> u16 {
    let from = m.from().map_or(0, |sq| sq as u16);
    let to = m.to() as u16;
    let promotion = m.promotion().map_or(0, |role| {
        PROMOTIONS.iter().position(|&r| r == role).unwrap_or(0) as u16
    });
    let kind = match m {
        Move::EnPassant { .. } => 1,
        Move::Castle { .. } => 2,
        _ if m.is_promotion() => 3,
        _ => 0,
    };
    from | to << 6 | promotion << 12 | kind << 14
}

/// The legal move of `position` whose 16 bits are `raw`, if there is one.
pub fn decode_move(position: &Chess, raw: u16) -> Option<Move> {
    let square = |bits: u16| Square::new(u32::from(bits & 63));
    let (from, to, kind) = (square(raw), square(raw >> 6), raw >> 14);
    let promotion = (kind == 3).then(|| PROMOTIONS[usize::from(raw >> 12 & 3)]);
    position.legal_moves().into_iter().find(|m| {
        m.from() == Some(from)
            && m.to() == to
            && m.promotion() == promotion
            && m.is_en_passant() == (kind == 1)
            && m.is_castle() == (kind == 2)
    })
}

/// The viriformat game from `start`, its `outcome` and its moves, each with the score of
/// the position it was played from (centipawns, White's view, clamped to 16 bits).
pub fn write_game(start: &Chess, outcome: Outcome, moves: &[(Move, i32)]) -> Vec<u8> {
    let mut game = marlin::write_record(start, outcome, 0).to_vec();
    for &(m, score) in moves {
        let score = score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
        game.extend(encode_move(m).to_le_bytes());
        game.extend(score.to_le_bytes());
    }
    game.extend([0; PAIR]);
    game
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::san::San;
    use shakmaty::{CastlingMode, EnPassantMode};

    fn fen_of(position: &Chess) -> String {
        Fen::from_position(position, EnPassantMode::Legal).to_string()
    }

    /// The moves of `sans` from `start`, each with a score.
    fn line(start: &Chess, sans: &[(&str, i32)]) -> Vec<(Move, i32)> {
        let mut position = start.clone();
        sans.iter()
            .map(|(san, score)| {
                let m = san.parse::<San>().unwrap().to_move(&position).unwrap();
                position.play_unchecked(m);
                (m, *score)
            })
            .collect()
    }

    #[test]
    fn a_game_built_from_the_documented_layout_reads_right() {
        // 1. e4 e5 2. Qh5 Ke7 3. Qxe5#, White won, scores 10, 20, −30, 32767, 32767.
        let mut game = marlin::write_record(&Chess::default(), Outcome::WhiteWins, 0).to_vec();
        for (from, to, score) in [(12u16, 28u16, 10i16), (52, 36, 20), (3, 39, -30)]
            .into_iter()
            .chain([(60, 52, i16::MAX), (39, 36, i16::MAX)])
        {
            game.extend((from | to << 6).to_le_bytes());
            game.extend(score.to_le_bytes());
        }
        game.extend([0; 4]);
        let read: Vec<Labelled> = positions(&game).into_iter().map(Result::unwrap).collect();
        assert_eq!(read.len(), 5, "the position after mate has no score");
        assert_eq!(read[0].position, Chess::default());
        assert_eq!(
            fen_of(&read[2].position),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
        );
        let scores: Vec<_> = read.iter().map(|l| l.score.unwrap()).collect();
        assert_eq!(scores, [10, 20, -30, 32767, 32767]);
        assert!(read.iter().all(|l| l.label == Outcome::WhiteWins.into()));
    }

    #[test]
    fn castling_en_passant_and_promotion_go_round() {
        let fen: Fen = "r3k2r/1P6/8/3pP3/8/8/8/R3K2R w KQkq d6 0 30"
            .parse()
            .unwrap();
        let start: Chess = fen.into_position(CastlingMode::Standard).unwrap();
        let moves = line(
            &start,
            &[
                ("exd6", 40),
                ("O-O", -15),
                ("b8=N", 300),
                ("Raxb8", 0),
                ("O-O-O", 5),
            ],
        );
        let kinds: Vec<u16> = moves.iter().map(|(m, _)| encode_move(*m) >> 12).collect();
        assert_eq!(kinds, [1 << 2, 2 << 2, 3 << 2, 0, 2 << 2]);
        let game = write_game(&start, Outcome::Draw, &moves);
        let read: Vec<Labelled> = positions(&game).into_iter().map(Result::unwrap).collect();
        let mut position = start.clone();
        for ((m, score), l) in moves.iter().zip(&read) {
            assert_eq!(l.position, position);
            assert_eq!(l.score, Some(*score));
            position.play_unchecked(*m);
        }
        assert_eq!(read.len(), moves.len());
    }

    #[test]
    fn blocks_hold_whole_games_and_broken_games_say_why() {
        let start = Chess::default();
        let one = write_game(&start, Outcome::Draw, &line(&start, &[("Nf3", 3)]));
        let two = write_game(
            &start,
            Outcome::BlackWins,
            &line(&start, &[("e4", 1), ("c5", 2)]),
        );
        let file = [one.clone(), two.clone(), one.clone()].concat();
        let mut reader = std::io::BufReader::new(file.as_slice());
        let mut block = Vec::new();
        // At least one byte asked: one game a block, whole.
        assert!(read_games(&mut reader, 1, &mut block).unwrap());
        assert_eq!(block, one);
        assert!(read_games(&mut reader, 1 << 20, &mut block).unwrap());
        let cut: Vec<&[u8]> = games(&block).collect();
        assert_eq!(cut, [two.as_slice(), one.as_slice()]);
        assert!(!read_games(&mut reader, 1, &mut block).unwrap());
        // Cut short, an illegal move, no terminator.
        let mut short = std::io::BufReader::new(&two[..two.len() - 2]);
        assert!(read_games(&mut short, 1, &mut block).is_err());
        let mut illegal = two.clone();
        illegal[RECORD + 4..RECORD + 6].copy_from_slice(&(12u16 | 28 << 6).to_le_bytes());
        let read = positions(&illegal);
        assert_eq!(read.len(), 2);
        assert_eq!(read[1].as_ref().unwrap_err(), &RecordError::Move(2));
        let endless = [&two[..RECORD], &[1u8; 4 * (MOST_PLIES + 2)]].concat();
        let mut endless = std::io::BufReader::new(endless.as_slice());
        assert!(read_games(&mut endless, 1, &mut block).is_err());
    }
}
