//! The streamed positions as Newton's passes: each answer reads the training positions from
//! the file once, chunk by chunk, and Newton's iterations are the one iteration of
//! `crate::newton` (the same as in memory).

use super::{Stream, StreamError, StreamEvent, StreamState};
use crate::error::real_sigmoid;
use crate::linear::LinearDataset;
use crate::model::Model;
use crate::newton::chain;
use crate::newton::chain::Hold;
use crate::newton::rows::{self, System};
use crate::newton::{
    commit, ends_phase, lift, propose, Memory, Passes, Pull, FIRST_DAMPING, MAX_ITERATIONS,
    MAX_LIFTS,
};
use std::time::Instant;

/// Step lengths one line-search pass judges: a pass costs the reading of the file, so it
/// judges eight lengths (1, ½, … 1/128) at once.
const LENGTHS_PER_PASS: usize = 8;
/// Step lengths a chord step's line-search pass judges: its step is nearly always taken
/// whole, and each length costs every position a sigmoid.
const CHORD_LENGTHS_PER_PASS: usize = 2;

impl Stream<'_> {
    /// Newton's iterations from `state` until one lowers the objective by less than
    /// `NEWTON_TOLERANCE` of it (or none can); then the values rounded for the polish.
    pub(super) fn newton(
        &self,
        state: &mut StreamState,
        on: &mut impl FnMut(StreamEvent),
    ) -> Result<(), StreamError> {
        let anchor: Vec<f64> = self
            .slots
            .iter()
            .map(|&s| f64::from(self.start[s]))
            .collect();
        let pull = Pull {
            l2: self.l2,
            anchor: &anchor,
        };
        let mut memory = Memory {
            damping: state.newton.damping,
            chord: state.newton.chord.clone(),
            factor: None,
        };
        let limit = u64::from(MAX_ITERATIONS).min(self.settings.run.passes as u64);
        let mut passes = StreamPasses {
            stream: self,
            ahead: None,
            composed: !self.trace.space().inner().is_empty(),
            chord: false,
        };
        let products = (self.trace.space().inner().iter())
            .flat_map(|term| term.parts())
            .any(|shape| shape.is_some_and(|s| s.times_value.is_some()));
        if state.newton.iterations == 0 && state.newton.lifts == 0 {
            // A start on a saddle is stepped off before the first iteration, as in memory.
            self.lifted(&mut passes, state, (&pull, &mut memory), on)?;
        }
        while state.newton.iterations < limit && !self.settings.run.out_of_time() {
            let clock = Instant::now();
            let newton = &mut state.newton;
            let tried = propose(&mut passes, &newton.values, &pull, &mut memory)?;
            let sum_now = tried.sum_now;
            let (fall, taken) = commit(&mut memory, tried, true);
            let cut = taken.as_ref().is_some_and(|t| !t.full);
            (newton.damping, newton.chord) = (memory.damping, memory.chord.clone());
            newton.error = sum_now / self.trained;
            if let Some(taken) = taken {
                (newton.values, newton.iterations) = (taken.x, newton.iterations + 1);
                newton.error = taken.sum / self.trained;
                on(StreamEvent::Iteration {
                    number: newton.iterations,
                    error: newton.error,
                    fall,
                    seconds: clock.elapsed().as_secs_f64(),
                });
            }
            if ends_phase(fall, cut, products)
                && !self.lifted(&mut passes, state, (&pull, &mut memory), on)?
            {
                break;
            }
            on(StreamEvent::Checkpoint(state.clone()));
        }
        state.polish = Some((self.rounded(&state.newton.values), 0));
        state.newton.handed_over = true;
        on(StreamEvent::Checkpoint(state.clone()));
        Ok(())
    }

    /// Where Newton starts or converged with values flat: the step off the saddle
    /// (`crate::newton::lift`), taken into `state` with a fresh damping; whether one was.
    fn lifted(
        &self,
        passes: &mut StreamPasses,
        state: &mut StreamState,
        (pull, memory): (&Pull, &mut Memory),
        on: &mut impl FnMut(StreamEvent),
    ) -> Result<bool, StreamError> {
        let newton = &mut state.newton;
        if !passes.composed || newton.lifts >= MAX_LIFTS {
            return Ok(false);
        }
        newton.lifts += 1;
        // A fresh state's error is not known yet (NaN): the lift reads it.
        let objective = (!newton.error.is_nan())
            .then(|| newton.error * self.trained + pull.penalty(&newton.values));
        let Some(lift) = lift(passes, &newton.values, pull, objective)? else {
            return Ok(false);
        };
        (newton.values, newton.error) = (lift.taken.x, lift.taken.sum / self.trained);
        *memory = Memory {
            damping: FIRST_DAMPING,
            chord: None,
            factor: None,
        };
        (newton.damping, newton.chord) = (FIRST_DAMPING, None);
        on(StreamEvent::Lifted {
            values: lift.values,
            error: newton.error,
        });
        Ok(true)
    }

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
struct StreamPasses<'s, 'a> {
    stream: &'s Stream<'a>,
    /// The values at the whole step of the last line search, their summed error and
    /// gradient.
    ahead: Option<(Vec<f64>, SumGradient)>,
    /// The trace composes inner sums: every answer goes through the chain rule
    /// (`crate::newton::chain`), each chunk scored at the start values.
    composed: bool,
    /// The last pass asked for was a gradient: the iteration is a chord step.
    chord: bool,
}

impl StreamPasses<'_, '_> {
    /// `f` of each chunk of the training positions, scored at the start values.
    fn each<T>(&self, f: impl Fn(&LinearDataset) -> T) -> Result<Vec<T>, StreamError> {
        self.stream.chunks(false, self.stream.start, |ds| f(ds))
    }
}

/// A summed error and its gradient.
type SumGradient = (f64, Vec<f64>);

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
