//! PGN input: games read by one thread, replayed and sampled by the workers.

use super::split::{GameText, Games};
use super::{
    io, pipeline, quiet_leaf, Candidate, ImportError, ImportOptions, ImportStats, Kept, Output,
    ScoreView, BATCH,
};
use pgn_reader::{RawComment, RawTag, Reader, SanPlus, Visitor};
use rayon::prelude::*;
use shakmaty::{Chess, Move, Position};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::atomic::Ordering;
use texel_data::open_input;
use texel_data::{splitmix64, Label, Outcome};
use texel_search::{Searcher, MATE};

/// One game as read: start, moves, per-ply scores (white's view, cp) and result.
#[derive(Clone, Debug, Default)]
pub(crate) struct RawGame {
    /// Input line the game starts on.
    line: u64,
    /// Number of the game in the input (1-based): the sampling seed, and the game id its
    /// positions are written with.
    number: u64,
    pub fen: Option<String>,
    result: Option<Outcome>,
    moves: Vec<SanPlus>,
    /// Per move: its comment's score as written, and whether it is an `[%eval]`.
    comments: Vec<Option<(i32, bool)>>,
    /// Per move: the score after it from White's view (from `comments` at the game's end).
    pub scores: Vec<Option<i32>>,
    unfinished: bool,
    /// The movetext ended with a result (`1-0`, `*`, ...): the game was written whole. A
    /// game without one was cut short (a killed writer, a full disk) and is skipped.
    terminated: bool,
    /// The result the movetext ends with, when it is one (`*` is none).
    ended_as: Option<Outcome>,
    /// The `Variant` tag names a game other than standard chess.
    variant: bool,
    /// The `Termination` tag says the game was lost off the board (time, a crash, an
    /// illegal move, abandoned): its result says nothing about its positions.
    forfeit: bool,
}

/// Whether a `Termination` tag says the game was decided off the board: "time forfeit"
/// (the PGN standard), "abandoned", "rules infraction", texel's own "white loses on time",
/// "black engine crashed", "illegal move ...", "engine gave no move ...".
fn off_the_board(termination: &str) -> bool {
    let t = termination.to_ascii_lowercase();
    [
        "time",
        "abandon",
        "infraction",
        "crash",
        "illegal",
        "no move",
        "disconnect",
        "failed",
    ]
    .iter()
    .any(|w| t.contains(w))
}

/// Whether a `Variant` tag value names standard chess.
fn is_standard(variant: &str) -> bool {
    let v = variant.trim().to_ascii_lowercase();
    matches!(
        v.as_str(),
        "" | "standard" | "chess" | "normal" | "from position"
    )
}

/// Parses a score comment: `+0.35/12`, `-1.2`, `+M3/20`, `+0.35/12 0.101s` (cutechess,
/// fastchess), or `[%eval 0.35]` / `[%eval #-2]`. Returns the score and whether it is an
/// `[%eval]` (always White's view).
fn comment_score(text: &str) -> Option<(i32, bool)> {
    let t = text.trim();
    let (value, eval) = match t.find("[%eval") {
        Some(at) => (t[at + 6..].trim_start().split([']', ' ']).next()?, true),
        None => (t.split(['/', ' ', ',']).next()?.trim(), false),
    };
    score_value(value).map(|cp| (cp, eval))
}

/// Centipawns of a score word: pawns (`+0.35`) or a mate (`+M3`, `-M2`, `#-2`).
fn score_value(value: &str) -> Option<i32> {
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

/// The score after each move of `g` from White's view: plain comments in the mover's view
/// are turned round after Black's moves.
fn white_view(g: &RawGame, view: ScoreView) -> Vec<Option<i32>> {
    let black_starts = g.fen.as_deref().and_then(|f| f.split_whitespace().nth(1)) == Some("b");
    g.comments
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let (cp, eval) = (*c)?;
            let black_moved = (i % 2 == 1) != black_starts;
            let turn = view == ScoreView::Mover && !eval && black_moved;
            Some(if turn { -cp } else { cp })
        })
        .collect()
}

/// Collects one game's tags, moves and score comments.
struct Collect {
    line: u64,
    number: u64,
    /// Whose view plain score comments take.
    view: ScoreView,
}

impl Visitor for Collect {
    type Tags = RawGame;
    type Movetext = RawGame;
    type Output = RawGame;

    fn begin_tags(&mut self) -> ControlFlow<RawGame, RawGame> {
        ControlFlow::Continue(RawGame {
            line: self.line,
            number: self.number,
            ..RawGame::default()
        })
    }

