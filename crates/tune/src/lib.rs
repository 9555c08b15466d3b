//! Texel tuning of the evaluation table: labelled positions are traced once into a compact
//! dataset, then coordinate descent minimises the squared error between game results and
//! `σ(K·eval)`.

pub mod adam;
mod checkpoint;
mod dataset;
mod descent;
mod engine;
pub mod error;
mod gradient;
mod guard;
mod job;
mod lab;
pub mod lab_report;
mod linear;
mod load;
mod load_phases;
pub mod log;
mod model;
mod run;
mod select;
pub mod settings;
mod touch;
mod traces;

pub use adam::{AdamState, Method};
pub use checkpoint::{fresh, table_fingerprint, Checkpoint, CheckpointError};
pub use dataset::{Dataset, DatasetFull, TableCache};
pub use descent::{Control, Cursor, Descent, DescentState, Guards, PassSummary, Variable};
pub use engine::{tune_engine, EngineTune, EngineTuneError, EngineTuned, Traceable};
pub use guard::{best_pull, L2Search, L2_GRID};
pub use job::{
    run_from, JobError, JobEvent, TuneData, TuneJob, DEFAULT_L2, DEFAULT_MIN_SUPPORT, L2,
};
pub use lab::{Errors, Lab, LabSpace, LabSubject, Subject, SubjectKind, Verdict};
pub use linear::{LinearDataset, BLOCK};
pub use load::{load, total_bytes, BadLines, LoadError, LoadOptions, LoadReport};
pub use load_phases::{load_phases, LoadPhases};
pub use model::{Model, Move, Values};
pub use run::{
    run, Event, PassRecord, RunEnd, RunError, RunOptions, RunResult, ADAM_EPOCHS, ADAM_RATE,
    AUTO_WARM_POSITIONS, WARM_SAMPLE,
};
pub use select::{select, select_in_space, Selection, SelectionError};
pub use settings::{SettingChanged, Settings};
pub use texel_trace;
pub use traces::{load_traces, TraceLoad};
