//! One game between two engines: clocks, the rules of chess, optional score adjudication,
//! and the record that becomes PGN.

use crate::engine::{Clocks, Engine, EngineSpec, Failure, TimeControl, MATE_SCORE};
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Color, Move, Position};
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

/// Plays one game. `opening` is the start position and the moves already played from it.
pub fn play(
    white: (&EngineSpec, &mut Engine),
    black: (&EngineSpec, &mut Engine),
    start: &Chess,
    opening: &[Move],
    adjudication: &Adjudication,
) -> GameRecord {
    let mut pos = start.clone();
    let mut moves = Vec::new();
    let mut played = Vec::new();
    let mut keys = vec![key(&pos)];
    for m in opening {
        played.push(Played {
            san: SanPlus::from_move(pos.clone(), *m).to_string(),
            comment: None,
        });
        pos.play_unchecked(*m);
        moves.push(*m);
        keys.push(key(&pos));
    }
    let names = (white.0.name.clone(), black.0.name.clone());
    let ending = run(
        white,
        black,
        start,
        pos,
        moves,
        keys,
        &mut played,
        adjudication,
    );
    GameRecord {
        white: names.0,
        black: names.1,
        start: start.clone(),
        moves: played,
        ending,
    }
}

/// The game loop: moves until the rules, an adjudication or a failure end the game.
#[allow(clippy::too_many_arguments)]
fn run(
    white: (&EngineSpec, &mut Engine),
    black: (&EngineSpec, &mut Engine),
    start: &Chess,
    mut pos: Chess,
    mut moves: Vec<Move>,
    mut keys: Vec<u64>,
    played: &mut Vec<Played>,
    adjudication: &Adjudication,
) -> Ending {
    let (wspec, weng) = white;
    let (bspec, beng) = black;
    for (engine, color) in [(&mut *weng, Color::White), (&mut *beng, Color::Black)] {
        if let Err(f) = engine.new_game() {
            return Ending {
                winner: Some(color.other()),
                reason: format!("{color} {f}"),
            };
        }
    }
    let clock_of = |spec: &EngineSpec| match spec.tc {
        TimeControl::Clock { base, increment } => Some((base, increment)),
        _ => None,
    };
    let (wclock, bclock) = (clock_of(wspec), clock_of(bspec));
    let mut left = [bclock.map(|c| c.0), wclock.map(|c| c.0)];
    let (mut resign_run, mut draw_run) = (0u32, 0u32);
    let mut last_scores: [Option<i32>; 2] = [None, None];
    loop {
        if let Some(ending) = by_rules(&pos, &keys) {
            return ending;
        }
        if adjudication.max_plies > 0 && moves.len() as u32 >= adjudication.max_plies {
            return Ending {
                winner: None,
                reason: "adjudication: move limit".into(),
            };
        }
        let mover = pos.turn();
        let (spec, engine) = if mover.is_white() {
            (wspec, &mut *weng)
        } else {
            (bspec, &mut *beng)
        };
        let clocks = match (left[1], left[0]) {
            (Some(w), Some(b)) => Some(Clocks {
                white: w,
                black: b,
                white_inc: wclock.map_or(Duration::ZERO, |c| c.1),
                black_inc: bclock.map_or(Duration::ZERO, |c| c.1),
            }),
            (Some(w), None) => Some(Clocks {
                white: w,
                black: w,
                white_inc: wclock.map_or(Duration::ZERO, |c| c.1),
                black_inc: Duration::ZERO,
            }),
            (None, Some(b)) => Some(Clocks {
                white: b,
                black: b,
                white_inc: Duration::ZERO,
                black_inc: bclock.map_or(Duration::ZERO, |c| c.1),
            }),
            (None, None) => None,
        };
        let began = Instant::now();
        let reply = engine.go(start, &moves, &pos, &keys, &spec.tc, clocks);
        let spent = began.elapsed();
        let reply = match reply {
            Ok(r) => r,
            Err(f) => {
                let reason = match f {
                    Failure::Timeout if left[mover as usize].is_some() => {
                        format!("{mover} loses on time")
                    }
                    f => format!("{mover} {f}"),
                };
                return Ending {
                    winner: Some(mover.other()),
                    reason,
                };
            }
        };
        if let Some(t) = left[mover as usize].as_mut() {
            if spent > *t {
                return Ending {
                    winner: Some(mover.other()),
                    reason: format!("{mover} loses on time"),
                };
            }
            let inc =
                if mover.is_white() { wclock } else { bclock }.map_or(Duration::ZERO, |c| c.1);
            *t = *t - spent + inc;
        }
        played.push(Played {
            san: SanPlus::from_move(pos.clone(), reply.mv).to_string(),
            comment: comment(reply.score, reply.depth, mover),
        });
        pos.play_unchecked(reply.mv);
        moves.push(reply.mv);
        keys.push(key(&pos));
        let white_view = reply.score.map(|s| if mover.is_white() { s } else { -s });
        last_scores[mover as usize] = white_view;
        if let (Some(a), Some(b)) = (last_scores[0], last_scores[1]) {
            if let Some(r) = adjudication.resign_cp {
                let agree = (a >= r && b >= r) || (a <= -r && b <= -r);
                resign_run = if agree { resign_run + 1 } else { 0 };
                if agree && resign_run >= adjudication.resign_plies.max(1) {
                    let winner = if a > 0 { Color::White } else { Color::Black };
                    return Ending {
                        winner: Some(winner),
                        reason: "adjudication: score".into(),
                    };
                }
            }
            if let Some(d) = adjudication.draw_cp {
                let quiet =
                    a.abs() <= d && b.abs() <= d && moves.len() as u32 >= adjudication.draw_after;
                draw_run = if quiet { draw_run + 1 } else { 0 };
                if quiet && draw_run >= adjudication.draw_plies.max(1) {
                    return Ending {
                        winner: None,
                        reason: "adjudication: draw".into(),
                    };
                }
            }
        }
    }
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
