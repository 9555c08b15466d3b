//! Hand-crafted chess evaluation in which every term is a named, tunable parameter.
//!
//! * [`table`] declares every term once: name, group, shape, default, step and doc.
//! * [`Params`] holds a full set of values; [`evaluate`] scores a position with them.
//! * The same evaluation code runs with any [`Accumulator`]: [`Evaluator`] sums values,
//!   [`Tracer`] records per parameter the white-minus-black coefficient (for the tuner) and
//!   [`Breakdown`] the contribution of every term (for `texel eval`).
//!
//! ```
//! use texel_eval::{evaluate, Params};
//! let pos = shakmaty::Chess::default();
//! assert_eq!(evaluate(&pos, &Params::default()), 0);
//! ```

mod accumulate;
pub mod curve;
mod eval;
pub mod formula;
pub mod params;
mod score;
pub mod table;
pub mod varint;

pub use accumulate::{Accumulator, Breakdown, Coef, CurveCoef, Evaluator, Trace, Tracer};
pub use curve::Curve;
pub use eval::evaluate_with;
pub use formula::Formulas;
pub use params::{Params, TermId};
pub use score::{phase, taper, FULL_SCALE, MAX_PHASE, S};

use shakmaty::Chess;

/// Scores `pos` in centipawns from white's point of view.
pub fn evaluate(pos: &Chess, params: &Params) -> i32 {
    let mut acc = Evaluator::new(params);
    evaluate_with(pos, &mut acc);
    acc.score()
}

/// Records the coefficients of every parameter for `pos` (see [`Trace`]).
pub fn trace(pos: &Chess, params: &Params) -> Trace {
    Tracer::new(params).trace(pos)
}

/// 2,000 varied positions sampled from engine games (`data/positions.fen`), one FEN per
/// line: the fixed set for benchmarks and whole-table tests.
pub const SAMPLE_POSITIONS: &str = include_str!("../../../data/positions.fen");

/// Parses a FEN into a legal position.
///
/// # Errors
/// A one-line description of what is wrong with the FEN or the position.
pub fn parse_fen(fen: &str) -> Result<Chess, String> {
    let parsed: shakmaty::fen::Fen = fen
        .trim()
        .parse()
        .map_err(|e| format!("invalid FEN {fen:?}: {e}"))?;
    parsed
        .into_position(shakmaty::CastlingMode::Standard)
        .map_err(|e| format!("illegal position {fen:?}: {e}"))
}
