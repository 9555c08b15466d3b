//! The path of pulls (`--l2 auto`, the default): which L2 pull toward the start gives the
//! table that predicts games the tune never saw best.
//!
//! Newton solves the training positions at each pull of [`PULL_PATH`], strongest first, each
//! solve warm-started from the one before (a stronger pull's optimum is near a weaker
//! one's, so a solve takes a few iterations), its first step a chord step with the last
//! Hessian factored again at the new pull where the evaluation is linear in every tuned
//! value (`texel_solve::NewtonState::restarted`: no pass over the positions for the
//! Hessian). Each pull is told as its solve begins
//! ([`PathStep`]) and ends, with its seconds. Each solution is rounded and scored on the
//! held-out positions (held out by game where the positions name their games); the pull
//! whose solution scores them best is chosen (the stronger of equals), and the run tunes at
//! that pull from the start: its Newton iterations, then the polish. After each step the
//! walk and its solver's state are kept (`Hooks::keep`: the run's checkpoint, see
//! `crate::begin`), so a stopped walk resumes where it stood. The path ends early once
//! [`PATIENCE`] pulls in a row score the held-out positions worse than the best so far (a
//! pull that scores them as well as the best is not worse): past its best pull the held-out
//! error only rises as the pull weakens, and the weak pulls are the slow solves.
//!
//! Where some tuned values move only by secants (texel's king attack curves and its
//! formulas' weights: a whole iteration takes a fresh Hessian and their secant columns),
//! the walk is coarse to fine ([`PullSolver::refines`]): every pull first with those values
//! held where they stand (at most [`COARSE_ITERATIONS`] cheap chord steps of the linear
//! values), until one scores worse
//! than the best coarse step ([`COARSE_PATIENCE`]); then the best coarse pull and its
//! neighbours ([`WHOLE_STEPS`]) stepped whole, each begun afresh where its own coarse solve
//! ended ([`WHOLE_ITERATIONS`]: the three, moved alike, rank as their solves would), the
//! choice made among the whole steps; the run goes on from the chosen step's values
//! ([`Walked::goes_on`]) instead of starting again. One walk serves every run: the
//! positions in memory and those read from a file each answer [`PullSolver`].

mod memory;

use crate::run::RunError;
pub(crate) use memory::{path_descent, MemoryPulls, Relabelled};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use texel_solve::descent::DescentState;

/// The pulls the path solves, strongest first (a pull of λ costs moving a value 100 units
/// as much summed error as λ positions wrong by a whole result).
pub const PULL_PATH: [f64; 15] = [
    1e5, 3e4, 1e4, 3e3, 1e3, 300.0, 100.0, 30.0, 10.0, 3.0, 1.0, 0.3, 0.1, 0.03, 0.01,
];

/// The path ends after this many pulls in a row score the held-out positions worse than
/// its best so far.
pub const PATIENCE: usize = 2;

/// The coarse steps of a walk that refine end after this many in a row score the held-out
/// positions worse than the best coarse step: the first of them is one of the whole steps
/// anyway.
pub const COARSE_PATIENCE: usize = 1;

/// The whole steps of a walk that refines: the best coarse step and its neighbours on the
/// path.
pub const WHOLE_STEPS: usize = 3;

/// Newton iterations of a coarse step at most: the chord step at the new pull and one more
/// (a coarse solution only ranks its pull and is where its whole step begins: on the
/// shipped games and configurations the same pulls and held-out errors within 2·10⁻³
/// of coarse solves to the end, the walk a fifth quicker).
pub const COARSE_ITERATIONS: u32 = 2;

/// Newton iterations of a whole step of a walk that refines, begun afresh where its own
/// coarse step ended: enough to rank the steps (each moved alike from its own coarse
/// solution); the run then tunes at the pull chosen from the start, to the end.
pub const WHOLE_ITERATIONS: u32 = 1;

/// One pull of the path and what its solve reached.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PullPoint {
    /// The pull.
    pub l2: f64,
    /// The mean training error of the solve's real values.
    pub train: f64,
    /// The mean error of its rounded values on the held-out positions.
    pub held_out: f64,
    /// Newton iterations the solve took.
    pub iterations: u64,
    /// Seconds the solve and its judgement took.
    pub seconds: f64,
    /// Solved with the values that move only by secants held where they stand (a coarse
    /// step: it says where the whole solves go, and is never chosen after one).
    pub coarse: bool,
}

