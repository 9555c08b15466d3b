//! `texel label` through the binary: Debian's Stockfish scores positions in input order,
//! a killed run goes on to the same file, shards join to the whole, and an engine that
//! crashes, answers garbage or is no UCI engine is named with its own words.

mod common;

use common::{fails, stdout_of, texel};
use std::path::{Path, PathBuf};
use std::process::Command;

const STOCKFISH: &str = "/usr/games/stockfish";

fn stockfish() -> &'static str {
    assert!(
        Path::new(STOCKFISH).exists(),
        "stockfish from Debian is needed (apt-get install stockfish; .ci/run installs it)"
    );
    STOCKFISH
}

/// `n` positions of the shipped data, each given a game (every 4 lines one) and a score of
/// its own, written as `name` in `dir`.
fn positions(dir: &Path, name: &str, n: usize) -> PathBuf {
    let text: String = include_str!("../../../data/train.epd")
        .lines()
        .take(n)
        .enumerate()
        .map(|(i, l)| {
            let (fen, label) = l.rsplit_once(' ').unwrap();
            format!("{fen} game {}; ce 7; {label}\n", i / 4 + 1)
        })
        .collect();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn label(input: &Path, out: &Path, extra: &[&str]) -> assert_cmd::Command {
    let mut cmd = texel();
    cmd.args(["label", "--epd"])
        .arg(input)
        .arg("--out")
        .arg(out);
    cmd.args(extra);
    cmd
}

/// The FEN fields and the label of an output or input line.
fn fen_and_label(line: &str) -> (String, String) {
    let fields: Vec<&str> = line.split_whitespace().collect();
    (fields[..6].join(" "), fields.last().unwrap().to_string())
}

#[test]
fn stockfish_scores_every_position_in_input_order_keeping_results_and_games() {
    let dir = tempfile::tempdir().unwrap();
    let input = positions(dir.path(), "in.epd", 12);
    let out = dir.path().join("out.epd");
    let args = ["--engine", stockfish(), "--nodes", "300", "--threads", "2"];
    let run = label(&input, &out, &args).output().unwrap();
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{said}");
    assert!(
        said.contains("12 positions had a score of their own"),
        "{said}"
    );
    let written = std::fs::read_to_string(&out).unwrap();
    let given = std::fs::read_to_string(&input).unwrap();
    assert_eq!(written.lines().count(), 12);
    for (i, (line, before)) in written.lines().zip(given.lines()).enumerate() {
        assert_eq!(fen_and_label(line), fen_and_label(before), "{line}");
        assert!(
            line.contains(&format!(" game {}; ce ", i / 4 + 1)),
            "{line}"
        );
        assert!(
            !line.contains("ce 7;"),
            "the input's score is replaced: {line}"
        );
        let wdl: Vec<u32> = line
            .split("wdl ")
            .nth(1)
            .unwrap()
            .split(';')
            .next()
            .unwrap()
            .split_whitespace()
            .map(|w| w.parse().unwrap())
            .collect();
        assert_eq!(wdl.iter().sum::<u32>(), 1000, "{line}");
    }
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(leftovers.len(), 2, "only the input and the output stay");
}

#[test]
fn a_run_killed_midway_goes_on_to_the_file_of_an_unbroken_one() {
    let dir = tempfile::tempdir().unwrap();
    let input = positions(dir.path(), "in.epd", 500);
    let (whole, cut) = (dir.path().join("whole.epd"), dir.path().join("cut.epd"));
    let args = ["--engine", stockfish(), "--nodes", "4000", "--threads", "1"];
    stdout_of(&mut label(&input, &whole, &args));
    // The whole process group killed at once, as by a power cut, once progress is recorded.
    let mut killed = Command::new(env!("CARGO_BIN_EXE_texel"));
    killed
        .args(["label", "--epd"])
        .arg(&input)
        .arg("--out")
        .arg(&cut)
        .args(args);
    std::os::unix::process::CommandExt::process_group(&mut killed, 0);
    let mut child = killed.spawn().unwrap();
    let record = dir.path().join("cut.epd.part.json");
    while !record.exists() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "ended before its first record"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let group = format!("-{}", child.id());
    assert!(Command::new("kill")
        .args(["-KILL", "--", &group])
        .status()
        .unwrap()
        .success());
    child.wait().unwrap();
    assert!(!cut.exists(), "a killed run leaves no output");
    let again = ["--engine", stockfish(), "--nodes", "4000", "--threads", "2"];
    let resumed = label(&input, &cut, &again).output().unwrap();
    let said = String::from_utf8_lossy(&resumed.stderr);
    assert!(resumed.status.success(), "{said}");
    assert_eq!(std::fs::read(&whole).unwrap(), std::fs::read(&cut).unwrap());
}

#[test]
fn shards_joined_in_order_are_the_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = positions(dir.path(), "in.epd", 10);
    let args = ["--engine", stockfish(), "--depth", "3", "--threads", "1"];
    let whole = dir.path().join("whole.epd");
    stdout_of(&mut label(&input, &whole, &args));
    let mut joined = Vec::new();
    for k in 1..=3 {
        let out = dir.path().join(format!("shard{k}.epd"));
        let shard = format!("{k}/3");
        stdout_of(label(&input, &out, &args).args(["--shard", &shard]));
        joined.extend(std::fs::read(&out).unwrap());
    }
    assert_eq!(joined, std::fs::read(&whole).unwrap());
    let err = fails(label(&input, &whole, &args).args(["--shard", "4/3"]));
    assert!(err.contains("K/N"), "{err}");
}

