//! The binary form of the trace format, for scale: the same header (as its JSON text), then
//! each position as fixed little-endian fields and its coefficients, most in five bytes.
//! Each record starts with its length, so records are found without decoding them and
//! decoded on every thread ([`BinaryTrace`]).
//!
//! ```text
//! file      = MAGIC, u32 header length, header JSON (the text form's first line), position*
//! position  = u32 length of the rest of the record in bytes, f32 result, f32 phase,
//!             f32 scale, f32 offset, f32 score (NaN: none), u32 coefficient count,
//!             coefficient*
//! coefficient = u32 tagged entry: the entry index in the low 30 bits, then by the top two
//!             bits 00: i8 count | 01: f32 count | 10: f32 middlegame count, f32 endgame count
//! ```

use crate::space::ParamSpace;
use crate::text::{header_space, Coef, TraceError, TracedPosition};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The first bytes of a binary trace.
pub const MAGIC: &[u8; 8] = b"TXTRACE1";

const TAG_SHIFT: u32 = 30;
const INDEX_MASK: u32 = (1 << TAG_SHIFT) - 1;
const SMALL: u32 = 0;
const FLOAT: u32 = 1;
const SPLIT: u32 = 2;

/// Writes the binary form: `space`'s header, then `positions`.
///
/// # Errors
/// A failed write.
pub fn write_binary<'a>(
    out: &mut impl Write,
    space: &ParamSpace,
    positions: impl IntoIterator<Item = &'a TracedPosition>,
) -> std::io::Result<()> {
    let header = crate::text::header_line(space);
    out.write_all(MAGIC)?;
    out.write_all(&(header.len() as u32).to_le_bytes())?;
    out.write_all(header.as_bytes())?;
    let mut buf = Vec::new();
    for p in positions {
        encode(p, &mut buf);
        out.write_all(&(buf.len() as u32).to_le_bytes())?;
        out.write_all(&buf)?;
    }
    Ok(())
}

/// One position's bytes into `buf` (cleared first).
fn encode(p: &TracedPosition, buf: &mut Vec<u8>) {
    buf.clear();
    let score = p.score.unwrap_or(f32::NAN);
    for x in [p.result, p.phase, p.scale, p.offset, score] {
        buf.extend_from_slice(&x.to_le_bytes());
    }
    buf.extend_from_slice(&(p.coeffs.len() as u32).to_le_bytes());
    for c in &p.coeffs {
        match *c {
            Coef::Count(i, n) if n.fract() == 0.0 && (-128.0..=127.0).contains(&n) => {
                buf.extend_from_slice(&(i | SMALL << TAG_SHIFT).to_le_bytes());
                buf.push(n as i8 as u8);
            }
            Coef::Count(i, n) => {
                buf.extend_from_slice(&(i | FLOAT << TAG_SHIFT).to_le_bytes());
                buf.extend_from_slice(&n.to_le_bytes());
            }
            Coef::Split(i, m, e) => {
                buf.extend_from_slice(&(i | SPLIT << TAG_SHIFT).to_le_bytes());
                buf.extend_from_slice(&m.to_le_bytes());
                buf.extend_from_slice(&e.to_le_bytes());
            }
        }
    }
}

/// Bytes being read, with where they stand for errors.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let out = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(out)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn f32(&mut self) -> Option<f32> {
        Some(f32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
}

/// A binary trace in memory, its records found but not decoded: each position is decoded
/// on its own, on any thread, into a position that is reused ([`BinaryTrace::decode_into`]).
#[derive(Debug)]
pub struct BinaryTrace {
    path: PathBuf,
    bytes: Vec<u8>,
    space: ParamSpace,
    /// Whether each entry is tapered.
    tapered: Vec<bool>,
    /// Where each position's record begins (at its length).
    records: Vec<usize>,
}