    fn tag(&mut self, tags: &mut RawGame, name: &[u8], value: RawTag<'_>) -> ControlFlow<RawGame> {
        let v = String::from_utf8_lossy(value.as_bytes()).to_string();
        match name {
            b"FEN" => tags.fen = Some(v),
            b"Variant" => tags.variant = !is_standard(&v),
            b"Termination" => tags.forfeit = off_the_board(&v),
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
        g.comments.push(None);
        ControlFlow::Continue(())
    }

    fn comment(&mut self, g: &mut RawGame, comment: RawComment<'_>) -> ControlFlow<RawGame> {
        if let Some(last) = g.comments.last_mut() {
            if last.is_none() {
                *last = comment_score(&String::from_utf8_lossy(comment.as_bytes()));
            }
        }
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, g: &mut RawGame, outcome: pgn_reader::Outcome) -> ControlFlow<RawGame> {
        use shakmaty::{Color, KnownOutcome};
        g.terminated = true;
        g.ended_as = match outcome {
            pgn_reader::Outcome::Known(KnownOutcome::Decisive {
                winner: Color::White,
            }) => Some(Outcome::WhiteWins),
            pgn_reader::Outcome::Known(KnownOutcome::Decisive {
                winner: Color::Black,
            }) => Some(Outcome::BlackWins),
            pgn_reader::Outcome::Known(KnownOutcome::Draw) => Some(Outcome::Draw),
            pgn_reader::Outcome::Unknown => None,
        };
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, mut g: RawGame) -> RawGame {
        g.scores = white_view(&g, self.view);
        g
    }
}

/// What one game yields: positions, or the reason the game is skipped; plus position
/// skip reasons.
pub(crate) type GameYield = (Result<Vec<Candidate>, &'static str>, Vec<&'static str>);

/// The result of a game played out on the board, or why the game says nothing of its
/// positions.
pub(crate) fn finished(g: &RawGame) -> Result<Outcome, &'static str> {
    if g.variant {
        return Err("not standard chess ([Variant] tag)");
    }
    if g.forfeit {
        return Err("lost off the board (time, crash, illegal move: [Termination] tag)");
    }
    let Some(result) = g.result.filter(|_| !g.unfinished) else {
        return Err("unfinished");
    };
    if !g.terminated {
        return Err("cut short (no result after the moves)");
    }
    if g.ended_as.is_some_and(|ended| ended != result) {
        return Err("its Result tag and the result after its moves disagree");
    }
    Ok(result)
}

fn process_game(g: &RawGame, o: &ImportOptions, searcher: &mut Searcher) -> GameYield {
    let result = match finished(g) {
        Ok(result) => result,
        Err(why) => return (Err(why), vec![]),
    };
    let positions = match replay(g) {
        Ok(played) => played.into_iter().map(|(_, p)| p).collect(),
        Err(why) => return (Err(why), vec![]),
    };
    let game = Replayed {
        number: g.number,
        positions,
        scores: &g.scores,
        result,
    };
    sample_game(&game, o, searcher)
}

/// A game replayed: its positions, each with the engine's score of it (White's view) when
/// known, and its result.
pub(crate) struct Replayed<'g> {
    /// Number of the game in the input (1-based): the sampling seed, and the game id its
    /// positions are written with.
    pub number: u64,
    pub positions: Vec<Chess>,
    pub scores: &'g [Option<i32>],
    pub result: Outcome,
}

/// Up to `o.per_game` positions of a game, `o.gap` plies apart after the skipped opening,
/// each quiesced and kept where the filters keep it.
pub(crate) fn sample_game(
    game: &Replayed,
    o: &ImportOptions,
    searcher: &mut Searcher,
) -> GameYield {
    let positions = &game.positions;
    if positions.len() <= o.skip_plies {
        return (Err("too short"), vec![]);
    }
    let mut chosen: Vec<usize> = Vec::new();
    let mut skipped = Vec::new();
    let mut kept = Vec::new();
    for ply in shuffled_plies(game.number, o, positions.len()) {
        if chosen.len() == o.per_game {
            break;
        }
        if chosen.iter().any(|&c| c.abs_diff(ply) < o.gap) {
            continue;
        }
        match judge(game, o, ply, searcher) {
            Ok(leaf) => {
                chosen.push(ply);
                // The engine's own score of the position (the comment of the move that
                // led to it), written beside the label for `--lambda`.
                kept.push(Ok(Kept {
                    leaf,
                    label: Label::from(game.result),
                    score: game.scores[ply],
                    game: Some(game.number),
                }));
            }
            Err(why) => skipped.push(why),
        }
    }
    (Ok(kept), skipped)
}

