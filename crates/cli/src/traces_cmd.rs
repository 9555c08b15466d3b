//! `texel traces`: trace files of any engine's evaluation (`docs/trace-format.md`), in
//! their text and binary forms.

use anyhow::{Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::time::Instant;
use texel_trace::{
    read_trace, write_binary, write_trace, Coef, Curve, InnerSum, InnerTerm, Param, ParamSpace,
    Shape, TracedPosition,
};

/// The two forms of a trace file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Form {
    /// One JSON object a line (what a script writes).
    Text,
    /// Fixed little-endian records (what loads fast).
    Binary,
}

#[derive(Subcommand)]
pub enum TracesCommand {
    /// Converts a trace between its text and binary forms (checked on the way).
    Convert(ConvertArgs),
}

#[derive(Args)]
pub struct ConvertArgs {
    /// The trace to read (either form, told by its first bytes).
    #[arg(long)]
    input: PathBuf,
    /// The trace to write (atomically).
    #[arg(long)]
    out: PathBuf,
    /// The form to write [default: the other form than the input's].
    #[arg(long, value_enum)]
    to: Option<Form>,
}

pub fn run(command: &TracesCommand) -> Result<()> {
    let TracesCommand::Convert(args) = command;
    crate::paths::Files::new()
        .read("--input", Some(&args.input))
        .write("--out", Some(&args.out))
        .check()?;
    let binary_input = std::fs::read(&args.input)
        .with_context(|| format!("cannot read {}", args.input.display()))?
        .starts_with(texel_trace::MAGIC);
    let to = args.to.unwrap_or(if binary_input {
        Form::Text
    } else {
        Form::Binary
    });
    let (space, positions) = read_trace(&args.input)?;
    let mut bytes = Vec::new();
    match to {
        Form::Text => write_trace(&mut bytes, &space, &positions)?,
        Form::Binary => write_binary(&mut bytes, &space, &positions)?,
    }
    texel_files::write_atomically(&args.out, &bytes)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    say!(
        "wrote {} positions of {} parameters ({} values) to {} in the {} form",
        positions.len(),
        space.params().len(),
        space.value_count(),
        args.out.display(),
        if to == Form::Text { "text" } else { "binary" }
    );
    Ok(())
}

/// A space like a small engine's: piece values and six piece-square tables, tapered, and
/// a tempo bonus; `composed`, a king safety too (eight tapered danger weights summed per
/// side, the middlegame sum's clamped square and the endgame sum's clamped line added).
fn bench_space(composed: bool) -> ParamSpace {
    let param = |name: &str, len: usize, tapered: bool| Param {
        name: name.into(),
        len,
        tapered,
        default: vec![0; len * if tapered { 2 } else { 1 }],
        group: None,
        candidate: false,
    };
    let mut params = vec![param("PIECE_VALUE", 6, true)];
    for piece in ["PAWN", "KNIGHT", "BISHOP", "ROOK", "QUEEN", "KING"] {
        params.push(param(&format!("{piece}_PST"), 64, true));
    }
    params.push(param("TEMPO", 1, false));
    if !composed {
        return ParamSpace::new(params).expect("a well-formed space");
    }
    params.push(param("KING_DANGER", DANGER_ENTRIES as usize, true));
    let shape = |curve, times| Shape {
        curve,
        floor: Some(0.0),
        ceiling: None,
        times,
        times_value: None,
    };
    let king_safety = InnerTerm {
        name: "king_safety".into(),
        mid: Some(shape(Curve::Square, -1.0 / 1024.0)),
        end: Some(shape(Curve::Linear, -1.0 / 16.0)),
    };
    (ParamSpace::new(params).and_then(|s| s.with_inner(vec![king_safety])))
        .expect("a well-formed space")
}

/// The danger weights of the composed bench space, its last entries.
const DANGER_ENTRIES: u32 = 8;

/// `n` positions with 32 coefficients each, drawn from a fixed seed; where the space has a
/// king safety, each side's danger sum counts six of its weights too.
fn bench_positions(space: &ParamSpace, n: usize) -> Vec<TracedPosition> {
    let composed = !space.inner().is_empty();
    let entries = space.entry_count() as u64 - if composed { 8 } else { 0 };
    let danger = |r: &dyn Fn(u64) -> u64, side: f32| InnerSum {
        term: 0,
        side,
        offset: [-20.0, -20.0],
        coeffs: (0..6)
            .map(|k| {
                let entry = entries as u32 + (r(40 + k) % u64::from(DANGER_ENTRIES)) as u32;
                Coef::Count(entry, (1 + r(50 + k) % 3) as f32)
            })
            .collect(),
    };
    (0..n as u64)
        .map(|i| {
            let r = |k: u64| texel_data::splitmix64(i * 64 + k);
            let inner = match composed {
                true => vec![danger(&r, 1.0), danger(&|k| r(k + 20), -1.0)],
                false => Vec::new(),
            };
            TracedPosition {
                inner,
                game: None,
                result: [0.0, 0.5, 1.0][(r(0) % 3) as usize],
                score: None,
                phase: (r(1) % 25) as f32 / 24.0,
                scale: 1.0,
                offset: 0.0,
                offset_end: 0.0,
                coeffs: (0..32)
                    .map(|k| {
                        Coef::Count((r(k + 2) % entries) as u32, [1.0, -1.0][(k % 2) as usize])
                    })
                    .collect(),
            }
        })
        .collect()
}

/// `texel bench traces`: loading speed of both forms and the bytes a position held for
/// tuning, on `n` synthetic positions of a linear evaluation and of one with king safety.
pub fn bench(n: usize) -> Result<()> {
    for composed in [false, true] {
        bench_one(n, composed)?;
    }
    Ok(())
}

/// [`bench()`] of one evaluation.
fn bench_one(n: usize, composed: bool) -> Result<()> {
    let space = bench_space(composed);
    let positions = bench_positions(&space, n);
    let (kind, each) = match composed {
        true => (
            "composed",
            "32 coefficients and two danger sums of 6 counts each",
        ),
        false => ("linear", "32 coefficients each"),
    };
    let dir = tempfile::tempdir()?;
    for (form, name) in [(Form::Binary, "trace.bin"), (Form::Text, "trace.jsonl")] {
        let path = dir.path().join(name);
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path)?);
        match form {
            Form::Binary => write_binary(&mut out, &space, &positions)?,
            Form::Text => write_trace(&mut out, &space, &positions)?,
        }
        drop(out);
        let bytes = std::fs::metadata(&path)?.len();
        let start = Instant::now();
        let (_, read) = read_trace(&path)?;
        let secs = start.elapsed().as_secs_f64();
        anyhow::ensure!(read.len() == n, "read {} of {n} positions", read.len());
        drop(read);
        let form_name = format!(
            "{kind} {}",
            if form == Form::Text { "text" } else { "binary" }
        );
        say!(
            "{form_name:<15} {:>9.0} positions/s read ({n} positions, {each}, {:.0} bytes/position)",
            n as f64 / secs,
            bytes as f64 / n as f64
        );
        let start = Instant::now();
        let load = texel_tune::load_traces(
            &path,
            texel_data::HeldOut::NONE,
            texel_tune::Lambda::RESULTS,
        )?;
        let secs = start.elapsed().as_secs_f64();
        say!(
            "{form_name:<15} {:>9.0} positions/s loaded for tuning (read, {} bytes/position held, scored with the defaults)",
            n as f64 / secs,
            load.train.memory_bytes() / n
        );
    }
    Ok(())
}
