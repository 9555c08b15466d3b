//! The dataset a trace's space needs: a linear one where its evaluation is linear in its
//! values, a composed one where it composes inner sums. Every answer is the chosen
//! dataset's own.

use crate::composed::ComposedDataset;
use crate::linear::LinearDataset;
use std::io::{self, Read, Write};
use std::ops::Range;
use texel_solve::error::SigmoidTable;
use texel_solve::jacobian::{Exact, Hold, Jacobian, RowSink, System};
use texel_solve::model::{Model, Move, Probes};
use texel_trace::{ParamSpace, PositionSource, TracedPosition};

/// The positions of a trace, ready for tuning an outside engine's evaluation: linear or
/// composed, as the trace's space says.
// A run holds one or two, whose bytes are on the heap: a box would only add a hop.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum TraceDataset {
    /// A space without inner terms.
    Linear(LinearDataset),
    /// A space with inner terms.
    Composed(ComposedDataset),
}

/// `$body` with `$d` the chosen dataset.
macro_rules! each {
    ($self:expr, $d:ident => $body:expr) => {
        match $self {
            TraceDataset::Linear($d) => $body,
            TraceDataset::Composed($d) => $body,
        }
    };
}

impl TraceDataset {
    /// The dataset of `positions` of `space`, labelled by `label` (a position's result or
    /// score), with evaluations of all-zero values (see [`Model::rescore`]).
    pub fn new(
        space: &ParamSpace,
        positions: &[&TracedPosition],
        label: impl Fn(&TracedPosition) -> f32 + Sync,
    ) -> TraceDataset {
        let all: Vec<usize> = (0..positions.len()).collect();
        let Ok((set, _)) = TraceDataset::from_source(space, positions, &all, label, |_| ());
        set
    }

    /// The dataset of positions `chosen` (by number, in this order) of `source`, labelled by
    /// `label`, with evaluations of all-zero values; and `extra` of each chosen position, in
    /// order. Each block's positions are visited once, on any thread, so a binary trace is
    /// decoded straight into the columns.
    ///
    /// # Errors
    /// The first chosen position that `source` cannot read.
    pub fn from_source<S, X>(
        space: &ParamSpace,
        source: &S,
        chosen: &[usize],
        label: impl Fn(&TracedPosition) -> f32 + Sync,
        extra: impl Fn(&TracedPosition) -> X + Sync,
    ) -> Result<(TraceDataset, Vec<X>), S::Error>
    where
        S: PositionSource + ?Sized,
        X: Send,
    {
        Ok(match TraceDataset::composes(space) {
            true => {
                let (set, extras) = LinearDataset::build(space, source, chosen, label, extra)?;
                (TraceDataset::Composed(set), extras)
            }
            false => {
                let (set, extras) = LinearDataset::build(space, source, chosen, label, extra)?;
                (TraceDataset::Linear(set), extras)
            }
        })
    }

    /// Whether a trace of `space` composes inner sums: its evaluation is not linear in the
    /// values they read, and Newton may find values held flat where it stands (a square at
    /// a zero sum, a sum weighed by a weight at zero).
    pub fn composes(space: &ParamSpace) -> bool {
        !space.inner().is_empty()
    }

    /// Whether value `slot` of a trace of `space` weighs a part of an inner term (its
    /// `times_param`): tuned, it multiplies the values that part's sums count.
    pub fn weighs(space: &ParamSpace, slot: usize) -> bool {
        (space.inner().iter())
            .flat_map(|term| term.parts())
            .any(|shape| shape.is_some_and(|s| s.times_value == Some(slot)))
    }

    /// Whether the positions compose inner sums.
    pub fn has_inner_terms(&self) -> bool {
        matches!(self, TraceDataset::Composed(_))
    }

    /// Bytes held in memory.
    pub fn memory_bytes(&self) -> usize {
        each!(self, d => d.memory_bytes())
    }

    /// The exact evaluation of position `i` under the current values (before rounding).
    pub fn exact_eval(&self, i: usize) -> f64 {
        each!(self, d => d.exact_eval(i))
    }

    /// The summed error at real values `x` of `slots` (the positions scored at the integer
    /// values `at`, every slot), its gradient and Gauss-Newton Hessian, at `K` = `k`.
    pub fn real_system(&self, at: &[i32], slots: &[usize], x: &[f64], k: f64) -> (f64, System) {
        each!(self, d => d.real_system(at, slots, x, k))
    }

