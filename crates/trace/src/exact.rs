//! The evaluation an engine computes, reproduced from 32-bit fields: a phase, scale or
//! fixed part is the fraction the engine means (7/24, not the 32-bit float nearest it), and an evaluation
//! rounds to whole centipawns as an engine's does — to the nearest, a half away from zero —
//! where the 64-bit arithmetic lands a hair beside the half.

use crate::text::TracedPosition;
use texel_solve::SLACK;

/// The largest denominator a phase or scale is read as a fraction of: an engine's phase
/// steps (24, 64, 128, 256) and scales (64, 128) are far below it, and two fractions with
/// denominators up to it lie further apart than a 32-bit float's rounding step below 2, so
/// at most one of them is read for a given float.
pub const MAX_DENOMINATOR: u64 = 2048;

/// The fraction `x` stands for: the one with the smallest denominator up to the largest
/// that keeps it unique at `x`'s size (at most [`MAX_DENOMINATOR`]) whose nearest 32-bit
/// float is `x`, as a 64-bit float; `x` itself where there is none (a phase of 0.7071068 is
/// the writer's own number).
pub fn exact_fraction(x: f32) -> f64 {
    let wide = f64::from(x);
    if !x.is_finite() || x.fract() == 0.0 {
        return wide;
    }
    // Any fraction p/q within half a float step of x is nearer than 1/(2q²) for q up to the
    // bound, so it is one of x's continued-fraction convergents (Legendre).
    let step = f64::from(f32::from_bits(x.abs().to_bits() + 1)) - wide.abs();
    let bound = (1.0 / (2.0 * step)).sqrt().min(MAX_DENOMINATOR as f64) as u64;
    let (mut rest, mut p, mut q) = (wide.abs(), (1u64, 0u64), (0u64, 1u64));
    while q.0 <= bound {
        let whole = rest.floor();
        if q.0 > 0 && whole > bound as f64 {
            break;
        }
        let a = whole as u64;
        (p, q) = ((a * p.0 + p.1, p.0), (a * q.0 + q.1, q.0));
        if q.0 > bound {
            break;
        }
        let fraction = p.0 as f64 / q.0 as f64;
        if fraction as f32 == x.abs() {
            return fraction.copysign(wide);
        }
        if rest == whole {
            break;
        }
        rest = 1.0 / (rest - whole);
    }
    wide
}

/// Whether an endgame score is zero (within [`SLACK`]): a complexity does not move it.
#[inline]
pub fn is_zero_end(end: f64) -> bool {
    end.abs() <= SLACK
}

impl TracedPosition {
    /// The position's phase and scale as the fractions its engine means
    /// ([`exact_fraction`]).
    pub fn taper(&self) -> (f64, f64) {
        (exact_fraction(self.phase), exact_fraction(self.scale))
    }

    /// The position's fixed part of the evaluation and of its endgame score, as the
    /// fractions its engine means (`8.69270833` is 1669/192).
    pub fn fixed(&self) -> (f64, f64) {
        (exact_fraction(self.offset), exact_fraction(self.offset_end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_in_24ths_reads_as_its_fraction() {
        for k in 0..=24 {
            let meant = k as f64 / 24.0;
            assert_eq!(exact_fraction(meant as f32), meant, "{k}/24");
        }
        let stored = (7.0f64 / 24.0) as f32;
        assert_ne!(f64::from(stored), 7.0 / 24.0);
    }

    #[test]
    fn scales_and_binary_fractions_stay_what_they_are() {
        for x in [
            0.5f32,
            0.75,
            37.0 / 128.0,
            1.125,
            103.0 / 128.0,
            3.0,
            0.0,
            1000.0,
        ] {
            assert_eq!(exact_fraction(x), f64::from(x), "{x}");
        }
        assert_eq!(exact_fraction(0.3), 0.3);
        assert_eq!(exact_fraction(-0.3), -0.3);
        assert_eq!(exact_fraction(2.0 / 3.0), 2.0 / 3.0);
    }

    #[test]
    fn a_fixed_part_in_192ths_reads_as_its_fraction() {
        // As a trace's text form writes it, nine digits.
        let written: f64 = "8.69270833".parse().unwrap();
        assert_eq!(exact_fraction(written as f32), 1669.0 / 192.0);
        assert_eq!(exact_fraction(-written as f32), -1669.0 / 192.0);
    }

    #[test]
    fn a_number_that_is_no_small_fraction_is_kept() {
        let x = std::f32::consts::FRAC_1_SQRT_2;
        assert_eq!(exact_fraction(x), f64::from(x));
        assert!(exact_fraction(f32::NAN).is_nan());
    }

    #[test]
    fn only_a_hair_from_zero_is_a_zero_endgame() {
        assert!(is_zero_end(0.0) && is_zero_end(-2e-16) && is_zero_end(1e-12));
        assert!(!is_zero_end(1.0 / 24.0 / 128.0));
    }
}
