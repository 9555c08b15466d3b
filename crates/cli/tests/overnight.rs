//! An overnight run one can walk away from, through the real binary: no output lands on an
//! input or another output, an earlier run's work is never thrown away by a rerun, a
//! resume with other settings is refused by name, and a torn last record is dropped.

mod common;

use common::{fails, interrupt_when, sample, stdout_of as ok, texel};
use std::path::Path;

/// The bytes of `path`, to check that a refused command left it alone.
fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

#[test]
fn no_tune_output_may_land_on_an_input() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "in.epd", 200);
    let before = bytes(&epd);
    std::fs::create_dir(tmp.path().join("sub")).unwrap();
    let roundabout = tmp.path().join("sub/../in.epd");
    let link = tmp.path().join("link.epd");
    std::os::unix::fs::symlink(&epd, &link).unwrap();
    for flag in ["--out", "--report", "--rust", "--checkpoint", "--log"] {
        for target in [&epd, &roundabout, &link] {
            let err = fails(
                texel()
                    .args(["tune", "--passes", "1", "--epd"])
                    .arg(&epd)
                    .arg(flag)
                    .arg(target),
            );
            assert!(err.contains(flag) && err.contains("--epd"), "{flag}: {err}");
        }
    }
    let out = tmp.path().join("t.json");
    let err = fails(
        texel()
            .args(["tune", "--passes", "1", "--epd"])
            .arg(&epd)
            .arg("--out")
            .arg(&out)
            .arg("--report")
            .arg(&out),
    );
    assert!(err.contains("--out and --report"), "{err}");
    let params = tmp.path().join("p.json");
    ok(texel().args(["export", "--json"]).arg(&params));
    let err = fails(
        texel()
            .args(["tune", "--passes", "1", "--epd"])
            .arg(&epd)
            .arg("--params")
            .arg(&params)
            .arg("--out")
            .arg(&params),
    );
    assert!(err.contains("--params"), "{err}");
    assert_eq!(bytes(&epd), before, "the input is untouched");
    assert!(!out.exists());
}

#[test]
fn no_other_command_writes_over_its_input() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "in.epd", 300);
    let before = bytes(&epd);
    let err = fails(
        texel()
            .args(["import", "--epd"])
            .arg(&epd)
            .arg("--out")
            .arg(&epd),
    );
    assert!(err.contains("--out") && err.contains("--epd"), "{err}");
    let err = fails(
        texel()
            .args(["lab", "--family", "ChainV", "--epd"])
            .arg(&epd)
            .arg("--out")
            .arg(tmp.path().join("lab"))
            .arg("--apply")
            .arg(&epd),
    );
    assert!(err.contains("--apply"), "{err}");
    let openings = tmp.path().join("openings.epd");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/openings.epd"),
        &openings,
    )
    .unwrap();
    let openings_before = bytes(&openings);
    let err = fails(
        texel()
            .args(["match", "--engine", "name=a", "--engine", "name=b"])
            .args(["--each", "nodes=100", "--openings"])
            .arg(&openings)
            .arg("--pgn")
            .arg(&openings),
    );
    assert!(err.contains("--pgn") && err.contains("--openings"), "{err}");
    let err = fails(
        texel()
            .args(["selfplay", "--games", "2", "--openings"])
            .arg(&openings)
            .arg("--pgn")
            .arg(tmp.path().join("g.pgn"))
            .arg("--epd")
            .arg(&openings),
    );
    assert!(err.contains("--epd") && err.contains("--openings"), "{err}");
    let err = fails(
        texel()
            .args(["loop", "--openings"])
            .arg(&openings)
            .arg("--dir")
            .arg(tmp.path()),
    );
    assert!(err.contains("inside --dir"), "{err}");
    let err = fails(
        texel()
            .args(["export", "--json"])
            .arg(&epd)
            .arg("--params")
            .arg(&epd),
    );
    assert!(err.contains("--json"), "{err}");
    let twice = tmp.path().join(".").join("in.epd");
    let err = fails(
        texel()
            .args(["error", "--epd"])
            .arg(&epd)
            .arg("--epd")
            .arg(&twice),
    );
    assert!(err.contains("count twice"), "{err}");
    let err = fails(
        texel()
            .args(["selfplay", "--games", "2", "--pgn"])
            .arg(tmp.path())
            .arg("--openings")
            .arg(&openings),
    );
    assert!(err.contains("is a folder"), "{err}");
    assert_eq!(bytes(&epd), before);
    assert_eq!(bytes(&openings), openings_before);
}

