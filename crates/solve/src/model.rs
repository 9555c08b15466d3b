//! What the tuner core tunes, whoever wrote the evaluation: a [`Model`] is a set of labelled
//! positions whose evaluations follow from integer [`Values`], with the incremental probes
//! the descent needs. texel's own table is one model (`texel_dataset::Dataset`: its curves and
//! formulas keep their exact probes); the evaluation of any engine, read from a trace
//! (linear, or composing inner sums), is another (`texel_linear::TraceDataset`). The descent, Adam, the guards, runs and
//! checkpoints see only these two traits.

use crate::jacobian::{Exact, Jacobian, RowSink};
use crate::sigmoid::SigmoidTable;
pub use crate::values::Values;

/// Labelled positions and the evaluation of each under the current values, cached so that a
/// probe recomputes only what a move touches: what every model must answer. How the solver
/// keeps a cache beside it, the faster ways to probe and which polish suits it are
/// [`Probes`], each with a default but the cache.
///
/// Sums of errors must not depend on the number of threads: implementations add them in a
/// fixed order of fixed blocks. (No `is_empty`: `len() == 0` says it, and every method here
/// is one a model author must write.)
#[allow(clippy::len_without_is_empty)]
pub trait Model: Probes + Jacobian + Send + Sync + Sized {
    /// The values the evaluation reads.
    type Values: Values;

    /// Number of positions.
    fn len(&self) -> usize;

    /// Number of value slots the evaluation reads.
    fn slot_count(&self) -> usize;

    /// The label of position `i`: White's score from 0 to 1.
    fn target(&self, i: usize) -> f64;

    /// Gives every position a new label (`targets`, one a position, in order): what the
    /// path of λs moves.
    fn set_targets(&mut self, targets: Vec<f32>);

    /// The cached evaluation of position `i`, whole centipawns from White's view.
    fn eval(&self, i: usize) -> i32;

    /// Recomputes every cached evaluation for `values` (the full pass).
    fn rescore(&mut self, values: &Self::Values);

    /// About one block of positions in `n`, as a model of its own, scored as this one is
    /// (a warm start's sample).
    fn sample(&self, n: usize) -> Self;

    /// How many positions one of `slots` acts on.
    fn support(&self, slots: &[usize]) -> usize;

