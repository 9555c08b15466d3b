//! When a search stops: depth, nodes, fixed time, or a clock.

use std::time::{Duration, Instant};

/// The limits of one search (UCI `go` parameters). All `None`: search until stopped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    /// Maximum depth in plies.
    pub depth: Option<u32>,
    /// Maximum nodes.
    pub nodes: Option<u64>,
    /// Fixed time for this move.
    pub movetime: Option<Duration>,
    /// Time left on the mover's clock.
    pub time: Option<Duration>,
    /// Increment per move.
    pub increment: Duration,
    /// Moves until the next time control (sudden death when `None`).
    pub moves_to_go: Option<u32>,
    /// Search until stopped, even after a forced mate is found (UCI `go infinite`).
    pub infinite: bool,
    /// Look for a mate in at most this many moves: stop when one is found, and search no
    /// deeper than such a mate needs (UCI `go mate`).
    pub mate: Option<u32>,
    /// Search only these root moves (UCI `go searchmoves`); empty: every legal move.
    pub searchmoves: Vec<shakmaty::Move>,
    /// The best lines to search and report (UCI `MultiPV`); 0 or 1: the best line only.
    pub multipv: usize,
}

/// Deadlines worked out when a search starts.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Deadlines {
    /// Do not start another iteration after this.
    pub soft: Option<Instant>,
    /// Stop searching at once after this.
    pub hard: Option<Instant>,
}

impl Limits {
    /// A depth limit only.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// A node limit only.
    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    /// The deepest iteration: the depth limit, and no deeper than a mate in `mate` moves
    /// needs (two plies more than its length, for the pruning), within `1..=max`.
    pub(crate) fn max_depth(&self, max: u32) -> u32 {
        let mate_depth = self.mate.map(|m| m.saturating_mul(2).saturating_add(1));
        let depth = match (self.depth, mate_depth) {
            (Some(d), Some(m)) => d.min(m),
            (d, m) => d.or(m).unwrap_or(max),
        };
        depth.clamp(1, max)
    }

    /// Whether `score` (side to move's view) is a mate in at most `mate` moves.
    pub(crate) fn mate_found(&self, score: i32) -> bool {
        self.mate.is_some_and(|m| {
            let plies = i64::from(crate::MATE) - i64::from(score);
            (0..i64::from(m) * 2).contains(&plies)
        })
    }

    /// Deadlines from now: a fixed move time is used in full; with a clock, a share of the
    /// remaining time (over `moves_to_go`, or 30 moves) plus most of the increment, never
    /// more than a third of what is left; the hard limit is three times the soft one.
    pub(crate) fn deadlines(&self, start: Instant) -> Deadlines {
        if let Some(t) = self.movetime {
            return Deadlines {
                soft: Some(start + t),
                hard: Some(start + t),
            };
        }
        let Some(left) = self.time else {
            return Deadlines {
                soft: None,
                hard: None,
            };
        };
        let moves = f64::from(self.moves_to_go.unwrap_or(30).max(1));
        let left_s = left.as_secs_f64();
        let share = (left_s / moves + 0.8 * self.increment.as_secs_f64()).min(left_s / 3.0);
        let soft = Duration::from_secs_f64((share * 0.6).max(0.001));
        let hard = Duration::from_secs_f64((share * 1.8).min(left_s * 0.5).max(0.001));
        Deadlines {
            soft: Some(start + soft),
            hard: Some(start + hard),
        }
    }
}
