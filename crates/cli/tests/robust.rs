//! Wrong input and interruptions through the real binary: every mistake is named (file,
//! option, config), exits with code 2, and nothing the user had is lost.

mod common;

use common::{fails, sample, stdout_of as ok, texel};
use std::path::Path;

#[test]
fn unwritable_outputs_are_refused_before_the_data_is_loaded() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "s.epd", 200);
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    for flag in ["--out", "--rust", "--log", "--checkpoint", "--report"] {
        let err = fails(
            texel()
                .args(["tune", "--passes", "1", "--epd"])
                .arg(&epd)
                .arg(flag)
                .arg(file.join("x")),
        );
        assert!(err.contains("a-file"), "{flag}: {err}");
    }
    let out = texel()
        .args(["tune", "--passes", "1", "--epd"])
        .arg(&epd)
        .arg("--out")
        .arg(file.join("x"))
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("loaded"),
        "checked before loading"
    );
}

#[test]
fn without_out_the_result_goes_to_a_named_free_file() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "s.epd", 300);
    for expected in ["texel-tuned.json", "texel-tuned-2.json"] {
        let text = ok(texel()
            .current_dir(tmp.path())
            .args(["tune", "--passes", "1", "--group", "KnightV", "--epd"])
            .arg(&epd));
        assert!(
            text.contains(&format!(
                "wrote the tuned parameters to {expected} (no --out given)"
            )),
            "{text}"
        );
        assert!(tmp.path().join(expected).exists());
        assert!(
            text.contains("pass 1: ") && text.contains("s, total "),
            "{text}"
        );
    }
    let names: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names.iter().any(|n| n.ends_with(".ckpt")),
        "finished runs leave no checkpoint: {names:?}"
    );
}

#[test]
fn resume_refuses_other_data_or_another_selection() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "s.epd", 400);
    let ckpt = tmp.path().join("run.ckpt");
    let json = r#"{"format":"texel-checkpoint-1"}"#;
    std::fs::write(&ckpt, json).unwrap();
    let err = fails(
        texel()
            .args(["tune", "--epd"])
            .arg(&epd)
            .arg("--resume")
            .arg(&ckpt),
    );
    assert!(
        err.contains("run.ckpt") && err.contains("another version"),
        "{err}"
    );
    // A checkpoint of a KnightV run on `epd`, made as `texel tune` makes it.
    let (train, _, report) = texel_dataset::load(
        std::slice::from_ref(&epd),
        &texel_eval::Params::default(),
        &texel_dataset::LoadOptions::default(),
        &|_| {},
    )
    .unwrap();
    let vars = texel_dataset::select(&texel_tune::Selection {
        groups: vec!["KnightV".into()],
        ..Default::default()
    })
    .unwrap();
    let state = texel_tune::fresh(
        &train,
        report.fingerprint,
        texel_eval::Params::default(),
        1.2,
        vars,
        texel_solve::Guards::default(),
    );
    state.save(&ckpt).unwrap();
    let resume = |data: &Path, extra: &[&str]| {
        let mut c = texel();
        c.args(["tune", "--passes", "1", "--epd"])
            .arg(data)
            .arg("--out")
            .arg(tmp.path().join("out.json"))
            .arg("--resume")
            .arg(&ckpt)
            .args(["--min-support", "0"])
            .args(extra);
        c
    };
    // The same number of positions, one label changed: other data.
    let text = std::fs::read_to_string(&epd).unwrap();
    let first = text.lines().next().unwrap();
    assert!(first.ends_with("[0.0]"), "{first}");
    let flipped = first.replace("[0.0]", "[1.0]");
    let other = tmp.path().join("other.epd");
    std::fs::write(&other, text.replacen(first, &flipped, 1)).unwrap();
    let err = fails(&mut resume(&other, &["--group", "KnightV"]));
    assert!(
        err.contains("run.ckpt") && err.contains("other data"),
        "{err}"
    );
    let err = fails(&mut resume(&epd, &[]));
    assert!(
        err.contains("run.ckpt") && err.contains("another selection"),
        "{err}"
    );
    let text = ok(&mut resume(&epd, &["--group", "KnightV"]));
    assert!(text.contains("resuming after 0 passes"), "{text}");
}

