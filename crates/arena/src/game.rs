//! One game between two engines: clocks, the rules of chess, optional score adjudication,
//! and the record that becomes PGN.

use crate::engine::{Clocks, Engine, EngineSpec, Failure, TimeControl, MATE_SCORE};
use crate::openings::Opening;
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Color, Move, Position};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use texel_search::key;

/// Score-based adjudication (both off by default).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Adjudication {
    /// Win when both engines agree on at least this many centipawns for the same side for
    /// `resign_plies` plies in a row.
    pub resign_cp: Option<i32>,
    /// Plies of agreement needed to resign.
    pub resign_plies: u32,
    /// Draw when both scores stay within this many centipawns of zero...
    pub draw_cp: Option<i32>,
    /// ...for this many plies in a row...
    pub draw_plies: u32,
    /// ...after this ply.
    pub draw_after: u32,
    /// Draw after this many plies in all.
    pub max_plies: u32,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq)]
pub struct Ending {
    /// The winner, `None` for a draw.
    pub winner: Option<Color>,
    /// Why, for the PGN `Termination` tag and reports.
    pub reason: String,
}

impl Ending {
    /// The PGN result string.
    pub fn result(&self) -> &'static str {
        match self.winner {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }
}

/// A played move with the mover's comment.
#[derive(Clone, Debug)]
pub struct Played {
    /// The move in SAN.
    pub san: String,
    /// `+0.35/12`: the mover's score from white's view, in pawns, and depth.
    pub comment: Option<String>,
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The starting position (its FEN goes into the PGN when not the standard start).
    pub start: Chess,
    /// Every move from the start: the opening and random plies (no comment), then the game.
    pub moves: Vec<Played>,
    /// How it ended.
    pub ending: Ending,
}

/// The comment of a move: white's-view score in pawns and depth, `+M3` style for mates.
fn comment(score: Option<i32>, depth: Option<u32>, mover: Color) -> Option<String> {
    let s = score? * if mover.is_white() { 1 } else { -1 };
    let text = if s.abs() > MATE_SCORE - 1000 {
        let plies = MATE_SCORE - s.abs();
        format!("{}M{}", if s > 0 { "+" } else { "-" }, (plies + 1) / 2)
    } else {
        format!("{:+.2}", f64::from(s) / 100.0)
    };
    Some(match depth {
        Some(d) => format!("{text}/{d}"),
        None => text,
    })
}

/// The rules' verdict on a position, if the game is over.
fn by_rules(pos: &Chess, keys: &[u64]) -> Option<Ending> {
    let draw = |reason: &str| {
        Some(Ending {
            winner: None,
            reason: reason.to_string(),
        })
    };
    if pos.is_checkmate() {
        return Some(Ending {
            winner: Some(pos.turn().other()),
            reason: "checkmate".into(),
        });
    }
    if pos.is_stalemate() {
        return draw("stalemate");
    }
    if pos.is_insufficient_material() {
        return draw("insufficient material");
    }
    if pos.halfmoves() >= 100 {
        return draw("fifty-move rule");
    }
    let last = *keys.last().expect("the current position");
    if keys.iter().filter(|&&k| k == last).count() >= 3 {
        return draw("threefold repetition");
    }
    None
}

/// The reason of a game stopped from outside before it ended (never counted or written).
pub const ABORTED: &str = "aborted";

/// Plays one game from `opening` (a start position and the moves already played from it).
/// When `abort` is set the game stops before the next move with the reason [`ABORTED`].
pub fn play(
    white: (&EngineSpec, &mut Engine),
    black: (&EngineSpec, &mut Engine),
    opening: &Opening,
    adjudication: &Adjudication,
    abort: &AtomicBool,
) -> GameRecord {
    let mut game = Game::new(opening, [black.0, white.0]);
    let names = (white.0.name.clone(), black.0.name.clone());
    let ending = game.run([black, white], adjudication, abort);
    GameRecord {
        white: names.0,
        black: names.1,
        start: opening.start.clone(),
        moves: game.played,
        ending,
    }
}

/// A game in progress. Per-side arrays are indexed by `Color as usize` (black 0, white 1).
struct Game<'o> {
    start: &'o Chess,
    pos: Chess,
    moves: Vec<Move>,
    /// Keys of every position so far, for repetitions.
    keys: Vec<u64>,
    played: Vec<Played>,
    /// Time left on each side's clock (sides without a clock: `None`).
    left: [Option<Duration>; 2],
    increment: [Duration; 2],
    judge: Judge,
}

/// The running counts of score adjudication.
#[derive(Default)]
struct Judge {
    resign_run: u32,
    draw_run: u32,
    /// Each side's last score, from white's view.
    last: [Option<i32>; 2],
}

