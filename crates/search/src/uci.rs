//! The UCI protocol: `texel uci` speaks it on stdin/stdout, so GUIs, match runners and
//! distributed SPSA tuners can drive the engine.
//!
//! Options: `Hash` (MB), `Params` (a JSON parameter file), and every flat parameter of the
//! table as a `spin` option named like `KNIGHT_OUTPOST[1].end`.

use crate::{key, Iteration, Limits, Searcher, MATE};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};
use std::io::{BufRead, Write};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use texel_eval::params::flat_params;
use texel_eval::{parse_fen, Params};

/// The range a parameter's `spin` option allows: the default ± max(50, 2 × |default|).
pub fn option_range(default: i32) -> (i32, i32) {
    let width = 50.max(2 * default.abs());
    (default - width, default + width)
}

/// The engine state between commands.
struct Engine {
    params: Params,
    hash_mb: usize,
    position: Chess,
    keys: Vec<u64>,
    searcher: Option<Searcher>,
    running: Option<JoinHandle<Searcher>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    /// The running search is `go infinite`.
    infinite: bool,
}

/// A score for an `info` line.
fn uci_score(score: i32) -> String {
    if score > MATE - 1000 {
        format!("mate {}", (MATE - score + 1) / 2)
    } else if score < -MATE + 1000 {
        format!("mate -{}", (MATE + score) / 2)
    } else {
        format!("cp {score}")
    }
}

fn uci_move(m: shakmaty::Move) -> String {
    UciMove::from_move(m, CastlingMode::Standard).to_string()
}

/// Runs the protocol until `quit` or the end of input. Output is flushed line by line.
///
/// # Errors
/// Only failures to read input or write output; bad commands are answered with an
/// `info string` line and ignored.
pub fn run(input: impl BufRead, output: impl Write + Send + 'static) -> std::io::Result<()> {
    let out = Arc::new(std::sync::Mutex::new(output));
    let say = |line: &str| -> std::io::Result<()> {
        let mut o = out.lock().expect("output lock");
        writeln!(o, "{line}")?;
        o.flush()
    };
    let searcher = Searcher::new(Arc::new(Params::default()), 16);
    let mut e = Engine {
        params: Params::default(),
        hash_mb: 16,
        position: Chess::default(),
        keys: vec![key(&Chess::default())],
        stop: searcher.stop_flag(),
        searcher: Some(searcher),
        running: None,
        infinite: false,
    };
    for line in input.lines() {
        let line = line?;
        let mut words = line.split_whitespace();
        match words.next() {
            Some("uci") => {
                say("id name texel")?;
                say("id author the texel authors")?;
                say("option name Hash type spin default 16 min 1 max 4096")?;
                say("option name Params type string default <empty>")?;
                let defaults = Params::default();
                for (i, fp) in flat_params().iter().enumerate() {
                    let v = defaults.flat()[i];
                    let (lo, hi) = option_range(v);
                    say(&format!(
                        "option name {} type spin default {v} min {lo} max {hi}",
                        fp.name()
                    ))?;
                }
                say("uciok")?;
            }
            Some("isready") => say("readyok")?,
            Some("ucinewgame") => {
                finish(&mut e);
                if let Some(s) = e.searcher.as_mut() {
                    s.clear();
                }
            }
            Some("setoption") => {
                finish(&mut e);
                if let Err(msg) = set_option(&mut e, &line) {
                    say(&format!("info string {msg}"))?;
                }
            }
            Some("position") => {
                finish(&mut e);
                if let Err(msg) = set_position(&mut e, &line) {
                    say(&format!("info string {msg}"))?;
                }
            }
            Some("go") => {
                finish(&mut e);
                let limits = parse_go(&line, e.position.turn());
                e.infinite = limits.infinite;
                let mut searcher = e.searcher.take().expect("searcher is home when idle");
                e.stop.store(false, Ordering::SeqCst);
                searcher.set_params(Arc::new(e.params.clone()));
                let (pos, keys, out, stop) = (
                    e.position.clone(),
                    e.keys.clone(),
                    out.clone(),
                    e.stop.clone(),
                );
                e.running = Some(std::thread::spawn(move || {
                    let history = &keys[..keys.len().saturating_sub(1)];
                    let result = searcher.search(&pos, history, &limits, &mut |it: &Iteration| {
                        let nps = it.nodes as f64 / it.elapsed.as_secs_f64().max(1e-6);
                        let pv: Vec<String> = it.pv.iter().map(|&m| uci_move(m)).collect();
                        let line = format!(
                            "info depth {} score {} nodes {} nps {:.0} time {} pv {}",
                            it.depth,
                            uci_score(it.score),
                            it.nodes,
                            nps,
                            it.elapsed.as_millis(),
                            pv.join(" ")
                        );
                        let mut o = out.lock().expect("output lock");
                        let _ = writeln!(o, "{line}").and_then(|()| o.flush());
                    });
                    // After `go infinite` the best move waits for `stop`.
                    while limits.infinite && !stop.load(Ordering::SeqCst) {
                        std::thread::sleep(Duration::from_millis(2));
                    }
                    let best = result.best.map_or_else(|| "0000".to_string(), uci_move);
                    let mut o = out.lock().expect("output lock");
                    let _ = writeln!(o, "bestmove {best}").and_then(|()| o.flush());
                    searcher
                }));
            }
            Some("stop") => {
                e.stop.store(true, Ordering::SeqCst);
                finish(&mut e);
            }
            Some("quit") => {
                e.stop.store(true, Ordering::SeqCst);
                finish(&mut e);
                return Ok(());
            }
            Some(other) => say(&format!("info string unknown command {other}"))?,
            None => {}
        }
    }
    // End of input: a search with limits finishes (so piped scripts get their answer), an
    // infinite one is stopped.
    if e.infinite {
        e.stop.store(true, Ordering::SeqCst);
    }
    finish(&mut e);
    Ok(())
}

