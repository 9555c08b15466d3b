//! An outside engine the loop tunes: how it plays with a values file, how it traces
//! positions, and the values it starts from — one small JSON file
//! (`docs/engine-description.md`), checked field by field before anything runs.

use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::Command;
use texel_arena::engine::{EngineSpec, Kind, TimeControl};

/// The format an engine description names.
pub const ENGINE_FORMAT: &str = "texel-engine-1";

/// An outside engine as the loop drives it. Commands are argument lists run from the
/// folder `texel loop` runs in; `{values}`, `{epd}` and `{trace}` stand for the files the
/// loop gives them.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineDescription {
    /// [`ENGINE_FORMAT`].
    pub format: String,
    /// The engine's name in games and reports.
    pub name: String,
    /// The UCI engine with a values file: `{values}` is a JSON file of every value by name
    /// (texel's values file, as `texel tune --traces` writes it).
    pub play: Vec<String>,
    /// Writes a texel trace (`docs/trace-format.md`) of the labelled positions of `{epd}`
    /// into `{trace}`.
    pub trace: Vec<String>,
    /// The values file the loop starts from.
    pub start: PathBuf,
}

/// Why an engine description cannot drive the loop; each names the field at fault.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The file cannot be read.
    #[error("engine description {path}: {cause}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
    /// The file is not a description.
    #[error("engine description {path}: {cause} (see docs/engine-description.md)")]
    Json {
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: serde_json::Error,
    },
    /// A field cannot work.
    #[error("engine description {path}: \"{field}\" {why}")]
    Field {
        /// The file.
        path: PathBuf,
        /// The field.
        field: &'static str,
        /// What is wrong with it.
        why: String,
    },
    /// The trace command failed.
    #[error("the engine's \"trace\" command {command:?} failed: {why}")]
    Trace {
        /// The command, as run.
        command: Vec<String>,
        /// Its exit or error, and what it printed.
        why: String,
    },
}

impl EngineDescription {
    /// Reads and checks the description at `path`.
    ///
    /// # Errors
    /// The file cannot be read, is not a description, or a field cannot work.
    pub fn read(path: &Path) -> Result<EngineDescription, EngineError> {
        let text = std::fs::read_to_string(path).map_err(|cause| EngineError::Read {
            path: path.to_path_buf(),
            cause,
        })?;
        let d: EngineDescription =
            serde_json::from_str(&text).map_err(|cause| EngineError::Json {
                path: path.to_path_buf(),
                cause,
            })?;
        d.check().map_err(|(field, why)| EngineError::Field {
            path: path.to_path_buf(),
            field,
            why,
        })?;
        Ok(d)
    }

    /// The first field that cannot work, and why.
    fn check(&self) -> Result<(), (&'static str, String)> {
        if self.format != ENGINE_FORMAT {
            let why = format!("is {:?}: this texel reads {ENGINE_FORMAT:?}", self.format);
            return Err(("format", why));
        }
        if self.name.trim().is_empty() {
            return Err(("name", "is empty".into()));
        }
        check_command("play", &self.play, &["{values}"])?;
        check_command("trace", &self.trace, &["{epd}", "{trace}"])?;
        if !self.start.is_file() {
            let why = format!("names {}, which is not a file", self.start.display());
            return Err(("start", why));
        }
        Ok(())
    }

    /// The engine playing with the values file `values` under `tc`.
    pub fn player(&self, name: &str, values: &Path, tc: TimeControl) -> EngineSpec {
        let words = fill(&self.play, &[("{values}", values)]);
        EngineSpec {
            name: name.into(),
            kind: Kind::Uci {
                cmd: PathBuf::from(&words[0]),
                args: words[1..].to_vec(),
                options: Vec::new(),
            },
            tc,
            hash_mb: 16,
            timeout: None,
        }
    }

