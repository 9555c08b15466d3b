//! Which of the table's parameters a run tunes.

use texel_eval::params::flat_params;
use texel_eval::params::Handle as _;
use texel_eval::table::{Group, PIECE_VALUE};
use texel_eval::TermId;
use texel_solve::Variable;
use texel_tune::{Selection, SelectionError};

fn term(name: &str) -> Result<TermId, SelectionError> {
    TermId::by_name(name).ok_or_else(|| SelectionError::UnknownTerm(name.to_string()))
}

/// The variables of a selection of the table's terms, in table order, each with its term's step.
///
/// # Errors
/// An unknown group or term, or an empty selection.
pub fn select(s: &Selection) -> Result<Vec<Variable>, SelectionError> {
    let groups = s
        .groups
        .iter()
        .map(|g| {
            Group::ALL
                .iter()
                .copied()
                .find(|x| x.name().eq_ignore_ascii_case(g))
                .ok_or_else(|| SelectionError::UnknownGroup(g.clone()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let terms = s
        .terms
        .iter()
        .map(|t| term(t))
        .collect::<Result<Vec<_>, _>>()?;
    let mut excluded = s
        .exclude
        .iter()
        .map(|t| term(t))
        .collect::<Result<Vec<_>, _>>()?;
    if s.freeze_material {
        excluded.push(PIECE_VALUE.term());
    }
    let everything = groups.is_empty() && terms.is_empty();
    let vars: Vec<Variable> = flat_params()
        .iter()
        .enumerate()
        .filter(|(_, fp)| {
            let info = fp.term.info();
            let chosen = everything || groups.contains(&info.group) || terms.contains(&fp.term);
            let candidate = s.no_candidates && info.group.is_candidate();
            chosen && !excluded.contains(&fp.term) && !candidate
        })
        .map(|(slot, fp)| Variable {
            slot,
            step: fp.term.info().step.max(1),
        })
        .collect();
    if vars.is_empty() {
        return Err(SelectionError::Empty);
    }
    Ok(vars)
}

#[cfg(test)]
mod tests {
    use super::*;
    use texel_eval::table::{BISHOP_PAIR, KS_ATTACK_SUB};

    #[test]
    fn selections_pick_groups_terms_and_exclusions() {
        let all = select(&Selection::default()).unwrap();
        assert_eq!(all.len(), flat_params().len());
        let knights = select(&Selection {
            groups: vec!["KnightV".into()],
            ..Default::default()
        })
        .unwrap();
        assert!(knights
            .iter()
            .all(|v| flat_params()[v.slot].term.info().group == Group::KnightV));
        let one = select(&Selection {
            terms: vec!["BISHOP_PAIR".into()],
            ..Default::default()
        })
        .unwrap();
        assert_eq!(
            one.iter().map(|v| v.slot).collect::<Vec<_>>(),
            vec![BISHOP_PAIR.flat_index(), BISHOP_PAIR.flat_index() + 1]
        );
        let sub = select(&Selection {
            terms: vec!["KS_ATTACK_SUB".into()],
            ..Default::default()
        })
        .unwrap();
        assert_eq!(
            sub,
            vec![Variable {
                slot: KS_ATTACK_SUB.flat_index(),
                step: 2
            }]
        );
        let frozen = select(&Selection {
            freeze_material: true,
            ..Default::default()
        })
        .unwrap();
        assert_eq!(frozen.len(), all.len() - 10);
        assert!(select(&Selection {
            groups: vec!["Nope".into()],
            ..Default::default()
        })
        .is_err());
        let none = Selection {
            terms: vec!["BISHOP_PAIR".into()],
            exclude: vec!["BISHOP_PAIR".into()],
            ..Default::default()
        };
        assert!(matches!(select(&none), Err(SelectionError::Empty)));
    }
}
