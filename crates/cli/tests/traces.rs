//! `texel tune --traces` and `texel error --traces` through the binary, on trace files
//! written here line by line as an outside engine's script would write them.

mod common;

use common::{error_on, fails, stdout_of, texel, Rng};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The planted evaluation: three tapered piece values and a plain bonus.
const PIECES: [(f64, f64); 3] = [(100.0, 120.0), (300.0, 280.0), (500.0, 550.0)];
const BONUS: f64 = 25.0;

/// Writes `n` positions of the planted evaluation, results drawn from σ(eval) (K = 1), the
/// start values all 50; `bad_line` (if any) gets an entry index the header does not have.
fn write_trace(dir: &Path, n: usize, bad_line: Option<usize>) -> PathBuf {
    planted_trace(dir.join("engine.trace"), n, bad_line, false, 1.0)
}

/// The trace of `write_trace` in the binary form (`traces convert`), as `dir/engine.bin`.
fn binary_trace(dir: &Path, n: usize) -> PathBuf {
    let text = write_trace(dir, n, None);
    let binary = dir.join("engine.bin");
    texel()
        .args(["traces", "convert", "--input"])
        .arg(&text)
        .arg("--out")
        .arg(&binary)
        .assert()
        .success();
    binary
}

/// The trace of `write_trace` with each position's score: its true win probability (the
/// result is a draw from it).
fn write_scored_trace(dir: &Path, n: usize) -> PathBuf {
    planted_trace(dir.join("scored.trace"), n, None, true, 1.0)
}

