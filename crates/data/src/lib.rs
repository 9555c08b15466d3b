//! Labelled chess positions: parsing EPD/FEN lines that carry a game result.
//!
//! The common label formats are recognised ([`LabelFormat`]); a file uses one format,
//! detected from its first labelled line ([`LabelFormat::detect`]). The importer turns EPD
//! files and PGN games into quiet labelled positions ([`import_epd`], [`import_pgn`]).

mod epd;
mod import;
mod input;

pub use epd::{parse_line, BadLine, Label, LabelFormat, Labelled, Outcome};
pub use import::{import_epd, import_pgn, Duplicates, ImportError, ImportOptions, ImportStats};
pub use input::{open_input, read_lines, Input};
