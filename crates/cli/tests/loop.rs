//! `texel loop` through the real binary on tiny rounds: a failing gate keeps the old best,
//! a rerun continues, and an interrupted loop resumed ends with the files of an
//! uninterrupted one.

mod common;

use common::{fails, interrupt_after_two_games, sample, stdout_of, texel};
use std::path::{Path, PathBuf};

/// The loop command on `dir` with tiny rounds.
fn tiny_loop(dir: &Path, rounds: &str, sprt: &str) -> std::process::Command {
    let openings = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/openings.epd");
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("texel"));
    c.args([
        "loop", "--resume", "--rounds", rounds, "--games", "24", "--nodes", "600",
    ])
    .args(["--gate-games", "20", "--passes", "2", "--min-support", "1"])
    .args(["--sprt", sprt, "--openings"])
    .arg(&openings)
    .arg("--dir")
    .arg(dir)
    .stdout(std::process::Stdio::null());
    c
}

/// The loop's page (`texel report --loop`), written into its folder, as text.
fn loop_page(dir: &Path) -> String {
    let page = dir.join("loop.html");
    stdout_of(
        texel()
            .args(["report", "--out"])
            .arg(&page)
            .arg("--loop")
            .arg(dir),
    );
    std::fs::read_to_string(&page).unwrap()
}

/// The first line of the loop's `loop.jsonl`.
fn first_round(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("loop.jsonl")).unwrap();
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

/// The files a finished loop leaves that must not depend on stops and resumes.
fn outputs(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut names = vec![dir.join("loop.jsonl"), dir.join("best.json")];
    for file in ["games.pgn", "positions.epd", "tuned.json", "gate.pgn"] {
        names.push(dir.join("round-01").join(file));
    }
    names
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.strip_prefix(dir).unwrap().to_path_buf(), bytes)
        })
        .collect()
}

