//! `--method adam` and `adam+cd`: passes of epochs lower the error, the result does not
//! depend on the thread count, adam+cd hands over to coordinate descent, an interrupted run
//! resumes from its checkpoint (Adam's memory included) to exactly the same values, and a
//! planted linear evaluation's optimum is found in real numbers.

mod common;

use common::{data, on_threads};
use std::sync::atomic::{AtomicBool, Ordering};
use texel_dataset::{select, Dataset};
use texel_eval::Params;
use texel_solve::error::{fit_k, samples};
use texel_solve::{Method, ADAM_EPOCHS_PER_PASS};
use texel_tune::log::PassKind;
use texel_tune::{fresh, run, Checkpoint, Event, RunEnd, RunOptions, RunResult, Selection};

const GUARDS: texel_solve::Guards = texel_solve::Guards {
    l2: 0.1,
    constraints: true,
};

/// Linear values, curve inputs (mobility) and formula weights (king attack, scale rules).
fn vars() -> Vec<texel_solve::Variable> {
    let groups = ["KnightV", "KingV", "ScaleV", "PassedV"];
    select(&Selection {
        groups: groups.iter().map(|g| g.to_string()).collect(),
        ..Default::default()
    })
    .unwrap()
}

/// A run with `method` from the defaults, stopped by `stop`; the checkpoint in `dir`.
fn tune(
    dir: &std::path::Path,
    method: Method,
    passes: usize,
    stop: &mut dyn FnMut(&Event<Dataset>) -> bool,
) -> (RunResult<Params>, Vec<(f64, u64, PassKind)>) {
    let (mut train, mut validation, id) = data(4000, &Params::default(), 100);
    let k = fit_k(&samples(&train));
    let start = match Checkpoint::<Params>::read(&dir.join("run.ckpt")) {
        Ok(c) => {
            train.rescore(&c.descent.params);
            c
        }
        Err(_) => fresh(&train, id, Params::default(), k, vars(), GUARDS),
    };
    let options = RunOptions {
        passes,
        patience: Some(2),
        checkpoint: Some(dir.join("run.ckpt")),
        checkpoint_secs: 1e9,
        method,
        adam_epochs: 4 * ADAM_EPOCHS_PER_PASS as usize,
        ..Default::default()
    };
    let mut passes = Vec::new();
    let halt = AtomicBool::new(false);
    let result = run(
        &mut train,
        &mut validation,
        start,
        &options,
        &halt,
        &mut |e| {
            if let Event::Pass(r, _) = &e {
                passes.push((r.train_error, r.summary.probes, r.kind));
            }
            if stop(&e) {
                halt.store(true, Ordering::SeqCst);
            }
        },
    )
    .unwrap();
    (result, passes)
}

#[test]
fn adam_epochs_lower_the_error_the_same_way_on_one_or_two_threads() {
    let on = |threads| on_threads(threads, |dir| tune(dir, Method::Adam, 6, &mut |_| false));
    let (one, passes) = on(1);
    let (two, _) = on(2);
    assert_eq!(one.params, two.params);
    assert_ne!(one.params, Params::default());
    let errors: Vec<f64> = passes.iter().map(|p| p.0).collect();
    assert!(errors.last() < errors.first(), "{errors:?}");
    assert!(
        passes.iter().all(|p| p.1 > 0),
        "curve and formula values are probed"
    );
}

#[test]
fn adam_then_cd_hands_over_and_resumes_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let (straight, passes) = tune(dir.path(), Method::AdamThenCd, 7, &mut |_| false);
    assert_eq!(straight.passes, 7);
    // Four Adam passes (their curve and formula values probed every epoch), then coordinate
    // descent: its first walk probes every variable twice.
    let kinds: Vec<PassKind> = passes.iter().map(|p| p.2).collect();
    assert_eq!(
        kinds[..5],
        [[PassKind::Adam; 4].as_slice(), &[PassKind::Descent]].concat()
    );
    assert!(passes[4].1 >= 2 * vars().len() as u64, "{passes:?}");

    // The same run stopped during the Adam epochs and during the coordinate descent.
    let dir = tempfile::tempdir().unwrap();
    let mut seen = 0;
    let first = tune(dir.path(), Method::AdamThenCd, 7, &mut |e| {
        seen += matches!(e, Event::Progress(texel_tune::Progress { pass: 3, .. })) as usize;
        seen == 1
    });
    assert_eq!((first.0.end, first.0.passes), (RunEnd::Interrupted, 2));
    let ckpt = Checkpoint::<Params>::read(&dir.path().join("run.ckpt")).unwrap();
    assert_eq!(
        ckpt.descent.adam.as_ref().map(|a| a.epochs),
        Some(2 * ADAM_EPOCHS_PER_PASS)
    );
    let second = tune(dir.path(), Method::AdamThenCd, 7, &mut |e| {
        matches!(
            e,
            Event::Progress(texel_tune::Progress {
                pass: 6,
                walked: 10,
                ..
            })
        )
    });
    assert_eq!((second.0.end, second.0.passes), (RunEnd::Interrupted, 5));
    let last = tune(dir.path(), Method::AdamThenCd, 7, &mut |_| false);
    assert_eq!(last.0.passes, 7);
    assert_eq!(last.0.params, straight.params);
}
