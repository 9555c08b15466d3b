//! The expected score of an evaluation and its squared error against a label, in floats
//! and through a table of whole centipawns, and the sums over positions that never depend
//! on the number of threads: what every model and every method adds its errors with.

use rayon::prelude::*;

/// Positions per chunk of a parallel sum. Sums are formed per chunk and added in chunk
/// order, so the result never depends on the number of threads.
pub const CHUNK: usize = 8192;

/// `σ(K·q) = 1 / (1 + 10^(−K·q/400))`: the expected score of an evaluation of `q` centipawns.
#[inline]
pub fn sigmoid(k: f64, q: i32) -> f64 {
    real_sigmoid(k, f64::from(q))
}

/// [`sigmoid`] of an unrounded evaluation (Newton's real values).
#[inline]
pub fn real_sigmoid(k: f64, q: f64) -> f64 {
    1.0 / (1.0 + (-k * q * (std::f64::consts::LN_10 / 400.0)).exp())
}

/// The squared error of one position.
#[inline]
pub fn squared_error(k: f64, q: i32, target: f64) -> f64 {
    let d = target - sigmoid(k, q);
    d * d
}

/// How the squared error of a position labelled `target` moves per centipawn of its
/// evaluation `q`: `dE/dq = −2 (target − σ) · σ (1 − σ) · K ln 10 / 400`.
#[inline]
pub fn error_slope(k: f64, q: i32, target: f64) -> f64 {
    let s = sigmoid(k, q);
    let ds_dq = s * (1.0 - s) * k * std::f64::consts::LN_10 / 400.0;
    -2.0 * (target - s) * ds_dq
}

/// `σ(K·q)` tabulated for the evaluations that occur (|q| ≤ 8192 centipawns), so a probe
/// costs a table look-up instead of an exponential. Values are those of [`sigmoid`].
#[derive(Clone, Debug)]
pub struct SigmoidTable {
    k: f64,
    values: Vec<f64>,
}

impl SigmoidTable {
    const RANGE: i32 = 8192;

    /// The table for `k`.
    pub fn new(k: f64) -> SigmoidTable {
        let values = (-Self::RANGE..=Self::RANGE)
            .map(|q| sigmoid(k, q))
            .collect();
        SigmoidTable { k, values }
    }

    /// `σ(K·q)`.
    #[inline]
    pub fn get(&self, q: i32) -> f64 {
        match self.values.get((q + Self::RANGE) as usize) {
            Some(&v) if q >= -Self::RANGE => v,
            _ => sigmoid(self.k, q),
        }
    }

    /// The `K` of the table.
    pub fn k(&self) -> f64 {
        self.k
    }

    /// The squared error of one position.
    #[inline]
    pub fn squared_error(&self, q: i32, target: f64) -> f64 {
        let d = target - self.get(q);
        d * d
    }
}

/// Units a squared error is counted in where sums must not depend on the order of their
/// terms (a lattice probe, updated or read anew): 2⁻³² each. A sum of units is exact for
/// up to 2³¹ positions, and far finer than any change a probe measures.
pub const ERROR_UNITS: f64 = 4_294_967_296.0;

/// A change of squared error in whole [`ERROR_UNITS`] (ties to even: one instruction).
#[inline]
pub fn error_units(change: f64) -> i64 {
    (change * ERROR_UNITS).round_ties_even() as i64
}

/// `Σ f(i)` for `i` in `0..n`, summed per [`CHUNK`] and then in chunk order.
pub fn chunked_sum(n: usize, f: impl Fn(usize) -> f64 + Sync) -> f64 {
    let chunks: Vec<f64> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| (c * CHUNK..((c + 1) * CHUNK).min(n)).map(&f).sum())
        .collect();
    chunks.iter().sum()
}
