//! The term lab's files: one JSON line per verdict (appended as each finishes, read back to
//! skip finished subjects on a rerun), the ranked Markdown table, the JSON report, and the
//! parameters with the kept candidates applied.

use crate::lab::{LabSpace, SubjectKind, Verdict};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use texel_arena::sprt::SprtTest;
use texel_solve::Values;

/// When a verdict keeps its subject: the gain (validation when there is a validation set)
/// is above zero and at least this share of the held error.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct KeepRule {
    /// The least relative gain kept.
    pub min_relative_gain: f64,
    /// The run asked for a validation split: a verdict is decided on it, and one without a
    /// validation error (no validation positions) is never kept.
    pub needs_validation: bool,
}

/// The default least relative gain kept (0.01 % of the held error).
pub const DEFAULT_KEEP_MIN_DROP: f64 = 1e-4;

impl KeepRule {
    /// The verdict in a word: `keep`, `reject`, `dead weight` (an ablated term that removes
    /// no error), or why a verdict cannot be given.
    pub fn word(&self, v: &Verdict) -> &'static str {
        match (self.rejects(v), v.kind) {
            (None, _) => "keep",
            (Some(why @ "no validation positions to measure the gain on"), _) => why,
            (_, SubjectKind::Ablation) => "dead weight",
            _ => "reject",
        }
    }

    /// Whether `v`'s subject earns its place.
    pub fn keeps(&self, v: &Verdict) -> bool {
        self.rejects(v).is_none()
    }

    /// Why `v`'s subject is not kept (`None` when it is).
    pub fn rejects(&self, v: &Verdict) -> Option<&'static str> {
        let validation = v.validation_gain().filter(|g| g.is_finite());
        if self.needs_validation && validation.is_none() {
            return Some("no validation positions to measure the gain on");
        }
        let gain = validation.unwrap_or_else(|| v.train_gain());
        if gain.is_nan() || gain <= 0.0 {
            return Some("the gain is not above 0");
        }
        let relative = v.relative_gain();
        if relative.is_nan() || relative < self.min_relative_gain {
            return Some("the gain is below --keep-min-drop");
        }
        None
    }
}

/// The version of `lab.jsonl` lines and of `lab.json`; files of another version are refused.
pub const LAB_VERSION: u32 = 1;

fn version_one() -> u32 {
    LAB_VERSION
}

/// What a verdict's errors come to: the gains written beside it (read back, they are
/// recomputed from the errors).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gains {
    /// [`Verdict::train_gain`].
    pub train_gain: f64,
    /// [`Verdict::validation_gain`].
    pub validation_gain: Option<f64>,
    /// [`Verdict::relative_gain`].
    pub relative_gain: f64,
}

impl Gains {
    fn of(v: &Verdict) -> Gains {
        Gains {
            train_gain: v.train_gain(),
            validation_gain: v.validation_gain(),
            relative_gain: v.relative_gain(),
        }
    }
}

/// One line of `lab.jsonl`: a verdict with the key of the run it belongs to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VerdictLine {
    /// [`LAB_VERSION`] (lines written before versions were recorded are version 1).
    #[serde(default = "version_one")]
    pub version: u32,
    /// The data, base, K, passes and subject the verdict is for.
    pub key: String,
    /// The verdict.
    #[serde(flatten)]
    pub verdict: Verdict,
    /// Its gains.
    #[serde(flatten)]
    pub gains: Gains,
}

/// A verdict's line in `lab.jsonl`, with the key of the run it belongs to.
pub fn verdict_json(v: &Verdict, key: &str) -> String {
    let line = VerdictLine {
        version: LAB_VERSION,
        key: key.to_string(),
        verdict: v.clone(),
        gains: Gains::of(v),
    };
    serde_json::to_string(&line).expect("plain data")
}

impl texel_files::VersionedLine for VerdictLine {
    const WHAT: &'static str = "a verdict of a texel lab";
    const VERSION: u32 = LAB_VERSION;

    fn version(&self) -> u32 {
        self.version
    }
}

