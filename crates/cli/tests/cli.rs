//! The real `texel` binary: output, JSON, exit codes and files.

mod common;

use assert_cmd::Command;
use common::{fails, interrupt_when, sample, stdout_of, texel};
use std::path::{Path, PathBuf};

const ITALIAN: &str = "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";

#[test]
fn eval_prints_a_table_with_the_score() {
    let text = stdout_of(texel().args(["eval", ITALIAN]));
    assert!(text.contains("PIECE_VALUE"));
    assert!(text.contains("[KnightV]"));
    assert!(text.contains("Phase: 24/24"));
    let pos = texel_eval::parse_fen(ITALIAN).unwrap();
    let score = texel_eval::evaluate(&pos, &texel_eval::Params::default());
    assert!(text.contains(&format!("({score} cp)")), "{text}");
}

#[test]
fn eval_accepts_the_fen_as_separate_words() {
    let words: Vec<&str> = ITALIAN.split(' ').collect();
    let text = stdout_of(texel().arg("eval").args(&words));
    assert!(text.contains("Score (white's view)"));
}

#[test]
fn eval_understands_startpos() {
    let v: serde_json::Value =
        serde_json::from_str(&stdout_of(texel().args(["eval", "--json", "startpos"]))).unwrap();
    assert_eq!(v["score"], 0);
    assert_eq!(v["phase"], 24);
}

#[test]
fn eval_json_has_score_phase_scale_and_terms() {
    let text = stdout_of(texel().args(["eval", "--json", ITALIAN]));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let pos = texel_eval::parse_fen(ITALIAN).unwrap();
    let score = texel_eval::evaluate(&pos, &texel_eval::Params::default());
    assert_eq!(v["score"], score);
    assert_eq!(v["phase"], 24);
    assert_eq!(v["scale"], 100);
    let terms = v["terms"].as_array().unwrap();
    let pair = terms.iter().find(|t| t["name"] == "PIECE_VALUE").unwrap();
    assert_eq!(pair["total"], serde_json::json!([0, 0]));
    let total: (i64, i64) = terms.iter().fold((0, 0), |acc, t| {
        (
            acc.0 + t["total"][0].as_i64().unwrap(),
            acc.1 + t["total"][1].as_i64().unwrap(),
        )
    });
    assert_eq!(serde_json::json!([total.0, total.1]), v["total"]);
}

#[test]
fn a_mirrored_position_scores_the_negation_in_the_cli() {
    let black = "rnbqk2r/pppp1ppp/5n2/2b1p3/2B1P3/2N5/PPPP1PPP/R1BQK1NR b KQkq - 4 4";
    let white = "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
    let score = |fen: &str| -> i64 {
        let v: serde_json::Value =
            serde_json::from_str(&stdout_of(texel().args(["eval", "--json", fen]))).unwrap();
        v["score"].as_i64().unwrap()
    };
    assert_eq!(score(black), -score(white));
}

#[test]
fn a_malformed_fen_is_one_clear_line_and_exit_2() {
    let out = texel()
        .args(["eval", "not/a/fen w - - 0 1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: invalid FEN"), "{err}");
    let out = texel()
        .args(["eval", "8/8/8/8/8/8/8/8 w - - 0 1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("illegal position"));
}

#[test]
fn params_lists_the_table_and_filters_by_group() {
    let all = stdout_of(texel().arg("params"));
    let terms = texel_eval::TermId::all().count();
    assert!(
        all.contains(&format!("{terms} terms")),
        "{}",
        all.lines().last().unwrap()
    );
    let json = stdout_of(texel().args(["params", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let candidates: Vec<&serde_json::Value> = v
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["candidate"] == true)
        .collect();
    assert_eq!(candidates.len(), 72, "candidate terms");
    assert!(candidates
        .iter()
        .all(|t| !t["doc"].as_str().unwrap().is_empty()));
    let knights = stdout_of(texel().args(["params", "--group", "KnightV"]));
    assert!(knights.contains("KNIGHT_OUTPOST"));
    assert!(!knights.contains("BISHOP_PAIR"));
    let json = stdout_of(texel().args(["params", "--group", "KingV", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let sub = v
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "KS_ATTACK_SUB")
        .unwrap();
    assert_eq!(sub["values"], serde_json::json!([280]));
    assert_eq!(sub["step"], 2);
    assert_eq!(sub["linear"], false);
    let out = texel()
        .args(["params", "--group", "NoSuchV"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("unknown group \"NoSuchV\""));
}

#[test]
fn export_of_the_defaults_is_the_checked_in_table() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let out = dir.join("table.rs");
    stdout_of(texel().args(["export", "--rust"]).arg(&out));
    let checked_in = include_str!("../../eval/src/table.rs");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), checked_in);
}

#[test]
fn export_writes_tuned_values_and_eval_reads_them() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let params = dir.join("tuned.json");
    std::fs::write(
        &params,
        r#"{"BISHOP_PAIR": [99, -7], "KS_ATTACK_SUB": 300}"#,
    )
    .unwrap();
    let rust = dir.join("table.rs");
    let json = dir.join("all.json");
    stdout_of(
        texel()
            .args(["export", "--params"])
            .arg(&params)
            .arg("--rust")
            .arg(&rust)
            .arg("--json")
            .arg(&json),
    );
    let text = std::fs::read_to_string(&rust).unwrap();
    assert!(text.contains("BISHOP_PAIR: S = S(99, -7);"));
    assert!(text.contains("KS_ATTACK_SUB: i32 = 300, step 2, nonlinear;"));
    let all: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(all["BISHOP_PAIR"], serde_json::json!([99, -7]));
    assert_eq!(
        all["KNIGHT_OUTPOST"],
        serde_json::json!([[30, 17], [16, 8]])
    );

    let fen = "4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1";
    let with = stdout_of(
        texel()
            .args(["eval", "--json", "--params"])
            .arg(&params)
            .arg(fen),
    );
    let v: serde_json::Value = serde_json::from_str(&with).unwrap();
    let pair = v["terms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "BISHOP_PAIR")
        .unwrap();
    assert_eq!(pair["white"], serde_json::json!([99, -7]));
}

#[test]
fn bad_parameter_files_are_refused_without_partial_output() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let cases = [
        (r#"{"NO_SUCH_TERM": 1}"#, "unknown term \"NO_SUCH_TERM\""),
        (
            r#"{"KNIGHT_OUTPOST": [1, 2]}"#,
            "KNIGHT_OUTPOST: expected an array of 2 [mid, end] pairs",
        ),
        (
            r#"{"BISHOP_PAIR": [1.5, 2]}"#,
            "BISHOP_PAIR: 1.5 is not a 32-bit integer",
        ),
        ("{ nope", "not valid JSON"),
    ];
    for (i, (content, message)) in cases.iter().enumerate() {
        let params = dir.join(format!("bad{i}.json"));
        std::fs::write(&params, content).unwrap();
        let rust = dir.join(format!("out{i}.rs"));
        let out = texel()
            .args(["export", "--params"])
            .arg(&params)
            .arg("--rust")
            .arg(&rust)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(message), "{err}");
        assert!(!rust.exists());
    }
    let missing = dir.join("missing.json");
    let out = texel()
        .args(["eval", "--params"])
        .arg(&missing)
        .arg(ITALIAN)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("missing.json"));
}

#[test]
fn export_to_an_unwritable_place_fails_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let target = dir.join("no-such-dir").join("table.rs");
    let out = texel()
        .args(["export", "--rust"])
        .arg(&target)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("cannot write"));
    assert!(
        std::fs::read_dir(&dir).unwrap().next().is_none(),
        "no stray files"
    );
}

