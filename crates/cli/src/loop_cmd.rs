//! `texel loop`: the Slow Chess loop. Each round plays games with the current best
//! parameters, imports them, retunes on every round's positions, and gates the result with a
//! fixed-node SPRT match against the current best; a passing round becomes the new best.
//! Every round leaves its files in `DIR/round-NN/` and one line in `DIR/loop.jsonl`; the same
//! command run again continues where it stopped.

use crate::config::TuneArgs;
use crate::resume::{record_settings, Rerun};
use crate::selfplay_cmd::SelfplayArgs;
use anyhow::{Context, Result};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use texel_arena::elo::Sprt;
use texel_arena::engine::{EngineSpec, TimeControl};
use texel_arena::sprt::SprtTest;
use texel_arena::{run_match, MatchOptions, MatchReport};
use texel_loop::{read_rounds, GateLine, RoundErrors, RoundLine, LOOP_VERSION};
use texel_tune::settings::values_fingerprint;
use texel_tune::Settings;

pub(crate) use crate::loop_outside::{Gate, Verdict};

#[derive(Args, Clone)]
pub struct LoopArgs {
    /// The run's folder: `best.json`, `loop.jsonl` and one `round-NN/` per round.
    #[arg(long)]
    pub dir: PathBuf,
    /// Rounds in all (a rerun with more rounds goes on).
    #[arg(allow_negative_numbers = true, long, default_value_t = 3)]
    pub rounds: u32,
    /// Self-play games per round.
    #[arg(allow_negative_numbers = true, long, default_value_t = 200)]
    pub games: u32,
    /// Nodes per move in self-play and in the gate match.
    #[arg(allow_negative_numbers = true, long, default_value_t = 5000)]
    pub nodes: u64,
    /// Parameters to start from (JSON or `preset:NAME`); the table's defaults when absent.
    #[arg(long, conflicts_with = "from_zero")]
    pub params: Option<PathBuf>,
    /// Start from material alone (`preset:material`), as the Slow Chess write-up suggests.
    #[arg(long)]
    pub from_zero: bool,
    /// More labelled positions tuned on in every round besides the loop's own; repeatable.
    #[arg(long)]
    pub epd: Vec<PathBuf>,
    /// Tuning: values counting in fewer training positions are held (as `texel tune`).
    #[arg(allow_negative_numbers = true, long, default_value_t = crate::guards::DEFAULT_MIN_SUPPORT)]
    pub min_support: usize,
    /// Tuning passes per round at most.
    #[arg(allow_negative_numbers = true, long, default_value_t = 30)]
    pub passes: usize,
    /// Gate: the SPRT on game pairs, `ELO0,ELO1[,MODEL]` as in `texel match`.
    #[arg(
        allow_hyphen_values = true,
        long,
        default_value = "0,10",
        value_name = "ELO0,ELO1[,MODEL]"
    )]
    pub sprt: String,
    /// Gate: games at most; an undecided SPRT passes when the score's LOS is at least 95 %.
    #[arg(allow_negative_numbers = true, long, default_value_t = 1000)]
    pub gate_games: u32,
    /// Games played at once (default: all cores).
    #[arg(allow_negative_numbers = true, long)]
    pub threads: Option<usize>,
    /// Openings of self-play and the gate.
    #[arg(long, default_value = "data/openings.epd")]
    pub openings: PathBuf,
    /// Seed of the first round (round r uses seed + r − 1).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Continue the loop in `--dir` where it stopped (its settings are checked; more
    /// `--rounds` may be given).
    #[arg(long)]
    pub resume: bool,
    /// Start again although `--dir` holds an earlier loop (its rounds, best.json and
    /// loop.jsonl are deleted).
    #[arg(long, conflicts_with = "resume")]
    pub fresh: bool,
    /// Take each round's games from PGN files instead of playing them: round N imports
    /// every `.pgn` (`.pgn.gz`, `.pgn.zst`) file in `DIR/round-NN/`, games of `best.json`
    /// from OpenBench's DATAGEN workload or fastchess. A round without them stops the loop
    /// (exit 3) with what to run; the same command then goes on.
    #[arg(long, value_name = "DIR")]
    pub games_from: Option<PathBuf>,
    /// Whose view the score comments of `--games-from` PGNs take: `mover` (fastchess,
    /// cutechess, OpenBench) or `white` (texel's own games).
    #[arg(long, default_value = "mover", value_name = "white|mover")]
    pub pgn_scores: texel_import::ScoreView,
    /// Who gates a round's tuned table: `own` (a fixed-node SPRT match here) or `outside`
    /// (the loop prints the fastchess command and the OpenBench recipe, stops with exit 3,
    /// and the same command with `--verdict` records the result).
    #[arg(long, value_enum, default_value = "own")]
    pub gate: Gate,
    /// The verdict of the outside gate the loop waits for (it applies only to a round whose
    /// gate the loop asked for: the table that was tested).
    #[arg(long, value_enum)]
    pub verdict: Option<Verdict>,
}

