//! Runs: checkpoints resume exactly, validation patience keeps the best, the log has a line
//! per pass, and bad checkpoints are refused.

mod common;

use common::data;
use std::sync::atomic::{AtomicBool, Ordering};
use texel_dataset::{select, Dataset};
use texel_eval::Params;
use texel_solve::error::{fit_k, samples};
use texel_solve::Variable;
use texel_tune::{fresh, run, Checkpoint, Event, Mismatch, RunEnd, RunOptions, Selection};

/// The guards of every run here: the checkpoint must carry them through a resume.
const GUARDS: texel_solve::Guards = texel_solve::Guards {
    l2: 0.1,
    constraints: true,
};

fn vars() -> Vec<texel_solve::Variable> {
    let groups = ["KnightV", "PassedV", "PawnV"]
        .iter()
        .map(|g| g.to_string())
        .collect();
    select(&Selection {
        groups,
        ..Default::default()
    })
    .unwrap()
}

fn options(dir: &std::path::Path, name: &str) -> RunOptions {
    RunOptions {
        passes: 2,
        patience: None,
        log: Some(dir.join(format!("{name}.jsonl"))),
        checkpoint: Some(dir.join(format!("{name}.ckpt"))),
        checkpoint_secs: 1e9,
        // The runs here are about coordinate descent's passes, warm start and resume.
        method: texel_solve::Method::Cd,
        ..Default::default()
    }
}

