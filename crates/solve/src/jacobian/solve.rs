//! The damped Newton step: `(H + μ·D) x = −g` solved by a Cholesky factorisation, with `D`
//! the magnitude of `H`'s diagonal (Marquardt's scaling: a value's damping follows its own
//! curvature, so a rarely seen value and a piece value are damped alike).

use rayon::prelude::*;

/// Where row `i` of a lower triangle packed by rows begins (row `i` holds `i + 1` entries).
#[inline]
fn row_start(i: usize) -> usize {
    i * (i + 1) / 2
}

/// The factor `L` (lower, packed by rows) of the symmetric `n × n` matrix whose lower
/// triangle `a` holds (packed by rows), or `None` when it is not positive definite. Column
/// `j` of the rows below it is computed in parallel, each row on its own (the result does
/// not depend on the threads).
fn cholesky(mut a: Vec<f64>, n: usize) -> Option<Vec<f64>> {
    for j in 0..n {
        let (head, mut rest) = a.split_at_mut(row_start(j + 1));
        let line = &mut head[row_start(j)..];
        let diagonal = line[j] - dot(&line[..j], &line[..j]);
        if diagonal.is_nan() || diagonal <= 0.0 {
            return None;
        }
        let pivot = diagonal.sqrt();
        line[j] = pivot;
        let lj = &line[..j];
        let mut below = Vec::with_capacity(n - j - 1);
        for i in j + 1..n {
            let (row, later) = rest.split_at_mut(i + 1);
            below.push(row);
            rest = later;
        }
        below
            .par_iter_mut()
            .with_min_len(ROWS_PER_TASK)
            .for_each(|row| row[j] = (row[j] - dot(&row[..j], lj)) / pivot);
    }
    Some(a)
}

/// Rows of the factor a thread takes at a time.
const ROWS_PER_TASK: usize = 64;

/// The dot product, in four interleaved sums (the same order whatever the threads).
#[inline]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut sums = [0.0; 4];
    let (a4, b4) = (a.chunks_exact(4), b.chunks_exact(4));
    let tail: f64 = a4
        .remainder()
        .iter()
        .zip(b4.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in a4.zip(b4) {
        for k in 0..4 {
            sums[k] += x[k] * y[k];
        }
    }
    (sums[0] + sums[1]) + (sums[2] + sums[3]) + tail
}

/// Solves `L Lᵀ x = b` for the factor `l`.
fn solve_factored(l: &[f64], n: usize, mut b: Vec<f64>) -> Vec<f64> {
    for i in 0..n {
        let row = &l[row_start(i)..row_start(i) + i];
        b[i] = (b[i] - dot(row, &b[..i])) / l[row_start(i) + i];
    }
    for i in (0..n).rev() {
        let mut s = b[i];
        for k in i + 1..n {
            s -= l[row_start(k) + i] * b[k];
        }
        b[i] = s / l[row_start(i) + i];
    }
    b
}

/// The Cholesky factor of a damped Hessian `H + c·I + μ·D` (`c` an L2 pull's curvature),
/// kept to solve for more than one gradient (the chord steps of [`crate::newton`]), with
/// `H` itself, so that the next pull of a path factors its own matrix without a pass over
/// the positions ([`Factor::at_pull`]).
#[derive(Clone, Debug)]
pub struct Factor {
    /// `L`, lower, packed by rows.
    l: Vec<f64>,
    n: usize,
    /// `H`'s lower triangle, packed by rows (no pull, no damping).
    hessian: Vec<f64>,
    /// The pull's curvature `c` and the damping `μ` of the factored matrix.
    pull: f64,
    damping: f64,
}

impl Factor {
    /// The factor of `H + μ·D` (`h` is `n × n` by rows, both halves), or `None` when that
    /// is not positive definite. A value with no curvature at all (seen in no position, no
    /// pull) gets a unit diagonal: its gradient is zero too, and it stays.
    pub fn new(h: &[f64], n: usize, mu: f64) -> Option<Factor> {
        Factor::pulled(h, n, 0.0, mu)
    }

    /// The factor of `H + c·I + μ·D`, `D` the magnitude of the diagonal of `H + c·I`
    /// (see [`Factor::new`]).
    pub fn pulled(h: &[f64], n: usize, c: f64, mu: f64) -> Option<Factor> {
        let mut hessian = Vec::with_capacity(row_start(n));
        for i in 0..n {
            hessian.extend_from_slice(&h[i * n..i * n + i + 1]);
        }
        Factor::of_lower(hessian, n, c, mu)
    }