/// What a path tells as it goes: each step (a pull, or a λ) as its solve begins, and what
/// the solve reached.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum PathStep<P> {
    /// The solve of this step begins.
    Solving(f64),
    /// A step solved.
    Solved(P),
}

impl<P> PathStep<P> {
    /// The same step told as `Q`.
    pub fn map<Q>(self, f: impl FnOnce(P) -> Q) -> PathStep<Q> {
        match self {
            PathStep::Solving(step) => PathStep::Solving(step),
            PathStep::Solved(p) => PathStep::Solved(f(p)),
        }
    }
}

/// How a run's pull was chosen.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum PullChoice {
    /// The path's pull with the lowest held-out error.
    Path {
        /// The pull.
        l2: f64,
        /// Its solution's held-out error.
        held_out: f64,
        /// The start's held-out error.
        start: f64,
        /// Pulls solved.
        solved: usize,
    },
    /// Nothing is held out to judge a pull on: the default pull.
    Default(f64),
    /// The path was stopped (an interrupt, the run's deadline) before it solved a pull: the
    /// pull it falls back to.
    Stopped(f64),
}

impl PullChoice {
    /// The pull chosen.
    pub fn l2(self) -> f64 {
        match self {
            PullChoice::Path { l2, .. } | PullChoice::Default(l2) | PullChoice::Stopped(l2) => l2,
        }
    }
}

/// What ends a path before its end: an interrupt, looked at between solves, and the run's
/// deadline (`--max-time`), which ends a solve too at its next iteration.
#[derive(Copy, Clone)]
pub(crate) struct Stop<'a> {
    /// Raised by Ctrl-C.
    pub interrupt: &'a AtomicBool,
    /// The run's end at the latest.
    pub deadline: Option<Instant>,
}

impl Stop<'_> {
    /// Whether the deadline has passed.
    pub fn timed_out(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// A path walked: the choice, and the rounded values of its best solve where they score the
/// held-out positions better than the start (none where nothing was solved).
pub(crate) struct Walked<V, C = PullChoice> {
    /// The pull (or λ) chosen.
    pub choice: C,
    /// The values the best solve's held-out error was read at.
    pub best: Option<V>,
    /// The interrupt ended the path before its end: its choice is not the unbroken path's.
    pub interrupted: bool,
    /// The run goes on from `best` rather than from the start: the walk refined, its
    /// chosen step the first of the chosen pull's whole iterations, begun at that pull's
    /// coarse solution (a walk that does not refine solved its steps to the end from its
    /// neighbours' solutions, and the run tunes afresh from the start).
    pub goes_on: bool,
}

/// Where a walk stands: its steps solved, in order, and the rounded values of the best of
/// them; with the solver's state, what a checkpoint keeps to walk on exactly.
#[derive(Clone, Debug, PartialEq)]
pub struct Walking<V> {
    /// The steps solved.
    pub solved: Vec<PullPoint>,
    /// The rounded values of the best step (see [`Walking::judged`]).
    pub best: Option<V>,
    /// The rounded values each coarse step ended at, in order: a whole step begins at its
    /// own coarse step's.
    pub coarse_ends: Vec<V>,
}

impl<V> Default for Walking<V> {
    fn default() -> Self {
        Walking {
            solved: Vec::new(),
            best: None,
            coarse_ends: Vec::new(),
        }
    }
}

/// How a walk solves a step.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Solve {
    /// Whole, warm from where the last solve ended (a walk that does not refine).
    Whole,
    /// With the values that move only by secants held where they stand.
    Coarse,
    /// Whole from where the coarse step of this index on the path ended
    /// ([`PullSolver::refine`]).
    Refined(usize),
}

impl<V> Walking<V> {
    /// The best step solved (lowest held-out error, the stronger of equals) and how many
    /// steps in a row after it scored the held-out positions worse: among the whole steps
    /// (the coarse ones before them only said where to solve), or the coarse ones while
    /// there are none.
    pub fn judged(&self) -> (Option<usize>, usize) {
        let coarse = self.solved.iter().all(|p| p.coarse);
        self.judged_among(coarse)
    }

