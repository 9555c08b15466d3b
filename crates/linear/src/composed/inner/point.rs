//! The inner sums at real values, Newton's trial points (`crate::chain`): a point
//! holds the values and a complexity's gates; the sums themselves are worked out a span of
//! positions at a time ([`Inner::sums_at`]), so no point holds a list as long as the
//! dataset's sums.

use super::{Added, Inner};
use rayon::prelude::*;
use std::ops::Range;

/// Positions whose sums [`Inner::each_at`] works out at a time (a few in the unit tests,
/// whose datasets then span many).
const POINT_SPAN: usize = if cfg!(test) { 1 << 5 } else { 1 << 12 };

/// The inner sums at real values: the values, and for a complexity each position's endgame
/// factors there ([`Added::gates`]). The sums are worked out when asked
/// ([`Inner::sums_at`]).
pub struct InnerPoint {
    real: Vec<f64>,
    gates: Vec<(f64, f64)>,
}

impl InnerPoint {
    /// The factor of position `i`'s endgame derivatives (1 before [`Inner::settle`]).
    pub fn end_gate(&self, i: usize) -> f64 {
        self.gates.get(i).map_or(1.0, |g| g.0)
    }

    /// The values, every slot.
    pub(super) fn real(&self) -> &[f64] {
        &self.real
    }
}

/// The sums of a run of positions at a point: sums `from..`, in order.
pub struct PointSums {
    from: usize,
    sums: Vec<[f64; 2]>,
}

impl PointSums {
    /// Sum `k`'s middlegame and endgame sums (`k` one of the run's).
    #[inline]
    pub(super) fn get(&self, k: usize) -> [f64; 2] {
        self.sums[k - self.from]
    }
}

impl Inner {
    /// The point of real values `real` (every slot).
    pub fn at(&self, real: &[f64]) -> InnerPoint {
        InnerPoint {
            real: real.to_vec(),
            gates: Vec::new(),
        }
    }

    /// The sums of positions `positions` at `point`: the same sums, bit for bit, whatever
    /// the run they are worked out in.
    pub fn sums_at(&self, point: &InnerPoint, positions: Range<usize>) -> PointSums {
        let (from, to) = (
            self.index.first(positions.start),
            self.index.first(positions.end),
        );
        let mut sums = vec![[0.0; 2]; (to - from) as usize];
        self.fill_sums(from, &mut sums, &point.real);
        PointSums {
            from: from as usize,
            sums,
        }
    }

    /// `f(i, sums, place)` for every position `i`, `place` its entry of `list` (one a
    /// position) and `sums` those of its span of positions at `point`; spans on any thread.
    pub fn each_at<T: Send>(
        &self,
        point: &InnerPoint,
        list: &mut [T],
        f: impl Fn(usize, &PointSums, &mut T) + Sync,
    ) {
        (list.par_chunks_mut(POINT_SPAN).enumerate()).for_each(|(span, places)| {
            let start = span * POINT_SPAN;
            let sums = self.sums_at(point, start..start + places.len());
            (start..)
                .zip(places)
                .for_each(|(i, place)| f(i, &sums, place));
        });
    }

    /// The spans of positions [`Inner::each_at`] takes, in order.
    pub(super) fn spans(&self) -> impl Iterator<Item = Range<usize>> {
        let n = self.added.len();
        (0..n)
            .step_by(POINT_SPAN)
            .map(move |s| s..(s + POINT_SPAN).min(n))
    }

    /// What position `i`'s sums add at `point` (`sums` holding its sums there), its linear
    /// entries' endgame part being `linear_end`.
    pub fn added_at(
        &self,
        (point, sums): (&InnerPoint, &PointSums),
        i: usize,
        linear_end: f64,
    ) -> f64 {
        self.point_added((point, sums), i).with(linear_end)
    }

    /// What position `i`'s sums give at `point`.
    fn point_added(&self, (point, sums): (&InnerPoint, &PointSums), i: usize) -> Added {
        self.position_added(i, |k| sums.get(k), |slot| point.real[slot])
    }

    /// Settles the complexity's derivatives at `point`: each position's linear entries'
    /// endgame part there is `linear_end(i)`.
    pub fn settle(&self, point: &mut InnerPoint, linear_end: impl Fn(usize) -> f64 + Sync) {
        let mut gates = vec![(0.0, 0.0); self.added.len()];
        self.each_at(point, &mut gates, |i, sums, gate| {
            *gate = self.point_added((point, sums), i).gates(linear_end(i));
        });
        point.gates = gates;
    }

    /// The factor of a derivative of sum `k`'s part `part` at `point`: a complexity's is
    /// the endgame part's sign there, any other endgame part's the position's endgame gate.
    pub(super) fn gate(&self, point: &InnerPoint, k: usize, part: usize) -> f64 {
        let i = self.index.position(k) as usize;
        match (part, self.terms[self.term_of(k) as usize].is_complexity()) {
            (0, _) => 1.0,
            (_, true) => point.gates.get(i).map_or(0.0, |g| g.1),
            (_, false) => point.end_gate(i),
        }
    }

    /// Adds to `out` the derivative in `slot` of what the sums of positions `positions`
    /// add at `point` (`sums` holding theirs there): (position, derivative), one per sum
    /// that moves.
    pub fn derivatives(
        &self,
        (point, sums): (&InnerPoint, &PointSums),
        slot: usize,
        positions: Range<usize>,
        out: &mut Vec<(usize, f64)>,
    ) {
        let run = self.index.sums_of(positions.clone());
        self.each_count(slot, run.clone(), |k, part, count| {
            let k = k as usize;
            let term = &self.terms[self.term_of(k) as usize];
            if let Some(shape) = term.parts()[part] {
                let x = sums.get(k)[part];
                let d = self.weight(k)[part] * shape.slope(x) * shape.factor(&point.real);
                let gate = self.gate(point, k, part);
                out.push((self.index.position(k) as usize, gate * d * f64::from(count)));
            }
        });
        for &(t, part) in &self.factor_of[slot] {
            let part = part as usize;
            let shape = self.terms[t as usize].parts()[part].expect("a part with a factor");
            for k in (run.start as usize..run.end as usize).filter(|&k| self.term_of(k) == t) {
                let d = self.weight(k)[part] * shape.value(sums.get(k)[part]);
                out.push((
                    self.index.position(k) as usize,
                    self.gate(point, k, part) * d,
                ));
            }
        }
    }

    /// Adds to `gradient` (one entry per slot of `slots`) the slope-weighed derivatives of
    /// what the sums of positions `positions` add at `point` (`sums` holding theirs there):
    /// `Σ slopes[i] · ∂added_i`, `slopes` from the first of `positions` on. A slot no sum
    /// counts or multiplies by adds nothing.
    pub fn add_gradient(
        &self,
        (point, sums): (&InnerPoint, &PointSums),
        (slots, positions): (&[usize], Range<usize>),
        slopes: &[f64],
        gradient: &mut [f64],
    ) {
        let mut column = Vec::new();
        for (g, &slot) in gradient.iter_mut().zip(slots) {
            if self.linear(slot) {
                continue;
            }
            column.clear();
            self.derivatives((point, sums), slot, positions.clone(), &mut column);
            let weighed = column.iter().map(|&(i, d)| slopes[i - positions.start] * d);
            *g += weighed.sum::<f64>();
        }
    }
}
