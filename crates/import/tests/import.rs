//! The importer on small hand-made inputs: quiet leaves, skip reasons, PGN oddities.

use std::path::PathBuf;
use tempfile::TempDir;
use texel_data::{parse_line, Label, LabelFormat, Outcome};
use texel_import::{import_epd, import_pgn, Duplicates, ImportError, ImportOptions, ImportStats};

/// The statistics of an import, also when it kept nothing (an error that carries them).
fn stats_of(result: Result<ImportStats, ImportError>) -> ImportStats {
    match result {
        Ok(stats) => stats,
        Err(ImportError::NothingKept(stats)) => *stats,
        Err(e) => panic!("{e}"),
    }
}

fn temp(dir: &TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn epd_positions_become_their_quiet_leaves() {
    let dir = tempfile::tempdir().unwrap();
    let input = temp(
        &dir,
        "in.epd",
        "4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1 [0.0]\n\
         4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1 [0.0]\n\
         4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 [1.0]\n\
         4k3/8/8/8/8/8/4r3/4K3 w - - 0 1 [0.0]\n\
         nonsense [1.0]\n",
    );
    let out = input.with_file_name("epd-out.epd");
    // One line in five is bad: refused by default (more than 1 %), counted when allowed.
    let refused = import_epd(&input, &out, &ImportOptions::default(), &|_| {}).unwrap_err();
    assert!(
        matches!(
            refused,
            ImportError::TooManyBad {
                bad: 1,
                lines: 5,
                ..
            }
        ),
        "{refused}"
    );
    assert!(!out.exists(), "nothing written");
    let allowed = ImportOptions {
        allow_bad: true,
        ..ImportOptions::default()
    };
    let stats = import_epd(&input, &out, &allowed, &|_| {}).unwrap();
    assert_eq!((stats.considered, stats.kept), (5, 2), "{stats}");
    assert_eq!(stats.skipped.get("duplicate"), Some(&1));
    assert_eq!(
        stats.skipped.get("in check"),
        Some(&1),
        "the rook checks the white king"
    );
    assert_eq!(stats.skipped.get("malformed FEN"), Some(&1));
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // The hanging queen is taken: the leaf has no queen, black to move, label kept.
    assert!(
        lines[0].starts_with("4k3/8/8/3P4/8/8/8/4K3 b - -"),
        "{}",
        lines[0]
    );
    assert!(lines[0].ends_with("[0.0]"));
    // Already quiet: unchanged.
    assert!(lines[1].starts_with("4k3/8/8/8/8/8/4P3/4K3 w - -"));
    // Every output line loads back as labelled data.
    for l in &lines {
        parse_line(l, Some(LabelFormat::Bracket), false).unwrap();
    }
}

#[test]
fn labels_that_are_scores_operands_or_glued_are_read_right() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.epd");
    let options = ImportOptions {
        allow_bad: true,
        ..ImportOptions::default()
    };
    // Plain numbers, some far outside 0 to 1: centipawns, so 0 and 1 are too. Refused whole.
    let scores = temp(
        &dir,
        "scores.epd",
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 35
         4k3/8/8/8/8/8/3P4/4K3 w - - 0 1 1
         4k3/8/8/8/8/8/2P5/4K3 w - - 0 1 0
         4k3/8/8/8/8/8/1P6/4K3 w - - 0 1 -120
",
    );
    let refused = |file: &std::path::Path| {
        let err = import_epd(file, &out, &options, &|_| {}).unwrap_err();
        let two = matches!(
            err,
            ImportError::ScoreLabels {
                scores: 2,
                whole_numbers: 2,
                ..
            }
        );
        assert!(two, "{err}");
        assert!(!out.exists(), "nothing written");
    };
    refused(&scores);
    // The same centipawns in brackets (`[35]`): refused whole too, never its [0] and [1]
    // kept as results.
    let brackets = temp(
        &dir,
        "brackets.epd",
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 [35]
         4k3/8/8/8/8/8/3P4/4K3 w - - 0 1 [1]
         4k3/8/8/8/8/8/2P5/4K3 w - - 0 1 [0]
         4k3/8/8/8/8/8/1P6/4K3 w - - 0 1 [-120]
",
    );
    refused(&brackets);
    // An opcode's operand (`ce 1;`) is no label; a label glued to the move number keeps it.
    let epd = temp(
        &dir,
        "epd.epd",
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 ce 1;
         4k3/8/8/8/8/8/3P4/4K3 b - - 3 36; 0.0
",
    );
    let stats = import_epd(&epd, &out, &options, &|_| {}).unwrap();
    assert_eq!(stats.kept, 1, "{stats}");
    assert_eq!(stats.skipped.get("missing or unknown label"), Some(&1));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("b - - 3 36 ") && text.contains("[0.0]"),
        "{text}"
    );
}

