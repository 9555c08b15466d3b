//! The streamed positions as the run's [`Tuner`]: each Newton iteration and each polish
//! round reads the file (the iteration's passes in `passes`, the round's in `polish`), and
//! the values the run stands at are kept as the checkpoint keeps them (Newton's state,
//! its real values rounded, their summed training error once read).

use super::passes::{StreamPasses, SumGradient};
use super::polish::Chunked;
use super::{Stream, StreamError};
use crate::run::{Methods, RunError, Tuner};
use texel_linear::TraceDataset;
use texel_solve::descent::{
    relative_fall, Cursor, DescentState, Guards, NewtonState, PassSummary, Variable,
};
use texel_solve::error::SigmoidTable;
use texel_solve::jacobian::Factor;
use texel_solve::newton::{iterate, Course, Pull};
use texel_solve::polish::{round, Objective};

/// A streamed tune's values and Newton's memory between passes.
pub(crate) struct StreamTuner<'s, 'a> {
    pub(super) stream: &'s Stream<'a>,
    /// The tuned values (Newton's real values rounded; every value of the space).
    pub(super) values: Vec<i32>,
    /// Newton's state.
    pub(super) newton: NewtonState,
    /// The summed training error of `values` (NaN until read).
    sum: f64,
    /// The L2 pull toward the start (given, or chosen by the path of pulls).
    l2: f64,
    /// The factored Hessian Newton's chord steps reuse (taken again after a resume).
    factor: Option<Factor>,
    /// The line search's gradient at its whole step, which a chord step reuses.
    ahead: Option<(Vec<f64>, SumGradient)>,
    /// The tuned slots as variables of step 1.
    vars: Vec<Variable>,
    /// Each variable's last probed change in the polish (`texel_solve::polish::round`).
    last: Vec<(f64, i32)>,
    /// The error function of the integer evaluations.
    table: SigmoidTable,
}

impl<'s, 'a> StreamTuner<'s, 'a> {
    /// The tuner of `stream` at `state` (a fresh start's or a checkpoint's).
    pub(super) fn new(stream: &'s Stream<'a>, state: DescentState<Vec<i32>>) -> Self {
        let newton = state.newton.unwrap_or_else(|| stream.newton_start());
        let mut last = state.gains;
        last.resize(stream.slots.len(), (0.0, 0));
        StreamTuner {
            stream,
            values: state.params,
            newton,
            sum: state.sum,
            l2: state.guards.l2,
            factor: None,
            ahead: None,
            vars: (stream.slots.iter())
                .map(|&slot| Variable { slot, step: 1 })
                .collect(),
            last,
            table: SigmoidTable::new(stream.k),
        }
    }

    /// The summed training error of the values now, once read.
    pub(super) fn sum(&self) -> Option<f64> {
        Some(self.sum).filter(|s| !s.is_nan())
    }

    /// The summed training error of the values now (one pass when not known).
    fn summed(&mut self) -> Result<f64, StreamError> {
        if self.sum.is_nan() {
            self.sum = self.stream.integer_sum(false, &self.values, &self.table)?;
        }
        Ok(self.sum)
    }

    /// Newton's state restarted at pull `l2` from where it is (a path of pulls' next
    /// solve): a fresh phase, its first step a chord step with the factor kept
    /// ([`NewtonState::restarted`]); the gradient the last line search read stays known
    /// (it does not depend on the pull).
    pub(super) fn repull(&mut self, l2: f64) {
        self.newton = self.newton.clone().restarted(false);
        self.l2 = l2;
    }

    /// One Newton iteration (`texel_solve::newton::iterate`), then the values rounded;
    /// `Stopped` leaves everything as it was.
    pub(super) fn iterate(&mut self) -> Result<PassSummary, StreamError> {
        let stream = self.stream;
        let anchor = stream.anchor();
        let course = Course {
            pull: Pull {
                l2: self.l2,
                anchor: &anchor,
            },
            positions: stream.trained,
            chords: true,
        };
        let mut passes = StreamPasses::new(stream, self.ahead.take());
        let mut newton = self.newton.clone();
        let done = iterate(&mut passes, &mut newton, &mut self.factor, &course)?;
        self.ahead = passes.ahead;
        Ok(self.moved_to(newton, done.fall, done.lifted))
    }

