//! Labelled chess positions: parsing EPD/FEN lines that carry a game result.
//!
//! The common label formats are recognised ([`LabelFormat`]); a file uses one format,
//! detected from its first labelled line ([`LabelFormat::detect`]).

mod epd;

pub use epd::{parse_line, BadLine, LabelFormat, Labelled, Outcome};
