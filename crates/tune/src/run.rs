//! Multi-pass runs: validation with patience, a JSONL log of every pass, checkpoints written
//! atomically (every few minutes and when stopped) and exact resumption.

mod memory;
mod runner;
mod standing;
mod tuner;

use crate::checkpoint::CheckpointError;
use crate::log::PassKind;
pub use memory::run;
pub(crate) use runner::drive;
pub(crate) use runner::Methods;
use std::path::{Path, PathBuf};
use std::time::Instant;
use texel_solve::adam::Method;
use texel_solve::descent::{Descent, PassSummary};
use texel_solve::model::Model;
pub(crate) use tuner::Tuner;

/// How a run goes.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Stop after this many passes over all positions (a warm start's passes come on top).
    pub passes: usize,
    /// Stop when the validation error rose this many passes in a row (keeping the best).
    pub patience: Option<usize>,
    /// Append one JSON line per pass here.
    pub log: Option<PathBuf>,
    /// Write checkpoints here.
    pub checkpoint: Option<PathBuf>,
    /// Seconds between checkpoints.
    pub checkpoint_secs: f64,
    /// Newton then a coordinate polish, coordinate descent, Adam, or Adam then coordinate
    /// descent.
    pub method: Method,
    /// Adam's learning rate: the largest move of a value per epoch, in steps.
    pub adam_rate: f64,
    /// `adam+cd`: Adam epochs at most before coordinate descent takes over.
    pub adam_epochs: usize,
    /// Coordinate descent only: a fresh run first tunes about one segment in `n` of the
    /// training data ([`texel_solve::Model::sample`]) until a pass there lowers its error by
    /// less than `WARM_GAIN` (0.5 %), then goes on with all of it. `Some(0)` or `Some(1)`: no warm
    /// start; `None`: [`WARM_SAMPLE`] from [`AUTO_WARM_POSITIONS`] training positions on.
    pub warm_start: Option<usize>,
    /// When the run ends at the latest: the first pass that would begin later does not, and
    /// the run ends as a converged one does (values written, checkpoint removed).
    pub deadline: Option<Instant>,
    /// The polish after Newton ends after a round or pass that lowers the training error by
    /// less than this share of it; 0: when one moves nothing. `None`: each polish's own
    /// ([`LATTICE_POLISH_TOLERANCE`] for a trace's lattice polish, `POLISH_TOLERANCE` for
    /// texel's table's coordinate polish).
    pub polish_tolerance: Option<f64>,
}

