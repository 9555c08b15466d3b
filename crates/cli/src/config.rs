//! The settings of `texel tune` ([`TuneArgs`]) and tuning configurations (`configs/*.json`):
//! every setting in one file; flags given on the command line win.

use crate::data_args::DataArgs;
use anyhow::{Context, Result};
use clap::Args;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use texel_eval::table::Group;
use texel_eval::TermId;
use texel_tune::Variable;

/// The file's fields; all optional. Relative paths are taken from the config file's folder.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct TuneConfig {
    epd: Option<Vec<PathBuf>>,
    stm_labels: Option<bool>,
    allow_bad: Option<bool>,
    validate: Option<f64>,
    params: Option<PathBuf>,
    k: Option<f64>,
    threads: Option<usize>,
    groups: Option<Vec<String>>,
    terms: Option<Vec<String>>,
    exclude: Option<Vec<String>>,
    freeze_material: Option<bool>,
    no_candidates: Option<bool>,
    steps: Option<BTreeMap<String, i32>>,
    passes: Option<usize>,
    patience: Option<usize>,
    log: Option<PathBuf>,
    checkpoint: Option<PathBuf>,
    checkpoint_secs: Option<f64>,
    method: Option<String>,
    adam_rate: Option<f64>,
    adam_epochs: Option<usize>,
    warm_start: Option<usize>,
    out: Option<PathBuf>,
    rust: Option<PathBuf>,
    report: Option<PathBuf>,
    min_support: Option<usize>,
    /// A number, or "auto".
    l2: Option<serde_json::Value>,
    no_constraints: Option<bool>,
}

/// The table's group names, for `--group`'s help and check.
/// The help of `--group`: texel's groups by name, or a trace's.
fn group_help() -> String {
    let names: Vec<&str> = Group::ALL.iter().map(|g| g.name()).collect();
    format!(
        "Tune only this group (repeatable): one of texel's ({}), or, with --traces, a `group` \
         of the trace's header",
        names.join(", ")
    )
}

#[derive(Args, Clone)]
/// Every setting of `texel tune`: flags, filled from a config file where they are left open.
pub struct TuneArgs {
    #[command(flatten)]
    pub data: DataArgs,
    #[arg(long, help = group_help())]
    pub group: Vec<String>,
    /// Tune only this term (repeatable).
    #[arg(long = "param")]
    pub term: Vec<String>,
    /// Never tune this term (repeatable).
    #[arg(long)]
    pub exclude: Vec<String>,
    /// Keep the piece values fixed.
    #[arg(long)]
    pub freeze_material: bool,
    /// Leave the candidate families out: start them at 0 and do not tune them (the
    /// established table alone).
    #[arg(long)]
    pub no_candidates: bool,
    /// Settings from a JSON file (configs/*.json); flags given here override it.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Stop after this many passes over all positions (a warm start's passes come on top)
    /// [default: 20].
    #[arg(allow_negative_numbers = true, long)]
    pub passes: Option<usize>,
    /// With --validate: stop when this many passes in a row bring no new best validation
    /// error (a pass that ties or rises counts), and keep the parameters that were best on
    /// validation.
    #[arg(allow_negative_numbers = true, long)]
    pub patience: Option<usize>,
    /// Append one JSON line per pass (pass, errors, moves, seconds) to this file.
    #[arg(long)]
    pub log: Option<PathBuf>,
    /// Checkpoint file (default: OUT.ckpt beside the output); removed when the run ends
    /// normally.
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// Seconds between checkpoints; one is also written after every pass and on Ctrl-C
    /// [default: 300].
    #[arg(allow_negative_numbers = true, long)]
    pub checkpoint_secs: Option<f64>,
    /// Tuning method: cd (Slow Chess coordinate descent), adam (gradient epochs), or adam+cd
    /// (Adam until the validation error stops falling, then coordinate descent) [default: cd].
    #[arg(long)]
    pub method: Option<texel_tune::Method>,
    /// Adam's learning rate: the largest move of a value per epoch, in steps [default: 2].
    #[arg(allow_negative_numbers = true, long)]
    pub adam_rate: Option<f64>,
    /// adam+cd: Adam epochs at most before coordinate descent takes over [default: 40].
    #[arg(allow_negative_numbers = true, long)]
    pub adam_epochs: Option<usize>,
    /// cd: first tune about 1/N of the training positions (one segment of 8,192 in N,
    /// picked by a fixed hash) until a pass there gains less than 0.5 %, then all of them:
    /// twice as fast to a good table on large sets. 0: never [default: 8 from 500,000
    /// training positions, otherwise none].
    #[arg(long, value_name = "N")]
    pub warm_start: Option<usize>,
    /// Start again although the checkpoint of an earlier run of these outputs exists
    /// (it is deleted); without it such a run is refused.
    #[arg(long, conflicts_with = "resume")]
    pub fresh: bool,
    /// Continue the run saved in this checkpoint: give the same data and selection as the
    /// run that wrote it (K and the values come from it).
    #[arg(long)]
    pub resume: Option<PathBuf>,
    /// Write the tuned parameters as JSON (default: texel-tuned.json, or the next free
    /// texel-tuned-N.json). Written only when the run ends; Ctrl-C leaves the checkpoint.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write the tuned table as Rust source.
    #[arg(long)]
    pub rust: Option<PathBuf>,
    /// Write an HTML page with plots of the run (errors per pass, error against K,
    /// calibration, largest changes, error per group) after every pass and at the end.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Hold every value that counts in fewer than N training positions at its start; 0
    /// tunes them all [default: 20].
    #[arg(allow_negative_numbers = true, long, value_name = "N")]
    pub min_support: Option<usize>,
    /// Pull every value toward its start: moving a value 100 units away costs as much
    /// summed error as λ positions wrong by a whole result; `auto` picks λ on the validation
    /// split; 0 switches the pull off [default: 0.1].
    #[arg(allow_negative_numbers = true, long, value_name = "λ|auto")]
    pub l2: Option<crate::guards::L2>,
    /// Let values cross the orders and bounds the table declares (`rising`, `at_most 0`, ...).
    #[arg(long)]
    pub no_constraints: bool,
}

