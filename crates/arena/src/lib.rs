//! Matches between texel parameter sets and UCI engines: openings, clocks, adjudication,
//! PGN with per-move scores, and Elo with error bars, LOS and SPRT.

pub mod elo;
pub mod engine;
pub mod game;
pub mod genfens;
mod matches;
pub mod openings;
pub mod results;
pub mod spec;
pub mod sprt;
pub mod uci;

pub use matches::{run_match, MatchError, MatchOptions, MatchReport, Pairing, Progress};
