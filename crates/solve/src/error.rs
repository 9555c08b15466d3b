//! The squared W/D/L error of a model's positions, in whole centipawns or at real values
//! moved along its Jacobian, and the fit of `K`.

use crate::jacobian::rows::add_in_order;
use crate::model::Model;
pub use crate::sigmoid::{
    chunked_sum, error_slope, real_sigmoid, sigmoid, squared_error, SigmoidTable, CHUNK,
};
pub use crate::sigmoid::{error_units, ERROR_UNITS};
use rayon::prelude::*;

/// Mean squared error of the dataset's cached evaluations.
pub fn mean_error<M: Model>(ds: &M, k: f64) -> f64 {
    if ds.len() == 0 {
        return 0.0;
    }
    chunked_sum(ds.len(), |i| squared_error(k, ds.eval(i), ds.target(i))) / ds.len() as f64
}

/// The `K` that minimises the mean error of `(q, target)` pairs: a coarse scan of
/// 0.05..=3.0, then steps ten times finer around the best value until the step is 1e-4.
pub fn fit_k(samples: &[(i32, f64)]) -> f64 {
    let error = |k: f64| {
        chunked_sum(samples.len(), |i| {
            squared_error(k, samples[i].0, samples[i].1)
        })
    };
    let (mut best, mut best_error) = (1.0, f64::INFINITY);
    let mut step = 0.05;
    let (mut lo, mut hi) = (step, 3.0);
    while step >= 1e-4 {
        let mut k = lo;
        while k <= hi + 1e-12 {
            let e = error(k);
            if e < best_error {
                (best, best_error) = (k, e);
            }
            k += step;
        }
        (lo, hi) = ((best - step).max(step / 10.0), best + step);
        step /= 10.0;
    }
    best
}

/// The K a tune uses when the starting values evaluate (about) nothing, so that no K can be
/// fitted to them: at K 1 an evaluation of 400 centipawns expects 10:1 (σ = 10/11), the
/// Texel method's base-10 convention, and the tuned values come out in centipawns.
pub const CONVENTIONAL_K: f64 = 1.0;

/// Under this mean distance from zero (centipawns) the starting values evaluate about
/// nothing: an all-zero start, perhaps with a tempo bonus or a rounding offset.
pub const MIN_MEAN_EVAL: f64 = 50.0;

/// The fitted K must lower the error at least this share below its value at K = 0 (every
/// position expected to score ½); under it the error curve over K is flat and the fit
/// only finds noise.
pub const MIN_K_GAIN: f64 = 0.02;

/// Below this `K` the fit says the evaluations are far larger than the results follow:
/// the sigmoid has to shrink them about fifty times and more to match the results.
pub const MIN_FITTED_K: f64 = 0.02;

/// From here on the fit sits at the top of its search range: the results follow the
/// evaluations more steeply than any centipawn scale would.
pub const MAX_FITTED_K: f64 = 3.0;

/// From this mean distance from zero (centipawns: ten pawns on average) evaluations that
/// fit a `K` under [`MIN_FITTED_K`] are saturated, not merely unlike their labels.
pub const SATURATED_MEAN_EVAL: f64 = 1000.0;

/// How the K of a tune was chosen when none was given.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KChoice {
    /// Fitted to the evaluations under the starting values.
    Fitted(f64),
    /// [`CONVENTIONAL_K`]: the starting values evaluate about nothing (their mean distance
    /// from zero, centipawns), so no K can be fitted to them.
    Conventional(f64),
}

impl KChoice {
    /// The K chosen.
    pub fn k(self) -> f64 {
        match self {
            KChoice::Fitted(k) => k,
            KChoice::Conventional(_) => CONVENTIONAL_K,
        }
    }

    /// How K was chosen, in words (without `--k`: the caller names its own way to give K).
    pub fn describe(self) -> String {
        match self {
            KChoice::Fitted(k) => format!("fitted K = {k:.4}"),
            KChoice::Conventional(mean) => format!(
                "K = {CONVENTIONAL_K} by convention: the starting values evaluate about nothing \
                 (the evaluations average {mean:.1} centipawns from zero), so K cannot be \
                 fitted to them; at K {CONVENTIONAL_K} the tuned values come out in centipawns \
                 (400 centipawns ahead expects 10:1)"
            ),
        }
    }
}

