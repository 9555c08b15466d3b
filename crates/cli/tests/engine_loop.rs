//! `texel loop --engine`: the Slow Chess loop driving an outside engine (sunfish from PyPI,
//! its UCI front and trace writer in `examples/sunfish/`), through the real binary: a round
//! plays, imports, traces with the engine's own command, tunes and gates; a loop stopped in
//! self-play goes on; a description that cannot work is refused naming its field.

mod common;

use common::{fails, interrupt_after_two_games, texel};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The project's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// An engine description of sunfish under `python3` in `dir`, starting from sunfish's own
/// tables (written there by its trace writer).
fn sunfish(dir: &Path) -> PathBuf {
    let installed = Command::new("python3")
        .args(["-c", "import sunfish"])
        .status()
        .unwrap();
    assert!(
        installed.success(),
        "these tests play sunfish: python3 -m pip install sunfish==2026.1"
    );
    let scripts = root().join("examples/sunfish");
    let few = dir.join("few.epd");
    let lines: Vec<String> = std::fs::read_to_string(root().join("data/train.epd"))
        .unwrap()
        .lines()
        .take(20)
        .map(str::to_string)
        .collect();
    std::fs::write(&few, lines.join("\n") + "\n").unwrap();
    let made = Command::new("python3")
        .arg(scripts.join("sunfish_trace.py"))
        .arg(&few)
        .arg(dir.join("few.trace"))
        .arg("--values")
        .arg(dir)
        .status()
        .unwrap();
    assert!(made.success());
    let description = serde_json::json!({
        "format": "texel-engine-1",
        "name": "sunfish",
        "play": ["python3", scripts.join("sunfish_with.py"), "{values}"],
        "trace": ["python3", scripts.join("sunfish_trace.py"), "{epd}", "{trace}"],
        "start": dir.join("original.json"),
    });
    let path = dir.join("sunfish.json");
    std::fs::write(&path, description.to_string()).unwrap();
    path
}

/// One tiny round of the loop on `engine` in `dir`, its targets half the games' results,
/// half the engine's own search scores (which sunfish's trace writer carries).
fn tiny_loop(engine: &Path, dir: &Path) -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("texel"));
    c.args([
        "loop", "--resume", "--rounds", "1", "--games", "6", "--nodes", "150",
    ])
    .args(["--gate-games", "4", "--passes", "2", "--min-support", "1"])
    .args([
        "--sprt",
        "-1000,1000",
        "--threads",
        "2",
        "--lambda",
        "0.5",
        // On 6 games the write-up's filter keeps the positions a tuning moves values on
        // (every position of them leaves K unfit, and the round keeps its start): this test
        // is about the engine's plumbing through a played gate.
        "--result-filter",
        "write-up",
        "--openings",
    ])
    .arg(root().join("data/openings.epd"))
    .arg("--engine")
    .arg(engine)
    .arg("--dir")
    .arg(dir)
    .stdout(std::process::Stdio::null());
    c
}

/// The keys of a values file.
fn names(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let values: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text).unwrap();
    values.keys().cloned().collect()
}

