//! The tune log (`texel tune --log`): a line per pull of the path `--l2 auto` walks before
//! the run, one JSON line per pass as the run goes, and at the end a line with the values
//! held for want of support and every change. The tuner writes
//! these records and the report and the loop read them back through the same types.

use serde::{Deserialize, Serialize};
use texel_files::{read_versioned_lines, LinesError, VersionedLine};

/// The version of the tune log's lines; a line of another version is refused.
pub const TUNE_LOG_VERSION: u32 = 1;

fn version_one() -> u32 {
    TUNE_LOG_VERSION
}

/// One pass of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PassLine {
    /// [`TUNE_LOG_VERSION`] (lines written before versions were recorded are version 1).
    #[serde(default = "version_one")]
    pub version: u32,
    /// Pass number (from 1; a number that does not go up starts a new run in the same log).
    pub pass: usize,
    /// Training error after the pass.
    pub train_error: f64,
    /// Validation error after the pass, when there is a validation set.
    pub validation_error: Option<f64>,
    /// Distinct values moved.
    #[serde(default)]
    pub changed: usize,
    /// Accepted moves.
    #[serde(default)]
    pub moves: u64,
    /// Probes made.
    #[serde(default)]
    pub probes: u64,
    /// Seconds since the run began.
    #[serde(default)]
    pub seconds: f64,
    /// A warm start's pass on about one segment in `n`: its training error is that sample's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<usize>,
    /// A Newton iteration or an Adam pass: the training error of its real values before
    /// rounding (the training error above is that of the rounded values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub real_error: Option<f64>,
    /// What the pass was (lines written before kinds were recorded have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<PassKind>,
    /// The fingerprint of the data the run tuned (positions, labels and validation split),
    /// 16 hex digits: a page drawn from the log checks it is given that data (lines written
    /// before the data was recorded have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
}

/// A data fingerprint as a log line writes it: 16 hex digits.
pub fn data_id(fingerprint: u64) -> String {
    format!("{fingerprint:016x}")
}

/// What a run's pass was.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PassKind {
    /// A Newton iteration in real numbers.
    Newton,
    /// [`texel_solve::adam::ADAM_EPOCHS_PER_PASS`] Adam epochs in real numbers.
    Adam,
    /// A pass of coordinate descent (a warm start's, the polish's or `cd`'s).
    Descent,
}

/// One value's change over the whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValueChange {
    /// The value's name (`KNIGHT_PST[3].mid`).
    pub value: String,
    /// At the start.
    pub before: i32,
    /// At the end.
    pub after: i32,
    /// Training positions it counts in.
    pub support: usize,
}

/// The run's last line: what was held and what changed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChangesLine {
    /// [`TUNE_LOG_VERSION`].
    #[serde(default = "version_one")]
    pub version: u32,
    /// Values held at their start for want of support.
    pub held: Vec<String>,
    /// Every value that changed.
    pub changes: Vec<ValueChange>,
    /// The pass whose values the run wrote, chosen on validation (0: the start; absent:
    /// the last pass's, or a log written before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written_pass: Option<usize>,
}

/// One pull of the path of pulls a run walked before its passes (`crate::path`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PullLine {
    /// [`TUNE_LOG_VERSION`].
    #[serde(default = "version_one")]
    pub version: u32,
    /// The pull.
    pub pull: f64,
    /// The mean training error of its solve's real values.
    pub pull_train_error: f64,
    /// Its rounded values' mean error on the held-out positions.
    pub pull_held_out_error: f64,
    /// Newton iterations the solve took.
    pub iterations: u64,
    /// The start's mean error on the held-out positions.
    pub start_held_out_error: f64,
    /// Seconds the solve and its judgement took (0 in logs written before it was kept).
    #[serde(default)]
    pub seconds: f64,
    /// A coarse step of the path (absent: a whole one).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub coarse: bool,
}

/// A line of the tune log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TuneLogLine {
    /// A pass.
    Pass(PassLine),
    /// The changes at the end of a run.
    Changes(ChangesLine),
    /// A pull of the path walked before the passes.
    Pull(PullLine),
    /// A λ of the path of λs walked before the passes.
    Lambda(LambdaLine),
}

