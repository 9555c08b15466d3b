//! `texel bench`: search nodes per second, evaluations and traces per second, tuner speed.

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;
use texel_eval::{evaluate, parse_fen, Params, Trace, Tracer};
use texel_solve::Method;

/// 2,000 varied positions sampled from engine games (`data/positions.fen`), one FEN per
/// line: the default input of `texel bench eval`, built into the binary.
const SAMPLE_POSITIONS: &str = include_str!("../../../data/positions.fen");

#[derive(Clone, Copy, ValueEnum)]
enum Target {
    /// Search speed: fixed positions to a fixed depth; prints `N nodes N nps`.
    Search,
    /// Evaluation and trace speed (one thread).
    Eval,
    /// Tuner speed: load and trace, full error pass, coordinate probes, memory.
    Tune,
    /// Importer speed: PGN games/s (5 quiesced positions per game) and EPD quiescing
    /// positions/s.
    Import,
    /// Time to a converged table: tunes the tuner bench data (10 % held out) from the
    /// defaults and prints the time to within 1 % and 0.1 % of the final training error.
    Converge,
    /// Self-play speed: 20 games per thread at 5,000 nodes a move; games/s, positions/s, and
    /// the share of what the search speed allows (nodes/s × threads ÷ nodes per game).
    Selfplay,
    /// Trace loading speed, binary and text forms, on 1,000,000 synthetic positions
    /// (`--repeat` × 66,667 positions).
    Traces,
    /// The default method's cost per iteration (Newton with a fresh Hessian, chord steps,
    /// the polish) on 1,000,000 synthetic positions of the race's shape (`--repeat` × 66,667):
    /// 296 values, 30 coefficients a position.
    Newton,
    /// Adam's cost per epoch (passes of ten epochs in real numbers, with the rounding and
    /// scoring between passes) on the same synthetic positions as `newton`.
    Adam,
    /// Loading speed of the binary forms (marlinformat, bulletformat, viriformat) and of the
    /// same positions as EPD text: the games of `--pgn` written in each, loaded `--repeat`
    /// times.
    Records,
    /// A streamed tune's cost per Newton iteration and polish round (`--stream`: the
    /// positions read back from their tuner form in every pass) on the same synthetic
    /// positions as `newton`.
    Stream,
}

#[derive(Args)]
pub struct BenchArgs {
    /// What to measure.
    #[arg(value_enum, default_value = "search")]
    target: Target,
    /// Depth of the search bench.
    #[arg(long, default_value_t = texel_search::BENCH_DEPTH)]
    depth: u32,
    /// FEN file (one per line); the shipped 2,000 sample positions when absent.
    #[arg(long)]
    positions: Option<PathBuf>,
    /// Passes over the position set (eval).
    #[arg(long, default_value_t = 200, value_parser = at_least_one)]
    rounds: usize,
    /// Labelled positions for the tuner bench, loaded `--repeat` times.
    #[arg(long, default_value = "data/train.epd")]
    epd: PathBuf,
    /// How many times the tuner bench loads its file (15 x 68,439 shipped positions = 1.03M).
    #[arg(long, default_value_t = 15, value_parser = at_least_one)]
    repeat: usize,
    /// Zero every candidate family (the evaluation then skips them).
    #[arg(long)]
    no_candidates: bool,
    /// Parameters to search and evaluate with (JSON); the table's defaults when absent.
    #[arg(long)]
    params: Option<PathBuf>,
    /// Methods of the converge bench, comma-separated (newton: the default method; cd: plain,
    /// --warm-start 0; cd-warm: the warm start on about 1/8, what cd does on 500,000
    /// positions or more).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "newton,cd,cd-warm,adam,adam+cd"
    )]
    methods: Vec<crate::converge::BenchMethod>,
    /// Converge bench: also print the time and training error after every pass.
    #[arg(long)]
    passes: bool,
    /// Games for the import bench.
    #[arg(long, default_value = "data/games.pgn.gz")]
    pgn: PathBuf,
}

/// A count of at least one (`--repeat`, `--rounds`): a bench of nothing measures nothing.
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{text} is not a whole number of at least 1")),
    }
}

/// `--params` or the table's defaults, without the candidate families with
/// `--no-candidates`.
fn bench_params(args: &BenchArgs) -> Result<Params> {
    let params = crate::load_params(args.params.as_deref())?;
    Ok(if args.no_candidates {
        params.without_candidates()
    } else {
        params
    })
}

