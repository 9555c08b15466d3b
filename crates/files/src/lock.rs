//! One run per output: a run takes a lock file beside its outputs before it touches them,
//! holding its process id, and removes it when it ends. A second run on the same outputs is
//! refused at once, naming the first; a lock left by a process that is gone (killed) is
//! taken over. A run that writes several files locks each ([`RunLocks`]), so that no file of
//! a live run — its lock files included — can be another run's output.

use std::io::Write;
use std::path::{Path, PathBuf};

/// A lock held by this process; the file goes when the lock is dropped.
#[derive(Debug)]
pub struct RunLock {
    path: PathBuf,
}

/// Why a lock could not be taken.
#[derive(Debug)]
pub enum LockError {
    /// Another live process holds it.
    Held {
        /// The lock file.
        path: PathBuf,
        /// The process that holds it.
        pid: u32,
    },
    /// The lock file could not be made or read.
    Io {
        /// The lock file.
        path: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
}

impl std::fmt::Display for LockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockError::Held { path, pid } => write!(
                f,
                "another run (process {pid}) is using {}: {} says so; wait for it to end, or \
                 delete that file if process {pid} is not a texel run",
                guarded(path).display(),
                path.display()
            ),
            LockError::Io { path, cause } => write!(f, "{}: {cause}", path.display()),
        }
    }
}

impl std::error::Error for LockError {}

impl RunLock {
    /// Takes the lock file `path` for this process: made with the process id, or taken
    /// over when the process it names is gone.
    ///
    /// # Errors
    /// A live process holds it, or the file cannot be made.
    pub fn acquire(path: &Path) -> Result<RunLock, LockError> {
        let io = |cause| LockError::Io {
            path: path.to_path_buf(),
            cause,
        };
        loop {
            let made = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path);
            match made {
                Ok(mut file) => {
                    let lock = RunLock {
                        path: path.to_path_buf(),
                    };
                    writeln!(file, "{}", std::process::id()).map_err(io)?;
                    return Ok(lock);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    match holder(path) {
                        Some(pid) if alive(pid) => {
                            let path = path.to_path_buf();
                            return Err(LockError::Held { path, pid });
                        }
                        // Gone, or a lock cut short when its process was killed.
                        _ => remove_if_there(path).map_err(io)?,
                    }
                }
                Err(e) => return Err(io(e)),
            }
        }
    }

    /// Takes the lock of the output `path` for this run: the file `PATH.lock` beside it.
    /// An output that is standard output (`-`) or a device (`/dev/null`) keeps nothing to
    /// guard: no lock.
    ///
    /// # Errors
    /// A live process holds it, or the file cannot be made.
    pub fn beside(path: &Path) -> Result<Option<RunLock>, LockError> {
        if path == Path::new("-") || crate::is_special_file(path) {
            return Ok(None);
        }
        live_lock(path)?;
        let mut lock = path.as_os_str().to_owned();
        lock.push(".lock");
        RunLock::acquire(Path::new(&lock)).map(Some)
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The locks of every file a run writes, taken together: all or none.
#[derive(Debug, Default)]
pub struct RunLocks(Vec<RunLock>);

impl RunLocks {
    /// Takes the lock beside each of `paths` (see [`RunLock::beside`]); a path named twice is
    /// locked once. Where one is held, those already taken are released and the answer names
    /// the holder.
    ///
    /// # Errors
    /// A live process holds one of them, one of them is a live run's lock file, or a lock
    /// file cannot be made.
    pub fn beside_each<'a>(
        paths: impl IntoIterator<Item = &'a Path>,
    ) -> Result<RunLocks, LockError> {
        let mut named: Vec<&Path> = Vec::new();
        for path in paths {
            if !named.contains(&path) {
                named.push(path);
            }
        }
        let mut locks = RunLocks::default();
        for path in named {
            locks.0.extend(RunLock::beside(path)?);
        }
        Ok(locks)
    }

    /// The lock files held.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.0.iter().map(RunLock::path)
    }
}

/// Refuses as an output a file that is a live run's lock (`X.lock` naming a running
/// process): writing it would take the other run's guard away.
fn live_lock(path: &Path) -> Result<(), LockError> {
    if path.extension() != Some("lock".as_ref()) {
        return Ok(());
    }
    let text = std::fs::read_to_string(path).unwrap_or_default();
    match text.trim().parse() {
        Ok(pid) if alive(pid) => Err(LockError::Held {
            path: path.to_path_buf(),
            pid,
        }),
        _ => Ok(()),
    }
}

