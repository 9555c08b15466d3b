//! `texel loop`: a front over [`texel_loop::LoopJob`], the Slow Chess loop. Each round
//! plays games with the current best parameters, imports them, retunes on every round's
//! positions, and gates the result with a fixed-node SPRT match against the current best;
//! this file adds the flags, the messages, the progress bars and the exit codes.

use crate::run_words::TuneProgress;
use anyhow::Result;
use clap::Args;
use indicatif::ProgressBar;
use std::process::ExitCode;
use texel_arena::MatchOptions;
use texel_loop::{LoopEnd, LoopEvent, LoopJob, LoopSettings, RoundLine, Verdict};
use texel_solve::error::mean_error;
use texel_solve::Model;
use texel_tune::{JobEvent, RunEnd, SessionEvent, Tuned};

#[derive(Args, Clone)]
pub struct LoopArgs {
    #[command(flatten)]
    pub settings: LoopSettings,
    /// Continue the loop in `--dir` where it stopped (its settings are checked; more
    /// `--rounds` may be given).
    #[arg(long)]
    pub resume: bool,
    /// Start again although `--dir` holds an earlier loop (its rounds, best.json and
    /// loop.jsonl are deleted).
    #[arg(long, conflicts_with = "resume")]
    pub fresh: bool,
    /// The verdict of the outside gate the loop waits for (it applies only to a round whose
    /// gate the loop asked for: the table that was tested).
    #[arg(long, value_enum)]
    pub verdict: Option<Verdict>,
}

/// What the terminal shows of a running loop.
#[derive(Default)]
struct Screen {
    /// The loop's folder.
    dir: std::path::PathBuf,
    /// Whether the games come from outside.
    outside: bool,
    /// What the commands it suggests need: the openings and the gate's SPRT.
    hints: Option<crate::loop_outside::Hints>,
    /// The bar of the games being played.
    games: Option<ProgressBar>,
    /// The tuning's bar, and the error it starts from.
    tune: Option<TuneProgress>,
    start_error: f64,
}

impl Screen {
    /// A bar for the games of `options`, `kept` of them played by a stopped run.
    fn games_bar(&mut self, what: &str, options: &MatchOptions, kept: usize) {
        if kept > 0 {
            let pgn = options.pgn.as_deref().unwrap_or(std::path::Path::new(""));
            say!("resuming after {kept} games in {}", pgn.display());
        }
        let template = format!("{what} {{bar:40}} {{pos}}/{{len}} games, {{per_sec}}, eta {{eta}}");
        let bar = crate::progress_bar(options.total_games(), &template);
        bar.set_prefix(what.to_string());
        self.games = Some(bar);
    }

    /// Clears the bar of the games.
    fn games_done(&mut self) {
        if let Some(bar) = self.games.take() {
            bar.finish_and_clear();
        }
    }

    fn show(&mut self, event: LoopEvent) {
        match event {
            LoopEvent::Rerun(did, recorded) => {
                crate::resume::say_rerun(did, &self.dir);
                crate::resume::say_recorded(recorded, &self.dir.join("settings.json"));
            }
            LoopEvent::Playing(_, options, kept) => self.games_bar("selfplay", options, kept),
            LoopEvent::Gating(_, options, kept) => self.games_bar("gate", options, kept),
            LoopEvent::TuningKeptBest(round, why) => {
                if let Some(t) = self.tune.take() {
                    t.finish();
                }
                say!(
                    "round {round}: its positions cannot be tuned on, the best table is kept \
                     (more --games a round give the tuning more to fit): {why}"
                )
            }
            LoopEvent::GateSkipped(round) => say!(
                "round {round}: the tuning kept its start: nothing to gate, the best table stays"
            ),
            LoopEvent::Game(p) | LoopEvent::GateGame(p) => {
                if let Some(bar) = &self.games {
                    bar.set_position(p.done.into());
                    plain_progress(bar);
                }
            }
            LoopEvent::Imported(file, stats) => say!(
                "{}: {} games, {} positions{}",
                file.display(),
                stats.games,
                stats.kept,
                skipped_games(file, stats)
            ),
            LoopEvent::Played(round, games, positions) => {
                self.games_done();
                let whose = if self.outside { "outside " } else { "" };
                say!("round {round}: {games} {whose}games, {positions} positions");
            }
            LoopEvent::Tune(e) => self.tuning(e),
            LoopEvent::TuneOutside(e) => self.tuning(e),
            LoopEvent::Tuned(tuned) => self.tuned(tuned),
            LoopEvent::TunedOutside(tuned) => self.tuned(tuned),
            LoopEvent::NeedGames(round, dir, best) => {
                if let Some(h) = &self.hints {
                    h.ask_for_games(round, dir, best);
                }
            }
            LoopEvent::NeedVerdict(round, tuned, best) => {
                if let Some(h) = &self.hints {
                    h.ask_for_verdict(round, tuned, best);
                }
            }
            LoopEvent::Round(line) => {
                self.games_done();
                say_round(line);
            }
        }
    }

