//! Accumulators: what the one evaluation code path does with each term it finds.

use crate::curve::{slot_count, Curve};
use crate::formula::{EndgameScale, Formulas, KingAttack};
use crate::params::{Handle as _, IParam, Params, SParam, TermId};
use crate::score::{taper, FULL_SCALE};
use crate::table::{Group, FLAT_LEN, KS_ATTACK_BASE, TERM_COUNT};
use crate::S;
use shakmaty::{Chess, Color};

/// Receives every term the evaluation finds.
///
/// Linear terms arrive as `count × parameter` through [`add`](Accumulator::add) and
/// [`add_int`](Accumulator::add_int), curve values as `count × curve(index)` through
/// [`add_curve`](Accumulator::add_curve). The non-linear formulas arrive as their
/// position-only inputs ([`crate::formula`]): the king attack through
/// [`king_attack`](Accumulator::king_attack), the endgame scale with
/// [`finish`](Accumulator::finish).
pub trait Accumulator {
    /// The parameters being evaluated.
    fn params(&self) -> &Params;
    /// Adds `count ×` the tapered parameter `p` for `color`.
    fn add(&mut self, color: Color, p: SParam, count: i32);
    /// Adds the tapered parameter `p` for `color` once when `yes`. Written without a
    /// branch: a term that is looked for and not found adds a zero count, which changes
    /// neither a score nor a trace (a mispredicted branch costs more than the addition).
    #[inline]
    fn add_if(&mut self, color: Color, p: SParam, yes: bool) {
        self.add(color, p, i32::from(yes));
    }
    /// Adds the untapered parameter `p` for `color`, `count.mid()` times to the
    /// middlegame and `count.end()` times to the endgame.
    fn add_int(&mut self, color: Color, p: IParam, count: S);
    /// Adds `count ×` the value of `curve` at `index` for `color`.
    fn add_curve(&mut self, color: Color, curve: Curve, index: usize, count: i32);
    /// Adds the king attack formula of `color` on the enemy king.
    fn king_attack(&mut self, color: Color, attack: &KingAttack);
    /// The evaluation ends: the phase and the inputs of the endgame scale.
    fn finish(&mut self, phase: i32, scale: &EndgameScale);
    /// Whether the terms of a candidate family need to be found at all. Tracing wants
    /// every family (the term lab judges families at zero); scoring skips a family whose
    /// values are all zero, since it adds nothing.
    fn wants(&self, _family: Group) -> bool {
        true
    }
}

#[inline]
fn sign(color: Color) -> i32 {
    if color.is_white() {
        1
    } else {
        -1
    }
}

/// The fast accumulator: sums values per side (an addition needs no sign), white minus
/// black at the end.
pub struct Evaluator<'a> {
    params: &'a Params,
    curves: &'a [S],
    /// Black's and white's sums.
    sums: [S; 2],
    phase: i32,
    scale: i32,
}

impl<'a> Evaluator<'a> {
    /// An empty sum over `params`.
    pub fn new(params: &'a Params) -> Self {
        Evaluator {
            params,
            curves: params.curve_values(),
            sums: [S::ZERO; 2],
            phase: 0,
            scale: FULL_SCALE,
        }
    }

    /// The tapered score in centipawns, white's view.
    pub fn score(&self) -> i32 {
        taper(self.sums[1] - self.sums[0], self.phase, self.scale)
    }
}

impl Accumulator for Evaluator<'_> {
    #[inline]
    fn params(&self) -> &Params {
        self.params
    }
    #[inline]
    fn add(&mut self, color: Color, p: SParam, count: i32) {
        self.sums[color as usize] += self.params.score_at(p.flat_index()) * count;
    }
    #[inline]
    fn add_int(&mut self, color: Color, p: IParam, count: S) {
        let v = self.params.flat()[p.flat_index()];
        self.sums[color as usize] += S(v * count.0, v * count.1);
    }
    #[inline]
    fn add_curve(&mut self, color: Color, curve: Curve, index: usize, count: i32) {
        self.sums[color as usize] += self.curves[curve.first_slot() + index] * count;
    }
    #[inline]
    fn king_attack(&mut self, color: Color, attack: &KingAttack) {
        self.sums[color as usize] += attack.value_with(&mut self.params);
    }
    fn finish(&mut self, phase: i32, scale: &EndgameScale) {
        self.phase = phase;
        self.scale = scale.value_with(&mut self.params);
    }
    #[inline]
    fn wants(&self, family: Group) -> bool {
        self.params.group_active(family)
    }
}

