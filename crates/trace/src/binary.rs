//! The binary form of the trace format, for scale: the same header (as its JSON text), then
//! each position as fixed little-endian fields and its coefficients, most in five bytes.
//! Each record starts with its length, so records are found without decoding them and
//! decoded on every thread ([`BinaryTrace`]).
//!
//! ```text
//! file      = MAGIC, u32 header length, header JSON (the text form's first line), position*
//! position  = u32 length of the rest of the record in bytes, f32 result, f32 phase,
//!             f32 scale, f32 offset, f32 score (NaN: none), u32 coefficient count,
//!             coefficient*, then when there are any: u32 inner sum count, inner*, then
//!             when not zero: f32 fixed endgame part, then when the position knows its
//!             game: u64 game id (the fields before it then written even when empty)
//! inner     = u32 term, f32 side, f32 middlegame offset, f32 endgame offset, u32
//!             coefficient count, coefficient*
//! coefficient = u32 tagged entry: the entry index in the low 30 bits, then by the top two
//!             bits 00: i8 count | 01: f32 count | 10: f32 middlegame count, f32 endgame count
//! ```

use crate::bytes::{Bytes, ScanError};
use crate::inner::InnerSum;
use crate::lines::{check_count, check_fields, OFFSET_BOUND};
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
    encode_coeffs(&p.coeffs, buf);
    let game = p.game.is_some();
    if !p.inner.is_empty() || p.offset_end != 0.0 || game {
        buf.extend_from_slice(&(p.inner.len() as u32).to_le_bytes());
        for u in &p.inner {
            buf.extend_from_slice(&u.term.to_le_bytes());
            for x in [u.side, u.offset[0], u.offset[1]] {
                buf.extend_from_slice(&x.to_le_bytes());
            }
            encode_coeffs(&u.coeffs, buf);
        }
    }
    if p.offset_end != 0.0 || game {
        buf.extend_from_slice(&p.offset_end.to_le_bytes());
    }
    if let Some(game) = p.game {
        buf.extend_from_slice(&game.to_le_bytes());
    }
}