pub fn run(args: &BenchArgs) -> Result<()> {
    match args.target {
        Target::Search => {
            let r = texel_search::bench(std::sync::Arc::new(bench_params(args)?), args.depth);
            say!("{} nodes {:.0} nps", r.nodes, r.nps());
            Ok(())
        }
        Target::Eval => bench_eval(args),
        Target::Tune => bench_tune(args),
        Target::Import => bench_import(args),
        Target::Selfplay => bench_selfplay(args),
        Target::Traces => crate::traces_cmd::bench(args.repeat * 66_667),
        Target::Records => crate::bench_records::bench(&args.pgn, args.repeat),
        Target::Newton => crate::bench_newton::bench_method(args.repeat * 66_667, Method::Newton),
        Target::Adam => crate::bench_newton::bench_method(args.repeat * 66_667, Method::Adam),
        Target::Stream => crate::bench_newton::bench_stream(args.repeat * 66_667),
        Target::Converge => crate::converge::bench_converge(
            vec![args.epd.clone(); args.repeat],
            &args.methods,
            args.passes,
        ),
    }
}

/// Plays self-play games at 5,000 nodes a move on every thread and compares their rate
/// with what the measured search speed allows.
fn bench_selfplay(args: &BenchArgs) -> Result<()> {
    use texel_arena::engine::{EngineSpec, TimeControl};
    const NODES: u64 = 5_000;
    let params = std::sync::Arc::new(bench_params(args)?);
    let nps = texel_search::bench(params, args.depth).nps();
    let threads = rayon::current_num_threads();
    let dir = tempfile::tempdir()?;
    let json = dir.path().join("params.json");
    bench_params(args)?.save(&json)?;
    let texel =
        |name: &str| EngineSpec::built_in(name, Some(json.clone()), TimeControl::Nodes(NODES));
    let openings = std::path::Path::new("data/openings.epd");
    let options = texel_arena::MatchOptions {
        engines: vec![texel("a"), texel("b")],
        round_robin: false,
        games: 20 * threads as u32,
        concurrency: threads,
        openings: if openings.exists() {
            texel_arena::openings::read_openings(openings)?
        } else {
            Vec::new()
        },
        random_plies: 2,
        seed: 1,
        adjudication: texel_loop::ADJUDICATION,
        pgn: None,
        sprt: None,
        event: "texel bench selfplay".into(),
        first_round: 1,
        earlier: Vec::new(),
    };
    let (mut searched, mut distinct) = (0usize, std::collections::HashSet::new());
    let start = Instant::now();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let report = texel_arena::run_match(&options, &stop, &mut |p| {
        searched += p.last.moves.iter().filter(|m| m.comment.is_some()).count();
        distinct.extend(searched_positions(p.last));
    })?;
    let secs = start.elapsed().as_secs_f64();
    let games = f64::from(report.pairings[0].score.games());
    let allowed = nps * threads as f64 / (searched as f64 / games * NODES as f64);
    say!(
        "selfplay {games} games in {secs:.1}s: {:.2} games/s, {:.0} positions/s, {:.0} distinct \
         positions/s ({threads} threads, {NODES} nodes a move, {:.0} searched moves a game)",
        games / secs,
        searched as f64 / secs,
        distinct.len() as f64 / secs,
        searched as f64 / games
    );
    say!(
        "search speed {nps:.0} nps a thread allows {allowed:.2} games/s: selfplay reaches {:.0} %",
        100.0 * games / secs / allowed
    );
    Ok(())
}

/// The keys of the positions a game's engines searched (after its opening and random
/// plies).
fn searched_positions(game: &texel_arena::game::GameRecord) -> Vec<u64> {
    use shakmaty::Position;
    let mut pos = game.start.clone();
    let mut keys = Vec::new();
    for played in &game.moves {
        if played.comment.is_some() {
            keys.push(texel_search::key(&pos));
        }
        let san = played.san.parse::<shakmaty::san::SanPlus>();
        match san.ok().and_then(|s| s.san.to_move(&pos).ok()) {
            Some(m) => pos.play_unchecked(m),
            None => break,
        }
    }
    keys
}

