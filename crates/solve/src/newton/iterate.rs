//! One Newton iteration of every run, in memory or streamed, whatever answers its
//! [`Passes`]: the step off a saddle before the first iteration, the step proposed and
//! committed, the state moved, the end of the phase judged, and the step off a saddle where
//! the phase would end. A run keeps the iteration's values in the order of its passes.

use super::iteration::{commit, ends_phase, propose, Memory, Passes, Proposal, Pull, Shape};
use super::saddle::lift_state;
use crate::descent::NewtonState;
use crate::jacobian::Factor;

/// How a run's iterations go besides their passes.
pub struct Course<'a> {
    /// The L2 pull of the iteration's values.
    pub pull: Pull<'a>,
    /// How many positions the summed errors are over (the state keeps their mean).
    pub positions: f64,
    /// Whether the next iteration may reuse a factored Hessian (not where values are only
    /// linearized by secants, which are taken anew at every iteration).
    pub chords: bool,
}

/// What one iteration did: the relative fall of its objective, and the flat values it
/// stepped off a saddle (before its step, or after it where the phase would have ended).
pub struct Iterated {
    /// The objective's relative fall (0: no step lowered it).
    pub fall: f64,
    /// Values moved off a saddle.
    pub lifted: usize,
}

/// One iteration from `state` (its values and chord in the passes' order), the factor a
/// chord step reuses in `factor`. An error leaves `state` part-way: a run that must keep
/// it on an error iterates on a copy.
///
/// # Errors
/// A pass failed.
pub fn iterate<P: Passes>(
    passes: &mut P,
    state: &mut NewtonState,
    factor: &mut Option<Factor>,
    course: &Course,
) -> Result<Iterated, P::Error> {
    let mut lifted = 0;
    if state.iterations == 0 && state.lifts == 0 {
        // A start on a saddle is stepped off before the first iteration.
        lifted = lift_state(passes, state, &course.pull, (None, course.positions))?;
    }
    if lifted > 0 {
        *factor = None;
    }
    let mut memory = Memory {
        damping: state.damping,
        chord: state.chord.take(),
        factor: factor.take(),
    };
    let tried = propose(passes, &state.values, &course.pull, &mut memory)?;
    let shape = Shape {
        multiplies: passes.multiplies(),
        composes: passes.may_hold_flat(),
    };
    let (fall, sum) = conclude(state, memory, tried, (course, shape), factor);
    if state.handed_over {
        let more = lift_state(passes, state, &course.pull, (Some(sum), course.positions))?;
        if more > 0 {
            *factor = None;
        }
        lifted += more;
    }
    Ok(Iterated { fall, lifted })
}

/// `tried` committed into `state` (its values, mean error, damping, chord and iteration
/// count; handed over where the phase ends: `ends_phase`, for an evaluation of `shape`),
/// the factor a chord step reuses into `factor`;
/// the relative fall and the summed error where the state now stands.
pub fn conclude(
    state: &mut NewtonState,
    mut memory: Memory,
    tried: Proposal,
    (course, shape): (&Course, Shape),
    factor: &mut Option<Factor>,
) -> (f64, f64) {
    let sum_now = tried.sum_now;
    state.hessian_at = course.chords.then(|| tried.hessian_at().clone());
    let (fall, taken) = commit(&mut memory, tried, (course.chords, shape.tolerance()));
    let cut = taken.as_ref().is_some_and(|t| !t.full);
    let sum = match taken {
        Some(taken) => {
            state.values = taken.x;
            taken.sum
        }
        None => sum_now,
    };
    (state.damping, state.chord) = (memory.damping, memory.chord);
    state.error = sum / course.positions;
    state.iterations += 1;
    state.handed_over = ends_phase(fall, cut, shape);
    // The factor is kept for the next chord step, or for the rounding where the phase ends.
    let kept = state.chord.is_some() || state.handed_over;
    *factor = memory.factor.filter(|_| kept);
    (fall, sum)
}
