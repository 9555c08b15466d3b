//! `texel lab`: judge candidate terms and families (and established terms, `--ablate`) by
//! the error they remove; resumable, with ranked Markdown and JSON reports.

use crate::data_args::{load_data, DataArgs};
use anyhow::{bail, Context, Result};
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use texel_eval::params::Group;
use texel_eval::{Params, TermId};
use texel_files::write_atomically;
use texel_tune::lab_report::{
    apply, markdown, verdict_from, verdict_json, KeepRule, LabReport, Proofs,
};
use texel_tune::{Lab, LabSpace, LabSubject, Model, Subject, Values, Verdict};

#[derive(Args)]
pub struct LabArgs {
    #[command(flatten)]
    pub(crate) data: DataArgs,
    /// Passes of each tuning (at most; a pass that moves nothing ends it).
    #[arg(long, default_value_t = 4, allow_negative_numbers = true)]
    pub(crate) passes: usize,
    /// Judge only these candidate families (default: every candidate family).
    #[arg(long)]
    pub(crate) family: Vec<String>,
    /// Judge these candidate terms (each on its own).
    #[arg(long)]
    pub(crate) term: Vec<String>,
    /// Judge every term of the chosen families on its own instead of the family as a whole.
    #[arg(long)]
    pub(crate) each_term: bool,
    /// Judge these established terms by the error their removal adds (repeatable; a group
    /// name ablates each of its terms).
    #[arg(long)]
    pub(crate) ablate: Vec<String>,
    /// Folder of the lab's files: lab.jsonl (one verdict per line, kept across reruns),
    /// lab.md and lab.json.
    #[arg(long, default_value = "lab")]
    pub(crate) out: PathBuf,
    /// Keep a subject when its gain is above 0 and at least this share of the held error
    /// (validation error with --validate).
    #[arg(long, default_value_t = texel_tune::lab_report::DEFAULT_KEEP_MIN_DROP, allow_negative_numbers = true)]
    pub(crate) keep_min_drop: f64,
    /// Write the base parameters with the kept candidates' tuned values (others at 0) here;
    /// with --prove, only the candidates whose games accepted them (SPRT H1).
    #[arg(long)]
    pub(crate) apply: Option<PathBuf>,
    /// Continue the lab in `--out`: verdicts already in its lab.jsonl for the same data,
    /// base, K and passes are kept, the rest judged.
    #[arg(long)]
    pub(crate) resume: bool,
    /// Start again although `--out` holds an earlier lab's verdicts (they are deleted).
    #[arg(long, conflicts_with = "resume")]
    pub(crate) fresh: bool,
    #[command(flatten)]
    pub(crate) prove: crate::lab_prove::ProveArgs,
}

/// A candidate family by name.
fn family(name: &str) -> Result<Group> {
    Group::ALL
        .iter()
        .copied()
        .find(|g| g.name().eq_ignore_ascii_case(name) && g.is_candidate())
        .with_context(|| format!("no candidate family {name:?} (see texel params)"))
}

/// The subjects the options ask for, in a fixed order.
fn subjects(args: &LabArgs) -> Result<Vec<Subject>> {
    let mut list = Vec::new();
    let explicit = !args.term.is_empty() || !args.ablate.is_empty();
    let families: Vec<Group> = if args.family.is_empty() && !explicit {
        Group::ALL
            .iter()
            .copied()
            .filter(|g| g.is_candidate())
            .collect()
    } else {
        args.family
            .iter()
            .map(|f| family(f))
            .collect::<Result<_>>()?
    };
    for g in families {
        if args.each_term {
            list.extend(
                TermId::all()
                    .filter(|t| t.info().group == g)
                    .map(Subject::Term),
            );
        } else {
            list.push(Subject::Family(g));
        }
    }
    for name in &args.term {
        let t = TermId::by_name(name).with_context(|| format!("unknown term {name:?}"))?;
        anyhow::ensure!(
            t.info().group.is_candidate(),
            "{name} is not a candidate term (use --ablate)"
        );
        list.push(Subject::Term(t));
    }
    for name in &args.ablate {
        let terms: Vec<TermId> = match Group::ALL
            .iter()
            .find(|g| g.name().eq_ignore_ascii_case(name))
        {
            Some(g) => TermId::all().filter(|t| t.info().group == *g).collect(),
            None => vec![TermId::by_name(name).with_context(|| format!("unknown term {name:?}"))?],
        };
        for t in terms {
            anyhow::ensure!(
                !t.info().group.is_candidate(),
                "{} is a candidate: judge it with --term",
                t.info().name
            );
            list.push(Subject::Ablate(t));
        }
    }
    Ok(list)
}

