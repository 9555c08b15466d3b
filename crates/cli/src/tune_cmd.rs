//! `texel tune` and `texel error`: coordinate descent and the error of a parameter set.

use crate::outputs::Outputs;
use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;
use texel_eval::params::flat_params;
use texel_eval::table::Group;
use texel_eval::Params;
use texel_tune::error::{fit_k, mean_error, samples};
use texel_tune::{
    fresh, load, run, select, total_bytes, Checkpoint, Control, Dataset, Event, LoadOptions,
    PassRecord, RunEnd, RunOptions, RunResult, Selection, Variable,
};

/// Options shared by every command that reads labelled positions.
#[derive(Args, Clone)]
pub struct DataArgs {
    /// Labelled EPD/FEN files (label formats: c9 "1-0"; [1.0]; 1-0; 0.5); repeatable.
    #[arg(long)]
    pub epd: Vec<PathBuf>,
    /// The labels score the side to move instead of white.
    #[arg(long)]
    pub stm_labels: bool,
    /// Go on when more than 1% of the lines are bad.
    #[arg(long)]
    pub allow_bad: bool,
    /// Hold out this percentage of positions for validation (deterministic split).
    #[arg(allow_negative_numbers = true, long, value_name = "PERCENT")]
    pub validate: Option<f64>,
    /// Starting parameter file (JSON); the table's defaults when absent.
    #[arg(long)]
    pub params: Option<PathBuf>,
    /// Fix K instead of fitting it.
    #[arg(allow_negative_numbers = true, long)]
    pub k: Option<f64>,
    /// Worker threads (default: all cores).
    #[arg(allow_negative_numbers = true, long)]
    pub threads: Option<usize>,
}

/// The table's group names, for `--group`'s help and check.
fn group_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(Group::ALL.iter().map(|g| g.name()))
}

#[derive(Args, Clone)]
pub struct TuneArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// Tune only this group (repeatable).
    #[arg(long, value_parser = group_names(), ignore_case = true)]
    pub group: Vec<String>,
    /// Tune only this term (repeatable).
    #[arg(long = "param")]
    pub term: Vec<String>,
    /// Never tune this term (repeatable).
    #[arg(long)]
    pub exclude: Vec<String>,
    /// Keep the piece values fixed.
    #[arg(long)]
    pub freeze_material: bool,
    /// Leave the candidate families out: start them at 0 and do not tune them (the
    /// established table alone).
    #[arg(long)]
    pub no_candidates: bool,
    /// Settings from a JSON file (configs/*.json); flags given here override it.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Stop after this many passes [default: 20].
    #[arg(allow_negative_numbers = true, long)]
    pub passes: Option<usize>,
    /// With --validate: stop when the validation error rose this many passes in a row, and
    /// keep the parameters that were best on validation.
    #[arg(allow_negative_numbers = true, long)]
    pub patience: Option<usize>,
    /// Append one JSON line per pass (pass, errors, moves, seconds) to this file.
    #[arg(long)]
    pub log: Option<PathBuf>,
    /// Checkpoint file (default: OUT.ckpt beside the output); removed when the run ends
    /// normally.
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// Seconds between checkpoints; one is also written after every pass and on Ctrl-C
    /// [default: 300].
    #[arg(allow_negative_numbers = true, long)]
    pub checkpoint_secs: Option<f64>,
    /// Continue the run saved in this checkpoint: give the same data and selection as the
    /// run that wrote it (K and the values come from it).
    #[arg(long)]
    pub resume: Option<PathBuf>,
    /// Write the tuned parameters as JSON (default: texel-tuned.json, or the next free
    /// texel-tuned-N.json). Written only when the run ends; Ctrl-C leaves the checkpoint.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write the tuned table as Rust source.
    #[arg(long)]
    pub rust: Option<PathBuf>,
    /// Hold every value that counts in fewer than N training positions at its start; 0
    /// tunes them all [default: 20].
    #[arg(allow_negative_numbers = true, long, value_name = "N")]
    pub min_support: Option<usize>,
    /// Pull every value toward its start: moving a value 100 units away costs as much
    /// summed error as λ positions wrong by a whole result; `auto` picks λ on the validation
    /// split; 0 switches the pull off [default: 0.1].
    #[arg(allow_negative_numbers = true, long, value_name = "λ|auto")]
    pub l2: Option<crate::guards::L2>,
    /// Let values cross the orders and bounds the table declares (`rising`, `at_most 0`, ...).
    #[arg(long)]
    pub no_constraints: bool,
}