/// Writes to `path` `n` positions of the planted evaluation (see `write_trace`), each with
/// its win probability as `score` when `scored`, the endgame part of every other position
/// times `scale`.
fn planted_trace(
    path: PathBuf,
    n: usize,
    bad_line: Option<usize>,
    scored: bool,
    scale: f64,
) -> PathBuf {
    let mut text = String::from(
        r#"{"format": "texel-trace", "version": 1, "params": [{"name": "PIECE", "len": 3, "tapered": true, "default": [[50, 50], [50, 50], [50, 50]], "group": "material"}, {"name": "BONUS", "len": 1, "tapered": false, "default": 50, "group": "extra"}]}"#,
    );
    text.push('\n');
    let mut rng = Rng(12);
    for line in 2..n + 2 {
        let phase = rng.below(25) as f64 / 24.0;
        let counts: Vec<i64> = (0..3).map(|_| rng.below(3) - 1).collect();
        let bonus = rng.below(3) - 1;
        let s = if line % 2 == 0 { scale } else { 1.0 };
        let mut eval = BONUS * bonus as f64;
        for (c, (mid, end)) in counts.iter().zip(PIECES) {
            eval += *c as f64 * (phase * mid + (1.0 - phase) * s * end);
        }
        let win = 1.0 / (1.0 + 10f64.powf(-eval / 400.0));
        let result = if rng.unit() < win { 1 } else { 0 };
        let index = if bad_line == Some(line) { 9 } else { 3 };
        let mut score = match scored {
            true => format!(r#""score": {win:.6}, "#),
            false => String::new(),
        };
        if s != 1.0 {
            let _ = write!(score, r#""scale": {s}, "#);
        }
        let _ = writeln!(
            text,
            r#"{{{score}"result": {result}, "phase": {phase}, "coeffs": [[0, {}], [1, {}], [2, {}], [{index}, {bonus}]]}}"#,
            counts[0], counts[1], counts[2]
        );
    }
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn lambda_mixes_the_engines_score_into_the_targets() {
    let dir = tempfile::tempdir().unwrap();
    let scored = write_scored_trace(dir.path(), 4000);
    let out = dir.path().join("tuned.json");
    // λ = 0: every target is the true win probability, so the planted bonus comes back
    // almost exactly; the line says what the targets are.
    let text = stdout_of(
        texel()
            .args(["tune", "--traces"])
            .arg(&scored)
            .args([
                "--lambda",
                "0",
                "--k",
                "1",
                "--l2",
                "0",
                "--min-support",
                "0",
                "--out",
            ])
            .arg(&out),
    );
    assert!(
        text.contains("targets: 0 × result + 1 × score for the 4000 of 4000"),
        "{text}"
    );
    let bonus = values_of_file(&out)["BONUS"].as_f64().unwrap();
    assert!(
        (bonus - BONUS).abs() <= 2.0,
        "planted {BONUS}, tuned {bonus}"
    );
    // By default (auto) a trace where every position has a score mixes them in at 0.25
    // (K given: the start, every value 50, is far smaller than the planted values).
    let auto = stdout_of(texel().args(["error", "--k", "1", "--traces"]).arg(&scored));
    assert!(
        auto.contains("targets: 0.25 × result + 0.75 × score for the 4000 of 4000")
            && auto.contains("λ auto"),
        "{auto}"
    );
    // A trace without scores, a λ outside 0 to 1, EPD lines without scores: each refused,
    // saying why.
    let plain = write_trace(dir.path(), 100, None);
    let none = fails(
        texel()
            .args(["error", "--traces"])
            .arg(&plain)
            .args(["--lambda", "0.5"]),
    );
    assert!(none.contains("no position carries a score"), "{none}");
    let far = fails(
        texel()
            .args(["error", "--traces"])
            .arg(&plain)
            .args(["--lambda", "2"]),
    );
    assert!(far.contains("0 to 1"), "{far}");
    let bare = dir.path().join("bare.epd");
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    std::fs::write(&bare, format!("{start} [1.0]\n{start} [0.0]\n")).unwrap();
    let epd = fails(
        texel()
            .args(["error", "--epd"])
            .arg(&bare)
            .args(["--lambda", "0.5"]),
    );
    assert!(
        epd.contains("no position carries its engine's score")
            && epd.contains("--lambda 1 tunes on the results alone")
            && !epd.contains("--allow-bad"),
        "{epd}"
    );
}

#[test]
fn a_trace_whose_evaluations_saturate_is_tuned_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write_trace(dir.path(), 2000, None);
    // Values a hundred times the planted ones at a K given by hand: nothing refuses the
    // fit, but the evaluations sit at sure wins and losses.
    let huge = dir.path().join("huge.json");
    let values = r#"{"PIECE": [[10000, 10000], [30000, 30000], [50000, 50000]], "BONUS": 2500}"#;
    std::fs::write(&huge, values).unwrap();
    let printed = stdout_of(
        texel()
            .args(["error", "--k", "1", "--traces"])
            .arg(&trace)
            .arg("--params")
            .arg(&huge),
    );
    assert!(
        printed.contains("warning: ") && printed.contains("are the values centipawns?"),
        "{printed}"
    );
    let fine = stdout_of(texel().args(["error", "--k", "1", "--traces"]).arg(&trace));
    assert!(!fine.contains("warning: "), "{fine}");
    // Streamed, the same warning.
    let binary = dir.path().join("engine.bin");
    stdout_of(
        texel()
            .args(["traces", "convert", "--input"])
            .arg(&trace)
            .arg("--out")
            .arg(&binary),
    );
    let streamed = stdout_of(
        texel()
            .args(["tune", "--stream", "--passes", "1", "--k", "1", "--traces"])
            .arg(&binary)
            .arg("--params")
            .arg(&huge)
            .arg("--out")
            .arg(dir.path().join("streamed.json")),
    );
    assert!(
        streamed.contains("warning: ") && streamed.contains("are the values centipawns?"),
        "{streamed}"
    );
}

fn values_of_file(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_trace_is_tuned_and_its_values_written_in_the_headers_shapes() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write_trace(dir.path(), 100_000, None);
    let out = dir.path().join("tuned.json");
    let printed = stdout_of(
        texel()
            .args([
                "tune",
                "--k",
                "1",
                "--validate",
                "10",
                "--passes",
                "40",
                "--traces",
            ])
            .arg(&trace)
            .arg("--out")
            .arg(&out)
            .arg("--log")
            .arg(dir.path().join("passes.jsonl"))
            .arg("--report")
            .arg(dir.path().join("tune.html")),
    );
    assert!(
        error_on(&printed, "end:") < error_on(&printed, "start:"),
        "{printed}"
    );
    let tuned = values_of_file(&out);
    let pieces = tuned["PIECE"].as_array().unwrap();
    assert_eq!(pieces.len(), 3);
    for (pair, (mid, end)) in pieces.iter().zip(PIECES) {
        let [m, e] = [0, 1].map(|k| pair[k].as_f64().unwrap());
        // Drawn results: the values come back within a fifth.
        assert!(
            (m - mid).abs() < mid / 5.0 && (e - end).abs() < end / 5.0,
            "{tuned}"
        );
    }
    assert!(
        tuned["BONUS"].is_i64(),
        "a single plain value is a number: {tuned}"
    );
    assert!(
        !dir.path().join("tuned.json.ckpt").exists(),
        "the checkpoint is removed"
    );
    let page = std::fs::read_to_string(dir.path().join("tune.html")).unwrap();
    for figure in [
        "error-per-pass",
        "calibration",
        "largest-changes",
        "group-gains",
    ] {
        assert!(page.contains(&format!("id=\"{figure}\"")), "{figure}");
    }
    assert!(
        page.contains("material") && page.contains("PIECE[2].end"),
        "groups and names"
    );

    // The error of the tuned values, read back with --params.
    let again = stdout_of(
        texel()
            .args(["error", "--k", "1", "--traces"])
            .arg(&trace)
            .arg("--params")
            .arg(&out),
    );
    assert!(
        error_on(&again, "error:") < error_on(&printed, "start:"),
        "{again}"
    );

    // The same page again from the log and the tuned values.
    let page = dir.path().join("again.html");
    stdout_of(
        texel()
            .args(["report", "--k", "1", "--validate", "10", "--traces"])
            .arg(&trace)
            .arg("--tune-log")
            .arg(dir.path().join("passes.jsonl"))
            .arg("--tuned")
            .arg(&out)
            .arg("--out")
            .arg(&page),
    );
    let again = std::fs::read_to_string(&page).unwrap();
    assert!(again.contains("id=\"group-gains\"") && again.contains("PIECE[2].end"));
}

#[test]
fn an_endgame_scaled_above_one_is_tuned_as_the_engine_scales_it() {
    // Every other position's endgame part times 1.125 (Ethereal's scale for a large pawn
    // advantage): read as written, and the planted values come back.
    let dir = tempfile::tempdir().unwrap();
    let trace = planted_trace(dir.path().join("scaled.trace"), 60_000, None, false, 1.125);
    let out = dir.path().join("tuned.json");
    let printed = stdout_of(
        texel()
            .args(["tune", "--k", "1", "--l2", "0", "--traces"])
            .arg(&trace)
            .arg("--out")
            .arg(&out),
    );
    assert!(
        error_on(&printed, "end:") < error_on(&printed, "start:"),
        "{printed}"
    );
    let tuned = values_of_file(&out);
    for (pair, (mid, end)) in tuned["PIECE"].as_array().unwrap().iter().zip(PIECES) {
        let [m, e] = [0, 1].map(|k| pair[k].as_f64().unwrap());
        assert!(
            (m - mid).abs() < mid / 5.0 && (e - end).abs() < end / 5.0,
            "{tuned}"
        );
    }
}

#[test]
fn a_group_of_the_header_tunes_its_parameters_only() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write_trace(dir.path(), 4_000, None);
    let out = dir.path().join("bonus.json");
    stdout_of(
        texel()
            .args(["tune", "--k", "1", "--group", "extra", "--traces"])
            .arg(&trace)
            .arg("--out")
            .arg(&out),
    );
    let tuned = values_of_file(&out);
    assert_eq!(
        tuned["PIECE"],
        serde_json::json!([[50, 50], [50, 50], [50, 50]])
    );
    assert_ne!(tuned["BONUS"], serde_json::json!(50));
    let err = fails(
        texel()
            .args(["tune", "--group", "KnightV", "--traces"])
            .arg(&trace)
            .arg("--out")
            .arg(dir.path().join("x.json")),
    );
    assert!(err.contains("unknown group \"KnightV\""), "{err}");
}

#[test]
fn a_broken_trace_or_a_texel_only_option_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write_trace(dir.path(), 100, Some(7));
    let out = dir.path().join("never.json");
    let err = fails(
        texel()
            .args(["tune", "--traces"])
            .arg(&trace)
            .arg("--out")
            .arg(&out),
    );
    assert!(
        err.contains("engine.trace:7") && err.contains("coeffs"),
        "{err}"
    );
    assert!(!out.exists());
    let good = write_trace(dir.path(), 100, None);
    let err = fails(
        texel()
            .args(["tune", "--traces"])
            .arg(&good)
            .arg("--rust")
            .arg(dir.path().join("t.rs"))
            .arg("--out")
            .arg(&out),
    );
    assert!(err.contains("--rust works on texel's own table"), "{err}");
    let err = fails(
        texel()
            .args(["tune", "--epd", "x.epd", "--traces"])
            .arg(&good),
    );
    assert!(err.contains("cannot be used with"), "{err}");
    assert!(!out.exists());
}

/// Runs `python3` with `args` and `PYTHONPATH=site`, expecting success; returns stdout.
fn python(site: &Path, args: &[&std::ffi::OsStr], input: &str) -> String {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("python3")
        .args(args)
        .env("PYTHONPATH", site)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "python3 {args:?}: {err}");
    String::from_utf8(out.stdout).unwrap()
}

