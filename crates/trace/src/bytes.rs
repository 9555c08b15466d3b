//! Where a binary trace's bytes are: in its file, read span by span when positions are
//! decoded (so a trace need not fit in memory beside what is built from it), or in memory.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufReader, Read, Seek};
use std::path::Path;

/// A binary trace's bytes.
#[derive(Debug)]
pub(crate) enum Bytes {
    /// Read from the file at each span asked for.
    File { file: File, len: u64 },
    /// Held in memory.
    Memory(Vec<u8>),
}

/// Why the records of a trace could not be found: the byte where a record was cut short.
pub(crate) enum ScanError {
    Io(std::io::Error),
    CutShort { at: u64, record: usize },
}

impl Bytes {
    /// The bytes of the file at `path`, left in the file.
    pub(crate) fn open(path: &Path) -> std::io::Result<Bytes> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        Ok(Bytes::File { file, len })
    }

    /// The number of bytes.
    pub(crate) fn len(&self) -> u64 {
        match self {
            Bytes::File { len, .. } => *len,
            Bytes::Memory(bytes) => bytes.len() as u64,
        }
    }

    /// The bytes `at..at + len`, which lie within [`Bytes::len`].
    pub(crate) fn span(&self, at: u64, len: usize) -> std::io::Result<Cow<'_, [u8]>> {
        match self {
            Bytes::File { file, .. } => {
                let mut out = vec![0; len];
                read_exact_at(file, &mut out, at)?;
                Ok(Cow::Owned(out))
            }
            Bytes::Memory(bytes) => Ok(Cow::Borrowed(&bytes[at as usize..at as usize + len])),
        }
    }

    /// Where each record begins from byte `start` on (each record: a little-endian `u32`
    /// length, then that many bytes), and the end of the last: one sequential read.
    pub(crate) fn records(&self, start: u64) -> Result<Vec<u64>, ScanError> {
        let end = self.len();
        match self {
            Bytes::File { file, .. } => {
                let mut reader = BufReader::with_capacity(1 << 20, file);
                reader
                    .seek(std::io::SeekFrom::Start(start))
                    .map_err(ScanError::Io)?;
                scan(reader, start, end)
            }
            Bytes::Memory(bytes) => {
                let mut reader = std::io::Cursor::new(bytes.as_slice());
                reader.set_position(start);
                scan(reader, start, end)
            }
        }
    }
}

/// The records of `reader`, which stands at byte `start` of `end`.
fn scan<R: Read + Seek>(mut reader: R, start: u64, end: u64) -> Result<Vec<u64>, ScanError> {
    let mut records = Vec::new();
    let mut at = start;
    while at < end {
        let cut = ScanError::CutShort {
            at,
            record: records.len(),
        };
        let mut len = [0u8; 4];
        if end - at < 4 {
            return Err(cut);
        }
        reader.read_exact(&mut len).map_err(ScanError::Io)?;
        let next = at + 4 + u64::from(u32::from_le_bytes(len));
        if next > end {
            return Err(cut);
        }
        reader
            .seek_relative((next - at - 4) as i64)
            .map_err(ScanError::Io)?;
        records.push(at);
        at = next;
    }
    records.push(end);
    Ok(records)
}

#[cfg(unix)]
fn read_exact_at(file: &File, out: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, out, at)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut out: &mut [u8], mut at: u64) -> std::io::Result<()> {
    while !out.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(file, out, at)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => (out, at) = (&mut out[n..], at + n as u64),
        }
    }
    Ok(())
}
