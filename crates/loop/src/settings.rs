//! The settings of the loop: one struct that is both `texel loop`'s flags (it derives
//! clap's `Args` with the `clap` feature) and what a Rust caller fills in; every default is
//! written once, in [`LoopSettings::new`], which the flags read.

use crate::engine::EngineDescription;
use crate::error::LoopError;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use texel_arena::sprt::SprtTest;
use texel_eval::params::Preset;
use texel_eval::Params;
use texel_run::{flag_of, values_fingerprint, Role, Settings};
use texel_tune::{Lambda, DEFAULT_MIN_SUPPORT};

/// Who decides whether a round's tuned table becomes the best.
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Gate {
    /// A fixed-node SPRT match here (`--sprt`, `--gate-games`).
    Own,
    /// An SPRT run elsewhere: the loop prints the fastchess command line and the OpenBench
    /// recipe, and the next run records `--verdict`.
    Outside,
}

/// The verdict of an outside gate.
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// H1 accepted: the tuned table becomes the best.
    Pass,
    /// H0 accepted (or stopped): the best stays.
    Fail,
}

/// Which positions of a round's games the loop keeps, judged by the game's result.
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResultFilter {
    /// The Slow Chess write-up's: a position whose score says a win (100 cp or more) is kept
    /// only from a game that side won, one near a draw (within 150 cp) only from a drawn game.
    WriteUp,
    /// Every sampled position, whatever the game's result.
    None,
}

/// The openings of self-play, gates and proofs when none are given.
pub(crate) const DEFAULT_OPENINGS: &str = "data/openings.epd";

/// The gate's SPRT when none is given.
const DEFAULT_GATE_SPRT: &str = "0,10";

