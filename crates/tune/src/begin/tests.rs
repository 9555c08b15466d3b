use super::*;
use crate::checkpoint::RunKind;
use crate::path::{PathStep, PullChoice};
use crate::run::RunError;
use crate::settings::{DEFAULT_L2, L2};
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
    /// Every step solved, in order (pulls and λs).
    solved: Vec<f64>,
    /// The walk is interrupted once this many steps are solved.
    interrupt_after: Option<usize>,
    /// Its walks refine: the run goes on from their best values.
    goes_on: bool,
}

#[derive(Debug, PartialEq)]
enum ToyError {
    Nothing(NothingToTune),
    Run(String),
    Stopped(Option<std::path::PathBuf>),
    Other,
}

impl From<NothingToTune> for ToyError {
    fn from(e: NothingToTune) -> ToyError {
        ToyError::Nothing(e)
    }
}

impl From<StoppedOnPath> for ToyError {
    fn from(e: StoppedOnPath) -> ToyError {
        ToyError::Stopped(e.0)
    }
}

impl From<RunError> for ToyError {
    fn from(e: RunError) -> ToyError {
        ToyError::Run(e.to_string())
    }
}

impl Toy {
    /// Walks `steps` (each with its held-out error) on from `from`, as `crate::path`
    /// walks: the steps of `from` told again, each new one told and kept with a solver
    /// state at pull `l2` whose values are `values` (every value); the last step chosen.
    fn walk(
        &mut self,
        steps: &[(f64, f64)],
        (from, l2, values): (Option<OnPath<Vec<i32>>>, f64, i32),
        hooks: Hooks<'_, PullPoint, Vec<i32>>,
    ) -> Result<Walked<Vec<i32>>, ToyError> {
        let mut walking = from.map(|p| p.walking).unwrap_or_default();
        walking
            .solved
            .iter()
            .for_each(|&p| (hooks.on)(PathStep::Solved(p)));
        for &(step, held_out) in steps.iter().skip(walking.solved.len()) {
            if self.interrupt_after == Some(self.solved.len()) {
                let choice = PullChoice::Stopped(0.0);
                let (best, interrupted) = (None, true);
                return Ok(Walked {
                    choice,
                    best,
                    interrupted,
                    goes_on: false,
                });
            }
            self.solved.push(step);
            (hooks.on)(PathStep::Solving(step));
            let (train, iterations, seconds) = (held_out, 3, 1.0);
            let point = PullPoint {
                l2: step,
                train,
                held_out,
                iterations,
                seconds,
                coarse: false,
            };
            (hooks.on)(PathStep::Solved(point));
            walking.solved.push(point);
            walking.best = Some(vec![values; self.support.len()]);
            let guards = Guards {
                l2,
                constraints: false,
            };
            let at = DescentState::starting(vec![values; 3], guards, 0.0, 2);
            (hooks.keep)(&walking, at)?;
        }
        let last = walking.solved.last().copied().expect("a step solved");
        let (l2, held_out, start, solved) = (last.l2, last.held_out, 0.4, steps.len());
        let choice = PullChoice::Path {
            l2,
            held_out,
            start,
            solved,
        };
        let (best, interrupted) = (walking.best, false);
        Ok(Walked {
            choice,
            best,
            interrupted,
            goes_on: self.goes_on,
        })
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
        from: Option<OnPath<Vec<i32>>>,
        hooks: Hooks<'_, PullPoint, Vec<i32>>,
    ) -> Result<Option<Walked<Vec<i32>>>, ToyError> {
        self.walked += 1;
        if !self.held_out {
            return Ok(None);
        }
        // The best solve's values: 10 for every value (the pull's).
        let walked = self.walk(&[(100.0, 0.3), (10.0, 0.2)], (from, 10.0, 10), hooks)?;
        Ok(Some(walked))
    }

