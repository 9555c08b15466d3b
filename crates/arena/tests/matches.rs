//! Matches end to end: texel against itself, against Stockfish, and against engines that
//! crash, hang or talk nonsense; the PGN re-parses with pgn-reader.

use pgn_reader::{RawComment, RawTag, Reader, SanPlus, Visitor};
use shakmaty::{Chess, Position};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use texel_arena::engine::{EngineSpec, Kind, TimeControl};
use texel_arena::game::Adjudication;
use texel_arena::openings::read_openings;
use texel_arena::{run_match, MatchOptions};

fn texel(name: &str, nodes: u64) -> EngineSpec {
    EngineSpec {
        name: name.into(),
        kind: Kind::BuiltIn { params: None },
        tc: TimeControl::Nodes(nodes),
        hash_mb: 4,
        timeout: None,
    }
}

fn options(engines: Vec<EngineSpec>, games: u32, pgn: &Path) -> MatchOptions {
    MatchOptions {
        engines,
        round_robin: false,
        games,
        concurrency: 2,
        openings: vec![],
        random_plies: 6,
        seed: 7,
        adjudication: Adjudication {
            resign_cp: Some(1000),
            resign_plies: 6,
            max_plies: 300,
            ..Default::default()
        },
        pgn: Some(pgn.to_path_buf()),
        sprt: None,
        event: "test".into(),
        first_round: 1,
        earlier: Vec::new(),
    }
}

/// Replays every game of a PGN file: (result tag, moves, comments, termination).
struct Replay {
    games: Vec<(String, usize, usize, String)>,
}