/// Everything a loop's rounds depend on. As a serde record, each field is a key named like
/// its flag; keys left out take the flag's default (`dir` has none: it must be given).
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default = "LoopSettings::without_dir", deny_unknown_fields)]
pub struct LoopSettings {
    /// The run's folder: `best.json`, `loop.jsonl` and one `round-NN/` per round.
    #[cfg_attr(feature = "clap", arg(long))]
    pub dir: PathBuf,
    /// Rounds in all (a rerun with more rounds goes on).
    #[cfg_attr(feature = "clap", arg(allow_negative_numbers = true, long, default_value_t = LoopSettings::new("").rounds))]
    pub rounds: u32,
    /// Self-play games per round (many short games: three rounds of 200 at 5,000 nodes
    /// kept their start, one of 3,000 at 1,000 passed its gate, reports/loop-filter/).
    #[cfg_attr(feature = "clap", arg(allow_negative_numbers = true, long, default_value_t = LoopSettings::new("").games))]
    pub games: u32,
    /// Nodes per move in self-play and in the gate match.
    #[cfg_attr(feature = "clap", arg(allow_negative_numbers = true, long, default_value_t = LoopSettings::new("").nodes))]
    pub nodes: u64,
    /// Parameters to start from (JSON or `preset:NAME`); the table's defaults when absent.
    #[cfg_attr(feature = "clap", arg(long, conflicts_with = "from_zero"))]
    pub params: Option<PathBuf>,
    /// Start from material alone (`preset:material`), as the Slow Chess write-up suggests.
    #[cfg_attr(feature = "clap", arg(long))]
    pub from_zero: bool,
    /// More labelled positions tuned on in every round besides the loop's own; repeatable.
    #[cfg_attr(feature = "clap", arg(long))]
    pub epd: Vec<PathBuf>,
    /// A sources file (as `texel tune --sources`): its mix tuned on in every round besides
    /// the loop's own positions, its phase distribution applied to the whole.
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default)]
    pub sources: Option<PathBuf>,
    /// Tuning: values counting in fewer training positions are held (as `texel tune`).
    #[cfg_attr(feature = "clap", arg(allow_negative_numbers = true, long, default_value_t = LoopSettings::new("").min_support))]
    pub min_support: usize,
    /// Tuning passes per round at most.
    #[cfg_attr(feature = "clap", arg(allow_negative_numbers = true, long, default_value_t = LoopSettings::new("").passes))]
    pub passes: usize,
    /// Gate: the SPRT on game pairs, `ELO0,ELO1[,MODEL]` as in `texel match`.
    #[cfg_attr(feature = "clap", arg(
        allow_hyphen_values = true,
        long,
        default_value = DEFAULT_GATE_SPRT,
        value_name = "ELO0,ELO1[,MODEL]"
    ))]
    pub sprt: SprtTest,
    /// Gate: games at most; an undecided SPRT passes when the score's LOS is at least 95 %.
    #[cfg_attr(feature = "clap", arg(allow_negative_numbers = true, long, default_value_t = LoopSettings::new("").gate_games))]
    pub gate_games: u32,
    /// Games played at once (default: all cores).
    #[cfg_attr(feature = "clap", arg(allow_negative_numbers = true, long))]
    pub threads: Option<usize>,
    /// Openings of self-play and the gate.
    #[cfg_attr(feature = "clap", arg(long, default_value = DEFAULT_OPENINGS))]
    pub openings: PathBuf,
    /// Seed of the first round (round r uses seed + r − 1).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = LoopSettings::new("").seed))]
    pub seed: u64,
    /// Take each round's games from PGN files instead of playing them: round N imports
    /// every `.pgn` (`.pgn.gz`, `.pgn.zst`) file in `DIR/round-NN/`, games of `best.json`
    /// from OpenBench's DATAGEN workload or fastchess. A round without them stops the loop
    /// (exit 3) with what to run; the same command then goes on.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DIR"))]
    pub games_from: Option<PathBuf>,
    /// Whose view the score comments of `--games-from` PGNs take: `mover` (fastchess,
    /// cutechess, OpenBench) or `white` (texel's own games).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = LoopSettings::new("").pgn_scores, value_name = "white|mover"))]
    pub pgn_scores: texel_import::ScoreView,
    /// Who gates a round's tuned table: `own` (a fixed-node SPRT match here) or `outside`
    /// (the loop prints the fastchess command and the OpenBench recipe, stops with exit 3,
    /// and the same command with `--verdict` records the result).
    #[cfg_attr(feature = "clap", arg(long, value_enum, default_value_t = LoopSettings::new("").gate))]
    pub gate: Gate,
    /// Tuning targets: λ · result + (1 − λ) · σ(K · score), each position's game result
    /// mixed with the win probability of the engine's own score in the game (the score
    /// comments of the round's games, kept by the import as `ce`; K the one at which those
    /// scores best predict the results).
    /// 1: results alone; auto: 0.25 when every position of the round carries a score, 1
    /// otherwise.
    #[cfg_attr(feature = "clap", arg(allow_negative_numbers = true, long, value_name = "λ|auto", default_value_t = LoopSettings::new("").lambda))]
    pub lambda: Lambda,
    /// Which sampled positions a round keeps by its game's result: `none` (every one) or
    /// `write-up` (a winning score only from a won game, a drawish one only from a drawn
    /// game; it lost 67 Elo to `none` in play, reports/loop-filter/).
    #[cfg_attr(feature = "clap", arg(long, value_enum, default_value_t = LoopSettings::new("").result_filter))]
    pub result_filter: ResultFilter,
    /// Tune an outside engine instead of texel's table: its description (a JSON file, see
    /// docs/engine-description.md) says how it plays with a values file, how it traces
    /// positions, and the values it starts from.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE", conflicts_with_all = ["params", "from_zero"]))]
    pub engine: Option<PathBuf>,
}

impl LoopSettings {
    /// The settings with every flag at its default, for a loop in `dir` (the flags'
    /// defaults are these).
    pub fn new(dir: impl Into<PathBuf>) -> LoopSettings {
        LoopSettings {
            dir: dir.into(),
            rounds: 3,
            games: 3000,
            nodes: 1000,
            params: None,
            from_zero: false,
            epd: Vec::new(),
            sources: None,
            min_support: DEFAULT_MIN_SUPPORT,
            passes: 30,
            sprt: DEFAULT_GATE_SPRT.parse().expect("valid bounds"),
            gate_games: 1000,
            threads: None,
            openings: PathBuf::from(DEFAULT_OPENINGS),
            seed: 1,
            games_from: None,
            pgn_scores: texel_import::ScoreView::Mover,
            gate: Gate::Own,
            lambda: Lambda::Auto,
            result_filter: ResultFilter::None,
            engine: None,
        }
    }