/// A kept subject played against the base at fixed nodes: its score and the SPRT's verdict
/// (the `proof` of a verdict in `lab.json`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GameProof {
    /// Games the subject's table won, drew and lost against the base.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// Elo of the subject's table and the half-width of its 95 % interval.
    pub elo: (f64, f64),
    /// The SPRT's log-likelihood ratio.
    pub llr: f64,
    /// The SPRT's verdict: `H1` (the gain holds in games), `H0` (it does not), or
    /// `undecided` (the games ran out first).
    pub sprt: String,
    /// The SPRT played (its bounds, written as `--prove-sprt` takes them).
    #[serde(deserialize_with = "sprt_of_either_form")]
    pub test: SprtTest,
}

/// A proof's SPRT as written: its bounds (`0,5`), or, in records of older texels, its
/// hypotheses in words (`H0 0 against H1 5 logistic Elo`).
fn sprt_of_either_form<'de, D: serde::Deserializer<'de>>(d: D) -> Result<SprtTest, D::Error> {
    use serde::Deserialize;
    let text = String::deserialize(d)?;
    let words: Vec<&str> = text.split(' ').collect();
    let bounds = match words[..] {
        ["H0", elo0, "against", "H1", elo1, model, "Elo"] => format!("{elo0},{elo1},{model}"),
        _ => text,
    };
    bounds.parse().map_err(serde::de::Error::custom)
}

impl GameProof {
    /// The proof as four table cells: the score, Elo ± interval, LLR, and what it says.
    pub fn cells(&self) -> [String; 4] {
        [
            format!("+{} ={} −{}", self.wins, self.draws, self.losses),
            format!("{:+.1} ± {:.1}", self.elo.0, self.elo.1),
            format!("{:.2}", self.llr),
            self.words().to_string(),
        ]
    }

    /// What the games say, in words.
    pub fn words(&self) -> &'static str {
        match self.sprt.as_str() {
            "H1" => "gains in games",
            "H0" => "loses in games",
            _ => "undecided in games",
        }
    }
}

/// Proofs by subject name.
pub type Proofs = BTreeMap<String, GameProof>;

/// Verdicts ranked best first: by relative gain, then by name (a stable order).
pub fn ranked(verdicts: &[Verdict]) -> Vec<&Verdict> {
    let mut list: Vec<&Verdict> = verdicts.iter().collect();
    list.sort_by(|a, b| {
        b.relative_gain()
            .total_cmp(&a.relative_gain())
            .then_with(|| a.subject.cmp(&b.subject))
    });
    list
}

/// The ranked table as Markdown; `header` lines describe the run; `proofs` add the games of
/// the kept subjects.
pub fn markdown(
    verdicts: &[Verdict],
    rule: &KeepRule,
    header: &[String],
    proofs: &Proofs,
) -> String {
    let mut out = String::from("# Term lab\n\n");
    for line in header {
        let _ = writeln!(out, "- {line}");
    }
    let _ = writeln!(
        out,
        "- kept: gain above 0 and at least {:.4} % of the held error\n",
        rule.min_relative_gain * 100.0
    );
    out.push_str("| # | subject | kind | tuned with | fires | held error | gain (validation) | gain (train) | relative | verdict | s |");
    out.push_str(if proofs.is_empty() {
        "\n"
    } else {
        " games | Elo | LLR | in games |\n"
    });
    out.push_str("|---|---|---|---|---|---|---|---|---|---|---|");
    out.push_str(if proofs.is_empty() {
        "\n"
    } else {
        "---|---|---|---|\n"
    });
    for (i, v) in ranked(verdicts).into_iter().enumerate() {
        let held = v.held.validation.unwrap_or(v.held.train);
        let gain = |g: Option<f64>| g.map_or("-".to_string(), |g| format!("{g:.3e}"));
        let verdict = rule.word(v);
        let _ = write!(
            out,
            "| {} | `{}` | {} | {} | {:.1} % | {held:.6} | {} | {} | {:.4} % | {verdict} | {:.1} |",
            i + 1,
            v.subject,
            v.kind.name(),
            v.partners.join(", "),
            v.share * 100.0,
            gain(v.validation_gain()),
            gain(Some(v.train_gain())),
            v.relative_gain() * 100.0,
            v.seconds
        );
        let _ = writeln!(out, "{}", proof_cells(proofs, &v.subject));
    }
    out
}

