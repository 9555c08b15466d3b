//! `texel lab --traces FILE`: the term lab on an outside engine's parameters. Parameters the
//! trace's header marks `"candidate": true` are judged by the error they remove, tuned with
//! the established parameters of their `group`; `--ablate` judges established ones by the
//! error their removal adds.

use crate::lab_cmd::{open_verdicts, LabArgs, Session};
use anyhow::{bail, Result};
use std::path::Path;
use std::process::ExitCode;
use texel_tune::error::{fit_k, samples};
use texel_tune::lab_report::Proofs;
use texel_tune::texel_trace::{Param, ParamSpace};
use texel_tune::{LabSpace, LabSubject, LinearDataset, Model, SubjectKind};

/// A subject of one or more parameters, tuned with the established ones of `group`.
fn subject(name: String, kind: SubjectKind, terms: Vec<String>, group: Option<&str>) -> LabSubject {
    LabSubject {
        name,
        kind,
        terms,
        partners: group.map(str::to_string).into_iter().collect(),
    }
}

/// The candidate parameters of `group`.
fn family<'s>(space: &'s ParamSpace, group: &str) -> Vec<&'s Param> {
    let in_group = |p: &&Param| p.candidate && p.group.as_deref() == Some(group);
    space.params().iter().filter(in_group).collect()
}

/// The subjects the options ask for, in the header's order: by default every group with
/// candidates as a whole (each candidate alone with `--each-term`).
fn subjects_in_space(args: &LabArgs, space: &ParamSpace) -> Result<Vec<LabSubject>> {
    let params = space.params();
    let by_name = |name: &str| params.iter().find(|p| p.name == name);
    let mut groups: Vec<String> = args.family.clone();
    if groups.is_empty() && args.term.is_empty() && args.ablate.is_empty() {
        for p in params.iter().filter(|p| p.candidate) {
            let g = p.group.clone().unwrap_or_default();
            if !groups.contains(&g) {
                groups.push(g);
            }
        }
    }
    let mut list = Vec::new();
    for g in &groups {
        let members = family(space, g);
        anyhow::ensure!(
            !members.is_empty(),
            "the trace has no candidates in group {g:?}"
        );
        let names: Vec<String> = members.iter().map(|p| p.name.clone()).collect();
        match args.each_term {
            true => list.extend(
                names
                    .into_iter()
                    .map(|n| subject(n.clone(), SubjectKind::Candidate, vec![n], Some(g))),
            ),
            false => list.push(subject(g.clone(), SubjectKind::Candidate, names, Some(g))),
        }
    }
    for name in &args.term {
        let p = by_name(name).filter(|p| p.candidate);
        let Some(p) = p else {
            bail!("{name} is not a candidate parameter of the trace (\"candidate\": true)");
        };
        let terms = vec![p.name.clone()];
        list.push(subject(
            p.name.clone(),
            SubjectKind::Candidate,
            terms,
            p.group.as_deref(),
        ));
    }
    for name in &args.ablate {
        let chosen: Vec<&Param> = match by_name(name) {
            Some(p) => vec![p],
            None => params
                .iter()
                .filter(|p| p.group.as_deref() == Some(name))
                .collect(),
        };
        anyhow::ensure!(
            !chosen.is_empty(),
            "the trace has no parameter or group {name:?}"
        );
        for p in chosen {
            anyhow::ensure!(
                !p.candidate,
                "{} is a candidate: judge it with --term",
                p.name
            );
            let terms = vec![p.name.clone()];
            let label = format!("-{}", p.name);
            list.push(subject(
                label,
                SubjectKind::Ablation,
                terms,
                p.group.as_deref(),
            ));
        }
    }
    Ok(list)
}

/// The values subjects are judged against: `given` with every candidate at 0; the data
/// scored with them and K fitted on them (unless `--k` is given): candidates are judged
/// against the established values.
pub(crate) fn judged_base(
    data: &crate::data_args::DataArgs,
    loaded: &mut crate::data_args::Loaded<LinearDataset>,
    space: LabSpace<'_>,
    given: Vec<i32>,
) -> Vec<i32> {
    let mut base = given;
    for slot in space.candidates().iter().flat_map(|c| space.slots(c)) {
        base[slot] = 0;
    }
    loaded.train.rescore(&base);
    loaded.validation.rescore(&base);
    if data.k.is_none() {
        loaded.k = fit_k(&samples(&loaded.train));
        say!("K fitted with the candidates at 0: {:.4}", loaded.k);
    }
    base
}

pub fn run(args: &LabArgs, trace: &Path) -> Result<ExitCode> {
    anyhow::ensure!(
        !args.prove.prove,
        "--prove plays texel's own engine: prove an outside engine's subjects in its own matches"
    );
    let verdict_log = open_verdicts(args)?;
    let (mut loaded, space, given) = crate::tune_traces::load(&args.data, trace)?;
    let list = subjects_in_space(args, &space)?;
    if list.is_empty() {
        bail!("nothing to judge: the trace's header marks no parameter \"candidate\": true");
    }
    let lab_space = LabSpace::Outside(&space);
    let base = judged_base(&args.data, &mut loaded, lab_space, given);
    let no_proofs = |_: &[_], _: &_| Ok((Proofs::new(), true));
    let write =
        |tuned: &Vec<i32>, path: &Path| crate::outputs::write_json(path, &space.to_json(tuned));
    let session = Session {
        args,
        list: &list,
        space: lab_space,
        prove: &no_proofs,
        save: &write,
    };
    session.run(&mut loaded, base, verdict_log)
}
