//! Helpers shared by the tests of the real `texel` binary.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The `texel` binary built for these tests.
pub fn texel() -> Command {
    Command::cargo_bin("texel").unwrap()
}

/// Runs `cmd`, expects success, returns stdout.
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
    mut cmd: std::process::Command,
    ready: impl Fn(&str) -> bool,
) -> (Option<i32>, String) {
    use std::io::{BufRead, Read};
    let mut child = cmd.stdout(std::process::Stdio::piped()).spawn().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut text = String::new();
    loop {
        let mut line = String::new();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "never ready: {text}"
        );
        text.push_str(&line);
        if ready(&line) {
            break;
        }
    }
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    stdout.read_to_string(&mut text).unwrap();
    (child.wait().unwrap().code(), text)
}
