//! The `go` command: its limits, checked and clamped so that every `go` that implies a
//! limit ends with a `bestmove`, and `go perft`.

use crate::Limits;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position};
use std::time::Duration;

/// What a `go` command asks for.
#[derive(Debug, PartialEq)]
pub(super) enum Go {
    /// A search within these limits.
    Search(Limits),
    /// Count the leaf nodes of the legal move tree to this depth, per root move.
    Perft(u32),
}

/// Words of `go` that take a number.
const VALUED: [&str; 10] = [
    "depth",
    "nodes",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "mate",
    "perft",
];

/// The smallest value each numeric word allows (a smaller or unreadable one is raised to it).
fn minimum(word: &str) -> i64 {
    match word {
        "depth" | "nodes" | "mate" | "perft" | "movestogo" => 1,
        _ => 0,
    }
}

/// Parses a `go` line in position `pos`. Every value that is not a number, or is below
/// what its word allows, is replaced by the smallest allowed value, and a note for an
/// `info string` says so; so are words the engine does not know and `searchmoves` moves
/// that are not legal here.
pub(super) fn parse_go(line: &str, pos: &Chess) -> (Go, Vec<String>) {
    let turn = pos.turn();
    let mut notes = Vec::new();
    let mut values: Vec<(&str, u64)> = Vec::new();
    let (mut infinite, mut searchmoves) = (false, Vec::new());
    let mut words = line.split_whitespace().skip(1).peekable();
    while let Some(word) = words.next() {
        if word == "searchmoves" {
            while let Some(text) = words.next_if(|w| !is_go_word(w)) {
                match text
                    .parse::<UciMove>()
                    .ok()
                    .and_then(|u| u.to_move(pos).ok())
                {
                    Some(m) => searchmoves.push(m),
                    None => notes.push(format!("searchmoves: {text} is not a legal move here")),
                }
            }
            if searchmoves.is_empty() {
                notes.push("searchmoves names no legal move: searching every move".into());
            }
        } else if VALUED.contains(&word) {
            let text = words.next().unwrap_or("");
            values.push((word, checked_value(word, text, &mut notes)));
        } else if word == "infinite" {
            infinite = true;
        } else if word == "ponder" {
            notes.push("ponder is not supported: searching normally".into());
        } else {
            notes.push(format!("go: unknown word {word:?} ignored"));
        }
    }
    let get = |name: &str| values.iter().rev().find(|v| v.0 == name).map(|v| v.1);
    if let Some(depth) = get("perft") {
        return (Go::Perft(depth.min(u64::from(u32::MAX)) as u32), notes);
    }
    let ms = |name: &str| get(name).map(Duration::from_millis);
    let (time, inc) = if turn.is_white() {
        ("wtime", "winc")
    } else {
        ("btime", "binc")
    };
    let small = |v: u64| v.min(u64::from(u32::MAX)) as u32;
    if let Some(depth) = get("depth").filter(|&d| d > u64::from(crate::search::DEEPEST)) {
        let deepest = crate::search::DEEPEST;
        notes.push(format!(
            "go: depth {depth} is beyond the deepest search, {deepest}; searching to {deepest}"
        ));
    }
    let limits = Limits {
        depth: get("depth").map(small),
        nodes: get("nodes"),
        movetime: ms("movetime"),
        time: ms(time),
        increment: ms(inc).unwrap_or_default(),
        moves_to_go: get("movestogo").map(small),
        infinite,
        mate: get("mate").map(small),
        searchmoves,
        multipv: 1,
    };
    (Go::Search(limits), notes)
}

/// Whether `word` is one of `go`'s own words (it ends a `searchmoves` list).
fn is_go_word(word: &str) -> bool {
    VALUED.contains(&word) || matches!(word, "infinite" | "ponder" | "searchmoves")
}

