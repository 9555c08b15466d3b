//! `texel tune --traces FILE --stream`: a binary trace tuned without keeping its positions
//! in memory (`texel_tune::tune_streamed`); the options of the in-memory run that it does
//! not have are refused by name.

use crate::config::TuneArgs;
use crate::outputs::Planned;
use anyhow::{Context, Result};
use std::path::Path;
use std::process::ExitCode;
use texel_tune::texel_trace::{is_binary, BinaryTrace};
use texel_tune::{
    scored_positions, select_in_space, tune_streamed, Lambda, StreamError, StreamEvent,
    StreamSettings, StreamState, Streamed, TraceSubjectError, L2,
};

/// Options of the in-memory run a streamed run does not have.
fn refuse_unstreamed(args: &TuneArgs) -> Result<()> {
    let unstreamed = [
        ("--log", args.log.is_some()),
        ("--report", args.report.is_some()),
        ("--patience", args.patience.is_some()),
        ("--warm-start", args.warm_start.is_some()),
        ("--method", args.method != texel_tune::Method::default()),
        ("--l2 auto", args.l2 == L2::Auto),
    ];
    for (flag, given) in unstreamed {
        anyhow::ensure!(
            !given,
            "{flag} is not for --stream (a streamed run is Newton and its polish, its \
             values written at the end, its checkpoint after every iteration)"
        );
    }
    Ok(())
}

/// Tunes the binary trace at `path` as `args` say, streaming it, into the planned `--out`.
pub(crate) fn run_streamed(args: &TuneArgs, path: &Path, planned: &Planned) -> Result<ExitCode> {
    refuse_unstreamed(args)?;
    anyhow::ensure!(
        is_binary(path)?,
        "--stream reads a binary trace: `texel traces convert {} OUT.bin` writes one",
        path.display()
    );
    let trace = BinaryTrace::read(path)?;
    let space = trace.space();
    let start = match args.data.params.as_deref() {
        Some(p) => space.read_values(p)?,
        None => space.defaults(),
    };
    let slots: Vec<usize> = select_in_space(space, &crate::tune_cmd::selection(args))?
        .iter()
        .map(|v| v.slot)
        .collect();
    let settings = stream_settings(args, lambda_of(args, path, &trace)?);
    println!(
        "{}: {} positions, {} values, streamed {} at a time",
        path.display(),
        trace.len(),
        slots.len(),
        settings.chunk
    );
    let checkpoint = &planned.outputs.checkpoint;
    let resume = resumed(args, checkpoint)?;
    let stop = crate::catch_interrupts()?;
    let mut saved = Ok(());
    let run = tune_streamed(
        &trace,
        (&start, &slots),
        &settings,
        resume,
        stop,
        |e| match e {
            StreamEvent::Checkpoint(state) if saved.is_ok() => saved = save(checkpoint, &state),
            e => show(e),
        },
    );
    saved?;
    let ended = match run {
        Err(StreamError::Stopped) => {
            println!(
                "stopped: go on with the same command and --resume {}",
                checkpoint.display()
            );
            return Ok(ExitCode::from(130));
        }
        Err(StreamError::K(unfit)) => {
            let hint = crate::data_args::k_hint(&unfit, false);
            anyhow::bail!("streamed tune of {}: {unfit}{hint}", path.display())
        }
        run => run.with_context(|| format!("streamed tune of {}", path.display()))?,
    };
    show_end(&ended);
    space.save_values(&ended.values, &planned.outputs.out)?;
    println!(
        "wrote the tuned parameters to {}",
        planned.outputs.out.display()
    );
    if checkpoint.exists() {
        std::fs::remove_file(checkpoint)
            .with_context(|| format!("cannot remove {}", checkpoint.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The λ of `args` resolved for `trace` (a pass counts its scores unless the targets are
/// results alone), and printed.
fn lambda_of(args: &TuneArgs, path: &Path, trace: &BinaryTrace) -> Result<f64> {
    let lambda = args.data.lambda;
    if lambda == Lambda::RESULTS {
        return Ok(1.0);
    }
    let scored = scored_positions(trace, args.chunk)?;
    if let Some(targets) = lambda.describe(scored, trace.len()) {
        println!("{targets}");
    }
    let resolved = lambda.resolve(scored, trace.len());
    if resolved < 1.0 && scored == 0 {
        return Err(TraceSubjectError::NoScores(path.to_path_buf()).into());
    }
    Ok(resolved)
}

/// The settings of `args` as a streamed run takes them, with `lambda` resolved.
fn stream_settings(args: &TuneArgs, lambda: f64) -> StreamSettings {
    StreamSettings {
        k: args.data.k10(),
        lambda,
        l2: match args.l2 {
            L2::Fixed(l2) => l2,
            L2::Auto => 0.0,
        },
        validation_per_mille: crate::data_args::validation_per_mille(&args.data),
        min_support: args.min_support,
        chunk: args.chunk,
    }
}

/// Prints how a streamed run ended.
fn show_end(ended: &Streamed) {
    println!(
        "end: K {:.4}  error {:.8}  validation {}  (real values {:.8}; {} iterations, {} polish \
         rounds, {} values tuned)",
        ended.k,
        ended.error,
        ended.validation.map_or("-".into(), |v| format!("{v:.8}")),
        ended.real_error,
        ended.iterations,
        ended.polish_rounds,
        ended.tuned.len()
    );
}

/// The state `--resume` names, or none; a checkpoint left at the planned place without
/// `--resume` or `--fresh` is refused (it would be overwritten).
fn resumed(args: &TuneArgs, checkpoint: &Path) -> Result<Option<StreamState>> {
    let Some(from) = &args.resume else {
        anyhow::ensure!(
            args.fresh || !checkpoint.exists(),
            "{} holds a streamed run that was stopped: go on with --resume {0}, or start \
             again with --fresh",
            checkpoint.display()
        );
        return Ok(None);
    };
    let text = std::fs::read_to_string(from)
        .with_context(|| format!("cannot read the checkpoint {}", from.display()))?;
    let state = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a streamed run's checkpoint", from.display()))?;
    Ok(Some(state))
}

/// Writes `state` to `checkpoint` atomically.
fn save(checkpoint: &Path, state: &StreamState) -> Result<()> {
    let text = serde_json::to_string(state).expect("plain data");
    texel_files::write_atomically(checkpoint, text.as_bytes())
        .with_context(|| format!("cannot write the checkpoint {}", checkpoint.display()))
}

/// Prints what a streamed tune reports.
fn show(event: StreamEvent) {
    match event {
        StreamEvent::Checkpoint(_) => {}
        StreamEvent::Fitted(chosen) => println!("{}", crate::data_args::k_words(chosen)),
        StreamEvent::Iteration {
            number,
            error,
            fall,
            seconds,
        } => println!(
            "newton {number}: error {error:.8} (objective -{:.3} %) in {seconds:.2}s",
            100.0 * fall
        ),
        StreamEvent::Polish {
            round,
            moved,
            error,
            seconds,
        } => println!("polish {round}: {moved} values moved, error {error:.8} in {seconds:.2}s"),
    }
}
