//! `texel match` through the real binary: no game is played twice, Ctrl-C stops the match
//! with a summary of the finished games, and the game-pair (pentanomial) interval.

mod common;

use common::{fails, interrupt_after_two_games, interrupt_when_in, stdout_of, texel};
use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use shakmaty::{Chess, Position};
use std::collections::HashSet;
use std::ops::ControlFlow;
use std::path::Path;

/// Each game of a PGN file as (white, black, moves), replayed legally.
struct Games;

impl Visitor for Games {
    type Tags = (String, String, Chess);
    type Movetext = (String, String, Chess, Vec<String>);
    type Output = (String, String, Vec<String>);

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue((String::new(), String::new(), Chess::default()))
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        let value = value.decode_utf8_lossy().to_string();
        match name {
            b"White" => tags.0 = value,
            b"Black" => tags.1 = value,
            b"FEN" => {
                let fen: shakmaty::fen::Fen = value.parse().unwrap();
                tags.2 = fen.into_position(shakmaty::CastlingMode::Standard).unwrap();
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, t: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue((t.0, t.1, t.2, Vec::new()))
    }

    fn san(&mut self, m: &mut Self::Movetext, san: SanPlus) -> ControlFlow<Self::Output> {
        let mv = san.san.to_move(&m.2).expect("a legal move");
        m.2.play_unchecked(mv);
        m.3.push(san.to_string());
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, m: Self::Movetext) -> Self::Output {
        (m.0, m.1, m.3)
    }
}

fn games(pgn: &Path) -> Vec<(String, String, Vec<String>)> {
    let mut reader = Reader::new(std::fs::File::open(pgn).unwrap());
    let mut out = Vec::new();
    while let Some(game) = reader.read_game(&mut Games).unwrap() {
        out.push(game);
    }
    out
}

#[test]
fn more_games_than_openings_never_repeat_a_game() {
    let tmp = tempfile::tempdir().unwrap();
    let openings = tmp.path().join("three.epd");
    let lines: Vec<&str> = include_str!("../../../data/openings.epd")
        .lines()
        .take(3)
        .collect();
    std::fs::write(&openings, lines.join("\n")).unwrap();
    let play = |b: &str, pgn: &Path| {
        stdout_of(
            texel()
                .args(["match", "--engine", "name=a", "--engine", b])
                .args(["--each", "nodes=200", "--games", "16", "--concurrency", "2"])
                .arg("--openings")
                .arg(&openings)
                .arg("--pgn")
                .arg(pgn),
        )
    };
    // Different engines: 8 colour-swapped pairs from 3 openings, 5 of them varied.
    let pgn = tmp.path().join("m.pgn");
    let text = play("name=b,nodes=201", &pgn);
    assert!(text.contains("5 starts (of a pair of games"), "{text}");
    assert!(text.contains("game pairs by points"), "{text}");
    let played = games(&pgn);
    assert_eq!(played.len(), 16);
    let distinct: HashSet<_> = played.iter().collect();
    assert_eq!(distinct.len(), 16, "a game was played twice");
    // Engines that play alike: the two games of a pair would be one game twice, so every
    // game gets its own start (13 of the 16 varied) and no pairs are counted.
    let pgn = tmp.path().join("alike.pgn");
    let text = play("name=b", &pgn);
    assert!(text.contains("13 starts (of a pair of games"), "{text}");
    assert!(text.contains("games not paired"), "{text}");
    let played = games(&pgn);
    let distinct: HashSet<_> = played.iter().collect();
    assert_eq!((played.len(), distinct.len()), (16, 16));
}

#[test]
fn a_start_that_cannot_be_varied_enough_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let openings = tmp.path().join("kings.epd");
    // Two kings and a rook: a handful of random plies reach only so many positions.
    std::fs::write(&openings, "k7/8/1K6/8/8/8/8/7R w - - 0 1\n").unwrap();
    let err = fails(
        texel()
            .args(["match", "--engine", "name=a", "--engine", "name=b"])
            .args(["--each", "nodes=100", "--games", "4000"])
            .arg("--openings")
            .arg(&openings),
    );
    assert!(err.contains("distinct starts"), "{err}");
}

