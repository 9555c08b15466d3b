//! The text form of the trace format: one JSON object a line, the header first
//! (`docs/trace-format.md`). A script in any language can write it.

use crate::inner::{inner_eval, InnerSum};
use crate::lines::{parse, HeaderLine, PositionLine};
use crate::space::ParamSpace;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// The `format` of a trace header.
pub const FORMAT: &str = "texel-trace";

/// The newest version of the format, read and written here: version 2 adds inner terms
/// (a trace without them is written as version 1, which every texel reads).
pub const VERSION: u64 = 2;

/// One coefficient of a position: an entry of the space and its White-minus-Black count,
/// or, for a tapered entry an engine tapers itself, its middlegame and endgame counts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Coef {
    /// `[i, c]`: `c · (phase · mid + (1 − phase) · scale · end)`, or `c · v` for a plain
    /// entry.
    Count(u32, f32),
    /// `[i, c_mid, c_end]`: `c_mid · mid + scale · c_end · end` (tapered entries only).
    Split(u32, f32, f32),
}

/// One position of a trace.
///
/// The default is an empty position with all fields zero: a buffer to decode into.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TracedPosition {
    /// The game result from White's view: 0, 0.5 or 1.
    pub result: f32,
    /// A score label from White's view (0 to 1), when the trace gives one.
    pub score: Option<f32>,
    /// The weight of the middlegame value, 0 to 1.
    pub phase: f32,
    /// The factor of the endgame part, 0 to 1 (1 when absent).
    pub scale: f32,
    /// The part of the evaluation that is not tuned, centipawns from White's view.
    pub offset: f32,
    /// The part of the endgame score that is not tuned (tapered as an endgame value, and
    /// part of the endgame score a complexity moves).
    pub offset_end: f32,
    /// The coefficients.
    pub coeffs: Vec<Coef>,
    /// The inner sums (`crate::InnerSum`), for an evaluation that has inner terms.
    pub inner: Vec<InnerSum>,
    /// The game the position comes from, when the trace says (a number unique among the
    /// trace's games): the held-out split keeps a game's positions on one side.
    pub game: Option<u64>,
}

impl TracedPosition {
    /// The evaluation with flat `values` of `space`, centipawns from White's view.
    pub fn eval(&self, space: &ParamSpace, values: &[i32]) -> f64 {
        let (p, s) = self.taper();
        let (offset, offset_end) = self.fixed();
        let mut sum = offset;
        // The endgame part: what endgame values and the fixed endgame part add.
        let mut end = (1.0 - p) * s * offset_end;
        for c in &self.coeffs {
            let (entry, mid_weight, end_weight) = match *c {
                Coef::Count(i, n) => (i, f64::from(n) * p, f64::from(n) * (1.0 - p)),
                Coef::Split(i, m, e) => (i, f64::from(m), f64::from(e)),
            };
            let Some((param, at)) = space.entry(entry as usize) else {
                continue;
            };
            match (param.tapered, *c) {
                (false, Coef::Count(_, n)) => sum += f64::from(n) * f64::from(values[at]),
                _ => {
                    sum += mid_weight * f64::from(values[at]);
                    end += s * end_weight * f64::from(values[at + 1]);
                }
            }
        }
        if !self.inner.is_empty() {
            let real: Vec<f64> = values.iter().map(|&v| f64::from(v)).collect();
            sum += inner_eval(&self.inner, space, &real, (p, s), end);
        }
        sum + end
    }
}

/// Why a trace cannot be read or written: the file, and for bad content the line and field.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file could not be read or written.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
    /// The binary form does not follow the format at this byte.
    #[error("{path}: byte {offset}: {field}: {what}")]
    BadBytes {
        /// The file.
        path: PathBuf,
        /// Where the fault's record or field begins.
        offset: u64,
        /// The part at fault (`header`, `position 12`, ...).
        field: String,
        /// What is wrong.
        what: String,
    },
    /// A line does not follow the format.
    #[error("{path}:{line}: {field}: {what}")]
    Bad {
        /// The file.
        path: PathBuf,
        /// The line (1-based).
        line: u64,
        /// The field at fault (`coeffs[3]`, `params[0].default`, ...).
        field: String,
        /// What is wrong.
        what: String,
    },
}

