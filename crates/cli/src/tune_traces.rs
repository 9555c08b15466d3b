//! `--traces FILE`: another engine's evaluation, read from a trace, tuned with the same
//! session, descent, guards, checkpoints and log as texel's table; the options that only
//! texel's table has are refused by name. A binary trace's run may read the positions from
//! the file in every pass (`--stream`, or past `--memory`): the same session, its steps
//! said by `run_words`.

use crate::config::TuneArgs;
use crate::data_args::{check_ranges, load_subject, start_threads, DataArgs, Loaded};
use anyhow::Result;
use std::path::Path;
use texel_tune::{Holding, Selection, TraceDataset, TraceSubject};

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
/// the session, named by `explain::unstreamed_words`.
pub(crate) fn refuse_unstreamed(args: &TuneArgs) -> Result<()> {
    anyhow::ensure!(
        !(args.stream && args.report.is_some()),
        "--report is not for --stream {}",
        crate::explain::STREAMED_RUN
    );
    anyhow::ensure!(args.chunk > 0, "--chunk must be at least 1 position");
    Ok(())
}

/// `--memory` on a text trace, refused: a text trace loads in memory whatever the budget
/// (only a binary one streams past it).
pub(crate) fn refuse_text_budget(args: &TuneArgs, path: &Path) -> Result<()> {
    if args.memory.is_some() && !texel_tune::texel_trace::is_binary(path)? {
        anyhow::bail!(
            "--memory is the budget past which a binary trace streams, and {} is a text trace, \
             loaded in memory whatever the budget: `{}` writes the binary form",
            path.display(),
            crate::explain::to_binary_command(path)
        );
    }
    Ok(())
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
) -> Result<(Loaded<TraceDataset>, TraceSubject)> {
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