#[test]
fn option_values_out_of_range_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "s.epd", 100);
    for (args, message) in [
        (&["--k", "-1"][..], "--k must be above 0"),
        (&["--validate", "-5"][..], "--validate takes a percentage"),
        (&["--validate", "100"][..], "--validate takes a percentage"),
        (&["--validate", "99"][..], "from 0 to 50"),
        (&["--k", "1e308"][..], "at most 100"),
        (&["--threads", "0"][..], "--threads must be at least 1"),
        (&["--passes", "0"][..], "--passes must be at least 1"),
        (
            &["--checkpoint-secs", "-3"][..],
            "--checkpoint-secs must be above 0",
        ),
        (&["--passes", "-2"][..], "invalid value '-2' for '--passes"),
    ] {
        let err = fails(texel().arg("tune").args(args).arg("--epd").arg(&epd));
        assert!(err.contains(message), "{args:?}: {err}");
    }
    let help = ok(texel().args(["tune", "--help"]));
    assert!(
        help.contains("KnightV") && help.contains("PassedV"),
        "--group lists the groups"
    );
    let out = fails(
        texel()
            .args(["tune", "--group", "NoSuchV", "--epd"])
            .arg(&epd),
    );
    assert!(out.contains("NoSuchV") && out.contains("KnightV"), "{out}");
}

#[test]
fn json_errors_name_the_file_once() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.json");
    std::fs::write(&bad, r#"{"BISHOP_PAIR": [1, 2"#).unwrap();
    let err = fails(
        texel()
            .args(["eval", "--params"])
            .arg(&bad)
            .arg("8/8/8/8/8/8/8/K1k5 w - - 0 1"),
    );
    assert_eq!(err.matches("bad.json").count(), 1, "{err}");
    assert_eq!(err.matches("EOF while parsing").count(), 1, "{err}");
    let missing = tmp.path().join("missing.epd");
    let err = fails(texel().args(["tune", "--epd"]).arg(&missing));
    assert_eq!(err.matches("No such file").count(), 1, "{err}");
    // A parameter file that is not there says how to make one.
    let err = fails(
        texel()
            .args(["eval", "--params"])
            .arg(tmp.path().join("base.json"))
            .arg("8/8/8/8/8/8/8/K1k5 w - - 0 1"),
    );
    assert!(
        err.contains("base.json: no such parameter file (`texel tune --out FILE`"),
        "{err}"
    );
    // A byte-order mark is fine.
    let with_bom = tmp.path().join("bom.json");
    std::fs::write(&with_bom, "\u{feff}{\"BISHOP_PAIR\": [1, 2]}").unwrap();
    ok(texel()
        .args(["eval", "--params"])
        .arg(&with_bom)
        .arg("8/8/8/8/8/8/8/K1k5 w - - 0 1"));
}