impl BinaryTrace {
    /// Reads the binary trace at `path` and finds its records.
    ///
    /// # Errors
    /// An unreadable file, another format, a bad header, or a record cut short.
    pub fn read(path: &Path) -> Result<BinaryTrace, TraceError> {
        let bytes = std::fs::read(path).map_err(|cause| TraceError::Io {
            path: path.into(),
            cause,
        })?;
        BinaryTrace::new(bytes, path)
    }

    /// The trace of `bytes` (named `path` in errors).
    fn new(bytes: Vec<u8>, path: &Path) -> Result<BinaryTrace, TraceError> {
        let bad = |at: usize, field: &str, what: &str| bad_bytes(path, at, field, what.into());
        let mut c = Cursor {
            bytes: &bytes,
            at: 0,
        };
        if c.take(MAGIC.len()) != Some(MAGIC.as_slice()) {
            return Err(bad(0, "format", "not a binary texel trace"));
        }
        let len = c.u32().ok_or_else(|| bad(8, "header", "cut short"))? as usize;
        let text = c.take(len).ok_or_else(|| bad(12, "header", "cut short"))?;
        let space = header_space(text).map_err(|(f, w)| bad_bytes(path, 12, &f, w))?;
        let mut records = Vec::new();
        while c.at < bytes.len() {
            let at = c.at;
            let len = c.u32().ok_or_else(|| bad(at, "position", "cut short"))? as usize;
            let field = || format!("position {}", records.len() + 1);
            c.take(len).ok_or_else(|| bad(at, &field(), "cut short"))?;
            records.push(at);
        }
        let tapered = (0..space.entry_count())
            .map(|i| space.entry(i).is_some_and(|(p, _)| p.tapered))
            .collect();
        Ok(BinaryTrace {
            path: path.into(),
            bytes,
            space,
            tapered,
            records,
        })
    }

    /// The parameter space of the header.
    pub fn space(&self) -> &ParamSpace {
        &self.space
    }

    /// The number of positions.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether the trace holds no position.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Decodes position `k` (from 0) into `into`, whose coefficient buffer is reused.
    ///
    /// # Errors
    /// The position does not fit the header (with its number and byte offset).
    ///
    /// # Panics
    /// If `k` is not below [`BinaryTrace::len`].
    pub fn decode_into(&self, k: usize, into: &mut TracedPosition) -> Result<(), TraceError> {
        let at = self.records[k];
        let len = u32::from_le_bytes(self.bytes[at..at + 4].try_into().expect("four bytes"));
        let record = &self.bytes[at + 4..at + 4 + len as usize];
        let mut c = Cursor {
            bytes: record,
            at: 0,
        };
        position(&mut c, &self.tapered, into)
            .and_then(|()| match c.at == record.len() {
                true => Ok(()),
                false => Err("bytes left over".into()),
            })
            .map_err(|w| bad_bytes(&self.path, at, &format!("position {}", k + 1), w))
    }

    /// Every position, decoded on all threads.
    ///
    /// # Errors
    /// As [`BinaryTrace::decode_into`], for the first position at fault.
    pub fn decode_all(&self) -> Result<Vec<TracedPosition>, TraceError> {
        use rayon::prelude::*;
        let decode = |k| {
            let mut p = TracedPosition::default();
            self.decode_into(k, &mut p).map(|()| p)
        };
        let all: Result<Vec<_>, _> = (0..self.len()).into_par_iter().map(decode).collect();
        // Threads may meet other faults first: the error names the first in the file.
        all.or_else(|_| (0..self.len()).map(decode).collect())
    }
}

/// A fault at byte `at` of the binary trace `path`.
fn bad_bytes(path: &Path, at: usize, field: &str, what: String) -> TraceError {
    TraceError::BadBytes {
        path: path.into(),
        offset: at as u64,
        field: field.into(),
        what,
    }
}

/// A whole binary trace read into memory: its space and its positions.
///
/// # Errors
/// An unreadable file, another format, a bad header, or a position that is cut short or
/// does not fit the header (with its number and byte offset).
pub fn read_binary(path: &Path) -> Result<(ParamSpace, Vec<TracedPosition>), TraceError> {
    let trace = BinaryTrace::read(path)?;
    let positions = trace.decode_all()?;
    Ok((trace.space, positions))
}

