//! How every tune begins, its positions in memory or read from their file in every pass:
//! the values too few training positions count held at their start, then either the
//! checkpoint to continue checked against the positions and the values left, or a fresh
//! start whose L2 pull is given or chosen by the path of pulls (`crate::path`, judged on
//! the held-out positions, its pulls written to the run's log). The positions answer what
//! the beginning asks through [`Beginning`]; what it does comes to the caller as
//! [`JobEvent`]s.

use crate::checkpoint::Checkpoint;
use crate::events::JobEvent;
use crate::lambda::{LambdaChoice, LambdaPoint};
use crate::path::{PathStep, PullChoice, PullPoint, Walked};
use crate::run::RunError;
use crate::settings::{TuneSettings, DEFAULT_L2, L2};
use texel_run::Settings;
use texel_solve::descent::{Guards, Variable};
use texel_solve::model::Model;

/// What a tune's beginning asks of its positions.
pub(crate) trait Beginning {
    /// The evaluation the positions are scored with.
    type Model: Model;
    /// Why the positions could not answer (an unreadable file, an interrupt), or a
    /// checkpoint that does not continue them; a hold that leaves nothing, or a log that
    /// cannot be written, become one too.
    type Error: From<NothingToTune> + From<StoppedOnPath> + From<RunError>;

    /// How many training positions count each of `vars`, in order.
    ///
    /// # Errors
    /// The positions cannot be read.
    fn support(&mut self, vars: &[Variable]) -> Result<Vec<usize>, Self::Error>;

    /// The path of pulls walked from the start over `vars` with `guards`, each pull solved
    /// told to `on`, and the pull chosen with its solve's values; `None` when no position is
    /// held out to judge it. The run's deadline ends it.
    ///
    /// # Errors
    /// The positions cannot be read.
    fn walk_pulls(
        &mut self,
        vars: &[Variable],
        guards: Guards,
        on: &mut dyn FnMut(PathStep<PullPoint>),
    ) -> Result<Option<Walked<ValuesOf<Self>>>, Self::Error>;

    /// The path of λs walked from the start over `vars` with `guards` (its pull the one the
    /// path of pulls chose), each λ solved told to `on`, and the λ chosen on the held-out
    /// positions' results; `None` where the positions carry no scores to blend (their
    /// targets stay as loaded). The training targets are left as loaded.
    ///
    /// # Errors
    /// The positions cannot be read.
    fn walk_lambdas(
        &mut self,
        vars: &[Variable],
        guards: Guards,
        on: &mut dyn FnMut(PathStep<LambdaPoint>),
    ) -> Result<Option<Walked<ValuesOf<Self>, LambdaChoice>>, Self::Error>;

    /// Moves the training targets to `lambda`'s blend of results and scores.
    fn relabel(&mut self, lambda: f64);

    /// The checkpoint a fresh run on `vars` with `guards` begins from: at the start, or at
    /// `from` (a path's best values, where the run's time ran out on the path), the
    /// positions scored there; the pull's anchor is the start either way.
    fn fresh(
        &mut self,
        vars: Vec<Variable>,
        guards: Guards,
        from: Option<ValuesOf<Self>>,
    ) -> Checkpoint<ValuesOf<Self>>;

    /// Checks that `resumed` continues a run on these positions tuning `vars`.
    ///
    /// # Errors
    /// It was made on other positions, or tunes other values.
    fn continues(
        &self,
        resumed: &Checkpoint<ValuesOf<Self>>,
        vars: &[Variable],
    ) -> Result<(), Self::Error>;
}

/// The values of a beginning's model.
type ValuesOf<B> = <<B as Beginning>::Model as Model>::Values;

/// Every selected value counts in fewer training positions than the least support a tuned
/// value needs (the number).
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "every selected value counts in fewer than {0} training positions, the least support a \
     tuned value needs"
)]
pub struct NothingToTune(pub usize);