/// A λ the path of λs solved, as the tune log keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LambdaLine {
    /// [`TUNE_LOG_VERSION`].
    pub version: u32,
    /// The λ.
    pub lambda: f64,
    /// The mean training error of its solve's real values, against its targets.
    pub lambda_train_error: f64,
    /// Its rounded values' mean error on the held-out positions' results.
    pub lambda_held_out_error: f64,
    /// Newton iterations the solve took.
    pub iterations: u64,
    /// Whether the run chose it.
    pub chosen: bool,
    /// Seconds the solve and its judgement took (0 in logs written before it was kept).
    #[serde(default)]
    pub seconds: f64,
    /// A coarse step of the path (absent: a whole one).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub coarse: bool,
}

impl VersionedLine for TuneLogLine {
    const WHAT: &'static str = "a line of a texel tune log";
    const VERSION: u32 = TUNE_LOG_VERSION;

    fn version(&self) -> u32 {
        match self {
            TuneLogLine::Pass(p) => p.version,
            TuneLogLine::Changes(c) => c.version,
            TuneLogLine::Pull(p) => p.version,
            TuneLogLine::Lambda(l) => l.version,
        }
    }
}

/// Why a tune log cannot be read: a line that is not a tune log line, or of another
/// version.
pub type TuneLogError = LinesError;

/// The pass lines of the latest run in a tune log: the log is appended to, and a pass
/// number that does not go up starts a new run. Blank lines are passed over, and a last
/// line without its newline (cut short) is left out.
///
/// # Errors
/// A line that is not a tune log line, or of another version.
pub fn read_tune_log(text: &str) -> Result<Vec<PassLine>, TuneLogError> {
    let mut passes: Vec<PassLine> = Vec::new();
    for record in read_versioned_lines::<TuneLogLine>(text)? {
        let TuneLogLine::Pass(p) = record else {
            continue;
        };
        if passes.last().is_some_and(|last| p.pass <= last.pass) {
            passes.clear();
        }
        passes.push(p);
    }
    Ok(passes)
}

/// The path of pulls of the latest run in a tune log that walked one, and the start's
/// held-out error (empty and `None` when none did): the pull lines after the last pass or
/// changes line that precedes them.
///
/// # Errors
/// A line that is not a tune log line, or of another version.
pub fn read_tune_path(
    text: &str,
) -> Result<(Vec<crate::path::PullPoint>, Option<f64>), TuneLogError> {
    let (mut path, mut start, mut after_run) = (Vec::new(), None, false);
    for record in read_versioned_lines::<TuneLogLine>(text)? {
        let TuneLogLine::Pull(p) = record else {
            after_run = true;
            continue;
        };
        if std::mem::take(&mut after_run) {
            path.clear();
        }
        start = Some(p.start_held_out_error);
        path.push(crate::path::PullPoint {
            l2: p.pull,
            train: p.pull_train_error,
            held_out: p.pull_held_out_error,
            iterations: p.iterations,
            seconds: p.seconds,
            coarse: p.coarse,
        });
    }
    Ok((path, start))
}

/// The path of λs the latest run of a tune log walked (empty: none), and the λ it chose.
///
/// # Errors
/// A line that is not a tune log's.
pub fn read_tune_lambdas(
    text: &str,
) -> Result<(Vec<crate::lambda::LambdaPoint>, Option<f64>), TuneLogError> {
    let (mut path, mut chosen) = (Vec::new(), None);
    for record in read_versioned_lines::<TuneLogLine>(text)? {
        let TuneLogLine::Lambda(l) = record else {
            continue;
        };
        // A path begins at results alone (solved coarse first, where it refines): a later
        // run's path replaces an earlier one's.
        let after_coarse = path
            .last()
            .is_some_and(|p: &crate::lambda::LambdaPoint| p.coarse);
        if l.lambda == crate::lambda::LAMBDA_PATH[0] && (l.coarse || !after_coarse) {
            (path, chosen) = (Vec::new(), None);
        }
        chosen = if l.chosen { Some(l.lambda) } else { chosen };
        path.push(crate::lambda::LambdaPoint {
            lambda: l.lambda,
            train: l.lambda_train_error,
            held_out: l.lambda_held_out_error,
            iterations: l.iterations,
            seconds: l.seconds,
            coarse: l.coarse,
        });
    }
    Ok((path, chosen))
}

