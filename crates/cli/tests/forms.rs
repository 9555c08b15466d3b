//! The binary forms of engine authors' data through the real binary: bulletformat records
//! read from the side to move's view, viriformat, marlinformat and bulletformat written by
//! `texel selfplay` and read back position for position, the importer reading records and
//! games.

mod common;

use common::{as_records, fails, sample, stdout_of as ok, texel};
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};
use std::path::Path;
use texel_data::{Labelled, Outcome};

/// The `error:` line `texel error` prints for `file` read with `extra` flags (K 1, results
/// alone unless `extra` gives `--lambda`), and all it printed.
fn error_line(file: &Path, extra: &[&str]) -> (Option<String>, String) {
    let lambda = if extra.contains(&"--lambda") {
        &[][..]
    } else {
        &["--lambda", "1"][..]
    };
    let printed = ok(texel()
        .args(["error", "--k", "1"])
        .args(lambda)
        .args(extra)
        .arg("--epd")
        .arg(file));
    let line = printed.lines().find(|l| l.starts_with("error:"));
    (line.map(str::to_owned), printed)
}

#[test]
fn marlinformat_records_read_as_the_same_results_when_named() {
    // The shipped positions written as marlinformat's 32-byte records (the layout is
    // checked byte by byte in texel_data's tests): named, they read to the shipped file's
    // error; unnamed, the binary file is refused naming the flag.
    let dir = tempfile::tempdir().unwrap();
    let results = sample(dir.path(), "results.epd", 1000);
    let text = std::fs::read_to_string(&results).unwrap();
    let score = |i: usize| 10 * (i as i32 % 21) - 100;
    let records = as_records(&text, texel_data::marlin::write_record, score);
    let file = dir.path().join("positions.marlin");
    std::fs::write(&file, records).unwrap();
    let (want, _) = error_line(&results, &[]);
    let (got, printed) = error_line(&file, &["--label-format", "marlin"]);
    assert!(
        printed.contains("1000 records: 1000 training positions, 0 skipped"),
        "records, not lines: {printed}"
    );
    assert_eq!(got, want, "{printed}");
    let said = fails(texel().args(["error", "--epd"]).arg(&file));
    assert!(said.contains("--format marlin"), "{said}");
}

/// An EPD line as a bulletformat record holds it: castling rights, en passant and clocks
/// gone; when Black is to move, the board turned over with the colours swapped, White to
/// move and the label turned round.
fn as_the_mover_sees_it(line: &str) -> String {
    let (fen, label) = line.rsplit_once(' ').unwrap();
    let fields: Vec<&str> = fen.split(' ').collect();
    if fields[1] == "w" {
        return format!("{} w - - 0 1 {label}\n", fields[0]);
    }
    let ranks: Vec<String> = (fields[0].split('/').rev())
        .map(|rank| {
            rank.chars()
                .map(|c| match c.is_ascii_uppercase() {
                    true => c.to_ascii_lowercase(),
                    false => c.to_ascii_uppercase(),
                })
                .collect()
        })
        .collect();
    let turned = match label {
        "[1.0]" => "[0.0]",
        "[0.0]" => "[1.0]",
        other => other,
    };
    format!("{} w - - 0 1 {turned}\n", ranks.join("/"))
}

#[test]
fn bulletformat_records_read_as_the_side_to_move_sees_the_position() {
    // The shipped positions written as bulletformat records (the layout is checked byte by
    // byte in texel_data's tests): named, they read as the same positions seen from the
    // side to move, to the digit; unnamed, the binary file is refused naming the flag.
    let dir = tempfile::tempdir().unwrap();
    let results = sample(dir.path(), "results.epd", 1000);
    let text = std::fs::read_to_string(&results).unwrap();
    let score = |i: usize| 10 * (i as i32 % 21) - 100;
    let records = as_records(&text, texel_data::bullet::write_record, score);
    let file = dir.path().join("positions.bullet");
    std::fs::write(&file, records).unwrap();
    let seen = dir.path().join("seen.epd");
    std::fs::write(
        &seen,
        text.lines().map(as_the_mover_sees_it).collect::<String>(),
    )
    .unwrap();
    let (want, _) = error_line(&seen, &[]);
    let (got, printed) = error_line(&file, &["--format", "bullet"]);
    assert!(
        printed.contains("1000 training positions, 0 skipped"),
        "{printed}"
    );
    assert_eq!(got, want, "{printed}");
    let said = fails(texel().args(["error", "--epd"]).arg(&file));
    assert!(said.contains("--format bullet"), "{said}");
}

