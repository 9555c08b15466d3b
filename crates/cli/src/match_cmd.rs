//! `texel match`: games between parameter sets and UCI engines, with Elo and SPRT.

use anyhow::{bail, Context, Result};
use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use texel_arena::elo::Sprt;
use texel_arena::engine::{EngineSpec, Kind};
use texel_arena::game::Adjudication;
use texel_arena::openings::read_openings;
use texel_arena::sprt::SprtTest;
use texel_arena::{run_match, MatchOptions, MatchReport, Progress};

/// Every setting of `texel match`; as a serde record, each field is a key named like its
/// flag (`engine` for `--engine`); keys left out take the flag's default, and `engine` must
/// be given.
#[derive(Args, serde::Serialize, serde::Deserialize)]
#[serde(default = "MatchArgs::without_engines", deny_unknown_fields)]
pub struct MatchArgs {
    /// An engine: `name=N,params=P.json|preset:NAME` (texel) or `name=N,cmd=PATH[,arg=A][,option.NAME=V]`
    /// (UCI), with optional `tc=5+0.05`, `nodes=N`, `depth=N`, `st=SECONDS`, `hash=MB`, and
    /// `timeout=SECONDS`: under `nodes=` or `depth=`, an engine that gives no move for so
    /// long forfeits the game (default 60).
    /// The first engine plays all others (gauntlet). Repeatable.
    #[arg(long = "engine", required = true)]
    #[serde(rename = "engine")]
    engines: Vec<String>,
    /// Settings for every engine that does not set them itself (e.g. `tc=5+0.05`).
    #[arg(long)]
    each: Option<String>,
    /// Games per pairing (each opening is played twice, colours swapped).
    #[arg(allow_negative_numbers = true, long, default_value_t = 2)]
    games: u32,
    /// Games played at once.
    #[arg(allow_negative_numbers = true, long, default_value_t = 1)]
    concurrency: usize,
    /// Openings: an EPD/FEN file or a PGN file of opening lines.
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Random plies played after each opening (at most 100: past that the games start
    /// from positions no game reaches and say nothing of either engine).
    #[arg(allow_negative_numbers = true, long, default_value_t = 0,
          value_parser = clap::value_parser!(u32).range(..=100))]
    random_plies: u32,
    /// Seed of the opening order and random plies.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Append every game to this PGN file.
    #[arg(long)]
    pgn: Option<PathBuf>,
    /// Run an SPRT of H0 (gain ELO0) against H1 (ELO1), α = β = 0.05, and stop when it
    /// decides: on colour-swapped game pairs (pentanomial), on single games where both sides
    /// play alike. MODEL: `logistic` (the default) or `normalized` Elo (fastchess, OpenBench).
    #[arg(allow_hyphen_values = true, long, value_name = "ELO0,ELO1[,MODEL]")]
    sprt: Option<SprtTest>,
    /// Every engine plays every other instead of a gauntlet.
    #[arg(long)]
    round_robin: bool,
    /// Adjudicate a win when both engines agree on at least CP for PLIES plies.
    #[arg(long, value_name = "CP,PLIES")]
    resign: Option<String>,
    /// Adjudicate a draw when both scores stay within CP for PLIES plies after ply AFTER.
    #[arg(long, value_name = "CP,PLIES,AFTER")]
    draw: Option<String>,
    /// Draw after this many plies.
    #[arg(allow_negative_numbers = true, long, default_value_t = 600)]
    max_plies: u32,
}

impl MatchArgs {
    /// Every flag at its default, no engine named.
    fn without_engines() -> MatchArgs {
        let defaults: MatchArgs =
            crate::parse_flags(&["--engine", "name=a"]).expect("valid defaults");
        MatchArgs {
            engines: Vec::new(),
            ..defaults
        }
    }
}

pub(crate) fn numbers<T: std::str::FromStr>(text: &str, what: &str, n: usize) -> Result<Vec<T>> {
    let v: Vec<T> = text
        .split(',')
        .map(|x| x.trim().parse().ok())
        .collect::<Option<_>>()
        .with_context(|| format!("bad {what} {text:?}"))?;
    if v.len() != n {
        bail!("{what} takes {n} numbers, not {text:?}");
    }
    Ok(v)
}