/// The space and positions of a binary trace's `bytes` (named `path` in errors).
#[cfg(test)]
fn decode(bytes: &[u8], path: &Path) -> Result<(ParamSpace, Vec<TracedPosition>), TraceError> {
    let trace = BinaryTrace::new(bytes.to_vec(), path)?;
    let positions = trace.decode_all()?;
    Ok((trace.space, positions))
}

/// One position at the cursor into `into`, checked against the entries (`tapered` says
/// which are).
fn position(c: &mut Cursor, tapered: &[bool], into: &mut TracedPosition) -> Result<(), String> {
    let short = || "cut short".to_string();
    let mut fields = [0f32; 5];
    for f in &mut fields {
        *f = c.f32().ok_or_else(short)?;
    }
    let [result, phase, scale, offset, score] = fields;
    let unit = |x: f32| (0.0..=1.0).contains(&x);
    if !(unit(result) && unit(phase) && unit(scale) && offset.is_finite()) {
        return Err(format!(
            "result {result}, phase {phase}, scale {scale} must lie in 0..1, offset {offset} \
             be finite"
        ));
    }
    let n = c.u32().ok_or_else(short)? as usize;
    into.coeffs.clear();
    into.coeffs.reserve(n.min(4096));
    for _ in 0..n {
        into.coeffs.push(coefficient(c, tapered)?);
    }
    (into.result, into.phase, into.scale, into.offset) = (result, phase, scale, offset);
    into.score = (!score.is_nan()).then_some(score);
    Ok(())
}

/// One coefficient at the cursor, its entry checked against the entries.
fn coefficient(c: &mut Cursor, tapered: &[bool]) -> Result<Coef, String> {
    let short = || "cut short".to_string();
    let tagged = c.u32().ok_or_else(short)?;
    let index = tagged & INDEX_MASK;
    let entry_tapered = *tapered
        .get(index as usize)
        .ok_or_else(|| format!("entry {index} is not one of the header's"))?;
    let finite = |x: f32| x.is_finite().then_some(x).ok_or(format!("count {x}"));
    match tagged >> TAG_SHIFT {
        SMALL => Ok(Coef::Count(
            index,
            f32::from(c.take(1).ok_or_else(short)?[0] as i8),
        )),
        FLOAT => Ok(Coef::Count(index, finite(c.f32().ok_or_else(short)?)?)),
        SPLIT if entry_tapered => {
            let m = finite(c.f32().ok_or_else(short)?)?;
            Ok(Coef::Split(index, m, finite(c.f32().ok_or_else(short)?)?))
        }
        SPLIT => Err(format!("entry {index} is not tapered: it takes one count")),
        tag => Err(format!("unknown coefficient tag {tag}")),
    }
}

/// Whether the file at `path` begins as a binary trace.
///
/// # Errors
/// An unreadable file.
pub fn is_binary(path: &Path) -> Result<bool, TraceError> {
    let mut start = [0u8; 8];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut start))
        .map_err(|cause| TraceError::Io {
            path: path.into(),
            cause,
        })?;
    Ok(start[..n] == MAGIC[..])
}

/// The parameter space of a trace in either form, from its header alone.
///
/// # Errors
/// An unreadable file or a bad header.
pub fn read_space(path: &Path) -> Result<ParamSpace, TraceError> {
    if !is_binary(path)? {
        return Ok(crate::TraceReader::open(path)?.space().clone());
    }
    let io = |cause| TraceError::Io {
        path: path.into(),
        cause,
    };
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut prefix = [0u8; 12];
    file.read_exact(&mut prefix).map_err(io)?;
    let len = u32::from_le_bytes(prefix[8..].try_into().expect("four bytes")) as usize;
    let mut header = vec![0u8; len];
    file.read_exact(&mut header).map_err(io)?;
    BinaryTrace::new([&prefix[..], &header].concat(), path).map(|trace| trace.space)
}