/// A game of a PGN as `texel selfplay` writes it: the start, every move with the score of
/// its comment (centipawns, White's view, as 16 bits hold it), and the result.
struct Game {
    start: Chess,
    moves: Vec<(shakmaty::Move, Option<i32>)>,
    result: Outcome,
}

/// The centipawns of a comment such as `+0.35/12` or `-M3/20`, clamped to 16 bits.
fn comment_cp(comment: &str) -> i32 {
    let value = comment.trim_matches(['{', '}']).split('/').next().unwrap();
    let cp = match value.find('M') {
        Some(at) => {
            let plies: i32 = value[at + 1..].parse().unwrap();
            let mate = 100_000 - plies;
            if value.starts_with('-') {
                -mate
            } else {
                mate
            }
        }
        None => (value.parse::<f64>().unwrap() * 100.0).round() as i32,
    };
    cp.clamp(i16::MIN.into(), i16::MAX.into())
}

/// The games of a PGN written by `texel selfplay` (comments hold no spaces there).
fn games_of(pgn: &str) -> Vec<Game> {
    let mut games = Vec::new();
    for text in pgn.split("[Event ").skip(1) {
        let tag = |name: &str| {
            let at = text.find(&format!("[{name} \""))? + name.len() + 3;
            Some(text[at..at + text[at..].find('"')?].to_string())
        };
        let start = match tag("FEN") {
            Some(fen) => fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap(),
            None => Chess::default(),
        };
        let result = match tag("Result").unwrap().as_str() {
            "1-0" => Outcome::WhiteWins,
            "0-1" => Outcome::BlackWins,
            _ => Outcome::Draw,
        };
        let movetext = &text[text.find("\n\n").unwrap()..];
        let (mut position, mut moves) = (start.clone(), Vec::new());
        for token in movetext.split_whitespace() {
            if token.starts_with('{') {
                let last: &mut (shakmaty::Move, Option<i32>) = moves.last_mut().unwrap();
                last.1 = Some(comment_cp(token));
            } else if let Ok(san) = token.parse::<San>() {
                let m = san.to_move(&position).unwrap();
                position.play_unchecked(m);
                moves.push((m, None));
            }
        }
        games.push(Game {
            start,
            moves,
            result,
        });
    }
    games
}

/// Every position a move with a score was played from, with that score and the result:
/// what a record file of the game holds (from the first scored move on).
fn searched(game: &Game) -> Vec<(Chess, i32, Outcome)> {
    let (mut position, mut out) = (game.start.clone(), Vec::new());
    for &(m, score) in &game.moves {
        if let Some(score) = score {
            out.push((position.clone(), score, game.result));
        }
        position.play_unchecked(m);
    }
    out
}

fn fen_of(l: &Labelled) -> String {
    Fen::from_position(&l.position, EnPassantMode::Legal).to_string()
}

#[test]
fn selfplay_writes_records_and_games_that_read_back_position_for_position() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let said = ok(texel()
        .args([
            "selfplay",
            "--games",
            "8",
            "--nodes",
            "1500",
            "--threads",
            "2",
        ])
        .args([
            "--openings",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/openings.epd"),
        ])
        .arg("--pgn")
        .arg(path("g.pgn"))
        .arg("--marlin")
        .arg(path("g.marlin"))
        .arg("--viri")
        .arg(path("g.viri"))
        .arg("--bullet")
        .arg(path("g.bullet")));
    assert!(
        said.contains("wrote 8 viriformat games from 8 games"),
        "{said}"
    );
    let games = games_of(&std::fs::read_to_string(path("g.pgn")).unwrap());
    assert_eq!(games.len(), 8);
    let want: Vec<(Chess, i32, Outcome)> = games.iter().flat_map(searched).collect();
    assert!(want.len() > 8 * 20, "{} positions", want.len());
    let marlin = std::fs::read(path("g.marlin")).unwrap();
    let from_marlin: Vec<Labelled> = (marlin.chunks(32))
        .map(|r| texel_data::marlin::read_bytes(r).unwrap())
        .collect();
    let viri = std::fs::read(path("g.viri")).unwrap();
    let from_viri: Vec<Labelled> = texel_data::viri::games(&viri)
        .flat_map(texel_data::viri::positions)
        .map(Result::unwrap)
        .collect();
    assert_eq!(from_marlin.len(), want.len());
    assert_eq!(from_viri.len(), want.len());
    for ((position, score, result), (m, v)) in want.iter().zip(from_marlin.iter().zip(&from_viri)) {
        for read in [m, v] {
            assert_eq!(&read.position, position, "{}", fen_of(read));
            assert_eq!(read.score, Some(*score), "{}", fen_of(read));
            assert_eq!(read.label, (*result).into(), "{}", fen_of(read));
        }
    }
    // Read by the tuner: marlin and viri are the same positions (all trained on: viri's
    // games would hold out games); bullet the same ones seen from the side to move
    // (castling rights lost), so a close error.
    let all = ["--validate", "0"];
    let (from_m, _) = error_line(&path("g.marlin"), &["--format", "marlin", all[0], all[1]]);
    let (from_v, printed) = error_line(&path("g.viri"), &["--format", "viri", all[0], all[1]]);
    assert_eq!(from_v, from_m, "{printed}");
    let (from_b, _) = error_line(&path("g.bullet"), &["--format", "bullet"]);
    assert!(from_b.is_some());
    let tuned = ok(texel()
        .args(["tune", "--passes", "1", "--format", "viri", "--epd"])
        .arg(path("g.viri"))
        .arg("--out")
        .arg(path("t.json")));
    assert!(path("t.json").exists(), "{tuned}");
}