/// A key that names one verdict of one run: the data, base values, K, passes and subject.
fn verdict_key(fingerprint: u64, base: &[i32], k: f64, passes: usize, subject: &str) -> String {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(&fingerprint.to_le_bytes());
    base.iter().for_each(|v| eat(&v.to_le_bytes()));
    eat(&k.to_bits().to_le_bytes());
    eat(&(passes as u64).to_le_bytes());
    eat(subject.as_bytes());
    format!("{h:016x}")
}

/// The verdicts already in `path`, by key.
fn finished(path: &Path) -> Result<Finished> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text.lines().filter_map(verdict_from).collect()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

pub fn run(args: &LabArgs) -> Result<ExitCode> {
    if let Some(trace) = &args.data.traces {
        return crate::lab_traces::run(args, trace);
    }
    let list: Vec<LabSubject> = subjects(args)?.iter().map(Subject::resolve).collect();
    if list.is_empty() {
        bail!("nothing to judge");
    }
    let verdict_log = open_verdicts(args)?;
    // Candidates are judged against the established table: K is fitted without them.
    let base = crate::load_params(args.data.params.as_deref())?.without_candidates();
    let mut loaded = load_data(&args.data, base.clone())?;
    let prove = |verdicts: &[Verdict], rule: &KeepRule| {
        crate::lab_prove::prove(&args.prove, &args.out, &base, verdicts, rule)
    };
    let session = Session {
        args,
        list: &list,
        space: LabSpace::Table,
        prove: &prove,
        save: &|tuned: &Params, path: &Path| Ok(tuned.save(path)?),
    };
    session.run(&mut loaded, base.clone(), verdict_log)
}

/// Plays the kept subjects of `verdicts` in games: the proofs, and whether all were played.
pub(crate) type Prove<'a> = dyn Fn(&[Verdict], &KeepRule) -> Result<(Proofs, bool)> + 'a;

/// One lab run in a parameter space: how kept subjects are proven in games and how
/// adopted values are written.
pub(crate) struct Session<'a, V> {
    pub args: &'a LabArgs,
    pub list: &'a [LabSubject],
    pub space: LabSpace<'a>,
    /// Plays the kept subjects (`--prove`): the proofs, and whether all were played.
    pub prove: &'a Prove<'a>,
    /// Writes `--apply`'s values.
    pub save: &'a dyn Fn(&V, &Path) -> Result<()>,
}

impl<V: Values> Session<'_, V> {
    /// Judges every subject on `loaded` from `base`, proves the kept ones when asked,
    /// writes the reports and `--apply`'s values.
    pub fn run<M: Model<Values = V>>(
        &self,
        loaded: &mut crate::data_args::Loaded<M>,
        base: V,
        verdict_log: VerdictLog,
    ) -> Result<ExitCode> {
        let args = self.args;
        warn_without_validation(args, loaded.validation.len());
        let judging = Judging {
            args,
            list: self.list,
            header: loaded_header(loaded, args),
            k: loaded.k,
            fingerprint: loaded.fingerprint,
        };
        let (train, validation) = (&mut loaded.train, &mut loaded.validation);
        let mut lab = Lab::new(
            train,
            validation,
            self.space,
            base.clone(),
            judging.k,
            args.passes,
        );
        let verdicts = judging.judge_all(&mut lab, base.values(), verdict_log)?;
        let rule = judging.rule();
        let mut proofs = Proofs::new();
        let mut complete = verdicts.len() == self.list.len();
        if args.prove.prove && complete {
            write_reports(args, &verdicts, &rule, &judging.header, &proofs)?;
            (proofs, complete) = (self.prove)(&verdicts, &rule)?;
        }
        write_reports(args, &verdicts, &rule, &judging.header, &proofs)?;
        if let (Some(path), true) = (&args.apply, complete) {
            // With --prove only the subjects whose games accepted them (SPRT H1) are adopted.
            let proven = |v: &&Verdict| {
                !args.prove.prove || proofs.get(&v.subject).is_some_and(|p| p.sprt == "H1")
            };
            let adopted: Vec<Verdict> = verdicts.iter().filter(proven).cloned().collect();
            let tuned = adopt(&mut lab, self.space, &base, &adopted, &rule)?;
            (self.save)(&tuned, path)?;
            say!("wrote {}", path.display());
        }
        judging.exit(verdicts.len(), complete)
    }
}

