//! The streamed positions walking the path of pulls (`crate::path`): each solve is the
//! streamed Newton at one pull, each judgement a pass over the held-out positions.

use super::{Stream, StreamError, StreamEvent, StreamState};
use crate::job::DEFAULT_L2;
use crate::path::{walk, PullChoice, PullSolver};

/// A streamed tune's state, moved from pull to pull.
struct OnPath<'s, 'a> {
    stream: &'s mut Stream<'a>,
    state: StreamState,
}

impl PullSolver for OnPath<'_, '_> {
    type Error = StreamError;

    fn solve(&mut self, l2: f64) -> Result<(f64, u64), StreamError> {
        self.stream.l2 = l2;
        let state = &mut self.state;
        restart(state);
        state.l2 = l2;
        // The path's solves are not checkpointed: a run stopped on the path walks it again.
        self.stream.newton(state, &mut |_| {})?;
        Ok((state.newton.error, state.newton.iterations))
    }

    fn held_out(&mut self) -> Result<f64, StreamError> {
        let (values, _) = self
            .state
            .polish
            .as_ref()
            .expect("a solve rounds its values");
        let error = self.stream.validation_error(values)?;
        Ok(error.expect("the path is walked only with positions held out"))
    }
}

/// A fresh Newton phase from `state`'s real values (`NewtonState::restarted`), not rounded.
fn restart(state: &mut StreamState) {
    state.newton = state.newton.clone().restarted();
    state.polish = None;
}

impl Stream<'_> {
    /// `state` (the fresh start) with the pull of `--l2 auto`: the path of pulls walked
    /// from it and judged on the held-out positions, or [`DEFAULT_L2`] when nothing is held
    /// out.
    pub(super) fn chosen_pull(
        &mut self,
        state: StreamState,
        on: &mut impl FnMut(StreamEvent),
    ) -> Result<StreamState, StreamError> {
        let Some(start) = self.validation_error(self.start)? else {
            on(StreamEvent::PullChosen(PullChoice::Default(DEFAULT_L2)));
            self.l2 = DEFAULT_L2;
            return Ok(StreamState {
                l2: DEFAULT_L2,
                ..state
            });
        };
        let fallback = (DEFAULT_L2, self.interrupt);
        let mut solver = OnPath {
            stream: self,
            state: state.clone(),
        };
        let choice = walk(&mut solver, start, fallback, &mut |p| {
            on(StreamEvent::Pull(*p))
        })?;
        on(StreamEvent::PullChosen(choice));
        // The run tunes at the chosen pull from the start, as in memory.
        self.l2 = choice.l2();
        let next = StreamState {
            l2: self.l2,
            ..state
        };
        on(StreamEvent::Checkpoint(next.clone()));
        Ok(next)
    }
}