/// `tune` on `epd` writing `out`, with `extra` flags (`--min-support` 1 unless given).
fn tune(epd: &Path, out: &Path, extra: &[&str]) -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("texel"));
    c.args(["tune", "--group", "KnightV", "--group", "PassedV", "--epd"])
        .arg(epd)
        .arg("--out")
        .arg(out)
        .args(extra);
    if !extra.contains(&"--min-support") {
        c.args(["--min-support", "1"]);
    }
    c
}

/// Starts `cmd` and stops it with Ctrl-C once its descent began: its checkpoint is left.
fn stopped(cmd: std::process::Command) {
    let (code, text) = interrupt_when(cmd, |l| l.contains("tuning "));
    assert_eq!(code, Some(130), "{text}");
}

#[test]
fn a_rerun_never_throws_away_a_checkpoint_and_a_resume_checks_the_settings() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "s.epd", 70_000);
    let out = tmp.path().join("t.json");
    let ckpt = tmp.path().join("t.json.ckpt");
    stopped(tune(&epd, &out, &["--passes", "3", "--validate", "10"]));
    let saved = bytes(&ckpt);
    let err = fails(&mut tune(&epd, &out, &["--passes", "3", "--validate", "10"]).into());
    assert!(
        err.contains("t.json.ckpt") && err.contains("--resume") && err.contains("--fresh"),
        "{err}"
    );
    assert_eq!(bytes(&ckpt), saved, "the checkpoint is kept");
    let resume = ["--validate", "10", "--resume", ckpt.to_str().unwrap()];
    // Each refusal says what to give, as words of the command; the resume below, with
    // the run's own settings, is those words followed.
    for (flag, value, then, hint) in [
        ("--method", "adam", "newton", "give --method newton"),
        ("--l2", "0.5", "auto", "give --l2 auto"),
        ("--min-support", "5", "1", "give --min-support 1"),
        ("--validate", "20", "10", "give --validate 10"),
        ("--k", "1.5", "not given", "leave out --k"),
        (
            "--freeze-material",
            "",
            "not given",
            "leave out --freeze-material",
        ),
        (
            "--exclude",
            "BISHOP_PAIR",
            "not given",
            "leave out --exclude",
        ),
    ] {
        let mut rest = vec!["--resume", ckpt.to_str().unwrap(), "--passes", "3", flag];
        rest.extend(Some(value).filter(|v| !v.is_empty()));
        if flag != "--validate" {
            rest.extend(["--validate", "10"]);
        }
        let err = fails(&mut tune(&epd, &out, &rest).into());
        assert!(
            err.contains(&format!("{flag} was {then}")) && err.contains(value),
            "{flag}: {err}"
        );
        assert!(err.contains(&format!("{hint} to continue it")), "{err}");
    }
    // A checkpoint that records more passes than the run may make (edited by hand) has
    // nothing left: refused, not "finished" with the checkpoint's values as if tuned.
    let text = String::from_utf8(saved.clone()).unwrap();
    let passes = text.find("\"passes\":").expect("the passes done");
    let done: String = text[passes + 9..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let edited = text.replacen(&format!("\"passes\":{done}"), "\"passes\":999999", 1);
    std::fs::write(&ckpt, edited).unwrap();
    let more = [&resume[..], &["--passes", "4"]].concat();
    let err = fails(&mut tune(&epd, &out, &more).into());
    assert!(
        err.contains("999999 passes done") && err.contains("give --passes above it"),
        "{err}"
    );
    assert!(!out.exists());
    std::fs::write(&ckpt, &saved).unwrap();
    let text = ok(&mut tune(&epd, &out, &more).into());
    assert!(text.contains("--passes changed from 3 to 4"), "{text}");
    assert!(out.exists() && !ckpt.exists());
    // The summary counts the changes from where the run began, as an unbroken run does.
    let whole = tmp.path().join("whole.json");
    let straight = ok(&mut tune(&epd, &whole, &["--passes", "4", "--validate", "10"]).into());
    let changed = |t: &str| {
        t.lines()
            .find(|l| l.contains("values changed"))
            .map(str::to_string)
    };
    assert_eq!(changed(&text), changed(&straight), "{text}\n{straight}");
    assert_eq!(
        bytes(&out),
        bytes(&whole),
        "the resumed run ends where the unbroken one does"
    );
    // --fresh starts again over an earlier checkpoint.
    stopped(tune(&epd, &out, &["--passes", "3"]));
    let text = ok(&mut tune(&epd, &out, &["--passes", "1", "--fresh"]).into());
    assert!(text.contains("--fresh: removed"), "{text}");
}

