//! `texel uci` through the real binary: a GUI must never wait forever.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// A running `texel uci` with its output read on a thread.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Session {
    fn start() -> Session {
        Session::start_with(&["uci"])
    }

    /// `texel` started with `args` (none: the engine as OpenBench and GUIs start it).
    fn start_with(args: &[&str]) -> Session {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("texel"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line.unwrap()).is_err() {
                    break;
                }
            }
        });
        Session {
            stdin: child.stdin.take(),
            child,
            lines,
            seen: Vec::new(),
        }
    }

    fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes());
    }

    /// Waits (at most 20 s) for a line that `wanted` accepts; returns it.
    fn expect(&mut self, what: &str, wanted: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if wanted(&line) {
                        return line;
                    }
                }
                Err(_) => panic!(
                    "no {what} within 20 s; output so far:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    fn bestmove(&mut self) -> String {
        self.expect("bestmove", |l| l.starts_with("bestmove "))
    }

    /// Sends `quit` and checks the engine exits within 10 s.
    fn quit(mut self) {
        self.send("quit");
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success());
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        panic!("the engine did not quit; output:\n{}", self.seen.join("\n"));
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn commands_during_a_search_are_answered() {
    let mut s = Session::start();
    s.send("position startpos");
    s.send("go infinite");
    s.expect("an info line", |l| l.starts_with("info depth"));
    s.send("isready");
    s.expect("readyok", |l| l == "readyok");
    // Each of these stops the running search first: its bestmove comes out.
    for command in [
        "position startpos moves e2e4",
        "ucinewgame",
        "setoption name Hash value 8",
        "go infinite",
    ] {
        if command != "go infinite" {
            s.send("go infinite");
        }
        s.send(command);
        s.bestmove();
    }
    s.send("stop");
    s.bestmove();
    s.send("go infinite");
    s.quit();
}

#[test]
fn a_line_that_is_not_utf8_is_skipped() {
    let mut s = Session::start();
    s.send_bytes(b"position startpos moves \xff\xfe\n");
    s.expect("a note", |l| l.contains("not UTF-8"));
    s.send("isready");
    s.expect("readyok", |l| l == "readyok");
    s.send("go depth 2");
    s.bestmove();
    s.quit();
}

#[test]
fn odd_go_values_still_end_with_a_best_move() {
    let mut s = Session::start();
    for go in [
        "go movetime -5",
        "go wtime -100 btime -100",
        "go depth -1",
        "go nodes -1",
        "go movetime abc",
        "go nodes 0",
    ] {
        s.send("position startpos");
        s.send(go);
        s.expect("a note or an info line", |l| l.starts_with("info"));
        let best = s.bestmove();
        assert_ne!(best, "bestmove 0000", "{go}");
    }
    s.quit();
}

#[test]
fn go_mate_finds_the_mate_and_stops() {
    let mut s = Session::start();
    // A back-rank mate in one.
    s.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    s.send("go mate 1");
    assert_eq!(s.bestmove(), "bestmove a1a8");
    assert!(s.seen.iter().any(|l| l.contains("score mate 1")));
    // No mate in one from the start: the search still ends.
    s.send("position startpos");
    s.send("go mate 1");
    s.bestmove();
    s.quit();
}

#[test]
fn go_perft_prints_the_count() {
    let mut s = Session::start();
    s.send("position startpos");
    s.send("go perft 3");
    s.expect("the total", |l| l == "Nodes searched: 8902");
    assert!(s.seen.iter().any(|l| l == "e2e4: 600"), "{:?}", s.seen);
    s.quit();
}

#[test]
fn without_a_command_texel_speaks_uci() {
    let mut s = Session::start_with(&[]);
    s.send("uci");
    s.expect("uciok", |l| l == "uciok");
    s.send("isready");
    s.expect("readyok", |l| l == "readyok");
    s.send("position startpos moves e2e4");
    s.send("go nodes 2000");
    let best = s.bestmove();
    assert!(best.len() > "bestmove ".len(), "{best}");
    s.quit();
}

/// Sends `lines` to a fresh engine, closes its input, and returns its output once it has
/// exited (at most 10 s after the input closed).
fn run_until_input_ends(lines: &str) -> Vec<String> {
    let mut s = Session::start();
    s.send_bytes(lines.as_bytes());
    drop(s.stdin.take());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if s.child.try_wait().unwrap().is_some() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "still searching 10 s after its input ended: {lines:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    while let Ok(line) = s.lines.recv_timeout(Duration::from_secs(2)) {
        s.seen.push(line);
    }
    std::mem::take(&mut s.seen)
}

