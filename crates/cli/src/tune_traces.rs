//! `--traces FILE`: another engine's evaluation, read from a trace, tuned with the same
//! session, descent, guards, checkpoints and log as texel's table; the options that only
//! texel's table has are refused by name. A binary trace's run may read the positions from
//! the file in every pass (`--stream`, or past `--memory`): the same session, its steps
//! said here.

use crate::config::TuneArgs;
use crate::data_args::{check_ranges, load_subject, start_threads, DataArgs, Loaded};
use crate::memory::MemorySize;
use anyhow::Result;
use std::path::Path;
use texel_tune::{
    Holding, LinearDataset, Selection, StreamEvent, StreamWhy, Streamed, TraceSubject, Unstreamed,
};

/// What a streamed run is, said when it is asked for what it does not take.
const STREAMED_RUN: &str = "(a streamed run is Newton and its polish, its values written at the \
                            end, its checkpoint after every iteration)";

/// How the run holds the trace's positions: `--stream`, or in memory within `--memory`
/// (the library streams a binary trace whose tuner form needs more).
pub(crate) fn holding(args: &TuneArgs) -> Holding {
    match args.stream {
        true => Holding::Stream,
        false => Holding::Budget(args.memory.map_or_else(texel_tune::default_budget, |m| m.0)),
    }
}

/// What `--stream` cannot take before anything is read: the report page (a page of
/// passes it does not log), an empty chunk. The settings it does not have are refused by
/// the session, named by [`unstreamed_words`].
pub(crate) fn refuse_unstreamed(args: &TuneArgs) -> Result<()> {
    anyhow::ensure!(
        !(args.stream && args.report.is_some()),
        "--report is not for --stream {STREAMED_RUN}"
    );
    anyhow::ensure!(args.chunk > 0, "--chunk must be at least 1 position");
    Ok(())
}

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

/// Why the run reads the positions from the file in every pass, in words (`None`: asked,
/// nothing to say).
pub(crate) fn streaming_words(why: StreamWhy, report: bool) -> Option<String> {
    let said = match why {
        StreamWhy::Asked => return None,
        StreamWhy::Resumed => "the checkpoint is a streamed run's: it goes on streamed".into(),
        StreamWhy::TooLarge { need, budget } => {
            let (need, budget) = (MemorySize(need), MemorySize(budget));
            format!(
                "tuned in memory it would take about {need}, more than --memory {budget}: \
                 streamed instead (as --stream; --memory {need} keeps it in memory)"
            )
        }
    };
    let page = match report {
        true => "; --report draws no page of a streamed run",
        false => "",
    };
    Some(format!("{said}{page}"))
}

/// Says how a streamed run ended, in the in-memory run's words.
pub(crate) fn say_streamed_end(ended: &Streamed) {
    let why = match ended.limited {
        true => "pass limit reached",
        false => {
            "converged (the last pass moved nothing, or gained less than its method's tolerance)"
        }
    };
    say!(
        "finished after {} passes ({} Newton iterations, real values {:.8}; {} polish \
         rounds; {} values tuned): {why}",
        ended.passes(),
        ended.iterations,
        ended.real_error,
        ended.polish_rounds,
        ended.tuned.len()
    );
    if ended.kept_start {
        say!("{}", crate::tune_show::START_KEPT);
    }
    crate::data_args::say_errors("end", ended.k, ended.error, ended.validation);
}

/// One event of a streamed run, in words (`None`: nothing to say).
pub(crate) fn stream_words(e: StreamEvent) -> Option<String> {
    Some(match e {
        StreamEvent::Fitted(chosen) => crate::data_args::k_words(chosen),
        StreamEvent::Warning(warning) => warning,
        StreamEvent::Iteration {
            number,
            error,
            fall,
            seconds,
        } => format!(
            "newton {number}: error {error:.8} (objective -{:.3} %) in {seconds:.2}s",
            100.0 * fall
        ),
        StreamEvent::Polish {
            round,
            moved,
            error,
            seconds,
        } => format!("polish {round}: {moved} values moved, error {error:.8} in {seconds:.2}s"),
        StreamEvent::Lifted { values, error } => {
            format!(
                "{} (error {error:.8})",
                crate::tune_show::lift_words(values)
            )
        }
        StreamEvent::Held { slots, min_support } => {
            crate::guards::held_words(slots.len(), min_support)
        }
        StreamEvent::Pull(point) => crate::guards::pull_words(&point),
        StreamEvent::PullChosen(c) => crate::guards::choice_words(&c),
        StreamEvent::Checkpoint(_) => return None,
    })
}

/// The options of `--epd` that have no meaning for a trace, refused by name.
pub(crate) fn refuse_texel_only(args: &TuneArgs) -> Result<()> {
    let texel_only = [
        ("--rust", args.rust.is_some()),
        ("--freeze-material", args.freeze_material),
    ];
    for (flag, given) in texel_only {
        anyhow::ensure!(
            !given,
            "{flag} works on texel's own table, not with --traces (the tuned values go to \
             --out as JSON; `texel export --space TRACE --params OUT --template FILE` writes \
             them into your source)"
        );
    }
    anyhow::ensure!(
        args.step.is_empty(),
        "--step names texel's terms: not with --traces"
    );
    Ok(())
}

/// Reads the trace at `path`, scores it with `--params` (a JSON file of the trace's values)
/// or the header's defaults, and fits K unless given; the trace as a subject of every value.
pub(crate) fn load_trace(
    args: &DataArgs,
    path: &Path,
) -> Result<(Loaded<LinearDataset>, TraceSubject)> {
    check_ranges(args)?;
    start_threads(args)?;
    let held_out = crate::data_args::held_out(args);
    let params = args.params.as_deref();
    let subject = TraceSubject {
        lambda: args.lambda,
        ..TraceSubject::open(path, params, &Selection::default(), held_out)?
    };
    let loaded = load_subject(&subject, &subject.given, args.k10())?;
    Ok((loaded, subject))
}
