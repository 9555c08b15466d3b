//! The importer: labelled positions from EPD files or PGN games, each replaced by the quiet
//! leaf of its quiescence search, filtered the way the Slow Chess author filtered his games,
//! deduplicated, and written as labelled EPD.

mod convert;
mod output;
mod pgn;
mod records;
mod split;

pub use convert::{convert_positions, pgn_to_records, Conversion, Converted, Written};
pub use output::Duplicates;
use output::Output;
pub use pgn::import_pgn;
use rayon::prelude::*;
use shakmaty::{Chess, Position};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use texel_data::{open_input, read_lines};
use texel_data::{BadLine, Label, LabelFormat, LabelReading, Labelled};
use texel_eval::Params;
use texel_search::{Searcher, MATE};

/// The Slow Chess write-up's result-agrees-with-eval filter: a decisive game's position is
/// kept when the winner's evaluation is above this (cp).
pub const WRITE_UP_WIN_MIN: i32 = 100;
/// ... and a draw's when an evaluation is below this in absolute value (cp).
pub const WRITE_UP_DRAW_MAX: i32 = 150;

/// How to import.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// Label format of the output.
    pub format: LabelFormat,
    /// How the input's labels are read (EPD input): the side they score, their format when
    /// given.
    pub labels: LabelReading,
    /// What to do with a position seen before.
    pub duplicates: Duplicates,
    /// Positions taken per game at most (PGN).
    pub per_game: usize,
    /// Plies between two positions of a game at least (PGN).
    pub gap: usize,
    /// Plies skipped at the start of each game: the opening book (PGN).
    pub skip_plies: usize,
    /// Decisive games: keep a position only if the winner's evaluation is above this (cp);
    /// `None` (the default): every position of a decisive game. The Slow Chess write-up's
    /// filter is [`WRITE_UP_WIN_MIN`]; on Stash's 40,000 games it cost the tuned engine
    /// about 30 Elo (`reports/generalise/`).
    pub win_min_cp: Option<i32>,
    /// Drawn games: keep a position only if an evaluation is below this in absolute value;
    /// `None` (the default): every position of a draw. The write-up's is
    /// [`WRITE_UP_DRAW_MAX`].
    pub draw_max_cp: Option<i32>,
    /// Positions whose evaluation reaches this are past the point where the game was
    /// decided and are skipped (cp).
    pub decided_cp: i32,
    /// Judge positions by the PGN's score comments (`{+0.35/12}`, `[%eval 0.35]`) instead
    /// of texel's own quiescence score.
    pub score_from_pgn: bool,
    /// Whose point of view plain score comments (`{+0.35/12}`) take.
    pub pgn_scores: ScoreView,
    /// Seed of the per-game sampling.
    pub seed: u64,
    /// Parameters of the quiescence search.
    pub params: Arc<Params>,
    /// Write the good lines of an EPD input even when more than 1 % of its lines are bad
    /// (a position or label that cannot be read), as a load does with `allow_bad`.
    pub allow_bad: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            format: LabelFormat::Bracket,
            labels: LabelReading::default(),
            duplicates: Duplicates::First,
            per_game: 5,
            gap: 10,
            skip_plies: 10,
            win_min_cp: None,
            draw_max_cp: None,
            decided_cp: 1000,
            score_from_pgn: false,
            pgn_scores: ScoreView::White,
            seed: 1,
            params: Arc::new(Params::default()),
            allow_bad: false,
        }
    }
}

/// Whose point of view the plain score comments of a PGN (`{+0.35/12}`) take. `[%eval]`
/// comments are always White's.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScoreView {
    /// White's: texel's own games, lichess, python-chess scripts.
    #[default]
    White,
    /// The side that moved: cutechess, fastchess and OpenBench write each engine's own
    /// score.
    Mover,
}

impl std::str::FromStr for ScoreView {
    type Err = String;

    fn from_str(s: &str) -> Result<ScoreView, String> {
        match s {
            "white" => Ok(ScoreView::White),
            "mover" => Ok(ScoreView::Mover),
            other => Err(format!("unknown score view {other}: give white or mover")),
        }
    }
}

impl std::fmt::Display for ScoreView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ScoreView::White => "white",
            ScoreView::Mover => "mover",
        })
    }
}

