//! `texel`: Texel-style tuning of a hand-crafted chess evaluation.

/// `println!` that survives a closed stdout (`texel bench tune | head`): see [`say_to_stdout`].
macro_rules! say {
    () => {
        $crate::say_to_stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::say_to_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` that survives a closed stdout: see [`say_to_stdout`].
macro_rules! say_part {
    ($($arg:tt)*) => {
        $crate::say_to_stdout(format_args!($($arg)*))
    };
}

mod allocator;
mod bench;
mod bench_linear;
mod bench_newton;
mod bench_records;
mod compare_cmd;
mod config;
mod converge;
mod convert_cmd;
mod data_args;
mod error_cmd;
mod eval_cmd;
mod explain;
mod guards;
mod import_cmd;
mod lab_cmd;
mod label_cmd;
mod loop_cmd;
mod loop_outside;
mod manpage;
mod match_cmd;
mod max_time;
mod memory;
mod outputs;
mod params_cmd;
mod paths;
mod report_cmd;
mod resume;
mod run_words;
mod selfplay_cmd;
#[cfg(test)]
mod settings_tests;
mod traces_cmd;
mod tune_cmd;
mod tune_show;
mod tune_traces;

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

/// Texel-style tuning toolkit for a hand-crafted chess evaluation.
#[derive(Parser)]
#[command(name = "texel", version, about)]
struct Cli {
    /// Without a command, texel is a UCI engine (as `texel uci`): what GUIs, OpenBench,
    /// fastchess and cutechess start.
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate a position and show every term that fired.
    Eval(eval_cmd::EvalArgs),
    /// List the parameter table.
    Params(params_cmd::ParamsArgs),
    /// Write a parameter file as Rust source (the table) or as JSON.
    Export(params_cmd::ExportArgs),
    /// Measure speed: search nodes/s (default), evaluations and traces/s, tuner throughput.
    Bench(bench::BenchArgs),
    /// Tune parameters on labelled positions (squared W/D/L error; Newton, then an integer polish).
    ///
    /// The default method, `newton`, takes Newton iterations in real values and polishes the
    /// rounded values by coordinate descent; `--method` picks coordinate descent or Adam.
    Tune(Box<config::TuneArgs>),
    /// Show K and the error of a parameter set on labelled positions.
    Error(error_cmd::ErrorArgs),
    /// Judge terms by the error drop they bring (or the rise when they are zeroed).
    Compare(compare_cmd::CompareArgs),
    /// Term lab: judge every candidate family or term (and established terms) at once.
    Lab(Box<lab_cmd::LabArgs>),
    /// Speak UCI on stdin/stdout (for GUIs, match runners and SPSA tuners).
    Uci(UciArgs),
    /// Print the parameters in OpenBench's SPSA input format.
    Spsa(params_cmd::SpsaArgs),
    /// Play a match between parameter sets and UCI engines; report Elo, LOS and SPRT.
    Match(match_cmd::MatchArgs),
    /// Quiet labelled positions from labelled EPD or PGN games.
    Import(import_cmd::ImportArgs),
    /// Labelled positions scored by a stronger UCI engine (a teacher): `ce` and W/D/L on
    /// every line, results and games kept; resumable, sharded.
    Label(Box<label_cmd::LabelArgs>),
    /// Labelled positions from any form texel reads, written as `FEN [1.0] [35]` lines or as
    /// marlinformat or bulletformat records.
    Convert(convert_cmd::ConvertArgs),
    /// Games of the engine against itself or a gauntlet, as PGN with scores and labelled EPD
    Selfplay(Box<selfplay_cmd::SelfplayArgs>),
    /// The Slow Chess loop: own games, import, retune, gated match; resumable
    Loop(Box<loop_cmd::LoopArgs>),
    /// An HTML page with plots of a tuning run, a term lab, a match or a loop
    Report(Box<report_cmd::ReportArgs>),
    /// Print a shell completion script (`texel completions bash > ~/.local/share/bash-completion/completions/texel`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Trace files of any engine's evaluation (docs/trace-format.md): convert between forms.
    #[command(subcommand)]
    Traces(traces_cmd::TracesCommand),
    /// Print the manual page (`texel manpage > texel.1; man ./texel.1`), or write the
    /// pages of texel and of every subcommand (`texel manpage --dir man/man1`).
    Manpage(manpage::ManpageArgs),
}

/// How `texel uci` starts.
#[derive(clap::Args, Default)]
struct UciArgs {
    /// `uci` lists every tunable parameter as a spin option (one per value; SPSA tuners
    /// need them, GUIs and polyglot refuse so many). Also `setoption name ListParams value
    /// true`; a binary built with `make PARAMS=list` lists them by default.
    #[arg(long)]
    list_params: bool,
    /// The table the engine plays (JSON or preset:NAME; also `setoption name Params`): by
    /// default preset:tuned, the best table proven in games; preset:defaults is the untuned
    /// seed table tuning starts from.
    #[arg(long)]
    params: Option<std::path::PathBuf>,
}

/// Whether this binary lists the tunable parameters by default: built with the environment
/// variable `TEXEL_LIST_PARAMS` set (`make EXE=... PARAMS=list`, for OpenBench SPSA).
const LISTS_PARAMS: bool = option_env!("TEXEL_LIST_PARAMS").is_some();

/// `texel uci` (and `texel` alone): the engine on standard input and output, playing
/// `--params` or the best proven table.
fn run_uci(args: &UciArgs) -> anyhow::Result<()> {
    let params = match &args.params {
        Some(path) => texel_eval::Params::load_or_preset(path)?,
        None => texel_eval::params::Preset::Tuned.params(),
    };
    let startup = texel_search::uci::Startup {
        list_params: args.list_params || LISTS_PARAMS,
        params,
    };
    Ok(texel_search::uci::run(
        std::io::stdin().lock(),
        std::io::stdout(),
        startup,
    )?)
}

fn main() -> ExitCode {
    allocator::hand_back_large_blocks();
    if let Some(code) = engine_arguments() {
        return code;
    }
    let matches = <Cli as clap::CommandFactory>::command().get_matches();
    let cli =
        <Cli as clap::FromArgMatches>::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let done = |r: anyhow::Result<()>| r.map(|()| ExitCode::SUCCESS);
    if cli.command.is_none() && std::io::stdin().is_terminal() {
        // A person, not a GUI: say what is waiting (a program driving texel hears nothing).
        eprintln!(
            "texel: a UCI chess engine, waiting for UCI commands (uci, quit); \
             `texel --help` lists the tuning commands"
        );
    }
    let result = match cli.command.unwrap_or(Command::Uci(UciArgs::default())) {
        Command::Eval(args) => done(eval_cmd::run(&args)),
        Command::Params(args) => done(params_cmd::run_list(&args)),
        Command::Export(args) => done(params_cmd::run_export(&args)),
        Command::Bench(args) => done(bench::run(&args)),
        Command::Tune(args) => {
            let given = config::given_flags(matches.subcommand_matches("tune"));
            config::with_config(*args, &given).and_then(|args| tune_cmd::run_tune(&args))
        }
        Command::Error(args) => error_cmd::run_error(&args),
        Command::Compare(args) => compare_cmd::run(&args),
        Command::Lab(args) => lab_cmd::run(&args),
        Command::Uci(args) => done(run_uci(&args)),
        Command::Spsa(args) => done(params_cmd::run_spsa(&args)),
        Command::Match(args) => match_cmd::run(&args),
        Command::Import(args) => done(import_cmd::run(&args)),
        Command::Label(args) => done(label_cmd::run(&args)),
        Command::Convert(args) => done(convert_cmd::run(&args)),
        Command::Selfplay(args) => selfplay_cmd::run(&args),
        Command::Loop(args) => loop_cmd::run(&args),
        Command::Report(args) => done(report_cmd::run(&args)),
        Command::Completions { shell } => {
            // Made in memory first: clap_complete panics on a failed write (a full disk).
            let mut script = Vec::new();
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut cmd, "texel", &mut script);
            done(std::io::Write::write_all(&mut std::io::stdout(), &script).map_err(Into::into))
        }
        Command::Traces(command) => done(traces_cmd::run(&command)),
        Command::Manpage(args) => done(manpage::run(
            &args,
            <Cli as clap::CommandFactory>::command(),
        )),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {err:#}");
            match stopped(&err) {
                true => ExitCode::from(130),
                false => ExitCode::from(2),
            }
        }
    }
}

