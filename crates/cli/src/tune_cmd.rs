//! `texel tune`: the front of a tune session (texel's table from EPD, or another engine's
//! evaluation from a trace).

use crate::config::TuneArgs;
use crate::data_args::{check_ranges, start_threads};
use crate::tune_show::TuneShow;
use anyhow::Result;
use std::process::ExitCode;
use texel_dataset::select;
use texel_run::{flag_of, values_fingerprint, Role, Settings};
use texel_solve::{Values, Variable};
use texel_tune::{RunOptions, Selection, Session, Streaming, Subject, TraceSubject, TuneSettings};

/// The values `--group`, `--param`, `--exclude`, `--freeze-material` and `--no-candidates`
/// pick.
pub(crate) fn selection(args: &TuneArgs) -> Selection {
    Selection {
        groups: args.group.clone(),
        terms: args.param.clone(),
        exclude: args.exclude.clone(),
        freeze_material: args.freeze_material,
        no_candidates: args.no_candidates,
    }
}

/// The variables of texel's table the options select, with the steps of `--step`.
fn selected(args: &TuneArgs) -> Result<Vec<Variable>> {
    let vars = select(&selection(args)).map_err(|e| match e {
        texel_tune::SelectionError::UnknownGroup(_) => {
            let groups: Vec<&str> = texel_eval::table::Group::ALL
                .iter()
                .map(|g| g.name())
                .collect();
            anyhow::anyhow!("{e} (texel's groups: {})", groups.join(", "))
        }
        e => e.into(),
    })?;
    crate::config::with_steps(vars, &args.step)
}

/// Every setting that changes what a tune run finds (a resume must repeat them), and those
/// that only change how long it goes, read off the settings record; `start` is the values
/// `--params` gives (recorded by content; the data is compared by its own fingerprint).
pub(crate) fn settings_record(args: &TuneArgs, start: &[i32]) -> Settings {
    let role = |key: &str| match key {
        "passes" | "patience" | "max_time" | "polish_tolerance" => Role::Length,
        // The data is compared by its fingerprint, a mix of sources by what it asks and gives.
        "epd" | "sources" | "traces" | "params" | "allow_bad" | "threads" => Role::Ignored,
        "out" | "rust" | "log" | "report" | "checkpoint" | "checkpoint_secs" => Role::Ignored,
        // The checkpoint keeps the run's kind: a resume of the other kind is refused by it.
        "stream" | "memory" => Role::Ignored,
        _ => Role::Fixed,
    };
    let values = format!("values {}", values_fingerprint(start));
    // Runs recorded before λ was auto tuned on results alone unless it was given.
    let lambda_then = texel_tune::Lambda::RESULTS;
    // Runs recorded before --chunk was a setting read its default.
    let chunk_then = texel_tune::Streaming::default().chunk;
    Settings::of_record(args, role)
        .fixed(&flag_of("params"), values)
        .default_was(&flag_of("lambda"), lambda_then)
        .default_was(&flag_of("chunk"), chunk_then)
}

/// Checks the numeric options of `texel tune`.
pub(crate) fn check_tune_ranges(args: &TuneArgs) -> Result<()> {
    anyhow::ensure!(args.passes != 0, "--passes must be at least 1");
    anyhow::ensure!(args.patience != Some(0), "--patience must be at least 1");
    anyhow::ensure!(
        args.patience.is_none() || args.data.validate.is_some_and(|v| v > 0.0),
        "--patience counts passes without a new best validation error: give --validate PERCENT \
         with it"
    );
    let (s, r) = (args.checkpoint_secs, args.adam_rate);
    anyhow::ensure!(
        s.is_finite() && s > 0.0,
        "--checkpoint-secs must be above 0, not {s}"
    );
    anyhow::ensure!(
        r.is_finite() && r > 0.0,
        "--adam-rate must be above 0, not {r}"
    );
    anyhow::ensure!(args.adam_epochs != 0, "--adam-epochs must be at least 1");
    if let Some(p) = args.polish_tolerance {
        anyhow::ensure!(
            p.is_finite() && p >= 0.0,
            "--polish-tolerance must be 0 or above, not {p}"
        );
    }
    let cd = args.method == texel_solve::Method::Cd;
    anyhow::ensure!(
        args.warm_start.is_none_or(|n| n <= 1) || cd,
        "--warm-start works with --method cd only"
    );
    Ok(())
}

