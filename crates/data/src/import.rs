//! The importer: labelled positions from EPD files or PGN games, each replaced by the quiet
//! leaf of its quiescence search, filtered the way the Slow Chess author filtered his games,
//! deduplicated, and written as labelled EPD.

use crate::epd::{parse_line, BadLine, LabelFormat, Outcome};
use pgn_reader::{RawComment, RawTag, Reader, SanPlus, Visitor};
use rayon::prelude::*;
use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode, Position};
use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use texel_eval::Params;
use texel_search::{key, Searcher, MATE};

/// How to import.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// Label format of the output.
    pub format: LabelFormat,
    /// Input labels score the side to move (EPD input).
    pub stm_labels: bool,
    /// Positions taken per game at most (PGN).
    pub per_game: usize,
    /// Plies between two positions of a game at least (PGN).
    pub gap: usize,
    /// Plies skipped at the start of each game: the opening book (PGN).
    pub skip_plies: usize,
    /// Decisive games: keep a position only if the winner's evaluation is above this (cp).
    pub win_min_cp: i32,
    /// Drawn games: keep a position only if an evaluation is below this in absolute value.
    pub draw_max_cp: i32,
    /// Positions whose evaluation reaches this are past the point where the game was
    /// decided and are skipped (cp).
    pub decided_cp: i32,
    /// Judge positions by the PGN's score comments (`{+0.35/12}`, `[%eval 0.35]`) instead
    /// of texel's own quiescence score.
    pub score_from_pgn: bool,
    /// Seed of the per-game sampling.
    pub seed: u64,
    /// Parameters of the quiescence search.
    pub params: Arc<Params>,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            format: LabelFormat::Bracket,
            stm_labels: false,
            per_game: 5,
            gap: 10,
            skip_plies: 10,
            win_min_cp: 100,
            draw_max_cp: 150,
            decided_cp: 1000,
            score_from_pgn: false,
            seed: 1,
            params: Arc::new(Params::default()),
        }
    }
}

/// Counts of what the import did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImportStats {
    /// Games read (PGN).
    pub games: u64,
    /// Games skipped, by reason, with the first few game numbers.
    pub games_skipped: BTreeMap<String, (u64, Vec<u64>)>,
    /// Positions considered.
    pub considered: u64,
    /// Positions written.
    pub kept: u64,
    /// Positions skipped, by reason.
    pub skipped: BTreeMap<String, u64>,
    /// White wins, draws, black wins among the written positions.
    pub results: [u64; 3],
}

impl ImportStats {
    fn skip(&mut self, reason: &str) {
        *self.skipped.entry(reason.to_string()).or_default() += 1;
    }

    fn skip_game(&mut self, reason: &str, game: u64) {
        let e = self.games_skipped.entry(reason.to_string()).or_default();
        e.0 += 1;
        if e.1.len() < 5 {
            e.1.push(game);
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
        let games: Vec<String> = self
            .games_skipped
            .iter()
            .map(|(k, (n, first))| {
                format!("\"{k}\": {{\"count\": {n}, \"first_games\": {first:?}}}")
            })
            .collect();
        format!(
            "{{\"games\": {}, \"games_skipped\": {{{}}}, \"positions_considered\": {}, \"positions_kept\": {}, \"positions_skipped\": {{{}}}, \"white_wins\": {}, \"draws\": {}, \"black_wins\": {}}}\n",
            self.games,
            games.join(", "),
            self.considered,
            self.kept,
            map(&self.skipped),
            self.results[2],
            self.results[1],
            self.results[0]
        )
    }
}

impl std::fmt::Display for ImportStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.games > 0 {
            writeln!(f, "games read: {}", self.games)?;
            for (reason, (n, first)) in &self.games_skipped {
                writeln!(f, "  games skipped, {reason}: {n} (first: games {first:?})")?;
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
        )
    }
}

