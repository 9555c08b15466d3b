//! `texel eval`: the score of one position and the table of terms that fired.

use anyhow::Result;
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use texel_eval::{parse_fen, Breakdown, TermId, MAX_PHASE, S};

/// The starting position, what `startpos` stands for.
const STARTPOS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[derive(Args)]
pub struct EvalArgs {
    /// The position: a FEN (one quoted argument or its six fields) or `startpos`.
    #[arg(required = true, num_args = 1..)]
    fen: Vec<String>,
    /// Parameter file (JSON); the table's defaults when absent.
    #[arg(long)]
    params: Option<PathBuf>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &EvalArgs) -> Result<()> {
    let fen = match args.fen.join(" ") {
        f if f == "startpos" => STARTPOS.to_string(),
        f => f,
    };
    let pos = parse_fen(&fen).map_err(anyhow::Error::msg)?;
    let params = crate::load_params(args.params.as_deref())?;
    let b = Breakdown::of(&pos, &params);
    let mut out = std::io::stdout().lock();
    if args.json {
        let record = texel_eval::records::EvalRecord::of(&fen, &b);
        writeln!(out, "{}", serde_json::to_string(&record)?)?;
    } else {
        write_table(&mut out, &b)?;
    }
    Ok(())
}

fn cell(s: S) -> String {
    format!("{:>6} {:>6}", s.0, s.1)
}

fn write_table(out: &mut impl Write, b: &Breakdown) -> std::io::Result<()> {
    let rule = format!("{:-<38}+{:-<15}+{:-<15}+{:-<15}", "", "", "", "");
    writeln!(
        out,
        "{:<38}|{:^15}|{:^15}|{:^15}",
        "Term", "White", "Black", "Total"
    )?;
    writeln!(
        out,
        "{:<38}|{:^15}|{:^15}|{:^15}",
        "", "  MG     EG", "  MG     EG", "  MG     EG"
    )?;
    writeln!(out, "{rule}")?;
    let mut group = None;
    for (t, w, bl) in b.terms() {
        let info = TermId::info(t);
        if group != Some(info.group) {
            group = Some(info.group);
            writeln!(out, "[{}]", info.group.name())?;
        }
        let name = if info.linear {
            info.name.to_string()
        } else {
            format!("{}*", info.name)
        };
        writeln!(
            out,
            "  {:<36}| {} | {} | {}",
            name,
            cell(w),
            cell(bl),
            cell(w - bl)
        )?;
    }
    writeln!(out, "{rule}")?;
    writeln!(
        out,
        "  {:<36}| {:>13} | {:>13} | {}",
        "Sum",
        "",
        "",
        cell(b.total())
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "* a formula over several parameters, shown under its first term"
    )?;
    writeln!(
        out,
        "Phase: {}/{}   Endgame scale: {}%",
        b.phase(),
        MAX_PHASE,
        b.scale()
    )?;
    let score = b.score();
    writeln!(
        out,
        "Score (white's view): {:+.2} ({} cp)",
        f64::from(score) / 100.0,
        score
    )
}