    /// Runs the trace command on `epd`, writing `trace` (through a temporary file beside
    /// it, renamed when the command succeeds).
    ///
    /// # Errors
    /// The command cannot start, fails, or writes nothing.
    pub fn write_trace(&self, epd: &Path, trace: &Path) -> Result<(), EngineError> {
        let part = trace.with_extension("part");
        let words = fill(&self.trace, &[("{epd}", epd), ("{trace}", &part)]);
        let failed = |why: String| EngineError::Trace {
            command: words.clone(),
            why,
        };
        let out = Command::new(&words[0])
            .args(&words[1..])
            .output()
            .map_err(|e| failed(e.to_string()))?;
        if !out.status.success() {
            let said = String::from_utf8_lossy(&out.stderr).trim().to_string();
            return Err(failed(format!("{}: {said}", out.status)));
        }
        if !part.is_file() {
            return Err(failed(format!("it wrote no {}", part.display())));
        }
        // A trace that is not of these positions is not kept: a resume traces again.
        if let Err(why) = check_trace(epd, &part) {
            let _ = std::fs::remove_file(&part);
            return Err(failed(why));
        }
        std::fs::rename(&part, trace).map_err(|e| failed(e.to_string()))
    }
}

/// Checks that the trace `trace` holds the labelled positions of `epd`: as many, in order,
/// each with its line's result (White's view); the first difference in words.
fn check_trace(epd: &Path, trace: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(epd).map_err(|e| format!("{}: {e}", epd.display()))?;
    let mut labels = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let (labelled, _) = texel_data::parse_line(line, None, false)
            .map_err(|e| format!("{} line {}: {e}", epd.display(), n + 1))?;
        labels.push((n + 1, labelled.label.white_score()));
    }
    let results = trace_results(trace)?;
    if results.len() != labels.len() {
        return Err(format!(
            "its trace holds {} positions where {} has {}",
            results.len(),
            epd.display(),
            labels.len()
        ));
    }
    let differs = |(r, (_, l)): &(&f32, &(usize, f64))| (f64::from(**r) - l).abs() > 1e-6;
    match results.iter().zip(&labels).position(|pair| differs(&pair)) {
        None => Ok(()),
        Some(i) => Err(format!(
            "position {} of its trace has result {}, line {} of {} says {}",
            i + 1,
            results[i],
            labels[i].0,
            epd.display(),
            labels[i].1
        )),
    }
}

/// The result of every position of the trace at `path` (text or binary), in order.
fn trace_results(path: &Path) -> Result<Vec<f32>, String> {
    use texel_tune::texel_trace::{is_binary, read_trace, BinaryTrace, TracedPosition};
    let bad = |e: texel_tune::texel_trace::TraceError| format!("its trace cannot be read: {e}");
    if !is_binary(path).map_err(bad)? {
        return Ok(read_trace(path)
            .map_err(bad)?
            .1
            .iter()
            .map(|p| p.result)
            .collect());
    }
    let trace = BinaryTrace::read(path).map_err(bad)?;
    let (mut results, mut scratch) = (Vec::with_capacity(trace.len()), TracedPosition::default());
    let all: Vec<usize> = (0..trace.len()).collect();
    trace
        .for_each(&all, &mut scratch, |_, p| results.push(p.result))
        .map_err(bad)?;
    Ok(results)
}

/// Checks a command: words, a program that exists, and the stand-ins it must hold.
fn check_command(
    field: &'static str,
    words: &[String],
    needs: &[&str],
) -> Result<(), (&'static str, String)> {
    let Some(program) = words.first() else {
        return Err((
            field,
            "is empty: give the command as a list of words".into(),
        ));
    };
    if !runnable(program) {
        let why = format!("starts with {program:?}, which is neither a file nor on PATH");
        return Err((field, why));
    }
    for need in needs {
        if !words.iter().any(|w| w.contains(need)) {
            return Err((
                field,
                format!("has no {need}, where the loop puts its file"),
            ));
        }
    }
    Ok(())
}

/// Whether `program` is a file, or a name found on `PATH`.
fn runnable(program: &str) -> bool {
    let path = Path::new(program);
    if path.components().count() > 1 {
        return path.is_file();
    }
    let dirs = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&dirs).any(|d| d.join(program).is_file())
}

