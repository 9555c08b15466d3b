//! The settings of `texel tune` ([`TuneArgs`]): one struct that is both the flags and a
//! tuning configuration (`configs/*.json`, the same names with `_` for `-`); flags given on
//! the command line win over the file. Every default is written once, in the flag's
//! declaration, and shown by `--help`.

use crate::data_args::DataArgs;
use crate::guards::L2;
use anyhow::{Context, Result};
use clap::parser::ValueSource;
use clap::{ArgMatches, Args};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use texel_eval::table::Group;
use texel_eval::TermId;
use texel_solve::{Method, Variable};
use texel_tune::RunOptions;

/// The help of `--group`: texel's groups by name, or a trace's.
fn group_help() -> String {
    let names: Vec<&str> = Group::ALL.iter().map(|g| g.name()).collect();
    format!(
        "Tune only this group (repeatable): one of texel's ({}), or, with --traces, a `group` \
         of the trace's header",
        names.join(", ")
    )
}

/// Every setting of `texel tune`. As a config file, each field is a key named like its
/// flag; the flags that name a run rather than a setting (`--config`, `--fresh`,
/// `--resume`) are not keys.
#[derive(Args, Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct TuneArgs {
    #[command(flatten)]
    #[serde(flatten)]
    pub data: DataArgs,
    #[arg(long, help = group_help())]
    pub group: Vec<String>,
    /// Tune only this term (repeatable).
    #[arg(long)]
    pub param: Vec<String>,
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
    /// Tune this term in steps of N instead of the table's (repeatable); in a config file
    /// a map of term to step.
    #[arg(long, value_name = "TERM=N")]
    #[serde(with = "step_map")]
    pub step: Vec<TermStep>,
    /// Settings from a JSON file (configs/*.json); flags given here override it.
    #[arg(long)]
    #[serde(skip)]
    pub config: Option<PathBuf>,
    /// Stop after this many passes over all positions at most (a warm start's passes come on
    /// top); a run ends by its own rule first: Newton when an iteration gains less than
    /// 10⁻⁴ of the error (10⁻⁶ where a trace composes inner sums) and its polish when a
    /// pass gains less than 0.1 % (a trace's: --polish-tolerance), cd when a pass
    /// moves nothing, Adam when its error stops changing, any method when validation stops
    /// improving (--patience).
    #[arg(allow_negative_numbers = true, long, default_value_t = RunOptions::default().passes)]
    pub passes: usize,
    /// With --validate: stop when this many passes in a row bring no new best validation
    /// error (a pass that ties or rises counts), and keep the parameters that were best on
    /// validation.
    #[arg(allow_negative_numbers = true, long)]
    pub patience: Option<usize>,
    /// The polish after Newton ends after a round (a trace's lattice polish) or a pass
    /// (texel's table's coordinate polish) that lowers the training error by less than this
    /// share of it; 0 polishes until no single step of a value gains. Default: 2e-5 for a
    /// trace, 1e-3 for texel's table.
    #[arg(allow_negative_numbers = true, long)]
    pub polish_tolerance: Option<f64>,
    /// End the run by this wall-clock time from its start (`8h`, `90m`, `45s`), as a
    /// converged run ends: the values so far written, the checkpoint removed. A pass under
    /// way when the time runs out finishes first.
    #[arg(long, value_name = "DURATION")]
    pub max_time: Option<crate::max_time::MaxTime>,
    /// Append one JSON line per pass (pass, errors, moves, seconds) to this file.
    #[arg(long)]
    pub log: Option<PathBuf>,
    /// Checkpoint file (default: OUT.ckpt beside the output); removed when the run ends
    /// normally.
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// Seconds between checkpoints; one is also written after every pass and on Ctrl-C.
    #[arg(allow_negative_numbers = true, long,
          default_value_t = RunOptions::default().checkpoint_secs)]
    pub checkpoint_secs: f64,
    /// Tuning method: newton (damped Newton steps in real numbers until the error stops
    /// falling, then the values rounded and polished on the integer lattice: texel's table by
    /// coordinate descent, a trace by rounds of batched moves, streamed alike), cd (Slow Chess
    /// coordinate descent), adam (gradient epochs), or adam+cd (Adam until the validation
    /// error stops falling, then coordinate descent).
    #[arg(long, default_value_t = Method::default())]
    #[serde(with = "as_text")]
    pub method: Method,
    /// Adam's learning rate: the largest move of a value per epoch, in steps.
    #[arg(allow_negative_numbers = true, long, default_value_t = texel_tune::ADAM_RATE)]
    pub adam_rate: f64,
    /// adam+cd: Adam epochs at most before coordinate descent takes over.
    #[arg(allow_negative_numbers = true, long, default_value_t = texel_tune::ADAM_EPOCHS)]
    pub adam_epochs: usize,
    /// cd: first tune about 1/N of the training positions (one segment of 8,192 in N,
    /// picked by a fixed hash) until a pass there gains less than 0.5 %, then all of them:
    /// twice as fast to a good table on large sets. 0: never. When not given: 8 from
    /// 500,000 training positions, otherwise none.
    #[arg(long, value_name = "N")]
    pub warm_start: Option<usize>,
    /// Start again although an earlier run of these outputs left its checkpoint (deleted)
    /// or its passes in --log (emptied); without it such a run is refused.
    #[arg(long, conflicts_with = "resume")]
    #[serde(skip)]
    pub fresh: bool,
    /// Continue the run saved in this checkpoint: give the same data and selection as the
    /// run that wrote it (K and the values come from it).
    #[arg(long)]
    #[serde(skip)]
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
    /// tunes them all.
    #[arg(allow_negative_numbers = true, long, value_name = "N",
          default_value_t = crate::guards::DEFAULT_MIN_SUPPORT)]
    pub min_support: usize,
    /// Pull every value toward its start: moving a value 100 units away costs as much
    /// summed error as λ positions wrong by a whole result; `auto` (the default) solves a
    /// path of pulls, strongest first, and takes the one whose table scores the held-out
    /// games best (0.1 when nothing is held out); 0 switches the pull off.
    #[arg(allow_negative_numbers = true, long, value_name = "λ|auto",
          default_value_t = L2::Auto)]
    #[serde(with = "as_text")]
    pub l2: L2,
    /// Let values cross the orders and bounds the table declares (`rising`, `at_most 0`, ...).
    #[arg(long)]
    pub no_constraints: bool,
    /// With a binary --traces: keep nothing per position in memory, read the positions from
    /// the file in every pass (chunks of --chunk positions), for traces whose tuner form does
    /// not fit in memory. Newton, then the polish; a checkpoint beside --out as in memory
    /// (--resume goes on), no log or report.
    #[arg(long)]
    pub stream: bool,
    /// The memory a tune of a binary trace may take (e.g. 12G, 800M; default half the
    /// machine's): a trace whose tuner form would need more is streamed (as --stream), and
    /// the run says so.
    #[arg(long, value_name = "SIZE")]
    pub memory: Option<crate::memory::MemorySize>,
    /// --stream: positions decoded into memory at a time.
    #[arg(long, value_name = "N", default_value_t = texel_tune::Streaming::default().chunk, requires = "stream")]
    pub chunk: usize,
}

