//! The term lab: every candidate term or family judged by the error it removes, and
//! established terms by the error their removal adds.
//!
//! A subject's verdict compares two tunings that start from the base parameters with the
//! subject at zero: its partner groups tuned without it (*held*) and with it (*free*). The
//! gain `held − free` is the error the subject removes beyond what retuning its partners
//! does, on the training and on the validation set. For an ablation (an established term)
//! *free* starts from the base values and *held* from the term at zero. Held tunings are
//! shared by every subject with the same partners.

use crate::dataset::Dataset;
use crate::descent::{Control, Descent, Variable};
use crate::error::mean_error;
use crate::select::{select, Selection, SelectionError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Instant;
use texel_eval::params::Group;
use texel_eval::{Params, TermId};

/// What the lab judges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// One candidate term, tuned with its family's partners.
    Term(TermId),
    /// A whole candidate family, tuned with its partners.
    Family(Group),
    /// An established term, zeroed and its group retuned.
    Ablate(TermId),
}

impl Subject {
    /// The subject's name in reports (`PAWN_GROUP`, `ChainV`, `-ROOK_OPEN_FILE_COUNT`).
    pub fn name(&self) -> String {
        match self {
            Subject::Term(t) => t.info().name.to_string(),
            Subject::Family(g) => g.name().to_string(),
            Subject::Ablate(t) => format!("-{}", t.info().name),
        }
    }

    /// A candidate judged by the error it removes, or an established term by the error its
    /// removal adds.
    pub fn kind(&self) -> SubjectKind {
        match self {
            Subject::Ablate(_) => SubjectKind::Ablation,
            _ => SubjectKind::Candidate,
        }
    }

    /// The terms the subject sets to zero.
    pub fn terms(&self) -> Vec<TermId> {
        match self {
            Subject::Term(t) | Subject::Ablate(t) => vec![*t],
            Subject::Family(g) => TermId::all().filter(|t| t.info().group == *g).collect(),
        }
    }

    /// The groups tuned with the subject: a candidate's declared partners, an established
    /// term's own group.
    pub fn partners(&self) -> Vec<Group> {
        match self {
            Subject::Term(t) if t.info().group.is_candidate() => t.info().group.partners().to_vec(),
            Subject::Family(g) => g.partners().to_vec(),
            Subject::Term(t) | Subject::Ablate(t) => vec![t.info().group],
        }
    }
}

/// What kind of subject a verdict judged.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SubjectKind {
    /// A candidate term or family: kept when it removes error.
    Candidate,
    /// An established term: dead weight when removing it adds no error.
    Ablation,
}

impl SubjectKind {
    /// `candidate` or `ablation`, as the reports write it.
    pub fn name(self) -> &'static str {
        match self {
            SubjectKind::Candidate => "candidate",
            SubjectKind::Ablation => "ablation",
        }
    }
}

/// Errors after a tuning: training and validation (when there is a validation set).
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Errors {
    /// Training error.
    pub train: f64,
    /// Validation error.
    pub validation: Option<f64>,
}

/// The lab's finding on one subject (the body of its line in `lab.jsonl` and of its entry
/// in `lab.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// [`Subject::name`].
    pub subject: String,
    /// [`Subject::kind`].
    pub kind: SubjectKind,
    /// The groups tuned with it.
    pub partners: Vec<String>,
    /// Training positions where one of its values has a non-zero coefficient.
    pub support: usize,
    /// `support` as a share of the training positions.
    pub share: f64,
    /// Errors with the subject held at zero (partners tuned).
    pub held: Errors,
    /// Errors with the subject tuned with its partners.
    pub free: Errors,
    /// The subject's tuned values, by term (a JSON object in term order).
    #[serde(with = "crate::lab_report::ordered_map")]
    pub values: Vec<(String, Vec<i32>)>,
    /// Seconds the verdict took (not part of the result's identity).
    pub seconds: f64,
}

impl Verdict {
    /// Training error the subject removes (`held − free`).
    pub fn train_gain(&self) -> f64 {
        self.held.train - self.free.train
    }

    /// Validation error the subject removes, when there is a validation set.
    pub fn validation_gain(&self) -> Option<f64> {
        Some(self.held.validation? - self.free.validation?)
    }

    /// The gain the verdict is ranked and decided by (validation when there is one),
    /// relative to the held error.
    pub fn relative_gain(&self) -> f64 {
        match (self.validation_gain(), self.held.validation) {
            (Some(g), Some(e)) => g / e,
            _ => self.train_gain() / self.held.train,
        }
    }
}

/// The datasets and settings every verdict of a lab run shares.
pub struct Lab<'d> {
    train: &'d mut Dataset,
    validation: &'d mut Dataset,
    base: Params,
    k: f64,
    passes: usize,
    /// Tunings several verdicts share, by what they tune: parameters and errors.
    shared: BTreeMap<String, (Params, Errors)>,
}

