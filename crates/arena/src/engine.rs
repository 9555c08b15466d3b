//! Players: texel's own searcher with a parameter file, or any UCI engine as a process.
//! Every read from a process has a timeout, so a hung or crashed engine loses the game
//! instead of hanging the match.

pub use crate::uci::UciProcess;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use texel_eval::Params;
use texel_search::{Limits, Searcher};

/// How an engine is started.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// texel's searcher with these parameters (the table's defaults when `None`).
    BuiltIn {
        /// Parameter file.
        params: Option<PathBuf>,
    },
    /// A UCI engine process.
    Uci {
        /// Executable.
        cmd: PathBuf,
        /// Arguments (e.g. `--uci` for gnuchess).
        args: Vec<String>,
        /// UCI options to set after the handshake.
        options: Vec<(String, String)>,
    },
}

/// How long an engine may think.
#[derive(Clone, Debug, PartialEq)]
pub enum TimeControl {
    /// Fixed nodes per move.
    Nodes(u64),
    /// Fixed depth per move.
    Depth(u32),
    /// Fixed time per move.
    MoveTime(Duration),
    /// A clock: base time and increment per move.
    Clock {
        /// Time at the start.
        base: Duration,
        /// Added after each move.
        increment: Duration,
    },
}

/// A named engine with its limits.
#[derive(Clone, Debug)]
pub struct EngineSpec {
    /// The name in PGN headers and reports.
    pub name: String,
    /// How it is started.
    pub kind: Kind,
    /// How long it may think.
    pub tc: TimeControl,
    /// Transposition table size in MB.
    pub hash_mb: usize,
    /// How long a move may take under a node or depth limit before the engine forfeits
    /// the game ([`DEFAULT_MOVE_TIMEOUT`] when `None`); under a clock or move time, the
    /// time it was given plus two seconds.
    pub timeout: Option<Duration>,
}

impl EngineSpec {
    /// texel's own engine named `name`, with the parameter file `params` (the defaults when
    /// `None`), thinking under `tc`, with a 16 MB table.
    pub fn built_in(name: &str, params: Option<PathBuf>, tc: TimeControl) -> EngineSpec {
        EngineSpec {
            name: name.into(),
            kind: Kind::BuiltIn { params },
            tc,
            hash_mb: 16,
            timeout: None,
        }
    }

    /// Whether `other` plays exactly as this engine: the same program with the same
    /// settings (for texel, parameter files with the same content) under the same node or
    /// depth limit, names aside. Two such players repeat each other's games move for move,
    /// so a colour-swapped pair of them is one game played twice.
    pub fn plays_like(&self, other: &EngineSpec) -> bool {
        let deterministic = matches!(self.tc, TimeControl::Nodes(_) | TimeControl::Depth(_));
        let same_kind = match (&self.kind, &other.kind) {
            (Kind::BuiltIn { params: a }, Kind::BuiltIn { params: b }) => same_file(a, b),
            (a, b) => a == b,
        };
        deterministic && same_kind && self.tc == other.tc && self.hash_mb == other.hash_mb
    }
}

/// Whether two optional parameter files are the same (by path or by content).
fn same_file(a: &Option<PathBuf>, b: &Option<PathBuf>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) if a == b => true,
        (Some(a), Some(b)) => {
            matches!((std::fs::read(a), std::fs::read(b)), (Ok(x), Ok(y)) if x == y)
        }
        _ => false,
    }
}

/// The default [`EngineSpec::timeout`].
pub const DEFAULT_MOVE_TIMEOUT: Duration = Duration::from_secs(60);

/// Why an engine failed to move: the game is lost with this reason.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Failure {
    /// The engine could not be started or did not answer the handshake.
    #[error("engine failed to start: {0}")]
    Start(String),
    /// The process ended.
    #[error("engine crashed")]
    Crashed,
    /// No answer in time.
    #[error("engine did not answer in time")]
    Timeout,
    /// No move under a node or depth limit within the engine's `timeout`.
    #[error("engine gave no move within {} s (the engine setting timeout=SECONDS)", .0.as_secs_f64())]
    NoMove(Duration),
    /// The move is not legal.
    #[error("illegal move {0}")]
    IllegalMove(String),
    /// An answer that is not what UCI says.
    #[error("engine answered {0}")]
    Garbage(String),
}

/// A move and what the engine said about it.
#[derive(Clone, Debug)]
pub struct Reply {
    /// The move.
    pub mv: Move,
    /// Score from the mover's view, centipawns (mates as ±(100000 − plies)).
    pub score: Option<i32>,
    /// Depth reached.
    pub depth: Option<u32>,
}

/// A running engine.
pub enum Engine {
    /// texel's searcher.
    BuiltIn(Box<Searcher>),
    /// A UCI process.
    Uci(UciProcess),
}

/// The search limits of the side to move (`white` or not) under `tc` with `clocks`.
fn limits_of(tc: &TimeControl, clocks: Option<Clocks>, white: bool) -> Limits {
    match (tc, clocks) {
        (TimeControl::Nodes(n), _) => Limits::nodes(*n),
        (TimeControl::Depth(d), _) => Limits::depth(*d),
        (TimeControl::MoveTime(t), _) => Limits {
            movetime: Some(*t),
            ..Limits::default()
        },
        (TimeControl::Clock { .. }, Some(c)) => Limits {
            time: Some(if white { c.white } else { c.black }),
            increment: if white { c.white_inc } else { c.black_inc },
            ..Limits::default()
        },
        (TimeControl::Clock { base, increment }, None) => Limits {
            time: Some(*base),
            increment: *increment,
            ..Limits::default()
        },
    }
}