#[test]
fn pgn_oddities_are_counted_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let game = |result: &str, moves: &str| {
        format!("[Event \"t\"]\n[Result \"{result}\"]\n\n{moves} {result}\n\n")
    };
    let long = "1. e4 {+0.30/10} e5 {+0.25/10} 2. Nf3 {+0.3/10} Nc6 {+0.4/10} 3. Bb5 {+0.4/11} $1 a6 \
        {[%eval 0.35] [%clk 0:01:00]} (3... Nf6 4. O-O) 4. Ba4 {+0.3/9} Nf6 {+0.3/9} 5. O-O {+0.3/9} Be7 \
        {+0.3/9} 6. Re1 {+0.3/9} b5 {+0.3/9} 7. Bb3 {+0.3/9} d6 {+0.3/9} 8. c3 {+0.3/9} O-O {+0.3/9} \
        9. h3 {+0.3/9} Nb8 {+0.3/9} 10. d4 {+0.3/9} Nbd7 {+0.3/9} 11. c4 {+0.3/9} c6 {+0.3/9} \
        12. cxb5 {+0.3/9} axb5 {+0.3/9} 13. Nc3 {+0.3/9} Bb7 {+0.3/9}";
    let mut text = String::new();
    text += &game("1/2-1/2", long);
    text += &game("*", long);
    text += &game("1-0", "1. e4 e5 2. Qh5 Ke7 3. Qxe5#");
    text += &game("1-0", "1. e4 e5 2. Ke3 Nc6");
    text += &game("1/2-1/2", "1. e4 -- 2. d4 d5");
    text += "[Event \"f\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n[Result \"1/2-1/2\"]\n\n1. e4 Kd7 2. e5 Ke6 3. Kf2 Kxe5 1/2-1/2\n\n";
    text += "garbage between games %%% \n\n";
    text += &game("0-1", "1. e4 e5 2. Nf3 Nc\u{e9}6 3. Bb5");
    text += "[Event \"fen\"]\n[FEN \"not a fen\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n";
    text += "[Event \"disagree\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 0-1\n\n";
    text += "[Event \"cut\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf";
    // Latin-1 é: not UTF-8.
    let bytes = text.replace('\u{e9}', "\u{1}").into_bytes();
    let bytes: Vec<u8> = bytes
        .iter()
        .map(|&b| if b == 1 { 0xe9 } else { b })
        .collect();
    let line_of =
        |needle: &str| 1 + text[..text.find(needle).unwrap()].matches('\n').count() as u64;
    let input = temp(&dir, "in.pgn", "");
    std::fs::write(&input, &bytes).unwrap();
    let out = input.with_file_name("pgn-out.epd");
    let options = ImportOptions {
        skip_plies: 4,
        gap: 4,
        per_game: 3,
        ..ImportOptions::default()
    };
    let stats = import_pgn(&input, &out, &options, &|_| {}).unwrap();
    let skipped = |r: &str| stats.games_skipped.get(r).map_or(0, |x| x.0);
    // The `*` game and the garbage (read as a game without a result) are unfinished; the
    // illegal king move, the null move and the non-UTF-8 move make three illegal games; the
    // bad FEN tag is reported; the game whose text stops in a move was cut short.
    assert_eq!(stats.games, 11, "{stats}");
    let disagree = "its Result tag and the result after its moves disagree";
    assert_eq!(skipped(disagree), 1, "{stats}");
    assert_eq!(
        stats.games_skipped[disagree].1,
        vec![line_of("[Event \"disagree\"]")]
    );
    assert_eq!(skipped("unfinished"), 2, "{stats}");
    assert_eq!(skipped("illegal move"), 3, "{stats}");
    assert_eq!(skipped("bad FEN tag"), 1, "{stats}");
    assert_eq!(
        skipped("cut short (no result after the moves)"),
        1,
        "{stats}"
    );
    // Skipped games are reported by the line they start on.
    let lines = |r: &str| stats.games_skipped[r].1.clone();
    let games: Vec<usize> = text.match_indices("[Event").map(|(i, _)| i).collect();
    let start = |g: usize| 1 + text[..games[g]].matches('\n').count() as u64;
    assert_eq!(lines("unfinished"), vec![start(1), line_of("garbage")]);
    assert_eq!(lines("illegal move"), vec![start(3), start(4), start(6)]);
    assert_eq!(lines("bad FEN tag"), vec![line_of("[Event \"fen\"]")]);
    assert_eq!(
        lines("cut short (no result after the moves)"),
        vec![line_of("[Event \"cut\"]")]
    );
    assert!(stats
        .to_string()
        .contains(&format!("first at line {}", start(1))));
    assert!(
        stats.kept >= 1,
        "the drawn Ruy Lopez gives positions: {stats}"
    );
    for l in std::fs::read_to_string(&out).unwrap().lines() {
        let (p, _) = parse_line(l, Some(LabelFormat::Bracket), false).unwrap();
        assert_eq!(p.label, Outcome::Draw.into());
    }
    let json = stats.to_json();
    assert!(json.contains("\"positions_kept\""));
    let first = format!("\"first_lines\": [{}, {}]", start(1), line_of("garbage"));
    assert!(json.contains(&first), "{json}");
}

