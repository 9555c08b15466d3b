//! Self-play: games of texel's engine against itself (or against a gauntlet of engines) at
//! fixed nodes or depth, appended to a PGN with per-move scores, continued where a stopped
//! run left them, and labelled as quiet positions by the importer.

use crate::error::{io, LoopError};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use texel_arena::engine::{EngineSpec, TimeControl};
use texel_arena::game::Adjudication;
use texel_arena::openings::read_openings;
use texel_arena::{run_match, MatchOptions, MatchReport, Progress};
use texel_eval::Params;
use texel_import::{ImportOptions, ImportStats};
use texel_run::{record_settings, remove_if_there, values_fingerprint};
use texel_run::{Recorded, Rerun, Rerunning, Settings};

/// Seeded random plies after each opening, unless the job says otherwise.
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

/// The cores of this machine: games played at once unless told otherwise.
pub(crate) fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A self-play run.
#[derive(Clone, Debug)]
pub struct SelfplayJob {
    /// Parameters of texel's engine (a JSON file or `preset:NAME`); the defaults when absent.
    pub params: Option<PathBuf>,
    /// The search limit per move.
    pub limit: TimeControl,
    /// Games to play (against each gauntlet engine when there are any).
    pub games: u32,
    /// Games played at once.
    pub threads: usize,
    /// Openings: EPD/FEN or PGN lines.
    pub openings: PathBuf,
    /// Seeded random plies after each opening.
    pub random_plies: u32,
    /// Seed of the openings and random plies (and of the labelling's sampling).
    pub seed: u64,
    /// Opponents instead of the engine itself, as `texel match` reads engines
    /// ([`EngineSpec::parse`]); texel plays each.
    pub gauntlet: Vec<String>,
    /// The games, appended game by game in a fixed order.
    pub pgn: PathBuf,
    /// Games already in `pgn`: continue them, or delete them (neither: refused).
    pub rerun: Rerun,
}

/// What self-play tells its caller on the way.
pub enum SelfplayEvent<'e> {
    /// The games start.
    Starting {
        /// The match that plays them.
        options: &'e MatchOptions,
        /// Games of a stopped run kept.
        kept: usize,
        /// Whether a stopped run's games were continued or deleted.
        rerun: Rerunning,
        /// What the check of a continued run's settings found.
        recorded: &'e Recorded,
    },
    /// A game finished.
    Game(&'e Progress<'e>),
}

impl SelfplayJob {
    /// Self-play of `params` at `nodes` a move with the defaults of `texel selfplay`: 100
    /// games on every core from `openings`, seed 1, written to `pgn`.
    pub fn new(params: Option<PathBuf>, nodes: u64, openings: &Path, pgn: &Path) -> SelfplayJob {
        SelfplayJob {
            params,
            limit: TimeControl::Nodes(nodes),
            games: 100,
            threads: all_cores(),
            openings: openings.to_path_buf(),
            random_plies: RANDOM_PLIES,
            seed: 1,
            gauntlet: Vec::new(),
            pgn: pgn.to_path_buf(),
            rerun: Rerun::default(),
        }
    }

    /// The parameters of texel's engine.
    ///
    /// # Errors
    /// The file cannot be read.
    pub fn load_params(&self) -> Result<Params, LoopError> {
        Ok(match &self.params {
            Some(p) => Params::load_or_preset(p)?,
            None => Params::default(),
        })
    }

    /// What the games depend on (a resume must repeat it) and how many are played.
    ///
    /// # Errors
    /// The parameters cannot be read.
    pub fn settings(&self) -> Result<Settings, LoopError> {
        let params = self.load_params()?;
        let (limit, value) = match &self.limit {
            TimeControl::Nodes(n) => ("--nodes", n.to_string()),
            TimeControl::Depth(d) => ("--depth", d.to_string()),
            // No flag of texel selfplay gives these; only a Rust caller does.
            other => ("limit", format!("{other:?}")),
        };
        let settings = Settings::default()
            .fixed(
                "--params",
                format!("values {}", values_fingerprint(params.flat())),
            )
            .fixed(limit, value)
            .fixed("--openings", self.openings.display())
            .fixed("--random-plies", self.random_plies)
            .fixed("--seed", self.seed)
            .length("--games", self.games);
        Ok(match self.gauntlet.is_empty() {
            true => settings,
            false => settings.fixed("--gauntlet", self.gauntlet.join(", ")),
        })
    }

