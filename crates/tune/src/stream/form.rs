//! The tuner form of a streamed tune's positions, kept in a scratch file while the tune
//! runs: one pass decodes the trace's records into each chunk's columns and writes them,
//! every later pass reads them back in one sequential copy (no record decoded again). The
//! file goes when the tune ends, however it ends.

use super::{Stream, StreamError};
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use texel_linear::TraceDataset;

/// One chunk's training or validation positions in the file.
struct Blob {
    validation: bool,
    offset: u64,
}

/// Counts the bytes read through it.
struct Counted<R> {
    inner: R,
    read: u64,
}

impl<R: std::io::Read> std::io::Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}

/// Counts the bytes written through it.
struct Counting<W> {
    inner: W,
    written: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The scratch file of a tune's tuner form and where each chunk's part of it lies.
pub(super) struct FormFile {
    path: PathBuf,
    blobs: Vec<Blob>,
}

impl Drop for FormFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

impl FormFile {
    /// `f` of each chunk's training (or validation) positions read back, in order, each
    /// scored at `values`; the stream's interrupt flag stops it between chunks.
    pub(super) fn chunks<T>(
        &self,
        stream: &Stream,
        validation: bool,
        values: &[i32],
        f: &mut impl FnMut(&mut TraceDataset) -> T,
    ) -> Result<Vec<T>, StreamError> {
        let fail = |cause: std::io::Error| StreamError::Form {
            path: self.path.clone(),
            cause,
        };
        let file = std::fs::File::open(&self.path).map_err(fail)?;
        let mut input = BufReader::with_capacity(1 << 20, file);
        let (mut out, mut at, values) = (Vec::new(), 0, values.to_vec());
        for blob in self.blobs.iter().filter(|b| b.validation == validation) {
            if stream.stopped() {
                return Err(StreamError::Stopped);
            }
            let skip = i64::try_from(blob.offset - at).map_err(std::io::Error::other);
            input.seek_relative(skip.map_err(fail)?).map_err(fail)?;
            let mut counted = Counted {
                inner: &mut input,
                read: 0,
            };
            let mut ds =
                TraceDataset::read_form(stream.trace.space(), &mut counted).map_err(fail)?;
            at = blob.offset + counted.read;
            texel_solve::model::Model::rescore(&mut ds, &values);
            out.push(f(&mut ds));
        }
        Ok(out)
    }
}

impl Stream<'_> {
    /// Decodes every chunk of the trace once and writes its training and validation
    /// positions' tuner form to `path` (one pass).
    pub(super) fn write_form(&self, path: &Path) -> Result<FormFile, StreamError> {
        let fail = |cause: std::io::Error| StreamError::Form {
            path: path.to_path_buf(),
            cause,
        };
        let mut form = FormFile {
            path: path.to_path_buf(),
            blobs: Vec::new(),
        };
        let file = std::fs::File::create(path).map_err(fail)?;
        let mut out = Counting {
            inner: BufWriter::with_capacity(1 << 20, file),
            written: 0,
        };
        let (n, size) = (self.trace.len(), self.streaming.chunk.max(1));
        for first in (0..n).step_by(size) {
            if self.stopped() {
                return Err(StreamError::Stopped);
            }
            for validation in [false, true] {
                let chosen: Vec<usize> = (first..(first + size).min(n))
                    .filter(|&i| self.held[i] == validation)
                    .collect();
                if chosen.is_empty() {
                    continue;
                }
                let offset = out.written;
                let ds = self.decoded(&chosen, self.start)?;
                ds.write_form(&mut out).map_err(fail)?;
                form.blobs.push(Blob { validation, offset });
            }
        }
        out.flush().map_err(fail)?;
        Ok(form)
    }
}
