//! A small alpha-beta search over [`PstEval`], enough for the evaluation to play games at a
//! fixed number of nodes (`go nodes N`), as `texel loop --engine` asks: iterative deepening,
//! negamax with alpha-beta, a capture search at the leaves, captures tried first (most
//! valuable victim, least valuable attacker). No hash table, no pruning beyond alpha-beta.

use crate::PstEval;
use shakmaty::{Chess, Color, Move, MoveList, Position, Role};

/// A score beyond any evaluation: mate in `ply` scores `MATE - ply`.
pub const MATE: i32 = 30_000;
/// The deepest iteration tried.
const MAX_DEPTH: u32 = 64;

/// What a search found.
#[derive(Clone, Debug)]
pub struct Found {
    /// The best move of the last finished iteration (`None` when there is no legal move).
    pub best: Option<Move>,
    /// Its score in centipawns from the side to move's view.
    pub score: i32,
    /// The depth of the last finished iteration.
    pub depth: u32,
    /// Nodes visited.
    pub nodes: u64,
}

/// How far a search may go.
#[derive(Clone, Copy, Debug)]
pub struct Limit {
    /// Stop after this many nodes.
    pub nodes: u64,
    /// Stop after this iteration.
    pub depth: u32,
}

/// Searches `pos` with `eval` within `limit`; `on_iteration` hears of each finished one.
pub fn search(
    eval: &PstEval,
    pos: &Chess,
    limit: Limit,
    mut on_iteration: impl FnMut(&Found),
) -> Found {
    let mut tree = Tree {
        eval,
        nodes: 0,
        limit: limit.nodes.max(1),
        stopped: false,
    };
    let mut found = Found {
        best: pos.legal_moves().first().copied(),
        score: 0,
        depth: 0,
        nodes: 0,
    };
    for depth in 1..=limit.depth.clamp(1, MAX_DEPTH) {
        let (best, score) = tree.root(pos, depth, found.best.as_ref());
        if tree.stopped || best.is_none() {
            break;
        }
        found = Found {
            best,
            score,
            depth,
            nodes: tree.nodes,
        };
        on_iteration(&found);
    }
    found.nodes = tree.nodes;
    found
}

/// One search's state.
struct Tree<'a> {
    eval: &'a PstEval,
    nodes: u64,
    limit: u64,
    stopped: bool,
}

impl Tree<'_> {
    /// The best root move at `depth` and its score, the previous best tried first.
    fn root(&mut self, pos: &Chess, depth: u32, first: Option<&Move>) -> (Option<Move>, i32) {
        let mut moves = ordered(pos.legal_moves());
        if let Some(at) = first.and_then(|m| moves.iter().position(|x| x == m)) {
            let m = moves.remove(at);
            moves.insert(0, m);
        }
        let (mut best, mut alpha) = (None, -MATE);
        for m in moves {
            let score = -self.negamax(&after(pos, &m), depth - 1, -MATE, -alpha, 1);
            if self.stopped {
                break;
            }
            if score > alpha || best.is_none() {
                (best, alpha) = (Some(m), score);
            }
        }
        (best, alpha)
    }

    /// Counts a node; true when the search must stop.
    fn spent(&mut self) -> bool {
        self.nodes += 1;
        self.stopped |= self.nodes >= self.limit;
        self.stopped
    }

    fn negamax(&mut self, pos: &Chess, depth: u32, alpha: i32, beta: i32, ply: i32) -> i32 {
        if depth == 0 {
            return self.quiesce(pos, alpha, beta);
        }
        if self.spent() {
            return 0;
        }
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return if pos.is_check() { ply - MATE } else { 0 };
        }
        if pos.halfmoves() >= 100 || pos.is_insufficient_material() {
            return 0;
        }
        self.best_of(pos, ordered(moves), (alpha, beta), |tree, next, window| {
            tree.negamax(next, depth - 1, window.0, window.1, ply + 1)
        })
    }

    /// Captures only, standing pat on the evaluation.
    fn quiesce(&mut self, pos: &Chess, mut alpha: i32, beta: i32) -> i32 {
        if self.spent() {
            return 0;
        }
        let stand = from_mover(pos, self.eval.evaluate(pos));
        if stand >= beta {
            return stand;
        }
        alpha = alpha.max(stand);
        self.best_of(
            pos,
            ordered(pos.capture_moves()),
            (alpha, beta),
            |tree, next, window| tree.quiesce(next, window.0, window.1),
        )
    }

    /// Alpha-beta over `moves` from `pos` in the window (alpha, beta): each move's score is
    /// the negation of `child` on the position after it, in the negated window.
    fn best_of(
        &mut self,
        pos: &Chess,
        moves: Vec<Move>,
        (mut alpha, beta): (i32, i32),
        child: impl Fn(&mut Self, &Chess, (i32, i32)) -> i32,
    ) -> i32 {
        for m in moves {
            let score = -child(self, &after(pos, &m), (-beta, -alpha));
            if self.stopped {
                return 0;
            }
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        alpha
    }
}

/// A score from White's view turned to the side to move's.
fn from_mover(pos: &Chess, white: i32) -> i32 {
    match pos.turn() {
        Color::White => white,
        Color::Black => -white,
    }
}

fn after(pos: &Chess, m: &Move) -> Chess {
    let mut next = pos.clone();
    next.play_unchecked(*m);
    next
}

/// The moves, captures and promotions first: the most valuable victim, then the least
/// valuable attacker.
fn ordered(moves: MoveList) -> Vec<Move> {
    let worth = |r: Option<Role>| r.map_or(0, |r| r as i32);
    let mut moves: Vec<Move> = moves.into_iter().collect();
    moves.sort_by_key(|m| {
        let gain = 8 * (worth(m.capture()) + worth(m.promotion()));
        let attacker = if gain > 0 { worth(Some(m.role())) } else { 0 };
        -(gain - attacker)
    });
    moves
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

    fn best(fen: &str, nodes: u64) -> (String, Found) {
        let found = search(
            &PstEval::material(),
            &position(fen),
            Limit { nodes, depth: 64 },
            |_| {},
        );
        let m = found.best.unwrap();
        (m.to_uci(CastlingMode::Standard).to_string(), found)
    }

    #[test]
    fn it_mates_in_one_and_scores_the_mate() {
        let (m, found) = best("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 20_000);
        assert_eq!(m, "a1a8");
        assert_eq!(found.score, MATE - 1);
    }

    #[test]
    fn it_takes_a_hanging_queen_and_not_a_defended_pawn() {
        assert_eq!(best("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1", 20_000).0, "d2d5");
        let (m, _) = best("4k3/2p5/3p4/8/8/8/3Q4/4K3 w - - 0 1", 20_000);
        assert_ne!(m, "d2d6");
    }

    #[test]
    fn it_stops_at_its_node_limit_and_keeps_a_finished_iteration() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let mut depths = Vec::new();
        let found = search(
            &PstEval::material(),
            &position(start),
            Limit {
                nodes: 3_000,
                depth: 64,
            },
            |f| depths.push(f.depth),
        );
        assert_eq!(found.nodes, 3_000);
        assert_eq!(found.depth, *depths.last().unwrap());
        assert!(found.depth >= 2, "{depths:?}");
        assert!(found.best.is_some());
    }

    #[test]
    fn a_position_without_moves_has_no_best_move() {
        let mated = "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1";
        let found = search(
            &PstEval::material(),
            &position(mated),
            Limit {
                nodes: 100,
                depth: 64,
            },
            |_| {},
        );
        assert!(found.best.is_none());
    }
}
