//! How the games of a PGN file ended, read from their tags: what a stopped match resumes
//! from and what reports count. Reads the arena's own PGN (one `[Event` tag opens a game).

use crate::game::Ending;
use shakmaty::Color;
use std::ops::Range;

/// One game's tags.
#[derive(Clone, Debug, PartialEq)]
pub struct GameTags {
    /// Where the game's text lies in the file.
    pub span: Range<usize>,
    /// The `Round` tag, when it is a number.
    pub round: Option<usize>,
    /// The `White` tag.
    pub white: String,
    /// The `Black` tag.
    pub black: String,
    /// How it ended; `None` when the result is `*` or missing.
    pub ending: Option<Ending>,
    /// The text ends with the result token its `Result` tag names: the game was written
    /// whole (a write cut short by a kill or a full disk leaves a game without it).
    pub complete: bool,
}

impl GameTags {
    /// Points of engine `name` in this game (`None` when it did not play or the game has no
    /// result).
    pub fn points_of(&self, name: &str) -> Option<f64> {
        let ending = self.ending.as_ref()?;
        let colour = if self.white == name {
            Color::White
        } else if self.black == name {
            Color::Black
        } else {
            return None;
        };
        Some(match ending.winner {
            None => 0.5,
            Some(c) if c == colour => 1.0,
            Some(_) => 0.0,
        })
    }
}

/// Where the text a complete game file would keep ends: the start of a last game that was
/// cut short (see [`GameTags::complete`]), or the text's length. Appending after a torn
/// game would glue the next game to it.
pub fn whole_games_end(text: &[u8]) -> usize {
    let Some(start) = text.windows(7).rposition(|w| w == b"[Event ") else {
        return text.len();
    };
    let last = String::from_utf8_lossy(&text[start..]);
    if tags(&last, 0..last.len()).complete {
        text.len()
    } else {
        start
    }
}

/// Cuts a last game that was cut short (see [`whole_games_end`]) off the PGN file at
/// `path`; returns whether it did. A missing file is left missing.
///
/// # Errors
/// The file cannot be read or cut.
pub fn drop_torn_game(path: &std::path::Path) -> std::io::Result<bool> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    let end = whole_games_end(&bytes);
    if end == bytes.len() {
        return Ok(false);
    }
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)?
        .set_len(end as u64)?;
    Ok(true)
}

/// The games of `text` in file order.
pub fn games(text: &str) -> Vec<GameTags> {
    let starts: Vec<usize> = text.match_indices("[Event ").map(|(i, _)| i).collect();
    starts
        .iter()
        .enumerate()
        .map(|(n, &start)| {
            let end = starts.get(n + 1).copied().unwrap_or(text.len());
            tags(&text[start..end], start..end)
        })
        .collect()
}

fn tags(game: &str, span: Range<usize>) -> GameTags {
    let tag = |name: &str| {
        let open = format!("[{name} \"");
        game.lines()
            .find_map(|l| l.strip_prefix(open.as_str())?.strip_suffix("\"]"))
    };
    let winner = match tag("Result") {
        Some("1-0") => Some(Some(Color::White)),
        Some("0-1") => Some(Some(Color::Black)),
        Some("1/2-1/2") => Some(None),
        _ => None,
    };
    let result = tag("Result");
    let complete = result.is_some_and(|r| game.trim_end().ends_with(r))
        && game.trim_end().ends_with(['0', '1', '2', '*']);
    GameTags {
        complete,
        span,
        round: tag("Round").and_then(|r| r.parse().ok()),
        white: tag("White").unwrap_or("?").to_string(),
        black: tag("Black").unwrap_or("?").to_string(),
        ending: winner.map(|winner| Ending {
            winner,
            reason: tag("Termination").unwrap_or("unknown").to_string(),
        }),
    }
}

