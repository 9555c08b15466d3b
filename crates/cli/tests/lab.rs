//! `texel lab` through the real binary: reports, resume, thread-count determinism, apply.

mod common;

use common::{fails, interrupt_when, sample, stdout_of, texel};
use std::path::Path;

/// lab.json's verdicts without the seconds they took.
fn verdicts(dir: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("lab.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let list = v["verdicts"].as_array_mut().unwrap();
    for verdict in list.iter_mut() {
        verdict.as_object_mut().unwrap().remove("seconds");
    }
    list.clone()
}

fn lab(epd: &Path, out: &Path, extra: &[&str]) -> assert_cmd::Command {
    let mut c = texel();
    c.args(["lab", "--validate", "20", "--passes", "2", "--epd"])
        .arg(epd)
        .arg("--out")
        .arg(out)
        .args(extra);
    c
}

#[test]
fn reruns_skip_finished_verdicts_and_match_a_fresh_run() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "s.epd", 3000);
    let (resumed, fresh) = (tmp.path().join("resumed"), tmp.path().join("fresh"));
    let two = ["--family", "BackwardV", "--family", "IsolationV"];
    let three = [
        &two[..],
        &["--family", "ChainV", "--ablate", "PAWN_DOUBLED"],
    ]
    .concat();
    stdout_of(&mut lab(&epd, &resumed, &two));
    let err = fails(&mut lab(&epd, &resumed, &three));
    assert!(err.contains("--resume") && err.contains("--fresh"), "{err}");
    let text = stdout_of(&mut lab(
        &epd,
        &resumed,
        &[&three[..], &["--resume"]].concat(),
    ));
    assert_eq!(text.matches("done before").count(), 2, "{text}");
    stdout_of(&mut lab(&epd, &fresh, &three));
    assert_eq!(verdicts(&resumed), verdicts(&fresh));
    assert_eq!(verdicts(&fresh).len(), 4);
    let md = std::fs::read_to_string(fresh.join("lab.md")).unwrap();
    for name in ["BackwardV", "IsolationV", "ChainV", "-PAWN_DOUBLED"] {
        assert!(md.contains(&format!("`{name}`")), "{md}");
    }
    let log = std::fs::read_to_string(resumed.join("lab.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 4, "one line per verdict");
    let err = fails(&mut lab(&epd, &fresh, &["--family", "PawnV"]));
    assert!(err.contains("no candidate family \"PawnV\""), "{err}");
    let err = fails(&mut lab(&epd, &fresh, &["--term", "PAWN_DOUBLED"]));
    assert!(err.contains("not a candidate term"), "{err}");
}

#[test]
fn verdicts_do_not_depend_on_the_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "s.epd", 3000);
    let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
    let each = [
        "--family",
        "ShelterV",
        "--each-term",
        "--term",
        "PAWN_GROUP",
    ];
    stdout_of(&mut lab(
        &epd,
        &one,
        &[&each[..], &["--threads", "1"]].concat(),
    ));
    stdout_of(&mut lab(
        &epd,
        &two,
        &[&each[..], &["--threads", "2"]].concat(),
    ));
    assert_eq!(verdicts(&one), verdicts(&two));
    assert_eq!(
        verdicts(&one).len(),
        10,
        "nine ShelterV terms and PAWN_GROUP"
    );
}

#[test]
fn apply_keeps_the_winners_and_zeroes_the_rest() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "s.epd", 3000);
    let out = tmp.path().join("lab");
    let applied = tmp.path().join("applied.json");
    stdout_of(
        lab(
            &epd,
            &out,
            &["--family", "FixedV", "--family", "ChainV", "--apply"],
        )
        .arg(&applied),
    );
    let params = texel_eval::Params::load(&applied).unwrap();
    let report = verdicts(&out);
    for v in &report {
        let family = texel_eval::params::Group::ALL
            .iter()
            .find(|g| g.name() == v["subject"])
            .unwrap();
        let values: Vec<i32> = texel_eval::TermId::all()
            .filter(|t| t.info().group == *family)
            .flat_map(|t| params.term_values(t).to_vec())
            .collect();
        let all_zero = values.iter().all(|&x| x == 0);
        assert_eq!(v["kept"] == true, !all_zero, "{v}");
    }
    let established = texel_eval::table::BISHOP_PAIR;
    assert_eq!(
        params.get(established),
        texel_eval::Params::default().get(established)
    );
}

#[test]
fn ctrl_c_leaves_finished_verdicts_for_the_rerun() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "s.epd", 3000);
    let out = tmp.path().join("lab");
    let lab = |extra: &[&str]| {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("texel"));
        cmd.args(["lab", "--passes", "2", "--each-term", "--epd"])
            .arg(&epd)
            .arg("--out")
            .arg(&out)
            .args(extra);
        cmd
    };
    let (code, rest) = interrupt_when(lab(&[]), |l| l.starts_with("[1/"));
    assert_eq!(code, Some(130), "{rest}");
    let saved = std::fs::read_to_string(out.join("lab.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert!((1..72).contains(&saved), "{saved} verdicts saved");
    assert!(
        rest.contains("run the same command with --resume to go on"),
        "{rest}"
    );
    // The hint works as printed: the same command with --resume goes on from the saved
    // verdicts (stopped again at its next one).
    let (code, rest) = interrupt_when(lab(&["--resume"]), |l| l.starts_with('['));
    assert_eq!(code, Some(130), "{rest}");
    let now = std::fs::read_to_string(out.join("lab.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert!(
        now >= saved,
        "{now} verdicts after the resume, {saved} before"
    );
}

#[test]
fn a_subject_without_validation_positions_is_never_kept_and_says_why() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "s.epd", 300);
    let out = tmp.path().join("lab");
    let mut c = texel();
    c.args(["lab", "--validate", "0.01", "--family", "ChainV", "--epd"])
        .arg(&epd)
        .arg("--out")
        .arg(&out);
    let run = c.output().unwrap();
    assert!(run.status.success());
    let (text, err) = (
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr),
    );
    assert!(err.contains("no validation positions"), "{err}");
    assert!(!text.contains("NaN"), "{text}");
    let v = &verdicts(&out)[0];
    assert_eq!(v["kept"], false, "{v}");
    assert_eq!(
        v["why_not"],
        "no validation positions to measure the gain on"
    );
}