/// Whether `err` is a tune stopped by Ctrl-C before its run began (reading the positions,
/// on a path): the exit code of an interrupted run, 130.
fn stopped(err: &anyhow::Error) -> bool {
    (err.chain())
        .filter_map(|cause| cause.downcast_ref::<texel_tune::SessionError>())
        .any(explain::is_stop)
}

/// OpenBench's DATAGEN call, `texel "genfens N seed S book <FILE|None>" "quit"`: the
/// positions as `info string genfens <FEN>` lines, then the other arguments as UCI commands
/// (as engines take commands from their arguments). `None` for any other command line.
fn engine_arguments() -> Option<ExitCode> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let request = args.first().filter(|a| a.starts_with("genfens"))?;
    let run = || -> anyhow::Result<()> {
        let request: texel_arena::genfens::GenfensRequest = request.parse()?;
        let fens = texel_arena::genfens::genfens(&request, Default::default())?;
        for fen in fens {
            say!("info string genfens {fen}");
        }
        let rest = args[1..].join("\n");
        texel_search::uci::run(rest.as_bytes(), std::io::stdout(), Default::default())?;
        Ok(())
    };
    Some(match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(2)
        }
    })
}

/// The process's Ctrl-C flag, set by SIGINT once [`catch_interrupts`] ran.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// From now on Ctrl-C sets the returned flag instead of ending the process; long commands
/// stop at their next safe point and keep their work. Any command may call it, once or
/// more (a loop calls the commands it is made of).
pub(crate) fn catch_interrupts() -> anyhow::Result<&'static AtomicBool> {
    static CAUGHT: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    if CAUGHT.get().is_none() {
        ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst))
            .map_err(|e| anyhow::anyhow!("cannot catch Ctrl-C: {e}"))?;
        let _ = CAUGHT.set(());
    }
    Ok(&INTERRUPTED)
}

