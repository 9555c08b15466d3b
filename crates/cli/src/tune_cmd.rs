//! `texel tune` and `texel error`: coordinate descent and the error of a parameter set.

use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;
use texel_eval::params::{flat_params, to_rust, write_atomically};
use texel_eval::Params;
use texel_tune::error::{fit_k, mean_error, samples};
use texel_tune::{load, select, total_bytes, Dataset, Descent, LoadOptions, Selection};

/// Options shared by every command that reads labelled positions.
#[derive(Args)]
pub struct DataArgs {
    /// Labelled EPD/FEN files (label formats: c9 "1-0"; [1.0]; 1-0; 0.5); repeatable.
    #[arg(long, required = true)]
    epd: Vec<PathBuf>,
    /// The labels score the side to move instead of white.
    #[arg(long)]
    stm_labels: bool,
    /// Go on when more than 1% of the lines are bad.
    #[arg(long)]
    allow_bad: bool,
    /// Hold out this percentage of positions for validation (deterministic split).
    #[arg(long, value_name = "PERCENT", default_value_t = 0.0)]
    validate: f64,
    /// Starting parameter file (JSON); the table's defaults when absent.
    #[arg(long)]
    params: Option<PathBuf>,
    /// Fix K instead of fitting it.
    #[arg(long)]
    k: Option<f64>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

#[derive(Args)]
pub struct TuneArgs {
    #[command(flatten)]
    data: DataArgs,
    /// Tune only this group (repeatable).
    #[arg(long)]
    group: Vec<String>,
    /// Tune only this term (repeatable).
    #[arg(long = "param")]
    term: Vec<String>,
    /// Never tune this term (repeatable).
    #[arg(long)]
    exclude: Vec<String>,
    /// Keep the piece values fixed.
    #[arg(long)]
    freeze_material: bool,
    /// Stop after this many passes.
    #[arg(long, default_value_t = 20)]
    passes: usize,
    /// Write the tuned parameters as JSON.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write the tuned table as Rust source.
    #[arg(long)]
    rust: Option<PathBuf>,
}

#[derive(Args)]
pub struct ErrorArgs {
    #[command(flatten)]
    data: DataArgs,
}

/// A progress bar on stderr, hidden when stderr is not a terminal.
fn bar(len: u64, template: &str) -> ProgressBar {
    let pb = ProgressBar::with_draw_target(
        Some(len),
        if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    pb.set_style(ProgressStyle::with_template(template).expect("valid template"));
    pb
}

/// Loaded data: training and validation sets, the start parameters and K.
struct Loaded {
    train: Dataset,
    validation: Dataset,
    params: Params,
    k: f64,
}

fn load_data(args: &DataArgs) -> Result<Loaded> {
    if let Some(n) = args.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .context("cannot start threads")?;
    }
    let params = crate::load_params(args.params.as_deref())?;
    if !(0.0..100.0).contains(&args.validate) {
        anyhow::bail!(
            "--validate must be a percentage below 100, not {}",
            args.validate
        );
    }
    let options = LoadOptions {
        stm_labels: args.stm_labels,
        validation_per_mille: (args.validate * 10.0).round() as u32,
        allow_bad: args.allow_bad,
    };
    let pb = bar(
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
        params,
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

pub fn run_error(args: &ErrorArgs) -> Result<()> {
    let loaded = load_data(&args.data)?;
    print_errors(&loaded, "error");
    Ok(())
}

pub fn run_tune(args: &TuneArgs) -> Result<()> {
    let selection = Selection {
        groups: args.group.clone(),
        terms: args.term.clone(),
        exclude: args.exclude.clone(),
        freeze_material: args.freeze_material,
    };
    let vars = select(&selection)?;
    let mut loaded = load_data(&args.data)?;
    print_errors(&loaded, "start");
    let start_params = loaded.params.clone();
    let k = loaded.k;
    let count = vars.len();
    println!("tuning {count} variables");
    let mut descent = Descent::new(&mut loaded.train, start_params.clone(), k, vars);
    let started = Instant::now();
    for pass in 1..=args.passes {
        let pb = bar(
            count as u64,
            "pass {msg} {bar:30} {pos}/{len} variables, {elapsed} elapsed",
        );
        pb.set_message(pass.to_string());
        let summary = descent.pass(&mut |tried, error| {
            pb.set_position(tried as u64);
            pb.set_message(format!("{pass}: error {error:.8}"));
        });
        pb.finish_and_clear();
        let error = descent.refresh();
        let params = descent.params().clone();
        print!(
            "pass {pass}: error {error:.8}, {} variables moved ({} moves, {} probes), {:.1}s",
            summary.changed,
            summary.moves,
            summary.probes,
            started.elapsed().as_secs_f64()
        );
        if !loaded.validation.is_empty() {
            texel_tune::retrace_all(&mut loaded.validation, &params);
            print!(", validation {:.8}", mean_error(&loaded.validation, k));
        }
        println!();
        if summary.moves == 0 {
            break;
        }
    }
    let tuned = descent.params().clone();
    print_changes(&start_params, &tuned);
    if let Some(path) = &args.out {
        tuned.save(path)?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = &args.rust {
        write_atomically(path, to_rust(&tuned).as_bytes())
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
