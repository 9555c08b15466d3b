//! The parameter table: one declaration per term drives evaluation, tracing, tuning,
//! JSON files and the Rust export.
//!
//! * [`Params`] holds every value in one flat vector; the evaluation reads it through the
//!   typed handles the table declares ([`crate::table::BISHOP_PAIR`], ...).
//! * [`TERMS`] describes every term (name, group, shape, step, linearity, doc).
//! * [`flat_params`] names every flat slot for the tuner.

mod constraint;
mod declare;
mod export;
mod handle;
mod json;
mod preset;
mod values;

pub(crate) use declare::{declare_params, handle_type};
pub use export::{rust_value, to_rust};
pub use handle::{Handle, IArray, IParam, SArray, SParam};
pub use json::ParamsError;
pub use preset::Preset;
pub use values::table_fingerprint;

use crate::table::{self, FLAT_LEN, TERMS, TERM_COUNT};
use crate::S;
use std::sync::{LazyLock, OnceLock};

pub use crate::table::Group;

/// Index of a term in [`TERMS`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TermId(pub u16);

impl TermId {
    /// The term's metadata.
    pub fn info(self) -> &'static TermInfo {
        &TERMS[self.0 as usize]
    }

    /// Looks a term up by its name.
    pub fn by_name(name: &str) -> Option<TermId> {
        TERMS
            .iter()
            .position(|t| t.name == name)
            .map(|i| TermId(i as u16))
    }

    /// Every term, in declaration order.
    pub fn all() -> impl Iterator<Item = TermId> {
        (0..TERM_COUNT as u16).map(TermId)
    }
}

/// The shape of a term.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// One tapered `S(mid, end)`.
    Score,
    /// An array of tapered values.
    ScoreArray(usize),
    /// One untapered integer.
    Int,
    /// An array of untapered integers.
    IntArray(usize),
}

impl Shape {
    /// Number of elements (1 for a single value).
    pub const fn elements(self) -> usize {
        match self {
            Shape::Score | Shape::Int => 1,
            Shape::ScoreArray(n) | Shape::IntArray(n) => n,
        }
    }

    /// Whether the elements are tapered `S` values.
    pub const fn is_tapered(self) -> bool {
        matches!(self, Shape::Score | Shape::ScoreArray(_))
    }

    /// Whether the term is an array.
    pub const fn is_array(self) -> bool {
        matches!(self, Shape::ScoreArray(_) | Shape::IntArray(_))
    }

    /// Flat slots per element.
    pub const fn slots_per_element(self) -> usize {
        if self.is_tapered() {
            2
        } else {
            1
        }
    }

    /// The Rust type written in the table (`S`, `[S; 2]`, `i32`, `[i32; 4]`).
    pub fn rust_type(self) -> String {
        match self {
            Shape::Score => "S".into(),
            Shape::Int => "i32".into(),
            Shape::ScoreArray(n) => format!("[S; {n}]"),
            Shape::IntArray(n) => format!("[i32; {n}]"),
        }
    }
}

/// Everything the table says about one term.
#[derive(Debug)]
pub struct TermInfo {
    /// The term's name, e.g. `KNIGHT_OUTPOST`.
    pub name: &'static str,
    /// The group it belongs to.
    pub group: Group,
    /// Its shape.
    pub shape: Shape,
    /// Flat index of its first slot.
    pub offset: usize,
    /// What an array index means (empty for single values).
    pub index: &'static str,
    /// The tuner's step for this term (big values move in bigger steps).
    pub step: i32,
    /// Whether the term enters the evaluation as `count × value`.
    pub linear: bool,
    /// How an array's values are ordered by index, as chess demands (the tuner keeps it).
    pub order: Order,
    /// The lowest value chess allows each component (the tuner never goes below it).
    pub at_least: Option<i32>,
    /// The highest value chess allows each component (the tuner never goes above it).
    pub at_most: Option<i32>,
    doc: &'static str,
}

/// How the values of an array term must be ordered by index (each component on its own).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Order {
    /// No order is required.
    Free,
    /// Each element is at least the one before it.
    Rising,
    /// Each element is at most the one before it.
    Falling,
}

