//! Labelled chess positions: parsing EPD/FEN lines that carry a game result, and reading
//! input files (plain, `.gz`, `.zst`), and the binary records of NNUE data generators
//! ([`records`]).
//!
//! The common label formats are recognised ([`LabelFormat`]), line by line
//! ([`LabelFormat::detect`]). This crate needs no engine: the tuner reads labelled files
//! through it, and the importer (`texel-import`) builds on it to make them.

pub mod bullet;
mod epd;
mod fen;
mod input;
pub mod marlin;
mod mix;
pub mod records;
mod split;
mod survey;
pub mod viri;

pub use epd::{
    numbers_are_scores, parse_line, write_evaluation, write_game, BadLine, Label, LabelFormat,
    LabelReading, Labelled, Outcome,
};
pub use input::{block_lines, open_input, read_block, read_lines, Input};
pub use mix::{held_out, sampled, splitmix64};
pub use split::{game_key, GameSplit, HeldOut, SplitCounts};
pub use survey::{Looks, Survey, WrongForm};