#[test]
fn a_failing_gate_keeps_the_old_best_and_a_rerun_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    // The shipped positions beside the round's give the tuning a validation split it
    // improves on: the gate plays a tuned table.
    let epd = sample(tmp.path(), "more.epd", 3000);
    let tiny_loop = |dir: &Path, rounds: &str, sprt: &str| {
        let mut c = tiny_loop(dir, rounds, sprt);
        c.arg("--epd").arg(&epd);
        c
    };
    // A gate that asks for +990 Elo never passes. Outside a terminal the games' progress
    // is said in lines (the bar is hidden there).
    let run = tiny_loop(&dir, "1", "990,1000")
        .stdout(std::process::Stdio::piped())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{said}");
    assert!(
        said.contains("selfplay 24/24 games")
            && (said.lines()).any(|l| l.starts_with("gate ") && l.ends_with(" games")),
        "{said}"
    );
    let start = texel_eval::Params::default();
    let best = texel_eval::Params::load(&dir.join("best.json")).unwrap();
    assert_eq!(best, start, "the old best stays");
    let tuned = texel_eval::Params::load(&dir.join("round-01/tuned.json")).unwrap();
    assert!(tuned != start, "the round tuned");
    assert!(dir.join("round-01/gate.pgn").exists(), "and gated");
    let line = first_round(&dir);
    assert_eq!(line["round"], 1);
    assert_eq!(line["gate"]["passed"], false);
    assert!(line["positions"].as_u64().unwrap() > 0);
    // Without --resume an earlier loop is never continued or overwritten by accident, and a
    // resume with another setting that shapes the rounds is refused by name.
    let again = tiny_loop(&dir, "2", "990,1000");
    let args: Vec<_> = again.get_args().map(ToOwned::to_owned).collect();
    let err = fails(texel().args(args.iter().filter(|a| *a != "--resume")));
    assert!(err.contains("--resume") && err.contains("--fresh"), "{err}");
    let err = fails(
        texel().args(
            args.iter()
                .map(|a| if a == "600" { "700".into() } else { a.clone() }),
        ),
    );
    assert!(
        err.contains("--nodes was 600") && err.contains("700"),
        "{err}"
    );
    // The same command again does nothing more; one more round goes on from the best.
    let text = stdout_of(&mut assert_cmd::Command::from_std({
        let mut c = tiny_loop(&dir, "2", "990,1000");
        c.stdout(std::process::Stdio::piped());
        c
    }));
    let err = fails(
        texel()
            .args(["loop", "--sprt", "5", "--dir"])
            .arg(tmp.path().join("bad")),
    );
    assert!(err.contains("--sprt"), "{err}");
    assert!(
        text.contains("round 2:") && !text.contains("round 1:"),
        "{text}"
    );
    let lines = std::fs::read_to_string(dir.join("loop.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 2);
    // The loop's page: both rounds, each gate's games.
    let html = loop_page(&dir);
    for id in ["loop-elo", "loop-error", "loop-llr"] {
        assert!(html.contains(&format!("<figure id=\"{id}\">")), "{id}");
    }
    assert_eq!(html.matches("<td>kept the best</td>").count(), 2);
    assert!(
        html.contains("\nround 2\n</text>"),
        "the second gate's LLR line"
    );
}

/// The first `n` games of the shipped Stockfish games that black won, as PGN text.
fn black_wins(n: usize) -> String {
    let gz =
        std::fs::File::open(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/games.pgn.gz"))
            .unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(gz), &mut text).unwrap();
    text.split("\n\n[Event ")
        .map(|g| format!("[Event {}\n\n", g.trim_start_matches("[Event ").trim_end()))
        .filter(|g| g.contains("[Result \"0-1\"]"))
        .take(n)
        .collect()
}

#[test]
fn a_round_whose_positions_cannot_be_tuned_keeps_the_best_and_plays_no_gate() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, games) = (tmp.path().join("run"), tmp.path().join("games"));
    // Fixed games, whatever the table plays: every one a black win, so every position the
    // round keeps says 0-1 (its targets the results alone) and no K or error can be fitted.
    std::fs::create_dir_all(games.join("round-01")).unwrap();
    std::fs::write(games.join("round-01/won.pgn"), black_wins(6)).unwrap();
    let text = stdout_of(&mut assert_cmd::Command::from_std({
        let mut c = tiny_loop(&dir, "1", "0,10");
        c.arg("--games-from").arg(&games);
        c.args(["--pgn-scores", "white", "--lambda", "1"]);
        c.stdout(std::process::Stdio::piped());
        c
    }));
    assert!(
        text.contains("round 1: its positions cannot be tuned on, the best table is kept")
            && text.contains("0-1 (black wins)"),
        "{text}"
    );
    assert!(text.contains("nothing to gate"), "{text}");
    let tuned = texel_eval::Params::load(&dir.join("round-01/tuned.json")).unwrap();
    assert_eq!(tuned, texel_eval::Params::default(), "the start was kept");
    assert!(
        !dir.join("round-01/gate.pgn").exists(),
        "no game of the start against itself"
    );
    let line = first_round(&dir);
    assert_eq!(
        (&line["gate"]["skipped"], &line["gate"]["passed"]),
        (&serde_json::json!(true), &serde_json::json!(false))
    );
    let html = loop_page(&dir);
    assert!(
        html.contains("none: tuning kept the best"),
        "the page says so"
    );
}

/// Runs a one-round loop, interrupts it once `watched` (inside the run folder) holds two
/// games, resumes it, and checks the files against an uninterrupted run.
fn interrupted_and_resumed(watched: &str) {
    let tmp = tempfile::tempdir().unwrap();
    // SPRT bounds no 20-game gate can reach: the gate plays all its games. The shipped
    // positions beside the round's give the tuning a validation split it can improve on, so
    // the gate plays a tuned table (not the start against itself).
    let sprt = "-1000,1000";
    let epd = sample(tmp.path(), "more.epd", 3000);
    let run = |dir: &Path| {
        let mut c = tiny_loop(dir, "1", sprt);
        c.arg("--epd").arg(&epd);
        c
    };
    let full = tmp.path().join("full");
    assert!(run(&full).status().unwrap().success());
    let tuned = texel_eval::Params::load(&full.join("round-01/tuned.json")).unwrap();
    assert!(
        tuned != texel_eval::Params::default(),
        "the gate plays a tuned table"
    );

    let part = tmp.path().join("part");
    let child = run(&part).spawn().unwrap();
    let code = interrupt_after_two_games(child, &part.join(watched));
    assert_eq!(code, Some(130), "stopped in {watched}");
    assert!(!part.join("loop.jsonl").exists(), "stopped inside round 1");
    assert!(run(&part).status().unwrap().success());
    assert_eq!(
        outputs(&full),
        outputs(&part),
        "resumed after a stop in {watched}"
    );
}

#[test]
fn a_loop_stopped_in_self_play_resumes_to_the_same_files() {
    interrupted_and_resumed("round-01/games.pgn");
}

#[test]
fn a_loop_stopped_in_the_gate_resumes_to_the_same_files() {
    interrupted_and_resumed("round-01/gate.pgn");
}

