//! `texel tune --traces FILE` and `texel error --traces FILE`: another engine's evaluation,
//! read from a trace, tuned with the same descent, guards, checkpoints and log as texel's.

use crate::config::TuneArgs;
use crate::data_args::{fitted_k, print_errors, DataArgs, Loaded};
use crate::outputs::Outputs;
use crate::tune_cmd::{check_resumed_settings, tune_job, tune_settings, Tuning, Watching};
use anyhow::{Context, Result};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;
use texel_tune::texel_trace::ParamSpace;
use texel_tune::{
    load_traces, select_in_space, Checkpoint, Descent, LinearDataset, Model, PassRecord, Selection,
    TraceLoad, Variable,
};

/// The options of `--epd` that have no meaning for a trace, refused by name.
fn refuse_texel_only(args: &TuneArgs) -> Result<()> {
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
    Ok(())
}

/// Reads the trace of `args`, scores it with `--params` (a JSON file of the trace's values)
/// or the header's defaults, and fits K unless given.
pub(crate) fn load(
    args: &DataArgs,
    path: &Path,
) -> Result<(Loaded<LinearDataset>, ParamSpace, Vec<i32>)> {
    crate::data_args::check_ranges(args)?;
    crate::data_args::start_threads(args)?;
    let per_mille = (args.validate.unwrap_or(0.0) * 10.0).round() as u32;
    let began = Instant::now();
    let TraceLoad {
        space,
        mut train,
        mut validation,
        fingerprint,
    } = load_traces(path, per_mille)?;
    let secs = began.elapsed().as_secs_f64();
    let start = match &args.params {
        Some(file) => values_of(&space, file)?,
        None => space.defaults(),
    };
    train.rescore(&start);
    validation.rescore(&start);
    anyhow::ensure!(
        !train.is_empty(),
        "{}: no position to tune on",
        path.display()
    );
    say!(
        "{}: {} parameters ({} values), {} training positions, {} validation positions, read \
         in {secs:.2}s",
        path.display(),
        space.params().len(),
        space.value_count(),
        train.len(),
        validation.len()
    );
    let source = path.display().to_string();
    crate::data_args::refuse_one_result((&train, &validation), &source, false)?;
    let k = match args.k10() {
        Some(k) => k,
        None => fitted_k(&train)?,
    };
    let loaded = Loaded {
        train,
        validation,
        k,
        fingerprint,
    };
    Ok((loaded, space, start))
}

/// The values of `space` in the JSON file `path` (name → values; absent names keep their
/// defaults).
pub(crate) fn values_of(space: &ParamSpace, path: &Path) -> Result<Vec<i32>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let json: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))?;
    space
        .values_from_json(&json)
        .with_context(|| format!("{}: not values of the trace's parameters", path.display()))
}

/// `texel error --traces FILE`: the error of the trace's values (`--params` or defaults).
pub fn run_error_traces(args: &DataArgs, path: &Path) -> Result<ExitCode> {
    let (loaded, _, _) = load(args, path)?;
    print_errors(&loaded, "error");
    Ok(ExitCode::SUCCESS)
}

/// The values `--group`, `--param`, `--exclude` and `--no-candidates` pick in `space`.
fn selected_values(args: &TuneArgs, space: &ParamSpace) -> Result<Vec<Variable>> {
    let selection = Selection {
        groups: args.group.clone(),
        terms: args.param.clone(),
        exclude: args.exclude.clone(),
        freeze_material: false,
        no_candidates: args.no_candidates,
    };
    Ok(select_in_space(space, &selection)?)
}

/// `texel tune --traces FILE`, after the outputs were checked.
pub fn run_tune_traces(args: &TuneArgs, outputs: &Outputs, path: &Path) -> Result<ExitCode> {
    refuse_texel_only(args)?;
    anyhow::ensure!(
        args.step.is_empty(),
        "--step names texel's terms: not with --traces"
    );
    let resumed = match &args.resume {
        Some(file) => Some(Checkpoint::<Vec<i32>>::read(file)?),
        None => None,
    };
    let mut data = args.data.clone();
    if let Some(c) = &resumed {
        data.fix_k(c.k);
    }
    let (mut loaded, space, given) = load(&data, path)?;
    let settings = tune_settings(args, &given);
    if let (Some(c), Some(file)) = (&resumed, &args.resume) {
        check_resumed_settings(c, file, &settings)?;
    }
    let vars = selected_values(args, &space)?;
    let start_values = match &resumed {
        Some(c) => c.descent.params.clone(),
        None => given,
    };
    if resumed.is_some() {
        // Scored with --params (or the defaults) so far: a resumed run goes on from its own.
        loaded.train.rescore(&start_values);
        loaded.validation.rescore(&start_values);
    }
    print_errors(&loaded, "start");
    // From here on Ctrl-C stops the run at its next safe point and leaves a checkpoint.
    crate::catch_interrupts()?;
    let mut watch = match &args.report {
        Some(page) => {
            let first = (page.as_path(), space.clone());
            Some(Watching::new(
                args,
                first,
                &mut loaded,
                resumed.as_ref(),
                &start_values,
            )?)
        }
        None => None,
    };
    let job = tune_job(args, outputs, (start_values, vars), resumed, settings);
    let name = |slot: usize| space.value_name(slot).unwrap_or_default();
    let tuning = Tuning {
        args,
        outputs,
        name: &name,
    };
    let on_pass = &mut |record: &PassRecord, descent: &Descent<LinearDataset>| match watch.as_mut()
    {
        Some(w) => w.pass(record, descent),
        None => Ok(()),
    };
    let Some(tuned) = tuning.tune(&mut loaded, job, on_pass)? else {
        return Ok(ExitCode::from(130));
    };
    outputs.finish_json(&space.to_json(&tuned))?;
    if let Some(w) = &watch {
        w.finished(&mut loaded.train, &tuned)?;
    }
    Ok(ExitCode::SUCCESS)
}
