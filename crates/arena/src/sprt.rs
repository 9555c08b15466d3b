//! The sequential probability ratio test of a match, as fastchess and OpenBench run it: on
//! game pairs (the pentanomial model) when games are played in colour-swapped pairs, on
//! single games (the trinomial model) otherwise; bounds in logistic or normalized Elo.
//!
//! The log-likelihood ratio compares the most likely outcome distributions under the two
//! hypotheses given the observed one (Michel Van den Bergh, "Comments on normalized Elo"):
//! for a hypothesis on the mean score `s` the distribution is `p̂ᵢ / (1 + θ(aᵢ − s))`, for
//! one on the normalized Elo `t` it is found by a fixed-point iteration on the same form.

use crate::elo::{expected, llr_bounds, Pentanomial, Score, Sprt, SPRT_ERROR_RATE};

/// What an SPRT's Elo bounds mean.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum EloModel {
    /// Logistic Elo: the expected score is `1 / (1 + 10^(−elo/400))`.
    #[default]
    Logistic,
    /// Normalized Elo (fishtest, fastchess and OpenBench's default): the score's distance
    /// from ½ in standard deviations of one game (or one game pair), scaled to Elo near 0.
    Normalized,
}

impl EloModel {
    /// The largest bound an SPRT of this model takes: the expected scores of larger ones
    /// are too near 0 or 1 (or beyond) for a finite log-likelihood ratio.
    pub fn widest_bound(self) -> f64 {
        match self {
            EloModel::Logistic => 1000.0,
            EloModel::Normalized => 100.0,
        }
    }

    /// The model's name, as `--sprt` takes it.
    pub fn name(self) -> &'static str {
        match self {
            EloModel::Logistic => "logistic",
            EloModel::Normalized => "normalized",
        }
    }
}

impl std::str::FromStr for EloModel {
    type Err = String;

    fn from_str(s: &str) -> Result<EloModel, String> {
        match s {
            "logistic" => Ok(EloModel::Logistic),
            "normalized" => Ok(EloModel::Normalized),
            other => Err(format!(
                "unknown Elo model {other}: give logistic or normalized"
            )),
        }
    }
}

/// An SPRT: H0 (the gain is `elo0`) against H1 (it is `elo1`), α = β = 0.05.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SprtTest {
    /// Elo under H0.
    pub elo0: f64,
    /// Elo under H1.
    pub elo1: f64,
    /// How the bounds are read.
    pub model: EloModel,
}

impl std::str::FromStr for SprtTest {
    type Err = String;

    /// `ELO0,ELO1` (logistic Elo) or `ELO0,ELO1,MODEL` with MODEL `logistic` or
    /// `normalized`; ELO0 below ELO1.
    fn from_str(text: &str) -> Result<SprtTest, String> {
        let words: Vec<&str> = text.split(',').map(str::trim).collect();
        let bad = || {
            format!("SPRT bounds {text}: give ELO0,ELO1 or ELO0,ELO1,MODEL (MODEL logistic or normalized)")
        };
        if !(2..=3).contains(&words.len()) {
            return Err(bad());
        }
        let elo = |w: &str| {
            w.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(bad)
        };
        let (elo0, elo1) = (elo(words[0])?, elo(words[1])?);
        if elo0 >= elo1 {
            return Err(format!("SPRT bounds {text}: ELO0 must be below ELO1"));
        }
        let model = words.get(2).map_or(Ok(EloModel::Logistic), |w| w.parse())?;
        let most = model.widest_bound();
        if elo0.abs().max(elo1.abs()) > most {
            return Err(format!(
                "SPRT bounds {text}: each must lie within ±{most} {} Elo (beyond, the expected \
                 score is all but 0 or 1 and the test never decides)",
                model.name()
            ));
        }
        Ok(SprtTest { elo0, elo1, model })
    }
}

impl SprtTest {
    /// The bounds as `--sprt` takes them: `ELO0,ELO1`, with `,normalized` for normalized
    /// Elo.
    pub fn bounds(&self) -> String {
        match self.model {
            EloModel::Logistic => format!("{},{}", self.elo0, self.elo1),
            model => format!("{},{},{}", self.elo0, self.elo1, model.name()),
        }
    }
}