/// `dir` joined with the relative `path`, `..` taken off `dir`'s own components where it
/// can be (`configs` + `../data/x.epd` is `data/x.epd`).
fn joined(dir: &Path, path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = dir.to_path_buf();
    for c in path.components() {
        let last_is_name = matches!(out.components().next_back(), Some(Component::Normal(_)));
        match c {
            Component::ParentDir if last_is_name => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

impl TuneConfig {
    /// Reads a config file; its relative paths are made relative to its folder.
    fn read(path: &Path) -> Result<TuneConfig> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read config {}", path.display()))?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let mut c: TuneConfig = serde_json::from_str(text)
            .map_err(|e| anyhow::anyhow!("config {}: not valid ({e})", path.display()))?;
        let dir = path.parent().unwrap_or(Path::new(""));
        let rebase = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = joined(dir, p);
            }
        };
        c.epd.iter_mut().flatten().for_each(rebase);
        for p in [
            &mut c.params,
            &mut c.log,
            &mut c.checkpoint,
            &mut c.out,
            &mut c.rust,
            &mut c.report,
        ] {
            p.as_mut().map(rebase);
        }
        c.check(path)?;
        Ok(c)
    }

    /// Checks the names and files the config gives, naming the config in the error.
    fn check(&self, path: &Path) -> Result<()> {
        let here = || format!("config {}", path.display());
        texel_tune::select(&texel_tune::Selection {
            groups: self.groups.clone().unwrap_or_default(),
            terms: self.terms.clone().unwrap_or_default(),
            exclude: self.exclude.clone().unwrap_or_default(),
            freeze_material: false,
            no_candidates: false,
        })
        .with_context(here)?;
        with_steps(Vec::new(), self.steps.as_ref().unwrap_or(&BTreeMap::new()))
            .with_context(here)?;
        for epd in self.epd.iter().flatten() {
            anyhow::ensure!(
                epd.is_file(),
                "{}: epd file {} does not exist",
                here(),
                epd.display()
            );
        }
        Ok(())
    }
}

