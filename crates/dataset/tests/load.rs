//! Loading labelled files: formats, bad lines, the 1% rule, splits and file errors.

use std::path::PathBuf;
use tempfile::TempDir;
use texel_data::{BadLine, HeldOut};
use texel_dataset::{load, LoadError, LoadOptions};
use texel_eval::Params;

const GOOD_BRACKET: &str = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 [1.0]";
const GOOD_C9: &str = "4k3/8/8/8/8/8/4P3/4K3 b - - c9 \"1/2-1/2\";";

fn file(dir: &TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn lines(line: &str, n: usize) -> String {
    (0..n).map(|_| format!("{line}\n")).collect()
}

#[test]
fn files_with_different_formats_load_together() {
    let dir = tempfile::tempdir().unwrap();
    let a = file(&dir, "a.epd", &lines(GOOD_BRACKET, 10));
    let b = file(&dir, "b.epd", &lines(GOOD_C9, 5));
    let (train, _, report) = load(
        &[a, b],
        &Params::default(),
        &LoadOptions::default(),
        &|_| {},
    )
    .unwrap();
    assert_eq!((train.len(), report.lines, report.bad_lines()), (15, 15, 0));
    let formats: Vec<Vec<String>> = report
        .files
        .iter()
        .map(|f| f.formats.keys().map(ToString::to_string).collect())
        .collect();
    assert_eq!(formats, vec![vec!["[1.0]"], vec!["c9 \"1-0\";"]]);
}

#[test]
fn a_file_that_mixes_label_formats_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..300 {
        let line = match i % 3 {
            0 => GOOD_BRACKET.to_string(),
            1 => GOOD_C9.to_string(),
            _ => "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 0-1".to_string(),
        };
        text.push_str(&line);
        text.push('\n');
    }
    let path = file(&dir, "mixed.epd", &text);
    let (train, _, report) = load(
        &[path],
        &Params::default(),
        &LoadOptions::default(),
        &|_| {},
    )
    .unwrap();
    assert_eq!((train.len(), report.bad_lines()), (300, 0));
    assert_eq!(
        report.files[0]
            .formats
            .values()
            .copied()
            .collect::<Vec<_>>(),
        vec![100, 100, 100]
    );
    assert!(
        report.to_string().contains("mixed label formats"),
        "{report}"
    );
}

#[test]
fn compressed_files_and_a_byte_order_mark_load_like_plain_text() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let text = lines(GOOD_BRACKET, 20);
    let plain = file(&dir, "p.epd", &text);
    let bom = file(&dir, "bom.epd", &format!("\u{feff}{text}"));
    let gz = dir.path().join("p.epd.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(text.as_bytes()).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    let zst = dir.path().join("p.epd.zst");
    std::fs::write(&zst, zstd::encode_all(text.as_bytes(), 1).unwrap()).unwrap();
    let fingerprint = |p: &PathBuf| {
        let (t, _, r) = load(
            std::slice::from_ref(p),
            &Params::default(),
            &LoadOptions::default(),
            &|_| {},
        )
        .unwrap();
        assert_eq!((t.len(), r.bad_lines()), (20, 0), "{}", p.display());
        r.fingerprint
    };
    let want = fingerprint(&plain);
    for p in [bom, gz, zst] {
        assert_eq!(fingerprint(&p), want, "{}", p.display());
    }
    let other_label = file(&dir, "o.epd", &text.replacen("[1.0]", "[0.5]", 1));
    assert_ne!(
        fingerprint(&other_label),
        want,
        "a label is part of the fingerprint"
    );
}

#[test]
fn bad_lines_are_counted_by_reason_with_line_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = lines(GOOD_BRACKET, 300);
    text.push_str("not a fen [1.0]\n\n# a comment\n");
    text.push_str("8/8/8/8/8/8/8/8 w - - 0 1 [0.5]\n");
    text.push_str("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\n");
    text.push_str("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 [7.0]\n");
    text.push_str("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 stray words [1.0]\n");
    let path = file(&dir, "bad.epd", &text);
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
    assert_eq!((bad, lines), (5, 305));
    let at = |r: BadLine| report.bad[&r].examples.clone();
    let name = path.display().to_string();
    assert_eq!(at(BadLine::MalformedFen), vec![format!("{name}:301")]);
    assert_eq!(at(BadLine::IllegalPosition), vec![format!("{name}:304")]);
    assert_eq!(at(BadLine::MissingLabel), vec![format!("{name}:305")]);
    assert_eq!(at(BadLine::ScoreLabel), vec![format!("{name}:306")]);
    assert_eq!(at(BadLine::UnreadText), vec![format!("{name}:307")]);
    let options = LoadOptions {
        allow_bad: true,
        ..Default::default()
    };
    let (train, _, report) = load(&[path], &Params::default(), &options, &|_| {}).unwrap();
    assert_eq!((train.len(), report.bad_lines()), (300, 5));
    assert!(report.to_string().contains("malformed FEN: 1 (first at"));
}

