//! Inner terms (version 2): king safety's clamped square and clamped line per side, a part
//! weighed by a parameter, an endgame scale above 1; read from both forms, evaluated by the
//! documented formula, written back as read, and broken ones named by line and field.

use std::path::Path;
use texel_trace::{read_binary, write_binary, write_trace, TraceReader, TracedPosition, VERSION};

/// Two tapered danger weights, a plain weight for the endgame part, a tapered material entry.
const HEADER: &str = r#"{"format": "texel-trace", "version": 2, "params": [
 {"name": "DANGER", "len": 2, "tapered": true, "default": [[30, 10], [50, 20]]},
 {"name": "DANGER_END_WEIGHT", "len": 1, "default": 3},
 {"name": "PAWN", "len": 1, "tapered": true, "default": [90, 110]}],
 "inner": [{"name": "king_safety",
   "mid": {"shape": "square", "floor": 0, "times": -0.01},
   "end": {"shape": "linear", "floor": 0, "ceiling": 100, "times": -0.5, "times_param": "DANGER_END_WEIGHT"}}]}"#;

/// White's danger sum: 2 of entry 0, 1 of entry 1, offset 5; Black's: 1 of entry 0, offset
/// −100 (so clamped to 0 in both parts).
const POSITION: &str = r#"{"result": 1, "phase": 0.25, "scale": 1.125, "coeffs": [[3, 1]], "inner": [
 {"term": 0, "side": 1, "offset": 5, "coeffs": [[0, 2], [1, 1]]},
 {"term": 0, "side": -1, "offset": -100, "coeffs": [[0, 1]]}]}"#;

fn one_line(text: &str) -> String {
    text.replace('\n', "")
}

fn read(text: &str) -> Result<(texel_trace::ParamSpace, Vec<TracedPosition>), String> {
    let reader =
        TraceReader::new(text.as_bytes(), Path::new("t.jsonl")).map_err(|e| e.to_string())?;
    let space = reader.space().clone();
    let positions = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    Ok((space, positions))
}