impl RunOptions {
    /// Whether the deadline has passed.
    pub fn out_of_time(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

impl Default for RunOptions {
    /// At most 200 passes (a cap: a run ends by its method's own rule first), no patience,
    /// log or checkpoint, the default method (Newton) and lattice polish tolerance.
    fn default() -> RunOptions {
        RunOptions {
            passes: 200,
            patience: None,
            log: None,
            checkpoint: None,
            checkpoint_secs: 300.0,
            method: Method::default(),
            adam_rate: ADAM_RATE,
            adam_epochs: ADAM_EPOCHS,
            warm_start: None,
            deadline: None,
            polish_tolerance: None,
        }
    }
}

/// The automatic warm start's sample: about one segment in this many.
pub const WARM_SAMPLE: usize = 8;
/// Coordinate descent on at least this many training positions starts warm unless told
/// otherwise: the sample then holds 62,500 positions or more, about the shipped set, and
/// the descent reaches within 1 % of its final error in half the time with an error no
/// worse (`texel bench converge`, docs/speed.md).
pub const AUTO_WARM_POSITIONS: usize = 500_000;

impl RunOptions {
    /// The share a fresh run on `positions` training positions warm-starts on (about one
    /// segment in the number returned), if it does.
    pub fn warm_sample(&self, positions: usize) -> Option<usize> {
        if self.method != Method::Cd {
            return None;
        }
        match self.warm_start {
            Some(n) => (n > 1).then_some(n),
            None => (positions >= AUTO_WARM_POSITIONS).then_some(WARM_SAMPLE),
        }
    }
}

/// The warm start ends after a pass that lowered the sample's error by less than this
/// share, or after [`WARM_PASSES`] passes.
pub const WARM_GAIN: f64 = 0.005;
/// Passes of the warm start at most.
pub const WARM_PASSES: usize = 10;

/// Newton's coordinate polish (texel's table) ends after a pass that lowered the training
/// error by less than this share of it: its last passes move a value or two each for gains
/// a hundred times smaller than the Newton steps' rounding costs. The lattice polish of a
/// trace ends by [`LATTICE_POLISH_TOLERANCE`].
pub const POLISH_TOLERANCE: f64 = 1e-3;

/// A trace's lattice polish ends after a round that lowers the training error by less than
/// this share of it, a fifth of Newton's [`texel_solve::NEWTON_TOLERANCE`] (or when a round moves
/// nothing): its late rounds gain 10⁻⁷ to 10⁻⁶ of the error each, for a round's time.
/// Measured (2026-12-01): the race trace's rounds from Newton's end (0.03553845) gain 2.3,
/// 1.5, 0.9 and 0.8 ×10⁻⁵; it ends after the first two at 0.03553711, 1.41–1.47 × its time to
/// within 0.1 % of texel-tuner's end (at 10⁻⁵: one round more, 0.03553679, 1.48–1.52 ×),
/// where a polish to the end takes 8 more rounds to 0.03553556. Stash's problem of
/// `reports/nonlinear/` gains 8×10⁻⁶ in its first round and ends there, at 0.10631603 in
/// 11.0 s, where a polish to the end goes on for 24 more rounds, to 0.10631299.
pub const LATTICE_POLISH_TOLERANCE: f64 = 2e-5;

/// Adam's default learning rate (steps per epoch at most).
pub const ADAM_RATE: f64 = 2.0;
/// `adam+cd`'s default number of Adam epochs at most (it hands over sooner when Adam's
/// error stops changing).
pub const ADAM_EPOCHS: usize = 1000;

/// Where a pass is, at a safe point inside it.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Pass number (from 1).
    pub pass: usize,
    /// Variables walked in this pass.
    pub walked: usize,
    /// Variables in all.
    pub vars: usize,
    /// After the walk: variables whose stored gain still asks for a move (the pass ends
    /// when none is left).
    pub pending: usize,
    /// Moves in this pass.
    pub moves: u64,
    /// Current training error.
    pub error: f64,
    /// The pass tunes about one segment in `n` only (the warm start): the error is that
    /// sample's.
    pub sample: Option<usize>,
    /// A pass that takes every position at once (a Newton iteration, a polish round, an
    /// Adam epoch), said as it begins: it walks no variable one by one, and `error` is
    /// the one it starts from.
    pub whole: bool,
}

/// What a run reports while it works.
#[derive(Debug)]
pub enum Event<'e, M: Model> {
    /// A safe point inside a pass.
    Progress(Progress),
    /// A pass ended. Where the positions are in memory, the descent, its dataset scored
    /// with its parameters (the pass's result, not necessarily the best on validation);
    /// `None` where they are read from their file in every pass.
    Pass(&'e PassRecord, Option<&'e Descent<'e, M>>),
    /// A checkpoint was written.
    Checkpoint(&'e Path),
}

/// One line of the log.
#[derive(Clone, Debug, PartialEq)]
pub struct PassRecord {
    /// Pass number (from 1).
    pub pass: usize,
    /// Training error after the pass (recomputed from scratch).
    pub train_error: f64,
    /// Validation error after the pass, when a validation set exists.
    pub validation_error: Option<f64>,
    /// What the pass did.
    pub summary: PassSummary,
    /// Seconds since the run began (resumed runs count on).
    pub seconds: f64,
    /// The pass tuned about one segment in `n` only (the warm start): its training error
    /// is that sample's.
    pub sample: Option<usize>,
    /// A Newton iteration or an Adam pass: the training error of its real values,
    /// unrounded (the training error above is that of the values rounded).
    pub real_error: Option<f64>,
    /// What the pass was.
    pub kind: PassKind,
}

/// How a run ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// The method converged: a coordinate pass moved nothing, Newton's polish or Adam stopped
    /// paying (their tolerances).
    Converged,
    /// The pass limit was reached.
    PassLimit,
    /// The validation error rose for `patience` passes.
    Patience,
    /// Stopped from outside (Ctrl-C); the checkpoint holds the state.
    Interrupted,
    /// The time limit was reached: the run ended as a converged one does.
    TimeLimit,
}

/// The result of a run.
#[derive(Clone, Debug)]
pub struct RunResult<V> {
    /// The tuned parameters: the best on validation when a validation set exists (the
    /// start among them: never worse on validation than where the run began).
    pub params: V,
    /// Why it ended.
    pub end: RunEnd,
    /// Passes completed.
    pub passes: usize,
    /// The pass whose values [`RunResult::params`] are, chosen on validation (0: the start);
    /// `None` without validation (the last pass's), or where a checkpoint of an older
    /// texel did not say.
    pub best_pass: Option<usize>,
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The log could not be written.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
    /// A checkpoint could not be written, or does not fit the run.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// The positions read from their file in every pass could not be read.
    #[error(transparent)]
    Positions(Box<dyn std::error::Error + Send + Sync>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_sets_start_warm_unless_told_otherwise_and_only_with_cd() {
        let with = |method, warm_start| RunOptions {
            method,
            warm_start,
            ..RunOptions::default()
        };
        let (small, large) = (AUTO_WARM_POSITIONS - 1, AUTO_WARM_POSITIONS);
        assert_eq!(with(Method::Cd, None).warm_sample(small), None);
        assert_eq!(with(Method::Cd, None).warm_sample(large), Some(WARM_SAMPLE));
        for off in [Some(0), Some(1)] {
            assert_eq!(with(Method::Cd, off).warm_sample(large), None);
        }
        assert_eq!(with(Method::Cd, Some(3)).warm_sample(small), Some(3));
        for method in [Method::Adam, Method::AdamThenCd] {
            assert_eq!(with(method, None).warm_sample(large), None);
        }
    }
}

/// A setting a streamed tune does not have (it is Newton and its polish over the whole
/// trace): the CLI names each by its option.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Unstreamed {
    /// A method other than Newton's.
    Method,
    /// A warm start on a sample.
    WarmStart,
}

impl std::fmt::Display for Unstreamed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Unstreamed::Method => "a method other than Newton's",
            Unstreamed::WarmStart => "a warm start",
        })
    }
}
