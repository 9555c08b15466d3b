//! A small alpha-beta chess engine on texel's evaluation, for matches between parameter
//! sets and for quiescing positions at import.

mod bench;
mod limits;
mod search;
mod tt;
pub mod uci;

pub use bench::{bench, BenchResult, BENCH_DEPTH, BENCH_FENS, BENCH_NODES};
pub use limits::Limits;
pub use search::{key, quiesce, Iteration, SearchResult, Searcher, MATE};
