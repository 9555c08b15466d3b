//! The UCI protocol: `texel uci` speaks it on stdin/stdout, so GUIs, match runners and
//! distributed SPSA tuners can drive the engine.
//!
//! Options: `Hash` (MB), `Params` (a JSON parameter file) and `ListParams`. Every flat
//! parameter of the table is a `spin` option named like `KNIGHT_OUTPOST[1].end`, which
//! `setoption` always takes; `uci` lists these options (one per tunable value) only when asked
//! ([`Startup::list_params`], or `setoption name ListParams value true` before `uci`), since
//! GUIs and adapters such as polyglot refuse an engine with that many.

mod go;

use crate::{key, Iteration, Limits, Searcher, MATE};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};
use std::io::{BufRead, Write};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;
use texel_eval::params::{flat_params, Preset};
use texel_eval::{parse_fen, Params};

/// The range a parameter's `spin` option allows: the default ± max(50, 2 × |default|).
pub fn option_range(default: i32) -> (i32, i32) {
    let width = 50.max(2 * default.abs());
    (default - width, default + width)
}

/// How the engine starts.
#[derive(Clone, Debug)]
pub struct Startup {
    /// `uci` lists every tunable parameter as a `spin` option (what SPSA tuners driving the
    /// engine through cutechess or fastchess need); otherwise only the usual options.
    pub list_params: bool,
    /// The table the engine plays until the `Params` option names another (and goes back
    /// to when it is emptied); the listed options' defaults are its values.
    pub params: Params,
}

impl Default for Startup {
    /// The usual options, playing the best proven table ([`Preset::Tuned`]).
    fn default() -> Startup {
        Startup {
            list_params: false,
            params: Preset::Tuned.params(),
        }
    }
}

/// The most lines `MultiPV` takes.
const MAX_MULTIPV: usize = 256;

/// The engine state between commands.
struct Engine {
    /// `uci` lists the tunable parameters.
    list_params: bool,
    /// Lines searched and reported (`MultiPV`).
    multipv: usize,
    params: Params,
    /// The table played when the `Params` option is empty.
    played: Params,
    hash_mb: usize,
    position: Chess,
    keys: Vec<u64>,
    searcher: Option<Searcher>,
    running: Option<JoinHandle<Searcher>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
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

/// Shared, line-flushed output: the loop and the search thread both write to it.
#[derive(Clone)]
struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    fn say(&self, line: &str) -> std::io::Result<()> {
        let mut o = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        writeln!(o, "{line}")?;
        o.flush()
    }
}

/// Runs the protocol until `quit` or the end of input. Output is flushed line by line.
///
/// Input is read while a search runs: `isready` is answered at once, `stop` and `quit`
/// always work, and a command that changes the engine's state (`position`, `go`,
/// `ucinewgame`, `setoption`) stops the running search first (its `bestmove` comes out
/// before the command takes effect). A line that is not UTF-8 is skipped with an
/// `info string`.
///
/// # Errors
/// Only failures to read input or write output; bad commands are answered with an
/// `info string` line and ignored.
pub fn run(
    mut input: impl BufRead,
    output: impl Write + Send + 'static,
    startup: Startup,
) -> std::io::Result<()> {
    let out = Output(Arc::new(Mutex::new(Box::new(output))));
    let searcher = Searcher::new(Arc::new(startup.params.clone()), 16);
    let mut e = Engine {
        list_params: startup.list_params,
        multipv: 1,
        params: startup.params.clone(),
        played: startup.params,
        hash_mb: 16,
        position: Chess::default(),
        keys: vec![key(&Chess::default())],
        stop: searcher.stop_flag(),
        searcher: Some(searcher),
        running: None,
    };
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        if input.read_until(b'\n', &mut bytes)? == 0 {
            break;
        }
        let Ok(line) = std::str::from_utf8(&bytes) else {
            out.say("info string skipped a line that is not UTF-8")?;
            continue;
        };
        if !command(&mut e, line.trim(), &out)? {
            return Ok(());
        }
    }
    // End of input: nobody can send `stop` any more, so a running search is stopped (its
    // `bestmove` comes out) and the engine exits.
    stop_search(&mut e);
    Ok(())
}

/// Carries out one command line; `false` after `quit`.
fn command(e: &mut Engine, line: &str, out: &Output) -> std::io::Result<bool> {
    let first = line.split_whitespace().next();
    if matches!(first, Some("ucinewgame" | "setoption" | "position" | "go")) {
        stop_search(e);
    }
    let result = match first {
        Some("uci") => {
            announce(out, e.list_params, &e.played)?;
            Ok(())
        }
        Some("isready") => {
            out.say("readyok")?;
            Ok(())
        }
        Some("ucinewgame") => {
            if let Some(s) = e.searcher.as_mut() {
                s.clear();
            }
            Ok(())
        }
        Some("setoption") => set_option(e, line),
        Some("position") => set_position(e, line),
        Some("go") => {
            go(e, line, out)?;
            Ok(())
        }
        Some("stop") => {
            stop_search(e);
            Ok(())
        }
        Some("quit") => {
            stop_search(e);
            return Ok(false);
        }
        Some(other) => Err(format!("unknown command {other}")),
        None => Ok(()),
    };
    if let Err(msg) = result {
        out.say(&format!("info string {msg}"))?;
    }
    Ok(true)
}

