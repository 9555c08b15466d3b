//! `texel tune --traces FILE --stream`: a binary trace tuned without keeping its positions
//! in memory, as a [`StreamSession`]: the same run protocol, settings record, checkpoint
//! format and end lines as the in-memory tune; the options of the in-memory run that it
//! does not have are refused by name.

use crate::config::TuneArgs;
use crate::outputs::Planned;
use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;
use texel_tune::texel_trace::{is_binary, BinaryTrace};
use texel_tune::{
    select_in_space, Opening, RunFiles, SessionError, StreamError, StreamEvent, StreamSession,
    StreamSessionEvent, Streamed, Unstreamed,
};

/// What a streamed run is, said when it is asked for what it does not take.
const STREAMED_RUN: &str = "(a streamed run is Newton and its polish, its values written at the \
                            end, its checkpoint after every iteration)";

/// The option that asks a streamed run for what it does not take, in words.
pub(crate) fn unstreamed_words(what: Unstreamed) -> String {
    let flag = match what {
        Unstreamed::Method => "--method",
        Unstreamed::Patience => "--patience",
        Unstreamed::WarmStart => "--warm-start",
        Unstreamed::Log => "--log",
    };
    format!("{flag} is not for --stream {STREAMED_RUN}")
}

/// What a streamed run cannot take before anything is read: the report page (a page of
/// passes it does not log) and an empty chunk. The settings it does not have are refused by
/// the session, naming their options.
fn refuse_unstreamed(args: &TuneArgs) -> Result<()> {
    anyhow::ensure!(
        args.report.is_none(),
        "--report is not for --stream {STREAMED_RUN}"
    );
    anyhow::ensure!(args.chunk > 0, "--chunk must be at least 1 position");
    Ok(())
}

/// Whether the binary trace at `path` is streamed without `--stream`: a resumed run goes on
/// as its checkpoint's kind, a fresh one streams when the trace's tuner form would need more
/// than `--memory` (said).
pub(crate) fn too_large(args: &TuneArgs, path: &Path) -> Result<bool> {
    if let Some(resume) = &args.resume {
        return Ok(texel_tune::checkpoint_kind(resume)? == texel_tune::RunKind::Streamed);
    }
    if !is_binary(path)? {
        return Ok(false);
    }
    let need = crate::memory::in_memory_need(path)?;
    let budget = args.memory.unwrap_or_else(crate::memory::default_budget);
    let stream = need > budget;
    if stream {
        println!(
            "{}: tuned in memory it would take about {need}, more than --memory {budget}: \
             streamed instead (as --stream; --memory {need} keeps it in memory)",
            path.display()
        );
    }
    Ok(stream)
}

/// Tunes the binary trace at `path` as `args` say, streaming it, into the planned `--out`.
pub(crate) fn run_streamed(args: &TuneArgs, path: &Path, planned: &Planned) -> Result<ExitCode> {
    refuse_unstreamed(args)?;
    let settings = crate::tune_cmd::tune_settings(args, true);
    if let Some(what) = settings.unstreamed() {
        anyhow::bail!(unstreamed_words(what));
    }
    anyhow::ensure!(
        is_binary(path)?,
        "--stream reads a binary trace: `texel traces convert --input {} --out {}.bin` \
         writes one",
        path.display(),
        path.with_extension("").display()
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
    println!(
        "{}: {} positions, {} values, streamed {} at a time",
        path.display(),
        trace.len(),
        slots.len(),
        args.chunk
    );
    let record = crate::tune_cmd::settings_record(args, &start);
    let session = StreamSession {
        trace: &trace,
        path,
        start: &start,
        slots: &slots,
        settings,
        lambda: args.data.lambda,
        held_out: crate::data_args::held_out(&args.data),
        files: RunFiles {
            outputs: &planned.outputs,
            resume: args.resume.as_deref(),
            fresh: args.fresh,
            record: Some(&record),
        },
    };
    // From here on Ctrl-C stops the survey (nothing written) or the tune at its next chunk
    // (its checkpoint kept).
    let stop = crate::catch_interrupts()?;
    let ended = session.run(stop, &mut show);
    finish(ended, planned)
}

/// Says how the session ended: the end lines and what was written, or how to go on.
fn finish(ended: Result<Streamed, SessionError>, planned: &Planned) -> Result<ExitCode> {
    let checkpoint = &planned.outputs.checkpoint;
    match ended {
        Err(SessionError::Stopped | SessionError::Streamed(StreamError::Stopped)) => {
            match checkpoint.exists() {
                true => println!(
                    "stopped: go on with the same command and --resume {}",
                    checkpoint.display()
                ),
                false => println!("stopped while the trace was read: nothing was tuned or written"),
            }
            Ok(ExitCode::from(130))
        }
        Err(SessionError::Streamed(StreamError::K(unfit))) => {
            let hint = crate::data_args::k_hint(&unfit, false);
            anyhow::bail!("{unfit}{hint}")
        }
        Err(e) => Err(crate::data_args::explain(e, false)),
        Ok(tuned) => {
            say_end(&tuned);
            crate::outputs::say_written(planned, None);
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Prints how a streamed run ended, in the in-memory run's words.
fn say_end(ended: &Streamed) {
    let passes = ended.iterations + u64::from(ended.polish_rounds);
    let why = match ended.limited {
        true => "pass limit reached",
        false => {
            "converged (the last pass moved nothing, or gained less than its method's tolerance)"
        }
    };
    println!(
        "finished after {passes} passes ({} Newton iterations, real values {:.8}; {} polish \
         rounds; {} values tuned): {why}",
        ended.iterations,
        ended.real_error,
        ended.polish_rounds,
        ended.tuned.len()
    );
    if ended.kept_start {
        println!("{}", crate::tune_show::START_KEPT);
    }
    crate::data_args::say_errors("end", ended.k, ended.error, ended.validation);
}

/// Shows one event of the session.
fn show(e: StreamSessionEvent) {
    match e {
        StreamSessionEvent::Opening(Opening::Cleared(c)) => crate::tune_show::say_cleared(&c),
        StreamSessionEvent::Opening(Opening::Resuming(notes)) => {
            notes.iter().for_each(|n| println!("resume: {n}"))
        }
        StreamSessionEvent::Split(split) => println!("{split}"),
        StreamSessionEvent::Surveyed(survey) => {
            if let Some(targets) = survey.targets.as_deref() {
                println!("{targets}");
            }
        }
        StreamSessionEvent::Tune(e) => show_tune(e),
    }
}

/// Shows one event of the streamed tune.
fn show_tune(e: StreamEvent) {
    match e {
        StreamEvent::Fitted(chosen) => println!("{}", crate::data_args::k_words(chosen)),
        StreamEvent::Warning(warning) => println!("{warning}"),
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
        StreamEvent::Lifted { values, error } => {
            println!(
                "{} (error {error:.8})",
                crate::tune_show::lift_words(values)
            )
        }
        StreamEvent::Held { slots, min_support } => {
            println!("{}", crate::guards::held_words(slots.len(), min_support))
        }
        StreamEvent::Pull(point) => println!("{}", crate::guards::pull_words(&point)),
        StreamEvent::PullChosen(c) => println!("{}", crate::guards::choice_words(&c)),
        StreamEvent::Checkpoint(_) => {}
    }
}
