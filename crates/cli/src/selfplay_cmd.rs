//! `texel selfplay`: games of the built-in engine against itself (or a gauntlet of UCI
//! engines) at fixed nodes or depth, written as PGN with per-move scores, and optionally
//! turned into labelled quiet EPD by the importer.

use crate::import_cmd::SampleArgs;
use crate::match_cmd::print_report;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use texel_arena::engine::TimeControl;
use texel_arena::MatchReport;
use texel_loop::{SelfplayEvent, SelfplayJob};
use texel_run::Rerun;

/// Every setting of `texel selfplay`; as a serde record, each field is a key named like its
/// flag (`--resume` and `--fresh` name a run, not a setting); keys left out take the flag's
/// default, and `pgn` must be given.
#[derive(Args, Clone, serde::Serialize, serde::Deserialize)]
#[serde(default = "SelfplayArgs::without_pgn")]
pub struct SelfplayArgs {
    /// Parameters of the built-in engine (JSON); the defaults when absent.
    #[arg(long)]
    pub params: Option<PathBuf>,
    /// Nodes per move (the limit unless --depth is given).
    #[arg(
        allow_negative_numbers = true,
        long,
        default_value_t = 5_000,
        conflicts_with = "depth"
    )]
    pub nodes: u64,
    /// Depth per move instead of nodes.
    #[arg(allow_negative_numbers = true, long)]
    pub depth: Option<u32>,
    /// Games to play (against each gauntlet engine when there are any).
    #[arg(allow_negative_numbers = true, long, default_value_t = 100)]
    pub games: u32,
    /// Games played at once (default: all cores).
    #[arg(allow_negative_numbers = true, long)]
    pub threads: Option<usize>,
    /// Openings: EPD/FEN or PGN lines.
    #[arg(long, default_value = "data/openings.epd")]
    pub openings: PathBuf,
    /// Seeded random plies after each opening (at most 100: past that the games start
    /// from positions no game reaches).
    #[arg(allow_negative_numbers = true, long, default_value_t = texel_loop::RANDOM_PLIES,
          value_parser = clap::value_parser!(u32).range(..=100))]
    pub random_plies: u32,
    /// Seed of the openings, the random plies and the position sampling: the same seed
    /// gives the same games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A UCI opponent instead of the engine itself (`name=N,cmd=PATH[,nodes=N]...`, as in
    /// `texel match`); repeatable: texel plays each.
    #[arg(long)]
    pub gauntlet: Vec<String>,
    /// The games (PGN with `{+0.35/12}` score comments), appended game by game in a fixed
    /// order; `--epd` labels the whole file.
    #[arg(long)]
    pub pgn: PathBuf,
    /// Also write labelled quiet positions from the games here, by the importer's filters.
    #[arg(long)]
    pub epd: Option<PathBuf>,
    /// Also write the games as marlinformat records here (every position a move was
    /// searched from, with its score and the game's result), for NNUE trainers and other
    /// tuners.
    #[arg(long)]
    pub marlin: Option<PathBuf>,
    /// Also write the games as viriformat games here (each from its first searched move,
    /// every move with its score).
    #[arg(long)]
    pub viri: Option<PathBuf>,
    /// Also write the games as bulletformat records here (as `--marlin`, each from the side
    /// to move's view).
    #[arg(long)]
    pub bullet: Option<PathBuf>,
    /// Continue a stopped run of the same command: the games already in `--pgn` (rounds 1,
    /// 2, ... in order) are kept, any after a gap dropped, and the rest is played as if the
    /// run had not stopped.
    #[arg(long)]
    #[serde(skip)]
    pub resume: bool,
    /// Start again although `--pgn` holds games of an earlier run (they are deleted);
    /// without it or `--resume` such a run is refused.
    #[arg(long, conflicts_with = "resume")]
    #[serde(skip)]
    pub fresh: bool,
    #[command(flatten)]
    #[serde(flatten)]
    pub sample: SampleArgs,
}

impl SelfplayArgs {
    /// Every flag at its default, no PGN named.
    fn without_pgn() -> SelfplayArgs {
        let defaults: SelfplayArgs = crate::parse_flags(&["--pgn", "-"]).expect("valid defaults");
        SelfplayArgs {
            pgn: PathBuf::new(),
            ..defaults
        }
    }

    /// The search limit of the built-in engine.
    fn limit(&self) -> TimeControl {
        match self.depth {
            Some(d) => TimeControl::Depth(d),
            None => TimeControl::Nodes(self.nodes),
        }
    }

    /// The files made from the games besides the PGN (`--epd`, `--marlin`, `--viri`,
    /// `--bullet`), with their flags.
    fn made_from_games(&self) -> Vec<(&'static str, &PathBuf)> {
        let asked = [
            ("--epd", &self.epd),
            ("--marlin", &self.marlin),
            ("--viri", &self.viri),
            ("--bullet", &self.bullet),
        ];
        asked
            .into_iter()
            .filter_map(|(f, p)| Some((f, p.as_ref()?)))
            .collect()
    }