#[test]
fn ctrl_c_stops_the_match_with_a_summary_of_the_finished_games() {
    let tmp = tempfile::tempdir().unwrap();
    let pgn = tmp.path().join("m.pgn");
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("texel"));
    cmd.args(["match", "--engine", "name=a", "--engine", "name=b"])
        .args([
            "--each",
            "nodes=3000",
            "--games",
            "400",
            "--concurrency",
            "2",
        ])
        .args(["--random-plies", "4", "--pgn"])
        .arg(&pgn);
    let began = std::time::Instant::now();
    let (code, out, err) = interrupt_when_in(cmd, true, |l| l.starts_with("game 3/"));
    assert!(
        began.elapsed() < std::time::Duration::from_secs(60),
        "no hang"
    );
    assert_eq!(code, Some(130), "{out}\n{err}");
    assert!(
        out.contains("interrupted: ") && out.contains("wins"),
        "{out}"
    );
    let counted: u32 = out
        .split("interrupted: ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!((3..400).contains(&counted), "{out}");
    assert_eq!(
        games(&pgn).len() as u32,
        counted,
        "every counted game is in the PGN"
    );
}

#[test]
fn selfplay_gives_the_same_legal_games_on_one_or_two_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let openings = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/openings.epd");
    let play = |threads: &str, name: &str| {
        let pgn = tmp.path().join(format!("{name}.pgn"));
        let epd = tmp.path().join(format!("{name}.epd"));
        let text = stdout_of(
            texel()
                .args([
                    "selfplay",
                    "--games",
                    "6",
                    "--nodes",
                    "300",
                    "--threads",
                    threads,
                ])
                .args([
                    "--seed",
                    "7",
                    "--per-game",
                    "20",
                    "--gap",
                    "2",
                    "--skip-plies",
                    "4",
                ])
                .args(["--score-from-pgn", "--openings"])
                .arg(&openings)
                .arg("--pgn")
                .arg(&pgn)
                .arg("--epd")
                .arg(&epd),
        );
        assert!(text.contains("6 games played in"), "{text}");
        (pgn, epd)
    };
    let (one, one_epd) = play("1", "one");
    let (two, two_epd) = play("2", "two");
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap());
    assert_eq!(
        std::fs::read(&one_epd).unwrap(),
        std::fs::read(&two_epd).unwrap()
    );
    let played = games(&one);
    assert_eq!(played.len(), 6, "every game replays legally");
    assert!(played
        .iter()
        .all(|(w, b, _)| w.starts_with("texel") && b.starts_with("texel")));
    // Every engine move carries its score; the labelled positions load.
    let text = std::fs::read_to_string(&one).unwrap();
    assert!(text.contains("/"), "score comments like {{+0.35/5}}");
    let epd = std::fs::read_to_string(&one_epd).unwrap();
    assert!(epd.lines().count() > 0);
    assert!(epd
        .lines()
        .all(|l| texel_data::parse_line(l, None, false).is_ok()));
    // Another seed, other games.
    let other = tmp.path().join("other.pgn");
    stdout_of(
        texel()
            .args([
                "selfplay",
                "--games",
                "2",
                "--nodes",
                "300",
                "--seed",
                "8",
                "--openings",
            ])
            .arg(&openings)
            .arg("--pgn")
            .arg(&other),
    );
    assert_ne!(games(&other)[0], played[0]);
}

