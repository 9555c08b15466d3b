//! `texel tune` and `texel error`: coordinate descent and the error of a parameter set.

use crate::config::TuneArgs;
use crate::data_args::{check_ranges, load_data, print_errors, DataArgs, Loaded};
use crate::outputs::Outputs;
use crate::paths::Files;
use crate::report_cmd::TuneWatch;
use anyhow::{Context, Result};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use texel_dataset::{select, Dataset};
use texel_eval::params::flat_params;
use texel_eval::Params;
use texel_run::Settings;
use texel_run::{flag_of, values_fingerprint, Role};
use texel_tune::error::mean_error;
use texel_tune::log::{PassKind, ValueChange};
use texel_tune::{
    Checkpoint, Control, Descent, Event, JobEvent, Model, PassRecord, RunEnd, RunOptions,
    Selection, TuneJob, Tuned, Values, Variable, ADAM_EPOCHS_PER_PASS,
};

#[derive(Args)]
pub struct ErrorArgs {
    #[command(flatten)]
    data: DataArgs,
}

pub fn run_error(args: &ErrorArgs) -> Result<ExitCode> {
    if let Some(path) = &args.data.traces {
        crate::paths::Files::new()
            .read("--traces", Some(path))
            .read("--params", args.data.params.as_deref())
            .check()?;
        return crate::tune_traces::run_error_traces(&args.data, path);
    }
    let params = crate::load_params(args.data.params.as_deref())?;
    let loaded = load_data(&args.data, params)?;
    print_errors(&loaded, "error");
    Ok(ExitCode::SUCCESS)
}