/// `words` with each stand-in replaced by its file.
fn fill(words: &[String], files: &[(&str, &Path)]) -> Vec<String> {
    let replace = |w: &String| {
        files.iter().fold(w.clone(), |w, (stand_in, file)| {
            w.replace(stand_in, &file.display().to_string())
        })
    };
    words.iter().map(replace).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A change to a description's JSON.
    type Change = dyn Fn(&mut serde_json::Value);

    fn description(dir: &Path, change: &Change) -> PathBuf {
        let start = dir.join("start.json");
        std::fs::write(&start, "{}").unwrap();
        let mut d = serde_json::json!({
            "format": ENGINE_FORMAT,
            "name": "mine",
            "play": ["sh", "engine.sh", "{values}"],
            "trace": ["sh", "trace.sh", "{epd}", "{trace}"],
            "start": start,
        });
        change(&mut d);
        let path = dir.join("engine.json");
        std::fs::write(&path, d.to_string()).unwrap();
        path
    }

    #[test]
    fn a_description_that_cannot_work_is_refused_naming_its_field() {
        let dir = tempfile::tempdir().unwrap();
        let read = |change: &Change| {
            EngineDescription::read(&description(dir.path(), change)).map_err(|e| e.to_string())
        };
        let d = read(&|_| {}).unwrap();
        let tc = TimeControl::Nodes(100);
        let spec = d.player("mine", Path::new("/v/best.json"), tc);
        let Kind::Uci { cmd, args, .. } = spec.kind else {
            panic!("a UCI engine")
        };
        assert_eq!(
            (cmd, args),
            ("sh".into(), vec!["engine.sh".into(), "/v/best.json".into()])
        );
        let cases: [(&Change, &str); 6] = [
            (&|d| d["format"] = "texel-engine-9".into(), "\"format\""),
            (&|d| d["play"] = serde_json::json!([]), "\"play\" is empty"),
            (
                &|d| d["play"][0] = "no-such-program-here".into(),
                "\"play\" starts with",
            ),
            (
                &|d| d["trace"][3] = "out.trace".into(),
                "\"trace\" has no {trace}",
            ),
            (
                &|d| d["start"] = "missing.json".into(),
                "\"start\" names missing.json",
            ),
            (&|d| d["colour"] = "blue".into(), "unknown field `colour`"),
        ];
        for (change, says) in cases {
            let err = read(change).unwrap_err();
            assert!(err.contains(says), "{err}");
        }
    }

    #[test]
    fn the_trace_command_writes_its_file_or_says_why_not() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("written.trace");
        let src_word = src.display().to_string();
        let d = EngineDescription::read(&description(dir.path(), &move |d| {
            let copy = "cp \"$2\" \"$1\"";
            d["trace"] = serde_json::json!(["sh", "-c", copy, "{epd}", "{trace}", src_word]);
        }))
        .unwrap();
        let (epd, trace) = (dir.path().join("p.epd"), dir.path().join("p.trace"));
        let fen = "8/8/8/8/8/8/4K3/k7 w - - 0 1";
        std::fs::write(&epd, format!("{fen} [1.0]\n{fen} [0.5]\n{fen} [0.0]\n")).unwrap();
        let header = r#"{"format":"texel-trace","version":1,"params":[{"name":"P","len":1,"tapered":false,"default":0}]}"#;
        let write = |results: &[&str]| {
            let lines: Vec<String> = results
                .iter()
                .map(|r| format!(r#"{{"result": {r}, "phase": 1, "coeffs": [[0, 1]]}}"#))
                .collect();
            std::fs::write(&src, format!("{header}\n{}\n", lines.join("\n"))).unwrap();
        };
        write(&["1", "0.5", "0"]);
        d.write_trace(&epd, &trace).unwrap();
        assert!(trace.is_file());
        std::fs::remove_file(&trace).unwrap();
        // A dropped position, results from the other side, or garbage: refused, naming the
        // first difference, and nothing kept for a resume to trip on.
        for (written, says) in [
            (&["1", "0.5"][..], "holds 2 positions"),
            (
                &["0", "0.5", "1"],
                "position 1 of its trace has result 0, line 1",
            ),
        ] {
            write(written);
            let err = d.write_trace(&epd, &trace).unwrap_err().to_string();
            assert!(err.contains(says), "{err}");
            assert!(!trace.exists() && !trace.with_extension("part").exists());
        }
        std::fs::write(&src, "garbage\n").unwrap();
        let err = d.write_trace(&epd, &trace).unwrap_err().to_string();
        assert!(err.contains("cannot be read"), "{err}");
        assert!(!trace.exists() && !trace.with_extension("part").exists());
        let failing = EngineDescription {
            trace: vec!["sh".into(), "-c".into(), "echo broken >&2; exit 3".into()],
            ..d
        };
        let err = failing.write_trace(&epd, &trace).unwrap_err().to_string();
        assert!(err.contains("broken"), "{err}");
    }
}