/// Why a round stopped before its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Halt {
    /// Ctrl-C: the work so far is kept.
    Interrupted,
    /// Outside games or an outside verdict are needed.
    Waiting,
}

impl Halt {
    fn exit_code(self) -> ExitCode {
        match self {
            Halt::Interrupted => ExitCode::from(130),
            Halt::Waiting => ExitCode::from(3),
        }
    }
}

/// A step's result, or why the round stopped.
type Step<T> = Result<std::result::Result<T, Halt>>;

/// What one round did, before it becomes its line in `loop.jsonl`.
struct RoundDone {
    round: u32,
    games: u64,
    positions: u64,
    errors: RoundErrors,
    /// The gate match; `None` when the gate was outside.
    gate: Option<MatchReport>,
    passed: bool,
}

impl LoopArgs {
    /// The gate's SPRT (`--sprt`).
    fn sprt_test(&self) -> Result<SprtTest> {
        self.sprt
            .parse()
            .map_err(|e| anyhow::anyhow!("--sprt: {e}"))
    }

    fn round_dir(&self, round: u32) -> PathBuf {
        self.dir.join(format!("round-{round:02}"))
    }

    pub(crate) fn best(&self) -> PathBuf {
        self.dir.join("best.json")
    }

    /// The rounds `loop.jsonl` records as finished.
    fn finished(&self) -> Result<u32> {
        let path = self.dir.join("loop.jsonl");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        let rounds = read_rounds(&text).with_context(|| path.display().to_string())?;
        Ok(rounds.len() as u32)
    }

    /// What the rounds depend on (a resume must repeat it) and how many there are.
    fn settings(&self) -> Result<Settings> {
        let start = match self.from_zero {
            true => texel_eval::params::Preset::Material.params(),
            false => crate::load_params(self.params.as_deref())?,
        };
        let epd: Vec<String> = self.epd.iter().map(|p| p.display().to_string()).collect();
        let mut settings = Settings::default()
            .fixed(
                "--params",
                format!("values {}", values_fingerprint(start.flat())),
            )
            .fixed("--games", self.games)
            .fixed("--nodes", self.nodes)
            .fixed("--epd", epd.join(" "))
            .fixed("--min-support", self.min_support)
            .fixed("--passes", self.passes)
            .fixed("--sprt", &self.sprt)
            .fixed("--gate-games", self.gate_games)
            .fixed("--openings", self.openings.display())
            .fixed("--seed", self.seed);
        if let Some(dir) = &self.games_from {
            settings = settings
                .fixed("--games-from", dir.display())
                .fixed("--pgn-scores", format!("{:?}", self.pgn_scores));
        }
        if self.gate == Gate::Outside {
            settings = settings.fixed("--gate", "outside");
        }
        Ok(settings.length("--rounds", self.rounds))
    }

    /// Whether the run continues the loop in `--dir`: an earlier loop there needs
    /// `--resume` (which checks the settings) or `--fresh` (which deletes it).
    fn continues(&self) -> Result<bool> {
        let earlier = self.best().exists() || self.dir.join("loop.jsonl").exists();
        let rerun = Rerun {
            resume: self.resume,
            fresh: self.fresh,
        };
        let resuming = rerun.decide(&self.dir, earlier, || self.discard())?;
        let file = self.dir.join("settings.json");
        record_settings(&file, "loop", &self.settings()?, resuming)?;
        Ok(resuming)
    }