impl Visitor for Replay {
    type Tags = (String, String, Option<Chess>);
    type Movetext = (Chess, usize, usize, String, String);
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), Self::Tags> {
        ControlFlow::Continue((String::new(), String::new(), None))
    }
    fn tag(&mut self, tags: &mut Self::Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<()> {
        let v = String::from_utf8(value.as_bytes().to_vec()).unwrap();
        match name {
            b"Result" => tags.0 = v,
            b"Termination" => tags.1 = v,
            b"FEN" => tags.2 = Some(texel_eval::parse_fen(&v).unwrap()),
            _ => {}
        }
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<(), Self::Movetext> {
        ControlFlow::Continue((tags.2.unwrap_or_default(), 0, 0, tags.0, tags.1))
    }
    fn san(&mut self, m: &mut Self::Movetext, san: SanPlus) -> ControlFlow<()> {
        let mv = san.san.to_move(&m.0).expect("every PGN move is legal");
        m.0.play_unchecked(mv);
        m.1 += 1;
        ControlFlow::Continue(())
    }
    fn comment(&mut self, m: &mut Self::Movetext, _c: RawComment<'_>) -> ControlFlow<()> {
        m.2 += 1;
        ControlFlow::Continue(())
    }
    fn end_game(&mut self, m: Self::Movetext) {
        self.games.push((m.3, m.1, m.2, m.4));
    }
}

fn replay(pgn: &Path) -> Vec<(String, usize, usize, String)> {
    let mut reader = Reader::new(std::fs::File::open(pgn).unwrap());
    let mut visitor = Replay { games: vec![] };
    while reader.read_game(&mut visitor).unwrap().is_some() {}
    visitor.games
}

#[test]
fn texel_against_texel_writes_pgn_that_reparses() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let pgn = dir.join("games.pgn");
    let report = run_match(
        &options(vec![texel("a", 1500), texel("b", 1500)], 6, &pgn),
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .unwrap();
    let s = report.pairings[0].score;
    assert_eq!(s.games(), 6);
    let games = replay(&pgn);
    assert_eq!(games.len(), 6);
    for (result, moves, comments, termination) in &games {
        assert!(["1-0", "0-1", "1/2-1/2"].contains(&result.as_str()));
        assert!(
            *moves > 6 && *comments + 6 >= *moves,
            "{moves} moves, {comments} comments"
        );
        assert!(!termination.is_empty());
    }
    let white_wins = games.iter().filter(|g| g.0 == "1-0").count() as u32;
    let black_wins = games.iter().filter(|g| g.0 == "0-1").count() as u32;
    assert_eq!(white_wins + black_wins, s.wins + s.losses);
}

#[test]
fn a_match_against_stockfish_completes() {
    let sf = PathBuf::from("/usr/games/stockfish");
    assert!(
        sf.exists(),
        "stockfish from Debian is needed (apt-get install stockfish; .ci/run installs it)"
    );
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let pgn = dir.join("games.pgn");
    let stockfish = EngineSpec {
        name: "stockfish".into(),
        kind: Kind::Uci {
            cmd: sf,
            args: vec![],
            options: vec![("Threads".into(), "1".into())],
        },
        tc: TimeControl::Nodes(2000),
        hash_mb: 4,
        timeout: None,
    };
    let report = run_match(
        &options(vec![texel("texel", 2000), stockfish], 2, &pgn),
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(report.pairings[0].score.games(), 2);
    assert_eq!(replay(&pgn).len(), 2);
}

/// A fake UCI engine written as a shell script.
fn script(dir: &Path, name: &str, on_go: &str) -> EngineSpec {
    let path = dir.join(name);
    let body = format!(
        "#!/bin/sh\nwhile read line; do case \"$line\" in uci) echo uciok;; isready) echo readyok;; go*) {on_go};; quit) exit 0;; esac; done\n"
    );
    std::fs::write(&path, body).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    EngineSpec {
        name: name.into(),
        kind: Kind::Uci {
            cmd: path,
            args: vec![],
            options: vec![],
        },
        tc: TimeControl::MoveTime(Duration::from_millis(100)),
        hash_mb: 1,
        timeout: None,
    }
}

#[test]
fn broken_engines_lose_with_the_reason_and_never_hang() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let pgn = dir.join("games.pgn");
    let engines = vec![
        texel("texel", 500),
        script(&dir, "garbage", "echo bestmove z9z9"),
        script(&dir, "crasher", "exit 1"),
        script(&dir, "sleeper", "sleep 30"),
    ];
    let missing = EngineSpec {
        name: "missing".into(),
        kind: Kind::Uci {
            cmd: "/nonexistent/engine".into(),
            args: vec![],
            options: vec![],
        },
        tc: TimeControl::Nodes(10),
        hash_mb: 1,
        timeout: None,
    };
    // An engine that does not start stops the match before any game.
    let mut with_missing = engines.clone();
    with_missing.push(missing);
    let err = run_match(
        &options(with_missing, 2, &pgn),
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("engine missing does not start"),
        "{err}"
    );
    assert!(!pgn.exists());
    let start = std::time::Instant::now();
    let report = run_match(
        &options(engines, 2, &pgn),
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(25),
        "no hang: {:?}",
        start.elapsed()
    );
    for p in &report.pairings {
        assert_eq!(
            (p.score.wins, p.score.games()),
            (2, 2),
            "{} beats {}",
            p.first,
            p.second
        );
    }
    let reasons: Vec<&str> = report
        .terminations
        .iter()
        .map(|(r, _)| r.as_str())
        .collect();
    let has = |text: &str| reasons.iter().any(|r| r.contains(text));
    assert!(has("illegal move z9z9"), "{reasons:?}");
    assert!(has("engine crashed"), "{reasons:?}");
    assert!(has("did not answer in time"), "{reasons:?}");
    assert_eq!(replay(&pgn).len(), 6);
}

#[test]
fn openings_come_from_epd_and_pgn_and_bad_ones_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let epd = dir.join("o.epd");
    std::fs::write(&epd, "# two lines\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n4k3/8/8/8/8/8/4P3/4K3 w - -\n").unwrap();
    assert_eq!(read_openings(&epd).unwrap().len(), 2);
    let pgn = dir.join("o.pgn");
    std::fs::write(
        &pgn,
        "[Event \"a\"]\n\n1. e4 e5 2. Nf3 *\n\n[Event \"b\"]\n\n1. d4 (1. c4) d5 *\n",
    )
    .unwrap();
    let lines = read_openings(&pgn).unwrap();
    assert_eq!(
        lines.iter().map(|o| o.moves.len()).collect::<Vec<_>>(),
        vec![3, 2]
    );
    std::fs::write(&pgn, "[Event \"a\"]\n\n1. e4 e5 2. Ke3 *\n").unwrap();
    assert!(read_openings(&pgn)
        .unwrap_err()
        .to_string()
        .contains("illegal move Ke3"));
    std::fs::write(&epd, "not a fen\n").unwrap();
    assert!(read_openings(&epd)
        .unwrap_err()
        .to_string()
        .contains("line 1"));
    // A file without any opening is a mistake, not the start position.
    std::fs::write(&epd, "# only a comment\n\n").unwrap();
    assert!(read_openings(&epd)
        .unwrap_err()
        .to_string()
        .contains("holds no opening"));

    // Both games of a pair start from the same opening with colours swapped (the engines
    // differ: two that play alike would get a start each).
    let out = dir.join("games.pgn");
    let mut o = options(vec![texel("a", 300), texel("b", 301)], 2, &out);
    o.openings = lines;
    o.random_plies = 0;
    run_match(&o, &AtomicBool::new(false), &mut |_| {}).unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    let starts: Vec<&str> = text.lines().filter(|l| l.starts_with("1. ")).collect();
    assert_eq!(starts.len(), 2);
    let line = |s: &str| s.split(" {").next().unwrap().to_string();
    let opening = line(starts[0]);
    assert!(
        opening.starts_with("1. e4 e5 2. Nf3") || opening.starts_with("1. d4 d5"),
        "{opening}"
    );
    assert!(starts[1].starts_with(
        opening
            .split(' ')
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
            .as_str()
    ));
    assert!(text.contains("[White \"a\"]") && text.contains("[White \"b\"]"));
}

