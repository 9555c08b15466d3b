//! Helpers shared by the tests of the real `texel` binary.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The `texel` binary built for these tests.
pub fn texel() -> Command {
    Command::cargo_bin("texel").unwrap()
}

/// Runs `cmd`, expects success, returns stdout.
#[allow(dead_code, reason = "each test file compiles this module")]
pub fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `cmd`, expects exit code 2, returns stderr.
#[allow(
    dead_code,
    reason = "each test file compiles this module; docs.rs expects no failure"
)]
pub fn fails(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(2),
        "stdout: {stdout}\nstderr: {err}"
    );
    err
}

/// The first `n` lines of the shipped data, written as `name` in `dir`.
#[allow(
    dead_code,
    reason = "each test file compiles this module; matches.rs needs no data"
)]
pub fn sample(dir: &Path, name: &str, n: usize) -> PathBuf {
    let text: String = include_str!("../../../../data/train.epd")
        .lines()
        .take(n)
        .map(|l| format!("{l}\n"))
        .collect();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs `cmd`, sends it SIGINT (Ctrl-C) once a line of its output satisfies `ready`, and
/// returns its exit code and everything it printed.
#[allow(
    dead_code,
    reason = "each test file compiles this module; robust.rs sends no Ctrl-C"
)]
pub fn interrupt_when(
    cmd: std::process::Command,
    ready: impl Fn(&str) -> bool,
) -> (Option<i32>, String) {
    let (code, stdout, _) = interrupt_when_in(cmd, false, ready);
    (code, stdout)
}

/// [`interrupt_when`] watching stdout, or stderr when `watch_stderr`; returns the exit code,
/// stdout and stderr.
#[allow(dead_code, reason = "each test file compiles this module")]
pub fn interrupt_when_in(
    cmd: std::process::Command,
    watch_stderr: bool,
    ready: impl Fn(&str) -> bool,
) -> (Option<i32>, String, String) {
    when_ready(cmd, watch_stderr, ready, send_sigint)
}

/// Runs `cmd`, calls `then` with it once a line of its output (stderr when `watch_stderr`)
/// satisfies `ready`, lets it run to its end and returns its exit code, stdout and stderr.
#[allow(dead_code, reason = "each test file compiles this module")]
pub fn when_ready(
    mut cmd: std::process::Command,
    watch_stderr: bool,
    ready: impl Fn(&str) -> bool,
    then: impl FnOnce(&std::process::Child),
) -> (Option<i32>, String, String) {
    use std::io::{BufRead, Read};
    use std::process::Stdio;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (out, err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let (watched, other): (Box<dyn Read + Send>, Box<dyn Read + Send>) = if watch_stderr {
        (Box::new(err), Box::new(out))
    } else {
        (Box::new(out), Box::new(err))
    };
    let rest = std::thread::spawn(move || {
        let mut text = String::new();
        let mut other = other;
        other.read_to_string(&mut text).unwrap();
        text
    });
    let mut watched = std::io::BufReader::new(watched);
    let mut text = String::new();
    loop {
        let mut line = String::new();
        assert!(
            watched.read_line(&mut line).unwrap() > 0,
            "never ready: {text}"
        );
        text.push_str(&line);
        if ready(&line) {
            break;
        }
    }
    then(&child);
    watched.read_to_string(&mut text).unwrap();
    let code = child.wait().unwrap().code();
    let other = rest.join().unwrap();
    if watch_stderr {
        (code, other, text)
    } else {
        (code, text, other)
    }
}

/// Sends SIGINT (Ctrl-C) to `child`.
pub fn send_sigint(child: &std::process::Child) {
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
}

/// Waits (at most two minutes) until `pgn` holds two games, then sends `child` SIGINT and
/// returns its exit code.
#[allow(dead_code, reason = "each test file compiles this module")]
pub fn interrupt_after_two_games(mut child: std::process::Child, pgn: &Path) -> Option<i32> {
    let began = std::time::Instant::now();
    while std::fs::read_to_string(pgn).map_or(0, |t| t.matches("[Event ").count()) < 2 {
        assert!(
            began.elapsed().as_secs() < 120,
            "no games in {}",
            pgn.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    send_sigint(&child);
    child.wait().unwrap().code()
}

/// A small random number generator (SplitMix64), so that tests need nothing of texel's.
#[allow(dead_code, reason = "each test file compiles this module")]
pub struct Rng(pub u64);

#[allow(dead_code, reason = "each test file compiles this module")]
impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A whole number from 0 below `n`.
    pub fn below(&mut self, n: u64) -> i64 {
        (self.next() % n) as i64
    }

    /// A number from 0 below 1.
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The error printed on the line of `out` that starts with `label` (`end:`, `error:`).
#[allow(
    dead_code,
    reason = "each test file compiles this module; not all read errors"
)]
pub fn error_on(out: &str, label: &str) -> f64 {
    let line = out.lines().find(|l| l.starts_with(label)).expect(label);
    let after = line.split("error ").nth(1).expect("an error");
    after.split_whitespace().next().unwrap().parse().unwrap()
}

/// Converts the text trace `text` into the binary trace `bin` with `texel traces convert`.
#[allow(
    dead_code,
    reason = "each test file compiles this module; not all convert traces"
)]
pub fn to_binary(text: &Path, bin: &Path) {
    stdout_of(
        texel()
            .args(["traces", "convert", "--input"])
            .arg(text)
            .arg("--out")
            .arg(bin),
    );
}