/// The answer to `uci`: identity, options (the tunable parameters with `list_params`),
/// `uciok`.
fn announce(out: &Output, list_params: bool, played: &Params) -> std::io::Result<()> {
    out.say("id name texel")?;
    out.say("id author the texel authors")?;
    out.say("option name Hash type spin default 16 min 1 max 4096")?;
    out.say("option name Params type string default <empty>")?;
    out.say(&format!(
        "option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}"
    ))?;
    out.say(&format!(
        "option name ListParams type check default {list_params}"
    ))?;
    if !list_params {
        return out.say("uciok");
    }
    for (i, fp) in flat_params().iter().enumerate() {
        let v = played.flat()[i];
        let (lo, hi) = option_range(v);
        out.say(&format!(
            "option name {} type spin default {v} min {lo} max {hi}",
            fp.name()
        ))?;
    }
    out.say("uciok")
}

/// `go`: notes on clamped values, then a perft count or a search on its own thread that
/// prints `info` lines and ends with `bestmove`.
fn go(e: &mut Engine, line: &str, out: &Output) -> std::io::Result<()> {
    let (what, notes) = go::parse_go(line, &e.position);
    for note in notes {
        out.say(&format!("info string {note}"))?;
    }
    let limits = match what {
        go::Go::Perft(depth) => {
            let counts = go::perft_divide(&e.position, depth);
            for (m, n) in &counts {
                out.say(&format!("{}: {n}", uci_move(*m)))?;
            }
            let total: u64 = counts.iter().map(|c| c.1).sum();
            return out.say(&format!("\nNodes searched: {total}"));
        }
        go::Go::Search(limits) => Limits {
            multipv: e.multipv,
            ..limits
        },
    };
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
            let _ = out.say(&info_line(it));
        });
        // After `go infinite` the best move waits for `stop`.
        while limits.infinite && !stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(2));
        }
        let best = result.best.map_or_else(|| "0000".to_string(), uci_move);
        let _ = out.say(&format!("bestmove {best}"));
        searcher
    }));
    Ok(())
}

/// The `info` line of a completed iteration.
fn info_line(it: &Iteration) -> String {
    let nps = it.nodes as f64 / it.elapsed.as_secs_f64().max(1e-6);
    let pv: Vec<String> = it.pv.iter().map(|&m| uci_move(m)).collect();
    format!(
        "info depth {} seldepth {} multipv {} score {} nodes {} nps {:.0} time {} pv {}",
        it.depth,
        it.seldepth.max(it.depth),
        it.multipv,
        uci_score(it.score),
        it.nodes,
        nps,
        it.elapsed.as_millis(),
        pv.join(" ")
    )
}

/// Stops a running search and waits for its `bestmove`.
fn stop_search(e: &mut Engine) {
    if e.running.is_some() {
        e.stop.store(true, Ordering::SeqCst);
    }
    finish(e);
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
            e.hash_mb = spin_value(name, value, (1, 4096))? as usize;
            e.searcher.as_mut().expect("idle").set_hash(e.hash_mb);
        }
        "MultiPV" => {
            e.multipv = spin_value(name, value, (1, MAX_MULTIPV as i32))? as usize;
        }
        "ListParams" => {
            e.list_params = match value {
                "true" => true,
                "false" => false,
                _ => return Err(format!("ListParams takes true or false, not {value:?}")),
            };
        }
        "Params" => {
            e.params = if value.is_empty() || value == "<empty>" {
                e.played.clone()
            } else {
                Params::load_or_preset(std::path::Path::new(value))
                    .map_err(|err| err.to_string())?
            };
        }
        _ => {
            let slot = flat_params()
                .iter()
                .position(|fp| fp.name() == name)
                .ok_or(format!("unknown option {name}"))?;
            let range = option_range(e.played.flat()[slot]);
            e.params.set_flat(slot, spin_value(name, value, range)?);
        }
    }
    Ok(())
}

/// The value of the spin option `name` from `text`, refused outside `min..=max`.
fn spin_value(name: &str, text: &str, (min, max): (i32, i32)) -> Result<i32, String> {
    let v: i64 = text
        .parse()
        .map_err(|_| format!("bad value {text:?} for {name}: a whole number is needed"))?;
    if !(i64::from(min)..=i64::from(max)).contains(&v) {
        return Err(format!(
            "{name} {v} refused: the option takes {min} to {max}"
        ));
    }
    Ok(v as i32)
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
        parse_fen(fen).map_err(|e| e.to_string())?
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_print_in_moves() {
        assert_eq!(uci_score(MATE - 1), "mate 1");
        assert_eq!(uci_score(MATE - 3), "mate 2");
        assert_eq!(uci_score(-MATE + 2), "mate -1");
        assert_eq!(uci_score(35), "cp 35");
    }
}
