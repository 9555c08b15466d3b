//! Off a saddle. Where every sum a value counts in sits at a square's zero (king safety
//! started at zero: the danger sum is 0, and `max(0, x)²` has neither slope nor
//! Gauss-Newton curvature there) or is held by its clamp, a Gauss-Newton step cannot move
//! the value: its Jacobian column is zero, and Newton converges with it where it started
//! while the values around it make up for it. The square still bends, though, and the
//! error's exact curvature among those flat values says which way lifts them: when it has a
//! negative eigenvalue, the values step along its eigenvector by the exact line search of
//! lengths ±1, ±2, ±4, … ±4,096 (the best one that lowers the objective), and Newton goes on
//! from there with slopes to follow. A value its clamp holds everywhere has no curvature
//! either; nothing local says where its sums come alive, and it stays.
//!
//! A weight at zero (a part's `times_param`) flattens every value its part's sums count,
//! though its own column moves where those sums have fixed parts: it joins them, since the
//! error twists between a weight and the values it weighs. Such a start (a king safety's
//! danger values and endgame weight at zero) is looked at before Newton's first iteration
//! too: a first Gauss-Newton step would move the weight alone, by whatever its sums' fixed
//! parts say, and can send it to the wrong sign, where the danger values follow it into a
//! basin in which their clamp holds the sums dead.

use super::iteration::{judged, Passes, Pull, Taken, FIRST_DAMPING};
use super::NewtonState;

/// Times one Newton phase tries to step off a saddle at most (each try after Newton
/// converged with flat values left).
pub const MAX_LIFTS: u32 = 8;

/// The lengths tried along the direction (a unit vector): `±2^k` for `k` below this.
const LIFT_DOUBLINGS: i32 = 13;

/// A step off a saddle: the step, and how many flat values it moved.
pub struct Lift {
    /// The step taken.
    pub taken: Taken,
    /// The flat values it moved.
    pub values: usize,
}

/// Where Newton starts or converged at `state` (its values in the passes' order; summed
/// error `sum` there, or read when `None`) with values flat: the step off the saddle taken
/// into `state` (the mean error over `positions` there), which goes on with a fresh phase's
/// damping; the flat values it moved (0: none, or [`MAX_LIFTS`] tries spent). The one step
/// off a saddle of every run, in memory or streamed.
///
/// # Errors
/// A pass failed.
pub fn lift_state<P: Passes>(
    passes: &mut P,
    state: &mut NewtonState,
    pull: &Pull,
    (sum, positions): (Option<f64>, f64),
) -> Result<usize, P::Error> {
    if !passes.may_hold_flat() || state.lifts >= MAX_LIFTS {
        return Ok(0);
    }
    state.lifts += 1;
    let objective = sum.map(|sum| sum + pull.penalty(&state.values));
    let Some(lift) = lift(passes, &state.values, pull, objective)? else {
        return Ok(0);
    };
    (state.values, state.error) = (lift.taken.x, lift.taken.sum / positions);
    (state.handed_over, state.damping, state.chord) = (false, FIRST_DAMPING, None);
    Ok(lift.values)
}

/// The step off a saddle at `x` (objective `objective`, or read at `x` when `None`), if the
/// flat values there have a direction of negative curvature along which the objective
/// falls.
fn lift<P: Passes>(
    passes: &mut P,
    x: &[f64],
    pull: &Pull,
    objective: Option<f64>,
) -> Result<Option<Lift>, P::Error> {
    let holds = passes.holds(x)?;
    if !holds.iter().any(|h| h.is_flat()) {
        return Ok(None);
    }
    // The flat values, and the weights at zero that hold parts of them flat.
    let flat: Vec<usize> = (holds.iter().enumerate())
        .filter(|(_, h)| h.is_flat() || h.is_zero_weight())
        .map(|(j, _)| j)
        .collect();
    let objective = match objective {
        Some(objective) => objective,
        None => passes.sum_at(x)? + pull.penalty(x),
    };
    let n = flat.len();
    let mut curvature = passes.flat_curvature(x, &flat)?;
    (0..n).for_each(|j| curvature[j * n + j] += pull.curvature());
    let (lowest, v) = lowest_eigen(curvature, n);
    if lowest >= 0.0 {
        return Ok(None);
    }
    let mut p = vec![0.0; x.len()];
    flat.iter().zip(&v).for_each(|(&j, &v)| p[j] = v);
    let alphas: Vec<f64> = (0..LIFT_DOUBLINGS)
        .flat_map(|k| [2f64.powi(k), -(2f64.powi(k))])
        .collect();
    let judged = judged(passes, x, &p, &alphas)?;
    let best = (judged.into_iter())
        .map(|(y, sum)| (sum + pull.penalty(&y), y, sum))
        .min_by(|a, b| a.0.total_cmp(&b.0));
    let moved = v.iter().filter(|v| **v != 0.0).count();
    Ok(best
        .filter(|b| b.0 < objective)
        .map(|(objective, x, sum)| Lift {
            taken: Taken {
                x,
                sum,
                objective,
                full: true,
            },
            values: moved,
        }))
}

