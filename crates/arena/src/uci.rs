//! A UCI engine as a process: the handshake, a move in a game, an analysis of one position,
//! and the engine's own words (its last lines on stdout and stderr) when it fails. Every
//! read has a deadline, so a hung engine is a [`Failure`], never a hang.

use crate::engine::{Failure, Reply, MATE_SCORE};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A UCI engine process with a reader thread.
pub struct UciProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// The reader of stderr; its answer is the last lines the engine wrote there.
    said: Option<JoinHandle<Vec<String>>>,
    /// The last lines read from stdout.
    heard: VecDeque<String>,
    /// The command line, for messages.
    command: String,
    /// The names of the options the engine offered in its handshake.
    offered: Vec<String>,
}

/// Lines of an engine's output kept to say why it failed.
const KEPT_LINES: usize = 8;

/// The timeout of the handshake and of `isready`.
const HANDSHAKE: Duration = Duration::from_secs(10);

/// What an engine said of one position: its last score and W/D/L report before `bestmove`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The side to move's score in centipawns (mates as ±(100000 − plies)).
    pub score: i32,
    /// The side to move's win, draw and loss chances in per mille (`UCI_ShowWDL`).
    pub wdl: Option<[u32; 3]>,
    /// The depth reached.
    pub depth: Option<u32>,
}

/// Reads `stderr` to its end on a thread; the thread's answer is its last lines.
fn last_lines(stderr: std::process::ChildStderr) -> JoinHandle<Vec<String>> {
    std::thread::spawn(move || {
        let mut last = VecDeque::new();
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            keep(&mut last, line);
        }
        last.into()
    })
}

/// Keeps `line` among the last [`KEPT_LINES`] of `lines`.
fn keep(lines: &mut VecDeque<String>, line: String) {
    if lines.len() == KEPT_LINES {
        lines.pop_front();
    }
    lines.push_back(line);
}

impl UciProcess {
    /// Starts `cmd args`, shakes hands, sets the hash size and `options`, and waits for
    /// `readyok`.
    ///
    /// # Errors
    /// [`Failure::Start`] naming the command and what it said: it cannot be run, or it does
    /// not answer as a UCI engine.
    pub fn start(
        cmd: &Path,
        args: &[String],
        options: &[(String, String)],
        hash_mb: usize,
    ) -> Result<UciProcess, Failure> {
        let mut words = vec![cmd.display().to_string()];
        words.extend(args.iter().cloned());
        let command = words.join(" ");
        let mut p = UciProcess::spawn(cmd, args, command)?;
        match p.handshake(options, hash_mb) {
            Ok(()) => Ok(p),
            Err(failure) => {
                let why = match failure {
                    Failure::Start(why) => why,
                    other => other.to_string(),
                };
                let (command, words) = (p.command.clone(), p.words());
                Err(Failure::Start(format!("{why} (command: {command}){words}")))
            }
        }
    }