#[test]
fn the_importer_reads_records_as_lines_and_games_as_games() {
    // marlinformat records of the shipped positions import as the shipped lines do (each
    // quiesced), with their scores; viriformat games are sampled as games, a broken one
    // named by its number.
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let results = sample(dir.path(), "results.epd", 1000);
    let text = std::fs::read_to_string(&results).unwrap();
    let records = as_records(&text, texel_data::marlin::write_record, |_| 25);
    std::fs::write(path("r.marlin"), records).unwrap();
    // What an import prints: its statistics go to stderr.
    let import = |input: &Path, out: &Path, extra: &[&str]| {
        let run = (texel()
            .args(["import", "--epd"])
            .arg(input)
            .arg("--out")
            .arg(out))
        .args(extra)
        .output()
        .unwrap();
        let said = String::from_utf8_lossy(&run.stderr).to_string();
        assert!(run.status.success(), "{said}");
        said
    };
    import(&results, &path("from-epd.epd"), &[]);
    import(
        &path("r.marlin"),
        &path("from-marlin.epd"),
        &["--label-format", "marlin"],
    );
    let without_scores = |file: &Path| -> Vec<String> {
        let text = std::fs::read_to_string(file).unwrap();
        text.lines()
            .map(|l| match l.find(" ce ") {
                Some(at) => format!("{}{}", &l[..at], &l[l.find(';').unwrap() + 1..]),
                None => l.to_string(),
            })
            .collect()
    };
    let from_marlin = without_scores(&path("from-marlin.epd"));
    assert_eq!(from_marlin, without_scores(&path("from-epd.epd")));
    let scored = std::fs::read_to_string(path("from-marlin.epd")).unwrap();
    assert_eq!(
        scored.matches(" ce ").count(),
        from_marlin.len(),
        "every line keeps its score"
    );
    // Games: three copies of one short game, the second with an illegal second move.
    let start = Chess::default();
    let mut position = start.clone();
    let mut moves = Vec::new();
    for (i, san) in [
        "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3", "d6",
    ]
    .iter()
    .enumerate()
    {
        let m = san.parse::<San>().unwrap().to_move(&position).unwrap();
        position.play_unchecked(m);
        moves.push((m, 20 + i as i32));
    }
    let game = texel_data::viri::write_game(&start, Outcome::Draw, &moves);
    let mut broken = game.clone();
    broken[32 + 4..32 + 6].copy_from_slice(&(12u16 | 28 << 6).to_le_bytes());
    std::fs::write(path("g.viri"), [game.clone(), broken, game].concat()).unwrap();
    let args = ["--label-format", "viri", "--skip-plies", "2", "--gap", "2"];
    let said = import(&path("g.viri"), &path("from-viri.epd"), &args);
    assert!(said.contains("games read: 3"), "{said}");
    assert!(said.contains("illegal move: 1 (first at game 2)"), "{said}");
}

/// A shipped file.
fn shipped(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../data")
        .join(name)
}