#[test]
fn the_end_of_input_stops_any_search_and_exits() {
    for go in [
        "go depth 60",
        "go nodes 4000000000",
        "go infinite",
        "go mate 40",
    ] {
        let seen = run_until_input_ends(&format!("position startpos\n{go}\n"));
        assert!(
            seen.iter().any(|l| l.starts_with("bestmove ")),
            "{go}: {seen:?}"
        );
        // As Stockfish: a search stopped before its first iteration reports none (no
        // `info depth 1 ... nodes 1 ... pv` with an empty line).
        for info in seen.iter().filter(|l| l.starts_with("info depth")) {
            let pv = info.split(" pv").nth(1).unwrap_or("");
            assert!(
                !pv.trim().is_empty(),
                "{go}: an iteration without a move: {info}"
            );
        }
    }
}

#[test]
fn searchmoves_searches_only_those_moves() {
    let mut s = Session::start();
    s.send("position startpos");
    s.send("go depth 6 searchmoves a2a3 h2h3");
    let best = s.bestmove();
    assert!(
        best.starts_with("bestmove a2a3") || best.starts_with("bestmove h2h3"),
        "{best}"
    );
    assert!(s.seen.iter().any(|l| l.starts_with("info depth 6")));
    // A mate in one is not among the allowed moves: the other move is chosen.
    s.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    s.send("go depth 3 searchmoves g1f1");
    assert_eq!(s.bestmove(), "bestmove g1f1");
    s.quit();
}

#[test]
fn setoption_values_outside_the_announced_range_are_refused() {
    let mut s = Session::start_with(&["uci", "--list-params"]);
    s.send("uci");
    let option = s.expect("the piece values", |l| {
        l.starts_with("option name PIECE_VALUE[1].mid ")
    });
    let max: i64 = option.rsplit(' ').next().unwrap().parse().unwrap();
    s.send(&format!(
        "setoption name PIECE_VALUE[1].mid value {}",
        max + 1
    ));
    let note = s.expect("a refusal", |l| l.starts_with("info string"));
    assert!(
        note.contains("refused") && note.contains(&max.to_string()),
        "{note}"
    );
    s.send("setoption name PIECE_VALUE[1].mid value 99999999999");
    s.expect("a refusal", |l| {
        l.contains("refused") || l.contains("bad value")
    });
    s.send("setoption name Hash value 0");
    s.expect("a refusal", |l| l.contains("Hash 0 refused"));
    s.send(&format!("setoption name PIECE_VALUE[1].mid value {max}"));
    s.send("isready");
    s.expect("readyok, no complaint", |l| l == "readyok");
    assert!(!s.seen.iter().rev().take(1).any(|l| l.contains("refused")));
    s.quit();
}

/// The default the engine announces for the parameter option `name`.
fn announced_default(args: &[&str], name: &str) -> i32 {
    let mut s = Session::start_with(args);
    s.send("uci");
    let option = s.expect(name, |l| l.starts_with(&format!("option name {name} ")));
    s.quit();
    let words: Vec<&str> = option.split(' ').collect();
    let at = words.iter().position(|w| *w == "default").unwrap();
    words[at + 1].parse().unwrap()
}

#[test]
fn the_engine_plays_the_tuned_table_unless_told_otherwise() {
    use texel_eval::params::{flat_params, Preset};
    let name = "PIECE_VALUE_BY_PAWN_COUNT[1].end";
    let slot = flat_params().iter().position(|p| p.name() == name).unwrap();
    let (tuned, seed) = (
        Preset::Tuned.params().flat()[slot],
        texel_eval::Params::default().flat()[slot],
    );
    assert_ne!(tuned, seed, "the tables differ in {name}");
    let list = ["uci", "--list-params"];
    assert_eq!(announced_default(&list, name), tuned);
    let seeded = ["uci", "--list-params", "--params", "preset:defaults"];
    assert_eq!(announced_default(&seeded, name), seed);
}

#[test]
fn polyglot_starts_the_engine() {
    let polyglot = std::path::Path::new("/usr/games/polyglot");
    assert!(
        polyglot.exists(),
        "polyglot from Debian is needed (apt-get install polyglot; .ci/run installs it)"
    );
    let dir = tempfile::tempdir().unwrap();
    let ini = dir.path().join("texel.ini");
    let engine = assert_cmd::cargo::cargo_bin("texel");
    std::fs::write(
        &ini,
        format!(
            "[PolyGlot]\nEngineCommand = {}\nEngineDir = {}\nLog = false\n[Engine]\n",
            engine.display(),
            dir.path().display()
        ),
    )
    .unwrap();
    let mut child = Command::new(polyglot)
        .arg(&ini)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "xboard\nprotover 2").unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        let Some(Ok(line)) = lines.next() else { break };
        let done = line.contains("done=1");
        seen.push(line);
        if done {
            break;
        }
    }
    writeln!(stdin, "quit").unwrap();
    drop(stdin);
    let _ = child.wait();
    assert!(
        seen.iter()
            .any(|l| l.contains("myname=\"texel\"") || l.contains("done=1")),
        "{seen:?}"
    );
    assert!(!seen.iter().any(|l| l.contains("overflow")), "{seen:?}");
}

