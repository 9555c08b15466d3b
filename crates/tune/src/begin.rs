//! How every tune begins, its positions in memory or read from their file in every pass:
//! the values too few training positions count held at their start, then either the
//! checkpoint to continue checked against the positions and the values left, or a fresh
//! start whose L2 pull is given or chosen by the path of pulls (`crate::path`, judged on
//! the held-out positions, its pulls written to the run's log). A run stopped on a path
//! keeps the walk in its checkpoint after every step solved, and its resume walks on from
//! there (`walks`). The positions answer what the beginning asks through [`Beginning`];
//! what it does comes to the caller as [`JobEvent`]s.

mod walks;

use crate::checkpoint::Checkpoint;
use crate::events::JobEvent;
use crate::lambda::{LambdaChoice, LambdaPoint};
use crate::path::{Hooks, OnPath, PullPoint, Walked};
use crate::run::RunError;
use crate::settings::TuneSettings;
use std::path::PathBuf;
use texel_run::Settings;
use texel_solve::descent::{Guards, Variable};
use texel_solve::model::Model;
use walks::Walks;

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

    /// The path of pulls walked from the start over `vars` with `guards` (or walked on from
    /// where `from` stopped), each pull told to `hooks` and kept by them, and the pull
    /// chosen with its solve's values; `None` when no position is held out to judge it.
    /// The run's deadline ends it.
    ///
    /// # Errors
    /// The positions cannot be read, or the walk cannot be kept.
    fn walk_pulls(
        &mut self,
        vars: &[Variable],
        guards: Guards,
        from: Option<OnPath<ValuesOf<Self>>>,
        hooks: Hooks<'_, PullPoint, ValuesOf<Self>>,
    ) -> Result<Option<Walked<ValuesOf<Self>>>, Self::Error>;

    /// The path of λs walked from the start over `vars` with `guards` (its pull the one the
    /// path of pulls chose; or walked on from where `from` stopped), each λ told to `hooks`
    /// and kept by them, and the λ chosen on the held-out positions' results; `None` where
    /// the positions carry no scores to blend (their targets stay as loaded). The training
    /// targets are left as loaded.
    ///
    /// # Errors
    /// The positions cannot be read, or the walk cannot be kept.
    fn walk_lambdas(
        &mut self,
        vars: &[Variable],
        guards: Guards,
        from: Option<OnPath<ValuesOf<Self>>>,
        hooks: Hooks<'_, LambdaPoint, ValuesOf<Self>>,
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

/// Ctrl-C on a path of pulls or of λs, before the run began: nothing was tuned or written;
/// the checkpoint that keeps the walk so far, where a step was solved (its resume walks on
/// from there, as the unbroken run would have).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", stopped_words(.0.as_deref()))]
pub struct StoppedOnPath(pub Option<PathBuf>);

/// What a stop on a path says, the walk kept in `kept` or not.
fn stopped_words(kept: Option<&std::path::Path>) -> String {
    let said = "stopped on the path of pulls or λs, before the run began: nothing was tuned or \
                written";
    match kept {
        Some(ckpt) => format!(
            "{said}; {} keeps the path walked so far: continue with the same command and \
             --resume {}",
            ckpt.display(),
            ckpt.display()
        ),
        None => format!("{said} (the same command walks the path again)"),
    }
}

/// The checkpoint a tune of `selected` with `settings` begins from on `positions`: `resume`
/// continued (a run, or a walk on its paths), or a fresh start recording `record` (see the
/// module's page).
///
/// # Errors
/// Every selected value is held, the positions cannot answer, `resume` does not continue
/// them, or the path of pulls cannot be written to the log or kept.
pub(crate) fn begin<B: Beginning>(
    positions: &mut B,
    (selected, settings): (&[Variable], &TuneSettings),
    resume: Option<Checkpoint<ValuesOf<B>>>,
    record: Option<Settings>,
    on: &mut dyn FnMut(JobEvent<B::Model>),
) -> Result<Checkpoint<ValuesOf<B>>, B::Error> {
    let vars = held(positions, selected, settings.min_support, on)?;
    let mut from = None;
    if let Some(mut c) = resume {
        positions.continues(&c, &vars)?;
        if let Some(lambda) = c.lambda {
            positions.relabel(lambda);
        }
        let Some(path) = c.path.take() else {
            on(JobEvent::Resumed(c.passes, vars.len()));
            c.settings = c.settings.or(record);
            return Ok(c);
        };
        on(JobEvent::ResumedOnPath(
            path.walk,
            path.walking.solved.len(),
        ));
        from = Some((path, c.lambda));
    }
    let walks = Walks::new(positions, vars, (settings, record));
    walks.walk(from, on)
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
mod tests;