#[test]
fn an_import_that_keeps_nothing_is_an_error_and_leaves_the_output_alone() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.epd");
    std::fs::write(&out, "an earlier result\n").unwrap();
    let pgn_text = commented_game("1/2-1/2", Some("0.00"));
    let cases = [
        ("empty.epd", String::new(), true),
        ("garbage.epd", "hello\nworld\n".to_string(), true),
        ("pgn-as-epd.epd", pgn_text, true),
        (
            "epd-as-pgn.pgn",
            "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 [1.0]\n".to_string(),
            false,
        ),
    ];
    for (name, text, as_epd) in cases {
        let input = temp(&dir, name, &text);
        let result = if as_epd {
            import_epd(&input, &out, &ImportOptions::default(), &|_| {})
        } else {
            import_pgn(&input, &out, &ImportOptions::default(), &|_| {})
        };
        let err = result.unwrap_err();
        assert!(matches!(err, ImportError::NothingKept(_)), "{name}: {err}");
        assert!(err.to_string().contains("positions considered"), "{err}");
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "an earlier result\n"
        );
    }
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(
        !names.iter().any(|n| n.to_string_lossy().contains(".tmp")),
        "{names:?}"
    );
}

#[test]
fn mixed_label_formats_and_a_byte_order_mark_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("\u{feff}");
    for i in 0..24 {
        let king = ["k7", "1k6", "2k5", "3k4", "4k3", "5k2", "6k1", "7k"][i / 3];
        let pawn = ["4P3", "3P4", "2P5"][i % 3];
        let label = ["[1.0]", "c9 \"1/2-1/2\";", "0-1"][i % 3];
        text.push_str(&format!("{king}/8/8/8/8/8/{pawn}/4K3 w - - {label}\n"));
    }
    let input = temp(&dir, "mixed.epd", &text);
    let out = dir.path().join("out.epd");
    let stats = import_epd(&input, &out, &ImportOptions::default(), &|_| {}).unwrap();
    assert_eq!((stats.considered, stats.skipped.len()), (24, 0), "{stats}");
    assert_eq!(stats.results, [8, 8, 8], "{stats}");
    let pgn = temp(
        &dir,
        "bom.pgn",
        &format!("\u{feff}{}", commented_game("1-0", None)),
    );
    let stats = import_pgn(&pgn, &out, &ImportOptions::default(), &|_| {}).unwrap();
    assert_eq!(stats.games_skipped.len(), 0, "{stats}");
}