/// The variables the options select, with the steps of `--step`.
fn selected(args: &TuneArgs) -> Result<Vec<Variable>> {
    let vars = select(&Selection {
        groups: args.group.clone(),
        terms: args.param.clone(),
        exclude: args.exclude.clone(),
        freeze_material: args.freeze_material,
        no_candidates: args.no_candidates,
    })
    .map_err(|e| match e {
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

/// The files a tune run reads.
fn inputs(args: &TuneArgs) -> Files {
    Files::new()
        .read_all("--epd", &args.data.epd)
        .read("--traces", args.data.traces.as_deref())
        .read("--params", args.data.params.as_deref())
        .read("--resume", args.resume.as_deref())
        .read("--config", args.config.as_deref())
}

/// Every setting that changes what a tune run finds (a resume must repeat them), and those
/// that only change how long it goes, read off the settings record; `start` is the values
/// `--params` gives (recorded by content; the data is compared by its own fingerprint).
pub(crate) fn tune_settings(args: &TuneArgs, start: &[i32]) -> Settings {
    let role = |key: &str| match key {
        "passes" | "patience" => Role::Length,
        "epd" | "traces" | "params" | "allow_bad" | "threads" => Role::Ignored,
        "out" | "rust" | "log" | "report" | "checkpoint" | "checkpoint_secs" => Role::Ignored,
        _ => Role::Fixed,
    };
    let values = format!("values {}", values_fingerprint(start));
    Settings::of_record(args, role).fixed(&flag_of("params"), values)
}

/// Refuses to resume `checkpoint` (read from `path`) with other settings than it began
/// with; prints a note for each setting that only changes how long the run goes.
pub(crate) fn check_resumed_settings<V>(
    checkpoint: &Checkpoint<V>,
    path: &Path,
    now: &Settings,
) -> Result<()> {
    let Some(then) = &checkpoint.settings else {
        eprintln!(
            "note: {} was written before texel recorded settings; they are not compared",
            path.display()
        );
        return Ok(());
    };
    let notes = then
        .check_resume(now)
        .with_context(|| format!("cannot resume {}", path.display()))?;
    for note in notes {
        say!("resume: {note}");
    }
    Ok(())
}

/// Where a run begins: the data options (a resumed run's K), the settings it records and
/// the values it goes on from.
struct Begin {
    data: DataArgs,
    settings: Settings,
    start_params: Params,
}

/// The run's beginning from the options and the checkpoint of `--resume`, whose settings
/// must match these.
fn begin(args: &TuneArgs, resumed: Option<&Checkpoint<Params>>) -> Result<Begin> {
    let mut data = args.data.clone();
    let given = crate::load_params(data.params.as_deref())?;
    let given = if args.no_candidates {
        given.without_candidates()
    } else {
        given
    };
    let settings = tune_settings(args, given.flat());
    if let (Some(c), Some(path)) = (resumed, &args.resume) {
        check_resumed_settings(c, path, &settings)?;
        data.fix_k(c.k);
    }
    // A resumed run goes on from the checkpoint's values.
    let start_params = match resumed {
        Some(c) => c.descent.params.clone(),
        None => given,
    };
    Ok(Begin {
        data,
        settings,
        start_params,
    })
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
    let cd = args.method == texel_tune::Method::Cd;
    anyhow::ensure!(
        args.warm_start.is_none_or(|n| n <= 1) || cd,
        "--warm-start works with --method cd only"
    );
    Ok(())
}

/// The job of `texel tune` over `vars` from `start`: the guards and run options of the
/// arguments, the checkpoint of `--resume` to continue, the settings the run records.
pub(crate) fn tune_job<V>(
    args: &TuneArgs,
    outputs: &Outputs,
    (start, vars): (V, Vec<Variable>),
    resumed: Option<Checkpoint<V>>,
    settings: Settings,
) -> TuneJob<V> {
    TuneJob {
        min_support: args.min_support,
        l2: args.l2,
        constraints: !args.no_constraints,
        run: run_options(args, outputs),
        resume: args.resume.clone().zip(resumed),
        settings: Some(settings),
        ..TuneJob::new(start, vars)
    }
}

pub fn run_tune(args: &TuneArgs) -> Result<ExitCode> {
    check_tune_ranges(args)?;
    check_ranges(&args.data)?;
    let outputs = Outputs::plan(
        args.out.as_deref(),
        args.rust.as_deref(),
        args.log.as_deref(),
        args.checkpoint.as_deref(),
        args.report.as_deref(),
    );
    outputs.check(inputs(args))?;
    // Held until the run returns: a second run on these outputs is refused before it
    // deletes or writes anything of this one's.
    let _lock = outputs.lock()?;
    outputs.keep_checkpoint(args.resume.as_deref(), args.fresh)?;
    outputs.keep_log(args.resume.as_deref(), args.fresh)?;
    if let Some(path) = &args.data.traces {
        return crate::tune_traces::run_tune_traces(args, &outputs, path);
    }
    let vars = selected(args)?;
    let resumed = args
        .resume
        .as_deref()
        .map(Checkpoint::<Params>::read)
        .transpose()?;
    let Begin {
        data,
        settings,
        start_params,
    } = begin(args, resumed.as_ref())?;
    let mut loaded = load_data(&data, start_params.clone())?;
    print_errors(&loaded, "start");
    // From here on Ctrl-C stops the run at its next safe point and leaves a checkpoint.
    crate::catch_interrupts()?;
    let mut watch = match &args.report {
        Some(path) => Some(Watching::new(
            args,
            (path, texel_eval::params::param_space()),
            &mut loaded,
            resumed.as_ref(),
            &start_params,
        )?),
        None => None,
    };
    let job = tune_job(args, &outputs, (start_params, vars), resumed, settings);
    let tuning = Tuning {
        args,
        outputs: &outputs,
        name: &|slot| flat_params()[slot].name(),
    };
    let on_pass = &mut |record: &PassRecord, descent: &Descent<Dataset>| match watch.as_mut() {
        Some(w) => w.pass(record, descent),
        None => Ok(()),
    };
    let Some(tuned) = tuning.tune(&mut loaded, job, on_pass)? else {
        return Ok(ExitCode::from(130));
    };
    outputs.finish(&tuned)?;
    if let Some(w) = &watch {
        w.finished(&mut loaded.train, &tuned)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// What a tune run needs besides its data and job: the options, the outputs and the
/// values' names.
pub(crate) struct Tuning<'t> {
    pub args: &'t TuneArgs,
    pub outputs: &'t Outputs,
    pub name: &'t dyn Fn(usize) -> String,
}

impl Tuning<'_> {
    /// Runs `job` on the loaded data with a progress bar and a line per pass (Ctrl-C stops
    /// it at a safe point with a checkpoint), prints what changed and the errors of the
    /// result (the data left scored with it). `None` when interrupted (after saying how to
    /// go on).
    pub(crate) fn tune<M: Model>(
        &self,
        loaded: &mut Loaded<M>,
        job: TuneJob<M::Values>,
        on_pass: &mut dyn FnMut(&PassRecord, &Descent<M>) -> Result<()>,
    ) -> Result<Option<M::Values>> {
        // Caught since the data was loaded (installed once).
        let interrupted = crate::catch_interrupts()?;
        let (options, traces) = (job.run.clone(), self.args.data.traces.is_some());
        let seconds = job.resume.as_ref().map_or(0.0, |(_, c)| c.seconds);
        let (start_error, positions) = (mean_error(&loaded.train, loaded.k), loaded.train.len());
        let mut progress: Option<TuneProgress> = None;
        let tuned = job.run(loaded, self.name, &mut |event| {
            match &event {
                JobEvent::Run(e) => {
                    if let Some(bar) = progress.as_mut() {
                        bar.show(e, on_pass);
                    }
                }
                JobEvent::Fresh(vars, _) | JobEvent::Resumed(_, vars) => {
                    crate::guards::say_begin(&event, traces);
                    if matches!(event, JobEvent::Fresh(..) | JobEvent::Resumed(0, _)) {
                        print_warm_start(&options, positions);
                    }
                    progress = Some(TuneProgress::new(*vars, start_error, seconds));
                }
                _ => crate::guards::say_begin(&event, traces),
            }
            match interrupted.load(Ordering::SeqCst) {
                true => Control::Stop,
                false => Control::Continue,
            }
        })?;
        if let Some(bar) = &progress {
            bar.finish();
        }
        say_changes(&tuned.changes);
        if tuned.result.end != RunEnd::Interrupted {
            say_finished(&tuned);
        }
        let result = tuned.result;
        if result.end == RunEnd::Interrupted {
            let ckpt = self.outputs.checkpoint.display();
            say!(
                "interrupted after {} passes; nothing written to {}. The state is saved in \
                 {ckpt}: continue with the same command and --resume {ckpt}",
                result.passes,
                self.outputs.out.display()
            );
            return Ok(None);
        }
        print_errors_after(loaded, &result.params);
        Ok(Some(result.params))
    }
}

/// Says why a run that was not interrupted ended, and when validation kept its start.
pub(crate) fn say_finished<V>(tuned: &Tuned<V>) {
    let why = match tuned.result.end {
        RunEnd::Converged => {
            "converged (the last pass moved nothing, or gained less than its method's tolerance)"
        }
        RunEnd::PassLimit => "pass limit reached",
        _ => "validation error stopped improving (kept the parameters best on validation)",
    };
    say!("finished after {} passes: {why}", tuned.result.passes);
    if tuned.kept_start {
        say!(
            "no pass beat the start's validation error: the start is kept (the values written \
             are the ones the run began from)"
        );
    }
}

/// Says whether a fresh run starts warm, and why.
fn print_warm_start(options: &RunOptions, positions: usize) {
    if let Some(n) = options.warm_sample(positions) {
        let why = match options.warm_start {
            None => format!(
                " (automatic from {} training positions; --warm-start 0 turns it off)",
                texel_tune::AUTO_WARM_POSITIONS
            ),
            Some(_) => String::new(),
        };
        say!("warm start: about 1/{n} of the training positions first{why}");
    }
}

/// The run's settings from the arguments and the checked outputs.
fn run_options(args: &TuneArgs, outputs: &Outputs) -> RunOptions {
    RunOptions {
        passes: args.passes,
        patience: args.patience,
        log: outputs.log.clone(),
        checkpoint: Some(outputs.checkpoint.clone()),
        checkpoint_secs: args.checkpoint_secs,
        method: args.method,
        adam_rate: args.adam_rate,
        adam_epochs: args.adam_epochs,
        warm_start: args.warm_start,
    }
}

/// `--report`: the page's file and what it needs from the run's start.
pub(crate) struct Watching<V = Params> {
    path: PathBuf,
    watch: TuneWatch<V>,
}

impl<V: Values> Watching<V> {
    /// Taken with the data scored with `params`, the parameters the run starts (or resumes)
    /// from; a resumed run's page starts where the run first began, and its passes come from
    /// the log when there is one.
    pub(crate) fn new<M: Model<Values = V>>(
        args: &TuneArgs,
        (path, space): (&Path, texel_trace::ParamSpace),
        loaded: &mut Loaded<M>,
        resumed: Option<&Checkpoint<V>>,
        params: &V,
    ) -> Result<Watching<V>> {
        let first = resumed.map_or(params, |c| &c.descent.anchor);
        loaded.train.rescore(first);
        let about = crate::report_cmd::about(&args.data, loaded.k);
        let mut watch = TuneWatch::new(&loaded.train, space, first, loaded.k, about);
        loaded.train.rescore(params);
        if let (Some(_), Some(log)) = (resumed, &args.log) {
            let text = std::fs::read_to_string(log).unwrap_or_default();
            watch.passes = texel_report::tune::read_tune_log(&text)
                .with_context(|| log.display().to_string())?;
        }
        Ok(Watching {
            path: path.to_path_buf(),
            watch,
        })
    }

    /// At the end: the whole page (`train` left scored with `tuned`).
    pub(crate) fn finished<M: Model<Values = V>>(&self, train: &mut M, tuned: &V) -> Result<()> {
        let page = self.watch.finished(train, tuned)?;
        page.write(&self.path)
            .with_context(|| format!("cannot write {}", self.path.display()))?;
        say!("wrote the report {}", self.path.display());
        Ok(())
    }

    /// After a pass: the page with the descent's parameters.
    pub(crate) fn pass<M: Model<Values = V>>(
        &mut self,
        record: &PassRecord,
        descent: &Descent<M>,
    ) -> Result<()> {
        self.watch.passes.push(texel_report::tune::PassPoint {
            pass: record.pass,
            train: record.train_error,
            validation: record.validation_error,
            sample: record.sample,
            real: record.real_error,
        });
        let page = self.watch.during(descent.dataset(), descent.params())?;
        page.write(&self.path)
            .with_context(|| format!("cannot write {}", self.path.display()))
    }
}

/// The progress of a pass: a bar while the variables are walked, then, while the values
/// with a stored gain are moved (the pass ends when none is left), a spinner with how
/// many are left, so the bar is never full before the pass ends.
struct PassBar {
    pb: indicatif::ProgressBar,
    moving: bool,
}

impl PassBar {
    const WALK: &'static str =
        "pass {msg} {bar:30} {pos}/{len} variables walked, {elapsed} elapsed, eta {eta}";
    const MOVE: &'static str =
        "pass {msg} {spinner} walk done, moving the values with a stored gain: {prefix} left";

    fn new(vars: usize) -> PassBar {
        PassBar {
            pb: crate::progress_bar(vars as u64, Self::WALK),
            moving: false,
        }
    }

    fn show(&mut self, walked: usize, pending: usize, message: String) {
        let moving = pending > 0;
        if moving != self.moving {
            let template = if moving { Self::MOVE } else { Self::WALK };
            let style = indicatif::ProgressStyle::with_template(template).expect("valid");
            self.pb.set_style(style);
            self.moving = moving;
        }
        self.pb.set_position(walked as u64);
        self.pb.set_prefix(pending.to_string());
        self.pb.set_message(message);
    }
}

/// A tuning run as the terminal shows it: a bar for each pass, a line after it.
pub(crate) struct TuneProgress {
    bar: PassBar,
    start_error: f64,
    last_seconds: f64,
}

impl TuneProgress {
    /// For a run over `vars` variables from `start_error`, `seconds` into it.
    pub(crate) fn new(vars: usize, start_error: f64, seconds: f64) -> TuneProgress {
        TuneProgress {
            bar: PassBar::new(vars),
            start_error,
            last_seconds: seconds,
        }
    }

    /// Shows `event`; after a pass, calls `on_pass` (a failure is a warning).
    pub(crate) fn show<M: Model>(
        &mut self,
        event: &Event<M>,
        on_pass: &mut dyn FnMut(&PassRecord, &Descent<M>) -> Result<()>,
    ) {
        match event {
            Event::Progress {
                pass,
                walked,
                pending,
                moves,
                error,
                sample,
                ..
            } => {
                let message = match sample {
                    Some(n) => format!("{pass} (warm start on 1/{n}): error {error:.8}"),
                    None => format!(
                        "{pass}: error {error:.8} (down {:.2e})",
                        self.start_error - error
                    ),
                };
                (self.bar).show(*walked, *pending, format!("{message}, {moves} moves"));
            }
            Event::Pass(r, descent) => {
                let pass_seconds = r.seconds - self.last_seconds;
                self.bar.pb.suspend(|| print_pass(r, pass_seconds));
                self.last_seconds = r.seconds;
                if let Err(e) = on_pass(r, descent) {
                    (self.bar.pb).suspend(|| eprintln!("warning: report not written: {e:#}"));
                }
            }
            Event::Checkpoint(_) => {}
        }
    }

    /// Clears the bar.
    pub(crate) fn finish(&self) {
        self.bar.pb.finish_and_clear();
    }
}

/// One line per pass: errors, what moved, the pass's own time and the run's.
fn print_pass(r: &PassRecord, pass_seconds: f64) {
    let (pass, error, changed) = (r.pass, r.train_error, r.summary.changed);
    let kind = match r.kind {
        PassKind::Newton => "Newton iteration".to_string(),
        _ => format!("{ADAM_EPOCHS_PER_PASS} Adam epochs"),
    };
    match r.real_error {
        Some(real) => say_part!(
            "pass {pass}: error {error:.8} ({kind}; real values {real:.8}), \
             {changed} values moved"
        ),
        None => say_part!(
            "pass {pass}: error {error:.8}, {changed} variables moved ({} moves, {} probes)",
            r.summary.moves,
            r.summary.probes,
        ),
    }
    say_part!(", pass {pass_seconds:.1}s, total {:.1}s", r.seconds);
    if let Some(v) = r.validation_error {
        say_part!(", validation {v:.8}");
    }
    if let Some(n) = r.sample {
        say_part!(" (warm start: error of about one segment in {n})");
    }
    say!();
}

/// Error of the final parameters on both sets.
fn print_errors_after<M: Model>(loaded: &mut Loaded<M>, params: &M::Values) {
    loaded.train.rescore(params);
    loaded.validation.rescore(params);
    print_errors(loaded, "end");
}

/// Prints how many values changed and the 20 largest changes with their support.
pub(crate) fn say_changes(changes: &[ValueChange]) {
    if changes.is_empty() {
        say!("no value changed");
        return;
    }
    say!(
        "{} values changed; the largest (support: positions it counts in):",
        changes.len()
    );
    for c in changes.iter().take(20) {
        let (b, a) = (c.before, c.after);
        say!(
            "  {:<40} {b:>6} -> {a:>6} ({:+}), support {}",
            c.value,
            a - b,
            c.support
        );
    }
}
