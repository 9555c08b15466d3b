//! Parameter spaces of any evaluation and the texel-trace format (`docs/trace-format.md`):
//! a header naming the parameters, then per position its result, phase, scale, the part of
//! the evaluation that is not tuned, and the coefficient of every parameter entry it uses.
//! An engine in any language writes it; the tuner reads it.

mod binary;
mod bytes;
mod exact;
mod inner;
mod lines;
mod source;
mod space;
pub mod template;
mod text;
mod values_file;

pub use binary::{
    is_binary, read_binary, read_space, read_trace, write_binary, BinaryTrace, MAGIC,
};
pub use exact::{exact_fraction, is_zero_end, MAX_DENOMINATOR};
pub use inner::{complexity_moved, inner_eval, Curve, InnerSum, InnerTerm, Shape};
pub use source::PositionSource;
pub use space::{Param, ParamSpace, SpaceError, MAX_VALUES};
pub use texel_solve::{centipawns, in_bounds, Values, SLACK, VALUE_BOUND};
pub use text::{
    header_line, position_line, write_trace, Coef, TraceError, TraceReader, TracedPosition, FORMAT,
    VERSION,
};
pub use values_file::ValuesFileError;