/// Reads a trace in either form (by its first bytes): its space and positions.
///
/// # Errors
/// As [`read_binary`] or the text reader.
pub fn read_trace(path: &Path) -> Result<(ParamSpace, Vec<TracedPosition>), TraceError> {
    if is_binary(path)? {
        return read_binary(path);
    }
    let reader = crate::TraceReader::open(path)?;
    let space = reader.space().clone();
    let positions = reader.collect::<Result<Vec<_>, _>>()?;
    Ok((space, positions))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::space::Param;

    fn space() -> ParamSpace {
        ParamSpace::new(vec![
            Param {
                name: "P".into(),
                len: 2,
                tapered: true,
                default: vec![1, 2, 3, 4],
                group: None,
                candidate: false,
            },
            Param {
                name: "T".into(),
                len: 1,
                tapered: false,
                default: vec![5],
                group: Some("g".into()),
                candidate: true,
            },
        ])
        .unwrap()
    }

    fn positions() -> Vec<TracedPosition> {
        vec![
            TracedPosition {
                result: 1.0,
                score: None,
                phase: 0.25,
                scale: 1.0,
                offset: -3.5,
                coeffs: vec![
                    Coef::Count(0, 2.0),
                    Coef::Count(1, -0.5),
                    Coef::Count(2, -128.0),
                ],
            },
            TracedPosition {
                result: 0.5,
                score: Some(0.4),
                phase: 0.0,
                scale: 0.5,
                offset: 0.0,
                coeffs: vec![Coef::Split(1, 0.25, 0.75), Coef::Count(2, 300.0)],
            },
        ]
    }

    #[test]
    fn the_binary_form_reads_back_what_was_written() {
        let mut bytes = Vec::new();
        write_binary(&mut bytes, &space(), &positions()).unwrap();
        let (s, p) = decode(&bytes, Path::new("t.bin")).unwrap();
        assert_eq!((s, p), (space(), positions()));
        // Small whole counts take five bytes.
        let header = 8 + 4 + crate::text::header_line(&space()).len();
        assert_eq!(bytes.len(), header + (28 + 5 + 8 + 5) + (28 + 12 + 8));
    }

    #[test]
    fn the_space_is_read_from_the_header_of_either_form() {
        let dir = tempfile::tempdir().unwrap();
        let (binary, text) = (dir.path().join("t.bin"), dir.path().join("t.jsonl"));
        let mut bytes = Vec::new();
        write_binary(&mut bytes, &space(), &positions()).unwrap();
        std::fs::write(&binary, &bytes).unwrap();
        let mut lines = Vec::new();
        crate::write_trace(&mut lines, &space(), &positions()).unwrap();
        std::fs::write(&text, &lines).unwrap();
        assert_eq!(read_space(&binary).unwrap(), space());
        assert_eq!(read_space(&text).unwrap(), space());
        std::fs::write(&binary, &bytes[..14]).unwrap();
        assert!(read_space(&binary).is_err(), "a header cut short");
    }

    #[test]
    fn broken_binary_traces_say_where() {
        let mut bytes = Vec::new();
        write_binary(&mut bytes, &space(), &positions()).unwrap();
        let err = |b: &[u8]| decode(b, Path::new("t.bin")).unwrap_err().to_string();
        assert!(err(b"nonsense").contains("not a binary texel trace"));
        let cut = err(&bytes[..bytes.len() - 3]);
        assert!(
            cut.starts_with("t.bin: byte ") && cut.contains(": position 2: cut short"),
            "{cut}"
        );
        let mut wrong = bytes.clone();
        let first = 8 + 4 + crate::text::header_line(&space()).len() + 28;
        wrong[first] = 9;
        assert!(err(&wrong).contains("position 1: entry 9 is not one of the header's"));
    }
}
