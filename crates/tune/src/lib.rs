//! The tuner core: whatever evaluation a [`Model`] describes (texel's own table in
//! `texel_dataset`, any engine's linear evaluation read from a trace as [`LinearDataset`]),
//! it minimises the squared error between game results and `σ(K·eval)`: Newton steps in
//! real values, Adam, coordinate descent as the integer polish, the over-fitting guards,
//! checkpoints that resume, and a whole tune as one library call ([`TuneJob`]).
//!
//! A whole tune of texel's table from Rust, as `texel tune --epd data/train.epd --validate
//! 10 --group KnightV --out runs/knights.json` does it (the binary adds progress bars,
//! checkpoints named after the outputs, the report page and Ctrl-C):
//!
//! ```no_run
//! use std::path::{Path, PathBuf};
//! use texel_tune::error::{fit_k, samples};
//! use texel_dataset::{load, select, LoadOptions};
//! use texel_tune::{Control, Event, JobEvent, Selection, TuneData, TuneJob};
//!
//! let params = texel_eval::Params::default();
//! let options = LoadOptions { validation_per_mille: 100, ..LoadOptions::default() };
//! let files = [PathBuf::from("data/train.epd")];
//! let (train, validation, report) = load(&files, &params, &options, &|_bytes| {})?;
//! let k = fit_k(&samples(&train));
//! let mut data = TuneData { train, validation, k, fingerprint: report.fingerprint };
//! let knights = Selection { groups: vec!["KnightV".into()], ..Selection::default() };
//! let job = TuneJob::new(params, select(&knights)?);
//! let name = |slot: usize| texel_eval::params::flat_params()[slot].name();
//! let tuned = job.run(&mut data, &name, &mut |event| {
//!     if let JobEvent::Run(Event::Pass(pass, _)) = &event {
//!         println!("pass {}: error {:.6}", pass.pass, pass.train_error);
//!     }
//!     Control::Continue
//! })?;
//! tuned.result.params.save(Path::new("runs/knights.json"))?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod adam;
mod checkpoint;
mod descent;
mod engine;
pub mod error;
mod gradient;
mod guard;
mod job;
mod linear;
pub mod log;
mod model;
pub mod newton;
mod run;
mod select;
mod traces;

pub use adam::{AdamState, Method, ADAM_EPOCHS_PER_PASS, ADAM_TOLERANCE};
pub use checkpoint::{fresh, Checkpoint, CheckpointError};
pub use descent::{Control, Cursor, Descent, DescentState, Guards, PassSummary, Variable};
pub use engine::{tune_engine, EngineTune, EngineTuneError, EngineTuned, Traceable};
pub use guard::{best_pull, L2Search, L2_GRID};
pub use job::{
    run_from, JobError, JobEvent, TuneData, TuneJob, Tuned, DEFAULT_L2, DEFAULT_MIN_SUPPORT, L2,
};
pub use linear::{LinearDataset, BLOCK};
pub use model::{Jacobian, Model, Move, Values};
pub use newton::{NewtonState, RowBuilder, RowSink, NEWTON_TOLERANCE};
pub use run::{
    run, Event, PassRecord, RunEnd, RunError, RunOptions, RunResult, ADAM_EPOCHS, ADAM_RATE,
    AUTO_WARM_POSITIONS, WARM_SAMPLE,
};
pub use select::{select_in_space, Selection, SelectionError};
pub use texel_trace;
pub use traces::{load_traces, TraceLoad};