/// Keeps the games of rounds 1, 2, ... that `pgn` holds in order and whole, and returns how
/// each of them ended (from its `Result` and `Termination` tags). A stopped run may have
/// written later rounds after a gap, or a game cut short by a kill or a full disk: the file
/// is cut (atomically) after the last game kept, so they are played again. No file: none.
///
/// # Errors
/// The file cannot be read or rewritten.
pub fn keep_finished_games(pgn: &std::path::Path) -> std::io::Result<Vec<crate::game::Ending>> {
    let text = match std::fs::read_to_string(pgn) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut endings = Vec::new();
    let mut end = 0;
    for game in games(&text) {
        let (Some(round), Some(ending), true) = (game.round, game.ending, game.complete) else {
            break;
        };
        if round != endings.len() + 1 {
            break;
        }
        endings.push(ending);
        end = game.span.end;
    }
    if end < text.len() {
        texel_files::write_atomically(pgn, &text.as_bytes()[..end])?;
    }
    Ok(endings)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PGN: &str = "[Event \"m\"]\n[Round \"1\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\
        [Termination \"adjudication\"]\n\n1. e4 1-0\n\n[Event \"m\"]\n[Round \"2\"]\n[White \"b\"]\n\
        [Black \"a\"]\n[Result \"1/2-1/2\"]\n\n1. d4 1/2-1/2\n\n[Event \"m\"]\n[Round \"3\"]\n\
        [White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n\n1. c4 *\n";

    #[test]
    fn reads_every_game_with_its_result() {
        let g = games(PGN);
        assert_eq!(g.len(), 3);
        assert_eq!(g[0].round, Some(1));
        assert_eq!(g[0].ending.as_ref().unwrap().reason, "adjudication");
        assert_eq!(g[1].ending.as_ref().unwrap().reason, "unknown");
        assert_eq!(g[2].ending, None);
        assert!(g.iter().all(|g| g.complete));
        assert_eq!(whole_games_end(PGN.as_bytes()), PGN.len());
        for cut in [PGN.len() - 3, PGN.len() - 12, PGN.len() - 30] {
            let torn = &PGN[..cut];
            assert!(!games(torn)[2].complete, "cut at {cut}");
            assert_eq!(whole_games_end(torn.as_bytes()), g[2].span.start);
        }
        assert_eq!(whole_games_end(b""), 0);
        // A write cut inside a two-byte letter of the last game's headers.
        let mut torn = PGN.as_bytes()[..g[2].span.start].to_vec();
        torn.extend_from_slice(b"[Event \"m\"]\n[White \"Jos\xc3");
        assert_eq!(whole_games_end(&torn), g[2].span.start);
        assert_eq!(g[2].span.end, PGN.len());
        assert_eq!(&PGN[g[1].span.clone()][..6], "[Event");
        let points: Vec<_> = g.iter().map(|g| g.points_of("a")).collect();
        assert_eq!(points, [Some(1.0), Some(0.5), None]);
        assert_eq!(g[0].points_of("c"), None);
    }

    #[test]
    fn a_stopped_runs_pgn_keeps_its_finished_games_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let pgn = dir.path().join("g.pgn");
        assert!(
            keep_finished_games(&pgn).unwrap().is_empty(),
            "no file: no games"
        );
        let g = games(PGN);
        // Rounds 1 and 2 are kept; round 3 is unfinished ("*"): cut off.
        std::fs::write(&pgn, PGN).unwrap();
        let kept = keep_finished_games(&pgn).unwrap();
        assert_eq!(kept.len(), 2);
        assert_eq!(
            std::fs::read_to_string(&pgn).unwrap(),
            &PGN[..g[1].span.end]
        );
        // A gap (round 1, then round 3) keeps round 1 only.
        let gap = format!(
            "{}{}",
            &PGN[g[0].span.clone()],
            PGN[g[1].span.clone()].replace("Round \"2\"", "Round \"3\"")
        );
        std::fs::write(&pgn, &gap).unwrap();
        assert_eq!(keep_finished_games(&pgn).unwrap().len(), 1);
        assert_eq!(
            std::fs::read_to_string(&pgn).unwrap(),
            &PGN[g[0].span.clone()]
        );
    }
}
