//! The options every command that reads labelled positions shares, and the loading they
//! drive: training and validation sets, traced, with K.

use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;
use texel_data::HeldOut;
use texel_data::{LabelFormat, LabelReading};
use texel_dataset::{Blend, Dataset, LoadOptions, TableSubject};
use texel_eval::Params;
use texel_solve::error::mean_error;
use texel_solve::{Model, Variable};
use texel_tune::{Lambda, Subject};

/// Options shared by every command that reads labelled positions (in a tuning config, keys
/// of the same names).
#[derive(Args, Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct DataArgs {
    /// Labelled EPD/FEN files (label formats: c9 "1-0"; [1.0]; 1-0; 0.5; 1.0 35; FEN; w/d/b); repeatable.
    #[arg(long)]
    pub epd: Vec<PathBuf>,
    /// A sources file (JSON, docs/data-formats.md): several files of positions mixed, each
    /// in its own form and label side, capped, filtered and weighted, and an optional phase
    /// distribution; instead of --epd.
    #[arg(long, conflicts_with_all = ["epd", "traces", "stm_labels", "labels", "label_format"])]
    pub sources: Option<PathBuf>,
    /// A trace of another engine's evaluation (docs/trace-format.md, text or binary) to tune
    /// instead of texel's table; `--params` then names a JSON file of its values.
    #[arg(long, conflicts_with_all = ["epd", "stm_labels", "labels", "allow_bad"])]
    pub traces: Option<PathBuf>,
    /// The labels score the side to move instead of white (the same as `--labels stm`).
    #[arg(long)]
    pub stm_labels: bool,
    /// Whose view the labels (and scores) take: `white` (the default) or `stm`, the side to
    /// move's (gedas_filtered_sf_d9 and other `FEN; 1.0` sets).
    #[arg(long, value_enum, value_name = "SIDE", conflicts_with = "stm_labels")]
    pub labels: Option<LabelSide>,
    /// Read every line's label in this format instead of detecting it line by line (for a
    /// file whose labels would be read as another form); `marlin` and `bullet` read
    /// marlinformat's and bulletformat's 32-byte binary records (a position, its score and
    /// its game's result), `viri` viriformat's games (every position before a move, with
    /// the move's score). `--format` is the same flag.
    #[arg(
        long,
        visible_alias = "format",
        value_name = "FORM",
        value_parser = label_format_names(),
        conflicts_with = "traces"
    )]
    pub label_format: Option<String>,
    /// Go on when more than 1% of the lines are bad.
    #[arg(long)]
    pub allow_bad: bool,
    /// Hold out this percentage (0 to 50) for validation: of the games, where the positions
    /// name theirs (`game N;`), and of the other positions one by one. Default: 10 % of the
    /// games, and none of the positions that name no game.
    #[arg(allow_negative_numbers = true, long, value_name = "PERCENT")]
    pub validate: Option<f64>,
    /// Starting parameter file (JSON); the table's defaults when absent.
    #[arg(long)]
    pub params: Option<PathBuf>,
    /// Fix K instead of fitting it.
    #[arg(allow_negative_numbers = true, long)]
    pub k: Option<f64>,
    /// The base of the sigmoid --k is written for: 10 (texel's, 1 / (1 + 10^(−K·q/400))) or
    /// e (texel-tuner's and many engines' scripts, 1 / (1 + e^(−K·q/400)); read as K / ln 10).
    #[arg(long, value_enum, default_value_t = KBase::Ten, requires = "k")]
    pub k_base: KBase,
    /// Tune each position toward λ · result + (1 − λ) · p, its game result mixed with the
    /// engine's own win probability p: a trace's "score", or σ(K · score) for EPD lines that
    /// carry their engine's score (`ce 35;`, which `texel import` writes from the games'
    /// score comments, or a score beside the result: `[1.0] [35]`, `1.0 35`; K is --k, or
    /// the one at which the scores best predict the results).
    /// Positions without a score keep their result; held-out positions are always judged by
    /// their results. 1: results alone; auto: where every position carries a score and
    /// positions are held out, the path of λs (1, 0.75, 0.5, 0.25, 0) each judged on the
    /// held-out results, the best taken; 0.25 where nothing is held out (or streamed); 1
    /// where some position has no score.
    #[arg(allow_negative_numbers = true, long, value_name = "λ|auto", default_value_t = Lambda::Auto)]
    pub lambda: Lambda,
    /// Worker threads (default: all cores).
    #[arg(allow_negative_numbers = true, long)]
    pub threads: Option<usize>,
}

