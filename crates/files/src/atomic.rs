//! A file written in a stream to a temporary name beside its path and renamed over it
//! only when finished, so a reader never sees half of it and a failed write leaves the
//! old file as it was.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// An output being written; [`AtomicFile::finish`] puts it in place, dropping it
/// unfinished removes what was written.
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    file: BufWriter<std::fs::File>,
}

impl AtomicFile {
    /// Starts writing `path` (temporary files of killed earlier writers are removed).
    ///
    /// # Errors
    /// Another live run holds `path` ([`crate::refuse_if_held`]), or the temporary file
    /// cannot be made.
    pub fn create(path: &Path) -> std::io::Result<AtomicFile> {
        crate::refuse_if_held(path)?;
        crate::remove_stale_temps(path);
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = PathBuf::from(format!("{}.tmp{}-{n}", path.display(), std::process::id()));
        let file = std::fs::File::create(&tmp)?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp,
            file: BufWriter::new(file),
        })
    }

    /// Puts the written file in place of `path` (a device or pipe is written to, never
    /// replaced).
    ///
    /// # Errors
    /// The file cannot be flushed or renamed; the temporary file is removed then.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.file.flush()?;
        crate::refuse_if_held(&self.path)?;
        if crate::is_special_file(&self.path) {
            std::fs::copy(&self.tmp, &self.path).map(drop)
        } else {
            std::fs::rename(&self.tmp, &self.path)
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        // Renamed already when finished; otherwise what was written goes.
        let _ = std::fs::remove_file(&self.tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_file_replaces_the_old_one_and_a_dropped_one_leaves_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.bin");
        std::fs::write(&path, b"old").unwrap();
        let mut dropped = AtomicFile::create(&path).unwrap();
        dropped.write_all(b"half").unwrap();
        drop(dropped);
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        let mut finished = AtomicFile::create(&path).unwrap();
        finished.write_all(b"new").unwrap();
        finished.finish().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let names = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(names, 1, "no temporary file is left");
    }
}