/// One non-zero coefficient of a trace: the white-minus-black count of one parameter.
///
/// For a tapered parameter `index` is its middlegame slot and `mid` = `end` is its count:
/// it adds `count × (middlegame value, endgame value)`. For an untapered integer `index` is
/// its slot and it adds `(mid × value, end × value)`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Coef {
    /// Flat index of the parameter (its middlegame slot when tapered).
    pub index: u16,
    /// Whether the parameter is tapered (a middlegame and an endgame value).
    pub tapered: bool,
    /// Coefficient of the middlegame sum.
    pub mid: i32,
    /// Coefficient of the endgame sum.
    pub end: i32,
}

impl Coef {
    /// What the coefficient adds to the sums for the flat values `flat`.
    #[inline]
    pub fn apply(&self, flat: &[i32]) -> S {
        let i = usize::from(self.index);
        S(
            self.mid * flat[i],
            self.end * flat[i + usize::from(self.tapered)],
        )
    }
}

/// A white-minus-black count of one curve value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CurveCoef {
    /// Derived slot: [`Curve::first_slot`] + index.
    pub slot: u16,
    /// How many times the value is added.
    pub count: i32,
}

/// Everything the tuner needs to recompute an evaluation without the position, for any
/// parameter values: every part depends on the position only.
///
/// `score = taper(Σ coef × value + Σ count × curve + king attacks, phase, scale)`, the king
/// attacks and the scale computed from `inputs` ([`Trace::score`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// Non-zero linear coefficients, one per parameter, sorted by flat index.
    pub coefs: Vec<Coef>,
    /// Non-zero white-minus-black counts of curve values, sorted by derived slot
    /// ([`Curve::first_slot`] + index).
    pub curves: Vec<CurveCoef>,
    /// The inputs of the non-linear formulas (king attack, endgame scale).
    pub inputs: Formulas,
    /// Game phase (0 = pawn ending, 24 = all pieces).
    pub phase: i32,
}

impl Trace {
    /// The linear sum `Σ coef × value` for `params`.
    pub fn linear_sum(&self, params: &Params) -> S {
        let flat = params.flat();
        self.coefs
            .iter()
            .fold(S::ZERO, |acc, c| acc + c.apply(flat))
    }

    /// `Σ count × curve value` for `params`.
    pub fn curve_sum(&self, params: &Params) -> S {
        let values = params.curve_values();
        self.curves.iter().fold(S::ZERO, |acc, c| {
            acc + values[usize::from(c.slot)] * c.count
        })
    }

    /// The white-minus-black sum of every term for `params`, before tapering.
    pub fn sum(&self, params: &Params) -> S {
        self.linear_sum(params) + self.curve_sum(params) + self.inputs.attack(params)
    }

    /// The score of the traced position under any `params`, without the board.
    pub fn score(&self, params: &Params) -> i32 {
        taper(self.sum(params), self.phase, self.inputs.scale(params))
    }
}

/// Words of a bit set over the flat slots.
const WORDS: usize = FLAT_LEN.div_ceil(64);

/// Words of a bit set over the curve slots.
const CURVE_WORDS: usize = slot_count().div_ceil(64);

/// A set of slots, a bit per slot, in `N` words.
#[derive(Clone)]
struct SlotSet<const N: usize>([u64; N]);

impl<const N: usize> SlotSet<N> {
    #[inline]
    fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    /// Inserts `i` when `yes`, without a branch.
    #[inline]
    fn insert_if(&mut self, i: usize, yes: bool) {
        self.0[i / 64] |= u64::from(yes) << (i % 64);
    }
}

