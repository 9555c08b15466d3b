//! Why a loop or a self-play run cannot go on.

use std::path::PathBuf;

/// Why a loop or a self-play run cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum LoopError {
    /// A setting is out of range or contradicts another.
    #[error("{0}")]
    Setting(String),
    /// Another run is writing the same folder or games.
    #[error(transparent)]
    Lock(#[from] texel_files::LockError),
    /// A file or folder cannot be read, written or removed.
    #[error("{path}: {cause}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
    /// Earlier work cannot be continued, or the settings cannot be recorded.
    #[error(transparent)]
    RunFile(#[from] texel_run::RunFileError),
    /// A parameter file.
    #[error(transparent)]
    Params(#[from] texel_eval::params::ParamsError),
    /// The openings.
    #[error(transparent)]
    Openings(#[from] texel_arena::openings::OpeningError),
    /// A gauntlet engine.
    #[error(transparent)]
    Engine(#[from] texel_arena::spec::SpecError),
    /// The games.
    #[error(transparent)]
    Match(#[from] texel_arena::MatchError),
    /// Labelling the games of a file.
    #[error("cannot import {file}: {cause}")]
    Import {
        /// The PGN file.
        file: PathBuf,
        /// The cause.
        cause: texel_import::ImportError,
    },
    /// The values to tune.
    #[error(transparent)]
    Select(#[from] texel_tune::SelectionError),
    /// A sources file cannot be used.
    #[error(transparent)]
    Sources(#[from] texel_dataset::SourcesError),
    /// A source of the sources file cannot be read.
    #[error(transparent)]
    Survey(#[from] texel_dataset::LoadError),
    /// The tuning.
    #[error(transparent)]
    Tune(#[from] texel_tune::SessionError),
    /// The tuning's log.
    #[error("{path}: {cause}")]
    TuneLog {
        /// The log.
        path: PathBuf,
        /// What is wrong with it.
        cause: texel_tune::log::TuneLogError,
    },
    /// The outside engine.
    #[error(transparent)]
    OutsideEngine(#[from] crate::engine::EngineError),
    /// The outside engine's trace.
    #[error(transparent)]
    TraceSubject(#[from] texel_tune::TraceSubjectError),
    /// `loop.jsonl`.
    #[error("{path}: {cause}")]
    Rounds {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        cause: crate::records::LoopFileError,
    },
}

/// The error of an I/O failure on `path`.
pub(crate) fn io(path: &std::path::Path) -> impl Fn(std::io::Error) -> LoopError + '_ {
    move |cause| LoopError::Io {
        path: path.to_path_buf(),
        cause,
    }
}
