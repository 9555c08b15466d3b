//! `texel lab`: a front over [`texel_lab::LabJob`] (judge candidate terms and families, and
//! established terms with `--ablate`, by the error they remove; resumable, with ranked
//! Markdown and JSON reports), its proofs in games played by [`texel_loop::GameProver`].
//! With `--traces FILE` the lab works on an outside engine's parameters: those its header
//! marks `"candidate": true` are judged, tuned with the established ones of their `group`.

use crate::data_args::{load_data, DataArgs, Loaded};
use anyhow::Result;
use clap::Args;
use std::path::Path;
use std::process::ExitCode;
use texel_eval::Params;
use texel_lab::{judged_base, LabEvent, LabJob, LabLog, LabSettings, LabSpace, Prover};
use texel_lab::{LabSubject, Verdict};
use texel_loop::{GameProver, ProveSettings};
use texel_run::Rerun;
use texel_solve::error::{samples, take_k};
use texel_solve::Model;

#[derive(Args)]
pub struct LabArgs {
    #[command(flatten)]
    pub(crate) data: DataArgs,
    #[command(flatten)]
    pub(crate) settings: LabSettings,
    /// Continue the lab in `--out`: verdicts already in its lab.jsonl for the same data,
    /// base, K and passes are kept, the rest judged.
    #[arg(long)]
    pub(crate) resume: bool,
    /// Start again although `--out` holds an earlier lab's verdicts (they are deleted).
    #[arg(long, conflicts_with = "resume")]
    pub(crate) fresh: bool,
    #[command(flatten)]
    pub(crate) prove: ProveSettings,
}

pub fn run(args: &LabArgs) -> Result<ExitCode> {
    match &args.data.traces {
        Some(trace) => run_outside(args, trace),
        None => run_table(args),
    }
}

/// The lab on texel's own table: candidates judged against the established table (K is
/// fitted without them), kept ones proven in games with `--prove`.
fn run_table(args: &LabArgs) -> Result<ExitCode> {
    let subjects = args.settings.subjects(LabSpace::Table)?;
    let log = open(args)?;
    let base = crate::load_params(args.data.params.as_deref())?.without_candidates();
    let mut loaded = load_data(&args.data, base.clone())?;
    let prove = ProveSettings {
        prove_threads: Some(crate::threads(args.prove.prove_threads, "--prove-threads")),
        ..args.prove.clone()
    };
    let mut prover = GameProver {
        settings: &prove,
        out: args.settings.out.clone(),
    };
    let prover = args
        .prove
        .prove
        .then_some(&mut prover as &mut dyn Prover<Params>);
    let run = (LabSpace::Table, subjects, base);
    judge(args, run, &mut loaded, log, prover)
}

/// The lab on an outside engine's parameters (`--traces`).
fn run_outside(args: &LabArgs, trace: &Path) -> Result<ExitCode> {
    anyhow::ensure!(
        !args.prove.prove,
        "--prove plays texel's own engine: prove an outside engine's subjects in its own matches"
    );
    let log = open(args)?;
    let (mut loaded, subject) = crate::tune_traces::load_trace(&args.data, trace)?;
    let (space, given) = (subject.space, subject.given);
    let space = LabSpace::Outside(&space);
    let subjects = args.settings.subjects(space)?;
    let base = judged_base_with_k(&args.data, &mut loaded, space, given)?;
    judge(args, (space, subjects, base), &mut loaded, log, None)
}

/// The base of an outside lab ([`judged_base`]), K chosen on it by the one K policy unless
/// `--k` is given.
///
/// # Errors
/// No K can be fitted to the base.
pub(crate) fn judged_base_with_k<M: Model>(
    data: &DataArgs,
    loaded: &mut Loaded<M>,
    space: LabSpace<'_>,
    given: M::Values,
) -> Result<M::Values> {
    let base = judged_base(space, loaded, given);
    if data.k.is_none() {
        let taken = take_k(None, &samples(&loaded.train))?;
        loaded.k = taken.k;
        if let Some(chosen) = taken.chosen {
            say!(
                "with the candidates at 0: {}",
                crate::data_args::k_words(chosen)
            );
        }
        if let Some(warning) = taken.warning {
            say!("{warning}");
        }
    }
    Ok(base)
}

