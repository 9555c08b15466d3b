//! `tune_engine` on a Rust engine whose evaluation is not linear: a king safety whose danger
//! sum is squared in the middlegame and taken as it is in the endgame, both clamped at zero,
//! declared through the trait's inner sums. Its danger values must be tuned, not dropped.

mod common;

use common::draw;
use texel_tune::texel_trace::{
    Coef, Curve, InnerSum, InnerTerm, Param, ParamSpace, Shape, TracedPosition,
};
use texel_tune::{tune_engine, EngineTune, Traceable};

/// A position of the small engine: material counts and each side's attackers of the king.
struct Board {
    pawns: i32,
    knights: i32,
    phase: f32,
    /// Attackers of Black's king by White (knights, queens), then of White's by Black.
    attackers: [[i32; 2]; 2],
}

/// Material plus a king safety: `DANGER` counts attackers into a danger sum a side's king
/// suffers, squared (middlegame, times −1/250) or as it is (endgame, times −1/4), clamped
/// at zero.
struct KingSafetyEngine;

/// Flat slots: PAWN 0–1, KNIGHT 2–3, DANGER 4–7 (knight mid/end, queen mid/end).
const TRUTH: [i32; 8] = [90, 110, 300, 290, 40, 25, 70, 45];

impl Traceable for KingSafetyEngine {
    type Position = Board;

    fn space(&self) -> ParamSpace {
        let param = |name: &str, len: usize, default: Vec<i32>| Param {
            name: name.into(),
            len,
            tapered: true,
            default,
            group: None,
            candidate: false,
        };
        let shape = |curve, times| Shape {
            curve,
            floor: Some(0.0),
            ceiling: None,
            times,
            times_value: None,
        };
        ParamSpace::new(vec![
            param("PAWN", 1, vec![100, 100]),
            param("KNIGHT", 1, vec![300, 300]),
            param("DANGER", 2, vec![10, 10, 10, 10]),
        ])
        .unwrap()
        .with_inner(vec![InnerTerm {
            name: "king_safety".into(),
            mid: Some(shape(Curve::Square, -1.0 / 250.0)),
            end: Some(shape(Curve::Linear, -0.25)),
        }])
        .unwrap()
    }

    fn trace(&self, board: &Board) -> TracedPosition {
        // White's attackers make Black's king suffer: Black's danger sum, which subtracts.
        let danger = |side: f32, [knights, queens]: [i32; 2]| InnerSum {
            term: 0,
            side,
            offset: [-20.0, -10.0],
            coeffs: vec![
                Coef::Count(2, knights as f32),
                Coef::Count(3, queens as f32),
            ],
        };
        TracedPosition {
            phase: board.phase,
            scale: 1.0,
            coeffs: vec![
                Coef::Count(0, board.pawns as f32),
                Coef::Count(1, board.knights as f32),
            ],
            inner: vec![
                danger(-1.0, board.attackers[0]),
                danger(1.0, board.attackers[1]),
            ],
            ..TracedPosition::default()
        }
    }
}

/// `n` boards labelled with the expected score of their evaluation under [`TRUTH`] (K = 1).
fn planted(n: usize) -> Vec<(Board, f32)> {
    let (engine, space, mut s) = (KingSafetyEngine, KingSafetyEngine.space(), 5);
    (0..n)
        .map(|_| {
            let side = |s: &mut u64| [draw(s, 4) as i32, draw(s, 2) as i32];
            let board = Board {
                pawns: draw(&mut s, 5) as i32 - 2,
                knights: draw(&mut s, 3) as i32 - 1,
                phase: draw(&mut s, 25) as f32 / 24.0,
                attackers: [side(&mut s), side(&mut s)],
            };
            let q = engine.trace(&board).eval(&space, &TRUTH);
            let label = (1.0 / (1.0 + 10f64.powf(-q / 400.0))) as f32;
            (board, label)
        })
        .collect()
}

#[test]
fn a_rust_engines_king_safety_is_tuned_through_its_inner_sums() {
    let positions = planted(6_000);
    let mut tune = EngineTune::default();
    tune.settings.k = Some(1.0);
    let tuned = tune_engine(&KingSafetyEngine, &positions, &tune).unwrap();
    // Every danger value moved from its start of 10 to the value that made the labels.
    for (slot, (&found, &truth)) in tuned.values.iter().zip(&TRUTH).enumerate() {
        let tolerance = (truth.abs() / 10).max(3);
        assert!(
            (found - truth).abs() <= tolerance,
            "slot {slot}: {found} where the labels were made with {truth}: {:?}",
            tuned.values
        );
    }
    assert!(
        tuned.errors.1 < tuned.errors.0 / 100.0,
        "{:?}",
        tuned.errors
    );
}