/// The sunfish adapter on an engine nobody here wrote (installed from PyPI into the test's
/// folder): its trace gives sunfish's own score of every position, texel tunes it, and
/// sunfish plays with the tuned tables.
#[test]
fn sunfish_is_traced_exactly_tuned_and_plays_with_the_tuned_tables() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    let pip = std::process::Command::new("python3")
        .args(["-m", "pip", "install", "-q", "--target"])
        .arg(&site)
        .arg("sunfish==2026.1")
        .output()
        .unwrap();
    assert!(
        pip.status.success(),
        "{}",
        String::from_utf8_lossy(&pip.stderr)
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let adapter = root.join("examples/sunfish/sunfish_trace.py");
    let epd = common::sample(dir.path(), "sample.epd", 3000);
    let checked = python(
        &site,
        &[adapter.as_os_str(), "--check".as_ref(), epd.as_os_str()],
        "",
    );
    assert!(
        checked.contains("3000 positions: the trace gives sunfish's own score"),
        "{checked}"
    );
    let trace = dir.path().join("sunfish.trace");
    let values = dir.path().as_os_str();
    let args = [
        adapter.as_os_str(),
        epd.as_os_str(),
        trace.as_os_str(),
        "--values".as_ref(),
        values,
    ];
    python(&site, &args, "");
    let tuned = dir.path().join("tuned.json");
    let printed = stdout_of(
        texel()
            .args(["tune", "--passes", "3", "--traces"])
            .arg(&trace)
            .arg("--params")
            .arg(dir.path().join("material.json"))
            .arg("--out")
            .arg(&tuned),
    );
    assert!(
        error_on(&printed, "end:") < error_on(&printed, "start:"),
        "{printed}"
    );
    let tables = values_of_file(&tuned);
    for role in "PNBRQK".chars() {
        assert_eq!(
            tables[format!("{role}_TABLE")].as_array().unwrap().len(),
            64
        );
    }
    let player = root.join("examples/sunfish/sunfish_with.py");
    let uci = "uci\nposition fen 4k3/8/8/8/8/8/4P3/4K2R w K - 0 1\ngo nodes 300\n";
    let answer = python(&site, &[player.as_os_str(), tuned.as_os_str()], uci);
    assert!(
        answer.lines().any(|l| l.starts_with("bestmove ")),
        "{answer}"
    );
}

/// Ctrl-C during a trace's tune leaves a checkpoint; resuming it ends where an unbroken run
/// ends.
#[test]
fn an_interrupted_trace_tune_resumes_to_the_same_values() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write_trace(dir.path(), 100_000, None);
    let tune = |out: &Path, extra: &[&str]| {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("texel"));
        c.args([
            "tune",
            "--k",
            "1",
            "--passes",
            "6",
            "--warm-start",
            "0",
            "--traces",
        ])
        .arg(&trace)
        .arg("--out")
        .arg(out)
        .args(extra);
        c
    };
    let straight = dir.path().join("straight.json");
    stdout_of(&mut tune(&straight, &[]).into());
    let out = dir.path().join("stopped.json");
    let (code, text) = common::interrupt_when(tune(&out, &[]), |l| l.contains("tuning "));
    assert_eq!(code, Some(130), "{text}");
    let ckpt = dir.path().join("stopped.json.ckpt");
    assert!(ckpt.exists() && !out.exists());
    // As a texel before `--lambda auto` wrote it (no --lambda: results alone), the
    // checkpoint resumes with --lambda 1 and is refused, saying so, without.
    let mut old: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&ckpt).unwrap()).unwrap();
    let fixed = old["settings"]["fixed"].as_object_mut().unwrap();
    assert_eq!(fixed.remove("--lambda"), Some("auto".into()));
    std::fs::write(&ckpt, old.to_string()).unwrap();
    let resume = ["--resume", ckpt.to_str().unwrap()];
    let refused = fails(&mut tune(&out, &resume).into());
    assert!(refused.contains("give --lambda 1"), "{refused}");
    let resume = [resume[0], resume[1], "--lambda", "1"];
    let resumed = stdout_of(&mut tune(&out, &resume).into());
    assert!(resumed.contains("resuming after "), "{resumed}");
    assert_eq!(values_of_file(&out), values_of_file(&straight));
}

/// Writes `n` positions of the planted evaluation with two candidate terms in the header:
/// `BONUS`, which the planted evaluation has, and `NOISE`, whose counts it ignores.
fn write_candidate_trace(dir: &Path, n: usize) -> PathBuf {
    let piece = |(m, e): (f64, f64)| format!("[{m}, {e}]");
    let defaults: Vec<String> = PIECES.iter().map(|&p| piece(p)).collect();
    let mut text = format!(
        r#"{{"format": "texel-trace", "version": 1, "params": [{{"name": "PIECE", "len": 3, "tapered": true, "default": [{}], "group": "material"}}, {{"name": "BONUS", "len": 1, "tapered": false, "default": 0, "group": "material", "candidate": true}}, {{"name": "NOISE", "len": 1, "tapered": false, "default": 0, "group": "material", "candidate": true}}]}}"#,
        defaults.join(", ")
    );
    text.push('\n');
    let mut rng = Rng(7);
    for _ in 0..n {
        let phase = rng.below(25) as f64 / 24.0;
        let counts: Vec<i64> = (0..3).map(|_| rng.below(3) - 1).collect();
        let (bonus, noise) = (rng.below(3) - 1, rng.below(3) - 1);
        let mut eval = BONUS * bonus as f64;
        for (c, (mid, end)) in counts.iter().zip(PIECES) {
            eval += *c as f64 * (phase * mid + (1.0 - phase) * end);
        }
        let win = 1.0 / (1.0 + 10f64.powf(-eval / 400.0));
        let result = if rng.unit() < win { 1 } else { 0 };
        let _ = writeln!(
            text,
            r#"{{"result": {result}, "phase": {phase}, "coeffs": [[0, {}], [1, {}], [2, {}], [3, {bonus}], [4, {noise}]]}}"#,
            counts[0], counts[1], counts[2]
        );
    }
    let path = dir.join("candidates.trace");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn the_lab_judges_an_outside_engines_candidates() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write_candidate_trace(dir.path(), 40_000);
    let (out, applied) = (dir.path().join("lab"), dir.path().join("applied.json"));
    let common = ["--validate", "20", "--passes", "6", "--k", "1"];
    let text = stdout_of(
        texel()
            .args(["lab", "--traces"])
            .arg(&trace)
            .args(common)
            .args(["--each-term", "--out"])
            .arg(&out)
            .arg("--apply")
            .arg(&applied),
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("lab.json")).unwrap()).unwrap();
    let verdict = |name: &str| {
        report["verdicts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["subject"] == name)
            .unwrap_or_else(|| panic!("{text}"))
            .clone()
    };
    let (bonus, noise) = (verdict("BONUS"), verdict("NOISE"));
    assert_eq!(bonus["kept"], true, "{bonus}");
    assert_eq!(noise["kept"], false, "{noise}");
    assert_eq!(bonus["partners"], serde_json::json!(["material"]));
    let tuned = bonus["values"]["BONUS"][0].as_i64().unwrap();
    assert!((tuned - 25).abs() <= 8, "the planted bonus is 25: {bonus}");
    // --apply: the kept candidate tuned with its group, the other at 0, in the header's shapes.
    let values = values_of_file(&applied);
    assert!(
        (values["BONUS"].as_i64().unwrap() - 25).abs() <= 8,
        "{values}"
    );
    assert_eq!(values["NOISE"], 0, "{values}");
    assert_eq!(values["PIECE"].as_array().unwrap().len(), 3);
    // compare --traces is the same lab: the same held and free errors.
    let compared = stdout_of(
        texel()
            .args(["compare", "--traces"])
            .arg(&trace)
            .args(common)
            .args(["--term", "BONUS"]),
    );
    let row = compared.lines().find(|l| l.starts_with("BONUS")).unwrap();
    let pair = |e: &serde_json::Value| {
        format!(
            "{:.8} / {:.8}",
            e["train"].as_f64().unwrap(),
            e["validation"].as_f64().unwrap()
        )
    };
    assert!(
        row.contains(&pair(&bonus["held"])) && row.contains(&pair(&bonus["free"])),
        "{row}\n{bonus}"
    );
    assert!(row.ends_with("keep"), "{row}");
    // --prove plays texel's engine, not the trace's.
    let err = fails(
        texel()
            .args(["lab", "--prove", "--traces"])
            .arg(&trace)
            .arg("--out")
            .arg(&out),
    );
    assert!(err.contains("--prove plays texel's own engine"), "{err}");
}

