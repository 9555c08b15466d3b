//! Export of the table as Rust source: the declaration of `src/table.rs` with new values.

use super::{Group, Params, Shape, TermId};
use std::fmt::Write;

const HEADER: &str = "\
//! The evaluation parameter table: every term declared once, with its group, shape,
//! default value, tuner step and a one-line description of what it measures.
//!
//! This file is the output of `texel export`: a tuned parameter file exported with
//! `texel export --params P.json --rust crates/eval/src/table.rs` replaces it and compiles.
//! Counts are from the point of view of the side that owns the feature; the evaluation adds
//! white's terms and subtracts black's.

use crate::S;

crate::params::declare_params! {
";

/// The values of `term` as the table writes them: `S(1, 2)`, `[S(1, 2), S(3, 4)]`, `7`,
/// `[1, 2]`.
pub fn rust_value(params: &Params, term: TermId) -> String {
    let v = params.term_values(term);
    let pairs = || {
        v.chunks(2)
            .map(|c| format!("S({}, {})", c[0], c[1]))
            .collect::<Vec<_>>()
    };
    let ints = || v.iter().map(i32::to_string).collect::<Vec<_>>();
    match term.info().shape {
        Shape::Score => pairs()[0].clone(),
        Shape::Int => v[0].to_string(),
        Shape::ScoreArray(_) => format!("[{}]", pairs().join(", ")),
        Shape::IntArray(_) => format!("[{}]", ints().join(", ")),
    }
}

/// The whole table as Rust source with the values of `params`: names, docs, groups, order,
/// index meanings, steps and linearity marks are the declaration's own.
pub fn to_rust(params: &Params) -> String {
    let mut out = String::from(HEADER);
    for (gi, &group) in Group::ALL.iter().enumerate() {
        if gi > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "    /// {}", group.doc());
        let partners: Vec<&str> = group.partners().iter().map(|g| g.name()).collect();
        let with = if partners.is_empty() {
            String::new()
        } else {
            format!(" with {}", partners.join(", "))
        };
        let _ = writeln!(out, "    {} {}{with} {{", group.keyword(), group.name());
        for term in TermId::all().filter(|t| t.info().group == group) {
            let info = term.info();
            let _ = writeln!(out, "        /// {}", info.doc());
            let _ = write!(
                out,
                "        {}: {} = {}",
                info.name,
                info.shape.rust_type(),
                rust_value(params, term)
            );
            if !info.index.is_empty() {
                let _ = write!(out, ", index {:?}", info.index);
            }
            if info.step != 1 {
                let _ = write!(out, ", step {}", info.step);
            }
            if !info.linear {
                out.push_str(", nonlinear");
            }
            out.push_str(&info.constraint_marks());
            out.push_str(";\n");
        }
        out.push_str("    }\n");
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_in_table_is_the_export_of_the_defaults() {
        let exported = to_rust(&Params::default());
        let checked_in = include_str!("../table.rs");
        if exported != checked_in {
            let line = exported
                .lines()
                .zip(checked_in.lines())
                .position(|(a, b)| a != b);
            panic!("table.rs differs from the export of its defaults near line {line:?}");
        }
    }
}