/// The Markdown cells of a subject's games (none when no subject was proven).
fn proof_cells(proofs: &Proofs, subject: &str) -> String {
    match (proofs.is_empty(), proofs.get(subject)) {
        (true, _) => String::new(),
        (false, None) => " - | - | - | - |".into(),
        (false, Some(p)) => format!(" {} |", p.cells().join(" | ")),
    }
}

/// A verdict as `lab.json` reports it: with its gains, whether it is kept and why not, and
/// its games when it was proven.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReportedVerdict {
    /// The verdict.
    #[serde(flatten)]
    pub verdict: Verdict,
    /// Its gains.
    #[serde(flatten)]
    pub gains: Gains,
    /// Whether the subject earns its place (for an ablation: the term does).
    pub kept: bool,
    /// Why it is not kept.
    pub why_not: Option<String>,
    /// Its games against the base (`texel lab --prove`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proof: Option<GameProof>,
}

/// `lab.json`: the run's description, the rule and every verdict, ranked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabReport {
    /// [`LAB_VERSION`].
    #[serde(default = "version_one")]
    pub version: u32,
    /// Lines that describe the run (data, base, K, passes).
    pub run: Vec<String>,
    /// The keep rule's least relative gain.
    pub min_relative_gain: f64,
    /// Every verdict, best first.
    pub verdicts: Vec<ReportedVerdict>,
}

/// Why `lab.json` cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum LabFileError {
    /// Not a lab report.
    #[error("not a term lab report (lab.json): {0}")]
    NotALab(String),
    /// A report of another version.
    #[error("a term lab report of version {0}; this texel reads version {LAB_VERSION}")]
    Version(u32),
}

impl LabReport {
    /// The report of `verdicts` under `rule`, ranked, with the games of the proven subjects.
    pub fn new(verdicts: &[Verdict], rule: &KeepRule, header: &[String], proofs: &Proofs) -> Self {
        let verdicts = ranked(verdicts)
            .into_iter()
            .map(|v| ReportedVerdict {
                verdict: v.clone(),
                gains: Gains::of(v),
                kept: rule.keeps(v),
                why_not: rule.rejects(v).map(str::to_string),
                proof: proofs.get(&v.subject).cloned(),
            })
            .collect();
        LabReport {
            version: LAB_VERSION,
            run: header.to_vec(),
            min_relative_gain: rule.min_relative_gain,
            verdicts,
        }
    }

    /// Reads `lab.json`.
    ///
    /// # Errors
    /// Not a lab report, or one of another version.
    pub fn read(text: &str) -> Result<LabReport, LabFileError> {
        let report: LabReport =
            serde_json::from_str(text).map_err(|e| LabFileError::NotALab(e.to_string()))?;
        match report.version {
            LAB_VERSION => Ok(report),
            other => Err(LabFileError::Version(other)),
        }
    }
}

/// Term names to values as a JSON object that keeps the order of the list.
pub(crate) mod ordered_map {
    use serde::de::{MapAccess, Visitor};
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(list: &[(String, Vec<i32>)], s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(list.iter().map(|(k, v)| (k, v)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<(String, Vec<i32>)>, D::Error> {
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = Vec<(String, Vec<i32>)>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of term names to values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    out.push(entry);
                }
                Ok(out)
            }
        }
        d.deserialize_map(Entries)
    }
}