#[test]
fn bench_eval_reports_rates() {
    let text = stdout_of(texel().args(["bench", "eval", "--rounds", "1"]));
    assert!(text.contains("evals/s"));
    assert!(text.contains("traces/s"));
    // Nothing to time is said, not printed as rates of NaN; a bad line is named by its
    // line in the file, blank lines counted.
    let tmp = tempfile::tempdir().unwrap();
    let fens = tmp.path().join("p.fen");
    std::fs::write(&fens, "\n\n").unwrap();
    let err = fails(texel().args(["bench", "eval", "--positions"]).arg(&fens));
    assert!(
        err.contains("p.fen: nothing to time") && !err.contains("NaN"),
        "{err}"
    );
    std::fs::write(&fens, "\n8/8/8/8/8/8/8/8 w - - 0 1\n").unwrap();
    let err = fails(texel().args(["bench", "eval", "--positions"]).arg(&fens));
    assert!(err.contains("p.fen:2:"), "{err}");
}

#[test]
fn a_bench_of_nothing_is_refused_by_name() {
    for target in [
        "traces", "newton", "adam", "stream", "tune", "records", "import",
    ] {
        let err = fails(texel().args(["bench", target, "--repeat", "0"]));
        assert!(
            err.contains("--repeat") && err.contains("at least 1") && !err.contains("panicked"),
            "{target}: {err}"
        );
    }
    let err = fails(texel().args(["bench", "eval", "--rounds", "0"]));
    assert!(
        err.contains("--rounds") && err.contains("at least 1"),
        "{err}"
    );
}

#[test]
fn a_draw_bound_that_keeps_no_draw_is_refused() {
    for (flag, value) in [("--draw-max", "-5"), ("--draw-max", "0")] {
        let err = fails(texel().args([
            "import",
            "--pgn",
            "data/games.pgn.gz",
            "--out",
            "never.epd",
            flag,
            value,
        ]));
        assert!(
            err.contains(flag) && err.contains(value),
            "{flag} {value}: {err}"
        );
    }
    assert!(!std::path::Path::new("never.epd").exists());
}

#[test]
fn an_input_form_given_as_the_output_s_is_pointed_to_label_format() {
    let err = fails(texel().args([
        "import",
        "--epd",
        "data/train.epd",
        "--out",
        "never.epd",
        "--format",
        "marlin",
    ]));
    assert!(err.contains("--label-format marlin"), "{err}");
    let err = fails(texel().args(["import", "--epd", "x", "--out", "y", "--format", "z"]));
    assert!(err.contains("c9 or bracket"), "{err}");
    assert!(!std::path::Path::new("never.epd").exists());
}