#[test]
fn the_shipped_samples_read_alike_in_both_forms_with_their_scores() {
    // `data/sample-scored.epd` (`FEN [1.0] [35]`, lichess-big3's form) and
    // `data/sample.marlin` hold the same 1,000 positions, results and scores: the same
    // error on results alone and with the scores mixed in (λ auto), every score read.
    let error_of = |file: &Path, extra: &[&str]| {
        let printed = ok(texel()
            .args(["error", "--k", "1", "--epd"])
            .arg(file)
            .args(extra));
        let line = printed
            .lines()
            .find(|l| l.starts_with("error:"))
            .map(str::to_owned);
        (line, printed)
    };
    let epd = shipped("sample-scored.epd");
    let marlin = shipped("sample.marlin");
    for lambda in ["1", "auto"] {
        let (want, printed) = error_of(&epd, &["--lambda", lambda]);
        assert!(
            printed.contains("1000 training positions, 0 skipped"),
            "{printed}"
        );
        let (got, _) = error_of(&marlin, &["--lambda", lambda, "--format", "marlin"]);
        assert_eq!(got, want, "λ {lambda}: {printed}");
    }
    let (_, mixed) = error_of(&epd, &["--lambda", "auto"]);
    assert!(mixed.contains("for the 1000 of 1000 positions"), "{mixed}");
}

#[test]
fn convert_goes_round_and_refuses_centipawn_labels() {
    // The scored sample written as records and back is the same file to the byte; a file
    // whose bracket labels are centipawns is refused, nothing written.
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let convert = |input: &Path, to: &str, out: &Path, extra: &[&str]| {
        (texel()
            .args(["convert", "--to", to, "--epd"])
            .arg(input)
            .arg("--out")
            .arg(out))
        .args(extra)
        .output()
        .unwrap()
    };
    let epd = shipped("sample-scored.epd");
    for form in ["marlin", "bullet"] {
        let records = path(&format!("s.{form}"));
        assert!(convert(&epd, form, &records, &[]).status.success());
        assert_eq!(std::fs::metadata(&records).unwrap().len(), 32_000);
        let back = path(&format!("back-{form}.epd"));
        assert!(convert(&records, "bracket", &back, &["--format", form])
            .status
            .success());
        if form == "marlin" {
            assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&epd).unwrap());
        } else {
            // bulletformat keeps the mover's view only: as many lines, each with its score.
            let text = std::fs::read_to_string(&back).unwrap();
            assert_eq!(text.lines().count(), 1000);
            assert!(text.lines().all(|l| l.matches('[').count() == 2), "{text}");
        }
    }
    // Positions that name their game: the records cannot keep the ids, and the
    // conversion says so; bracket keeps them.
    let scored = std::fs::read_to_string(shipped("scored.epd")).unwrap();
    let games: String = scored.lines().take(300).map(|l| format!("{l}\n")).collect();
    std::fs::write(path("games.epd"), games).unwrap();
    let made = convert(&path("games.epd"), "marlin", &path("games.marlin"), &[]);
    let said = String::from_utf8_lossy(&made.stdout);
    assert!(
        said.contains("300 positions named their game: records hold no game id"),
        "{said}"
    );
    let made = convert(&path("games.epd"), "bracket", &path("games-back.epd"), &[]);
    assert!(!String::from_utf8_lossy(&made.stdout).contains("game id"));
    let text = std::fs::read_to_string(&epd).unwrap();
    let centipawns: String = (text.lines().enumerate())
        .map(|(i, l)| {
            let fen = &l[..l.find(" [").unwrap()];
            format!("{fen} [{}]\n", [-120, 0, 1, 250][i % 4])
        })
        .collect();
    std::fs::write(path("cp.epd"), centipawns).unwrap();
    let refused = convert(&path("cp.epd"), "marlin", &path("cp.marlin"), &[]);
    let said = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(said.contains("centipawns"), "{said}");
    assert!(!path("cp.marlin").exists());
}