/// The UCI `position` command for `start` followed by `moves`.
fn position_command(start: &Chess, moves: &[Move]) -> String {
    let setup = if *start == Chess::default() {
        "startpos".to_string()
    } else {
        format!(
            "fen {}",
            shakmaty::fen::Fen::from_position(start, shakmaty::EnPassantMode::Legal)
        )
    };
    let list: Vec<String> = moves
        .iter()
        .map(|m| UciMove::from_move(*m, CastlingMode::Standard).to_string())
        .collect();
    if list.is_empty() {
        format!("position {setup}")
    } else {
        format!("position {setup} moves {}", list.join(" "))
    }
}

/// The UCI `go` command for `tc` (clock games give both clocks).
fn go_command(tc: &TimeControl, clocks: Option<Clocks>) -> String {
    match (tc, clocks) {
        (TimeControl::Nodes(n), _) => format!("go nodes {n}"),
        (TimeControl::Depth(d), _) => format!("go depth {d}"),
        (TimeControl::MoveTime(t), _) => format!("go movetime {}", t.as_millis()),
        (TimeControl::Clock { .. }, c) => {
            let c = c.expect("clock games carry clocks");
            format!(
                "go wtime {} btime {} winc {} binc {}",
                c.white.as_millis(),
                c.black.as_millis(),
                c.white_inc.as_millis(),
                c.black_inc.as_millis()
            )
        }
    }
}

/// The mate-score base used in move comments.
pub const MATE_SCORE: i32 = 100_000;

/// The clocks of both sides (white, black) when the time control is a clock.
#[derive(Copy, Clone, Debug)]
pub struct Clocks {
    /// Time left for white.
    pub white: Duration,
    /// Time left for black.
    pub black: Duration,
    /// White's increment.
    pub white_inc: Duration,
    /// Black's increment.
    pub black_inc: Duration,
}

impl Engine {
    /// Starts an engine.
    ///
    /// # Errors
    /// A parameter file that cannot be loaded, or a process that does not start or answer.
    pub fn start(spec: &EngineSpec) -> Result<Engine, Failure> {
        match &spec.kind {
            Kind::BuiltIn { params } => {
                let params = match params {
                    Some(p) => {
                        Params::load_or_preset(p).map_err(|e| Failure::Start(e.to_string()))?
                    }
                    None => Params::default(),
                };
                Ok(Engine::BuiltIn(Box::new(Searcher::new(
                    Arc::new(params),
                    spec.hash_mb,
                ))))
            }
            Kind::Uci { cmd, args, options } => Ok(Engine::Uci(UciProcess::start(
                cmd,
                args,
                options,
                spec.hash_mb,
            )?)),
        }
    }

    /// Prepares for a new game.
    ///
    /// # Errors
    /// The process does not answer.
    pub fn new_game(&mut self) -> Result<(), Failure> {
        match self {
            Engine::BuiltIn(s) => {
                s.clear();
                Ok(())
            }
            Engine::Uci(p) => p.new_game(),
        }
    }

    /// Asks for a move in `pos`, reached from `start` by `moves` (`keys`: the keys of all
    /// positions so far), under the limits of `spec`. `clocks` are both sides' clocks
    /// before this move.
    ///
    /// # Errors
    /// The reason the engine loses: crash, timeout or illegal move.
    pub fn go(
        &mut self,
        start: &Chess,
        moves: &[Move],
        pos: &Chess,
        keys: &[u64],
        spec: &EngineSpec,
        clocks: Option<Clocks>,
    ) -> Result<Reply, Failure> {
        let (tc, timeout) = (&spec.tc, spec.timeout);
        let limits = limits_of(tc, clocks, pos.turn().is_white());
        match self {
            Engine::BuiltIn(s) => {
                let r = s.search(
                    pos,
                    &keys[..keys.len().saturating_sub(1)],
                    &limits,
                    &mut |_| {},
                );
                let mv = r.best.ok_or(Failure::IllegalMove("(none)".into()))?;
                let score = if r.score.abs() > texel_search::MATE - 1000 {
                    r.score.signum() * (MATE_SCORE - (texel_search::MATE - r.score.abs()))
                } else {
                    r.score
                };
                Ok(Reply {
                    mv,
                    score: Some(score),
                    depth: Some(r.depth),
                })
            }
            Engine::Uci(p) => {
                p.send(&position_command(start, moves))?;
                p.send(&go_command(tc, clocks))?;
                let budget = match (&limits.movetime, &limits.time) {
                    (Some(t), _) | (_, Some(t)) => *t + Duration::from_secs(2),
                    _ => {
                        let wait = timeout.unwrap_or(DEFAULT_MOVE_TIMEOUT);
                        return p
                            .best_move(pos, Instant::now() + wait)
                            .map_err(|f| match f {
                                Failure::Timeout => Failure::NoMove(wait),
                                f => f,
                            });
                    }
                };
                p.best_move(pos, Instant::now() + budget)
            }
        }
    }
}