/// The match options the arguments describe.
fn options(args: &MatchArgs) -> Result<MatchOptions> {
    anyhow::ensure!(args.games > 0, "--games must be at least 1");
    anyhow::ensure!(args.max_plies > 0, "--max-plies must be at least 1");
    anyhow::ensure!(args.concurrency > 0, "--concurrency must be at least 1");
    let engines = args
        .engines
        .iter()
        .map(|e| EngineSpec::parse(e, args.each.as_deref()))
        .collect::<Result<Vec<_>, _>>()?;
    let mut files = crate::paths::Files::new().read("--openings", args.openings.as_deref());
    for e in &engines {
        files = match &e.kind {
            Kind::BuiltIn { params } => files.read("params=", params.as_deref()),
            Kind::Uci { cmd, .. } => files.read("cmd=", Some(cmd)),
        };
    }
    files.write("--pgn", args.pgn.as_deref()).check()?;
    for e in &engines {
        if let Kind::BuiltIn { params: Some(p) } = &e.kind {
            texel_eval::Params::load_or_preset(p)?;
        }
    }
    let openings = match &args.openings {
        Some(p) => read_openings(p)?,
        None => Vec::new(),
    };
    let sprt = args.sprt;
    let resign = args
        .resign
        .as_deref()
        .map(|s| numbers::<i32>(s, "--resign", 2))
        .transpose()?;
    let draw = args
        .draw
        .as_deref()
        .map(|s| numbers::<i32>(s, "--draw", 3))
        .transpose()?;
    Ok(MatchOptions {
        engines,
        round_robin: args.round_robin,
        games: args.games,
        concurrency: crate::threads(Some(args.concurrency), "--concurrency"),
        openings,
        random_plies: args.random_plies,
        seed: args.seed,
        adjudication: Adjudication {
            resign_cp: resign.as_ref().map(|v| v[0]),
            resign_plies: resign.as_ref().map_or(0, |v| v[1] as u32),
            draw_cp: draw.as_ref().map(|v| v[0]),
            draw_plies: draw.as_ref().map_or(0, |v| v[1] as u32),
            draw_after: draw.as_ref().map_or(0, |v| v[2] as u32),
            max_plies: args.max_plies,
        },
        pgn: args.pgn.clone(),
        sprt,
        event: "texel match".into(),
        first_round: 1,
        earlier: Vec::new(),
    })
}

/// The one-line standing after a game.
fn progress_line(p: &Progress) -> String {
    let s = p.pairings.iter().filter(|q| q.score.games() > 0).map(|q| {
        let (e, m) = q.score.elo();
        format!(
            "{} vs {}: +{} ={} -{} ({:+.0} ± {:.0})",
            q.first, q.second, q.score.wins, q.score.draws, q.score.losses, e, m
        )
    });
    format!(
        "game {}/{}: {}",
        p.done,
        p.total,
        s.collect::<Vec<_>>().join("; ")
    )
}

/// Says when `--games` is odd: games come in pairs (each opening with colours swapped), so
/// one more is played than asked for.
pub(crate) fn say_pairs(options: &MatchOptions) {
    let (asked, played) = (options.games, options.games_per_pairing());
    if asked != played {
        say!(
            "note: --games {asked} plays {played}: games come in pairs, each opening with \
             colours swapped"
        );
    }
}

pub fn run(args: &MatchArgs) -> Result<ExitCode> {
    let options = options(args)?;
    say_pairs(&options);
    let interrupt = crate::catch_interrupts()?;
    let live = std::io::stderr().is_terminal();
    let report = run_match(&options, interrupt, &mut |p| {
        let line = progress_line(p);
        if live {
            eprint!("\r{line}   ");
        } else {
            eprintln!("{line}");
        }
    })?;
    if live {
        eprintln!();
    }
    if report.varied > 0 {
        say!(
            "more games than openings: {} starts (of a pair of games, or of one game where \
             both sides play alike) got seeded random plies so that no game repeats",
            report.varied
        );
    }
    print_report(&report);
    if report.interrupted {
        let played: u32 = report.pairings.iter().map(|p| p.score.games()).sum();
        say!("interrupted: {played} finished games counted, the games in flight abandoned");
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}

/// The summary: per pairing the score, Elo by games and by game pairs, LOS; SPRT; endings.
pub(crate) fn print_report(report: &MatchReport) {
    say!(
        "{:<20} {:<20} {:>6} {:>6} {:>6} {:>7} {:>16} {:>16} {:>7}",
        "engine",
        "opponent",
        "wins",
        "draws",
        "losses",
        "score",
        "elo",
        "elo (pairs)",
        "los"
    );
    for p in &report.pairings {
        if p.score.games() == 0 {
            say!("{:<20} {:<20} no finished games", p.first, p.second);
            continue;
        }
        let (e, m) = p.score.elo();
        let pairs = match p.paired {
            true => format!("{:>+8.1} ± {:<5.1}", p.pairs.elo().0, p.pairs.elo().1),
            false => format!("{:>16}", "-"),
        };
        say!(
            "{:<20} {:<20} {:>6} {:>6} {:>6} {:>6.1}% {:>+8.1} ± {:<5.1} {pairs} {:>6.1}%",
            p.first,
            p.second,
            p.score.wins,
            p.score.draws,
            p.score.losses,
            100.0 * p.score.fraction(),
            e,
            m,
            100.0 * p.score.los()
        );
        let [l, dl, d, dw, w] = p.pairs.0;
        match p.paired {
            true => say!("  game pairs by points (0, ½, 1, 1½, 2): {l} {dl} {d} {dw} {w}"),
            false => {
                say!("  games not paired: both sides play alike, so every game has its own start")
            }
        }
    }
    if let Some(s) = report.sprt {
        let (text, llr) = match s {
            Sprt::AcceptH1(l) => ("H1 accepted", l),
            Sprt::AcceptH0(l) => ("H0 accepted", l),
            Sprt::Continue(l) => ("undecided", l),
        };
        say!("SPRT: LLR {llr:.3} (bounds -2.944, 2.944): {text}");
    }
    say!("terminations:");
    for (reason, n) in &report.terminations {
        say!("  {n:>5}  {reason}");
    }
}
