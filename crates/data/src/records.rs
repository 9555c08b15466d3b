//! Binary position files, as NNUE data generators and trainers write them: marlinformat
//! and bulletformat records (32 bytes, one position each, [`crate::marlin`],
//! [`crate::bullet`]) and viriformat games (a start record and its moves with their scores,
//! [`crate::viri`]).
//!
//! A file is read a block of whole units at a time ([`RecordForm::read_block`]); a unit is
//! a record or a game ([`RecordForm::units`]), each numbered from 1 in the file, and its
//! positions are read on their own ([`RecordForm::record_reader`], [`crate::viri::positions`]),
//! so blocks parse in parallel.

use crate::epd::{Labelled, Outcome};

/// Why a record (or a game's start record or move) is not a labelled position.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// More than 32 squares are occupied, or a piece nibble is not a piece.
    #[error("its pieces are not a board")]
    Pieces,
    /// The result byte is not 0, 1 or 2.
    #[error("result {0} is not 0, 1 or 2")]
    Result(u8),
    /// The board, castling rights or move counters are not a legal chess position.
    #[error("not a legal position")]
    Illegal,
    /// A bulletformat record's king squares are not where its board has the kings.
    #[error("its king squares do not match its board")]
    Kings,
    /// A viriformat move (its 1-based ply in the game) is not a legal move there.
    #[error("move {0} of the game is not legal")]
    Move(usize),
}

/// A binary form of positions.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RecordForm {
    /// marlinformat: 32-byte records, White's view.
    Marlin,
    /// bulletformat: 32-byte records from the side to move's view.
    Bullet,
    /// viriformat: games, a marlinformat start and (move, score) pairs.
    Viri,
}

impl RecordForm {
    /// What a file of this form holds, in words: `marlinformat records`, `bulletformat
    /// records`, `viriformat games`.
    pub fn holds(self) -> &'static str {
        match self {
            RecordForm::Marlin => "marlinformat records",
            RecordForm::Bullet => "bulletformat records",
            RecordForm::Viri => "viriformat games",
        }
    }

    /// Reads whole units (records or games) of `reader` into `block` (emptied first) until
    /// it holds at least `bytes` bytes or the input ends; `false` when nothing was left.
    ///
    /// # Errors
    /// A read error, or an input that ends inside a unit.
    pub fn read_block(
        self,
        reader: &mut dyn std::io::BufRead,
        bytes: usize,
        block: &mut Vec<u8>,
    ) -> std::io::Result<bool> {
        match self {
            RecordForm::Marlin | RecordForm::Bullet => read_records(reader, bytes, block),
            RecordForm::Viri => crate::viri::read_games(reader, bytes, block),
        }
    }

    /// The units of a block from [`RecordForm::read_block`], each with its 1-based number
    /// (`count` counts every unit read so far).
    pub fn units<'a>(self, block: &'a [u8], count: &mut u64) -> Vec<(u64, &'a [u8])> {
        let cut: Vec<&[u8]> = match self {
            RecordForm::Marlin | RecordForm::Bullet => block.chunks_exact(RECORD).collect(),
            RecordForm::Viri => crate::viri::games(block).collect(),
        };
        cut.into_iter()
            .map(|unit| {
                *count += 1;
                (*count, unit)
            })
            .collect()
    }

    /// The reader of a one-position unit (a marlinformat or bulletformat record); `None`
    /// for games (viriformat), whose positions [`crate::viri::positions`] reads.
    pub fn record_reader(self) -> Option<ReadRecord> {
        match self {
            RecordForm::Marlin => Some(crate::marlin::read_bytes),
            RecordForm::Bullet => Some(crate::bullet::read_bytes),
            RecordForm::Viri => None,
        }
    }
}

/// Reads one record: its labelled position, or why it is not one.
pub type ReadRecord = fn(&[u8]) -> Result<Labelled, RecordError>;

/// Bytes a marlinformat or bulletformat record takes.
pub const RECORD: usize = 32;

/// Reads whole 32-byte records, at least `bytes` of them when the input has them.
fn read_records(
    reader: &mut dyn std::io::BufRead,
    bytes: usize,
    block: &mut Vec<u8>,
) -> std::io::Result<bool> {
    use std::io::Read;
    block.clear();
    let whole = bytes.div_ceil(RECORD).max(1) * RECORD;
    reader.take(whole as u64).read_to_end(block)?;
    if !block.len().is_multiple_of(RECORD) {
        return Err(cut_short(&format!("a {RECORD}-byte record")));
    }
    Ok(!block.is_empty())
}