    /// The change of the summed squared error if `mv` were made; `errors` holds every
    /// position's squared error now. Nothing is changed but `cache`.
    fn probe(&self, cache: &mut Self::Cache, mv: Move<'_, Self::Values>, errors: &[f64]) -> f64;

    /// Makes `mv` for good in the positions: their cached evaluations and their entries in
    /// `errors` (the values themselves are the descent's).
    fn apply(&mut self, cache: &mut Self::Cache, mv: Move<'_, Self::Values>, errors: &mut [f64]);

    /// Whether the evaluation is linear in `slot`: its gradient is a column sum. Values a
    /// curve or formula reads are not (their gradient is a central difference of probes).
    fn linear(&self, slot: usize) -> bool;

    /// The evaluation of position `i` at the cached values before any rounding to whole
    /// centipawns: where Newton's real-valued evaluations start from.
    fn exact_eval(&self, i: usize) -> f64;
}

/// How the solver works a [`Model`] beyond what it must answer: the cache a descent keeps
/// beside the positions, the faster ways to probe that a model may give (each defaults to
/// the plain way), and which polish and which exact answers suit its evaluation.
pub trait Probes: Sized {
    /// What a descent keeps beside the positions while it probes (buffers, formula results).
    type Cache: Send + Sync;

    /// The probing state for a descent at `values` (the cached evaluations are those of
    /// `values`).
    fn cache(&self, values: &<Self as Model>::Values) -> Self::Cache
    where
        Self: Model;

    /// Bytes the cache holds.
    fn cache_bytes(cache: &Self::Cache) -> usize;

    /// [`Model::rescore`], rebuilding `cache` for `values` as well; by default the cache is
    /// made anew.
    fn refresh(&mut self, cache: &mut Self::Cache, values: &<Self as Model>::Values)
    where
        Self: Model,
    {
        self.rescore(values);
        *cache = self.cache(values);
    }

    /// How many positions each of `slots` acts on, in order.
    fn supports(&self, slots: &[usize]) -> Vec<usize>
    where
        Self: Model,
    {
        slots.iter().map(|&s| self.support(&[s])).collect()
    }

    /// [`Model::probe`] of each of `moves` (slot and delta, all from `values`), in order.
    /// One by one unless the model reads its positions once for all of them.
    fn probe_each(
        &self,
        cache: &mut Self::Cache,
        (values, moves): (&<Self as Model>::Values, &[(usize, i32)]),
        sigmoid: &SigmoidTable,
        errors: &[f64],
    ) -> Vec<f64>
    where
        Self: Model,
    {
        let each = |&mv: &(usize, i32)| Move::of(values, mv, sigmoid);
        moves
            .iter()
            .map(|m| self.probe(cache, each(m), errors))
            .collect()
    }

    /// How many times the positions have been scored or moved (see
    /// [`crate::Probes::probe_since`]; 0 for models that do not count).
    fn scorings(&self) -> u64 {
        0
    }

    /// [`Model::probe`] of `mv` read only over the positions changed since scoring number
    /// `scoring` (see [`crate::Probes::scorings`]), from `before`: its change then. `None` where the
    /// model kept no record of those positions (it then is probed anew).
    fn probe_since(
        &self,
        _mv: Move<'_, <Self as Model>::Values>,
        _errors: &[f64],
        _before: (u64, f64),
    ) -> Option<f64>
    where
        Self: Model,
    {
        None
    }

    /// About how many positions a move of `slot` reaches (an upper bound, read without a
    /// pass over them): what making it for good costs beside a full scoring. Every
    /// position, unless the model knows better.
    fn reach(&self, _slot: usize) -> usize
    where
        Self: Model,
    {
        self.len()
    }

    /// How each position's unrounded evaluation moves under `mv`, for every position it
    /// moves: (position, centipawns), positions rising. For a [`Model::linear`] slot this is
    /// its Jacobian column times `mv.delta`; models override it for the others (the exact
    /// incremental change). Nothing is changed but `cache`.
    fn eval_moves(
        &self,
        _cache: &mut Self::Cache,
        mv: Move<'_, <Self as Model>::Values>,
    ) -> Vec<(u32, f64)>
    where
        Self: Model,
    {
        let mut column = ColumnSink(Vec::new(), f64::from(mv.delta));
        for b in 0..self.row_blocks() {
            self.block_rows(b, &[mv.slot], &mut column);
        }
        column.0
    }

    /// Whether Newton's integer polish is the lattice rounds of `crate::polish`, which read
    /// the positions twice a round and so run the same streamed (a trace's evaluation), rather
    /// than coordinate descent, whose sequential probes suit a table that is always in memory
    /// and whose curves Newton may leave far from their optimum (texel's own).
    fn lattice_polish(&self) -> bool {
        false
    }

    /// The evaluation's own exact answers to Newton where its columns cannot give them (a
    /// trace whose positions compose inner sums: through the chain rule); `None`, the
    /// default: Newton reads the columns, and secants of the values they do not cover.
    fn exact(&self) -> Option<&dyn Exact> {
        None
    }
}

/// [`crate::Probes::eval_moves`] through the rows: one slot's column, each entry times the move.
struct ColumnSink(Vec<(u32, f64)>, f64);

impl RowSink for ColumnSink {
    fn begin(&mut self, _start: usize, _len: usize) {}

    fn push(&mut self, position: usize, _var: u32, derivative: f64) {
        self.0.push((position as u32, derivative * self.1));
    }
}

/// A move of one value: `slot` by `delta` from `values`, errors under `sigmoid`.
pub struct Move<'m, V> {
    /// The values now.
    pub values: &'m V,
    /// The slot moved.
    pub slot: usize,
    /// How far.
    pub delta: i32,
    /// The error function.
    pub sigmoid: &'m SigmoidTable,
}

impl<'m, V> Move<'m, V> {
    /// `(slot, delta)` from `values`, judged by `sigmoid`.
    pub fn of(values: &'m V, (slot, delta): (usize, i32), sigmoid: &'m SigmoidTable) -> Self {
        Move {
            values,
            slot,
            delta,
            sigmoid,
        }
    }
}

impl<V> Clone for Move<'_, V> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<V> Copy for Move<'_, V> {}
