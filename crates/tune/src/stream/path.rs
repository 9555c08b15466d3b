//! The streamed positions walking the path of pulls (`crate::path`): each solve is the
//! streamed Newton at one pull, each judgement a pass over the held-out positions.

use super::tuner::StreamTuner;
use super::{Stream, StreamError};
use crate::path::{walk, PathStep, PullPoint, PullSolver, Stop, Walked};
use crate::settings::DEFAULT_L2;
use texel_solve::descent::DescentState;
use texel_solve::newton::MAX_ITERATIONS;

impl Stream<'_> {
    /// The pull of `L2::Auto`: the path of pulls walked from the fresh start `begun` and
    /// judged on the held-out positions, each pull solved told to `on`; `None` when
    /// nothing is held out.
    pub(super) fn chosen_pull(
        &self,
        begun: &DescentState<Vec<i32>>,
        on: &mut dyn FnMut(PathStep<PullPoint>),
    ) -> Result<Option<Walked<Vec<i32>>>, StreamError> {
        let Some(start) = self.whole(|| self.validation_error(self.start))? else {
            return Ok(None);
        };
        let mut solver = StreamTuner::new(self, begun.clone());
        let stop = Stop {
            interrupt: self.interrupt,
            deadline: self.run.settings.run.deadline,
        };
        walk(&mut solver, start, (DEFAULT_L2, stop), &mut |p| on(p)).map(Some)
    }
}

impl PullSolver for StreamTuner<'_, '_> {
    type Error = StreamError;
    type Values = Vec<i32>;

    fn solve(&mut self, l2: f64, stop: Stop<'_>) -> Result<(f64, u64), StreamError> {
        // The path's solves are not checkpointed: a run stopped on the path walks it again.
        self.repull(l2);
        let more = |t: &Self| t.newton.iterations < u64::from(MAX_ITERATIONS);
        while more(self) && !self.newton.handed_over && !stop.timed_out() {
            self.iterate()?;
        }
        Ok((self.newton.error, self.newton.iterations))
    }

    fn held_out(&mut self) -> Result<f64, StreamError> {
        let error = self.stream.validation_error(&self.values)?;
        Ok(error.expect("the path is walked only with positions held out"))
    }

    fn values(&self) -> Vec<i32> {
        self.values.clone()
    }
}