#[test]
fn an_interrupted_run_resumes_to_exactly_the_same_values() {
    let dir = tempfile::tempdir().unwrap();
    let (mut train, mut validation, data_id) = data(1500, &Params::default(), 0);
    let k = fit_k(&samples(&train));
    let start = fresh(&train, data_id, Params::default(), k, vars(), GUARDS);
    let straight = run(
        &mut train,
        &mut validation,
        start,
        &options(dir.path(), "straight"),
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(straight.passes, 2);

    // Stop twice: once in the walk of pass 1, once in the moves of pass 2.
    let opts = options(dir.path(), "stopped");
    let path = opts.checkpoint.clone().unwrap();
    let (mut train, mut validation, data_id) = data(1500, &Params::default(), 0);
    let start = fresh(&train, data_id, Params::default(), k, vars(), GUARDS);
    let mut calls = 0;
    let halt = AtomicBool::new(false);
    let first = run(&mut train, &mut validation, start, &opts, &halt, &mut |e| {
        calls += matches!(e, Event::Progress(texel_tune::Progress { .. })) as usize;
        if calls == 40 {
            halt.store(true, Ordering::SeqCst);
        }
    })
    .unwrap();
    assert_eq!((first.end, first.passes), (RunEnd::Interrupted, 0));
    let checkpoint = Checkpoint::<Params>::read(&path).unwrap();
    assert_eq!(checkpoint.descent.cursor.walked, 40);

    let (mut train, mut validation, _) = data(1500, &checkpoint.descent.params, 0);
    let halt = AtomicBool::new(false);
    let mut stop_in_moves = |e: Event<Dataset>| match e {
        Event::Progress(texel_tune::Progress {
            pass: 2,
            walked,
            vars,
            moves,
            ..
        }) if walked == vars && moves >= 3 => halt.store(true, Ordering::SeqCst),
        _ => {}
    };
    let second = run(
        &mut train,
        &mut validation,
        checkpoint,
        &opts,
        &halt,
        &mut stop_in_moves,
    )
    .unwrap();
    assert_eq!((second.end, second.passes), (RunEnd::Interrupted, 1));
    let checkpoint = Checkpoint::<Params>::read(&path).unwrap();
    assert!(checkpoint.descent.cursor.active && checkpoint.descent.cursor.moves >= 3);

    let (mut train, mut validation, _) = data(1500, &checkpoint.descent.params, 0);
    let last = run(
        &mut train,
        &mut validation,
        checkpoint,
        &opts,
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(last.passes, 2);
    assert_eq!(last.params, straight.params);
    let log = std::fs::read_to_string(opts.log.unwrap()).unwrap();
    assert_eq!(log.lines().count(), 2, "one line per finished pass: {log}");
    let line: serde_json::Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    assert_eq!(line["pass"], 2);
    assert!(line["train_error"].as_f64().unwrap() > 0.0);
}

#[test]
fn validation_keeps_the_best_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let (mut train, mut validation, data_id) = data(1500, &Params::default(), 300);
    assert!(validation.len() > 300);
    let k = fit_k(&samples(&train));
    let start = fresh(&train, data_id, Params::default(), k, vars(), GUARDS);
    let mut records = Vec::new();
    let opts = RunOptions {
        passes: 6,
        patience: Some(1),
        ..options(dir.path(), "validate")
    };
    let result = run(
        &mut train,
        &mut validation,
        start,
        &opts,
        &AtomicBool::new(false),
        &mut |e| {
            if let Event::Pass(r, _) = e {
                records.push(r.clone());
            }
        },
    )
    .unwrap();
    let errors: Vec<f64> = records
        .iter()
        .map(|r| r.validation_error.unwrap())
        .collect();
    let best = errors.iter().cloned().fold(f64::INFINITY, f64::min);
    if result.end == RunEnd::Patience {
        assert!(errors.last().unwrap() >= &best);
    }
    validation.rescore(&result.params);
    let kept = texel_solve::error::mean_error(&validation, k);
    assert_eq!(kept, best, "the kept parameters are the best on validation");
}

#[test]
fn a_start_no_pass_beats_on_validation_is_what_the_run_gives_back() {
    let dir = tempfile::tempdir().unwrap();
    let (mut train, mut validation, data_id) = data(1500, &Params::default(), 300);
    let k = fit_k(&samples(&train));
    // Values tuned on the validation positions themselves: tuning on the training ones
    // can only take them away from what validation likes.
    let opts = RunOptions {
        passes: 4,
        ..options(dir.path(), "on-validation")
    };
    let (_, mut empty, _) = data(10, &Params::default(), 0);
    assert!(empty.is_empty());
    let start = fresh(&validation, data_id, Params::default(), k, vars(), GUARDS);
    let never = AtomicBool::new(false);
    let liked = run(
        &mut validation,
        &mut empty,
        start,
        &opts,
        &never,
        &mut |_| {},
    )
    .unwrap()
    .params;
    train.rescore(&liked);
    validation.rescore(&liked);
    let start_error = texel_solve::error::mean_error(&validation, k);
    let start = fresh(&train, data_id, liked.clone(), k, vars(), GUARDS);
    let mut errors = Vec::new();
    let opts = RunOptions {
        passes: 3,
        patience: Some(2),
        ..options(dir.path(), "from-liked")
    };
    let result = run(
        &mut train,
        &mut validation,
        start,
        &opts,
        &AtomicBool::new(false),
        &mut |e| {
            if let Event::Pass(r, _) = e {
                errors.push(r.validation_error.unwrap());
            }
        },
    )
    .unwrap();
    assert!(
        errors.iter().all(|&e| e > start_error),
        "the set-up: every pass is worse on validation ({start_error} then {errors:?})"
    );
    assert!(result.params == liked, "the run gives back its start");
}

#[test]
fn unusable_checkpoints_are_refused_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (train, _, data_id) = data(300, &Params::default(), 0);
    let path = dir.path().join("refuse.ckpt");
    let good = fresh(&train, data_id, Params::default(), 1.0, vars(), GUARDS);
    good.save(&path).unwrap();
    assert_eq!(Checkpoint::<Params>::read(&path).unwrap(), good);

    std::fs::write(&path, "{ not json").unwrap();
    assert!(Checkpoint::<Params>::read(&path)
        .unwrap_err()
        .to_string()
        .contains("corrupt"));
    let mut other_table = good.to_json();
    other_table["table"] = serde_json::json!("0000000000000000");
    std::fs::write(&path, other_table.to_string()).unwrap();
    assert!(Checkpoint::<Params>::read(&path)
        .unwrap_err()
        .to_string()
        .contains("different parameter table"));
    let mut old = good.to_json();
    old["format"] = serde_json::json!("texel-checkpoint-2");
    std::fs::write(&path, old.to_string()).unwrap();
    let err = Checkpoint::<Params>::read(&path).unwrap_err().to_string();
    assert!(
        err.contains("another version of texel (texel-checkpoint-2)"),
        "{err}"
    );
    let mut truncated = good.to_json();
    truncated.as_object_mut().unwrap().remove("gains");
    std::fs::write(&path, truncated.to_string()).unwrap();
    assert!(Checkpoint::<Params>::read(&path)
        .unwrap_err()
        .to_string()
        .contains("missing field `gains`"));

    let (mut bigger, mut validation, bigger_id) = data(400, &Params::default(), 0);
    assert_ne!(bigger_id, data_id);
    let vars = vars();
    let values = Params::default().flat().len();
    let fits = |data, values, vars: &[Variable]| good.continues((300, data), values, vars);
    assert_eq!(fits(bigger_id, values, &vars), Err(Mismatch::Data));
    let (then, now) = (vars.len(), vars.len() - 1);
    let other = fits(data_id, values, &vars[1..]);
    assert_eq!(other, Err(Mismatch::Selection { then, now }));
    assert!(other.unwrap_err().to_string().contains("another selection"));
    let fewer = fits(data_id, values - 1, &vars);
    assert_eq!(
        fewer,
        Err(Mismatch::Values {
            then: values,
            now: values - 1
        })
    );
    let more = good.continues((400, data_id), values, &vars);
    assert_eq!(
        more,
        Err(Mismatch::Positions {
            then: 300,
            now: 400
        })
    );
    fits(data_id, values, &vars).unwrap();
    let (_, _, split_id) = data(300, &Params::default(), 100);
    assert_ne!(
        split_id, data_id,
        "the validation split is part of the fingerprint"
    );
    let err = run(
        &mut bigger,
        &mut validation,
        good,
        &options(dir.path(), "refuse"),
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("made for 300 positions, the data has 400"),
        "{err}"
    );
}

