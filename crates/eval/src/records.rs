//! What `texel eval --json` and `texel params --json` print, one typed record each: the
//! contribution of every term that fired in a position, and the table's terms with their
//! values.

use crate::params::{Params, TermId};
use crate::{Breakdown, MAX_PHASE, S};
use serde::Serialize;

/// One position's evaluation, term by term (`texel eval --json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EvalRecord {
    /// The position.
    pub fen: String,
    /// The tapered score, centipawns from White's view.
    pub score: i32,
    /// The game phase, 0 to [`MAX_PHASE`].
    pub phase: i32,
    /// The phase of the opening position.
    pub max_phase: i32,
    /// The endgame scale in percent.
    pub scale: i32,
    /// White minus Black before tapering, `[mid, end]`.
    pub total: [i32; 2],
    /// Every term that fired, in table order.
    pub terms: Vec<TermContribution>,
}

/// What one term gives each side in a position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TermContribution {
    /// The term's name.
    pub name: &'static str,
    /// Its group's name.
    pub group: &'static str,
    /// Whether the term is its values times counts (not a formula over several).
    pub linear: bool,
    /// White's contribution, `[mid, end]`.
    pub white: [i32; 2],
    /// Black's contribution.
    pub black: [i32; 2],
    /// White minus Black.
    pub total: [i32; 2],
}

fn pair(s: S) -> [i32; 2] {
    [s.0, s.1]
}

impl EvalRecord {
    /// The record of the breakdown `b` of the position `fen`.
    pub fn of(fen: &str, b: &Breakdown) -> EvalRecord {
        let terms = b
            .terms()
            .map(|(t, w, bl)| {
                let info = t.info();
                TermContribution {
                    name: info.name,
                    group: info.group.name(),
                    linear: info.linear,
                    white: pair(w),
                    black: pair(bl),
                    total: pair(w - bl),
                }
            })
            .collect();
        EvalRecord {
            fen: fen.trim().to_string(),
            score: b.score(),
            phase: b.phase(),
            max_phase: MAX_PHASE,
            scale: b.scale(),
            total: pair(b.total()),
            terms,
        }
    }
}

/// One term of the table with its values (`texel params --json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TermListing<'a> {
    /// The term's name.
    pub name: &'static str,
    /// Its group's name.
    pub group: &'static str,
    /// Whether the group is a candidate family.
    pub candidate: bool,
    /// Its shape as a Rust type (`S`, `[S; 8]`, `i32`, ...).
    pub shape: String,
    /// Its values, flat (`mid, end` pairs for tapered entries).
    pub values: &'a [i32],
    /// What the entries of an array stand for.
    pub index: &'static str,
    /// The tuner's step.
    pub step: i32,
    /// Whether the term is its values times counts.
    pub linear: bool,
    /// The orders and bounds the table declares for it.
    pub constraints: String,
    /// Each value's support (positions it counts in), when positions were given.
    pub support: Option<Vec<usize>>,
    /// What it measures.
    pub doc: &'static str,
}

impl<'a> TermListing<'a> {
    /// The listing of `term` with its values in `params` and, if known, each value's
    /// support in `support` (every flat slot's).
    pub fn of(term: TermId, params: &'a Params, support: Option<&[usize]>) -> TermListing<'a> {
        let i = term.info();
        TermListing {
            name: i.name,
            group: i.group.name(),
            candidate: i.group.is_candidate(),
            shape: i.shape.rust_type(),
            values: params.term_values(term),
            index: i.index,
            step: i.step,
            linear: i.linear,
            constraints: i.constraint_marks().trim_start_matches(", ").to_string(),
            support: support.map(|s| s[i.flat_range()].to_vec()),
            doc: i.doc(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_fen;

    #[test]
    fn an_eval_record_adds_up_to_its_total_and_prints_its_fields_in_order() {
        let fen = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4 ";
        let (pos, params) = (parse_fen(fen).unwrap(), Params::default());
        let r = EvalRecord::of(fen, &Breakdown::of(&pos, &params));
        assert_eq!(r.fen, fen.trim());
        assert_eq!(r.score, crate::evaluate(&pos, &params));
        let sum = r
            .terms
            .iter()
            .fold([0, 0], |[m, e], t| [m + t.total[0], e + t.total[1]]);
        assert_eq!(sum, r.total);
        assert!(r
            .terms
            .iter()
            .all(|t| t.total == [t.white[0] - t.black[0], t.white[1] - t.black[1]]));
        let text = serde_json::to_string(&r).unwrap();
        assert!(
            text.starts_with(r#"{"fen":"r1bqkb1r"#) && text.contains(r#""max_phase":24,"scale":"#)
        );
    }

    #[test]
    fn a_term_listing_holds_its_values_and_its_slots_support() {
        let params = Params::default();
        let term = TermId::by_name("PIECE_VALUE").unwrap();
        let support: Vec<usize> = (0..params.flat().len()).collect();
        let l = TermListing::of(term, &params, Some(&support));
        assert_eq!(
            (l.name, l.shape.as_str(), l.values.len()),
            ("PIECE_VALUE", "[S; 5]", 10)
        );
        assert_eq!(l.support, Some(support[term.info().flat_range()].to_vec()));
        assert_eq!(TermListing::of(term, &params, None).support, None);
    }
}