/// The base of the sigmoid a given K is written for.
#[derive(
    Copy,
    Clone,
    Debug,
    Default,
    PartialEq,
    Eq,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
pub enum KBase {
    /// texel's: `1 / (1 + 10^(−K·q/400))`.
    #[default]
    #[value(name = "10")]
    #[serde(rename = "10")]
    Ten,
    /// `1 / (1 + e^(−K·q/400))`: the same curve at `K / ln 10` in base 10.
    #[value(name = "e")]
    #[serde(rename = "e")]
    E,
}

impl DataArgs {
    /// `--k` in texel's base 10.
    pub fn k10(&self) -> Option<f64> {
        self.k.map(|k| match self.k_base {
            KBase::Ten => k,
            KBase::E => k / std::f64::consts::LN_10,
        })
    }
}

/// Loaded data: training and validation sets, K and the fingerprint.
pub type Loaded<M = Dataset> = texel_tune::TuneData<M>;

/// The most `--validate` holds out: beyond half, the training set is the smaller one.
const MAX_VALIDATE: f64 = 50.0;

/// The largest `--k` taken.
const MAX_K: f64 = 100.0;

/// Checks the numeric options of the data arguments.
pub fn check_ranges(args: &DataArgs) -> Result<()> {
    if let Some(v) = args.validate {
        anyhow::ensure!(
            (0.0..=MAX_VALIDATE).contains(&v),
            "--validate takes a percentage from 0 to {MAX_VALIDATE} (the positions held out \
             from training), not {v}"
        );
    }
    if let Some(k) = args.k {
        anyhow::ensure!(
            k.is_finite() && k > 0.0 && k <= MAX_K,
            "--k must be above 0 and at most {MAX_K}, not {k} (texel's own K is about 1.1; \
             at {MAX_K} four centipawns already read as a decided game)"
        );
    }
    anyhow::ensure!(args.threads != Some(0), "--threads must be at least 1");
    Ok(())
}

/// Loads and traces the positions of `args` with `params`, prints what was read, and fits
/// K unless it is given.
pub fn load_data(args: &DataArgs, params: Params) -> Result<Loaded> {
    check_ranges(args)?;
    crate::paths::Files::new()
        .read_all("--epd", &args.epd)
        .check()?;
    start_threads(args)?;
    let subject = table_subject(args, params, Vec::new(), None)?;
    load_subject(&subject, &subject.given, args.k10())
}

/// The names `--label-format` takes: every label format texel reads, then the binary
/// forms (`marlin`, `bullet`, `viri`).
pub(crate) fn label_format_names() -> clap::builder::PossibleValuesParser {
    LabelFormat::GIVEN.map(LabelFormat::name).into()
}

/// Whose view labels take (`--labels`).
#[derive(
    clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum LabelSide {
    /// White's: 1 is a white win, whoever is to move.
    White,
    /// The side to move's: 1 is a win for the side to move.
    Stm,
}

/// How labels are read, from `--stm-labels` or `--labels`, and `--label-format` (a name
/// [`label_format_names`] let through).
pub(crate) fn label_reading(
    stm_labels: bool,
    labels: Option<LabelSide>,
    format: Option<&str>,
) -> LabelReading {
    LabelReading {
        stm: stm_labels || labels == Some(LabelSide::Stm),
        format: format.and_then(LabelFormat::named),
    }
}