/// Why an import failed.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> ImportError + '_ {
    move |source| ImportError::Io {
        path: path.to_path_buf(),
        source,
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

/// A candidate position ready to be written, or why it is not.
type Candidate = Result<(Chess, Outcome), &'static str>;

/// Quiesces a labelled position: skipped in check or with a mate score.
fn quiesce_labelled(searcher: &mut Searcher, pos: &Chess, outcome: Outcome) -> Candidate {
    if pos.is_check() {
        return Err("in check");
    }
    let (score, leaf) = quiet_leaf(searcher, pos);
    if score.abs() > MATE - 1000 {
        return Err("mate score");
    }
    Ok((leaf, outcome))
}

/// Writes kept positions to a temporary file, renamed over the output at the end.
struct Output {
    path: PathBuf,
    tmp: PathBuf,
    file: BufWriter<std::fs::File>,
    seen: HashSet<u64>,
    format: LabelFormat,
}

impl Output {
    fn create(path: &Path, format: LabelFormat) -> Result<Output, ImportError> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = PathBuf::from(format!("{}.tmp{}-{n}", path.display(), std::process::id()));
        let file = std::fs::File::create(&tmp).map_err(io(path))?;
        Ok(Output {
            path: path.to_path_buf(),
            tmp,
            file: BufWriter::new(file),
            seen: HashSet::new(),
            format,
        })
    }

    fn write(&mut self, stats: &mut ImportStats, candidate: Candidate) -> Result<(), ImportError> {
        match candidate {
            Err(reason) => stats.skip(reason),
            Ok((leaf, outcome)) => {
                if !self.seen.insert(key(&leaf)) {
                    stats.skip("duplicate");
                    return Ok(());
                }
                let fen = Fen::from_position(&leaf, EnPassantMode::Legal);
                writeln!(self.file, "{fen} {}", self.format.write(outcome))
                    .map_err(io(&self.path))?;
                stats.kept += 1;
                stats.results[outcome.index() as usize] += 1;
            }
        }
        Ok(())
    }

    fn finish(mut self) -> Result<(), ImportError> {
        let path = self.path.clone();
        let done = self
            .file
            .flush()
            .and_then(|()| std::fs::rename(&self.tmp, &path));
        if done.is_err() {
            let _ = std::fs::remove_file(&self.tmp);
        }
        done.map_err(io(&path))
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        // Only reached on an error path: a finished output was renamed already.
        let _ = std::fs::remove_file(&self.tmp);
    }
}

/// Lines or games processed per parallel batch.
const BATCH: usize = 4096;

