//! One labelled position per line.

use crate::records::RecordForm;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, FromSetup, Position};
use std::borrow::Cow;
use std::fmt;

/// A game result from white's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Black won.
    BlackWins,
    /// Drawn.
    Draw,
    /// White won.
    WhiteWins,
}

impl Outcome {
    /// The result as a PGN result string.
    pub fn pgn(self) -> &'static str {
        match self {
            Outcome::BlackWins => "0-1",
            Outcome::Draw => "1/2-1/2",
            Outcome::WhiteWins => "1-0",
        }
    }

    fn from_pgn(s: &str) -> Option<Outcome> {
        match s {
            "1-0" => Some(Outcome::WhiteWins),
            "0-1" => Some(Outcome::BlackWins),
            "1/2-1/2" => Some(Outcome::Draw),
            _ => None,
        }
    }
}

/// A training label: white's expected score from 0 (black won) to 1 (white won), in steps
/// of 1/200. Game results are exact labels; averaging the labels of a position seen in
/// several games gives the steps in between.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Label(u8);

impl Label {
    /// Steps from 0 to 1.
    pub const STEPS: u8 = 200;

    /// The label nearest to white's score `x`, if `x` is a number from 0 to 1.
    pub fn from_score(x: f64) -> Option<Label> {
        (0.0..=1.0)
            .contains(&x)
            .then(|| Label((x * f64::from(Label::STEPS)).round() as u8))
    }

    /// The label with this many steps (at most [`Label::STEPS`]).
    pub fn from_steps(steps: u8) -> Option<Label> {
        (steps <= Label::STEPS).then_some(Label(steps))
    }

    /// White's score in steps of 1/200.
    pub fn steps(self) -> u8 {
        self.0
    }

    /// White's score, 0 to 1.
    pub fn white_score(self) -> f64 {
        f64::from(self.0) / f64::from(Label::STEPS)
    }

    /// The same label seen from the other side.
    pub fn flipped(self) -> Label {
        Label(Label::STEPS - self.0)
    }

    /// The game result this label is exactly, if any.
    pub fn outcome(self) -> Option<Outcome> {
        [Outcome::BlackWins, Outcome::Draw, Outcome::WhiteWins]
            .into_iter()
            .find(|&o| Label::from(o) == self)
    }

    /// The mean of labels whose steps add up to `sum` over `count` labels (rounded to the
    /// nearest step).
    pub fn mean(sum: u64, count: u64) -> Label {
        let steps = (2 * sum + count) / (2 * count.max(1));
        Label(steps.min(u64::from(Label::STEPS)) as u8)
    }

    fn from_decimal(s: &str) -> Option<Label> {
        // The three game results, as nearly every labelled file writes them, without the
        // general decimal parser.
        let score = match s {
            "1.0" => 1.0,
            "0.5" => 0.5,
            "0.0" => 0.0,
            _ => s.parse::<f64>().ok()?,
        };
        Label::from_score(score)
    }

    /// The score as a decimal with up to three places: `1.0`, `0.5`, `0.665`.
    fn decimal(self) -> String {
        let text = format!("{:.3}", self.white_score());
        let trimmed = text.trim_end_matches('0');
        if trimmed.ends_with('.') {
            format!("{trimmed}0")
        } else {
            trimmed.to_string()
        }
    }
}

impl From<Outcome> for Label {
    fn from(o: Outcome) -> Label {
        Label(match o {
            Outcome::BlackWins => 0,
            Outcome::Draw => Label::STEPS / 2,
            Outcome::WhiteWins => Label::STEPS,
        })
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.decimal())
    }
}

/// How a file writes the result after the position.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LabelFormat {
    /// `c9 "1-0";` as in zurichess `quiet-labeled.epd`.
    C9,
    /// `[1.0]`, `[0.5]`, `[0.0]` as in Ethereal's and lichess-big3 data; any score from 0
    /// to 1 (`[0.667]`) is read.
    Bracket,
    /// A trailing `1-0`, `0-1` or `1/2-1/2`.
    Result,
    /// A bare trailing `1`, `0.5` or `0` (also `1.0`, `0.0`, or any score from 0 to 1); as
    /// Sirius writes it, `| 35cp | 1.0` or `| 35 | 1.0`, with the score before it.
    Decimal,
    /// A trailing `; w`, `; d` or `; b` (White won, a draw, Black won) as in Clockwork's
    /// data.
    Letter,
    /// A result written with a decimal point, then a whole number of centipawns: `1.0 35`,
    /// `0.5 -12` as in Stash's data (both from White's view).
    ResultScore,
    /// Not a text form: a file of marlinformat's 32-byte records ([`crate::marlin`]), each
    /// a position with its score and result. Only given (`--label-format marlin`), never
    /// detected from a line; so are the other binary forms.
    Marlin,
    /// bulletformat's 32-byte records ([`crate::bullet`]), from the side to move's view.
    Bullet,
    /// viriformat's games ([`crate::viri`]): every position before a move, with its score.
    Viri,
    /// Pedantic's CSV lines, `Hash,Ply,GamePly,FEN,HasCastled,Eval,Result`: the result
    /// (`1.0`, `0.5`, `0.0`) White's, the evaluation the side to move's centipawns. The
    /// header line is skipped; detected by its seven fields.
    Pedantic,
}