#[test]
fn a_candidate_in_no_group_is_judged_alone() {
    let dir = tempfile::tempdir().unwrap();
    let grouped = write_candidate_trace(dir.path(), 20_000);
    let text = std::fs::read_to_string(&grouped).unwrap();
    let bonus =
        r#""name": "BONUS", "len": 1, "tapered": false, "default": 0, "group": "material","#;
    assert!(text.contains(bonus));
    let alone = dir.path().join("alone.trace");
    let header = bonus.replace(r#" "group": "material","#, "");
    std::fs::write(&alone, text.replacen(bonus, &header, 1)).unwrap();
    let common = ["--validate", "20", "--passes", "6", "--k", "1"];
    // Held, nothing is tuned: its errors are the base's own.
    let data = ["--validate", "20", "--k", "1"];
    let base = stdout_of(texel().args(["error", "--traces"]).arg(&alone).args(data));
    let base = base.lines().find(|l| l.starts_with("error:")).unwrap();
    let number = |line: &str, after: &str| -> String {
        let rest = &line[line.find(after).unwrap() + after.len()..];
        rest.split_whitespace().next().unwrap().to_string()
    };
    let compared = stdout_of(
        texel()
            .args(["compare", "--traces"])
            .arg(&alone)
            .args(common)
            .args(["--term", "BONUS"]),
    );
    let row = compared.lines().find(|l| l.starts_with("BONUS")).unwrap();
    let held = format!(
        "{} / {}",
        number(base, "error "),
        number(base, "validation ")
    );
    assert!(
        row.contains(&held),
        "held is the base untuned: {row}\n{base}"
    );
    assert!(
        row.ends_with("keep"),
        "the planted bonus pays alone too: {row}"
    );
}

#[test]
fn a_base_e_k_is_read_as_k_over_ln_10() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write_trace(dir.path(), 3000, None);
    let tune = |out: &str, k: &[&str]| {
        let path = dir.path().join(out);
        let printed = stdout_of(
            texel()
                .args(["tune", "--passes", "3", "--traces"])
                .arg(&trace)
                .args(k)
                .arg("--out")
                .arg(&path),
        );
        (printed, std::fs::read_to_string(&path).unwrap())
    };
    let (base_e, e_values) = tune(
        "e.json",
        &["--k", &std::f64::consts::LN_10.to_string(), "--k-base", "e"],
    );
    let (base_10, ten_values) = tune("ten.json", &["--k", "1"]);
    assert!(base_e.contains("start: K 1.0000"), "{base_e}");
    assert_eq!(e_values, ten_values, "{base_e}\n{base_10}");
}

#[test]
fn a_zero_start_tunes_at_the_conventional_k_in_memory_and_streamed() {
    let dir = tempfile::tempdir().unwrap();
    let binary = binary_trace(dir.path(), 3000);
    let zero = dir.path().join("zero.json");
    std::fs::write(&zero, r#"{"PIECE": [[0, 0], [0, 0], [0, 0]], "BONUS": 0}"#).unwrap();
    let tune = |out: &str, extra: &[&str]| {
        stdout_of(
            texel()
                .args(["tune", "--traces"])
                .arg(&binary)
                .arg("--params")
                .arg(&zero)
                .args(extra)
                .arg("--out")
                .arg(dir.path().join(out)),
        )
    };
    // Tuned at a K given by hand, the values are only rescaled: the error ends the same.
    let given = error_on(&tune("given.json", &["--k", "1.3"]), "end:");
    for extra in [&[][..], &["--stream"]] {
        let printed = tune("conventional.json", extra);
        assert!(
            printed.contains("K = 1 by convention") && printed.contains("--k chooses another"),
            "{extra:?}: {printed}"
        );
        let error = error_on(&printed, "end:");
        assert!(
            (error - given).abs() <= 1e-3 * given,
            "{extra:?}: {error} against {given} at the given K"
        );
    }
}

#[test]
fn a_trace_no_k_can_be_fitted_to_is_refused_saying_why() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write_trace(dir.path(), 3000, None);
    let refused = |trace: &Path, params: Option<&Path>| {
        let mut c = texel();
        c.args(["tune", "--traces"]).arg(trace);
        if let Some(p) = params {
            c.arg("--params").arg(p);
        }
        fails(c.arg("--out").arg(dir.path().join("never.json")))
    };
    // Values a hundred times the planted ones: the evaluations saturate every sigmoid.
    let huge = dir.path().join("huge.json");
    let values = r#"{"PIECE": [[10000, 10000], [10000, 10000], [10000, 10000]], "BONUS": 5000}"#;
    std::fs::write(&huge, values).unwrap();
    let err = refused(&trace, Some(&huge));
    assert!(err.contains("K fits at") && err.contains("Give K"), "{err}");
    // Every result the same.
    let text = std::fs::read_to_string(&trace).unwrap();
    let wins = dir.path().join("wins.trace");
    std::fs::write(&wins, text.replace("\"result\": 0,", "\"result\": 1,")).unwrap();
    let err = refused(&wins, None);
    assert!(
        err.contains("every one of the 3000 labels") && err.contains("1-0"),
        "{err}"
    );
    assert!(
        !err.contains("--labels stm"),
        "no EPD advice for a trace: {err}"
    );
}

/// The Python block of `docs/trace-format.md`, as printed.
fn documented_writer() -> String {
    let doc = include_str!("../../../docs/trace-format.md");
    let section = doc.find("## A writer in").expect("the writer's section");
    let start = section + doc[section..].find("```python\n").expect("a Python block");
    let start = start + "```python\n".len();
    let writer = doc[start..start + doc[start..].find("```").unwrap()].to_string();
    // The heading and the engine guide count its lines as printed.
    let lines = writer.lines().count();
    assert!(doc.contains(&format!("## A writer in {lines} lines of Python")));
    let guide = include_str!("../../../docs/own-engine.md");
    assert!(guide.contains(&format!("a {lines}-line python-chess script")));
    writer
}