/// Checks the lab's files against its inputs, then opens `OUT/lab.jsonl` deciding about an
/// earlier lab's verdicts (`--resume` keeps them, `--fresh` deletes them).
fn open(args: &LabArgs) -> Result<LabLog> {
    let out = &args.settings.out;
    let files = ["lab.jsonl", "lab.md", "lab.json"].map(|f| out.join(f));
    crate::paths::Files::new()
        .read_all("--epd", &args.data.epd)
        .read("--params", args.data.params.as_deref())
        .write("--out", Some(&files[0]))
        .write("--out", Some(&files[1]))
        .write("--out", Some(&files[2]))
        .write("--apply", args.settings.apply.as_deref())
        .check()?;
    let rerun = Rerun {
        resume: args.resume,
        fresh: args.fresh,
    };
    let (log, did) = texel_lab::LabLog::open(out, rerun)?;
    crate::resume::say_rerun(did, log.path());
    Ok(log)
}

/// Runs the lab job on `loaded` and says what it does; the exit code.
fn judge<M: Model>(
    args: &LabArgs,
    (space, subjects, base): (LabSpace<'_>, Vec<LabSubject>, M::Values),
    loaded: &mut Loaded<M>,
    log: LabLog,
    prover: Option<&mut dyn Prover<M::Values>>,
) -> Result<ExitCode> {
    let validate = args.data.validate.is_some_and(|v| v > 0.0);
    if validate && loaded.validation.len() == 0 {
        eprintln!(
            "warning: --validate leaves no validation positions in so little data: no subject \
             can be kept (give more positions or a larger --validate)"
        );
    }
    let files: Vec<_> = args
        .data
        .epd
        .iter()
        .chain(&args.data.sources)
        .chain(&args.data.traces)
        .cloned()
        .collect();
    let header = texel_lab::header(
        &files,
        args.data.params.as_deref(),
        space,
        loaded,
        args.settings.passes,
    );
    let job = LabJob {
        settings: args.settings.clone(),
        needs_validation: validate,
        space,
        subjects,
        base,
        header,
    };
    let interrupt = crate::catch_interrupts()?;
    let outcome = job.run(log, loaded, prover, interrupt, &mut |e| {
        say_event(&e, validate)
    })?;
    if outcome.complete {
        return Ok(ExitCode::SUCCESS);
    }
    say!(
        "interrupted: {} of {} verdicts in {} (proofs keep their finished games); run the same \
         command with --resume to go on",
        outcome.verdicts.len(),
        job.subjects.len(),
        args.settings.out.join("lab.jsonl").display()
    );
    Ok(ExitCode::from(130))
}

/// Prints one step of the lab.
fn say_event(event: &LabEvent, validate: bool) {
    match event {
        LabEvent::Verdict {
            at,
            of,
            verdict,
            before: true,
        } => say!("[{at}/{of}] {}: done before", verdict.subject),
        LabEvent::Verdict {
            at,
            of,
            verdict,
            before: false,
        } => say_verdict((*at, *of), verdict, validate),
        LabEvent::Reports { markdown, json } => {
            say!("wrote {} and {}", markdown.display(), json.display());
        }
        LabEvent::Proved { subject, proof } => {
            let [games, elo, llr, words] = proof.cells();
            say!("{subject}: {games} in games, {elo} Elo, LLR {llr}: {words}");
        }
        LabEvent::Adopting { terms } => say!("{terms} kept candidate terms, the others at 0"),
        LabEvent::Adopted { errors } => {
            let validation = errors
                .validation
                .map_or(String::new(), |v| format!(", validation {v:.8}"));
            say!(
                "kept candidates tuned with their partners: error {:.8}{validation}",
                errors.train
            );
        }
        LabEvent::Applied { path } => say!("wrote {}", path.display()),
    }
}

/// Prints verdict `at` of `of`: its gain, where it fires, how long it took.
fn say_verdict((at, of): (usize, usize), v: &Verdict, validate: bool) {
    let gain = match v.validation_gain().filter(|g| g.is_finite()) {
        Some(g) => format!("gain {g:.3e}"),
        None if validate => "no validation gain (no validation positions)".to_string(),
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