#[test]
fn bench_traces_reports_the_bytes_a_linear_and_a_composed_position_hold() {
    let text = stdout_of(texel().args(["bench", "traces", "--repeat", "1"]));
    let held = |kind: &str| -> usize {
        let line = (text.lines())
            .find(|l| l.starts_with(&format!("{kind} binary")) && l.contains("held"))
            .unwrap_or_else(|| panic!("no {kind} line in {text}"));
        let before = line.split(" bytes/position held").next().unwrap();
        before.rsplit(' ').next().unwrap().parse().unwrap()
    };
    let (linear, composed) = (held("linear"), held("composed"));
    // The composed positions hold their two danger sums beside the same coefficients.
    assert!(linear > 0 && composed > linear, "{text}");
}

#[test]
fn bench_import_reports_games_and_positions_per_second() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let epd = sample(&dir, "sample.epd", 200);
    let text = stdout_of(
        texel()
            .args([
                "bench",
                "import",
                "--pgn",
                "../import/tests/games.pgn",
                "--epd",
            ])
            .arg(&epd),
    );
    assert!(text.contains("pgn: 30 games"), "{text}");
    assert!(text.contains("games/s"), "{text}");
    assert!(text.contains("epd: 200 positions quiesced"), "{text}");
}

#[test]
fn tune_lowers_the_error_and_writes_both_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let epd = sample(&dir, "sample.epd", 1000);
    let (json, rust) = (dir.join("tuned.json"), dir.join("tuned.rs"));
    let text = stdout_of(
        texel()
            .args([
                "tune",
                "--passes",
                "1",
                "--group",
                "MaterialV",
                "--group",
                "KnightV",
                "--epd",
            ])
            .arg(&epd)
            .arg("--out")
            .arg(&json)
            .arg("--rust")
            .arg(&rust),
    );
    let number = |prefix: &str| -> f64 {
        let line = text
            .lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("{text}"));
        let after = line.split("error ").nth(1).unwrap();
        after.split([',', ' ']).next().unwrap().parse().unwrap()
    };
    assert!(number("pass 1:") < number("start:"), "{text}");
    assert!(text.contains("1000 training positions"));
    // Each of the largest changes shows its support, at most the positions loaded.
    let supports: Vec<usize> = text
        .lines()
        .filter_map(|l| l.split(", support ").nth(1))
        .map(|n| n.trim().parse().unwrap())
        .collect();
    assert!(
        !supports.is_empty() && supports.iter().all(|&n| n <= 1000),
        "{text}"
    );
    let tuned = texel_eval::Params::load(&json).unwrap();
    assert_ne!(tuned, texel_eval::Params::default());
    assert_eq!(
        std::fs::read_to_string(&rust).unwrap(),
        texel_eval::params::to_rust(&tuned)
    );
    let error = stdout_of(
        texel()
            .args(["error", "--k", "0.75", "--epd"])
            .arg(&epd)
            .arg("--params")
            .arg(&json),
    );
    assert!(error.contains("K 0.7500  error"), "{error}");
}

#[test]
fn tune_refuses_bad_input_with_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let missing = dir.join("missing.epd");
    let out = texel()
        .args(["tune", "--epd"])
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("missing.epd"));
    let junk = dir.join("junk.epd");
    std::fs::write(&junk, "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 [1.0]\nnonsense\n").unwrap();
    let out = texel()
        .args(["error", "--epd"])
        .arg(&junk)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("1 of 2 lines are bad") && err.contains("junk.epd:2"),
        "{err}"
    );
    let err = fails(
        texel()
            .args(["tune", "--group", "NoSuchV", "--epd"])
            .arg(&junk),
    );
    assert!(
        err.contains("unknown group \"NoSuchV\"") && err.contains("KnightV"),
        "{err}"
    );
}

#[test]
fn a_game_operand_that_is_no_game_number_is_a_bad_line_named_by_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let good = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 game 3; [1.0]";
    for bad in [
        "game -5;",
        "game abc;",
        "game 3.5;",
        "game;",
        "game 1; game 2;",
    ] {
        let epd = tmp.path().join("games.epd");
        let line = format!("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 {bad} [0.5]");
        std::fs::write(&epd, format!("{good}\n{line}\n")).unwrap();
        let err = fails(texel().args(["error", "--epd"]).arg(&epd));
        assert!(
            err.contains("1 of 2 lines are bad")
                && err.contains("games.epd:2")
                && err.contains("`game` opcode"),
            "{bad}: {err}"
        );
    }
}

#[test]
fn a_file_of_one_game_says_what_is_held_out_and_how_to_go_on() {
    use texel_data::{game_key, held_out};
    let tmp = tempfile::tempdir().unwrap();
    let held = |game: u64| held_out(game_key(0, game), 100);
    let kept = (0..).find(|&g| !held(g)).unwrap();
    let out = (0..).find(|&g| held(g)).unwrap();
    let one_game = |game: u64| {
        let lines: String = include_str!("../../../data/train.epd")
            .lines()
            .take(400)
            .map(|l| {
                let at = l.rfind(' ').unwrap();
                format!("{} game {game};{}\n", &l[..at], &l[at..])
            })
            .collect();
        let epd = tmp.path().join(format!("game{game}.epd"));
        std::fs::write(&epd, lines).unwrap();
        epd
    };
    // The one game trains: the run goes on and says nothing judges it.
    let said = stdout_of(texel().args(["error", "--epd"]).arg(one_game(kept)));
    assert!(
        said.contains("none of the 1 games fell in the held-out 10% share"),
        "{said}"
    );
    // The one game is held out: the run stops, saying why and what runs.
    let epd = one_game(out);
    let err = fails(texel().args(["error", "--epd"]).arg(&epd));
    assert!(
        err.contains("every one of the 1 games") && err.contains("--validate 0"),
        "{err}"
    );
    stdout_of(
        texel()
            .args(["error", "--validate", "0", "--epd"])
            .arg(&epd),
    );
}

