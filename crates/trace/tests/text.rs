//! The text form of the trace format: written and read back, the evaluation it defines, and
//! every broken file named by file, line and field.

use std::path::Path;
use texel_trace::{write_trace, Coef, Param, ParamSpace, TraceReader, TracedPosition};

fn space() -> ParamSpace {
    ParamSpace::new(vec![
        Param {
            name: "KNIGHT_PST".into(),
            len: 2,
            tapered: true,
            default: vec![10, 20, 30, 40],
            group: Some("pst".into()),
            candidate: false,
        },
        Param {
            name: "TEMPO".into(),
            len: 1,
            tapered: false,
            default: vec![15],
            group: None,
            candidate: true,
        },
    ])
    .unwrap()
}

fn read(text: &str) -> Result<Vec<TracedPosition>, String> {
    let reader =
        TraceReader::new(text.as_bytes(), Path::new("t.jsonl")).map_err(|e| e.to_string())?;
    reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())
}

/// The header a twenty-line script would write for [`space`].
const HEADER: &str = r#"{"format": "texel-trace", "version": 1, "params": [{"name": "KNIGHT_PST", "len": 2, "tapered": true, "default": [[10, 20], [30, 40]], "group": "pst"}, {"name": "TEMPO", "len": 1, "tapered": false, "default": 15, "candidate": true}]}"#;

#[test]
fn a_script_s_trace_reads_as_written_and_evaluates_by_the_formula() {
    let text = format!(
        "{HEADER}\n{}\n\n{}\n",
        r#"{"result": 1, "phase": 0.25, "offset": -12, "coeffs": [[0, 1], [1, -2], [2, 1]]}"#,
        r#"{"result": 0.5, "phase": 1, "scale": 0.5, "coeffs": [[1, 0.5, 2]], "engine": "x"}"#
    ) + r#"{"result": 1, "phase": 0.5, "scale": 1.125, "coeffs": [[0, 2]]}"#;
    let reader = TraceReader::new(text.as_bytes(), Path::new("t.jsonl")).unwrap();
    assert_eq!(reader.space(), &space());
    let positions = reader.collect::<Result<Vec<_>, _>>().unwrap();
    assert_eq!(positions.len(), 3);
    let values = space().defaults();
    // -12 + 1·(0.25·10 + 0.75·20) − 2·(0.25·30 + 0.75·40) + 1·15
    let first: f64 = -12.0 + (2.5 + 15.0) - 2.0 * (7.5 + 30.0) + 15.0;
    assert!((positions[0].eval(&space(), &values) - first).abs() < 1e-9);
    // 0.5·30 + 0.5 (scale) · 2 · 40
    assert!((positions[1].eval(&space(), &values) - (15.0 + 40.0)).abs() < 1e-9);
    assert_eq!(positions[1].coeffs, vec![Coef::Split(1, 0.5, 2.0)]);
    // An endgame scaled up: 2·(0.5·10 + 0.5 · 1.125 · 20)
    assert!((positions[2].eval(&space(), &values) - 32.5).abs() < 1e-9);
    let mut written = Vec::new();
    write_trace(&mut written, &space(), &positions).unwrap();
    let again = read(&String::from_utf8(written).unwrap()).unwrap();
    assert_eq!(again, positions);
}

