//! Files that lose nothing: outputs written atomically (a temporary file renamed over the
//! target, so a reader never sees half a file), temporary files of killed processes cleaned
//! up, line files (JSON lines) appended only after a torn last line is cut off, and one run
//! per output ([`RunLock`]), versioned JSON lines read back ([`read_versioned_lines`]), and
//! the one [`Fingerprint`] of contents that resumes compare.
//! Every crate that writes a file uses these; the crate depends on nothing of texel's.

mod atomic;
mod fingerprint;
mod lines;
mod lock;

pub use atomic::AtomicFile;
pub use fingerprint::Fingerprint;
pub use lines::{read_versioned_lines, LinesError, VersionedLine};
pub use lock::{refuse_if_held, LockError, RunLock, RunLocks};
use std::path::{Path, PathBuf};

/// Writes `bytes` to a temporary file beside `path`, then renames it over `path`, so a
/// reader never sees a partial file.
///
/// # Errors
/// Another live run holds `path` ([`refuse_if_held`]), or any I/O error; the temporary
/// file is removed on failure.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    refuse_if_held(path)?;
    if is_special_file(path) {
        // A device or pipe (`/dev/null`, `/dev/stdout`) is written to, never replaced.
        return std::fs::write(path, bytes);
    }
    remove_stale_temps(path);
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let result = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Opens the line-oriented file `path` (JSON lines) for appending, made when missing. A
/// last line without its newline, left by a write cut short (a kill, a full disk), is cut
/// off first, so the next line is never glued to it.
///
/// # Errors
/// The file cannot be read, cut or opened.
pub fn open_lines_for_append(path: &Path) -> std::io::Result<std::fs::File> {
    if !is_special_file(path) {
        match std::fs::read(path) {
            Ok(bytes) => {
                let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                if whole < bytes.len() {
                    std::fs::OpenOptions::new()
                        .write(true)
                        .open(path)?
                        .set_len(whole as u64)?;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
}

/// Whether `path` exists and is neither a regular file nor a folder (a device, a pipe):
/// such an output is written to, never replaced by a rename.
pub fn is_special_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Removes temporary files of `path` (`NAME.tmpPID` or `NAME.tmpPID-N`, as the atomic
/// writers name them) left by a process that no longer runs, e.g. one that was killed.
/// Only where running processes can be seen (`/proc`); errors are ignored.
pub fn remove_stale_temps(path: &Path) {
    let (Some(name), Some(dir)) = (path.file_name(), path.parent()) else {
        return;
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let proc = Path::new("/proc");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    if !proc.is_dir() {
        return;
    }
    let prefix = format!("{}.tmp", name.to_string_lossy());
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = file.strip_prefix(&prefix) else {
            continue;
        };
        let pid = rest.split('-').next().unwrap_or("");
        let ours = !pid.is_empty()
            && pid.bytes().all(|b| b.is_ascii_digit())
            && rest[pid.len()..]
                .strip_prefix('-')
                .is_none_or(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if ours && !proc.join(pid).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_are_written_to_not_replaced() {
        let null = Path::new("/dev/null");
        if null.exists() {
            assert!(is_special_file(null));
            write_atomically(null, b"nothing").unwrap();
            assert!(is_special_file(null), "/dev/null is still a device");
        }
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.json");
        assert!(!is_special_file(&file));
        write_atomically(&file, b"x").unwrap();
        assert!(!is_special_file(&file));
    }

    #[test]
    fn a_torn_last_line_is_cut_before_appending() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        std::fs::write(&path, "{\"a\":1}\n{\"b\":").unwrap();
        writeln!(open_lines_for_append(&path).unwrap(), "{{\"c\":3}}").unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"a\":1}\n{\"c\":3}\n"
        );
        let fresh = dir.path().join("new.jsonl");
        writeln!(open_lines_for_append(&fresh).unwrap(), "x").unwrap();
        assert_eq!(std::fs::read_to_string(&fresh).unwrap(), "x\n");
    }
}