/// Every command that writes a file refuses a live run's output, checkpoint or scratch
/// file, naming the run, and the run goes on to end as it would have.
#[test]
fn a_live_run_s_files_are_refused_to_every_writer() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let epd = sample(&dir, "sample.epd", 70_000);
    let out = dir.join("tuned.json");
    let checkpoint = dir.join("tuned.json.ckpt");
    let mut tune = std::process::Command::new(assert_cmd::cargo::cargo_bin("texel"));
    tune.args([
        "tune", "--passes", "3", "--group", "KnightV", "--group", "PassedV", "--epd",
    ])
    .arg(&epd)
    .arg("--out")
    .arg(&out);
    let mut refusals = Vec::new();
    let (code, text, _) = common::when_ready(
        tune,
        false,
        |l| l.contains("tuning "),
        |child| {
            let pid = child.id().to_string();
            for target in [&checkpoint, &out] {
                let err = fails(texel().args(["export", "--json"]).arg(target));
                refusals.push((err.contains(&format!("process {pid}")), err));
            }
            let err = fails(
                texel()
                    .args(["import", "--epd"])
                    .arg(&epd)
                    .arg("--out")
                    .arg(&out),
            );
            refusals.push((err.contains(&format!("process {pid}")), err));
            common::send_sigint(child);
        },
    );
    assert!(refusals.iter().all(|r| r.0), "{refusals:?}");
    assert_eq!(code, Some(130), "{text}");
    // The run's checkpoint is its own: it resumes.
    let mut resume = texel();
    resume
        .args([
            "tune", "--passes", "3", "--group", "KnightV", "--group", "PassedV",
        ])
        .arg("--epd")
        .arg(&epd)
        .arg("--out")
        .arg(&out)
        .arg("--resume")
        .arg(&checkpoint);
    assert!(stdout_of(&mut resume).contains("resuming after "));
}

/// `--max-time` shorter than the path of pulls: the path is cut, and the table written is
/// the best the path solved (or the start where it solved none better), never worse on the
/// held-out games than the start.
#[test]
fn a_tune_out_of_time_on_its_path_writes_the_best_table_it_has() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("t.json");
    let said = stdout_of(
        texel()
            .args(["tune", "--epd", "../../data/scored.epd", "--max-time", "4s"])
            .arg("--out")
            .arg(&out),
    );
    let validation = |label: &str| -> f64 {
        let line = (said.lines()).find(|l| l.starts_with(label)).unwrap();
        let at = line.find("validation ").unwrap() + "validation ".len();
        line[at..]
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let (start, end) = (validation("start:"), validation("end:"));
    assert!(end <= start, "{said}");
    assert!(said.contains("time limit reached (--max-time)"), "{said}");
    let pulls = said
        .lines()
        .filter(|l| l.starts_with("--l2 auto: pull"))
        .count();
    assert!(pulls < texel_tune::PULL_PATH.len(), "{said}");
    // A solved pull that scores the held-out games better than the start: its table.
    if let Some(chose) = said.lines().find(|l| l.starts_with("--l2 auto chose pull")) {
        let at = chose.find("held out ").unwrap() + "held out ".len();
        let best: f64 = chose[at..]
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let want = if best < start { best } else { start };
        assert!((end - want).abs() < 1e-8, "{said}");
    }
    assert!(!said.contains("nothing held out"), "{said}");
}

/// Ctrl-C on the path of pulls, before the run began: nothing tuned or written, exit 130,
/// the walk so far kept in the checkpoint the message names, which the resume walks on
/// from (every stop point: `resume_anywhere.rs`).
#[test]
fn ctrl_c_on_the_path_of_pulls_writes_nothing_and_keeps_the_walk() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = tmp.path().join("games.epd");
    let lines: String = include_str!("../../../data/scored.epd")
        .lines()
        .take(20_000)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&epd, lines).unwrap();
    let out = tmp.path().join("t.json");
    let tune = || {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("texel"));
        c.args([
            "tune", "--lambda", "1", "--group", "KnightV", "--group", "PassedV",
        ])
        .arg("--epd")
        .arg(&epd)
        .arg("--out")
        .arg(&out);
        c
    };
    let (code, said, err) =
        common::interrupt_when_in(tune(), false, |l| l.starts_with("--l2 auto: pull 100000"));
    assert_eq!(code, Some(130), "{said}\n{err}");
    assert!(err.contains("stopped on the path of pulls"), "{err}");
    let ckpt = tmp.path().join("t.json.ckpt");
    assert!(
        err.contains(&format!("--resume {}", ckpt.display())),
        "{err}"
    );
    assert!(!out.exists() && ckpt.exists());
    let mut resume = tune();
    resume.arg("--resume").arg(&ckpt);
    let resumed = stdout_of(&mut resume.into());
    assert!(
        resumed.contains("resuming the path of pulls after "),
        "{resumed}"
    );
    assert!(out.exists() && !ckpt.exists());
}