/// `base` with the tuned values of every kept candidate; every other candidate at zero.
/// Established values keep their base values. Returns the values, the candidates set (by
/// name) and the groups the kept candidates were tuned with.
pub fn apply<V: Values>(
    space: LabSpace<'_>,
    base: &V,
    verdicts: &[Verdict],
    rule: &KeepRule,
) -> (V, Vec<String>, Vec<String>) {
    let mut out = base.clone();
    for name in space.candidates() {
        for slot in space.slots(&name) {
            out.set_value(slot, 0);
        }
    }
    let (mut terms, mut partners) = (Vec::new(), Vec::new());
    let kept = verdicts
        .iter()
        .filter(|v| v.kind == SubjectKind::Candidate && rule.keeps(v));
    for v in kept {
        for (name, values) in &v.values {
            for (slot, &x) in space.slots(name).zip(values) {
                out.set_value(slot, x);
            }
            if !terms.contains(name) {
                terms.push(name.clone());
            }
        }
        for p in &v.partners {
            if !partners.contains(p) {
                partners.push(p.clone());
            }
        }
    }
    (out, terms, partners)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::Errors;

    #[test]
    fn a_proofs_sprt_reads_as_bounds_and_as_older_words() {
        let proof = |test: &str| {
            let line = format!(
                "{{\"wins\":1,\"draws\":2,\"losses\":3,\"elo\":[1.0,2.0],\"llr\":0.5,\
                 \"sprt\":\"undecided\",\"test\":\"{test}\"}}"
            );
            serde_json::from_str::<GameProof>(&line).map(|p| p.test)
        };
        let five = SprtTest::logistic(0.0, 5.0);
        assert_eq!(proof("0,5").unwrap(), five);
        assert_eq!(proof("H0 0 against H1 5 logistic Elo").unwrap(), five);
        let normalized = proof("H0 -1 against H1 3 normalized Elo").unwrap();
        assert_eq!(normalized, "-1,3,normalized".parse().unwrap());
        assert!(proof("five Elo").is_err());
        let written = serde_json::to_value(GameProof {
            wins: 0,
            draws: 0,
            losses: 0,
            elo: (0.0, 0.0),
            llr: 0.0,
            sprt: "H1".into(),
            test: five,
        })
        .unwrap();
        assert_eq!(written["test"], "0,5");
    }

    #[test]
    fn a_subject_that_keeps_error_but_loses_games_is_shown_as_such() {
        let verdict = Verdict {
            subject: "ChainV".into(),
            kind: SubjectKind::Candidate,
            partners: vec!["PawnV".into()],
            support: 900,
            share: 0.3,
            held: Errors {
                train: 0.030,
                validation: Some(0.031),
            },
            free: Errors {
                train: 0.029,
                validation: Some(0.030),
            },
            values: vec![],
            seconds: 1.0,
        };
        let rule = KeepRule {
            min_relative_gain: 1e-4,
            needs_validation: true,
        };
        assert!(rule.keeps(&verdict));
        let proof = GameProof {
            wins: 180,
            draws: 300,
            losses: 240,
            elo: (-29.0, 18.0),
            llr: -2.95,
            sprt: "H0".into(),
            test: SprtTest::logistic(0.0, 5.0),
        };
        let proofs = Proofs::from([("ChainV".to_string(), proof.clone())]);
        let md = markdown(std::slice::from_ref(&verdict), &rule, &[], &proofs);
        let row = md.lines().find(|l| l.contains("`ChainV`")).unwrap();
        assert!(
            row.contains("| keep |") && row.contains("loses in games"),
            "{row}"
        );
        assert!(
            row.contains("+180 =300 −240 | -29.0 ± 18.0 | -2.95"),
            "{row}"
        );
        let report = LabReport::new(std::slice::from_ref(&verdict), &rule, &[], &proofs);
        let text = serde_json::to_string_pretty(&report).unwrap();
        let back = LabReport::read(&text).unwrap();
        assert_eq!(back.verdicts[0].proof.as_ref(), Some(&proof));
        assert_eq!(back, report);
        let line = verdict_json(&verdict, "k1") + "\n";
        let back: Vec<VerdictLine> = texel_files::read_versioned_lines(&line).unwrap();
        assert_eq!((back[0].key.as_str(), &back[0].verdict), ("k1", &verdict));
        let newer = text.replacen("\"version\": 1", "\"version\": 2", 1);
        let err = LabReport::read(&newer).unwrap_err().to_string();
        assert!(err.contains("version 2"), "{err}");
        // Without proofs the table has no game columns.
        let plain = markdown(&[], &rule, &[], &Proofs::new());
        assert!(!plain.contains("in games"));
    }
}
