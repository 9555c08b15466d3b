//! The Slow Chess loop's files: `loop.jsonl`, one line per finished round (its games and
//! positions, the errors of its tuning, and its gate). `texel loop` writes them and the loop
//! page reads them, both through [`RoundLine`].

use serde::{Deserialize, Serialize};
use texel_arena::sprt::SprtTest;
use texel_files::{read_versioned_lines, LinesError, VersionedLine};

/// The version of `loop.jsonl` lines: 2 writes the gate's SPRT as its bounds (`"0,10"`);
/// version 1 lines (bounds as a pair and a model name, or none) are still read.
pub const LOOP_VERSION: u32 = 2;

fn version_one() -> u32 {
    1
}

/// The gate bounds of lines written before the loop recorded them: 0 and 10 logistic Elo.
fn default_sprt() -> SprtTest {
    SprtTest::logistic(0.0, 10.0)
}

/// The training and validation error of the round's kept tuning pass.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RoundErrors {
    /// Training error.
    pub train: Option<f64>,
    /// Validation error.
    pub validation: Option<f64>,
}

/// How the round's gate ended: a match here (score, Elo, LLR) or an outside SPRT's verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "GateRecord")]
pub struct GateLine {
    /// The gate was an SPRT run elsewhere: only `passed` is known (the score is zero).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub outside: bool,
    /// No gate was played: validation kept the round's start, so the tuned table is the
    /// best itself (`passed` is false, the score zero).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skipped: bool,
    /// Games the tuned table won against the best.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// Elo of the tuned table and the half-width of its 95 % interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elo: Option<f64>,
    /// The half-width of the Elo interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<f64>,
    /// The SPRT's log-likelihood ratio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llr: Option<f64>,
    /// The gate's SPRT (its bounds and how they are read).
    pub sprt: SprtTest,
    /// Whether the tuned table became the best.
    pub passed: bool,
}

/// A gate as a line holds it, of either version: the SPRT as its bounds (version 2), or as
/// a pair of Elo and a model name (version 1; lines before that have none).
#[derive(Deserialize)]
struct GateRecord {
    #[serde(default)]
    outside: bool,
    #[serde(default)]
    skipped: bool,
    wins: u32,
    draws: u32,
    losses: u32,
    #[serde(default)]
    elo: Option<f64>,
    #[serde(default)]
    margin: Option<f64>,
    #[serde(default)]
    llr: Option<f64>,
    #[serde(default)]
    sprt: Option<SprtField>,
    #[serde(default)]
    sprt_model: Option<String>,
    passed: bool,
}

/// The SPRT of a gate line: bounds as `--sprt` takes them, or version 1's pair.
#[derive(Deserialize)]
#[serde(untagged)]
enum SprtField {
    Bounds(SprtTest),
    Pair([f64; 2]),
}

impl TryFrom<GateRecord> for GateLine {
    type Error = String;

    fn try_from(g: GateRecord) -> Result<GateLine, String> {
        let sprt = match (g.sprt, g.sprt_model) {
            (Some(SprtField::Bounds(test)), _) => test,
            (Some(SprtField::Pair([elo0, elo1])), model) => {
                let model = model.as_deref().unwrap_or("logistic");
                format!("{elo0},{elo1},{model}").parse()?
            }
            (None, _) => default_sprt(),
        };
        Ok(GateLine {
            outside: g.outside,
            skipped: g.skipped,
            wins: g.wins,
            draws: g.draws,
            losses: g.losses,
            elo: g.elo,
            margin: g.margin,
            llr: g.llr,
            sprt,
            passed: g.passed,
        })
    }
}

/// One finished round of `loop.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoundLine {
    /// [`LOOP_VERSION`] (lines written before versions were recorded are version 1).
    #[serde(default = "version_one")]
    pub version: u32,
    /// The round, from 1.
    pub round: u32,
    /// Games played (or imported).
    pub games: u64,
    /// Labelled positions they gave.
    pub positions: u64,
    /// The errors of the round's tuning.
    pub error: RoundErrors,
    /// The gate.
    pub gate: GateLine,
}

impl VersionedLine for RoundLine {
    const WHAT: &'static str = "a round of a texel loop";
    const VERSION: u32 = LOOP_VERSION;
    const OLDEST: u32 = 1;

    fn version(&self) -> u32 {
        self.version
    }
}

/// Why `loop.jsonl` cannot be read: a line that is not a round, or of another version.
pub type LoopFileError = LinesError;

/// The finished rounds of `loop.jsonl`: every whole line (a last line without its newline
/// was cut short, and its round is not finished).
///
/// # Errors
/// A line that is not a round, or of another version.
pub fn read_rounds(text: &str) -> Result<Vec<RoundLine>, LoopFileError> {
    read_versioned_lines(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_of_every_version_so_far_are_read_and_others_refused() {
        let early = "{\"round\":1,\"games\":10,\"positions\":90,\"error\":{\"train\":0.03,\"validation\":0.031},\
                     \"gate\":{\"wins\":5,\"draws\":2,\"losses\":3,\"elo\":1,\"margin\":2,\"llr\":0.1,\"passed\":false}}\n";
        let rounds = read_rounds(early).unwrap();
        assert_eq!(rounds[0].gate.sprt, SprtTest::logistic(0.0, 10.0));
        let pair = early.replacen(
            "\"passed\"",
            "\"sprt\":[0,5],\"sprt_model\":\"normalized\",\"passed\"",
            1,
        );
        let rounds = read_rounds(&pair).unwrap();
        assert_eq!(rounds[0].gate.sprt, "0,5,normalized".parse().unwrap());
        let line = RoundLine {
            version: LOOP_VERSION,
            round: 2,
            games: 20_000,
            positions: 192_641,
            error: RoundErrors {
                train: Some(0.0214),
                validation: None,
            },
            gate: GateLine {
                outside: true,
                skipped: false,
                wins: 0,
                draws: 0,
                losses: 0,
                elo: None,
                margin: None,
                llr: None,
                sprt: "0,5,normalized".parse().unwrap(),
                passed: true,
            },
        };
        let text = serde_json::to_string(&line).unwrap() + "\n";
        assert_eq!(read_rounds(&text).unwrap(), vec![line]);
        assert!(
            read_rounds(&format!("{text}{{\"round\":3")).unwrap().len() == 1,
            "a torn last line"
        );
        assert!(text.contains("\"sprt\":\"0,5,normalized\""), "{text}");
        let newer = text.replacen("\"version\":2", "\"version\":3", 1);
        let err = read_rounds(&newer).unwrap_err().to_string();
        assert!(err.contains("line 1") && err.contains("version 3"), "{err}");
    }
}