/// The Python writer printed in `docs/trace-format.md`, run as printed (python3 with the
/// `chess` package: `pip install chess`; `.ci/run` installs it) on what `texel import`
/// writes from the shipped games (`game N; ce N;` after each FEN): its trace reads back
/// whole with every position's game, and tunes from the engine's own values by its group.
#[test]
fn the_documented_python_writer_tunes_by_its_group_from_its_own_values() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    stdout_of(
        texel()
            .arg("import")
            .arg("--pgn")
            .arg(root.join("data/games.pgn.gz"))
            .arg("--out")
            .arg(dir.path().join("quiet.epd")),
    );
    let imported = std::fs::read_to_string(dir.path().join("quiet.epd")).unwrap();
    assert!(imported.contains(" game 1; ce "), "the importer's fields");
    std::fs::write(dir.path().join("writer.py"), documented_writer()).unwrap();
    let run = std::process::Command::new("python3")
        .arg("writer.py")
        .current_dir(dir.path())
        .output()
        .expect("python3 is needed");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let trace = dir.path().join("runs/my-engine.jsonl");
    let out = dir.path().join("tuned.json");
    let run = texel()
        .args(["tune", "--passes", "2", "--group", "pst", "--traces"])
        .arg(&trace)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&run.stdout).to_string() + &String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{text}");
    let k: f64 = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("fitted K = "))
        .unwrap_or_else(|| panic!("a fitted K: {text}"))
        .parse()
        .unwrap();
    assert!(
        k > 0.1,
        "K fitted to the engine's own values, not the grid floor: {k}"
    );
    assert!(
        !text.contains("carry no game id"),
        "every position knows its game: {text}"
    );
    let (start, end) = (error_on(&text, "start"), error_on(&text, "end"));
    assert!(end < 0.97 * start, "{start} -> {end}\n{text}");
    let pawn = &values_of_file(&out)["PAWN_PST"];
    assert!(
        pawn[20][0].as_i64().unwrap() > 30,
        "near the pawn's value: {pawn}"
    );
}

/// `--stream`: a binary trace tuned with nothing kept per position ends at the in-memory
/// tune's values, and after Ctrl-C resumes from its checkpoint to the same values; a text trace
/// and an option it does not have are refused by name.
#[test]
fn a_streamed_tune_ends_as_the_in_memory_one_and_resumes_after_ctrl_c() {
    let dir = tempfile::tempdir().unwrap();
    let text = write_trace(dir.path(), 100_000, None);
    let binary = dir.path().join("engine.bin");
    stdout_of(
        texel()
            .args(["traces", "convert", "--to", "binary", "--input"])
            .arg(&text)
            .arg("--out")
            .arg(&binary),
    );
    let tune = |trace: &Path, out: &Path, extra: &[&str]| {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("texel"));
        c.args(["tune", "--k", "1", "--l2", "0", "--traces"])
            .arg(trace)
            .arg("--out")
            .arg(out)
            .args(extra);
        c
    };
    let memory = dir.path().join("memory.json");
    let logs = [
        dir.path().join("memory.log"),
        dir.path().join("streamed.log"),
    ];
    let log = |i: usize| ["--log", logs[i].to_str().unwrap()];
    let in_memory = stdout_of(&mut tune(&binary, &memory, &log(0)).into());
    let straight = dir.path().join("straight.json");
    let streamed_flags = [&["--stream", "--chunk", "30000"][..], &log(1)].concat();
    let streamed = stdout_of(&mut tune(&binary, &straight, &streamed_flags).into());
    for said in [&in_memory, &streamed] {
        assert!(
            said.contains("the values written are the last pass's"),
            "nothing held out: the last pass's values, said: {said}"
        );
    }
    // One Newton and one polish: the same values, whether the positions are in memory or
    // read a chunk at a time.
    assert_eq!(
        values_of_file(&memory),
        values_of_file(&straight),
        "{in_memory}\n{streamed}"
    );
    // Both logs end with the same last line: what was held and what changed.
    let last = |i: usize| {
        let text = std::fs::read_to_string(&logs[i]).unwrap();
        text.lines().last().unwrap().to_string()
    };
    assert!(last(0).contains("\"changes\""), "{}", last(0));
    assert_eq!(last(1), last(0));
    assert!(!dir.path().join("straight.json.ckpt").exists());
    let out = dir.path().join("stopped.json");
    let stopped = tune(&binary, &out, &["--stream", "--chunk", "30000"]);
    let (code, said) = common::interrupt_when(stopped, |l| l.starts_with("pass 1:"));
    assert_eq!(code, Some(130), "{said}");
    let ckpt = dir.path().join("stopped.json.ckpt");
    assert!(ckpt.exists() && !out.exists(), "{said}");
    let again = fails(&mut tune(&binary, &out, &["--stream"]).into());
    assert!(again.contains("--resume"), "{again}");
    let resume = [
        "--stream",
        "--chunk",
        "30000",
        "--resume",
        ckpt.to_str().unwrap(),
    ];
    stdout_of(&mut tune(&binary, &out, &resume).into());
    assert_eq!(values_of_file(&out), values_of_file(&straight));
    let refused = fails(&mut tune(&text, &out, &["--stream", "--fresh"]).into());
    assert!(refused.contains("texel traces convert"), "{refused}");
    let refused = fails(&mut tune(&binary, &out, &["--stream", "--method", "cd"]).into());
    assert!(
        refused.contains("--method is not for --stream"),
        "{refused}"
    );
    let table = fails(texel().args(["tune", "--epd", "data/train.epd", "--stream"]));
    assert!(table.contains("--stream tunes a binary trace"), "{table}");
}

/// A streamed run stopped by Ctrl-C anywhere in its polish rounds resumes to the unbroken
/// run's values file, byte for byte: a round stopped part-way leaves its probes' memory as
/// it was.
#[test]
fn a_streamed_run_stopped_inside_its_polish_resumes_to_the_unbroken_values() {
    let dir = tempfile::tempdir().unwrap();
    let text = write_trace(dir.path(), 100_000, None);
    let binary = dir.path().join("engine.bin");
    let to_binary = ["traces", "convert", "--to", "binary", "--input"];
    stdout_of(texel().args(to_binary).arg(&text).arg("--out").arg(&binary));
    let tune = |out: &Path, extra: &[&str]| {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("texel"));
        c.args([
            "tune", "--k", "1", "--l2", "0", "--stream", "--chunk", "30000",
        ])
        .args(["--polish-tolerance", "0", "--traces"])
        .arg(&binary)
        .arg("--out")
        .arg(out)
        .args(extra);
        c
    };
    let straight = dir.path().join("straight.json");
    let unbroken = stdout_of(&mut tune(&straight, &[]).into());
    for delay in [0, 40, 120, 300, 700] {
        let out = dir.path().join(format!("stopped-{delay}.json"));
        let (code, said, _) = common::when_ready(
            tune(&out, &[]),
            false,
            |l| l.starts_with("pass 1:"),
            |child| {
                std::thread::sleep(std::time::Duration::from_millis(delay));
                common::send_sigint(child);
            },
        );
        if code == Some(130) {
            let ckpt = dir.path().join(format!("stopped-{delay}.json.ckpt"));
            stdout_of(&mut tune(&out, &["--resume", ckpt.to_str().unwrap()]).into());
        }
        assert_eq!(
            std::fs::read(&out).unwrap(),
            std::fs::read(&straight).unwrap(),
            "stopped {delay} ms into the polish: {said}\n{unbroken}"
        );
    }
}

