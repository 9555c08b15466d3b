//! `texel convert`: labelled positions from any form texel reads, written as
//! `FEN [1.0] [35]` lines or as marlinformat or bulletformat records; or the games of a PGN
//! file, every searched position, as records or viriformat games.

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
    /// viriformat's games (from `--pgn` only).
    Viri,
}

#[derive(Args)]
pub struct ConvertArgs {
    /// Labelled positions: EPD/FEN lines in any label form, or a binary form named by
    /// `--format` (plain, `.gz` or `.zst`).
    #[arg(long, required_unless_present = "pgn", conflicts_with = "pgn")]
    epd: Option<PathBuf>,
    /// Games with score comments instead: every position a move was searched from (with
    /// the search's score and the game's result), from the first scored move of each game.
    #[arg(long)]
    pgn: Option<PathBuf>,
    /// Whose view the PGN's plain score comments (`{+0.35/12}`) take: `white` (texel's own
    /// games, lichess) or `mover` (cutechess, fastchess).
    #[arg(
        long,
        default_value = "white",
        value_name = "white|mover",
        requires = "pgn"
    )]
    pgn_scores: texel_import::ScoreView,
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
        .read("--epd", args.epd.as_deref())
        .read("--pgn", args.pgn.as_deref())
        .write("--out", Some(&args.out))
        .check()?;
    let Some(epd) = &args.epd else {
        return games(args);
    };
    let reading = label_reading(false, args.labels, args.format.as_deref());
    let to = match args.to {
        To::Bracket => Written::Bracket,
        To::Marlin => Written::Marlin,
        To::Bullet => Written::Bullet,
        To::Viri => anyhow::bail!(
            "--to viri writes games: give them as --pgn (positions alone make no viriformat game)"
        ),
    };
    let done = texel_import::convert_positions(epd, reading, &args.out, to)
        .map_err(|e| crate::explain::explain_import(e, "--format"))?;
    for (why, n) in &done.skipped {
        say!("skipped, {why}: {n}");
    }
    if done.unscored > 0 {
        say!(
            "{} positions had no score: their records hold 0",
            done.unscored
        );
    }
    if done.ids_dropped > 0 {
        say!(
            "{} positions named their game: records hold no game id, so a tune of them holds \
             out positions one by one, not games (--to bracket keeps the ids)",
            done.ids_dropped
        );
    }
    say!("wrote {} positions to {}", done.written, args.out.display());
    Ok(())
}

/// The games of `--pgn` as records or viriformat games.
fn games(args: &ConvertArgs) -> Result<()> {
    use texel_data::records::RecordForm;
    let Some(pgn) = args.pgn.as_deref() else {
        anyhow::bail!("give the positions as --epd FILE or the games as --pgn FILE");
    };
    let form = match args.to {
        To::Marlin => RecordForm::Marlin,
        To::Bullet => RecordForm::Bullet,
        To::Viri => RecordForm::Viri,
        To::Bracket => anyhow::bail!(
            "--to bracket from games: `texel import --pgn` samples, quiesces and labels them"
        ),
    };
    let done = texel_import::pgn_to_records(pgn, &args.out, form, args.pgn_scores)?;
    say!("{}", done.describe(form.holds(), &args.out));
    Ok(())
}
