//! Any engine's evaluation as a [`Model`](texel_solve::model::Model), read from a trace
//! (`docs/trace-format.md`), in two types and the one that chooses between them:
//!
//! - [`LinearDataset`]: an evaluation linear in its values — whole counts and weights in
//!   columns, a block of positions at a time;
//! - [`ComposedDataset`]: one that composes inner sums (king safety, complexity), which
//!   holds a linear dataset and the positions' inner sums and answers only what composes;
//! - [`TraceDataset`]: whichever of the two a trace's space needs.
//!
//! The floors: the ground (`layout`, `zeros`, `bytes`, `rescoring`), the linear dataset on
//! it, the composed one on the linear one, the trace's choice on top.

mod bytes;
mod composed;
mod layout;
mod linear;
mod rescoring;
mod trace;
mod zeros;

pub use composed::ComposedDataset;
pub use layout::BLOCK;
pub use linear::LinearDataset;
pub use trace::TraceDataset;
