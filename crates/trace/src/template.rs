//! Writing tuned values into an engine's own source: a template is that source with
//! `{{NAME}}` where a parameter's values go, so a C, C++, Rust or Python table is
//! regenerated in place of the old one.
//!
//! `{{NAME}}` becomes the parameter's values separated by `, ` (a single value alone); each
//! tapered entry is written by the pair pattern, `S({mid}, {end})` unless another is given
//! (`({mid}, {end})` for a Python tuple). `{{NAME[i]}}` is entry `i` alone; `{{NAME.mid}}`
//! and `{{NAME.end}}` are the middlegame or endgame values of every entry, and
//! `{{NAME[i].mid}}` one of them. Text outside `{{…}}` is copied as it is.

use crate::space::{Param, ParamSpace};

/// A placeholder the space cannot fill, with its line (1-based) in the template.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("template line {line}: {what}")]
pub struct TemplateError {
    /// The line of the placeholder.
    pub line: usize,
    /// What is wrong.
    pub what: String,
}

/// The pair pattern used when none is given.
pub const DEFAULT_PAIR: &str = "S({mid}, {end})";

/// `template` with every placeholder replaced by the flat `values` of `space`, tapered
/// entries written by `pair` (with `{mid}` and `{end}`).
///
/// # Errors
/// A placeholder that is not closed, names no parameter of the space, or asks for an entry
/// or a part it does not have.
pub fn render(
    template: &str,
    space: &ParamSpace,
    values: &[i32],
    pair: &str,
) -> Result<String, TemplateError> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let line = template[..template.len() - rest.len() + open]
            .matches('\n')
            .count()
            + 1;
        let bad = |what: String| TemplateError { line, what };
        let close = rest[open..]
            .find("}}")
            .ok_or_else(|| bad("`{{` without its `}}`".into()))?;
        let name = rest[open + 2..open + close].trim();
        out.push_str(&placeholder(name, space, values, pair).map_err(bad)?);
        rest = &rest[open + close + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The text of one placeholder `NAME`, `NAME[i]`, `NAME.part` or `NAME[i].part`.
fn placeholder(
    text: &str,
    space: &ParamSpace,
    values: &[i32],
    pair: &str,
) -> Result<String, String> {
    let (head, part) = match text.rsplit_once('.') {
        Some((h, p @ ("mid" | "end"))) => (h, Some(p)),
        _ => (text, None),
    };
    let (name, index) = match head.strip_suffix(']').and_then(|h| h.split_once('[')) {
        Some((n, i)) => (
            n,
            Some(
                i.parse::<usize>()
                    .map_err(|_| format!("{{{{{text}}}}}: bad index"))?,
            ),
        ),
        None => (head, None),
    };
    let (param, start) = space
        .params()
        .iter()
        .zip(space.param_starts())
        .find(|(p, _)| p.name == name)
        .ok_or_else(|| {
            format!(
                "{{{{{text}}}}}: no parameter {name:?}{}",
                nearest(space, name)
            )
        })?;
    if part.is_some() && !param.tapered {
        return Err(format!("{{{{{text}}}}}: {name} is not tapered"));
    }
    let entries: Vec<usize> = match index {
        Some(i) if i < param.len => vec![i],
        Some(i) => {
            return Err(format!(
                "{{{{{text}}}}}: {name} has {} entries, not {}",
                param.len,
                i + 1
            ))
        }
        None => (0..param.len).collect(),
    };
    let own = &values[*start..*start + param.values()];
    let words: Vec<String> = entries
        .iter()
        .map(|&e| entry_text(param, own, e, part, pair))
        .collect();
    Ok(words.join(", "))
}

/// ` (did you mean NAME?)` for the parameter of `space` whose name is fewest edits from
/// `name` (at most a third of its letters), else nothing.
fn nearest(space: &ParamSpace, name: &str) -> String {
    let upper = name.to_uppercase();
    let most = name.chars().count().div_ceil(3).max(1);
    (space.params().iter())
        .map(|p| (edits(&upper, &p.name.to_uppercase()), &p.name))
        .filter(|(d, _)| *d <= most)
        .min_by_key(|(d, _)| *d)
        .map_or_else(String::new, |(_, n)| format!(" (did you mean {n}?)"))
}

/// The fewest single-letter insertions, deletions and substitutions from `a` to `b`.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let here = (diagonal + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            (diagonal, row[j + 1]) = (row[j + 1], here);
        }
    }
    row[b.len()]
}

/// Entry `e` of `param` (its values `own`): the whole entry, or one part of it.
fn entry_text(param: &Param, own: &[i32], e: usize, part: Option<&str>, pair: &str) -> String {
    let w = param.width();
    match (param.tapered, part) {
        (false, _) => own[e].to_string(),
        (true, Some("mid")) => own[e * w].to_string(),
        (true, Some(_)) => own[e * w + 1].to_string(),
        (true, None) => pair
            .replace("{mid}", &own[e * w].to_string())
            .replace("{end}", &own[e * w + 1].to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn space() -> ParamSpace {
        let param = |name: &str, len, tapered, default: Vec<i32>| Param {
            name: name.into(),
            len,
            tapered,
            default,
            group: None,
            candidate: false,
        };
        ParamSpace::new(vec![
            param("PST", 2, true, vec![1, 2, 3, 4]),
            param("TEMPO", 1, false, vec![15]),
            param("MOB", 3, false, vec![-5, 0, 5]),
        ])
        .unwrap()
    }

    #[test]
    fn placeholders_take_the_values_in_the_asked_shape() {
        let s = space();
        let v = s.defaults();
        let t = "const PST: [S; 2] = [{{PST}}];\nTEMPO = {{ TEMPO }} # {{MOB[2]}}\n\
                 mid {{PST.mid}} end {{PST[1].end}} all {{MOB}}";
        let out = render(t, &s, &v, DEFAULT_PAIR).unwrap();
        assert_eq!(
            out,
            "const PST: [S; 2] = [S(1, 2), S(3, 4)];\nTEMPO = 15 # 5\nmid 1, 3 end 4 all -5, 0, 5"
        );
        let python = render("PST = [{{PST}}]", &s, &v, "({mid}, {end})").unwrap();
        assert_eq!(python, "PST = [(1, 2), (3, 4)]");
    }

    #[test]
    fn bad_placeholders_name_their_line() {
        let s = space();
        let v = s.defaults();
        let err = |t: &str| render(t, &s, &v, DEFAULT_PAIR).unwrap_err().to_string();
        assert_eq!(
            err("a\nb {{KING}}"),
            "template line 2: {{KING}}: no parameter \"KING\""
        );
        assert!(err("{{PST[2]}}").contains("PST has 2 entries, not 3"));
        assert!(err("{{TEMPO.mid}}").contains("TEMPO is not tapered"));
        assert!(err("x\n\n{{PST").starts_with("template line 3: `{{` without"));
        assert!(err("{{PST[x]}}").contains("bad index"));
        // A misspelt name gets the nearest one; a name near none gets no guess.
        assert!(err("{{TEMPOO}}").ends_with("no parameter \"TEMPOO\" (did you mean TEMPO?)"));
        assert!(err("{{mob}}").ends_with("(did you mean MOB?)"));
        assert!(err("{{KNIGHT_OUTPOST}}").ends_with("no parameter \"KNIGHT_OUTPOST\""));
    }
}
