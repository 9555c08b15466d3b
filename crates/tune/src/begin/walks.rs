//! The paths of a fresh start, in order: the path of pulls, the path of λs at the pull it
//! chose (where the positions carry scores), and the pulls again on the targets of the λ
//! chosen. After every step solved the walk is kept in the run's checkpoint (a
//! [`Keeper`]); a run resumed from one walks on from the walk and step it stopped at, as the
//! unbroken run would have.

use super::{Beginning, StoppedOnPath, ValuesOf};
use crate::checkpoint::Checkpoint;
use crate::events::JobEvent;
use crate::path::{Hooks, OnPath, PathStep, PathWalk, PullChoice, Walked, Walking};
use crate::run::RunError;
use crate::settings::{TuneSettings, DEFAULT_L2, L2};
use std::path::PathBuf;
use texel_run::Settings;
use texel_solve::descent::{DescentState, Guards, Variable};
use texel_solve::model::Values;

/// A fresh start's walks and what they leave.
pub(super) struct Walks<'w, B: Beginning> {
    positions: &'w mut B,
    vars: Vec<Variable>,
    guards: Guards,
    settings: &'w TuneSettings,
    /// The settings record the run's checkpoints keep.
    record: Option<Settings>,
    /// The values of the last path's best solve: where the time runs out on the paths, the
    /// run hands them back rather than the start.
    best: Option<ValuesOf<B>>,
    /// The run goes on from `best` (the walks refined: see [`Walked::goes_on`]).
    goes_on: bool,
    /// The λ chosen (`None`: the targets as loaded).
    lambda: Option<f64>,
    /// The checkpoint a walk was kept in, once one was.
    kept: Option<PathBuf>,
}