impl Default for TuneArgs {
    /// The settings of `texel tune` with no flag given.
    fn default() -> TuneArgs {
        crate::parse_flags::<TuneArgs>(&[]).unwrap_or_else(|e| e.exit())
    }
}

/// A term's step: `TERM=N`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TermStep {
    /// The term's name.
    pub term: String,
    /// Its step.
    pub step: i32,
}

impl std::str::FromStr for TermStep {
    type Err = String;

    fn from_str(s: &str) -> Result<TermStep, String> {
        let (term, step) = s
            .split_once('=')
            .ok_or_else(|| format!("{s:?} is not TERM=N"))?;
        let step = step
            .trim()
            .parse()
            .map_err(|_| format!("{s:?}: the step {step:?} is not a whole number"))?;
        Ok(TermStep {
            term: term.trim().to_string(),
            step,
        })
    }
}

/// Term steps in a config file: a map of term to step.
mod step_map {
    use super::TermStep;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::collections::BTreeMap;

    pub fn serialize<S: Serializer>(steps: &[TermStep], s: S) -> Result<S::Ok, S::Error> {
        let map: BTreeMap<&str, i32> = steps.iter().map(|t| (t.term.as_str(), t.step)).collect();
        map.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<TermStep>, D::Error> {
        let map = BTreeMap::<String, i32>::deserialize(d)?;
        Ok(map
            .into_iter()
            .map(|(term, step)| TermStep { term, step })
            .collect())
    }
}

/// A setting written in a config file as its flag's text (a number is also taken).
mod as_text {
    use serde::{de::Error, Deserialize, Deserializer, Serializer};
    use std::fmt::Display;
    use std::str::FromStr;

