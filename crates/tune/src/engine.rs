//! The tuner as a library call for a Rust engine: implement [`Traceable`] (the parameter
//! space of the evaluation and the trace of one position) and [`tune_engine`] runs the whole
//! tuner on labelled positions: K fitted, validation, the L2 pull, coordinate descent or
//! Adam, checkpoints and the log when asked for.
//!
//! ```
//! use texel_tune::texel_trace::{Coef, Param, ParamSpace, TracedPosition};
//! use texel_tune::{tune_engine, EngineTune, Traceable};
//!
//! /// A one-value evaluation: so many centipawns per pawn White has more.
//! struct PawnCount;
//!
//! impl Traceable for PawnCount {
//!     type Position = i32; // White's pawns minus Black's
//!     fn space(&self) -> ParamSpace {
//!         let pawn = Param {
//!             name: "PAWN".into(),
//!             len: 1,
//!             tapered: false,
//!             default: vec![0],
//!             group: None,
//!             candidate: false,
//!         };
//!         ParamSpace::new(vec![pawn]).unwrap()
//!     }
//!     fn trace(&self, pawns: &i32) -> TracedPosition {
//!         TracedPosition {
//!             result: 0.5,
//!             score: None,
//!             phase: 1.0,
//!             scale: 1.0,
//!             coeffs: vec![Coef::Count(0, *pawns as f32)],
//!             ..TracedPosition::default()
//!         }
//!     }
//! }
//!
//! // Labels: the expected score of 100 centipawns a pawn (K = 1).
//! let positions: Vec<(i32, f32)> = (-3..=3)
//!     .map(|pawns| (pawns, 1.0 / (1.0 + 10f32.powf(-(pawns * 100) as f32 / 400.0))))
//!     .collect();
//! let mut tune = EngineTune::default();
//! tune.settings.k = Some(1.0);
//! let tuned = tune_engine(&PawnCount, &positions, &tune).unwrap();
//! assert_eq!(tuned.values, vec![100]);
//! ```

use crate::job::{JobError, TuneData, TuneJob};
use crate::lambda::Lambda;
use crate::select::{select_in_space, Selection, SelectionError};
use crate::settings::TuneSettings;
use crate::settings::L2;
use crate::traces::{held_split, split_sets};
use std::sync::atomic::AtomicBool;
use texel_data::HeldOut;
use texel_solve::error::{mean_error, samples, take_k, UnfitK};
use texel_solve::model::Model;
use texel_trace::{ParamSpace, TracedPosition};

/// An evaluation a Rust engine lets the tuner see: its parameters, and what each one
/// contributes to a position's evaluation: `offset + Σ coefficient · value`, tapered values
/// weighted by the phase, and where the evaluation is not linear (king safety's clamped
/// square, a part weighed by a parameter, a complexity moving the endgame score) the inner
/// sums the space's inner terms declare (`docs/trace-format.md`).
pub trait Traceable: Sync {
    /// What the engine evaluates: its board type, or anything that stands for a position.
    type Position: Sync;

    /// The parameter space: names, shapes, defaults, groups.
    fn space(&self) -> ParamSpace;

    /// The trace of one position: phase, scale, the part that is not tuned, and the
    /// coefficients. Its `result` is ignored (the label comes with the position).
    fn trace(&self, position: &Self::Position) -> TracedPosition;
}

/// How [`tune_engine`] tunes.
#[derive(Clone, Debug)]
pub struct EngineTune {
    /// Which parameters move (by name and group; all by default).
    pub selection: Selection,
    /// The values to start from (the space's defaults when `None`).
    pub start: Option<Vec<i32>>,
    /// Positions in 1,000 held out for validation (0: none).
    pub held_out: HeldOut,
    /// How the tune runs: K (fitted to the start's evaluations when `None`), the guards,
    /// passes, method, log, checkpoint (in memory: `stream` is not read).
    pub settings: TuneSettings,
}