#[derive(Args)]
pub struct ErrorArgs {
    #[command(flatten)]
    data: DataArgs,
}

/// Loaded data: training and validation sets and K.
pub struct Loaded {
    /// Training positions.
    pub train: Dataset,
    /// Held-out positions (empty without --validate).
    pub validation: Dataset,
    /// K, fitted or given.
    pub k: f64,
    /// The fingerprint of the positions and labels (for checkpoints).
    pub fingerprint: u64,
}

/// Checks the numeric options of the data arguments.
fn check_ranges(args: &DataArgs) -> Result<()> {
    if let Some(v) = args.validate {
        anyhow::ensure!(
            (0.0..100.0).contains(&v),
            "--validate takes a percentage from 0 up to (not including) 100, not {v}"
        );
    }
    if let Some(k) = args.k {
        anyhow::ensure!(k.is_finite() && k > 0.0, "--k must be above 0, not {k}");
    }
    anyhow::ensure!(args.threads != Some(0), "--threads must be at least 1");
    Ok(())
}

pub fn load_data(args: &DataArgs, params: Params) -> Result<Loaded> {
    check_ranges(args)?;
    if let Some(n) = args.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .context("cannot start threads")?;
    }
    if args.epd.is_empty() {
        anyhow::bail!("no labelled positions: give --epd FILE (or \"epd\" in --config)");
    }
    let options = LoadOptions {
        stm_labels: args.stm_labels,
        validation_per_mille: (args.validate.unwrap_or(0.0) * 10.0).round() as u32,
        allow_bad: args.allow_bad,
    };
    let pb = crate::progress_bar(
        total_bytes(&args.epd),
        "loading {bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
    );
    let start = Instant::now();
    let (train, validation, report) = load(&args.epd, &params, &options, &|b| pb.set_position(b))?;
    pb.finish_and_clear();
    let secs = start.elapsed().as_secs_f64();
    println!("{report}");
    let n = train.len() + validation.len();
    println!(
        "loaded and traced in {secs:.2}s ({:.0} positions/s), {:.1} bytes/position",
        n as f64 / secs,
        train.memory_bytes() as f64 / train.len() as f64
    );
    let k = match args.k {
        Some(k) => k,
        None => {
            let k = fit_k(&samples(&train));
            println!("fitted K = {k:.4}");
            k
        }
    };
    Ok(Loaded {
        train,
        validation,
        k,
        fingerprint: report.fingerprint,
    })
}

fn print_errors(l: &Loaded, label: &str) {
    print!(
        "{label}: K {:.4}  error {:.8}",
        l.k,
        mean_error(&l.train, l.k)
    );
    if !l.validation.is_empty() {
        print!("  validation {:.8}", mean_error(&l.validation, l.k));
    }
    println!();
}

pub fn run_error(args: &ErrorArgs) -> Result<ExitCode> {
    let params = crate::load_params(args.data.params.as_deref())?;
    let loaded = load_data(&args.data, params)?;
    print_errors(&loaded, "error");
    Ok(ExitCode::SUCCESS)
}

/// The variables the options select (the steps of a config applied).
fn selected(
    args: &TuneArgs,
    steps: &std::collections::BTreeMap<String, i32>,
) -> Result<Vec<Variable>> {
    let vars = select(&Selection {
        groups: args.group.clone(),
        terms: args.term.clone(),
        exclude: args.exclude.clone(),
        freeze_material: args.freeze_material,
        no_candidates: args.no_candidates,
    })?;
    crate::config::with_steps(vars, steps)
}

/// Checks the numeric options of `texel tune`.
fn check_tune_ranges(args: &TuneArgs) -> Result<()> {
    anyhow::ensure!(args.passes != Some(0), "--passes must be at least 1");
    anyhow::ensure!(args.patience != Some(0), "--patience must be at least 1");
    if let Some(s) = args.checkpoint_secs {
        anyhow::ensure!(
            s.is_finite() && s > 0.0,
            "--checkpoint-secs must be above 0, not {s}"
        );
    }
    Ok(())
}