/// In settings files, the test is its bounds as `--sprt` takes them.
impl serde::Serialize for SprtTest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.bounds())
    }
}

impl<'de> serde::Deserialize<'de> for SprtTest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<SprtTest, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl std::fmt::Display for SprtTest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let model = self.model.name();
        write!(f, "H0 {} against H1 {} {model} Elo", self.elo0, self.elo1)
    }
}

/// Normalized Elo per unit of `t` (the score's distance from ½ in standard deviations).
const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// A count of zero is taken as this, so that every outcome has some mass (as fastchess).
const ZERO_COUNT: f64 = 1e-3;

impl SprtTest {
    /// A test with logistic Elo bounds.
    pub fn logistic(elo0: f64, elo1: f64) -> SprtTest {
        SprtTest {
            elo0,
            elo1,
            model: EloModel::Logistic,
        }
    }

    /// The test on game pairs (each pair's points 0, ½, ... 2 as a score 0, ¼, ... 1).
    pub fn pentanomial(&self, pairs: &Pentanomial) -> Sprt {
        let counts = pairs.0.map(f64::from);
        self.decide(&counts, &[0.0, 0.25, 0.5, 0.75, 1.0], 2f64.sqrt())
    }

    /// The test on single games.
    pub fn trinomial(&self, score: &Score) -> Sprt {
        let counts = [score.losses, score.draws, score.wins].map(f64::from);
        self.decide(&counts, &[0.0, 0.5, 1.0], 1.0)
    }

    /// The LLR of `counts` of outcomes worth `scores`, and the verdict. `t_scale` turns
    /// normalized Elo per game into `t` of one outcome (√2 for a pair of games).
    fn decide(&self, counts: &[f64], scores: &[f64], t_scale: f64) -> Sprt {
        let llr = if counts.iter().sum::<f64>() == 0.0 {
            0.0
        } else {
            let counts: Vec<f64> = counts.iter().map(|&c| c.max(ZERO_COUNT)).collect();
            let outcomes = Outcomes::new(&counts, scores);
            match self.model {
                EloModel::Logistic => outcomes.llr(
                    |o| o.with_mean(expected(self.elo0)),
                    |o| o.with_mean(expected(self.elo1)),
                ),
                EloModel::Normalized => {
                    let t = |elo: f64| t_scale * elo / NELO_PER_T;
                    outcomes.llr(|o| o.with_t(t(self.elo0)), |o| o.with_t(t(self.elo1)))
                }
            }
        };
        let (lower, upper) = llr_bounds(SPRT_ERROR_RATE, SPRT_ERROR_RATE);
        if llr >= upper {
            Sprt::AcceptH1(llr)
        } else if llr <= lower {
            Sprt::AcceptH0(llr)
        } else {
            Sprt::Continue(llr)
        }
    }
}

/// An observed distribution of outcomes: their scores and frequencies, and how many.
struct Outcomes<'a> {
    scores: &'a [f64],
    freq: Vec<f64>,
    total: f64,
}