/// Writes to stdout. A stdout closed by the reader (`| head`) is taken as Ctrl-C: no panic,
/// long commands stop at their next safe point and keep their work, short ones finish.
pub(crate) fn say_to_stdout(text: std::fmt::Arguments) {
    use std::io::Write;
    if std::io::stdout().lock().write_fmt(text).is_err()
        && !INTERRUPTED.swap(true, Ordering::SeqCst)
    {
        eprintln!("note: stdout is closed; stopping at the next safe point, as on Ctrl-C");
    }
}

/// A closed stdout (`texel params | head`) ends the program quietly.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Loads `--params`: a JSON file, or `preset:NAME` (defaults, slow23, gnu87); the table's
/// defaults when absent.
fn load_params(path: Option<&std::path::Path>) -> anyhow::Result<texel_eval::Params> {
    let params = path.map(texel_eval::Params::load_or_preset).transpose()?;
    if let Some(path) = path.filter(|p| names_no_parameter(p)) {
        eprintln!(
            "note: {} names no parameter: the table's defaults are used",
            path.display()
        );
    }
    Ok(params.unwrap_or_default())
}

/// Whether the parameter file `path` is a JSON object without a single key (`{}`).
fn names_no_parameter(path: &std::path::Path) -> bool {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&text)
        .is_ok_and(|map| map.is_empty())
}

/// The threads a command uses: `given` (named by `option`) or every core; more than the
/// machine has cores is capped to them, with a note (a thousand threads would only wait).
pub(crate) fn threads(given: Option<usize>, option: &str) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    match given {
        Some(n) if n > cores => {
            eprintln!("note: {option} {n} is more than the {cores} cores here: using {cores}");
            cores
        }
        Some(n) => n,
        None => cores,
    }
}

/// A progress bar on stderr, hidden when stderr is not a terminal.
/// `count` of a thing in words, `one` of it or `many`: "1 pass", "3 passes".
pub(crate) fn counted(count: u64, (one, many): (&str, &str)) -> String {
    match count {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    }
}

pub(crate) fn progress_bar(len: u64, template: &str) -> ProgressBar {
    let pb = ProgressBar::with_draw_target(
        Some(len),
        if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    pb.set_style(ProgressStyle::with_template(template).expect("valid template"));
    pb
}

/// The settings `T` (a job's flags, clap's `Args`) parsed from `words` alone, every flag
/// not given at its default: how the CLI's settings structs read the defaults written in
/// their flags' declarations.
///
/// # Errors
/// Words that are not such flags, or a required flag missing.
pub(crate) fn parse_flags<T: clap::Args>(words: &[&str]) -> Result<T, clap::Error> {
    #[derive(clap::Parser)]
    struct Flags<T: clap::Args> {
        #[command(flatten)]
        settings: T,
    }
    let words = std::iter::once("texel").chain(words.iter().copied());
    clap::Parser::try_parse_from(words).map(|f: Flags<T>| f.settings)
}
