//! `texel selfplay`: games of the built-in engine against itself (or a gauntlet of UCI
//! engines) at fixed nodes or depth, written as PGN with per-move scores, and optionally
//! turned into labelled quiet EPD by the importer.

use crate::import_cmd::SampleArgs;
use crate::match_cmd::{engine_spec, print_report};
use crate::resume::{record_settings, Rerun};
use anyhow::{Context, Result};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use texel_arena::engine::{EngineSpec, TimeControl};
use texel_arena::game::Adjudication;
use texel_arena::openings::read_openings;
use texel_arena::{run_match, MatchOptions, MatchReport};
use texel_tune::settings::values_fingerprint;
use texel_tune::Settings;

/// Seeded random plies after each opening, unless `--random-plies` says otherwise.
pub const RANDOM_PLIES: u32 = 2;

/// Self-play adjudication (as in `scripts/gen-games.sh`): a side ahead by 10 pawns in both
/// engines' eyes for 8 plies wins; scores within 0.08 for 12 plies after ply 100 draw.
pub const ADJUDICATION: Adjudication = Adjudication {
    resign_cp: Some(1000),
    resign_plies: 8,
    draw_cp: Some(8),
    draw_plies: 12,
    draw_after: 100,
    max_plies: 600,
};

#[derive(Args, Clone)]
pub struct SelfplayArgs {
    /// Parameters of the built-in engine (JSON); the defaults when absent.
    #[arg(long)]
    pub params: Option<PathBuf>,
    /// Nodes per move (the default limit: 5,000).
    #[arg(allow_negative_numbers = true, long, conflicts_with = "depth")]
    pub nodes: Option<u64>,
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
    /// Seeded random plies after each opening.
    #[arg(allow_negative_numbers = true, long, default_value_t = RANDOM_PLIES)]
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
    /// Continue a stopped run of the same command: the games already in `--pgn` (rounds 1,
    /// 2, ... in order) are kept, any after a gap dropped, and the rest is played as if the
    /// run had not stopped.
    #[arg(long)]
    pub resume: bool,
    /// Start again although `--pgn` holds games of an earlier run (they are deleted);
    /// without it or `--resume` such a run is refused.
    #[arg(long, conflicts_with = "resume")]
    pub fresh: bool,
    #[command(flatten)]
    pub sample: SampleArgs,
}

impl SelfplayArgs {
    /// The search limit of the built-in engine.
    fn limit(&self) -> TimeControl {
        match (self.depth, self.nodes) {
            (Some(d), _) => TimeControl::Depth(d),
            (None, n) => TimeControl::Nodes(n.unwrap_or(5_000)),
        }
    }

    /// What the games depend on (a resume must repeat it) and how many are played.
    fn settings(&self) -> Result<Settings> {
        let params = crate::load_params(self.params.as_deref())?;
        Ok(Settings::default()
            .fixed(
                "--params",
                format!("values {}", values_fingerprint(params.flat())),
            )
            .fixed("limit", format!("{:?}", self.limit()))
            .fixed("--openings", self.openings.display())
            .fixed("--random-plies", self.random_plies)
            .fixed("--seed", self.seed)
            .fixed("--gauntlet", self.gauntlet.join(" "))
            .length("--games", self.games))
    }

    /// The file beside `--pgn` that records the run's settings.
    fn settings_file(&self) -> PathBuf {
        let mut name = self.pgn.as_os_str().to_owned();
        name.push(".settings.json");
        PathBuf::from(name)
    }