/// Warns when `--validate` leaves no validation positions: nothing can be kept then.
pub(crate) fn warn_without_validation(args: &LabArgs, validation: usize) {
    if args.data.validate.is_some_and(|v| v > 0.0) && validation == 0 {
        eprintln!(
            "warning: --validate leaves no validation positions in so little data: no subject \
             can be kept (give more positions or a larger --validate)"
        );
    }
}

/// What every verdict of one lab run shares: the subjects, the run's description, K and
/// the data's fingerprint.
pub(crate) struct Judging<'a> {
    pub args: &'a LabArgs,
    pub list: &'a [LabSubject],
    pub header: Vec<String>,
    pub k: f64,
    pub fingerprint: u64,
}

/// The verdict log: its path, the verdicts it holds, and the file to append to.
pub(crate) type VerdictLog = (PathBuf, Finished, std::fs::File);

impl Judging<'_> {
    /// The keep rule of the run.
    pub fn rule(&self) -> KeepRule {
        KeepRule {
            needs_validation: self.args.data.validate.is_some_and(|v| v > 0.0),
            min_relative_gain: self.args.keep_min_drop,
        }
    }

    /// Every subject's verdict: those in the log from before, the rest judged and appended
    /// one by one. Stops early on Ctrl-C.
    pub fn judge_all<M: Model>(
        &self,
        lab: &mut Lab<M>,
        base: &[i32],
        (log_path, done, mut log): VerdictLog,
    ) -> Result<Vec<Verdict>> {
        let interrupted = crate::catch_interrupts()?;
        let (args, n) = (self.args, self.list.len());
        let mut verdicts = Vec::new();
        for (i, subject) in self.list.iter().enumerate() {
            let key = verdict_key(self.fingerprint, base, self.k, args.passes, &subject.name);
            if let Some((_, v)) = done.iter().find(|(k, _)| *k == key) {
                say!("[{}/{n}] {}: done before", i + 1, v.subject);
                verdicts.push(v.clone());
                continue;
            }
            if interrupted.load(Ordering::SeqCst) {
                break;
            }
            let v = lab.judge(subject)?;
            writeln!(log, "{}", verdict_json(&v, &key))
                .and_then(|()| log.flush())
                .with_context(|| format!("cannot write {}", log_path.display()))?;
            print_verdict(args, (i + 1, n), &v);
            verdicts.push(v);
        }
        Ok(verdicts)
    }

    /// The exit: success when every verdict (and proof) is in, 130 after Ctrl-C.
    pub fn exit(&self, judged: usize, complete: bool) -> Result<ExitCode> {
        if complete {
            return Ok(ExitCode::SUCCESS);
        }
        say!(
            "interrupted: {judged} of {} verdicts in {} (proofs keep their finished games); \
             run the same command again to go on",
            self.list.len(),
            self.args.out.join("lab.jsonl").display()
        );
        Ok(ExitCode::from(130))
    }
}

/// Prints verdict `at` of `of`: its gain, where it fires, how long it took.
fn print_verdict(args: &LabArgs, (at, of): (usize, usize), v: &Verdict) {
    let gain = match v.validation_gain().filter(|g| g.is_finite()) {
        Some(g) => format!("gain {g:.3e}"),
        None if args.data.validate.is_some_and(|v| v > 0.0) => {
            "no validation gain (no validation positions)".to_string()
        }
        None => format!("training gain {:.3e}", v.train_gain()),
    };
    say!(
        "[{at}/{of}] {}: {gain} (train {:.3e}), fires in {:.1} %, {:.1}s",
        v.subject,
        v.train_gain(),
        v.share * 100.0,
        v.seconds
    );
}

