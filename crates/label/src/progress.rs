//! What a labelling run has done, kept beside its output so that a killed or stopped run
//! goes on where it stopped: the lines written so far (`OUT.part`, only ever appended in
//! input order) and one record of how far they reach (`OUT.part.json`, written atomically
//! after the lines it counts are on disk).

use crate::settings::{Shard, Teacher};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};

/// The version of [`Progress`] records this build writes and reads.
pub const PROGRESS_VERSION: u32 = 1;

/// What a run was asked, as far as its output depends on it: a record written under other
/// answers is not this run's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Asked {
    /// The fingerprint of the input's bytes.
    pub input: u64,
    /// How the input's labels are read.
    pub reading: String,
    /// The teacher and its limit.
    pub teacher: Teacher,
    /// The share of the input.
    pub shard: Shard,
}

/// What was met so far: the counts the run's summary gives.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Positions written.
    pub written: u64,
    /// Of them, scored by the teacher.
    pub scored: u64,
    /// Of them, with the teacher's win/draw/loss chances.
    pub with_wdl: u64,
    /// Of them, whose input line had a score of its own, replaced by the teacher's.
    pub replaced: u64,
    /// Positions the teacher failed on at every try, written with their results alone.
    pub unscored: u64,
    /// Unreadable input lines (or records), by reason.
    pub bad: BTreeMap<String, u64>,
    /// The first unreadable lines: `line N: reason`.
    pub bad_examples: Vec<String>,
}

/// How many unreadable lines a tally names.
const EXAMPLES: usize = 5;

impl Tally {
    /// Counts an unreadable input line `no`.
    pub fn bad_line(&mut self, no: u64, reason: &str) {
        *self.bad.entry(reason.to_string()).or_default() += 1;
        if self.bad_examples.len() < EXAMPLES {
            self.bad_examples.push(format!("line {no}: {reason}"));
        }
    }

    /// Unreadable lines in all.
    pub fn bad_lines(&self) -> u64 {
        self.bad.values().sum()
    }
}

/// How far a run has come.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// [`PROGRESS_VERSION`].
    pub version: u32,
    /// What the run was asked.
    pub asked: Asked,
    /// Positions (and unreadable lines) of the shard done, from its start.
    pub done: u64,
    /// The length of `OUT.part` that holds them.
    pub bytes: u64,
    /// What they held.
    pub tally: Tally,
}

/// The files of a run writing `out`.
pub struct RunFiles {
    /// The output.
    pub out: PathBuf,
    /// The lines written so far.
    pub part: PathBuf,
    /// The [`Progress`] record.
    pub record: PathBuf,
}

impl RunFiles {
    /// The files of a run writing `out`: `OUT.part` and `OUT.part.json` beside it.
    pub fn of(out: &Path) -> RunFiles {
        let beside = |tail: &str| {
            let mut name = out.as_os_str().to_owned();
            name.push(tail);
            PathBuf::from(name)
        };
        RunFiles {
            out: out.to_path_buf(),
            part: beside(".part"),
            record: beside(".part.json"),
        }
    }

    /// The progress kept by an earlier run, if any.
    ///
    /// # Errors
    /// The record cannot be read, or is not a progress record of this version.
    pub fn kept(&self) -> Result<Option<Progress>, String> {
        let text = match std::fs::read_to_string(&self.record) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("{}: {e}", self.record.display())),
        };
        let progress: Progress = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not a progress record: {e}", self.record.display()))?;
        if progress.version != PROGRESS_VERSION {
            return Err(format!(
                "{}: a progress record of version {} (this texel reads {PROGRESS_VERSION})",
                self.record.display(),
                progress.version
            ));
        }
        Ok(Some(progress))
    }

    /// `OUT.part` opened for appending after its first `bytes` (what a record counts; lines
    /// written after it, by a run killed before its next record, are cut off).
    ///
    /// # Errors
    /// The file cannot be opened, or is shorter than `bytes`.
    pub fn open_part(&self, bytes: u64) -> std::io::Result<std::fs::File> {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&self.part)?;
        let length = file.metadata()?.len();
        if length < bytes {
            return Err(std::io::Error::other(format!(
                "it holds {length} bytes where its progress record counts {bytes}: delete \
                 it and its record to start again"
            )));
        }
        file.set_len(bytes)?;
        file.seek(std::io::SeekFrom::Start(bytes))?;
        Ok(file)
    }

    /// Writes `progress` once `part`'s lines are on disk.
    ///
    /// # Errors
    /// Any I/O error.
    pub fn record(&self, part: &mut std::fs::File, progress: &Progress) -> std::io::Result<()> {
        part.flush()?;
        part.sync_data()?;
        let json = serde_json::to_string_pretty(progress).map_err(std::io::Error::other)?;
        texel_files::write_atomically(&self.record, json.as_bytes())
    }

    /// Makes the finished lines the output and removes the progress record.
    ///
    /// # Errors
    /// Any I/O error.
    pub fn finish(&self, mut part: std::fs::File) -> std::io::Result<()> {
        part.flush()?;
        part.sync_all()?;
        drop(part);
        std::fs::rename(&self.part, &self.out)?;
        remove_if_there(&self.record)
    }

    /// Removes what an earlier run kept.
    ///
    /// # Errors
    /// A file that is there cannot be removed.
    pub fn forget(&self) -> std::io::Result<()> {
        remove_if_there(&self.part)?;
        remove_if_there(&self.record)
    }
}

/// Removes `path` where it is.
fn remove_if_there(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}