impl fmt::Display for LabelFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LabelFormat::C9 => "c9 \"1-0\";",
            LabelFormat::Bracket => "[1.0]",
            LabelFormat::Result => "1-0",
            LabelFormat::Decimal => "1.0",
            LabelFormat::Letter => "; w",
            LabelFormat::ResultScore => "1.0 35",
            LabelFormat::Marlin => "marlinformat",
            LabelFormat::Bullet => "bulletformat",
            LabelFormat::Viri => "viriformat",
            LabelFormat::Pedantic => "Hash,Ply,GamePly,FEN,HasCastled,Eval,Result",
        })
    }
}

impl LabelFormat {
    /// The format's name, as `--label-format` takes it.
    pub fn name(self) -> &'static str {
        match self {
            LabelFormat::C9 => "c9",
            LabelFormat::Bracket => "bracket",
            LabelFormat::Result => "result",
            LabelFormat::Decimal => "decimal",
            LabelFormat::Letter => "letter",
            LabelFormat::ResultScore => "result-score",
            LabelFormat::Marlin => "marlin",
            LabelFormat::Bullet => "bullet",
            LabelFormat::Viri => "viri",
            LabelFormat::Pedantic => "pedantic",
        }
    }

    /// The binary form of a file read in this format, `None` for text lines.
    pub fn record_form(self) -> Option<RecordForm> {
        match self {
            LabelFormat::Marlin => Some(RecordForm::Marlin),
            LabelFormat::Bullet => Some(RecordForm::Bullet),
            LabelFormat::Viri => Some(RecordForm::Viri),
            _ => None,
        }
    }

    /// The format named `name` ([`LabelFormat::name`]).
    pub fn named(name: &str) -> Option<LabelFormat> {
        LabelFormat::GIVEN.into_iter().find(|f| f.name() == name)
    }

    /// Every format a file may be read in when it is named: the text forms, then the
    /// binary ones.
    pub const GIVEN: [LabelFormat; 10] = {
        let mut given = [LabelFormat::Pedantic; 10];
        let mut i = 0;
        while i < LabelFormat::ALL.len() {
            given[i] = LabelFormat::ALL[i];
            i += 1;
        }
        given[6] = LabelFormat::Marlin;
        given[7] = LabelFormat::Bullet;
        given[8] = LabelFormat::Viri;
        given
    };

    /// Every format, in the order detection tries them (a result and a score before a
    /// bare result, whose last number the score would be).
    pub const ALL: [LabelFormat; 6] = [
        LabelFormat::C9,
        LabelFormat::Bracket,
        LabelFormat::Result,
        LabelFormat::ResultScore,
        LabelFormat::Decimal,
        LabelFormat::Letter,
    ];

    /// The format whose label the text after a position (`rest`) carries, with that label,
    /// if any.
    pub fn detect(rest: &str) -> Option<(LabelFormat, Label)> {
        LabelFormat::detect_trimmed(rest.trim())
    }

    /// [`LabelFormat::detect`] on text already trimmed.
    fn detect_trimmed(rest: &str) -> Option<(LabelFormat, Label)> {
        LabelFormat::ALL
            .into_iter()
            .find_map(|f| f.read_trimmed(rest).map(|label| (f, label)))
    }

    /// Reads the label in `rest` (the text after the position fields).
    pub fn read(self, rest: &str) -> Option<Label> {
        self.read_trimmed(rest.trim())
    }

    /// [`LabelFormat::read`] on text already trimmed.
    fn read_trimmed(self, rest: &str) -> Option<Label> {
        match self {
            LabelFormat::C9 => {
                // A plain byte search: the rest of a line is short, and `str::find` would
                // first build a substring searcher for it.
                let at = rest.as_bytes().windows(2).position(|w| w == b"c9")?;
                let value = rest[at + 2..].trim_start().strip_prefix('"')?;
                Outcome::from_pgn(&value[..value.find('"')?]).map(Label::from)
            }
            LabelFormat::Bracket => {
                let open = rest.find('[')?;
                let close = open + rest[open..].find(']')?;
                Label::from_decimal(rest[open + 1..close].trim())
            }
            LabelFormat::Result => {
                let last = rest.split_whitespace().last()?.trim_end_matches(';');
                Outcome::from_pgn(last.trim_matches('"')).map(Label::from)
            }
            LabelFormat::Decimal => {
                let mut words = rest.split_whitespace().rev();
                let last = words.next()?.trim_end_matches(';');
                // After an EPD opcode (`ce 1;`, `acd 1;`) a number is that operation's
                // operand, not a label.
                match words.next().is_some_and(is_opcode) {
                    true => None,
                    false => Label::from_decimal(last),
                }
            }
            LabelFormat::Letter => {
                let letter = rest.chars().last()?;
                let before = &rest[..rest.len() - letter.len_utf8()];
                if !before.trim_end().ends_with(';') {
                    return None;
                }
                let outcome = match letter {
                    'w' => Outcome::WhiteWins,
                    'd' => Outcome::Draw,
                    'b' => Outcome::BlackWins,
                    _ => return None,
                };
                Some(outcome.into())
            }
            LabelFormat::Marlin
            | LabelFormat::Bullet
            | LabelFormat::Viri
            | LabelFormat::Pedantic => None,
            LabelFormat::ResultScore => {
                let mut words = rest.split_whitespace().rev();
                let (score, result) = (words.next()?, words.next()?);
                score.parse::<i32>().ok()?;
                // The point tells a result from a count of centipawns or a clock.
                match result.contains('.') {
                    true => Label::from_decimal(result),
                    false => None,
                }
            }
        }
    }

    /// The text of `rest` (trimmed, after the position) before this format's label: what
    /// only EPD operations may fill. Sirius's score field (`| 35 |`) belongs to the label.
    fn text_before_label(self, rest: &str) -> &str {
        let last_words = |n: usize| {
            let mut end = rest.len();
            for _ in 0..n {
                let word = rest[..end].trim_end();
                end = word
                    .rfind(|c: char| c.is_ascii_whitespace())
                    .map_or(0, |i| i + 1);
            }
            &rest[..end]
        };
        match self {
            LabelFormat::C9 => rest.find("c9").map_or(rest, |at| &rest[..at]),
            LabelFormat::Bracket => rest.find('[').map_or(rest, |at| &rest[..at]),
            LabelFormat::Result => last_words(1),
            LabelFormat::Decimal => {
                let before = last_words(1);
                before.find('|').map_or(before, |at| &before[..at])
            }
            LabelFormat::ResultScore => last_words(2),
            LabelFormat::Letter => rest.trim_end_matches(['w', 'd', 'b']),
            LabelFormat::Marlin
            | LabelFormat::Bullet
            | LabelFormat::Viri
            | LabelFormat::Pedantic => "",
        }
    }

    /// The engine's score a line in this format carries after its position (`rest`), in
    /// centipawns from White's view as written (EPD's `ce` is the side to move's and is
    /// turned by the caller); `None` when it carries none.
    fn white_score(self, rest: &str) -> Option<i32> {
        match self {
            LabelFormat::ResultScore => rest.split_whitespace().last()?.parse().ok(),
            // `[1.0] [35]`: a second bracket after the result's.
            LabelFormat::Bracket => {
                let after = &rest[rest.find(']')? + 1..];
                let open = after.find('[')?;
                let close = open + after[open..].find(']')?;
                after[open + 1..close].trim().parse().ok()
            }
            // Sirius's `| 35cp | 1.0` or `| 35 | 1.0`: the score between bars before the
            // result.
            LabelFormat::Decimal => {
                let field = rest.rsplit('|').nth(1)?.trim();
                field
                    .strip_suffix("cp")
                    .unwrap_or(field)
                    .trim()
                    .parse()
                    .ok()
            }
            _ => None,
        }
    }

    /// Writes `label` in this format; `None` when the format can only write game results
    /// (`c9`, `1-0`) and the label is not one, or writes a score beside it (`1.0 35`).
    pub fn write(self, label: Label) -> Option<String> {
        Some(match self {
            LabelFormat::C9 => format!("c9 \"{}\";", label.outcome()?.pgn()),
            LabelFormat::Bracket => format!("[{label}]"),
            LabelFormat::Result => label.outcome()?.pgn().to_string(),
            LabelFormat::Decimal => label.to_string(),
            LabelFormat::Letter => {
                let letter = match label.outcome()? {
                    Outcome::WhiteWins => 'w',
                    Outcome::Draw => 'd',
                    Outcome::BlackWins => 'b',
                };
                format!("; {letter}")
            }
            // The score cannot be written from a label alone; records are not text.
            LabelFormat::ResultScore
            | LabelFormat::Marlin
            | LabelFormat::Bullet
            | LabelFormat::Viri
            | LabelFormat::Pedantic => return None,
        })
    }

    /// Whether the format writes labels between the game results (averages).
    pub fn writes_fractions(self) -> bool {
        matches!(self, LabelFormat::Bracket | LabelFormat::Decimal)
    }

    /// Whether `label`, read in this format, is a bare number a file of centipawn scores
    /// would hold too (`0`, `1`, `[0]`, `[1]`): in a file whose other numbers are scores
    /// (outside 0 to 1), such a line is a score of 0 or 1 centipawns, not a game result.
    pub fn could_be_centipawns(self, label: Label) -> bool {
        self.writes_fractions() && (label.steps() == 0 || label.steps() == Label::STEPS)
    }
}