#[test]
fn config_outputs_are_dropped_when_the_command_line_names_an_output() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "s.epd", 300);
    let config = tmp.path().join("c.json");
    let json = serde_json::json!({
        "epd": ["s.epd"], "passes": 1, "groups": ["KnightV"],
        "out": "runs/x/tuned.json", "report": "runs/x/report.html", "log": "runs/x/log.jsonl",
    });
    std::fs::write(&config, json.to_string()).unwrap();
    let out = tmp.path().join("mine.json");
    let run = texel()
        .args(["tune", "--config"])
        .arg(&config)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    assert!(
        err.contains("report, log") || err.contains("out, report, log"),
        "{err}"
    );
    assert!(out.exists() && !tmp.path().join("runs").exists());
    drop(epd);
}

/// A self-play command writing `pgn` (tiny, fixed nodes).
fn selfplay(pgn: &Path, games: &str, extra: &[&str]) -> assert_cmd::Command {
    let openings = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/openings.epd");
    let mut c = texel();
    c.args([
        "selfplay",
        "--nodes",
        "300",
        "--threads",
        "1",
        "--games",
        games,
    ])
    .arg("--openings")
    .arg(openings)
    .arg("--pgn")
    .arg(pgn)
    .args(extra);
    c
}

#[test]
fn selfplay_keeps_its_games_and_drops_a_torn_one() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole.pgn");
    ok(&mut selfplay(&whole, "4", &[]));
    let games = bytes(&whole);
    let err = fails(&mut selfplay(&whole, "4", &[]));
    assert!(err.contains("--resume") && err.contains("--fresh"), "{err}");
    assert_eq!(bytes(&whole), games, "no game appended twice");
    let err = fails(&mut selfplay(&whole, "6", &["--resume", "--seed", "2"]));
    assert!(
        err.contains("--seed was 1") && err.contains("is 2"),
        "{err}"
    );
    // A file cut in the middle of the third game's headers: resumed, it ends as a whole run.
    let torn = tmp.path().join("torn.pgn");
    let text = String::from_utf8(games.clone()).unwrap();
    let third = text.match_indices("[Event ").nth(2).unwrap().0;
    let cut = third + text[third..].find("[White").unwrap() + 5;
    std::fs::write(&torn, &text[..cut]).unwrap();
    std::fs::copy(
        format!("{}.settings.json", whole.display()),
        format!("{}.settings.json", torn.display()),
    )
    .unwrap();
    ok(&mut selfplay(&torn, "4", &["--resume"]));
    assert_eq!(
        bytes(&torn),
        games,
        "the torn game was played again, not appended to"
    );
    let text = ok(&mut selfplay(&whole, "2", &["--fresh"]));
    assert!(text.contains("--fresh: removed"), "{text}");
    assert_eq!(
        String::from_utf8(bytes(&whole))
            .unwrap()
            .matches("[Event ")
            .count(),
        2
    );
}

#[test]
fn a_match_appends_after_a_torn_game_without_gluing_to_it() {
    let tmp = tempfile::tempdir().unwrap();
    let pgn = tmp.path().join("m.pgn");
    let torn = "[Event \"texel match\"]\n[Site \"?\"]\n[Round \"1\"]\n[Whi";
    std::fs::write(&pgn, torn).unwrap();
    ok(texel()
        .args(["match", "--engine", "name=a", "--engine", "name=b"])
        .args(["--each", "nodes=200", "--games", "2", "--pgn"])
        .arg(&pgn));
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert!(
        !text.contains("[Whi\n") && !text.contains("[Whi["),
        "{text}"
    );
    assert_eq!(text.matches("[Event ").count(), 2, "{text}");
    assert!(text.starts_with("[Event \"texel match\"]\n[Site"), "{text}");
}