/// A problem in one line: the field and what is wrong, placed by the reader.
pub(crate) type Fault = (String, String);

/// Reads a trace file: the header first, then one position a line (blank lines skipped).
pub struct TraceReader<R> {
    input: R,
    path: PathBuf,
    line: u64,
    space: ParamSpace,
    text: String,
}

impl TraceReader<std::io::BufReader<std::fs::File>> {
    /// Opens `path` and reads its header.
    ///
    /// # Errors
    /// An unreadable file or a bad header.
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let file = std::fs::File::open(path).map_err(|cause| TraceError::Io {
            path: path.into(),
            cause,
        })?;
        TraceReader::new(std::io::BufReader::new(file), path)
    }
}

impl<R: BufRead> TraceReader<R> {
    /// Reads the header from `input` (named `path` in errors).
    ///
    /// # Errors
    /// Unreadable input or a bad header.
    pub fn new(input: R, path: &Path) -> Result<Self, TraceError> {
        let mut reader = TraceReader {
            input,
            path: path.into(),
            line: 0,
            space: ParamSpace::default(),
            text: String::new(),
        };
        if !reader.next_line()? {
            return Err(reader.bad(("header".into(), "the file is empty".into())));
        }
        let header = parse::<HeaderLine>(reader.line_text().as_bytes(), "header", "line");
        reader.space = header
            .and_then(HeaderLine::space)
            .map_err(|f| reader.bad(f))?;
        Ok(reader)
    }

    /// The header's parameter space.
    pub fn space(&self) -> &ParamSpace {
        &self.space
    }

    /// The line last read (1-based).
    pub fn line(&self) -> u64 {
        self.line
    }

    fn bad(&self, (field, what): Fault) -> TraceError {
        TraceError::Bad {
            path: self.path.clone(),
            line: self.line,
            field,
            what,
        }
    }

    /// Reads the next line that is not blank into `text`; false at the end.
    fn next_line(&mut self) -> Result<bool, TraceError> {
        loop {
            self.text.clear();
            let n = self
                .input
                .read_line(&mut self.text)
                .map_err(|cause| TraceError::Io {
                    path: self.path.clone(),
                    cause,
                })?;
            if n == 0 {
                return Ok(false);
            }
            self.line += 1;
            if !self.line_text().is_empty() {
                return Ok(true);
            }
        }
    }

    /// The line read, without a byte-order mark and surrounding space.
    fn line_text(&self) -> &str {
        self.text.trim().trim_start_matches('\u{feff}')
    }
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = Result<TracedPosition, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.next_line() {
            Ok(true) => {}
            Ok(false) => return None,
            Err(e) => return Some(Err(e)),
        }
        let line = parse::<PositionLine>(self.line_text().as_bytes(), "position", "line");
        Some(
            line.and_then(|l| l.position(&self.space))
                .map_err(|f| self.bad(f)),
        )
    }
}

/// The header line of `space`.
pub fn header_line(space: &ParamSpace) -> String {
    serde_json::to_string(&HeaderLine::of(space)).expect("a header is always JSON")
}

/// The line of one position.
pub fn position_line(p: &TracedPosition) -> String {
    serde_json::to_string(&PositionLine::of(p)).expect("a position is always JSON")
}

/// The parameter space of the header line `text` (in the binary form's header).
pub(crate) fn header_space(text: &[u8]) -> Result<ParamSpace, Fault> {
    parse::<HeaderLine>(text, "header", "header").and_then(HeaderLine::space)
}

/// Writes `space`'s header and then `positions` to `out`, a line each.
///
/// # Errors
/// A failed write.
pub fn write_trace<'a>(
    out: &mut impl Write,
    space: &ParamSpace,
    positions: impl IntoIterator<Item = &'a TracedPosition>,
) -> std::io::Result<()> {
    writeln!(out, "{}", header_line(space))?;
    for p in positions {
        writeln!(out, "{}", position_line(p))?;
    }
    Ok(())
}