/// Appends the path of λs a run walked (`points`, `chosen` the λ it took) to the log at `path`.
///
/// # Errors
/// The log cannot be written.
pub fn append_lambdas(
    path: &std::path::Path,
    points: &[crate::lambda::LambdaPoint],
    chosen: f64,
) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = texel_files::open_lines_for_append(path)?;
    for p in points {
        let line = TuneLogLine::Lambda(LambdaLine {
            version: TUNE_LOG_VERSION,
            lambda: p.lambda,
            lambda_train_error: p.train,
            lambda_held_out_error: p.held_out,
            iterations: p.iterations,
            chosen: !p.coarse && p.lambda == chosen,
            seconds: p.seconds,
            coarse: p.coarse,
        });
        writeln!(f, "{}", serde_json::to_string(&line).expect("plain data"))?;
    }
    Ok(())
}

/// Appends the path of pulls a run walked (`points`, from a start whose held-out error is
/// `start`) to the log at `path`.
///
/// # Errors
/// The log cannot be written.
pub fn append_path(
    path: &std::path::Path,
    points: &[crate::path::PullPoint],
    start: f64,
) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = texel_files::open_lines_for_append(path)?;
    for p in points {
        let line = TuneLogLine::Pull(PullLine {
            version: TUNE_LOG_VERSION,
            pull: p.l2,
            pull_train_error: p.train,
            pull_held_out_error: p.held_out,
            iterations: p.iterations,
            start_held_out_error: start,
            seconds: p.seconds,
            coarse: p.coarse,
        });
        writeln!(f, "{}", serde_json::to_string(&line).expect("plain data"))?;
    }
    Ok(())
}

/// The pass whose parameters a run with a validation set keeps: the lowest validation error
/// (the last pass when there is none).
pub fn kept_pass(passes: &[PassLine]) -> Option<&PassLine> {
    if passes.iter().all(|p| p.validation_error.is_none()) {
        return passes.last();
    }
    let validation = |p: &PassLine| p.validation_error.unwrap_or(f64::MAX);
    passes
        .iter()
        .min_by(|a, b| validation(a).total_cmp(&validation(b)))
}

/// The names (by `name`) of the variables of `selected` that `tuned` leaves out: the values
/// held for want of support.
pub fn held_names(
    selected: &[texel_solve::descent::Variable],
    tuned: &[texel_solve::descent::Variable],
    name: &dyn Fn(usize) -> String,
) -> Vec<String> {
    selected
        .iter()
        .filter(|v| !tuned.contains(v))
        .map(|v| name(v.slot))
        .collect()
}

/// The pass whose values the last run of the tune log `text` wrote (its last line's), if
/// it says.
pub fn read_written_pass(text: &str) -> Option<usize> {
    let last =
        text.lines()
            .rev()
            .find_map(|line| match serde_json::from_str::<TuneLogLine>(line) {
                Ok(TuneLogLine::Changes(c)) => Some(c),
                _ => None,
            });
    last?.written_pass
}

