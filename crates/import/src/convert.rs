//! Games as NNUE data generators write them: the games of a PGN file (texel's self-play)
//! written as viriformat games or as marlinformat or bulletformat records.

use super::pgn::{finished, parse_games, replay, start_of, RawGame};
use super::split::Games;
use super::{io, ImportError, ScoreView};
use shakmaty::{Chess, Move, Position};
use std::collections::BTreeMap;
use std::path::Path;
use texel_data::records::RecordForm;
use texel_data::{open_input, Outcome};

/// What writing a PGN file's games as binary records did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Converted {
    /// Games read.
    pub games: u64,
    /// Games written (viriformat), or positions written (marlinformat).
    pub written: u64,
    /// Games skipped, by reason.
    pub skipped: BTreeMap<&'static str, u64>,
}

/// Writes the games of `pgn` (their plain score comments in `view`) to `out`, atomically,
/// as viriformat games or marlinformat records: every position a move was searched from
/// (the first move with a score comment and every move after it, up to one without),
/// with that search's score (White's view) and the game's result. Games decided off the
/// board, unfinished or not replayable are skipped, as the importer skips them.
///
/// # Errors
/// An unreadable input or unwritable output (nothing is left at the output path then).
pub fn pgn_to_records(
    pgn: &Path,
    out: &Path,
    form: RecordForm,
    view: ScoreView,
) -> Result<Converted, ImportError> {
    let file = open_input(pgn).map_err(io(pgn))?;
    let mut games = Games::new(file.reader);
    let (mut bytes, mut done, mut number) = (Vec::new(), Converted::default(), 0);
    while let Some(text) = games.next_game().map_err(io(pgn))? {
        number += 1;
        for g in parse_games(&text, number, view) {
            done.games += 1;
            match searched(&g) {
                Ok(game) => done.written += write_searched(&mut bytes, form, game),
                Err(why) => *done.skipped.entry(why).or_default() += 1,
            }
        }
    }
    texel_files::write_atomically(out, &bytes).map_err(io(out))?;
    Ok(done)
}

/// The searched part of a game: the position before its first move with a score, that
/// move and the ones after it up to one without a score (each with its score), and the
/// result.
struct Searched {
    start: Chess,
    moves: Vec<(Move, i32)>,
    result: Outcome,
}

/// The searched part of a game ([`Searched`]), or why it has none.
fn searched(g: &RawGame) -> Result<Searched, &'static str> {
    let result = finished(g)?;
    let played = replay(g)?;
    let first = g
        .scores
        .iter()
        .position(Option::is_some)
        .ok_or("no score comment")?;
    let start = match first {
        0 => start_of(g)?,
        _ => played[first - 1].1.clone(),
    };
    let moves = played[first..]
        .iter()
        .zip(&g.scores[first..])
        .map_while(|((m, _), score)| Some((*m, (*score)?)))
        .collect();
    Ok(Searched {
        start,
        moves,
        result,
    })
}

/// Appends the searched part of a game in `form`; the number of units written (a game, or
/// a record a position).
fn write_searched(bytes: &mut Vec<u8>, form: RecordForm, game: Searched) -> u64 {
    let Searched {
        start,
        moves,
        result,
    } = game;
    if form == RecordForm::Viri {
        bytes.extend(texel_data::viri::write_game(&start, result, &moves));
        return 1;
    }
    let mut position = start;
    for &(m, score) in &moves {
        let record = match form {
            RecordForm::Bullet => texel_data::bullet::write_record(&position, result, score),
            _ => texel_data::marlin::write_record(&position, result, score),
        };
        bytes.extend(record);
        position.play_unchecked(m);
    }
    moves.len() as u64
}