/// Why `K` cannot be fitted to the evaluations under the starting values.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum UnfitK {
    /// The results do not follow the evaluations: the fitted `K`, the share of the error
    /// it removes, and the evaluations' mean distance from zero.
    #[error(
        "the results do not follow the evaluations under the starting values (averaging \
         {mean:.0} centipawns from zero): the best K, {k:.4}, lowers the error by {:.1} % \
         from evaluating nothing (K fits at the bottom of its range or the error over K is \
         flat). Likely causes: labels from the side to move's view read as White's, or the \
         other way round; scores or other numbers in place of game results. Give K to tune \
         anyway",
        100.0 * gain.max(0.0)
    )]
    Unrelated {
        /// The fitted `K`.
        k: f64,
        /// `1 − error(K) / error(0)`.
        gain: f64,
        /// The evaluations' mean distance from zero.
        mean: f64,
    },
    /// The evaluations are saturated: the fitted `K` and their mean distance from zero.
    #[error(
        "K fits at {k:.4} (under {MIN_FITTED_K}): the evaluations under the starting values \
         (averaging {mean:.0} centipawns from zero) are far larger than the results follow, \
         and a tune would only shrink them; are the values centipawns? Give K to tune anyway"
    )]
    Saturated {
        /// The fitted `K`.
        k: f64,
        /// The evaluations' mean distance from zero.
        mean: f64,
    },
    /// The fit ends at the top of its range: the fitted `K`.
    #[error(
        "K fits at {0:.4}, the top of its range: the results follow the evaluations under \
         the starting values more steeply than centipawns do. Likely causes: evaluations in \
         a unit larger than a centipawn; starting values far smaller than the results call \
         for (a tune at that K keeps them so); labels that are scores, not game results. \
         Give K to tune anyway"
    )]
    AtTop(f64),
}

/// The K to tune with when none is given: [`fit_k`]'s, unless the fit cannot be trusted.
/// A start that evaluates about nothing (mean distance from zero under [`MIN_MEAN_EVAL`])
/// whose fit is flat or at a bound of its range takes [`CONVENTIONAL_K`]; any other start
/// whose fit is flat (gain under [`MIN_K_GAIN`]) or at a bound is refused.
///
/// # Errors
/// [`UnfitK`], with what was measured.
pub fn choose_k(samples: &[(i32, f64)]) -> Result<KChoice, UnfitK> {
    let n = samples.len().max(1) as f64;
    let mean = chunked_sum(samples.len(), |i| f64::from(samples[i].0.unsigned_abs())) / n;
    let k = fit_k(samples);
    let error = |k: f64| {
        chunked_sum(samples.len(), |i| {
            squared_error(k, samples[i].0, samples[i].1)
        })
    };
    let at_zero = error(0.0);
    let gain = if at_zero > 0.0 {
        1.0 - error(k) / at_zero
    } else {
        0.0
    };
    let untrusted = gain < MIN_K_GAIN || !(MIN_FITTED_K..MAX_FITTED_K).contains(&k);
    if !untrusted {
        Ok(KChoice::Fitted(k))
    } else if mean < MIN_MEAN_EVAL {
        Ok(KChoice::Conventional(mean))
    } else if k < MIN_FITTED_K && mean >= SATURATED_MEAN_EVAL {
        Err(UnfitK::Saturated { k, mean })
    } else if k >= MAX_FITTED_K {
        Err(UnfitK::AtTop(k))
    } else {
        Err(UnfitK::Unrelated { k, gain, mean })
    }
}

/// K as every run takes it: the one given, or the one [`choose_k`] chooses; and the
/// warning of [`saturation_warning`] where the start's evaluations saturate at it.
#[derive(Clone, Debug, PartialEq)]
pub struct KTaken {
    /// The K the run tunes at.
    pub k: f64,
    /// How it was chosen, when it was not given.
    pub chosen: Option<KChoice>,
    /// The start's evaluations saturate at it.
    pub warning: Option<String>,
}

/// The one K policy of a run, in memory or streamed, texel's or a Rust engine's: `given`,
/// or chosen on `samples` (the start's evaluations and targets of the first [`K_SAMPLE`]
/// training positions).
///
/// # Errors
/// No K is given and none can be chosen ([`choose_k`]).
pub fn take_k(given: Option<f64>, samples: &[(i32, f64)]) -> Result<KTaken, UnfitK> {
    let chosen = match given {
        Some(_) => None,
        None => Some(choose_k(samples)?),
    };
    let k = given.unwrap_or_else(|| chosen.map_or(0.0, KChoice::k));
    Ok(KTaken {
        k,
        chosen,
        warning: saturation_warning(samples, k),
    })
}