/// Counts of what the import did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImportStats {
    /// Games read (PGN).
    pub games: u64,
    /// Games skipped, by reason, with the input lines where the first few begin.
    pub games_skipped: BTreeMap<String, (u64, Vec<u64>)>,
    /// Positions considered.
    pub considered: u64,
    /// Positions written.
    pub kept: u64,
    /// Positions skipped, by reason.
    pub skipped: BTreeMap<String, u64>,
    /// Black wins, draws, white wins among the written labels.
    pub results: [u64; 3],
    /// Written labels between those (averaged over duplicates).
    pub averaged: u64,
    /// Skipped games are named by their number in the file (game records), not the line
    /// they begin on (PGN).
    pub games_numbered: bool,
}

impl ImportStats {
    fn skip(&mut self, reason: &str) {
        *self.skipped.entry(reason.to_string()).or_default() += 1;
    }

    fn skip_game(&mut self, reason: &str, line: u64) {
        let e = self.games_skipped.entry(reason.to_string()).or_default();
        e.0 += 1;
        if e.1.len() < 5 {
            e.1.push(line);
        }
    }

    fn count_label(&mut self, label: Label) {
        match label.outcome() {
            Some(o) => self.results[o as usize] += 1,
            None => self.averaged += 1,
        }
    }

    /// The statistics as JSON text.
    pub fn to_json(&self) -> String {
        let map = |m: &BTreeMap<String, u64>| {
            m.iter()
                .map(|(k, v)| format!("\"{k}\": {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let unit = if self.games_numbered { "game" } else { "line" };
        let games: Vec<String> = self
            .games_skipped
            .iter()
            .map(|(k, (n, first))| {
                format!("\"{k}\": {{\"count\": {n}, \"first_{unit}s\": {first:?}}}")
            })
            .collect();
        format!(
            "{{\"games\": {}, \"games_skipped\": {{{}}}, \"positions_considered\": {}, \"positions_kept\": {}, \"positions_skipped\": {{{}}}, \"white_wins\": {}, \"draws\": {}, \"black_wins\": {}, \"averaged_labels\": {}}}\n",
            self.games,
            games.join(", "),
            self.considered,
            self.kept,
            map(&self.skipped),
            self.results[2],
            self.results[1],
            self.results[0],
            self.averaged
        )
    }
}

impl std::fmt::Display for ImportStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.games > 0 {
            writeln!(f, "games read: {}", self.games)?;
            let unit = if self.games_numbered { "game" } else { "line" };
            for (reason, (n, first)) in &self.games_skipped {
                let lines: Vec<String> = first.iter().map(|l| format!("{unit} {l}")).collect();
                writeln!(
                    f,
                    "  games skipped, {reason}: {n} (first at {})",
                    lines.join(", ")
                )?;
            }
        }
        writeln!(
            f,
            "positions considered: {}, kept: {}",
            self.considered, self.kept
        )?;
        for (reason, n) in &self.skipped {
            writeln!(f, "  skipped, {reason}: {n}")?;
        }
        write!(
            f,
            "results of kept positions: {} white wins, {} draws, {} black wins",
            self.results[2], self.results[1], self.results[0]
        )?;
        if self.averaged > 0 {
            write!(f, ", {} averaged labels", self.averaged)?;
        }
        Ok(())
    }
}

/// Why an import failed.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// A file could not be read or written.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
    /// A records file whose records read as another form than the one it was read as.
    #[error("{}: {wrong}", path.display())]
    WrongForm {
        /// The file.
        path: PathBuf,
        /// The form asked and the form its records read as.
        wrong: texel_data::WrongForm,
    },
    /// More than 1 % of an EPD input's lines are bad, and bad lines are not allowed.
    #[error(
        "{}: {bad} of {lines} lines are bad (a position or label that cannot be read: more \
         than 1 %, the most an import takes unless told to allow bad lines); nothing written",
        path.display()
    )]
    TooManyBad {
        /// The input.
        path: PathBuf,
        /// Its bad lines.
        bad: u64,
        /// Its lines.
        lines: u64,
    },
    /// The options contradict each other.
    #[error("{0}")]
    Options(String),
    /// The plain-number labels of a file are evaluation scores: its 0 and 1 are too.
    #[error(
        "{path}: {scores} labels are evaluation scores (numbers outside 0 to 1, bare or in \
         brackets), so its {whole_numbers} labels 0 and 1 are centipawns too, not game \
         results; nothing written (texel tunes on results: label the positions by their games)"
    )]
    ScoreLabels {
        /// The file.
        path: PathBuf,
        /// Lines whose label is a score outside 0 to 1.
        scores: u64,
        /// Lines whose plain-number label is 0 or 1.
        whole_numbers: u64,
    },
    /// Every position was skipped (or there was none): nothing was written.
    #[error("no position was kept, nothing written\n{0}")]
    NothingKept(Box<ImportStats>),
    /// A conversion found nothing to write: the output is left as it was.
    #[error("{}: nothing to write as {what}{why}; {} is left as it was", input.display(), out.display())]
    NothingConverted {
        /// The input.
        input: PathBuf,
        /// The output, untouched.
        out: PathBuf,
        /// The form asked for.
        what: &'static str,
        /// What was skipped, in words (empty: the input held nothing).
        why: String,
    },
}

