//! The three steps of a round: games (self-play, or PGN files from outside), tuning on
//! every round's positions, and the gate. Each step keeps its files, so a stopped round
//! goes on where it stopped.

use crate::engine::EngineDescription;
use crate::error::{io, LoopError};
use crate::job::{LoopEnd, LoopEvent, LoopJob, Step};
use crate::records::GateLine;
use crate::selfplay::{all_cores, SelfplayEvent, SelfplayJob, ADJUDICATION, RANDOM_PLIES};
use crate::settings::{Gate, ResultFilter};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use texel_arena::elo::Sprt;
use texel_arena::engine::{EngineSpec, TimeControl};
use texel_arena::game::Adjudication;
use texel_arena::{run_match, MatchOptions, MatchReport};
use texel_import::{ImportOptions, ScoreView};

/// How a round's gate went.
pub(crate) enum Gated {
    /// Played here: the match's report.
    Played(MatchReport),
    /// An SPRT run elsewhere gave its verdict.
    Outside,
    /// Not played: the tuning kept the round's start, which is the best itself.
    Skipped,
}

/// Adjudication of gate and proof matches: a side 10 pawns ahead for 6 plies wins, scores
/// within 0.1 for 12 plies after ply 80 draw.
pub const GATE_ADJUDICATION: Adjudication = Adjudication {
    resign_cp: Some(1000),
    resign_plies: 6,
    draw_cp: Some(10),
    draw_plies: 12,
    draw_after: 80,
    max_plies: 600,
};

/// How the loop samples labelled positions from a game: up to 25, 3 plies apart, after the
/// first 8, judged by the games' own score comments (a decided game's end left out) and,
/// with `filter` the write-up's, by the Slow Chess write-up's result filter.
fn sampling(filter: ResultFilter) -> ImportOptions {
    let (win_min_cp, draw_max_cp) = match filter {
        ResultFilter::WriteUp => (
            Some(texel_import::WRITE_UP_WIN_MIN),
            Some(texel_import::WRITE_UP_DRAW_MAX),
        ),
        ResultFilter::None => (None, None),
    };
    ImportOptions {
        per_game: 25,
        gap: 3,
        skip_plies: 8,
        score_from_pgn: true,
        win_min_cp,
        draw_max_cp,
        ..ImportOptions::default()
    }
}

/// The folder that holds round `round`'s outside games.
pub fn outside_games_dir(from: &Path, round: u32) -> PathBuf {
    from.join(format!("round-{round:02}"))
}

/// The PGN files of a folder (`.pgn`, `.pgn.gz`, `.pgn.zst`), by name; none when the folder
/// is missing.
///
/// # Errors
/// The folder cannot be read.
pub fn pgn_files(dir: &Path) -> Result<Vec<PathBuf>, LoopError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(dir)(e)),
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into());
            [".pgn", ".pgn.gz", ".pgn.zst"]
                .iter()
                .any(|ext| name.to_ascii_lowercase().ends_with(ext))
        })
        .collect();
    files.sort();
    Ok(files)
}

/// Whether two values files hold the same values (whatever their layout).
pub(crate) fn same_values(a: &Path, b: &Path) -> Result<bool, LoopError> {
    let read = |path: &Path| -> Result<serde_json::Value, LoopError> {
        let text = std::fs::read_to_string(path).map_err(io(path))?;
        serde_json::from_str(&text)
            .map_err(|e| LoopError::Setting(format!("{}: {e}", path.display())))
    };
    Ok(read(a)? == read(b)?)
}

/// The lines of a file.
fn line_count(path: &Path) -> Result<u64, LoopError> {
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    Ok(text.lines().count() as u64)
}

impl LoopJob {
    /// The threads the games use.
    fn threads(&self) -> usize {
        self.settings.threads.unwrap_or_else(all_cores)
    }

    /// Step 1: the round's games and their labelled positions (`games.pgn`,
    /// `positions.epd`); a stopped round's games are kept and the rest played.
    pub(crate) fn play_round(
        &self,
        round: u32,
        dir: &Path,
        interrupt: &AtomicBool,
        on: &mut dyn FnMut(LoopEvent),
    ) -> Step<(u64, u64)> {
        let s = &self.settings;
        if let Some(from) = &s.games_from {
            return self.import_round(from, round, dir, on);
        }
        if let Some(engine) = s.outside_engine()? {
            return self.play_outside(&engine, round, dir, interrupt, on);
        }
        let positions = dir.join("positions.epd");
        let selfplay = SelfplayJob {
            params: Some(s.best()),
            limit: TimeControl::Nodes(s.nodes),
            games: s.games,
            threads: self.threads(),
            openings: s.openings.clone(),
            random_plies: RANDOM_PLIES,
            seed: s.seed + u64::from(round) - 1,
            gauntlet: Vec::new(),
            pgn: dir.join("games.pgn"),
            rerun: texel_run::Rerun {
                resume: true,
                fresh: false,
            },
        };
        let games = selfplay.match_options()?.total_games() as usize;
        if !(positions.exists() && selfplay.holds_games(games)?) {
            let report = selfplay.play(interrupt, &mut |e| match e {
                SelfplayEvent::Starting { options, kept, .. } => {
                    on(LoopEvent::Playing(round, options, kept))
                }
                SelfplayEvent::Game(p) => on(LoopEvent::Game(p)),
            })?;
            if report.interrupted {
                return Ok(Err(LoopEnd::Interrupted));
            }
            selfplay.label(&positions, &sampling(s.result_filter))?;
        }
        let kept = line_count(&positions)?;
        on(LoopEvent::Played(round, games as u64, kept));
        Ok(Ok((games as u64, kept)))
    }