#[test]
fn pedantic_csv_reads_as_the_scored_sample_it_was_written_from() {
    // The scored sample written as Pedantic writes its training data (a header, then
    // `Hash,Ply,GamePly,FEN,HasCastled,Eval,Result` with the mover's evaluation and White's
    // result): detected or named, the same positions, results and scores as the sample.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(shipped("sample-scored.epd")).unwrap();
    let mut csv = String::from("Hash,Ply,GamePly,FEN,HasCastled,Eval,Result\n");
    for (i, line) in text.lines().enumerate() {
        let (fen, rest) = line.split_at(line.find(" [").unwrap());
        let (result, score) = rest.trim().split_once(' ').unwrap();
        let white: i32 = score.trim_matches(['[', ']']).parse().unwrap();
        let mover = if fen.split(' ').nth(1) == Some("b") {
            -white
        } else {
            white
        };
        let result = result.trim_matches(['[', ']']);
        csv.push_str(&format!(
            "{:016X},{},{},{fen},0,{mover},{result}\n",
            i * 7919,
            20 + i % 50,
            120
        ));
    }
    let file = dir.path().join("pedantic.csv");
    std::fs::write(&file, csv).unwrap();
    for lambda in ["1", "auto"] {
        let (want, _) = error_line(&shipped("sample-scored.epd"), &["--lambda", lambda]);
        let (got, printed) = error_line(&file, &["--lambda", lambda]);
        assert!(
            printed.contains("1000 training positions, 0 skipped"),
            "{printed}"
        );
        assert_eq!(got, want, "λ {lambda}: {printed}");
        let (named, _) = error_line(&file, &["--lambda", lambda, "--format", "pedantic"]);
        assert_eq!(named, want);
    }
    // A row with a field missing and one whose Eval is no number: bad rows of Pedantic's,
    // named by file and line, not malformed FENs.
    let mut broken = std::fs::read_to_string(&file).unwrap();
    let rows: Vec<&str> = broken.lines().collect();
    let cut = rows[5].rsplit_once(',').unwrap().0.to_string();
    let fields: Vec<&str> = rows[9].split(',').collect();
    let odd = format!("{},x{},{}", fields[..5].join(","), fields[5], fields[6]);
    broken = broken.replacen(rows[5], &cut, 1).replacen(rows[9], &odd, 1);
    std::fs::write(&file, broken).unwrap();
    let said = ok(texel().args(["error", "--epd"]).arg(&file));
    assert!(
        said.contains("998 training positions, 2 skipped")
            && said.contains("Pedantic CSV row")
            && said.contains("pedantic.csv:6, ")
            && said.contains("pedantic.csv:10)")
            && !said.contains("malformed FEN"),
        "{said}"
    );
}

/// The shipped line `line` (`FEN [r]`) written in the text form `form` of the table, with a
/// made-up score where the form carries one (White's view, as each writes it).
fn written_as(form: &str, line: &str, i: usize) -> String {
    let (fen, label) = line.rsplit_once(' ').unwrap();
    let r: f64 = label.trim_matches(['[', ']']).parse().unwrap();
    let black = fen.split(' ').nth(1) == Some("b");
    let pgn = match label {
        "[1.0]" => "1-0",
        "[0.0]" => "0-1",
        _ => "1/2-1/2",
    };
    let score = 10 * (i as i32 % 13) - 60;
    let four: Vec<&str> = fen.split(' ').take(4).collect();
    match form {
        "zurichess" => format!("{} c9 \"{pgn}\";", four.join(" ")),
        "sirius" => format!("{fen} | {score}cp | {r:.1}"),
        "clockwork" => format!("{fen}; {}", ["b", "d", "w"][(2.0 * r) as usize]),
        "stash" => format!("{fen} {r:.1} {score}"),
        "gedas" => format!("{fen}; {:.1}", if black { 1.0 - r } else { r }),
        "lichess" => format!("{fen} [{r:.1}] [{score}]"),
        other => panic!("no form {other}"),
    }
}

#[test]
fn every_text_form_of_the_table_tunes_to_the_values_of_the_shipped_lines() {
    // 1,000 shipped positions written in each text form of the data formats table: tuned on
    // results alone (K 1), each gives the values the shipped file gives, to the last digit;
    // the side-to-move set with its flag.
    let dir = tempfile::tempdir().unwrap();
    let results = sample(dir.path(), "results.epd", 1000);
    let text = std::fs::read_to_string(&results).unwrap();
    let tuned = |file: &Path, name: &str, extra: &[&str]| {
        let out = dir.path().join(format!("{name}.json"));
        ok(texel()
            .args([
                "tune", "--passes", "1", "--group", "KnightV", "--k", "1", "--lambda", "1",
            ])
            .args(extra)
            .arg("--epd")
            .arg(file)
            .arg("--out")
            .arg(&out));
        std::fs::read_to_string(out).unwrap()
    };
    let want = tuned(&results, "shipped", &[]);
    for (form, extra) in [
        ("zurichess", &[][..]),
        ("sirius", &[]),
        ("clockwork", &[]),
        ("stash", &[]),
        ("gedas", &["--labels", "stm"]),
        ("lichess", &[]),
    ] {
        let lines: String = (text.lines().enumerate())
            .map(|(i, l)| written_as(form, l, i) + "\n")
            .collect();
        let file = dir.path().join(format!("{form}.epd"));
        std::fs::write(&file, lines).unwrap();
        assert_eq!(tuned(&file, form, extra), want, "{form}");
    }
}