    pub fn serialize<T: Display, S: Serializer>(x: &T, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(x)
    }

    pub fn deserialize<'de, T, D>(d: D) -> Result<T, D::Error>
    where
        T: FromStr<Err = String>,
        D: Deserializer<'de>,
    {
        let value = serde_json::Value::deserialize(d)?;
        let text = value
            .as_str()
            .map_or_else(|| value.to_string(), str::to_string);
        text.parse().map_err(D::Error::custom)
    }
}

/// Keys of earlier config files, read under their present names.
const RENAMED_KEYS: [(&str, &str); 3] =
    [("groups", "group"), ("terms", "param"), ("steps", "step")];

/// The flags of `texel tune` given on the command line (by field name), from its matches.
pub fn given_flags(matches: Option<&ArgMatches>) -> BTreeSet<String> {
    let Some(m) = matches else {
        return BTreeSet::new();
    };
    m.ids()
        .map(|id| id.as_str())
        .filter(|id| m.value_source(id) == Some(ValueSource::CommandLine))
        .map(str::to_string)
        .collect()
}

/// `args` with every setting not in `given` (the flags given on the command line) taken
/// from its `--config` file, if it names one.
///
/// # Errors
/// An unreadable file, invalid JSON, an unknown key, a bad value, term or group, or a
/// missing data file, each naming the config.
pub fn with_config(args: TuneArgs, given: &BTreeSet<String>) -> Result<TuneArgs> {
    let Some(path) = args.config.clone() else {
        return Ok(args);
    };
    let mut file = read_keys(&path)?;
    if OUTPUTS.iter().any(|o| given.contains(*o)) {
        drop_outputs(&mut file, &path);
    }
    let bad = |e: serde_json::Error| anyhow::anyhow!("config {}: {e}", path.display());
    let mut from_file: TuneArgs = serde_json::from_value(Value::Object(file)).map_err(bad)?;
    rebase(&mut from_file, &path);
    check(&from_file, &path)?;
    let (Value::Object(mut merged), Value::Object(flags)) = (
        serde_json::to_value(&from_file)?,
        serde_json::to_value(&args)?,
    ) else {
        anyhow::bail!("the settings are not a JSON object");
    };
    for (key, value) in flags {
        if given.contains(&key) {
            merged.insert(key, value);
        }
    }
    let mut merged: TuneArgs = serde_json::from_value(Value::Object(merged)).map_err(bad)?;
    (merged.config, merged.fresh, merged.resume) = (args.config, args.fresh, args.resume);
    Ok(merged)
}

/// The keys of the config at `path`, earlier names renamed; an unknown key is refused.
fn read_keys(path: &Path) -> Result<Map<String, Value>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read config {}", path.display()))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let value: Value = serde_json::from_str(text)
        .map_err(|e| anyhow::anyhow!("config {}: not valid ({e})", path.display()))?;
    let Value::Object(mut keys) = value else {
        anyhow::bail!("config {}: not a JSON object", path.display());
    };
    for (old, new) in RENAMED_KEYS {
        if let Some(v) = keys.remove(old) {
            keys.insert(new.to_string(), v);
        }
    }
    let known = config_keys();
    if let Some(unknown) = keys.keys().find(|k| !known.contains(*k)) {
        anyhow::bail!(
            "config {}: unknown field `{unknown}` (known: {})",
            path.display(),
            known.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    Ok(keys)
}

/// The keys a config file may give: the settings' field names.
pub fn config_keys() -> BTreeSet<String> {
    match serde_json::to_value(TuneArgs::default()) {
        Ok(Value::Object(keys)) => keys.into_iter().map(|(k, _)| k).collect(),
        _ => BTreeSet::new(),
    }
}

/// The settings that name output files.
const OUTPUTS: [&str; 5] = ["out", "rust", "report", "log", "checkpoint"];

/// Drops the config's outputs (with a note) because the command line names an output, so
/// a run told `--out X.json` writes nothing into the config's folders.
fn drop_outputs(file: &mut Map<String, Value>, path: &Path) {
    let dropped: Vec<&str> = OUTPUTS
        .into_iter()
        .filter(|o| file.remove(*o).is_some_and(|v| !v.is_null()))
        .collect();
    if !dropped.is_empty() {
        eprintln!(
            "note: outputs given on the command line, so the outputs of config {} ({}) are \
             not written; give them as flags to keep them",
            path.display(),
            dropped.join(", ")
        );
    }
}

/// Makes the relative paths of `args`, read from the config at `path`, relative to the
/// config's folder.
fn rebase(args: &mut TuneArgs, path: &Path) {
    let dir = path.parent().unwrap_or(Path::new(""));
    let rebase = |p: &mut PathBuf| {
        if p.is_relative() {
            *p = joined(dir, p);
        }
    };
    args.data.epd.iter_mut().for_each(rebase);
    for p in [
        &mut args.data.sources,
        &mut args.data.traces,
        &mut args.data.params,
        &mut args.log,
        &mut args.checkpoint,
        &mut args.out,
        &mut args.rust,
        &mut args.report,
    ] {
        p.as_mut().map(rebase);
    }
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

/// Checks the names and files the config at `path` gave, naming the config in the error.
fn check(args: &TuneArgs, path: &Path) -> Result<()> {
    let here = || format!("config {}", path.display());
    if args.data.traces.is_none() {
        texel_dataset::select(&texel_tune::Selection {
            groups: args.group.clone(),
            terms: args.param.clone(),
            exclude: args.exclude.clone(),
            freeze_material: false,
            no_candidates: false,
        })
        .with_context(here)?;
        with_steps(Vec::new(), &args.step).with_context(here)?;
    }
    for epd in &args.data.epd {
        anyhow::ensure!(
            epd.is_file(),
            "{}: epd file {} does not exist",
            here(),
            epd.display()
        );
    }
    Ok(())
}

/// The variables with the steps of `steps` instead of the table's.
///
/// # Errors
/// A step for a term the table does not have, or a step below 1.
pub fn with_steps(mut vars: Vec<Variable>, steps: &[TermStep]) -> Result<Vec<Variable>> {
    for TermStep { term: name, step } in steps {
        let term =
            TermId::by_name(name).with_context(|| format!("step for unknown term {name:?}"))?;
        anyhow::ensure!(*step >= 1, "step {step} for {name} is below 1");
        for v in vars
            .iter_mut()
            .filter(|v| term.info().flat_range().contains(&v.slot))
        {
            v.step = *step;
        }
    }
    Ok(vars)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, FromArgMatches, Parser};

    #[derive(Parser)]
    struct Tune {
        #[command(flatten)]
        args: TuneArgs,
    }

    /// `words` parsed as `texel tune` flags, then the config they name applied.
    fn resolved(words: &[&str]) -> Result<TuneArgs> {
        let words = std::iter::once("texel").chain(words.iter().copied());
        let matches = Tune::command().try_get_matches_from(words)?;
        let args = Tune::from_arg_matches(&matches)?.args;
        with_config(args, &given_flags(Some(&matches)))
    }

    #[test]
    fn every_config_key_is_a_flag_and_every_setting_flag_a_key() {
        let flags: BTreeSet<String> = Tune::command()
            .get_arguments()
            .filter_map(|a| a.get_long())
            .filter(|l| !["config", "fresh", "resume"].contains(l))
            .map(|l| l.replace('-', "_"))
            .collect();
        assert_eq!(config_keys(), flags);
        assert!(flags.contains("min_support") && flags.contains("epd") && flags.contains("step"));
    }

    #[test]
    fn defaults_are_the_runs_and_are_written_once() {
        let (d, run) = (TuneArgs::default(), RunOptions::default());
        assert_eq!(
            (
                d.passes,
                d.checkpoint_secs,
                d.method,
                d.adam_rate,
                d.adam_epochs
            ),
            (
                run.passes,
                run.checkpoint_secs,
                run.method,
                run.adam_rate,
                run.adam_epochs
            )
        );
        assert_eq!(d.l2, L2::Auto);
        // A config that gives nothing leaves every default in place.
        let back: TuneArgs = serde_json::from_str("{}").unwrap();
        assert_eq!(
            serde_json::to_value(back).unwrap(),
            serde_json::to_value(d).unwrap()
        );
    }

    #[test]
    fn flags_given_win_over_the_config_and_the_rest_comes_from_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("x.epd"), "").unwrap();
        let config = dir.path().join("c.json");
        let text = r#"{"epd": ["x.epd"], "passes": 5, "method": "adam+cd", "l2": "auto",
            "groups": ["KingV"], "steps": {"KS_ATTACK_SUB": 4}, "out": "o.json",
            "report": "r.html", "freeze_material": true}"#;
        std::fs::write(&config, text).unwrap();
        let c = config.to_str().unwrap();
        let a = resolved(&["--config", c, "--passes", "7", "--adam-rate", "3"]).unwrap();
        assert_eq!(
            (a.passes, a.adam_rate, a.method),
            (7, 3.0, Method::AdamThenCd)
        );
        assert_eq!((a.l2, a.freeze_material), (L2::Auto, true));
        assert_eq!(
            (a.group.clone(), a.data.epd.clone()),
            (vec!["KingV".to_string()], vec![dir.path().join("x.epd")])
        );
        assert_eq!(
            a.step,
            vec![TermStep {
                term: "KS_ATTACK_SUB".into(),
                step: 4
            }]
        );
        assert_eq!(
            a.out,
            Some(dir.path().join("o.json")),
            "paths from the config's folder"
        );
        assert_eq!(a.config.as_deref(), Some(config.as_path()));
        // A flag set to its default still wins; an output flag drops the config's outputs.
        let b = resolved(&["--config", c, "--passes", "20", "--rust", "t.rs"]).unwrap();
        assert_eq!((b.passes, b.out, b.report), (20, None, None));
        assert_eq!(b.rust, Some(PathBuf::from("t.rs")), "flags are not rebased");
        let e = resolved(&["--config", c, "--param", "NOPE"]);
        assert!(
            e.is_ok(),
            "names given as flags are checked by the run, not here"
        );
    }

    #[test]
    fn a_config_with_an_unknown_key_or_bad_value_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("c.json");
        let c = config.to_str().unwrap().to_string();
        for (text, says) in [
            (r#"{"passes": 5, "pases": 3}"#, "unknown field `pases`"),
            (r#"{"method": "sgd"}"#, "no method \"sgd\""),
            (r#"{"l2": -1}"#, "neither `auto` nor a number"),
            (r#"{"groups": ["Nope"]}"#, "Nope"),
            (r#"{"steps": {"KS_ATTACK_SUB": 0}}"#, "below 1"),
        ] {
            std::fs::write(&config, text).unwrap();
            let err = format!("{:#}", resolved(&["--config", &c]).unwrap_err());
            assert!(err.contains(&c) && err.contains(says), "{text}: {err}");
        }
    }

    #[test]
    fn config_paths_join_without_needless_parent_steps() {
        let j = |d: &str, p: &str| joined(Path::new(d), Path::new(p));
        assert_eq!(j("configs", "../data/x.epd"), PathBuf::from("data/x.epd"));
        assert_eq!(j("", "../x.epd"), PathBuf::from("../x.epd"));
        assert_eq!(j("/a/b", "./c/../../d"), PathBuf::from("/a/d"));
        assert_eq!(j("..", "../x"), PathBuf::from("../../x"));
    }
}
