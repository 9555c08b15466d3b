//! Secant columns: the values an evaluation is not linear in (curve inputs, values a formula
//! reads), linearized where they stand so that Newton moves them with the rest.
//!
//! A secant column holds, for every position a value moves, half the difference of its
//! unrounded evaluation one unit above and one unit below (the exact incremental changes of
//! [`crate::Probes::eval_moves`]). [`Linearized`] serves a model's own columns for its linear
//! variables and the secant columns after them, as one [`Jacobian`].

use crate::jacobian::{Jacobian, RowSink};

/// A secant column from the moves one unit up and one unit down (each positions rising):
/// (position, centipawns per unit), positions rising.
pub fn secant(up: &[(u32, f64)], down: &[(u32, f64)]) -> Vec<(u32, f64)> {
    let (mut u, mut d) = (0, 0);
    let mut out = Vec::with_capacity(up.len().max(down.len()));
    while u < up.len() || d < down.len() {
        let pos_up = up.get(u).map_or(u32::MAX, |e| e.0);
        let pos_down = down.get(d).map_or(u32::MAX, |e| e.0);
        let pos = pos_up.min(pos_down);
        let mut slope = 0.0;
        if pos_up == pos {
            (slope, u) = (up[u].1, u + 1);
        }
        if pos_down == pos {
            (slope, d) = (slope - down[d].1, d + 1);
        }
        if slope != 0.0 {
            out.push((pos, slope / 2.0));
        }
    }
    out
}

/// A model's Jacobian for `linear` variables of its own, followed by variables whose columns
/// are given (secants).
pub struct Linearized<'m, J> {
    model: &'m J,
    linear: usize,
    /// Per block of the model: (position in the block, variable, centipawns per unit), by
    /// variable, then position.
    entries: Vec<Vec<(u32, u32, f64)>>,
}

impl<'m, J: Jacobian> Linearized<'m, J> {
    /// `model`'s first `linear` variables, then one variable per column of `columns`
    /// ((position, centipawns per unit), positions rising).
    pub fn new(model: &'m J, linear: usize, columns: &[Vec<(u32, f64)>]) -> Self {
        let spans: Vec<(usize, usize)> = (0..model.row_blocks())
            .map(|b| model.block_span(b))
            .collect();
        let mut entries = vec![Vec::new(); spans.len()];
        for (k, column) in columns.iter().enumerate() {
            let var = (linear + k) as u32;
            let mut b = 0;
            for &(pos, d) in column {
                let pos = pos as usize;
                while pos >= spans[b].0 + spans[b].1 {
                    b += 1;
                }
                entries[b].push(((pos - spans[b].0) as u32, var, d));
            }
        }
        Linearized {
            model,
            linear,
            entries,
        }
    }
}

impl<J: Jacobian> Jacobian for Linearized<'_, J> {
    fn pairs_with_next(&self, slot: usize) -> bool {
        self.model.pairs_with_next(slot)
    }

    fn row_blocks(&self) -> usize {
        self.model.row_blocks()
    }

    fn block_span(&self, b: usize) -> (usize, usize) {
        self.model.block_span(b)
    }

    fn block_rows<S: RowSink>(&self, b: usize, slots: &[usize], rows: &mut S) {
        self.model.block_rows(b, &slots[..self.linear], rows);
        let start = self.model.block_span(b).0;
        for &(at, var, d) in &self.entries[b] {
            rows.push(start + at as usize, var, d);
        }
    }

    fn block_product(&self, b: usize, slots: &[usize], direction: &[f64], out: &mut [f64]) {
        let own = (&slots[..self.linear], &direction[..self.linear]);
        self.model.block_product(b, own.0, own.1, out);
        for &(at, var, d) in &self.entries[b] {
            out[at as usize] += d * direction[var as usize];
        }
    }

    fn block_gradient(&self, b: usize, slots: &[usize], slopes: &[f64], gradient: &mut [f64]) {
        let own = &slots[..self.linear];
        self.model
            .block_gradient(b, own, slopes, &mut gradient[..self.linear]);
        for &(at, var, d) in &self.entries[b] {
            gradient[var as usize] += slopes[at as usize] * d;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jacobian::RowBuilder;

    /// A dense Jacobian: a row of derivatives per position, blocks of three positions.
    struct Dense(Vec<Vec<f64>>);

    impl Jacobian for Dense {
        fn row_blocks(&self) -> usize {
            self.0.len().div_ceil(3)
        }

        fn block_span(&self, b: usize) -> (usize, usize) {
            (3 * b, 3.min(self.0.len() - 3 * b))
        }

        fn block_rows<S: RowSink>(&self, b: usize, slots: &[usize], rows: &mut S) {
            let (start, len) = self.block_span(b);
            rows.begin(start, len);
            for (j, &slot) in slots.iter().enumerate() {
                for i in start..start + len {
                    rows.push(i, j as u32, self.0[i][slot]);
                }
            }
        }
    }

    #[test]
    fn secant_columns_follow_the_models_own_in_every_pass() {
        let model = Dense((0..8).map(|i| vec![f64::from(i), 1.0, -2.0]).collect());
        let columns = vec![vec![(1, 0.5), (4, 3.0), (7, -1.0)], vec![(6, 2.0)]];
        let jac = Linearized::new(&model, 2, &columns);
        let slots = [2, 0, 99, 99];
        let (direction, slopes) = ([1.0, 2.0, 3.0, 4.0], [1.0, -1.0, 0.5]);
        let mut rows = RowBuilder::default();
        let mut product = Vec::new();
        let mut gradient = [0.0; 4];
        for b in 0..jac.row_blocks() {
            let len = jac.block_span(b).1;
            let mut out = vec![0.0; len];
            jac.block_product(b, &slots, &direction, &mut out);
            product.extend(out);
            jac.block_gradient(b, &slots, &slopes[..len], &mut gradient);
        }
        let mut want = (Vec::new(), [0.0; 4]);
        for b in 0..jac.row_blocks() {
            jac.block_rows(b, &slots, &mut rows);
            rows.for_each(|i, vars, derivatives| {
                let row = vars.iter().zip(derivatives);
                want.0.push(
                    row.clone()
                        .map(|(&j, d)| d * direction[j as usize])
                        .sum::<f64>(),
                );
                for (&j, d) in row {
                    want.1[j as usize] += d * slopes[i % 3];
                }
            });
        }
        assert_eq!(product, want.0);
        assert_eq!(gradient, want.1);
        // Position 4: -2 · 1 + 4 · 2 (its own) + 3 · 3 (the first secant).
        assert_eq!(product[4], 15.0);
    }

    #[test]
    fn a_secant_halves_the_difference_of_the_moves_up_and_down() {
        let up = [(1, 4.0), (3, 2.0), (7, 1.0)];
        let down = [(0, 2.0), (3, -2.0), (7, 1.0), (9, -6.0)];
        let want = vec![(0, -1.0), (1, 2.0), (3, 2.0), (9, 3.0)];
        assert_eq!(secant(&up, &down), want);
    }
}
