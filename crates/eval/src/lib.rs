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
pub mod formula;
pub mod packed;
pub mod params;
pub mod records;
mod score;
pub mod table;
mod terms;
pub mod varint;

pub use accumulate::{Accumulator, Breakdown, Coef, CurveCoef, Evaluator, Trace, Tracer};
pub use curve::Curve;
pub use formula::Formulas;
pub use params::{Params, TermId};
pub use score::{phase, taper, FULL_SCALE, MAX_PHASE, S};
pub use terms::evaluate_with;

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

/// Why a FEN does not give a position.
#[derive(Debug, thiserror::Error)]
pub enum FenError {
    /// Not a FEN.
    #[error("invalid FEN {fen:?}: {cause}")]
    Syntax {
        /// The text.
        fen: String,
        /// What is wrong with it.
        cause: shakmaty::fen::ParseFenError,
    },
    /// A FEN of a position that cannot occur.
    #[error("illegal position {fen:?}: {cause}")]
    Illegal {
        /// The text.
        fen: String,
        /// Why the position is illegal.
        cause: Box<shakmaty::PositionError<Chess>>,
    },
}

/// Parses a FEN into a legal position.
///
/// # Errors
/// The FEN's syntax, or a position that cannot occur.
pub fn parse_fen(fen: &str) -> Result<Chess, FenError> {
    let parsed: shakmaty::fen::Fen = fen.trim().parse().map_err(|cause| FenError::Syntax {
        fen: fen.to_string(),
        cause,
    })?;
    parsed
        .into_position(shakmaty::CastlingMode::Standard)
        .map_err(|cause| FenError::Illegal {
            fen: fen.to_string(),
            cause: Box::new(cause),
        })
}