#[test]
fn inner_sums_evaluate_by_their_shapes_and_read_back_from_either_form() {
    let text = format!("{}\n{}\n", one_line(HEADER), one_line(POSITION));
    let (space, positions) = read(&text).unwrap();
    assert_eq!(space.inner().len(), 1);
    let values = space.defaults();
    // Material: 0.25·90 + 0.75·1.125·110. White's sums: mid 5 + 2·30 + 50 = 115, end 5 +
    // 2·10 + 20 = 45. Mid part −0.01·115², end part −0.5·3·45 (under its ceiling); Black's
    // sums are negative: clamped to 0, they add nothing.
    let material = 0.25 * 90.0 + 0.75 * 1.125 * 110.0;
    let white = 0.25 * (-0.01 * 115.0 * 115.0) + 0.75 * 1.125 * (-0.5 * 3.0 * 45.0);
    let eval = positions[0].eval(&space, &values);
    assert!((eval - (material + white)).abs() < 1e-9, "{eval}");

    // Written back as text (version 2) and as binary, the same positions come back.
    let mut written = Vec::new();
    write_trace(&mut written, &space, &positions).unwrap();
    let written = String::from_utf8(written).unwrap();
    assert!(written.starts_with(&format!(r#"{{"format":"texel-trace","version":{VERSION}"#)));
    let (again_space, again) = read(&written).unwrap();
    assert_eq!((&again_space, &again), (&space, &positions));
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("t.bin");
    let mut bytes = Vec::new();
    write_binary(&mut bytes, &space, &positions).unwrap();
    std::fs::write(&bin, bytes).unwrap();
    let (bin_space, from_bin) = read_binary(&bin).unwrap();
    assert_eq!((&bin_space, &from_bin), (&space, &positions));
}

#[test]
fn the_ceiling_and_the_parameter_factor_hold() {
    let text = format!("{}\n{}\n", one_line(HEADER), one_line(POSITION));
    let (space, positions) = read(&text).unwrap();
    // DANGER[0] = (30, 60): the end sum 5 + 120 + 20 = 145 is held at the ceiling 100.
    let mut values = space.defaults();
    values[1] = 60;
    values[4] = 2;
    let mid_sum = 5.0 + 2.0 * 30.0 + 50.0;
    let material = 0.25 * 90.0 + 0.75 * 1.125 * 110.0;
    let white = 0.25 * (-0.01 * mid_sum * mid_sum) + 0.75 * 1.125 * (-0.5 * 2.0 * 100.0);
    let eval = positions[0].eval(&space, &values);
    assert!((eval - (material + white)).abs() < 1e-9, "{eval}");
}

#[test]
fn broken_inner_terms_name_the_line_and_field() {
    let header = one_line(HEADER);
    let cases = [
        (
            header.replace(r#""version": 2"#, r#""version": 1"#),
            one_line(POSITION),
            "t.jsonl:1: inner: inner terms need \"version\": 2",
        ),
        (
            header.replace(r#""shape": "square""#, r#""shape": "cube""#),
            one_line(POSITION),
            "t.jsonl:1: inner[0].mid.shape: must be \"linear\", \"square\" or \"complexity\"",
        ),
        (
            header.replace(r#""shape": "square""#, r#""shape": "complexity""#),
            one_line(POSITION),
            "t.jsonl:1: inner: inner term \"king_safety\": a complexity moves the endgame score",
        ),
        (
            header.replace(
                r#""times_param": "DANGER_END_WEIGHT""#,
                r#""times_param": "PAWN""#,
            ),
            one_line(POSITION),
            "t.jsonl:1: inner[0].end.times_param: \"PAWN\" is not a plain single value",
        ),
        (
            header.replace(
                r#""times_param": "DANGER_END_WEIGHT""#,
                r#""times_param": "DANGER_END_WEIGTH""#,
            ),
            one_line(POSITION),
            "t.jsonl:1: inner[0].end.times_param: \"DANGER_END_WEIGTH\" names no parameter",
        ),
        (
            header.replace(
                r#""floor": 0, "ceiling": 100"#,
                r#""floor": 10, "ceiling": -10"#,
            ),
            one_line(POSITION),
            "t.jsonl:1: inner[0].end.floor: 10 is above the ceiling -10: the part would be a \
             constant",
        ),
        (
            header.replace(r#""times": -0.01"#, r#""times": 1e308"#),
            one_line(POSITION),
            "t.jsonl:1: inner[0].mid.times: 100000000",
        ),
        (
            header.replace(r#""times": -0.01"#, r#""times": 0"#),
            one_line(POSITION),
            "t.jsonl:1: inner[0].mid.times: 0 is not a factor a part can have",
        ),
        (
            header.clone(),
            one_line(POSITION).replace(r#""term": 0, "side": -1"#, r#""term": 3, "side": -1"#),
            "t.jsonl:2: inner[1].term: must be the number of one of the header's 1 inner terms",
        ),
        (
            header.clone(),
            one_line(POSITION).replace(r#""side": -1"#, r#""side": 2"#),
            "t.jsonl:2: inner[1].side: 2 is not 1 (White) or -1 (Black)",
        ),
        (
            header,
            one_line(POSITION).replace("[[0, 1]]}]}", "[[7, 1]]}]}"),
            "t.jsonl:2: inner[1].coeffs[0]: index 7 is not an entry",
        ),
    ];
    for (header, position, expected) in cases {
        let err = read(&format!("{header}\n{position}\n")).unwrap_err();
        assert!(err.contains(expected), "{err}\nexpected {expected}");
    }
}

/// The example under the page's heading `heading`: the header and the position, one line
/// each (the page shows them over several lines).
fn page_example(heading: &str) -> String {
    let page = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/trace-format.md"),
    )
    .unwrap();
    let section = &page[page.find(heading).unwrap()..];
    let block = &section[section.find("```json\n").unwrap() + 8..];
    let block = &block[..block.find("```").unwrap()];
    let (header, position) = block.split_at(block.find("\n{\"result\"").unwrap());
    format!("{}\n{}\n", one_line(header), one_line(position.trim()))
}

#[test]
fn the_documented_example_evaluates_as_the_page_works_it_through() {
    let (space, positions) = read(&page_example("### Inner terms (version 2)")).unwrap();
    let eval = positions[0].eval(&space, &space.defaults());
    assert!((eval - 9.65625).abs() < 1e-9, "{eval}");
    let page = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/trace-format.md"),
    )
    .unwrap();
    assert!(page.contains("evaluates `−21.125 + 30.78 = 9.66` centipawns"));
}

#[test]
fn a_complexity_moves_the_endgame_score_as_the_page_works_it_through() {
    let text = page_example("### Complexity");
    let (space, positions) = read(&text).unwrap();
    let p = &positions[0];
    let mut values = space.defaults();
    // E = −20 + 110 = 90, c = 6·8 + 40 − 110 = −22: E becomes 68.
    assert!((p.eval(&space, &values) - 73.5).abs() < 1e-9);
    // c = 48 + 40 − 200 = −112 is beyond −|E|: the endgame score is held at 0.
    values[4] = -200;
    assert!((p.eval(&space, &values) - 0.25 * 90.0).abs() < 1e-9);
    // A positive complexity pushes E away from zero; with E negative, further down.
    values[4] = 100;
    values[1] = -200;
    let e: f64 = -20.0 - 200.0;
    let c = 6.0 * 8.0 + 40.0 + 100.0;
    let want = 0.25 * 90.0 + 0.75 * (e - c);
    assert!((p.eval(&space, &values) - want).abs() < 1e-9);
    // It reads back from either form, its fixed endgame part included.
    assert_eq!(p.offset_end, -20.0);
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("t.bin");
    let mut bytes = Vec::new();
    write_binary(&mut bytes, &space, &positions).unwrap();
    std::fs::write(&bin, bytes).unwrap();
    assert_eq!(
        read_binary(&bin).unwrap(),
        (space.clone(), positions.clone())
    );
    let mut written = Vec::new();
    write_trace(&mut written, &space, &positions).unwrap();
    assert_eq!(
        read(&String::from_utf8(written).unwrap()).unwrap(),
        (space, positions)
    );
}

#[test]
fn a_complexity_is_an_end_part_alone() {
    let text = page_example("### Complexity");
    let with_mid = text.replacen(
        r#""end": {"shape": "complexity"}"#,
        r#""mid": {"shape": "linear"}, "end": {"shape": "complexity"}"#,
        1,
    );
    assert_ne!(with_mid, text);
    let err = read(&with_mid).unwrap_err();
    assert!(
        err.contains("a complexity moves the endgame score: it is an end part, alone"),
        "{err}"
    );
}

#[test]
fn a_zero_endgame_score_stays_zero_though_its_tapered_parts_are_inexact() {
    // E = 1 + 5 − 6 = 0 at phase 7/24 and scale 0.75: its tapered parts add up to −4e-16
    // in 64 bits, and a complexity of 50 must still leave it alone.
    let text = r#"{"format": "texel-trace", "version": 2, "params": [
  {"name": "A", "len": 2, "tapered": true, "default": [[10, 1], [20, 1]]},
  {"name": "COMPLEXITY", "len": 1, "default": 50}],
 "inner": [{"name": "complexity", "end": {"shape": "complexity"}}]}
{"result": 0.5, "phase": 0.29166667, "scale": 0.75, "offset_end": -6, "coeffs": [[0, 1], [1, 5]],
 "inner": [{"term": 0, "coeffs": [[2, 1]]}]}"#;
    let lines: Vec<&str> = text.split_inclusive("]}\n").collect();
    let text = format!("{}\n{}\n", one_line(lines[0]), one_line(lines[1]));
    let (space, positions) = read(&text).unwrap();
    let eval = positions[0].eval(&space, &space.defaults());
    let middlegame = 7.0 / 24.0 * (10.0 + 5.0 * 20.0);
    assert!(
        (eval - middlegame).abs() < 1e-9,
        "{eval} against {middlegame}"
    );
}
