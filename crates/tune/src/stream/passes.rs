//! The streamed positions as Newton's passes: each answer reads the training positions from
//! the file once, chunk by chunk, and Newton's iterations are the one iteration of
//! `texel_solve::newton` (the same as in memory).

use super::{Stream, StreamError};
use texel_linear::TraceDataset;
use texel_solve::jacobian::{Hold, System};
use texel_solve::newton::Passes;

/// Step lengths one line-search pass judges: a pass costs the reading of the file, so it
/// judges eight lengths (1, ½, … 1/128) at once.
const LENGTHS_PER_PASS: usize = 8;
/// Step lengths a chord step's line-search pass judges: its step is nearly always taken
/// whole, and each length costs every position a sigmoid.
const CHORD_LENGTHS_PER_PASS: usize = 2;

/// A streamed tune's positions, read again for every answer, each chunk answering
/// through its own dataset (`crate::linear`: the chain rule where the positions compose
/// inner sums). The line search's pass also takes the gradient at the whole step, as a
/// gradient pass would compute it: near the optimum a step is taken whole and the next
/// iterations are chord steps, which then need no pass of their own for their gradient.
pub(super) struct StreamPasses<'s, 'a> {
    stream: &'s Stream<'a>,
    /// The values at the whole step of the last line search, their summed error and
    /// gradient.
    pub ahead: Option<(Vec<f64>, SumGradient)>,
    /// The positions may hold values flat (`TraceDataset::composes`).
    may_hold_flat: bool,
    /// The last pass asked for was a gradient: the iteration is a chord step.
    chord: bool,
}

impl<'s, 'a> StreamPasses<'s, 'a> {
    /// The passes of `stream`, knowing the gradient `ahead` of the last line search.
    pub fn new(stream: &'s Stream<'a>, ahead: Option<(Vec<f64>, SumGradient)>) -> Self {
        StreamPasses {
            stream,
            ahead,
            may_hold_flat: TraceDataset::composes(stream.trace.space()),
            chord: false,
        }
    }

    /// `f` of each chunk of the training positions, scored at the start values, with the
    /// start values and the tuned slots.
    fn each<T>(
        &self,
        f: impl Fn(&TraceDataset, (&[i32], &[usize])) -> T,
    ) -> Result<Vec<T>, StreamError> {
        let (start, slots) = (self.stream.start, self.stream.slots.as_slice());
        self.stream.chunks(false, start, |ds| f(ds, (start, slots)))
    }
}

/// A summed error and its gradient.
pub(super) type SumGradient = (f64, Vec<f64>);

/// The chunks' summed errors and gradients of `n` values, added in order.
fn added(parts: Vec<SumGradient>, n: usize) -> SumGradient {
    let mut total = (0.0, vec![0.0; n]);
    for (sum, gradient) in parts {
        total.0 += sum;
        total.1.iter_mut().zip(gradient).for_each(|(t, g)| *t += g);
    }
    total
}

/// The chunks' answers of `n` sums each, added in order.
fn sums_added(parts: Vec<Vec<f64>>, n: usize) -> Vec<f64> {
    let mut total = vec![0.0; n];
    for part in parts {
        total.iter_mut().zip(part).for_each(|(t, s)| *t += s);
    }
    total
}

impl Passes for StreamPasses<'_, '_> {
    type Error = StreamError;

    fn system(&mut self, x: &[f64]) -> Result<(f64, System), StreamError> {
        self.chord = false;
        let k = self.stream.k;
        let parts = self.each(|ds, (at, slots)| ds.real_system(at, slots, x, k))?;
        let mut total = (0.0, System::zero(self.stream.slots.len()));
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
        let k = self.stream.k;
        let parts = self.each(|ds, (at, slots)| ds.real_gradient(at, slots, x, k))?;
        Ok(added(parts, self.stream.slots.len()))
    }

    fn sums_along(
        &mut self,
        x: &[f64],
        p: &[f64],
        alphas: &[f64],
    ) -> Result<Vec<f64>, StreamError> {
        let k = self.stream.k;
        // The whole step as the line search writes it (a trace's values are never bent).
        let whole: Vec<f64> = x.iter().zip(p).map(|(x, p)| x + p).collect();
        let ahead = alphas.first() == Some(&1.0);
        let parts = self.each(|ds, (at, slots)| {
            let sums = ds.real_sums((at, slots), (x, p), alphas, k);
            (sums, ahead.then(|| ds.real_gradient(at, slots, &whole, k)))
        })?;
        let (sums, gradients): (Vec<Vec<f64>>, Vec<Option<SumGradient>>) =
            parts.into_iter().unzip();
        let n = self.stream.slots.len();
        self.ahead = ahead.then(|| (whole, added(gradients.into_iter().flatten().collect(), n)));
        Ok(sums_added(sums, alphas.len()))
    }

    fn sum_at(&mut self, y: &[f64]) -> Result<f64, StreamError> {
        let k = self.stream.k;
        let parts = self.each(|ds, (at, slots)| ds.real_sum(at, slots, y, k))?;
        Ok(parts.iter().sum())
    }

    fn project(&self, x: &[f64]) -> Vec<f64> {
        // A trace's values declare no constraints.
        x.to_vec()
    }

    fn may_hold_flat(&self) -> bool {
        self.may_hold_flat
    }

    fn multiplies(&self) -> bool {
        let space = self.stream.trace.space();
        (self.stream.slots.iter()).any(|&slot| TraceDataset::weighs(space, slot))
    }

    fn holds(&mut self, x: &[f64]) -> Result<Vec<Hold>, StreamError> {
        let parts = self.each(|ds, (at, slots)| ds.real_holds(at, slots, x))?;
        let both = |a: Vec<Hold>, b: Vec<Hold>| a.iter().zip(b).map(|(a, b)| a.and(b)).collect();
        Ok(parts.into_iter().reduce(both).unwrap_or_default())
    }

    fn flat_curvature(&mut self, x: &[f64], flat: &[usize]) -> Result<Vec<f64>, StreamError> {
        let k = self.stream.k;
        let parts = self.each(|ds, (at, slots)| ds.real_flat_curvature((at, slots, x), flat, k))?;
        Ok(sums_added(parts, flat.len() * flat.len()))
    }

    fn lengths_per_pass(&self) -> usize {
        match self.chord {
            true => CHORD_LENGTHS_PER_PASS,
            false => LENGTHS_PER_PASS,
        }
    }
}