    /// The defaults with no folder, for serde: a record must name `dir`.
    fn without_dir() -> LoopSettings {
        LoopSettings::new("")
    }

    /// Round `round`'s folder.
    pub fn round_dir(&self, round: u32) -> PathBuf {
        self.dir.join(format!("round-{round:02}"))
    }

    /// The best parameters so far.
    pub fn best(&self) -> PathBuf {
        self.dir.join("best.json")
    }

    /// The loop's line per finished round.
    pub fn rounds_file(&self) -> PathBuf {
        self.dir.join("loop.jsonl")
    }

    /// The parameters the loop starts from.
    ///
    /// # Errors
    /// `--params` cannot be read.
    pub fn start(&self) -> Result<Params, LoopError> {
        Ok(match (self.from_zero, &self.params) {
            (true, _) => Preset::Material.params(),
            (false, Some(path)) => Params::load_or_preset(path)?,
            (false, None) => Params::default(),
        })
    }

    /// Checks the numbers and files before anything is played or written.
    ///
    /// # Errors
    /// The first setting at fault.
    pub fn check(&self) -> Result<(), LoopError> {
        let fail = |message: String| Err(LoopError::Setting(message));
        if self.dir.as_os_str().is_empty() {
            return fail("the loop needs a folder: give --dir DIR".into());
        }
        if self.games == 0 {
            return fail("--games must be at least 1".into());
        }
        if self.gate_games == 0 {
            return fail("--gate-games must be at least 1".into());
        }
        if self.threads == Some(0) {
            return fail("--threads must be at least 1".into());
        }
        if !self.openings.is_file() {
            let name = self.openings.display();
            return fail(format!(
                "openings {name} do not exist (give --openings FILE)"
            ));
        }
        if let Some(e) = self.epd.iter().find(|e| !e.is_file()) {
            return fail(format!("--epd {} does not exist", e.display()));
        }
        if let Some(path) = &self.sources {
            if self.engine.is_some() {
                return fail("--sources mixes positions texel traces: an outside engine's loop tunes its own traces".into());
            }
            for source in texel_dataset::SourcesFile::read(path)?.sources {
                if !source.path.is_file() {
                    let (at, file) = (path.display(), source.path.display());
                    return fail(format!("{at}: source {file} does not exist"));
                }
            }
        }
        if self.engine.is_some() && self.gate == Gate::Outside {
            return fail(
                "an outside engine's gate is played here (--gate own): the outside gate's \
                 recipes start texel's engine"
                    .into(),
            );
        }
        if self.engine.is_some() && (self.params.is_some() || self.from_zero) {
            return fail(
                "--params and --from-zero choose texel's table: an outside engine starts from \
                 its description's \"start\""
                    .into(),
            );
        }
        self.outside_engine()?;
        Ok(())
    }

    /// The outside engine's description, read and checked, when the loop tunes one.
    ///
    /// # Errors
    /// The description cannot drive the loop.
    pub fn outside_engine(&self) -> Result<Option<EngineDescription>, LoopError> {
        let read = self.engine.as_deref().map(EngineDescription::read);
        Ok(read.transpose()?)
    }