/// Verdicts finished before, by key.
pub(crate) type Finished = Vec<(String, Verdict)>;

/// Checks the lab's files against its inputs, decides about an earlier lab's verdicts
/// (`--resume` keeps them, `--fresh` deletes them) and opens `OUT/lab.jsonl` for appending:
/// its path, the verdicts it holds, and the file.
pub(crate) fn open_verdicts(args: &LabArgs) -> Result<VerdictLog> {
    let files = ["lab.jsonl", "lab.md", "lab.json"].map(|f| args.out.join(f));
    crate::paths::Files::new()
        .read_all("--epd", &args.data.epd)
        .read("--params", args.data.params.as_deref())
        .write("--out", Some(&files[0]))
        .write("--out", Some(&files[1]))
        .write("--out", Some(&files[2]))
        .write("--apply", args.apply.as_deref())
        .check()?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot make the folder {}", args.out.display()))?;
    let [log_path, ..] = files;
    let rerun = texel_tune::Rerun {
        resume: args.resume,
        fresh: args.fresh,
    };
    let earlier = std::fs::metadata(&log_path).is_ok_and(|m| m.len() > 0);
    crate::resume::decide(rerun, &log_path, earlier, || {
        texel_tune::settings::remove_if_there(&log_path)
    })?;
    let done = finished(&log_path)?;
    let log = texel_files::open_lines_for_append(&log_path)
        .with_context(|| format!("cannot write {}", log_path.display()))?;
    Ok((log_path, done, log))
}

/// The lines that describe the run in the reports.
pub(crate) fn loaded_header<M: Model>(
    loaded: &crate::data_args::Loaded<M>,
    args: &LabArgs,
) -> Vec<String> {
    let files: Vec<String> = args
        .data
        .epd
        .iter()
        .chain(&args.data.traces)
        .map(|p| p.display().to_string())
        .collect();
    let (defaults, zeroed) = match args.data.traces {
        Some(_) => ("the trace's defaults", "candidate"),
        None => ("the table's defaults", "candidate family"),
    };
    vec![
        format!(
            "data: {} ({} training, {} validation positions)",
            files.join(", "),
            loaded.train.len(),
            loaded.validation.len()
        ),
        format!(
            "base: {} with every {zeroed} at 0",
            args.data
                .params
                .as_ref()
                .map_or(defaults.to_string(), |p| p.display().to_string())
        ),
        format!(
            "K {:.4}, at most {} passes per tuning",
            loaded.k, args.passes
        ),
    ]
}

/// Writes lab.md and lab.json.
pub(crate) fn write_reports(
    args: &LabArgs,
    verdicts: &[Verdict],
    rule: &KeepRule,
    header: &[String],
    proofs: &Proofs,
) -> Result<()> {
    let md = args.out.join("lab.md");
    write_atomically(&md, markdown(verdicts, rule, header, proofs).as_bytes())
        .with_context(|| format!("cannot write {}", md.display()))?;
    let json = args.out.join("lab.json");
    let text = serde_json::to_string_pretty(&LabReport::new(verdicts, rule, header, proofs))?;
    write_atomically(&json, text.as_bytes())
        .with_context(|| format!("cannot write {}", json.display()))?;
    say!("wrote {} and {}", md.display(), json.display());
    Ok(())
}

/// `--apply`: the base with the kept candidates' values, tuned once more together with the
/// groups they work with; the other candidates at 0.
pub(crate) fn adopt<M: Model>(
    lab: &mut Lab<M>,
    space: LabSpace<'_>,
    base: &M::Values,
    verdicts: &[Verdict],
    rule: &KeepRule,
) -> Result<M::Values> {
    let (start, terms, partners) = apply(space, base, verdicts, rule);
    say!("{} kept candidate terms, the others at 0", terms.len());
    if terms.is_empty() {
        return Ok(start);
    }
    let (tuned, errors) = lab.adopt(&start, &terms, &partners)?;
    let validation = errors
        .validation
        .map_or(String::new(), |v| format!(", validation {v:.8}"));
    say!(
        "kept candidates tuned with their partners: error {:.8}{validation}",
        errors.train
    );
    Ok(tuned)
}