/// Refuses to write `path` while another live process holds its lock (`PATH.lock`): every
/// atomic write asks, so no command replaces a live run's output, checkpoint or scratch
/// file, whatever takes locks of its own. This process's own locks do not refuse it.
///
/// # Errors
/// The lock's holder, as [`LockError::Held`] inside an I/O error.
pub fn refuse_if_held(path: &Path) -> std::io::Result<()> {
    let mut lock = path.as_os_str().to_owned();
    lock.push(".lock");
    let lock = PathBuf::from(lock);
    match holder(&lock) {
        Some(pid) if pid != std::process::id() && alive(pid) => {
            Err(std::io::Error::other(LockError::Held { path: lock, pid }))
        }
        _ => Ok(()),
    }
}

/// The file a lock file guards: its own name less `.lock`.
fn guarded(lock: &Path) -> PathBuf {
    match lock.extension() {
        Some(e) if e == "lock" => lock.with_extension(""),
        _ => lock.to_path_buf(),
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The process id a lock file holds; `None` when it holds none (being written, or cut short
/// by a kill: such a lock older than a few seconds is stale).
fn holder(path: &Path) -> Option<u32> {
    let text = std::fs::read_to_string(path).ok()?;
    match text.trim().parse() {
        Ok(pid) => Some(pid),
        Err(_) => {
            let age = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
            let young = age.elapsed().is_ok_and(|a| a.as_secs() < 5);
            young.then_some(std::process::id())
        }
    }
}

/// Whether process `pid` is running (on systems without `/proc`, any process is taken to
/// be running: a stale lock is then deleted by hand, as the message says).
fn alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.is_dir() || proc.join(pid.to_string()).exists()
}

fn remove_if_there(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_is_locked_beside_it_and_a_device_or_stdout_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("games.pgn");
        let lock = RunLock::beside(&out)
            .unwrap()
            .expect("a file output is locked");
        assert_eq!(lock.path(), dir.path().join("games.pgn.lock"));
        assert!(RunLock::beside(&out).is_err(), "a second run is refused");
        drop(lock);
        assert!(RunLock::beside(&out).unwrap().is_some());
        assert!(RunLock::beside(Path::new("-")).unwrap().is_none());
        assert!(RunLock::beside(Path::new("/dev/null")).unwrap().is_none());
    }

    #[test]
    fn an_atomic_write_refuses_a_file_another_live_process_holds() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.json");
        let lock = dir.path().join("out.json.lock");
        // Process 1 is always running; this process's own lock and a dead one's do not
        // refuse.
        std::fs::write(&lock, "1\n").unwrap();
        let err = crate::write_atomically(&out, b"x").unwrap_err();
        assert!(err.to_string().contains("process 1"), "{err}");
        assert!(crate::AtomicFile::create(&out).is_err());
        assert!(!out.exists());
        for pid in [std::process::id(), u32::MAX] {
            std::fs::write(&lock, format!("{pid}\n")).unwrap();
            crate::write_atomically(&out, b"x").unwrap();
        }
    }

    #[test]
    fn a_held_lock_refuses_a_second_run_and_a_dead_ones_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.lock");
        let lock = RunLock::acquire(&path).unwrap();
        let mine = std::process::id().to_string();
        assert_eq!(std::fs::read_to_string(&path).unwrap().trim(), mine);
        let err = RunLock::acquire(&path).unwrap_err().to_string();
        assert!(err.contains(&format!("process {mine}")), "{err}");
        drop(lock);
        assert!(!path.exists(), "released at the end");
        // A process that cannot exist (above any pid_max): the lock is stale.
        std::fs::write(&path, "4294967295\n").unwrap();
        let taken = RunLock::acquire(&path).unwrap();
        assert_eq!(std::fs::read_to_string(taken.path()).unwrap().trim(), mine);
    }

    #[test]
    fn every_file_of_a_run_is_locked_and_a_live_lock_is_no_output() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("t.json");
        let ckpt = dir.path().join("t.json.ckpt");
        let first = RunLocks::beside_each([out.as_path(), ckpt.as_path(), ckpt.as_path()]);
        let first = first.unwrap();
        assert_eq!(
            first.paths().count(),
            2,
            "a path named twice is locked once"
        );
        // A second run writing the first's checkpoint, or its lock file, is refused.
        let lock = dir.path().join("t.json.ckpt.lock");
        for theirs in [&ckpt, &lock] {
            let held = RunLocks::beside_each([dir.path().join("u.json").as_path(), theirs]);
            let err = held.unwrap_err();
            assert!(matches!(err, LockError::Held { .. }), "{err}");
            assert!(err.to_string().contains("t.json.ckpt:"), "{err}");
        }
        assert!(!dir.path().join("u.json.lock").exists(), "all or none");
        drop(first);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
