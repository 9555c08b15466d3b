//! The piece-square evaluation as an outside engine for `texel loop --engine`: its start
//! values file, its UCI front and its trace writer, run as the loop runs them.

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use texel_example_pst::PstEval;
use texel_tune::texel_trace::read_trace;
use texel_tune::Traceable;

fn start_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("start.json")
}

#[test]
fn the_shipped_start_is_material_alone() {
    let eval = PstEval::read(&start_file()).unwrap();
    assert_eq!(eval, PstEval::material());
    let shipped: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(start_file()).unwrap()).unwrap();
    assert_eq!(shipped, eval.space().to_json(&eval.values));
}

/// What the UCI front says to `input`.
fn uci(input: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pst-uci"))
        .arg(start_file())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_uci_front_plays_a_legal_move_within_its_nodes() {
    let said = uci("uci\nisready\nposition startpos moves e2e4 e7e5 g1f3\ngo nodes 2000\nquit\n");
    assert!(said.contains("uciok\nreadyok\n"), "{said}");
    let mut pos = Chess::default();
    for m in ["e2e4", "e7e5", "g1f3"] {
        let m = m.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(m);
    }
    let best = said
        .lines()
        .last()
        .unwrap()
        .strip_prefix("bestmove ")
        .unwrap();
    assert!(
        best.parse::<UciMove>().unwrap().to_move(&pos).is_ok(),
        "{said}"
    );
    let nodes: Vec<u64> = said
        .lines()
        .filter_map(|l| l.split(" nodes ").nth(1)?.parse().ok())
        .collect();
    assert!(
        !nodes.is_empty() && nodes.iter().all(|&n| n < 2000),
        "{said}"
    );
}

#[test]
fn the_uci_front_refuses_a_values_file_of_another_engine() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("other.json");
    std::fs::write(&bad, r#"{"QUEEN": [900, 900]}"#).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_pst-uci"))
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("QUEEN"));
}

#[test]
fn the_trace_writer_gives_each_line_its_label_and_the_evaluation() {
    let dir = tempfile::tempdir().unwrap();
    let (epd, trace) = (dir.path().join("p.epd"), dir.path().join("p.trace"));
    let fens = [
        (
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 game 7; ce 20;",
            1.0,
        ),
        ("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1", 0.0),
    ];
    let text: String = fens
        .iter()
        .map(|(f, r)| format!("{f} [{r:.1}]\n"))
        .collect();
    std::fs::write(&epd, text).unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_pst-trace"))
        .args([&epd, &trace])
        .status()
        .unwrap();
    let (space, positions) = read_trace(&trace).unwrap();
    assert!(status.success());
    let eval = PstEval::material();
    assert_eq!(space, eval.space());
    for ((line, result), p) in fens.iter().zip(&positions) {
        // The line's game is the position's in the trace: a tune holds out whole games.
        let game = line.contains("game 7;").then_some(7);
        assert_eq!(p.game, game);
        let fen = line;
        let fen: Fen = fen.split(" game ").next().unwrap().parse().unwrap();
        let pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
        assert_eq!(p.result, *result as f32);
        assert_eq!(
            p.eval(&space, &eval.values).round() as i32,
            eval.evaluate(&pos)
        );
    }
}