    /// The summed error at real values `x` (as [`TraceDataset::real_system`]) and its
    /// gradient.
    pub fn real_gradient(&self, at: &[i32], slots: &[usize], x: &[f64], k: f64) -> (f64, Vec<f64>) {
        each!(self, d => d.real_gradient(at, slots, x, k))
    }

    /// The summed error at real values `x` (as [`TraceDataset::real_system`]).
    pub fn real_sum(&self, at: &[i32], slots: &[usize], x: &[f64], k: f64) -> f64 {
        each!(self, d => d.real_sum(at, slots, x, k))
    }

    /// The summed error at `x + alpha · p` for each of `alphas` (as
    /// [`TraceDataset::real_system`]).
    pub fn real_sums(
        &self,
        at: (&[i32], &[usize]),
        line: (&[f64], &[f64]),
        alphas: &[f64],
        k: f64,
    ) -> Vec<f64> {
        each!(self, d => d.real_sums(at, line, alphas, k))
    }

    /// How the positions hold each of `slots` at real values `x` ([`Hold`]): a linear
    /// dataset holds none flat (the answer is empty).
    pub fn real_holds(&self, at: &[i32], slots: &[usize], x: &[f64]) -> Vec<Hold> {
        match self {
            TraceDataset::Linear(_) => Vec::new(),
            TraceDataset::Composed(d) => d.real_holds(at, slots, x),
        }
    }

    /// The summed error's curvature among the flat variables `flat` at real values `x`, by
    /// rows: zero where the positions are linear in their values.
    pub fn real_flat_curvature(
        &self,
        at: (&[i32], &[usize], &[f64]),
        flat: &[usize],
        k: f64,
    ) -> Vec<f64> {
        match self {
            TraceDataset::Linear(_) => vec![0.0; flat.len() * flat.len()],
            TraceDataset::Composed(d) => d.real_flat_curvature(at, flat, k),
        }
    }

    /// Writes the dataset's tuner form, without its sums.
    pub fn write_form(&self, out: &mut impl Write) -> io::Result<()> {
        each!(self, d => d.write_form(out))
    }

    /// Reads a dataset [`TraceDataset::write_form`] wrote, in `space`, unscored (every sum
    /// zero).
    ///
    /// # Errors
    /// The input ends early or is not such a form.
    pub fn read_form(space: &ParamSpace, input: &mut impl Read) -> io::Result<TraceDataset> {
        Ok(match TraceDataset::composes(space) {
            true => TraceDataset::Composed(ComposedDataset::read_form(space, input)?),
            false => TraceDataset::Linear(LinearDataset::read_form(space, input)?),
        })
    }
}

impl Model for TraceDataset {
    type Values = Vec<i32>;

    fn len(&self) -> usize {
        each!(self, d => d.len())
    }

    fn slot_count(&self) -> usize {
        each!(self, d => d.slot_count())
    }

    fn target(&self, i: usize) -> f64 {
        each!(self, d => d.target(i))
    }

    fn set_targets(&mut self, targets: Vec<f32>) {
        each!(self, d => d.set_targets(targets))
    }

    fn eval(&self, i: usize) -> i32 {
        each!(self, d => d.eval(i))
    }

    fn rescore(&mut self, values: &Vec<i32>) {
        each!(self, d => d.rescore(values))
    }

    fn sample(&self, n: usize) -> Self {
        match self {
            TraceDataset::Linear(d) => TraceDataset::Linear(d.sample(n)),
            TraceDataset::Composed(d) => TraceDataset::Composed(d.sample(n)),
        }
    }

    fn support(&self, slots: &[usize]) -> usize {
        each!(self, d => d.support(slots))
    }

    fn probe(&self, cache: &mut (), mv: Move<'_, Vec<i32>>, errors: &[f64]) -> f64 {
        each!(self, d => d.probe(cache, mv, errors))
    }

    fn apply(&mut self, cache: &mut (), mv: Move<'_, Vec<i32>>, errors: &mut [f64]) {
        each!(self, d => d.apply(cache, mv, errors))
    }

    fn linear(&self, slot: usize) -> bool {
        each!(self, d => Model::linear(d, slot))
    }

