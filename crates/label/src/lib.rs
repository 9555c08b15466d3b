//! Labelled positions scored by a stronger judge: any UCI engine (a teacher) searches each
//! position of a labelled file at a fixed number of nodes or depth, and each position is
//! written back with its result and game, the teacher's score as EPD `ce` and, where the
//! engine reports them (`UCI_ShowWDL`), its win/draw/loss chances as `wdl`.
//!
//! One engine process per thread; the output in input order; a run killed anywhere goes on
//! where it stopped when started again with the same settings (nothing scored twice or
//! lost: [`progress`]); a large file is cut into shards ([`Shard`]) whose outputs, joined
//! in order, are the whole file's. The engine is made deterministic by a fixed limit and a
//! cleared hash before each position, so where and when a position is scored does not
//! change its line.

mod job;
mod line;
pub mod progress;
mod scorer;
mod settings;

pub use job::{label, Ending, Event};
pub use line::write_line;
pub use progress::Tally;
pub use scorer::{Scorer, Verdict};
pub use settings::{LabelSettings, Limit, Shard, Teacher};

use std::path::{Path, PathBuf};
use texel_arena::engine::Failure;

/// Why a labelling run could not go on.
#[derive(Debug, thiserror::Error)]
pub enum LabelError {
    /// Another run writes the same output.
    #[error(transparent)]
    Lock(#[from] texel_files::LockError),
    /// A file could not be read or written.
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    /// The input could not be read on.
    #[error("{0}: {1}")]
    Read(PathBuf, texel_data::records::ReadError),
    /// The progress record cannot be read.
    #[error("{0}")]
    Kept(String),
    /// The progress kept beside the output is of a run asked something else.
    #[error(
        "{}: the progress of a run with other settings ({why} differ); run with --fresh to \
         start again, or give that run's settings to go on with it",
        record.display()
    )]
    OtherRun {
        /// The progress record.
        record: PathBuf,
        /// What differs.
        why: String,
    },
    /// The teacher cannot be started (again).
    #[error("the teacher: {0}")]
    Engine(Failure),
    /// Not one position could be read.
    #[error("no position could be read ({} unreadable lines{})", .0.bad_lines(), first_bad(.0))]
    NothingWritten(Box<Tally>),
}

fn first_bad(tally: &Tally) -> String {
    match tally.bad_examples.first() {
        Some(example) => format!(", the first {example}"),
        None => String::new(),
    }
}

impl LabelError {
    /// A maker of [`LabelError::Io`] errors about `path`.
    fn io(path: &Path) -> impl Fn(std::io::Error) -> LabelError + '_ {
        move |e| LabelError::Io(path.to_path_buf(), e)
    }
}