/// Imports a labelled EPD/FEN file (any label format, detected): each position is
/// replaced by its quiet leaf, duplicates removed, the label kept.
///
/// # Errors
/// An unreadable input or unwritable output (nothing is left at the output path then).
pub fn import_epd(
    input: &Path,
    output: &Path,
    o: &ImportOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<ImportStats, ImportError> {
    let reader = BufReader::new(std::fs::File::open(input).map_err(io(input))?);
    let mut out = Output::create(output, o.format)?;
    let mut stats = ImportStats::default();
    let mut format = None;
    let mut lines = reader.lines();
    let mut bytes = 0u64;
    loop {
        let mut batch = Vec::with_capacity(BATCH);
        for line in lines.by_ref() {
            let line = line.map_err(io(input))?;
            bytes += line.len() as u64 + 1;
            if !line.trim().is_empty() && !line.starts_with('#') {
                batch.push(line);
            }
            if batch.len() == BATCH {
                break;
            }
        }
        if batch.is_empty() {
            break;
        }
        if format.is_none() {
            format = batch
                .iter()
                .find_map(|l| parse_line(l, None, o.stm_labels).ok().map(|r| r.1));
        }
        let done: Vec<Candidate> = batch
            .par_iter()
            .map_init(
                || Searcher::new(o.params.clone(), 0),
                |s, line| match parse_line(line, format, o.stm_labels) {
                    Ok((l, _)) => quiesce_labelled(s, &l.position, l.outcome),
                    Err(BadLine::MalformedFen) => Err("malformed FEN"),
                    Err(BadLine::IllegalPosition) => Err("illegal position"),
                    Err(BadLine::MissingLabel | BadLine::UnknownLabel) => {
                        Err("missing or unknown label")
                    }
                },
            )
            .collect();
        for c in done {
            stats.considered += 1;
            out.write(&mut stats, c)?;
        }
        progress(bytes);
    }
    out.finish()?;
    Ok(stats)
}

/// One game as read: start, moves, per-ply scores (white's view, cp) and result.
#[derive(Clone, Debug, Default)]
struct RawGame {
    number: u64,
    fen: Option<String>,
    result: Option<Outcome>,
    moves: Vec<SanPlus>,
    scores: Vec<Option<i32>>,
    unfinished: bool,
}

/// Parses a score comment: `+0.35/12`, `-1.2`, `+M3/20`, or `[%eval 0.35]` / `[%eval #-2]`.
fn comment_score(text: &str) -> Option<i32> {
    let t = text.trim();
    let value = match t.find("[%eval") {
        Some(at) => t[at + 6..].trim_start().split([']', ' ']).next()?,
        None => t.split('/').next()?.trim(),
    };
    let mate = |v: &str| {
        v.parse::<i32>()
            .ok()
            .map(|m| if m >= 0 { 100_000 - m } else { -100_000 - m })
    };
    if let Some(m) = value.strip_prefix('#') {
        return mate(m);
    }
    if let Some(m) = value.strip_prefix("+M").or_else(|| value.strip_prefix('M')) {
        return mate(m);
    }
    if let Some(m) = value.strip_prefix("-M") {
        return mate(m).map(|x| -x);
    }
    value
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .map(|p| (p * 100.0).round() as i32)
}

/// Collects games for the workers.
struct Collect {
    games: u64,
}

impl Visitor for Collect {
    type Tags = RawGame;
    type Movetext = RawGame;
    type Output = RawGame;

    fn begin_tags(&mut self) -> ControlFlow<RawGame, RawGame> {
        self.games += 1;
        ControlFlow::Continue(RawGame {
            number: self.games,
            ..RawGame::default()
        })
    }

    fn tag(&mut self, tags: &mut RawGame, name: &[u8], value: RawTag<'_>) -> ControlFlow<RawGame> {
        let v = String::from_utf8_lossy(value.as_bytes()).to_string();
        match name {
            b"FEN" => tags.fen = Some(v),
            b"Result" => match v.as_str() {
                "1-0" => tags.result = Some(Outcome::WhiteWins),
                "0-1" => tags.result = Some(Outcome::BlackWins),
                "1/2-1/2" => tags.result = Some(Outcome::Draw),
                _ => tags.unfinished = true,
            },
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: RawGame) -> ControlFlow<RawGame, RawGame> {
        ControlFlow::Continue(tags)
    }

    fn san(&mut self, g: &mut RawGame, san: SanPlus) -> ControlFlow<RawGame> {
        g.moves.push(san);
        g.scores.push(None);
        ControlFlow::Continue(())
    }

    fn comment(&mut self, g: &mut RawGame, comment: RawComment<'_>) -> ControlFlow<RawGame> {
        if let Some(last) = g.scores.last_mut() {
            if last.is_none() {
                *last = comment_score(&String::from_utf8_lossy(comment.as_bytes()));
            }
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, g: RawGame) -> RawGame {
        g
    }
}

/// SplitMix64 step, for the seeded per-game sampling.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// What one game yields: positions, or the reason the game is skipped; plus position
/// skip reasons.
type GameYield = (Result<Vec<Candidate>, &'static str>, Vec<&'static str>);

fn process_game(g: &RawGame, o: &ImportOptions, searcher: &mut Searcher) -> GameYield {
    let Some(result) = g.result.filter(|_| !g.unfinished) else {
        return (Err("unfinished"), vec![]);
    };
    let start = match &g.fen {
        Some(fen) => match texel_eval::parse_fen(fen) {
            Ok(p) => p,
            Err(_) => return (Err("bad FEN tag"), vec![]),
        },
        None => Chess::default(),
    };
    let mut positions = Vec::with_capacity(g.moves.len());
    let mut pos = start;
    for san in &g.moves {
        let Ok(m) = san.san.to_move(&pos) else {
            return (Err("illegal move"), vec![]);
        };
        pos.play_unchecked(m);
        positions.push(pos.clone());
    }
    if positions.len() <= o.skip_plies {
        return (Err("too short"), vec![]);
    }
    // Candidate plies in a seeded order; taken greedily at least `gap` apart.
    let mut plies: Vec<usize> = (o.skip_plies..positions.len()).collect();
    let mut state = mix(o.seed ^ g.number);
    for i in (1..plies.len()).rev() {
        state = mix(state);
        plies.swap(i, (state % (i as u64 + 1)) as usize);
    }
    let mut chosen: Vec<usize> = Vec::new();
    let mut skipped = Vec::new();
    let mut kept = Vec::new();
    for ply in plies {
        if chosen.len() == o.per_game {
            break;
        }
        if chosen.iter().any(|&c| c.abs_diff(ply) < o.gap) {
            continue;
        }
        let pos = &positions[ply];
        if pos.is_check() {
            skipped.push("in check");
            continue;
        }
        if pos.legal_moves().is_empty() {
            skipped.push("game over");
            continue;
        }
        let (score, leaf) = quiet_leaf(searcher, pos);
        if score.abs() > MATE - 1000 {
            skipped.push("mate score");
            continue;
        }
        // Evaluations from white's point of view: this ply's, and the one before (the other
        // side's) when scores come from the PGN.
        let white = |s: i32| if pos.turn().is_white() { s } else { -s };
        let evals: Vec<i32> = if o.score_from_pgn {
            // The comment of the move that led to `pos` is the score after it.
            let own = g.scores[ply];
            let other = ply.checked_sub(1).and_then(|p| g.scores[p]);
            match (own, other) {
                (None, None) => {
                    skipped.push("no score comment");
                    continue;
                }
                (a, b) => a.into_iter().chain(b).collect(),
            }
        } else {
            vec![white(score)]
        };
        if evals.iter().any(|e| e.abs() >= o.decided_cp) {
            skipped.push("game already decided");
            continue;
        }
        let keep = match result {
            Outcome::WhiteWins => evals.iter().all(|&e| e > o.win_min_cp),
            Outcome::BlackWins => evals.iter().all(|&e| -e > o.win_min_cp),
            Outcome::Draw => evals.iter().any(|e| e.abs() < o.draw_max_cp),
        };
        if !keep {
            skipped.push(if result == Outcome::Draw {
                "draw filter"
            } else {
                "winner filter"
            });
            continue;
        }
        chosen.push(ply);
        kept.push(Ok((leaf, result)));
    }
    (Ok(kept), skipped)
}

/// Imports PGN games (`.pgn`, or gzip-compressed `.pgn.gz`): up to `per_game` positions of
/// each finished game, `gap` plies apart, after the opening book, filtered by evaluation and
/// result, quiesced, deduplicated. `progress` gets the input bytes read so far.
/// Games are read by one thread and replayed by the worker pool; the output order depends
/// only on the input and the seed.
///
/// # Errors
/// An unreadable input or unwritable output (nothing is left at the output path then).
pub fn import_pgn(
    input: &Path,
    output: &Path,
    o: &ImportOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<ImportStats, ImportError> {
    let file = std::fs::File::open(input).map_err(io(input))?;
    let counter = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counted = Counted {
        inner: file,
        read: counter.clone(),
    };
    let source: Box<dyn std::io::Read> = if input
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"))
    {
        Box::new(flate2::read::MultiGzDecoder::new(counted))
    } else {
        Box::new(counted)
    };
    let mut reader = Reader::new(source);
    let mut out = Output::create(output, o.format)?;
    let mut stats = ImportStats::default();
    let mut visitor = Collect { games: 0 };
    loop {
        let mut batch = Vec::with_capacity(BATCH);
        while batch.len() < BATCH {
            match reader.read_game(&mut visitor) {
                Ok(Some(g)) => batch.push(g),
                Ok(None) => break,
                Err(e) => return Err(io(input)(e)),
            }
        }
        if batch.is_empty() {
            break;
        }
        let results: Vec<GameYield> = batch
            .par_iter()
            .map_init(
                || Searcher::new(o.params.clone(), 0),
                |s, g| process_game(g, o, s),
            )
            .collect();
        for (g, (outcome, skipped)) in batch.iter().zip(results) {
            stats.games += 1;
            for reason in skipped {
                stats.considered += 1;
                stats.skip(reason);
            }
            match outcome {
                Err(reason) => stats.skip_game(reason, g.number),
                Ok(candidates) => {
                    for c in candidates {
                        stats.considered += 1;
                        out.write(&mut stats, c)?;
                    }
                }
            }
        }
        progress(counter.load(std::sync::atomic::Ordering::Relaxed));
    }
    out.finish()?;
    Ok(stats)
}

/// A reader that counts the bytes it reads (compressed bytes for `.gz` input), for
/// progress on the input file's size.
struct Counted<R> {
    inner: R,
    read: Arc<std::sync::atomic::AtomicU64>,
}

impl<R: std::io::Read> std::io::Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read
            .fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_comments_of_both_styles() {
        assert_eq!(comment_score("+0.35/12"), Some(35));
        assert_eq!(comment_score(" -1.20/9 "), Some(-120));
        assert_eq!(comment_score("+M3/20"), Some(100_000 - 3));
        assert_eq!(comment_score("[%eval 0.35] [%clk 0:01:00]"), Some(35));
        assert_eq!(comment_score("[%eval #-2]"), Some(-100_000 + 2));
        assert_eq!(comment_score("book move"), None);
    }

    #[test]
    fn quiet_leaf_takes_the_hanging_queen() {
        let mut s = Searcher::new(Arc::new(Params::default()), 0);
        let pos = texel_eval::parse_fen("4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1").unwrap();
        let (_, leaf) = quiet_leaf(&mut s, &pos);
        assert_eq!(leaf.board().queens().count(), 0);
        assert_eq!(leaf.turn(), shakmaty::Color::Black);
    }
}