    /// [`Walking::judged`] among the steps solved coarse (`coarse`) or whole.
    fn judged_among(&self, coarse: bool) -> (Option<usize>, usize) {
        let (mut best, mut worse) = (None::<usize>, 0);
        let steps = self.solved.iter().enumerate();
        for (i, p) in steps.filter(|(_, p)| p.coarse == coarse) {
            match best.map(|b| self.solved[b].held_out) {
                Some(b) if b < p.held_out => worse += 1,
                // Equal: the stronger pull stays the best (a weak pull that moves nothing
                // more is no reason to end the path).
                Some(b) if b == p.held_out => {}
                _ => (best, worse) = (Some(i), 0),
            }
        }
        (best, worse)
    }

    /// The next step of a walk of `path` (`None`: the walk has ended), and how it is
    /// solved. Where `refines` (the solver's coarse solves differ from its whole ones), the
    /// walk solves `path` coarse until [`COARSE_PATIENCE`] steps in a row score worse than
    /// the best, then whole the best coarse step and its neighbours on `path`, strongest first,
    /// each from its own coarse step's end; otherwise it solves `path` whole with the same
    /// patience.
    fn next_step(&self, path: &[f64], refines: bool) -> Option<(f64, Solve)> {
        if !refines {
            let next = path
                .get(self.solved.len())
                .filter(|_| self.judged().1 < PATIENCE);
            return next.map(|&l2| (l2, Solve::Whole));
        }
        let coarse = self.solved.iter().filter(|p| p.coarse).count();
        let (best, worse) = self.judged_among(true);
        if worse < COARSE_PATIENCE && coarse < path.len() {
            return Some((path[coarse], Solve::Coarse));
        }
        // The coarse steps are the first of `path`, in order: the best's index is its own.
        let best = best?;
        let first = best.saturating_sub(WHOLE_STEPS / 2);
        let neighbours = first..(first + WHOLE_STEPS).min(coarse);
        neighbours
            .map(|k| (path[k], Solve::Refined(k)))
            .nth(self.solved.len() - coarse)
    }

    /// The walk as it ended: its choice (`fallback` where nothing was solved), and the
    /// best values where they score better than the start's held-out error `start`, the
    /// run going on from them where the walk `refines`.
    fn walked(self, (start, fallback): (f64, f64), interrupted: bool, refines: bool) -> Walked<V> {
        let solved = self.solved.len();
        match self.judged().0.map(|i| self.solved[i]) {
            Some(point) => Walked {
                choice: PullChoice::Path {
                    l2: point.l2,
                    held_out: point.held_out,
                    start,
                    solved,
                },
                best: self.best.filter(|_| point.held_out < start),
                interrupted,
                goes_on: refines,
            },
            None => Walked {
                choice: PullChoice::Stopped(fallback),
                best: None,
                interrupted,
                goes_on: refines,
            },
        }
    }
}

/// Which of a tune's paths a walk is; a fresh start walks them in this order (see
/// `crate::begin`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PathWalk {
    /// The path of pulls.
    Pulls,
    /// The path of λs, at the pull the path of pulls chose.
    Lambdas,
    /// The path of pulls again, on the targets of the λ chosen.
    PullsAgain,
}

/// A run stopped on one of its paths, before its run began: the walk under way, where it
/// stands, and the solver's state after its last step.
#[derive(Clone, Debug, PartialEq)]
pub struct OnPath<V> {
    /// The walk under way.
    pub walk: PathWalk,
    /// Its steps solved.
    pub walking: Walking<V>,
    /// The solver's state after the last step (`None`: the walk has not begun; it begins
    /// at the start).
    pub at: Option<DescentState<V>>,
    /// The pull the path of λs walks at (the one the path of pulls chose, or the one given).
    pub pull: Option<f64>,
    /// The best values of the walks before it (handed back where the run's time runs out).
    pub earlier: Option<V>,
}

/// What a walk tells as it goes (each step as it begins and ends, as `P`) and where it
/// keeps its standing after each step (a checkpoint).
pub(crate) struct Hooks<'h, P, V> {
    /// Hears each step.
    pub on: &'h mut dyn FnMut(PathStep<P>),
    /// Keeps the walk's standing and the solver's state after a step.
    pub keep: &'h mut Keep<'h, V>,
}