impl Default for EngineTune {
    /// Every parameter, from the defaults, K fitted, no validation, no pull, every value
    /// tuned however few positions it counts in, the default run (Newton, then the polish).
    fn default() -> Self {
        EngineTune {
            selection: Selection::default(),
            start: None,
            held_out: HeldOut::NONE,
            settings: TuneSettings {
                min_support: 0,
                l2: L2::Fixed(0.0),
                constraints: false,
                ..TuneSettings::default()
            },
        }
    }
}

/// What [`tune_engine`] found.
#[derive(Clone, Debug)]
pub struct EngineTuned {
    /// The parameter space tuned.
    pub space: ParamSpace,
    /// The tuned values, flat (see [`ParamSpace::to_json`] for the name → values form).
    pub values: Vec<i32>,
    /// K of the run.
    pub k: f64,
    /// Mean training error at the start and at the end.
    pub errors: (f64, f64),
    /// Passes made.
    pub passes: usize,
}

/// Why [`tune_engine`] could not tune.
#[derive(Debug, thiserror::Error)]
pub enum EngineTuneError {
    /// The selection names what the space does not have, or nothing.
    #[error(transparent)]
    Selection(#[from] SelectionError),
    /// The start has another number of values than the space.
    #[error("the start has {found} values, the space {expected}")]
    Start {
        /// Values of the space.
        expected: usize,
        /// Values given.
        found: usize,
    },
    /// No position to tune on.
    #[error("no labelled position to tune on")]
    NoPositions,
    /// K cannot be fitted to the start's evaluations.
    #[error(transparent)]
    K(#[from] UnfitK),
    /// The run failed (log or checkpoint).
    #[error(transparent)]
    Run(#[from] JobError),
}

/// Traces `positions` (each with its label: White's score, 0 to 1) with `engine` and tunes
/// its parameters as `tune` says.
///
/// # Errors
/// A bad selection or start, no positions, a K that cannot be fitted, or a log or
/// checkpoint that cannot be written.
pub fn tune_engine<E: Traceable>(
    engine: &E,
    positions: &[(E::Position, f32)],
    tune: &EngineTune,
) -> Result<EngineTuned, EngineTuneError> {
    use rayon::prelude::*;
    let space = engine.space();
    let vars = select_in_space(&space, &tune.selection)?;
    let start = tune.start.clone().unwrap_or_else(|| space.defaults());
    if start.len() != space.value_count() {
        return Err(EngineTuneError::Start {
            expected: space.value_count(),
            found: start.len(),
        });
    }
    let traced: Vec<TracedPosition> = positions
        .par_iter()
        .map(|(position, label)| TracedPosition {
            result: *label,
            ..engine.trace(position)
        })
        .collect();
    let Ok((held, _)) = held_split(traced.as_slice(), tune.held_out);
    let Ok(split) = split_sets(&space, traced.as_slice(), &held, (&start, Lambda::RESULTS));
    let (train_set, validation_set) = (split.train, split.validation);
    if train_set.len() == 0 {
        return Err(EngineTuneError::NoPositions);
    }
    let k = take_k(tune.settings.k, &samples(&train_set))?.k;
    let before = mean_error(&train_set, k);
    let mut data = TuneData {
        train: train_set,
        validation: validation_set,
        k,
        fingerprint: 0,
        labels: None,
    };
    let job = TuneJob {
        settings: tune.settings.clone(),
        ..TuneJob::new(start, vars)
    };
    let name = |slot: usize| space.value_name(slot).unwrap_or_default();
    let result = job
        .run(&mut data, &name, &AtomicBool::new(false), &mut |_| {})?
        .result;
    let mut train_set = data.train;
    train_set.rescore(&result.params);
    Ok(EngineTuned {
        errors: (before, mean_error(&train_set, k)),
        space,
        values: result.params,
        k,
        passes: result.passes,
    })
}
