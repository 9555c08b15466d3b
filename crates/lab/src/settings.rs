//! The settings of a term lab run (`texel lab`'s flags with the `clap` feature, one struct
//! for clap and serde) and
//! the subjects they ask for, in texel's table or in an outside engine's parameters.

use crate::lab::{LabSpace, LabSubject, Subject, SubjectKind};
use crate::report::{KeepRule, DEFAULT_KEEP_MIN_DROP};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use texel_eval::params::Group;
use texel_eval::TermId;
use texel_trace::{Param, ParamSpace};

/// What a lab run judges and where its files go. Every field is a flag of `texel lab` of
/// the same name (with the `clap` feature); each default is written once, in
/// [`LabSettings::default`], which the flags read.
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LabSettings {
    /// Passes of each tuning (at most; a pass that moves nothing ends it).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = LabSettings::default().passes, allow_negative_numbers = true))]
    pub passes: usize,
    /// Judge only these candidate families (default: every candidate family).
    #[cfg_attr(feature = "clap", arg(long))]
    pub family: Vec<String>,
    /// Judge these candidate terms (each on its own).
    #[cfg_attr(feature = "clap", arg(long))]
    pub term: Vec<String>,
    /// Judge every term of the chosen families on its own instead of the family as a whole.
    #[cfg_attr(feature = "clap", arg(long))]
    pub each_term: bool,
    /// Judge these established terms by the error their removal adds (repeatable; a group
    /// name ablates each of its terms).
    #[cfg_attr(feature = "clap", arg(long))]
    pub ablate: Vec<String>,
    /// Folder of the lab's files: lab.jsonl (one verdict per line, kept across reruns),
    /// lab.md and lab.json.
    #[cfg_attr(feature = "clap", arg(long, default_value = DEFAULT_LAB_DIR))]
    pub out: PathBuf,
    /// Keep a subject when its gain is above 0 and at least this share of the held error
    /// (validation error with --validate).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = LabSettings::default().keep_min_drop, allow_negative_numbers = true))]
    pub keep_min_drop: f64,
    /// Write the base parameters with the kept candidates' tuned values (others at 0) here;
    /// with --prove, only the candidates whose games accepted them (SPRT H1).
    #[cfg_attr(feature = "clap", arg(long))]
    pub apply: Option<PathBuf>,
}

/// The lab's folder when none is given.
const DEFAULT_LAB_DIR: &str = "lab";

impl Default for LabSettings {
    /// Every setting at its default (the flags' defaults are these).
    fn default() -> LabSettings {
        LabSettings {
            passes: 4,
            family: Vec::new(),
            term: Vec::new(),
            each_term: false,
            ablate: Vec::new(),
            out: PathBuf::from(DEFAULT_LAB_DIR),
            keep_min_drop: DEFAULT_KEEP_MIN_DROP,
            apply: None,
        }
    }
}

/// Why a lab cannot judge what it was asked to.
#[derive(Debug, thiserror::Error)]
pub enum SubjectError {
    /// `--family` names no candidate family of the table.
    #[error("no candidate family {0:?} (see texel params)")]
    NoFamily(String),
    /// A name that is no term of the table.
    #[error("unknown term {0:?}")]
    UnknownTerm(String),
    /// `--term` names an established term.
    #[error("{0} is not a candidate term (use --ablate)")]
    NotCandidate(String),
    /// `--ablate` names a candidate.
    #[error("{0} is a candidate: judge it with --term")]
    IsCandidate(String),
    /// `--family` names a group of the trace without candidates.
    #[error("the trace has no candidates in group {0:?}")]
    NoCandidatesInGroup(String),
    /// `--term` names a parameter of the trace that is not a candidate.
    #[error("{0} is not a candidate parameter of the trace (\"candidate\": true)")]
    NotCandidateParam(String),
    /// `--ablate` names neither a parameter nor a group of the trace.
    #[error("the trace has no parameter or group {0:?}")]
    NoParamOrGroup(String),
    /// The settings leave nothing to judge.
    #[error("nothing to judge")]
    Nothing,
    /// The trace's header marks no candidate, and nothing else was asked for.
    #[error("nothing to judge: the trace's header marks no parameter \"candidate\": true")]
    NoCandidates,
}

impl LabSettings {
    /// The keep rule of the run: `needs_validation` when the run asked for a validation
    /// split.
    pub fn rule(&self, needs_validation: bool) -> KeepRule {
        KeepRule {
            needs_validation,
            min_relative_gain: self.keep_min_drop,
        }
    }

    /// The subjects the settings ask for in `space`, in a fixed order: by default every
    /// candidate family (each of its terms with `each_term`), then `term`, then `ablate`.
    ///
    /// # Errors
    /// A name the space does not have, a candidate ablated or an established term judged as
    /// a candidate, or nothing to judge.
    pub fn subjects(&self, space: LabSpace<'_>) -> Result<Vec<LabSubject>, SubjectError> {
        let list = match space {
            LabSpace::Table => self.table_subjects()?,
            LabSpace::Outside(space) => self.outside_subjects(space)?,
        };
        match (list.is_empty(), space) {
            (false, _) => Ok(list),
            (true, LabSpace::Table) => Err(SubjectError::Nothing),
            (true, LabSpace::Outside(_)) => Err(SubjectError::NoCandidates),
        }
    }

