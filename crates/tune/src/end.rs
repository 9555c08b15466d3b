//! How every run ends, in memory or streamed, written once: the values held at their start
//! for want of support named, what changed since the run began (the largest change first,
//! with the training positions each counts in), whether held-out positions gave the start
//! back, and the run's log closed with a line of both.

use crate::log::{append_changes, held_names, ValueChange};
use crate::run::RunResult;
use std::path::{Path, PathBuf};
use texel_solve::descent::Variable;
use texel_solve::model::Values;

/// What a whole tune gives.
#[derive(Clone, Debug)]
pub struct Tuned<V> {
    /// The run's end and values.
    pub result: RunResult<V>,
    /// The names of the values held at their start for want of support.
    pub held: Vec<String>,
    /// Every value changed since the run began (a resumed run: since its first start),
    /// the largest change first.
    pub changes: Vec<ValueChange>,
    /// Validation chose the start over every pass: the values are the start's.
    pub kept_start: bool,
}

/// The run's log could not be closed with its last line.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the log {path}: {cause}")]
pub struct LogError {
    /// The log.
    pub path: PathBuf,
    /// The cause.
    pub cause: std::io::Error,
}

/// Where a run began, what it tuned, and where it logs: what its end is told against.
pub(crate) struct Ending<'a, V> {
    /// The values the run first began from (a resumed run's first start).
    pub began: &'a V,
    /// The variables asked for.
    pub asked: &'a [Variable],
    /// Those tuned (the rest were held for want of support).
    pub tuned: &'a [Variable],
    /// Whether held-out positions judge the run.
    pub held_out: bool,
    /// The run's log.
    pub log: Option<&'a Path>,
}

impl<V: Values> Ending<'_, V> {
    /// The tune `result` ended with: the held values and every change named by `name`, each
    /// change with the training positions `support` gives for its slots (in the order
    /// asked), the start kept or not, and the log's last line written (an interrupted run's
    /// too).
    ///
    /// # Errors
    /// The log cannot be written.
    pub(crate) fn tuned(
        self,
        mut result: RunResult<V>,
        name: &dyn Fn(usize) -> String,
        support: impl FnOnce(&[usize]) -> Vec<usize>,
    ) -> Result<Tuned<V>, LogError> {
        let held = held_names(self.asked, self.tuned, name);
        let changes = changes(self.began.values(), result.params.values(), support, name);
        let validated = self.held_out && result.passes > 0;
        let kept_start = validated && result.params.values() == self.began.values();
        // The start given back is pass 0's values, whatever the checkpoint said.
        result.best_pass = result.best_pass.or(kept_start.then_some(0));
        if let Some(path) = self.log {
            let written = result.best_pass;
            let appended = append_changes(path, (held.clone(), changes.clone()), written);
            appended.map_err(|cause| LogError {
                path: path.to_path_buf(),
                cause,
            })?;
        }
        Ok(Tuned {
            result,
            held,
            changes,
            kept_start,
        })
    }
}

/// Every value `after` changed from `before` by slot, named by `name`, with its support
/// (`support` of the changed slots): the largest change first (ties by slot).
fn changes(
    before: &[i32],
    after: &[i32],
    support: impl FnOnce(&[usize]) -> Vec<usize>,
    name: &dyn Fn(usize) -> String,
) -> Vec<ValueChange> {
    let mut slots: Vec<usize> = (0..before.len())
        .filter(|&i| before[i] != after[i])
        .collect();
    slots.sort_by_key(|&i| (std::cmp::Reverse((after[i] - before[i]).abs()), i));
    let support = support(&slots);
    (slots.into_iter().zip(support))
        .map(|(i, support)| ValueChange {
            value: name(i),
            before: before[i],
            after: after[i],
            support,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::RunEnd;

    fn ending<'a>(
        began: &'a Vec<i32>,
        vars: &'a [Variable],
        held_out: bool,
    ) -> Ending<'a, Vec<i32>> {
        Ending {
            began,
            asked: vars,
            tuned: &vars[1..],
            held_out,
            log: None,
        }
    }

    fn result(params: Vec<i32>, passes: usize) -> RunResult<Vec<i32>> {
        RunResult {
            params,
            end: RunEnd::Converged,
            passes,
            best_pass: None,
        }
    }

    #[test]
    fn changes_come_largest_first_with_their_support_and_held_values_named() {
        let vars: Vec<Variable> = (0..3).map(|slot| Variable { slot, step: 1 }).collect();
        let name = |slot: usize| format!("V{slot}");
        let began = vec![0, 0, 0];
        let support = |slots: &[usize]| slots.iter().map(|s| 10 * s).collect();
        let tuned = (ending(&began, &vars, false).tuned(result(vec![0, 2, -5], 3), &name, support))
            .unwrap();
        assert_eq!(tuned.held, vec!["V0".to_string()]);
        let changed: Vec<(&str, i32, usize)> = (tuned.changes.iter())
            .map(|c| (c.value.as_str(), c.after, c.support))
            .collect();
        assert_eq!(changed, vec![("V2", -5, 20), ("V1", 2, 10)]);
        assert!(!tuned.kept_start);
    }

    #[test]
    fn the_start_is_kept_only_where_held_out_positions_judged_a_pass() {
        let vars: Vec<Variable> = (0..2).map(|slot| Variable { slot, step: 1 }).collect();
        let (name, began) = (|s: usize| s.to_string(), vec![1, 2]);
        let kept = |held_out, passes| {
            let ending = ending(&began, &vars, held_out);
            let tuned = ending.tuned(result(began.clone(), passes), &name, |_| Vec::new());
            tuned.unwrap().kept_start
        };
        assert!(kept(true, 2));
        assert!(!kept(false, 2));
        assert!(!kept(true, 0));
    }
}
