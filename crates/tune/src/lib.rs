//! The tuner core: whatever evaluation a [`texel_solve::Model`] describes (texel's own table in
//! `texel_dataset`, any engine's evaluation read from a trace as [`TraceDataset`]),
//! it minimises the squared error between game results and `σ(K·eval)`: Newton steps in
//! real values, Adam, coordinate descent, the integer polish of a trace (in memory and
//! streamed alike), the over-fitting guards,
//! checkpoints that resume, a tune on loaded data ([`TuneJob`]) and a whole tune on files
//! as one library call ([`Session`] over a [`Subject`]: outputs, lock, resume, load, K,
//! the tune, the values written).
//!
//! A whole tune of texel's table from Rust, as `texel tune --epd data/train.epd --validate
//! 10 --group KnightV --out runs/knights.json` does it (the binary adds progress bars, the
//! report page and Ctrl-C):
//!
//! ```no_run
//! use std::path::PathBuf;
//! use texel_dataset::{select, LoadOptions, TableSubject};
//! use texel_tune::{Event, JobEvent, Outputs, Selection, Session, SessionEvent};
//!
//! let knights = Selection { groups: vec!["KnightV".into()], ..Selection::default() };
//! let subject = TableSubject {
//!     files: vec![PathBuf::from("data/train.epd")],
//!     options: LoadOptions { held_out: texel_data::HeldOut::share(100), ..LoadOptions::default() },
//!     given: texel_eval::Params::default(),
//!     vars: select(&knights)?,
//!     rust: None,
//! };
//! let session = Session::new(subject, Outputs::new(PathBuf::from("runs/knights.json")));
//! // Raised (from any thread: a Ctrl-C handler, a deadline), the tune stops at its next
//! // safe point and keeps its checkpoint.
//! let interrupt = std::sync::atomic::AtomicBool::new(false);
//! let ended = session.run(&interrupt, &|_bytes| {}, &mut |event| {
//!     if let SessionEvent::Job(JobEvent::Run(Event::Pass(pass, _))) = &event {
//!         println!("pass {}: error {:.6}", pass.pass, pass.train_error);
//!     }
//! })?;
//! println!("{} values changed", ended.tuned.changes.len());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod begin;
mod checkpoint;
mod end;
mod engine;
mod events;
mod holding;
mod job;
mod lambda;
pub mod log;
mod outputs;
mod path;
mod run;
mod select;
mod session;
mod settings;
mod stream;
mod trace_subject;
mod traces;

pub use begin::{NothingToTune, StoppedOnPath};
pub use checkpoint::{fresh, Checkpoint, CheckpointError, Mismatch, RunKind};
pub use end::{LogError, Tuned};
pub use engine::{tune_engine, EngineTune, EngineTuneError, EngineTuned, Traceable};
pub use events::JobEvent;
pub use holding::{default_budget, in_memory_need, Holding, StreamPlan, StreamWhy};
pub use job::{JobError, TuneData, TuneJob};
pub use lambda::{
    walking_words, Lambda, LambdaChoice, LambdaError, LambdaPoint, ScoredLabels, LAMBDA_PATH,
    SCORED_LAMBDA,
};
pub use outputs::{Cleared, OutputError, Outputs};
pub use path::{
    OnPath, PathStep, PathWalk, PullChoice, PullPoint, Walking, PATIENCE, PULL_PATH, WHOLE_STEPS,
};
pub use run::{
    run, Event, PassRecord, Progress, RunEnd, RunError, RunOptions, RunResult, Unstreamed,
    ADAM_EPOCHS, ADAM_RATE, AUTO_WARM_POSITIONS, LATTICE_POLISH_TOLERANCE, WARM_SAMPLE,
};
pub use select::{select_in_space, Selection, SelectionError};
pub use session::{
    load_data, EndData, Ended, LoadedData, Opening, Positions, RunFiles, Session, SessionError,
    SessionEvent, Subject, SubjectError,
};
pub use settings::{Streaming, TuneSettings, DEFAULT_L2, DEFAULT_MIN_SUPPORT, L2};
pub use stream::{tune_streamed, Labels, StreamError, StreamEvent, StreamRun, Streamed};
pub use texel_linear::{TraceDataset, BLOCK};
pub use texel_trace;
pub use trace_subject::TraceSubject;
pub use traces::{load_traces, survey_trace, target, TraceLoad, TraceSubjectError, TraceSurvey};
