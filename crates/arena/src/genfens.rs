//! Start positions for OpenBench's DATAGEN workload. OpenBench's client runs the engine as
//! `./engine "genfens N seed S book <FILE|None>" "quit"` and reads N lines
//! `info string genfens <FEN>`: seeded, varied, legal positions that are not decided, from
//! which its workers play the games that become training data.

use crate::openings::{read_openings, with_random_plies, Opening, OpeningError, Rng};
use shakmaty::fen::Fen;
use shakmaty::{EnPassantMode, Position};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use texel_eval::Params;
use texel_search::{key, Limits, Searcher};

/// One `genfens` request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenfensRequest {
    /// Positions wanted.
    pub count: usize,
    /// Seed: the same request gives the same positions.
    pub seed: u64,
    /// Openings to start from (EPD or PGN), or the standard start when `None`.
    pub book: Option<PathBuf>,
}

/// Why `genfens` cannot answer.
#[derive(Debug, thiserror::Error)]
pub enum GenfensError {
    /// The command is not `genfens N seed S book <FILE|None> ...`.
    #[error("genfens: {0} (give `genfens N seed S book <FILE|None>`)")]
    Syntax(String),
    /// The book cannot be read.
    #[error("genfens book: {0}")]
    Book(#[from] OpeningError),
    /// Not enough distinct undecided positions were found.
    #[error("genfens: found {found} distinct undecided positions of the {count} asked for")]
    TooFew {
        /// Positions found.
        found: usize,
        /// Positions asked for.
        count: usize,
    },
}

impl std::str::FromStr for GenfensRequest {
    type Err = GenfensError;

    /// Reads `genfens N seed S book <FILE|None>`; words after the book (OpenBench's extra
    /// arguments) are ignored.
    fn from_str(text: &str) -> Result<GenfensRequest, GenfensError> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let bad = |what: &str| GenfensError::Syntax(format!("{what} in `{text}`"));
        match words.as_slice() {
            ["genfens", n, "seed", s, "book", book, ..] => Ok(GenfensRequest {
                count: n
                    .parse()
                    .map_err(|_| bad("N is not a count"))
                    .and_then(|n| match n <= MAX_GENFENS {
                        true => Ok(n),
                        false => Err(bad(&format!("N is more than {MAX_GENFENS}, the most"))),
                    })?,
                seed: s.parse().map_err(|_| bad("S is not a seed"))?,
                book: (!book.eq_ignore_ascii_case("none")).then(|| PathBuf::from(book)),
            }),
            _ => Err(bad("unexpected words")),
        }
    }
}

/// The most positions one request may ask for (each costs a short search): a larger N is
/// refused as a syntax error before anything is allocated.
pub const MAX_GENFENS: usize = 10_000_000;

/// Random plies after the standard start (8 or 9, so both sides move first equally often).
const PLIES_FROM_START: usize = 8;

/// Random plies after a book line (2 or 3).
const PLIES_AFTER_BOOK: usize = 2;

/// A position is decided when a short search scores it beyond this (centipawns).
const DECIDED_CP: i32 = 300;

/// Nodes of the search that judges a position.
const JUDGE_NODES: u64 = 2_000;

/// Tries per position asked for before giving up.
const TRIES_PER_POSITION: usize = 200;

/// The FENs for `request`: each a seeded book line (or the standard start) with random
/// plies after it, kept when the side to move has a move, the game is not over, a short
/// search by `params` scores it within ±3 pawns, and no earlier FEN is the same
/// position.
///
/// # Errors
/// An unreadable or empty book, or too few positions found.
pub fn genfens(request: &GenfensRequest, params: Arc<Params>) -> Result<Vec<String>, GenfensError> {
    let (openings, plies) = match &request.book {
        Some(path) => (read_openings(path)?, PLIES_AFTER_BOOK),
        None => (vec![Opening::default()], PLIES_FROM_START),
    };
    if openings.is_empty() {
        return Err(GenfensError::Syntax("the book holds no positions".into()));
    }
    let mut rng = Rng::new(request.seed);
    let mut searcher = Searcher::new(params, 1);
    let mut seen = HashSet::new();
    let mut fens = Vec::with_capacity(request.count.min(1 << 12));
    for _ in 0..request.count.saturating_mul(TRIES_PER_POSITION) {
        if fens.len() == request.count {
            break;
        }
        let base = &openings[rng.below(openings.len())];
        let want = plies + rng.below(2);
        let line = with_random_plies(base, want as u32, &mut rng);
        let pos = line.end();
        if line.moves.len() < base.moves.len() + want || pos.is_game_over() {
            continue;
        }
        searcher.clear();
        let score = searcher.search(&pos, &[], &Limits::nodes(JUDGE_NODES), &mut |_| {});
        if score.score.abs() > DECIDED_CP || !seen.insert(key(&pos)) {
            continue;
        }
        fens.push(Fen::from_position(&pos, EnPassantMode::Legal).to_string());
    }
    match fens.len() == request.count {
        true => Ok(fens),
        false => Err(GenfensError::TooFew {
            found: fens.len(),
            count: request.count,
        }),
    }
}
