//! What a tune reports on its way, in memory or streamed: its beginning (values held, the
//! path of pulls, a fresh start or a checkpoint continued) and then the run's own events.

use crate::lambda::{LambdaChoice, LambdaPoint};
use crate::path::{PathWalk, PullChoice, PullPoint};
use crate::run::Event;
use texel_solve::descent::{Guards, Variable};
use texel_solve::model::Model;

/// What a tune reports on its way.
pub enum JobEvent<'e, M: Model> {
    /// Values held at their start: they count in fewer than `min_support` positions.
    Held {
        /// The values held.
        held: Vec<Variable>,
        /// The support they lack.
        min_support: usize,
    },
    /// The solve of a pull of `L2::Auto`'s path begins.
    PullSolving(f64),
    /// A pull of `L2::Auto`'s path solved.
    Pull(PullPoint),
    /// The pull `L2::Auto` chose, and how.
    PullChosen(PullChoice),
    /// The solve of a λ of `Lambda::Auto`'s path begins.
    LambdaSolving(f64),
    /// A λ of `Lambda::Auto`'s path solved.
    Lambda(LambdaPoint),
    /// The λ `Lambda::Auto` chose, and how.
    LambdaChosen(LambdaChoice),
    /// A fresh start: the variables tuned and the guards.
    Fresh(usize, Guards),
    /// A checkpoint continued after its passes, with its variables.
    Resumed(usize, usize),
    /// A run stopped on its paths resumed on the walk it was on, after that walk's steps
    /// solved (told again as they were solved, then the walk goes on).
    ResumedOnPath(PathWalk, usize),
    /// The run's own event; what the callback returns stops or continues the run.
    Run(Event<'e, M>),
}