/// The value `text` gives `word`, raised to the word's minimum (with a note) when it is
/// smaller or not a number.
fn checked_value(word: &str, text: &str, notes: &mut Vec<String>) -> u64 {
    let least = minimum(word);
    match text.parse::<i64>() {
        Ok(v) if v >= least => v as u64,
        Ok(v) => {
            notes.push(format!("go: {word} {v} is below {least}; using {least}"));
            least as u64
        }
        Err(_) => {
            notes.push(format!(
                "go: {word} needs a whole number, not {text:?}; using {least}"
            ));
            least as u64
        }
    }
}

/// The perft count below each legal move of `pos` at `depth` (at least 1), in move order.
pub(super) fn perft_divide(pos: &Chess, depth: u32) -> Vec<(shakmaty::Move, u64)> {
    pos.legal_moves()
        .into_iter()
        .map(|m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            (m, shakmaty::perft(&child, depth.max(1) - 1))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use shakmaty::Color;

    fn search(line: &str, turn: Color) -> (Limits, Vec<String>) {
        let pos = match turn {
            Color::White => Chess::default(),
            Color::Black => Chess::default().swap_turn().unwrap(),
        };
        match parse_go(line, &pos) {
            (Go::Search(l), notes) => (l, notes),
            other => panic!("not a search: {other:?}"),
        }
    }

    #[test]
    fn the_mover_s_clock_is_read() {
        let (l, notes) = search(
            "go wtime 1000 btime 2000 winc 10 binc 20 movestogo 5",
            Color::Black,
        );
        assert_eq!(l.time, Some(Duration::from_millis(2000)));
        assert_eq!(l.increment, Duration::from_millis(20));
        assert_eq!(l.moves_to_go, Some(5));
        assert!(notes.is_empty());
        assert_eq!(search("go depth 7", Color::White).0.depth, Some(7));
        let (_, notes) = search("go depth 99999999999999", Color::White);
        assert_eq!(
            notes,
            ["go: depth 99999999999999 is beyond the deepest search, 120; searching to 120"]
        );
    }

    #[test]
    fn bad_values_are_clamped_with_a_note() {
        let (l, notes) = search("go movetime -5", Color::White);
        assert_eq!(l.movetime, Some(Duration::ZERO));
        assert_eq!(notes.len(), 1);
        let (l, notes) = search("go depth -1 nodes abc", Color::White);
        assert_eq!((l.depth, l.nodes), (Some(1), Some(1)));
        assert_eq!(notes.len(), 2, "{notes:?}");
        let (l, _) = search("go wtime -100 btime 50", Color::White);
        assert_eq!(l.time, Some(Duration::ZERO));
        let (l, _) = search("go movetime", Color::White);
        assert_eq!(l.movetime, Some(Duration::ZERO));
    }

    #[test]
    fn mate_and_perft_are_read() {
        assert_eq!(search("go mate 3", Color::White).0.mate, Some(3));
        let start = Chess::default();
        assert_eq!(parse_go("go perft 4", &start).0, Go::Perft(4));
        assert_eq!(parse_go("go perft 0", &start).0, Go::Perft(1));
    }

    #[test]
    fn searchmoves_keeps_the_legal_moves_and_the_other_limits() {
        let (l, notes) = search("go searchmoves e2e4 d2d4 e7e5 nodes 500", Color::White);
        let names: Vec<String> = l.searchmoves.iter().map(|m| m.to_string()).collect();
        assert_eq!(names.len(), 2, "{names:?}");
        assert_eq!(l.nodes, Some(500));
        assert_eq!(notes.len(), 1, "e7e5 is not legal for white: {notes:?}");
        let (l, notes) = search("go depth 3 searchmoves a1a8", Color::White);
        assert!(l.searchmoves.is_empty() && l.depth == Some(3));
        assert_eq!(notes.len(), 2, "{notes:?}");
    }

    #[test]
    fn perft_divides_the_start_position() {
        let counts = perft_divide(&Chess::default(), 3);
        assert_eq!(counts.len(), 20);
        assert_eq!(counts.iter().map(|c| c.1).sum::<u64>(), 8902);
    }
}