#[test]
fn sprt_stops_a_one_sided_match_early() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let pgn = dir.join("games.pgn");
    let zero = dir.join("zero.json");
    std::fs::write(
        &zero,
        "{\"PIECE_VALUE\": [[0, 0], [0, 0], [0, 0], [0, 0], [0, 0]]}",
    )
    .unwrap();
    let weak = EngineSpec {
        kind: Kind::BuiltIn { params: Some(zero) },
        ..texel("weak", 600)
    };
    let mut o = options(vec![texel("strong", 600), weak], 200, &pgn);
    o.sprt = Some(texel_arena::sprt::SprtTest::logistic(0.0, 50.0));
    let report = run_match(&o, &AtomicBool::new(false), &mut |_| {}).unwrap();
    let games = report.pairings[0].score.games();
    assert!(games < 200, "stopped after {games} games");
    assert!(
        matches!(report.sprt, Some(texel_arena::elo::Sprt::AcceptH1(_))),
        "{:?}",
        report.sprt
    );
}

/// The move lists of a match's games (`start FEN | opening and random plies | game`), and
/// its report.
fn move_lists(o: &MatchOptions) -> (Vec<String>, texel_arena::MatchReport) {
    let mut lists = Vec::new();
    let report = run_match(o, &AtomicBool::new(false), &mut |p| {
        let (opening, game): (Vec<_>, Vec<_>) =
            p.last.moves.iter().partition(|m| m.comment.is_none());
        let sans = |m: Vec<&texel_arena::game::Played>| {
            m.iter()
                .map(|m| m.san.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let start =
            shakmaty::fen::Fen::from_position(&p.last.start, shakmaty::EnPassantMode::Legal);
        lists.push(format!("{start} | {} | {}", sans(opening), sans(game)));
    })
    .unwrap();
    (lists, report)
}

#[test]
fn self_play_of_one_engine_has_no_twin_games() {
    let tmp = tempfile::tempdir().unwrap();
    let pgn = tmp.path().join("games.pgn");
    let mut o = options(vec![texel("texel", 300), texel("texel-2", 300)], 50, &pgn);
    o.random_plies = 2;
    let (lists, report) = move_lists(&o);
    let distinct: std::collections::HashSet<&String> = lists.iter().collect();
    assert_eq!((lists.len(), distinct.len()), (50, 50));
    assert!(!report.pairings[0].paired);
    assert_eq!(
        report.pairings[0].pairs.pairs(),
        0,
        "unpaired games form no pairs"
    );
    // Engines that differ keep colour-swapped pairs of one start: 25 starts for 50 games.
    o.engines[1] = texel("texel-301", 301);
    o.pgn = None;
    let (lists, report) = move_lists(&o);
    let starts: std::collections::HashSet<&str> = lists
        .iter()
        .map(|l| l.rsplit_once(" | ").unwrap().0)
        .collect();
    assert!(report.pairings[0].paired);
    assert_eq!(report.pairings[0].pairs.pairs(), 25);
    assert_eq!(starts.len(), 25);
}

#[test]
fn hundreds_of_fast_self_play_games_have_only_legal_moves() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let pgn = dir.join("games.pgn");
    let mut o = options(vec![texel("a", 150), texel("b", 150)], 200, &pgn);
    o.adjudication = Adjudication {
        resign_cp: Some(800),
        resign_plies: 4,
        max_plies: 200,
        ..Default::default()
    };
    o.random_plies = 8;
    let report = run_match(&o, &AtomicBool::new(false), &mut |_| {}).unwrap();
    assert_eq!(report.pairings[0].score.games(), 200);
    // Replaying checks every move's legality (the visitor panics on an illegal one).
    let games = replay(&pgn);
    assert_eq!(games.len(), 200);
    assert!(
        report
            .terminations
            .iter()
            .all(|(r, _)| !r.contains("illegal")),
        "{:?}",
        report.terminations
    );
}