    /// Whether only the default (every candidate family) is asked for.
    fn every_family(&self) -> bool {
        self.family.is_empty() && self.term.is_empty() && self.ablate.is_empty()
    }

    fn table_subjects(&self) -> Result<Vec<LabSubject>, SubjectError> {
        let families: Vec<Group> = match self.every_family() {
            true => Group::ALL
                .iter()
                .copied()
                .filter(|g| g.is_candidate())
                .collect(),
            false => self
                .family
                .iter()
                .map(|f| family(f))
                .collect::<Result<_, _>>()?,
        };
        let mut list = Vec::new();
        for g in families {
            match self.each_term {
                true => list.extend(
                    TermId::all()
                        .filter(|t| t.info().group == g)
                        .map(Subject::Term),
                ),
                false => list.push(Subject::Family(g)),
            }
        }
        for name in &self.term {
            let t = term(name)?;
            if !t.info().group.is_candidate() {
                return Err(SubjectError::NotCandidate(name.clone()));
            }
            list.push(Subject::Term(t));
        }
        for name in &self.ablate {
            let group = Group::ALL
                .iter()
                .find(|g| g.name().eq_ignore_ascii_case(name));
            let terms: Vec<TermId> = match group {
                Some(g) => TermId::all().filter(|t| t.info().group == *g).collect(),
                None => vec![term(name)?],
            };
            for t in terms {
                if t.info().group.is_candidate() {
                    return Err(SubjectError::IsCandidate(t.info().name.to_string()));
                }
                list.push(Subject::Ablate(t));
            }
        }
        Ok(list.iter().map(Subject::resolve).collect())
    }

    fn outside_subjects(&self, space: &ParamSpace) -> Result<Vec<LabSubject>, SubjectError> {
        let mut list = Vec::new();
        for g in self.outside_families(space) {
            let members = candidates_in(space, &g);
            if members.is_empty() {
                return Err(SubjectError::NoCandidatesInGroup(g));
            }
            let names: Vec<String> = members.iter().map(|p| p.name.clone()).collect();
            match self.each_term {
                true => list.extend(
                    names
                        .into_iter()
                        .map(|n| outside(n.clone(), SubjectKind::Candidate, n, Some(&g))),
                ),
                false => list.push(LabSubject {
                    name: g.clone(),
                    kind: SubjectKind::Candidate,
                    terms: names,
                    partners: vec![g.clone()],
                }),
            }
        }
        let by_name = |name: &str| space.params().iter().find(|p| p.name == name);
        for name in &self.term {
            let Some(p) = by_name(name).filter(|p| p.candidate) else {
                return Err(SubjectError::NotCandidateParam(name.clone()));
            };
            let subject = outside(
                p.name.clone(),
                SubjectKind::Candidate,
                p.name.clone(),
                p.group.as_deref(),
            );
            list.push(subject);
        }
        for name in &self.ablate {
            list.extend(ablations_in(space, name)?);
        }
        Ok(list)
    }

    /// The groups judged as families in an outside space: `family`, or by default every
    /// group with candidates, in the header's order.
    fn outside_families(&self, space: &ParamSpace) -> Vec<String> {
        let mut groups = self.family.clone();
        if self.every_family() {
            for p in space.params().iter().filter(|p| p.candidate) {
                let g = p.group.clone().unwrap_or_default();
                if !groups.contains(&g) {
                    groups.push(g);
                }
            }
        }
        groups
    }
}

/// A candidate family of the table by name.
fn family(name: &str) -> Result<Group, SubjectError> {
    Group::ALL
        .iter()
        .copied()
        .find(|g| g.name().eq_ignore_ascii_case(name) && g.is_candidate())
        .ok_or_else(|| SubjectError::NoFamily(name.to_string()))
}

/// A term of the table by name.
fn term(name: &str) -> Result<TermId, SubjectError> {
    TermId::by_name(name).ok_or_else(|| SubjectError::UnknownTerm(name.to_string()))
}

/// A subject of one outside parameter, tuned with the established parameters of `group`.
fn outside(name: String, kind: SubjectKind, param: String, group: Option<&str>) -> LabSubject {
    LabSubject {
        name,
        kind,
        terms: vec![param],
        partners: group.map(str::to_string).into_iter().collect(),
    }
}

/// The candidate parameters of `group`.
fn candidates_in<'s>(space: &'s ParamSpace, group: &str) -> Vec<&'s Param> {
    let in_group = |p: &&Param| p.candidate && p.group.as_deref() == Some(group);
    space.params().iter().filter(in_group).collect()
}

/// The ablations `name` asks for: the parameter of that name, or every one of the group.
fn ablations_in(space: &ParamSpace, name: &str) -> Result<Vec<LabSubject>, SubjectError> {
    let params = space.params();
    let chosen: Vec<&Param> = match params.iter().find(|p| p.name == name) {
        Some(p) => vec![p],
        None => params
            .iter()
            .filter(|p| p.group.as_deref() == Some(name))
            .collect(),
    };
    if chosen.is_empty() {
        return Err(SubjectError::NoParamOrGroup(name.to_string()));
    }
    chosen
        .into_iter()
        .map(|p| match p.candidate {
            true => Err(SubjectError::IsCandidate(p.name.clone())),
            false => Ok(outside(
                format!("-{}", p.name),
                SubjectKind::Ablation,
                p.name.clone(),
                p.group.as_deref(),
            )),
        })
        .collect()
}
