//! The search benchmark: fixed positions searched to a fixed depth, the table cleared
//! before each. Its node count is a signature of the search and the evaluation: any change
//! of either shows in it.

use crate::{Limits, Searcher};
use std::sync::Arc;
use std::time::{Duration, Instant};
use texel_eval::{parse_fen, Params};

/// Depth of every bench search.
pub const BENCH_DEPTH: u32 = 7;

/// Total nodes of the bench with the table's default parameters.
pub const BENCH_NODES: u64 = 3_279_164;

/// The bench positions: the start position, two tactical classics and positions from
/// engine games (openings, middlegames, endgames).
pub const BENCH_FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "4nk2/1B3p1p/1B1p2p1/2P5/8/1r4P1/5PKP/8 b - - 0 31",
    "4b3/8/4n3/6k1/2P2p2/1K6/8/6B1 b - - 5 55",
    "3r2k1/1b2b1p1/p3p2p/1p1p1p2/2nP4/P2BPN2/1PR1KPPP/7R b - - 1 22",
    "r1bqk2r/3nbp2/2p1p3/p2pP2p/N1P3p1/3BQ3/PP1B1PP1/3RR1K1 b kq - 0 23",
    "rnbqk2r/ppp2ppp/5n2/3P4/1b2pP2/2NP4/PPP3PP/R1BQKBNR w KQkq - 3 6",
    "7k/8/P5p1/8/4b3/6b1/r7/2K5 w - - 2 52",
    "4rrk1/ppp2ppp/4n3/2b1p3/3q4/6QP/P1P3NP/1R3R1K w - - 6 20",
    "2n4k/p5pp/8/1pq1p3/7P/8/PPP2P1P/3R1K2 b - - 0 32",
    "4r1k1/p4pp1/2p3r1/6qp/4P3/1PQ2B2/PB3PP1/5RK1 b - - 2 29",
    "r3k2r/1b2b2p/pq2p1p1/2n1P3/2B3Q1/5N2/PP3PPP/R1B2RK1 w kq - 3 18",
    "rnbqk2r/ppp1bppp/4pn2/3p4/2PP4/5NP1/PP2PPBP/RNBQK2R b KQkq - 3 5",
    "3R4/1p3P2/2p1k3/6KB/r7/8/8/8 b - - 0 51",
    "r3kb1r/pp3ppp/1qn2n2/3Np3/6b1/4P1P1/PPP1NPBP/R1BQ1RK1 b kq - 0 10",
    "1k1r4/6RP/5p2/pp6/5p2/2K2P2/PP2p3/7R w - - 0 39",
    "3Rr1k1/pp3p1p/3Q2pP/2p5/8/8/P5PP/7K w - - 2 33",
    "Qq6/8/3pknp1/4p2p/4P2P/2P2P2/K7/2R5 w - - 0 58",
    "8/1bN4p/6p1/p1k5/5P2/3K4/PP3P1P/8 b - - 1 37",
    "1rbqkb1r/pp1n1ppp/2pp3n/4p1N1/2BPP3/8/PPP2PPP/RNBQ1RK1 w k - 4 7",
    "r2q1rk1/1p2n1b1/3p1n1p/2pPpbp1/P1P5/2NB1N2/2QB1PPP/R4RK1 b - - 1 18",
    "4r3/1p4p1/p3pnkp/P1p5/2NRP3/7P/1PP2KP1/8 w - - 0 25",
    "8/8/7p/4kp2/8/4B1P1/PR2P2P/r4BK1 w - - 0 38",
    "4k3/2R5/8/5N2/5P2/2pKP3/3b4/4r3 b - - 11 59",
    "1r6/3Pbpk1/r5pp/8/p3p2P/R1p1P1P1/2P1NPK1/3R4 w - - 5 36",
    "8/K7/5P1P/p2n4/5P2/1P6/8/6kq b - - 0 64",
    "2rr1k2/1p3p2/3n2p1/2R4p/1P2PP2/pR1B4/Pb2KP1P/8 b - - 2 28",
    "8/1R2Kpk1/r5p1/8/3n4/8/8/8 w - - 18 83",
    "7k/4nQp1/pP5p/8/4P3/8/1PP3PP/R5K1 w - - 1 30",
    "2r1r1k1/3R1ppp/3n4/p7/1b6/2N5/PPP1NPPP/5RK1 w - - 2 20",
    "3kr3/2p2pp1/1rn1b3/4P3/3p2p1/1N6/P4PPP/2R1R1K1 w - - 6 26",
    "2Q5/8/1b1P4/1p2k3/8/7R/P1K3PP/8 w - - 1 47",
    "r1bqk2r/pp1pppbp/2n2np1/8/2P1P3/2N5/PP3PPP/R1BQKB1R w KQkq - 4 9",
];

/// What the bench measured.
#[derive(Copy, Clone, Debug)]
pub struct BenchResult {
    /// Total nodes.
    pub nodes: u64,
    /// Time spent.
    pub elapsed: Duration,
}

impl BenchResult {
    /// Nodes per second.
    pub fn nps(&self) -> f64 {
        self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Searches every bench position to `depth` with `params` (16 MB table, cleared each time).
pub fn bench(params: Arc<Params>, depth: u32) -> BenchResult {
    let mut searcher = Searcher::new(params, 16);
    let start = Instant::now();
    let mut nodes = 0;
    for fen in BENCH_FENS {
        let pos = parse_fen(fen).expect("bench positions are legal");
        searcher.clear();
        nodes += searcher
            .search(&pos, &[], &Limits::depth(depth), &mut |_| {})
            .nodes;
    }
    BenchResult {
        nodes,
        elapsed: start.elapsed(),
    }
}
