//! Targets that use the search: a position whose line carries its engine's own score
//! (`ce 35;`, written by `texel import` from a game's score comments) is tuned toward
//! `λ · result + (1 − λ) · σ(K · score)`, its game result mixed with the win probability
//! the engine's score stands for.

use crate::dataset::Dataset;
use texel_data::Label;
use texel_tune::error::real_sigmoid;

/// How targets mix in the engines' scores.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Blend {
    /// The share of the game result in each target, 0 to 1.
    pub lambda: f64,
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