#[test]
fn an_engine_that_never_moves_under_a_node_limit_forfeits_after_its_timeout() {
    let tmp = tempfile::tempdir().unwrap();
    // Answers the handshake, never a `go`.
    let silent = tmp.path().join("silent.sh");
    std::fs::write(
        &silent,
        "while read l; do case \"$l\" in uci) echo uciok;; isready) echo readyok;; \
         quit) exit;; esac; done\n",
    )
    .unwrap();
    let began = std::time::Instant::now();
    let text = ok(texel()
        .args(["match", "--engine", "name=texel", "--engine"])
        .arg(format!("name=silent,cmd=/bin/sh,arg={}", silent.display()))
        .args(["--each", "nodes=200,timeout=1", "--games", "2"]));
    assert!(began.elapsed().as_secs() < 30, "{text}");
    assert!(
        text.contains("gave no move within 1 s") && text.contains("timeout=SECONDS"),
        "{text}"
    );
    assert!(
        text.contains("texel                silent                    2      0      0"),
        "{text}"
    );
}

#[test]
fn limits_that_allow_no_game_are_refused_and_threads_are_capped() {
    let engines = ["--engine", "name=a", "--engine", "name=b"];
    for (each, games, concurrency, named) in [
        ("nodes=0", "2", "1", "nodes=0"),
        ("depth=0", "2", "1", "depth=0"),
        ("tc=0+0", "2", "1", "tc=0"),
        ("st=0", "2", "1", "st=0"),
        ("nodes=100,timeout=0", "2", "1", "timeout=0"),
        ("nodes=100", "0", "1", "--games"),
        ("nodes=100", "2", "0", "--concurrency"),
    ] {
        let err = fails(texel().args(["match"]).args(engines).args([
            "--each",
            each,
            "--games",
            games,
            "--concurrency",
            concurrency,
        ]));
        assert!(err.contains(named), "{each} {games} {concurrency}: {err}");
    }
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "s.epd", 200);
    let out = texel()
        .args(["error", "--threads", "100000", "--epd"])
        .arg(&epd)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("--threads 100000 is more than the"), "{err}");
}

#[test]
fn labels_of_one_result_or_that_are_scores_are_refused_with_the_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let fen = |line: &str| line.rsplit_once(' ').unwrap().0.to_string();
    let text = include_str!("../../../data/train.epd");
    let all_wins: String = text
        .lines()
        .take(200)
        .map(|l| fen(l) + " [1.0]\n")
        .collect();
    let wins = tmp.path().join("wins.epd");
    std::fs::write(&wins, all_wins).unwrap();
    let err = fails(texel().args(["tune", "--epd"]).arg(&wins));
    assert!(
        err.contains("every one of the 200 labels") && err.contains("1-0"),
        "{err}"
    );
    let scores: String = text
        .lines()
        .take(200)
        .enumerate()
        .map(|(i, l)| format!("{} [{}]\n", fen(l), i as i32 * 7 - 600))
        .collect();
    let cp = tmp.path().join("cp.epd");
    std::fs::write(&cp, scores).unwrap();
    let err = fails(texel().args(["error", "--epd"]).arg(&cp));
    assert!(
        err.contains("a score, not a game result") && err.contains("cp.epd:1"),
        "{err}"
    );
}

