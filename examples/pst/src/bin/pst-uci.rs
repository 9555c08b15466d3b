//! The piece-square evaluation as a UCI engine, playing with the values file given as its
//! one argument (texel's values file of the evaluation's parameters, as `texel tune --traces` and
//! `texel loop --engine` write it):
//!
//! ```sh
//! pst-uci examples/pst/start.json
//! ```
//!
//! It answers `uci`, `isready`, `ucinewgame`, `position` and `go` with `nodes N` or
//! `depth D` (otherwise 100,000 nodes), then `quit`.

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};
use std::io::{BufRead, Write};
use std::path::Path;
use texel_example_pst::search::{search, Limit};
use texel_example_pst::PstEval;

/// Nodes a `go` without a limit searches.
const DEFAULT_NODES: u64 = 100_000;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: pst-uci VALUES.json");
        std::process::exit(2);
    };
    let eval = match PstEval::read(Path::new(&path)) {
        Ok(eval) => eval,
        Err(e) => {
            eprintln!("pst-uci: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = serve(&eval) {
        eprintln!("pst-uci: {e}");
        std::process::exit(1);
    }
}

/// Answers UCI commands from standard input until `quit` or its end.
fn serve(eval: &PstEval) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    let mut pos = Chess::default();
    for line in std::io::stdin().lock().lines() {
        let line = line.map_err(|e| e.to_string())?;
        let words: Vec<&str> = line.split_whitespace().collect();
        let said = match words.first().copied() {
            Some("uci") => "id name pst\nid author texel example\nuciok".to_string(),
            Some("isready") => "readyok".to_string(),
            Some("position") => {
                pos = position(&words[1..])?;
                continue;
            }
            Some("go") => go(eval, &pos, &words[1..]),
            Some("quit") => break,
            _ => continue,
        };
        writeln!(out, "{said}")
            .and_then(|()| out.flush())
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The position of `position startpos|fen FEN [moves M...]`.
fn position(words: &[&str]) -> Result<Chess, String> {
    let moves_at = words
        .iter()
        .position(|&w| w == "moves")
        .unwrap_or(words.len());
    let mut pos = match words.first().copied() {
        Some("startpos") => Chess::default(),
        Some("fen") => {
            let fen: Fen = words[1..moves_at]
                .join(" ")
                .parse()
                .map_err(|e| format!("{e}"))?;
            fen.into_position(CastlingMode::Standard)
                .map_err(|e| format!("{e}"))?
        }
        _ => return Err(format!("position: {words:?} is neither startpos nor fen")),
    };
    for word in words.iter().skip(moves_at + 1) {
        let uci: UciMove = word.parse().map_err(|e| format!("{word}: {e}"))?;
        let m = uci.to_move(&pos).map_err(|e| format!("{word}: {e}"))?;
        pos.play_unchecked(m);
    }
    Ok(pos)
}

/// Searches for `go [nodes N] [depth D]`: the iterations' `info` lines and `bestmove`.
fn go(eval: &PstEval, pos: &Chess, words: &[&str]) -> String {
    let number = |key: &str| {
        let at = words.iter().position(|&w| w == key)?;
        words.get(at + 1)?.parse::<u64>().ok()
    };
    let limit = Limit {
        nodes: number("nodes").unwrap_or(DEFAULT_NODES),
        depth: number("depth").map_or(u32::MAX, |d| d as u32),
    };
    let mut lines = Vec::new();
    let found = search(eval, pos, limit, |f| {
        lines.push(format!(
            "info depth {} score cp {} nodes {}",
            f.depth, f.score, f.nodes
        ));
    });
    let best = found.best.map_or("0000".to_string(), |m| {
        m.to_uci(CastlingMode::Standard).to_string()
    });
    lines.push(format!("bestmove {best}"));
    lines.join("\n")
}