impl TermInfo {
    /// Metadata with the defaults of the optional attributes (step 1, linear, no index).
    pub const fn new(
        name: &'static str,
        group: Group,
        shape: Shape,
        offset: usize,
        doc: &'static str,
    ) -> TermInfo {
        TermInfo {
            name,
            group,
            shape,
            offset,
            index: "",
            step: 1,
            linear: true,
            order: Order::Free,
            at_least: None,
            at_most: None,
            doc,
        }
    }

    /// Requires the array's values to rise with the index.
    pub const fn rising(self) -> TermInfo {
        TermInfo {
            order: Order::Rising,
            ..self
        }
    }

    /// Requires the array's values to fall with the index.
    pub const fn falling(self) -> TermInfo {
        TermInfo {
            order: Order::Falling,
            ..self
        }
    }

    /// Requires every value to be at least `bound`.
    pub const fn at_least(self, bound: i32) -> TermInfo {
        TermInfo {
            at_least: Some(bound),
            ..self
        }
    }

    /// Requires every value to be at most `bound`.
    pub const fn at_most(self, bound: i32) -> TermInfo {
        TermInfo {
            at_most: Some(bound),
            ..self
        }
    }

    /// The declaration's constraint attributes as the table writes them
    /// (`, rising, at_least 0`), empty when the term has none.
    pub fn constraint_marks(&self) -> String {
        let mut out = String::new();
        match self.order {
            Order::Free => {}
            Order::Rising => out.push_str(", rising"),
            Order::Falling => out.push_str(", falling"),
        }
        if let Some(b) = self.at_least {
            out.push_str(&format!(", at_least {b}"));
        }
        if let Some(b) = self.at_most {
            out.push_str(&format!(", at_most {b}"));
        }
        out
    }

    /// Sets what an array index means.
    pub const fn index(self, index: &'static str) -> TermInfo {
        TermInfo { index, ..self }
    }

    /// Sets the tuner's step.
    pub const fn step(self, step: i32) -> TermInfo {
        TermInfo { step, ..self }
    }

    /// Marks the term as not linear in its value.
    pub const fn nonlinear(self) -> TermInfo {
        TermInfo {
            linear: false,
            ..self
        }
    }

    /// The one-line doc: what the term measures.
    pub fn doc(&self) -> &'static str {
        self.doc.trim()
    }

    /// Number of flat slots.
    pub const fn slots(&self) -> usize {
        self.shape.elements() * self.shape.slots_per_element()
    }

    /// The flat slots of this term.
    pub fn flat_range(&self) -> std::ops::Range<usize> {
        self.offset..self.offset + self.slots()
    }
}

/// Which part of a value a flat slot holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Component {
    /// Middlegame half of an `S`.
    Mid,
    /// Endgame half of an `S`.
    End,
    /// An untapered integer.
    Scalar,
}

/// The description of one flat slot.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FlatParam {
    /// The term that owns the slot.
    pub term: TermId,
    /// Array element, `None` for single values.
    pub element: Option<usize>,
    /// Which component of the element.
    pub component: Component,
}

impl FlatParam {
    /// A readable name: `KNIGHT_OUTPOST[1].end`, `KS_ATTACK_SUB`, `BISHOP_PAIR.mid`.
    pub fn name(&self) -> String {
        let mut s = self.term.info().name.to_string();
        if let Some(i) = self.element {
            s.push_str(&format!("[{i}]"));
        }
        match self.component {
            Component::Mid => s.push_str(".mid"),
            Component::End => s.push_str(".end"),
            Component::Scalar => {}
        }
        s
    }
}

static FLAT: LazyLock<Vec<FlatParam>> = LazyLock::new(|| {
    let mut flat = Vec::with_capacity(FLAT_LEN);
    for term in TermId::all() {
        let shape = term.info().shape;
        for e in 0..shape.elements() {
            let element = shape.is_array().then_some(e);
            if shape.is_tapered() {
                flat.push(FlatParam {
                    term,
                    element,
                    component: Component::Mid,
                });
                flat.push(FlatParam {
                    term,
                    element,
                    component: Component::End,
                });
            } else {
                flat.push(FlatParam {
                    term,
                    element,
                    component: Component::Scalar,
                });
            }
        }
    }
    flat
});