#[test]
fn multipv_reports_the_best_lines_with_their_seldepth() {
    let mut s = Session::start();
    s.send("uci");
    s.expect("the MultiPV option", |l| {
        l == "option name MultiPV type spin default 1 min 1 max 256"
    });
    s.send("setoption name MultiPV value 3");
    s.send("position startpos");
    s.send("go depth 5");
    let best = s.bestmove();
    let last: Vec<&String> = s
        .seen
        .iter()
        .filter(|l| l.starts_with("info depth 5 "))
        .collect();
    assert_eq!(last.len(), 3, "{last:?}");
    let word_after = |line: &str, key: &str| -> String {
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = words.iter().position(|w| *w == key).unwrap();
        words[at + 1].to_string()
    };
    let lines: Vec<String> = last.iter().map(|l| word_after(l, "multipv")).collect();
    assert_eq!(lines, ["1", "2", "3"]);
    let firsts: std::collections::HashSet<String> =
        last.iter().map(|l| word_after(l, "pv")).collect();
    assert_eq!(firsts.len(), 3, "three different moves: {last:?}");
    assert!(last
        .iter()
        .all(|l| word_after(l, "seldepth").parse::<u32>().unwrap() >= 5));
    assert_eq!(best, format!("bestmove {}", word_after(last[0], "pv")));
    s.quit();
}

#[test]
fn python_chess_analyses_several_lines() {
    let script = r#"
import sys, chess, chess.engine
engine = chess.engine.SimpleEngine.popen_uci([sys.argv[1]])
infos = engine.analyse(chess.Board(), chess.engine.Limit(depth=5), multipv=3)
engine.quit()
assert len(infos) == 3, infos
assert len({info["pv"][0] for info in infos}) == 3, infos
assert all(info["seldepth"] >= 5 for info in infos), infos
print("three lines")
"#;
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(assert_cmd::cargo::cargo_bin("texel"))
        .output()
        .expect("python3 with the chess package (pip install chess) is needed");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("three lines"),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The FENs of `texel "genfens ..." quit` (OpenBench's DATAGEN call), or its error.
fn genfens(command: &str) -> Result<Vec<String>, String> {
    let out = Command::new(assert_cmd::cargo::cargo_bin("texel"))
        .args([command, "quit"])
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let text = String::from_utf8(out.stdout).unwrap();
    let fens = text
        .lines()
        .map(|l| l.strip_prefix("info string genfens ").expect(l).to_string())
        .collect();
    Ok(fens)
}

#[test]
fn genfens_gives_seeded_distinct_legal_undecided_positions() {
    use shakmaty::{fen::Fen, CastlingMode, Chess, Position};
    let fens = genfens("genfens 60 seed 11 book None").unwrap();
    assert_eq!(fens.len(), 60);
    let distinct: std::collections::HashSet<&String> = fens.iter().collect();
    assert_eq!(distinct.len(), 60);
    for fen in &fens {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert!(!pos.is_game_over(), "{fen}");
        assert!(
            pos.board().occupied().count() >= 28,
            "{fen}: 8 or 9 plies from the start"
        );
    }
    assert_eq!(genfens("genfens 60 seed 11 book None").unwrap(), fens);
    let other = genfens("genfens 60 seed 12 book None").unwrap();
    assert_ne!(other, fens);
    // From a book (OpenBench's extra words after it are passed over).
    let book = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/openings.epd");
    let booked = genfens(&format!("genfens 20 seed 1 book {book} extra")).unwrap();
    assert_eq!(booked.len(), 20);
    let err = genfens("genfens 5 seed 1 book /no/such.epd").unwrap_err();
    assert!(
        err.contains("genfens book") && err.contains("/no/such.epd"),
        "{err}"
    );
    let err = genfens("genfens five seed 1 book None").unwrap_err();
    assert!(err.contains("N is not a count"), "{err}");
    // A huge N (OpenBench passes it through) is refused at once, not a capacity panic.
    for n in ["1000000000000", "1000000000000000000"] {
        let err = genfens(&format!("genfens {n} seed 1 book None")).unwrap_err();
        assert!(
            err.contains("N is more than 10000000, the most"),
            "{n}: {err}"
        );
    }
}