    /// Step 1 for an outside engine: its games against itself with the best values, at
    /// fixed nodes from distinct starts, and their labelled positions; a stopped round's
    /// games are kept and the rest played.
    fn play_outside(
        &self,
        engine: &EngineDescription,
        round: u32,
        dir: &Path,
        interrupt: &AtomicBool,
        on: &mut dyn FnMut(LoopEvent),
    ) -> Step<(u64, u64)> {
        let s = &self.settings;
        let (positions, pgn) = (dir.join("positions.epd"), dir.join("games.pgn"));
        let best = std::path::absolute(s.best()).map_err(io(&s.best()))?;
        let player = |side: &str| {
            let name = format!("{}-{side}", engine.name);
            engine.player(&name, &best, TimeControl::Nodes(s.nodes))
        };
        let mut options = MatchOptions {
            engines: vec![player("a"), player("b")],
            round_robin: false,
            games: s.games,
            concurrency: self.threads(),
            openings: texel_arena::openings::read_openings(&s.openings)?,
            random_plies: RANDOM_PLIES,
            seed: s.seed + u64::from(round) - 1,
            adjudication: ADJUDICATION,
            pgn: Some(pgn.clone()),
            sprt: None,
            event: "texel loop self-play".into(),
            first_round: 1,
            earlier: Vec::new(),
        };
        let games = options.total_games();
        if !positions.exists() {
            let kept = options.continue_games()?;
            on(LoopEvent::Playing(round, &options, kept));
            let report = run_match(&options, interrupt, &mut |p| on(LoopEvent::Game(p)))?;
            if report.interrupted {
                return Ok(Err(LoopEnd::Interrupted));
            }
            self.import_games(&[pgn], &positions, ScoreView::White, on)?;
        }
        let kept = line_count(&positions)?;
        on(LoopEvent::Played(round, games, kept));
        Ok(Ok((games, kept)))
    }

    /// Step 1 fed from outside: the round's positions from the PGN files in
    /// `games_from/round-NN` (imported once into `positions.epd`, games counted in
    /// `outside-games.txt`); waits when there are none.
    fn import_round(
        &self,
        from: &Path,
        round: u32,
        dir: &Path,
        on: &mut dyn FnMut(LoopEvent),
    ) -> Step<(u64, u64)> {
        let (positions, count) = (dir.join("positions.epd"), dir.join("outside-games.txt"));
        if !(positions.exists() && count.exists()) {
            let games_dir = outside_games_dir(from, round);
            let files = pgn_files(&games_dir)?;
            if files.is_empty() {
                on(LoopEvent::NeedGames(
                    round,
                    &games_dir,
                    &self.settings.best(),
                ));
                return Ok(Err(LoopEnd::Waiting));
            }
            let view = self.settings.pgn_scores;
            let games = self.import_games(&files, &positions, view, on)?;
            texel_files::write_atomically(&count, format!("{games}\n").as_bytes())
                .map_err(io(&count))?;
        }
        let text = std::fs::read_to_string(&count).map_err(io(&count))?;
        let games = text.trim().parse().map_err(|_| {
            LoopError::Setting(format!("{}: not a number of games", count.display()))
        })?;
        let kept = line_count(&positions)?;
        on(LoopEvent::Played(round, games, kept));
        Ok(Ok((games, kept)))
    }