#[test]
fn ctrl_c_saves_a_checkpoint_that_resumes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let epd = sample(&dir, "sample.epd", 70_000);
    let out = dir.join("tuned.json");
    // A finished result from an earlier run: Ctrl-C must not overwrite it.
    std::fs::write(&out, "earlier result").unwrap();
    let tune = |extra: &[&str]| {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("texel"));
        c.args([
            "tune", "--passes", "3", "--group", "KnightV", "--group", "PassedV", "--epd",
        ])
        .arg(&epd)
        .arg("--out")
        .arg(&out)
        .args(extra);
        c
    };
    // Interrupt as soon as the descent has started (three passes leave time to arrive).
    let (code, text) = interrupt_when(tune(&[]), |l| l.contains("tuning "));
    assert_eq!(code, Some(130), "{text}");
    let checkpoint = dir.join("tuned.json.ckpt");
    assert!(
        text.contains("interrupted after") && text.contains("tuned.json.ckpt"),
        "{text}"
    );
    assert!(checkpoint.exists());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "earlier result");
    let ckpt = checkpoint.to_str().unwrap();
    let resumed = stdout_of(&mut tune(&["--resume", ckpt]).into());
    assert!(resumed.contains("resuming after "), "{resumed}");
    assert!(
        texel_eval::Params::load(&out).is_ok(),
        "the finished run writes --out"
    );
    assert!(
        !checkpoint.exists(),
        "a finished run removes its checkpoint"
    );
}

#[test]
fn compare_reports_the_drop_a_term_brings() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let epd = sample(&dir, "sample.epd", 3000);
    let text = stdout_of(
        texel()
            .args([
                "compare",
                "--passes",
                "2",
                "--term",
                "BISHOP_PAIR",
                "--without",
                "PAWN_DOUBLED",
                "--epd",
            ])
            .arg(&epd),
    );
    let row = |name: &str| -> Vec<f64> {
        let line = text
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{text}"));
        line.split_whitespace()
            .skip(2)
            .filter_map(|x| x.parse().ok())
            .collect()
    };
    // held, free, gain (training errors: no validation set), then the verdict.
    let pair = row("BISHOP_PAIR");
    assert_eq!(pair.len(), 3, "{text}");
    let (held, free, gain) = (pair[0], pair[1], pair[2]);
    assert!(held > 0.0 && free > 0.0, "{text}");
    assert!((gain - (held - free)).abs() < 2e-8);
    assert_eq!(row("-PAWN_DOUBLED").len(), 3, "{text}");
    // The K it judges with is the base's, every candidate term at 0: said.
    assert!(
        text.contains(": the base's, every candidate term at 0"),
        "{text}"
    );
    let out = texel()
        .args(["compare", "--term", "NOPE", "--epd"])
        .arg(&epd)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("unknown term \"NOPE\""));
}

#[test]
fn a_config_file_sets_what_flags_leave_open() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let epd = sample(&dir, "sample.epd", 800);
    let config = dir.join("run.json");
    let json = serde_json::json!({
        "epd": [epd], "passes": 1, "groups": ["KingV"], "steps": {"KS_ATTACK_SUB": 6},
        "out": dir.join("from-config.json"), "log": dir.join("log.jsonl"),
        "min_support": 0, "l2": 0.5, "no_constraints": true,
    });
    std::fs::write(&config, json.to_string()).unwrap();
    let text = stdout_of(
        texel()
            .args(["tune", "--config"])
            .arg(&config)
            .args(["--group", "KnightV"]),
    );
    // Every value of the group is tuned (support 0): as many as the table declares.
    let knights = (texel_eval::params::flat_params().iter())
        .filter(|p| p.term.info().group == texel_eval::params::Group::KnightV)
        .count();
    assert!(
        text.contains(&format!(
            "tuning {knights} variables (L2 pull 0.5, constraints off)"
        )),
        "the flag's group wins, the guards come from the config: {text}"
    );
    assert!(dir.join("from-config.json").exists() && dir.join("log.jsonl").exists());
    std::fs::write(&config, r#"{"epd": ["x.epd"], "pases": 3}"#).unwrap();
    let out = texel()
        .args(["tune", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("unknown field `pases`"));
    std::fs::write(&config, r#"{"epd": ["x.epd"], "steps": {"NOPE": 2}}"#).unwrap();
    let out = texel()
        .args(["tune", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("step for unknown term \"NOPE\"") && err.contains("run.json"),
        "{err}"
    );
}

#[test]
fn the_shipped_configs_parse() {
    for name in ["quick", "full"] {
        let path =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../configs/{name}.json"));
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert!(v["epd"].is_array(), "{name}");
    }
}

/// Runs `texel uci` with `input` and returns what it printed.
/// The engine's answer to `input`. Its input is kept open until every `go` has its
/// `bestmove`, as a GUI keeps it (the end of input stops a search).
fn uci(input: &str) -> String {
    use std::io::{BufRead, Write};
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("texel"))
        .arg("uci")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let searches = input.lines().filter(|l| l.starts_with("go ")).count();
    let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
    let (mut text, mut answered) = (String::new(), 0);
    while answered < searches {
        let mut line = String::new();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "ended early: {text}"
        );
        answered += usize::from(line.starts_with("bestmove "));
        text.push_str(&line);
    }
    drop(stdin);
    std::io::Read::read_to_string(&mut reader, &mut text).unwrap();
    assert!(child.wait().unwrap().success());
    text
}

#[test]
fn uci_conversation_with_the_real_binary() {
    let text =
        uci("uci\nisready\nucinewgame\nposition startpos moves e2e4 e7e5\ngo depth 5\nisready\n");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "id name texel");
    assert!(lines.contains(&"option name Hash type spin default 16 min 1 max 4096"));
    // Listed at the value of the table the engine plays (preset:tuned).
    let name = "KNIGHT_OUTPOST[1].end";
    let flat = texel_eval::params::flat_params();
    let slot = flat.iter().position(|p| p.name() == name).unwrap();
    let value = texel_eval::params::Preset::Tuned.params().flat()[slot];
    let (lo, hi) = texel_search::uci::option_range(value);
    let param = format!("option name {name} type spin default {value} min {lo} max {hi}");
    let param = param.as_str();
    assert!(
        !lines.contains(&param),
        "the parameters are listed only when asked"
    );
    assert!(lines.iter().filter(|l| l.starts_with("option ")).count() < 10);
    for asked in ["setoption name ListParams value true\nuci\n", "uci\n"] {
        let listed = if asked == "uci\n" {
            stdout_of(texel().args(["uci", "--list-params"]).write_stdin(asked))
        } else {
            uci(asked)
        };
        assert!(listed.lines().any(|l| l == param), "{asked}");
        assert!(listed.lines().filter(|l| l.starts_with("option ")).count() > 1100);
    }
    let uciok = lines.iter().position(|&l| l == "uciok").unwrap();
    assert_eq!(lines[uciok + 1], "readyok");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info depth 5 seldepth ") && l.contains(" multipv 1 score cp ")),
        "{text}"
    );
    let best = lines.iter().find(|l| l.starts_with("bestmove ")).unwrap();
    let m = best.trim_start_matches("bestmove ");
    let mut pos = shakmaty::Chess::default();
    for mv in ["e2e4", "e7e5"] {
        let u: shakmaty::uci::UciMove = mv.parse().unwrap();
        use shakmaty::Position;
        pos.play_unchecked(u.to_move(&pos).unwrap());
    }
    let u: shakmaty::uci::UciMove = m.parse().unwrap();
    assert!(u.to_move(&pos).is_ok(), "legal best move {m}");
}

