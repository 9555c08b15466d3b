//! The streamed positions walking the path of pulls (`crate::path`): each solve is the
//! streamed Newton at one pull, each judgement a pass over the held-out positions; each
//! kept with the tuner's state, from which a resumed walk goes on.

use super::tuner::StreamTuner;
use super::{Stream, StreamError};
use crate::path::{walk, Hooks, OnPath, PullPoint, PullSolver, Stop, Walked};
use crate::run::Tuner;
use crate::settings::DEFAULT_L2;
use texel_solve::descent::DescentState;
use texel_solve::newton::MAX_ITERATIONS;

impl Stream<'_> {
    /// The pull of `L2::Auto`: the path of pulls walked from the fresh start `begun` (or
    /// on from where `from` stopped) and judged on the held-out positions, each pull told
    /// to `hooks` and kept by them; `None` when nothing is held out.
    pub(super) fn chosen_pull(
        &self,
        begun: DescentState<Vec<i32>>,
        from: Option<OnPath<Vec<i32>>>,
        hooks: Hooks<'_, PullPoint, Vec<i32>>,
    ) -> Result<Option<Walked<Vec<i32>>>, StreamError> {
        let Some(start) = self.whole(|| self.validation_error(self.start))? else {
            return Ok(None);
        };
        let (walking, at) = from.map(|p| (p.walking, p.at)).unzip();
        let at = at.flatten();
        let mut solver = StreamTuner::new(self, at.unwrap_or(begun));
        let stop = Stop {
            interrupt: self.interrupt,
            deadline: self.run.settings.run.deadline,
        };
        let walking = (start, walking.unwrap_or_default());
        walk(&mut solver, walking, (DEFAULT_L2, stop), hooks).map(Some)
    }
}

impl PullSolver for StreamTuner<'_, '_> {
    type Error = StreamError;
    type Values = Vec<i32>;

    fn solve(&mut self, l2: f64, stop: Stop<'_>) -> Result<(f64, u64), StreamError> {
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

    fn state(&self) -> DescentState<Vec<i32>> {
        Tuner::state(self)
    }

    fn interrupted(error: &StreamError) -> bool {
        matches!(error, StreamError::Stopped)
    }
}