/// Appends the run's last line to the log at `path`: the values held, every change, and
/// the pass whose values were written.
///
/// # Errors
/// The log cannot be written.
pub fn append_changes(
    path: &std::path::Path,
    (held, changes): (Vec<String>, Vec<ValueChange>),
    written_pass: Option<usize>,
) -> std::io::Result<()> {
    use std::io::Write;
    let line = TuneLogLine::Changes(ChangesLine {
        version: TUNE_LOG_VERSION,
        held,
        changes,
        written_pass,
    });
    let line = serde_json::to_string(&line).expect("plain data");
    let mut f = texel_files::open_lines_for_append(path)?;
    writeln!(f, "{line}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_run_is_read_and_other_versions_refused() {
        let log = "{\"pass\":1,\"train_error\":0.03,\"validation_error\":null,\"moves\":5,\"sample\":8}\n\
                   {\"pass\":2,\"train_error\":0.02,\"validation_error\":0.025}\n\
                   {\"held\":[],\"changes\":[]}\n";
        let p = read_tune_log(log).unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(
            (p[0].validation_error, p[1].validation_error),
            (None, Some(0.025))
        );
        assert_eq!((p[0].sample, p[1].sample), (Some(8), None));
        let appended = format!("{log}{{\"pass\":1,\"train_error\":0.01}}\n");
        let p = read_tune_log(&appended).unwrap();
        assert_eq!(
            (p.len(), p[0].train_error),
            (1, 0.01),
            "the last run of the log"
        );
        let newer = "{\"version\":2,\"pass\":1,\"train_error\":0.01,\"validation_error\":null}\n";
        let err = read_tune_log(newer).unwrap_err().to_string();
        assert!(err.contains("line 1") && err.contains("version 2"), "{err}");
        let err = read_tune_log("{\"pass\":\"one\"}\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("line 1: not a line of a texel tune log"),
            "{err}"
        );
    }

    #[test]
    fn a_pass_line_writes_what_it_reads() {
        let line = TuneLogLine::Pass(PassLine {
            version: TUNE_LOG_VERSION,
            pass: 3,
            train_error: 0.0213,
            validation_error: Some(0.0221),
            changed: 40,
            moves: 90,
            probes: 2000,
            seconds: 1.5,
            sample: None,
            real_error: None,
            kind: Some(PassKind::Adam),
            data: Some(data_id(0xfeed)),
        });
        let text = serde_json::to_string(&line).unwrap();
        assert!(!text.contains("sample"), "{text}");
        assert_eq!(serde_json::from_str::<TuneLogLine>(&text).unwrap(), line);
        let passes = read_tune_log(&format!("{text}\n")).unwrap();
        assert_eq!(kept_pass(&passes).unwrap().pass, 3);
    }

    #[test]
    fn a_path_of_lambdas_solved_coarse_then_whole_is_read_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log.jsonl");
        let point = |lambda: f64, coarse: bool| crate::lambda::LambdaPoint {
            lambda,
            train: 0.02,
            held_out: 0.03 - lambda / 100.0,
            iterations: 2,
            seconds: 0.5,
            coarse,
        };
        append_lambdas(&log, &[point(1.0, false), point(0.75, false)], 1.0).unwrap();
        // The next run refines: coarse from λ 1, then whole from λ 1 again.
        let second = [1.0, 0.75, 0.5].map(|l| point(l, true));
        let second = [&second[..], &[point(1.0, false), point(0.75, false)]].concat();
        append_lambdas(&log, &second, 0.75).unwrap();
        let text = std::fs::read_to_string(&log).unwrap();
        let (path, chosen) = read_tune_lambdas(&text).unwrap();
        assert_eq!(
            path, second,
            "the second run's whole path, not its whole steps alone"
        );
        assert_eq!(chosen, Some(0.75));
        let chosen_lines = text.lines().filter(|l| l.contains("\"chosen\":true"));
        assert_eq!(
            chosen_lines.count(),
            2,
            "one chosen line a run: the whole step's"
        );
    }

    #[test]
    fn the_latest_runs_path_of_pulls_is_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log.jsonl");
        let point = |l2: f64| crate::path::PullPoint {
            l2,
            train: 0.02,
            held_out: 0.03 - l2 / 1e6,
            iterations: 2,
            seconds: 0.5,
            coarse: false,
        };
        append_path(&log, &[point(1000.0)], 0.031).unwrap();
        std::fs::write(
            &log,
            std::fs::read_to_string(&log).unwrap() + "{\"pass\":1,\"train_error\":0.02}\n",
        )
        .unwrap();
        let coarse = |l2: f64| crate::path::PullPoint {
            coarse: true,
            ..point(l2)
        };
        let second = [coarse(100.0), coarse(10.0), point(100.0), point(10.0)];
        append_path(&log, &second, 0.032).unwrap();
        let text = std::fs::read_to_string(&log).unwrap();
        let (path, start) = read_tune_path(&text).unwrap();
        assert_eq!(path, second, "the second run's path, its coarse steps told");
        assert_eq!(start, Some(0.032));
        assert_eq!(
            read_tune_log(&text).unwrap().len(),
            1,
            "pull lines are no passes"
        );
        assert_eq!(read_tune_path("").unwrap(), (Vec::new(), None));
    }
}
