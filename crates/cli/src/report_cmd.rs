//! `texel report`: one HTML page from what a tuning run, a term lab, a match or a loop left
//! behind. `texel tune --report` writes the tune page itself (see [`TuneWatch`]).

use crate::data_args::{load_data, DataArgs};
use anyhow::{Context, Result};
use clap::{ArgGroup, Args};
use std::path::{Path, PathBuf};
use texel_eval::Params;
use texel_report::games::{loop_page, match_page, read_loop_lines};
use texel_report::lab::{lab_page, read_lab};
use texel_report::page::Page;
use texel_report::tune::{group_gains, PassPoint, StartView, TuneReport};
use texel_solve::error::samples;
use texel_solve::{Model, Values};
use texel_tune::texel_trace::ParamSpace;

#[derive(Args, Clone)]
#[command(group(ArgGroup::new("kind").required(true).args(["tune_log", "lab", "match_pgn", "loop_dir"])))]
pub struct ReportArgs {
    /// The page to write (HTML, self-contained).
    #[arg(long)]
    pub out: PathBuf,
    /// A tune run's log (`texel tune --log`); give the data, `--params` (the start) and
    /// `--tuned`.
    #[arg(long)]
    pub tune_log: Option<PathBuf>,
    /// The tuned parameters of the run (with --tune-log).
    #[arg(long, requires = "tune_log")]
    pub tuned: Option<PathBuf>,
    /// A term lab's report (`lab.json`, or the folder that holds it).
    #[arg(long)]
    pub lab: Option<PathBuf>,
    /// A match's PGN (`texel match --pgn`).
    #[arg(long = "match")]
    pub match_pgn: Option<PathBuf>,
    /// The match's SPRT, as `texel match --sprt` (draws the log-likelihood ratio pair by
    /// pair).
    #[arg(
        long,
        requires = "match_pgn",
        allow_hyphen_values = true,
        value_name = "ELO0,ELO1[,MODEL]"
    )]
    pub sprt: Option<texel_arena::sprt::SprtTest>,
    /// A loop's folder (`texel loop --dir`).
    #[arg(long = "loop")]
    pub loop_dir: Option<PathBuf>,
    #[command(flatten)]
    pub data: DataArgs,
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

fn write(page: &Page, out: &Path) -> Result<()> {
    page.write(out)
        .with_context(|| format!("cannot write {}", out.display()))?;
    say!("wrote {}", out.display());
    Ok(())
}

pub fn run(args: &ReportArgs) -> Result<()> {
    crate::paths::Files::new()
        .read("--tune-log", args.tune_log.as_deref())
        .read("--tuned", args.tuned.as_deref())
        .read("--lab", args.lab.as_deref())
        .read("--match", args.match_pgn.as_deref())
        .read_all("--epd", &args.data.epd)
        .read("--traces", args.data.traces.as_deref())
        .read("--params", args.data.params.as_deref())
        .write("--out", Some(&args.out))
        .check()?;
    if let Some(dir) = &args.loop_dir {
        for file in ["loop.jsonl", "best.json"] {
            crate::paths::Files::new()
                .read("--loop", Some(&dir.join(file)))
                .write("--out", Some(&args.out))
                .check()?;
        }
    }
    let page = if let Some(log) = &args.tune_log {
        tune_report(args, log)?
    } else if let Some(lab) = &args.lab {
        let file = if lab.is_dir() {
            lab.join("lab.json")
        } else {
            lab.clone()
        };
        let (about, rows) = read_lab(&read(&file)?).with_context(|| file.display().to_string())?;
        lab_page(&format!("Term lab: {}", file.display()), &about, &rows)?
    } else if let Some(pgn) = &args.match_pgn {
        let games = texel_arena::results::games(&read(pgn)?);
        let sprt = args.sprt;
        let about = [format!("{} games from {}", games.len(), pgn.display())];
        match_page(&format!("Match: {}", pgn.display()), &about, &games, sprt)?
    } else if let Some(dir) = &args.loop_dir {
        loop_report(dir)?
    } else {
        unreachable!("clap requires one kind of report")
    };
    write(&page, &args.out)
}