impl<'w, B: Beginning> Walks<'w, B> {
    /// The walks over `positions` of `vars` with `settings`, their checkpoints recording
    /// `record`.
    pub(super) fn new(
        positions: &'w mut B,
        vars: Vec<Variable>,
        (settings, record): (&'w TuneSettings, Option<Settings>),
    ) -> Self {
        let guards = Guards {
            l2: settings.l2.fixed(),
            constraints: settings.constraints,
        };
        Walks {
            positions,
            vars,
            guards,
            settings,
            record,
            best: None,
            goes_on: false,
            lambda: None,
            kept: None,
        }
    }

    /// Walks the paths (on from where `from` stopped: a walk, and the λ chosen before
    /// it), and the checkpoint the run begins from.
    pub(super) fn walk(
        mut self,
        from: Option<(OnPath<ValuesOf<B>>, Option<f64>)>,
        on: &mut dyn FnMut(JobEvent<B::Model>),
    ) -> Result<Checkpoint<ValuesOf<B>>, B::Error> {
        let mut from = from.map(|(path, lambda)| {
            (self.best, self.lambda) = (path.earlier.clone(), lambda);
            path
        });
        match &from {
            // Kept again where this run keeps its walks (a stop before the next step
            // leaves it there).
            Some(path) => self.keep_as(path.walk, (&path.walking, path.at.clone()), path.pull)?,
            // A stop anywhere on the paths resumes without reading the positions for K
            // again.
            None if self.settings.l2 == L2::Auto => {
                self.keep_as(PathWalk::Pulls, (&Walking::default(), None), None)?
            }
            None => {}
        }
        let stage = from.as_ref().map_or(PathWalk::Pulls, |p| p.walk);
        let mut l2 = match stage {
            PathWalk::Pulls => self.pull(PathWalk::Pulls, from.take(), on)?,
            _ => (from.as_ref()).map_or(self.guards.l2, |p| p.pull.unwrap_or(self.guards.l2)),
        };
        if stage != PathWalk::PullsAgain {
            if stage == PathWalk::Pulls {
                self.keep_next(PathWalk::Lambdas, Some(l2))?;
            }
            self.lambda = self.chosen_lambda(l2, from.take(), on)?;
            if let Some(lambda) = self.lambda {
                self.positions.relabel(lambda);
            }
        }
        if self.lambda.is_some_and(|l| l != 1.0) && !self.settings.run.out_of_time() {
            if stage != PathWalk::PullsAgain {
                self.keep_next(PathWalk::PullsAgain, None)?;
            }
            // The pulls again, on the targets the run tunes toward.
            l2 = self.pull(PathWalk::PullsAgain, from.take(), on)?;
        }
        let goes_on = self.goes_on || self.settings.run.out_of_time();
        let from = self.best.take().filter(|_| goes_on);
        let guards = Guards { l2, ..self.guards };
        let mut c = self.positions.fresh(self.vars, guards, from);
        on(JobEvent::Fresh(c.vars.len(), c.descent.guards));
        c.settings = self.record;
        c.lambda = self.lambda;
        Ok(c)
    }

    /// The run's pull: the one given, or the one the path of pulls chooses (`walk`, on from
    /// `from`).
    fn pull(
        &mut self,
        walk: PathWalk,
        from: Option<OnPath<ValuesOf<B>>>,
        on: &mut dyn FnMut(JobEvent<B::Model>),
    ) -> Result<f64, B::Error> {
        match self.settings.l2 {
            L2::Fixed(l2) => Ok(l2),
            L2::Auto => self.chosen_pull(walk, from, on),
        }
    }

    /// Where a walk was kept, the next `walk` (at `pull`) kept as not begun: a resume
    /// begins there, the walks before neither walked nor logged again.
    fn keep_next(&mut self, walk: PathWalk, pull: Option<f64>) -> Result<(), RunError> {
        match self.kept {
            Some(_) => self.keep_as(walk, (&Walking::default(), None), pull),
            None => Ok(()),
        }
    }

    /// Keeps `walk` (at `pull`) standing at `walking` with its solver `at`.
    fn keep_as(
        &mut self,
        walk: PathWalk,
        (walking, at): (&Walking<ValuesOf<B>>, Option<DescentState<ValuesOf<B>>>),
        pull: Option<f64>,
    ) -> Result<(), RunError> {
        let mut keeper = self.keeper(walk, pull);
        keeper.keep(walking, at)?;
        self.kept = keeper.kept().or(self.kept.take());
        Ok(())
    }

    /// The keeper of `walk`'s steps (at `pull`) in the run's checkpoint (none without
    /// one).
    fn keeper(&mut self, walk: PathWalk, pull: Option<f64>) -> Keeper<ValuesOf<B>> {
        let file = self.settings.run.checkpoint.clone().map(|file| {
            let mut c = (self.positions).fresh(self.vars.clone(), self.guards, None);
            c.settings = self.record.clone();
            c.lambda = self.lambda.filter(|_| walk == PathWalk::PullsAgain);
            (file, c)
        });
        Keeper {
            file,
            walk,
            pull,
            earlier: self.best.clone(),
            kept: false,
        }
    }

    /// The pull the path of pulls (`walk`) chooses over the variables ([`DEFAULT_L2`] when
    /// nothing is held out), said, with the path written to the run's log.
    fn chosen_pull(
        &mut self,
        walk: PathWalk,
        from: Option<OnPath<ValuesOf<B>>>,
        on: &mut dyn FnMut(JobEvent<B::Model>),
    ) -> Result<f64, B::Error> {
        let (mut path, mut keeper) = (Vec::new(), self.keeper(walk, None));
        let hooks = Hooks {
            on: &mut |step| match step {
                PathStep::Solving(l2) => on(JobEvent::PullSolving(l2)),
                PathStep::Solved(p) => {
                    path.push(p);
                    on(JobEvent::Pull(p));
                }
            },
            keep: &mut |walking, at| keeper.keep(walking, Some(at)),
        };
        let walked = (self.positions).walk_pulls(&self.vars, self.guards, from, hooks);
        self.kept = keeper.kept().or(self.kept.take());
        let (choice, ours) = match walked? {
            Some(Walked {
                interrupted: true, ..
            }) => return Err(StoppedOnPath(self.kept.clone()).into()),
            Some(Walked {
                choice,
                best,
                goes_on,
                ..
            }) => {
                self.goes_on = goes_on;
                (choice, best)
            }
            None => (PullChoice::Default(DEFAULT_L2), None),
        };
        self.best = ours.or(self.best.take());
        on(JobEvent::PullChosen(choice));
        if let (Some(log), PullChoice::Path { start, .. }) = (&self.settings.run.log, choice) {
            crate::log::append_path(log, &path, start).map_err(|cause| RunError::Io {
                path: log.clone(),
                cause,
            })?;
        }
        Ok(choice.l2())
    }

    /// The λ the path of λs chooses over the variables at pull `l2` (on from `from`), said;
    /// `None` where the positions carry no scores to blend (or nothing is held out to
    /// judge a λ).
    fn chosen_lambda(
        &mut self,
        l2: f64,
        from: Option<OnPath<ValuesOf<B>>>,
        on: &mut dyn FnMut(JobEvent<B::Model>),
    ) -> Result<Option<f64>, B::Error> {
        let (mut path, mut keeper) = (Vec::new(), self.keeper(PathWalk::Lambdas, Some(l2)));
        let hooks = Hooks {
            on: &mut |step| match step {
                PathStep::Solving(lambda) => on(JobEvent::LambdaSolving(lambda)),
                PathStep::Solved(p) => {
                    path.push(p);
                    on(JobEvent::Lambda(p));
                }
            },
            keep: &mut |walking, at| keeper.keep(walking, Some(at)),
        };
        let guards = Guards { l2, ..self.guards };
        let walked = (self.positions).walk_lambdas(&self.vars, guards, from, hooks);
        self.kept = keeper.kept().or(self.kept.take());
        let Some(walked) = walked? else {
            return Ok(None);
        };
        if walked.interrupted {
            return Err(StoppedOnPath(self.kept.clone()).into());
        }
        self.best = walked.best.or(self.best.take());
        self.goes_on = walked.goes_on;
        on(JobEvent::LambdaChosen(walked.choice));
        let lambda = walked.choice.lambda();
        if let Some(log) = &self.settings.run.log {
            let written = crate::log::append_lambdas(log, &path, lambda);
            written.map_err(|cause| RunError::Io {
                path: log.clone(),
                cause,
            })?;
        }
        Ok(Some(lambda))
    }
}

/// Keeps one walk's steps in the run's checkpoint after each: a fresh start's checkpoint
/// carrying the walk ([`OnPath`]), so that a resume walks on.
struct Keeper<V> {
    /// The checkpoint's file and the fresh start it is written over (none: nothing kept).
    file: Option<(PathBuf, Checkpoint<V>)>,
    /// The walk kept.
    walk: PathWalk,
    /// The pull the path of λs walks at.
    pull: Option<f64>,
    /// The best values of the walks before.
    earlier: Option<V>,
    /// Whether a step was kept.
    kept: bool,
}

impl<V: Values> Keeper<V> {
    /// Writes the checkpoint of the walk standing at `walking`, its solver at `at`.
    fn keep(&mut self, walking: &Walking<V>, at: Option<DescentState<V>>) -> Result<(), RunError> {
        let Some((file, fresh)) = &self.file else {
            return Ok(());
        };
        let mut c = fresh.clone();
        c.path = Some(OnPath {
            walk: self.walk,
            walking: walking.clone(),
            at,
            pull: self.pull,
            earlier: self.earlier.clone(),
        });
        c.save(file)?;
        self.kept = true;
        Ok(())
    }

    /// The checkpoint file, once a step was kept in it.
    fn kept(&self) -> Option<PathBuf> {
        (self.file.as_ref()).and_then(|(file, _)| self.kept.then(|| file.clone()))
    }
}
