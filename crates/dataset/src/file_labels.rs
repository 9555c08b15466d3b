//! What each file of a load held, said in the load's report: the form of its labels and
//! how many of its positions carry their engine's score.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use texel_data::LabelFormat;

/// The labels one file held.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileLabels {
    /// The file.
    pub path: PathBuf,
    /// Its positions by label form (lines are detected one by one).
    pub formats: BTreeMap<LabelFormat, u64>,
    /// Its positions that carry their engine's score.
    pub scored: u64,
    /// A records file whose every score is 0 (its first block's): read as carrying none.
    pub zero_scores: bool,
}

impl FileLabels {
    /// The positions read from the file.
    pub fn positions(&self) -> u64 {
        self.formats.values().sum()
    }

    /// Counts one position read in `format`, with a score or not.
    pub(crate) fn count(&mut self, format: LabelFormat, scored: bool) {
        *self.formats.entry(format).or_default() += 1;
        self.scored += u64::from(scored);
    }
}

impl fmt::Display for FileLabels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} positions", self.path.display(), self.positions())?;
        let mut forms = self.formats.keys();
        match (forms.next(), forms.next()) {
            (Some(one), None) => match one.record_form() {
                Some(form) => write!(f, " of {}", form.holds())?,
                None => write!(f, " labelled {one}")?,
            },
            (Some(_), Some(_)) => {
                let counts: Vec<String> = (self.formats.iter())
                    .map(|(k, n)| format!("{k} {n}"))
                    .collect();
                write!(f, ", mixed label formats ({})", counts.join(", "))?;
            }
            _ => {}
        }
        match self.scored {
            0 if self.zero_scores => f.write_str(
                ", none with a score (every score of its first records is 0, the form's way \
                 of saying none)",
            ),
            0 => f.write_str(", none with a score"),
            n if n == self.positions() => f.write_str(", each with a score"),
            n => write!(f, ", {n} with a score"),
        }
    }
}