#[test]
fn a_warm_start_tunes_a_sample_first_and_resumes_exactly() {
    // 20,000 positions make four segments: the warm start on about one in two tunes the
    // first, the third and the fourth (the hash of their indices picks them).
    let dir = tempfile::tempdir().unwrap();
    let (mut train, mut validation, data_id) = data(20_000, &Params::default(), 0);
    let k = fit_k(&samples(&train));
    let warm = |name: &str| RunOptions {
        passes: 6,
        warm_start: Some(2),
        ..options(dir.path(), name)
    };
    let start = fresh(&train, data_id, Params::default(), k, vars(), GUARDS);
    let start_error = start.descent.sum / train.len() as f64;
    let opts = warm("straight");
    let mut first_progress = None;
    let straight = run(
        &mut train,
        &mut validation,
        start,
        &opts,
        &AtomicBool::new(false),
        &mut |e| {
            if let Event::Progress(texel_tune::Progress { error, .. }) = e {
                first_progress.get_or_insert(error);
            }
        },
    )
    .unwrap();
    // The warm start's errors are its sample's, from the first probe on.
    let sample_error = first_progress.unwrap();
    assert!(
        (sample_error - start_error).abs() < 0.2 * start_error,
        "{sample_error} vs {start_error}"
    );
    let log = std::fs::read_to_string(opts.log.unwrap()).unwrap();
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let warm_passes = lines.iter().take_while(|l| l["sample"] == 2).count();
    assert!(warm_passes >= 1, "no warm pass: {log}");
    assert!(
        lines[warm_passes..]
            .iter()
            .all(|l| l.get("sample").is_none()),
        "{log}"
    );
    // The pass limit counts the passes over all positions; the warm ones come on top.
    let full = lines.len() - warm_passes;
    assert!(
        full == 6 || (full > 0 && straight.end == RunEnd::Converged),
        "{full} passes over all positions, {:?}: {log}",
        straight.end
    );
    assert_eq!(straight.passes, lines.len());
    train.rescore(&straight.params);
    assert!(texel_solve::error::mean_error(&train, k) < start_error);

    // Stopped in the first warm pass, or in the first pass over all positions, and resumed
    // from the checkpoint: the same values after as many passes.
    for (sample, warm_after) in [(Some(2), Some(2)), (None, None)] {
        let start = |train: &Dataset| fresh(train, data_id, Params::default(), k, vars(), GUARDS);
        let last = stop_and_resume(&warm("stopped"), &start, (sample, warm_after));
        assert_eq!(last.passes, straight.passes);
        assert_eq!(last.params, straight.params);
    }
}