#[test]
fn temporary_files_of_a_killed_import_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.epd");
    // No process has an id this large; a file of a running process is kept.
    let stale = dir.path().join("out.epd.tmp4294967295-0");
    let live = dir
        .path()
        .join(format!("out.epd.tmp{}-99", std::process::id()));
    let unrelated = dir.path().join("out.epd.tmpnotes");
    for p in [&stale, &live, &unrelated] {
        std::fs::write(p, "").unwrap();
    }
    let input = temp(&dir, "in.epd", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 [1.0]\n");
    import_epd(&input, &out, &ImportOptions::default(), &|_| {}).unwrap();
    assert!(!stale.exists() && live.exists() && unrelated.exists());
}

#[test]
fn an_unreadable_input_or_unwritable_output_is_an_error_without_output() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("texel-no-such.pgn");
    let out = dir
        .path()
        .join(format!("texel-import-none-{}.epd", std::process::id()));
    assert!(import_pgn(&missing, &out, &ImportOptions::default(), &|_| {}).is_err());
    assert!(!out.exists());
    let input = temp(&dir, "ok.epd", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 [1.0]\n");
    let bad_out = dir.path().join("texel-no-such-dir/out.epd");
    let err = import_epd(&input, &bad_out, &ImportOptions::default(), &|_| {}).unwrap_err();
    assert!(err.to_string().contains("texel-no-such-dir"));
}

#[test]
fn compressed_pgn_imports_like_plain_pgn() {
    let dir = tempfile::tempdir().unwrap();
    use std::io::Write;
    let text = "[Result \"1/2-1/2\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 1/2-1/2\n";
    let plain = temp(&dir, "plain.pgn", text);
    let gz = plain.with_file_name("games.pgn.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::default(),
    );
    enc.write_all(text.as_bytes()).unwrap();
    enc.finish().unwrap();
    let zst = plain.with_file_name("games.pgn.zst");
    std::fs::write(&zst, zstd::encode_all(text.as_bytes(), 3).unwrap()).unwrap();
    let options = ImportOptions {
        skip_plies: 2,
        gap: 2,
        ..ImportOptions::default()
    };
    let import = |input: &PathBuf| {
        let out = input.with_extension("out.epd");
        let stats = import_pgn(input, &out, &options, &|_| {}).unwrap();
        (stats, std::fs::read_to_string(out).unwrap())
    };
    let (a, text_a) = import(&plain);
    assert_eq!(a.games, 1);
    assert!(a.kept > 0);
    for compressed in [&gz, &zst] {
        let (b, text_b) = import(compressed);
        assert_eq!(a, b, "{}", compressed.display());
        assert_eq!(text_a, text_b);
    }
}

#[test]
fn duplicates_are_dropped_averaged_or_kept() {
    let dir = tempfile::tempdir().unwrap();
    // The first three lines are one position after quiescing (the queen is taken).
    let input = temp(
        &dir,
        "dups.epd",
        "4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1 [1.0]\n\
         4k3/8/8/3P4/8/8/8/4K3 b - - 0 1 [0.5]\n\
         4k3/8/8/3q4/4P3/8/8/4K3 w - - 3 9 [1.0]\n\
         4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 [0.25]\n",
    );
    let run = |duplicates, format| {
        let out = input.with_file_name(format!("dups-{duplicates:?}-{format:?}.epd"));
        let options = ImportOptions {
            duplicates,
            format,
            ..ImportOptions::default()
        };
        import_epd(&input, &out, &options, &|_| {}).map(|stats| {
            let text = std::fs::read_to_string(&out).unwrap();
            let labels: Vec<Label> = text
                .lines()
                .map(|l| parse_line(l, Some(format), false).unwrap().0.label)
                .collect();
            (stats, labels)
        })
    };
    let score = |x: f64| Label::from_score(x).unwrap();
    let (first, labels) = run(Duplicates::First, LabelFormat::Bracket).unwrap();
    assert_eq!(labels, vec![score(1.0), score(0.25)]);
    assert_eq!(first.skipped["duplicate"], 2);
    let (avg, labels) = run(Duplicates::Average, LabelFormat::Bracket).unwrap();
    assert_eq!(labels, vec![Label::mean(500, 3), score(0.25)]);
    assert_eq!(labels[0].to_string(), "0.835");
    assert_eq!((avg.kept, avg.averaged, avg.results), (2, 2, [0, 0, 0]));
    assert_eq!(avg.skipped["duplicate (label averaged)"], 2);
    let (_, labels) = run(Duplicates::Keep, LabelFormat::Bracket).unwrap();
    assert_eq!(labels.len(), 4);
    // A format that writes only game results can neither average nor write `0.25`.
    let err = run(Duplicates::Average, LabelFormat::C9).unwrap_err();
    assert!(err.to_string().contains("fractions"), "{err}");
    assert!(!input.with_file_name("dups-Average-C9.epd").exists());
    let (c9, labels) = run(Duplicates::First, LabelFormat::C9).unwrap();
    assert_eq!(labels, vec![score(1.0)]);
    assert_eq!(c9.skipped["label is not a game result (output format)"], 1);
}