impl<'a> Outcomes<'a> {
    fn new(counts: &[f64], scores: &'a [f64]) -> Outcomes<'a> {
        let total: f64 = counts.iter().sum();
        Outcomes {
            scores,
            freq: counts.iter().map(|c| c / total).collect(),
            total,
        }
    }

    /// `total` times the mean log ratio of the H1 and H0 distributions under the observed.
    fn llr(&self, h0: impl Fn(&Self) -> Vec<f64>, h1: impl Fn(&Self) -> Vec<f64>) -> f64 {
        let (p0, p1) = (h0(self), h1(self));
        let mean: f64 = (0..self.freq.len())
            .map(|i| self.freq[i] * (p1[i].ln() - p0[i].ln()))
            .sum();
        self.total * mean
    }

    /// The most likely distribution with mean score `s`: `p̂ᵢ / (1 + θ(aᵢ − s))`.
    fn with_mean(&self, s: f64) -> Vec<f64> {
        let phi: Vec<f64> = self.scores.iter().map(|a| a - s).collect();
        self.reweighted(&phi)
    }

    /// The most likely distribution whose normalized score `(μ − ½) / σ` is `t`: the same
    /// form with `φᵢ = aᵢ − ½ − t·σ·(1 + ((aᵢ − μ)/σ)²)/2`, `μ` and `σ` of the previous
    /// estimate, repeated from the uniform distribution until it settles.
    fn with_t(&self, t: f64) -> Vec<f64> {
        let mut p = vec![1.0 / self.freq.len() as f64; self.freq.len()];
        for _ in 0..1000 {
            let mu: f64 = p.iter().zip(self.scores).map(|(p, a)| p * a).sum();
            let var: f64 = p
                .iter()
                .zip(self.scores)
                .map(|(p, a)| p * (a - mu).powi(2))
                .sum();
            let sigma = var.sqrt();
            let phi: Vec<f64> = self
                .scores
                .iter()
                .map(|a| a - 0.5 - 0.5 * t * sigma * (1.0 + ((a - mu) / sigma).powi(2)))
                .collect();
            let next = self.reweighted(&phi);
            let change = next
                .iter()
                .zip(&p)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            p = next;
            if change < 1e-10 {
                break;
            }
        }
        p
    }

    /// `p̂ᵢ / (1 + θφᵢ)` with `θ` the root of `Σ p̂ᵢ φᵢ / (1 + θφᵢ) = 0` (so that the weights
    /// sum to 1), found by bisection between the poles `−1/max φ` and `−1/min φ`, where the
    /// sum falls from +∞ to −∞.
    fn reweighted(&self, phi: &[f64]) -> Vec<f64> {
        let (lo_phi, hi_phi) = phi
            .iter()
            .fold((f64::MAX, f64::MIN), |(l, h), &x| (l.min(x), h.max(x)));
        let sum = |theta: f64| -> f64 {
            self.freq
                .iter()
                .zip(phi)
                .map(|(f, x)| f * x / (1.0 + theta * x))
                .sum()
        };
        let (mut lo, mut hi) = (-1.0 / hi_phi, -1.0 / lo_phi);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            if sum(mid) > 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let theta = 0.5 * (lo + hi);
        self.freq
            .iter()
            .zip(phi)
            .map(|(f, x)| f / (1.0 + theta * x))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_read_back_as_the_same_test() {
        for text in ["0,5", "-1.5,2.5", "0,10,normalized"] {
            let test: SprtTest = text.parse().unwrap();
            assert_eq!(test.bounds(), text);
            assert_eq!(test.bounds().parse::<SprtTest>(), Ok(test));
        }
    }

    /// fastchess's reports of four 200-game matches (100 pairs each, normalized Elo bounds
    /// 0 and 10, α = β = 0.05), as printed by fastchess: `Ptnml(0-2)` and `LLR`.
    #[test]
    fn pentanomial_llr_matches_fastchess_reports() {
        let test = SprtTest {
            elo0: 0.0,
            elo1: 10.0,
            model: EloModel::Normalized,
        };
        for (pairs, llr) in [
            ([1, 11, 47, 25, 16], 1.71),
            ([1, 24, 42, 25, 8], 0.60),
            ([2, 23, 32, 35, 8], 0.92),
            ([1, 15, 25, 33, 26], 2.19),
        ] {
            let got = test.pentanomial(&Pentanomial(pairs)).llr();
            assert!((got - llr).abs() < 0.005, "{pairs:?}: {got} for {llr}");
        }
    }

    #[test]
    fn the_most_likely_distribution_has_the_hypothesis_mean() {
        let counts = [3.0, 20.0, 61.0, 14.0, 2.0];
        let scores = [0.0, 0.25, 0.5, 0.75, 1.0];
        let outcomes = Outcomes::new(&counts, &scores);
        for s in [0.45, 0.5, expected(10.0), 0.6] {
            let p = outcomes.with_mean(s);
            let mean: f64 = p.iter().zip(&scores).map(|(p, a)| p * a).sum();
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{p:?}");
            assert!((mean - s).abs() < 1e-9, "{mean} for {s}");
        }
    }

    #[test]
    fn logistic_llr_near_the_hypotheses_agrees_with_the_normal_approximation() {
        // Close to H0 and H1 the LLR is about N (s1 − s0)(2μ − s0 − s1) / 2σ² with μ and
        // σ² the mean and variance of the pair scores: 100 pairs, μ = 0.5, σ² = 0.0125.
        let pairs = Pentanomial([0, 10, 80, 10, 0]);
        let (s0, s1) = (expected(0.0), expected(10.0));
        let approx = 100.0 * (s1 - s0) * (1.0 - s0 - s1) / (2.0 * 0.0125);
        let llr = SprtTest::logistic(0.0, 10.0).pentanomial(&pairs).llr();
        assert!((llr / approx - 1.0).abs() < 0.03, "{llr} against {approx}");
        // By hand: s = 0.5, var = 0.25 * 2/3, s0 = 0.5, s1 = expected(10) ≈ 0.514387:
        // LLR ≈ 600 * 0.014387 * (1 - 0.5 - 0.514387) / (2 * 0.166667) ≈ -0.3726.
        let level = Score {
            wins: 200,
            draws: 200,
            losses: 200,
        };
        let Sprt::Continue(llr) = SprtTest::logistic(0.0, 10.0).trinomial(&level) else {
            panic!()
        };
        assert!((llr + 0.3726).abs() < 1e-3, "{llr}");
    }

    #[test]
    fn pairs_that_split_decide_sooner_than_their_games() {
        // 300 pairs: 60 won 2-0 or 1½-½, 40 lost, 200 split. As single games the same
        // points spread over wins, draws and losses; the pairs' smaller spread decides.
        let pairs = Pentanomial([10, 30, 200, 40, 20]);
        let games = Score {
            wins: 200 + 20 + 40,
            draws: 30 + 40 + 200,
            losses: 200 + 10 + 30,
        };
        let test = SprtTest::logistic(0.0, 5.0);
        let (p, g) = (test.pentanomial(&pairs).llr(), test.trinomial(&games).llr());
        assert!(p > g && g > 0.0, "pairs {p}, games {g}");
    }

    #[test]
    fn clear_cases_are_decided_and_bounds_are_read() {
        let strong = Score {
            wins: 600,
            draws: 300,
            losses: 300,
        };
        let weak = Score {
            wins: 300,
            draws: 300,
            losses: 600,
        };
        let few = Score {
            wins: 3,
            draws: 2,
            losses: 2,
        };
        let test: SprtTest = "0,5".parse().unwrap();
        assert_eq!(test, SprtTest::logistic(0.0, 5.0));
        assert!(matches!(test.trinomial(&strong), Sprt::AcceptH1(_)));
        assert!(matches!(test.trinomial(&weak), Sprt::AcceptH0(_)));
        assert!(matches!(test.trinomial(&few), Sprt::Continue(_)));
        let normalized: SprtTest = "-1, 3, normalized".parse().unwrap();
        assert_eq!(normalized.model, EloModel::Normalized);
        for bad in ["5,0", "0", "0,5,bayes", "a,5", "0,5,logistic,1", "0,100000"] {
            assert!(bad.parse::<SprtTest>().is_err(), "{bad}");
        }
        // The widest bounds taken still give a finite LLR, and decide.
        assert!("0,101,normalized".parse::<SprtTest>().is_err());
        for bounds in ["-1000,1000", "-100,100,normalized", "-1000,0"] {
            let wide: SprtTest = bounds.parse().unwrap();
            let pairs = [
                [60, 42, 242, 63, 93],
                [93, 63, 242, 42, 60],
                [1, 0, 2, 1, 0],
            ];
            let llrs = [&strong, &weak, &few].map(|score| wide.trinomial(score));
            let llrs = llrs
                .into_iter()
                .chain(pairs.map(|p| wide.pentanomial(&Pentanomial(p))));
            for llr in llrs {
                let (Sprt::AcceptH0(l) | Sprt::AcceptH1(l) | Sprt::Continue(l)) = llr;
                assert!(l.is_finite(), "{bounds}: {llr:?}");
            }
        }
    }
}
