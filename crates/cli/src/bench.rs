//! `texel bench eval`: evaluations and traces per second on a fixed position set.

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;
use texel_eval::{evaluate, parse_fen, Params, Tracer, SAMPLE_POSITIONS};

#[derive(Clone, Copy, ValueEnum)]
enum Target {
    /// Evaluation and trace speed (one thread).
    Eval,
}

#[derive(Args)]
pub struct BenchArgs {
    /// What to measure.
    #[arg(value_enum, default_value = "eval")]
    target: Target,
    /// FEN file (one per line); the shipped 2,000 sample positions when absent.
    #[arg(long)]
    positions: Option<PathBuf>,
    /// Passes over the position set.
    #[arg(long, default_value_t = 200)]
    rounds: usize,
}

pub fn run(args: &BenchArgs) -> Result<()> {
    let Target::Eval = args.target;
    let text = match &args.positions {
        Some(p) => {
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?
        }
        None => SAMPLE_POSITIONS.to_string(),
    };
    let positions = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| parse_fen(l).map_err(|e| anyhow::anyhow!("line {}: {e}", i + 1)))
        .collect::<Result<Vec<_>>>()?;
    let params = Params::default();
    let n = positions.len() * args.rounds;

    let start = Instant::now();
    let mut checksum = 0i64;
    for _ in 0..args.rounds {
        for pos in &positions {
            checksum += i64::from(evaluate(black_box(pos), &params));
        }
    }
    let eval_secs = start.elapsed().as_secs_f64();

    let start = Instant::now();
    let mut tracer = Tracer::new(&params);
    let mut coefs = 0usize;
    for _ in 0..args.rounds {
        for pos in &positions {
            coefs += black_box(tracer.trace(pos)).coefs.len();
        }
    }
    let trace_secs = start.elapsed().as_secs_f64();

    println!(
        "positions {} x {} rounds (checksum {checksum})",
        positions.len(),
        args.rounds
    );
    println!(
        "eval   {:>10.0} evals/s   ({:.0} ns each)",
        n as f64 / eval_secs,
        eval_secs * 1e9 / n as f64
    );
    println!(
        "trace  {:>10.0} traces/s  ({:.0} ns each, {:.1} coefficients each)",
        n as f64 / trace_secs,
        trace_secs * 1e9 / n as f64,
        coefs as f64 / n as f64
    );
    Ok(())
}