#[test]
fn broken_traces_name_the_file_line_and_field() {
    let bad = |line: &str| read(&format!("{HEADER}\n{line}\n")).unwrap_err();
    let cases = [
        (
            r#"{"phase": 0.5, "coeffs": []}"#,
            "t.jsonl:2: result: missing",
        ),
        (
            r#"{"result": 2, "phase": 0.5, "coeffs": []}"#,
            "t.jsonl:2: result: 2 is outside 0 to 1",
        ),
        (
            r#"{"result": 1, "phase": 0.5, "coeffs": [[0, 1], [3, 1]]}"#,
            "t.jsonl:2: coeffs[1]: index 3",
        ),
        (
            r#"{"result": 1, "phase": 0.5, "coeffs": [[2, 1, 1]]}"#,
            "t.jsonl:2: coeffs[0]: entry 2 is not tapered",
        ),
        (
            r#"{"result": 1, "phase": 0.5, "coeffs": [[0, "x"]]}"#,
            "t.jsonl:2: coeffs[0]: count",
        ),
        (
            r#"{"result": 1, "phase": 0.5, "scale": -0.5, "coeffs": []}"#,
            "t.jsonl:2: scale: -0.5 is outside 0 to 1000",
        ),
        (
            r#"{"result": 1, "phase": 1.25, "coeffs": []}"#,
            "t.jsonl:2: phase: 1.25 is above 1: an engine whose taper goes past",
        ),
        ("{\"result\": 1,", "t.jsonl:2: line: not JSON"),
        ("[1, 0.5, []]", "t.jsonl:2: position: not a JSON object"),
        ("7", "t.jsonl:2: position: invalid type"),
    ];
    for (line, expected) in cases {
        let err = bad(line);
        assert!(err.starts_with(expected), "{line}: {err}");
    }
    let header = |h: &str| read(&format!("{h}\n")).unwrap_err();
    assert!(
        header("").contains("header: the file is empty"),
        "{}",
        header("")
    );
    assert!(header(r#"{"format": "other"}"#).contains(":1: format:"));
    assert!(
        header(r#"{"format": "texel-trace", "version": 3, "params": []}"#)
            .contains("version: Some(3)")
    );
    let short = HEADER.replace("[[10, 20], [30, 40]]", "[[10, 20]]");
    assert!(
        header(&short).contains("params[0].default: needs 2 [mid, end] pairs"),
        "{}",
        header(&short)
    );
    let twice = HEADER.replace("TEMPO", "KNIGHT_PST");
    assert!(header(&twice).contains("declared twice"));
    // A bad name is blamed on the name, not on a default that is right.
    for name in ["", " ", "A B", "\\u0007"] {
        let bad = HEADER.replace("\"TEMPO\"", &format!("\"{name}\""));
        let err = header(&bad);
        assert!(
            err.contains("params[1].name") && err.contains("a name is not empty"),
            "{name:?}: {err}"
        );
    }
}

#[test]
fn a_header_declaring_more_values_than_a_space_holds_is_refused_before_allocating() {
    let header = |h: &str| read(&format!("{h}\n")).unwrap_err();
    // A trillion entries, with and without defaults: refused, not an allocation abort.
    let huge = HEADER.replace(
        r#""len": 1, "tapered": false, "default": 15"#,
        r#""len": 1000000000000"#,
    );
    let err = header(&huge);
    assert!(
        err.contains(
            "params[1]: the parameters up to here declare 1000000000004 values: a space \
                      holds at most 1048576"
        ),
        "{err}"
    );
    // Many parameters within the bound each, beyond it together.
    let one = r#"{"name": "P0", "len": 300000, "tapered": true}"#;
    let many: Vec<String> = (0..100)
        .map(|k| one.replace("P0", &format!("P{k}")))
        .collect();
    let err = header(&format!(
        r#"{{"format": "texel-trace", "version": 1, "params": [{}]}}"#,
        many.join(", ")
    ));
    assert!(
        err.contains("params[1]: the parameters up to here declare 1200000"),
        "{err}"
    );
    // The bound itself is a space.
    let most = format!(
        r#"{{"format": "texel-trace", "version": 1, "params": [{{"name": "A", "len": {}}}]}}"#,
        texel_trace::MAX_VALUES
    );
    assert!(read(&format!("{most}\n")).unwrap().is_empty());
}

#[test]
fn a_one_entry_default_may_be_written_as_a_list_of_it() {
    let listed = HEADER
        .replace(
            r#""len": 2, "tapered": true, "default": [[10, 20], [30, 40]]"#,
            r#""len": 1, "tapered": true, "default": [[10, 20]]"#,
        )
        .replace(r#""default": 15"#, r#""default": [15]"#);
    let bare = listed
        .replace("[[10, 20]]", "[10, 20]")
        .replace("[15]", "15");
    let space_of = |h: &str| {
        let text = format!("{h}\n");
        TraceReader::new(text.as_bytes(), Path::new("t.jsonl"))
            .unwrap()
            .space()
            .clone()
    };
    assert_eq!(space_of(&listed), space_of(&bare));
    assert_eq!(space_of(&listed).defaults(), vec![10, 20, 15]);
}

#[test]
fn a_missing_file_is_named() {
    let err = TraceReader::open(Path::new("/nonexistent/t.jsonl"))
        .err()
        .unwrap()
        .to_string();
    assert!(err.starts_with("/nonexistent/t.jsonl: "), "{err}");
}
