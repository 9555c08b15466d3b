//! The term lab: every candidate term or family judged by the error it removes, and
//! established terms by the error their removal adds.
//!
//! A subject's verdict compares two tunings that start from the base parameters with the
//! subject at zero: its partner groups tuned without it (*held*) and with it (*free*). The
//! gain `held − free` is the error the subject removes beyond what retuning its partners
//! does, on the training and on the validation set. For an ablation (an established term)
//! *free* starts from the base values and *held* from the term at zero. Held tunings are
//! shared by every subject with the same partners.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use texel_dataset::{select, Dataset};
use texel_eval::params::Group;
use texel_eval::TermId;
use texel_solve::error::mean_error;
use texel_solve::{Descent, Variable};
use texel_solve::{Model, Values};
use texel_trace::ParamSpace;
use texel_tune::{select_in_space, Selection, SelectionError};

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
    #[serde(with = "crate::report::ordered_map")]
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

/// A subject by names, in any parameter space: what the lab zeroes (`terms`) and which
/// groups it is tuned with (`partners`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabSubject {
    /// The name in reports.
    pub name: String,
    /// Candidate or ablation.
    pub kind: SubjectKind,
    /// The parameters it sets to zero, by name.
    pub terms: Vec<String>,
    /// The groups tuned with it, by name.
    pub partners: Vec<String>,
}

impl Subject {
    /// The subject by names, as the lab judges it.
    pub fn resolve(&self) -> LabSubject {
        LabSubject {
            name: self.name(),
            kind: self.kind(),
            terms: self
                .terms()
                .iter()
                .map(|t| t.info().name.to_string())
                .collect(),
            partners: self
                .partners()
                .iter()
                .map(|g| g.name().to_string())
                .collect(),
        }
    }
}

/// The parameter space a lab works in: where a parameter's values are, which parameters are
/// candidates, and the variables of a selection.
#[derive(Clone, Copy, Debug)]
pub enum LabSpace<'s> {
    /// texel's own table.
    Table,
    /// An outside engine's parameters (a trace's header).
    Outside(&'s ParamSpace),
}

impl LabSpace<'_> {
    /// The flat slots of the parameter `name` (empty when there is none).
    pub fn slots(&self, name: &str) -> std::ops::Range<usize> {
        match self {
            LabSpace::Table => TermId::by_name(name).map_or(0..0, |t| t.info().flat_range()),
            LabSpace::Outside(space) => {
                let at = space.params().iter().position(|p| p.name == name);
                at.map_or(0..0, |i| {
                    let start = space.param_starts()[i];
                    start..start + space.params()[i].values()
                })
            }
        }
    }

    /// The names of the candidate parameters.
    pub fn candidates(&self) -> Vec<String> {
        match self {
            LabSpace::Table => TermId::all()
                .filter(|t| t.info().group.is_candidate())
                .map(|t| t.info().name.to_string())
                .collect(),
            LabSpace::Outside(space) => space
                .params()
                .iter()
                .filter(|p| p.candidate)
                .map(|p| p.name.clone())
                .collect(),
        }
    }

    /// The variables of `partners` plus `terms` (`with`), or of `partners` without them;
    /// candidates that are not among `terms` are never tuned. A subject without partners
    /// (an outside parameter in no group) is judged alone: held, nothing is tuned; free,
    /// only its own values (an empty group list would otherwise select every value).
    fn variables(
        &self,
        partners: &[String],
        terms: &[String],
        with: bool,
    ) -> Result<Vec<Variable>, SelectionError> {
        if partners.is_empty() && !with {
            return Ok(Vec::new());
        }
        let others = self.candidates().into_iter().filter(|c| !terms.contains(c));
        let selection = Selection {
            groups: partners.to_vec(),
            terms: if with { terms.to_vec() } else { Vec::new() },
            exclude: others
                .chain(if with { Vec::new() } else { terms.to_vec() })
                .collect(),
            freeze_material: false,
            no_candidates: false,
        };
        let vars = match self {
            LabSpace::Table => select(&selection),
            LabSpace::Outside(space) => select_in_space(space, &selection),
        };
        match vars {
            // A subject without partners is held at zero untuned.
            Err(SelectionError::Empty) if !with => Ok(Vec::new()),
            other => other,
        }
    }
}

/// The datasets and settings every verdict of a lab run shares.
pub struct Lab<'d, M: Model = Dataset> {
    train: &'d mut M,
    validation: &'d mut M,
    space: LabSpace<'d>,
    base: M::Values,
    k: f64,
    passes: usize,
    /// Tunings several verdicts share, by what they tune: values and errors.
    shared: BTreeMap<String, (M::Values, Errors)>,
}

