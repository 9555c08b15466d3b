//! texel's own evaluation as a model the tuner moves: labelled EPD positions are read in
//! parallel, traced once under the table, and kept as compact segments of sparse
//! coefficients ([`Dataset`]), with the exact incremental probes the curves and formulas
//! of the table need. The tuner core (`texel_tune`) sees it only through its `Model` and
//! `Jacobian` traits, as it sees any outside engine's trace.
//!
//! ```no_run
//! use std::path::PathBuf;
//! use texel_dataset::{load, select, LoadOptions};
//! use texel_tune::Selection;
//!
//! let params = texel_eval::Params::default();
//! let held_out = texel_data::HeldOut::share(100);
//! let options = LoadOptions { held_out, ..LoadOptions::default() };
//! let files = [PathBuf::from("data/train.epd")];
//! let (train, validation, report) = load(&files, &params, &options, &|_bytes| {})?;
//! println!("{} training, {} validation positions", train.len(), validation.len());
//! let knights = select(&Selection { groups: vec!["KnightV".into()], ..Selection::default() })?;
//! println!("{} values to tune, data {:016x}", knights.len(), report.fingerprint);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod blend;
mod dataset;
mod file_labels;
mod load;
mod load_phases;
mod select;
mod sources;
mod subject;
mod touch;

pub use blend::{blended_target, Blend};
pub use dataset::{Dataset, DatasetFull, TableCache};
pub use file_labels::FileLabels;
pub use load::{load, load_until, total_bytes, BadLines, LoadError, LoadOptions, LoadReport};
pub use load_phases::{load_phases, LoadPhases};
pub use select::select;
pub use sources::{
    Filters, Mix, Side, Source, SourceTaken, SourcesError, SourcesFile, SOURCES_VERSION,
};
pub use subject::TableSubject;