#[test]
fn one_percent_of_bad_lines_is_tolerated() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = lines(GOOD_BRACKET, 99);
    text.push_str("garbage\n");
    let (train, _, _) = load(
        &[file(&dir, "one.epd", &text)],
        &Params::default(),
        &LoadOptions::default(),
        &|_| {},
    )
    .unwrap();
    assert_eq!(train.len(), 99);
}

#[test]
fn the_validation_split_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "split.epd", &lines(GOOD_BRACKET, 2000));
    let options = LoadOptions {
        held_out: HeldOut::share(100),
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
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("texel-no-such-file.epd");
    let err = load(
        &[missing],
        &Params::default(),
        &LoadOptions::default(),
        &|_| {},
    )
    .unwrap_err();
    assert!(err.to_string().contains("texel-no-such-file.epd"), "{err}");
    let empty = file(&dir, "empty.epd", "");
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
    let useless = file(&dir, "useless.epd", "hello\nworld\n");
    let options = LoadOptions {
        allow_bad: true,
        ..Default::default()
    };
    let err = load(&[useless], &Params::default(), &options, &|_| {}).unwrap_err();
    assert!(err.to_string().contains("malformed FEN: 2"), "{err}");
}

#[test]
fn side_to_move_labels_are_read_from_white() {
    let dir = tempfile::tempdir().unwrap();
    let text = "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1 [1.0]\n";
    let options = LoadOptions {
        labels: texel_data::LabelReading {
            stm: true,
            format: None,
        },
        ..Default::default()
    };
    let (train, _, _) = load(
        &[file(&dir, "stm.epd", text)],
        &Params::default(),
        &options,
        &|_| {},
    )
    .unwrap();
    // Black to move won: a white pawn up loses, so the error at a positive score is large.
    assert_eq!(train.len(), 1);
    let err = texel_solve::error::mean_error(&train, 1.0);
    assert!(err > 0.25, "{err}");
}

#[test]
fn support_counts_the_positions_a_value_counts_in() {
    let dir = tempfile::tempdir().unwrap();
    // Two positions with a white pawn, one with a white knight and no pawn.
    let text = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 [1.0]\n4k3/8/8/8/8/8/3P4/4K3 w - - 0 1 [1.0]\n4k3/8/8/8/8/8/4N3/4K3 w - - 0 1 [0.5]\n";
    let (train, _, _) = load(
        &[file(&dir, "s.epd", text)],
        &Params::default(),
        &LoadOptions::default(),
        &|_| {},
    )
    .unwrap();
    let slots = |t: texel_eval::TermId| t.info().flat_range().collect::<Vec<_>>();
    use texel_eval::params::Handle as _;
    let pawn = texel_eval::table::PIECE_VALUE.at(0).flat_index();
    let knight = texel_eval::table::PIECE_VALUE.at(1).flat_index();
    assert_eq!(train.support(&[pawn]), 2);
    assert_eq!(train.support(&[knight]), 1);
    assert_eq!(train.support(&[pawn, knight]), 3);
    assert_eq!(
        train.support(&slots(texel_eval::table::BISHOP_PAIR.term())),
        0
    );
}

#[test]
fn load_steps_are_timed_on_good_lines_up_to_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{}not a position [1.0]\n{}",
        lines(GOOD_BRACKET, 3),
        lines(GOOD_C9, 4)
    );
    let path = file(&dir, "steps.epd", &text);
    let params = Params::default();
    let all = texel_dataset::load_phases(&path, &params, 100).unwrap();
    assert_eq!(all.positions, 7, "the bad line is skipped");
    assert!(all.trace > std::time::Duration::ZERO);
    let some = texel_dataset::load_phases(&path, &params, 5).unwrap();
    assert_eq!(some.positions, 5);
    let err = texel_dataset::load_phases(&dir.path().join("missing.epd"), &params, 5).unwrap_err();
    assert!(matches!(err, LoadError::Io { .. }), "{err}");
}