/// Whether a file's number labels are centipawn scores, from how many of its labels are
/// scores (numbers outside 0 to 1, bare or in brackets) and how many are bare numbers 0 or
/// 1 ([`LabelFormat::could_be_centipawns`]): when scores are at least a fifth of the two, the
/// 0s and 1s are scores too. A file of results with a stray score keeps its results (the
/// stray line is skipped as bad).
pub fn numbers_are_scores(scores: u64, whole_numbers: u64) -> bool {
    whole_numbers > 0 && scores > 0 && scores * 5 >= scores + whole_numbers
}

/// Whether `text` is nothing but EPD operations: each an opcode followed by operands and
/// ended by `;` (a `;` inside a quoted operand ends nothing).
fn epd_operations(text: &str) -> bool {
    let opens_with_opcode = |operation: &str| {
        let first = operation.split_ascii_whitespace().next();
        first.is_none_or(is_opcode)
    };
    let (mut quoted, mut start) = (false, 0);
    for (at, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ';' if !quoted => {
                if !opens_with_opcode(&text[start..at]) {
                    return false;
                }
                start = at + 1;
            }
            _ => {}
        }
    }
    !quoted && text[start..].trim().is_empty()
}

/// Whether `word` is an EPD opcode (`ce`, `acd`, `c0`): a letter, then letters, digits or
/// `_`.
fn is_opcode(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A position with its label (white's point of view).
#[derive(Clone, Debug)]
pub struct Labelled {
    /// The position.
    pub position: Chess,
    /// White's score in the game (or games) it comes from.
    pub label: Label,
    /// The engine's own evaluation of the position in centipawns, white's point of view,
    /// when the line carries one (EPD's `ce` opcode, the side to move's view: `ce 35;`).
    pub score: Option<i32>,
    /// The game the position comes from, when the line says (the `game` opcode: `game 17;`,
    /// a number unique among the games of its file): the held-out split keeps a game's
    /// positions on one side.
    pub game: Option<u64>,
}

/// The operand of the opcode `name` in `rest` (`ce 35;`, `game 17;`), read as a `T`.
fn operand<T: std::str::FromStr>(rest: &str, name: &str) -> Option<T> {
    let mut words = rest.split_ascii_whitespace();
    while let Some(word) = words.next() {
        if word == name {
            return words.next()?.trim_end_matches(';').parse().ok();
        }
    }
    None
}

/// The operand of a `ce` opcode in `rest` (`ce 35;`, `ce -120`), as written: the side to
/// move's centipawns.
fn centipawn_evaluation(rest: &str) -> Option<i32> {
    operand(rest, "ce")
}

/// The operand of the `game` opcode in `rest` (`game 17;`): the position's game, if the
/// line names one.
///
/// # Errors
/// [`BadLine::BadGame`]: an operand that is not a whole number from 0 to 2⁶⁴ − 1 (or none),
/// or a second `game` opcode.
fn game_number(rest: &str) -> Result<Option<u64>, BadLine> {
    let mut found = None;
    let mut words = rest.split_ascii_whitespace();
    while let Some(word) = words.next() {
        let operand = match word {
            "game" => words.next().map(|w| w.trim_end_matches(';')),
            "game;" => None,
            _ => continue,
        };
        let number = operand.and_then(|w| w.parse::<u64>().ok());
        match (number, found) {
            (Some(n), None) => found = Some(n),
            _ => return Err(BadLine::BadGame),
        }
    }
    Ok(found)
}

/// The `game` opcode of a position of game `game`: ` game N;` (with its leading space).
pub fn write_game(game: u64) -> String {
    format!(" game {game};")
}

/// `ce` written for a position whose side to move is `turn` and whose evaluation is
/// `white` centipawns from white's point of view: ` ce N;` (with its leading space).
pub fn write_evaluation(white: i32, turn: Color) -> String {
    let own = if turn == Color::White { white } else { -white };
    format!(" ce {own};")
}

/// Why a line was skipped.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BadLine {
    /// The position fields are not a FEN.
    MalformedFen,
    /// The FEN describes an illegal position.
    IllegalPosition,
    /// No label follows the position.
    MissingLabel,
    /// Something follows the position, but not a label in the file's format.
    UnknownLabel,
    /// The label is a number outside 0..1: an evaluation score, not a game result.
    ScoreLabel,
    /// Text between the position and the label that no label form reads and that is not
    /// EPD operations (`opcode operands;`).
    UnreadText,
    /// A `game` opcode whose operand is not a game number, or a second one.
    BadGame,
    /// A Pedantic CSV row with a field missing or one too many, or an Eval that is not
    /// whole centipawns.
    BadPedantic,
}

impl BadLine {
    /// Every reason, in report order.
    pub const ALL: [BadLine; 8] = [
        BadLine::MalformedFen,
        BadLine::IllegalPosition,
        BadLine::MissingLabel,
        BadLine::UnknownLabel,
        BadLine::ScoreLabel,
        BadLine::UnreadText,
        BadLine::BadGame,
        BadLine::BadPedantic,
    ];
}

impl fmt::Display for BadLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BadLine::MalformedFen => "malformed FEN",
            BadLine::IllegalPosition => "illegal position",
            BadLine::MissingLabel => "missing label",
            BadLine::UnknownLabel => "unknown label",
            BadLine::ScoreLabel => {
                "a score, not a game result (labels are results: 1-0, 1/2-1/2, [0.5], 0)"
            }
            BadLine::UnreadText => {
                "text before the label that no label form reads and no EPD operation \
                 (`opcode operands;`) holds"
            }
            BadLine::BadPedantic => {
                "a Pedantic CSV row (Hash,Ply,GamePly,FEN,HasCastled,Eval,Result) with a field \
                 missing or one too many, or an Eval that is not whole centipawns"
            }
            BadLine::BadGame => {
                "a `game` opcode whose operand is not one whole number from 0 to \
                 18446744073709551615, or two on the line"
            }
        })
    }
}

