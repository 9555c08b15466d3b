//! Players: texel's own searcher with a parameter file, or any UCI engine as a process.
//! Every read from a process has a timeout, so a hung or crashed engine loses the game
//! instead of hanging the match.

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
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

/// A UCI engine process with a reader thread.
pub struct UciProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

/// Lines of an engine's stderr kept to say why it failed.
const STDERR_LINES: usize = 8;

/// Reads `stderr` to its end on a thread; the thread's answer is its last
/// [`STDERR_LINES`] lines.
fn last_lines(stderr: std::process::ChildStderr) -> std::thread::JoinHandle<Vec<String>> {
    std::thread::spawn(move || {
        let mut last = std::collections::VecDeque::new();
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if last.len() == STDERR_LINES {
                last.pop_front();
            }
            last.push_back(line);
        }
        last.into()
    })
}

/// The timeout of the handshake and of `isready`.
const HANDSHAKE: Duration = Duration::from_secs(10);

impl UciProcess {
    fn start(
        cmd: &PathBuf,
        args: &[String],
        options: &[(String, String)],
        hash_mb: usize,
    ) -> Result<UciProcess, Failure> {
        let mut command = Command::new(cmd);
        // Its own process group: a Ctrl-C at the terminal reaches the match, which stops
        // cleanly, not the engines in the middle of a game.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Failure::Start(format!("{}: {e}", cmd.display())))?;
        let stdout = child.stdout.take().expect("piped");
        let stdin = child.stdin.take().expect("piped");
        let said = last_lines(child.stderr.take().expect("piped"));
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut p = UciProcess {
            child,
            stdin,
            lines: rx,
        };
        match p.handshake(options, hash_mb) {
            Ok(()) => Ok(p),
            Err(failure) => {
                // The engine's own words say why: its stderr, once it has ended.
                let _ = p.child.kill();
                let _ = p.child.wait();
                let stderr = said.join().unwrap_or_default();
                let mut words = vec![cmd.display().to_string()];
                words.extend(args.iter().cloned());
                let mut why = format!("{failure} (command: {})", words.join(" "));
                if !stderr.is_empty() {
                    why += &format!("; it said on stderr: {}", stderr.join(" | "));
                }
                Err(Failure::Start(why))
            }
        }
    }

    /// The UCI handshake, the hash size and `options` set, and `isready` answered.
    fn handshake(&mut self, options: &[(String, String)], hash_mb: usize) -> Result<(), Failure> {
        self.send("uci")?;
        self.wait_for("uciok", HANDSHAKE)
            .map_err(|e| Failure::Start(format!("no uciok: {e}")))?;
        self.send(&format!("setoption name Hash value {hash_mb}"))?;
        for (name, value) in options {
            self.send(&format!("setoption name {name} value {value}"))?;
        }
        self.ready()
    }

    fn send(&mut self, line: &str) -> Result<(), Failure> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|_| Failure::Crashed)
    }

    fn recv(&mut self, deadline: Instant) -> Result<String, Failure> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => Err(Failure::Timeout),
            Err(RecvTimeoutError::Disconnected) => Err(Failure::Crashed),
        }
    }

    fn wait_for(&mut self, token: &str, timeout: Duration) -> Result<(), Failure> {
        let deadline = Instant::now() + timeout;
        while self.recv(deadline)?.trim() != token {}
        Ok(())
    }

    fn ready(&mut self) -> Result<(), Failure> {
        self.send("isready")?;
        self.wait_for("readyok", HANDSHAKE)
    }
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

impl UciProcess {
    /// Reads `info` lines until `bestmove` (by `deadline`): the move in `pos`, with the last
    /// score and depth reported.
    fn best_move(&mut self, pos: &Chess, deadline: Instant) -> Result<Reply, Failure> {
        let (mut score, mut depth) = (None, None);
        loop {
            let line = self.recv(deadline)?;
            if line.starts_with("info") {
                parse_info(&line, &mut score, &mut depth);
            } else if let Some(rest) = line.strip_prefix("bestmove") {
                let text = rest.split_whitespace().next().unwrap_or("");
                let mv = text
                    .parse::<UciMove>()
                    .ok()
                    .and_then(|u| u.to_move(pos).ok())
                    .ok_or_else(|| Failure::IllegalMove(text.to_string()))?;
                return Ok(Reply { mv, score, depth });
            }
        }
    }
}

impl Drop for UciProcess {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The mate-score base used in move comments.
pub const MATE_SCORE: i32 = 100_000;

/// Reads score and depth from an `info` line.
fn parse_info(line: &str, score: &mut Option<i32>, depth: &mut Option<u32>) {
    let words: Vec<&str> = line.split_whitespace().collect();
    for (i, w) in words.iter().enumerate() {
        match *w {
            "depth" => *depth = words.get(i + 1).and_then(|d| d.parse().ok()).or(*depth),
            "score" => match (
                words.get(i + 1),
                words.get(i + 2).and_then(|v| v.parse::<i32>().ok()),
            ) {
                (Some(&"cp"), Some(v)) => *score = Some(v),
                (Some(&"mate"), Some(v)) => {
                    *score = Some(if v > 0 {
                        MATE_SCORE - 2 * v + 1
                    } else {
                        -MATE_SCORE - 2 * v
                    })
                }
                _ => {}
            },
            _ => {}
        }
    }
}

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
            Engine::Uci(p) => {
                p.send("ucinewgame")?;
                p.ready()
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines_give_score_and_depth() {
        let (mut s, mut d) = (None, None);
        parse_info(
            "info depth 12 seldepth 20 score cp -35 nodes 1000 pv e2e4",
            &mut s,
            &mut d,
        );
        assert_eq!((s, d), (Some(-35), Some(12)));
        parse_info("info depth 14 score mate 2 pv a1a8", &mut s, &mut d);
        assert_eq!((s, d), (Some(MATE_SCORE - 3), Some(14)));
        parse_info("info depth 3 score mate -1", &mut s, &mut d);
        assert_eq!(s, Some(-MATE_SCORE + 2));
    }

    #[test]
    fn a_missing_engine_fails_to_start() {
        let spec = EngineSpec {
            name: "ghost".into(),
            kind: Kind::Uci {
                cmd: "/nonexistent/engine".into(),
                args: vec![],
                options: vec![],
            },
            tc: TimeControl::Nodes(100),
            hash_mb: 1,
            timeout: None,
        };
        assert!(matches!(Engine::start(&spec), Err(Failure::Start(_))));
    }
}
