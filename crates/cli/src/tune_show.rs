//! `texel tune` as the terminal shows it: a line for each step of the session (what was
//! read, K, the guards), a bar for each pass and a line after it, what changed, and the
//! report page kept up to date with `--report`.

use crate::config::TuneArgs;
use crate::data_args::{print_errors, Loaded};
use crate::outputs::Planned;
use crate::report_cmd::TuneWatch;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use texel_tune::log::{PassKind, ValueChange};
use texel_tune::{
    Cleared, Descent, EndData, Ended, Event, JobEvent, Model, PassRecord, PullChoice, RunEnd,
    RunOptions, SessionEvent, Tuned, Values, ADAM_EPOCHS_PER_PASS,
};

/// What `texel tune` shows of a session, and the report page it keeps.
pub(crate) struct TuneShow<'a, V> {
    args: &'a TuneArgs,
    /// The run's passes, method and warm start.
    run: RunOptions,
    space: texel_trace::ParamSpace,
    /// The bar of the positions being read, cleared when they are.
    pub reading: indicatif::ProgressBar,
    progress: Option<TuneProgress>,
    watch: Option<Watching<V>>,
    /// The start's training error, its positions, and the seconds the run had gone.
    start: (f64, usize, f64),
}

impl<'a, V: Values> TuneShow<'a, V> {
    /// For the session of `args` (run as `run` says) on values of `space`, reading `bytes`
    /// (0: no bar).
    pub(crate) fn new(
        (args, run): (&'a TuneArgs, RunOptions),
        space: texel_trace::ParamSpace,
        bytes: u64,
    ) -> Self {
        let reading = match bytes {
            0 => indicatif::ProgressBar::hidden(),
            n => crate::progress_bar(
                n,
                "loading {bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
            ),
        };
        TuneShow {
            args,
            run,
            space,
            reading,
            progress: None,
            watch: None,
            start: (0.0, 0, 0.0),
        }
    }

    /// Shows `event`.
    pub(crate) fn event<M: Model<Values = V>>(&mut self, event: SessionEvent<M>) {
        match event {
            SessionEvent::Cleared(c) => say_cleared(&c),
            SessionEvent::Resuming(notes) => notes.iter().for_each(|n| say!("resume: {n}")),
            SessionEvent::Loaded { about, chosen_k } => {
                self.reading.finish_and_clear();
                say!("{about}");
                if let Some(chosen) = chosen_k {
                    say!("{}", crate::data_args::k_words(chosen));
                }
            }
            SessionEvent::Start {
                data,
                start,
                first,
                seconds,
            } => {
                let error = texel_tune::error::mean_error(&data.train, data.k);
                self.start = (error, data.train.len(), seconds);
                if let Err(e) = self.begin(data, start, first) {
                    eprintln!("warning: no report page: {e:#}");
                }
            }
            SessionEvent::Job(e) => self.job(e),
            SessionEvent::CheckpointKept(e) => eprintln!("note: {e}"),
            SessionEvent::Streaming(why) => {
                let report = self.args.report.is_some();
                if let Some(words) = crate::tune_traces::streaming_words(why, report) {
                    say!("{words}");
                }
            }
            SessionEvent::Stream(e) => {
                if let Some(words) = crate::tune_traces::stream_words(e) {
                    say!("{words}");
                }
            }
        }
    }

    /// Before the tune: the start's errors, the report begun.
    fn begin<M: Model<Values = V>>(
        &mut self,
        data: &mut Loaded<M>,
        start: &V,
        first: &V,
    ) -> Result<()> {
        print_errors(data, "start");
        if let Some(path) = &self.args.report {
            let space = self.space.clone();
            self.watch = Some(Watching::new(self.args, (path, space), data, start, first)?);
        }
        Ok(())
    }

    /// A tune job's event: the guards said, the bar moved, the page after a pass.
    fn job<M: Model<Values = V>>(&mut self, event: JobEvent<M>) {
        let traces = self.args.data.traces.is_some();
        match &event {
            JobEvent::Run(e) => {
                if let Some(bar) = self.progress.as_mut() {
                    let watch = &mut self.watch;
                    bar.show(e, &mut |record, descent| match watch.as_mut() {
                        Some(w) => w.pass(record, descent),
                        None => Ok(()),
                    });
                }
            }
            JobEvent::Fresh(vars, _) | JobEvent::Resumed(_, vars) => {
                crate::guards::say_begin(&event, traces);
                let (error, positions, seconds) = self.start;
                if let JobEvent::Fresh(..) | JobEvent::Resumed(0, _) = event {
                    print_warm_start(&self.run, positions);
                }
                self.progress = Some(TuneProgress::new(*vars, error, seconds));
            }
            JobEvent::Pull(point) => {
                if let Some(w) = self.watch.as_mut() {
                    w.watch.path.0.push(*point);
                }
                crate::guards::say_begin(&event, traces);
            }
            JobEvent::PullChosen(PullChoice::Path { start, .. }) => {
                if let Some(w) = self.watch.as_mut() {
                    w.watch.path.1 = Some(*start);
                }
                crate::guards::say_begin(&event, traces);
            }
            _ => crate::guards::say_begin(&event, traces),
        }
    }

    /// After the session: what changed, why it ended, the end's errors, what was written,
    /// the finished page. The exit code: 130 when interrupted.
    pub(crate) fn ended<M: Model<Values = V>>(
        &self,
        ended: Ended<M>,
        planned: &Planned,
    ) -> Result<std::process::ExitCode> {
        if let Some(bar) = &self.progress {
            bar.finish();
        }
        let tuned = &ended.tuned;
        let in_memory = matches!(ended.data, EndData::Memory(_));
        if in_memory || tuned.result.end != RunEnd::Interrupted {
            say_changes(&tuned.changes);
        }
        if tuned.result.end == RunEnd::Interrupted {
            let ckpt = planned.outputs.checkpoint.display();
            say!(
                "interrupted after {} passes; nothing written to {}. The state is saved in \
                 {ckpt}: continue with the same command and --resume {ckpt}",
                tuned.result.passes,
                planned.outputs.out.display()
            );
            return Ok(std::process::ExitCode::from(130));
        }
        match ended.data {
            EndData::Memory(mut data) => {
                say_finished(tuned);
                print_errors(&data, "end");
                crate::outputs::say_written(planned, self.args.rust.as_deref());
                if let Some(w) = &self.watch {
                    w.finished(&mut data.train, &tuned.result.params)?;
                }
            }
            EndData::Streamed(figures) => {
                if let Some(figures) = figures {
                    crate::tune_traces::say_streamed_end(&figures);
                }
                crate::outputs::say_written(planned, None);
            }
        }
        Ok(std::process::ExitCode::SUCCESS)
    }
}

/// Says what `--fresh` cleared of an earlier run.
pub(crate) fn say_cleared(cleared: &Cleared) {
    match cleared {
        Cleared::Checkpoint(path) => {
            say!("--fresh: removed the earlier checkpoint {}", path.display())
        }
        Cleared::Log(path) => say!("--fresh: emptied the earlier log {}", path.display()),
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
        say!("{START_KEPT}");
    }
}

/// What a run that gives its start back says, in memory or streamed.
pub(crate) const START_KEPT: &str = "no pass beat the start's validation error: the start is \
                                      kept (the values written are the ones the run began from)";

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

/// `--report`: the page's file and what it needs from the run's start.
pub(crate) struct Watching<V> {
    path: PathBuf,
    watch: TuneWatch<V>,
}

impl<V: Values> Watching<V> {
    /// Taken with the data scored with `start`, the values the run starts (or resumes)
    /// from; a resumed run's page starts where the run first began (`first`), and its passes
    /// come from the log when there is one.
    pub(crate) fn new<M: Model<Values = V>>(
        args: &TuneArgs,
        (path, space): (&Path, texel_trace::ParamSpace),
        loaded: &mut Loaded<M>,
        start: &V,
        first: &V,
    ) -> Result<Watching<V>> {
        loaded.train.rescore(first);
        let about = crate::report_cmd::about(&args.data, loaded.k);
        let mut watch = TuneWatch::new(&loaded.train, space, first, loaded.k, about);
        loaded.train.rescore(start);
        if let (Some(_), Some(log)) = (&args.resume, &args.log) {
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

/// What a step off a saddle did, in words (`texel_tune::MAX_LIFTS`).
pub(crate) fn lift_words(values: usize) -> String {
    format!(
        "Newton converged with values flat (a square at a zero sum) and stepped {values} of \
         them off the saddle, along the error's most negative curvature; its iterations go on"
    )
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
    if r.summary.lifted > 0 {
        say_part!("; {}", lift_words(r.summary.lifted));
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
