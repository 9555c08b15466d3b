//! The L2 pull toward the start, written once: `l2 · Σ (x − anchor)² / 10,000` in
//! summed-error units (a pull of 1 costs a ten-thousandth of a position's error per squared
//! centipawn away from the anchor).

/// Squared centipawns per unit of pull.
const SCALE: f64 = 10_000.0;

/// The pull of strength `l2` on values whose squared distances from their anchors sum to
/// `squares`.
pub fn penalty(l2: f64, squares: f64) -> f64 {
    l2 * squares / SCALE
}

/// How the pull of strength `l2` changes when a value `away` from its anchor moves by
/// `delta`.
pub fn penalty_change(l2: f64, away: f64, delta: f64) -> f64 {
    let then = away + delta;
    l2 * (then * then - away * away) / SCALE
}

/// The pull's second derivative per value.
pub fn curvature(l2: f64) -> f64 {
    2.0 * l2 / SCALE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_change_is_the_difference_of_penalties_and_the_curvature_its_second_derivative() {
        let (l2, away, delta) = (30.0, -7.0, 3.0);
        let change = penalty(l2, (away + delta) * (away + delta)) - penalty(l2, away * away);
        assert!((penalty_change(l2, away, delta) - change).abs() < 1e-12);
        let second = penalty_change(l2, 0.0, 1.0) + penalty_change(l2, 0.0, -1.0);
        assert!((curvature(l2) - second).abs() < 1e-12);
        assert_eq!(penalty(0.0, 1e6), 0.0);
    }
}
