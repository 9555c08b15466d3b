//! How much of each tuning target is the game result: `λ · result + (1 − λ) · p`, where `p`
//! is the win probability of the position's search score (its game's engine's, or a
//! teacher's: `texel label`). By default λ follows the data: where every position carries a
//! score and positions are held out, a path of λs ([`LAMBDA_PATH`]) is solved and judged on
//! the held-out positions' *results* (`crate::begin`); [`SCORED_LAMBDA`] where nothing is
//! held out or the positions are streamed; the result alone where some position has no score.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// λ when every position carries its engine's score and none was given: the share that
/// played best where it was measured (the shipped Stockfish games re-imported with their
/// scores, +27.2 Elo over results alone; texel's own loop, +35.2 over the `train.epd` tune;
/// sunfish's own games, +22.6 in a probe: `reports/lambda/`, `reports/loop-lambda/`,
/// `reports/sunfish-loop/`).
pub const SCORED_LAMBDA: f64 = 0.25;

/// The λs the path of `--lambda auto` solves, results alone first: each warm from the one
/// before, at the pull the path of pulls chose on the results, judged on the held-out
/// positions' results.
pub const LAMBDA_PATH: [f64; 5] = [1.0, 0.75, 0.5, 0.25, 0.0];

/// The two labels of each training position: its game's result and its score as a win
/// probability; the targets of any λ follow from them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScoredLabels {
    results: Vec<f32>,
    scores: Vec<f32>,
}

impl ScoredLabels {
    /// The labels of positions whose results are `results` and scores `scores`, in order.
    ///
    /// # Panics
    /// The lists differ in length.
    pub fn new(results: Vec<f32>, scores: Vec<f32>) -> ScoredLabels {
        assert_eq!(
            results.len(),
            scores.len(),
            "a result and a score a position"
        );
        ScoredLabels { results, scores }
    }

    /// Every position's target at `lambda`: `λ · result + (1 − λ) · score`.
    pub fn targets(&self, lambda: f64) -> Vec<f32> {
        let blend =
            |(&r, &s): (&f32, &f32)| (lambda * f64::from(r) + (1.0 - lambda) * f64::from(s)) as f32;
        self.results.iter().zip(&self.scores).map(blend).collect()
    }

    /// Positions labelled.
    pub fn len(&self) -> usize {
        self.results.len()
    }

    /// Whether no position is labelled.
    pub fn is_empty(&self) -> bool {
        self.results.is_empty()
    }
}

/// One λ of the path and what its solve reached.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct LambdaPoint {
    /// The λ.
    pub lambda: f64,
    /// The mean training error of the solve's real values, against its blended targets.
    pub train: f64,
    /// The mean error of its rounded values on the held-out positions' results.
    pub held_out: f64,
    /// Newton iterations the solve took.
    pub iterations: u64,
    /// Seconds the solve and its judgement took.
    pub seconds: f64,
    /// Solved coarse (see [`crate::path::PullPoint::coarse`]).
    pub coarse: bool,
}

impl From<crate::path::PullPoint> for LambdaPoint {
    /// A step of the path of λs, walked as a path of pulls walks (its step the λ).
    fn from(p: crate::path::PullPoint) -> LambdaPoint {
        LambdaPoint {
            lambda: p.l2,
            train: p.train,
            held_out: p.held_out,
            iterations: p.iterations,
            seconds: p.seconds,
            coarse: p.coarse,
        }
    }
}

/// How a run's λ was chosen.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum LambdaChoice {
    /// The path's λ whose solution predicts the held-out results best.
    Path {
        /// The λ.
        lambda: f64,
        /// Its solution's held-out error.
        held_out: f64,
        /// The pull the λs were solved at.
        l2: f64,
        /// λs solved.
        solved: usize,
    },
    /// Nothing is held out to judge a λ on: [`SCORED_LAMBDA`].
    Default(f64),
    /// The path was stopped (an interrupt, the run's deadline) before it solved a λ: the λ
    /// it falls back to.
    Stopped(f64),
}

impl LambdaChoice {
    /// The λ chosen.
    pub fn lambda(self) -> f64 {
        match self {
            LambdaChoice::Path { lambda, .. }
            | LambdaChoice::Default(lambda)
            | LambdaChoice::Stopped(lambda) => lambda,
        }
    }
}

/// What the targets are where the path of λs chooses them (`scored` positions, every one
/// with a score), in words.
pub fn walking_words(scored: usize) -> String {
    let path: Vec<String> = LAMBDA_PATH.iter().map(f64::to_string).collect();
    format!(
        "targets: every one of the {scored} positions carries a score; λ auto walks the path \
         of λs ({}), each judged on the held-out positions' results",
        path.join(", ")
    )
}

/// The share of the game result in each target.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub enum Lambda {
    /// Where every position carries a score: chosen on the held-out results by the path
    /// of λs ([`LAMBDA_PATH`]), [`SCORED_LAMBDA`] where nothing is held out; 1 (results
    /// alone) where some position has no score.
    #[default]
    Auto,
    /// This share, 0 to 1, whatever the data carries.
    Given(f64),
}

/// λ is neither `auto` nor a share from 0 to 1.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("λ is the share of the game result in each target, 0 to 1, or auto, not {0}")]
pub struct LambdaError(pub String);