/// A Ruy Lopez of 26 plies, every move commented with `score` (white's view, pawns).
fn commented_game(result: &str, score: Option<&str>) -> String {
    let moves = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7 c4 c6 \
                 cxb5 axb5 Nc3 Bb7";
    let mut text = format!("[Result \"{result}\"]\n\n");
    for (i, m) in moves.split_whitespace().enumerate() {
        if i % 2 == 0 {
            text += &format!("{}. ", i / 2 + 1);
        }
        text += m;
        if let Some(s) = score {
            text += &format!(" {{{s}/12}}");
        }
        text += " ";
    }
    text + result + "\n\n"
}

#[test]
fn cutechess_scores_in_the_movers_view_are_read_as_such() {
    // White wins; each engine scores its own side (+1.50 after White's moves, -1.50 after
    // Black's, as cutechess, fastchess and OpenBench write them), with the move's time.
    let dir = tempfile::tempdir().unwrap();
    let text = commented_game("1-0", Some("+1.50"));
    let mut black = false;
    let text: String = text
        .split_inclusive("/12}")
        .map(|part| {
            let turned = if black {
                part.replace("{+1.50/12}", "{-1.50/12 0.098s}")
            } else {
                part.replace("{+1.50/12}", "{+1.50/12 0.101s}")
            };
            black = !black;
            turned
        })
        .collect();
    let input = temp(&dir, "cutechess.pgn", &text);
    let options = ImportOptions {
        skip_plies: 4,
        gap: 3,
        per_game: 4,
        score_from_pgn: true,
        win_min_cp: Some(texel_import::WRITE_UP_WIN_MIN),
        ..ImportOptions::default()
    };
    let out = input.with_extension("epd");
    let mover = ImportOptions {
        pgn_scores: texel_import::ScoreView::Mover,
        ..options.clone()
    };
    let kept = stats_of(import_pgn(&input, &out, &mover, &|_| {}));
    assert!((2..=4).contains(&kept.kept), "{kept}");
    // Each line carries the engine's own score of its position (`ce`, the side to move's
    // view), which reads back as White's +1.50.
    let written = std::fs::read_to_string(&out).unwrap();
    for line in written.lines() {
        let (labelled, _) = texel_data::parse_line(line, None, false).unwrap();
        assert_eq!(labelled.score, Some(150), "{line}");
    }
    // Read as White's view, Black's -1.50 says Black is ahead: the winner filter drops all.
    let misread = stats_of(import_pgn(&input, &out, &options, &|_| {}));
    assert_eq!(misread.kept, 0, "{misread}");
    assert!(misread.skipped["winner filter"] > 0, "{misread}");
}