    /// The factor of the same `H` at another pull's curvature `c` (itself where `c` is its
    /// own), or `None` when that matrix is not positive definite: exactly the factor
    /// [`Factor::pulled`] makes of `H` at `c`.
    pub fn at_pull(self, c: f64) -> Option<Factor> {
        match c == self.pull {
            true => Some(self),
            false => Factor::of_lower(self.hessian, self.n, c, self.damping),
        }
    }

    /// The factor of `H + c·I + μ·D` from `H`'s lower triangle packed by rows.
    fn of_lower(hessian: Vec<f64>, n: usize, c: f64, mu: f64) -> Option<Factor> {
        let mut a = hessian.clone();
        for i in 0..n {
            let diagonal = &mut a[row_start(i) + i];
            *diagonal += c;
            let d = diagonal.abs();
            *diagonal += if d == 0.0 { 1.0 } else { mu * d };
        }
        Some(Factor {
            l: cholesky(a, n)?,
            n,
            hessian,
            pull: c,
            damping: mu,
        })
    }

    /// The step `x` with `(H + μ·D) x = −g`.
    pub fn step(&self, g: &[f64]) -> Vec<f64> {
        solve_factored(&self.l, self.n, g.iter().map(|x| -x).collect())
    }

    /// The damped matrix `H + μ·D` again (`L Lᵀ`, `n × n` by rows, both halves), each row
    /// computed on its own (the result does not depend on the threads).
    pub fn product(&self) -> Vec<f64> {
        let (l, n) = (&self.l, self.n);
        let mut a = vec![0.0; n * n];
        a.par_chunks_mut(n)
            .with_min_len(ROWS_PER_TASK)
            .enumerate()
            .for_each(|(i, row)| {
                let li = &l[row_start(i)..row_start(i + 1)];
                for (j, out) in row.iter_mut().enumerate() {
                    let k = i.min(j) + 1;
                    *out = dot(&li[..k], &l[row_start(j)..row_start(j) + k]);
                }
            });
        a
    }

    /// How many variables the factor is over.
    pub fn variables(&self) -> usize {
        self.n
    }
}

/// The step `x` with `(H + μ·D) x = −g`, or `None` when the damped matrix is not positive
/// definite ([`Factor::new`]).
#[cfg(test)]
fn damped_step(h: &[f64], g: &[f64], mu: f64) -> Option<Vec<f64>> {
    Factor::new(h, g.len(), mu).map(|f| f.step(g))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_undamped_step_solves_the_system() {
        // H = [[4, 2], [2, 3]], g = [−2, −1]: x = H⁻¹ (2, 1) = (0.5, 0).
        let x = damped_step(&[4.0, 2.0, 2.0, 3.0], &[-2.0, -1.0], 0.0).unwrap();
        assert!((x[0] - 0.5).abs() < 1e-12 && x[1].abs() < 1e-12, "{x:?}");
    }

    #[test]
    fn an_indefinite_matrix_is_refused_until_damped_enough() {
        let h = [1.0, 2.0, 2.0, 1.0];
        assert!(damped_step(&h, &[1.0, 0.0], 0.0).is_none());
        assert!(damped_step(&h, &[1.0, 0.0], 2.0).is_some());
    }

    #[test]
    fn the_product_of_the_factor_is_the_damped_matrix() {
        let h = [4.0, 2.0, 1.0, 2.0, 3.0, 0.5, 1.0, 0.5, 2.0];
        let a = Factor::new(&h, 3, 0.5).unwrap().product();
        for (k, (&a, &h)) in a.iter().zip(&h).enumerate() {
            let damped = if k % 4 == 0 { 1.5 * h } else { h };
            assert!((a - damped).abs() < 1e-12, "{k}: {a} against {damped}");
        }
    }

    #[test]
    fn a_factor_at_another_pull_is_the_one_taken_there() {
        let h = [4.0, 2.0, 1.0, 2.0, 3.0, 0.5, 1.0, 0.5, 2.0];
        let g = [1.0, -2.0, 0.5];
        let there = Factor::pulled(&h, 3, 0.3, 1e-3).unwrap();
        let moved = Factor::pulled(&h, 3, 7.0, 1e-3)
            .unwrap()
            .at_pull(0.3)
            .unwrap();
        assert_eq!(moved.step(&g), there.step(&g), "bit for bit");
        let here = Factor::pulled(&h, 3, 7.0, 1e-3).unwrap();
        assert_ne!(here.step(&g), there.step(&g));
    }

    #[test]
    fn a_value_without_curvature_stays() {
        let x = damped_step(&[2.0, 0.0, 0.0, 0.0], &[-4.0, 0.0], 0.0).unwrap();
        assert!((x[0] - 2.0).abs() < 1e-12 && x[1] == 0.0, "{x:?}");
    }
}
