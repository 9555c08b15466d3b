//! The importer on small hand-made inputs: quiet leaves, skip reasons, PGN oddities.

use std::path::PathBuf;
use texel_data::{import_epd, import_pgn, parse_line, ImportOptions, LabelFormat};

fn temp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("texel-import-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn epd_positions_become_their_quiet_leaves() {
    let input = temp(
        "in.epd",
        "4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1 [0.0]\n\
         4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1 [0.0]\n\
         4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 [1.0]\n\
         4k3/8/8/8/8/8/4r3/4K3 w - - 0 1 [0.0]\n\
         nonsense [1.0]\n",
    );
    let out = input.with_file_name("epd-out.epd");
    let stats = import_epd(&input, &out, &ImportOptions::default(), &|_| {}).unwrap();
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
fn pgn_oddities_are_counted_and_skipped() {
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
    text += "[Event \"cut\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf";
    let input = temp("in.pgn", &text);
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
    // illegal king move and the null move make two illegal games; the truncated game is
    // too short.
    assert_eq!(stats.games, 8, "{stats}");
    assert_eq!(skipped("unfinished"), 2, "{stats}");
    assert_eq!(skipped("illegal move"), 2, "{stats}");
    assert_eq!(skipped("too short"), 1, "{stats}");
    assert!(
        stats.kept >= 1,
        "the drawn Ruy Lopez gives positions: {stats}"
    );
    for l in std::fs::read_to_string(&out).unwrap().lines() {
        let (p, _) = parse_line(l, Some(LabelFormat::Bracket), false).unwrap();
        assert_eq!(p.outcome, texel_data::Outcome::Draw);
    }
    let json = stats.to_json();
    assert!(json.contains("\"positions_kept\""));
}

#[test]
fn an_unreadable_input_or_unwritable_output_is_an_error_without_output() {
    let missing = std::env::temp_dir().join("texel-no-such.pgn");
    let out = std::env::temp_dir().join(format!("texel-import-none-{}.epd", std::process::id()));
    assert!(import_pgn(&missing, &out, &ImportOptions::default(), &|_| {}).is_err());
    assert!(!out.exists());
    let input = temp("ok.epd", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 [1.0]\n");
    let bad_out = std::env::temp_dir().join("texel-no-such-dir/out.epd");
    let err = import_epd(&input, &bad_out, &ImportOptions::default(), &|_| {}).unwrap_err();
    assert!(err.to_string().contains("texel-no-such-dir"));
}

#[test]
fn gzip_compressed_pgn_imports_like_plain_pgn() {
    use std::io::Write;
    let text = "[Result \"1/2-1/2\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 1/2-1/2\n";
    let plain = temp("plain.pgn", text);
    let gz = plain.with_file_name("games.pgn.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::default(),
    );
    enc.write_all(text.as_bytes()).unwrap();
    enc.finish().unwrap();
    let options = ImportOptions {
        skip_plies: 2,
        gap: 2,
        ..ImportOptions::default()
    };
    let a = import_pgn(
        &plain,
        &plain.with_file_name("plain-out.epd"),
        &options,
        &|_| {},
    )
    .unwrap();
    let b = import_pgn(&gz, &gz.with_file_name("gz-out.epd"), &options, &|_| {}).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.games, 1);
    assert_eq!(
        std::fs::read_to_string(plain.with_file_name("plain-out.epd")).unwrap(),
        std::fs::read_to_string(gz.with_file_name("gz-out.epd")).unwrap()
    );
}
