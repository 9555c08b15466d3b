//! The importer's output: kept positions, deduplicated, written to a temporary file that is
//! renamed over the output only when the import succeeds.

use super::{io, Candidate, ImportError, ImportStats, Kept};
use shakmaty::fen::Fen;
use shakmaty::EnPassantMode;
use shakmaty::Position;
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use texel_data::{write_evaluation, write_game, Label, LabelFormat};
use texel_files::AtomicFile;
use texel_search::key;

/// What the importer does with a position (after quiescing) it has written already.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Duplicates {
    /// Keeps the first occurrence and its label.
    #[default]
    First,
    /// Keeps one occurrence whose label is the mean of all occurrences' labels (needs an
    /// output format that writes fractions; positions are held until the end).
    Average,
    /// Writes every occurrence.
    Keep,
}

/// Positions held for [`Duplicates::Average`]: first-seen order, summed label steps and count.
#[derive(Default)]
struct Averages {
    index: HashMap<u64, usize>,
    /// Per position: its FEN and the `ce` of the first score seen, label sum and count.
    rows: Vec<(String, u64, u64)>,
}

/// Writes kept positions to a temporary file, renamed over the output at the end.
pub(super) struct Output {
    path: PathBuf,
    file: AtomicFile,
    format: LabelFormat,
    duplicates: Duplicates,
    seen: HashSet<u64>,
    averages: Averages,
}

impl Output {
    /// A temporary output next to `path`.
    pub(super) fn create(
        path: &Path,
        format: LabelFormat,
        duplicates: Duplicates,
    ) -> Result<Output, ImportError> {
        if duplicates == Duplicates::Average && !format.writes_fractions() {
            return Err(ImportError::Options(format!(
                "averaged labels need an output format that writes fractions (bracket), not `{format}`"
            )));
        }
        Ok(Output {
            path: path.to_path_buf(),
            file: AtomicFile::create(path).map_err(io(path))?,
            format,
            duplicates,
            seen: HashSet::new(),
            averages: Averages::default(),
        })
    }

    /// Takes one considered position: counts it as skipped, or keeps it.
    pub(super) fn write(
        &mut self,
        stats: &mut ImportStats,
        candidate: Candidate,
    ) -> Result<(), ImportError> {
        stats.considered += 1;
        let Kept {
            leaf,
            label,
            score,
            game,
        } = match candidate {
            Err(reason) => {
                stats.skip(reason);
                return Ok(());
            }
            Ok(c) => c,
        };
        if self.format.write(label).is_none() {
            stats.skip("label is not a game result (output format)");
            return Ok(());
        }
        let game = game.map_or(String::new(), write_game);
        let ce = score.map_or(String::new(), |s| write_evaluation(s, leaf.turn()));
        let fen = || Fen::from_position(&leaf, EnPassantMode::Legal).to_string() + &game + &ce;
        match self.duplicates {
            Duplicates::Keep => self.emit(stats, &fen(), label),
            Duplicates::First => {
                if self.seen.insert(key(&leaf)) {
                    self.emit(stats, &fen(), label)
                } else {
                    stats.skip("duplicate");
                    Ok(())
                }
            }
            Duplicates::Average => {
                let a = &mut self.averages;
                let row = *a.index.entry(key(&leaf)).or_insert_with(|| {
                    a.rows.push((fen(), 0, 0));
                    a.rows.len() - 1
                });
                let r = &mut a.rows[row];
                if r.2 > 0 {
                    stats.skip("duplicate (label averaged)");
                }
                r.1 += u64::from(label.steps());
                r.2 += 1;
                Ok(())
            }
        }
    }

    fn emit(
        &mut self,
        stats: &mut ImportStats,
        fen: &str,
        label: Label,
    ) -> Result<(), ImportError> {
        let text = self.format.write(label).expect("checked before");
        writeln!(self.file, "{fen} {text}").map_err(io(&self.path))?;
        stats.kept += 1;
        stats.count_label(label);
        Ok(())
    }

    /// Writes held positions, then renames the temporary file over the output. An import
    /// that kept nothing is an error, and an existing output is left as it was.
    pub(super) fn finish(mut self, stats: &mut ImportStats) -> Result<(), ImportError> {
        for (fen, sum, count) in std::mem::take(&mut self.averages.rows) {
            self.emit(stats, &fen, Label::mean(sum, count))?;
        }
        if stats.kept == 0 {
            return Err(ImportError::NothingKept(Box::new(stats.clone())));
        }
        self.file.finish().map_err(io(&self.path))
    }
}
