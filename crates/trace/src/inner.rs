//! Inner sums: the parts of an evaluation that are not linear in its values. An inner term
//! (declared once in the header) is a sum of parameter entries that the evaluation turns
//! into centipawns through a shape: king safety's danger sum, squared in the middlegame and
//! taken as it is in the endgame, both only when positive. A position gives each inner sum
//! it has (per side where the engine keeps one per colour) with its counts, and the term's
//! shapes say what the sum adds (`docs/trace-format.md`). A complexity sum does not add to
//! the endgame score but moves it toward or away from zero, never past it:
//! `E + sign(E) · max(c, −|E|)`, the whole endgame score `E` of the position read there.

use crate::space::ParamSpace;
use crate::text::Coef;

/// What a part does with its clamped sum `x`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Curve {
    /// Adds `x`.
    Linear,
    /// Adds `x²`.
    Square,
    /// Moves the endgame score `E` by `sign(E) · max(x, −|E|)` (endgame parts only): the
    /// complexity of Ethereal and its followers.
    Complexity = 2,
}

impl Curve {
    /// The name in a trace header.
    pub fn name(self) -> &'static str {
        match self {
            Curve::Linear => "linear",
            Curve::Square => "square",
            Curve::Complexity => "complexity",
        }
    }

    /// The curve named `name` in a trace header.
    pub fn named(name: &str) -> Option<Curve> {
        [Curve::Linear, Curve::Square, Curve::Complexity]
            .into_iter()
            .find(|c| c.name() == name)
    }
}

/// How one part (middlegame or endgame) of an inner term turns its sum `x` into
/// centipawns: `times · g(clamp(x, floor, ceiling))`, `g` the identity or the square,
/// times the value of a plain parameter where one is named. For a complexity part, that
/// value is the complexity `c` the endgame score is moved by ([`Curve::Complexity`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Shape {
    /// What the part does with its clamped sum.
    pub curve: Curve,
    /// The sum is taken as at least this.
    pub floor: Option<f64>,
    /// The sum is taken as at most this.
    pub ceiling: Option<f64>,
    /// A constant factor (`-1/720` for Ethereal's middlegame king safety).
    pub times: f64,
    /// The flat slot of a plain value the part is multiplied by, when the engine weighs it
    /// by a tuned parameter.
    pub times_value: Option<usize>,
}

/// A part's factor is refused from this size on: no evaluation in centipawns needs it, and
/// Newton's real values overflow with it.
pub const MAX_TIMES: f64 = 1e6;

impl Shape {
    /// What makes this shape mean nothing, as (its field, why): a bound or factor that is not
    /// a number, a floor above the ceiling (the part would be a constant, its values never
    /// move), a factor of 0 (the part adds nothing) or of `MAX_TIMES` (a million) and more.
    pub fn problem(&self) -> Option<(&'static str, String)> {
        let bounds = [("floor", self.floor), ("ceiling", self.ceiling)];
        if let Some((field, _)) = bounds.iter().find(|b| b.1.is_some_and(|x| !x.is_finite())) {
            return Some((field, "must be a number".into()));
        }
        if let (Some(floor), Some(ceiling)) = (self.floor, self.ceiling) {
            if floor > ceiling {
                let why =
                    format!("{floor} is above the ceiling {ceiling}: the part would be a constant");
                return Some(("floor", why));
            }
        }
        let times = self.times;
        if times == 0.0 || !times.is_finite() || times.abs() >= MAX_TIMES {
            let why = format!(
                "{times} is not a factor a part can have (not 0, below {MAX_TIMES} in size)"
            );
            return Some(("times", why));
        }
        None
    }

    /// The sum as the shape takes it: clamped to its floor and ceiling.
    fn clamped(&self, x: f64) -> f64 {
        let x = self.floor.map_or(x, |f| x.max(f));
        self.ceiling.map_or(x, |c| x.min(c))
    }

    /// Whether the clamp holds `x` (the shape is flat there).
    fn held(&self, x: f64) -> bool {
        self.floor.is_some_and(|f| x < f) || self.ceiling.is_some_and(|c| x > c)
    }

    /// `times · g(clamp(x))`, before any parameter factor.
    pub fn value(&self, x: f64) -> f64 {
        let c = self.clamped(x);
        self.times
            * if self.curve == Curve::Square {
                c * c
            } else {
                c
            }
    }

    /// The derivative of [`Shape::value`] in `x` (the right one at a bound).
    pub fn slope(&self, x: f64) -> f64 {
        match (self.held(x), self.curve) {
            (true, _) => 0.0,
            (false, Curve::Square) => 2.0 * self.times * x,
            (false, _) => self.times,
        }
    }

    /// The second derivative of [`Shape::value`] in `x` (the right one at a bound): only a
    /// square bends, by `2 · times` where its clamp does not hold the sum.
    pub fn bend(&self, x: f64) -> f64 {
        match (self.held(x), self.curve) {
            (false, Curve::Square) => 2.0 * self.times,
            _ => 0.0,
        }
    }

