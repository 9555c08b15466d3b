//! The term lab's files: one JSON line per verdict (appended as each finishes, read back to
//! skip finished subjects on a rerun), the ranked Markdown table, the JSON report, and the
//! parameters with the kept candidates applied.

use crate::lab::{Errors, Verdict};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use texel_eval::{Params, TermId};

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

impl KeepRule {
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

fn errors_json(e: &Errors) -> Value {
    json!({"train": e.train, "validation": e.validation})
}

fn errors_from(v: &Value) -> Option<Errors> {
    Some(Errors {
        train: v.get("train")?.as_f64()?,
        validation: v.get("validation").and_then(Value::as_f64),
    })
}

/// A verdict as one JSON object, with the key of the run it belongs to.
pub fn verdict_json(v: &Verdict, key: &str) -> Value {
    let values: serde_json::Map<String, Value> = v
        .values
        .iter()
        .map(|(name, vals)| (name.clone(), json!(vals)))
        .collect();
    json!({
        "key": key, "subject": v.subject, "kind": v.kind, "partners": v.partners,
        "support": v.support, "share": v.share,
        "held": errors_json(&v.held), "free": errors_json(&v.free),
        "train_gain": v.train_gain(), "validation_gain": v.validation_gain(),
        "relative_gain": v.relative_gain(),
        "values": values, "seconds": v.seconds,
    })
}

/// Reads a verdict line back: its key and the verdict (`None` for a line that is not one).
pub fn verdict_from(line: &str) -> Option<(String, Verdict)> {
    let v: Value = serde_json::from_str(line).ok()?;
    let kind = match v.get("kind")?.as_str()? {
        "ablation" => "ablation",
        "candidate" => "candidate",
        _ => return None,
    };
    let values = v
        .get("values")?
        .as_object()?
        .iter()
        .map(|(k, vals)| {
            let list = vals
                .as_array()?
                .iter()
                .map(|x| x.as_i64().map(|x| x as i32));
            Some((k.clone(), list.collect::<Option<Vec<i32>>>()?))
        })
        .collect::<Option<Vec<_>>>()?;
    let strings = |name: &str| -> Option<Vec<String>> {
        v.get(name)?
            .as_array()?
            .iter()
            .map(|s| s.as_str().map(str::to_string))
            .collect()
    };
    let verdict = Verdict {
        subject: v.get("subject")?.as_str()?.to_string(),
        kind,
        partners: strings("partners")?,
        support: v.get("support")?.as_u64()? as usize,
        share: v.get("share")?.as_f64()?,
        held: errors_from(v.get("held")?)?,
        free: errors_from(v.get("free")?)?,
        values,
        seconds: v.get("seconds")?.as_f64()?,
    };
    Some((v.get("key")?.as_str()?.to_string(), verdict))
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
    /// The SPRT's hypotheses, in words.
    pub test: String,
}

impl GameProof {
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
        let verdict = match (rule.rejects(v), v.kind) {
            (None, _) => "keep",
            (Some(why @ "no validation positions to measure the gain on"), _) => why,
            (_, "ablation") => "dead weight",
            _ => "reject",
        };
        let _ = write!(
            out,
            "| {} | `{}` | {} | {} | {:.1} % | {held:.6} | {} | {} | {:.4} % | {verdict} | {:.1} |",
            i + 1,
            v.subject,
            v.kind,
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
        (false, Some(p)) => format!(
            " +{} ={} −{} | {:+.1} ± {:.1} | {:.2} | {} |",
            p.wins,
            p.draws,
            p.losses,
            p.elo.0,
            p.elo.1,
            p.llr,
            p.words()
        ),
    }
}

/// The report as JSON: the run's description, the rule and every verdict, ranked, with the
/// games of the proven subjects.
pub fn report_json(
    verdicts: &[Verdict],
    rule: &KeepRule,
    header: &[String],
    proofs: &Proofs,
) -> Value {
    let list: Vec<Value> = ranked(verdicts)
        .into_iter()
        .map(|v| {
            let mut j = verdict_json(v, "");
            j["kept"] = json!(rule.keeps(v));
            j["why_not"] = json!(rule.rejects(v));
            if let Some(p) = proofs.get(&v.subject) {
                j["proof"] = serde_json::to_value(p).expect("plain data");
            }
            j.as_object_mut().map(|o| o.remove("key"));
            j
        })
        .collect();
    json!({"run": header, "min_relative_gain": rule.min_relative_gain, "verdicts": list})
}

/// `base` with the tuned values of every kept candidate; every other candidate family term
/// at zero. Established terms keep their base values. Returns the terms set.
pub fn apply(base: &Params, verdicts: &[Verdict], rule: &KeepRule) -> (Params, Vec<TermId>) {
    let mut out = base.without_candidates();
    let mut kept: BTreeMap<&str, &[i32]> = BTreeMap::new();
    for v in verdicts
        .iter()
        .filter(|v| v.kind == "candidate" && rule.keeps(v))
    {
        for (name, values) in &v.values {
            kept.insert(name, values);
        }
    }
    let mut terms = Vec::new();
    for (name, values) in kept {
        if let Some(t) = TermId::by_name(name) {
            for (slot, &x) in t.info().flat_range().zip(values) {
                out.set_flat(slot, x);
            }
            terms.push(t);
        }
    }
    (out, terms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subject_that_keeps_error_but_loses_games_is_shown_as_such() {
        let verdict = Verdict {
            subject: "ChainV".into(),
            kind: "candidate",
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
            test: "H0 0 against H1 5 logistic Elo".into(),
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
        let json = report_json(&[verdict], &rule, &[], &proofs);
        let back: GameProof = serde_json::from_value(json["verdicts"][0]["proof"].clone()).unwrap();
        assert_eq!(back, proof);
        // Without proofs the table has no game columns.
        let plain = markdown(&[], &rule, &[], &Proofs::new());
        assert!(!plain.contains("in games"));
    }
}
