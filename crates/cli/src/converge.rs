//! `texel bench converge`: how long the tuner takes to come close to where it ends. Tunes
//! the bench data (the shipped positions replicated to 1M, 10 % held out) from the table's
//! defaults with `texel tune`'s default guards and patience, once per method (cd, adam,
//! adam+cd), records the training error at every safe point, and prints per method the time
//! to within 1 % and 0.1 % of its final training error.

use crate::data_args::Loaded;
use anyhow::Result;
use std::path::PathBuf;
use std::time::Instant;
use texel_eval::Params;
use texel_tune::error::{fit_k, mean_error, samples};
use texel_tune::{
    fresh, load, run, select, Control, Event, Guards, LoadOptions, Method, RunOptions, Selection,
};

/// Passes at most, and the validation patience, of the measured run.
const PASSES: usize = 100;
const PATIENCE: usize = 2;

/// The training error over time, from the start of the descent.
struct Trajectory {
    points: Vec<(f64, f64)>,
}

impl Trajectory {
    /// Seconds until the error first came within `share` of `target` (above it).
    fn time_to(&self, target: f64, share: f64) -> Option<f64> {
        self.points
            .iter()
            .find(|&&(_, e)| e <= target * (1.0 + share))
            .map(|p| p.0)
    }
}

/// Loads `files` with a 10 % validation split and tunes them; prints the table row.
pub fn bench_converge(files: Vec<PathBuf>) -> Result<()> {
    let params = Params::default();
    let options = LoadOptions {
        validation_per_mille: 100,
        ..Default::default()
    };
    let started = Instant::now();
    let (train, validation, report) = load(&files, &params, &options, &|_| {})?;
    let k = fit_k(&samples(&train));
    println!(
        "data: {} training, {} validation positions (loaded in {:.1}s), K {k:.4}, {} threads",
        train.len(),
        validation.len(),
        started.elapsed().as_secs_f64(),
        rayon::current_num_threads()
    );
    let mut loaded = Loaded {
        train,
        validation,
        k,
        fingerprint: report.fingerprint,
    };
    let vars = select(&Selection::default())?;
    let vars = crate::guards::hold_sparse(vars, &loaded, crate::guards::DEFAULT_MIN_SUPPORT);
    println!("method   passes  seconds  final train  best validation  to 1 %  to 0.1 %");
    for method in [Method::Cd, Method::Adam, Method::AdamThenCd] {
        loaded.train.rescore(&params);
        let start = fresh(
            &loaded.train,
            loaded.fingerprint,
            params.clone(),
            k,
            vars.clone(),
            GUARDS,
        );
        converge(&mut loaded, start, method)?;
    }
    Ok(())
}

/// `texel tune`'s default guards.
const GUARDS: Guards = Guards {
    l2: crate::guards::DEFAULT_L2,
    constraints: true,
};

/// Tunes from `start` with `method` and prints its row of the table.
fn converge(loaded: &mut Loaded, start: texel_tune::Checkpoint, method: Method) -> Result<()> {
    let k = loaded.k;
    let mut trajectory = Trajectory { points: Vec::new() };
    let began = Instant::now();
    let options = RunOptions {
        passes: PASSES,
        patience: Some(PATIENCE),
        method,
        ..Default::default()
    };
    let result = run(
        &mut loaded.train,
        &mut loaded.validation,
        start,
        &options,
        &mut |event| {
            let error = match event {
                Event::Progress { error, .. } => error,
                Event::Pass(r, _) => r.train_error,
                Event::Checkpoint(_) => return Control::Continue,
            };
            trajectory
                .points
                .push((began.elapsed().as_secs_f64(), error));
            Control::Continue
        },
    )?;
    let seconds = began.elapsed().as_secs_f64();
    let last = trajectory.points.last().map_or(f64::NAN, |p| p.1);
    loaded.train.rescore(&result.params);
    loaded.validation.rescore(&result.params);
    let secs = |s: Option<f64>| s.map_or("-".into(), |s| format!("{s:.1} s"));
    println!(
        "{:<8} {:>6}  {seconds:>7.1}  {:>11.8}  {:>15.8}  {:>6}  {:>8}",
        method.to_string(),
        result.passes,
        mean_error(&loaded.train, k),
        mean_error(&loaded.validation, k),
        secs(trajectory.time_to(last, 0.01)),
        secs(trajectory.time_to(last, 0.001)),
    );
    Ok(())
}
