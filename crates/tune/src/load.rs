//! Loading labelled EPD/FEN files into datasets: streaming, parsed and traced in parallel,
//! every bad line counted by reason.

use crate::dataset::{Dataset, DatasetBuilder};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::fmt;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use texel_data::{parse_line, BadLine, LabelFormat, Labelled};
use texel_eval::{Params, Trace, Tracer};

/// Lines parsed and traced per parallel batch.
const BATCH: usize = 16384;

/// How many line numbers of each kind of bad line are kept for the report.
const EXAMPLES: usize = 5;

/// What to load and how.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Labels are from the side to move's point of view.
    pub stm_labels: bool,
    /// Share of positions held out for validation, in per mille (0 = none).
    pub validation_per_mille: u32,
    /// Go on even when more than 1% of the lines are bad.
    pub allow_bad: bool,
}

/// Bad lines of one kind: how many, and where the first few are.
#[derive(Clone, Debug, Default)]
pub struct BadLines {
    /// Number of such lines.
    pub count: u64,
    /// `file:line` of the first ones.
    pub examples: Vec<String>,
}

/// What loading found.
#[derive(Clone, Debug, Default)]
pub struct LoadReport {
    /// Non-empty lines read.
    pub lines: u64,
    /// Positions in the training set.
    pub train: usize,
    /// Positions held out for validation.
    pub validation: usize,
    /// The label format detected in each file.
    pub formats: Vec<(PathBuf, Option<LabelFormat>)>,
    /// Skipped lines by reason.
    pub bad: BTreeMap<BadLine, BadLines>,
}

impl LoadReport {
    /// Total skipped lines.
    pub fn bad_lines(&self) -> u64 {
        self.bad.values().map(|b| b.count).sum()
    }
}

impl fmt::Display for LoadReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} lines: {} training positions", self.lines, self.train)?;
        if self.validation > 0 {
            write!(f, ", {} validation positions", self.validation)?;
        }
        write!(f, ", {} skipped", self.bad_lines())?;
        for (reason, b) in &self.bad {
            write!(
                f,
                "\n  {reason}: {} (first at {})",
                b.count,
                b.examples.join(", ")
            )?;
        }
        Ok(())
    }
}

/// Why loading failed.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// No usable position in any file.
    #[error("no usable labelled position in {files}{detail}")]
    NoPositions {
        /// The files read.
        files: String,
        /// What was wrong with their lines.
        detail: String,
    },
    /// The positions do not fit in one dataset.
    #[error(transparent)]
    Full(#[from] crate::dataset::DatasetFull),
    /// More than 1% of the lines are bad.
    #[error("{bad} of {lines} lines are bad (more than 1%; --allow-bad goes on anyway)\n{report}")]
    TooManyBad {
        /// Bad lines.
        bad: u64,
        /// All lines.
        lines: u64,
        /// The full report.
        report: LoadReport,
    },
}

/// A deterministic hash of a line's global index: decides the validation split.
fn held_out(index: u64, per_mille: u32) -> bool {
    let mut z = index.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    z % 1000 < u64::from(per_mille)
}

/// One parsed line.
type Parsed = Result<(Labelled, Trace), BadLine>;

/// Loads every file into a training and a validation dataset, tracing under `params`.
/// `progress` is called with the number of bytes read so far.
///
/// # Errors
/// An unreadable file, no usable position, or more than 1% bad lines without
/// `allow_bad`.
pub fn load(
    paths: &[PathBuf],
    params: &Params,
    options: &LoadOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(Dataset, Dataset, LoadReport), LoadError> {
    let mut train = DatasetBuilder::default();
    let mut validation = DatasetBuilder::default();
    let mut report = LoadReport::default();
    let mut bytes_done = 0u64;
    let mut index = 0u64;
    for path in paths {
        let file = std::fs::File::open(path).map_err(|e| io(path, e))?;
        let mut reader = BufReader::with_capacity(1 << 20, file);
        let mut format = None;
        let mut line_no = 0u64;
        loop {
            let (batch, read) = read_batch(&mut reader, &mut line_no).map_err(|e| io(path, e))?;
            bytes_done += read;
            if batch.is_empty() {
                break;
            }
            if format.is_none() {
                format = batch
                    .iter()
                    .find_map(|(_, l)| parse_line(l, None, options.stm_labels).ok().map(|r| r.1));
            }
            let parsed: Vec<Parsed> = batch
                .par_iter()
                .map_init(
                    || Tracer::new(params),
                    |tracer, (_, line)| {
                        let (labelled, _) = parse_line(line, format, options.stm_labels)?;
                        let trace = tracer.trace(&labelled.position);
                        Ok((labelled, trace))
                    },
                )
                .collect();
            for ((no, _), result) in batch.iter().zip(parsed) {
                report.lines += 1;
                match result {
                    Ok((l, trace)) => {
                        let target = if held_out(index, options.validation_per_mille) {
                            &mut validation
                        } else {
                            &mut train
                        };
                        target.push(l.label, &trace, params)?;
                        index += 1;
                    }
                    Err(reason) => {
                        let entry = report.bad.entry(reason).or_default();
                        entry.count += 1;
                        if entry.examples.len() < EXAMPLES {
                            entry.examples.push(format!("{}:{no}", path.display()));
                        }
                    }
                }
            }
            progress(bytes_done);
        }
        report.formats.push((path.clone(), format));
    }
    report.train = train.len();
    report.validation = validation.len();
    if train.is_empty() {
        let files: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        let detail = if report.lines == 0 {
            " (no lines)".to_string()
        } else {
            format!(" ({report})")
        };
        return Err(LoadError::NoPositions {
            files: files.join(", "),
            detail,
        });
    }
    let bad = report.bad_lines();
    if !options.allow_bad && bad * 100 > report.lines {
        return Err(LoadError::TooManyBad {
            bad,
            lines: report.lines,
            report,
        });
    }
    Ok((train.finish(), validation.finish(), report))
}

fn io(path: &Path, source: std::io::Error) -> LoadError {
    LoadError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Reads up to [`BATCH`] non-empty lines with their numbers; returns them and the bytes read.
/// Lines that are not UTF-8 are kept lossily (they fail to parse and are counted).
fn read_batch(
    reader: &mut impl BufRead,
    line_no: &mut u64,
) -> std::io::Result<(Vec<(u64, String)>, u64)> {
    let mut batch = Vec::with_capacity(BATCH);
    let mut bytes = 0u64;
    let mut buf = Vec::new();
    while batch.len() < BATCH {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf)?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        *line_no += 1;
        let line = String::from_utf8_lossy(&buf).trim().to_string();
        if !line.is_empty() && !line.starts_with('#') {
            batch.push((*line_no, line));
        }
    }
    Ok((batch, bytes))
}

/// The file size, for a progress bar (0 when unknown).
pub fn total_bytes(paths: &[PathBuf]) -> u64 {
    paths
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}
