//! Loading labelled files: formats, bad lines, the 1% rule, splits and file errors.

use std::path::PathBuf;
use texel_data::BadLine;
use texel_eval::Params;
use texel_tune::{load, LoadError, LoadOptions};

const GOOD_BRACKET: &str = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 [1.0]";
const GOOD_C9: &str = "4k3/8/8/8/8/8/4P3/4K3 b - - c9 \"1/2-1/2\";";

fn file(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("texel-load-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

fn lines(line: &str, n: usize) -> String {
    (0..n).map(|_| format!("{line}\n")).collect()
}

#[test]
fn files_with_different_formats_load_together() {
    let a = file("a.epd", &lines(GOOD_BRACKET, 10));
    let b = file("b.epd", &lines(GOOD_C9, 5));
    let (train, _, report) = load(
        &[a, b],
        &Params::default(),
        &LoadOptions::default(),
        &|_| {},
    )
    .unwrap();
    assert_eq!((train.len(), report.lines, report.bad_lines()), (15, 15, 0));
    let formats: Vec<String> = report
        .formats
        .iter()
        .map(|(_, f)| f.unwrap().to_string())
        .collect();
    assert_eq!(formats, vec!["[1.0]", "c9 \"1-0\";"]);
}

#[test]
fn bad_lines_are_counted_by_reason_with_line_numbers() {
    let mut text = lines(GOOD_BRACKET, 300);
    text.push_str("not a fen [1.0]\n\n# a comment\n");
    text.push_str("8/8/8/8/8/8/8/8 w - - 0 1 [0.5]\n");
    text.push_str("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\n");
    text.push_str("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 [7.0]\n");
    let path = file("bad.epd", &text);
    let err = load(
        std::slice::from_ref(&path),
        &Params::default(),
        &LoadOptions::default(),
        &|_| {},
    )
    .unwrap_err();
    let LoadError::TooManyBad { bad, lines, report } = err else {
        panic!("expected too many bad lines")
    };
    assert_eq!((bad, lines), (4, 304));
    let at = |r: BadLine| report.bad[&r].examples.clone();
    let name = path.display().to_string();
    assert_eq!(at(BadLine::MalformedFen), vec![format!("{name}:301")]);
    assert_eq!(at(BadLine::IllegalPosition), vec![format!("{name}:304")]);
    assert_eq!(at(BadLine::MissingLabel), vec![format!("{name}:305")]);
    assert_eq!(at(BadLine::UnknownLabel), vec![format!("{name}:306")]);
    let options = LoadOptions {
        allow_bad: true,
        ..Default::default()
    };
    let (train, _, report) = load(&[path], &Params::default(), &options, &|_| {}).unwrap();
    assert_eq!((train.len(), report.bad_lines()), (300, 4));
    assert!(report.to_string().contains("malformed FEN: 1 (first at"));
}

#[test]
fn one_percent_of_bad_lines_is_tolerated() {
    let mut text = lines(GOOD_BRACKET, 99);
    text.push_str("garbage\n");
    let (train, _, _) = load(
        &[file("one.epd", &text)],
        &Params::default(),
        &LoadOptions::default(),
        &|_| {},
    )
    .unwrap();
    assert_eq!(train.len(), 99);
}

#[test]
fn the_validation_split_is_deterministic() {
    let path = file("split.epd", &lines(GOOD_BRACKET, 2000));
    let options = LoadOptions {
        validation_per_mille: 100,
        ..Default::default()
    };
    let (t1, v1, _) = load(
        std::slice::from_ref(&path),
        &Params::default(),
        &options,
        &|_| {},
    )
    .unwrap();
    let (t2, v2, _) = load(&[path], &Params::default(), &options, &|_| {}).unwrap();
    assert_eq!((t1.len(), v1.len()), (t2.len(), v2.len()));
    assert!((150..250).contains(&v1.len()), "{}", v1.len());
}

#[test]
fn missing_empty_and_useless_files_are_clear_errors() {
    let missing = std::env::temp_dir().join("texel-no-such-file.epd");
    let err = load(
        &[missing],
        &Params::default(),
        &LoadOptions::default(),
        &|_| {},
    )
    .unwrap_err();
    assert!(err.to_string().contains("texel-no-such-file.epd"), "{err}");
    let empty = file("empty.epd", "");
    let err = load(
        &[empty],
        &Params::default(),
        &LoadOptions::default(),
        &|_| {},
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("no usable labelled position"),
        "{err}"
    );
    let useless = file("useless.epd", "hello\nworld\n");
    let options = LoadOptions {
        allow_bad: true,
        ..Default::default()
    };
    let err = load(&[useless], &Params::default(), &options, &|_| {}).unwrap_err();
    assert!(err.to_string().contains("malformed FEN: 2"), "{err}");
}

#[test]
fn side_to_move_labels_are_read_from_white() {
    let text = "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1 [1.0]\n";
    let options = LoadOptions {
        stm_labels: true,
        ..Default::default()
    };
    let (train, _, _) = load(
        &[file("stm.epd", text)],
        &Params::default(),
        &options,
        &|_| {},
    )
    .unwrap();
    // Black to move won: a white pawn up loses, so the error at a positive score is large.
    assert_eq!(train.len(), 1);
    let err = texel_tune::error::mean_error(&train, 1.0);
    assert!(err > 0.25, "{err}");
}