#[test]
fn config_paths_are_relative_to_the_config_and_errors_name_it() {
    let tmp = tempfile::tempdir().unwrap();
    let configs = tmp.path().join("configs");
    std::fs::create_dir(&configs).unwrap();
    sample(tmp.path(), "s.epd", 300);
    let config = configs.join("c.json");
    std::fs::write(
        &config,
        r#"{"epd": ["../s.epd"], "passes": 1, "groups": ["KnightV"], "out": "../runs/t.json"}"#,
    )
    .unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    ok(texel()
        .current_dir(elsewhere.path())
        .args(["tune", "--config"])
        .arg(&config));
    assert!(tmp.path().join("runs/t.json").exists());
    std::fs::write(&config, r#"{"epd": ["../nope.epd"]}"#).unwrap();
    let err = fails(texel().args(["tune", "--config"]).arg(&config));
    assert!(err.contains("c.json") && err.contains("nope.epd"), "{err}");
    std::fs::write(&config, r#"{"epd": ["../s.epd"], "groups": ["NoV"]}"#).unwrap();
    let err = fails(texel().args(["tune", "--config"]).arg(&config));
    assert!(err.contains("c.json") && err.contains("NoV"), "{err}");
    std::fs::write(&config, r#"{"passes": "a"}"#).unwrap();
    let err = fails(texel().args(["tune", "--config"]).arg(&config));
    assert!(
        err.contains("c.json") && err.matches("invalid type").count() == 1,
        "{err}"
    );
}

#[test]
fn tune_and_error_read_compressed_data() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let plain = sample(tmp.path(), "s.epd", 300);
    let text = std::fs::read(&plain).unwrap();
    let gz = tmp.path().join("s.epd.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(&text).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    let zst = tmp.path().join("s.epd.zst");
    std::fs::write(&zst, zstd::encode_all(&text[..], 1).unwrap()).unwrap();
    let error_of = |p: &Path| {
        let text = ok(texel().args(["error", "--k", "1.5", "--epd"]).arg(p));
        text.lines()
            .find(|l| l.starts_with("error:"))
            .unwrap()
            .to_string()
    };
    let want = error_of(&plain);
    assert_eq!(error_of(&gz), want);
    assert_eq!(error_of(&zst), want);
}

#[test]
fn an_import_that_keeps_nothing_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let pgn = tmp.path().join("games.pgn");
    std::fs::write(&pgn, "[Event \"x\"]\n\n1. e4 e5 1-0\n").unwrap();
    let out = tmp.path().join("out.epd");
    let err = fails(
        texel()
            .args(["import", "--epd"])
            .arg(&pgn)
            .arg("--out")
            .arg(&out),
    );
    assert!(
        err.contains("games.pgn") && err.contains("no position was kept"),
        "{err}"
    );
    assert!(err.contains("malformed FEN"), "reasons are counted: {err}");
    assert!(!out.exists());
    // More than 1 % of the lines bad (a label missing on every fourth): refused as a load
    // refuses them, nothing written; --allow-bad writes the good ones.
    let lines: String = include_str!("../../../data/train.epd")
        .lines()
        .take(200)
        .enumerate()
        .map(|(i, l)| match i % 4 {
            3 => format!("{}\n", &l[..l.rfind(' ').unwrap()]),
            _ => format!("{l}\n"),
        })
        .collect();
    let epd = tmp.path().join("some-unlabelled.epd");
    std::fs::write(&epd, lines).unwrap();
    let import = |extra: &[&str]| {
        let mut cmd = texel();
        cmd.args(["import", "--epd"])
            .arg(&epd)
            .arg("--out")
            .arg(&out)
            .args(extra);
        cmd
    };
    let err = fails(&mut import(&[]));
    assert!(
        err.contains("50 of 200 lines are bad") && err.contains("--allow-bad"),
        "{err}"
    );
    assert!(!out.exists());
    ok(&mut import(&["--allow-bad"]));
    assert!(out.exists());
}

#[test]
fn a_match_with_an_engine_that_does_not_start_plays_no_game() {
    let tmp = tempfile::tempdir().unwrap();
    let pgn = tmp.path().join("games.pgn");
    let crash = tmp.path().join("crash.sh");
    // A wrapper whose program is missing, as `env ... pypy3 sunfish.py` would be.
    std::fs::write(
        &crash,
        "#!/bin/sh\necho 'env: pypy9: No such file or directory' >&2\nexit 127\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&crash, std::fs::Permissions::from_mode(0o755)).unwrap();
    for cmd in [tmp.path().join("no-such-engine"), crash.clone()] {
        let err = fails(
            texel()
                .args(["match", "--engine", "name=texel", "--engine"])
                .arg(format!("name=broken,cmd={}", cmd.display()))
                .args(["--each", "nodes=100", "--games", "2", "--pgn"])
                .arg(&pgn),
        );
        assert!(
            err.contains("broken") && err.contains("does not start"),
            "{err}"
        );
        assert!(!pgn.exists() || std::fs::read_to_string(&pgn).unwrap().is_empty());
        // The engine's own words and its command are shown, not only that it ended.
        if cmd == crash {
            assert!(
                err.contains("pypy9: No such file")
                    && err.contains(&format!("{}", crash.display())),
                "{err}"
            );
        }
    }
}

/// Runs texel with `args` and its stdout closed from the start (as `| head` after it exited).
fn run_with_stdout_closed<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> std::process::Output {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("texel"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

#[test]
fn a_closed_stdout_stops_a_tune_as_ctrl_c_and_ends_other_commands_quietly() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "s.epd", 300);
    let out = tmp.path().join("tuned.json");
    let args = ["tune", "--passes", "2", "--group", "KnightV", "--epd"];
    let paths = [epd.as_os_str(), "--out".as_ref(), out.as_os_str()];
    let run = run_with_stdout_closed(&[args.map(std::ffi::OsStr::new).as_slice(), &paths].concat());
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(130), "stopped as on Ctrl-C: {err}");
    assert!(
        err.contains("stdout is closed") && !err.contains("panicked"),
        "{err}"
    );
    let ckpt = tmp.path().join("tuned.json.ckpt");
    assert!(
        ckpt.exists() && !out.exists(),
        "the state is in the checkpoint"
    );
    let text = ok(texel()
        .args(args)
        .arg(&epd)
        .arg("--out")
        .arg(&out)
        .arg("--resume")
        .arg(&ckpt));
    assert!(text.contains("wrote the tuned parameters"), "{text}");
    for args in [&["bench", "eval", "--rounds", "1"][..], &["params"][..]] {
        let run = run_with_stdout_closed(args);
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(
            run.status.success() && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_parameter_file_naming_nothing_is_noted_not_silently_taken() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty.json");
    std::fs::write(&empty, "{}\n").unwrap();
    let out = texel()
        .args(["eval", "--params"])
        .arg(&empty)
        .arg("startpos")
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("names no parameter"), "{err}");
}

#[test]
fn side_to_move_labels_read_as_whites_are_refused_naming_the_flag() {
    let tmp = tempfile::tempdir().unwrap();
    let white = sample(tmp.path(), "white.epd", 3000);
    // The same positions labelled from the side to move's view, as some shared sets are.
    let stm: String = std::fs::read_to_string(&white)
        .unwrap()
        .lines()
        .map(|line| {
            let (body, label) = line.rsplit_once(' ').unwrap();
            let result: f64 = label.trim_matches(['[', ']']).parse().unwrap();
            let black = body.split(' ').nth(1) == Some("b");
            format!("{body} [{}]\n", if black { 1.0 - result } else { result })
        })
        .collect();
    let path = tmp.path().join("stm.epd");
    std::fs::write(&path, stm).unwrap();
    let out = tmp.path().join("t.json");
    let err = fails(
        texel()
            .args(["tune", "--passes", "1", "--epd"])
            .arg(&path)
            .arg("--out")
            .arg(&out),
    );
    assert!(
        err.contains("the results do not follow the evaluations")
            && err.contains("--labels stm")
            && err.contains("--k"),
        "{err}"
    );
    assert!(!out.exists());
    let read =
        |labels: &[&str], epd: &Path| ok(texel().args(["error", "--epd"]).arg(epd).args(labels));
    // With the flag the positions are those of the white-labelled file, to the digit.
    let fitted = |printed: String| {
        let line = printed.lines().find(|l| l.starts_with("fitted K")).unwrap();
        line.to_string()
    };
    assert_eq!(
        fitted(read(&["--stm-labels"], &path)),
        fitted(read(&[], &white))
    );
    // `--labels stm` is the same reading, `--labels white` the default's; `--format` names
    // the form as `--label-format` does.
    assert_eq!(
        fitted(read(&["--labels", "stm"], &path)),
        fitted(read(&[], &white))
    );
    assert_eq!(
        fitted(read(&["--labels", "stm", "--format", "bracket"], &path)),
        fitted(read(&[], &white))
    );
    assert_eq!(
        fitted(read(&["--labels", "white"], &white)),
        fitted(read(&[], &white))
    );
    let both = fails(
        texel()
            .args(["error", "--stm-labels", "--labels", "stm", "--epd"])
            .arg(&path),
    );
    assert!(both.contains("cannot be used with"), "{both}");
}

#[test]
fn random_plies_past_any_opening_are_refused() {
    for command in ["match", "selfplay"] {
        let err = fails(texel().args([command, "--random-plies", "1000"]));
        assert!(err.contains("1000 is not in 0..=100"), "{command}: {err}");
    }
}

#[test]
fn centipawns_in_brackets_are_refused_not_half_read_as_results() {
    // The shipped positions with their labels replaced by centipawn scores in brackets
    // (`FEN [-120]`), a few of them 0 or 1: every command that reads EPD refuses the file,
    // even when told to go on past bad lines, and never keeps the [0] and [1] as results.
    let dir = tempfile::tempdir().unwrap();
    let positions = std::fs::read_to_string(sample(dir.path(), "results.epd", 400)).unwrap();
    let scored: String = (positions.lines().enumerate())
        .map(|(i, line)| {
            let fen = line.rsplit_once(' ').unwrap().0;
            let cp = [-120, 0, 1, 250, 35][i % 5];
            format!("{fen} [{cp}]\n")
        })
        .collect();
    let file = dir.path().join("scores.epd");
    std::fs::write(&file, scored).unwrap();
    let out = dir.path().join("tuned.json").display().to_string();
    let tune = ["tune", "--passes", "1", "--out", out.as_str()];
    for command in [&tune[..], &["error"][..]] {
        let err = fails(
            texel()
                .args(command)
                .args(["--allow-bad", "--epd"])
                .arg(&file),
        );
        assert!(
            err.contains("240 labels are evaluation scores")
                && err.contains("160 labels 0 and 1 are centipawns too"),
            "{command:?}: {err}"
        );
    }
}

#[test]
fn clockwork_s_letter_labels_read_as_the_same_results() {
    // The shipped positions written as Clockwork writes them (`FEN; w`, `; d`, `; b`): the
    // same positions and results, so the same error to the last digit.
    let dir = tempfile::tempdir().unwrap();
    let results = sample(dir.path(), "results.epd", 1000);
    let text = std::fs::read_to_string(&results).unwrap();
    let letters: String = (text.lines())
        .map(|line| {
            let (fen, label) = line.rsplit_once(' ').unwrap();
            let letter = match label {
                "[1.0]" => 'w',
                "[0.5]" => 'd',
                "[0.0]" => 'b',
                other => panic!("a shipped label {other}"),
            };
            format!("{fen}; {letter}\n")
        })
        .collect();
    let clockwork = dir.path().join("clockwork.epd");
    std::fs::write(&clockwork, letters).unwrap();
    let error_of = |file: &Path| ok(texel().args(["error", "--k", "1", "--epd"]).arg(file));
    let (want, got) = (error_of(&results), error_of(&clockwork));
    assert!(
        got.contains("1000 lines: 1000 training positions, 0 skipped"),
        "{got}"
    );
    let error = |printed: &str| {
        printed
            .lines()
            .find(|l| l.contains("error"))
            .map(str::to_owned)
    };
    assert_eq!(error(&got), error(&want), "{want}\n{got}");
}

#[test]
fn stash_s_result_and_score_lines_read_as_the_same_results_with_their_scores() {
    // The shipped positions written as Stash writes them (`FEN 1.0 35`: the result, then a
    // score in centipawns, both White's): results alone give the shipped file's error to the
    // last digit, and every line's score is read (λ auto then mixes them in).
    let dir = tempfile::tempdir().unwrap();
    let results = sample(dir.path(), "results.epd", 1000);
    let text = std::fs::read_to_string(&results).unwrap();
    let stash: String = (text.lines().enumerate())
        .map(|(i, line)| {
            let (fen, label) = line.rsplit_once(' ').unwrap();
            let step = 10 * (i % 7) as i32;
            let (result, score) = match label {
                "[1.0]" => ("1.0", 150 + step),
                "[0.5]" => ("0.5", step - 30),
                "[0.0]" => ("0.0", -150 - step),
                other => panic!("a shipped label {other}"),
            };
            format!("{fen} {result} {score}\n")
        })
        .collect();
    let file = dir.path().join("stash.epd");
    std::fs::write(&file, stash).unwrap();
    let error_of = |file: &Path, lambda: &str| {
        let printed = ok(texel()
            .args(["error", "--k", "1", "--lambda", lambda, "--epd"])
            .arg(file));
        let line = printed.lines().find(|l| l.starts_with("error:"));
        (printed.clone(), line.map(str::to_owned))
    };
    let ((_, want), (got_printed, got)) = (error_of(&results, "1"), error_of(&file, "1"));
    assert!(
        got_printed.contains("1000 lines: 1000 training positions, 0 skipped"),
        "{got_printed}"
    );
    assert_eq!(got, want, "{got_printed}");
    let (mixed, mixed_error) = error_of(&file, "auto");
    assert!(
        mixed.contains("0.25 × result + 0.75 × score for the 1000 of 1000 positions"),
        "{mixed}"
    );
    assert_ne!(mixed_error, want, "{mixed}");
}

#[test]
fn a_label_format_given_reads_every_line_in_it() {
    // The shipped lines read in the form they have; in a form they do not have, every line
    // is bad and the file is refused; an unknown form is refused naming the forms there are.
    let dir = tempfile::tempdir().unwrap();
    let results = sample(dir.path(), "results.epd", 1000);
    let error_of = |file: &Path, form: &str| {
        texel()
            .args([
                "error",
                "--k",
                "1",
                "--lambda",
                "1",
                "--label-format",
                form,
                "--epd",
            ])
            .arg(file)
            .output()
            .unwrap()
    };
    let read = error_of(&results, "bracket");
    let printed = String::from_utf8_lossy(&read.stdout);
    assert!(read.status.success(), "{printed}");
    assert!(
        printed.contains("1000 training positions, 0 skipped"),
        "{printed}"
    );
    let refused = error_of(&results, "c9");
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success() && said.contains("1000"), "{said}");
    let unknown = texel()
        .args(["error", "--label-format", "stash", "--epd"])
        .arg(&results)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&unknown.stderr);
    assert!(said.contains("result-score"), "{said}");
}