/// The share of `samples` whose expected score at `k` lies within 0.001 of 0 or 1: their
/// errors hardly move with the values.
pub fn saturated_share(samples: &[(i32, f64)], k: f64) -> f64 {
    let n = samples.len().max(1) as f64;
    let saturated = |i: usize| {
        let s = sigmoid(k, samples[i].0);
        f64::from(u8::from(!(0.001..=0.999).contains(&s)))
    };
    chunked_sum(samples.len(), saturated) / n
}

/// From this share of saturated positions ([`saturated_share`]) a tune warns.
pub const SATURATED_WARNING: f64 = 0.5;

/// The warning a tune gives when `samples` (the start's evaluations and targets) are
/// saturated at `k` ([`saturated_share`] from [`SATURATED_WARNING`]); in memory and
/// streamed alike.
pub fn saturation_warning(samples: &[(i32, f64)], k: f64) -> Option<String> {
    let share = saturated_share(samples, k);
    (share >= SATURATED_WARNING).then(|| {
        format!(
            "warning: {:.0} % of the training positions evaluate beyond 0.001 of a sure win \
             or loss at K {k:.4} under the starting values: their errors hardly move with the \
             values, and the tune learns little from them (are the values centipawns? is K \
             right?)",
            100.0 * share
        )
    })
}

/// The one result every position of `sets` has, when there are positions and all share it:
/// no `K` or error can be fitted to one result.
pub fn single_result<M: Model>(sets: &[&M]) -> Option<f64> {
    let mut targets = sets
        .iter()
        .flat_map(|m| (0..m.len()).map(move |i| m.target(i)));
    let first = targets.next()?;
    targets.all(|t| t == first).then_some(first)
}

/// K is fitted on the first this many training positions (all of them, up to a million;
/// the same ones in memory and streamed).
pub const K_SAMPLE: usize = 1 << 20;

/// The cached evaluations and targets of the dataset's first [`K_SAMPLE`] positions, for
/// [`fit_k`] and [`choose_k`].
pub fn samples<M: Model>(ds: &M) -> Vec<(i32, f64)> {
    (0..ds.len().min(K_SAMPLE))
        .map(|i| (ds.eval(i), ds.target(i)))
        .collect()
}

/// The summed error and its gradient at real values: one pass over the positions.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorGradient {
    /// `Σ E_i` of the evaluations moved by `J · delta`.
    pub sum: f64,
    /// Its derivative per unit of each variable.
    pub gradient: Vec<f64>,
}

/// The summed squared error `Σ E_i` (at `K` = `k`) and its gradient over the variables
/// `slots` when each position's evaluation is its unrounded cached one
/// ([`Model::exact_eval`]) moved by `J · delta`: block by block, the product, each
/// position's error and slope, and the gradient while the block is still in the caches
/// (Adam's epoch). Blocks are added in order, whatever the threads.
pub fn error_gradient<M: Model>(
    model: &M,
    slots: &[usize],
    delta: &[f64],
    k: f64,
) -> ErrorGradient {
    let c = k * std::f64::consts::LN_10 / 400.0;
    let parts: Vec<(f64, Vec<f64>)> = (0..model.row_blocks())
        .into_par_iter()
        .map(|b| {
            let (start, len) = model.block_span(b);
            let mut q = vec![0.0; len];
            model.block_product(b, slots, delta, &mut q);
            let mut sum = 0.0;
            for (at, q) in q.iter_mut().enumerate() {
                let i = start + at;
                let s = real_sigmoid(k, model.exact_eval(i) + *q);
                let miss = model.target(i) - s;
                sum += miss * miss;
                *q = -2.0 * miss * c * s * (1.0 - s);
            }
            let mut gradient = vec![0.0; slots.len()];
            model.block_gradient(b, slots, &q, &mut gradient);
            (sum, gradient)
        })
        .collect();
    let sum = parts.iter().map(|p| p.0).sum();
    let gradient = add_in_order(slots.len(), parts.into_iter().map(|p| p.1).collect());
    ErrorGradient { sum, gradient }
}

