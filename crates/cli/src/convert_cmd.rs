//! `texel convert`: labelled positions from any form texel reads, written as
//! `FEN [1.0] [35]` lines or as marlinformat or bulletformat records.

use crate::data_args::{label_format_names, label_reading, LabelSide};
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use texel_import::Written;

/// The forms `texel convert` writes.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum To {
    /// `FEN [1.0] [35]`: the result, then the score when known, both White's view.
    Bracket,
    /// marlinformat's 32-byte records.
    Marlin,
    /// bulletformat's 32-byte records.
    Bullet,
}

#[derive(Args)]
pub struct ConvertArgs {
    /// Labelled positions: EPD/FEN lines in any label form, or a binary form named by
    /// `--format` (plain, `.gz` or `.zst`).
    #[arg(long)]
    epd: PathBuf,
    /// Where the positions go (written atomically).
    #[arg(long)]
    out: PathBuf,
    /// The form written.
    #[arg(long, value_enum)]
    to: To,
    /// Whose view the input's labels (and scores) take: `white` (the default) or `stm`.
    #[arg(long, value_enum, value_name = "SIDE")]
    labels: Option<LabelSide>,
    /// Read every input line's label in this form (or the input as a binary form) instead
    /// of detecting it line by line.
    #[arg(long, value_name = "FORM", value_parser = label_format_names())]
    format: Option<String>,
}

pub fn run(args: &ConvertArgs) -> Result<()> {
    crate::paths::Files::new()
        .read("--epd", Some(&args.epd))
        .write("--out", Some(&args.out))
        .check()?;
    let reading = label_reading(false, args.labels, args.format.as_deref());
    let to = match args.to {
        To::Bracket => Written::Bracket,
        To::Marlin => Written::Marlin,
        To::Bullet => Written::Bullet,
    };
    let done = texel_import::convert_positions(&args.epd, reading, &args.out, to)?;
    for (why, n) in &done.skipped {
        say!("skipped, {why}: {n}");
    }
    if done.unscored > 0 {
        say!(
            "{} positions had no score: their records hold 0",
            done.unscored
        );
    }
    say!("wrote {} positions to {}", done.written, args.out.display());
    Ok(())
}