/// A streamed default tune (its positions in games, so the path of pulls is walked) stopped
/// by Ctrl-C anywhere (reading, on the path, in Newton's iterations, in the polish) and
/// resumed ends at the unbroken run's values file, byte for byte; a stop while the
/// positions are first read keeps nothing, and the same command runs again.
#[test]
fn a_streamed_run_stopped_in_any_phase_resumes_to_the_unbroken_values() {
    let dir = tempfile::tempdir().unwrap();
    let (_, binary) = write_game_trace(dir.path(), 100_000);
    let tune = |out: &Path, extra: &[&str]| {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("texel"));
        c.args(["tune", "--k", "1", "--stream", "--chunk", "30000"])
            .args(["--min-support", "0", "--polish-tolerance", "0", "--traces"])
            .arg(&binary)
            .arg("--out")
            .arg(out)
            .args(extra);
        c
    };
    let (path, run) = ("stopped on the path of pulls", "interrupted after");
    let stops = [
        (("held out by game", 1), "stopped"),
        (("--l2 auto: pull", 1), path),
        (("--l2 auto: pull", 8), path),
        (("--l2 auto chose", 1), run),
        (("pass 1:", 1), run),
        (("pass 4:", 1), run),
    ];
    common::resumes_anywhere(dir.path(), &tune, &stops.map(common::StopAt::from));
}

#[test]
fn a_streamed_run_keeps_the_run_protocol_of_an_in_memory_one() {
    let dir = tempfile::tempdir().unwrap();
    let text = write_trace(dir.path(), 60_000, None);
    let binary = dir.path().join("engine.bin");
    let convert = |input: &Path, out: &Path| {
        stdout_of(
            texel()
                .args(["traces", "convert", "--input"])
                .arg(input)
                .arg("--out")
                .arg(out),
        )
    };
    convert(&text, &binary);
    let out = dir.path().join("tuned.json");
    let tune = |trace: &Path, extra: &[&str]| {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("texel"));
        c.args(["tune", "--k", "1", "--chunk", "8192", "--traces"])
            .arg(trace)
            .arg("--out")
            .arg(&out)
            .args(extra);
        c
    };
    // A second run on the same --out while the first runs is refused, naming the first's
    // process, never calling it stopped; the first ends as if alone.
    let mut second = String::new();
    let (code, said, _) = common::when_ready(
        tune(&binary, &["--stream"]),
        false,
        |l| l.starts_with("pass 1:"),
        |first| {
            second = fails(&mut tune(&binary, &["--stream", "--fresh"]).into());
            assert!(second.contains(&first.id().to_string()), "{second}");
        },
    );
    assert_eq!(code, Some(0), "{said}");
    assert!(!second.contains("stopped"), "{second}");
    assert!(said.contains("end: K 1.0000  error"), "{said}");
    let alone = values_of_file(&out);
    // Stopped, then resumed with a changed setting: refused, naming it.
    std::fs::remove_file(&out).unwrap();
    let (code, said) =
        common::interrupt_when(tune(&binary, &["--stream"]), |l| l.starts_with("pass 1:"));
    assert_eq!(code, Some(130), "{said}");
    let ckpt = dir.path().join("tuned.json.ckpt");
    let ckpt = ckpt.to_str().unwrap();
    for (flag, value) in [("--l2", "3"), ("--min-support", "7"), ("--validate", "10")] {
        let changed =
            fails(&mut tune(&binary, &["--stream", flag, value, "--resume", ckpt]).into());
        assert!(
            changed.contains(flag) && changed.contains("cannot resume"),
            "{changed}"
        );
    }
    // Resumed without --stream it goes on as the streamed run it is (so --chunk counts).
    let memory = fails(
        texel()
            .args(["tune", "--k", "1", "--traces"])
            .arg(&binary)
            .arg("--out")
            .arg(&out)
            .args(["--resume", ckpt]),
    );
    assert!(memory.contains("--chunk was 8192"), "{memory}");
    // A checkpoint of an in-memory run is not continued streamed: refused by its kind.
    let other_kind = dir.path().join("memory.ckpt");
    let text_of = std::fs::read_to_string(ckpt).unwrap();
    std::fs::write(
        &other_kind,
        text_of.replace(r#""kind":"streamed""#, r#""kind":"memory""#),
    )
    .unwrap();
    let kind = fails(
        &mut tune(
            &binary,
            &["--stream", "--resume", other_kind.to_str().unwrap()],
        )
        .into(),
    );
    assert!(
        kind.contains("its run was in memory, this one is streamed: leave out --stream"),
        "{kind}"
    );
    // ... or on another trace of as many positions: every result inverted, or only the
    // fixed endgame part every position adds moved.
    let original = std::fs::read_to_string(&text).unwrap();
    let inverted = (original.replace("\"result\": 1,", "\"result\": 2,"))
        .replace("\"result\": 0,", "\"result\": 1,")
        .replace("\"result\": 2,", "\"result\": 0,");
    let shifted = (original.replacen("\"version\": 1", "\"version\": 2", 1))
        .replace("\"result\": ", "\"offset_end\": 3, \"result\": ");
    for (name, changed) in [("inverted", inverted), ("offset-end", shifted)] {
        let changed_text = dir.path().join(format!("{name}.trace"));
        std::fs::write(&changed_text, changed).unwrap();
        let changed = dir.path().join(format!("{name}.bin"));
        convert(&changed_text, &changed);
        let other = fails(&mut tune(&changed, &["--stream", "--resume", ckpt]).into());
        assert!(other.contains("other data"), "{name}: {other}");
    }
    // The same settings go on to the values of the run alone.
    stdout_of(&mut tune(&binary, &["--stream", "--resume", ckpt]).into());
    assert_eq!(values_of_file(&out), alone);
    // A trace over the --memory budget streams by itself, saying so.
    let budget = stdout_of(
        texel()
            .args(["tune", "--k", "1", "--memory", "64K", "--traces"])
            .arg(&binary)
            .arg("--out")
            .arg(dir.path().join("budget.json")),
    );
    assert!(
        budget.contains("more than --memory 64K: streamed instead") && budget.contains("pass 1:"),
        "{budget}"
    );
    // --memory is a binary trace's budget: a text trace or texel's table, which load in
    // memory whatever it says, are refused rather than loaded as if it held.
    let text_budget = fails(
        texel()
            .args(["tune", "--memory", "64K", "--traces"])
            .arg(&text),
    );
    assert!(
        text_budget.contains("is a text trace") && text_budget.contains("texel traces convert"),
        "{text_budget}"
    );
    let command = text_budget
        .split('`')
        .nth(1)
        .expect("a command in backquotes");
    let words: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(words[0], "texel", "{text_budget}");
    texel().args(&words[1..]).assert().success();
    let epd = common::sample(dir.path(), "s.epd", 100);
    let table_budget = fails(texel().args(["tune", "--memory", "64K", "--epd"]).arg(&epd));
    assert!(
        table_budget.contains("--memory is the budget of a binary trace"),
        "{table_budget}"
    );
    // --passes caps a streamed run as an in-memory one; the help says it keeps a checkpoint.
    let capped = stdout_of(
        texel()
            .args(["tune", "--k", "1", "--stream", "--passes", "2", "--traces"])
            .arg(&binary)
            .arg("--out")
            .arg(dir.path().join("capped.json")),
    );
    assert!(
        capped.contains("finished after 2 passes") && capped.contains("pass limit reached"),
        "{capped}"
    );
    let help = stdout_of(texel().args(["tune", "--help"]));
    assert!(
        !help.contains("no checkpoint") && help.contains("--resume goes on"),
        "{help}"
    );
    // --chunk 0 is refused; the hint for a text trace is a command that runs.
    let zero = fails(
        texel()
            .args(["tune", "--stream", "--chunk", "0", "--traces"])
            .arg(&binary),
    );
    assert!(zero.contains("--chunk must be at least 1"), "{zero}");
    let hint = fails(&mut tune(&text, &["--stream", "--fresh"]).into());
    let command = hint.split('`').nth(1).expect("a command in backquotes");
    let words: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(words[0], "texel", "{hint}");
    texel()
        .current_dir(dir.path())
        .args(&words[1..])
        .assert()
        .success();
}