/// The run's starting point: a fresh one with its guards, or the checkpoint of `--resume`
/// (guards included) after checking that it continues this data and selection.
fn starting_point(
    args: &TuneArgs,
    loaded: &mut Loaded,
    resumed: Option<Checkpoint>,
    start_params: &Params,
    vars: Vec<Variable>,
) -> Result<Checkpoint> {
    let min_support = args
        .min_support
        .unwrap_or(crate::guards::DEFAULT_MIN_SUPPORT);
    let vars = crate::guards::hold_sparse(vars, loaded, min_support);
    anyhow::ensure!(
        !vars.is_empty(),
        "every selected value counts in fewer than {min_support} training positions: lower \
         --min-support"
    );
    match (resumed, &args.resume) {
        (Some(c), Some(path)) => {
            c.check_continues(path, loaded.fingerprint, &vars)?;
            println!(
                "resuming after {} passes ({} variables)",
                c.passes,
                vars.len()
            );
            Ok(c)
        }
        _ => {
            let guards = crate::guards::choose(args, loaded, start_params, &vars)?;
            println!(
                "tuning {} variables (L2 pull {}, constraints {})",
                vars.len(),
                guards.l2,
                if guards.constraints { "kept" } else { "off" }
            );
            Ok(fresh(
                &loaded.train,
                loaded.fingerprint,
                start_params.clone(),
                loaded.k,
                vars,
                guards,
            ))
        }
    }
}

pub fn run_tune(args: &TuneArgs) -> Result<ExitCode> {
    let mut args = args.clone();
    let steps = match args.config.clone() {
        Some(path) => crate::config::apply(&path, &mut args)?,
        None => Default::default(),
    };
    let args = &args;
    check_tune_ranges(args)?;
    check_ranges(&args.data)?;
    let outputs = Outputs::new(
        args.out.as_deref(),
        args.rust.as_deref(),
        args.log.as_deref(),
        args.checkpoint.as_deref(),
    )?;
    let vars = selected(args, &steps)?;
    let resumed = args.resume.as_deref().map(Checkpoint::load).transpose()?;
    let mut data = args.data.clone();
    if let Some(c) = &resumed {
        data.k = Some(c.k);
    }
    let start_params = match &resumed {
        Some(c) => c.descent.params.clone(),
        None if args.no_candidates => {
            crate::load_params(data.params.as_deref())?.without_candidates()
        }
        None => crate::load_params(data.params.as_deref())?,
    };
    let mut loaded = load_data(&data, start_params.clone())?;
    print_errors(&loaded, "start");
    // From here on Ctrl-C stops the run at its next safe point and leaves a checkpoint.
    let interrupted = Arc::new(AtomicBool::new(false));
    let flag = interrupted.clone();
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst))
        .context("cannot catch Ctrl-C")?;
    let selected_vars = vars.clone();
    let start = starting_point(args, &mut loaded, resumed, &start_params, vars)?;
    let held = crate::guards::held_names(&selected_vars, &start.vars);
    let options = RunOptions {
        passes: args.passes.unwrap_or(20),
        patience: args.patience,
        log: outputs.log.clone(),
        checkpoint: Some(outputs.checkpoint.clone()),
        checkpoint_secs: args.checkpoint_secs.unwrap_or(300.0),
    };
    let result = descend(&mut loaded, start, &options, &interrupted)?;
    let tuned = result.params;
    let changes = print_changes(&start_params, &tuned, &loaded.train);
    if let Some(log) = &outputs.log {
        log_changes(log, &held, &changes)?;
    }
    if result.end == RunEnd::Interrupted {
        let ckpt = outputs.checkpoint.display();
        println!(
            "interrupted after {} passes; nothing written to {}. The state is saved in {ckpt}: \
             continue with the same command and --resume {ckpt}",
            result.passes,
            outputs.out.display()
        );
        return Ok(ExitCode::from(130));
    }
    let why = match result.end {
        RunEnd::Converged => "a pass moved nothing",
        RunEnd::PassLimit => "pass limit reached",
        _ => "validation error stopped improving (kept the best parameters)",
    };
    println!("finished after {} passes: {why}", result.passes);
    print_errors_after(&mut loaded, &tuned);
    outputs.finish(&tuned)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs the descent with a progress bar, pass lines and Ctrl-C handling.
