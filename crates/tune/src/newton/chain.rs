//! Newton through the chain rule, for an evaluation that composes inner sums (a trace with
//! inner terms, [`crate::Model::composition`]). At real values `x` each position's
//! evaluation is its linear part (the cached one moved by the linear columns times the move)
//! plus what its inner sums add, computed exactly at `x`; its Jacobian row is the linear
//! columns' coefficients plus, for every value an inner sum counts, the shape's slope at the
//! sum times the count (and, for a value a shape is multiplied by, the shape's value). Line
//! searches evaluate every trial exactly, so a clamp crossed or a square's curve is judged
//! as it is.

use super::rows::{self, RowSink, System};
use super::{derivatives, real_error, Passes};
use crate::descent::Descent;
use crate::error::chunked_sum;
use crate::linear::{Inner, InnerPoint};
use crate::model::{Jacobian, Model, Values};
use std::convert::Infallible;

/// The positions in memory as Newton's passes through the chain rule.
pub(super) struct Chained<'a, 'd, M: Model> {
    pub(super) descent: &'a Descent<'d, M>,
    pub(super) inner: &'a Inner,
    pub(super) slots: &'a [usize],
    /// The point of the last system or gradient: its inner sums.
    pub(super) point: Option<InnerPoint>,
}

impl<M: Model> Chained<'_, '_, M> {
    /// Every value at real `x` of the tuned slots (the others at their integers).
    fn real(&self, x: &[f64]) -> Vec<f64> {
        let values = self.descent.params().values();
        let mut real: Vec<f64> = values.iter().map(|&v| f64::from(v)).collect();
        self.slots.iter().zip(x).for_each(|(&s, &x)| real[s] = x);
        real
    }

    /// Every position's evaluation at `x`, exactly, and the inner sums there.
    fn evals(&self, x: &[f64]) -> (Vec<f64>, InnerPoint) {
        let ds = self.descent.dataset();
        let point = self.inner.at(&self.real(x));
        let at = self
            .slots
            .iter()
            .map(|&s| self.descent.params().values()[s]);
        let moved: Vec<f64> = x.iter().zip(at).map(|(x, a)| x - f64::from(a)).collect();
        let linear = rows::product(ds, self.slots, &moved);
        let q = (linear.iter().enumerate())
            .map(|(i, l)| ds.exact_eval(i) - self.inner.added_now(i) + l + point.added(i))
            .collect();
        (q, point)
    }

    /// The summed error at `x`.
    fn sum(&self, x: &[f64]) -> f64 {
        let (ds, k) = (self.descent.dataset(), self.descent.k());
        let (q, _) = self.evals(x);
        chunked_sum(ds.len(), |i| real_error(k, q[i], ds.target(i)))
    }
}

impl<M: Model> Passes for Chained<'_, '_, M> {
    type Error = Infallible;

    fn system(&mut self, x: &[f64]) -> Result<(f64, System), Infallible> {
        let (ds, k) = (self.descent.dataset(), self.descent.k());
        let (q, point) = self.evals(x);
        let now = derivatives(ds, &q, k);
        let jac = ChainRows {
            model: ds,
            inner: self.inner,
            point: &point,
        };
        let sys = rows::system(&jac, self.slots, &now.slopes, &now.curvatures);
        self.point = Some(point);
        Ok((now.sum, sys))
    }

    fn gradient(&mut self, x: &[f64]) -> Result<(f64, Vec<f64>), Infallible> {
        let (ds, k) = (self.descent.dataset(), self.descent.k());
        let (q, point) = self.evals(x);
        let now = derivatives(ds, &q, k);
        let jac = ChainRows {
            model: ds,
            inner: self.inner,
            point: &point,
        };
        let g = rows::gradient(&jac, self.slots, &now.slopes);
        self.point = Some(point);
        Ok((now.sum, g))
    }

    fn sums_along(&mut self, x: &[f64], p: &[f64], alphas: &[f64]) -> Result<Vec<f64>, Infallible> {
        let trial =
            |alpha: f64| -> Vec<f64> { x.iter().zip(p).map(|(x, p)| x + alpha * p).collect() };
        Ok(alphas.iter().map(|&a| self.sum(&trial(a))).collect())
    }

    fn sum_at(&mut self, y: &[f64]) -> Result<f64, Infallible> {
        Ok(self.sum(y))
    }

    fn project(&self, x: &[f64]) -> Vec<f64> {
        self.descent.projected(self.slots, x)
    }

    fn lengths_per_pass(&self) -> usize {
        1
    }
}

/// The Jacobian at a point of a composed evaluation: the model's linear columns and the
/// inner sums' derivatives there, merged position by position.
struct ChainRows<'a, M: Model> {
    model: &'a M,
    inner: &'a Inner,
    point: &'a InnerPoint,
}

/// A column's entries as (position, derivative), whatever block they are handed in.
struct Collect<'v>(&'v mut Vec<(usize, f64)>);

impl RowSink for Collect<'_> {
    fn begin(&mut self, _start: usize, _len: usize) {}

    fn push(&mut self, position: usize, _var: u32, derivative: f64) {
        self.0.push((position, derivative));
    }
}

impl<M: Model> Jacobian for ChainRows<'_, M> {
    fn row_blocks(&self) -> usize {
        self.model.row_blocks()
    }

    fn block_span(&self, b: usize) -> (usize, usize) {
        self.model.block_span(b)
    }

    fn block_rows<S: RowSink>(&self, b: usize, slots: &[usize], rows: &mut S) {
        let (start, len) = self.model.block_span(b);
        rows.begin(start, len);
        let mut column = Vec::new();
        for (j, &slot) in slots.iter().enumerate() {
            column.clear();
            self.model.block_rows(b, &[slot], &mut Collect(&mut column));
            (self.inner).derivatives(self.point, slot, start..start + len, &mut column);
            column.sort_by_key(|c| c.0);
            let mut at = 0;
            while at < column.len() {
                let position = column[at].0;
                let mut derivative = 0.0;
                while at < column.len() && column[at].0 == position {
                    derivative += column[at].1;
                    at += 1;
                }
                rows.push(position, j as u32, derivative);
            }
        }
    }
}