fn loop_report(dir: &Path) -> Result<Page> {
    let lines = dir.join("loop.jsonl");
    let mut rounds =
        read_loop_lines(&read(&lines)?).with_context(|| lines.display().to_string())?;
    anyhow::ensure!(
        !rounds.is_empty(),
        "{}: no finished round in loop.jsonl",
        dir.display()
    );
    for r in &mut rounds {
        let pgn = dir.join(format!("round-{:02}", r.round)).join("gate.pgn");
        if let Ok(text) = std::fs::read_to_string(&pgn) {
            let games = texel_arena::results::games(&text);
            r.gate_points = games.iter().filter_map(|g| g.points_of("tuned")).collect();
        }
    }
    let rounds_word = match rounds.len() {
        1 => "round",
        _ => "rounds",
    };
    let about = [format!(
        "{} {rounds_word} in {}",
        rounds.len(),
        dir.display()
    )];
    Ok(loop_page(
        &format!("Loop: {}", dir.display()),
        &about,
        &rounds,
    )?)
}

fn tune_report(args: &ReportArgs, log: &Path) -> Result<Page> {
    let tuned_path = args
        .tuned
        .as_deref()
        .context("--tune-log needs --tuned FILE")?;
    if let Some(trace) = &args.data.traces {
        let (mut loaded, subject) = crate::tune_traces::load_trace(&args.data, trace)?;
        let (space, start) = (subject.space, subject.given);
        let tuned = space.read_values(tuned_path)?;
        let about = about(&args.data, loaded.k);
        let mut watch = TuneWatch::new(&loaded.train, space, &start, loaded.k, about);
        read_run(&mut watch, log, loaded.fingerprint)?;
        loaded.train.rescore(&tuned);
        return watch.finished(&mut loaded.train, &tuned);
    }
    let tuned = crate::load_params(Some(tuned_path))?;
    let start = crate::load_params(args.data.params.as_deref())?;
    let mut loaded = load_data(&args.data, start.clone())?;
    let space = texel_eval::params::param_space();
    let about = about(&args.data, loaded.k);
    let mut watch = TuneWatch::new(&loaded.train, space, &start, loaded.k, about);
    read_run(&mut watch, log, loaded.fingerprint)?;
    loaded.train.rescore(&tuned);
    watch.finished(&mut loaded.train, &tuned)
}

/// Into `watch`, the run the tune log `log` kept on the data of fingerprint `data`: its
/// passes, its paths, the pull its path chose and the pass whose values it wrote.
fn read_run<V>(watch: &mut TuneWatch<V>, log: &Path, data: u64) -> Result<()> {
    watch.passes = passes_of(log, data)?;
    (watch.path, watch.lambdas) = paths_of(log)?;
    let walked = texel_tune::Walking::<()> {
        solved: watch.path.0.clone(),
        ..Default::default()
    };
    watch.pull = walked.judged().0.map(|i| watch.path.0[i].l2);
    watch.written = texel_tune::log::read_written_pass(&read(log)?);
    Ok(())
}

/// The passes of the tune log `log`, refused when they were tuned on other data than the
/// data given (its fingerprint `data`); a log written before texel recorded the data is
/// read with a note.
fn passes_of(log: &Path, data: u64) -> Result<Vec<PassPoint>> {
    let text = read(log)?;
    let lines = texel_tune::log::read_tune_log(&text).with_context(|| log.display().to_string())?;
    let given = texel_tune::log::data_id(data);
    match lines.iter().find_map(|p| p.data.as_ref()) {
        Some(id) if *id != given => anyhow::bail!(
            "{} is the log of a run on other data (fingerprint {id}) than the data given \
             ({given}): give the --epd (or --traces) and --validate the run tuned on",
            log.display()
        ),
        Some(_) => {}
        None => eprintln!(
            "note: {} was written before tune logs recorded their data: not checked against \
             the data given",
            log.display()
        ),
    }
    Ok(texel_report::tune::pass_points(&lines))
}