    fn exact_eval(&self, i: usize) -> f64 {
        each!(self, d => Model::exact_eval(d, i))
    }
}

impl Probes for TraceDataset {
    type Cache = ();

    fn supports(&self, slots: &[usize]) -> Vec<usize> {
        each!(self, d => d.supports(slots))
    }

    fn cache(&self, _values: &Vec<i32>) {}

    fn cache_bytes(_cache: &()) -> usize {
        0
    }

    fn refresh(&mut self, cache: &mut (), values: &Vec<i32>) {
        each!(self, d => d.refresh(cache, values))
    }

    fn probe_each(
        &self,
        cache: &mut (),
        moves: (&Vec<i32>, &[(usize, i32)]),
        sigmoid: &SigmoidTable,
        errors: &[f64],
    ) -> Vec<f64> {
        each!(self, d => d.probe_each(cache, moves, sigmoid, errors))
    }

    fn scorings(&self) -> u64 {
        each!(self, d => d.scorings())
    }

    fn probe_since(
        &self,
        mv: Move<'_, Vec<i32>>,
        errors: &[f64],
        before: (u64, f64),
    ) -> Option<f64> {
        each!(self, d => d.probe_since(mv, errors, before))
    }

    fn reach(&self, slot: usize) -> usize {
        each!(self, d => d.reach(slot))
    }

    fn eval_moves(&self, cache: &mut (), mv: Move<'_, Vec<i32>>) -> Vec<(u32, f64)> {
        each!(self, d => d.eval_moves(cache, mv))
    }

    fn lattice_polish(&self) -> bool {
        each!(self, d => d.lattice_polish())
    }

    fn exact(&self) -> Option<&dyn Exact> {
        each!(self, d => d.exact())
    }
}

impl Jacobian for TraceDataset {
    fn pairs_with_next(&self, slot: usize) -> bool {
        each!(self, d => d.pairs_with_next(slot))
    }

    fn row_blocks(&self) -> usize {
        each!(self, d => d.row_blocks())
    }

    fn block_span(&self, b: usize) -> (usize, usize) {
        each!(self, d => d.block_span(b))
    }

    fn block_rows<S: RowSink>(&self, b: usize, slots: &[usize], rows: &mut S) {
        each!(self, d => d.block_rows(b, slots, rows))
    }

    fn row_part(&self) -> usize {
        each!(self, d => d.row_part())
    }

    fn part_rows<S: RowSink>(&self, b: usize, within: Range<usize>, slots: &[usize], rows: &mut S) {
        each!(self, d => d.part_rows(b, within, slots, rows))
    }

    fn block_product(&self, b: usize, slots: &[usize], direction: &[f64], out: &mut [f64]) {
        each!(self, d => d.block_product(b, slots, direction, out))
    }

    fn block_gradient(&self, b: usize, slots: &[usize], slopes: &[f64], gradient: &mut [f64]) {
        each!(self, d => d.block_gradient(b, slots, slopes, gradient))
    }
}

#[cfg(test)]
mod tests {
    use super::TraceDataset;
    use texel_trace::{Curve, InnerTerm, Param, ParamSpace, Shape, TracedPosition};

    fn space(inner: bool) -> ParamSpace {
        let table = Param {
            name: "TABLE".into(),
            len: 2,
            tapered: true,
            default: vec![10, 20, 30, 40],
            group: None,
            candidate: false,
        };
        let space = ParamSpace::new(vec![table]).unwrap();
        let safety = Shape {
            curve: Curve::Square,
            floor: Some(0.0),
            ceiling: None,
            times: -0.01,
            times_value: None,
        };
        let term = InnerTerm {
            name: "king_safety".into(),
            mid: Some(safety),
            end: None,
        };
        match inner {
            true => space.with_inner(vec![term]).unwrap(),
            false => space,
        }
    }

    #[test]
    fn a_space_with_inner_terms_takes_the_composed_dataset_and_one_without_the_linear() {
        let positions = [TracedPosition::default()];
        let refs: Vec<&TracedPosition> = positions.iter().collect();
        for inner in [false, true] {
            let ds = TraceDataset::new(&space(inner), &refs, |p| p.result);
            assert_eq!(ds.has_inner_terms(), inner);
            assert_eq!(TraceDataset::composes(&space(inner)), inner);
            assert!(matches!(ds, TraceDataset::Composed(_)) == inner);
        }
    }
}