/// The tracing accumulator. Reusable across positions; one per thread.
pub struct Tracer<'a> {
    params: &'a Params,
    /// Per flat slot (rounded up to whole words of the sets): white's and black's counts of
    /// a tapered parameter (kept apart, so an addition needs no sign), the white-minus-black
    /// middlegame and endgame counts of an untapered one.
    counts: Box<[[i32; 2]; WORDS * 64]>,
    touched: SlotSet<WORDS>,
    /// The touched slots that are untapered integers.
    ints: SlotSet<WORDS>,
    curve_counts: Vec<i32>,
    curves_touched: SlotSet<CURVE_WORDS>,
    inputs: Formulas,
    phase: i32,
}

impl<'a> Tracer<'a> {
    /// A tracer over `params`.
    pub fn new(params: &'a Params) -> Self {
        Tracer {
            params,
            counts: Box::new([[0; 2]; WORDS * 64]),
            touched: SlotSet([0; WORDS]),
            ints: SlotSet([0; WORDS]),
            curve_counts: vec![0; slot_count()],
            curves_touched: SlotSet([0; CURVE_WORDS]),
            inputs: Formulas::default(),
            phase: 0,
        }
    }

    /// Traces `pos`.
    pub fn trace(&mut self, pos: &Chess) -> Trace {
        let mut trace = Trace::default();
        self.trace_into(pos, &mut trace);
        trace
    }

    /// Traces `pos` into `out`, reusing its buffers (no allocation once they are large
    /// enough).
    pub fn trace_into(&mut self, pos: &Chess, out: &mut Trace) {
        crate::terms::evaluate_with(pos, self);
        self.drain_coefs(&mut out.coefs);
        self.drain_curves(&mut out.curves);
        out.inputs = std::mem::take(&mut self.inputs);
        out.phase = self.phase;
    }

    /// Moves the non-zero counts of the touched slots to `coefs` in slot order, leaving
    /// every count and set empty. Written without a branch per slot: every touched slot is
    /// written, and the next one overwrites it when its counts are zero.
    fn drain_coefs(&mut self, coefs: &mut Vec<Coef>) {
        let touched: u32 = self.touched.0.iter().map(|w| w.count_ones()).sum();
        coefs.clear();
        coefs.resize(touched as usize, Coef::default());
        let mut n = 0;
        for w in 0..WORDS {
            let mut bits = std::mem::take(&mut self.touched.0[w]);
            let ints = std::mem::take(&mut self.ints.0[w]);
            while bits != 0 {
                let b = bits.trailing_zeros() & 63;
                bits &= bits - 1;
                let i = w * 64 + b as usize;
                let [first, second] = std::mem::take(&mut self.counts[i]);
                let tapered = ints & (1 << b) == 0;
                let (mid, end) = if tapered {
                    let count = first - second;
                    (count, count)
                } else {
                    (first, second)
                };
                coefs[n] = Coef {
                    index: i as u16,
                    tapered,
                    mid,
                    end,
                };
                n += usize::from(mid != 0 || end != 0);
            }
        }
        coefs.truncate(n);
    }

    /// Moves the non-zero curve counts to `curves` in slot order, leaving them empty.
    fn drain_curves(&mut self, curves: &mut Vec<CurveCoef>) {
        curves.clear();
        for w in 0..CURVE_WORDS {
            let mut bits = std::mem::take(&mut self.curves_touched.0[w]);
            while bits != 0 {
                let slot = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let count = std::mem::take(&mut self.curve_counts[slot]);
                if count != 0 {
                    curves.push(CurveCoef {
                        slot: slot as u16,
                        count,
                    });
                }
            }
        }
    }
}

