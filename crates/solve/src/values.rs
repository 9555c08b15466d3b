//! The integer values of a parameter space, as a tuner moves them: numbered flat slots,
//! each within ±[`VALUE_BOUND`], with the constraints the space declares.

/// The largest magnitude any parameter value may take: a hundred pawns, ten times the
/// largest default of texel's table, and small enough that no evaluation or trace overflows
/// its integers with every value at the bound. Parameter files and trace defaults beyond it
/// are refused and the tuner never moves a value past it.
pub const VALUE_BOUND: i32 = 10_000;

/// Whether `value` is within ±[`VALUE_BOUND`].
pub fn in_bounds(value: i32) -> bool {
    (-VALUE_BOUND..=VALUE_BOUND).contains(&value)
}

/// How far beside a half (or a zero) a 64-bit evaluation may land and still be that half
/// (or zero): its arithmetic errs by about 1e-12 on evaluations of thousands of
/// centipawns, while a fraction an engine can mean (denominators up to
/// 2048² (an engine's phase and scale steps), times whole values) lies at least 1e-7 from any half.
pub const SLACK: f64 = 1e-9;

/// An evaluation in whole centipawns, as an engine computes it: to the nearest, a half away
/// from zero (12.5 is 13, −12.5 is −13), a half being judged within [`SLACK`].
#[inline]
pub fn centipawns(eval: f64) -> i32 {
    (eval + SLACK.copysign(eval)).round() as i32
}

/// The integer values a descent moves, numbered as flat slots.
pub trait Values: Clone + PartialEq + std::fmt::Debug + Send + Sync + Sized {
    /// Every value, by slot.
    fn values(&self) -> &[i32];

    /// Sets the value of `slot`.
    fn set_value(&mut self, slot: usize, value: i32);

    /// The values from a flat list (a checkpoint's).
    ///
    /// # Errors
    /// A list that cannot be these values (its length), described.
    fn from_values(values: &[i32]) -> Result<Self, String>;

    /// Whether `slot` may take `value` without breaking a declared constraint more than it
    /// does now (a space without constraints allows everything).
    fn allows_value(&self, slot: usize, value: i32) -> bool;

    /// A fingerprint of the layout (names and shapes) the values are numbered by: a
    /// checkpoint of another layout is refused.
    fn layout(&self) -> u64;

    /// Moves the real values `real` (one per slot) to the nearest ones that keep the
    /// declared constraints, changing only the slots `free` marks (a space without
    /// constraints leaves them).
    fn project_real(real: &mut [f64], free: &[bool]);

    /// These values with `slot` moved by `delta`.
    fn moved(&self, slot: usize, delta: i32) -> Self {
        let mut moved = self.clone();
        moved.set_value(slot, self.values()[slot] + delta);
        moved
    }
}

/// The flat values of any parameter space: no constraints are declared.
impl Values for Vec<i32> {
    fn values(&self) -> &[i32] {
        self
    }

    fn set_value(&mut self, slot: usize, value: i32) {
        self[slot] = value;
    }

    fn from_values(values: &[i32]) -> Result<Self, String> {
        Ok(values.to_vec())
    }

    fn allows_value(&self, _slot: usize, _value: i32) -> bool {
        true
    }

    /// The number of values: the names are checked through the data's fingerprint (a trace
    /// names its parameters in its header).
    fn layout(&self) -> u64 {
        self.len() as u64
    }

    fn project_real(_real: &mut [f64], _free: &[bool]) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_half_rounds_away_from_zero_even_a_hair_beside_it() {
        // A middlegame score of 36 and an endgame score of 9 at phase 7/24: 10.5 + 6.375.
        let (p, e) = (7.0 / 24.0, 17.0 / 24.0);
        let half = p * 36.0;
        assert_eq!(centipawns(half), 11);
        assert_eq!(centipawns(p * 36.0 + e * 9.0), 17);
        assert_eq!(centipawns(-half), -11);
        assert_eq!(centipawns(12.5 - 1e-12), 13);
        assert_eq!(centipawns(-12.5 + 1e-12), -13);
        assert_eq!(centipawns(12.4999), 12);
        assert_eq!(centipawns(-0.4), 0);
        assert_eq!(centipawns(2.999_999_999_999), 3);
    }
}
