//! `texel tune` and `texel error`: coordinate descent and the error of a parameter set.

use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;
use texel_eval::params::{flat_params, to_rust, write_atomically};
use texel_eval::Params;
use texel_tune::error::{fit_k, mean_error, samples};
use texel_tune::{
    fresh, load, run, select, total_bytes, Checkpoint, Control, Dataset, Event, LoadOptions,
    RunEnd, RunOptions, Selection,
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
    #[arg(long, value_name = "PERCENT")]
    pub validate: Option<f64>,
    /// Starting parameter file (JSON); the table's defaults when absent.
    #[arg(long)]
    pub params: Option<PathBuf>,
    /// Fix K instead of fitting it.
    #[arg(long)]
    pub k: Option<f64>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
}

#[derive(Args, Clone)]
pub struct TuneArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// Tune only this group (repeatable).
    #[arg(long)]
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
    /// Settings from a JSON file (configs/*.json); flags given here override it.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Stop after this many passes [default: 20].
    #[arg(long)]
    pub passes: Option<usize>,
    /// With --validate: stop when the validation error rose this many passes in a row, and
    /// keep the parameters that were best on validation.
    #[arg(long)]
    pub patience: Option<usize>,
    /// Append one JSON line per pass (pass, errors, moves, seconds) to this file.
    #[arg(long)]
    pub log: Option<PathBuf>,
    /// Checkpoint file (default: OUT.ckpt, or texel-tune.ckpt without --out).
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// Seconds between checkpoints; one is also written after every pass and on Ctrl-C
    /// [default: 300].
    #[arg(long)]
    pub checkpoint_secs: Option<f64>,
    /// Continue the run saved in this checkpoint (same data; selection and K come from it).
    #[arg(long)]
    pub resume: Option<PathBuf>,
    /// Write the tuned parameters as JSON.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write the tuned table as Rust source.
    #[arg(long)]
    pub rust: Option<PathBuf>,
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
}

pub fn load_data(args: &DataArgs, params: Params) -> Result<Loaded> {
    if let Some(n) = args.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .context("cannot start threads")?;
    }
    if args.epd.is_empty() {
        anyhow::bail!("no labelled positions: give --epd FILE (or \"epd\" in --config)");
    }
    let validate = args.validate.unwrap_or(0.0);
    if !(0.0..100.0).contains(&validate) {
        anyhow::bail!("--validate must be a percentage below 100, not {validate}");
    }
    let options = LoadOptions {
        stm_labels: args.stm_labels,
        validation_per_mille: (validate * 10.0).round() as u32,
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

pub fn run_tune(args: &TuneArgs) -> Result<ExitCode> {
    let mut args = args.clone();
    let steps = match args.config.clone() {
        Some(path) => crate::config::apply(&path, &mut args)?,
        None => Default::default(),
    };
    let args = &args;
    let checkpoint_path = args.checkpoint.clone().unwrap_or_else(|| match &args.out {
        Some(out) => PathBuf::from(format!("{}.ckpt", out.display())),
        None => PathBuf::from("texel-tune.ckpt"),
    });
    let resumed = args.resume.as_deref().map(Checkpoint::load).transpose()?;
    let selected = match &resumed {
        Some(_) => None,
        None => Some(
            select(&Selection {
                groups: args.group.clone(),
                terms: args.term.clone(),
                exclude: args.exclude.clone(),
                freeze_material: args.freeze_material,
            })
            .map(|vars| crate::config::with_steps(vars, &steps))??,
        ),
    };
    let mut data = args.data.clone();
    if let Some(c) = &resumed {
        data.k = Some(c.k);
    }
    let start_params = match &resumed {
        Some(c) => c.descent.params.clone(),
        None => crate::load_params(data.params.as_deref())?,
    };
    let mut loaded = load_data(&data, start_params.clone())?;
    print_errors(&loaded, "start");
    let start = match (resumed, selected) {
        (Some(c), _) => {
            println!(
                "resuming after {} passes ({} variables)",
                c.passes,
                c.vars.len()
            );
            c
        }
        (None, vars) => {
            let vars = vars.expect("selected when not resuming");
            println!("tuning {} variables", vars.len());
            fresh(&loaded.train, start_params.clone(), loaded.k, vars)
        }
    };
    let vars = start.vars.len() as u64;
    let options = RunOptions {
        passes: args.passes.unwrap_or(20),
        patience: args.patience,
        log: args.log.clone(),
        checkpoint: Some(checkpoint_path.clone()),
        checkpoint_secs: args.checkpoint_secs.unwrap_or(300.0),
    };
    let interrupted = Arc::new(AtomicBool::new(false));
    let flag = interrupted.clone();
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst))
        .context("cannot catch Ctrl-C")?;
    let start_error = mean_error(&loaded.train, loaded.k);
    let template = "pass {msg} {bar:30} {pos}/{len} variables walked, {elapsed} elapsed, eta {eta}";
    let pb = crate::progress_bar(vars, template);
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
                pb.suspend(|| {
                    print!(
                        "pass {}: error {:.8}, {} variables moved ({} moves, {} probes), {:.1}s",
                        r.pass,
                        r.train_error,
                        r.summary.changed,
                        r.summary.moves,
                        r.summary.probes,
                        r.seconds
                    );
                    if let Some(v) = r.validation_error {
                        print!(", validation {v:.8}");
                    }
                    println!();
                });
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
        &options,
        &mut on_event,
    )?;
    pb.finish_and_clear();
    let tuned = result.params;
    print_changes(&start_params, &tuned);
    write_outputs(args, &tuned)?;
    match result.end {
        RunEnd::Interrupted => {
            println!(
                "interrupted after {} passes; state saved in {} (continue with --resume {})",
                result.passes,
                checkpoint_path.display(),
                checkpoint_path.display()
            );
            Ok(ExitCode::from(130))
        }
        end => {
            let why = match end {
                RunEnd::Converged => "a pass moved nothing",
                RunEnd::PassLimit => "pass limit reached",
                _ => "validation error stopped improving (kept the best parameters)",
            };
            println!("finished after {} passes: {why}", result.passes);
            print_errors_after(&mut loaded, &tuned);
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Error of the final parameters on both sets.
fn print_errors_after(loaded: &mut Loaded, params: &Params) {
    loaded.train.rescore(params);
    loaded.validation.rescore(params);
    print_errors(loaded, "end");
}

/// Writes `--out` and `--rust`.
fn write_outputs(args: &TuneArgs, tuned: &Params) -> Result<()> {
    if let Some(path) = &args.out {
        tuned.save(path)?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = &args.rust {
        write_atomically(path, to_rust(tuned).as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// The largest changes, biggest first.
fn print_changes(before: &Params, after: &Params) {
    let mut changes: Vec<(usize, i32, i32)> = (0..flat_params().len())
        .filter(|&i| before.flat()[i] != after.flat()[i])
        .map(|i| (i, before.flat()[i], after.flat()[i]))
        .collect();
    changes.sort_by_key(|&(i, b, a)| (std::cmp::Reverse((a - b).abs()), i));
    println!("{} values changed; the largest:", changes.len());
    for (i, b, a) in changes.iter().take(20) {
        println!(
            "  {:<40} {b:>6} -> {a:>6} ({:+})",
            flat_params()[*i].name(),
            a - b
        );
    }
}
