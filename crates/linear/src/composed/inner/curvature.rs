//! The exact curvature of what the inner sums add, among values the sums leave flat (a
//! square at a zero sum, a sum its clamp holds, a part weighed by a parameter at zero):
//! there a Gauss-Newton step sees neither a slope nor a curvature, but a square still bends
//! and a product of a weight and a sum still twists, and the error's curvature among those
//! values says which way lifts them off the saddle (`texel_solve::newton::saddle`).

use super::{Inner, InnerPoint, PointSums};
use std::ops::Range;

/// A count of a flat value in a sum: the sum, its part, the value's number among the flat
/// ones, the count.
type Entry = (u32, u8, usize, f64);

impl Inner {
    /// Adds to `out` (`n × n`, row-major, `n` = `flat.len()`) the second derivatives among
    /// the values of slots `flat` of what every position's sums add at `point`, position
    /// `i`'s weighed by `weights[i]`: a square's bend ([`texel_trace::Shape::bend`]) between
    /// the values its sum counts, and between a weight and the values of the sums it
    /// multiplies, the part's slope. The positions a span at a time, in order.
    pub fn curvature(&self, point: &InnerPoint, flat: &[usize], weights: &[f64], out: &mut [f64]) {
        for positions in self.spans() {
            let sums = self.sums_at(point, positions.clone());
            self.span_curvature((point, &sums), flat, (positions, weights), out);
        }
    }

    /// [`Inner::curvature`] of the positions `positions` (`sums` holding theirs at `point`).
    fn span_curvature(
        &self,
        (point, at): (&InnerPoint, &PointSums),
        flat: &[usize],
        (positions, weights): (Range<usize>, &[f64]),
        out: &mut [f64],
    ) {
        let sums = self.index.sums_of(positions.clone());
        let mut entries: Vec<Entry> = Vec::new();
        for (j, &slot) in flat.iter().enumerate() {
            self.each_count(slot, sums.clone(), |k, part, count| {
                entries.push((k, part as u8, j, f64::from(count)));
            });
        }
        entries.sort_by_key(|e| (e.0, e.1, e.2));
        // What a unit of the part's shape adds to the error's slope: the position's weight,
        // the sum's side and taper, and the complexity's gate.
        let weight = |k: usize, part: usize| {
            let i = self.index.position(k) as usize;
            weights[i] * self.weight(k)[part] * self.gate(point, k, part)
        };
        let n = flat.len();
        for group in entries.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
            let (k, part) = (group[0].0 as usize, group[0].1 as usize);
            let Some(shape) = self.terms[self.term_of(k) as usize].parts()[part] else {
                continue;
            };
            let a = weight(k, part) * shape.bend(at.get(k)[part]) * shape.factor(point.real());
            for &(_, _, j1, c1) in group.iter().filter(|_| a != 0.0) {
                for &(_, _, j2, c2) in group {
                    out[j1 * n + j2] += a * c1 * c2;
                }
            }
        }
        for (jf, &slot) in flat.iter().enumerate() {
            for &(term, part) in &self.factor_of[slot] {
                let part = part as usize;
                let shape = self.terms[term as usize].parts()[part].expect("a weighed part");
                let of_term = (sums.start..sums.end).filter(|&k| self.term_of(k as usize) == term);
                for k in of_term {
                    let x = at.get(k as usize)[part];
                    let a = weight(k as usize, part) * shape.slope(x);
                    let at = entries.partition_point(|e| (e.0, e.1) < (k, part as u8));
                    let group = entries[at..]
                        .iter()
                        .take_while(|e| (e.0, e.1) == (k, part as u8));
                    for &(_, _, j, c) in group.filter(|_| a != 0.0) {
                        out[jf * n + j] += a * c;
                        out[j * n + jf] += a * c;
                    }
                }
            }
        }
    }
}
