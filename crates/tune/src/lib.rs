//! Texel tuning of the evaluation table: labelled positions are traced once into a compact
//! dataset, then coordinate descent minimises the squared error between game results and
//! `σ(K·eval)`.

mod dataset;
mod descent;
pub mod error;
mod load;
mod select;
mod varint;

pub use dataset::{Dataset, DatasetBuilder};
pub use descent::{retrace_all, Descent, PassSummary, Variable};
pub use load::{load, total_bytes, BadLines, LoadError, LoadOptions, LoadReport};
pub use select::{select, Selection, SelectionError};
