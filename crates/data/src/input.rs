//! Opening input files the same way everywhere: plain, gzip (`.gz`) or zstandard (`.zst`)
//! by the file name, a UTF-8 byte-order mark skipped, the bytes read from disk counted for
//! progress bars; and reading labelled lines in numbered batches.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// An open input file.
pub struct Input {
    /// The decompressed text.
    pub reader: Box<dyn BufRead + Send>,
    /// Bytes read from the file itself so far (compressed bytes for compressed input).
    pub bytes_read: Arc<AtomicU64>,
}

impl Input {
    /// Bytes read from the file so far.
    pub fn position(&self) -> u64 {
        self.bytes_read.load(Ordering::Relaxed)
    }
}

/// A reader that counts the bytes it reads.
struct Counted<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// The UTF-8 byte-order mark some editors write at the start of a text file.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// Opens `path`, decompressing by its extension and skipping a byte-order mark.
///
/// # Errors
/// The file cannot be opened, or its compressed header cannot be read.
pub fn open_input(path: &Path) -> std::io::Result<Input> {
    let file = std::fs::File::open(path)?;
    let bytes_read = Arc::new(AtomicU64::new(0));
    let counted = Counted {
        inner: file,
        read: bytes_read.clone(),
    };
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    let mut reader: Box<dyn BufRead + Send> = match extension.as_deref() {
        Some("gz") => Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(counted))),
        Some("zst") => Box::new(BufReader::new(zstd::stream::read::Decoder::new(counted)?)),
        _ => Box::new(BufReader::with_capacity(1 << 16, counted)),
    };
    if reader.fill_buf()?.starts_with(BOM) {
        reader.consume(BOM.len());
    }
    Ok(Input { reader, bytes_read })
}

/// Reads up to `max` lines that hold something (not blank, not a `#` comment), trimmed,
/// each with its 1-based line number; `line_no` counts every line read. A line that is not
/// UTF-8 is kept with replacement characters, so it fails to parse and is counted as bad.
/// An empty batch means the end of the input.
///
/// # Errors
/// A read error.
pub fn read_lines(
    reader: &mut dyn BufRead,
    max: usize,
    line_no: &mut u64,
) -> std::io::Result<Vec<(u64, String)>> {
    let mut batch = Vec::with_capacity(max);
    let mut buf = Vec::new();
    while batch.len() < max {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            break;
        }
        *line_no += 1;
        if let Some(line) = content(&buf) {
            batch.push((*line_no, String::from_utf8_lossy(line).into_owned()));
        }
    }
    Ok(batch)
}

/// A line trimmed, or `None` when it holds nothing (blank, a `#` comment, or the header
/// line of a Pedantic CSV file).
fn content(line: &[u8]) -> Option<&[u8]> {
    let line = line.trim_ascii();
    // Comments, and the header line of Pedantic's CSV files, are no position.
    let header = line.starts_with(b"Hash,Ply,GamePly,");
    (!line.is_empty() && !line.starts_with(b"#") && !header).then_some(line)
}

/// Reads the next block of whole lines into `text` (cleared first): about `size` bytes,
/// then on to the end of the line. Returns `false` at the end of the input. Cut a block
/// into lines with [`block_lines`]: no string per line.
///
/// # Errors
/// A read error.
pub fn read_block(
    reader: &mut dyn BufRead,
    size: usize,
    text: &mut Vec<u8>,
) -> std::io::Result<bool> {
    text.clear();
    reader.take(size as u64).read_to_end(text)?;
    if text.last().is_some_and(|&b| b != b'\n') {
        reader.read_until(b'\n', text)?;
    }
    Ok(!text.is_empty())
}

/// The lines of a block from [`read_block`] that hold something (as [`read_lines`]
/// keeps them, not yet checked for UTF-8), trimmed, each with its 1-based line number;
/// `line_no` counts every line of the block.
pub fn block_lines<'a>(text: &'a [u8], line_no: &mut u64) -> Vec<(u64, &'a [u8])> {
    let mut lines = Vec::new();
    let mut start = 0;
    // Line ends found by memchr's vector search, not a byte at a time.
    let ends = memchr::memchr_iter(b'\n', text).map(|end| end + 1);
    for end in ends.chain((!text.is_empty() && !text.ends_with(b"\n")).then_some(text.len())) {
        *line_no += 1;
        if let Some(line) = content(&text[start..end]) {
            lines.push((*line_no, line));
        }
        start = end;
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn every_encoding_reads_the_same_lines_without_the_bom() {
        let dir = tempfile::tempdir().unwrap();
        let text = b"\xef\xbb\xbfline one\n\n# comment\n  line two  \n";
        let plain = dir.path().join("a.epd");
        std::fs::write(&plain, text).unwrap();
        let gz = dir.path().join("a.epd.gz");
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(text).unwrap();
        std::fs::write(&gz, e.finish().unwrap()).unwrap();
        let zst = dir.path().join("a.epd.zst");
        std::fs::write(&zst, zstd::encode_all(&text[..], 1).unwrap()).unwrap();
        for path in [plain, gz, zst] {
            let mut input = open_input(&path).unwrap();
            let mut line_no = 0;
            let lines = read_lines(&mut input.reader, 10, &mut line_no).unwrap();
            assert_eq!(
                lines,
                vec![(1, "line one".to_string()), (4, "line two".to_string())],
                "{}",
                path.display()
            );
            assert_eq!(input.position(), std::fs::metadata(&path).unwrap().len());
        }
    }

    #[test]
    fn blocks_end_at_line_ends_and_number_every_line() {
        let dir = tempfile::tempdir().unwrap();
        let text = "first line\n\n# comment\n  second \nthird\r\nno newline at the end";
        let path = dir.path().join("b.epd");
        std::fs::write(&path, text).unwrap();
        let mut input = open_input(&path).unwrap();
        let (mut line_no, mut text, mut lines) = (0, Vec::new(), Vec::new());
        // Blocks of 4 bytes: every block runs on to the end of the line it cuts.
        while read_block(&mut input.reader, 4, &mut text).unwrap() {
            assert!(text.ends_with(b"\n") || text.ends_with(b"end"));
            for (no, line) in block_lines(&text, &mut line_no) {
                lines.push((no, String::from_utf8(line.to_vec()).unwrap()));
            }
        }
        let expected = [
            (1, "first line"),
            (4, "second"),
            (5, "third"),
            (6, "no newline at the end"),
        ];
        let expected: Vec<(u64, String)> = expected.iter().map(|&(n, l)| (n, l.into())).collect();
        assert_eq!(lines, expected);
        assert_eq!(line_no, 6);
    }
}