/// Splits a line into the position and the rest. The position is the line's first fields:
/// the 4 EPD fields, plus the two FEN counters when present (missing counters read as 0
/// and 1); it is borrowed from the line unless its fields are separated by other
/// whitespace than spaces, which the FEN parser does not take. Fields are separated by
/// ASCII whitespace.
pub(crate) fn split_position(line: &str) -> (Cow<'_, str>, &str) {
    let bytes = line.as_bytes();
    let blank = |b: u8| b == b' ' || (b'\t'..=b'\r').contains(&b);
    let skip = |from: usize, is_blank: bool| {
        (from..bytes.len())
            .find(|&i| blank(bytes[i]) != is_blank)
            .unwrap_or(bytes.len())
    };
    let first = skip(0, true);
    // Byte ends of the fields found so far; at most 6.
    let mut ends = [first; 7];
    let mut fields = 0;
    while fields < 6 {
        let start = skip(ends[fields], true);
        let end = skip(start, false);
        // ASCII whitespace never falls inside a character: the slice is whole characters.
        let field = &line[start..end];
        // A counter with the label's `;` glued to it (`0 36;`) is still the counter.
        let glued = fields >= 4 && field.len() > 1 && field.ends_with(';');
        let counter = if glued {
            &field[..field.len() - 1]
        } else {
            field
        };
        if field.is_empty() || (fields >= 4 && counter.parse::<u32>().is_err()) {
            break;
        }
        fields += 1;
        ends[fields] = end - usize::from(glued);
        if glued {
            break;
        }
    }
    if fields == 5 && line[ends[5]..].trim().is_empty() {
        // `EPD 1`: a single number after the four EPD fields is a decimal label.
        fields = 4;
    }
    let (position, rest) = (&line[first..ends[fields]], &line[ends[fields]..]);
    if position.bytes().any(|b| blank(b) && b != b' ') {
        let spaced = position
            .split_ascii_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        return (Cow::Owned(spaced), rest);
    }
    (Cow::Borrowed(position), rest)
}

