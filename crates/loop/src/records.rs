//! The Slow Chess loop's files: `loop.jsonl`, one line per finished round (its games and
//! positions, the errors of its tuning, and its gate). `texel loop` writes them and the loop
//! page reads them, both through [`RoundLine`].

use serde::{Deserialize, Serialize};
use texel_files::{read_versioned_lines, LinesError, VersionedLine};

/// The version of `loop.jsonl` lines; a line of another version is refused.
pub const LOOP_VERSION: u32 = 1;

fn version_one() -> u32 {
    LOOP_VERSION
}

/// The gate bounds of lines written before the loop recorded them: 0 and 10 logistic Elo.
pub const DEFAULT_SPRT: [f64; 2] = [0.0, 10.0];

fn default_sprt() -> [f64; 2] {
    DEFAULT_SPRT
}

fn logistic() -> String {
    "logistic".into()
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
    /// The SPRT's bounds, Elo.
    #[serde(default = "default_sprt")]
    pub sprt: [f64; 2],
    /// How the bounds are read: `logistic` or `normalized`.
    #[serde(default = "logistic")]
    pub sprt_model: String,
    /// Whether the tuned table became the best.
    pub passed: bool,
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
        assert_eq!(rounds[0].gate.sprt, DEFAULT_SPRT);
        assert_eq!(rounds[0].gate.sprt_model, "logistic");
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
                sprt: [0.0, 5.0],
                sprt_model: "normalized".into(),
                passed: true,
            },
        };
        let text = serde_json::to_string(&line).unwrap() + "\n";
        assert_eq!(read_rounds(&text).unwrap(), vec![line]);
        assert!(
            read_rounds(&format!("{text}{{\"round\":3")).unwrap().len() == 1,
            "a torn last line"
        );
        let newer = text.replacen("\"version\":1", "\"version\":2", 1);
        let err = read_rounds(&newer).unwrap_err().to_string();
        assert!(err.contains("line 1") && err.contains("version 2"), "{err}");
    }
}