#[test]
fn uci_finds_mate_stops_infinite_search_and_takes_options() {
    let text = uci("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1\ngo depth 3\n");
    assert!(
        text.contains("score mate 1") && text.contains("bestmove a1a8"),
        "{text}"
    );
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("texel"))
        .arg("uci")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "setoption name Hash value 8\nsetoption name BISHOP_PAIR.mid value 40\nsetoption name NOPE value 1").unwrap();
    writeln!(stdin, "position startpos\ngo infinite").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    writeln!(stdin, "stop\nquit").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("info string unknown option NOPE"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("bestmove ")), "{text}");
}

#[test]
fn uci_reports_bad_positions_and_goes_on() {
    let text = uci("position startpos moves e2e5\nposition fen not a fen\nisready\nquit\n");
    assert!(text.contains("info string illegal move e2e5"), "{text}");
    assert!(text.contains("info string invalid FEN"), "{text}");
    assert!(text.contains("readyok"));
}

#[test]
fn spsa_lists_the_uci_options_in_openbench_format() {
    let text = stdout_of(texel().args(["spsa", "--group", "MaterialV"]));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 12, "6 S terms of MaterialV: {text}");
    assert_eq!(lines[0], "BISHOP_PAIR.mid, int, 27, -27, 81, 5.4, 0.002");
    for l in lines {
        assert_eq!(l.split(", ").count(), 7);
    }
}

#[test]
fn match_plays_and_reports_elo() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let pgn = dir.join("games.pgn");
    let text = stdout_of(
        texel()
            .args([
                "match",
                "--engine",
                "name=one",
                "--engine",
                "name=two,nodes=800",
                "--each",
                "nodes=400",
            ])
            .args([
                "--games",
                "2",
                "--random-plies",
                "4",
                "--resign",
                "900,4",
                "--pgn",
            ])
            .arg(&pgn),
    );
    assert!(text.contains("one ") && text.contains("two"), "{text}");
    assert!(text.contains("terminations:"));
    assert_eq!(
        std::fs::read_to_string(&pgn)
            .unwrap()
            .matches("[Event ")
            .count(),
        2
    );
    let out = texel()
        .args([
            "match",
            "--engine",
            "name=x,nodes=10",
            "--engine",
            "name=y,params=/no/such.json,nodes=10",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("/no/such.json"));
    let out = texel()
        .args(["match", "--engine", "name=x", "--engine", "name=y"])
        .output()
        .unwrap();
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("has no time control"));
}

