//! `texel tune` as the terminal shows it: a line for each step of the session (what was
//! read, K, the guards), a bar for each pass and a line after it, what changed, and the
//! report page kept up to date with `--report`.

use crate::config::TuneArgs;
use crate::data_args::{print_errors, Loaded};
use crate::guards::PathBar;
use crate::outputs::Planned;
use crate::report_cmd::TuneWatch;
use crate::run_words::{say_changes, say_cleared, say_finished, TuneProgress};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use texel_solve::{Descent, Model, Values};
use texel_tune::{
    EndData, Ended, JobEvent, PassRecord, PullChoice, RunEnd, RunOptions, SessionEvent, Tuned,
    LAMBDA_PATH, PULL_PATH, WHOLE_STEPS,
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
    /// The bar of the path of pulls or λs being walked.
    path: Option<PathBar>,
    watch: Option<Watching<V>>,
    /// What was held out, as the loading said it (for the report page).
    held: Option<String>,
    /// Steps of the path under way told before its bar began (a resumed walk's).
    told: u64,
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
            path: None,
            watch: None,
            held: None,
            told: 0,
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
                let held = |l: &&str| l.starts_with("held out") || l.starts_with("nothing held");
                self.held = about
                    .lines()
                    .map(str::trim_start)
                    .find(held)
                    .map(String::from);
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
                let error = texel_solve::error::mean_error(&data.train, data.k);
                self.start = (error, data.train.len(), seconds);
                if let Err(e) = self.begin(data, start, first) {
                    eprintln!("warning: no report page: {e:#}");
                }
            }
            SessionEvent::Job(e) => self.job(e),
            SessionEvent::CheckpointKept(e) => eprintln!("note: {e}"),
            SessionEvent::Streaming(why) => {
                let report = self.args.report.is_some();
                if let Some(words) = crate::run_words::streaming_words(why, report) {
                    say!("{words}");
                }
            }
            SessionEvent::Stream(e) => {
                if let Some(words) = crate::run_words::stream_words(e) {
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
            let mut watching = Watching::new(self.args, (path, space), data, start, first)?;
            watching.watch.choices.extend(self.held.clone());
            self.watch = Some(watching);
        }
        Ok(())
    }

    /// A tune job's event: the guards said, the bar moved, the page after a pass.
    fn job<M: Model<Values = V>>(&mut self, event: JobEvent<M>) {
        let traces = self.args.data.traces.is_some();
        self.noted(&event, traces);
        match &event {
            JobEvent::Run(e) => {
                if let Some(bar) = self.progress.as_mut() {
                    let watch = &mut self.watch;
                    bar.show(e, &mut |record, descent| match (watch.as_mut(), descent) {
                        (Some(w), Some(descent)) => w.pass(record, descent),
                        _ => Ok(()),
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
            JobEvent::PullSolving(l2) => self.walking(
                "--l2 auto",
                PULL_PATH.len() + WHOLE_STEPS,
                format!("pull {l2}"),
            ),
            JobEvent::LambdaSolving(lambda) => self.walking(
                "--lambda auto",
                LAMBDA_PATH.len() + WHOLE_STEPS,
                format!("λ {lambda}"),
            ),
            JobEvent::Pull(point) => {
                if let Some(w) = self.watch.as_mut() {
                    w.watch.path.0.push(*point);
                }
                self.solved(crate::guards::pull_words(point));
            }
            JobEvent::PullChosen(PullChoice::Path { start, .. }) => {
                if let Some(w) = self.watch.as_mut() {
                    w.watch.path.1 = Some(*start);
                }
                self.path_walked();
                crate::guards::say_begin(&event, traces);
            }
            JobEvent::Lambda(point) => {
                if let Some(w) = self.watch.as_mut() {
                    w.watch.lambdas.0.push(*point);
                }
                self.solved(crate::guards::lambda_words(point));
            }
            JobEvent::LambdaChosen(choice) => {
                self.path_walked();
                if let Some(w) = self.watch.as_mut() {
                    w.watch.lambdas.1 = Some(choice.lambda());
                    if choice.lambda() != 1.0 {
                        // The pulls are walked again at this λ: the page shows that walk.
                        w.watch.path.0.clear();
                    }
                }
                crate::guards::say_begin(&event, traces);
            }
            _ => {
                self.path_walked();
                crate::guards::say_begin(&event, traces)
            }
        }
    }

    /// The report page's lines on what the run chose (the pull, the λ, its start) and the
    /// pull the path chose, marked on its plot.
    fn noted<M: Model>(&mut self, event: &JobEvent<M>, traces: bool) {
        let Some(w) = self.watch.as_mut() else {
            return;
        };
        if let JobEvent::PullChosen(choice @ PullChoice::Path { .. }) = event {
            w.watch.pull = Some(choice.l2());
        }
        let chosen = matches!(
            event,
            JobEvent::PullChosen(_)
                | JobEvent::LambdaChosen(_)
                | JobEvent::Fresh(..)
                | JobEvent::Resumed(..)
                | JobEvent::ResumedOnPath(..)
        );
        if chosen {
            w.watch
                .choices
                .extend(crate::guards::begin_words(event, traces));
        }
    }

    /// The path walked: its bar cleared.
    fn path_walked(&mut self) {
        if let Some(bar) = self.path.take() {
            bar.finish();
        }
        self.told = 0;
    }

    /// A path's step begins to be solved: the path's bar (begun at its first step, counting
    /// the steps a resumed walk told again) says which.
    fn walking(&mut self, flag: &str, steps: usize, step: String) {
        let told = self.told;
        (self
            .path
            .get_or_insert_with(|| PathBar::new(flag, steps, told)))
        .solving(step);
    }

    /// A path's step solved: its line, above the path's bar (a resumed walk's steps, told
    /// before its bar begins, counted for it).
    fn solved(&mut self, line: String) {
        match &self.path {
            Some(bar) => bar.solved(line),
            None => {
                say!("{line}");
                self.told += 1;
            }
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
                    w.finished(&mut data.train, tuned)?;
                }
            }
            EndData::Streamed(figures) => {
                if let Some(figures) = figures {
                    crate::run_words::say_streamed_end(&figures, tuned.kept_start);
                }
                crate::outputs::say_written(planned, None);
            }
        }
        Ok(std::process::ExitCode::SUCCESS)
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

    /// At the end: the whole page, saying which pass's values were written (`train` left
    /// scored with the values `tuned` wrote).
    pub(crate) fn finished<M: Model<Values = V>>(
        &self,
        train: &mut M,
        tuned: &Tuned<V>,
    ) -> Result<()> {
        let mut watch = self.watch.clone();
        let result = &tuned.result;
        watch.written = result.best_pass;
        let page = watch.finished(train, &result.params)?;
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