impl<'d, M: Model> Lab<'d, M> {
    /// A lab on `train` (and `validation`, possibly empty) in `space` from `base` with every
    /// candidate at zero (candidates are judged against the established values), tuning at
    /// most `passes` passes each time.
    pub fn new(
        train: &'d mut M,
        validation: &'d mut M,
        space: LabSpace<'d>,
        base: M::Values,
        k: f64,
        passes: usize,
    ) -> Self {
        let mut base = base;
        for name in space.candidates() {
            for slot in space.slots(&name) {
                base.set_value(slot, 0);
            }
        }
        Lab {
            train,
            validation,
            space,
            base,
            k,
            passes,
            shared: BTreeMap::new(),
        }
    }

    /// Tunes `vars` from `start` and returns the tuned values and their errors.
    fn tune(&mut self, start: &M::Values, vars: Vec<Variable>) -> (M::Values, Errors) {
        self.train.rescore(start);
        let mut descent = Descent::new(&mut *self.train, start.clone(), self.k, vars);
        // A candidate's tune is not stopped halfway: the lab stops between candidates.
        let never = AtomicBool::new(false);
        for _ in 0..self.passes {
            match descent.pass(&never, &mut |_| {}) {
                Some(summary) if summary.moves > 0 => {}
                _ => break,
            }
        }
        let train = descent.refresh();
        let values = descent.params().clone();
        let validation = (self.validation.len() > 0).then(|| {
            self.validation.rescore(&values);
            mean_error(&*self.validation, self.k)
        });
        (values, Errors { train, validation })
    }

    /// A tuning shared by several verdicts, made once: `key` names it.
    fn shared(
        &mut self,
        key: String,
        start: &M::Values,
        vars: Vec<Variable>,
    ) -> (M::Values, Errors) {
        if let Some(done) = self.shared.get(&key) {
            return done.clone();
        }
        let result = self.tune(start, vars);
        self.shared.insert(key, result.clone());
        result
    }

    /// The flat slots of `terms`.
    fn slots(&self, terms: &[String]) -> Vec<usize> {
        terms.iter().flat_map(|t| self.space.slots(t)).collect()
    }

    /// Judges one subject.
    ///
    /// # Errors
    /// A subject whose partners leave nothing to tune, or a name the space does not have.
    pub fn judge(&mut self, subject: &LabSubject) -> Result<Verdict, SelectionError> {
        let started = Instant::now();
        let (terms, names) = (&subject.terms, &subject.partners);
        let mut zeroed = self.base.clone();
        for slot in self.slots(terms) {
            zeroed.set_value(slot, 0);
        }
        let base = self.base.clone();
        let without = self.space.variables(names, terms, false)?;
        let with = self.space.variables(names, terms, true)?;
        // Candidates are at zero in the base: their held tuning depends on the partners only
        // (an established term judged as a subject is zeroed first, so its own differs). An
        // ablation's free tuning (the term kept) depends on its group only.
        let held_key = match zeroed.values() == base.values() {
            true => format!("partners {}", names.join("+")),
            false => format!("partners {} without {}", names.join("+"), subject.name),
        };
        let ((_, held), (tuned, free)) = match subject.kind {
            SubjectKind::Ablation => (
                self.tune(&zeroed, without),
                self.shared(format!("group {}", names.join("+")), &base, with),
            ),
            SubjectKind::Candidate => (
                self.shared(held_key, &zeroed, without),
                self.tune(&zeroed, with),
            ),
        };
        let support = self.train.support(&self.slots(terms));
        let values_of = |t: &String| {
            let range = self.space.slots(t);
            tuned.values()[range].to_vec()
        };
        Ok(Verdict {
            subject: subject.name.clone(),
            kind: subject.kind,
            partners: names.clone(),
            support,
            share: support as f64 / self.train.len() as f64,
            held,
            free,
            values: terms.iter().map(|t| (t.clone(), values_of(t))).collect(),
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// `start` tuned jointly with `partners` and `terms`, so adopted candidates and the
    /// established values they overlap settle together. Returns the tuned values and their
    /// errors.
    ///
    /// # Errors
    /// Nothing to tune.
    pub fn adopt(
        &mut self,
        start: &M::Values,
        terms: &[String],
        partners: &[String],
    ) -> Result<(M::Values, Errors), SelectionError> {
        let vars = self.space.variables(partners, terms, true)?;
        Ok(self.tune(start, vars))
    }
}
