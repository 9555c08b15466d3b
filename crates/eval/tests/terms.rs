//! Every term has a position where it fires and one where it does not (`terms.txt`).

use texel_eval::{parse_fen, trace, Breakdown, Params, TermId};

/// Whether `term` (or one element of it) takes part in the evaluation of `fen`: a non-zero
/// linear coefficient, a curve value that reads it, a read by a formula, or a non-zero
/// contribution.
fn active(fen: &str, term: TermId, element: Option<usize>) -> bool {
    let params = Params::default();
    let pos = parse_fen(fen).unwrap_or_else(|e| panic!("{e}"));
    let info = term.info();
    let per = info.shape.slots_per_element();
    let range = match element {
        Some(i) => info.offset + i * per..info.offset + (i + 1) * per,
        None => info.flat_range(),
    };
    let t = trace(&pos, &params);
    let in_curve = t.curves.iter().any(|c| {
        let (curve, index) = texel_eval::curve::slot_curve(usize::from(c.slot));
        let inputs = curve.inputs(index);
        inputs
            .iter()
            .any(|p| range.contains(&p.flat_index()) || range.contains(&(p.flat_index() + 1)))
    });
    let mut read = false;
    t.inputs
        .for_each_read(|p, _| read |= range.contains(&p.flat_index()));
    let traced = in_curve
        || read
        || t.coefs
            .iter()
            .any(|c| range.contains(&usize::from(c.index)));
    traced || (element.is_none() && Breakdown::of(&pos, &params).fired(term))
}

/// Splits `NAME` or `NAME[i]`.
fn parse_name(s: &str) -> (TermId, Option<usize>) {
    let (name, element) = match s.split_once('[') {
        Some((n, rest)) => (
            n,
            Some(rest.trim_end_matches(']').parse().expect("element index")),
        ),
        None => (s, None),
    };
    (
        TermId::by_name(name).unwrap_or_else(|| panic!("unknown term {name}")),
        element,
    )
}

#[test]
fn every_term_fires_where_expected_and_only_there() {
    let text = include_str!("terms.txt");
    let mut fires = vec![false; TermId::all().count()];
    let mut quiet = vec![false; TermId::all().count()];
    let mut failures = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut parts = line.splitn(3, ' ');
        let (name, kind, fen) = (
            parts.next().unwrap(),
            parts.next().unwrap(),
            parts.next().unwrap(),
        );
        let (term, element) = parse_name(name);
        let expected = match kind {
            "fires" => true,
            "quiet" => false,
            other => panic!("line {}: unknown kind {other}", n + 1),
        };
        if active(fen, term, element) != expected {
            failures.push(format!("line {}: {name} should {kind} in {fen}", n + 1));
        }
        let seen = if expected { &mut fires } else { &mut quiet };
        seen[term.0 as usize] = true;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for t in TermId::all() {
        let name = t.info().name;
        assert!(fires[t.0 as usize], "{name} has no position where it fires");
        assert!(
            quiet[t.0 as usize],
            "{name} has no position where it is quiet"
        );
    }
}
