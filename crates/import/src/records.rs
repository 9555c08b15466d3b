//! Binary input: marlinformat and bulletformat records, each position quiesced and
//! filtered as an EPD line's, and viriformat games, sampled and filtered as PGN games.

use super::pgn::{sample_game, write_games, GameYield, Replayed};
use super::{io, pipeline, quiesce_labelled, Candidate, ImportError, ImportOptions};
use super::{ImportStats, Output, BATCH};
use rayon::prelude::*;
use std::path::Path;
use std::sync::atomic::Ordering;
use texel_data::records::{RecordError, RecordForm};
use texel_data::{open_input, Labelled, Survey};
use texel_search::Searcher;

/// Why a record (or a game) is skipped, as the import counts it.
fn reason(e: RecordError) -> &'static str {
    match e {
        RecordError::Pieces => "malformed record",
        RecordError::Kings => "king squares do not match the board",
        RecordError::Illegal => "illegal position",
        RecordError::Result(_) => "unknown result",
        RecordError::Move(_) => "illegal move",
    }
}

/// Imports a file of a binary `form`: records position by position, games sampled per
/// game. The records' labels and scores are their own (`o.labels` says nothing of them).
///
/// # Errors
/// An unreadable input (one that ends inside a record or game) or unwritable output
/// (nothing is left at the output path then).
pub(crate) fn import_records(
    input: &Path,
    output: &Path,
    form: RecordForm,
    o: &ImportOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<ImportStats, ImportError> {
    let file = open_input(input).map_err(io(input))?;
    let bytes = file.bytes_read.clone();
    let mut reader = file.reader;
    let out = Output::create(output, o.format, o.duplicates)?;
    let (mut block, mut count) = (Vec::new(), 0);
    let mut read_batch = || -> Result<Vec<(u64, Vec<u8>)>, ImportError> {
        let size = BATCH * texel_data::records::RECORD;
        form.read_block(&mut *reader, size, &mut block)
            .map_err(io(input))?;
        let units = form.units(&block, &mut count).into_iter();
        Ok(units.map(|(no, unit)| (no, unit.to_vec())).collect())
    };
    let first = read_batch()?;
    let head: Vec<u8> = first
        .iter()
        .flat_map(|(_, unit)| unit.iter().copied())
        .collect();
    let survey = form.survey(&head).map_err(|wrong| ImportError::WrongForm {
        path: input.to_path_buf(),
        wrong,
    })?;
    let report = || progress(bytes.load(Ordering::Relaxed));
    let whole = |_: &ImportStats| Ok(());
    match form.record_reader() {
        Some(read) => {
            let quiesce = |batch: &[(u64, Vec<u8>)]| -> Vec<Candidate> {
                batch
                    .par_iter()
                    .map_init(
                        || Searcher::new(o.params.clone(), 0),
                        |s, (_, record)| match read(record) {
                            Ok(l) => quiesce_labelled(s, &survey.label(l)),
                            Err(e) => Err(reason(e)),
                        },
                    )
                    .collect()
            };
            let write = |out: &mut Output, stats: &mut ImportStats, done: Vec<Candidate>| {
                done.into_iter().try_for_each(|c| out.write(stats, c))
            };
            pipeline(first, read_batch, quiesce, out, write, (report, whole))
        }
        None => {
            let replay = |batch: &[(u64, Vec<u8>)]| -> Vec<Vec<(u64, GameYield)>> {
                batch
                    .par_iter()
                    .map_init(
                        || Searcher::new(o.params.clone(), 0),
                        |s, (number, game)| {
                            vec![(*number, game_yield(*number, game, survey, o, s))]
                        },
                    )
                    .collect()
            };
            let write = |out: &mut Output, stats: &mut ImportStats, done| {
                stats.games_numbered = true;
                write_games(out, stats, done)
            };
            pipeline(first, read_batch, replay, out, write, (report, whole))
        }
    }
}

/// What a viriformat game yields: its positions (each before a move, with that move's
/// score, none where the file has none) sampled and filtered as a PGN game's; a game with a
/// bad record or move is skipped.
fn game_yield(
    number: u64,
    game: &[u8],
    survey: Survey,
    o: &ImportOptions,
    s: &mut Searcher,
) -> GameYield {
    let read: Result<Vec<Labelled>, RecordError> = (texel_data::viri::positions(game))
        .into_iter()
        .map(|r| r.map(|l| survey.label(l)))
        .collect();
    let positions = match read {
        Ok(positions) => positions,
        Err(e) => return (Err(reason(e)), vec![]),
    };
    let Some(result) = positions.first().and_then(|l| l.label.outcome()) else {
        return (Err("too short"), vec![]);
    };
    let scores: Vec<Option<i32>> = positions.iter().map(|l| l.score).collect();
    let game = Replayed {
        number,
        positions: positions.into_iter().map(|l| l.position).collect(),
        scores: &scores,
        result,
    };
    sample_game(&game, o, s)
}