/// Imports `--pgn` with the default filters and quiesces `--epd`, into a temporary file.
fn bench_import(args: &BenchArgs) -> Result<()> {
    use texel_import::{import_epd, import_pgn, ImportOptions};
    let options = ImportOptions::default();
    let dir = tempfile::tempdir()?;
    let out = dir.path().join("bench-import.epd");
    let start = Instant::now();
    let stats = import_pgn(&args.pgn, &out, &options, &|_| {})?;
    let secs = start.elapsed().as_secs_f64();
    say!(
        "pgn: {} games, {} positions considered, {} kept in {secs:.2} s: {:.0} games/s ({} threads)",
        stats.games,
        stats.considered,
        stats.kept,
        stats.games as f64 / secs,
        rayon::current_num_threads()
    );
    let start = Instant::now();
    let stats = import_epd(&args.epd, &out, &options, &|_| {})?;
    let secs = start.elapsed().as_secs_f64();
    say!(
        "epd: {} positions quiesced in {secs:.2} s: {:.0} positions/s",
        stats.considered,
        stats.considered as f64 / secs
    );
    std::fs::remove_file(&out).with_context(|| out.display().to_string())
}

fn bench_tune(args: &BenchArgs) -> Result<()> {
    use texel_solve::error::{samples, take_k};
    let params = Params::default();
    let mut train = bench_load(args, &params)?;
    let k = take_k(None, &samples(&train))?.k;
    let (pass_secs, rescore_secs) = bench_full_passes(&mut train, &params, k);
    crate::bench_linear::bench_linear_pass(&args.epd, args.repeat, train.len(), rescore_secs)?;
    let vars = texel_dataset::select(&texel_tune::Selection::default())?;
    let n = train.len();
    let mut descent = texel_solve::Descent::new(&mut train, params, k, vars.clone());
    say!(
        "descent    {:>10.1} bytes/position more while tuning (errors, probe buffers)",
        descent.memory_bytes() as f64 / n as f64
    );
    let kinds = probe_times(&mut descent, &vars);
    let ms = |(s, c): (f64, usize)| 1e3 * s / c.max(1) as f64;
    let line = |kind: (f64, usize), name: &str| {
        say!(
            "probe      {:>10.3} ms = {:.1} % of an error pass, {:.2} % of a rescore ({} variables {name})",
            ms(kind),
            100.0 * ms(kind) / 1e3 / pass_secs,
            100.0 * ms(kind) / 1e3 / rescore_secs,
            kind.1
        )
    };
    let names = [
        "in their own column only",
        "read by curves",
        "read by formulas",
    ];
    for (kind, name) in kinds.iter().zip(names) {
        line(*kind, name);
    }
    let all = kinds.iter().fold((0.0, 0), |a, k| (a.0 + k.0, a.1 + k.1));
    line(all, "in all");
    if let Some(peak) = crate::memory::peak_memory() {
        say!(
            "peak       {:>10.1} bytes/position (the process's peak resident memory of the \
             whole bench: loading, passes, the linear trace, probes)",
            peak as f64 / n as f64
        );
    }
    Ok(())
}

/// Positions whose loading steps the tuner bench times apart.
const LOAD_STEP_POSITIONS: usize = 20_000;

/// Loads and traces the bench data (`--epd` repeated `--repeat` times); prints the speed,
/// the time of each step of loading a position, and the memory per position.
fn bench_load(args: &BenchArgs, params: &Params) -> Result<texel_dataset::Dataset> {
    let files = vec![args.epd.clone(); args.repeat];
    let start = Instant::now();
    let options = texel_dataset::LoadOptions::default();
    let (train, _, _) = texel_dataset::load(&files, params, &options, &|_| {})?;
    let load_secs = start.elapsed().as_secs_f64();
    let n = train.len();
    say!("threads {}", rayon::current_num_threads());
    say!(
        "load+trace {:>10.0} positions/s  ({n} positions in {load_secs:.2}s)",
        n as f64 / load_secs
    );
    let steps = texel_dataset::load_phases(&args.epd, params, LOAD_STEP_POSITIONS)?;
    let us = |d: std::time::Duration| d.as_secs_f64() * 1e6;
    say!(
        "load steps {:>10.2} µs parse, {:.2} µs trace, {:.2} µs segment a position (one thread, {} positions)",
        us(steps.parse),
        us(steps.trace),
        us(steps.segment),
        steps.positions
    );
    say!(
        "memory     {:>10.1} bytes/position",
        train.memory_bytes() as f64 / n as f64
    );
    if let Some(peak) = crate::memory::peak_memory() {
        say!(
            "peak       {:>10.1} bytes/position (the process's peak resident memory after loading)",
            peak as f64 / n as f64
        );
    }
    Ok(train)
}