#[test]
fn import_pgn_writes_quiet_positions_the_tuner_loads() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let pgn = dir.join("games.pgn");
    std::fs::write(
        &pgn,
        "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 11. c4 c6 12. cxb5 axb5 13. Nc3 Bb7 1-0\n",
    )
    .unwrap();
    let out = dir.join("quiet.epd");
    let stats = dir.join("stats.json");
    let text = stdout_of(
        texel()
            .args(["import", "--pgn"])
            .arg(&pgn)
            .args(["--out"])
            .arg(&out)
            .args(["--win-min=-10000", "--format", "c9", "--stats-json"])
            .arg(&stats),
    );
    assert!(text.contains("wrote"), "{text}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(v["games"], 1);
    let kept = v["positions_kept"].as_u64().unwrap();
    assert!(kept >= 1);
    assert_eq!(
        std::fs::read_to_string(&out).unwrap().lines().count() as u64,
        kept
    );
    // One game's positions all carry its result: the tuner wants another result beside them.
    let draw = dir.join("draw.epd");
    std::fs::write(&draw, "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 [0.5]\n").unwrap();
    let error = stdout_of(
        texel()
            .args(["error", "--epd"])
            .arg(&out)
            .arg("--epd")
            .arg(&draw),
    );
    assert!(
        error.contains(&format!("{} training positions", kept + 1)),
        "{error}"
    );
    let out2 = texel()
        .args(["import", "--pgn"])
        .arg(dir.join("missing.pgn"))
        .arg("--out")
        .arg(dir.join("x.epd"))
        .output()
        .unwrap();
    assert_eq!(out2.status.code(), Some(2));
    assert!(!dir.join("x.epd").exists());
}

#[test]
fn import_averages_duplicate_labels_and_the_tuner_reads_them() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let epd = dir.join("in.epd");
    std::fs::write(
        &epd,
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 [1.0]\n\
         4k3/8/8/8/8/8/4P3/4K3 w - - 5 20 [0.5]\n\
         4k3/8/8/8/8/8/3P4/3K4 w - - 0 1 [0.0]\n",
    )
    .unwrap();
    let out = dir.join("avg.epd");
    let averaged = || {
        stdout_of(
            texel()
                .args(["import", "--duplicates", "average", "--epd"])
                .arg(&epd)
                .arg("--out")
                .arg(&out),
        );
        std::fs::read_to_string(&out).unwrap()
    };
    let text = averaged();
    assert!(text.lines().next().unwrap().ends_with("[0.75]"), "{text}");
    assert_eq!(text.lines().count(), 2);
    // Two positions fit no K worth the name: it is given.
    let error = stdout_of(texel().args(["error", "--k", "1", "--epd"]).arg(&out));
    assert!(error.contains("2 training positions"), "{error}");
    // One position in two games is averaged into no game (a split cannot hold out part of
    // its label); one game's twice keeps its game.
    std::fs::write(
        &epd,
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 game 1; [1.0]\n\
         4k3/8/8/8/8/8/4P3/4K3 w - - 5 20 game 2; [0.5]\n\
         4k3/8/8/8/8/8/3P4/3K4 w - - 0 1 game 3; [0.0]\n\
         4k3/8/8/8/8/8/3P4/3K4 w - - 4 9 game 3; [0.0]\n",
    )
    .unwrap();
    let text = averaged();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].ends_with("[0.75]") && !lines[0].contains("game"),
        "{text}"
    );
    assert!(lines[1].contains("game 3;"), "{text}");
    let refused = texel()
        .args([
            "import",
            "--duplicates",
            "average",
            "--format",
            "c9",
            "--epd",
        ])
        .arg(&epd)
        .arg("--out")
        .arg(dir.join("c9.epd"))
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("fractions"));
    assert!(!dir.join("c9.epd").exists());
}

#[test]
fn presets_are_served_by_name() {
    let text = stdout_of(texel().args(["eval", "--params", "preset:gnu87", ITALIAN]));
    assert!(text.contains("GNU_KNIGHT_CENTER"), "{text}");
}

#[test]
fn tune_guards_are_reported_logged_and_switchable() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let epd = sample(&dir, "sample.epd", 3000);
    let log = dir.join("log.jsonl");
    let tune = |extra: &[&str]| {
        let mut c = texel();
        c.args(["tune", "--passes", "1", "--group", "EndGameV", "--epd"])
            .arg(&epd)
            .arg("--out")
            .arg(dir.join("out.json"))
            .args(extra);
        c
    };
    let text = stdout_of(tune(&["--validate", "20", "--l2", "auto", "--log"]).arg(&log));
    assert!(
        text.contains("values at their start") && text.contains("--min-support 0"),
        "{text}"
    );
    assert!(text.contains("--l2 auto chose"), "{text}");
    assert!(text.contains("constraints kept"), "{text}");
    let last: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .last()
            .unwrap(),
    )
    .unwrap();
    let held = last["held"].as_array().unwrap();
    assert!(!held.is_empty(), "{last}");
    let changes = last["changes"].as_array().unwrap();
    assert!(
        changes.iter().all(|c| c["support"].as_u64().unwrap() >= 20),
        "{last}"
    );
    let text = stdout_of(&mut tune(&[
        "--min-support",
        "0",
        "--l2",
        "0",
        "--no-constraints",
    ]));
    assert!(!text.contains("values at their start"), "{text}");
    assert!(text.contains("(L2 pull 0, constraints off)"), "{text}");
    // Nothing held out (no game ids, no --validate): the default pull, said so.
    let text = stdout_of(&mut tune(&["--l2", "auto"]));
    assert!(text.contains("L2 pull 0.1: nothing is held out"), "{text}");
    assert!(!text.contains("--l2 auto: pull"), "{text}");
    let err = fails(&mut tune(&["--l2", "-1"]));
    assert!(err.contains("neither `auto` nor a number"), "{err}");
}

