//! The streamed positions as Newton's passes: each answer reads the training positions from
//! the file once, chunk by chunk, and Newton's iterations are the one iteration of
//! `crate::newton` (the same as in memory).

use super::{Stream, StreamError};
use crate::error::real_sigmoid;
use crate::linear::LinearDataset;
use crate::model::Model;
use crate::newton::chain;
use crate::newton::chain::Hold;
use crate::newton::rows::{self, System};
use crate::newton::Passes;

/// Step lengths one line-search pass judges: a pass costs the reading of the file, so it
/// judges eight lengths (1, ½, … 1/128) at once.
const LENGTHS_PER_PASS: usize = 8;
/// Step lengths a chord step's line-search pass judges: its step is nearly always taken
/// whole, and each length costs every position a sigmoid.
const CHORD_LENGTHS_PER_PASS: usize = 2;

impl Stream<'_> {
    /// `f` of each chunk of the training positions at real values `x` of the tuned slots
    /// (`delta`: their distance from the start), the chunks' answers in order.
    fn at<T>(
        &self,
        x: &[f64],
        f: impl Fn(&crate::linear::LinearDataset, &[f64]) -> T,
    ) -> Result<Vec<T>, StreamError> {
        let delta = self.delta(x);
        self.chunks(false, self.start, |ds| f(ds, &delta))
    }
}

/// A streamed tune's positions, read again for every answer. The line search's pass also
/// takes the gradient at the whole step, computed as a gradient pass would compute it:
/// near the optimum a step is taken whole and the next iterations are chord steps, which
/// then need no pass of their own for their gradient (a fresh iteration's pass costs a
/// few per cent more for it).
pub(super) struct StreamPasses<'s, 'a> {
    stream: &'s Stream<'a>,
    /// The values at the whole step of the last line search, their summed error and
    /// gradient.
    pub ahead: Option<(Vec<f64>, SumGradient)>,
    /// The trace composes inner sums: every answer goes through the chain rule
    /// (`crate::newton::chain`), each chunk scored at the start values.
    pub composed: bool,
    /// The last pass asked for was a gradient: the iteration is a chord step.
    chord: bool,
}

impl<'s, 'a> StreamPasses<'s, 'a> {
    /// The passes of `stream`, knowing the gradient `ahead` of the last line search.
    pub fn new(stream: &'s Stream<'a>, ahead: Option<(Vec<f64>, SumGradient)>) -> Self {
        StreamPasses {
            stream,
            ahead,
            composed: !stream.trace.space().inner().is_empty(),
            chord: false,
        }
    }
}

impl StreamPasses<'_, '_> {
    /// `f` of each chunk of the training positions, scored at the start values.
    fn each<T>(&self, f: impl Fn(&LinearDataset) -> T) -> Result<Vec<T>, StreamError> {
        self.stream.chunks(false, self.stream.start, |ds| f(ds))
    }
}

/// A summed error and its gradient.
pub(super) type SumGradient = (f64, Vec<f64>);

/// The summed error and gradient of chunk answers, added in order.
fn added(parts: Vec<rows::ErrorGradient>, n: usize) -> SumGradient {
    let mut total = (0.0, vec![0.0; n]);
    for part in parts {
        total.0 += part.sum;
        let pairs = total.1.iter_mut().zip(part.gradient);
        pairs.for_each(|(t, g)| *t += g);
    }
    total
}

impl Passes for StreamPasses<'_, '_> {
    type Error = StreamError;

    fn system(&mut self, x: &[f64]) -> Result<(f64, System), StreamError> {
        self.chord = false;
        let (stream, k) = (self.stream, self.stream.k);
        if self.composed {
            let (at, slots) = (stream.start, &stream.slots);
            let parts = self.each(|ds| chain::system(ds, at, slots, x, k))?;
            let mut total = (0.0, System::zero(slots.len()));
            for (sum, sys) in &parts {
                total.0 += sum;
                total.1.add_system(sys);
            }
            return Ok(total);
        }
        let c = k * std::f64::consts::LN_10 / 400.0;
        let parts = stream.at(x, |ds, delta| {
            let q = rows::product(ds, &stream.slots, delta);
            let (mut sum, mut slopes, mut curvatures) = (0.0, Vec::new(), Vec::new());
            for (i, q) in q.iter().enumerate() {
                let (y, s) = (ds.target(i), real_sigmoid(k, ds.exact_eval(i) + q));
                let d = c * s * (1.0 - s);
                sum += (y - s) * (y - s);
                slopes.push(-2.0 * (y - s) * d);
                curvatures.push(2.0 * d * d);
            }
            (sum, rows::system(ds, &stream.slots, &slopes, &curvatures))
        })?;
        let mut total = (0.0, System::zero(stream.slots.len()));
        for (sum, sys) in &parts {
            total.0 += sum;
            total.1.add_system(sys);
        }
        Ok(total)
    }