    /// Whether the run continues the games in `--pgn`: games there need `--resume` (which
    /// checks the settings) or `--fresh` (which deletes them).
    fn continues(&self) -> Result<bool> {
        let has_games = std::fs::metadata(&self.pgn).is_ok_and(|m| m.len() > 0);
        let rerun = Rerun {
            resume: self.resume,
            fresh: self.fresh,
        };
        let resuming = rerun.decide(&self.pgn, has_games, || {
            for file in [&self.pgn, &self.settings_file()] {
                match std::fs::remove_file(file) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(e).with_context(|| format!("cannot remove {}", file.display()))
                    }
                    _ => {}
                }
            }
            Ok(())
        })?;
        record_settings(
            &self.settings_file(),
            "selfplay",
            &self.settings()?,
            resuming,
        )?;
        Ok(resuming)
    }

    /// The match that plays the games.
    pub fn match_options(&self) -> Result<MatchOptions> {
        crate::paths::Files::new()
            .read("--params", self.params.as_deref())
            .read("--openings", Some(&self.openings))
            .write("--pgn", Some(&self.pgn))
            .write("--epd", self.epd.as_deref())
            .check()?;
        anyhow::ensure!(self.games > 0, "--games must be at least 1");
        anyhow::ensure!(self.threads != Some(0), "--threads must be at least 1");
        let params = self.params.clone();
        if let Some(p) = &params {
            crate::load_params(Some(p))?;
        }
        let texel = |name: &str| EngineSpec::built_in(name, params.clone(), self.limit());
        let mut engines = vec![texel("texel")];
        if self.gauntlet.is_empty() {
            engines.push(texel("texel-2"));
        }
        for g in &self.gauntlet {
            engines.push(engine_spec(g, None)?);
        }
        let openings = read_openings(&self.openings)
            .with_context(|| format!("openings {}", self.openings.display()))?;
        Ok(MatchOptions {
            engines,
            round_robin: false,
            games: self.games,
            concurrency: crate::threads(self.threads, "--threads"),
            openings,
            random_plies: self.random_plies,
            seed: self.seed,
            adjudication: ADJUDICATION,
            pgn: Some(self.pgn.clone()),
            sprt: None,
            event: "texel selfplay".into(),
            first_round: 1,
            earlier: Vec::new(),
        })
    }
}

/// Plays the games with a progress bar (games/s, ETA); Ctrl-C stops at once, keeping every
/// finished game.
pub fn play(args: &SelfplayArgs, interrupt: &AtomicBool) -> Result<MatchReport> {
    let mut options = args.match_options()?;
    if args.continues()? {
        let done = options.continue_games()?;
        if done > 0 {
            say!("resuming after {done} games in {}", args.pgn.display());
        }
    }
    let total = u64::from(options.games.div_ceil(2) * 2) * (options.engines.len() as u64 - 1);
    let bar = crate::progress_bar(
        total,
        "selfplay {bar:40} {pos}/{len} games, {per_sec}, eta {eta}",
    );
    let report = run_match(&options, interrupt, &mut |p| {
        bar.set_position(p.done.into())
    })?;
    bar.finish_and_clear();
    Ok(report)
}

/// Labelled quiet positions from the games of `pgn`, written to `epd`.
pub fn label(args: &SelfplayArgs, pgn: &Path, epd: &Path) -> Result<texel_import::ImportStats> {
    let params = Arc::new(crate::load_params(args.params.as_deref())?);
    let options = args.sample.options(args.seed, params);
    Ok(texel_import::import_pgn(pgn, epd, &options, &|_| {})?)
}

pub fn run(args: &SelfplayArgs) -> Result<ExitCode> {
    let interrupt = crate::catch_interrupts()?;
    let start = std::time::Instant::now();
    let report = play(args, interrupt)?;
    let games: u32 = report.pairings.iter().map(|p| p.score.games()).sum();
    let secs = start.elapsed().as_secs_f64();
    print_report(&report);
    say!(
        "{games} games in {secs:.1}s ({:.2} games/s) appended to {}",
        f64::from(games) / secs,
        args.pgn.display()
    );
    if report.interrupted {
        say!("interrupted: the finished games are in the PGN");
        return Ok(ExitCode::from(130));
    }
    if let Some(epd) = &args.epd {
        let stats = label(args, &args.pgn, epd)?;
        eprintln!("{stats}");
        say!("wrote {} positions to {}", stats.kept, epd.display());
    }
    Ok(ExitCode::SUCCESS)
}