/// The trace of `write_trace` (left in `engine.trace`) with every ten positions one game
/// (`game` 0, 1, ...), as text (`games.trace`) and binary (`games.bin`).
fn write_game_trace(dir: &Path, n: usize) -> (PathBuf, PathBuf) {
    let plain = write_trace(dir, n, None);
    let text: String = (std::fs::read_to_string(plain).unwrap().lines().enumerate())
        .map(|(i, line)| match i {
            0 => format!("{line}\n"),
            i => format!("{{\"game\": {}, {}\n", (i - 1) / 10, &line[1..]),
        })
        .collect();
    let (games, binary) = (dir.join("games.trace"), dir.join("games.bin"));
    std::fs::write(&games, text).unwrap();
    common::to_binary(&games, &binary);
    (games, binary)
}

/// A trace with game ids started at the values that made its labels: whatever the tune fits
/// of its training games' noise scores the held-out games worse, so in memory and streamed
/// the start is given back, saying so.
#[test]
fn a_tune_that_only_fits_its_training_games_gives_its_start_back() {
    let dir = tempfile::tempdir().unwrap();
    let (_, binary) = write_game_trace(dir.path(), 400);
    let truth = dir.path().join("truth.json");
    let values = r#"{"PIECE": [[100, 120], [300, 280], [500, 550]], "BONUS": 25}"#;
    std::fs::write(&truth, values).unwrap();
    for stream in [None, Some("--stream")] {
        let out = dir.path().join("tuned.json");
        let said = stdout_of(
            texel()
                .args([
                    "tune",
                    "--k",
                    "1",
                    "--l2",
                    "0",
                    "--min-support",
                    "0",
                    "--traces",
                ])
                .arg(&binary)
                .arg("--params")
                .arg(&truth)
                .arg("--out")
                .arg(&out)
                .args(stream),
        );
        assert!(said.contains("held out by game: "), "{said}");
        assert!(said.contains("the start is kept"), "{stream:?}: {said}");
        assert_eq!(values_of_file(&out), values_of_file(&truth), "{said}");
    }
}

/// A trace whose positions carry their game (ten positions a game, 600 games), held out
/// with `--validate`: in memory and streamed, every game on one side, never on both.
#[test]
fn a_trace_with_game_ids_holds_out_whole_games() {
    let dir = tempfile::tempdir().unwrap();
    let (games, binary) = write_game_trace(dir.path(), 6_000);
    let plain = dir.path().join("engine.trace");
    let split_of = |said: &str| -> [u64; 4] {
        let line = said
            .lines()
            .find(|l| l.starts_with("held out by game: "))
            .unwrap_or_else(|| panic!("no split said: {said}"));
        let numbers: Vec<u64> = line
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|w| w.parse().ok())
            .collect();
        numbers.try_into().unwrap_or_else(|_| panic!("{line}"))
    };
    let mut splits = Vec::new();
    for (trace, extra) in [(&games, None), (&binary, None), (&binary, Some("--stream"))] {
        let out = dir.path().join("tuned.json");
        let said = stdout_of(
            texel()
                .args(["tune", "--k", "1", "--validate", "10", "--traces"])
                .arg(trace)
                .arg("--out")
                .arg(&out)
                .args(extra),
        );
        let [games_trained, trained, games_held, held] = split_of(&said);
        // 600 games of ten positions each: a game on both sides would count twice.
        assert_eq!(games_trained + games_held, 600, "{said}");
        assert_eq!((trained, held), (10 * games_trained, 10 * games_held));
        assert!((30..90).contains(&games_held), "{said}");
        splits.push([games_trained, games_held]);
    }
    assert!(splits.windows(2).all(|w| w[0] == w[1]), "{splits:?}");
    let tune = |trace: &Path, validate: &[&str]| {
        stdout_of(
            texel()
                .args(["tune", "--k", "1", "--traces"])
                .arg(trace)
                .args(validate)
                .arg("--out")
                .arg(dir.path().join("default.json")),
        )
    };
    // Without --validate, 10 % of the games are held out all the same.
    let said = tune(&games, &[]);
    assert_eq!(split_of(&said)[2], splits[0][1], "{said}");
    // The plain trace (no game ids) says what its held-out figures mean: positions held
    // out one by one with --validate, none by default.
    let said = tune(&plain, &["--validate", "10"]);
    assert!(said.contains("6000 positions carry no game id"), "{said}");
    assert!(said.contains("held out one by one"), "{said}");
    let said = tune(&plain, &[]);
    assert!(said.contains("nothing held out for validation"), "{said}");
    assert!(said.contains("none of them is held out"), "{said}");
}

/// The default pull is chosen on the held-out games by the path of pulls, the same in
/// memory and streamed (the same pulls solved, the same choice; each run's table then
/// scores the held-out games better than the start); a given `--l2` or a trace with nothing
/// held out walks no path.
#[test]
fn the_default_pull_is_chosen_on_held_out_games_in_memory_and_streamed_alike() {
    let dir = tempfile::tempdir().unwrap();
    let (_, binary) = write_game_trace(dir.path(), 6_000);
    let tune = |out: &str, extra: &[&str]| {
        let out = dir.path().join(out);
        let said = stdout_of(
            texel()
                .args(["tune", "--k", "1", "--traces"])
                .arg(&binary)
                .arg("--out")
                .arg(&out)
                .args(extra),
        );
        (said, values_of_file(&out))
    };
    let path_of = |said: &str| -> Vec<String> {
        (said.lines())
            .filter(|l| l.starts_with("--l2 auto"))
            .map(|l| l.split(" (").next().unwrap().to_string())
            .collect()
    };
    let (memory, in_memory) = tune("memory.json", &[]);
    let (streamed, in_stream) = tune("streamed.json", &["--stream"]);
    let walked = path_of(&memory);
    assert!(
        walked[0].starts_with("--l2 auto: pull 100000: training "),
        "{memory}"
    );
    assert!(
        walked.last().unwrap().starts_with("--l2 auto chose pull "),
        "{memory}"
    );
    assert_eq!(walked, path_of(&streamed), "{memory}\n{streamed}");
    let last_number = |said: &str, line: &str| -> f64 {
        let line = said.lines().find(|l| l.starts_with(line)).unwrap();
        let word = line.rsplit(' ').next().unwrap();
        word.trim_end_matches(')').parse().unwrap()
    };
    for said in [&memory, &streamed] {
        let start = last_number(said, "--l2 auto chose");
        assert!(last_number(said, "end:") < start, "{said}");
    }
    assert_ne!(in_memory, serde_json::Value::Null);
    assert_ne!(in_stream, serde_json::Value::Null);
    let (given, _) = tune("given.json", &["--l2", "3"]);
    assert!(path_of(&given).is_empty(), "{given}");
    let plain = dir.path().join("engine.trace");
    let said = stdout_of(
        texel()
            .args(["tune", "--k", "1", "--traces"])
            .arg(&plain)
            .arg("--out")
            .arg(dir.path().join("plain.json")),
    );
    assert!(said.contains("L2 pull 0.1: nothing is held out"), "{said}");
}