/// Why `label` is not a label: a number outside 0..1 (`[35]`, `-120`, `+0.8/12`) is an
/// evaluation score, anything else is unknown.
fn unknown_label(label: &str) -> BadLine {
    let number = label
        .trim_start_matches(['[', '"', ';'])
        .split([']', '"', ';', '/', ' '])
        .next()
        .and_then(|n| n.parse::<f64>().ok());
    match number {
        Some(x) if x.is_finite() && !(0.0..=1.0).contains(&x) => BadLine::ScoreLabel,
        _ => BadLine::UnknownLabel,
    }
}

/// How a file's labels are read: the side they score, and their format where detection
/// would not tell it (a file whose last number is a score of 0 or 1 centipawns, a form
/// that looks like another).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelReading {
    /// The labels score the side to move, not White.
    pub stm: bool,
    /// Every line's label format; `None`: detected line by line.
    pub format: Option<LabelFormat>,
}

impl LabelReading {
    /// Parses one line as these labels are read (see [`parse_line`]).
    ///
    /// # Errors
    /// The reason the line cannot be used.
    pub fn parse(self, line: &str) -> Result<(Labelled, LabelFormat), BadLine> {
        parse_line(line, self.format, self.stm)
    }
}

/// Parses one line: a position followed by a label in `format` (detected from the line
/// when `None`). `stm_labels` says the label is from the side to move's point of view.
///
/// # Errors
/// The reason the line cannot be used.
pub fn parse_line(
    line: &str,
    format: Option<LabelFormat>,
    stm_labels: bool,
) -> Result<(Labelled, LabelFormat), BadLine> {
    if format.is_none_or(|f| f == LabelFormat::Pedantic) {
        match pedantic_fields(line) {
            Some(fields) => return parse_pedantic(fields?, stm_labels),
            None if format.is_some() => return Err(BadLine::BadPedantic),
            None => {}
        }
    }
    let (fen, rest) = split_position(line);
    let setup = match crate::fen::setup(fen.as_bytes()) {
        Some(setup) => setup,
        None => Fen::from_ascii(fen.as_bytes())
            .map_err(|_| BadLine::MalformedFen)?
            .into_setup(),
    };
    let position =
        Chess::from_setup(setup, CastlingMode::Standard).map_err(|_| BadLine::IllegalPosition)?;
    let rest = rest.trim();
    if rest.is_empty() {
        return Err(BadLine::MissingLabel);
    }
    let found = match format {
        Some(f) => f.read_trimmed(rest).map(|label| (f, label)),
        None => LabelFormat::detect_trimmed(rest),
    };
    let (format, mut label) = found.ok_or_else(|| unknown_label(rest))?;
    if !epd_operations(format.text_before_label(rest)) {
        return Err(BadLine::UnreadText);
    }
    let black = position.turn() == Color::Black;
    let mut written = format.white_score(rest);
    if stm_labels && black {
        label = label.flipped();
        written = written.map(|s| -s);
    }
    let own = |ce: i32| if black { -ce } else { ce };
    let score = written.or_else(|| centipawn_evaluation(rest).map(own));
    let labelled = Labelled {
        position,
        label,
        score,
        game: game_number(rest)?,
    };
    Ok((labelled, format))
}

/// The seven fields of a Pedantic CSV line (`Hash,Ply,GamePly,FEN,HasCastled,Eval,Result`),
/// when it is one (fields split by commas, the first a hexadecimal hash): `None` when it
/// is not.
///
/// # Errors
/// [`BadLine::BadPedantic`]: a field missing or one too many, no FEN, or no result last.
fn pedantic_fields(line: &str) -> Option<Result<[&str; 7], BadLine>> {
    let (hash, _) = line.split_once(',')?;
    let hash = hash.trim();
    if hash.is_empty() || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut fields = line.split(',').map(str::trim);
    let seven: [&str; 7] = std::array::from_fn(|_| fields.next().unwrap_or(""));
    let result = Label::from_decimal(seven[6]).filter(|l| l.outcome().is_some());
    let whole = fields.next().is_none() && !seven[3].is_empty() && result.is_some();
    Some(whole.then_some(seven).ok_or(BadLine::BadPedantic))
}

