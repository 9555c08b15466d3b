//! Data in the forms other tools read: the games of a PGN file (texel's self-play) written
//! as viriformat games or as marlinformat or bulletformat records, and a file of positions
//! in any form texel reads written as `FEN [1.0] [35]` lines or as records.

use super::pgn::{finished, parse_games, replay, start_of, RawGame};
use super::split::Games;
use super::{io, unread, ImportError, ScoreView};
use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode, Move, Position};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use texel_data::records::RecordForm;
use texel_data::{
    bullet, marlin, open_input, write_game, BadLine, LabelReading, Labelled, Outcome,
};
use texel_files::AtomicFile;

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

impl Converted {
    /// What was written, in words: `wrote N <what> from G games to OUT` and the games
    /// skipped by reason.
    pub fn describe(&self, what: &str, out: &Path) -> String {
        let skipped: Vec<String> = (self.skipped.iter())
            .map(|(why, n)| format!("{n} {why}"))
            .collect();
        let skipped = match skipped.is_empty() {
            true => String::new(),
            false => format!(" (games skipped: {})", skipped.join(", ")),
        };
        let (n, games) = (self.written, self.games);
        format!(
            "wrote {n} {what} from {games} games to {}{skipped}",
            out.display()
        )
    }
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
    let mut writer = AtomicFile::create(out).map_err(io(out))?;
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
        writer.write_all(&bytes).map_err(io(out))?;
        bytes.clear();
    }
    if done.written == 0 {
        return Err(nothing(pgn, out, form.holds(), &done.skipped, "games"));
    }
    writer.finish().map_err(io(out))?;
    Ok(done)
}

/// Nothing converted from `input`: the error that leaves `out` as it was, with what was
/// skipped (`of`: games or positions) by reason.
fn nothing<K: std::fmt::Display>(
    input: &Path,
    out: &Path,
    what: &'static str,
    skipped: &BTreeMap<K, u64>,
    of: &str,
) -> ImportError {
    let reasons: Vec<String> = skipped
        .iter()
        .map(|(why, n)| format!("{n} {why}"))
        .collect();
    let why = match reasons.is_empty() {
        true => format!(" (it holds no {of})"),
        false => format!(" ({of} skipped: {})", reasons.join(", ")),
    };
    ImportError::NothingConverted {
        input: input.to_path_buf(),
        out: out.to_path_buf(),
        what,
        why,
    }
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
            RecordForm::Bullet => bullet::write_record(&position, result, score),
            _ => marlin::write_record(&position, result, score),
        };
        bytes.extend(record);
        position.play_unchecked(m);
    }
    moves.len() as u64
}

/// The form `texel convert` writes positions in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Written {
    /// `FEN [1.0] [35]`: the result, then the score when known (both White's view), as
    /// lichess-big3-resolved and Ethereal's books are written.
    Bracket,
    /// marlinformat records (a position without a score gets 0).
    Marlin,
    /// bulletformat records (a position without a score gets 0).
    Bullet,
}

/// What converting a file of positions did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conversion {
    /// Positions written.
    pub written: u64,
    /// Records written with a score of 0 for want of one.
    pub unscored: u64,
    /// Records written without the game id their position named (a record holds none).
    pub ids_dropped: u64,
    /// Lines, records or games skipped, by reason.
    pub skipped: BTreeMap<String, u64>,
}

/// Writes every position of `input` (read as `reading` says, any form texel reads) to `out`
/// in the form `to`, atomically. A label between the results (an average) cannot be a
/// record's result: such positions are skipped for records.
///
/// # Errors
/// An unreadable input, an unwritable output, or labels that are centipawn scores (nothing
/// is written then).
pub fn convert_positions(
    input: &Path,
    reading: LabelReading,
    out: &Path,
    to: Written,
) -> Result<Conversion, ImportError> {
    let mut file = open_input(input).map_err(io(input))?;
    let mut writer = AtomicFile::create(out).map_err(io(out))?;
    let (mut done, mut failed, mut whole_numbers) = (Conversion::default(), None, 0);
    let mut each = |_: u64, read: texel_data::records::Read| {
        let (l, format) = match read {
            Ok(read) => read,
            Err(why) => return *done.skipped.entry(why.to_string()).or_default() += 1,
        };
        whole_numbers += u64::from(format.could_be_centipawns(l.label));
        match converted(&l, to) {
            Some(bytes) if failed.is_none() => match writer.write_all(&bytes) {
                Ok(()) => {
                    done.written += 1;
                    let record = to != Written::Bracket;
                    done.unscored += u64::from(record && l.score.is_none());
                    done.ids_dropped += u64::from(record && l.game.is_some());
                }
                Err(e) => failed = Some(e),
            },
            Some(_) => {}
            None => *done.skipped.entry("not a game result".into()).or_default() += 1,
        }
    };
    texel_data::records::for_each_position(&mut *file.reader, reading, &mut each)
        .map_err(unread(input))?;
    if let Some(e) = failed {
        return Err(io(out)(e));
    }
    let scores = done.skipped.get(&BadLine::ScoreLabel.to_string()).copied();
    if texel_data::numbers_are_scores(scores.unwrap_or(0), whole_numbers) {
        return Err(ImportError::ScoreLabels {
            path: input.to_path_buf(),
            scores: scores.unwrap_or(0),
            whole_numbers,
        });
    }
    if done.written == 0 {
        let what = match to {
            Written::Bracket => "labelled lines",
            Written::Marlin => RecordForm::Marlin.holds(),
            Written::Bullet => RecordForm::Bullet.holds(),
        };
        return Err(nothing(input, out, what, &done.skipped, "positions"));
    }
    writer.finish().map_err(io(out))?;
    Ok(done)
}

/// The bytes of one position in the form `to`; `None` for a record of a label that is not
/// a game result.
fn converted(l: &Labelled, to: Written) -> Option<Vec<u8>> {
    let score = l.score.unwrap_or(0);
    Some(match to {
        Written::Bracket => {
            let fen = Fen::from_position(&l.position, EnPassantMode::Legal);
            let scored = l.score.map_or(String::new(), |s| format!(" [{s}]"));
            let game = l.game.map_or(String::new(), write_game);
            format!("{fen}{game} [{}]{scored}\n", l.label).into_bytes()
        }
        Written::Marlin => marlin::write_record(&l.position, l.label.outcome()?, score).to_vec(),
        Written::Bullet => bullet::write_record(&l.position, l.label.outcome()?, score).to_vec(),
    })
}