/// How the tune runs, read off the arguments once (in memory or streamed alike): K, the
/// guards, the run's passes, patience and method, and `--chunk` (read when the run streams).
pub(crate) fn tune_settings(args: &TuneArgs) -> TuneSettings {
    TuneSettings {
        k: args.data.k10(),
        min_support: args.min_support,
        l2: args.l2,
        constraints: !args.no_constraints,
        run: RunOptions {
            passes: args.passes,
            patience: args.patience,
            checkpoint_secs: args.checkpoint_secs,
            method: args.method,
            adam_rate: args.adam_rate,
            adam_epochs: args.adam_epochs,
            warm_start: args.warm_start,
            log: args.log.clone(),
            deadline: (args.max_time.as_ref()).map(|m| std::time::Instant::now() + m.duration),
            polish_tolerance: args.polish_tolerance,
            ..RunOptions::default()
        },
        stream: Streaming {
            chunk: args.chunk,
            form: None,
        },
    }
}

pub fn run_tune(args: &TuneArgs) -> Result<ExitCode> {
    check_tune_ranges(args)?;
    check_ranges(&args.data)?;
    let planned = crate::outputs::plan(args)?;
    start_threads(&args.data)?;
    if let Some(path) = &args.data.traces {
        crate::tune_traces::refuse_texel_only(args)?;
        crate::tune_traces::refuse_unstreamed(args)?;
        crate::tune_traces::refuse_text_budget(args, path)?;
        let held_out = crate::data_args::held_out(&args.data);
        let params = args.data.params.as_deref();
        let subject = TraceSubject {
            lambda: args.data.lambda,
            holding: crate::tune_traces::holding(args),
            ..TraceSubject::open(path, params, &selection(args), held_out)?
        };
        return tune(args, planned, subject);
    }
    anyhow::ensure!(
        !args.stream,
        "--stream tunes a binary trace (--traces FILE.bin); texel's own table tunes in memory"
    );
    anyhow::ensure!(
        args.memory.is_none(),
        "--memory is the budget of a binary trace (--traces FILE.bin), past which it streams; \
         texel's own table tunes in memory"
    );
    let vars = selected(args)?;
    let given = crate::load_params(args.data.params.as_deref())?;
    let given = match args.no_candidates {
        true => given.without_candidates(),
        false => given,
    };
    let rust = args.rust.clone();
    let subject = crate::data_args::table_subject(&args.data, given, vars, rust)?;
    tune(args, planned, subject)
}

/// Tunes `subject` into the planned outputs as `args` say, showing the session.
fn tune<S: Subject>(
    args: &TuneArgs,
    planned: crate::outputs::Planned,
    subject: S,
) -> Result<ExitCode> {
    let record = (subject.recorded().into_iter()).fold(
        settings_record(args, subject.given().values()),
        |r, (name, value)| r.fixed(&name, value),
    );
    let epd = args.data.traces.is_none();
    let settings = tune_settings(args);
    let mut show = TuneShow::new(
        (args, settings.run.clone()),
        subject.space(),
        subject.bytes(),
    );
    let session = Session {
        settings,
        resume: args.resume.clone(),
        fresh: args.fresh,
        record: Some(record),
        ..Session::new(subject, planned.outputs.clone())
    };
    let reading = show.reading.clone();
    // From here on Ctrl-C stops the load (nothing written) or the run at its next safe point
    // (its checkpoint kept).
    let stop = crate::catch_interrupts()?;
    let ended = session
        .run(stop, &|b| reading.set_position(b), &mut |e| show.event(e))
        .map_err(|e| crate::explain::explain(e, epd))?;
    show.ended(ended, &planned)
}
