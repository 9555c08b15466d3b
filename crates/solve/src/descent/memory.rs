//! What each method keeps between the passes of a descent: Adam's moments, Newton's real
//! values and damping, the polish's last probes. The first two are written in checkpoints;
//! the methods' own modules (`crate::adam`, `crate::newton`, `crate::polish`) read and
//! move them.

use serde::{Deserialize, Serialize};

/// Adam's memory, one entry per tuned variable.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AdamState {
    /// The real values, in units of the table (the table holds them rounded).
    pub values: Vec<f64>,
    /// Running mean of the gradient.
    pub mean: Vec<f64>,
    /// Running mean of the squared gradient.
    pub square: Vec<f64>,
    /// Epochs taken.
    pub epochs: u64,
    /// `adam+cd`: Adam is done and coordinate descent has taken over.
    pub handed_over: bool,
    /// The mean error of the unrounded evaluation at `values`, after the last pass.
    pub error: Option<f64>,
    /// The last pass changed that error by less than `crate::ADAM_TOLERANCE` of it.
    pub converged: bool,
}

/// The Newton phase's memory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NewtonState {
    /// Every tuned variable's real value, by variable.
    pub values: Vec<f64>,
    /// Marquardt's damping for the next iteration.
    pub damping: f64,
    /// Iterations taken.
    pub iterations: u64,
    /// The mean error of the unrounded evaluation at `values`.
    pub error: f64,
    /// Newton is done: the values were rounded and the polish moves them.
    pub handed_over: bool,
    /// The real values (by variable) where the Hessian the next iteration reuses was
    /// taken, and its damping; `None` when the next iteration takes a fresh one.
    pub chord: Option<(Vec<f64>, f64)>,
    /// The real values (by variable) where the last Hessian of a phase linear throughout
    /// was taken, and its damping: the first step at a path's next pull reuses it
    /// ([`NewtonState::restarted`]).
    pub hessian_at: Option<(Vec<f64>, f64)>,
    /// The values the evaluation is not linear in are held for the polish (a secant step
    /// failed its exact check, or brought too little of the fall it promised).
    pub curves_held: bool,
    /// Times the phase tried to step off a saddle (`crate::newton`), at most `crate::MAX_LIFTS`.
    pub lifts: u32,
}

/// A reading's probes, kept for the next: the moves asked, the change of each, and the
/// scoring of the positions they were read at.
#[derive(Clone, Debug)]
pub struct Probed {
    /// The scoring of the positions the probes read.
    pub scoring: u64,
    /// The moves probed: slot and step.
    pub moves: Vec<(usize, i32)>,
    /// The change of the summed error each move makes.
    pub changes: Vec<f64>,
}