    fn spawn(cmd: &Path, args: &[String], command: String) -> Result<UciProcess, Failure> {
        let mut process = Command::new(cmd);
        // Its own process group: a Ctrl-C at the terminal reaches texel, which stops
        // cleanly, not the engines in the middle of a search.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut process, 0);
        let mut child = process
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Failure::Start(format!("{}: {e}", cmd.display())))?;
        let stdout = child.stdout.take().expect("piped");
        let stdin = child.stdin.take().expect("piped");
        let said = Some(last_lines(child.stderr.take().expect("piped")));
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(UciProcess {
            child,
            stdin,
            lines: rx,
            said,
            heard: VecDeque::new(),
            command,
            offered: Vec::new(),
        })
    }

    /// The UCI handshake, the hash size and `options` set, and `isready` answered.
    fn handshake(&mut self, options: &[(String, String)], hash_mb: usize) -> Result<(), Failure> {
        let not_uci = |e| {
            Failure::Start(format!(
                "no `uciok` answered to `uci` ({e}): is it a UCI engine?"
            ))
        };
        self.send("uci").map_err(not_uci)?;
        let deadline = Instant::now() + HANDSHAKE;
        loop {
            let line = self.recv(deadline).map_err(not_uci)?;
            if line.trim() == "uciok" {
                break;
            }
            if let Some(name) = option_name(&line) {
                self.offered.push(name);
            }
        }
        self.send(&format!("setoption name Hash value {hash_mb}"))?;
        for (name, value) in options {
            self.send(&format!("setoption name {name} value {value}"))?;
        }
        self.ready()
    }

    /// Whether the engine offered the option `name` in its handshake (names compare
    /// without case, as UCI says).
    pub fn offers(&self, name: &str) -> bool {
        self.offered.iter().any(|o| o.eq_ignore_ascii_case(name))
    }

    /// Sets the option `name` to `value` and waits until the engine is ready.
    ///
    /// # Errors
    /// The process does not answer.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), Failure> {
        self.send(&format!("setoption name {name} value {value}"))?;
        self.ready()
    }

    pub(crate) fn send(&mut self, line: &str) -> Result<(), Failure> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|_| Failure::Crashed)
    }

    fn recv(&mut self, deadline: Instant) -> Result<String, Failure> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(line) => {
                keep(&mut self.heard, line.clone());
                Ok(line)
            }
            Err(RecvTimeoutError::Timeout) => Err(Failure::Timeout),
            Err(RecvTimeoutError::Disconnected) => Err(Failure::Crashed),
        }
    }

    fn wait_for(&mut self, token: &str, timeout: Duration) -> Result<(), Failure> {
        let deadline = Instant::now() + timeout;
        while self.recv(deadline)?.trim() != token {}
        Ok(())
    }

    pub(crate) fn ready(&mut self) -> Result<(), Failure> {
        self.send("isready")?;
        self.wait_for("readyok", HANDSHAKE)
    }

    /// Starts a new game (`ucinewgame`: engines clear their hash) and waits until ready.
    ///
    /// # Errors
    /// The process does not answer.
    pub fn new_game(&mut self) -> Result<(), Failure> {
        self.send("ucinewgame")?;
        self.ready()
    }

    /// Reads `info` lines until `bestmove` (by `deadline`): what they reported, the
    /// `bestmove` line and its move's text.
    fn until_best_move(&mut self, deadline: Instant) -> Result<(Info, String, String), Failure> {
        let mut info = Info::default();
        loop {
            let line = self.recv(deadline)?;
            if line.starts_with("info") {
                info.read(&line);
            } else if let Some(rest) = line.strip_prefix("bestmove") {
                let text = rest.split_whitespace().next().unwrap_or("").to_string();
                return Ok((info, line, text));
            }
        }
    }

    /// The engine's move in `pos` (by `deadline`), with the last score and depth reported.
    pub(crate) fn best_move(&mut self, pos: &Chess, deadline: Instant) -> Result<Reply, Failure> {
        let (info, _, text) = self.until_best_move(deadline)?;
        let mv = legal_move(pos, &text).ok_or(Failure::IllegalMove(text))?;
        let (score, depth) = (info.score, info.depth);
        Ok(Reply { mv, score, depth })
    }

    /// Searches `pos` (given to the engine as `fen`) with the `go` command `go` and returns
    /// what the engine reported last before `bestmove`, by `deadline`.
    ///
    /// # Errors
    /// [`Failure::Crashed`], [`Failure::Timeout`], or [`Failure::Garbage`]: no score before
    /// `bestmove`, or a best move that is not legal in `pos`.
    pub fn analyse(
        &mut self,
        pos: &Chess,
        fen: &str,
        go: &str,
        deadline: Instant,
    ) -> Result<Analysis, Failure> {
        self.send(&format!("position fen {fen}"))?;
        self.send(go)?;
        let (info, line, text) = self.until_best_move(deadline)?;
        let no_move = pos.legal_moves().is_empty();
        if !no_move && legal_move(pos, &text).is_none() {
            return Err(Failure::Garbage(format!("`{line}`: not a legal move")));
        }
        let score = info.score.ok_or_else(|| {
            Failure::Garbage(format!("`{line}` with no `info ... score` before it"))
        })?;
        let (wdl, depth) = (info.wdl, info.depth);
        Ok(Analysis { score, wdl, depth })
    }

    /// What the engine said last, for a message: its last lines on stdout, and on stderr
    /// (the process is ended first, so that its stderr is whole).
    pub fn words(&mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // What it wrote before it ended and was not read yet (its stdout is closed now).
        let drain = Instant::now() + Duration::from_millis(200);
        while let Ok(line) = self.recv(drain) {
            let _ = line;
        }
        let stderr = self
            .said
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        let mut words = String::new();
        if !self.heard.is_empty() {
            let heard: Vec<&str> = self.heard.iter().map(String::as_str).collect();
            words += &format!("; its last words on stdout: {}", heard.join(" | "));
        }
        if !stderr.is_empty() {
            words += &format!("; it said on stderr: {}", stderr.join(" | "));
        }
        words
    }
}

