//! The term lab's page: every verdict of `lab.json` ranked, its validation drop as a bar, and
//! how often its subject fires.

use crate::page::Page;
use crate::plot::{Bar, BarPlot, PlotError};
use texel_lab::report::{GameProof, LabFileError, LabReport};

/// One verdict as the page shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct LabRow {
    /// The family or term judged.
    pub subject: String,
    /// `candidate` or `ablation`.
    pub kind: String,
    /// Whether it was kept (for an ablation: whether the term earns its place).
    pub kept: bool,
    /// Share of training positions where it fires (0 to 1).
    pub share: f64,
    /// The error drop: on validation when measured, else on training.
    pub gain: f64,
    /// Whether `gain` is the validation drop.
    pub on_validation: bool,
    /// The subject's games against the base (`texel lab --prove`).
    pub proof: Option<GameProof>,
}

/// The verdicts of a `lab.json` and its lines about the run.
///
/// # Errors
/// Not a lab report, or one of another version.
pub fn read_lab(text: &str) -> Result<(Vec<String>, Vec<LabRow>), LabFileError> {
    let report = LabReport::read(text)?;
    let rows = report
        .verdicts
        .into_iter()
        .map(|r| LabRow {
            subject: r.verdict.subject,
            kind: r.verdict.kind.name().to_string(),
            kept: r.kept,
            share: r.verdict.share,
            gain: r.gains.validation_gain.unwrap_or(r.gains.train_gain),
            on_validation: r.gains.validation_gain.is_some(),
            proof: r.proof,
        })
        .collect();
    Ok((report.run, rows))
}

/// The lab page: the ranked bars and the table.
pub fn lab_page(title: &str, about: &[String], rows: &[LabRow]) -> Result<Page, PlotError> {
    let mut page = Page::new(title, about);
    let on = if rows.iter().all(|r| r.on_validation) {
        "validation"
    } else {
        "training"
    };
    let verdict = |r: &LabRow| match (r.kept, r.kind.as_str()) {
        (true, _) => "keep",
        (false, "ablation") => "dead weight",
        _ => "reject",
    };
    let categories = ["keep", "reject", "dead weight"];
    let bars = rows
        .iter()
        .map(|r| Bar {
            label: format!("{} (fires {:.1} %)", r.subject, 100.0 * r.share),
            value: r.gain * 1e5,
            category: categories
                .iter()
                .position(|&c| c == verdict(r))
                .unwrap_or(1),
        })
        .collect();
    let plot = BarPlot {
        title: format!("Error drop of each subject ({on} set)"),
        value_label: format!("{on} error drop (×10⁻⁵)"),
        bars,
        categories: categories.iter().map(|c| c.to_string()).collect(),
    };
    page.heading("Ranking");
    page.figure("lab-gains", &plot.svg()?,
        "Longer is better: the error the subject removes when tuned (for an ablation, what removing \
         the term adds). The label says in what share of positions it fires: a large drop from a rare \
         term deserves a second look.");
    verdict_table(&mut page, rows, &verdict);
    Ok(page)
}

/// The table of verdicts, with the games of proven subjects when there are any.
fn verdict_table(page: &mut Page, rows: &[LabRow], verdict: &dyn Fn(&LabRow) -> &'static str) {
    let proven = rows.iter().any(|r| r.proof.is_some());
    let table: Vec<Vec<String>> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut row = vec![
                (i + 1).to_string(),
                r.subject.clone(),
                r.kind.clone(),
                format!("{:.1} %", 100.0 * r.share),
                format!("{:.3e}", r.gain),
                verdict(r).to_string(),
            ];
            if proven {
                row.extend(match &r.proof {
                    Some(p) => p.cells().to_vec(),
                    None => vec!["-".into(); 4],
                });
            }
            row
        })
        .collect();
    let mut head = vec!["#", "subject", "kind", "fires", "error drop", "verdict"];
    if proven {
        head.extend(["games", "Elo (95 %)", "LLR", "in games"]);
    }
    page.heading("Verdicts");
    page.table(&head, &table);
}