/// Waits for a running search (after `stop`, or to the end of its limits).
fn finish(e: &mut Engine) {
    if let Some(handle) = e.running.take() {
        e.searcher = Some(handle.join().expect("search thread"));
    }
}

fn set_option(e: &mut Engine, line: &str) -> Result<(), String> {
    let rest = line
        .split_once("name ")
        .map(|x| x.1)
        .ok_or("setoption needs a name")?;
    let (name, value) = match rest.split_once(" value ") {
        Some((n, v)) => (n.trim(), v.trim()),
        None => (rest.trim(), ""),
    };
    match name {
        "Hash" => {
            e.hash_mb = value
                .parse()
                .map_err(|_| format!("bad Hash value {value:?}"))?;
            e.searcher
                .as_mut()
                .expect("idle")
                .set_hash(e.hash_mb.clamp(1, 4096));
        }
        "Params" => {
            e.params = if value.is_empty() || value == "<empty>" {
                Params::default()
            } else {
                Params::load(std::path::Path::new(value)).map_err(|err| err.to_string())?
            };
        }
        _ => {
            let slot = flat_params()
                .iter()
                .position(|fp| fp.name() == name)
                .ok_or(format!("unknown option {name}"))?;
            let v: i32 = value
                .parse()
                .map_err(|_| format!("bad value {value:?} for {name}"))?;
            e.params.set_flat(slot, v);
        }
    }
    Ok(())
}

fn set_position(e: &mut Engine, line: &str) -> Result<(), String> {
    let rest = line.trim_start_matches("position").trim();
    let (setup, moves) = match rest.split_once(" moves ") {
        Some((s, m)) => (s.trim(), m),
        None => (rest.trim_end_matches(" moves").trim(), ""),
    };
    let mut pos = if setup == "startpos" {
        Chess::default()
    } else if let Some(fen) = setup.strip_prefix("fen ") {
        parse_fen(fen)?
    } else {
        return Err(format!("bad position command {line:?}"));
    };
    let mut keys = vec![key(&pos)];
    for text in moves.split_whitespace() {
        let m = text
            .parse::<UciMove>()
            .ok()
            .and_then(|u| u.to_move(&pos).ok())
            .ok_or(format!("illegal move {text} in {line:?}"))?;
        pos.play_unchecked(m);
        keys.push(key(&pos));
    }
    e.position = pos;
    e.keys = keys;
    Ok(())
}

/// The limits of a `go` command, for the side to move.
fn parse_go(line: &str, turn: shakmaty::Color) -> Limits {
    let words: Vec<&str> = line.split_whitespace().collect();
    let number = |name: &str| -> Option<u64> {
        words
            .iter()
            .position(|&w| w == name)
            .and_then(|i| words.get(i + 1))
            .and_then(|v| v.parse().ok())
    };
    let ms = |name: &str| number(name).map(Duration::from_millis);
    let (time, inc) = if turn.is_white() {
        ("wtime", "winc")
    } else {
        ("btime", "binc")
    };
    Limits {
        depth: number("depth").map(|d| d as u32),
        nodes: number("nodes"),
        movetime: ms("movetime"),
        time: ms(time),
        increment: ms(inc).unwrap_or_default(),
        moves_to_go: number("movestogo").map(|m| m as u32),
        infinite: words.contains(&"infinite"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_parses_the_mover_s_clock() {
        let l = parse_go(
            "go wtime 1000 btime 2000 winc 10 binc 20 movestogo 5",
            shakmaty::Color::Black,
        );
        assert_eq!(l.time, Some(Duration::from_millis(2000)));
        assert_eq!(l.increment, Duration::from_millis(20));
        assert_eq!(l.moves_to_go, Some(5));
        assert_eq!(
            parse_go("go depth 7", shakmaty::Color::White).depth,
            Some(7)
        );
    }

    #[test]
    fn mate_scores_print_in_moves() {
        assert_eq!(uci_score(MATE - 1), "mate 1");
        assert_eq!(uci_score(MATE - 3), "mate 2");
        assert_eq!(uci_score(-MATE + 2), "mate -1");
        assert_eq!(uci_score(35), "cp 35");
    }
}