impl Accumulator for Tracer<'_> {
    fn params(&self) -> &Params {
        self.params
    }
    #[inline]
    fn add(&mut self, color: Color, p: SParam, count: i32) {
        let i = p.flat_index();
        // A zero count (a term looked for and not found) leaves the slot untouched.
        self.touched.insert_if(i, count != 0);
        self.counts[i][usize::from(color.is_black())] += count;
    }
    #[inline]
    fn add_int(&mut self, color: Color, p: IParam, count: S) {
        let (i, s) = (p.flat_index(), sign(color));
        self.touched.insert(i);
        self.ints.insert(i);
        self.counts[i][0] += count.0 * s;
        self.counts[i][1] += count.1 * s;
    }
    fn add_curve(&mut self, color: Color, curve: Curve, index: usize, count: i32) {
        let slot = curve.first_slot() + index;
        self.curve_counts[slot] += count * sign(color);
        self.curves_touched.insert(slot);
    }
    fn king_attack(&mut self, color: Color, attack: &KingAttack) {
        self.inputs.king_attack.0[color as usize] = Some(*attack);
    }
    fn finish(&mut self, phase: i32, scale: &EndgameScale) {
        self.phase = phase;
        self.inputs.scale = *scale;
    }
}

/// Per-term contributions for white and black: what `texel eval` prints.
pub struct Breakdown<'a> {
    params: &'a Params,
    by_term: Vec<[S; 2]>,
    fired: Vec<bool>,
    phase: i32,
    scale: i32,
}

impl<'a> Breakdown<'a> {
    /// Evaluates `pos` and keeps every term's contribution.
    pub fn of(pos: &Chess, params: &'a Params) -> Self {
        let mut b = Breakdown {
            params,
            by_term: vec![[S::ZERO; 2]; TERM_COUNT],
            fired: vec![false; TERM_COUNT],
            phase: 0,
            scale: FULL_SCALE,
        };
        crate::terms::evaluate_with(pos, &mut b);
        b
    }

    /// The terms that fired with their (white, black) contributions, in table order.
    pub fn terms(&self) -> impl Iterator<Item = (TermId, S, S)> + '_ {
        TermId::all().filter(|t| self.fired[t.0 as usize]).map(|t| {
            (
                t,
                self.by_term[t.0 as usize][0],
                self.by_term[t.0 as usize][1],
            )
        })
    }

    /// Whether `term` fired for either side (a count or formula result that is not zero).
    pub fn fired(&self, term: TermId) -> bool {
        self.fired[term.0 as usize]
    }

    /// The (white, black) contribution of `term`.
    pub fn contribution(&self, term: TermId) -> (S, S) {
        let [w, b] = self.by_term[term.0 as usize];
        (w, b)
    }

    /// The white-minus-black sum before tapering.
    pub fn total(&self) -> S {
        self.by_term
            .iter()
            .fold(S::ZERO, |acc, [w, b]| acc + *w - *b)
    }

    /// Game phase.
    pub fn phase(&self) -> i32 {
        self.phase
    }

    /// Endgame scale in percent.
    pub fn scale(&self) -> i32 {
        self.scale
    }

    /// The tapered score, white's view.
    pub fn score(&self) -> i32 {
        taper(self.total(), self.phase, self.scale)
    }

    fn record(&mut self, color: Color, term: TermId, value: S, fired: bool) {
        self.by_term[term.0 as usize][usize::from(!color.is_white())] += value;
        self.fired[term.0 as usize] |= fired;
    }
}

impl Accumulator for Breakdown<'_> {
    fn params(&self) -> &Params {
        self.params
    }
    fn add(&mut self, color: Color, p: SParam, count: i32) {
        let v = self.params.score_at(p.flat_index()) * count;
        self.record(color, TermId(p.term), v, count != 0);
    }
    fn add_int(&mut self, color: Color, p: IParam, count: S) {
        let v = self.params.flat()[p.flat_index()];
        self.record(
            color,
            TermId(p.term),
            S(v * count.0, v * count.1),
            count != S::ZERO,
        );
    }
    fn add_curve(&mut self, color: Color, curve: Curve, index: usize, count: i32) {
        let value = curve.value(self.params, index) * count;
        self.record(color, curve.label(), value, value != S::ZERO);
    }
    fn king_attack(&mut self, color: Color, attack: &KingAttack) {
        let value = attack.value_with(&mut self.params);
        self.record(color, KS_ATTACK_BASE.term(), value, value != S::ZERO);
    }
    fn finish(&mut self, phase: i32, scale: &EndgameScale) {
        self.phase = phase;
        self.scale = scale.value_with(&mut self.params);
    }
}