#[test]
fn a_loop_plays_traces_tunes_and_gates_an_outside_engine_and_resumes_after_a_stop() {
    let tmp = tempfile::tempdir().unwrap();
    let engine = sunfish(tmp.path());
    let dir = tmp.path().join("run");
    let child = tiny_loop(&engine, &dir).spawn().unwrap();
    let code = interrupt_after_two_games(child, &dir.join("round-01/games.pgn"));
    assert_eq!(code, Some(130), "stopped in self-play");
    assert!(!dir.join("loop.jsonl").exists(), "stopped inside round 1");
    assert!(tiny_loop(&engine, &dir).status().unwrap().success());
    let round = dir.join("round-01");
    let games = std::fs::read_to_string(round.join("games.pgn")).unwrap();
    assert_eq!(
        games.matches("[Event ").count(),
        6,
        "the stopped round's games went on"
    );
    assert!(games.contains("sunfish-a") && games.contains("sunfish-b"));
    let trace = std::fs::read_to_string(round.join("positions.trace")).unwrap();
    let positions = std::fs::read_to_string(round.join("positions.epd")).unwrap();
    assert_eq!(
        trace.lines().count(),
        positions.lines().count() + 1,
        "the engine traced every position (and its header)"
    );
    let scored = trace
        .lines()
        .skip(1)
        .filter(|l| l.contains("\"score\""))
        .count();
    assert_eq!(
        scored,
        positions.matches(" ce ").count(),
        "each search score reached the trace"
    );
    assert!(scored > 0);
    assert_eq!(
        names(&round.join("tuned.json")),
        names(&dir.join("best.json"))
    );
    let gate = std::fs::read_to_string(round.join("gate.pgn")).unwrap();
    assert_eq!(gate.matches("[Event ").count(), 4);
    let rounds = std::fs::read_to_string(dir.join("loop.jsonl")).unwrap();
    assert_eq!(rounds.lines().count(), 1);
}

#[test]
fn an_engine_description_that_cannot_work_names_its_field() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("broken.json");
    let broken = serde_json::json!({
        "format": "texel-engine-1",
        "name": "broken",
        "play": ["python3", "engine.py"],
        "trace": ["python3", "trace.py", "{epd}", "{trace}"],
        "start": path,
    });
    std::fs::write(&path, broken.to_string()).unwrap();
    let c = tiny_loop(&path, &tmp.path().join("run"));
    let args: Vec<_> = c.get_args().map(ToOwned::to_owned).collect();
    let err = fails(texel().args(args));
    assert!(err.contains("\"play\" has no {values}"), "{err}");
}

#[test]
fn a_trace_that_is_not_of_the_rounds_positions_is_refused_and_not_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let engine = sunfish(tmp.path());
    let mut description: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&engine).unwrap()).unwrap();
    // The engine's own writer, then its last position dropped.
    let writer = root().join("examples/sunfish/sunfish_trace.py");
    let drop_last = "python3 \"$2\" \"$0\" \"$1\" && sed -i '$ d' \"$1\"";
    description["trace"] = serde_json::json!(["sh", "-c", drop_last, "{epd}", "{trace}", writer]);
    let dropped = tmp.path().join("dropped.json");
    std::fs::write(&dropped, description.to_string()).unwrap();
    let dir = tmp.path().join("run");
    let out = tiny_loop(&dropped, &dir).output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("its trace holds") && said.contains("positions where"),
        "{said}"
    );
    let round = dir.join("round-01");
    assert!(
        !round.join("positions.trace").exists() && !round.join("positions.part").exists(),
        "a failed trace is not kept"
    );
}

#[test]
fn a_start_file_of_the_wrong_shape_is_named_as_given_not_as_the_loops_copy() {
    let tmp = tempfile::tempdir().unwrap();
    let engine = sunfish(tmp.path());
    let mut description: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&engine).unwrap()).unwrap();
    // The engine's start values with a table cut short: the engine pads it and plays, the
    // tuning refuses it.
    let text = std::fs::read_to_string(tmp.path().join("original.json")).unwrap();
    let mut values: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&text).unwrap();
    let table = (values.values_mut())
        .find_map(|v| v.as_array_mut().filter(|a| a.len() > 8))
        .unwrap();
    table.truncate(8);
    let short = tmp.path().join("short-start.json");
    std::fs::write(&short, serde_json::Value::Object(values).to_string()).unwrap();
    description["start"] = serde_json::json!(short);
    let described = tmp.path().join("short.json");
    std::fs::write(&described, description.to_string()).unwrap();
    let out = tiny_loop(&described, &tmp.path().join("run"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("short-start.json") && !said.contains("best.json"),
        "{said}"
    );
}