/// Description of every flat slot, index for index with [`Params::flat`].
pub fn flat_params() -> &'static [FlatParam] {
    &FLAT
}

/// Prefix sums of slot counts: the offset of each term.
pub const fn prefix_sums<const N: usize>(sizes: [usize; N]) -> [usize; N] {
    let mut out = [0; N];
    let mut i = 1;
    while i < N {
        out[i] = out[i - 1] + sizes[i - 1];
        i += 1;
    }
    out
}

/// Sum of slot counts.
pub const fn total<const N: usize>(sizes: [usize; N]) -> usize {
    let mut sum = 0;
    let mut i = 0;
    while i < N {
        sum += sizes[i];
        i += 1;
    }
    sum
}

/// A full set of evaluation parameters: every slot of the table as one flat vector.
///
/// The values of the curves ([`crate::Curve`]) are computed from it once, on first use, and
/// forgotten when a value changes.
#[derive(Clone, Debug)]
pub struct Params {
    values: Box<[i32; FLAT_LEN]>,
    curves: OnceLock<Box<[S]>>,
    /// Bit `g` set when group `g` has a non-zero value.
    active: OnceLock<u64>,
}

impl PartialEq for Params {
    fn eq(&self, other: &Params) -> bool {
        self.values == other.values
    }
}

impl Eq for Params {}

static DEFAULTS: LazyLock<Params> = LazyLock::new(|| {
    let mut p = Params::zeroed();
    table::write_defaults(&mut p);
    p
});

pub use texel_trace::{in_bounds, VALUE_BOUND};

/// The table as a parameter space (`texel_trace`): every term with its name, group
/// (candidate families marked), shape and defaults, values numbered as [`Params::flat`].
pub fn param_space() -> texel_trace::ParamSpace {
    let defaults = Params::default();
    let params = TermId::all()
        .map(|t| {
            let info = t.info();
            texel_trace::Param {
                name: info.name.to_string(),
                len: info.shape.elements(),
                tapered: info.shape.is_tapered(),
                default: defaults.flat()[info.flat_range()].to_vec(),
                group: Some(info.group.name().to_string()),
                candidate: info.group.is_candidate(),
            }
        })
        .collect();
    texel_trace::ParamSpace::new(params).expect("the table's names are unique")
}

impl Default for Params {
    /// The table's declared values.
    fn default() -> Params {
        DEFAULTS.clone()
    }
}

impl Params {
    /// Every value set to zero.
    pub fn zeroed() -> Params {
        Params {
            values: Box::new([0; FLAT_LEN]),
            curves: OnceLock::new(),
            active: OnceLock::new(),
        }
    }

    /// The flat vector ([`flat_params`] names its slots).
    #[inline]
    pub fn flat(&self) -> &[i32; FLAT_LEN] {
        &self.values
    }

    /// Sets one flat slot.
    #[inline]
    pub fn set_flat(&mut self, index: usize, value: i32) {
        if self.values[index] != value {
            self.values[index] = value;
            self.curves = OnceLock::new();
            self.active = OnceLock::new();
        }
    }

    /// Whether any value of `group` is non-zero (a family at zero is not evaluated).
    #[inline]
    pub fn group_active(&self, group: Group) -> bool {
        let mask = self.active.get_or_init(|| {
            TermId::all()
                .filter(|t| t.info().flat_range().any(|i| self.values[i] != 0))
                .fold(0u64, |m, t| m | 1 << t.info().group as u32)
        });
        mask & (1 << group as u32) != 0
    }

    /// Every curve value, by derived slot ([`crate::Curve::first_slot`] + index).
    #[inline]
    pub fn curve_values(&self) -> &[S] {
        self.curves.get_or_init(|| {
            (0..crate::curve::slot_count())
                .map(|slot| {
                    let (curve, index) = crate::curve::slot_curve(slot);
                    curve.value(self, index)
                })
                .collect()
        })
    }