/// A Pedantic CSV line's position, result (White's) and evaluation (the side to move's,
/// turned to White's view).
fn parse_pedantic(fields: [&str; 7], stm_labels: bool) -> Result<(Labelled, LabelFormat), BadLine> {
    let fen = Fen::from_ascii(fields[3].as_bytes()).map_err(|_| BadLine::MalformedFen)?;
    let position = Chess::from_setup(fen.into_setup(), CastlingMode::Standard)
        .map_err(|_| BadLine::IllegalPosition)?;
    let mut label = Label::from_decimal(fields[6]).ok_or(BadLine::UnknownLabel)?;
    let black = position.turn() == Color::Black;
    if stm_labels && black {
        label = label.flipped();
    }
    let score = match fields[5] {
        "" => None,
        eval => Some(eval.parse::<i32>().map_err(|_| BadLine::BadPedantic)?),
    };
    let score = score.map(|own| if black { -own } else { own });
    let labelled = Labelled {
        position,
        label,
        score,
        game: None,
    };
    Ok((labelled, LabelFormat::Pedantic))
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

    #[test]
    fn text_before_a_label_must_be_epd_operations() {
        let black = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -";
        for rest in [
            "[1.0]",
            "0 1 game 17; ce 35; [1.0]",
            "c0 \"a; b\"; bm e4; c9 \"1-0\";",
            "ce -20; game 9; 0.5",
            "| 35 | 1.0",
            "game 3; | 35cp | 0.5",
            "id \"x\"; 1-0",
            "ce 5; 1.0 35",
            "; w",
            "[0.5] [35] trailing words after the label",
        ] {
            let line = format!("{black} {rest}");
            assert!(parse_line(&line, None, false).is_ok(), "{line}");
        }
        for rest in [
            "hello [1.0]",
            "hello world 1-0",
            "abc | 0.5",
            "ce 35 [1.0]",
            "id \"open; [1.0]",
            "-3 x; [0.5]",
            "junk c9 \"1-0\";",
            "x 1.0 35",
        ] {
            let line = format!("{black} {rest}");
            assert_eq!(
                parse_line(&line, None, false).map(|(_, f)| f),
                Err(BadLine::UnreadText),
                "{line}"
            );
        }
    }

    #[test]
    fn a_game_opcode_names_the_positions_game_in_any_label_form() {
        let black = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -";
        for (line, game, score) in [
            (
                format!("{START} 0 1 game 17; ce 35; [1.0]"),
                Some(17),
                Some(35),
            ),
            (format!("{black} game 4; c9 \"1-0\";"), Some(4), None),
            (format!("{black} ce -20; game 9; 0.5"), Some(9), Some(20)),
            (format!("{START} [0.5] [35]"), None, Some(35)),
            (format!("{START} 0 1 game 5; [0.5] [35]"), Some(5), Some(35)),
            (format!("{START} game 0 ; [0.5]"), Some(0), None),
            (format!("{START} ce 3; [0.5]"), None, Some(3)),
        ] {
            let (l, _) = parse_line(&line, None, false).unwrap();
            assert_eq!((l.game, l.score), (game, score), "{line}");
        }
        let written = format!("{START}{} [1.0]", write_game(1234));
        let (l, format) = parse_line(&written, None, false).unwrap();
        assert_eq!((l.game, format), (Some(1234), LabelFormat::Bracket));
    }

    #[test]
    fn a_game_operand_that_is_no_game_number_or_a_second_game_is_a_bad_line() {
        for ops in [
            "game x;",
            "game -5;",
            "game 3.5;",
            "game 18446744073709551616;",
            "game;",
            "game ;",
            "game 4; game 4;",
            "game 4; game 5;",
        ] {
            let line = format!("{START} {ops} [0.5]");
            let bad = parse_line(&line, None, false).unwrap_err();
            assert_eq!(bad, BadLine::BadGame, "{line}");
            assert!(bad.to_string().contains("game"), "{bad}");
        }
        let line = format!("{START} game 18446744073709551615; [0.5]");
        let (l, _) = parse_line(&line, None, false).unwrap();
        assert_eq!(l.game, Some(u64::MAX));
    }

    #[test]
    fn a_ce_opcode_is_the_engines_score_from_whites_view() {
        let black = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -";
        for (line, want) in [
            (format!("{START} ce 35; [1.0]"), Some(35)),
            (format!("{black} 0 1 ce 35; c9 \"1-0\";"), Some(-35)),
            (format!("{black} ce -20; 0.5"), Some(20)),
            (format!("{START} [0.5]"), None),
        ] {
            let (l, _) = parse_line(&line, None, false).unwrap();
            assert_eq!(l.score, want, "{line}");
        }
        let written = format!("{black}{} [1.0]", write_evaluation(-35, Color::Black));
        let (l, format) = parse_line(&written, None, false).unwrap();
        assert_eq!((l.score, format), (Some(-35), LabelFormat::Bracket));
        for f in LabelFormat::ALL {
            let Some(text) = f.write(Outcome::Draw.into()) else {
                assert_eq!(f, LabelFormat::ResultScore, "only it writes a score");
                continue;
            };
            let line = format!("{START} ce 10; {text}");
            assert_eq!(parse_line(&line, None, false).unwrap().1, f, "{line}");
        }
    }

    #[test]
    fn pedantic_csv_lines_read_whites_result_and_the_movers_evaluation() {
        let black = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        let line = format!("A1B2C3D4E5F60718,1,85,{black},0,-35,1.0");
        let (l, format) = parse_line(&line, None, false).unwrap();
        assert_eq!(format, LabelFormat::Pedantic);
        assert_eq!((l.label.white_score(), l.score), (1.0, Some(35)));
        let named = parse_line(&line, Some(LabelFormat::Pedantic), false).unwrap();
        assert_eq!(named.0.label, l.label);
        // The side to move's labels turn the result (the evaluation is the mover's anyway).
        let (stm, _) = parse_line(&line, None, true).unwrap();
        assert_eq!(stm.label.white_score(), 0.0);
        // Six fields, or a last field that is no result: not Pedantic's.
        let short = format!("1,85,{black},0,-35,1.0");
        assert!(parse_line(&short, Some(LabelFormat::Pedantic), false).is_err());
        let scored = format!("A1B2C3D4E5F60718,1,85,{black},0,-35,35");
        assert!(parse_line(&scored, Some(LabelFormat::Pedantic), false).is_err());
        // A row of Pedantic's with a field missing, one too many, or an Eval that is no
        // number: a bad row of that form, named so, detected or asked.
        for row in [
            format!("A1B2C3D4E5F60718,1,85,{black},0,-35"),
            format!("A1B2C3D4E5F60718,1,{black},0,-35,1.0"),
            format!("A1B2C3D4E5F60718,1,85,{black},0,-35,1.0,7"),
            format!("A1B2C3D4E5F60718,1,85,{black},0,x35,1.0"),
        ] {
            for asked in [None, Some(LabelFormat::Pedantic)] {
                let bad = parse_line(&row, asked, false).unwrap_err();
                assert_eq!(bad, BadLine::BadPedantic, "{row}");
            }
        }
        let no_eval = format!("A1B2C3D4E5F60718,1,85,{black},0,,1.0");
        assert_eq!(parse_line(&no_eval, None, false).unwrap().0.score, None);
        // An EPD line is never read as one.
        let epd = format!("{START} [1.0]");
        assert_eq!(
            parse_line(&epd, None, false).unwrap().1,
            LabelFormat::Bracket
        );
    }

    #[test]
    fn a_result_then_a_score_is_read_as_both_from_whites_view() {
        let black = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -";
        for (line, stm, want) in [
            // Stash's form: the result, then the score.
            (format!("{START} 0 1 1.0 35"), false, (1.0, Some(35))),
            (format!("{black} 0.5 -12"), false, (0.5, Some(-12))),
            (format!("{START} 0.0 1"), false, (0.0, Some(1))),
            // lichess-big3-resolved with its scores: a second bracket.
            (format!("{START} [1.0] [35]"), false, (1.0, Some(35))),
            (format!("{black} [0.0] [-240]"), false, (0.0, Some(-240))),
            // Sirius's: the score between bars, then the result.
            (format!("{START} 0 1 | 35cp | 1.0"), false, (1.0, Some(35))),
            (format!("{black} 0 1 | -7cp | 0.5"), false, (0.5, Some(-7))),
            (format!("{START} 0 1 | 35 | 1.0"), false, (1.0, Some(35))),
            (format!("{black} 0 1 | -7 | 0.0"), false, (0.0, Some(-7))),
            // Labels of the side to move turn the score with the result.
            (format!("{black} 1.0 35"), true, (0.0, Some(-35))),
        ] {
            let (l, _) = parse_line(&line, None, stm).unwrap();
            assert_eq!((l.label.white_score(), l.score), want, "{line}");
        }
        let (_, format) = parse_line(&format!("{START} 1.0 35"), None, false).unwrap();
        assert_eq!(format, LabelFormat::ResultScore);
        // A bare result keeps its form: the clocks of a FEN are not a result and a score.
        let (l, format) = parse_line(&format!("{START} 0 1 1.0"), None, false).unwrap();
        assert_eq!((format, l.label.white_score()), (LabelFormat::Decimal, 1.0));
        assert!(LabelFormat::ResultScore.read("1 35").is_none());
        assert!(LabelFormat::ResultScore.read("1.0 35.5").is_none());
    }

    #[test]
    fn every_label_format_is_detected_and_read() {
        let cases = [
            (
                format!("{START} c9 \"1-0\";"),
                LabelFormat::C9,
                Outcome::WhiteWins.into(),
            ),
            (
                format!("{START} bm e4; c9 \"1/2-1/2\";"),
                LabelFormat::C9,
                Outcome::Draw.into(),
            ),
            (
                format!("{START} 0 1 [0.0]"),
                LabelFormat::Bracket,
                Outcome::BlackWins.into(),
            ),
            (
                format!("{START} 0 1 [0.5] 35"),
                LabelFormat::Bracket,
                Outcome::Draw.into(),
            ),
            (
                format!("{START} 0 1 1/2-1/2"),
                LabelFormat::Result,
                Outcome::Draw.into(),
            ),
            (
                format!("{START} 0-1"),
                LabelFormat::Result,
                Outcome::BlackWins.into(),
            ),
            (
                format!("{START} 0 1 0.5"),
                LabelFormat::Decimal,
                Outcome::Draw.into(),
            ),
            (
                format!("{START} 1"),
                LabelFormat::Decimal,
                Outcome::WhiteWins.into(),
            ),
            (
                format!("{START} 0 1; b"),
                LabelFormat::Letter,
                Outcome::BlackWins.into(),
            ),
            (
                format!("{START} 3 20 ; d"),
                LabelFormat::Letter,
                Outcome::Draw.into(),
            ),
        ];
        for (line, format, outcome) in cases {
            let (l, f) = parse_line(&line, None, false).unwrap();
            assert_eq!((f, l.label), (format, outcome), "{line}");
            assert_eq!(
                parse_line(&line, Some(format), false).unwrap().0.label,
                outcome
            );
        }
    }

    #[test]
    fn counters_are_optional_and_not_mistaken_for_labels() {
        let (l, f) = parse_line(&format!("{START} 12 40 [1.0]"), None, false).unwrap();
        assert_eq!(
            (f, l.label),
            (LabelFormat::Bracket, Outcome::WhiteWins.into())
        );
        assert_eq!(
            parse_line(&format!("{START} 0 1"), None, false).unwrap_err(),
            BadLine::MissingLabel
        );
    }

    #[test]
    fn a_label_glued_to_the_move_number_keeps_the_number() {
        let black = "4k3/8/8/8/8/8/4P3/4K3 b - - 3 36; 0.0";
        let (l, f) = parse_line(black, None, false).unwrap();
        assert_eq!(
            (f, l.label),
            (LabelFormat::Decimal, Outcome::BlackWins.into())
        );
        let fen = Fen::from_position(&l.position, shakmaty::EnPassantMode::Legal);
        assert_eq!(fen.to_string(), "4k3/8/8/8/8/8/4P3/4K3 b - - 3 36");
        let (split, rest) = split_position(black);
        assert_eq!(
            (split.as_ref(), rest),
            ("4k3/8/8/8/8/8/4P3/4K3 b - - 3 36", "; 0.0")
        );
    }

    #[test]
    fn an_opcodes_operand_is_no_label() {
        for line in [format!("{START} ce 1;"), format!("{START} acd 0;")] {
            assert_eq!(
                parse_line(&line, None, false).unwrap_err(),
                BadLine::UnknownLabel,
                "{line}"
            );
        }
        let (l, _) = parse_line(&format!("{START} 1"), None, false).unwrap();
        assert_eq!(l.label, Outcome::WhiteWins.into());
    }

    #[test]
    fn side_to_move_labels_are_turned_to_white() {
        let black = "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1 [1.0]";
        assert_eq!(
            parse_line(black, None, true).unwrap().0.label,
            Outcome::BlackWins.into()
        );
        assert_eq!(
            parse_line(black, None, false).unwrap().0.label,
            Outcome::WhiteWins.into()
        );
    }

    #[test]
    fn a_file_is_of_scores_when_its_scores_are_a_fifth_of_its_numbers() {
        assert!(numbers_are_scores(240, 160));
        assert!(numbers_are_scores(1, 4));
        assert!(!numbers_are_scores(1, 5), "a stray score among results");
        assert!(!numbers_are_scores(30, 0), "no 0 or 1 is read as a result");
        let zero = LabelFormat::Bracket.read("[0]").unwrap();
        assert!(LabelFormat::Bracket.could_be_centipawns(zero));
        assert!(!LabelFormat::Result.could_be_centipawns(zero));
        let draw = LabelFormat::Bracket.read("[0.5]").unwrap();
        assert!(!LabelFormat::Bracket.could_be_centipawns(draw));
    }

    #[test]
    fn bad_lines_say_why() {
        assert_eq!(
            parse_line("garbage [1.0]", None, false).unwrap_err(),
            BadLine::MalformedFen
        );
        assert_eq!(
            parse_line("8/8/8/8/8/8/8/8 w - - [1.0]", None, false).unwrap_err(),
            BadLine::IllegalPosition
        );
        assert_eq!(
            parse_line(START, None, false).unwrap_err(),
            BadLine::MissingLabel
        );
        for score in ["[2.0]", "[35]", "-120", "\"+1.8/12\""] {
            assert_eq!(
                parse_line(&format!("{START} {score}"), None, false).unwrap_err(),
                BadLine::ScoreLabel,
                "{score}"
            );
        }
        assert_eq!(
            parse_line(&format!("{START} [win]"), None, false).unwrap_err(),
            BadLine::UnknownLabel
        );
        let c9 = format!("{START} [1.0]");
        assert_eq!(
            parse_line(&c9, Some(LabelFormat::C9), false).unwrap_err(),
            BadLine::UnknownLabel
        );
    }

    #[test]
    fn the_position_is_a_slice_of_the_line_unless_tabs_separate_it() {
        let cases = [
            (
                format!("  {START} 3 20 [0.5]"),
                format!("{START} 3 20"),
                " [0.5]",
            ),
            (format!("{START} 7 1-0"), format!("{START} 7"), " 1-0"),
            (format!("{START} 0.5"), START.to_string(), " 0.5"),
            (
                format!("{START} c9 \"1-0\";"),
                START.to_string(),
                " c9 \"1-0\";",
            ),
        ];
        for (line, position, rest) in &cases {
            let (got, got_rest) = split_position(line);
            assert!(matches!(got, Cow::Borrowed(_)), "{line}");
            assert_eq!((got.as_ref(), got_rest), (position.as_str(), *rest));
        }
        let tabbed = format!("{}\t1-0", START.replace(' ', "\t"));
        let (got, rest) = split_position(&tabbed);
        assert_eq!((got.as_ref(), rest), (START, "\t1-0"));
        let (l, _) = parse_line(&tabbed, None, false).unwrap();
        assert_eq!(l.label, Label::from(Outcome::WhiteWins));
    }

    #[test]
    fn written_labels_read_back() {
        let written = LabelFormat::ALL
            .into_iter()
            .filter(|&f| f != LabelFormat::ResultScore);
        for f in written {
            for o in [Outcome::BlackWins, Outcome::Draw, Outcome::WhiteWins] {
                let line = format!("{START} {}", f.write(o.into()).unwrap());
                assert_eq!(parse_line(&line, Some(f), false).unwrap().0.label, o.into());
            }
        }
    }

    #[test]
    fn fractional_labels_are_read_and_written_where_the_format_can() {
        let third = Label::mean(200, 3);
        assert_eq!(third.steps(), 67);
        assert_eq!(third.to_string(), "0.335");
        assert_eq!(Label::from_score(0.25).unwrap().to_string(), "0.25");
        assert_eq!(Label::from(Outcome::WhiteWins).to_string(), "1.0");
        for f in LabelFormat::ALL {
            assert_eq!(f.write(third).is_some(), f.writes_fractions(), "{f}");
        }
        let line = format!("{START} [0.335]");
        assert_eq!(parse_line(&line, None, false).unwrap().0.label, third);
        let (l, f) = parse_line(&format!("{START} 0 1 0.75"), None, true).unwrap();
        assert_eq!((f, l.label.white_score()), (LabelFormat::Decimal, 0.75));
        assert_eq!(l.label.outcome(), None);
        assert_eq!(Label::from_score(1.5), None);
        assert_eq!(Label::from_steps(201), None);
    }
}