fn descend(
    loaded: &mut Loaded,
    start: Checkpoint,
    options: &RunOptions,
    interrupted: &AtomicBool,
) -> Result<RunResult> {
    let start_error = mean_error(&loaded.train, loaded.k);
    let template = "pass {msg} {bar:30} {pos}/{len} variables walked, {elapsed} elapsed, eta {eta}";
    let pb = crate::progress_bar(start.vars.len() as u64, template);
    let mut last_seconds = start.seconds;
    let mut on_event = |event: Event| {
        match event {
            Event::Progress {
                pass,
                walked,
                moves,
                error,
                ..
            } => {
                pb.set_position(walked as u64);
                let drop = start_error - error;
                pb.set_message(format!(
                    "{pass}: error {error:.8} (down {drop:.2e}), {moves} moves"
                ));
            }
            Event::Pass(r) => {
                pb.suspend(|| print_pass(r, r.seconds - last_seconds));
                last_seconds = r.seconds;
            }
            Event::Checkpoint(_) => {}
        }
        if interrupted.load(Ordering::SeqCst) {
            Control::Stop
        } else {
            Control::Continue
        }
    };
    let result = run(
        &mut loaded.train,
        &mut loaded.validation,
        start,
        options,
        &mut on_event,
    )?;
    pb.finish_and_clear();
    Ok(result)
}

/// One line per pass: errors, what moved, the pass's own time and the run's.
fn print_pass(r: &PassRecord, pass_seconds: f64) {
    print!(
        "pass {}: error {:.8}, {} variables moved ({} moves, {} probes), pass {:.1}s, total {:.1}s",
        r.pass,
        r.train_error,
        r.summary.changed,
        r.summary.moves,
        r.summary.probes,
        pass_seconds,
        r.seconds
    );
    if let Some(v) = r.validation_error {
        print!(", validation {v:.8}");
    }
    println!();
}

/// Error of the final parameters on both sets.
fn print_errors_after(loaded: &mut Loaded, params: &Params) {
    loaded.train.rescore(params);
    loaded.validation.rescore(params);
    print_errors(loaded, "end");
}

/// A changed value: its flat slot, before, after, and its support (training positions it
/// counts in).
type Change = (usize, i32, i32, usize);

/// Every changed value, biggest change first; prints the 20 largest with their support.
fn print_changes(before: &Params, after: &Params, train: &Dataset) -> Vec<Change> {
    let mut changes: Vec<Change> = (0..flat_params().len())
        .filter(|&i| before.flat()[i] != after.flat()[i])
        .map(|i| (i, before.flat()[i], after.flat()[i], train.support(&[i])))
        .collect();
    changes.sort_by_key(|&(i, b, a, _)| (std::cmp::Reverse((a - b).abs()), i));
    println!(
        "{} values changed; the largest (support: positions it counts in):",
        changes.len()
    );
    for (i, b, a, support) in changes.iter().take(20) {
        println!(
            "  {:<40} {b:>6} -> {a:>6} ({:+}), support {support}",
            flat_params()[*i].name(),
            a - b,
        );
    }
    changes
}

/// Appends one line to the log: the values held for want of support and every change with
/// its support.
fn log_changes(log: &std::path::Path, held: &[String], changes: &[Change]) -> Result<()> {
    use std::io::Write;
    let changes: Vec<serde_json::Value> = changes
        .iter()
        .map(|&(i, before, after, support)| {
            serde_json::json!({
                "value": flat_params()[i].name(), "before": before, "after": after,
                "support": support,
            })
        })
        .collect();
    let line = serde_json::json!({ "held": held, "changes": changes });
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(log)
        .with_context(|| format!("cannot write the log {}", log.display()))?;
    writeln!(f, "{line}").with_context(|| format!("cannot write the log {}", log.display()))
}