    /// Deletes what a loop writes in `--dir`: rounds, best.json, loop.jsonl, settings.
    fn discard(&self) -> Result<()> {
        for entry in std::fs::read_dir(&self.dir)?.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            let removed = match name.as_str() {
                "best.json" | "loop.jsonl" | "settings.json" => std::fs::remove_file(&path),
                n if n.starts_with("round-") && path.is_dir() => std::fs::remove_dir_all(&path),
                _ => Ok(()),
            };
            removed.with_context(|| format!("cannot remove {}", path.display()))?;
        }
        Ok(())
    }

    /// The starting parameters of the loop, written as `best.json` before round 1.
    fn start(&self) -> Result<()> {
        if self.best().exists() {
            return Ok(());
        }
        let params = if self.from_zero {
            texel_eval::params::Preset::Material.params()
        } else {
            crate::load_params(self.params.as_deref())?
        };
        params.save(&self.best())?;
        Ok(())
    }
}

/// Step 1 fed from outside: the round's positions from the PGN files in
/// `--games-from`/round-NN (imported once into `positions.epd`, games counted in
/// `outside-games.txt`); waits when there are none.
fn import_round(args: &LoopArgs, from: &Path, round: u32, dir: &Path) -> Step<(u64, u64)> {
    let (positions, count) = (dir.join("positions.epd"), dir.join("outside-games.txt"));
    if !(positions.exists() && count.exists()) {
        let files = crate::loop_outside::pgn_files(&crate::loop_outside::games_dir(from, round))?;
        if files.is_empty() {
            crate::loop_outside::ask_for_games(args, from, round);
            return Ok(Err(Halt::Waiting));
        }
        let (games, kept) = crate::loop_outside::import_games(args, &files, &positions)?;
        texel_files::write_atomically(&count, format!("{games}\n").as_bytes())?;
        say!("round {round}: {games} outside games, {kept} positions");
    }
    let games = std::fs::read_to_string(&count)?.trim().parse()?;
    let kept = std::fs::read_to_string(&positions)?.lines().count() as u64;
    Ok(Ok((games, kept)))
}

/// Step 1: the round's games and their labelled positions (`games.pgn`, `positions.epd`);
/// a stopped round's games are kept and the rest played.
fn play_round(args: &LoopArgs, round: u32, dir: &Path) -> Step<(u64, u64)> {
    if let Some(from) = &args.games_from {
        return import_round(args, from, round, dir);
    }
    let positions = dir.join("positions.epd");
    let selfplay = SelfplayArgs {
        params: Some(args.best()),
        nodes: Some(args.nodes),
        depth: None,
        games: args.games,
        threads: args.threads,
        openings: args.openings.clone(),
        random_plies: crate::selfplay_cmd::RANDOM_PLIES,
        seed: args.seed + u64::from(round) - 1,
        gauntlet: Vec::new(),
        pgn: dir.join("games.pgn"),
        epd: None,
        resume: true,
        fresh: false,
        sample: crate::import_cmd::SampleArgs {
            per_game: 25,
            gap: 3,
            skip_plies: 8,
            score_from_pgn: true,
            ..Default::default()
        },
    };
    let games = (args.games.div_ceil(2) * 2) as usize;
    let played =
        std::fs::read_to_string(dir.join("games.pgn")).map_or(0, |t| t.matches("[Event ").count());
    if !(positions.exists() && played == games) {
        let interrupt = crate::catch_interrupts()?;
        let report = crate::selfplay_cmd::play(&selfplay, interrupt)?;
        if report.interrupted {
            return Ok(Err(Halt::Interrupted));
        }
        let stats = crate::selfplay_cmd::label(&selfplay, &dir.join("games.pgn"), &positions)?;
        say!("round {round}: {} games, {} positions", games, stats.kept);
    }
    let kept = std::fs::read_to_string(&positions)?.lines().count() as u64;
    Ok(Ok((games as u64, kept)))
}