#[test]
fn a_time_limit_ends_a_run_as_a_finished_one_in_memory_and_streamed() {
    let dir = tempfile::tempdir().unwrap();
    let binary = binary_trace(dir.path(), 3000);
    let start = dir.path().join("start.json");
    std::fs::write(
        &start,
        r#"{"PIECE": [[50, 50], [50, 50], [50, 50]], "BONUS": 3}"#,
    )
    .unwrap();
    // A millisecond is gone before the positions are read: no pass begins, and the run ends
    // as a finished one, its values (the start's) written and no checkpoint left.
    for extra in [&[][..], &["--stream"]] {
        let out = dir.path().join("limited.json");
        let printed = stdout_of(
            texel()
                .args(["tune", "--k", "1", "--max-time", "1ms", "--traces"])
                .arg(&binary)
                .arg("--params")
                .arg(&start)
                .args(extra)
                .arg("--out")
                .arg(&out),
        );
        assert!(
            printed.contains("time limit reached (--max-time)"),
            "{extra:?}: {printed}"
        );
        let written: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let given: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&start).unwrap()).unwrap();
        assert_eq!(written["PIECE"], given["PIECE"], "{extra:?}: {printed}");
        assert!(!dir.path().join("limited.json.ckpt").exists(), "{extra:?}");
        std::fs::remove_file(&out).unwrap();
    }
    fails(
        texel()
            .args(["tune", "--max-time", "3d", "--traces"])
            .arg(&binary),
    );
}

/// A tune's log read for its polish: the training error where Newton ended, then each
/// polish round's error and moves.
fn polish_rounds(log: &Path) -> (f64, Vec<(f64, u64)>) {
    let text = std::fs::read_to_string(log).unwrap();
    let lines = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap());
    let passes: Vec<serde_json::Value> = lines.filter(|l| l["train_error"].is_number()).collect();
    let error = |p: &serde_json::Value| p["train_error"].as_f64().unwrap();
    let newton = passes.iter().rposition(|p| p["kind"] == "newton").unwrap();
    let rounds = passes[newton + 1..].iter();
    let rounds = rounds.map(|p| (error(p), p["moves"].as_u64().unwrap()));
    (error(&passes[newton]), rounds.collect())
}

/// A parameter whose name no values file can hold is blamed on its name, whatever its
/// default.
#[test]
fn a_bad_parameter_name_is_named_as_the_fault() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    for name in ["", " ", "A B", "\\u0007"] {
        let header = format!(
            r#"{{"format": "texel-trace", "version": 1, "params": [{{"name": "{name}", "len": 1, "tapered": false, "default": 15}}]}}"#
        );
        let position = r#"{"result": 1, "phase": 1, "coeffs": [[0, 1]]}"#;
        std::fs::write(&trace, format!("{header}\n{position}\n")).unwrap();
        let err = fails(texel().args(["tune", "--traces"]).arg(&trace));
        assert!(
            err.contains("t.jsonl:1: params[0].name") && !err.contains("default"),
            "{name:?}: {err}"
        );
    }
}

/// `--polish-tolerance` on texel's own table: its coordinate polish ends after the first
/// pass that lowers the error by less than the given share (1: the first pass), or with 0
/// when a pass moves nothing; without it, at its own 10⁻³.
#[test]
fn texel_s_table_polishes_to_the_tolerance_given() {
    let dir = tempfile::tempdir().unwrap();
    let epd = common::sample(dir.path(), "sample.epd", 3_000);
    let run = |extra: &[&str]| {
        let (out, log) = (dir.path().join("out.json"), dir.path().join("run.log"));
        let _ = std::fs::remove_file(&log);
        stdout_of(
            texel()
                .args(["tune", "--group", "KnightV", "--l2", "0", "--epd"])
                .arg(&epd)
                .args(extra)
                .arg("--out")
                .arg(&out)
                .arg("--log")
                .arg(&log),
        );
        polish_rounds(&log).1
    };
    let (all, one, own) = (
        run(&["--polish-tolerance", "0"]),
        run(&["--polish-tolerance", "1"]),
        run(&[]),
    );
    assert_eq!(one.len(), 1, "{one:?}");
    assert_eq!(all.last().unwrap().1, 0, "{all:?}");
    assert!(
        all.len() >= own.len() && own.len() >= one.len(),
        "{all:?} {own:?}"
    );
}

/// `--polish-tolerance`: the lattice polish ends after the first round that lowers the
/// error by less than the given share of it (every round before it lowered it by more), or
/// with 0 when a round moves nothing; in memory and streamed alike.
#[test]
fn the_lattice_polish_ends_at_its_tolerance_in_memory_and_streamed() {
    let dir = tempfile::tempdir().unwrap();
    let binary = binary_trace(dir.path(), 60_000);
    let run = |tolerance: &str, extra: &[&str]| {
        let (out, log) = (dir.path().join("out.json"), dir.path().join("run.log"));
        let _ = std::fs::remove_file(&log);
        let printed = stdout_of(
            texel()
                .args(["tune", "--k", "1", "--l2", "0", "--traces"])
                .arg(&binary)
                .args(["--polish-tolerance", tolerance])
                .args(extra)
                .arg("--out")
                .arg(&out)
                .arg("--log")
                .arg(&log),
        );
        (polish_rounds(&log), values_of_file(&out), printed)
    };
    let mut ends = Vec::new();
    for tolerance in ["0", "1e-5", "1"] {
        let ((newton, rounds), values, printed) = run(tolerance, &[]);
        let limit: f64 = tolerance.parse().unwrap();
        let errors: Vec<f64> = std::iter::once(newton)
            .chain(rounds.iter().map(|r| r.0))
            .collect();
        let falls: Vec<f64> = errors.windows(2).map(|w| (w[0] - w[1]) / w[0]).collect();
        let (last, before) = falls.split_last().expect("a round");
        assert!(
            before.iter().all(|&f| f >= limit),
            "{tolerance}: {rounds:?}"
        );
        let moved_nothing = rounds.last().unwrap().1 == 0;
        assert!(*last < limit || moved_nothing, "{tolerance}: {rounds:?}");
        assert!(limit > 0.0 || moved_nothing, "{tolerance}: {rounds:?}");
        let (streamed, streamed_values, said) = run(tolerance, &["--stream", "--chunk", "20000"]);
        assert_eq!(values, streamed_values, "{tolerance}: {printed}\n{said}");
        let moves = |r: &[(f64, u64)]| r.iter().map(|x| x.1).collect::<Vec<_>>();
        assert_eq!(moves(&rounds), moves(&streamed.1), "{tolerance}");
        ends.push(rounds.len());
    }
    assert!(
        ends[0] >= 2 && ends[2] == 1,
        "rounds to the end, at 1e-5, at 1: {ends:?}"
    );
}