/// A warm run of `opts` from `start`, stopped at the 30th progress of the sample `sample`
/// (`None`: of all positions), its checkpoint's warm start `warm_after`, then resumed.
fn stop_and_resume(
    opts: &RunOptions,
    start: &dyn Fn(&Dataset) -> Checkpoint<Params>,
    (sample, warm_after): (Option<usize>, Option<usize>),
) -> texel_tune::RunResult<Params> {
    let (mut train, mut validation, _) = data(20_000, &Params::default(), 0);
    let first_start = start(&train);
    let mut calls = 0;
    let halt = AtomicBool::new(false);
    let first = run(
        &mut train,
        &mut validation,
        first_start,
        opts,
        &halt,
        &mut |e| {
            if let Event::Progress(texel_tune::Progress { sample: s, .. }) = e {
                calls += usize::from(s == sample);
            }
            if calls == 30 {
                halt.store(true, Ordering::SeqCst);
            }
        },
    )
    .unwrap();
    assert_eq!(first.end, RunEnd::Interrupted);
    let checkpoint = Checkpoint::<Params>::read(opts.checkpoint.as_ref().unwrap()).unwrap();
    assert_eq!(checkpoint.warm, warm_after);
    assert_eq!(checkpoint.warm_passes > 0, sample.is_none());
    let (mut train, mut validation, _) = data(20_000, &checkpoint.descent.params, 0);
    let never = AtomicBool::new(false);
    run(
        &mut train,
        &mut validation,
        checkpoint,
        opts,
        &never,
        &mut |_| {},
    )
    .unwrap()
}

#[test]
fn after_the_walk_a_pass_goes_on_while_values_have_a_stored_gain() {
    let dir = tempfile::tempdir().unwrap();
    let (mut train, mut validation, data_id) = data(1500, &Params::default(), 0);
    let k = fit_k(&samples(&train));
    let start = fresh(&train, data_id, Params::default(), k, vars(), GUARDS);
    let (mut pending_seen, mut ends) = (Vec::new(), Vec::new());
    run(
        &mut train,
        &mut validation,
        start,
        &options(dir.path(), "pending"),
        &AtomicBool::new(false),
        &mut |e| match e {
            Event::Progress(texel_tune::Progress {
                walked,
                vars,
                pending,
                ..
            }) => {
                assert!(
                    walked == vars || pending == 0,
                    "pending only after the walk"
                );
                pending_seen.push(pending);
            }
            Event::Pass(_, Some(descent)) => ends.push(descent.pending()),
            Event::Pass(_, None) | Event::Checkpoint(_) => {}
        },
    )
    .unwrap();
    assert!(
        pending_seen.iter().any(|&n| n > 0),
        "the pass moved after its walk"
    );
    assert_eq!(ends, vec![0, 0], "a pass ends when no stored gain is left");
}