    fn walk_lambdas(
        &mut self,
        _: &[Variable],
        guards: Guards,
        from: Option<OnPath<Vec<i32>>>,
        hooks: Hooks<'_, LambdaPoint, Vec<i32>>,
    ) -> Result<Option<Walked<Vec<i32>, LambdaChoice>>, ToyError> {
        let Some(lambda) = self.lambda else {
            return Ok(None);
        };
        let on = hooks.on;
        let mut told = |step: PathStep<PullPoint>| on(step.map(LambdaPoint::from));
        let hooks = Hooks {
            on: &mut told,
            keep: hooks.keep,
        };
        // The best solve's values: 5 for every value (the λ path's).
        let steps = [(1.0, 1.1), (lambda, 0.1 + lambda)];
        let walked = self.walk(&steps, (from, guards.l2, 5), hooks)?;
        let choice = match walked.choice {
            PullChoice::Path {
                held_out, solved, ..
            } => LambdaChoice::Path {
                lambda,
                held_out,
                l2: guards.l2,
                solved,
            },
            _ => LambdaChoice::Stopped(1.0),
        };
        let (best, interrupted) = (walked.best, walked.interrupted);
        Ok(Some(Walked {
            choice,
            best,
            interrupted,
            goes_on: walked.goes_on,
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
        solved: Vec::new(),
        interrupt_after: None,
        goes_on: false,
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
        JobEvent::ResumedOnPath(walk, n) => format!("resumed {walk:?} after {n}"),
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
fn a_run_whose_walks_refine_goes_on_from_their_best_values_in_time() {
    let settings = TuneSettings {
        l2: L2::Auto,
        ..TuneSettings::default()
    };
    let mut positions = Toy {
        lambda: Some(0.5),
        goes_on: true,
        ..toy(true)
    };
    let (begun, _) = began(&mut positions, &settings, None);
    let begun = begun.unwrap();
    // The paths walked as ever; the run begins at the last one's best (the pulls again at
    // λ 0.5), its anchor still the start.
    assert_eq!((begun.descent.params, positions.walked), (vec![10; 3], 2));
    assert_eq!(begun.descent.anchor, vec![0; 3]);
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

/// A fresh beginning of the toy with scores (λ 0.5: the pulls, the λs, the pulls again)
/// with its checkpoint and log in `dir`, interrupted once `after` steps are solved.
fn stopped_after(dir: &std::path::Path, after: Option<usize>) -> (Toy, TuneSettings) {
    let mut settings = TuneSettings {
        l2: L2::Auto,
        ..TuneSettings::default()
    };
    settings.run.log = Some(dir.join("run.log"));
    settings.run.checkpoint = Some(dir.join("run.ckpt"));
    let positions = Toy {
        lambda: Some(0.5),
        interrupt_after: after,
        ..toy(true)
    };
    (positions, settings)
}

#[test]
fn a_beginning_stopped_after_any_step_of_its_paths_resumes_to_the_unbroken_start() {
    let whole = tempfile::tempdir().unwrap();
    let (mut unbroken, settings) = stopped_after(whole.path(), None);
    let (straight, _) = began(&mut unbroken, &settings, None);
    let straight = straight.unwrap();
    let log = |dir: &std::path::Path| std::fs::read_to_string(dir.join("run.log")).unwrap();
    assert_eq!(unbroken.solved, [100.0, 10.0, 1.0, 0.5, 100.0, 10.0]);
    // A stop before the first step too: the beginning is kept before the paths.
    for after in 0..6 {
        let dir = tempfile::tempdir().unwrap();
        let (mut first, settings) = stopped_after(dir.path(), Some(after));
        let (stopped, _) = began(&mut first, &settings, None);
        let ckpt = dir.path().join("run.ckpt");
        assert_eq!(stopped.unwrap_err(), ToyError::Stopped(Some(ckpt.clone())));
        let kept = Checkpoint::<Vec<i32>>::read(&ckpt).unwrap();
        assert!(kept.path.is_some(), "stopped after {after}: the walk kept");
        let (mut second, _) = stopped_after(dir.path(), None);
        let (resumed, events) = began(&mut second, &settings, Some(kept));
        let resumed = resumed.unwrap();
        assert!(events[1].starts_with("resumed "), "{events:?}");
        assert_eq!(
            (resumed.descent, resumed.lambda),
            (straight.descent.clone(), straight.lambda),
            "stopped after {after}"
        );
        // No step solved twice or left out, each path logged once.
        assert_eq!([first.solved, second.solved].concat(), unbroken.solved);
        assert_eq!(log(dir.path()), log(whole.path()), "stopped after {after}");
        let relabelled = [first.relabelled, second.relabelled].concat();
        assert_eq!(relabelled.last(), Some(&0.5));
    }
}