/// Step 2: tunes from the best on every round's positions (and `--epd`) into `tuned.json`;
/// a stopped tuning resumes from its checkpoint.
fn tune_round(args: &LoopArgs, round: u32, dir: &Path) -> Step<RoundErrors> {
    let tuned = dir.join("tuned.json");
    let log = dir.join("tune-log.jsonl");
    if !tuned.exists() {
        let mut epd: Vec<PathBuf> = (1..=round)
            .map(|r| args.round_dir(r).join("positions.epd"))
            .collect();
        epd.extend(args.epd.iter().cloned());
        let checkpoint = dir.join("tune.ckpt");
        let tune = TuneArgs {
            data: crate::data_args::DataArgs {
                epd,
                validate: Some(10.0),
                params: Some(args.best()),
                ..Default::default()
            },
            patience: Some(2),
            freeze_material: true,
            passes: args.passes,
            min_support: args.min_support,
            out: Some(tuned.clone()),
            log: Some(log.clone()),
            resume: checkpoint.exists().then(|| checkpoint.clone()),
            checkpoint: Some(checkpoint),
            ..TuneArgs::default()
        };
        if crate::tune_cmd::run_tune(&tune)? != ExitCode::SUCCESS {
            return Ok(Err(Halt::Interrupted));
        }
    }
    // The pass whose parameters were kept: the best on validation.
    let passes = texel_tune::log::read_tune_log(&std::fs::read_to_string(&log)?)
        .with_context(|| log.display().to_string())?;
    let kept = texel_tune::log::kept_pass(&passes);
    Ok(Ok(RoundErrors {
        train: kept.map(|p| p.train_error),
        validation: kept.and_then(|p| p.validation_error),
    }))
}

/// Adjudication of gate and proof matches: a side 10 pawns ahead for 6 plies wins, scores
/// within 0.1 for 12 plies after ply 80 draw.
pub(crate) const GATE_ADJUDICATION: texel_arena::game::Adjudication =
    texel_arena::game::Adjudication {
        resign_cp: Some(1000),
        resign_plies: 6,
        draw_cp: Some(10),
        draw_plies: 12,
        draw_after: 80,
        max_plies: 600,
    };

/// Step 3 outside: the verdict given with `--verdict` once the loop has asked for it
/// (`gate-asked` in the round's folder), or a wait with what to run.
fn outside_gate(args: &LoopArgs, round: u32, dir: &Path) -> Step<(Option<MatchReport>, bool)> {
    let asked = dir.join("gate-asked");
    match args.verdict {
        Some(v) if asked.exists() => Ok(Ok((None, v == Verdict::Pass))),
        _ => {
            texel_files::write_atomically(&asked, b"")?;
            crate::loop_outside::ask_for_verdict(args, &dir.join("tuned.json"), round);
            Ok(Err(Halt::Waiting))
        }
    }
}

/// Step 3: the gate, `tuned.json` against the best at fixed nodes with an SPRT; a stopped
/// gate keeps its finished games and plays on.
fn gate_round(args: &LoopArgs, round: u32, dir: &Path) -> Step<(Option<MatchReport>, bool)> {
    if args.gate == Gate::Outside {
        return outside_gate(args, round, dir);
    }
    let pgn = dir.join("gate.pgn");
    let test = args.sprt_test()?;
    let texel = |name: &str, params: PathBuf| {
        EngineSpec::built_in(name, Some(params), TimeControl::Nodes(args.nodes))
    };
    let mut options = MatchOptions {
        engines: vec![
            texel("tuned", dir.join("tuned.json")),
            texel("best", args.best()),
        ],
        round_robin: false,
        games: args.gate_games,
        concurrency: crate::threads(args.threads, "--threads"),
        openings: texel_arena::openings::read_openings(&args.openings)?,
        random_plies: 2,
        seed: args.seed ^ 0x9a7e,
        adjudication: GATE_ADJUDICATION,
        pgn: Some(pgn),
        sprt: Some(test),
        event: "texel loop gate".into(),
        first_round: 1,
        earlier: Vec::new(),
    };
    options.continue_games()?;
    let report = run_match(&options, crate::catch_interrupts()?, &mut |_| {})?;
    if report.interrupted {
        return Ok(Err(Halt::Interrupted));
    }
    let score = report.pairings[0].score;
    let passed = match report.sprt {
        Some(Sprt::AcceptH1(_)) => true,
        Some(Sprt::AcceptH0(_)) => false,
        _ => score.los() >= 0.95,
    };
    Ok(Ok((Some(report), passed)))
}