#[test]
fn params_shows_constraints_and_support_in_given_positions() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "sample.epd", 2000);
    let text = stdout_of(
        texel()
            .args(["params", "--group", "EndGameV", "--epd"])
            .arg(&epd),
    );
    assert!(
        text.contains("keeps: falling") && text.contains("support: ["),
        "{text}"
    );
    let json = stdout_of(
        texel()
            .args(["params", "--json", "--group", "PassedV", "--epd"])
            .arg(&epd),
    );
    let terms: serde_json::Value = serde_json::from_str(&json).unwrap();
    let rank = terms
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "PP_PASSED_RANK")
        .unwrap();
    assert_eq!(rank["constraints"], "rising");
    let support = rank["support"].as_array().unwrap();
    assert_eq!(support.len(), 12);
    assert!(support.iter().any(|s| s.as_u64().unwrap() > 0));
    assert!(support.iter().all(|s| s.as_u64().unwrap() <= 2000));
}

/// Gives a setting to `cmd` as the flag `flag` when `how` is "flag", otherwise as the
/// config file `config` (JSON, written in `dir`).
fn flag_or_config(cmd: &mut Command, how: &str, flag: &[&str], config: &str, dir: &Path) {
    if how == "flag" {
        cmd.args(flag);
    } else {
        let path = dir.join("c.json");
        std::fs::write(&path, config).unwrap();
        cmd.arg("--config").arg(&path);
    }
}

#[test]
fn tune_takes_a_method_from_the_flags_or_the_config() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "sample.epd", 2000);
    for (method, how) in [("adam", "flag"), ("adam+cd", "config")] {
        let log = tmp.path().join(format!("{how}.jsonl"));
        let mut cmd = texel();
        cmd.args([
            "tune",
            "--passes",
            "3",
            "--adam-epochs",
            "20",
            "--group",
            "KnightV",
        ])
        .arg("--epd")
        .arg(&epd)
        .arg("--log")
        .arg(&log)
        .arg("--out")
        .arg(tmp.path().join(format!("{how}.json")));
        let config = format!("{{\"method\": \"{method}\"}}");
        flag_or_config(&mut cmd, how, &["--method", method], &config, tmp.path());
        let text = stdout_of(&mut cmd);
        assert!(text.contains("pass 3:"), "{text}");
        let lines: Vec<serde_json::Value> = std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .filter(|l: &serde_json::Value| l.get("probes").is_some())
            .collect();
        let kinds: Vec<&str> = lines.iter().filter_map(|l| l["kind"].as_str()).collect();
        let probes: Vec<u64> = lines.iter().filter_map(|l| l["probes"].as_u64()).collect();
        // Passes of ten Adam epochs (20 epochs: two passes for adam+cd) probe only the curve
        // inputs of KnightV (mobility), the same each pass; coordinate descent walks every
        // value.
        let adam_passes = if method == "adam" { 3 } else { 2 };
        assert!(
            kinds[..adam_passes].iter().all(|&k| k == "adam"),
            "{kinds:?}"
        );
        assert!(
            probes[..adam_passes].iter().all(|&p| p == probes[0]),
            "{probes:?}"
        );
        if method == "adam+cd" {
            assert_eq!(kinds[2], "descent");
            assert!(probes[2] > probes[0], "{probes:?}");
        }
    }
    let err = fails(texel().args(["tune", "--method", "sgd", "--epd"]).arg(&epd));
    assert!(err.contains("no method \"sgd\""), "{err}");
}

#[test]
fn tune_warm_starts_on_a_sample_from_the_flag_or_the_config() {
    let tmp = tempfile::tempdir().unwrap();
    // 20,000 positions: four segments, the warm start tunes about one in two.
    let epd = sample(tmp.path(), "sample.epd", 20_000);
    for how in ["flag", "config"] {
        let log = tmp.path().join(format!("{how}.jsonl"));
        let mut cmd = texel();
        cmd.args([
            "tune", "--passes", "4", "--method", "cd", "--group", "KnightV",
        ])
        .arg("--epd")
        .arg(&epd)
        .arg("--log")
        .arg(&log)
        .arg("--out")
        .arg(tmp.path().join(format!("{how}.json")));
        let flag = ["--warm-start", "2"];
        flag_or_config(&mut cmd, how, &flag, "{\"warm_start\": 2}", tmp.path());
        let text = stdout_of(&mut cmd);
        assert!(
            text.contains("warm start: about 1/2 of the training positions first\n")
                && text.contains("pass 1:")
                && text.contains("(warm start"),
            "{text}"
        );
        let first: serde_json::Value = serde_json::from_str(
            std::fs::read_to_string(&log)
                .unwrap()
                .lines()
                .next()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(first["sample"], 2, "{first}");
    }
    // Below 500,000 training positions a run starts warm only when told to.
    let text = stdout_of(
        texel()
            .args(["tune", "--passes", "1", "--group", "KnightV", "--epd"])
            .arg(&epd)
            .arg("--out")
            .arg(tmp.path().join("plain.json")),
    );
    assert!(
        text.contains("pass 1:") && !text.contains("warm start"),
        "{text}"
    );
    let err = fails(
        texel()
            .args(["tune", "--warm-start", "4", "--method", "adam", "--epd"])
            .arg(&epd),
    );
    assert!(
        err.contains("--warm-start works with --method cd only"),
        "{err}"
    );
}
