//! What the first block of a records file says before any of it is used: whether it is the
//! form it is read as (marlinformat and bulletformat are both 32 bytes a record, so a file
//! of one reads, wrongly, as the other), and whether its scores are scores at all (a score
//! of 0 in every record is the forms' way of saying none, and what texel writes when it
//! has none).

use crate::epd::Labelled;
use crate::records::{RecordForm, RECORD};

/// Records (or games) of the first block judged.
const SAMPLE: usize = 1_000;

/// What a file read as records holds instead.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Looks {
    /// Records (or games) of another form.
    Form(RecordForm),
    /// Text lines: a file of labelled positions, whose forms are read line by line.
    Text,
    /// Nothing texel reads: most of its first records hold no chess position.
    Unknown,
}

impl Looks {
    /// What it holds, in words.
    fn holds(self) -> &'static str {
        match self {
            Looks::Form(form) => form.holds(),
            Looks::Text => "text lines",
            Looks::Unknown => "no records texel reads",
        }
    }
}

/// A records file read as one form whose first records read as another, as text, or as
/// nothing texel reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("it holds {}, not {}: {}", looks.holds(), asked.holds(), self.evidence())]
pub struct WrongForm {
    /// The form it was read as.
    pub asked: RecordForm,
    /// What its first block reads as.
    pub looks: Looks,
    /// Percent of the first records (or games) that read as `asked`.
    pub asked_share: u32,
    /// Percent that read as `looks`.
    pub looks_share: u32,
}

impl WrongForm {
    /// What gave the file away, in words.
    fn evidence(&self) -> String {
        let looks = match self.looks {
            Looks::Form(form) => form,
            Looks::Text => {
                return format!(
                    "its first bytes are text broken into lines, and {}% of its first records \
                     read as {}",
                    self.asked_share,
                    self.asked.holds()
                )
            }
            Looks::Unknown => {
                return format!(
                    "{}% of its first records read as {}, none as another form",
                    self.asked_share,
                    self.asked.holds()
                )
            }
        };
        match looks {
            RecordForm::Bullet => format!(
                "the king squares of {}% of its first records match their boards, as only \
                 bulletformat's do",
                self.looks_share
            ),
            _ => format!(
                "{}% of its first {} read as {}, {}% as {}",
                self.looks_share,
                match RecordForm::Viri {
                    viri if viri == self.asked || viri == looks => "records or games",
                    _ => "records",
                },
                looks.holds(),
                self.asked_share,
                self.asked.holds()
            ),
        }
    }
}

/// What the first block of a records file says about the rest.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Survey {
    /// Its records carry scores: false when every score of the first block's positions is
    /// 0, which then reads as no score in every record of the file.
    pub scored: bool,
}

impl Survey {
    /// A position read from the file, its score dropped where the file carries none.
    pub fn label(self, l: Labelled) -> Labelled {
        match self.scored {
            true => l,
            false => Labelled { score: None, ..l },
        }
    }
}

/// Whether the start of `block` is text broken into lines: no control byte but tabs and
/// line ends, and a line end among them.
fn is_text(block: &[u8]) -> bool {
    let head = &block[..block.len().min(4096)];
    let plain = |&b: &u8| b >= 0x20 || matches!(b, b'\t' | b'\n' | b'\r');
    head.iter().all(plain) && head.contains(&b'\n')
}

/// How a sample read in one form: of how many units, how many read whole, and whether
/// every position read has a score of 0.
struct Reading {
    units: usize,
    whole: usize,
    all_zero: bool,
}

impl Reading {
    fn percent(&self) -> u32 {
        (100 * self.whole).checked_div(self.units).unwrap_or(0) as u32
    }

    /// At least nine in ten units read whole.
    fn sure(&self) -> bool {
        self.units > 0 && 10 * self.whole >= 9 * self.units
    }
}

/// Reads the first units of `block` as `form`.
fn reading(form: RecordForm, block: &[u8]) -> Reading {
    let positions: Vec<Vec<Result<Labelled, _>>> = match form.record_reader() {
        Some(read) => (block.chunks_exact(RECORD).take(SAMPLE))
            .map(|record| vec![read(record)])
            .collect(),
        None => (crate::viri::games(block).take(SAMPLE))
            .map(crate::viri::positions)
            .collect(),
    };
    let whole = |unit: &Vec<Result<Labelled, _>>| unit.iter().all(Result::is_ok);
    let scores = positions.iter().flatten().flatten().map(|l| l.score);
    let mut scores = scores.peekable();
    let any = scores.peek().is_some();
    Reading {
        units: positions.len(),
        whole: positions.iter().filter(|u| whole(u)).count(),
        all_zero: any && scores.all(|s| s == Some(0)),
    }
}

