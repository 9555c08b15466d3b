//! What a run drives pass by pass: the positions in memory (a [`Descent`] and the held-out
//! set), or the positions read from their file in every pass (`crate::stream`). The run
//! around them — passes, limits, log, validation and patience, checkpoints, events, the
//! end — is written once, over this trait.

use super::RunError;
use texel_solve::descent::{Descent, DescentState, PassSummary};
use texel_solve::error::mean_error;
use texel_solve::model::Model;

/// The positions a run tunes on, answering its passes.
pub(crate) trait Tuner<'d> {
    /// The evaluation the positions are scored with.
    type Model: Model + 'd;

    /// One Newton iteration; `None` when the interrupt stopped it (nothing moved).
    ///
    /// # Errors
    /// The positions could not be read.
    fn newton_iteration(&mut self) -> Result<Option<PassSummary>, RunError>;

    /// One round of the integer polish on the lattice (`texel_solve::polish`); `None` when the
    /// interrupt stopped it (nothing moved).
    ///
    /// # Errors
    /// The positions could not be read.
    fn polish_round(&mut self) -> Result<Option<PassSummary>, RunError>;

    /// Whether Newton's polish is the lattice's (a trace) rather than coordinate descent.
    fn lattice_polish(&self) -> bool;

    /// The mean training error of the values now, from scratch.
    ///
    /// # Errors
    /// The positions could not be read.
    fn train_error(&mut self) -> Result<f64, RunError>;

    /// The mean error of the values now on the held-out positions (`None`: nothing is
    /// held out).
    ///
    /// # Errors
    /// The positions could not be read.
    fn validation_error(&mut self) -> Result<Option<f64>, RunError>;

    /// Newton iterations taken.
    fn newton_iterations(&self) -> u64;

    /// Whether Newton has handed over to the polish.
    fn newton_handed_over(&self) -> bool;

    /// Newton is done: the polish goes on from the rounded values.
    fn hand_over_to_polish(&mut self);

    /// The mean error of Newton's (or Adam's) real values, once an iteration ran.
    fn real_error(&self) -> Option<f64>;

    /// The mean training error now, as tracked (what a pass's progress shows).
    fn error(&self) -> f64;

    /// The values now.
    fn params(&self) -> &<Self::Model as Model>::Values;

    /// Everything needed to continue exactly from here.
    fn state(&self) -> DescentState<<Self::Model as Model>::Values>;

    /// Values tuned.
    fn variables(&self) -> usize;
}

/// The positions in memory: a descent over the training set, and the held-out set scored
/// after every pass.
pub(crate) struct MemoryTuner<'r, 'd, M: Model> {
    /// The descent over the training positions.
    pub descent: Descent<'d, M>,
    /// The held-out positions (may be empty).
    pub validation: &'r mut M,
}

impl<'d, M: Model> Tuner<'d> for MemoryTuner<'_, 'd, M> {
    type Model = M;

    fn newton_iteration(&mut self) -> Result<Option<PassSummary>, RunError> {
        Ok(Some(self.descent.newton_iteration()))
    }

    fn polish_round(&mut self) -> Result<Option<PassSummary>, RunError> {
        Ok(Some(self.descent.polish_round()))
    }

    fn lattice_polish(&self) -> bool {
        self.descent.dataset().lattice_polish()
    }

    fn train_error(&mut self) -> Result<f64, RunError> {
        Ok(self.descent.refresh())
    }

    fn validation_error(&mut self) -> Result<Option<f64>, RunError> {
        if self.validation.len() == 0 {
            return Ok(None);
        }
        self.validation.rescore(self.descent.params());
        Ok(Some(mean_error(self.validation, self.descent.k())))
    }

    fn newton_iterations(&self) -> u64 {
        self.descent.newton_iterations()
    }

    fn newton_handed_over(&self) -> bool {
        self.descent.newton_handed_over()
    }

    fn hand_over_to_polish(&mut self) {
        self.descent.hand_over_to_polish();
    }

    fn real_error(&self) -> Option<f64> {
        self.descent.real_error()
    }

    fn error(&self) -> f64 {
        self.descent.error()
    }

    fn params(&self) -> &M::Values {
        self.descent.params()
    }

    fn state(&self) -> DescentState<M::Values> {
        self.descent.state()
    }

    fn variables(&self) -> usize {
        self.descent.variables().len()
    }
}
