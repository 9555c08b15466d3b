//! Where a tune on files writes, checked before any data is loaded, so that a long run never
//! ends unable to save and Ctrl-C never overwrites a finished result: the tuned values, the
//! checkpoint (written on the way, removed when the run ends normally), a streamed run's
//! scratch file, the pass log and any further file the caller writes (a report page, the
//! table as Rust). Each is locked while the run lives, so none can be another run's output.

use std::path::{Path, PathBuf};
use texel_files::{LockError, RunLocks};

/// The files of one tune run.
#[derive(Clone, Debug)]
pub struct Outputs {
    /// The tuned values, written when the run ends.
    pub out: PathBuf,
    /// The checkpoint.
    pub checkpoint: PathBuf,
    /// The pass log (appended to), if any.
    pub log: Option<PathBuf>,
    /// Further files the run writes, with what each is ("the report"), checked like the rest.
    pub also: Vec<(PathBuf, String)>,
}

/// Why the outputs cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// An output is a folder.
    #[error("{what} {path} is a folder")]
    Folder {
        /// What the output is.
        what: String,
        /// The output.
        path: PathBuf,
    },
    /// An output's folder cannot be made or takes no new file.
    #[error("{what} {path}: cannot write in {dir}: {cause}")]
    Unwritable {
        /// What the output is.
        what: String,
        /// The output.
        path: PathBuf,
        /// Its folder.
        dir: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
    /// An earlier run of these outputs left its checkpoint, and this run neither continues
    /// it nor starts afresh.
    #[error("{0} holds the checkpoint of an earlier run of these outputs")]
    EarlierCheckpoint(PathBuf),
    /// The log holds an earlier run's passes, and this run neither continues it nor starts
    /// afresh.
    #[error("the log {0} holds the passes of an earlier run")]
    EarlierLog(PathBuf),
    /// Another run holds the outputs.
    #[error(transparent)]
    Locked(#[from] LockError),
    /// A file of an earlier run could not be removed.
    #[error("cannot remove {path}: {cause}")]
    Remove {
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
}

/// What [`Outputs::prepare`] cleared for a fresh start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cleared {
    /// An earlier run's checkpoint, removed.
    Checkpoint(PathBuf),
    /// An earlier run's log, emptied.
    Log(PathBuf),
}

impl Outputs {
    /// The outputs of a run writing `out`, with its checkpoint beside it (`OUT.ckpt`).
    pub fn new(out: PathBuf) -> Outputs {
        Outputs {
            checkpoint: PathBuf::from(format!("{}.ckpt", out.display())),
            out,
            log: None,
            also: Vec::new(),
        }
    }

    /// The positions' tuner form a streamed run keeps beside its checkpoint while it runs
    /// (`OUT.ckpt.form`).
    pub fn scratch(&self) -> PathBuf {
        PathBuf::from(format!("{}.form", self.checkpoint.display()))
    }

    /// Every output with what it is.
    fn named(&self) -> Vec<(&Path, &str)> {
        let mut named: Vec<(&Path, &str)> = vec![
            (&self.out, "the output"),
            (&self.checkpoint, "the checkpoint"),
        ];
        named.extend(self.log.as_deref().map(|p| (p, "the log")));
        named.extend(self.also.iter().map(|(p, w)| (p.as_path(), w.as_str())));
        named
    }

    /// Checks that each output can be written: its folder (made when missing) takes a new
    /// file, and the path is not a folder. Nothing but the folders is left behind.
    ///
    /// # Errors
    /// The first output that cannot be written.
    pub fn check_writable(&self) -> Result<(), OutputError> {
        self.named()
            .into_iter()
            .try_for_each(|(path, what)| writable(path, what))
    }

    /// Makes the outputs ready for a run: checked writable, each locked for this run, the
    /// scratch file too (held until the locks are dropped; a device keeps nothing to
    /// guard), and an
    /// earlier run's checkpoint and log kept unless the run continues them (`resume`) or
    /// starts afresh (`fresh`: removed and emptied, listed in the answer).
    ///
    /// # Errors
    /// An output that cannot be written, another live run on them, or an earlier run's
    /// checkpoint or passes left that the run neither continues nor clears.
    pub fn prepare(
        &self,
        resume: bool,
        fresh: bool,
    ) -> Result<(RunLocks, Vec<Cleared>), OutputError> {
        self.check_writable()?;
        let scratch = self.scratch();
        let every = self.named().into_iter().map(|(path, _)| path);
        // The checkpoint's lock first: its name is the one the guides give.
        let first = [self.checkpoint.as_path(), scratch.as_path()];
        let lock = RunLocks::beside_each(first.into_iter().chain(every))?;
        let mut cleared = Vec::new();
        if resume {
            return Ok((lock, cleared));
        }
        if self.checkpoint.is_file() {
            self.clear(&self.checkpoint, fresh, OutputError::EarlierCheckpoint)?;
            cleared.push(Cleared::Checkpoint(self.checkpoint.clone()));
        }
        if let Some(log) = &self.log {
            if std::fs::metadata(log).is_ok_and(|m| m.is_file() && m.len() > 0) {
                self.clear(log, fresh, OutputError::EarlierLog)?;
                cleared.push(Cleared::Log(log.clone()));
            }
        }
        Ok((lock, cleared))
    }

    /// Removes `path` when `fresh`, refuses with `refusal` otherwise.
    fn clear(
        &self,
        path: &Path,
        fresh: bool,
        refusal: fn(PathBuf) -> OutputError,
    ) -> Result<(), OutputError> {
        if !fresh {
            return Err(refusal(path.to_path_buf()));
        }
        std::fs::remove_file(path).map_err(|cause| OutputError::Remove {
            path: path.to_path_buf(),
            cause,
        })
    }

    /// Removes the checkpoint, which the finished result replaces.
    ///
    /// # Errors
    /// It is there and cannot be removed.
    pub fn remove_checkpoint(&self) -> Result<(), OutputError> {
        match std::fs::remove_file(&self.checkpoint) {
            Err(cause) if cause.kind() != std::io::ErrorKind::NotFound => {
                Err(OutputError::Remove {
                    path: self.checkpoint.clone(),
                    cause,
                })
            }
            _ => Ok(()),
        }
    }
}

/// Checks that `path` can be written (see [`Outputs::check_writable`]).
fn writable(path: &Path, what: &str) -> Result<(), OutputError> {
    if path.is_dir() {
        return Err(OutputError::Folder {
            what: what.to_string(),
            path: path.to_path_buf(),
        });
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let unwritable = |cause| OutputError::Unwritable {
        what: what.to_string(),
        path: path.to_path_buf(),
        dir: dir.to_path_buf(),
        cause,
    };
    std::fs::create_dir_all(dir).map_err(unwritable)?;
    tempfile::NamedTempFile::new_in(dir)
        .map(drop)
        .map_err(unwritable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwritable_outputs_are_refused_up_front() {
        let dir = tempfile::tempdir().unwrap();
        let o = Outputs::new(dir.path().join("t.json"));
        assert_eq!(o.checkpoint, dir.path().join("t.json.ckpt"));
        o.check_writable().unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        Outputs::new(dir.path().join("runs/a/t.json"))
            .check_writable()
            .unwrap();
        assert!(dir.path().join("runs/a").is_dir());
        std::fs::write(dir.path().join("runs/a/x"), "").unwrap();
        let under_a_file = Outputs::new(dir.path().join("runs/a/x/t.json"));
        assert!(matches!(
            under_a_file.check_writable(),
            Err(OutputError::Unwritable { .. })
        ));
        let folder = Outputs::new(dir.path().to_path_buf());
        assert!(matches!(
            folder.check_writable(),
            Err(OutputError::Folder { .. })
        ));
    }

    #[test]
    fn an_earlier_checkpoint_and_log_are_kept_unless_fresh() {
        let dir = tempfile::tempdir().unwrap();
        let o = Outputs {
            log: Some(dir.path().join("log.jsonl")),
            ..Outputs::new(dir.path().join("t.json"))
        };
        assert!(o.prepare(false, false).unwrap().1.is_empty());
        std::fs::write(&o.checkpoint, "{}").unwrap();
        let err = o.prepare(false, false).unwrap_err();
        assert!(matches!(err, OutputError::EarlierCheckpoint(_)), "{err}");
        assert!(o.prepare(true, false).is_ok() && o.checkpoint.exists());
        std::fs::write(o.log.as_ref().unwrap(), "{}\n").unwrap();
        let (_lock, cleared) = o.prepare(false, true).unwrap();
        assert_eq!(cleared.len(), 2);
        assert!(!o.checkpoint.exists() && !o.log.as_ref().unwrap().exists());
        let second = o.prepare(false, false).unwrap_err();
        assert!(matches!(second, OutputError::Locked(_)), "{second}");
    }
}
