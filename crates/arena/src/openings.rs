//! Opening lines for matches: EPD/FEN positions or PGN games (main line moves), and seeded
//! random plies after them.

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Move, Position};
use std::ops::ControlFlow;
use std::path::Path;

/// A start position and the moves played from it (by default the standard start, no
/// moves).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Opening {
    /// The start position.
    pub start: Chess,
    /// Moves from the start.
    pub moves: Vec<Move>,
}

impl Opening {
    /// The position after the moves.
    pub fn end(&self) -> Chess {
        let mut pos = self.start.clone();
        for m in &self.moves {
            pos.play_unchecked(*m);
        }
        pos
    }
}

/// Why openings could not be read.
#[derive(Debug, thiserror::Error)]
pub enum OpeningError {
    /// Unreadable file.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        cause: std::io::Error,
    },
    /// A bad line or game, with its place.
    #[error("{path}: {what}")]
    Bad {
        /// The file.
        path: String,
        /// What is wrong and where.
        what: String,
    },
}

/// Collects the main line of each game.
struct Lines {
    games: usize,
}

impl Visitor for Lines {
    type Tags = Option<Chess>;
    type Movetext = Result<Opening, String>;
    type Output = Result<Opening, String>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        self.games += 1;
        ControlFlow::Continue(None)
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        if name == b"FEN" {
            let pos = Fen::from_ascii(value.as_bytes())
                .ok()
                .and_then(|f| f.into_position::<Chess>(CastlingMode::Standard).ok());
            match pos {
                Some(p) => *tags = Some(p),
                None => {
                    return ControlFlow::Break(Err(format!("game {}: bad FEN tag", self.games)))
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue(Ok(Opening {
            start: tags.unwrap_or_default(),
            moves: Vec::new(),
        }))
    }

    fn san(
        &mut self,
        movetext: &mut Self::Movetext,
        san_plus: SanPlus,
    ) -> ControlFlow<Self::Output> {
        if let Ok(opening) = movetext {
            let pos = opening.end();
            match san_plus.san.to_move(&pos) {
                Ok(m) => opening.moves.push(m),
                Err(_) => *movetext = Err(format!("game {}: illegal move {san_plus}", self.games)),
            }
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, movetext: Self::Movetext) -> Self::Output {
        movetext
    }
}

/// The longest opening line taken from a PGN game, in plies: a longer game is a whole
/// game, not an opening, and a match from its end would start where it was decided.
pub const MAX_OPENING_PLIES: usize = 40;

/// Whether `text` is PGN: its first line that is not blank or a `#` comment is a tag or
/// a move number.
fn looks_like_pgn(text: &[u8]) -> bool {
    let text = String::from_utf8_lossy(&text[..text.len().min(4096)]);
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .is_some_and(|l| l.starts_with('[') || l.starts_with("1."))
}

/// Refuses an opening line that is a whole game: longer than [`MAX_OPENING_PLIES`], or
/// ending where the game is over.
fn check_line(opening: &Opening, game: usize) -> Result<(), String> {
    let plies = opening.moves.len();
    if plies > MAX_OPENING_PLIES {
        return Err(format!(
            "game {game} has {plies} plies: these are whole games, not openings (an opening \
             line has at most {MAX_OPENING_PLIES}); give opening lines or EPD start positions"
        ));
    }
    if opening.end().is_game_over() {
        return Err(format!(
            "game {game} ends where the game is over: not an opening"
        ));
    }
    Ok(())
}

/// Reads openings: a PGN file (by its `.pgn` name or its content) gives the main line of
/// each game, which must be an opening, not a whole game (at most [`MAX_OPENING_PLIES`]
/// plies); any other file one FEN or EPD position per line (`#` comments and blank lines
/// skipped).
///
/// # Errors
/// An unreadable file, a bad line or game (with its number): openings must all be good;
/// or a file without any.
pub fn read_openings(path: &Path) -> Result<Vec<Opening>, OpeningError> {
    let openings = read_every_opening(path)?;
    if openings.is_empty() {
        return Err(OpeningError::Bad {
            path: path.display().to_string(),
            what: "holds no opening (no FEN or EPD line, no PGN game)".into(),
        });
    }
    Ok(openings)
}

/// Every opening of the file, however many (none for an empty one).
fn read_every_opening(path: &Path) -> Result<Vec<Opening>, OpeningError> {
    let name = path.display().to_string();
    let io = |cause| OpeningError::Io {
        path: name.clone(),
        cause,
    };
    let named_pgn = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pgn"));
    if named_pgn || looks_like_pgn(&std::fs::read(path).map_err(io)?) {
        let file = std::fs::File::open(path).map_err(io)?;
        let mut reader = Reader::new(file);
        let mut visitor = Lines { games: 0 };
        let mut out = Vec::new();
        while let Some(game) = reader.read_game(&mut visitor).map_err(io)? {
            let bad = |what| OpeningError::Bad {
                path: name.clone(),
                what,
            };
            let opening = game.map_err(bad)?;
            check_line(&opening, visitor.games).map_err(bad)?;
            out.push(opening);
        }
        return Ok(out);
    }
    let text = std::fs::read_to_string(path).map_err(io)?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().take(6).collect();
        let fen = match fields.len() {
            4 => format!("{} 0 1", fields.join(" ")),
            n if n >= 6 && fields[4].parse::<u32>().is_ok() => fields.join(" "),
            _ => format!("{} 0 1", fields[..4.min(fields.len())].join(" ")),
        };
        let start = texel_eval::parse_fen(&fen).map_err(|e| OpeningError::Bad {
            path: name.clone(),
            what: format!("line {}: {e}", i + 1),
        })?;
        out.push(Opening {
            start,
            moves: Vec::new(),
        });
    }
    Ok(out)
}

/// A small seeded generator (SplitMix64: [`texel_data::splitmix64`] of a counter stepped by
/// its constant) for reproducible random plies and orders.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next value.
    pub fn next_u64(&mut self) -> u64 {
        let out = texel_data::splitmix64(self.0);
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        out
    }

    /// A value below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

/// The opening with up to `plies` random legal moves added (fewer if the game ends).
pub fn with_random_plies(opening: &Opening, plies: u32, rng: &mut Rng) -> Opening {
    let mut out = opening.clone();
    let mut pos = out.end();
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[rng.below(moves.len())];
        pos.play_unchecked(m);
        out.moves.push(m);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` written as `name` in a fresh folder, read as openings.
    fn read(name: &str, text: &str) -> Result<Vec<Opening>, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        read_openings(&path).map_err(|e| e.to_string())
    }

    #[test]
    fn the_generator_is_splitmix64() {
        // The reference SplitMix64 sequence from state 0.
        let mut rng = Rng::new(0);
        assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn whole_games_are_refused_and_pgn_is_known_by_its_content() {
        let line = "[Event \"o\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n";
        let openings = read("book.epd", line).unwrap();
        assert_eq!(openings[0].moves.len(), 4, "PGN in a file named .epd");
        let mate = "[Event \"g\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";
        let err = read("games.epd", mate).unwrap_err();
        assert!(err.contains("game 1 ends where the game is over"), "{err}");
        let shuffle: Vec<String> = (0..21)
            .map(|i| {
                let (w, b) = if i % 2 == 0 {
                    ("Nf3", "Nf6")
                } else {
                    ("Ng1", "Ng8")
                };
                format!("{}. {w} {b}", i + 1)
            })
            .collect();
        let text = format!("[Event \"g\"]\n\n{} 1/2-1/2\n", shuffle.join(" "));
        let err = read("games.pgn", &text).unwrap_err();
        assert!(err.contains("game 1 has 42 plies"), "{err}");
        let epd = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n";
        assert_eq!(read("o.epd", epd).unwrap().len(), 1);
    }
}