    /// What the rounds depend on (a resume must repeat it) and how many there are.
    ///
    /// # Errors
    /// `--params`, an `--epd` file or the openings cannot be read.
    pub fn fingerprint(&self) -> Result<Settings, LoopError> {
        let start = self.start()?;
        let role = |key: &str| match key {
            "rounds" => Role::Length,
            // A sources file is recorded by its contents (below).
            "dir" | "threads" | "params" | "from_zero" | "engine" | "sources" => Role::Ignored,
            "pgn_scores" if self.games_from.is_none() => Role::Ignored,
            _ => Role::Fixed,
        };
        let epd: Vec<&Path> = self.epd.iter().map(PathBuf::as_path).collect();
        // Loops recorded before λ was auto tuned on results alone unless it was given, and
        // loops recorded before the result filter was a setting filtered as the write-up.
        let settings = Settings::of_record(self, role)
            .default_was(&flag_of("lambda"), Lambda::RESULTS)
            .default_was(&flag_of("result_filter"), "write-up")
            .with_contents("epd", &epd)?
            .with_contents(
                "sources",
                &self
                    .sources
                    .iter()
                    .map(PathBuf::as_path)
                    .collect::<Vec<_>>(),
            )?
            .with_contents("openings", &[&self.openings])?;
        match (&self.engine, self.outside_engine()?) {
            (Some(path), Some(engine)) => Ok(settings
                .with_contents("engine", &[path])?
                .with_contents("start", &[&engine.start])?),
            _ => {
                let values = format!("values {}", values_fingerprint(start.flat()));
                Ok(settings.fixed(&flag_of("params"), values))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loop_recorded_before_lambda_was_auto_resumes_with_lambda_one() {
        let mut s = LoopSettings::new("run");
        s.openings = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/openings.epd").into();
        // Such a loop tuned on results alone and recorded no --lambda.
        let mut old = s.fingerprint().unwrap();
        assert_eq!(old.fixed.remove("--lambda").as_deref(), Some("auto"));
        let err = old.check_resume(&s.fingerprint().unwrap()).unwrap_err();
        assert!(err.to_string().contains("give --lambda 1"), "{err}");
        s.lambda = Lambda::RESULTS;
        assert_eq!(old.check_resume(&s.fingerprint().unwrap()), Ok(vec![]));
        s.lambda = Lambda::Given(0.25);
        let err = old.check_resume(&s.fingerprint().unwrap()).unwrap_err();
        assert_eq!((err.then.as_str(), err.now.as_str()), ("1", "0.25"));
    }

    #[test]
    fn a_loop_recorded_before_the_result_filter_was_a_setting_filtered_as_the_write_up() {
        let mut s = LoopSettings::new("run");
        s.openings = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/openings.epd").into();
        s.result_filter = ResultFilter::WriteUp;
        let mut old = s.fingerprint().unwrap();
        assert_eq!(
            old.fixed.remove("--result-filter").as_deref(),
            Some("write-up")
        );
        assert_eq!(old.check_resume(&s.fingerprint().unwrap()), Ok(vec![]));
        s.result_filter = ResultFilter::None;
        let err = old.check_resume(&s.fingerprint().unwrap()).unwrap_err();
        assert_eq!((err.then.as_str(), err.now.as_str()), ("write-up", "none"));
    }

    #[test]
    fn defaults_are_the_flags_and_bad_settings_are_named() {
        let s = LoopSettings::new("run");
        assert_eq!(
            (s.rounds, s.games, s.nodes, s.gate),
            (3, 3000, 1000, Gate::Own)
        );
        assert_eq!(s.sprt, SprtTest::logistic(0.0, 10.0));
        assert_eq!(s.best(), PathBuf::from("run/best.json"));
        let bad = |change: &dyn Fn(&mut LoopSettings)| {
            let mut s = LoopSettings::new("run");
            s.openings = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/openings.epd").into();
            change(&mut s);
            s.check().map_err(|e| e.to_string())
        };
        assert_eq!(bad(&|_| {}), Ok(()));
        assert!(bad(&|s| s.games = 0).unwrap_err().contains("--games"));
        let outside = bad(&|s| {
            s.engine = Some("engine.json".into());
            s.gate = Gate::Outside;
        });
        assert!(outside.unwrap_err().contains("--gate own"));
        let missing = bad(&|s| s.engine = Some("no/engine.json".into()));
        assert!(missing.unwrap_err().contains("no/engine.json"));
        #[cfg(feature = "clap")]
        {
            #[derive(clap::Parser)]
            struct Flags {
                #[command(flatten)]
                settings: LoopSettings,
            }
            let parse = |words: &[&str]| {
                let words = std::iter::once("texel").chain(words.iter().copied());
                <Flags as clap::Parser>::try_parse_from(words).map(|f| f.settings)
            };
            let flags = parse(&["--dir", "run"]).unwrap();
            assert_eq!(
                flags,
                LoopSettings::new("run"),
                "the flags' defaults are new's"
            );
            let sprt = parse(&["--dir", ".", "--sprt", "x"]);
            assert!(sprt.unwrap_err().to_string().contains("--sprt"));
        }
        let missing = bad(&|s| s.epd = vec!["no/such.epd".into()]);
        assert!(missing.unwrap_err().contains("no/such.epd"));
    }
}