/// Ctrl-C on a path of pulls or of λs, before the run began: nothing was tuned or written,
/// and no checkpoint is kept (one would tune at a pull the unbroken path may not choose).
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "stopped on the path of pulls or λs, before the run began: nothing was tuned or written \
     (the same command walks the path again)"
)]
pub struct StoppedOnPath;

/// The checkpoint a tune of `selected` with `settings` begins from on `positions`: `resume`
/// continued, or a fresh start recording `record` (see the module's page).
///
/// # Errors
/// Every selected value is held, the positions cannot answer, `resume` does not continue
/// them, or the path of pulls cannot be written to the log.
pub(crate) fn begin<B: Beginning>(
    positions: &mut B,
    (selected, settings): (&[Variable], &TuneSettings),
    resume: Option<Checkpoint<ValuesOf<B>>>,
    record: Option<Settings>,
    on: &mut dyn FnMut(JobEvent<B::Model>),
) -> Result<Checkpoint<ValuesOf<B>>, B::Error> {
    let vars = held(positions, selected, settings.min_support, on)?;
    if let Some(mut c) = resume {
        positions.continues(&c, &vars)?;
        if let Some(lambda) = c.lambda {
            positions.relabel(lambda);
        }
        on(JobEvent::Resumed(c.passes, vars.len()));
        c.settings = c.settings.or(record);
        return Ok(c);
    }
    let guards = Guards {
        l2: settings.l2.fixed(),
        constraints: settings.constraints,
    };
    // The values of the last path's best solve: where the time runs out on the paths, the
    // run hands them back rather than the start.
    let mut best = None;
    let pull = |positions: &mut B,
                best: &mut Option<ValuesOf<B>>,
                on: &mut dyn FnMut(JobEvent<B::Model>)| match settings.l2 {
        L2::Fixed(l2) => Ok(l2),
        L2::Auto => chosen_pull(positions, (&vars, guards), (settings, best), on),
    };
    let mut l2 = pull(positions, &mut best, on)?;
    let guarded = (&vars[..], Guards { l2, ..guards });
    let lambda = chosen_lambda(positions, guarded, (settings, &mut best), on)?;
    if let Some(lambda) = lambda {
        positions.relabel(lambda);
        if lambda != 1.0 && !settings.run.out_of_time() {
            // The pulls again, on the targets the run tunes toward.
            l2 = pull(positions, &mut best, on)?;
        }
    }
    let from = best.filter(|_| settings.run.out_of_time());
    let mut c = positions.fresh(vars, Guards { l2, ..guards }, from);
    on(JobEvent::Fresh(c.vars.len(), c.descent.guards));
    c.settings = record;
    c.lambda = lambda;
    Ok(c)
}

/// The λ the path of λs chooses over `vars` at the pull of `guards`, said; `None` where
/// the positions carry no scores to blend (or nothing is held out to judge a λ).
fn chosen_lambda<B: Beginning>(
    positions: &mut B,
    (vars, guards): (&[Variable], Guards),
    (settings, best): (&TuneSettings, &mut Option<ValuesOf<B>>),
    on: &mut dyn FnMut(JobEvent<B::Model>),
) -> Result<Option<f64>, B::Error> {
    let mut path = Vec::new();
    let walked = positions.walk_lambdas(vars, guards, &mut |step| match step {
        PathStep::Solving(lambda) => on(JobEvent::LambdaSolving(lambda)),
        PathStep::Solved(p) => {
            path.push(p);
            on(JobEvent::Lambda(p));
        }
    })?;
    let Some(Walked {
        choice,
        best: ours,
        interrupted,
    }) = walked
    else {
        return Ok(None);
    };
    if interrupted {
        return Err(StoppedOnPath.into());
    }
    *best = ours.or(best.take());
    on(JobEvent::LambdaChosen(choice));
    if let Some(log) = &settings.run.log {
        let written = crate::log::append_lambdas(log, &path, choice.lambda());
        written.map_err(|cause| RunError::Io {
            path: log.clone(),
            cause,
        })?;
    }
    Ok(Some(choice.lambda()))
}