/// Fills every setting `args` leaves open from the config file at `path`; returns the
/// per-term step overrides.
///
/// # Errors
/// An unreadable file, invalid JSON, an unknown field, term or group, or a missing data
/// file, each naming the config.
pub fn apply(path: &Path, args: &mut TuneArgs) -> Result<BTreeMap<String, i32>> {
    let c = TuneConfig::read(path)?;
    fill_outputs(args, &c, path);
    fn fill<T>(flag: &mut Option<T>, value: Option<T>) {
        if flag.is_none() {
            *flag = value;
        }
    }
    fn fill_list<T>(flag: &mut Vec<T>, value: Option<Vec<T>>) {
        if flag.is_empty() {
            *flag = value.unwrap_or_default();
        }
    }
    let d = &mut args.data;
    fill_list(&mut d.epd, c.epd);
    d.stm_labels |= c.stm_labels.unwrap_or(false);
    d.allow_bad |= c.allow_bad.unwrap_or(false);
    fill(&mut d.validate, c.validate);
    fill(&mut d.params, c.params);
    fill(&mut d.k, c.k);
    fill(&mut d.threads, c.threads);
    fill_list(&mut args.group, c.groups);
    fill_list(&mut args.term, c.terms);
    fill_list(&mut args.exclude, c.exclude);
    args.freeze_material |= c.freeze_material.unwrap_or(false);
    args.no_candidates |= c.no_candidates.unwrap_or(false);
    fill(&mut args.passes, c.passes);
    fill(&mut args.patience, c.patience);
    fill(&mut args.checkpoint_secs, c.checkpoint_secs);
    if let Some(m) = c.method {
        let method = m
            .parse()
            .map_err(|e| anyhow::anyhow!("config {}: method: {e}", path.display()))?;
        fill(&mut args.method, Some(method));
    }
    fill(&mut args.adam_rate, c.adam_rate);
    fill(&mut args.adam_epochs, c.adam_epochs);
    fill(&mut args.warm_start, c.warm_start);
    fill(&mut args.min_support, c.min_support);
    if let Some(l2) = c.l2 {
        let text = l2.as_str().map_or_else(|| l2.to_string(), str::to_string);
        let l2 = text
            .parse()
            .map_err(|e| anyhow::anyhow!("config {}: l2: {e}", path.display()))?;
        fill(&mut args.l2, Some(l2));
    }
    args.no_constraints |= c.no_constraints.unwrap_or(false);
    Ok(c.steps.unwrap_or_default())
}

/// The config's outputs, unless the command line names any output: then the config's
/// outputs are all dropped (with a note), so a run told `--out X.json` writes nothing into
/// the config's folders.
fn fill_outputs(args: &mut TuneArgs, c: &TuneConfig, path: &Path) {
    let given = [
        &args.out,
        &args.rust,
        &args.report,
        &args.log,
        &args.checkpoint,
    ];
    if given.iter().any(|o| o.is_some()) {
        let dropped: Vec<&str> = [
            ("out", &c.out),
            ("rust", &c.rust),
            ("report", &c.report),
            ("log", &c.log),
            ("checkpoint", &c.checkpoint),
        ]
        .iter()
        .filter(|(_, p)| p.is_some())
        .map(|(name, _)| *name)
        .collect();
        if !dropped.is_empty() {
            eprintln!(
                "note: outputs given on the command line, so the outputs of config {} ({}) \
                 are not written; give them as flags to keep them",
                path.display(),
                dropped.join(", ")
            );
        }
        return;
    }
    args.out.clone_from(&c.out);
    args.rust.clone_from(&c.rust);
    args.report.clone_from(&c.report);
    args.log.clone_from(&c.log);
    args.checkpoint.clone_from(&c.checkpoint);
}

/// The variables with the steps of `steps` (term name to step) instead of the table's.
///
/// # Errors
/// A step for a term the table does not have, or a step below 1.
pub fn with_steps(mut vars: Vec<Variable>, steps: &BTreeMap<String, i32>) -> Result<Vec<Variable>> {
    for (name, &step) in steps {
        let term =
            TermId::by_name(name).with_context(|| format!("step for unknown term {name:?}"))?;
        anyhow::ensure!(step >= 1, "step {step} for {name} is below 1");
        for v in vars
            .iter_mut()
            .filter(|v| term.info().flat_range().contains(&v.slot))
        {
            v.step = step;
        }
    }
    Ok(vars)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_paths_join_without_needless_parent_steps() {
        let j = |d: &str, p: &str| joined(Path::new(d), Path::new(p));
        assert_eq!(j("configs", "../data/x.epd"), PathBuf::from("data/x.epd"));
        assert_eq!(j("", "../x.epd"), PathBuf::from("../x.epd"));
        assert_eq!(j("/a/b", "./c/../../d"), PathBuf::from("/a/d"));
        assert_eq!(j("..", "../x"), PathBuf::from("../../x"));
    }
}