/// Times a full error pass and a full rescore (20 rounds each); returns their seconds.
fn bench_full_passes(train: &mut texel_dataset::Dataset, params: &Params, k: f64) -> (f64, f64) {
    let n = train.len();
    let rounds = 20;
    let start = Instant::now();
    let mut e = 0.0;
    for _ in 0..rounds {
        e += texel_solve::error::mean_error(train, k);
    }
    let pass_secs = start.elapsed().as_secs_f64() / rounds as f64;
    say!(
        "error pass {:>10.0} positions/s  ({:.2} ms, error {:.6})",
        n as f64 / pass_secs,
        pass_secs * 1e3,
        e / rounds as f64
    );
    let start = Instant::now();
    for _ in 0..rounds {
        train.rescore(params);
    }
    let rescore_secs = start.elapsed().as_secs_f64() / rounds as f64;
    say!(
        "rescore    {:>10.0} positions/s  ({:.2} ms: every evaluation recomputed from the stored traces)",
        n as f64 / rescore_secs,
        rescore_secs * 1e3
    );
    (pass_secs, rescore_secs)
}

/// Seconds and count of one probe of each variable, by kind: in its own column only, read
/// by curves (recomputed from the counts), read by formulas (recomputed from the stored
/// inputs).
fn probe_times(
    descent: &mut texel_solve::Descent<texel_dataset::Dataset>,
    vars: &[texel_solve::Variable],
) -> [(f64, usize); 3] {
    let curve_inputs: std::collections::HashSet<usize> = (0..texel_eval::curve::slot_count())
        .flat_map(|d| {
            let (curve, index) = texel_eval::curve::slot_curve(d);
            curve
                .inputs(index)
                .into_iter()
                .flat_map(|p| [p.flat_index(), p.flat_index() + 1])
        })
        .collect();
    let mut kinds = [(0.0, 0usize); 3];
    for v in vars {
        let term = texel_eval::params::flat_params()[v.slot].term;
        let kind = if descent.dataset().formula_reads(term) > 0 {
            2
        } else if curve_inputs.contains(&v.slot) {
            1
        } else {
            0
        };
        let start = Instant::now();
        black_box(descent.probe(*v, v.step));
        kinds[kind].0 += start.elapsed().as_secs_f64();
        kinds[kind].1 += 1;
    }
    kinds
}

fn bench_eval(args: &BenchArgs) -> Result<()> {
    let (name, text) = match &args.positions {
        Some(p) => (
            p.display().to_string(),
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?,
        ),
        None => ("the shipped sample".into(), SAMPLE_POSITIONS.to_string()),
    };
    let positions = (text.lines().enumerate())
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| parse_fen(l).map_err(|e| anyhow::anyhow!("{name}:{}: {e}", i + 1)))
        .collect::<Result<Vec<_>>>()?;
    let params = bench_params(args)?;
    let n = positions.len() * args.rounds;
    if n == 0 {
        bail!(
            "{name}: nothing to time ({} positions x {} rounds; a FEN a line)",
            positions.len(),
            args.rounds
        );
    }

    let start = Instant::now();
    let mut checksum = 0i64;
    for _ in 0..args.rounds {
        for pos in &positions {
            checksum += i64::from(evaluate(black_box(pos), &params));
        }
    }
    let eval_secs = start.elapsed().as_secs_f64();

    let start = Instant::now();
    let (mut tracer, mut trace) = (Tracer::new(&params), Trace::default());
    let mut coefs = 0usize;
    for _ in 0..args.rounds {
        for pos in &positions {
            tracer.trace_into(pos, &mut trace);
            coefs += black_box(&trace).coefs.len();
        }
    }
    let trace_secs = start.elapsed().as_secs_f64();

    say!(
        "positions {} x {} rounds (checksum {checksum})",
        positions.len(),
        args.rounds
    );
    say!(
        "eval   {:>10.0} evals/s   ({:.0} ns each)",
        n as f64 / eval_secs,
        eval_secs * 1e9 / n as f64
    );
    say!(
        "trace  {:>10.0} traces/s  ({:.0} ns each, {:.1} parameters with a coefficient each)",
        n as f64 / trace_secs,
        trace_secs * 1e9 / n as f64,
        coefs as f64 / n as f64
    );
    Ok(())
}
