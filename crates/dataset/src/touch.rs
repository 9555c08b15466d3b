//! Combining the positions a parameter change touches: several sources (its column, the
//! curve values it moves, the formulas that read it) name positions in their own order;
//! a probe needs each position once, in position order, with the changes added up.

/// A position a parameter change touches.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Touch {
    /// Position index.
    pub pos: u32,
    /// Change of the middlegame sum.
    pub mid: i32,
    /// Change of the endgame sum.
    pub end: i32,
    /// A formula reads the parameter here: its formulas must be computed again.
    pub formula: bool,
}

/// Reusable buffers that combine touches without sorting: changes are added into a dense
/// array and touched positions marked in a bit set, which is read back in order. Costs
/// 8 bytes and 2 bits per position, kept while a descent runs.
#[derive(Clone, Debug, Default)]
pub(crate) struct Combiner {
    delta: Vec<[i32; 2]>,
    touched: Vec<u64>,
    formula: Vec<u64>,
    count: usize,
}

impl Combiner {
    /// An empty combiner for `n` positions.
    pub(crate) fn new(n: usize) -> Self {
        Combiner {
            delta: vec![[0; 2]; n],
            touched: vec![0; n.div_ceil(64)],
            formula: vec![0; n.div_ceil(64)],
            count: 0,
        }
    }

    /// Bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        8 * self.delta.capacity() + 8 * (self.touched.capacity() + self.formula.capacity())
    }

    /// Adds a change of position `pos`'s sums.
    #[inline]
    pub(crate) fn add(&mut self, pos: u32, mid: i32, end: i32) {
        let i = pos as usize;
        self.mark(i);
        self.delta[i][0] += mid;
        self.delta[i][1] += end;
    }

    /// Marks position `pos` for its formulas.
    #[inline]
    pub(crate) fn add_formula(&mut self, pos: u32) {
        let i = pos as usize;
        self.mark(i);
        self.formula[i / 64] |= 1 << (i % 64);
    }

    #[inline]
    fn mark(&mut self, i: usize) {
        let (word, bit) = (i / 64, 1u64 << (i % 64));
        if self.touched[word] & bit == 0 {
            self.touched[word] |= bit;
            self.count += 1;
        }
    }

    /// The touched positions in order with their combined changes; the combiner is empty
    /// afterwards.
    pub(crate) fn drain(&mut self) -> Vec<Touch> {
        let mut out = Vec::with_capacity(self.count);
        for (w, word) in self.touched.iter_mut().enumerate() {
            let mut bits = std::mem::take(word);
            let formula = std::mem::take(&mut self.formula[w]);
            while bits != 0 {
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let i = w * 64 + b;
                let [mid, end] = std::mem::take(&mut self.delta[i]);
                out.push(Touch {
                    pos: i as u32,
                    mid,
                    end,
                    formula: formula >> b & 1 != 0,
                });
            }
        }
        self.count = 0;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touches_of_one_position_combine_in_order() {
        let mut c = Combiner::new(200);
        c.add(130, 1, 0);
        c.add(1, 2, 5);
        c.add(130, 3, -1);
        c.add_formula(0);
        c.add_formula(1);
        c.add(64, 0, 0);
        let got: Vec<_> = c
            .drain()
            .iter()
            .map(|t| (t.pos, t.mid, t.end, t.formula))
            .collect();
        assert_eq!(
            got,
            vec![
                (0, 0, 0, true),
                (1, 2, 5, true),
                (64, 0, 0, false),
                (130, 4, -1, false)
            ]
        );
        assert!(c.drain().is_empty(), "drained empty");
        c.add(5, 1, 1);
        assert_eq!(
            c.drain(),
            vec![Touch {
                pos: 5,
                mid: 1,
                end: 1,
                formula: false
            }]
        );
    }
}