/// The name of the option an `option name NAME type ...` line offers (a name may hold
/// spaces).
fn option_name(line: &str) -> Option<String> {
    let rest = line.trim().strip_prefix("option name ")?;
    let name = rest.split(" type ").next()?.trim();
    (!name.is_empty()).then(|| name.to_string())
}

/// `text` read as a UCI move, when it is legal in `pos`.
fn legal_move(pos: &Chess, text: &str) -> Option<shakmaty::Move> {
    text.parse::<UciMove>().ok()?.to_move(pos).ok()
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

/// What `info` lines reported so far: the last score, W/D/L and depth.
#[derive(Default, Debug, PartialEq)]
struct Info {
    score: Option<i32>,
    wdl: Option<[u32; 3]>,
    depth: Option<u32>,
}

impl Info {
    /// Takes the score, W/D/L and depth of an `info` line.
    fn read(&mut self, line: &str) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let number = |i: usize| words.get(i).and_then(|v| v.parse::<i64>().ok());
        for (i, w) in words.iter().enumerate() {
            match *w {
                // `info string ...` is free text.
                "string" => return,
                "depth" => self.depth = number(i + 1).and_then(|d| d.try_into().ok()),
                "score" => self.score = score(words.get(i + 1).copied(), number(i + 2)),
                "wdl" => {
                    let chance = |k| number(i + k).and_then(|v| u32::try_from(v).ok());
                    self.wdl = match (chance(1), chance(2), chance(3)) {
                        (Some(w), Some(d), Some(l)) => Some([w, d, l]),
                        _ => None,
                    };
                }
                _ => {}
            }
        }
    }
}

/// A UCI score (`cp 35`, `mate -2`) in centipawns, mates as ±(100000 − plies).
fn score(kind: Option<&str>, value: Option<i64>) -> Option<i32> {
    let v = i32::try_from(value?).ok()?;
    match kind? {
        "cp" => Some(v.clamp(-MATE_SCORE + 1000, MATE_SCORE - 1000)),
        "mate" if v > 0 => Some(MATE_SCORE - 2 * v.min(400) + 1),
        "mate" => Some(-MATE_SCORE - 2 * v.max(-400)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines_give_score_wdl_and_depth() {
        let mut info = Info::default();
        info.read("info depth 12 seldepth 20 score cp -35 nodes 1000 pv e2e4");
        assert_eq!(
            (info.score, info.depth, info.wdl),
            (Some(-35), Some(12), None)
        );
        info.read("info depth 14 score mate 2 wdl 1000 0 0 pv a1a8");
        assert_eq!(info.score, Some(MATE_SCORE - 3));
        assert_eq!(info.wdl, Some([1000, 0, 0]));
        info.read("info depth 3 score mate -1");
        assert_eq!(info.score, Some(-MATE_SCORE + 2));
        info.read("info string score cp 77 is only text");
        assert_eq!(info.score, Some(-MATE_SCORE + 2));
        info.read("info depth 4 score cp banana wdl 1 2");
        assert_eq!((info.score, info.wdl, info.depth), (None, None, Some(4)));
    }

    #[test]
    fn option_lines_give_their_names() {
        let line = "option name UCI_ShowWDL type check default false";
        assert_eq!(option_name(line).as_deref(), Some("UCI_ShowWDL"));
        let spaced = "option name Clear Hash type button";
        assert_eq!(option_name(spaced).as_deref(), Some("Clear Hash"));
        assert_eq!(option_name("id name Stockfish"), None);
    }

    #[test]
    fn a_missing_engine_fails_to_start() {
        let started = UciProcess::start(Path::new("/nonexistent/engine"), &[], &[], 1);
        assert!(matches!(started, Err(Failure::Start(_))));
    }

    #[test]
    fn a_program_that_is_not_uci_is_named_with_its_words() {
        let args = ["-c".to_string(), "echo hello; echo oops >&2".into()];
        let started = UciProcess::start(Path::new("/bin/sh"), &args, &[], 1);
        let Err(Failure::Start(why)) = started else {
            panic!("a shell is no UCI engine")
        };
        assert!(why.contains("is it a UCI engine"), "{why}");
        assert!(why.contains("hello") && why.contains("oops"), "{why}");
    }
}
