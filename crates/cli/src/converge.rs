//! `texel bench converge`: how long the tuner takes to come close to where it ends. Tunes
//! the bench data (the shipped positions replicated to 1M, 10 % held out) from the table's
//! defaults with `texel tune`'s default guards and patience, once per method (cd, adam,
//! adam+cd), records the training error at every safe point, and prints per method the time
//! to within 1 % and 0.1 % of its final training error.

use crate::data_args::Loaded;
use anyhow::Result;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use texel_dataset::{select, LoadOptions, TableSubject};
use texel_eval::params::flat_params;
use texel_eval::Params;
use texel_solve::error::mean_error;
use texel_solve::Method;
use texel_tune::{Event, JobEvent, RunOptions, Selection, TuneJob};

/// A row of the table: a method, coordinate descent possibly with a warm start.
#[derive(Copy, Clone, Debug)]
pub struct BenchMethod {
    method: Method,
    warm_start: usize,
}

/// The sample of `cd-warm`: the automatic warm start's.
const WARM: usize = texel_tune::WARM_SAMPLE;

impl std::str::FromStr for BenchMethod {
    type Err = String;

    fn from_str(s: &str) -> Result<BenchMethod, String> {
        let (method, warm_start) = match s.split_once("-warm") {
            Some(("cd", "")) => (Method::Cd, WARM),
            Some(("cd", n)) => (
                Method::Cd,
                n.parse().map_err(|_| format!("{s:?}: cd-warmN"))?,
            ),
            Some(_) => return Err(format!("{s:?}: only cd has a warm start (cd-warm)")),
            None => (s.parse()?, 0),
        };
        Ok(BenchMethod { method, warm_start })
    }
}

impl std::fmt::Display for BenchMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.warm_start {
            0 => write!(f, "{}", self.method),
            WARM => write!(f, "{}-warm", self.method),
            n => write!(f, "{}-warm{n}", self.method),
        }
    }
}

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
pub fn bench_converge(files: Vec<PathBuf>, methods: &[BenchMethod], passes: bool) -> Result<()> {
    let params = Params::default();
    let subject = TableSubject {
        files,
        options: LoadOptions {
            held_out: texel_data::HeldOut::share(100),
            ..Default::default()
        },
        given: params.clone(),
        vars: Vec::new(),
        rust: None,
    };
    let started = Instant::now();
    let never = AtomicBool::new(false);
    let mut loaded = texel_tune::load_data(&subject, &params, None, &never, &|_| {})?.data;
    say!(
        "data: {} training, {} validation positions (loaded in {:.1}s), K {:.4}, {} threads",
        loaded.train.len(),
        loaded.validation.len(),
        started.elapsed().as_secs_f64(),
        loaded.k,
        rayon::current_num_threads()
    );
    // `texel tune`'s default guards; the held values said once.
    let vars = select(&Selection::default())?;
    say!("method   passes  seconds  final train  best validation  to 1 %  to 0.1 %");
    for (i, &method) in methods.iter().enumerate() {
        loaded.train.rescore(&params);
        let job = TuneJob::new(params.clone(), vars.clone());
        converge(&mut loaded, job, method, (passes, i == 0))?;
    }
    Ok(())
}

/// Runs `job` with `method` and prints its row of the table (and with `passes.0` first a
/// line per pass: seconds and training error; with `passes.1` the values held).
fn converge(
    loaded: &mut Loaded,
    job: TuneJob<Params>,
    method: BenchMethod,
    (passes, say_held): (bool, bool),
) -> Result<()> {
    let k = loaded.k;
    let mut trajectory = Trajectory { points: Vec::new() };
    let began = Instant::now();
    let mut job = job;
    job.settings.run = RunOptions {
        passes: PASSES,
        patience: Some(PATIENCE),
        method: method.method,
        // Plain cd is plain even on a set large enough for the automatic warm start.
        warm_start: Some(method.warm_start),
        ..Default::default()
    };
    let name = |slot: usize| flat_params()[slot].name();
    let tuned = job.run(loaded, &name, &AtomicBool::new(false), &mut |event| {
        let event = match event {
            JobEvent::Run(event) => event,
            held @ JobEvent::Held { .. } if say_held => {
                crate::guards::say_begin(&held, false);
                return;
            }
            _ => return,
        };
        let error = match event {
            // A warm start's errors are its sample's: not the table's error.
            Event::Progress(texel_tune::Progress {
                sample: Some(_), ..
            }) => return,
            Event::Progress(texel_tune::Progress { error, .. }) => error,
            Event::Pass(r, _) => {
                if passes {
                    let s = began.elapsed().as_secs_f64();
                    let v = r.validation_error.unwrap_or(f64::NAN);
                    let sample = r.sample.map_or(String::new(), |n| format!(" (1/{n})"));
                    say!(
                        "  {method} pass {:>3} {s:>7.1} s  {:.8}  {v:.8}{sample}",
                        r.pass,
                        r.train_error
                    );
                }
                if r.sample.is_some() {
                    return;
                }
                r.train_error
            }
            Event::Checkpoint(_) => return,
        };
        trajectory
            .points
            .push((began.elapsed().as_secs_f64(), error));
    })?;
    let result = tuned.result;
    let seconds = began.elapsed().as_secs_f64();
    let last = trajectory.points.last().map_or(f64::NAN, |p| p.1);
    loaded.train.rescore(&result.params);
    loaded.validation.rescore(&result.params);
    let secs = |s: Option<f64>| s.map_or("-".into(), |s| format!("{s:.1} s"));
    say!(
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