#[test]
fn prove_plays_every_kept_subject_against_the_base() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "s.epd", 3000);
    let out = tmp.path().join("lab");
    let openings = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/openings.epd");
    let args = [
        "--ablate",
        "PIECE_VALUE",
        "--family",
        "ChainV",
        "--prove",
        "--prove-games",
        "100",
        "--prove-nodes",
        "300",
        "--prove-sprt",
        "0,100",
        "--prove-openings",
        openings,
    ];
    let text = stdout_of(&mut lab(&epd, &out, &args));
    let report = verdicts(&out);
    assert!(report.iter().any(|v| v["kept"] == true), "{text}");
    for v in &report {
        assert_eq!(v["kept"] == true, v.get("proof").is_some(), "{v}");
    }
    // The material term earns its place, and its games say so: the base beats the table
    // without piece values.
    let material = report
        .iter()
        .find(|v| v["subject"] == "-PIECE_VALUE")
        .unwrap();
    let proof = &material["proof"];
    let games = ["wins", "draws", "losses"].map(|k| proof[k].as_u64().unwrap());
    assert!(
        games.iter().sum::<u64>() < 100 && games[0] > games[2],
        "{proof}"
    );
    assert_eq!(proof["sprt"], "H1", "{proof}");
    assert!(out.join("prove/minus-PIECE_VALUE.pgn").exists());
    let md = std::fs::read_to_string(out.join("lab.md")).unwrap();
    assert!(
        md.contains("| in games |") && md.contains("gains in games"),
        "{md}"
    );
    // A rerun keeps the finished games: the same proof, no new game.
    let again = stdout_of(&mut lab(&epd, &out, &[&args[..], &["--resume"]].concat()));
    let proofs = |list: &[serde_json::Value]| -> Vec<serde_json::Value> {
        list.iter().map(|v| v["proof"].clone()).collect()
    };
    assert_eq!(proofs(&verdicts(&out)), proofs(&report), "{again}");
    // --apply adopts the candidates whose games accepted them, and no other: after two
    // games no SPRT has decided, so a kept family stays at 0.
    let (out2, applied) = (tmp.path().join("lab2"), tmp.path().join("applied.json"));
    let short = args.map(|a| if a == "100" { "2" } else { a });
    let with_apply = [&short[..], &["--apply", applied.to_str().unwrap()]].concat();
    stdout_of(&mut lab(&epd, &out2, &with_apply));
    let chain = verdicts(&out2)
        .into_iter()
        .find(|v| v["subject"] == "ChainV")
        .unwrap();
    assert_eq!(
        (chain["kept"].clone(), chain["proof"]["sprt"].clone()),
        (true.into(), "undecided".into()),
        "{chain}"
    );
    let params = texel_eval::Params::load(&applied).unwrap();
    let chain_values: Vec<i32> = texel_eval::TermId::all()
        .filter(|t| t.info().group == texel_eval::params::Group::ChainV)
        .flat_map(|t| params.term_values(t).to_vec())
        .collect();
    assert!(chain_values.iter().all(|&x| x == 0), "{chain}");
}

#[test]
fn compare_gives_the_labs_numbers_and_verdict() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "s.epd", 3000);
    let out = tmp.path().join("lab");
    stdout_of(&mut lab(&epd, &out, &["--term", "PAWN_GROUP"]));
    let verdict = &verdicts(&out)[0];
    let text = stdout_of(
        texel()
            .args(["compare", "--validate", "20", "--passes", "2", "--epd"])
            .arg(&epd)
            .args(["--term", "PAWN_GROUP"]),
    );
    let row = text.lines().find(|l| l.starts_with("PAWN_GROUP")).unwrap();
    let pair = |e: &serde_json::Value| {
        format!(
            "{:.8} / {:.8}",
            e["train"].as_f64().unwrap(),
            e["validation"].as_f64().unwrap()
        )
    };
    assert!(row.contains(&pair(&verdict["held"])), "{row}\n{verdict}");
    assert!(row.contains(&pair(&verdict["free"])), "{row}\n{verdict}");
    let word = if verdict["kept"] == true {
        "keep"
    } else {
        "reject"
    };
    assert!(row.ends_with(word), "{row}\n{verdict}");
    // An established term is judged the same way, tuned with its own group.
    let text = stdout_of(
        texel()
            .args(["compare", "--passes", "2", "--epd"])
            .arg(&epd)
            .args(["--term", "BISHOP_PAIR", "--without", "BISHOP_PAIR"]),
    );
    assert_eq!(
        text.lines().filter(|l| l.contains("MaterialV")).count(),
        2,
        "{text}"
    );
}
