//! `texel compare`: how much a term lowers the error, the Slow Chess way of judging a term,
//! as a front over the term lab: the same tunings, numbers and verdict as `texel lab`.
//!
//! For each `--term`: the error after tuning the groups it works with while it is held at
//! zero, and after tuning them with it free; the drop between the two is what the term
//! itself buys. `--without` reports the rise when an established term is zeroed and its
//! group retuned, against the group retuned with it (the lab's `--ablate`).

use crate::data_args::{load_data, DataArgs};
use anyhow::{Context, Result};
use clap::Args;
use std::process::ExitCode;
use texel_eval::TermId;
use texel_lab::report::{KeepRule, DEFAULT_KEEP_MIN_DROP};
use texel_lab::{Lab, LabSpace, LabSubject, Subject, SubjectKind, Verdict};
use texel_solve::Model;
use texel_tune::texel_trace::ParamSpace;

#[derive(Args)]
pub struct CompareArgs {
    #[command(flatten)]
    data: DataArgs,
    /// A term to judge by the error drop it brings (repeatable).
    #[arg(long)]
    term: Vec<String>,
    /// An established term to judge by the error rise when it is zeroed (repeatable).
    #[arg(long)]
    without: Vec<String>,
    /// Passes of each tuning (at most; a pass that moves nothing ends it).
    #[arg(allow_negative_numbers = true, long, default_value_t = 4)]
    passes: usize,
    /// Keep a term when its gain is above 0 and at least this share of the held error (as
    /// `texel lab`).
    #[arg(long, default_value_t = DEFAULT_KEEP_MIN_DROP, allow_negative_numbers = true)]
    keep_min_drop: f64,
}

fn term(name: &str) -> Result<TermId> {
    TermId::by_name(name).with_context(|| format!("unknown term {name:?}"))
}

/// The lab subjects of `--term` and `--without` in texel's table.
fn subjects(args: &CompareArgs) -> Result<Vec<LabSubject>> {
    let mut list = Vec::new();
    for name in &args.term {
        list.push(Subject::Term(term(name)?).resolve());
    }
    for name in &args.without {
        let t = term(name)?;
        anyhow::ensure!(
            !t.info().group.is_candidate(),
            "{name} is a candidate term, at zero in the base: judge it with --term"
        );
        list.push(Subject::Ablate(t).resolve());
    }
    Ok(list)
}

/// The lab subjects of `--term` and `--without` in an outside engine's parameters, each
/// tuned with its `group`.
fn subjects_in_space(args: &CompareArgs, space: &ParamSpace) -> Result<Vec<LabSubject>> {
    let param = |name: &String| {
        space
            .params()
            .iter()
            .find(|p| &p.name == name)
            .with_context(|| format!("the trace has no parameter {name:?}"))
    };
    let subject = |name: &String, kind| -> Result<LabSubject> {
        let p = param(name)?;
        let label = match kind {
            SubjectKind::Ablation => format!("-{name}"),
            SubjectKind::Candidate => name.clone(),
        };
        Ok(LabSubject {
            name: label,
            kind,
            terms: vec![name.clone()],
            partners: p.group.clone().into_iter().collect(),
        })
    };
    let terms = args.term.iter().map(|n| subject(n, SubjectKind::Candidate));
    let without = args
        .without
        .iter()
        .map(|n| subject(n, SubjectKind::Ablation));
    terms.chain(without).collect()
}

pub fn run(args: &CompareArgs) -> Result<ExitCode> {
    if args.term.is_empty() && args.without.is_empty() {
        anyhow::bail!("nothing to compare: give --term NAME and/or --without NAME");
    }
    let rule = KeepRule {
        needs_validation: args.data.validate.is_some_and(|v| v > 0.0),
        min_relative_gain: args.keep_min_drop,
    };
    if let Some(trace) = &args.data.traces {
        let (mut loaded, subject) = crate::tune_traces::load_trace(&args.data, trace)?;
        let (space, given) = (subject.space, subject.given);
        let list = subjects_in_space(args, &space)?;
        let space_of = LabSpace::Outside(&space);
        let given = crate::lab_cmd::judged_base_with_k(&args.data, &mut loaded, space_of, given)?;
        let k = loaded.k;
        let mut lab = Lab::new(
            &mut loaded.train,
            &mut loaded.validation,
            space_of,
            given,
            k,
            args.passes,
        );
        return judge_and_print(&mut lab, &list, &rule, args.passes);
    }
    let list = subjects(args)?;
    // As in the lab: the base without candidate terms, K fitted on it.
    let base = crate::load_params(args.data.params.as_deref())?.without_candidates();
    let mut loaded = load_data(&args.data, base.clone())?;
    let k = loaded.k;
    say!(
        "K {k:.4}: the base's, every candidate term at 0 (each subject is judged against that \
         base, as texel lab judges it)"
    );
    let mut lab = Lab::new(
        &mut loaded.train,
        &mut loaded.validation,
        LabSpace::Table,
        base,
        k,
        args.passes,
    );
    judge_and_print(&mut lab, &list, &rule, args.passes)
}

/// Judges every subject and prints its row.
fn judge_and_print<M: Model>(
    lab: &mut Lab<M>,
    list: &[LabSubject],
    rule: &KeepRule,
    passes: usize,
) -> Result<ExitCode> {
    print_header(passes);
    for subject in list {
        print_row(&lab.judge(subject)?, rule);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_header(passes: usize) {
    say!();
    say!(
        "errors (training, validation when --validate): held = the term's groups tuned {passes} \
         passes with the term at 0; free = tuned with the term; gain = held - free, the error \
         the term removes (for --without, the error its removal adds); verdict as texel lab"
    );
    say!(
        "{:<34} {:<22} {:>23} {:>23} {:>23} {}",
        "term",
        "tuned with",
        "held",
        "free",
        "gain",
        "verdict"
    );
}

/// One verdict as a row: training (and validation) errors held and free, the gain, keep or
/// not.
fn print_row(v: &Verdict, rule: &KeepRule) {
    let pair = |train: f64, validation: Option<f64>| match validation {
        Some(x) => format!("{train:.8} / {x:.8}"),
        None => format!("{train:.8}"),
    };
    let verdict = rule.word(v);
    say!(
        "{:<34} {:<22} {:>23} {:>23} {:>23} {verdict}",
        v.subject,
        v.partners.join("+"),
        pair(v.held.train, v.held.validation),
        pair(v.free.train, v.free.validation),
        pair(v.train_gain(), v.validation_gain()),
    );
}