/// What keeps a walk's standing and its solver's state after a step (a checkpoint).
pub(crate) type Keep<'h, V> = dyn FnMut(&Walking<V>, DescentState<V>) -> Result<(), RunError> + 'h;

/// Where the positions answer the path: a Newton solve at a pull (or, on the path of λs,
/// with the targets of a λ), warm-started where the last one ended, and the held-out error
/// of its values rounded.
pub(crate) trait PullSolver {
    /// Why a solve failed (reading a file), or the walk could not be kept.
    type Error: From<RunError>;
    /// The values a solve ends at.
    type Values;

    /// Newton's iterations at pull `l2` from where the last solve ended (the start at
    /// first) until they converge, or `stop` times out: the mean training error of the
    /// real values and the iterations taken.
    fn solve(&mut self, l2: f64, stop: Stop<'_>) -> Result<(f64, u64), Self::Error>;

    /// [`PullSolver::solve`] with the values that move only by secants held where they
    /// stand, in at most [`COARSE_ITERATIONS`] (a coarse solve: the linear values alone).
    fn solve_coarse(&mut self, l2: f64, stop: Stop<'_>) -> Result<(f64, u64), Self::Error> {
        self.solve(l2, stop)
    }

    /// Whether a coarse solve differs from a whole one (some value moves only by
    /// secants): then a walk solves its steps coarse first and whole only near the best.
    fn refines(&self) -> bool {
        false
    }

    /// A whole step of a walk that refines: [`WHOLE_ITERATIONS`] of Newton at pull `l2`
    /// begun afresh at `from` (the rounded values the step's coarse solve ended at), every
    /// value moving. By default [`PullSolver::solve`] (a solver that does not refine).
    fn refine(
        &mut self,
        l2: f64,
        _from: &Self::Values,
        stop: Stop<'_>,
    ) -> Result<(f64, u64), Self::Error> {
        self.solve(l2, stop)
    }

    /// The mean held-out error of the last solve's values, rounded.
    fn held_out(&mut self) -> Result<f64, Self::Error>;

    /// The last solve's values, rounded (those [`PullSolver::held_out`] reads).
    fn values(&self) -> Self::Values;

    /// Everything the next solve goes on from (a resumed walk's solver begins there).
    fn state(&self) -> DescentState<Self::Values>;

    /// Whether `error` is the interrupt's, raised part-way through a solve or judgement
    /// (a reading stopped between chunks): the walk ends there as interrupted.
    fn interrupted(_error: &Self::Error) -> bool {
        false
    }
}

/// `solver`'s solve at pull `l2` as `how` says (a refined step from its coarse step's end
/// in `coarse_ends`) and its held-out error: the training error, the iterations and the
/// held-out error.
fn solved<S: PullSolver>(
    solver: &mut S,
    (l2, how): (f64, Solve),
    (coarse_ends, stop): (&[S::Values], Stop<'_>),
) -> Result<(f64, u64, f64), S::Error> {
    let (train, iterations) = match how {
        Solve::Coarse => solver.solve_coarse(l2, stop)?,
        Solve::Refined(k) if k < coarse_ends.len() => solver.refine(l2, &coarse_ends[k], stop)?,
        // A whole step, or a refined one whose coarse end a checkpoint of an older build
        // did not keep: on from where the solver stands.
        Solve::Whole | Solve::Refined(_) => solver.solve(l2, stop)?,
    };
    Ok((train, iterations, solver.held_out()?))
}

/// Walks [`PULL_PATH`] with `solver` (see the module's page), `start` being the start's
/// held-out error, from `walking` (a resumed walk's steps, the solver at the last one's
/// state); `hooks` hear of every pull as its solve begins and ends and keep the walk after
/// it. A `stop` ends the path after the solve under way (a deadline cuts that solve short
/// too); with no pull solved the choice is `fallback`, stopped.
pub(crate) fn walk<S: PullSolver>(
    solver: &mut S,
    (start, walking): (f64, Walking<S::Values>),
    fallback: (f64, Stop<'_>),
    hooks: Hooks<'_, PullPoint, S::Values>,
) -> Result<Walked<S::Values>, S::Error> {
    walk_path(solver, (&PULL_PATH, start, walking), fallback, hooks)
}

/// Walks `path` with `solver` as [`walk`] walks the pulls (the path of λs walks its λs so:
/// the first of equals chosen, [`PATIENCE`] worse ones in a row end it). The steps of
/// `walking` are told again first, not solved again.
pub(crate) fn walk_path<S: PullSolver>(
    solver: &mut S,
    (path, start, mut walking): (&[f64], f64, Walking<S::Values>),
    (fallback, stop): (f64, Stop<'_>),
    hooks: Hooks<'_, PullPoint, S::Values>,
) -> Result<Walked<S::Values>, S::Error> {
    walking
        .solved
        .iter()
        .for_each(|&p| (hooks.on)(PathStep::Solved(p)));
    let refines = solver.refines();
    let interrupted = loop {
        if stop.interrupt.load(Ordering::SeqCst) {
            break true;
        }
        let next = walking.next_step(path, refines);
        let Some((l2, how)) = next.filter(|_| !stop.timed_out()) else {
            break false;
        };
        (hooks.on)(PathStep::Solving(l2));
        let began = Instant::now();
        let ends = (walking.coarse_ends.as_slice(), stop);
        let (train, iterations, held_out) = match solved(solver, (l2, how), ends) {
            // Stopped part-way: the walk stands where its last step left it.
            Err(e) if S::interrupted(&e) => break true,
            solved => solved?,
        };
        let point = PullPoint {
            l2,
            train,
            held_out,
            iterations,
            seconds: began.elapsed().as_secs_f64(),
            coarse: how == Solve::Coarse,
        };
        (hooks.on)(PathStep::Solved(point));
        walking.solved.push(point);
        if point.coarse {
            walking.coarse_ends.push(solver.values());
        }
        if walking.judged().0 == Some(walking.solved.len() - 1) {
            walking.best = Some(solver.values());
        }
        (hooks.keep)(&walking, solver.state())?;
    };
    Ok(walking.walked((start, fallback), interrupted, refines))
}

#[cfg(test)]
mod tests {
    use super::*;
    use texel_solve::descent::Guards;

    /// A solver whose held-out error is a given function of the pull.
    struct Curve<F: Fn(f64) -> f64> {
        held: F,
        at: f64,
        solves: Vec<f64>,
    }

    impl<F: Fn(f64) -> f64> PullSolver for Curve<F> {
        type Error = RunError;
        type Values = f64;

        fn solve(&mut self, l2: f64, _stop: Stop<'_>) -> Result<(f64, u64), RunError> {
            self.solves.push(l2);
            self.at = l2;
            Ok((1.0 / (1.0 + l2), 1))
        }

        fn held_out(&mut self) -> Result<f64, RunError> {
            Ok((self.held)(self.at))
        }

        fn values(&self) -> f64 {
            self.at
        }

        fn state(&self) -> DescentState<f64> {
            DescentState::starting(self.at, Guards::default(), 0.0, 0)
        }
    }

    /// A [`Curve`] whose coarse solves differ: their held-out error is `coarse` of the pull.
    struct Refining<F: Fn(f64) -> f64, G: Fn(f64) -> f64> {
        whole: Curve<F>,
        coarse: G,
        /// The pulls solved coarse.
        coarse_solves: Vec<f64>,
        /// Where each whole solve began (a coarse solve's values are its pull).
        whole_from: Vec<f64>,
        /// Whether the last solve was coarse.
        last_coarse: bool,
    }

    impl<F: Fn(f64) -> f64, G: Fn(f64) -> f64> PullSolver for Refining<F, G> {
        type Error = RunError;
        type Values = f64;

        fn solve(&mut self, l2: f64, stop: Stop<'_>) -> Result<(f64, u64), RunError> {
            self.last_coarse = false;
            self.whole.solve(l2, stop)
        }

        fn solve_coarse(&mut self, l2: f64, _stop: Stop<'_>) -> Result<(f64, u64), RunError> {
            (self.last_coarse, self.whole.at) = (true, l2);
            self.coarse_solves.push(l2);
            Ok((2.0 / (1.0 + l2), 1))
        }

        fn refines(&self) -> bool {
            true
        }

        fn refine(&mut self, l2: f64, from: &f64, stop: Stop<'_>) -> Result<(f64, u64), RunError> {
            self.whole_from.push(*from);
            self.solve(l2, stop)
        }

        fn held_out(&mut self) -> Result<f64, RunError> {
            match self.last_coarse {
                true => Ok((self.coarse)(self.whole.at)),
                false => self.whole.held_out(),
            }
        }

        fn values(&self) -> f64 {
            self.whole.values()
        }

        fn state(&self) -> DescentState<f64> {
            self.whole.state()
        }
    }

    /// A refining solver whose whole solves score `whole` and coarse ones `coarse`.
    fn refining<F: Fn(f64) -> f64, G: Fn(f64) -> f64>(whole: F, coarse: G) -> Refining<F, G> {
        Refining {
            whole: Curve {
                held: whole,
                at: f64::NAN,
                solves: Vec::new(),
            },
            coarse,
            coarse_solves: Vec::new(),
            whole_from: Vec::new(),
            last_coarse: false,
        }
    }

    /// `solver`'s walk of the pulls from `walking` (start's held-out error `start`), each
    /// step told to `on`, every standing kept appended to `kept`.
    fn walk_with<S: PullSolver<Values = f64, Error = RunError>>(
        solver: &mut S,
        (start, walking): (f64, Walking<f64>),
        stop: Stop<'_>,
        on: &mut dyn FnMut(PathStep<PullPoint>),
        kept: &mut Vec<(Walking<f64>, f64)>,
    ) -> Walked<f64> {
        let hooks = Hooks {
            on,
            keep: &mut |w, at| {
                kept.push((w.clone(), at.params));
                Ok(())
            },
        };
        walk(solver, (start, walking), (0.1, stop), hooks).unwrap()
    }

    fn stop(interrupt: &AtomicBool) -> Stop<'_> {
        Stop {
            interrupt,
            deadline: None,
        }
    }

    fn walk_curve(held: impl Fn(f64) -> f64) -> (PullChoice, Vec<f64>) {
        let mut solver = Curve {
            held,
            at: f64::NAN,
            solves: Vec::new(),
        };
        let never = AtomicBool::new(false);
        let mut told = Vec::new();
        let walked = walk_with(
            &mut solver,
            (1.0, Walking::default()),
            stop(&never),
            &mut |step| told.push(step),
            &mut Vec::new(),
        );
        // Each pull is told as its solve begins, then solved.
        let pairs: Vec<(f64, f64)> = (told.chunks(2))
            .map(|pair| match pair {
                [PathStep::Solving(a), PathStep::Solved(p)] => (*a, p.l2),
                _ => panic!("not a pull begun then solved: {pair:?}"),
            })
            .collect();
        assert!(pairs.iter().all(|(a, b)| a == b) && pairs.len() == solver.solves.len());
        assert_eq!(
            walked.best,
            Some(walked.choice.l2()),
            "the best solve's values"
        );
        (walked.choice, solver.solves)
    }

    #[test]
    fn the_pull_with_the_lowest_held_out_error_is_chosen_and_the_path_stops_past_it() {
        // Held-out error lowest at a pull of 100.
        let (walked, solves) = walk_curve(|l2: f64| (l2.log10() - 2.0).powi(2));
        assert_eq!(walked.l2(), 100.0);
        assert_eq!(solves, [1e5, 3e4, 1e4, 3e3, 1e3, 300.0, 100.0, 30.0, 10.0]);
        let PullChoice::Path { solved, start, .. } = walked else {
            panic!("not the path's choice");
        };
        assert_eq!((solved, start), (9, 1.0));
    }

    #[test]
    fn the_stronger_of_equal_pulls_is_chosen_and_equal_pulls_do_not_end_the_path() {
        let (walked, solves) = walk_curve(|_| 0.5);
        assert_eq!(walked.l2(), 1e5);
        assert_eq!(solves, PULL_PATH);
        // Nothing moves until a pull of 30, the best at 10.
        let (walked, solves) = walk_curve(|l2: f64| match l2 {
            l2 if l2 > 30.0 => 0.5,
            10.0 => 0.3,
            _ => 0.4,
        });
        assert_eq!(walked.l2(), 10.0);
        assert_eq!(solves.last(), Some(&1.0));
    }

    #[test]
    fn an_interrupt_before_any_solve_falls_back() {
        let mut solver = Curve {
            held: |_| 0.0,
            at: 0.0,
            solves: Vec::new(),
        };
        let raised = AtomicBool::new(true);
        let start = (1.0, Walking::default());
        let walked = walk_with(
            &mut solver,
            start,
            stop(&raised),
            &mut |_| {},
            &mut Vec::new(),
        );
        assert_eq!(
            (walked.choice, walked.best),
            (PullChoice::Stopped(0.1), None)
        );
        assert!(solver.solves.is_empty());
    }

    #[test]
    fn a_deadline_or_an_interrupt_ends_the_path_keeping_the_best_solve_so_far() {
        let never = AtomicBool::new(false);
        let mut solver = Curve {
            held: |l2: f64| (l2.log10() - 2.0).powi(2),
            at: f64::NAN,
            solves: Vec::new(),
        };
        // Passed before the first solve: nothing solved, the fallback.
        let passed = Stop {
            interrupt: &never,
            deadline: Some(Instant::now()),
        };
        let start = (1.0, Walking::default());
        let walked = walk_with(&mut solver, start, passed, &mut |_| {}, &mut Vec::new());
        assert_eq!(
            (walked.choice, walked.best),
            (PullChoice::Stopped(0.1), None)
        );
        // Interrupted after three solves: the best of those three, its values kept where
        // they score the held-out positions better than the start (10).
        let mut solves = 0;
        let later = Instant::now() + std::time::Duration::from_secs(3600);
        let later = Stop {
            interrupt: &never,
            deadline: Some(later),
        };
        let mut on = |step| {
            solves += usize::from(matches!(step, PathStep::Solved(_)));
            if solves == 3 {
                never.store(true, Ordering::SeqCst);
            }
        };
        let start = (10.0, Walking::default());
        let walked = walk_with(&mut solver, start, later, &mut on, &mut Vec::new());
        assert_eq!(solver.solves, [1e5, 3e4, 1e4]);
        assert_eq!((walked.choice.l2(), walked.best), (1e4, Some(1e4)));
        assert!(walked.interrupted, "its choice is not the unbroken path's");
        // A best solve no better than the start hands back no values.
        never.store(false, Ordering::SeqCst);
        let stopped = Stop {
            interrupt: &never,
            deadline: None,
        };
        let start = (0.0, Walking::default());
        let walked = walk_with(&mut solver, start, stopped, &mut |_| {}, &mut Vec::new());
        assert_eq!((walked.choice.l2(), walked.best), (100.0, None));
    }

    #[test]
    fn a_walk_resumed_from_its_last_kept_step_ends_as_the_unbroken_walk() {
        let held = |l2: f64| (l2.log10() - 1.0).powi(2);
        let curve = || Curve {
            held,
            at: f64::NAN,
            solves: Vec::new(),
        };
        let never = AtomicBool::new(false);
        let mut unbroken = curve();
        let start = (5.0, Walking::default());
        let whole = walk_with(
            &mut unbroken,
            start,
            stop(&never),
            &mut |_| {},
            &mut Vec::new(),
        );
        // Stopped after four steps: the last standing kept is where the resume begins.
        let (raised, mut kept, mut told) = (AtomicBool::new(false), Vec::new(), 0);
        let mut on = |step| {
            told += usize::from(matches!(step, PathStep::Solved(_)));
            raised.store(told == 4, Ordering::SeqCst);
        };
        let mut first = curve();
        let start = (5.0, Walking::default());
        let cut = walk_with(&mut first, start, stop(&raised), &mut on, &mut kept);
        assert!(cut.interrupted && kept.len() == 4);
        let (walking, at) = kept.pop().unwrap();
        let mut again = Curve { at, ..curve() };
        let mut retold = Vec::new();
        let never = AtomicBool::new(false);
        let resumed = walk_with(
            &mut again,
            (5.0, walking),
            stop(&never),
            &mut |step| retold.push(step),
            &mut kept,
        );
        assert_eq!((resumed.choice, resumed.best), (whole.choice, whole.best));
        assert!(!resumed.interrupted);
        // No pull solved twice, none left out; the kept steps told again first.
        assert_eq!([first.solves, again.solves].concat(), unbroken.solves);
        assert!(retold[..4].iter().all(|s| matches!(s, PathStep::Solved(_))));
        assert_eq!(retold.len(), 4 + 2 * (unbroken.solves.len() - 4));
    }

    #[test]
    fn a_walk_that_refines_solves_coarse_then_whole_around_the_coarse_best() {
        // The coarse solves score best at a pull of 100, the whole ones at 30.
        let mut solver = refining(
            |l2: f64| (l2.log10() - 1.5).powi(2),
            |l2: f64| 1.0 + (l2.log10() - 2.0).powi(2),
        );
        let never = AtomicBool::new(false);
        let mut told = Vec::new();
        let start = (10.0, Walking::default());
        let walked = walk_with(
            &mut solver,
            start,
            stop(&never),
            &mut |s| told.push(s),
            &mut Vec::new(),
        );
        // Coarse down to the pull past 100, then whole at 100's neighbours and itself.
        assert_eq!(solver.coarse_solves, PULL_PATH[..8]);
        assert_eq!(solver.whole.solves, [300.0, 100.0, 30.0]);
        // Each begun where its own coarse step ended, not where the last solve did.
        assert_eq!(solver.whole_from, solver.whole.solves);
        assert_eq!((walked.choice.l2(), walked.best), (30.0, Some(30.0)));
        let coarse: Vec<bool> = (told.iter())
            .filter_map(|s| match s {
                PathStep::Solved(p) => Some(p.coarse),
                PathStep::Solving(_) => None,
            })
            .collect();
        assert_eq!(coarse, [vec![true; 8], vec![false; 3]].concat());
        // Where the whole solves score worse than every coarse one, one of them is still
        // chosen: the coarse steps only say where to solve.
        let mut solver = refining(|l2: f64| 5.0 + l2.log10().abs(), |_| 0.5);
        let walked = walk_with(
            &mut solver,
            start_at(10.0),
            stop(&never),
            &mut |_| {},
            &mut Vec::new(),
        );
        // (Equal coarse steps keep the strongest the best: at the path's end, the three
        // steps nearest it.)
        assert_eq!(solver.whole.solves, [1e5, 3e4, 1e4]);
        assert_eq!(walked.choice.l2(), 1e4);
    }

    fn start_at(error: f64) -> (f64, Walking<f64>) {
        (error, Walking::default())
    }

    #[test]
    fn a_refining_walk_resumed_after_any_step_ends_as_the_unbroken_walk() {
        let curve = || {
            refining(
                |l2: f64| (l2.log10() - 0.5).powi(2),
                |l2: f64| 1.0 + (l2.log10() - 1.0).powi(2),
            )
        };
        let never = AtomicBool::new(false);
        let mut unbroken = curve();
        let whole = walk_with(
            &mut unbroken,
            start_at(5.0),
            stop(&never),
            &mut |_| {},
            &mut Vec::new(),
        );
        let steps = unbroken.coarse_solves.len() + unbroken.whole.solves.len();
        assert_eq!(unbroken.whole.solves, [30.0, 10.0, 3.0]);
        for after in 1..steps {
            let (raised, mut kept, mut told) = (AtomicBool::new(false), Vec::new(), 0);
            let mut on = |step| {
                told += usize::from(matches!(step, PathStep::Solved(_)));
                raised.store(told == after, Ordering::SeqCst);
            };
            let mut first = curve();
            let cut = walk_with(&mut first, start_at(5.0), stop(&raised), &mut on, &mut kept);
            assert!(cut.interrupted && kept.len() == after);
            let (walking, at) = kept.pop().unwrap();
            let mut again = curve();
            again.whole.at = at;
            let resumed = walk_with(
                &mut again,
                (5.0, walking),
                stop(&never),
                &mut |_| {},
                &mut kept,
            );
            assert_eq!(
                (resumed.choice, resumed.best),
                (whole.choice, whole.best),
                "after {after}"
            );
            // No step solved twice, none left out.
            let whole_from = [first.whole_from, again.whole_from].concat();
            assert_eq!(whole_from, unbroken.whole_from, "after {after}");
            let coarse = [first.coarse_solves, again.coarse_solves].concat();
            let solved_whole = [first.whole.solves, again.whole.solves].concat();
            assert_eq!(
                (coarse, solved_whole),
                (
                    unbroken.coarse_solves.clone(),
                    unbroken.whole.solves.clone()
                )
            );
        }
    }
}
