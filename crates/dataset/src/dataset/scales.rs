//! The endgame scale's inputs, each distinct one kept once: positions hold its number.
//! Few combinations of the scale rules' flags and counts occur (5,256 among the 68,439
//! positions of the shipped data), so a full pass computes each scale once and looks it up
//! per position.

use rustc_hash::FxHashMap;
use texel_eval::formula::EndgameScale;

/// Distinct endgame scale inputs, numbered in the order first seen.
#[derive(Debug, Default)]
pub(crate) struct ScaleBook {
    scales: Vec<EndgameScale>,
    /// The inputs numbered last with their number: positions from one game often follow
    /// each other with the same inputs, found without hashing.
    last: Option<(EndgameScale, u32)>,
    /// A fast non-cryptographic hash: the inputs come from the evaluation, not from an
    /// adversary (the standard SipHash cost some 450 instructions a loaded position).
    numbers: FxHashMap<EndgameScale, u32>,
}

impl ScaleBook {
    /// The number of `scale`, added when new.
    pub fn number(&mut self, scale: &EndgameScale) -> u32 {
        if let Some((last, number)) = self.last {
            if last == *scale {
                return number;
            }
        }
        let scales = &mut self.scales;
        let number = *self.numbers.entry(*scale).or_insert_with(|| {
            scales.push(*scale);
            (scales.len() - 1) as u32
        });
        self.last = Some((*scale, number));
        number
    }

    /// Takes the distinct inputs out, leaving the book empty.
    pub fn take(&mut self) -> Vec<EndgameScale> {
        self.numbers.clear();
        self.last = None;
        std::mem::take(&mut self.scales)
    }
}

#[cfg(test)]
mod tests {
    use super::ScaleBook;
    use texel_eval::formula::{EndgameScale, ScaleRules};

    #[test]
    fn equal_inputs_share_a_number() {
        let pawns = |n| EndgameScale {
            stronger: ScaleRules {
                has_pawns: 1,
                pawns: n,
                ..ScaleRules::default()
            },
            level: None,
        };
        let mut book = ScaleBook::default();
        let numbers = [
            pawns(3),
            pawns(4),
            pawns(4),
            pawns(3),
            EndgameScale::default(),
        ]
        .map(|s| book.number(&s));
        assert_eq!(numbers, [0, 1, 1, 0, 2]);
        assert_eq!(book.take(), [pawns(3), pawns(4), EndgameScale::default()]);
        assert_eq!(book.number(&pawns(4)), 0, "an emptied book numbers afresh");
    }
}