#[test]
fn the_shipped_games_convert_to_viriformat_and_marlinformat_that_read_alike() {
    // The 1,000 shipped Stockfish games (White's-view comments) as viriformat games and
    // marlinformat records: the same positions, so the same error; a game form is refused
    // for positions alone.
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let convert = |to: &str, out: &Path| {
        ok(texel()
            .args(["convert", "--to", to, "--pgn"])
            .arg(shipped("games.pgn.gz"))
            .arg("--out")
            .arg(out))
    };
    let said = convert("viri", &path("g.viri"));
    assert!(said.contains("viriformat games from 1000 games"), "{said}");
    convert("marlin", &path("g.marlin"));
    let all = ["--validate", "0"];
    let (viri, printed) = error_line(&path("g.viri"), &["--format", "viri", all[0], all[1]]);
    let (marlin, _) = error_line(&path("g.marlin"), &["--format", "marlin", all[0], all[1]]);
    assert_eq!(viri, marlin, "{printed}");
    let records = std::fs::metadata(path("g.marlin")).unwrap().len() / 32;
    assert!(
        printed.contains(&format!("{records} training positions")),
        "{printed}"
    );
    // Read directly, a viriformat game's positions name it: a run holds out games.
    let (_, printed) = error_line(&path("g.viri"), &["--format", "viri"]);
    assert!(printed.contains("held out by game: "), "{printed}");
    assert!(printed.contains(" games ("), "{printed}");
    assert!(!printed.contains("carry no game id"), "{printed}");
    let refused = fails(
        texel()
            .args(["convert", "--to", "viri", "--epd"])
            .arg(shipped("sample-scored.epd"))
            .arg("--out")
            .arg(path("x.viri")),
    );
    assert!(refused.contains("--pgn"), "{refused}");
}

#[test]
fn text_or_noise_read_as_records_is_refused_for_what_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let noise = dir.path().join("noise.bin");
    let mut seed = 11u64;
    let bytes: Vec<u8> = (0..32 * 500)
        .map(|_| {
            seed = texel_data::splitmix64(seed);
            seed as u8
        })
        .collect();
    std::fs::write(&noise, bytes).unwrap();
    // A viriformat game runs until its four zero bytes: text and noise are refused as no
    // whole game.
    for file in [shipped("train.epd"), noise.clone()] {
        let viri = fails(
            texel()
                .args(["error", "--format", "viri", "--epd"])
                .arg(&file),
        );
        let no_game = viri.contains("not viriformat") || viri.contains("ends inside a game");
        assert!(no_game && !viri.contains("malformed FEN"), "{viri}");
    }
    for form in ["marlin", "bullet"] {
        let text = fails(
            texel()
                .args(["error", "--format", form, "--epd"])
                .arg(shipped("train.epd")),
        );
        assert!(
            text.contains("it holds text lines") && text.contains("without --format"),
            "{form}: {text}"
        );
        assert!(!text.contains("malformed FEN"), "{form}: {text}");
        let junk = fails(
            texel()
                .args(["error", "--format", form, "--epd"])
                .arg(&noise),
        );
        assert!(junk.contains("no records texel reads"), "{form}: {junk}");
    }
}