/// A UCI engine in Python (python-chess gives its moves) that scores every position 42 and, on the position whose FEN
/// holds `CRASH`, dies the first time (a marker file beside it says it did) after saying
/// so on stderr, and on the one holding `GARBAGE` answers a best move with no score.
fn fake_engine(dir: &Path, crash: &str, garbage: &str) -> PathBuf {
    let script = format!(
        r#"import sys, os, chess
marker = {marker:?}
fen = ""
for line in sys.stdin:
    words = line.split()
    if not words: continue
    if words[0] == "uci": print("id name fake\noption name UCI_ShowWDL type check default false\nuciok", flush=True)
    elif words[0] == "isready": print("readyok", flush=True)
    elif words[0] == "position": fen = " ".join(words[2:8])
    elif words[0] == "go":
        if fen.startswith({crash:?}) and not os.path.exists(marker):
            open(marker, "w").close()
            print("dying on purpose", file=sys.stderr, flush=True)
            sys.exit(3)
        if fen.startswith({garbage:?}):
            print("bestmove 0000 ponder nonsense", flush=True)
            continue
        print("info depth 1 score cp 42 wdl 500 300 200 nodes 1", flush=True)
        move = next(iter(chess.Board(fen).legal_moves))
        print("bestmove " + move.uci(), flush=True)
    elif words[0] == "quit": break
"#,
        marker = dir.join("crashed").display().to_string(),
    );
    let path = dir.join("fake.py");
    std::fs::write(&path, script).unwrap();
    path
}

#[test]
fn an_engine_that_crashes_or_answers_garbage_is_named_restarted_and_nothing_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let input = positions(dir.path(), "in.epd", 6);
    let text = std::fs::read_to_string(&input).unwrap();
    let fens: Vec<String> = text.lines().map(|l| fen_and_label(l).0).collect();
    let fake = fake_engine(dir.path(), &fens[2], &fens[4]);
    let out = dir.path().join("out.epd");
    let engine = format!("python3 {}", fake.display());
    let args = ["--engine", &engine, "--nodes", "1", "--threads", "2"];
    let run = label(&input, &out, &args).output().unwrap();
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{said}");
    // The crash: the line, the position and the engine's own words; then scored on a retry.
    assert!(said.contains(&format!("line 3 ({})", fens[2])), "{said}");
    assert!(
        said.contains("crashed") && said.contains("dying on purpose"),
        "{said}"
    );
    // The garbage: named with the engine's words, tried three times, kept with its result.
    assert!(said.contains("bestmove 0000 ponder nonsense"), "{said}");
    assert_eq!(
        said.matches(&format!("line 5 ({})", fens[4])).count(),
        3,
        "{said}"
    );
    assert!(
        said.contains("1 positions the teacher failed on 3 times"),
        "{said}"
    );
    let lines: Vec<String> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(lines.len(), 6);
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(fen_and_label(line).0, fens[i]);
        let scored = line.contains("ce 42; wdl 500 300 200;");
        assert_eq!(scored, i != 4, "{line}");
    }
}

#[test]
fn a_program_that_is_not_a_uci_engine_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let input = positions(dir.path(), "in.epd", 3);
    let out = dir.path().join("out.epd");
    let err = fails(&mut label(
        &input,
        &out,
        &["--engine", "echo hello", "--nodes", "10"],
    ));
    assert!(
        err.contains("is it a UCI engine") && err.contains("hello"),
        "{err}"
    );
    assert!(!out.exists());
    let err = fails(&mut label(&input, &out, &["--engine", stockfish()]));
    assert!(err.contains("--nodes N or --depth D"), "{err}");
}

#[test]
fn kept_progress_of_other_settings_is_refused_until_fresh() {
    let dir = tempfile::tempdir().unwrap();
    let input = positions(dir.path(), "in.epd", 200);
    let out = dir.path().join("out.epd");
    let first = ["--engine", stockfish(), "--nodes", "3000", "--threads", "1"];
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_texel"));
    cmd.args(["label", "--epd"])
        .arg(&input)
        .arg("--out")
        .arg(&out)
        .args(first);
    // Stopped by Ctrl-C as soon as it begins: its progress is kept.
    let (code, stdout, stderr) = common::interrupt_when_in(cmd, true, |l| l.contains("labelling"));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("run the same command again to go on"),
        "{stdout}"
    );
    assert!(!out.exists() && dir.path().join("out.epd.part.json").exists());
    let other = ["--engine", stockfish(), "--nodes", "300", "--threads", "1"];
    let err = fails(&mut label(&input, &out, &other));
    assert!(
        err.contains("the engine or its settings") && err.contains("--fresh"),
        "{err}"
    );
    stdout_of(label(&input, &out, &other).arg("--fresh"));
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 200);
}