    /// Newton at `newton` now, its values rounded: what the iteration did.
    fn moved_to(&mut self, newton: NewtonState, fall: f64, lifted: usize) -> PassSummary {
        let mut values = self.stream.rounded(&newton.values);
        if let Some(factor) = self.factor.as_ref().filter(|_| newton.handed_over) {
            self.stream.settled(factor, &newton.values, &mut values);
        }
        let changed = (values.iter().zip(&self.values))
            .filter(|(a, b)| a != b)
            .count();
        if changed > 0 {
            (self.values, self.sum) = (values, f64::NAN);
        }
        self.newton = newton;
        PassSummary {
            error: self.newton.error,
            fall,
            moves: changed as u64,
            changed,
            probes: 0,
            lifted,
        }
    }

    /// One round of the polish; `Stopped` leaves everything as it was.
    fn polished(&mut self) -> Result<PassSummary, StreamError> {
        let sum = self.summed()?;
        let anchor = self.stream.start.to_vec();
        let objective = Objective {
            anchor: &anchor,
            l2: self.l2,
            constraints: false,
        };
        let mut lattice = Chunked {
            stream: self.stream,
            table: &self.table,
            probes: 0,
        };
        let done = round(
            &mut lattice,
            (&self.values, sum),
            &self.vars,
            &objective,
            &mut self.last,
        )?;
        let moved = done.as_ref().map_or(0, |r| r.moved);
        if let Some(done) = done {
            (self.values, self.sum) = (done.values, done.sum);
        }
        let trained = self.stream.trained;
        Ok(PassSummary {
            error: self.sum / trained,
            fall: relative_fall(sum, self.sum),
            moves: moved as u64,
            changed: moved,
            probes: lattice.probes,
            lifted: 0,
        })
    }
}

/// A pass's answer, or `None` where the interrupt stopped it.
fn stopped_or<T>(answer: Result<T, StreamError>) -> Result<Option<T>, RunError> {
    match answer {
        Ok(t) => Ok(Some(t)),
        Err(StreamError::Stopped) => Ok(None),
        Err(e) => Err(RunError::Positions(Box::new(e))),
    }
}

/// A reading of the positions that must not stop half-way.
fn read<T>(answer: Result<T, StreamError>) -> Result<T, RunError> {
    answer.map_err(|e| RunError::Positions(Box::new(e)))
}

impl<'d, 's: 'd, 'a: 'd> Tuner<'d> for StreamTuner<'s, 'a> {
    type Model = TraceDataset;

    fn newton_iteration(&mut self) -> Result<Option<PassSummary>, RunError> {
        let done = self.iterate();
        stopped_or(done)
    }

    fn polish_round(&mut self) -> Result<Option<PassSummary>, RunError> {
        let done = self.polished();
        stopped_or(done)
    }

    fn lattice_polish(&self) -> bool {
        true
    }

    fn train_error(&mut self) -> Result<f64, RunError> {
        let sum = self.stream.whole(|| self.summed());
        Ok(read(sum)? / self.stream.trained)
    }

    fn validation_error(&mut self) -> Result<Option<f64>, RunError> {
        let stream = self.stream;
        read(stream.whole(|| stream.validation_error(&self.values)))
    }

    fn newton_iterations(&self) -> u64 {
        self.newton.iterations
    }

    fn newton_handed_over(&self) -> bool {
        self.newton.handed_over
    }

    fn hand_over_to_polish(&mut self) {
        self.newton.handed_over = true;
    }

    fn real_error(&self) -> Option<f64> {
        Some(self.newton.error).filter(|e| !e.is_nan())
    }

    fn error(&self) -> f64 {
        self.sum / self.stream.trained
    }

    fn params(&self) -> &Vec<i32> {
        &self.values
    }

    fn state(&self) -> DescentState<Vec<i32>> {
        DescentState {
            params: self.values.clone(),
            anchor: self.stream.start.to_vec(),
            guards: Guards {
                l2: self.l2,
                constraints: false,
            },
            sum: self.sum,
            gains: self.last.clone(),
            probes: 0,
            cursor: Cursor::default(),
            adam: None,
            newton: Some(self.newton.clone()),
        }
    }

    fn variables(&self) -> usize {
        self.vars.len()
    }
}

/// Read from their file in every pass, the positions take Newton's iteration and its
/// lattice polish only (the settings refuse every other method for a streamed run).
impl<'d, 's: 'd, 'a: 'd> Methods<'d> for StreamTuner<'s, 'a> {}
