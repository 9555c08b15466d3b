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
    rows: Vec<Averaged>,
}

/// A position held for [`Duplicates::Average`].
struct Averaged {
    /// Its FEN.
    fen: String,
    /// Its game while every occurrence comes from one game; `None` once two games (or an
    /// occurrence without one) gave it: a held-out split cannot hold out part of a label.
    game: Option<u64>,
    /// The `ce` of the first score seen.
    ce: String,
    /// Label steps summed, and occurrences.
    sum: u64,
    count: u64,
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
        let ce = score.map_or(String::new(), |s| write_evaluation(s, leaf.turn()));
        let board = || Fen::from_position(&leaf, EnPassantMode::Legal).to_string();
        let named = game.map_or(String::new(), write_game);
        let fen = || board() + &named + &ce;
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
                    let (fen, ce) = (board(), ce.clone());
                    let (sum, count) = (0, 0);
                    a.rows.push(Averaged {
                        fen,
                        game,
                        ce,
                        sum,
                        count,
                    });
                    a.rows.len() - 1
                });
                let r = &mut a.rows[row];
                if r.count > 0 {
                    stats.skip("duplicate (label averaged)");
                    r.game = r.game.filter(|&g| Some(g) == game);
                }
                r.sum += u64::from(label.steps());
                r.count += 1;
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
        for r in std::mem::take(&mut self.averages.rows) {
            let game = r.game.map_or(String::new(), write_game);
            let fen = r.fen + &game + &r.ce;
            self.emit(stats, &fen, Label::mean(r.sum, r.count))?;
        }
        if stats.kept == 0 {
            return Err(ImportError::NothingKept(Box::new(stats.clone())));
        }
        self.file.finish().map_err(io(&self.path))
    }
}