/// Asserts that the tune that printed `printed` ended at an error no higher than that of
/// the planted values `planted` (JSON) on `trace`, at K = 1: the tuned values fit the sample
/// at least as well as the values that drew its labels.
#[allow(
    dead_code,
    reason = "each test file compiles this module; only the planted tests compare"
)]
pub fn assert_fits_as_planted(dir: &Path, trace: &Path, planted: &str, printed: &str) {
    let values = dir.join("planted.json");
    std::fs::write(&values, planted).unwrap();
    let truth = stdout_of(
        texel()
            .args(["error", "--k", "1", "--traces"])
            .arg(trace)
            .arg("--params")
            .arg(&values),
    );
    let (truth, end) = (error_on(&truth, "error:"), error_on(printed, "end:"));
    assert!(end <= truth, "tuned {end}, planted {truth}\n{printed}");
}

/// The EPD `lines` (`FEN [result]`) as 32-byte records written by `write` (marlinformat's
/// or bulletformat's), the n-th with the made-up score `score(n)`.
#[allow(dead_code, reason = "each test file compiles this module")]
pub fn as_records(
    lines: &str,
    write: fn(&shakmaty::Chess, texel_data::Outcome, i32) -> [u8; 32],
    score: impl Fn(usize) -> i32,
) -> Vec<u8> {
    let mut records = Vec::new();
    for (i, line) in lines.lines().enumerate() {
        let (l, _) = texel_data::parse_line(line, None, false).unwrap();
        records.extend(write(&l.position, l.label.outcome().unwrap(), score(i)));
    }
    records
}

/// Where a run is stopped by Ctrl-C: once the `nth` line of its output (1: the first)
/// starting with `line` is printed; the run then says `said` (where it stopped).
#[allow(dead_code, reason = "each test file compiles this module")]
pub struct StopAt {
    /// The start of the line watched.
    pub line: &'static str,
    /// Which of those lines.
    pub nth: usize,
    /// What the stopped run says.
    pub said: &'static str,
}

impl From<((&'static str, usize), &'static str)> for StopAt {
    fn from(((line, nth), said): ((&'static str, usize), &'static str)) -> StopAt {
        StopAt { line, nth, said }
    }
}

/// Runs `tune(out, extra)` unbroken, then stopped by SIGINT at each of `stops` and continued
/// with `--resume OUT.ckpt` (or, where the stop kept nothing to resume, the same command
/// again): every run ends at the unbroken run's values file, byte for byte.
#[allow(dead_code, reason = "each test file compiles this module")]
pub fn resumes_anywhere(
    dir: &Path,
    tune: &dyn Fn(&Path, &[&str]) -> std::process::Command,
    stops: &[StopAt],
) {
    let straight = dir.join("straight.json");
    let unbroken = stdout_of(&mut tune(&straight, &[]).into());
    for (i, stop) in stops.iter().enumerate() {
        let out = dir.join(format!("stopped-{i}.json"));
        let seen = std::cell::Cell::new(0);
        let ready = |l: &str| {
            seen.set(seen.get() + usize::from(l.starts_with(stop.line)));
            seen.get() == stop.nth
        };
        let (code, said, err) = interrupt_when_in(tune(&out, &[]), false, ready);
        let at = format!("stopped at {:?} #{}", stop.line, stop.nth);
        assert_eq!(code, Some(130), "{at}: {said}\n{err}");
        assert!(
            said.contains(stop.said) || err.contains(stop.said),
            "{at}: {said}\n{err}"
        );
        let ckpt = dir.join(format!("stopped-{i}.json.ckpt"));
        let again: &[&str] = match ckpt.exists() {
            true => &["--resume", ckpt.to_str().unwrap()],
            false => &[],
        };
        let resumed = stdout_of(&mut tune(&out, again).into());
        assert_eq!(
            std::fs::read(&out).unwrap(),
            std::fs::read(&straight).unwrap(),
            "{at}: {said}\n{err}\n{resumed}\nunbroken:\n{unbroken}"
        );
    }
}