    fn gradient(&mut self, x: &[f64]) -> Result<(f64, Vec<f64>), StreamError> {
        self.chord = true;
        if let Some((_, known)) = self.ahead.take().filter(|(at, _)| at == x) {
            return Ok(known);
        }
        let (stream, k) = (self.stream, self.stream.k);
        if self.composed {
            let (at, slots) = (stream.start, &stream.slots);
            let parts = self.each(|ds| chain::gradient(ds, at, slots, x, k))?;
            let mut total = (0.0, vec![0.0; slots.len()]);
            for (sum, g) in parts {
                total.0 += sum;
                total.1.iter_mut().zip(g).for_each(|(t, g)| *t += g);
            }
            return Ok(total);
        }
        let parts = stream.at(x, |ds, delta| {
            rows::error_gradient(ds, &stream.slots, delta, k)
        })?;
        Ok(added(parts, stream.slots.len()))
    }

    fn sums_along(
        &mut self,
        x: &[f64],
        p: &[f64],
        alphas: &[f64],
    ) -> Result<Vec<f64>, StreamError> {
        let (stream, k) = (self.stream, self.stream.k);
        if self.composed {
            let (at, slots) = (stream.start, &stream.slots);
            let trials: Vec<Vec<f64>> = (alphas.iter())
                .map(|a| x.iter().zip(p).map(|(x, p)| x + a * p).collect())
                .collect();
            let parts = self.each(|ds| {
                let each = trials
                    .iter()
                    .map(|y| chain::summed_error(ds, at, slots, y, k));
                each.collect::<Vec<f64>>()
            })?;
            let mut total = vec![0.0; alphas.len()];
            for part in parts {
                total.iter_mut().zip(part).for_each(|(t, s)| *t += s);
            }
            return Ok(total);
        }
        // The whole step as the line search writes it (a trace's values are never bent).
        let whole: Vec<f64> = x.iter().zip(p).map(|(x, p)| x + p).collect();
        let ahead = (alphas.first() == Some(&1.0)).then(|| stream.delta(&whole));
        let parts = stream.at(x, |ds, delta| {
            let q = rows::product(ds, &stream.slots, delta);
            let jp = rows::product(ds, &stream.slots, p);
            let mut sums = vec![0.0; alphas.len()];
            for i in 0..ds.len() {
                let (y, e) = (ds.target(i), ds.exact_eval(i) + q[i]);
                for (sum, alpha) in sums.iter_mut().zip(alphas) {
                    let miss = y - real_sigmoid(k, e + alpha * jp[i]);
                    *sum += miss * miss;
                }
            }
            let there = ahead.as_ref();
            let gradient = there.map(|d| rows::error_gradient(ds, &stream.slots, d, k));
            (sums, gradient)
        })?;
        let mut total = vec![0.0; alphas.len()];
        let mut gradients = Vec::new();
        for (sums, gradient) in parts {
            total.iter_mut().zip(sums).for_each(|(t, s)| *t += s);
            gradients.extend(gradient);
        }
        self.ahead = ahead.map(|_| (whole, added(gradients, stream.slots.len())));
        Ok(total)
    }

    fn sum_at(&mut self, y: &[f64]) -> Result<f64, StreamError> {
        let (stream, k) = (self.stream, self.stream.k);
        if self.composed {
            let (at, slots) = (stream.start, &stream.slots);
            let parts = self.each(|ds| chain::summed_error(ds, at, slots, y, k))?;
            return Ok(parts.iter().sum());
        }
        let parts = stream.at(y, |ds, delta| rows::error_sum(ds, &stream.slots, delta, k))?;
        Ok(parts.iter().sum())
    }

    fn project(&self, x: &[f64]) -> Vec<f64> {
        // A trace's values declare no constraints.
        x.to_vec()
    }

    fn holds(&mut self, x: &[f64]) -> Result<Vec<Hold>, StreamError> {
        if !self.composed {
            return Ok(Vec::new());
        }
        let (at, slots) = (self.stream.start, &self.stream.slots);
        let parts = self.each(|ds| chain::holds(ds, at, slots, x))?;
        let both = |a: Vec<Hold>, b: Vec<Hold>| a.iter().zip(b).map(|(a, b)| a.and(b)).collect();
        Ok(parts.into_iter().reduce(both).unwrap_or_default())
    }

    fn flat_curvature(&mut self, x: &[f64], flat: &[usize]) -> Result<Vec<f64>, StreamError> {
        let (stream, k) = (self.stream, self.stream.k);
        let at = (stream.start, stream.slots.as_slice(), x);
        let parts = self.each(|ds| chain::flat_curvature(ds, at, flat, k))?;
        let mut total = vec![0.0; flat.len() * flat.len()];
        for part in parts {
            total.iter_mut().zip(part).for_each(|(t, c)| *t += c);
        }
        Ok(total)
    }

    fn lengths_per_pass(&self) -> usize {
        match self.chord {
            true => CHORD_LENGTHS_PER_PASS,
            false => LENGTHS_PER_PASS,
        }
    }
}