/// The values of `selected` enough training positions count (all of them when `min` is
/// 0), those held said.
fn held<B: Beginning>(
    positions: &mut B,
    selected: &[Variable],
    min: usize,
    on: &mut dyn FnMut(JobEvent<B::Model>),
) -> Result<Vec<Variable>, B::Error> {
    if min == 0 {
        return Ok(selected.to_vec());
    }
    let support = positions.support(selected)?;
    let counted: Vec<(Variable, usize)> = selected.iter().copied().zip(support).collect();
    let (kept, held) = hold_unsupported(&counted, |c| c.1, min)?;
    if !held.is_empty() {
        let held = held.into_iter().map(|c| c.0).collect();
        on(JobEvent::Held {
            held,
            min_support: min,
        });
    }
    Ok(kept.into_iter().map(|c| c.0).collect())
}

/// The pull the path of pulls chooses over `vars` ([`DEFAULT_L2`] when nothing is held
/// out), said, with the path written to the run's log.
fn chosen_pull<B: Beginning>(
    positions: &mut B,
    (vars, guards): (&[Variable], Guards),
    (settings, best): (&TuneSettings, &mut Option<ValuesOf<B>>),
    on: &mut dyn FnMut(JobEvent<B::Model>),
) -> Result<f64, B::Error> {
    let mut path = Vec::new();
    let walked = positions.walk_pulls(vars, guards, &mut |step| match step {
        PathStep::Solving(l2) => on(JobEvent::PullSolving(l2)),
        PathStep::Solved(p) => {
            path.push(p);
            on(JobEvent::Pull(p));
        }
    })?;
    let (choice, ours) = match walked {
        Some(Walked {
            interrupted: true, ..
        }) => return Err(StoppedOnPath.into()),
        Some(Walked { choice, best, .. }) => (choice, best),
        None => (PullChoice::Default(DEFAULT_L2), None),
    };
    *best = ours.or(best.take());
    on(JobEvent::PullChosen(choice));
    if let (Some(log), PullChoice::Path { start, .. }) = (&settings.run.log, choice) {
        crate::log::append_path(log, &path, start).map_err(|cause| RunError::Io {
            path: log.clone(),
            cause,
        })?;
    }
    Ok(choice.l2())
}