    /// The file beside the PGN that records the run's settings.
    pub fn settings_file(&self) -> PathBuf {
        let mut name = self.pgn.as_os_str().to_owned();
        name.push(".settings.json");
        PathBuf::from(name)
    }

    /// The match that plays the games (from the first game on).
    ///
    /// # Errors
    /// No games, no threads, or the parameters, a gauntlet engine or the openings cannot be
    /// read.
    pub fn match_options(&self) -> Result<MatchOptions, LoopError> {
        if self.games == 0 || self.threads == 0 {
            return Err(LoopError::Setting(
                "self-play needs at least 1 game and 1 thread".into(),
            ));
        }
        self.load_params()?;
        let texel =
            |name: &str| EngineSpec::built_in(name, self.params.clone(), self.limit.clone());
        let mut engines = vec![texel("texel")];
        if self.gauntlet.is_empty() {
            engines.push(texel("texel-2"));
        }
        for g in &self.gauntlet {
            engines.push(EngineSpec::parse(g, None)?);
        }
        Ok(MatchOptions {
            engines,
            round_robin: false,
            games: self.games,
            concurrency: self.threads,
            openings: read_openings(&self.openings)?,
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

    /// Decides whether the run continues the games in the PGN (see [`Rerun`]) and records
    /// the settings, checking them against the earlier run's when it continues.
    fn continues(&self) -> Result<(Rerunning, Recorded), LoopError> {
        let has_games = std::fs::metadata(&self.pgn).is_ok_and(|m| m.len() > 0);
        let did = self.rerun.decide(&self.pgn, has_games, || {
            remove_if_there(&self.pgn)?;
            remove_if_there(&self.settings_file())
        })?;
        let resuming = did == Rerunning::Resumed;
        let recorded = record_settings(
            &self.settings_file(),
            "selfplay",
            &self.settings()?,
            resuming,
        )?;
        Ok((did, recorded))
    }

    /// Plays the games, telling `on` the match and how many earlier games it keeps before
    /// the first game, then every finished game. When `interrupt` is set no new game
    /// starts and the report covers the finished games (every one of them is in the PGN).
    ///
    /// # Errors
    /// Another run writing the PGN, earlier games without `rerun` saying what to do with
    /// them, other settings than the run continued, or the match fails.
    pub fn play(
        &self,
        interrupt: &AtomicBool,
        on: &mut dyn FnMut(SelfplayEvent),
    ) -> Result<MatchReport, LoopError> {
        let mut options = self.match_options()?;
        // Held until the games end: a second run writing this PGN is refused at once.
        let _lock = texel_files::RunLock::beside(&self.pgn)?;
        let (rerun, recorded) = self.continues()?;
        let kept = match rerun {
            Rerunning::Resumed => options.continue_games()?,
            _ => 0,
        };
        on(SelfplayEvent::Starting {
            options: &options,
            kept,
            rerun,
            recorded: &recorded,
        });
        Ok(run_match(&options, interrupt, &mut |p| {
            on(SelfplayEvent::Game(p))
        })?)
    }

    /// Labelled quiet positions from the games of the PGN, written to `epd`, sampled as
    /// `sample` says (its parameters and seed are the job's).
    ///
    /// # Errors
    /// The parameters cannot be read, or the import fails.
    pub fn label(&self, epd: &Path, sample: &ImportOptions) -> Result<ImportStats, LoopError> {
        let options = ImportOptions {
            seed: self.seed,
            params: Arc::new(self.load_params()?),
            ..sample.clone()
        };
        texel_import::import_pgn(&self.pgn, epd, &options, &|_| {}).map_err(|cause| {
            LoopError::Import {
                file: self.pgn.clone(),
                cause,
            }
        })
    }

    /// Whether the PGN holds exactly `n` games.
    pub(crate) fn holds_games(&self, n: usize) -> Result<bool, LoopError> {
        match std::fs::read_to_string(&self.pgn) {
            Ok(text) => Ok(text.matches("[Event ").count() == n),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(io(&self.pgn)(e)),
        }
    }
}