/// The paths of pulls and of λs the latest run of the tune log `log` walked, if it walked
/// them.
fn paths_of(log: &Path) -> Result<(Pulls, Lambdas)> {
    let text = read(log)?;
    let pulls = texel_tune::log::read_tune_path(&text);
    let lambdas = texel_tune::log::read_tune_lambdas(&text);
    let read = pulls.and_then(|p| lambdas.map(|l| (p, l)));
    read.with_context(|| log.display().to_string())
}

/// A path of pulls and the start's held-out error.
type Pulls = (Vec<texel_tune::PullPoint>, Option<f64>);

/// A path of λs and the λ chosen.
type Lambdas = (Vec<texel_tune::LambdaPoint>, Option<f64>);

/// Lines about the data of a run.
pub fn about(data: &DataArgs, k: f64) -> Vec<String> {
    let files: Vec<String> = match &data.traces {
        Some(trace) => vec![format!("the trace {}", trace.display())],
        None => data.epd.iter().map(|p| p.display().to_string()).collect(),
    };
    vec![
        format!("data: {}", files.join(", ")),
        format!(
            "start: {}; K {k:.4}",
            data.params
                .as_ref()
                .map_or("the table's defaults".into(), |p| p.display().to_string())
        ),
    ]
}

/// What a tune page needs from the start of a run, and the passes so far.
#[derive(Clone)]
pub struct TuneWatch<V = Params> {
    space: ParamSpace,
    start: V,
    before: StartView,
    k: f64,
    about: Vec<String>,
    /// The passes so far.
    pub passes: Vec<PassPoint>,
    /// The path of pulls walked (`--l2 auto`) and the start's held-out error.
    pub path: (Vec<texel_tune::PullPoint>, Option<f64>),
    /// The path of λs walked (`--lambda auto`) and the λ chosen.
    pub lambdas: (Vec<texel_tune::LambdaPoint>, Option<f64>),
    /// The pull the path of pulls chose.
    pub pull: Option<f64>,
    /// What the run chose, in words: what was held out, the pull, the λ, the values
    /// written.
    pub choices: Vec<String>,
    /// The pass whose values were written (0: the start), once the run ended.
    pub written: Option<usize>,
}

impl<V: Values> TuneWatch<V> {
    /// Taken before the run, with `train` scored with `start`, values of `space`.
    pub fn new<M: Model<Values = V>>(
        train: &M,
        space: ParamSpace,
        start: &V,
        k: f64,
        about: Vec<String>,
    ) -> TuneWatch<V> {
        TuneWatch {
            space,
            start: start.clone(),
            before: StartView::new(&samples(train), k),
            k,
            about,
            passes: Vec::new(),
            path: (Vec::new(), None),
            lambdas: (Vec::new(), None),
            pull: None,
            choices: Vec::new(),
            written: None,
        }
    }

    /// The page while the run goes on, `train` scored with `now`.
    pub fn during<M: Model<Values = V>>(&self, train: &M, now: &V) -> Result<Page> {
        Ok(self.report(train, now).page("Tuning run (in progress)")?)
    }

    /// The page of the finished run, with the error each group removed; `train` is scored
    /// with `tuned` and left so.
    pub fn finished<M: Model<Values = V>>(&self, train: &mut M, tuned: &V) -> Result<Page> {
        let mut report = self.report(train, tuned);
        let gains = group_gains(train, &self.space, &self.start, tuned, self.k);
        report.group_gains = Some(gains);
        Ok(report.page("Tuning run")?)
    }

    fn report<M: Model<Values = V>>(&self, train: &M, now: &V) -> TuneReport {
        let values = (self.start.values(), now.values());
        let mut report = TuneReport::new(train, &self.before, &self.space, values, self.k);
        report.about = self.about.clone();
        report.about.extend(self.choices.iter().cloned());
        report.about.push(format!("{} passes", self.passes.len()));
        report.about.extend(self.written.map(|pass| {
            match pass {
                0 => "values written: those the passes began from (no pass beat their validation \
                  error)"
                    .to_string(),
                pass => format!("values written: pass {pass}'s, the lowest validation error"),
            }
        }));
        report.passes = self.passes.clone();
        report.path = self.path.clone();
        report.lambdas = self.lambdas.clone();
        (report.pull, report.written) = (self.pull, self.written);
        report
    }
}