#[test]
fn scores_mix_into_the_targets_of_the_positions_that_carry_one() {
    use texel_dataset::{blended_target, Blend};
    use texel_solve::Model;
    use texel_tune::Lambda;
    let dir = tempfile::tempdir().unwrap();
    let white = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1";
    let black = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    // White's view: +120, +80 (black to move, −80 its own), none.
    let text = format!("{white} ce 120; [1.0]\n{black} ce -80; [0.0]\n{white} [0.5]\n");
    let path = file(&dir, "scored.epd", &text);
    let blend = Blend {
        lambda: Lambda::Given(0.25),
        k: Some(1.0),
    };
    let options = LoadOptions {
        blend,
        ..LoadOptions::default()
    };
    let (train, _, report) = load(
        std::slice::from_ref(&path),
        &Params::default(),
        &options,
        &|_| {},
    )
    .unwrap();
    let steps = |x: f64| (x * 200.0).round() / 200.0;
    let want = [
        steps(blended_target(1.0, 120, 0.25, 1.0)),
        steps(blended_target(0.0, 80, 0.25, 1.0)),
        0.5,
    ];
    // By hand: 0.25 · 1 + 0.75 / (1 + 10^(−120/400)) = 0.25 + 0.75 · 0.6661 = 0.7496.
    assert!((want[0] - 0.75).abs() < 1e-9, "{want:?}");
    let got: Vec<f64> = (0..3).map(|i| train.target(i)).collect();
    assert_eq!(got, want);
    assert_eq!(report.blended, Some((2, 1.0)));
    let (_, _, plain) = load(
        std::slice::from_ref(&path),
        &Params::default(),
        &LoadOptions::default(),
        &|_| {},
    )
    .unwrap();
    assert_ne!(
        plain.fingerprint, report.fingerprint,
        "other targets, other data"
    );
    // By default (auto) a file where a position lacks a score tunes on the results...
    assert_eq!(plain.blended, None);
    let note = plain.targets.clone().unwrap();
    assert!(
        note.contains("results alone") && note.contains("2 of 3"),
        "{note}"
    );
    let results = LoadOptions {
        blend: Blend {
            lambda: Lambda::RESULTS,
            k: None,
        },
        ..LoadOptions::default()
    };
    let given = load(
        std::slice::from_ref(&path),
        &Params::default(),
        &results,
        &|_| {},
    );
    assert_eq!(given.unwrap().2.fingerprint, plain.fingerprint);
    // ...and one where every position has one mixes them in at 0.25.
    let all = file(
        &dir,
        "all.epd",
        &format!("{white} ce 120; [1.0]\n{black} ce -80; [0.0]\n"),
    );
    let auto = LoadOptions {
        blend: Blend {
            k: Some(1.0),
            ..Blend::default()
        },
        ..LoadOptions::default()
    };
    let (train, _, report) = load(&[all], &Params::default(), &auto, &|_| {}).unwrap();
    assert_eq!(report.blended, Some((2, 1.0)));
    assert_eq!(train.target(0), want[0], "0.25 · result + 0.75 · σ(score)");
    // Without a score anywhere, a blend is refused.
    let bare = file(&dir, "bare.epd", &format!("{white} [1.0]\n"));
    let err = load(&[bare], &Params::default(), &options, &|_| {}).unwrap_err();
    assert!(matches!(err, LoadError::NoScores), "{err}");
    // Scores that no K turns into win probabilities (60 centipawns each, the results decided):
    // λ auto tunes on the results and says why; a λ given below 1 is refused.
    let tiny = file(
        &dir,
        "tiny.epd",
        &format!("{white} ce 60; [1.0]\n{black} ce 60; [0.0]\n").repeat(50),
    );
    let fitted = LoadOptions::default();
    let (_, _, report) = load(
        std::slice::from_ref(&tiny),
        &Params::default(),
        &fitted,
        &|_| {},
    )
    .unwrap();
    assert_eq!(report.blended, None);
    let note = report.targets.unwrap();
    assert!(
        note.contains("results alone") && note.contains("no K"),
        "{note}"
    );
    let quarter = LoadOptions {
        blend: Blend {
            lambda: Lambda::Given(0.25),
            k: None,
        },
        ..LoadOptions::default()
    };
    let err = load(&[tiny], &Params::default(), &quarter, &|_| {}).unwrap_err();
    assert!(matches!(err, LoadError::BlendK(_)), "{err}");
}