/// The summed squared error `Σ E_i` (at `K` = `k`) when each position's evaluation is its
/// unrounded cached one moved by `J · delta` (the variables `slots`): per block, then the
/// blocks in order.
pub fn error_sum<M: Model>(model: &M, slots: &[usize], delta: &[f64], k: f64) -> f64 {
    let parts: Vec<f64> = (0..model.row_blocks())
        .into_par_iter()
        .map(|b| {
            let (start, len) = model.block_span(b);
            let mut q = vec![0.0; len];
            model.block_product(b, slots, delta, &mut q);
            let errors = q.iter().enumerate().map(|(at, q)| {
                let i = start + at;
                let miss = model.target(i) - real_sigmoid(k, model.exact_eval(i) + q);
                miss * miss
            });
            errors.sum::<f64>()
        })
        .collect();
    parts.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sigmoid_is_the_logistic_in_base_ten() {
        assert_eq!(sigmoid(1.0, 0), 0.5);
        assert!((sigmoid(1.0, 400) - 10.0 / 11.0).abs() < 1e-12);
        assert!((sigmoid(1.0, -400) - 1.0 / 11.0).abs() < 1e-12);
    }

    #[test]
    fn chunked_sums_do_not_depend_on_threads() {
        let f = |i: usize| 1.0 / (i as f64 + 1.0);
        let n = 3 * CHUNK + 17;
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let four = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let a = one.install(|| chunked_sum(n, f));
        let b = four.install(|| chunked_sum(n, f));
        assert_eq!(a.to_bits(), b.to_bits());
        assert_eq!(chunked_sum(0, f), 0.0);
    }

    #[test]
    fn the_table_gives_the_sigmoid_everywhere() {
        let t = SigmoidTable::new(0.9);
        for q in [-20000, -8193, -8192, -1, 0, 1, 777, 8192, 8193, 20000] {
            assert_eq!(t.get(q).to_bits(), sigmoid(0.9, q).to_bits(), "{q}");
        }
    }

    #[test]
    fn a_start_that_evaluates_nothing_takes_the_conventional_k() {
        // A tempo bonus alone, results unrelated to it: the curve over K is flat.
        let tempo: Vec<(i32, f64)> = (0..100)
            .map(|i| (8 - i % 17, f64::from(i % 3) / 2.0))
            .collect();
        let choice = choose_k(&tempo).unwrap();
        assert!(matches!(choice, KChoice::Conventional(m) if m < MIN_MEAN_EVAL));
        assert_eq!(choice.k(), CONVENTIONAL_K);
        assert!(choice.describe().contains("by convention"));
        let real: Vec<(i32, f64)> = (-600..=600).map(|q| (q, sigmoid(1.2, q))).collect();
        assert!((choose_k(&real).unwrap().k() - 1.2).abs() < 2e-4);
    }

    #[test]
    fn results_that_do_not_follow_the_evaluations_refuse_a_fit_of_k() {
        // Half the labels read from the other side: the evaluations say nothing of them.
        let flipped: Vec<(i32, f64)> = (-600..=600)
            .map(|q| (q, if q % 2 == 0 { 1.0 } else { 0.0 }))
            .collect();
        let err = choose_k(&flipped).unwrap_err();
        assert!(
            matches!(err, UnfitK::Unrelated { gain, .. } if gain < MIN_K_GAIN),
            "{err}"
        );
        assert!(err.to_string().contains("side to move"), "{err}");
        // Labels far steeper than centipawns: the fit ends at the top of its range.
        let steep: Vec<(i32, f64)> = (-600..=600).map(|q| (q, sigmoid(40.0, q))).collect();
        assert!(matches!(choose_k(&steep), Err(UnfitK::AtTop(k)) if k >= MAX_FITTED_K));
    }

    #[test]
    fn saturated_evaluations_refuse_a_fit_of_k() {
        // Evaluations a hundred times too large: the results follow q / 100.
        let huge: Vec<(i32, f64)> = (-600..=600).map(|q| (q * 100, sigmoid(1.2, q))).collect();
        let err = choose_k(&huge).unwrap_err();
        assert!(
            matches!(err, UnfitK::Saturated { k, .. } if k < MIN_FITTED_K),
            "{err}"
        );
        // Labels against a small evaluation fit a tiny K: refused, not saturated.
        let against: Vec<(i32, f64)> = (0..100).map(|i| (100, f64::from(i % 2) * 0.3)).collect();
        assert!(matches!(choose_k(&against), Err(UnfitK::Unrelated { .. })));
        // Ten times too large still fits (an engine in millipawns).
        let milli: Vec<(i32, f64)> = (-600..=600).map(|q| (q * 10, sigmoid(1.2, q))).collect();
        assert!((choose_k(&milli).unwrap().k() - 0.12).abs() < 2e-3);
    }

    #[test]
    fn fitted_k_recovers_the_generating_k() {
        // Targets drawn as the sigmoid itself at K = 1.37: the error is minimal there.
        let samples: Vec<(i32, f64)> = (-600..=600)
            .step_by(5)
            .map(|q| (q, sigmoid(1.37, q)))
            .collect();
        let k = fit_k(&samples);
        assert!((k - 1.37).abs() < 2e-4, "{k}");
    }
}