/// The error of reading `path`'s positions.
fn unread(path: &Path) -> impl Fn(texel_data::records::ReadError) -> ImportError + '_ {
    move |e| match e {
        texel_data::records::ReadError::Io(cause) => io(path)(cause),
        texel_data::records::ReadError::WrongForm(wrong) => ImportError::WrongForm {
            path: path.to_path_buf(),
            wrong,
        },
    }
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> ImportError + '_ {
    move |cause| ImportError::Io {
        path: path.to_path_buf(),
        cause,
    }
}

/// The quiet leaf of a position: quiescence score (side to move) and the position at the
/// end of its principal variation.
fn quiet_leaf(searcher: &mut Searcher, pos: &Chess) -> (i32, Chess) {
    let mut pv = Vec::new();
    let score = searcher.quiesce(pos, -MATE - 1, MATE + 1, 0, &mut pv);
    let mut leaf = pos.clone();
    for m in pv {
        leaf.play_unchecked(m);
    }
    (score, leaf)
}

/// A position ready to be written.
struct Kept {
    /// The quiet position.
    leaf: Chess,
    /// Its label.
    label: Label,
    /// The engine's own score of it (centipawns, White's view) when known.
    score: Option<i32>,
    /// The game it comes from (its number in the input) when known.
    game: Option<u64>,
}

/// A candidate position ready to be written, or why it is not.
type Candidate = Result<Kept, &'static str>;

/// Quiesces a labelled position (keeping its engine score): skipped in check or with a
/// mate score.
fn quiesce_labelled(searcher: &mut Searcher, l: &Labelled) -> Candidate {
    let pos = &l.position;
    if pos.is_check() {
        return Err("in check");
    }
    let (score, leaf) = quiet_leaf(searcher, pos);
    if score.abs() > MATE - 1000 {
        return Err("mate score");
    }
    Ok(Kept {
        leaf,
        label: l.label,
        score: l.score,
        game: l.game,
    })
}

/// Lines or games processed per parallel batch.
const BATCH: usize = 4096;

/// Runs an import into `out`: `read` fills the next batch on the calling thread while the
/// worker pool `process`es the batch before it; `consume` hands each batch's results, in
/// input order, to the output; `progress` is called after every batch. `check` may refuse
/// what was read before the output is renamed into place; then the statistics are returned.
fn pipeline<T: Send + Sync, R: Send>(
    first: Vec<T>,
    mut read: impl FnMut() -> Result<Vec<T>, ImportError> + Send,
    process: impl Fn(&[T]) -> Vec<R> + Sync,
    mut out: Output,
    mut consume: impl FnMut(&mut Output, &mut ImportStats, Vec<R>) -> Result<(), ImportError>,
    (progress, check): (
        impl Fn(),
        impl FnOnce(&ImportStats) -> Result<(), ImportError>,
    ),
) -> Result<ImportStats, ImportError> {
    let mut stats = ImportStats::default();
    let mut batch = first;
    while !batch.is_empty() {
        let (next, results) = rayon::join(&mut read, || process(&batch));
        consume(&mut out, &mut stats, results)?;
        progress();
        batch = next?;
    }
    check(&stats)?;
    out.finish(&mut stats)?;
    Ok(stats)
}