    /// An existing file that the run would replace, refused as the PGN is without
    /// `--resume` (which makes it again from every game) or `--fresh`.
    fn refuse_earlier_outputs(&self) -> Result<()> {
        if self.resume || self.fresh {
            return Ok(());
        }
        for (flag, path) in self.made_from_games() {
            anyhow::ensure!(
                !path.exists(),
                "{flag} {} exists: a run writes it from its games at the end; give --fresh to \
                 replace it, or --resume to go on with the PGN's games and write it from all of \
                 them",
                path.display()
            );
        }
        Ok(())
    }

    /// The self-play job of these flags, after checking the files and numbers.
    pub fn job(&self) -> Result<SelfplayJob> {
        crate::paths::Files::new()
            .read("--params", self.params.as_deref())
            .read("--openings", Some(&self.openings))
            .write("--pgn", Some(&self.pgn))
            .write("--epd", self.epd.as_deref())
            .write("--marlin", self.marlin.as_deref())
            .write("--viri", self.viri.as_deref())
            .write("--bullet", self.bullet.as_deref())
            .check()?;
        anyhow::ensure!(self.games > 0, "--games must be at least 1");
        anyhow::ensure!(self.threads != Some(0), "--threads must be at least 1");
        self.refuse_earlier_outputs()?;
        Ok(SelfplayJob {
            params: self.params.clone(),
            limit: self.limit(),
            games: self.games,
            threads: crate::threads(self.threads, "--threads"),
            openings: self.openings.clone(),
            random_plies: self.random_plies,
            seed: self.seed,
            gauntlet: self.gauntlet.clone(),
            pgn: self.pgn.clone(),
            rerun: Rerun {
                resume: self.resume,
                fresh: self.fresh,
            },
        })
    }
}

/// Plays the games with a progress bar (games/s, ETA, of this run's games); Ctrl-C stops at
/// once, keeping every finished game. Also the games kept from a stopped run.
fn play(job: &SelfplayJob, interrupt: &AtomicBool) -> Result<(MatchReport, usize)> {
    let (mut bar, mut resumed) = (None, 0);
    let report = job.play(interrupt, &mut |event| match event {
        SelfplayEvent::Starting {
            options,
            kept,
            rerun,
            recorded,
        } => {
            crate::resume::say_rerun(rerun, &job.pgn);
            crate::resume::say_recorded(recorded, &job.settings_file());
            crate::match_cmd::say_pairs(options);
            if kept > 0 {
                say!("resuming after {kept} games in {}", job.pgn.display());
            }
            let b = crate::progress_bar(
                options.total_games(),
                "selfplay {bar:40} {pos}/{len} games, {per_sec}, eta {eta}",
            );
            // The rate and ETA are of the games this run plays, not of those kept.
            b.set_position(kept as u64);
            b.reset_eta();
            (bar, resumed) = (Some(b), kept);
        }
        SelfplayEvent::Game(p) => {
            if let Some(b) = &bar {
                b.set_position(p.done.into());
            }
        }
    })?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok((report, resumed))
}

pub fn run(args: &SelfplayArgs) -> Result<ExitCode> {
    let job = args.job()?;
    let interrupt = crate::catch_interrupts()?;
    let start = std::time::Instant::now();
    let (report, resumed) = play(&job, interrupt)?;
    let games: u32 = report.pairings.iter().map(|p| p.score.games()).sum();
    let played = (games as usize).saturating_sub(resumed);
    let secs = start.elapsed().as_secs_f64();
    print_report(&report);
    let kept = match resumed {
        0 => String::new(),
        n => format!(" (after the {n} kept from the stopped run)"),
    };
    say!(
        "{played} games played in {secs:.1}s ({:.2} games/s) appended to {}{kept}",
        played as f64 / secs,
        args.pgn.display()
    );
    if report.interrupted {
        say!("interrupted: the finished games are in the PGN");
        if games > 0 && !args.made_from_games().is_empty() {
            write_outputs(args, &job)?;
            say!(
                "written from the {games} finished games; --resume finishes the run and \
                 writes them again from all its games"
            );
        }
        return Ok(ExitCode::from(130));
    }
    write_outputs(args, &job)?;
    Ok(ExitCode::SUCCESS)
}

/// Writes what is made from the games of the PGN: the labelled positions (`--epd`) and the
/// records asked for.
fn write_outputs(args: &SelfplayArgs, job: &SelfplayJob) -> Result<()> {
    if let Some(epd) = &args.epd {
        let sample = args.sample.options(job.seed, Default::default());
        let stats = job.label(epd, &sample)?;
        eprintln!("{stats}");
        say!("wrote {} positions to {}", stats.kept, epd.display());
    }
    write_records(args)
}

/// Writes the games of the PGN as marlinformat, viriformat or bulletformat where asked.
fn write_records(args: &SelfplayArgs) -> Result<()> {
    use texel_data::records::RecordForm;
    let asked = [
        (&args.marlin, RecordForm::Marlin),
        (&args.viri, RecordForm::Viri),
        (&args.bullet, RecordForm::Bullet),
    ];
    for (path, form) in asked {
        let Some(path) = path else { continue };
        // The arena writes its score comments from White's view.
        let view = texel_import::ScoreView::White;
        let done = texel_import::pgn_to_records(&args.pgn, path, form, view)?;
        say!("{}", done.describe(form.holds(), path));
    }
    Ok(())
}