#[test]
fn result_and_score_filters_keep_what_the_write_up_keeps() {
    let dir = tempfile::tempdir().unwrap();
    let options = ImportOptions {
        skip_plies: 4,
        gap: 3,
        per_game: 4,
        score_from_pgn: true,
        win_min_cp: Some(texel_import::WRITE_UP_WIN_MIN),
        draw_max_cp: Some(texel_import::WRITE_UP_DRAW_MAX),
        ..ImportOptions::default()
    };
    // By default nothing is filtered by its result: the game the filter drops is kept.
    let unfiltered = ImportOptions {
        win_min_cp: None,
        draw_max_cp: None,
        ..options.clone()
    };
    let losing_winner = temp(
        &dir,
        "unfiltered.pgn",
        &commented_game("1-0", Some("+0.50")),
    );
    let out = losing_winner.with_extension("epd");
    let kept = stats_of(import_pgn(&losing_winner, &out, &unfiltered, &|_| {}));
    assert!(
        (2..=4).contains(&kept.kept) && kept.skipped.is_empty(),
        "{kept}"
    );
    assert_eq!(ImportOptions::default().win_min_cp, None);
    let cases = [
        ("1-0", Some("+0.50"), "winner filter"),
        ("1-0", Some("+1.50"), ""),
        ("0-1", Some("+1.50"), "winner filter"),
        ("0-1", Some("-1.50"), ""),
        ("1/2-1/2", Some("+2.00"), "draw filter"),
        ("1/2-1/2", Some("-1.00"), ""),
        ("1-0", Some("+12.00"), "game already decided"),
        ("1-0", None, "no score comment"),
    ];
    for (i, (result, score, reason)) in cases.into_iter().enumerate() {
        let input = temp(
            &dir,
            &format!("filter{i}.pgn"),
            &commented_game(result, score),
        );
        let out = input.with_extension("epd");
        let stats = stats_of(import_pgn(&input, &out, &options, &|_| {}));
        let case = format!("{result} {score:?}: {stats}");
        if reason.is_empty() {
            // Kept: at most 4, 3 plies apart, from plies 5 to 26.
            assert!((2..=4).contains(&stats.kept), "{case}");
            assert!(stats.skipped.is_empty(), "{case}");
            let text = std::fs::read_to_string(&out).unwrap();
            let label = Label::from(texel_data::Outcome::WhiteWins);
            let want = if result == "1-0" { Some(label) } else { None };
            for l in text.lines() {
                let got = parse_line(l, None, false).unwrap().0.label;
                assert!(want.is_none_or(|w| w == got), "{case}");
            }
        } else {
            assert_eq!(stats.kept, 0, "{case}");
            assert!(stats.skipped[reason] > 0, "{case}");
        }
    }
    // Texel's own qsearch score judges the positions without `--score-from-pgn`: the Ruy
    // Lopez is about level for the established terms (the untuned candidate families are
    // left out), so a draw keeps more positions than a win.
    let own = ImportOptions {
        score_from_pgn: false,
        params: std::sync::Arc::new(texel_eval::Params::default().without_candidates()),
        ..options.clone()
    };
    let draw = temp(&dir, "own-draw.pgn", &commented_game("1/2-1/2", None));
    let drawn = import_pgn(&draw, &draw.with_extension("epd"), &own, &|_| {}).unwrap();
    assert!(drawn.kept >= 2, "{drawn}");
    let win = temp(&dir, "own-win.pgn", &commented_game("1-0", None));
    let won = import_pgn(&win, &win.with_extension("epd"), &own, &|_| {}).unwrap();
    assert!(won.kept < drawn.kept, "{won}");
    assert!(won.skipped["winner filter"] > 0, "{won}");
}

#[test]
fn games_shorter_than_the_book_are_skipped_and_per_game_limits_hold() {
    let dir = tempfile::tempdir().unwrap();
    let input = temp(&dir, "short.pgn", &commented_game("1/2-1/2", Some("0.00")));
    let run = |skip_plies, per_game, gap| {
        let options = ImportOptions {
            skip_plies,
            per_game,
            gap,
            score_from_pgn: true,
            ..ImportOptions::default()
        };
        stats_of(import_pgn(
            &input,
            &input.with_extension("epd"),
            &options,
            &|_| {},
        ))
    };
    assert_eq!(run(26, 5, 1).games_skipped["too short"].0, 1);
    assert_eq!(run(0, 1, 1).considered, 1);
    // 26 plies, 10 apart: at most 3 positions however they are drawn.
    assert!(run(0, 100, 10).considered <= 3);
    // 1 apart: every ply after the book is considered.
    assert_eq!(run(6, 100, 1).considered, 20);
}

#[test]
fn sampling_follows_the_seed_not_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let input = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/games.pgn");
    let run = |threads: usize, seed: u64| {
        let out = dir.path().join(format!(
            "texel-import-{}-seed{seed}-t{threads}.epd",
            std::process::id()
        ));
        let options = ImportOptions {
            seed,
            ..ImportOptions::default()
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let stats = pool
            .install(|| import_pgn(&input, &out, &options, &|_| {}))
            .unwrap();
        (stats, std::fs::read_to_string(&out).unwrap())
    };
    let (one, text_one) = run(1, 7);
    let (two, text_two) = run(2, 7);
    assert_eq!(one.games, 30);
    assert!(one.kept > 20, "{one}");
    assert_eq!((&one, &text_one), (&two, &text_two));
    let (_, other_seed) = run(2, 8);
    assert_ne!(text_one, other_seed);
}