#[test]
fn an_interrupted_selfplay_resumes_to_the_same_games() {
    let tmp = tempfile::tempdir().unwrap();
    let openings = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/openings.epd");
    let selfplay = |pgn: &Path| {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("texel"));
        c.args(["selfplay", "--games", "24", "--nodes", "800", "--seed", "3"])
            .arg("--openings")
            .arg(&openings)
            .arg("--pgn")
            .arg(pgn)
            .stdout(std::process::Stdio::null());
        c
    };
    let full = tmp.path().join("full.pgn");
    assert!(selfplay(&full).status().unwrap().success());

    let part = tmp.path().join("part.pgn");
    let child = selfplay(&part).spawn().unwrap();
    assert_eq!(interrupt_after_two_games(child, &part), Some(130));
    let stopped = games(&part).len();
    assert!(
        (2..24).contains(&stopped),
        "{stopped} games before the stop"
    );

    let text = stdout_of(&mut assert_cmd::Command::from_std({
        let mut c = selfplay(&part);
        c.arg("--resume").stdout(std::process::Stdio::piped());
        c
    }));
    let kept: usize = text
        .split("resuming after ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    // The rate is of the games this run played, not of those kept.
    let played = format!("{} games played in", 24 - kept);
    let after = format!("(after the {kept} kept from the stopped run)");
    assert!(text.contains(&played) && text.contains(&after), "{text}");
    assert_eq!(
        std::fs::read_to_string(&full).unwrap(),
        std::fs::read_to_string(&part).unwrap(),
        "the resumed run ends with the games of an uninterrupted one"
    );
}

#[test]
fn an_odd_number_of_games_says_it_plays_one_more() {
    let openings = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/openings.epd");
    let out = texel()
        .args(["match", "--engine", "name=a", "--engine", "name=b"])
        .args(["--each", "nodes=100", "--games", "3", "--openings"])
        .arg(&openings)
        .output()
        .unwrap();
    assert!(out.status.success());
    let err =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(
        err.contains("--games 3 plays 4: games come in pairs"),
        "{err}"
    );
    assert!(err.contains("game 4/4"), "{err}");
    let err = fails(
        texel()
            .args(["match", "--engine", "name=a", "--engine", "name=b"])
            .args(["--each", "nodes=100", "--max-plies", "0"]),
    );
    assert!(err.contains("--max-plies must be at least 1"), "{err}");
}

#[test]
fn selfplay_keeps_an_earlier_records_file_and_a_stop_writes_its_finished_games() {
    let tmp = tempfile::tempdir().unwrap();
    let openings = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/openings.epd");
    let (pgn, marlin) = (tmp.path().join("g.pgn"), tmp.path().join("g.marlin"));
    std::fs::write(&marlin, b"an earlier run's records").unwrap();
    let run = |games: &str, extra: &[&str]| {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("texel"));
        c.args(["selfplay", "--games", games, "--nodes", "400", "--openings"])
            .arg(&openings)
            .arg("--pgn")
            .arg(&pgn)
            .arg("--marlin")
            .arg(&marlin)
            .args(extra);
        c
    };
    // Refused as the PGN would be, before a game is played.
    let refused = fails(&mut assert_cmd::Command::from_std(run("2", &[])));
    assert!(
        refused.contains("--marlin") && refused.contains("--fresh"),
        "{refused}"
    );
    assert_eq!(std::fs::read(&marlin).unwrap(), b"an earlier run's records");
    assert!(!pgn.exists(), "nothing played");
    // --fresh replaces it with the new games' records.
    stdout_of(&mut assert_cmd::Command::from_std(run("2", &["--fresh"])));
    let records = std::fs::read(&marlin).unwrap();
    assert!(!records.is_empty() && records.len() % 32 == 0);
    // A stopped run writes the records of its finished games, and says so.
    std::fs::write(&marlin, b"an earlier run's records").unwrap();
    let said = tmp.path().join("said.txt");
    let mut stopped = run("24", &["--fresh"]);
    stopped.stdout(std::fs::File::create(&said).unwrap());
    std::fs::remove_file(&pgn).unwrap();
    let code = interrupt_after_two_games(stopped.spawn().unwrap(), &pgn);
    assert_eq!(code, Some(130));
    let text = std::fs::read_to_string(&said).unwrap();
    assert!(
        text.contains("finished games; --resume finishes the run"),
        "{text}"
    );
    let records = std::fs::read(&marlin).unwrap();
    assert!(!records.is_empty() && records.len() % 32 == 0, "{text}");
    let again = tmp.path().join("again.marlin");
    stdout_of(
        texel()
            .args(["convert", "--to", "marlin", "--pgn"])
            .arg(&pgn)
            .arg("--out")
            .arg(&again),
    );
    assert_eq!(
        records,
        std::fs::read(&again).unwrap(),
        "the finished games' records"
    );
}
