//! Targets that use the search: a position whose line carries its engine's own score
//! (`ce 35;`, written by `texel import` from a game's score comments) is tuned toward
//! `λ · result + (1 − λ) · σ(K · score)`, its game result mixed with the win probability
//! the engine's score stands for.

use crate::dataset::Dataset;
use crate::load::{LoadError, LoadReport};
use texel_data::Label;
use texel_files::Fingerprint;
use texel_solve::error::{choose_k, real_sigmoid};
use texel_tune::{Lambda, ScoredLabels};

/// How targets mix in the engines' scores.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Blend {
    /// The share of the game result in each target.
    pub lambda: Lambda,
    /// The K that turns a score into a win probability; `None`: the K at which the scores
    /// best predict the results of their positions (fitted to the training positions).
    pub k: Option<f64>,
}

/// `result` mixed with the win probability of `score` centipawns (white's view).
pub fn blended_target(result: f64, score: i32, lambda: f64, k: f64) -> f64 {
    lambda * result + (1.0 - lambda) * real_sigmoid(k, f64::from(score))
}

impl Dataset {
    /// Moves the label of every position with a score (`scores`, by position) to its
    /// blended target, to the nearest of the label's steps (1/200).
    pub(crate) fn blend_labels(&mut self, scores: &[Option<i32>], lambda: f64, k: f64) {
        for (i, score) in scores.iter().enumerate() {
            if let Some(score) = *score {
                let target = blended_target(self.target(i), score, lambda, k);
                if let Some(label) = Label::from_score(target) {
                    self.set_label(i, label);
                }
            }
        }
    }
}

/// The engines' scores met while loading: each set's in order (while they may still be
/// mixed in), how many positions carry one, and the fingerprint of the positions with
/// their scores (blended targets are other data).
pub(crate) struct Scores {
    sets: [Vec<Option<i32>>; 2],
    scored: usize,
    positions: usize,
    fingerprint: u64,
    lambda: Lambda,
}

impl Scores {
    /// No scores yet, for targets of `lambda`.
    pub(crate) fn new(lambda: Lambda) -> Scores {
        Scores {
            sets: [Vec::new(), Vec::new()],
            scored: 0,
            positions: 0,
            fingerprint: Fingerprint::new().value(),
            lambda,
        }
    }

    /// The next position's `score` (its set: `held`); `mix` folds the position into a
    /// fingerprint.
    pub(crate) fn add(&mut self, held: bool, score: Option<i32>, mix: impl Fn(u64) -> u64) {
        if self.lambda == Lambda::RESULTS {
            return;
        }
        self.positions += 1;
        self.scored += usize::from(score.is_some());
        let with = Fingerprint::from_value(mix(self.fingerprint));
        self.fingerprint = with.u64(score.map_or(u64::MAX, |s| s as u64)).value();
        if self.lambda == Lambda::Auto && score.is_none() {
            // Not every position has a score: auto keeps the results, so none are kept.
            self.sets = [Vec::new(), Vec::new()];
        } else if self.lambda != Lambda::Auto || self.scored == self.positions {
            self.sets[usize::from(held)].push(score);
        }
    }

    /// Moves the targets of `train` and `validation` to their blends where λ resolves
    /// below 1 for these positions (K fitted to the training scores unless `k`); says in
    /// `report` what the targets are.
    ///
    /// # Errors
    /// λ below 1 was given and no position has a score, or K cannot be fitted.
    pub(crate) fn blend(
        self,
        (train, validation): (&mut Dataset, &mut Dataset),
        k: Option<f64>,
        report: &mut LoadReport,
    ) -> Result<(), LoadError> {
        let (scored, positions) = (self.scored, self.positions);
        let walks = self.lambda.walks(scored, positions, validation.len());
        report.targets = match walks {
            true => Some(texel_tune::walking_words(scored)),
            false => self.lambda.describe(scored, positions),
        };
        let lambda = self.lambda.resolve(scored, positions);
        if lambda == 1.0 && !walks {
            return Ok(());
        }
        if scored == 0 {
            return Err(LoadError::NoScores);
        }
        let fitted = match k {
            Some(k) => Ok(k),
            None => choose_k(&score_samples(train, &self.sets[0])).map(|fit| fit.k()),
        };
        let k = match fitted {
            Ok(k) => k,
            // λ auto mixes the scores in only where they can be read as win probabilities.
            Err(unfit) if self.lambda == Lambda::Auto => {
                report.targets = Some(format!(
                    "targets: results alone (λ auto: every position carries a score, but no K \
                     turns the scores into win probabilities: {unfit})"
                ));
                return Ok(());
            }
            Err(unfit) => return Err(unfit.into()),
        };
        let fingerprint = Fingerprint::from_value(self.fingerprint);
        report.blended = Some((scored, k));
        if walks {
            // The path of λs is a λ of its own.
            report.fingerprint = fingerprint.u64(f64::to_bits(-1.0)).value();
            report.labels = Some(scored_labels(train, &self.sets[0], k));
            return Ok(());
        }
        // The held-out positions keep their results: a tune is judged by games' results.
        train.blend_labels(&self.sets[0], lambda, k);
        report.fingerprint = fingerprint.u64(lambda.to_bits()).value();
        Ok(())
    }
}

/// The results of `set` and the win probabilities of its `scores` by `k`.
fn scored_labels(set: &Dataset, scores: &[Option<i32>], k: f64) -> ScoredLabels {
    let results: Vec<f32> = (0..set.len()).map(|i| set.target(i) as f32).collect();
    let probability = |(i, s): (usize, &Option<i32>)| match s {
        Some(s) => real_sigmoid(k, f64::from(*s)) as f32,
        None => results[i],
    };
    let wins = scores.iter().enumerate().map(probability).collect();
    ScoredLabels::new(results, wins)
}

/// The (score, result) pairs of the positions of `set` that carry a score: the K fitted to
/// them turns the engine's scores into the win probabilities its games bear out.
fn score_samples(set: &Dataset, scores: &[Option<i32>]) -> Vec<(i32, f64)> {
    let pairs = scores.iter().enumerate();
    pairs
        .filter_map(|(i, s)| s.map(|s| (s, set.target(i))))
        .collect()
}