    /// Imports every PGN file of `files` into `positions` (atomically, in file order) by
    /// the loop's sampling, their score comments read in `view`, with the quiescence of the
    /// best table (of texel's defaults for an outside engine); returns the games read.
    fn import_games(
        &self,
        files: &[PathBuf],
        positions: &Path,
        view: ScoreView,
        on: &mut dyn FnMut(LoopEvent),
    ) -> Result<u64, LoopError> {
        let best = match self.settings.engine {
            Some(_) => texel_eval::Params::default(),
            None => texel_eval::Params::load(&self.settings.best())?,
        };
        let options = ImportOptions {
            pgn_scores: view,
            seed: self.settings.seed,
            params: std::sync::Arc::new(best),
            ..sampling(self.settings.result_filter)
        };
        let (mut games, mut text) = (0, String::new());
        let part = positions.with_extension("epd.part");
        for file in files {
            let stats =
                texel_import::import_pgn(file, &part, &options, &|_| {}).map_err(|cause| {
                    LoopError::Import {
                        file: file.clone(),
                        cause,
                    }
                })?;
            on(LoopEvent::Imported(file, &stats));
            games += stats.games;
            text += &std::fs::read_to_string(&part).map_err(io(&part))?;
        }
        std::fs::remove_file(&part).ok();
        texel_files::write_atomically(positions, text.as_bytes()).map_err(io(positions))?;
        Ok(games)
    }

    /// Step 3: the gate, `tuned.json` against the best at fixed nodes with an SPRT on game
    /// pairs (or an outside gate's verdict); a stopped gate keeps its finished games.
    pub(crate) fn gate_round(
        &self,
        round: u32,
        dir: &Path,
        interrupt: &AtomicBool,
        on: &mut dyn FnMut(LoopEvent),
    ) -> Step<(Gated, bool)> {
        let s = &self.settings;
        if same_values(&dir.join("tuned.json"), &s.best())? {
            on(LoopEvent::GateSkipped(round));
            return Ok(Ok((Gated::Skipped, false)));
        }
        if s.gate == Gate::Outside {
            return self.outside_gate(round, dir, on);
        }
        let engine = s.outside_engine()?;
        let player = |name: &str, values: PathBuf| -> Result<EngineSpec, LoopError> {
            let nodes = TimeControl::Nodes(s.nodes);
            Ok(match &engine {
                Some(e) => {
                    let values = std::path::absolute(&values).map_err(io(&values))?;
                    e.player(name, &values, nodes)
                }
                None => EngineSpec::built_in(name, Some(values), nodes),
            })
        };
        let mut options = MatchOptions {
            engines: vec![
                player("tuned", dir.join("tuned.json"))?,
                player("best", s.best())?,
            ],
            round_robin: false,
            games: s.gate_games,
            concurrency: self.threads(),
            openings: texel_arena::openings::read_openings(&s.openings)?,
            random_plies: 2,
            seed: s.seed ^ 0x9a7e,
            adjudication: GATE_ADJUDICATION,
            pgn: Some(dir.join("gate.pgn")),
            sprt: Some(s.sprt),
            event: "texel loop gate".into(),
            first_round: 1,
            earlier: Vec::new(),
        };
        let kept = options.continue_games()?;
        on(LoopEvent::Gating(round, &options, kept));
        let report = run_match(&options, interrupt, &mut |p| on(LoopEvent::GateGame(p)))?;
        if report.interrupted {
            return Ok(Err(LoopEnd::Interrupted));
        }
        let score = report.pairings[0].score;
        let passed = match report.sprt {
            Some(Sprt::AcceptH1(_)) => true,
            Some(Sprt::AcceptH0(_)) => false,
            _ => score.los() >= 0.95,
        };
        Ok(Ok((Gated::Played(report), passed)))
    }

    /// Step 3 outside: the verdict given once the loop has asked for it (`gate-asked` in
    /// the round's folder), or a wait.
    fn outside_gate(
        &self,
        round: u32,
        dir: &Path,
        on: &mut dyn FnMut(LoopEvent),
    ) -> Step<(Gated, bool)> {
        let asked = dir.join("gate-asked");
        match self.verdict {
            Some(v) if asked.exists() => Ok(Ok((Gated::Outside, v == crate::Verdict::Pass))),
            _ => {
                texel_files::write_atomically(&asked, b"").map_err(io(&asked))?;
                let tuned = dir.join("tuned.json");
                on(LoopEvent::NeedVerdict(round, &tuned, &self.settings.best()));
                Ok(Err(LoopEnd::Waiting))
            }
        }
    }

    /// The gate part of a round's line: the match's score, Elo, LLR and bounds, or an
    /// outside gate's verdict.
    pub(crate) fn gate_line(&self, gate: &Gated, passed: bool) -> Result<GateLine, LoopError> {
        let test = self.settings.sprt;
        let mut line = GateLine {
            outside: matches!(gate, Gated::Outside),
            skipped: matches!(gate, Gated::Skipped),
            wins: 0,
            draws: 0,
            losses: 0,
            elo: None,
            margin: None,
            llr: None,
            sprt: test,
            passed,
        };
        if let Gated::Played(gate) = gate {
            let s = gate.pairings[0].score;
            let (elo, margin) = s.elo();
            (line.wins, line.draws, line.losses) = (s.wins, s.draws, s.losses);
            (line.elo, line.margin) = (Some(elo), Some(margin));
            line.llr = Some(gate.sprt.map_or(0.0, |s| s.llr()));
        }
        Ok(line)
    }
}