/// texel's table on the positions of `args`, tuning `vars` from `params` (`rust`: where the
/// tuned table also goes as Rust source).
pub fn table_subject(
    args: &DataArgs,
    params: Params,
    vars: Vec<Variable>,
    rust: Option<PathBuf>,
) -> Result<TableSubject> {
    let mix = args.sources.as_deref().map(survey).transpose()?;
    if args.epd.is_empty() && mix.is_none() {
        anyhow::bail!(
            "no labelled positions: give --epd FILE or --sources FILE (or \"epd\" in --config)"
        );
    }
    Ok(TableSubject {
        files: mix.as_ref().map_or_else(|| args.epd.clone(), |m| m.paths()),
        options: LoadOptions {
            mix: mix.map(std::sync::Arc::new),
            labels: label_reading(args.stm_labels, args.labels, args.label_format.as_deref()),
            held_out: held_out(args),
            allow_bad: args.allow_bad,
            blend: Blend {
                lambda: args.lambda,
                k: args.k10(),
            },
        },
        given: params,
        vars,
        rust,
    })
}

/// Reads and surveys a sources file, saying what each source gives.
fn survey(path: &std::path::Path) -> Result<texel_dataset::Mix> {
    let file = texel_dataset::SourcesFile::read(path)?;
    let files: Vec<&std::path::Path> = file.sources.iter().map(|s| s.path.as_path()).collect();
    let mut check = crate::paths::Files::new();
    for f in &files {
        check = check.read("a source", Some(f));
    }
    check.check()?;
    let mix = texel_dataset::Mix::survey(&file).map_err(crate::explain::explain_load)?;
    say!("sources of {}:", path.display());
    for taken in &mix.taken {
        say!("  {taken}");
    }
    Ok(mix)
}

/// What `--validate` holds out (the library's default without it: [`HeldOut::asked`]).
pub fn held_out(args: &DataArgs) -> HeldOut {
    HeldOut::asked(args.validate)
}

/// Reads the positions of `subject` scored with `start` (a bar while EPD is read), prints
/// what was read, and fits K unless `k` is given.
pub fn load_subject<S: Subject>(
    subject: &S,
    start: &<S::Model as Model>::Values,
    k: Option<f64>,
) -> Result<Loaded<S::Model>> {
    let pb = match subject.bytes() {
        0 => indicatif::ProgressBar::hidden(),
        bytes => crate::progress_bar(
            bytes,
            "loading {bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
        ),
    };
    let never = std::sync::atomic::AtomicBool::new(false);
    let loaded = texel_tune::load_data(subject, start, k, &never, &|b| pb.set_position(b));
    pb.finish_and_clear();
    let loaded = loaded.map_err(|e| crate::explain::explain(e, subject.bytes() > 0))?;
    say!("{}", loaded.about);
    if let Some(chosen) = loaded.chosen_k {
        say!("{}", k_words(chosen));
    }
    Ok(loaded.data)
}

/// How K was chosen, in words, with the flag that chooses it instead where it was a
/// convention.
pub fn k_words(chosen: texel_solve::error::KChoice) -> String {
    match chosen {
        texel_solve::error::KChoice::Fitted(_) => chosen.describe(),
        texel_solve::error::KChoice::Conventional(_) => {
            format!("{}; --k chooses another", chosen.describe())
        }
    }
}

/// Starts the worker threads `--threads` asks for (all cores when absent).
pub fn start_threads(args: &DataArgs) -> Result<()> {
    if args.threads.is_some() {
        rayon::ThreadPoolBuilder::new()
            .num_threads(crate::threads(args.threads, "--threads"))
            .build_global()
            .context("cannot start threads")?;
    }
    Ok(())
}

/// Prints `label: K .. error .. validation ..` for the data as scored now.
pub fn print_errors<M: Model>(l: &Loaded<M>, label: &str) {
    let validation = (l.validation.len() > 0).then(|| mean_error(&l.validation, l.k));
    say_errors(label, l.k, mean_error(&l.train, l.k), validation);
}

/// The line of a run's K and errors (`start:`, `end:`), in memory or streamed alike.
pub fn say_errors(label: &str, k: f64, train: f64, validation: Option<f64>) {
    say_part!("{label}: K {k:.4}  error {train:.8}");
    if let Some(v) = validation {
        say_part!("  validation {v:.8}");
    }
    say!();
}