/// A coefficient list's bytes onto `buf`: its count, then each coefficient.
fn encode_coeffs(coeffs: &[Coef], buf: &mut Vec<u8>) {
    buf.extend_from_slice(&(coeffs.len() as u32).to_le_bytes());
    for c in coeffs {
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

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

/// A binary trace, its records found but not decoded: each position is decoded on its own,
/// on any thread, into a position that is reused ([`BinaryTrace::decode_into`]), its bytes
/// read from the file when it is decoded (runs of positions in one read,
/// [`BinaryTrace::for_each`]): a trace never sits in memory whole.
#[derive(Debug)]
pub struct BinaryTrace {
    path: PathBuf,
    bytes: Bytes,
    space: ParamSpace,
    /// Whether each entry is tapered.
    tapered: Vec<bool>,
    /// Where each position's record begins (at its length), then where the last ends.
    records: Vec<u64>,
}

/// Runs of positions are read in spans of at most this many bytes.
const SPAN: u64 = 8 << 20;

impl BinaryTrace {
    /// Opens the binary trace at `path`, reads its header and finds its records (one
    /// sequential read; the positions stay in the file until decoded).
    ///
    /// # Errors
    /// An unreadable file, another format, a bad header, or a record cut short.
    pub fn read(path: &Path) -> Result<BinaryTrace, TraceError> {
        let bytes = Bytes::open(path).map_err(|cause| TraceError::Io {
            path: path.into(),
            cause,
        })?;
        BinaryTrace::new(bytes, path)
    }

    /// The trace of `bytes` (named `path` in errors).
    fn new(bytes: Bytes, path: &Path) -> Result<BinaryTrace, TraceError> {
        let bad = |at: u64, field: &str, what: &str| bad_bytes(path, at, field, what.into());
        let io = |cause| TraceError::Io {
            path: path.into(),
            cause,
        };
        let prefix_len = (MAGIC.len() + 4) as u64;
        let head = bytes
            .span(0, bytes.len().min(prefix_len) as usize)
            .map_err(io)?;
        if !head.starts_with(MAGIC) {
            return Err(bad(0, "format", "not a binary texel trace"));
        }
        let len = head
            .get(MAGIC.len()..)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_le_bytes)
            .ok_or_else(|| bad(8, "header", "cut short"))?;
        if bytes.len() < prefix_len + u64::from(len) {
            return Err(bad(12, "header", "cut short"));
        }
        let text = bytes.span(prefix_len, len as usize).map_err(io)?;
        let space = header_space(&text).map_err(|(f, w)| bad_bytes(path, 12, &f, w))?;
        let records = bytes
            .records(prefix_len + u64::from(len))
            .map_err(|e| match e {
                ScanError::Io(cause) => io(cause),
                ScanError::CutShort { at, record } => {
                    bad(at, &format!("position {}", record + 1), "cut short")
                }
            })?;
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
        self.records.len() - 1
    }

    /// Whether the trace holds no position.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Decodes position `k` (from 0) into `into`, whose coefficient buffer is reused.
    ///
    /// # Errors
    /// The file cannot be read, or the position does not fit the header (with its number
    /// and byte offset).
    ///
    /// # Panics
    /// If `k` is not below [`BinaryTrace::len`].
    pub fn decode_into(&self, k: usize, into: &mut TracedPosition) -> Result<(), TraceError> {
        let (at, end) = (self.records[k], self.records[k + 1]);
        let span = self.read_span(at, end)?;
        self.decode_at(k, &span, at, into)
    }

    /// Calls `f(j, position)` for each position `chosen[j]` (rising numbers, each below
    /// [`BinaryTrace::len`]) in order, decoded into `scratch`: runs of them are read from
    /// the file at once.
    ///
    /// # Errors
    /// As [`BinaryTrace::decode_into`], for the first chosen position at fault.
    pub fn for_each(
        &self,
        chosen: &[usize],
        scratch: &mut TracedPosition,
        f: impl FnMut(usize, &TracedPosition),
    ) -> Result<(), TraceError> {
        self.for_each_in_spans(chosen, SPAN, scratch, f)
    }

    /// [`BinaryTrace::for_each`], reading at most `span` bytes at once (a longer record
    /// alone).
    fn for_each_in_spans(
        &self,
        chosen: &[usize],
        span: u64,
        scratch: &mut TracedPosition,
        mut f: impl FnMut(usize, &TracedPosition),
    ) -> Result<(), TraceError> {
        let mut first = 0;
        while first < chosen.len() {
            let base = self.records[chosen[first]];
            let fits = |&k: &usize| self.records[k + 1] - base <= span;
            let run = chosen[first..]
                .iter()
                .take_while(|k| fits(k))
                .count()
                .max(1);
            let end = self.records[chosen[first + run - 1] + 1];
            let span = self.read_span(base, end)?;
            for (j, &k) in chosen.iter().enumerate().skip(first).take(run) {
                let at = (self.records[k] - base) as usize;
                self.decode_at(k, &span[at..], self.records[k], scratch)?;
                f(j, scratch);
            }
            first += run;
        }
        Ok(())
    }

    /// The bytes from `at` to `end`.
    fn read_span(&self, at: u64, end: u64) -> Result<std::borrow::Cow<'_, [u8]>, TraceError> {
        (self.bytes.span(at, (end - at) as usize)).map_err(|cause| TraceError::Io {
            path: self.path.clone(),
            cause,
        })
    }

    /// Decodes position `k`, whose record (at byte `at` of the file) begins `bytes`.
    fn decode_at(
        &self,
        k: usize,
        bytes: &[u8],
        at: u64,
        into: &mut TracedPosition,
    ) -> Result<(), TraceError> {
        let len = (self.records[k + 1] - self.records[k] - 4) as usize;
        let mut c = Cursor {
            bytes: &bytes[4..4 + len],
            at: 0,
        };
        position(&mut c, &self.tapered, self.space.inner().len(), into)
            .and_then(|()| match c.at == len {
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
fn bad_bytes(path: &Path, at: u64, field: &str, what: String) -> TraceError {
    TraceError::BadBytes {
        path: path.into(),
        offset: at,
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
    let trace = BinaryTrace::new(Bytes::Memory(bytes.to_vec()), path)?;
    let positions = trace.decode_all()?;
    Ok((trace.space, positions))
}

/// One position at the cursor into `into`, checked against the entries (`tapered` says
/// which are) and the number of inner terms.
fn position(
    c: &mut Cursor,
    tapered: &[bool],
    terms: usize,
    into: &mut TracedPosition,
) -> Result<(), String> {
    let short = || "cut short".to_string();
    let mut fields = [0f32; 5];
    for f in &mut fields {
        *f = c.f32().ok_or_else(short)?;
    }
    let [result, phase, scale, offset, score] = fields;
    let score = (!score.is_nan()).then_some(score);
    let wide = |x: f32| f64::from(x);
    check_fields(
        wide(result),
        wide(phase),
        wide(scale),
        wide(offset),
        score.map(wide),
    )
    .map_err(|(field, what)| format!("{field}: {what}"))?;
    coefficients(c, tapered, &mut into.coeffs)?;
    into.inner.clear();
    if c.at < c.bytes.len() {
        let n = c.u32().ok_or_else(short)? as usize;
        for _ in 0..n {
            into.inner.push(inner_sum(c, tapered, terms)?);
        }
    }
    into.offset_end = 0.0;
    if c.at < c.bytes.len() {
        let end = c.f32().ok_or_else(short)?;
        if !(end.is_finite() && f64::from(end.abs()) <= OFFSET_BOUND) {
            return Err(format!("offset_end {end} is beyond {OFFSET_BOUND}"));
        }
        into.offset_end = end;
    }
    into.game = None;
    if c.at < c.bytes.len() {
        into.game = Some(c.u64().ok_or_else(short)?);
    }
    (into.result, into.phase, into.scale, into.offset) = (result, phase, scale, offset);
    into.score = score;
    Ok(())
}

/// A coefficient list at the cursor into `into` (cleared first).
fn coefficients(c: &mut Cursor, tapered: &[bool], into: &mut Vec<Coef>) -> Result<(), String> {
    let n = c.u32().ok_or("cut short")? as usize;
    into.clear();
    into.reserve(n.min(4096));
    for _ in 0..n {
        into.push(coefficient(c, tapered)?);
    }
    Ok(())
}

/// One inner sum at the cursor, its term and entries checked.
fn inner_sum(c: &mut Cursor, tapered: &[bool], terms: usize) -> Result<InnerSum, String> {
    let short = || "cut short".to_string();
    let term = c.u32().ok_or_else(short)?;
    if term as usize >= terms {
        return Err(format!(
            "inner term {term} is not one of the header's {terms}"
        ));
    }
    let [side, mid, end] = [c.f32(), c.f32(), c.f32()];
    let side = side
        .filter(|s| [1.0, -1.0].contains(s))
        .ok_or("an inner sum's side is not 1 or -1")?;
    let offset = [mid.ok_or_else(short)?, end.ok_or_else(short)?];
    let inside = |x: &f32| x.is_finite() && f64::from(x.abs()) <= OFFSET_BOUND;
    if !offset.iter().all(inside) {
        return Err(format!(
            "an inner sum's offset {offset:?} is beyond {OFFSET_BOUND}"
        ));
    }
    let mut coeffs = Vec::new();
    coefficients(c, tapered, &mut coeffs)?;
    Ok(InnerSum {
        term,
        side,
        offset,
        coeffs,
    })
}

/// One coefficient at the cursor, its entry checked against the entries.
fn coefficient(c: &mut Cursor, tapered: &[bool]) -> Result<Coef, String> {
    let short = || "cut short".to_string();
    let tagged = c.u32().ok_or_else(short)?;
    let index = tagged & INDEX_MASK;
    let entry_tapered = *tapered
        .get(index as usize)
        .ok_or_else(|| format!("entry {index} is not one of the header's"))?;
    let finite = |x: f32| check_count(f64::from(x)).map(|_| x);
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
    let bytes = Bytes::Memory([&prefix[..], &header].concat());
    BinaryTrace::new(bytes, path).map(|trace| trace.space)
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
                inner: Vec::new(),
                result: 1.0,
                score: None,
                phase: 0.25,
                scale: 1.0,
                offset: -3.5,
                offset_end: 0.0,
                coeffs: vec![
                    Coef::Count(0, 2.0),
                    Coef::Count(1, -0.5),
                    Coef::Count(2, -128.0),
                ],
                game: None,
            },
            TracedPosition {
                inner: Vec::new(),
                result: 0.5,
                score: Some(0.4),
                phase: 0.0,
                scale: 0.5,
                offset: 0.0,
                offset_end: 12.5,
                coeffs: vec![Coef::Split(1, 0.25, 0.75), Coef::Count(2, 300.0)],
                game: None,
            },
            TracedPosition {
                result: 0.0,
                phase: 1.0,
                scale: 1.0,
                coeffs: vec![Coef::Count(0, 1.0)],
                game: Some(70_000_000_123),
                ..TracedPosition::default()
            },
        ]
    }

    #[test]
    fn the_binary_form_reads_back_what_was_written() {
        let mut bytes = Vec::new();
        write_binary(&mut bytes, &space(), &positions()).unwrap();
        let (s, p) = decode(&bytes, Path::new("t.bin")).unwrap();
        assert_eq!((s, p), (space(), positions()));
        // Small whole counts take five bytes; a game id eight, after an empty inner
        // count and a zero fixed endgame part.
        let header = 8 + 4 + crate::text::header_line(&space()).len();
        assert_eq!(
            bytes.len(),
            header + (28 + 5 + 8 + 5) + (28 + 12 + 8 + 4 + 4) + (28 + 5 + 4 + 4 + 8)
        );
    }

    #[test]
    fn runs_of_positions_read_from_the_file_decode_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.bin");
        let all: Vec<TracedPosition> = (0..40).flat_map(|_| positions()).take(80).collect();
        let mut bytes = Vec::new();
        write_binary(&mut bytes, &space(), &all).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let trace = BinaryTrace::read(&path).unwrap();
        assert_eq!(trace.len(), 80);
        let chosen = [0, 1, 2, 7, 8, 30, 31, 32, 33, 79];
        // Spans of one record, of a few, and of the whole file.
        for span in [1, 100, SPAN] {
            let mut seen = Vec::new();
            let mut scratch = TracedPosition::default();
            trace
                .for_each_in_spans(&chosen, span, &mut scratch, |j, p| {
                    seen.push((j, p.clone()))
                })
                .unwrap();
            let want: Vec<_> = chosen.iter().map(|&k| all[k].clone()).enumerate().collect();
            assert_eq!(seen, want, "span {span}");
        }
        let mut one = TracedPosition::default();
        trace.decode_into(79, &mut one).unwrap();
        assert_eq!(one, all[79]);
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
            cut.starts_with("t.bin: byte ") && cut.contains(": position 3: cut short"),
            "{cut}"
        );
        let mut wrong = bytes.clone();
        let first = 8 + 4 + crate::text::header_line(&space()).len() + 28;
        wrong[first] = 9;
        assert!(err(&wrong).contains("position 1: entry 9 is not one of the header's"));
        // What the text form refuses, the binary form refuses: a score of 5, an offset or a
        // count of 3e38.
        let record = first - 28;
        let at = |field: usize| record + 4 + 4 * field;
        for (pos, value, want) in [
            (at(4), 5.0f32, "position 1: score: 5 is outside 0 to 1"),
            (at(3), 3e38, "position 1: offset: 3000000005"),
        ] {
            let mut wrong = bytes.clone();
            wrong[pos..pos + 4].copy_from_slice(&value.to_le_bytes());
            assert!(err(&wrong).contains(want), "{}", err(&wrong));
        }
        let second_count = first + 5 + 4;
        let mut wrong = bytes.clone();
        wrong[second_count..second_count + 4].copy_from_slice(&3e38f32.to_le_bytes());
        assert!(err(&wrong).contains("count 3000"), "{}", err(&wrong));
    }
}