/// The lowest eigenvalue of the symmetric `n × n` matrix `a` (by rows) and a unit
/// eigenvector of it, by cyclic Jacobi rotations.
fn lowest_eigen(mut a: Vec<f64>, n: usize) -> (f64, Vec<f64>) {
    let mut v: Vec<f64> = (0..n * n)
        .map(|i| if i / n == i % n { 1.0 } else { 0.0 })
        .collect();
    for _sweep in 0..64 {
        let off: f64 = (0..n)
            .flat_map(|p| (p + 1..n).map(move |q| (p, q)))
            .map(|(p, q)| a[p * n + q] * a[p * n + q])
            .sum();
        let scale: f64 = (0..n).map(|p| a[p * n + p] * a[p * n + p]).sum();
        if off <= 1e-24 * scale.max(f64::MIN_POSITIVE) {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                rotate(&mut a, &mut v, n, (p, q));
            }
        }
    }
    let lowest = (0..n)
        .min_by(|&i, &j| a[i * n + i].total_cmp(&a[j * n + j]))
        .expect("a matrix of at least one row");
    let vector = (0..n).map(|r| v[r * n + lowest]).collect();
    (a[lowest * n + lowest], vector)
}

/// The Jacobi rotation of rows and columns `p` and `q` that zeroes `a[p][q]`, applied to
/// `a` and to the columns of `v`.
fn rotate(a: &mut [f64], v: &mut [f64], n: usize, (p, q): (usize, usize)) {
    let apq = a[p * n + q];
    if apq == 0.0 {
        return;
    }
    let theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
    let sign = if theta < 0.0 { -1.0 } else { 1.0 };
    let t = sign / (theta.abs() + (theta * theta + 1.0).sqrt());
    let c = 1.0 / (t * t + 1.0).sqrt();
    let s = t * c;
    for k in 0..n {
        let (kp, kq) = (a[k * n + p], a[k * n + q]);
        a[k * n + p] = c * kp - s * kq;
        a[k * n + q] = s * kp + c * kq;
    }
    for k in 0..n {
        let (pk, qk) = (a[p * n + k], a[q * n + k]);
        a[p * n + k] = c * pk - s * qk;
        a[q * n + k] = s * pk + c * qk;
    }
    for k in 0..n {
        let (kp, kq) = (v[k * n + p], v[k * n + q]);
        v[k * n + p] = c * kp - s * kq;
        v[k * n + q] = s * kp + c * kq;
    }
}

#[cfg(test)]
mod tests {
    use super::lowest_eigen;

    /// `a · v` for the `n × n` matrix `a` by rows.
    fn times(a: &[f64], v: &[f64]) -> Vec<f64> {
        let n = v.len();
        (0..n)
            .map(|r| (0..n).map(|c| a[r * n + c] * v[c]).sum())
            .collect()
    }

    #[test]
    fn the_lowest_eigenpair_of_a_known_matrix() {
        // The second-difference matrix: eigenvalues 2 − √2, 2, 2 + √2.
        let a = vec![2.0, -1.0, 0.0, -1.0, 2.0, -1.0, 0.0, -1.0, 2.0];
        let (lowest, v) = lowest_eigen(a.clone(), 3);
        assert!((lowest - (2.0 - 2f64.sqrt())).abs() < 1e-12, "{lowest}");
        let av = times(&a, &v);
        for (x, y) in av.iter().zip(&v) {
            assert!((x - lowest * y).abs() < 1e-12);
        }
        let norm: f64 = v.iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-12);
    }

    #[test]
    fn an_indefinite_matrix_gives_its_negative_direction() {
        // c cᵀ − 2 d dᵀ with c ⟂ d: the lowest eigenvalue −2·|d|², along d.
        let (c, d) = ([1.0, 1.0, 0.0, 1.0], [1.0, -1.0, 2.0, 0.0]);
        let a: Vec<f64> = (0..16)
            .map(|i| c[i / 4] * c[i % 4] - 2.0 * d[i / 4] * d[i % 4])
            .collect();
        let (lowest, v) = lowest_eigen(a, 4);
        assert!((lowest + 12.0).abs() < 1e-10, "{lowest}");
        let along: f64 = v.iter().zip(&d).map(|(v, d)| v * d).sum::<f64>() / 6f64.sqrt();
        assert!((along.abs() - 1.0).abs() < 1e-10, "{v:?}");
    }
}
