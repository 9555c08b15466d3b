//! `--lambda auto` on positions that all carry a score: the path of λs, each judged on the
//! held-out positions' results, its choice said, kept by a checkpoint and taken up again by
//! a resume; a given λ walks no path.

mod common;

use common::{interrupt_when, stdout_of};
use std::path::{Path, PathBuf};

fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../data")
        .join(name)
}

fn tune(out: &Path, extra: &[&str]) -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_texel"));
    c.args(["tune", "--validate", "20", "--passes", "2", "--epd"])
        .arg(shipped("sample-scored.epd"))
        .arg("--out")
        .arg(out)
        .args(extra);
    c
}

#[test]
fn a_default_tune_on_scored_positions_walks_the_lambdas_on_held_out_results() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.json");
    let said = stdout_of(&mut tune(&out, &[]).into());
    assert!(said.contains("λ auto walks the path"), "{said}");
    // The λs solved coarse first (texel's curves and formulas held), in the path's order,
    // until one scores the held-out results worse than the best; then whole near the
    // coarse best.
    let coarse: Vec<(&str, f64)> = (said.lines())
        .filter_map(|l| l.strip_prefix("--lambda auto: λ "))
        .filter_map(|l| l.split_once(" (coarse, curves and formulas held): "))
        .map(|(lambda, rest)| (lambda, after_results(rest)))
        .collect();
    let walked: Vec<&str> = coarse.iter().map(|c| c.0).collect();
    assert!(["1", "0.75", "0.5", "0.25", "0"].starts_with(&walked) && walked.len() >= 2);
    // The first worse than the best before it ends the coarse walk (or the path's end).
    let worse_at = (1..coarse.len())
        .find(|&i| coarse[i].1 > (coarse[..i].iter().map(|c| c.1)).fold(f64::INFINITY, f64::min));
    let last = coarse.len() - 1;
    assert!(worse_at.map_or(last == 4, |at| at == last), "{said}");
    let chose = said
        .lines()
        .find(|l| l.starts_with("--lambda auto chose λ "))
        .unwrap_or_else(|| panic!("{said}"));
    // The choice is the λ of the lowest held-out error among those solved whole.
    let points: Vec<(String, f64)> = (said.lines())
        .filter(|l| l.starts_with("--lambda auto: λ ") && !l.contains("(coarse"))
        .map(|l| {
            let lambda = l
                .split(' ')
                .nth(3)
                .unwrap()
                .trim_end_matches(':')
                .to_string();
            (lambda, after_results(l))
        })
        .collect();
    let best = points.iter().min_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    assert!(chose.contains(&format!("chose λ {} of", best.0)), "{chose}");
    assert!(out.exists());

    let given = dir.path().join("given.json");
    let said = stdout_of(&mut tune(&given, &["--lambda", "0.5"]).into());
    assert!(
        !said.contains("--lambda auto"),
        "a given λ walks no path: {said}"
    );
    assert!(said.contains("targets: 0.5 × result"), "{said}");
}

/// The held-out results' error a λ line states.
fn after_results(line: &str) -> f64 {
    let rest = line.split("held-out results ").nth(1).unwrap();
    rest.split(' ').next().unwrap().parse().unwrap()
}

#[test]
fn a_run_stopped_after_the_lambda_path_resumes_to_the_unbroken_runs_values() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.json");
    stdout_of(&mut tune(&whole, &[]).into());
    let cut = dir.path().join("cut.json");
    let (code, text) = interrupt_when(tune(&cut, &[]), |l| l.starts_with("tuning "));
    assert_eq!(code, Some(130), "{text}");
    let checkpoint = dir.path().join("cut.json.ckpt");
    let kept = std::fs::read_to_string(&checkpoint).unwrap();
    assert!(
        kept.contains("\"lambda\""),
        "the checkpoint keeps the λ chosen: {kept}"
    );
    let ckpt = checkpoint.to_str().unwrap().to_string();
    let resumed = stdout_of(&mut tune(&cut, &["--resume", &ckpt]).into());
    assert!(
        !resumed.contains("--lambda auto:"),
        "no path walked again: {resumed}"
    );
    assert_eq!(
        std::fs::read_to_string(&whole).unwrap(),
        std::fs::read_to_string(&cut).unwrap()
    );
}
