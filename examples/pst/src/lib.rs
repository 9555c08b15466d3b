//! A small evaluation written from scratch to show how a Rust engine plugs into texel:
//! material and piece-square tables, each value tapered between the middlegame and the
//! endgame by the material left on the board. [`PstEval`] evaluates positions directly
//! (as an engine would) and implements [`Traceable`], so `texel_tune::tune_engine` tunes
//! its tables. [`search`] plays with it (the `pst-uci` binary), and `pst-trace` writes its
//! trace of an EPD file, so `texel loop --engine examples/pst/engine.json` tunes it on its
//! own games.

pub mod search;

use shakmaty::{Chess, Color, Position, Role, Square};
use std::path::Path;
use texel_tune::texel_trace::{Coef, Param, ParamSpace, TracedPosition, ValuesFileError};
use texel_tune::Traceable;

/// The roles in table order.
pub const ROLES: [Role; 6] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

/// Phase points of a role: a knight or bishop 1, a rook 2, a queen 4 (24 at the start).
fn phase_points(role: Role) -> u32 {
    match role {
        Role::Knight | Role::Bishop => 1,
        Role::Rook => 2,
        Role::Queen => 4,
        Role::Pawn | Role::King => 0,
    }
}

/// The full phase: every piece of the start on the board.
pub const FULL_PHASE: u32 = 24;

/// The weight of the middlegame values in `pos`: 1 with all pieces on, 0 with none.
pub fn phase(pos: &Chess) -> f32 {
    let board = pos.board();
    let points: u32 = board
        .occupied()
        .into_iter()
        .filter_map(|sq| board.role_at(sq))
        .map(phase_points)
        .sum();
    points.min(FULL_PHASE) as f32 / FULL_PHASE as f32
}

/// The table's square of a piece of `color` on `sq`: Black's pieces read White's tables
/// upside down.
fn table_square(color: Color, sq: Square) -> usize {
    match color {
        Color::White => usize::from(sq),
        Color::Black => usize::from(sq.flip_vertical()),
    }
}

/// Values of the evaluation, flat: material (5 roles, a middlegame and an endgame value
/// each), then per role a 64-square table of middlegame and endgame values.
#[derive(Clone, Debug, PartialEq)]
pub struct PstEval {
    /// The flat values, in the order of [`PstEval::space`].
    pub values: Vec<i32>,
}

/// Where the piece-square tables begin in the flat values.
const TABLES: usize = 10;

impl PstEval {
    /// The evaluation with the given flat values.
    pub fn new(values: Vec<i32>) -> PstEval {
        assert_eq!(
            values.len(),
            TABLES + 6 * 128,
            "5 piece values and 6 tables, tapered"
        );
        PstEval { values }
    }

    /// Material alone: pawn 100, knight 300, bishop 320, rook 500, queen 900 in both phases,
    /// every table entry 0 (the start of `examples/pst/start.json`).
    pub fn material() -> PstEval {
        let mut values = vec![0; TABLES + 6 * 128];
        for (r, worth) in [100, 300, 320, 500, 900].into_iter().enumerate() {
            values[2 * r..2 * r + 2].fill(worth);
        }
        PstEval::new(values)
    }

    /// The evaluation with the values of the values file `path` (texel's values file of
    /// this evaluation's parameters; those it leaves out are [`PstEval::material`]'s).
    ///
    /// # Errors
    /// The file cannot be read or is not values of these parameters.
    pub fn read(path: &Path) -> Result<PstEval, ValuesFileError> {
        PstEval::material()
            .space()
            .read_values(path)
            .map(PstEval::new)
    }

    /// The evaluation of `pos` in centipawns from White's view, computed directly from the
    /// board (not through the trace), rounded as an engine would.
    pub fn evaluate(&self, pos: &Chess) -> i32 {
        let p = f64::from(phase(pos));
        let (mut mid, mut end) = (0i64, 0i64);
        let board = pos.board();
        for sq in board.occupied() {
            let piece = board.piece_at(sq).expect("an occupied square");
            let r = ROLES.iter().position(|&x| x == piece.role).expect("a role");
            let sign = if piece.color == Color::White { 1 } else { -1 };
            let mut add = |slot: usize| {
                mid += sign * i64::from(self.values[slot]);
                end += sign * i64::from(self.values[slot + 1]);
            };
            if r < 5 {
                add(2 * r);
            }
            add(TABLES + 128 * r + 2 * table_square(piece.color, sq));
        }
        (p * mid as f64 + (1.0 - p) * end as f64).round() as i32
    }
}

impl Traceable for PstEval {
    type Position = Chess;

    fn space(&self) -> ParamSpace {
        let param = |name: String, len: usize, default: &[i32]| Param {
            name,
            len,
            tapered: true,
            default: default.to_vec(),
            group: Some(if len == 5 { "material" } else { "tables" }.into()),
            candidate: false,
        };
        let mut params = vec![param("MATERIAL".into(), 5, &self.values[..TABLES])];
        for (r, role) in ROLES.iter().enumerate() {
            let name = format!("{}_PST", format!("{role:?}").to_uppercase());
            let at = TABLES + 128 * r;
            params.push(param(name, 64, &self.values[at..at + 128]));
        }
        ParamSpace::new(params).expect("names are distinct, defaults fit")
    }

    fn trace(&self, pos: &Chess) -> TracedPosition {
        let board = pos.board();
        let mut coeffs = Vec::new();
        for sq in board.occupied() {
            let piece = board.piece_at(sq).expect("an occupied square");
            let r = ROLES.iter().position(|&x| x == piece.role).expect("a role");
            let count = if piece.color == Color::White {
                1.0
            } else {
                -1.0
            };
            if r < 5 {
                coeffs.push(Coef::Count(r as u32, count));
            }
            let entry = 5 + 64 * r + table_square(piece.color, sq);
            coeffs.push(Coef::Count(entry as u32, count));
        }
        TracedPosition {
            result: 0.5,
            phase: phase(pos),
            scale: 1.0,
            coeffs,
            ..TracedPosition::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::CastlingMode;

    fn position(fen: &str) -> Chess {
        let fen: Fen = fen.parse().unwrap();
        fen.into_position(CastlingMode::Standard).unwrap()
    }

    #[test]
    fn the_trace_gives_the_direct_evaluation() {
        let values: Vec<i32> = (0..TABLES + 6 * 128)
            .map(|i| (i as i32 * 37) % 101 - 50)
            .collect();
        let eval = PstEval::new(values.clone());
        let space = eval.space();
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 99 50",
            "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 9",
        ] {
            let pos = position(fen);
            let traced = eval.trace(&pos).eval(&space, &values).round() as i32;
            assert_eq!(traced, eval.evaluate(&pos), "{fen}");
        }
    }

    #[test]
    fn the_start_is_even_and_a_mirrored_position_scores_the_negation() {
        let values: Vec<i32> = (0..TABLES + 6 * 128)
            .map(|i| (i as i32 * 13) % 41)
            .collect();
        let eval = PstEval::new(values);
        let start = position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert_eq!(eval.evaluate(&start), 0);
        let white = position("4k3/8/8/8/8/2N5/1P6/4K3 w - - 0 1");
        let black = position("4k3/1p6/2n5/8/8/8/8/4K3 b - - 0 1");
        assert_eq!(eval.evaluate(&white), -eval.evaluate(&black));
        assert_ne!(eval.evaluate(&white), 0);
    }
}
