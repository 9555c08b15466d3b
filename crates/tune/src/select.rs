//! Which parameters a run tunes: the choice, and its variables in an outside parameter
//! space (texel's own table: `texel_dataset::select`).

use texel_solve::descent::Variable;

/// The choice of terms to tune: by default the whole table.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Only these groups (by name); with `terms`, their union.
    pub groups: Vec<String>,
    /// Only these terms (by name); with `groups`, their union.
    pub terms: Vec<String>,
    /// Never these terms.
    pub exclude: Vec<String>,
    /// Keep the piece values fixed.
    pub freeze_material: bool,
    /// Leave every candidate family out.
    pub no_candidates: bool,
}

/// A name in a selection that the table does not have.
#[derive(Debug, thiserror::Error)]
pub enum SelectionError {
    /// No such group.
    #[error("unknown group {0:?}")]
    UnknownGroup(String),
    /// No such term.
    #[error("unknown term {0:?}")]
    UnknownTerm(String),
    /// Nothing left to tune.
    #[error("the selection leaves no parameter to tune")]
    Empty,
}

/// The variables of a selection in an outside parameter space, in space order, each with
/// step 1: `groups` by the params' `group`, `terms` and `exclude` by param name;
/// `no_candidates` leaves out params marked `candidate`. `freeze_material` has no meaning
/// there and is ignored.
///
/// # Errors
/// A group or name the space does not have, or an empty selection.
pub fn select_in_space(
    space: &texel_trace::ParamSpace,
    s: &Selection,
) -> Result<Vec<Variable>, SelectionError> {
    let params = space.params();
    for g in &s.groups {
        if !params
            .iter()
            .any(|p| p.group.as_deref() == Some(g.as_str()))
        {
            return Err(SelectionError::UnknownGroup(g.clone()));
        }
    }
    for t in s.terms.iter().chain(&s.exclude) {
        if !params.iter().any(|p| &p.name == t) {
            return Err(SelectionError::UnknownTerm(t.clone()));
        }
    }
    let everything = s.groups.is_empty() && s.terms.is_empty();
    let mut vars = Vec::new();
    for (p, &start) in params.iter().zip(space.param_starts()) {
        let in_group = p.group.as_ref().is_some_and(|g| s.groups.contains(g));
        let chosen = everything || in_group || s.terms.contains(&p.name);
        if chosen && !s.exclude.contains(&p.name) && !(s.no_candidates && p.candidate) {
            vars.extend((start..start + p.values()).map(|slot| Variable { slot, step: 1 }));
        }
    }
    if vars.is_empty() {
        return Err(SelectionError::Empty);
    }
    Ok(vars)
}
