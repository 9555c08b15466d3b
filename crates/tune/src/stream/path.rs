//! The streamed positions walking the path of pulls (`crate::path`): each solve is the
//! streamed Newton at one pull, each judgement a pass over the held-out positions.

use super::tuner::StreamTuner;
use super::{Stream, StreamError};
use crate::path::{walk, PullChoice, PullPoint, PullSolver};
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
        on: &mut dyn FnMut(&PullPoint),
    ) -> Result<Option<PullChoice>, StreamError> {
        let Some(start) = self.whole(|| self.validation_error(self.start))? else {
            return Ok(None);
        };
        let mut solver = StreamTuner::new(self, begun.clone());
        let fallback = (DEFAULT_L2, self.interrupt);
        walk(&mut solver, start, fallback, &mut |p| on(p)).map(Some)
    }
}

impl PullSolver for StreamTuner<'_, '_> {
    type Error = StreamError;

    fn solve(&mut self, l2: f64) -> Result<(f64, u64), StreamError> {
        // The path's solves are not checkpointed: a run stopped on the path walks it again.
        self.repull(l2);
        while self.newton.iterations < u64::from(MAX_ITERATIONS) && !self.newton.handed_over {
            self.iterate()?;
        }
        Ok((self.newton.error, self.newton.iterations))
    }

    fn held_out(&mut self) -> Result<f64, StreamError> {
        let error = self.stream.validation_error(&self.values)?;
        Ok(error.expect("the path is walked only with positions held out"))
    }
}