    /// The factor of the named parameter at `values` (1 without one).
    pub fn factor(&self, values: &[f64]) -> f64 {
        self.times_value.map_or(1.0, |slot| values[slot])
    }
}

/// An inner term of the header: its name and the shape of each part it adds to.
#[derive(Clone, Debug, PartialEq)]
pub struct InnerTerm {
    /// The name, unique among the inner terms.
    pub name: String,
    /// What the middlegame sum adds to the middlegame score.
    pub mid: Option<Shape>,
    /// What the endgame sum adds to the endgame score.
    pub end: Option<Shape>,
}

impl InnerTerm {
    /// The two parts: the middlegame's, the endgame's.
    pub fn parts(&self) -> [Option<&Shape>; 2] {
        [self.mid.as_ref(), self.end.as_ref()]
    }

    /// Whether the term is a complexity: its endgame sum moves the endgame score.
    pub fn is_complexity(&self) -> bool {
        self.end
            .as_ref()
            .is_some_and(|s| s.curve == Curve::Complexity)
    }
}

/// The endgame score `end` moved by the complexity `c`: toward zero by at most `|end|`, or
/// away from it (`sign(end) · max(c, −|end|)` added; nothing at `end` = 0).
pub fn complexity_moved(end: f64, c: f64) -> f64 {
    match crate::is_zero_end(end) {
        true => end,
        false => end + end.signum() * c.max(-end.abs()),
    }
}

/// One inner sum of a position.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InnerSum {
    /// The term (its number among the header's inner terms).
    pub term: u32,
    /// `1` for White's sum, `-1` for Black's (which subtracts).
    pub side: f32,
    /// The part of each sum that is not tuned: middlegame, endgame.
    pub offset: [f32; 2],
    /// The entries the sum counts: `[i, c]` counts a tapered entry's middlegame value in
    /// the middlegame sum and its endgame value in the endgame sum (a plain value in both);
    /// `[i, c_mid, c_end]` counts them apart.
    pub coeffs: Vec<Coef>,
}

impl InnerSum {
    /// Every (part, flat slot, count) of the sum: part 0 the middlegame sum, 1 the endgame.
    pub fn counts<'a>(
        &'a self,
        space: &'a ParamSpace,
    ) -> impl Iterator<Item = (usize, usize, f64)> + 'a {
        self.coeffs.iter().flat_map(move |c| {
            let (i, m, e) = match *c {
                Coef::Count(i, n) => (i, n, n),
                Coef::Split(i, m, e) => (i, m, e),
            };
            let (param, at) = space.entry(i as usize).expect("a checked entry");
            let end_at = if param.tapered { at + 1 } else { at };
            [(0, at, f64::from(m)), (1, end_at, f64::from(e))]
        })
    }

    /// The middlegame and endgame sums at real `values` (flat).
    pub fn sums(&self, space: &ParamSpace, values: &[f64]) -> [f64; 2] {
        let mut sums = self.offset.map(f64::from);
        for (part, slot, count) in self.counts(space) {
            sums[part] += count * values[slot];
        }
        sums
    }

    /// What each part of the sum gives at real `values` (side and factor applied, before
    /// the taper): the middlegame's and the endgame's addition, or for a complexity the
    /// complexity as the endgame's.
    pub fn parts(&self, space: &ParamSpace, values: &[f64]) -> [f64; 2] {
        let term = &space.inner()[self.term as usize];
        let sums = self.sums(space, values);
        let mut out = [0.0; 2];
        for ((o, shape), x) in out.iter_mut().zip(term.parts()).zip(sums) {
            if let Some(s) = shape {
                *o = f64::from(self.side) * s.value(x) * s.factor(values);
            }
        }
        out
    }
}

/// What the inner sums `sums` of a position add to its evaluation at real `values`, its
/// phase `phase` and scale `scale`, `end` being the rest of the endgame part of its
/// evaluation (what its endgame values and fixed endgame part add, taper applied): a
/// complexity moves that part with the inner sums' endgame parts, its complexity tapered
/// as they are.
pub fn inner_eval(
    sums: &[InnerSum],
    space: &ParamSpace,
    values: &[f64],
    (phase, scale): (f64, f64),
    end: f64,
) -> f64 {
    let taper = (1.0 - phase) * scale;
    let (mut mid, mut added_end, mut complexity) = (0.0, 0.0, None::<f64>);
    for u in sums {
        let [m, e] = u.parts(space, values);
        mid += m;
        match space.inner()[u.term as usize].is_complexity() {
            true => *complexity.get_or_insert(0.0) += e,
            false => added_end += e,
        }
    }
    let whole = end + taper * added_end;
    let moved = complexity.map_or(whole, |c| complexity_moved(whole, taper * c));
    phase * mid + moved - end
}