#[test]
fn games_cut_short_or_of_another_variant_are_skipped_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let whole = include_str!("games.pgn");
    let first = whole.split("\n[Event ").next().unwrap().to_string() + "\n";
    let moves = first.split("\n\n").nth(1).unwrap();
    // The same game twice more: once as a chess variant, once cut after a move by a
    // writer that was killed.
    let variant = first.replacen("[Site", "[Variant \"Atomic\"]\n[Site", 1);
    // Once lost on time: the result says nothing about the positions.
    let on_time = first.replacen(
        "[Termination \"adjudication\"]",
        "[Termination \"black loses on time\"]",
        1,
    );
    assert!(on_time != first, "the game has a Termination tag");
    assert!(moves.contains(" {"), "the game has score comments");
    let cut = &first[..first.find(" {").unwrap()];
    let input = temp(
        &dir,
        "odd.pgn",
        &format!("{first}\n{variant}\n{on_time}\n{cut}\n"),
    );
    let out = dir.path().join("out.epd");
    let stats = stats_of(import_pgn(&input, &out, &ImportOptions::default(), &|_| {}));
    assert_eq!(stats.games, 4, "{stats}");
    let skipped = |r: &str| stats.games_skipped.get(r).map_or(0, |x| x.0);
    assert_eq!(skipped("not standard chess ([Variant] tag)"), 1, "{stats}");
    let off = "lost off the board (time, crash, illegal move: [Termination] tag)";
    assert_eq!(skipped(off), 1, "{stats}");
    assert_eq!(
        skipped("cut short (no result after the moves)"),
        1,
        "{stats}"
    );
    let alone = temp(&dir, "first.pgn", &first);
    let alone_stats = stats_of(import_pgn(&alone, &out, &ImportOptions::default(), &|_| {}));
    assert_eq!(
        stats.kept, alone_stats.kept,
        "only the whole standard game counts"
    );
}

#[test]
fn every_position_of_a_game_carries_the_games_number_and_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/games.pgn");
    let out = dir.path().join("quiet.epd");
    let stats = import_pgn(&pgn, &out, &ImportOptions::default(), &|_| {}).unwrap();
    let games_of = |path: &PathBuf| -> Vec<u64> {
        let text = std::fs::read_to_string(path).unwrap();
        let lines = text.lines().map(|l| parse_line(l, None, false).unwrap().0);
        lines.map(|l| l.game.expect("a game id")).collect()
    };
    let games = games_of(&out);
    assert_eq!(games.len() as u64, stats.kept);
    // Numbers of games in the file, from 1, in the file's order, a game's positions together.
    assert!(
        games.iter().all(|&g| (1..=stats.games).contains(&g)),
        "{games:?}"
    );
    assert!(games.windows(2).all(|w| w[0] <= w[1]), "{games:?}");
    assert!(
        games.last() > games.first(),
        "more than one game: {games:?}"
    );
    // Imported again as EPD, every position keeps its game.
    let again = dir.path().join("again.epd");
    import_epd(&out, &again, &ImportOptions::default(), &|_| {}).unwrap();
    let kept = games_of(&again);
    assert!(!kept.is_empty() && kept.iter().all(|g| games.contains(g)));
}

#[test]
fn a_game_cut_short_inside_its_moves_is_named_so() {
    let dir = tempfile::tempdir().unwrap();
    let text = "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n\n\
                [Event \"b\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 {cut inside a comment\n";
    let input = temp(&dir, "cut.pgn", text);
    let options = ImportOptions {
        skip_plies: 0,
        gap: 1,
        ..ImportOptions::default()
    };
    let stats = stats_of(import_pgn(
        &input,
        &input.with_extension("epd"),
        &options,
        &|_| {},
    ));
    let cut = &stats.games_skipped["a game cut short inside its moves"];
    assert_eq!((cut.0, cut.1.clone()), (1, vec![6]));
    assert!(!stats.games_skipped.contains_key("no game in the text"));
}
