//! Newton's real values brought to whole ones by its own model: where the phase ends, the
//! values rounded one by one are moved, a step of one at a time, down the quadratic
//! `½ (z − x)ᵀ A (z − x)` that Newton's last factored Hessian `A` gives around its real
//! values `x`. Rounding each value on its own ignores how values that count in the same
//! positions trade off (a piece value and the table squares beside it); the model knows
//! it, at the price of a few operations a value. The polish starts nearer its lattice
//! optimum, and takes fewer rounds to reach it.

use crate::jacobian::Factor;

/// Sweeps over the values at most.
const MAX_SWEEPS: usize = 64;

/// Moves the whole values `z` (one per variable of the factor, rounded from `x`) to a point
/// where no single step of one lowers the model, a variable at a time in order, sweep after
/// sweep; `allow(k, value)` says whether variable `k` may take `value` (its bounds and the
/// declared constraints) and records it when it may. Returns how many steps were taken.
pub fn settle(
    factor: &Factor,
    x: &[f64],
    z: &mut [i32],
    allow: &mut dyn FnMut(usize, i32) -> bool,
) -> usize {
    let n = factor.variables();
    let a = factor.product();
    // The model's gradient at z: A (z − x).
    let away: Vec<f64> = (0..n).map(|k| f64::from(z[k]) - x[k]).collect();
    let mut slope: Vec<f64> = (0..n)
        .map(|i| (0..n).map(|k| a[i * n + k] * away[k]).sum())
        .collect();
    let mut steps = 0;
    for _ in 0..MAX_SWEEPS {
        let before = steps;
        for k in 0..n {
            let (s, c) = (slope[k], a[k * n + k]);
            // One step toward the model's fall: it gains where |slope| exceeds half the curvature.
            let d: i32 = if s > 0.0 { -1 } else { 1 };
            if f64::from(d) * s + 0.5 * c >= 0.0 || !allow(k, z[k] + d) {
                continue;
            }
            z[k] += d;
            let column = (0..n).map(|i| a[i * n + k]);
            slope
                .iter_mut()
                .zip(column)
                .for_each(|(g, a)| *g += f64::from(d) * a);
            steps += 1;
        }
        if steps == before {
            break;
        }
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `A = [[2, 1.8], [1.8, 2]]`: two values that count together. Rounded alone,
    /// (0.6, 0.6) goes to (1, 1), far up the model; one of them steps back.
    #[test]
    fn steps_go_down_the_model_to_a_point_no_step_improves() {
        let factor = Factor::new(&[2.0, 1.8, 1.8, 2.0], 2, 0.0).unwrap();
        let model = |z: &[i32], x: &[f64]| {
            let d = [f64::from(z[0]) - x[0], f64::from(z[1]) - x[1]];
            0.5 * (2.0 * d[0] * d[0] + 3.6 * d[0] * d[1] + 2.0 * d[1] * d[1])
        };
        let x = [0.6, 0.6];
        let mut z = [1, 1];
        let mut allow = |_: usize, _: i32| true;
        settle(&factor, &x, &mut z, &mut allow);
        for k in 0..2 {
            for d in [-1, 1] {
                let mut w = z;
                w[k] += d;
                assert!(model(&w, &x) >= model(&z, &x), "{z:?} -> {w:?}");
            }
        }
        assert!(model(&z, &x) < model(&[1, 1], &x) / 5.0, "{z:?}");
    }

    #[test]
    fn a_refused_value_is_not_taken() {
        let factor = Factor::new(&[1.0, 0.0, 0.0, 1.0], 2, 0.0).unwrap();
        let mut z = [0, 0];
        let mut refuse_first = |k: usize, _: i32| k != 0;
        let steps = settle(&factor, &[3.0, 3.0], &mut z, &mut refuse_first);
        assert_eq!((z, steps), ([0, 3], 3));
    }
}
