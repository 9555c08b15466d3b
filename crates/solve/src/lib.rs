//! The solver under texel's tuner: for any [`Model`] — labelled positions whose evaluations
//! follow from integer [`Values`] — it minimises the mean squared error between each
//! position's label and `σ(K·eval)`: the sigmoid and the fit of `K` ([`error`]), the
//! Jacobian and the Gauss-Newton system its rows sum to ([`Jacobian`]), Newton's iteration
//! with its line search and saddle step ([`newton`]), the integer polish of the lattice,
//! coordinate descent ([`Descent`]) and Adam ([`adam`]). Sums never depend on the number of
//! threads. It knows no files, logs, checkpoints or command line: `texel-tune` builds runs
//! on it, and another engine's author can call it on positions held in their own program.
//!
//! # Tuning positions of your own
//!
//! Each position is a row of coefficients (how many centipawns its evaluation moves per
//! unit of each value: here the pawns and knights White has more than Black), a part no
//! value moves, and its result from White's view. [`LinearPositions`] holds them; a
//! [`Descent`] from a start minimises the error and hands back whole values.
//!
//! ```
//! use texel_solve::{Descent, LinearPositions, Model, Variable};
//!
//! // Values: 0 a pawn, 1 a knight. Positions: (pawns up, knights up, result).
//! let games = [(1.0, 0.0, 0.75), (-1.0, 0.0, 0.25), (0.0, 1.0, 0.9), (0.0, -1.0, 0.1),
//!              (2.0, -1.0, 0.35), (-2.0, 1.0, 0.65), (0.0, 0.0, 0.5), (1.0, 1.0, 1.0)];
//! let mut positions = LinearPositions::new(2);
//! for (pawns, knights, result) in games {
//!     positions.push(&[(0, pawns), (1, knights)], 0.0, result)?;
//! }
//! let start = vec![100, 300];
//! positions.rescore(&start);
//! let variables = (0..2).map(|slot| Variable { slot, step: 1 }).collect();
//! let mut descent = Descent::new(&mut positions, start, 1.0, variables);
//! let before = descent.error();
//! let end = descent.minimise(0.0);
//! assert!(end.error < before);
//! let [pawn, knight] = descent.params()[..] else { unreachable!() };
//! assert!(0 < pawn && pawn < knight, "{pawn} {knight}");
//! # Ok::<(), texel_solve::PositionError>(())
//! ```

pub mod adam;
pub mod descent;
pub mod error;
mod gradient;
pub mod jacobian;
pub mod l2;
mod minimise;
pub mod model;
pub mod newton;
pub mod polish;
mod positions;
mod sigmoid;
mod values;

pub use adam::{Method, ADAM_EPOCHS_PER_PASS, ADAM_TOLERANCE};
pub use descent::{
    AdamState, Cursor, Descent, DescentState, Guards, NewtonState, PassSummary, Variable,
};
pub use jacobian::{Exact, Hold, Jacobian, RowBuilder, RowSink, System};
pub use model::{Model, Move, Probes};
pub use newton::{COMPOSED_NEWTON_TOLERANCE, MAX_LIFTS, NEWTON_TOLERANCE};
pub use positions::{LinearPositions, PositionError};
pub use sigmoid::SigmoidTable;
pub use values::{centipawns, in_bounds, Values, SLACK, VALUE_BOUND};