/// Imports a labelled EPD/FEN file (any label format, detected): each position is
/// replaced by its quiet leaf, duplicates handled as `o.duplicates` says, the label kept.
/// A binary form named in `o.labels` reads records the same way, and viriformat's games
/// as PGN games are read (sampled per game, filtered).
///
/// # Errors
/// An unreadable input or unwritable output (nothing is left at the output path then).
pub fn import_epd(
    input: &Path,
    output: &Path,
    o: &ImportOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<ImportStats, ImportError> {
    if let Some(form) = o.labels.format.and_then(LabelFormat::record_form) {
        return records::import_records(input, output, form, o, progress);
    }
    let mut file = open_input(input).map_err(io(input))?;
    let out = Output::create(output, o.format, o.duplicates)?;
    let mut line_no = 0;
    let mut read_batch = || read_lines(&mut file.reader, BATCH, &mut line_no).map_err(io(input));
    let first = read_batch()?;
    let whole_numbers = std::sync::atomic::AtomicU64::new(0);
    // The label format is read line by line: files that mix formats are read whole.
    let quiesce = |lines: &[(u64, String)]| -> Vec<Candidate> {
        lines
            .par_iter()
            .map_init(
                || Searcher::new(o.params.clone(), 0),
                |s, (_, line)| match o.labels.parse(line) {
                    Ok((l, format)) => {
                        if format.could_be_centipawns(l.label) {
                            whole_numbers.fetch_add(1, Ordering::Relaxed);
                        }
                        quiesce_labelled(s, &l)
                    }
                    Err(BadLine::MalformedFen) => Err(BAD_LINES[0]),
                    Err(BadLine::IllegalPosition) => Err(BAD_LINES[1]),
                    Err(BadLine::MissingLabel | BadLine::UnknownLabel) => Err(BAD_LINES[2]),
                    Err(BadLine::UnreadText) => Err(BAD_LINES[3]),
                    Err(BadLine::BadGame) => Err(BAD_LINES[4]),
                    Err(BadLine::BadPedantic) => Err(BAD_LINES[5]),
                    Err(BadLine::ScoreLabel) => Err(SCORE_LABEL),
                },
            )
            .collect()
    };
    let write = |out: &mut Output, stats: &mut ImportStats, done: Vec<Candidate>| {
        done.into_iter().try_for_each(|c| out.write(stats, c))
    };
    let bytes = file.bytes_read.clone();
    let report = || progress(bytes.load(Ordering::Relaxed));
    let check = |stats: &ImportStats| {
        refuse_scores(input, stats, whole_numbers.load(Ordering::Relaxed))?;
        refuse_bad(input, stats, o.allow_bad)
    };
    pipeline(first, read_batch, quiesce, out, write, (report, check))
}

/// The reasons an EPD line is bad (it cannot be read), as the import counts them.
const BAD_LINES: [&str; 6] = [
    "malformed FEN",
    "illegal position",
    "missing or unknown label",
    "text before the label that is no EPD operation",
    "a game opcode that is not one game number",
    "a Pedantic CSV row with a field missing or an Eval that is no number",
];

/// Refuses an import of `input` where more than 1 % of the lines are bad, unless
/// `allow_bad`: the rule a load follows (an input of bad lines only is left to the
/// refusal of an import that keeps nothing, which names their reasons).
fn refuse_bad(input: &Path, stats: &ImportStats, allow_bad: bool) -> Result<(), ImportError> {
    let bad: u64 = BAD_LINES.iter().filter_map(|r| stats.skipped.get(*r)).sum();
    match !allow_bad && bad * 100 > stats.considered && bad < stats.considered {
        true => Err(ImportError::TooManyBad {
            path: input.to_path_buf(),
            bad,
            lines: stats.considered,
        }),
        false => Ok(()),
    }
}

/// The reason a line's label is an evaluation score, as the import counts it.
const SCORE_LABEL: &str = "a score, not a game result";

/// Refuses an import of `input` whose plain-number labels are evaluation scores (some lie
/// outside 0 to 1): its labels 0 and 1 (`whole_numbers` of them) are centipawns too, not
/// results, and would be kept as wins and losses.
fn refuse_scores(input: &Path, stats: &ImportStats, whole_numbers: u64) -> Result<(), ImportError> {
    let scores = stats.skipped.get(SCORE_LABEL).copied().unwrap_or(0);
    match texel_data::numbers_are_scores(scores, whole_numbers) {
        true => Err(ImportError::ScoreLabels {
            path: input.to_path_buf(),
            scores,
            whole_numbers,
        }),
        false => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_leaf_takes_the_hanging_queen() {
        let mut s = Searcher::new(Arc::new(Params::default()), 0);
        let pos = texel_eval::parse_fen("4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1").unwrap();
        let (_, leaf) = quiet_leaf(&mut s, &pos);
        assert_eq!(leaf.board().queens().count(), 0);
        assert_eq!(leaf.turn(), shakmaty::Color::Black);
    }
}
