//! Runs: checkpoints resume exactly, validation patience keeps the best, the log has a line
//! per pass, and bad checkpoints are refused.

use texel_eval::Params;
use texel_tune::error::{fit_k, samples};
use texel_tune::{
    fresh, load, run, select, Checkpoint, Control, Dataset, Event, LoadOptions, RunEnd, RunOptions,
    Selection,
};

fn data(n: usize, name: &str, params: &Params, validation_per_mille: u32) -> (Dataset, Dataset) {
    let lines: Vec<&str> = include_str!("../../../data/train.epd")
        .lines()
        .take(n)
        .collect();
    let path = std::env::temp_dir().join(format!("texel-run-{}-{name}.epd", std::process::id()));
    std::fs::write(&path, lines.join("\n")).unwrap();
    let options = LoadOptions {
        validation_per_mille,
        ..Default::default()
    };
    let (train, validation, _) =
        load(std::slice::from_ref(&path), params, &options, &|_| {}).unwrap();
    std::fs::remove_file(&path).unwrap();
    (train, validation)
}

fn vars() -> Vec<texel_tune::Variable> {
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

fn options(name: &str) -> RunOptions {
    let dir = std::env::temp_dir();
    RunOptions {
        passes: 2,
        patience: None,
        log: Some(dir.join(format!("texel-run-{}-{name}.jsonl", std::process::id()))),
        checkpoint: Some(dir.join(format!("texel-run-{}-{name}.ckpt", std::process::id()))),
        checkpoint_secs: 1e9,
    }
}

#[test]
fn an_interrupted_run_resumes_to_exactly_the_same_values() {
    let (mut train, mut validation) = data(1500, "straight", &Params::default(), 0);
    let k = fit_k(&samples(&train));
    let start = fresh(&train, Params::default(), k, vars());
    let straight = run(
        &mut train,
        &mut validation,
        start,
        &options("straight"),
        &mut |_| Control::Continue,
    )
    .unwrap();
    assert_eq!(straight.passes, 2);

    // Stop twice: once in the walk of pass 1, once in the moves of pass 2.
    let opts = options("stopped");
    let path = opts.checkpoint.clone().unwrap();
    let (mut train, mut validation) = data(1500, "stopped", &Params::default(), 0);
    let start = fresh(&train, Params::default(), k, vars());
    let mut calls = 0;
    let first = run(&mut train, &mut validation, start, &opts, &mut |e| {
        calls += matches!(e, Event::Progress { .. }) as usize;
        if calls == 40 {
            Control::Stop
        } else {
            Control::Continue
        }
    })
    .unwrap();
    assert_eq!((first.end, first.passes), (RunEnd::Interrupted, 0));
    let checkpoint = Checkpoint::load(&path).unwrap();
    assert_eq!(checkpoint.descent.cursor.walked, 40);

    let (mut train, mut validation) = data(1500, "resumed", &checkpoint.descent.params, 0);
    let mut stop_in_moves = |e: Event| match e {
        Event::Progress {
            pass: 2,
            walked,
            vars,
            moves,
            ..
        } if walked == vars && moves >= 3 => Control::Stop,
        _ => Control::Continue,
    };
    let second = run(
        &mut train,
        &mut validation,
        checkpoint,
        &opts,
        &mut stop_in_moves,
    )
    .unwrap();
    assert_eq!((second.end, second.passes), (RunEnd::Interrupted, 1));
    let checkpoint = Checkpoint::load(&path).unwrap();
    assert!(checkpoint.descent.cursor.active && checkpoint.descent.cursor.moves >= 3);

    let (mut train, mut validation) = data(1500, "resumed2", &checkpoint.descent.params, 0);
    let last = run(&mut train, &mut validation, checkpoint, &opts, &mut |_| {
        Control::Continue
    })
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
    let (mut train, mut validation) = data(1500, "validate", &Params::default(), 300);
    assert!(validation.len() > 300);
    let k = fit_k(&samples(&train));
    let start = fresh(&train, Params::default(), k, vars());
    let mut records = Vec::new();
    let opts = RunOptions {
        passes: 6,
        patience: Some(1),
        ..options("validate")
    };
    let result = run(&mut train, &mut validation, start, &opts, &mut |e| {
        if let Event::Pass(r) = e {
            records.push(r.clone());
        }
        Control::Continue
    })
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
    let kept = texel_tune::error::mean_error(&validation, k);
    assert_eq!(kept, best, "the kept parameters are the best on validation");
}

#[test]
fn unusable_checkpoints_are_refused_with_a_reason() {
    let (train, _) = data(300, "refuse", &Params::default(), 0);
    let dir = std::env::temp_dir();
    let path = dir.join(format!("texel-run-{}-refuse.ckpt", std::process::id()));
    let good = fresh(&train, Params::default(), 1.0, vars());
    good.save(&path).unwrap();
    assert_eq!(Checkpoint::load(&path).unwrap(), good);

    std::fs::write(&path, "{ not json").unwrap();
    assert!(Checkpoint::load(&path)
        .unwrap_err()
        .to_string()
        .contains("corrupt"));
    let mut other_table = good.to_json();
    other_table["table"] = serde_json::json!("0000000000000000");
    std::fs::write(&path, other_table.to_string()).unwrap();
    assert!(Checkpoint::load(&path)
        .unwrap_err()
        .to_string()
        .contains("different parameter table"));
    let mut truncated = good.to_json();
    truncated.as_object_mut().unwrap().remove("gains");
    std::fs::write(&path, truncated.to_string()).unwrap();
    assert!(Checkpoint::load(&path)
        .unwrap_err()
        .to_string()
        .contains("missing field \"gains\""));

    let (mut bigger, mut validation) = data(400, "refuse-bigger", &Params::default(), 0);
    let err = run(
        &mut bigger,
        &mut validation,
        good,
        &options("refuse"),
        &mut |_| Control::Continue,
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("made for 300 training positions, the data has 400"),
        "{err}"
    );
}