impl Lambda {
    /// Results alone.
    pub const RESULTS: Lambda = Lambda::Given(1.0);

    /// Whether the path of λs chooses λ for data of `positions` positions of which `scored`
    /// carry a score, `held` held out: λ auto on data where every position has a score and
    /// the held-out positions can judge.
    pub fn walks(self, scored: usize, positions: usize, held: usize) -> bool {
        self == Lambda::Auto && positions > 0 && scored == positions && held > 0
    }

    /// The share for data of `positions` positions of which `scored` carry a score, where
    /// no path of λs chooses it.
    pub fn resolve(self, scored: usize, positions: usize) -> f64 {
        match self {
            Lambda::Given(lambda) => lambda,
            Lambda::Auto if positions > 0 && scored == positions => SCORED_LAMBDA,
            Lambda::Auto => 1.0,
        }
    }

    /// What the targets of that data are, in a line for the user; `None` for results
    /// alone on data without a score (nothing to say).
    pub fn describe(self, scored: usize, positions: usize) -> Option<String> {
        let lambda = self.resolve(scored, positions);
        let why = match self {
            Lambda::Auto if lambda < 1.0 => {
                " (λ auto: every position carries its engine's score; a λ of 1 tunes on the \
                 results alone)"
                    .to_string()
            }
            Lambda::Auto if scored > 0 => {
                return Some(format!(
                    "targets: results alone (λ auto: {scored} of {positions} positions carry \
                     a score, not every one; a λ of {SCORED_LAMBDA} mixes them in)"
                ))
            }
            _ if lambda < 1.0 => String::new(),
            _ => return None,
        };
        Some(format!(
            "targets: {lambda} × result + {} × score for the {scored} of {positions} \
             positions with a score, the result for the rest{why}",
            1.0 - lambda
        ))
    }
}

impl fmt::Display for Lambda {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Lambda::Auto => f.write_str("auto"),
            Lambda::Given(lambda) => write!(f, "{lambda}"),
        }
    }
}

impl FromStr for Lambda {
    type Err = LambdaError;

    fn from_str(text: &str) -> Result<Lambda, LambdaError> {
        if text == "auto" {
            return Ok(Lambda::Auto);
        }
        match text.parse::<f64>() {
            Ok(lambda) if (0.0..=1.0).contains(&lambda) => Ok(Lambda::Given(lambda)),
            _ => Err(LambdaError(text.to_string())),
        }
    }
}

impl Serialize for Lambda {
    /// `"auto"`, or the share as a number (as settings records wrote it before `auto`).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Lambda::Auto => serializer.serialize_str("auto"),
            Lambda::Given(lambda) => serializer.serialize_f64(*lambda),
        }
    }
}

impl<'de> Deserialize<'de> for Lambda {
    /// `"auto"`, a number, or a number written as text.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Lambda, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Written {
            Share(f64),
            Text(String),
        }
        let text = match Written::deserialize(deserializer)? {
            Written::Share(lambda) => lambda.to_string(),
            Written::Text(text) => text,
        };
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_blends_only_data_where_every_position_has_a_score() {
        assert_eq!(Lambda::Auto.resolve(10, 10), SCORED_LAMBDA);
        assert_eq!(Lambda::Auto.resolve(9, 10), 1.0);
        assert_eq!(Lambda::Auto.resolve(0, 0), 1.0);
        assert_eq!(Lambda::Given(0.5).resolve(0, 10), 0.5);
        assert_eq!(Lambda::Auto.describe(0, 10), None);
        assert_eq!(Lambda::RESULTS.describe(10, 10), None);
        let all = Lambda::Auto.describe(10, 10).unwrap();
        assert!(
            all.starts_with("targets: 0.25 × result + 0.75 × score"),
            "{all}"
        );
        assert!(all.contains("λ auto"), "{all}");
        let some = Lambda::Auto.describe(3, 10).unwrap();
        assert!(
            some.contains("results alone") && some.contains("3 of 10"),
            "{some}"
        );
        let given = Lambda::Given(0.5).describe(3, 10).unwrap();
        assert!(given.starts_with("targets: 0.5 × result"), "{given}");
    }

    #[test]
    fn lambda_reads_and_writes_as_the_flag_is_typed() {
        assert_eq!("auto".parse(), Ok(Lambda::Auto));
        assert_eq!("0.25".parse(), Ok(Lambda::Given(0.25)));
        assert!("1.5"
            .parse::<Lambda>()
            .unwrap_err()
            .to_string()
            .contains("0 to 1"));
        assert!("half".parse::<Lambda>().is_err());
        for lambda in [Lambda::Auto, Lambda::Given(0.25), Lambda::RESULTS] {
            let json = serde_json::to_string(&lambda).unwrap();
            assert_eq!(serde_json::from_str::<Lambda>(&json).unwrap(), lambda);
            assert_eq!(lambda.to_string().parse(), Ok(lambda));
        }
        assert_eq!(serde_json::to_string(&Lambda::Given(0.25)).unwrap(), "0.25");
        assert_eq!(
            serde_json::from_str::<Lambda>("\"0.5\"").unwrap(),
            Lambda::Given(0.5)
        );
        assert!(serde_json::from_str::<Lambda>("2").is_err());
    }
}
