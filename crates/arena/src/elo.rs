//! Match statistics: Elo difference with a 95% interval, likelihood of superiority, and the
//! sequential probability ratio test (the normal approximation fishtest uses).

/// Wins, draws and losses of one side.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Score {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

/// Elo difference of a score fraction (±∞ at 0 and 1 are clamped to ±1000).
pub fn elo(score: f64) -> f64 {
    let s = score.clamp(1e-6, 1.0 - 1e-6);
    (-400.0 * (1.0 / s - 1.0).log10()).clamp(-1000.0, 1000.0)
}

/// Expected score of an Elo difference.
pub fn expected(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The error function (Abramowitz and Stegun 7.1.26, error below 1.5e-7).
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t
            + 0.254_829_592)
            * t
            * (-x * x).exp();
    if x >= 0.0 {
        y
    } else {
        -y
    }
}

/// The verdict of a finished or running SPRT.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Sprt {
    /// H1 accepted: the gain is at least `elo1`.
    AcceptH1(f64),
    /// H0 accepted: the gain is at most `elo0`.
    AcceptH0(f64),
    /// Not decided yet.
    Continue(f64),
}

/// The error rates (α = β) of every SPRT the arena runs.
pub const SPRT_ERROR_RATE: f64 = 0.05;

/// The log-likelihood ratios at which an SPRT with error rates `alpha` and `beta` accepts
/// H0 (lower) and H1 (upper).
pub fn llr_bounds(alpha: f64, beta: f64) -> (f64, f64) {
    ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
}

impl Sprt {
    /// The log-likelihood ratio.
    pub fn llr(&self) -> f64 {
        match *self {
            Sprt::AcceptH1(x) | Sprt::AcceptH0(x) | Sprt::Continue(x) => x,
        }
    }
}

impl Score {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points per game, 0 to 1.
    pub fn fraction(&self) -> f64 {
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(self.games().max(1))
    }

    /// Per-game variance of the score.
    fn variance(&self) -> f64 {
        let n = f64::from(self.games().max(1));
        let s = self.fraction();
        (f64::from(self.wins) * (1.0 - s).powi(2)
            + f64::from(self.draws) * (0.5 - s).powi(2)
            + f64::from(self.losses) * s.powi(2))
            / n
    }

    /// Elo difference and the half-width of its 95% confidence interval.
    pub fn elo(&self) -> (f64, f64) {
        let n = f64::from(self.games().max(1));
        let s = self.fraction();
        let margin = 1.959_964 * (self.variance() / n).sqrt();
        let (lo, hi) = (elo(s - margin), elo(s + margin));
        (elo(s), (hi - lo) / 2.0)
    }

    /// Likelihood of superiority: the probability that this side is the stronger one.
    pub fn los(&self) -> f64 {
        let (w, l) = (f64::from(self.wins), f64::from(self.losses));
        if w + l == 0.0 {
            return 0.5;
        }
        0.5 * (1.0 + erf((w - l) / (2.0 * (w + l)).sqrt()))
    }
}

/// Game pairs (one opening, colours swapped) by the points the first side took from the
/// pair: index 0 for 0 points, 1 for ½, ... 4 for 2. Pairs are the independent samples of a
/// match with paired openings, so their spread gives the honest interval.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial(pub [u32; 5]);

impl Pentanomial {
    /// Pairs counted.
    pub fn pairs(&self) -> u32 {
        self.0.iter().sum()
    }

    /// Elo difference and the half-width of its 95% confidence interval, from the spread
    /// of the pair scores.
    pub fn elo(&self) -> (f64, f64) {
        let n = f64::from(self.pairs().max(1));
        let point = |i: usize| i as f64 / 4.0;
        let mean = (0..5).map(|i| f64::from(self.0[i]) * point(i)).sum::<f64>() / n;
        let variance = (0..5)
            .map(|i| f64::from(self.0[i]) * (point(i) - mean).powi(2))
            .sum::<f64>()
            / n;
        let margin = 1.959_964 * (variance / n).sqrt();
        let (lo, hi) = (elo(mean - margin), elo(mean + margin));
        (elo(mean), (hi - lo) / 2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pentanomial_interval_follows_the_pairs() {
        // Every pair split 1-1: no spread between pairs, the interval closes.
        let split = Pentanomial([0, 0, 50, 0, 0]);
        assert_eq!(split.elo(), (0.0, 0.0));
        // 30 wins, 40 draws, 30 losses as 15 pairs won 2-0, 15 lost 0-2 and 20 split.
        let spread = Pentanomial([15, 0, 20, 0, 15]);
        let (e, margin) = spread.elo();
        assert!(e.abs() < 1e-9);
        // Pair variance 0.15 over 50 pairs: 1.96 * sqrt(0.003) = 0.1074 in score.
        assert!((margin - 76.0).abs() < 1.5, "{margin}");
        let ahead = Pentanomial([0, 10, 20, 10, 10]);
        assert!(ahead.elo().0 > 0.0);
        assert_eq!(ahead.pairs(), 50);
    }

    #[test]
    fn elo_of_known_scores() {
        assert!((elo(0.5)).abs() < 1e-9);
        assert!((elo(0.75) - 190.848).abs() < 1e-3);
        assert!((elo(0.64) - 100.0).abs() < 0.1);
        assert!((expected(100.0) - 0.6401).abs() < 1e-4);
    }

    #[test]
    fn interval_and_los_behave() {
        let even = Score {
            wins: 30,
            draws: 40,
            losses: 30,
        };
        let (e, margin) = even.elo();
        assert!(e.abs() < 1e-9);
        // Variance 0.15 per game over 100 games: 1.96 * sqrt(0.0015) = 0.0759 in score,
        // which is about 53 Elo either side.
        assert!((margin - 53.0).abs() < 1.0, "{margin}");
        assert!((even.los() - 0.5).abs() < 1e-9);
        let better = Score {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        assert!((better.elo().0 - 147.19).abs() < 0.05);
        assert!(better.los() > 0.9999);
        assert!((erf(1.0) - 0.842_700_79).abs() < 2e-7);
    }
}