    /// The tuning's end: what changed, and how it ended.
    fn tuned<V>(&mut self, tuned: &Tuned<V>) {
        if let Some(t) = self.tune.take() {
            t.finish();
        }
        crate::run_words::say_changes(&tuned.changes);
        match &tuned.result.end {
            RunEnd::Interrupted => say!("interrupted: the tuning's checkpoint is kept"),
            _ => crate::run_words::say_finished(tuned),
        }
    }

    /// The tuning's events: what was read, what its start holds, then a bar per pass.
    fn tuning<M: Model>(&mut self, event: SessionEvent<M>) {
        let event = match event {
            SessionEvent::Loaded { about, .. } => return say!("{about}"),
            SessionEvent::Start { data, .. } => {
                self.start_error = mean_error(&data.train, data.k);
                return crate::data_args::print_errors(data, "start");
            }
            SessionEvent::Job(e) => e,
            SessionEvent::Resuming(_) | SessionEvent::Cleared(_) => return,
            SessionEvent::CheckpointKept(e) => return eprintln!("note: {e}"),
            SessionEvent::Streaming(_) => return,
            SessionEvent::Stream(e) => {
                let words = crate::run_words::stream_words(e);
                return words.into_iter().for_each(|w| say!("{w}"));
            }
        };
        match &event {
            JobEvent::Fresh(vars, _) | JobEvent::Resumed(_, vars) => {
                self.tune = Some(TuneProgress::new(*vars, self.start_error, 0.0));
            }
            _ => {}
        }
        match (event, &mut self.tune) {
            (JobEvent::Run(e), Some(t)) => t.show(&e, &mut |_, _| Ok(())),
            (e, _) => crate::guards::say_begin(&e, false),
        }
    }
}

/// Prints a finished round's line: games, positions, the gate and what it decided.
fn say_round(line: &RoundLine) {
    let g = &line.gate;
    let words = match (g.elo, g.margin) {
        _ if g.skipped => "no gate (the tuning kept the best table)".into(),
        (Some(elo), Some(margin)) if !g.outside => format!(
            "gate +{} ={} -{} ({elo:+.1} ± {margin:.1})",
            g.wins, g.draws, g.losses
        ),
        _ => "outside gate".into(),
    };
    let verdict = match g.passed {
        true => "new best",
        false => "kept the old best",
    };
    say!(
        "round {}: {} games, {} positions, {words}: {verdict}",
        line.round,
        line.games,
        line.positions,
    );
}

pub fn run(args: &LoopArgs) -> Result<ExitCode> {
    let mut settings = args.settings.clone();
    crate::paths::Files::new()
        .read("--params", settings.params.as_deref())
        .read("--engine", settings.engine.as_deref())
        .read_all("--epd", &settings.epd)
        .read("--openings", Some(&settings.openings))
        .write_dir("--dir", &settings.dir)
        .check()?;
    settings.threads = (settings.threads).map(|n| crate::threads(Some(n), "--threads"));
    let job = LoopJob {
        settings,
        rerun: texel_run::Rerun {
            resume: args.resume,
            fresh: args.fresh,
        },
        verdict: args.verdict,
    };
    let interrupt = crate::catch_interrupts()?;
    let mut screen = Screen {
        dir: job.settings.dir.clone(),
        outside: job.settings.games_from.is_some(),
        hints: Some(crate::loop_outside::Hints {
            openings: job.settings.openings.clone(),
            sprt: job.settings.sprt,
        }),
        ..Screen::default()
    };
    let end = job.run(interrupt, &mut |e| screen.show(e))?;
    screen.games_done();
    Ok(match end {
        LoopEnd::Finished => {
            say!("best parameters: {}", job.settings.best().display());
            ExitCode::SUCCESS
        }
        LoopEnd::Interrupted => {
            say!("interrupted: run the same command with --resume to go on");
            ExitCode::from(130)
        }
        LoopEnd::Waiting => ExitCode::from(3),
    })
}

/// The games of `file` the import skipped, by reason, each with the lines its first ones
/// begin on (a torn last game among them): empty when none was.
fn skipped_games(file: &std::path::Path, stats: &texel_import::ImportStats) -> String {
    (stats.games_skipped.iter())
        .map(|(reason, (count, lines))| {
            let at: Vec<String> = (lines.iter())
                .map(|l| format!("{}:{l}", file.display()))
                .collect();
            format!("; skipped {count}: {reason} (first at {})", at.join(", "))
        })
        .collect()
}

/// Outside a terminal, where the bar is hidden, a line at every tenth of the games, so
/// that a log shows the games moving (self-play takes minutes a round).
fn plain_progress(bar: &ProgressBar) {
    let (done, total) = (bar.position(), bar.length().unwrap_or(0));
    if bar.is_hidden() && done > 0 && done.is_multiple_of((total / 10).max(1)) {
        say!("{} {done}/{total} games", bar.prefix());
    }
}