#[test]
fn a_conversion_with_nothing_to_write_leaves_the_existing_output_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("kept.marlin");
    let records = ok(texel()
        .args(["convert", "--to", "marlin", "--epd"])
        .arg(shipped("sample-scored.epd"))
        .arg("--out")
        .arg(&out));
    assert!(records.contains("wrote"), "{records}");
    let before = std::fs::read(&out).unwrap();
    // Every label a fraction: no record can hold it.
    let fractions = dir.path().join("fractions.epd");
    let line = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 [0.75]\n";
    std::fs::write(&fractions, line.repeat(3)).unwrap();
    let said = fails(
        texel()
            .args(["convert", "--to", "marlin", "--epd"])
            .arg(&fractions)
            .arg("--out")
            .arg(&out),
    );
    assert!(
        said.contains("nothing to write as marlinformat records"),
        "{said}"
    );
    assert!(said.contains("3 not a game result"), "{said}");
    // Games without a score comment: no searched position.
    let pgn = dir.path().join("plain.pgn");
    std::fs::write(
        &pgn,
        "[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n",
    )
    .unwrap();
    let said = fails(
        texel()
            .args(["convert", "--to", "bullet", "--pgn"])
            .arg(&pgn)
            .arg("--out")
            .arg(&out),
    );
    assert!(
        said.contains("nothing to write as bulletformat records"),
        "{said}"
    );
    assert!(said.contains("games skipped"), "{said}");
    assert_eq!(
        std::fs::read(&out).unwrap(),
        before,
        "the records file untouched"
    );
    let left = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(left, 3, "no temporary file left");
}

#[test]
fn a_records_file_read_in_the_other_form_is_refused_naming_its_own() {
    // bulletformat and marlinformat are both 32 bytes a record: a file of one read as the
    // other is refused, by every command that reads it, naming the form its records are.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(sample(dir.path(), "s.epd", 300)).unwrap();
    let bullet = dir.path().join("p.bullet");
    std::fs::write(
        &bullet,
        as_records(&text, texel_data::bullet::write_record, |i| i as i32),
    )
    .unwrap();
    let marlin = dir.path().join("p.marlin");
    std::fs::write(
        &marlin,
        as_records(&text, texel_data::marlin::write_record, |i| i as i32),
    )
    .unwrap();
    let out = dir.path().join("out.epd");
    let out = out.to_str().unwrap();
    for (file, asked, holds) in [(&bullet, "marlin", "bullet"), (&marlin, "bullet", "marlin")] {
        let said = format!("it holds {holds}format records, not {asked}format records");
        let (flag, label_flag) = (
            format!("--format {holds}"),
            format!("--label-format {holds}"),
        );
        let runs: [(&[&str], &str); 4] = [
            (&["error", "--format", asked], &flag),
            (
                &["tune", "--passes", "1", "--out", out, "--format", asked],
                &flag,
            ),
            (
                &["import", "--out", out, "--label-format", asked],
                &label_flag,
            ),
            (
                &[
                    "convert", "--to", "bracket", "--out", out, "--format", asked,
                ],
                &flag,
            ),
        ];
        for (args, hint) in runs {
            let err = fails(texel().args(args).arg("--epd").arg(file));
            assert!(err.contains(&said) && err.contains(hint), "{args:?}: {err}");
            assert!(!Path::new(out).exists(), "{args:?} wrote nothing");
        }
    }
}

#[test]
fn records_whose_every_score_is_zero_carry_none_and_tune_as_their_results() {
    // What texel's own writers give a position without a score, read as none: the load
    // says so, and λ auto tunes on the results as --lambda 1 does.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(sample(dir.path(), "s.epd", 2000)).unwrap();
    let file = dir.path().join("p.marlin");
    std::fs::write(
        &file,
        as_records(&text, texel_data::marlin::write_record, |_| 0),
    )
    .unwrap();
    let tune = |extra: &[&str]| {
        let out = dir.path().join("t.json");
        let printed = ok(texel()
            .args([
                "tune", "--passes", "2", "--group", "KnightV", "--format", "marlin",
            ])
            .args(extra)
            .arg("--epd")
            .arg(&file)
            .arg("--out")
            .arg(&out));
        (printed, std::fs::read(&out).unwrap())
    };
    let (auto, auto_values) = tune(&[]);
    assert!(
        auto.contains("p.marlin: 2000 positions of marlinformat records, none with a score"),
        "{auto}"
    );
    let (results, results_values) = tune(&["--lambda", "1"]);
    let end = |printed: &str| {
        printed
            .lines()
            .find(|l| l.starts_with("end:"))
            .map(str::to_owned)
    };
    assert_eq!(end(&auto), end(&results), "{auto}\n{results}");
    assert_eq!(auto_values, results_values);
    // A file with scores says so.
    std::fs::write(
        &file,
        as_records(&text, texel_data::marlin::write_record, |i| i as i32 % 50),
    )
    .unwrap();
    let (scored, _) = tune(&[]);
    assert!(
        scored.contains("2000 positions of marlinformat records, each with a score"),
        "{scored}"
    );
}