impl<'o> Game<'o> {
    /// The game after the opening's moves, with each side's clock from its time control.
    fn new(opening: &'o Opening, specs: [&EngineSpec; 2]) -> Game<'o> {
        let clock = |spec: &EngineSpec| match spec.tc {
            TimeControl::Clock { base, increment } => (Some(base), increment),
            _ => (None, Duration::ZERO),
        };
        let (b, w) = (clock(specs[0]), clock(specs[1]));
        let mut game = Game {
            start: &opening.start,
            pos: opening.start.clone(),
            moves: Vec::new(),
            keys: vec![key(&opening.start)],
            played: Vec::new(),
            left: [b.0, w.0],
            increment: [b.1, w.1],
            judge: Judge::default(),
        };
        for m in &opening.moves {
            game.push(*m, None);
        }
        game
    }

    /// Plays `m`, with the mover's comment.
    fn push(&mut self, m: Move, comment: Option<String>) {
        self.played.push(Played {
            san: SanPlus::from_move(self.pos.clone(), m).to_string(),
            comment,
        });
        self.pos.play_unchecked(m);
        self.moves.push(m);
        self.keys.push(key(&self.pos));
    }

    /// The clocks an engine is told: a side without a clock is shown the other's.
    fn clocks(&self) -> Option<Clocks> {
        let (white, black) = match (self.left[1], self.left[0]) {
            (None, None) => return None,
            (Some(w), Some(b)) => (w, b),
            (Some(w), None) => (w, w),
            (None, Some(b)) => (b, b),
        };
        Some(Clocks {
            white,
            black,
            white_inc: self.increment[1],
            black_inc: self.increment[0],
        })
    }

    /// The game loop: moves until the rules, an adjudication, a failure or `abort` end it.
    fn run(
        &mut self,
        engines: [(&EngineSpec, &mut Engine); 2],
        adjudication: &Adjudication,
        abort: &AtomicBool,
    ) -> Ending {
        let [(bspec, beng), (wspec, weng)] = engines;
        for (engine, color) in [(&mut *weng, Color::White), (&mut *beng, Color::Black)] {
            if let Err(f) = engine.new_game() {
                return lost(color, f.to_string());
            }
        }
        loop {
            if let Some(ending) = by_rules(&self.pos, &self.keys) {
                return ending;
            }
            if adjudication.max_plies > 0 && self.moves.len() as u32 >= adjudication.max_plies {
                return drawn("adjudication: move limit");
            }
            if abort.load(Ordering::SeqCst) {
                return drawn(ABORTED);
            }
            let (spec, engine) = if self.pos.turn().is_white() {
                (wspec, &mut *weng)
            } else {
                (bspec, &mut *beng)
            };
            let score = match self.engine_move(spec, engine) {
                Ok(score) => score,
                Err(ending) => return ending,
            };
            if let Some(ending) = self.adjudicate(score, adjudication) {
                return ending;
            }
        }
    }

    /// Asks the side to move for its move, charges its clock and plays the move; returns
    /// the engine's score from its own view, or the ending when it fails or runs out of time.
    fn engine_move(
        &mut self,
        spec: &EngineSpec,
        engine: &mut Engine,
    ) -> Result<Option<i32>, Ending> {
        let mover = self.pos.turn();
        let clocks = self.clocks();
        let began = Instant::now();
        let reply = engine.go(self.start, &self.moves, &self.pos, &self.keys, spec, clocks);
        let spent = began.elapsed();
        let side = mover as usize;
        let reply = reply.map_err(|f| match f {
            Failure::Timeout if self.left[side].is_some() => lost(mover, "loses on time".into()),
            f => lost(mover, f.to_string()),
        })?;
        if let Some(t) = self.left[side].as_mut() {
            if spent > *t {
                return Err(lost(mover, "loses on time".into()));
            }
            *t = *t - spent + self.increment[side];
        }
        self.push(reply.mv, comment(reply.score, reply.depth, mover));
        Ok(reply.score)
    }

    /// Score adjudication after a move whose mover reported `score` (its own view).
    fn adjudicate(&mut self, score: Option<i32>, adjudication: &Adjudication) -> Option<Ending> {
        let mover = self.pos.turn().other();
        let judge = &mut self.judge;
        judge.last[mover as usize] = score.map(|s| if mover.is_white() { s } else { -s });
        let (Some(a), Some(b)) = (judge.last[0], judge.last[1]) else {
            return None;
        };
        if let Some(r) = adjudication.resign_cp {
            let agree = (a >= r && b >= r) || (a <= -r && b <= -r);
            judge.resign_run = if agree { judge.resign_run + 1 } else { 0 };
            if agree && judge.resign_run >= adjudication.resign_plies.max(1) {
                let winner = if a > 0 { Color::White } else { Color::Black };
                return Some(Ending {
                    winner: Some(winner),
                    reason: "adjudication: score".into(),
                });
            }
        }
        let d = adjudication.draw_cp?;
        let quiet =
            a.abs() <= d && b.abs() <= d && self.moves.len() as u32 >= adjudication.draw_after;
        judge.draw_run = if quiet { judge.draw_run + 1 } else { 0 };
        (quiet && judge.draw_run >= adjudication.draw_plies.max(1))
            .then(|| drawn("adjudication: draw"))
    }
}

/// `side` loses for `why` (`"white crashed"`, `"black loses on time"`).
fn lost(side: Color, why: String) -> Ending {
    Ending {
        winner: Some(side.other()),
        reason: format!("{side} {why}"),
    }
}

/// A draw for `why`.
fn drawn(why: &str) -> Ending {
    Ending {
        winner: None,
        reason: why.to_string(),
    }
}

/// The UTC day of `when` as a PGN date, `YYYY.MM.DD` (`????.??.??` before 1970).
fn pgn_date(when: std::time::SystemTime) -> String {
    let Ok(since) = when.duration_since(std::time::UNIX_EPOCH) else {
        return "????.??.??".into();
    };
    // Days to the civil date (Howard Hinnant's algorithm, eras of 400 years from 0000-03-01).
    let z = (since.as_secs() / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

/// The game as PGN text, tags first, moves with their comments, wrapped at 80 columns.
pub fn to_pgn(game: &GameRecord, round: u64, event: &str) -> String {
    let mut out = String::new();
    let fen =
        shakmaty::fen::Fen::from_position(&game.start, shakmaty::EnPassantMode::Legal).to_string();
    let standard = game.start == Chess::default();
    let tag = |out: &mut String, name: &str, value: &str| {
        let v = value.replace('\\', "\\\\").replace('"', "\\\"");
        out.push_str(&format!("[{name} \"{v}\"]\n"));
    };
    tag(&mut out, "Event", event);
    tag(&mut out, "Site", "texel arena");
    tag(&mut out, "Date", &pgn_date(std::time::SystemTime::now()));
    tag(&mut out, "Round", &round.to_string());
    tag(&mut out, "White", &game.white);
    tag(&mut out, "Black", &game.black);
    tag(&mut out, "Result", game.ending.result());
    if !standard {
        tag(&mut out, "SetUp", "1");
        tag(&mut out, "FEN", &fen);
    }
    tag(&mut out, "Termination", &game.ending.reason);
    tag(&mut out, "PlyCount", &game.moves.len().to_string());
    out.push('\n');
    let mut tokens = Vec::new();
    let mut number = game.start.fullmoves().get();
    let mut white_to_move = game.start.turn().is_white();
    for (i, m) in game.moves.iter().enumerate() {
        if white_to_move {
            tokens.push(format!("{number}."));
        } else if i == 0 {
            tokens.push(format!("{number}..."));
        }
        tokens.push(m.san.clone());
        if let Some(c) = &m.comment {
            tokens.push(format!("{{{c}}}"));
        }
        if !white_to_move {
            number += 1;
        }
        white_to_move = !white_to_move;
    }
    tokens.push(game.ending.result().to_string());
    let mut line = String::new();
    for t in tokens {
        if !line.is_empty() && line.len() + 1 + t.len() > 80 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&t);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_s_date_is_its_utc_day() {
        let at = |secs: u64| pgn_date(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs));
        assert_eq!(at(0), "1970.01.01");
        // 2000-02-29 23:59:59 and the next second (a leap day of a century year).
        assert_eq!(at(951_868_799), "2000.02.29");
        assert_eq!(at(951_868_800), "2000.03.01");
        assert_eq!(at(1_796_601_600), "2026.12.07");
        assert_eq!(at(4_107_542_400), "2100.03.01");
        let before = std::time::UNIX_EPOCH - std::time::Duration::from_secs(1);
        assert_eq!(pgn_date(before), "????.??.??");
    }

    #[test]
    fn comments_are_white_view_pawns_with_depth() {
        assert_eq!(
            comment(Some(35), Some(12), Color::White).unwrap(),
            "+0.35/12"
        );
        assert_eq!(
            comment(Some(35), Some(12), Color::Black).unwrap(),
            "-0.35/12"
        );
        assert_eq!(
            comment(Some(MATE_SCORE - 3), Some(9), Color::White).unwrap(),
            "+M2/9"
        );
        assert_eq!(comment(None, Some(9), Color::White), None);
    }
}