/// The gate part of a round's line: the match's score, Elo, LLR and bounds, or an
/// outside gate's verdict; and the words that say it.
fn gate_line(args: &LoopArgs, done: &RoundDone) -> Result<(GateLine, String)> {
    let test = args.sprt_test()?;
    let mut line = GateLine {
        outside: done.gate.is_none(),
        wins: 0,
        draws: 0,
        losses: 0,
        elo: None,
        margin: None,
        llr: None,
        sprt: [test.elo0, test.elo1],
        sprt_model: test.model.name().into(),
        passed: done.passed,
    };
    let Some(gate) = &done.gate else {
        return Ok((line, "outside gate".into()));
    };
    let s = gate.pairings[0].score;
    let (elo, margin) = s.elo();
    (line.wins, line.draws, line.losses) = (s.wins, s.draws, s.losses);
    (line.elo, line.margin) = (Some(elo), Some(margin));
    line.llr = Some(gate.sprt.map_or(0.0, |s| s.llr()));
    let words = format!(
        "gate +{} ={} -{} ({elo:+.1} ± {margin:.1})",
        s.wins, s.draws, s.losses
    );
    Ok((line, words))
}

/// Appends the round's line to `loop.jsonl` and prints it.
fn record(args: &LoopArgs, done: &RoundDone) -> Result<()> {
    let (gate, words) = gate_line(args, done)?;
    let line = RoundLine {
        version: LOOP_VERSION,
        round: done.round,
        games: done.games,
        positions: done.positions,
        error: done.errors.clone(),
        gate,
    };
    use std::io::Write;
    let path = args.dir.join("loop.jsonl");
    let mut f = texel_files::open_lines_for_append(&path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    writeln!(f, "{}", serde_json::to_string(&line)?)?;
    let verdict = if done.passed {
        "new best"
    } else {
        "kept the old best"
    };
    say!(
        "round {}: {} games, {} positions, {words}: {verdict}",
        done.round,
        done.games,
        done.positions,
    );
    Ok(())
}

/// Checks the settings before anything is played or written.
fn check(args: &LoopArgs) -> Result<()> {
    crate::paths::Files::new()
        .read("--params", args.params.as_deref())
        .read_all("--epd", &args.epd)
        .read("--openings", Some(&args.openings))
        .write_dir("--dir", &args.dir)
        .check()?;
    args.sprt_test()?;
    anyhow::ensure!(
        args.verdict.is_none() || args.gate == Gate::Outside,
        "--verdict is the result of an outside gate: give it with --gate outside"
    );
    anyhow::ensure!(args.games > 0, "--games must be at least 1");
    anyhow::ensure!(args.gate_games > 0, "--gate-games must be at least 1");
    anyhow::ensure!(
        args.openings.is_file(),
        "openings {} do not exist (give --openings FILE)",
        args.openings.display()
    );
    for e in &args.epd {
        anyhow::ensure!(e.is_file(), "--epd {} does not exist", e.display());
    }
    Ok(())
}

/// Plays (or imports), tunes and gates one round, and records it.
fn run_round(args: &LoopArgs, round: u32) -> Step<()> {
    let dir = args.round_dir(round);
    std::fs::create_dir_all(&dir)?;
    let (games, positions) = match play_round(args, round, &dir)? {
        Ok(done) => done,
        Err(halt) => return Ok(Err(halt)),
    };
    let errors = match tune_round(args, round, &dir)? {
        Ok(errors) => errors,
        Err(halt) => return Ok(Err(halt)),
    };
    let (gate, passed) = match gate_round(args, round, &dir)? {
        Ok(gated) => gated,
        Err(halt) => return Ok(Err(halt)),
    };
    if passed {
        let tuned = texel_eval::Params::load(&dir.join("tuned.json"))?;
        tuned.save(&args.best())?;
    }
    let done = RoundDone {
        round,
        games,
        positions,
        errors,
        gate,
        passed,
    };
    record(args, &done)?;
    Ok(Ok(()))
}

pub fn run(args: &LoopArgs) -> Result<ExitCode> {
    check(args)?;
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("cannot make {}", args.dir.display()))?;
    args.continues()?;
    args.start()?;
    for round in args.finished()? + 1..=args.rounds {
        if let Err(halt) = run_round(args, round)? {
            return Ok(halt.exit_code());
        }
    }
    say!("best parameters: {}", args.best().display());
    Ok(ExitCode::SUCCESS)
}