/// `items` split into those at least `min` training positions use (by `support`; all of
/// them when `min` is 0) and those held at their start.
///
/// # Errors
/// Every item is held.
fn hold_unsupported<T: Clone>(
    items: &[T],
    support: impl Fn(&T) -> usize,
    min: usize,
) -> Result<(Vec<T>, Vec<T>), NothingToTune> {
    let (kept, held): (Vec<T>, Vec<T>) =
        (items.iter().cloned()).partition(|item| min == 0 || support(item) >= min);
    match kept.is_empty() {
        true => Err(NothingToTune(min)),
        false => Ok((kept, held)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::RunKind;
    use crate::run::RunError;
    use texel_linear::TraceDataset;
    use texel_solve::descent::DescentState;

    /// Positions where value `v` counts in `support[v]` positions, whose path of pulls ends
    /// at the pull 10 (when anything is held out), and whose checkpoints carry `data`.
    struct Toy {
        support: Vec<usize>,
        held_out: bool,
        data: u64,
        walked: usize,
        /// The λ the toy's path of λs chooses (`None`: it carries no scores).
        lambda: Option<f64>,
        /// The λs its targets were moved to, in order.
        relabelled: Vec<f64>,
    }

    #[derive(Debug, PartialEq)]
    enum ToyError {
        Nothing(NothingToTune),
        Run(String),
        Other,
    }

    impl From<NothingToTune> for ToyError {
        fn from(e: NothingToTune) -> ToyError {
            ToyError::Nothing(e)
        }
    }

    impl From<StoppedOnPath> for ToyError {
        fn from(_: StoppedOnPath) -> ToyError {
            ToyError::Other
        }
    }

    impl From<RunError> for ToyError {
        fn from(e: RunError) -> ToyError {
            ToyError::Run(e.to_string())
        }
    }

    impl Beginning for Toy {
        type Model = TraceDataset;
        type Error = ToyError;

        fn support(&mut self, vars: &[Variable]) -> Result<Vec<usize>, ToyError> {
            Ok(vars.iter().map(|v| self.support[v.slot]).collect())
        }

        fn walk_pulls(
            &mut self,
            _: &[Variable],
            _: Guards,
            on: &mut dyn FnMut(PathStep<PullPoint>),
        ) -> Result<Option<Walked<Vec<i32>>>, ToyError> {
            self.walked += 1;
            if !self.held_out {
                return Ok(None);
            }
            for (l2, held_out) in [(100.0, 0.3), (10.0, 0.2)] {
                let train = held_out;
                let iterations = 3;
                on(PathStep::Solving(l2));
                on(PathStep::Solved(PullPoint {
                    l2,
                    train,
                    held_out,
                    iterations,
                    seconds: 1.0,
                }));
            }
            let (l2, held_out, start, solved) = (10.0, 0.2, 0.4, 2);
            let choice = PullChoice::Path {
                l2,
                held_out,
                start,
                solved,
            };
            // The best solve's values: 10 for every value (the pull's).
            let best = Some(vec![10; self.support.len()]);
            let interrupted = false;
            Ok(Some(Walked {
                choice,
                best,
                interrupted,
            }))
        }

        fn walk_lambdas(
            &mut self,
            _: &[Variable],
            guards: Guards,
            on: &mut dyn FnMut(PathStep<LambdaPoint>),
        ) -> Result<Option<Walked<Vec<i32>, LambdaChoice>>, ToyError> {
            let Some(lambda) = self.lambda else {
                return Ok(None);
            };
            for at in [1.0, lambda] {
                let held_out = 0.1 + at;
                on(PathStep::Solving(at));
                on(PathStep::Solved(LambdaPoint {
                    lambda: at,
                    train: held_out,
                    held_out,
                    iterations: 2,
                    seconds: 1.0,
                }));
            }
            let (held_out, l2, solved) = (0.1 + lambda, guards.l2, 2);
            let choice = LambdaChoice::Path {
                lambda,
                held_out,
                l2,
                solved,
            };
            // The best solve's values: 5 for every value (the λ path's).
            let best = Some(vec![5; self.support.len()]);
            let interrupted = false;
            Ok(Some(Walked {
                choice,
                best,
                interrupted,
            }))
        }

        fn relabel(&mut self, lambda: f64) {
            self.relabelled.push(lambda);
        }

        fn fresh(
            &mut self,
            vars: Vec<Variable>,
            guards: Guards,
            from: Option<Vec<i32>>,
        ) -> Checkpoint<Vec<i32>> {
            let params = from.unwrap_or_else(|| vec![0; self.support.len()]);
            let mut start = DescentState::starting(params, guards, 0.0, vars.len());
            start.anchor = vec![0; self.support.len()];
            Checkpoint::begun(RunKind::Memory, (1.0, self.data, 9), start, vars)
        }

        fn continues(&self, c: &Checkpoint<Vec<i32>>, vars: &[Variable]) -> Result<(), ToyError> {
            match c.data == self.data && c.vars == vars {
                true => Ok(()),
                false => Err(ToyError::Other),
            }
        }
    }

    fn toy(held_out: bool) -> Toy {
        Toy {
            support: vec![50, 3, 40],
            held_out,
            data: 7,
            walked: 0,
            lambda: None,
            relabelled: Vec::new(),
        }
    }

    fn vars(slots: &[usize]) -> Vec<Variable> {
        slots
            .iter()
            .map(|&slot| Variable { slot, step: 1 })
            .collect()
    }

    /// The events of a beginning, in words.
    fn said(e: JobEvent<TraceDataset>) -> String {
        match e {
            JobEvent::Held { held, min_support } => format!("held {} < {min_support}", held.len()),
            JobEvent::PullSolving(l2) => format!("solving pull {l2}"),
            JobEvent::Pull(p) => format!("pull {}", p.l2),
            JobEvent::PullChosen(c) => format!("chosen {}", c.l2()),
            JobEvent::Fresh(n, g) => format!("fresh {n} at {}", g.l2),
            JobEvent::Resumed(passes, n) => format!("resumed {passes} {n}"),
            JobEvent::LambdaSolving(lambda) => format!("solving λ {lambda}"),
            JobEvent::Lambda(p) => format!("λ {}", p.lambda),
            JobEvent::LambdaChosen(c) => format!("chosen λ {}", c.lambda()),
            JobEvent::Run(_) => "run".into(),
        }
    }

    /// The beginning of a tune of values 0, 1 and 2 with `settings` on `positions`, from
    /// `resume` if given, and what it said.
    fn began(
        positions: &mut Toy,
        settings: &TuneSettings,
        resume: Option<Checkpoint<Vec<i32>>>,
    ) -> (Result<Checkpoint<Vec<i32>>, ToyError>, Vec<String>) {
        let (selected, mut events) = (vars(&[0, 1, 2]), Vec::new());
        let begun = begin(positions, (&selected, settings), resume, None, &mut |e| {
            events.push(said(e))
        });
        (begun, events)
    }

    #[test]
    fn a_fresh_start_holds_the_unsupported_walks_the_path_and_writes_it_to_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let mut settings = TuneSettings {
            l2: L2::Auto,
            ..TuneSettings::default()
        };
        settings.run.log = Some(dir.path().join("run.log"));
        let (begun, events) = began(&mut toy(true), &settings, None);
        let begun = begun.unwrap();
        assert_eq!(begun.vars, vars(&[0, 2]));
        assert_eq!(begun.descent.guards.l2, 10.0);
        let want = [
            "held 1 < 20",
            "solving pull 100",
            "pull 100",
            "solving pull 10",
            "pull 10",
            "chosen 10",
            "fresh 2 at 10",
        ];
        assert_eq!(events, want);
        let log = std::fs::read_to_string(dir.path().join("run.log")).unwrap();
        let (path, start) = crate::log::read_tune_path(&log).unwrap();
        let pulls: Vec<f64> = path.iter().map(|p| p.l2).collect();
        assert_eq!((pulls, start), (vec![100.0, 10.0], Some(0.4)));
    }

    #[test]
    fn a_run_out_of_time_on_its_paths_begins_at_their_best_values_not_the_start() {
        let mut settings = TuneSettings {
            l2: L2::Auto,
            ..TuneSettings::default()
        };
        // In time: the start, the paths walked as ever.
        let mut positions = Toy {
            lambda: Some(0.5),
            ..toy(true)
        };
        let (begun, _) = began(&mut positions, &settings, None);
        let begun = begun.unwrap();
        assert_eq!((begun.descent.params, positions.walked), (vec![0; 3], 2));
        // Out of time: the λ path's best values (the last path walked), the pulls not
        // walked again; the anchor still the start.
        settings.run.deadline = Some(std::time::Instant::now());
        let mut positions = Toy {
            lambda: Some(0.5),
            ..toy(true)
        };
        let (begun, _) = began(&mut positions, &settings, None);
        let begun = begun.unwrap();
        assert_eq!((begun.descent.params, positions.walked), (vec![5; 3], 1));
        assert_eq!(begun.descent.anchor, vec![0; 3]);
        // Without scores, the path of pulls' best.
        let (begun, _) = began(&mut toy(true), &settings, None);
        assert_eq!(begun.unwrap().descent.params, vec![10; 3]);
    }

    #[test]
    fn nothing_held_out_takes_the_default_pull_and_a_given_pull_walks_nothing() {
        let settings = TuneSettings {
            l2: L2::Auto,
            min_support: 0,
            ..TuneSettings::default()
        };
        let (begun, events) = began(&mut toy(false), &settings, None);
        assert_eq!(begun.unwrap().descent.guards.l2, DEFAULT_L2);
        assert_eq!(
            events,
            [format!("chosen {DEFAULT_L2}"), "fresh 3 at 0.1".into()]
        );
        let fixed = TuneSettings {
            l2: L2::Fixed(2.5),
            ..settings
        };
        let mut positions = toy(true);
        let (begun, _) = began(&mut positions, &fixed, None);
        assert_eq!(
            (begun.unwrap().descent.guards.l2, positions.walked),
            (2.5, 0)
        );
    }

    #[test]
    fn a_checkpoint_continues_only_its_positions_and_values_and_nothing_left_is_refused() {
        let mut positions = toy(true);
        let made = positions.fresh(vars(&[0, 2]), Guards::default(), None);
        let (again, events) = began(&mut positions, &TuneSettings::default(), Some(made.clone()));
        assert_eq!(again.unwrap().vars, made.vars);
        assert_eq!(events, ["held 1 < 20", "resumed 0 2"]);
        assert_eq!(positions.walked, 0, "a resume walks no path");
        let other = TuneSettings {
            min_support: 0,
            ..TuneSettings::default()
        };
        let (refused, _) = began(&mut positions, &other, Some(made));
        assert_eq!(refused.unwrap_err(), ToyError::Other, "another selection");
        let all_held = TuneSettings {
            min_support: 1000,
            ..TuneSettings::default()
        };
        let (none, _) = began(&mut positions, &all_held, None);
        assert_eq!(none.unwrap_err(), ToyError::Nothing(NothingToTune(1000)));
    }

    #[test]
    fn scored_positions_walk_the_lambdas_at_the_chosen_pull_then_the_pulls_again() {
        let dir = tempfile::tempdir().unwrap();
        let mut settings = TuneSettings {
            l2: L2::Auto,
            ..TuneSettings::default()
        };
        settings.run.log = Some(dir.path().join("run.log"));
        let mut positions = Toy {
            lambda: Some(0.5),
            ..toy(true)
        };
        let (begun, events) = began(&mut positions, &settings, None);
        let begun = begun.unwrap();
        let want = [
            "held 1 < 20",
            "solving pull 100",
            "pull 100",
            "solving pull 10",
            "pull 10",
            "chosen 10",
            "solving λ 1",
            "λ 1",
            "solving λ 0.5",
            "λ 0.5",
            "chosen λ 0.5",
            "solving pull 100",
            "pull 100",
            "solving pull 10",
            "pull 10",
            "chosen 10",
            "fresh 2 at 10",
        ];
        assert_eq!(events, want);
        assert_eq!((begun.lambda, positions.walked), (Some(0.5), 2));
        assert_eq!(positions.relabelled, [0.5], "the run tunes toward λ 0.5");
        let log = std::fs::read_to_string(dir.path().join("run.log")).unwrap();
        let (path, chosen) = crate::log::read_tune_lambdas(&log).unwrap();
        let lambdas: Vec<f64> = path.iter().map(|p| p.lambda).collect();
        assert_eq!((lambdas, chosen), (vec![1.0, 0.5], Some(0.5)));
        // A resume moves the targets to the checkpoint's λ and walks nothing.
        let (again, events) = began(&mut positions, &settings, Some(begun));
        assert_eq!(again.unwrap().lambda, Some(0.5));
        assert_eq!(events, ["held 1 < 20", "resumed 0 2"]);
        assert_eq!(
            (positions.relabelled.as_slice(), positions.walked),
            ([0.5, 0.5].as_slice(), 2)
        );
        // Results alone chosen: no second walk of the pulls.
        let mut results = Toy {
            lambda: Some(1.0),
            ..toy(true)
        };
        let (begun, _) = began(&mut results, &settings, None);
        assert_eq!((begun.unwrap().lambda, results.walked), (Some(1.0), 1));
    }
}