/// The error of an input that ends inside `unit`.
pub(crate) fn cut_short(unit: &str) -> std::io::Error {
    let msg = format!("it ends inside {unit}");
    std::io::Error::new(std::io::ErrorKind::InvalidData, msg)
}

/// The result byte of marlinformat and viriformat (bulletformat's from the side to move's
/// view): 0 Black (that side) lost, 1 a draw, 2 White (that side) won.
pub(crate) fn result_byte(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::BlackWins => 0,
        Outcome::Draw => 1,
        Outcome::WhiteWins => 2,
    }
}

/// The outcome of a result byte ([`result_byte`]).
pub(crate) fn outcome_of(byte: u8) -> Result<Outcome, RecordError> {
    match byte {
        0 => Ok(Outcome::BlackWins),
        1 => Ok(Outcome::Draw),
        2 => Ok(Outcome::WhiteWins),
        other => Err(RecordError::Result(other)),
    }
}

impl From<RecordError> for crate::epd::BadLine {
    /// The reason a line would be bad for a record that is.
    fn from(e: RecordError) -> Self {
        use crate::epd::BadLine;
        match e {
            RecordError::Pieces | RecordError::Kings => BadLine::MalformedFen,
            RecordError::Illegal | RecordError::Move(_) => BadLine::IllegalPosition,
            RecordError::Result(_) => BadLine::UnknownLabel,
        }
    }
}

/// A labelled position read from a file (with the form of its label), or why its line,
/// record or game is not one.
pub type Read = Result<(Labelled, crate::LabelFormat), crate::epd::BadLine>;

/// Why a file's positions could not be read on.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// A read error, or a binary input that ends inside a record or game.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A records file whose records read as another form.
    #[error(transparent)]
    WrongForm(#[from] crate::WrongForm),
}

/// Reads every position of `reader` in `reading`'s form (text lines, detected or named,
/// or a binary form named, judged on its first block: [`RecordForm::survey`]), one at a
/// time in file order: `each` gets the number of the line, record or game it comes from
/// and the position or why there is none.
///
/// # Errors
/// A read error, a binary input that ends inside a record or game, or one whose records
/// are of another form.
pub fn for_each_position(
    reader: &mut dyn std::io::BufRead,
    reading: crate::LabelReading,
    each: &mut dyn FnMut(u64, Read),
) -> Result<(), ReadError> {
    let (mut block, mut count) = (Vec::new(), 0);
    const BLOCK: usize = 1 << 20;
    let Some((format, form)) = reading.format.and_then(|f| Some((f, f.record_form()?))) else {
        while crate::read_block(reader, BLOCK, &mut block)? {
            for (no, line) in crate::block_lines(&block, &mut count) {
                each(no, reading.parse(&String::from_utf8_lossy(line)));
            }
        }
        return Ok(());
    };
    let mut survey = None;
    while form.read_block(reader, BLOCK, &mut block)? {
        let survey = match survey {
            Some(s) => s,
            None => *survey.insert(form.survey(&block)?),
        };
        for (no, unit) in form.units(&block, &mut count) {
            let read = |r: Result<Labelled, RecordError>| {
                r.map(|l| (survey.label(l), format)).map_err(Into::into)
            };
            match form.record_reader() {
                Some(record) => each(no, read(record(unit))),
                // A game's positions know its number in the file.
                None => crate::viri::numbered_positions(unit, no).for_each(|r| each(no, read(r))),
            }
        }
    }
    Ok(())
}

/// The board and castling rooks of a marlinformat or bulletformat record: the occupied
/// squares (64 bits from byte 0) and a nibble per occupied square from byte 8, which
/// `piece` reads as a piece and whether it is a rook its side may castle with.
///
/// # Errors
/// A record of another length, more than 32 pieces, or a nibble that is no piece.
pub(crate) fn read_board(
    record: &[u8],
    piece: impl Fn(u8) -> Option<(shakmaty::Piece, bool)>,
) -> Result<shakmaty::Setup, RecordError> {
    if record.len() != RECORD {
        return Err(RecordError::Pieces);
    }
    let occupied = shakmaty::Bitboard(u64::from_le_bytes(
        record[0..8].try_into().map_err(|_| RecordError::Pieces)?,
    ));
    if occupied.count() > 32 {
        return Err(RecordError::Pieces);
    }
    let mut setup = shakmaty::Setup::empty();
    for (k, square) in occupied.into_iter().enumerate() {
        let nibble = (record[8 + k / 2] >> (4 * (k % 2))) & 0xF;
        let (on, castles) = piece(nibble).ok_or(RecordError::Pieces)?;
        setup.board.set_piece_at(square, on);
        if castles {
            setup.castling_rights.add(square);
        }
    }
    Ok(setup)
}