impl<'d> Lab<'d> {
    /// A lab on `train` (and `validation`, possibly empty) from `base` with every candidate
    /// family at zero (candidates are judged against the established table), tuning at most
    /// `passes` passes each time.
    pub fn new(
        train: &'d mut Dataset,
        validation: &'d mut Dataset,
        base: Params,
        k: f64,
        passes: usize,
    ) -> Self {
        Lab {
            train,
            validation,
            base: base.without_candidates(),
            k,
            passes,
            shared: BTreeMap::new(),
        }
    }

    /// Tunes `vars` from `start` and returns the tuned parameters and their errors.
    fn tune(&mut self, start: &Params, vars: Vec<Variable>) -> (Params, Errors) {
        self.train.rescore(start);
        let mut descent = Descent::new(self.train, start.clone(), self.k, vars);
        for _ in 0..self.passes {
            match descent.pass(&mut |_| Control::Continue) {
                Some(summary) if summary.moves > 0 => {}
                _ => break,
            }
        }
        let train = descent.refresh();
        let params = descent.params().clone();
        let validation = (!self.validation.is_empty()).then(|| {
            self.validation.rescore(&params);
            mean_error(self.validation, self.k)
        });
        (params, Errors { train, validation })
    }

    /// The variables of `partners` plus `terms`, or of `partners` without `terms`.
    fn variables(
        partners: &[Group],
        terms: &[TermId],
        with: bool,
    ) -> Result<Vec<Variable>, SelectionError> {
        let names = |ts: &[TermId]| ts.iter().map(|t| t.info().name.to_string()).collect();
        select(&Selection {
            groups: partners.iter().map(|g| g.name().to_string()).collect(),
            terms: if with { names(terms) } else { Vec::new() },
            exclude: if with { Vec::new() } else { names(terms) },
            freeze_material: false,
            no_candidates: false,
        })
    }

    /// A tuning shared by several verdicts, made once: `key` names it.
    fn shared(&mut self, key: String, start: &Params, vars: Vec<Variable>) -> (Params, Errors) {
        if let Some(done) = self.shared.get(&key) {
            return done.clone();
        }
        let result = self.tune(start, vars);
        self.shared.insert(key, result.clone());
        result
    }

    /// Judges one subject.
    ///
    /// # Errors
    /// A subject whose partners leave nothing to tune.
    pub fn judge(&mut self, subject: &Subject) -> Result<Verdict, SelectionError> {
        let started = Instant::now();
        let terms = subject.terms();
        let partners = subject.partners();
        let names: Vec<String> = partners.iter().map(|g| g.name().to_string()).collect();
        let mut zeroed = self.base.clone();
        for &t in &terms {
            zeroed.zero_term(t);
        }
        let base = self.base.clone();
        let without = Self::variables(&partners, &terms, false)?;
        let with = Self::variables(&partners, &terms, true)?;
        // Candidates are at zero in the base: their held tuning depends on the partners only
        // (an established term judged as a subject is zeroed first, so its own differs). An
        // ablation's free tuning (the term kept) depends on its group only.
        let held_key = match zeroed == base {
            true => format!("partners {}", names.join("+")),
            false => format!("partners {} without {}", names.join("+"), subject.name()),
        };
        let ((_, held), (tuned, free)) = match subject {
            Subject::Ablate(_) => (
                self.tune(&zeroed, without),
                self.shared(format!("group {}", names.join("+")), &base, with),
            ),
            _ => (
                self.shared(held_key, &zeroed, without),
                self.tune(&zeroed, with),
            ),
        };
        let slots: Vec<usize> = terms.iter().flat_map(|t| t.info().flat_range()).collect();
        let support = self.train.support(&slots);
        Ok(Verdict {
            subject: subject.name(),
            kind: subject.kind(),
            partners: names,
            support,
            share: support as f64 / self.train.len() as f64,
            held,
            free,
            values: terms
                .iter()
                .map(|&t| (t.info().name.to_string(), tuned.term_values(t).to_vec()))
                .collect(),
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// The base with `start` values for `terms`, tuned jointly with every group those terms
    /// work with, so the adopted candidates and the established terms they overlap settle
    /// together. Returns the tuned parameters and their errors.
    ///
    /// # Errors
    /// Nothing to tune.
    pub fn adopt(
        &mut self,
        start: &Params,
        terms: &[TermId],
    ) -> Result<(Params, Errors), SelectionError> {
        let mut partners: Vec<Group> = Vec::new();
        for t in terms {
            for &g in t.info().group.partners() {
                if !partners.contains(&g) {
                    partners.push(g);
                }
            }
        }
        let vars = Self::variables(&partners, terms, true)?;
        Ok(self.tune(start, vars))
    }
}