    /// Reads the `S` whose middlegame slot is `offset`.
    #[inline]
    pub(crate) fn score_at(&self, offset: usize) -> S {
        S(self.values[offset], self.values[offset + 1])
    }

    /// Reads a term through its handle.
    #[inline]
    pub fn get<H: Handle>(&self, handle: H) -> H::Value {
        handle.get(self)
    }

    /// Writes a term through its handle.
    pub fn set<H: Handle>(&mut self, handle: H, value: H::Value) {
        handle.set(self, value)
    }

    /// The flat slots of one term.
    pub fn term_values(&self, term: TermId) -> &[i32] {
        &self.values[term.info().flat_range()]
    }

    /// Sets every slot of `term` to zero (how a new term enters the tuner).
    pub fn zero_term(&mut self, term: TermId) {
        for i in term.info().flat_range() {
            self.set_flat(i, 0);
        }
    }

    /// The same values with every candidate family ([`Group::is_candidate`]) at zero: the
    /// evaluation of the established terms alone, at their speed.
    pub fn without_candidates(&self) -> Params {
        let mut p = self.clone();
        for t in TermId::all().filter(|t| t.info().group.is_candidate()) {
            p.zero_term(t);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::*;

    #[test]
    fn handles_read_the_declared_defaults() {
        let p = Params::default();
        assert_eq!(p.get(BISHOP_PAIR), S(27, 51));
        assert_eq!(p.get(KNIGHT_OUTPOST), [S(30, 17), S(16, 8)]);
        assert_eq!(p.get(KS_ATTACK_SUB), 280);
        assert_eq!(p.get(KS_SAFE_CHECK_SCORE), [10, 15, 24, 31, 29]);
        assert_eq!(KNIGHT_OUTPOST.at(1).get(&p), S(16, 8));
    }

    #[test]
    fn flat_view_covers_every_slot_once() {
        assert_eq!(flat_params().len(), FLAT_LEN);
        let mut expected = 0;
        for t in TermId::all() {
            assert_eq!(t.info().offset, expected, "{}", t.info().name);
            expected += t.info().slots();
        }
        assert_eq!(expected, FLAT_LEN);
        let i = KNIGHT_OUTPOST.at(1).flat_index() + 1;
        assert_eq!(flat_params()[i].name(), "KNIGHT_OUTPOST[1].end");
        assert_eq!(
            flat_params()[KS_ATTACK_SUB.flat_index()].name(),
            "KS_ATTACK_SUB"
        );
    }

    #[test]
    fn curve_values_follow_changes() {
        let mut p = Params::default();
        let slot = crate::Curve::KnightMobility.first_slot();
        assert_eq!(p.curve_values()[slot], p.get(KNIGHT_MOB_MIN));
        p.set(KNIGHT_MOB_MIN, S(-1, -2));
        assert_eq!(p.curve_values()[slot], S(-1, -2));
        p.zero_term(KNIGHT_MOB_MIN.term());
        assert_eq!(p.curve_values()[slot], S::ZERO);
    }

    #[test]
    fn declaration_attributes_are_kept() {
        let sub = KS_ATTACK_SUB.term().info();
        assert_eq!((sub.step, sub.linear), (2, false));
        let outpost = KNIGHT_OUTPOST.term().info();
        assert!(outpost.linear);
        assert!(!outpost.index.is_empty());
        assert!(!outpost.doc().is_empty());
    }

    #[test]
    fn the_table_as_a_parameter_space_numbers_values_as_the_table_does() {
        let space = param_space();
        assert_eq!(space.defaults(), Params::default().flat().to_vec());
        assert_eq!(space.params().len(), TermId::all().count());
        for (slot, fp) in flat_params().iter().enumerate() {
            assert_eq!(space.value_name(slot), Some(fp.name()), "slot {slot}");
        }
    }

    #[test]
    fn names_are_unique_and_docs_present() {
        let mut names: Vec<_> = TERMS.iter().map(|t| t.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), TERM_COUNT);
        for t in TERMS.iter() {
            assert!(!t.doc().is_empty(), "{} has no doc", t.name);
            assert_eq!(
                t.shape.is_array(),
                !t.index.is_empty(),
                "{} index doc",
                t.name
            );
        }
    }
}