/// Every move of the game with the position after it, or why the game cannot be
/// replayed.
pub(crate) fn replay(g: &RawGame) -> Result<Vec<(Move, Chess)>, &'static str> {
    let mut pos = start_of(g)?;
    let mut played = Vec::with_capacity(g.moves.len());
    for san in &g.moves {
        let m = san.san.to_move(&pos).map_err(|_| "illegal move")?;
        pos.play_unchecked(m);
        played.push((m, pos.clone()));
    }
    Ok(played)
}

/// The position a game starts from (its FEN tag, or the standard start).
pub(crate) fn start_of(g: &RawGame) -> Result<Chess, &'static str> {
    match &g.fen {
        Some(fen) => texel_eval::parse_fen(fen).map_err(|_| "bad FEN tag"),
        None => Ok(Chess::default()),
    }
}

/// The candidate plies after the skipped opening, in a seeded order (taken greedily at
/// least `gap` apart by the caller).
fn shuffled_plies(number: u64, o: &ImportOptions, plies: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (o.skip_plies..plies).collect();
    let mut state = splitmix64(o.seed ^ number);
    for i in (1..order.len()).rev() {
        state = splitmix64(state);
        order.swap(i, (state % (i as u64 + 1)) as usize);
    }
    order
}

/// The quiet leaf of the position at `ply` of a game when the Slow Chess filters keep it,
/// or why they skip it.
fn judge(
    game: &Replayed,
    o: &ImportOptions,
    ply: usize,
    searcher: &mut Searcher,
) -> Result<Chess, &'static str> {
    let (pos, result) = (&game.positions[ply], game.result);
    if pos.is_check() {
        return Err("in check");
    }
    if pos.legal_moves().is_empty() {
        return Err("game over");
    }
    let (score, leaf) = quiet_leaf(searcher, pos);
    if score.abs() > MATE - 1000 {
        return Err("mate score");
    }
    // Evaluations from white's point of view: this ply's, and the one before (the other
    // side's) when scores come from the PGN.
    let white = |s: i32| if pos.turn().is_white() { s } else { -s };
    let evals: Vec<i32> = if o.score_from_pgn {
        // The comment of the move that led to `pos` is the score after it.
        let own = game.scores[ply];
        let other = ply.checked_sub(1).and_then(|p| game.scores[p]);
        if own.is_none() && other.is_none() {
            return Err("no score comment");
        }
        own.into_iter().chain(other).collect()
    } else {
        vec![white(score)]
    };
    if evals.iter().any(|e| e.abs() >= o.decided_cp) {
        return Err("game already decided");
    }
    let keep = match (result, o.win_min_cp, o.draw_max_cp) {
        (Outcome::WhiteWins, Some(min), _) => evals.iter().all(|&e| e > min),
        (Outcome::BlackWins, Some(min), _) => evals.iter().all(|&e| -e > min),
        (Outcome::Draw, _, Some(max)) => evals.iter().any(|e| e.abs() < max),
        _ => true,
    };
    match (keep, result) {
        (true, _) => Ok(leaf),
        (false, Outcome::Draw) => Err("draw filter"),
        (false, _) => Err("winner filter"),
    }
}

/// The game(s) in one game's text (more than one only where the splitter could not tell
/// them apart), their plain score comments in `view`.
pub(crate) fn parse_games(g: &GameText, number: u64, view: ScoreView) -> Vec<RawGame> {
    parsed_games(g, number, view).0
}

/// [`parse_games`], and whether the text ends in a game the reader could not finish (a
/// file cut inside a game's moves).
fn parsed_games(g: &GameText, number: u64, view: ScoreView) -> (Vec<RawGame>, bool) {
    let mut reader = Reader::new(g.text.as_slice());
    let mut visitor = Collect {
        line: g.line,
        number,
        view,
    };
    let mut games = Vec::new();
    loop {
        match reader.read_game(&mut visitor) {
            Ok(Some(game)) => games.push(game),
            Ok(None) => return (games, false),
            Err(_) => return (games, true),
        }
    }
}