#[test]
fn a_loop_fed_from_outside_waits_for_games_and_for_the_verdict() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, from) = (tmp.path().join("run"), tmp.path().join("outside"));
    // Positions beside the round's, so that the tuning moves and there is a gate to ask for.
    let epd = sample(tmp.path(), "more.epd", 3000);
    let run = |extra: &[&str]| {
        let mut c = tiny_loop(&dir, "1", "0,10");
        c.arg("--games-from").arg(&from).arg("--epd").arg(&epd);
        c.args(["--pgn-scores", "white", "--gate", "outside"])
            .args(extra);
        c.stdout(std::process::Stdio::piped());
        let out = c.output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    // No games yet: the loop says where they go and stops with exit 3.
    let (code, text) = run(&[]);
    assert_eq!(code, Some(3), "{text}");
    assert!(text.contains("round 1 waits for its games"), "{text}");
    let openings = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/openings.epd");
    let given = format!("-openings file={} ", openings.display());
    assert!(
        text.contains("the same command with --resume") && text.contains(&given),
        "{text}"
    );
    assert!(
        text.contains(&from.join("round-01").display().to_string()),
        "{text}"
    );
    // Games played elsewhere (here by texel selfplay with the best table) are imported and
    // tuned on; then the loop waits for the outside gate's verdict.
    let games = from.join("round-01");
    std::fs::create_dir_all(&games).unwrap();
    stdout_of(
        texel()
            .args(["selfplay", "--games", "24", "--nodes", "600", "--params"])
            .arg(dir.join("best.json"))
            .arg("--openings")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/openings.epd"))
            .arg("--pgn")
            .arg(games.join("games.pgn")),
    );
    // A torn last game (a writer killed mid-game) is read, skipped and named.
    let pgn = games.join("games.pgn");
    let mut text = std::fs::read_to_string(&pgn).unwrap();
    let torn_at = text.lines().count() + 1;
    text += "[Event \"torn\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf";
    std::fs::write(&pgn, text).unwrap();
    let (code, text) = run(&[]);
    assert_eq!(code, Some(3), "{text}");
    assert!(text.contains("25 outside games"), "{text}");
    let named = format!(
        "skipped 1: cut short (no result after the moves) (first at {}:{torn_at})",
        pgn.display()
    );
    assert!(text.contains(&named), "{text}");
    assert!(
        text.contains("round 1 waits for its gate") && text.contains("fastchess"),
        "{text}"
    );
    assert!(
        text.contains("-sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 model=logistic"),
        "{text}"
    );
    assert!(dir.join("round-01/tuned.json").exists());
    // The verdict is recorded and a passed table becomes the best.
    let (code, text) = run(&["--verdict", "pass"]);
    assert_eq!(code, Some(0), "{text}");
    let line = first_round(&dir);
    assert_eq!(
        (line["games"].as_u64(), &line["gate"]["outside"]),
        (Some(25), &true.into())
    );
    assert_eq!(line["gate"]["passed"], true);
    assert_eq!(
        std::fs::read(dir.join("best.json")).unwrap(),
        std::fs::read(dir.join("round-01/tuned.json")).unwrap()
    );
    // A verdict without an outside gate is refused.
    let own = tiny_loop(&dir, "2", "0,10");
    let err = fails(texel().args(own.get_args()).args(["--verdict", "pass"]));
    assert!(err.contains("--gate outside"), "{err}");
}

#[test]
fn a_loop_with_lambda_tunes_toward_its_games_scores() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    let args = |rounds: &str, lambda: &str| {
        let c = tiny_loop(&dir, rounds, "990,1000");
        let mut args: Vec<_> = c.get_args().map(ToOwned::to_owned).collect();
        // Seed 2: the 20 training games' scores fit a K (seed 1's reach the top of its range).
        args.extend([
            "--lambda".into(),
            lambda.into(),
            "--seed".into(),
            "2".into(),
        ]);
        args
    };
    let out = stdout_of(texel().args(args("1", "0.5")));
    // The round's positions keep each game's own score of them, which the tuning mixes in.
    let positions = std::fs::read_to_string(dir.join("round-01/positions.epd")).unwrap();
    assert!(positions.lines().all(|l| l.contains(" ce ")), "{positions}");
    assert!(out.contains("targets: 0.5 × result + 0.5 × score"), "{out}");
    // The loop goes on only with the λ it began with.
    let err = fails(texel().args(args("2", "0.25")));
    assert!(err.contains("--lambda"), "{err}");
}
