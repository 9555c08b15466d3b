//! The search finds mates, scores draws as draws, plays only legal moves, quiesces to a
//! quiet leaf, and its bench node count matches the signature.

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};
use std::sync::Arc;
use texel_eval::{parse_fen, Params};
use texel_search::{bench, key, quiesce, Limits, Searcher, BENCH_DEPTH, BENCH_NODES, MATE};

fn searcher() -> Searcher {
    Searcher::new(Arc::new(Params::default()), 16)
}

fn best(fen: &str, depth: u32) -> (String, i32) {
    let pos = parse_fen(fen).unwrap();
    let r = searcher().search(&pos, &[], &Limits::depth(depth), &mut |_| {});
    (
        UciMove::from_move(r.best.unwrap(), CastlingMode::Standard).to_string(),
        r.score,
    )
}

#[test]
fn mates_in_one_and_two_are_found() {
    // Back-rank mate.
    assert_eq!(
        best("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 3),
        ("a1a8".to_string(), MATE - 1)
    );
    // Scholar's mate.
    let (m, s) = best(
        "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        3,
    );
    assert_eq!((m.as_str(), s), ("f3f7", MATE - 1));
    // Mate in two: 1. Re8+ Rxe8 2. Rxe8#.
    let (m, s) = best("2r3k1/5ppp/8/8/8/8/4RPPP/4R1K1 w - - 0 1", 5);
    assert_eq!((m.as_str(), s), ("e2e8", MATE - 3));
}

#[test]
fn stalemate_and_repetition_score_zero() {
    let pos = parse_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").unwrap();
    assert!(pos.legal_moves().is_empty());
    let r = searcher().search(&pos, &[], &Limits::depth(3), &mut |_| {});
    assert_eq!((r.best, r.score), (None, 0));
    // A queen up, but the game already had every position White can move to: each move
    // repeats, so the search sees only draws.
    let pos = parse_fen("4k3/8/8/8/8/8/8/Q3K3 w - - 90 100").unwrap();
    let free = searcher().search(&pos, &[], &Limits::depth(3), &mut |_| {});
    assert!(free.score > 500, "{}", free.score);
    let mut history = Vec::new();
    for m in pos.legal_moves() {
        let mut child = pos.clone();
        child.play_unchecked(m);
        history.push(key(&child));
        history.push(0);
    }
    history.pop();
    let drawn = searcher().search(&pos, &history, &Limits::depth(3), &mut |_| {});
    assert_eq!(drawn.score, 0);
    let fen = "8/8/8/8/8/2k5/8/K7 w - - 0 1";
    let pos = parse_fen(fen).unwrap();
    let r = searcher().search(&pos, &[], &Limits::depth(4), &mut |_| {});
    assert_eq!(r.score, 0, "bare kings");
    let _ = key(&pos);
}

#[test]
fn quiescence_walks_to_a_quiet_leaf() {
    // White can win a queen with a pawn: the PV takes it and the leaf has no good capture.
    let pos = parse_fen("4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1").unwrap();
    let (score, pv) = quiesce(&pos, Arc::new(Params::default()));
    assert_eq!(pv.len(), 1);
    assert_eq!(
        UciMove::from_move(pv[0], CastlingMode::Standard).to_string(),
        "e4d5"
    );
    assert!(score > 0, "a queen for a pawn: {score}");
    let mut leaf = pos.clone();
    for m in &pv {
        leaf.play_unchecked(*m);
    }
    let (_, rest) = quiesce(&leaf, Arc::new(Params::default()));
    assert!(rest.is_empty(), "the leaf is quiet");
    // A quiet position stands pat.
    let (_, pv) = quiesce(&Chess::default(), Arc::new(Params::default()));
    assert!(pv.is_empty());
}

#[test]
fn self_play_moves_are_always_legal() {
    let mut s = searcher();
    for game in 0..6 {
        let mut pos = Chess::default();
        let mut keys = vec![key(&pos)];
        for ply in 0..120 {
            if pos.is_game_over() || pos.halfmoves() >= 100 {
                break;
            }
            let limits = Limits {
                nodes: Some(2_000 + 300 * (game + ply) as u64),
                ..Limits::default()
            };
            let r = s.search(&pos, &keys, &limits, &mut |_| {});
            let m = r.best.expect("a move when the game is not over");
            assert!(
                pos.legal_moves().contains(&m),
                "illegal {m:?} in game {game}"
            );
            pos.play_unchecked(m);
            keys.push(key(&pos));
        }
    }
}

#[test]
fn node_and_time_limits_are_kept() {
    let pos = Chess::default();
    let r = searcher().search(&pos, &[], &Limits::nodes(5_000), &mut |_| {});
    assert!(r.nodes <= 5_001 && r.best.is_some(), "{}", r.nodes);
    let limits = Limits {
        movetime: Some(std::time::Duration::from_millis(50)),
        ..Limits::default()
    };
    let start = std::time::Instant::now();
    let r = searcher().search(&pos, &[], &limits, &mut |_| {});
    assert!(r.best.is_some());
    assert!(start.elapsed() < std::time::Duration::from_millis(1000));
}

/// The bench's node count is its signature; `UPDATE_BENCH=1` writes a changed count into
/// `BENCH_NODES` (after a change to the evaluation or search meant to change it).
#[test]
fn bench_signature() {
    let r = bench(Arc::new(Params::default()), BENCH_DEPTH);
    if std::env::var_os("UPDATE_BENCH").is_some() && r.nodes != BENCH_NODES {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/bench.rs");
        let text = std::fs::read_to_string(path).unwrap();
        let old = format!("pub const BENCH_NODES: u64 = {};", grouped(BENCH_NODES));
        assert!(text.contains(&old), "{old} not found in {path}");
        let new = format!("pub const BENCH_NODES: u64 = {};", grouped(r.nodes));
        std::fs::write(path, text.replace(&old, &new)).unwrap();
        return;
    }
    assert_eq!(
        r.nodes, BENCH_NODES,
        "the bench node count changed: UPDATE_BENCH=1 cargo test --release -p texel-search \
         --test search bench_signature writes it, if intended"
    );
}

/// `n` with its digits in groups of three (`3_279_164`), as the constant is written.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('_');
        }
        out.push(c);
    }
    out
}