impl RecordForm {
    /// Judges the first block of a file read as this form: refused when its records read as
    /// another form (bulletformat's king squares match its boards in nine records of ten, or
    /// fewer than half read as this form and nine in ten as another), and otherwise whether
    /// it carries scores.
    ///
    /// # Errors
    /// The form the file's records read as.
    pub fn survey(self, block: &[u8]) -> Result<Survey, WrongForm> {
        let asked = reading(self, block);
        let others = [RecordForm::Bullet, RecordForm::Marlin, RecordForm::Viri];
        for other in others.into_iter().filter(|&f| f != self) {
            let theirs = reading(other, block);
            let taken = match other {
                // A bulletformat record names its kings' squares apart from its board: a
                // file whose records agree is bulletformat, whatever else it reads as.
                RecordForm::Bullet => theirs.sure(),
                _ => theirs.sure() && 2 * asked.whole < asked.units,
            };
            if taken {
                return Err(WrongForm {
                    asked: self,
                    looks: Looks::Form(other),
                    asked_share: asked.percent(),
                    looks_share: theirs.percent(),
                });
            }
        }
        // Fewer than half read as asked and no other form: text, or nothing at all.
        if 2 * asked.whole < asked.units {
            let looks = if is_text(block) {
                Looks::Text
            } else {
                Looks::Unknown
            };
            return Err(WrongForm {
                asked: self,
                looks,
                asked_share: asked.percent(),
                looks_share: 0,
            });
        }
        Ok(Survey {
            scored: !asked.all_zero,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::epd::Outcome;
    use shakmaty::{fen::Fen, CastlingMode, Chess, Position};

    fn positions() -> Vec<Chess> {
        [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "r3k2r/8/8/3pP3/8/8/8/R3K2R w Kq - 4 20",
            "8/5k2/8/8/3q4/8/2P5/1K6 b - - 0 40",
            "4k3/8/8/8/8/8/4P3/4K3 w - - 3 60",
        ]
        .iter()
        .map(|f| {
            let fen: Fen = f.parse().unwrap();
            fen.into_position(CastlingMode::Standard).unwrap()
        })
        .collect()
    }

    fn file(write: fn(&Chess, Outcome, i32) -> [u8; RECORD], score: i32) -> Vec<u8> {
        let all = positions();
        (0..100)
            .flat_map(|i| write(&all[i % all.len()], Outcome::Draw, score * i as i32))
            .collect()
    }

    #[test]
    fn each_form_read_as_itself_passes_and_as_another_is_refused_naming_it() {
        let marlin = file(crate::marlin::write_record, 7);
        let bullet = file(crate::bullet::write_record, 7);
        let start = Chess::default();
        let moves: Vec<_> = start.legal_moves().into_iter().map(|m| (m, 5)).collect();
        let viri: Vec<u8> = (0..20)
            .flat_map(|i| crate::viri::write_game(&start, Outcome::Draw, &moves[i..i + 1]))
            .collect();
        let cases = [
            (RecordForm::Marlin, &marlin),
            (RecordForm::Bullet, &bullet),
            (RecordForm::Viri, &viri),
        ];
        for (form, bytes) in cases {
            assert!(form.survey(bytes).is_ok(), "{form:?}");
        }
        let wrong = RecordForm::Marlin.survey(&bullet).unwrap_err();
        let bulletformat = Looks::Form(RecordForm::Bullet);
        assert_eq!((wrong.looks, wrong.looks_share), (bulletformat, 100));
        let text = wrong.to_string();
        assert!(
            text.starts_with("it holds bulletformat records, not marlinformat"),
            "{text}"
        );
        assert_eq!(
            RecordForm::Bullet.survey(&marlin).unwrap_err().looks,
            Looks::Form(RecordForm::Marlin)
        );
    }

    #[test]
    fn text_or_random_bytes_read_as_records_are_named_for_what_they_are() {
        let text = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 [0.5]\n".repeat(200);
        let mut seed = 7u64;
        let noise: Vec<u8> = (0..32 * 200)
            .map(|_| {
                seed = crate::splitmix64(seed);
                seed as u8
            })
            .collect();
        for form in [RecordForm::Marlin, RecordForm::Bullet, RecordForm::Viri] {
            let wrong = form.survey(text.as_bytes()).unwrap_err();
            assert_eq!(wrong.looks, Looks::Text, "{form:?}");
            assert!(
                wrong.to_string().starts_with("it holds text lines, not"),
                "{wrong}"
            );
            let wrong = form.survey(&noise).unwrap_err();
            assert_eq!(wrong.looks, Looks::Unknown, "{form:?}");
            assert!(
                wrong.to_string().contains("no records texel reads"),
                "{wrong}"
            );
        }
    }

    #[test]
    fn a_file_whose_every_score_is_zero_carries_none() {
        let zero = RecordForm::Marlin.survey(&file(crate::marlin::write_record, 0));
        assert_eq!(zero, Ok(Survey { scored: false }));
        let some = RecordForm::Marlin.survey(&file(crate::marlin::write_record, 3));
        assert_eq!(some, Ok(Survey { scored: true }));
        let read = crate::marlin::read_bytes(&crate::marlin::write_record(
            &Chess::default(),
            Outcome::Draw,
            0,
        ))
        .unwrap();
        assert_eq!(Survey { scored: false }.label(read).score, None);
    }
}