#[test]
fn a_second_run_on_the_same_outputs_is_refused_while_the_first_lives() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "s.epd", 300);
    let out = tmp.path().join("t.json");
    let (ckpt, lock) = (
        tmp.path().join("t.json.ckpt"),
        tmp.path().join("t.json.ckpt.lock"),
    );
    let run = |extra: &[&str]| {
        let mut cmd = texel();
        cmd.args(["tune", "--passes", "1", "--group", "KnightV", "--epd"])
            .arg(&epd)
            .arg("--out")
            .arg(&out)
            .args(extra);
        cmd
    };
    // A live run (this test's process) holds the outputs: refused at once, naming it, and
    // its checkpoint survives even --fresh.
    std::fs::write(&ckpt, "the first run's checkpoint").unwrap();
    std::fs::write(&lock, format!("{}\n", std::process::id())).unwrap();
    let err = fails(&mut run(&["--fresh"]));
    let pid = std::process::id().to_string();
    assert!(
        err.contains(&format!("another run (process {pid})")) && err.contains("t.json.ckpt.lock"),
        "{err}"
    );
    assert_eq!(bytes(&ckpt), b"the first run's checkpoint");
    assert!(!out.exists());
    // A run that was killed (its process is gone): its lock is taken over, and released.
    std::fs::write(&lock, "4294967295\n").unwrap();
    ok(&mut run(&["--fresh"]));
    assert!(out.is_file() && !lock.exists() && !ckpt.exists());
}

/// A tune reading its positions from a pipe: it takes its locks, then waits for the
/// positions, so that another run can be tried while it lives.
fn waiting_tune(dir: &Path, out: &Path) -> (std::process::Child, std::path::PathBuf) {
    let pipe = dir.join("pipe.epd");
    let made = std::process::Command::new("mkfifo").arg(&pipe).status();
    assert!(made.unwrap().success());
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("texel"));
    cmd.args(["tune", "--passes", "1", "--group", "KnightV", "--epd"])
        .arg(&pipe)
        .arg("--out")
        .arg(out)
        .stdout(std::process::Stdio::null());
    (cmd.spawn().unwrap(), pipe)
}

#[test]
fn no_file_of_a_live_run_may_be_another_runs_output() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "s.epd", 300);
    let out = tmp.path().join("t.json");
    let (mut first, pipe) = waiting_tune(tmp.path(), &out);
    let scratch_lock = tmp.path().join("t.json.ckpt.form.lock");
    let started = std::time::Instant::now();
    while !scratch_lock.exists() {
        assert!(
            started.elapsed().as_secs() < 60,
            "the first run never locked"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let pid = first.id().to_string();
    for theirs in [
        "t.json.ckpt",
        "t.json.ckpt.form",
        "t.json.ckpt.lock",
        "t.json",
    ] {
        let err = fails(
            texel()
                .args(["tune", "--passes", "1", "--group", "KnightV", "--epd"])
                .arg(&epd)
                .arg("--out")
                .arg(tmp.path().join(theirs)),
        );
        assert!(
            err.contains(&format!("another run (process {pid})")),
            "{theirs}: {err}"
        );
    }
    std::fs::write(&pipe, std::fs::read(&epd).unwrap()).unwrap();
    assert!(first.wait().unwrap().success());
    // The first run ended as if alone: its values are a lone run's, nothing of it is left.
    let alone = tmp.path().join("alone.json");
    ok(texel()
        .args(["tune", "--passes", "1", "--group", "KnightV", "--epd"])
        .arg(&epd)
        .arg("--out")
        .arg(&alone));
    assert_eq!(bytes(&out), bytes(&alone));
    let mut left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["alone.json", "pipe.epd", "s.epd", "t.json"]);
}

#[test]
fn a_log_holds_one_run_a_second_run_is_refused_or_starts_it_afresh() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "s.epd", 3_000);
    let (out, log) = (tmp.path().join("t.json"), tmp.path().join("passes.jsonl"));
    let with_log = |extra: &[&str]| {
        let mut c = tune(&epd, &out, &["--passes", "1"]);
        c.arg("--log").arg(&log).args(extra);
        c
    };
    ok(&mut with_log(&[]).into());
    let first = bytes(&log);
    let err = fails(&mut with_log(&[]).into());
    assert!(
        err.contains("passes.jsonl holds the passes of an earlier run") && err.contains("--fresh"),
        "{err}"
    );
    assert_eq!(bytes(&log), first, "the earlier run's log is untouched");
    let text = ok(&mut with_log(&["--fresh"]).into());
    assert!(text.contains("emptied the earlier log"), "{text}");
    let passes = |b: &[u8]| {
        String::from_utf8_lossy(b)
            .lines()
            .filter(|l| l.contains("\"pass\":1,"))
            .count()
    };
    assert_eq!(passes(&bytes(&log)), 1, "one run in the log");
}
