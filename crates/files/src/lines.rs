//! Versioned JSON-lines files read back: a tune log, a loop's rounds. Each line is one
//! record carrying its version; a reader takes the whole lines of the versions it knows.

/// A record of a versioned JSON-lines file.
pub trait VersionedLine: serde::de::DeserializeOwned {
    /// What a line is, for messages: "a round of a texel loop".
    const WHAT: &'static str;
    /// The version this texel writes (and reads).
    const VERSION: u32;
    /// The oldest version this texel still reads (the record's serde converts it).
    const OLDEST: u32 = Self::VERSION;
    /// This line's version.
    fn version(&self) -> u32;
}

/// Why a versioned JSON-lines file cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinesError {
    /// A line that is not a record of the file.
    NotALine {
        /// The line number, from 1.
        line: usize,
        /// What a line should be.
        what: &'static str,
        /// What the JSON reader said.
        cause: String,
    },
    /// A record of a version this texel does not read.
    Version {
        /// The line number, from 1.
        line: usize,
        /// What a line is.
        what: &'static str,
        /// Its version.
        version: u32,
        /// The version this texel reads.
        reads: u32,
    },
}

impl std::fmt::Display for LinesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LinesError::NotALine { line, what, cause } => {
                write!(f, "line {line}: not {what} ({cause})")
            }
            LinesError::Version {
                line,
                what,
                version,
                reads,
            } => write!(
                f,
                "line {line}: {what} of version {version}; this texel reads version {reads}"
            ),
        }
    }
}

impl std::error::Error for LinesError {}

/// Every record of `text`, in order: blank lines are passed over, and a last line without
/// its newline (a write cut short by a kill or a full disk) is left out.
///
/// # Errors
/// A whole line that is not a record, or a record of another version.
pub fn read_versioned_lines<T: VersionedLine>(text: &str) -> Result<Vec<T>, LinesError> {
    let whole = text.rfind('\n').map_or("", |i| &text[..i]);
    let mut records = Vec::new();
    for (i, line) in whole.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let record: T = serde_json::from_str(line).map_err(|e| LinesError::NotALine {
            line: i + 1,
            what: T::WHAT,
            cause: e.to_string(),
        })?;
        if !(T::OLDEST..=T::VERSION).contains(&record.version()) {
            return Err(LinesError::Version {
                line: i + 1,
                what: T::WHAT,
                version: record.version(),
                reads: T::VERSION,
            });
        }
        records.push(record);
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Note {
        version: u32,
        n: i32,
    }

    impl VersionedLine for Note {
        const WHAT: &'static str = "a note";
        const VERSION: u32 = 2;
        fn version(&self) -> u32 {
            self.version
        }
    }

    #[test]
    fn whole_lines_of_the_version_are_read_and_a_torn_last_line_left_out() {
        let text = "{\"version\":2,\"n\":1}\n\n{\"version\":2,\"n\":-4}\n{\"version\":2,\"n";
        let notes: Vec<Note> = read_versioned_lines(text).unwrap();
        assert_eq!(notes.iter().map(|n| n.n).collect::<Vec<_>>(), [1, -4]);
        assert!(read_versioned_lines::<Note>("").unwrap().is_empty());
    }

    #[test]
    fn other_lines_and_versions_are_refused_with_their_line() {
        let bad = read_versioned_lines::<Note>("{\"version\":2,\"n\":1}\nnope\n").unwrap_err();
        assert!(bad.to_string().starts_with("line 2: not a note ("), "{bad}");
        let old = read_versioned_lines::<Note>("\n{\"version\":1,\"n\":1}\n").unwrap_err();
        let want = "line 2: a note of version 1; this texel reads version 2";
        assert_eq!(old.to_string(), want);
    }
}