/// Parses the game(s) in one game's text (more than one only where the splitter could not
/// tell them apart) and processes each.
fn process_text(
    g: &GameText,
    number: u64,
    o: &ImportOptions,
    s: &mut Searcher,
) -> Vec<(u64, GameYield)> {
    let (games, cut) = parsed_games(g, number, o.pgn_scores);
    let mut out: Vec<_> = (games.into_iter())
        .map(|game| (game.line, process_game(&game, o, s)))
        .collect();
    if out.is_empty() {
        let why = match cut {
            true => "a game cut short inside its moves",
            false => "no game in the text",
        };
        out.push((g.line, (Err(why), vec![])));
    }
    out
}

/// Imports PGN games (`.pgn`, or compressed `.pgn.gz` / `.pgn.zst`): up to `per_game`
/// positions of each finished game, `gap` plies apart, after the opening book, filtered by
/// evaluation and result, quiesced, deduplicated. `progress` gets the input bytes read so
/// far. Games are split off by one thread and parsed and replayed by the worker pool; the
/// output order depends only on the input and the seed. Skipped games are reported by the
/// line they start on.
///
/// # Errors
/// An unreadable input or unwritable output (nothing is left at the output path then).
pub fn import_pgn(
    input: &Path,
    output: &Path,
    o: &ImportOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<ImportStats, ImportError> {
    let file = open_input(input).map_err(io(input))?;
    let bytes = file.bytes_read.clone();
    let mut games = Games::new(file.reader);
    let out = Output::create(output, o.format, o.duplicates)?;
    let mut number = 0;
    let mut read_batch = || {
        let mut batch = Vec::with_capacity(BATCH);
        while batch.len() < BATCH {
            let Some(g) = games.next_game().map_err(io(input))? else {
                break;
            };
            number += 1;
            batch.push((number, g));
        }
        Ok(batch)
    };
    let first = read_batch()?;
    let replay = |batch: &[(u64, GameText)]| -> Vec<Vec<(u64, GameYield)>> {
        batch
            .par_iter()
            .map_init(
                || Searcher::new(o.params.clone(), 0),
                |s, (number, g)| process_text(g, *number, o, s),
            )
            .collect()
    };
    let report = || progress(bytes.load(Ordering::Relaxed));
    pipeline(
        first,
        read_batch,
        replay,
        out,
        write_games,
        (report, |_: &ImportStats| Ok(())),
    )
}

/// Writes what a batch of games yields, in order, counting each game (by the line it
/// starts on, or its number in a file of game records) and every skip.
pub(crate) fn write_games(
    out: &mut Output,
    stats: &mut ImportStats,
    results: Vec<Vec<(u64, GameYield)>>,
) -> Result<(), ImportError> {
    for (line, (outcome, skipped)) in results.into_iter().flatten() {
        stats.games += 1;
        for reason in skipped {
            out.write(stats, Err(reason))?;
        }
        match outcome {
            Err(reason) => stats.skip_game(reason, line),
            Ok(candidates) => {
                for c in candidates {
                    out.write(stats, c)?;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_comments_of_both_styles() {
        assert_eq!(comment_score("+0.35/12"), Some((35, false)));
        assert_eq!(comment_score(" -1.20/9 "), Some((-120, false)));
        assert_eq!(comment_score("+M3/20"), Some((100_000 - 3, false)));
        assert_eq!(comment_score("+0.50/13 0.101s"), Some((50, false)));
        assert_eq!(comment_score("-1.25/16 0.412s, book"), Some((-125, false)));
        assert_eq!(
            comment_score("[%eval 0.35] [%clk 0:01:00]"),
            Some((35, true))
        );
        assert_eq!(comment_score("[%eval #-2]"), Some((-100_000 + 2, true)));
        assert_eq!(comment_score("book move"), None);
        assert_eq!(comment_score("book"), None);
    }

    #[test]
    fn mover_view_scores_are_turned_round_after_blacks_moves() {
        let game = |fen: Option<&str>| RawGame {
            fen: fen.map(String::from),
            comments: vec![
                Some((30, false)),
                Some((-20, false)),
                Some((40, true)),
                None,
            ],
            ..RawGame::default()
        };
        let white = [Some(30), Some(-20), Some(40), None];
        assert_eq!(white_view(&game(None), ScoreView::White), white);
        // cutechess style: White's +0.30, Black's -0.20 (Black thinks it is behind, so White
        // is ahead by 0.20), an [%eval] stays White's.
        let mover = [Some(30), Some(20), Some(40), None];
        assert_eq!(white_view(&game(None), ScoreView::Mover), mover);
        let black_first = game(Some("8/8/8/8/8/8/k7/K7 b - - 0 1"));
        assert_eq!(
            white_view(&black_first, ScoreView::Mover),
            [Some(-30), Some(-20), Some(40), None]
        );
    }
}
