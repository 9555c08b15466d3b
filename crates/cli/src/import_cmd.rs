//! `texel import`: quiet labelled EPD from labelled EPD or from PGN games.

use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::sync::Arc;
use texel_data::LabelFormat;
use texel_import::{import_epd, import_pgn, Duplicates, ImportError, ImportOptions};

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// `c9 "1-0";`
    C9,
    /// `[1.0]` (also fractions: `[0.75]`)
    Bracket,
}

/// `--format`: the output's label form; an input form's name is pointed to
/// `--label-format`, which reads the input as it.
fn output_format(text: &str) -> Result<Format, String> {
    match Format::from_str(text, false) {
        Ok(format) => Ok(format),
        Err(_) if LabelFormat::named(text).is_some() => Err(format!(
            "`{text}` is a form of the input: --format names the output's labels (c9 or \
             bracket), --label-format {text} reads the input as it"
        )),
        Err(_) => Err(format!(
            "the output's labels are c9 or bracket, not `{text}`"
        )),
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum Dups {
    /// Keep the first occurrence of a position and its label.
    First,
    /// Keep one occurrence labelled with the mean of all its labels (needs `--format bracket`).
    Average,
    /// Keep every occurrence.
    Keep,
}

/// How positions are sampled from games and filtered (the Slow Chess filters).
#[derive(Args, Clone, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SampleArgs {
    /// Positions per game at most.
    #[arg(allow_negative_numbers = true, long, default_value_t = 5)]
    pub per_game: usize,
    /// Plies between two positions of a game at least.
    #[arg(allow_negative_numbers = true, long, default_value_t = 10)]
    pub gap: usize,
    /// Opening plies skipped in each game.
    #[arg(allow_negative_numbers = true, long, default_value_t = 10)]
    pub skip_plies: usize,
    /// Decisive games: keep only positions where the winner's evaluation is above this (cp;
    /// the Slow Chess write-up's filter is 100; below 0 keeps those where the winner is
    /// behind by less). Off by default: on Stash's games it cost about 30 Elo
    /// (reports/generalise/)
    #[arg(allow_negative_numbers = true, long)]
    pub win_min: Option<i32>,
    /// Draws: keep only positions where an evaluation is below this in absolute value (cp;
    /// the write-up's is 150). Off by default
    #[arg(allow_negative_numbers = true, long, value_parser = clap::value_parser!(i32).range(1..))]
    pub draw_max: Option<i32>,
    /// Judge positions by the PGN's score comments instead of texel's qsearch.
    #[arg(long)]
    pub score_from_pgn: bool,
    /// Whose view plain score comments (`{+0.35/12}`) take: `white` (texel's own games,
    /// lichess) or `mover` (cutechess, fastchess and OpenBench write each engine's own
    /// score). `[%eval]` comments are always White's.
    #[arg(long, default_value = "white", value_name = "white|mover")]
    pub pgn_scores: texel_import::ScoreView,
}

impl Default for SampleArgs {
    /// The sampling of `texel import` with no flag given.
    fn default() -> SampleArgs {
        crate::parse_flags::<SampleArgs>(&[]).unwrap_or_else(|e| e.exit())
    }
}

impl SampleArgs {
    /// Import options with these sampling settings, `seed` and the qsearch `params`.
    pub fn options(&self, seed: u64, params: Arc<texel_eval::Params>) -> ImportOptions {
        ImportOptions {
            per_game: self.per_game,
            gap: self.gap,
            skip_plies: self.skip_plies,
            win_min_cp: self.win_min,
            draw_max_cp: self.draw_max,
            score_from_pgn: self.score_from_pgn,
            pgn_scores: self.pgn_scores,
            seed,
            params,
            ..ImportOptions::default()
        }
    }
}

#[derive(Args)]
pub struct ImportArgs {
    /// Labelled EPD/FEN input (also `.gz`, `.zst`): every position is replaced by its quiet
    /// leaf.
    #[arg(long, conflicts_with = "pgn")]
    epd: Option<PathBuf>,
    /// PGN input (`.pgn`, `.pgn.gz` or `.pgn.zst`): positions are sampled from finished
    /// games and labelled with the result.
    #[arg(long)]
    pgn: Option<PathBuf>,
    /// Output EPD (written atomically).
    #[arg(long)]
    out: PathBuf,
    /// Label format of the output: `c9` (`c9 "1-0";`) or `bracket` (`[1.0]`, also fractions).
    #[arg(long, default_value = "bracket", value_name = "c9|bracket", value_parser = output_format)]
    format: Format,
    /// EPD input labels score the side to move (the same as `--labels stm`).
    #[arg(long)]
    stm_labels: bool,
    /// Whose view the EPD input's labels take: `white` (the default) or `stm`.
    #[arg(long, value_enum, value_name = "SIDE", conflicts_with = "stm_labels")]
    labels: Option<crate::data_args::LabelSide>,
    /// Read every EPD input line's label in this format instead of detecting it line by
    /// line; a binary form (`marlin`, `bullet`: records, each position quiesced as a line's;
    /// `viri`: games, sampled and filtered as PGN games) reads `--epd` as that form.
    #[arg(long, value_name = "FORM", value_parser = crate::data_args::label_format_names())]
    label_format: Option<String>,
    /// What to do with a position (after quiescing) that was written already.
    #[arg(long, value_enum, default_value = "first")]
    duplicates: Dups,
    /// Write the good lines of an EPD input even when more than 1% of its lines are bad.
    #[arg(long)]
    allow_bad: bool,
    #[command(flatten)]
    sample: SampleArgs,
    /// Seed of the per-game sampling.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Parameters of the quiescence search (JSON).
    #[arg(long)]
    params: Option<PathBuf>,
    /// Also write the statistics as JSON here.
    #[arg(long)]
    stats_json: Option<PathBuf>,
}

pub fn run(args: &ImportArgs) -> Result<()> {
    crate::paths::Files::new()
        .read("--epd", args.epd.as_deref())
        .read("--pgn", args.pgn.as_deref())
        .read("--params", args.params.as_deref())
        .write("--out", Some(&args.out))
        .write("--stats-json", args.stats_json.as_deref())
        .check()?;
    let params = Arc::new(crate::load_params(args.params.as_deref())?);
    let options = ImportOptions {
        format: match args.format {
            Format::C9 => LabelFormat::C9,
            Format::Bracket => LabelFormat::Bracket,
        },
        labels: crate::data_args::label_reading(
            args.stm_labels,
            args.labels,
            args.label_format.as_deref(),
        ),
        duplicates: match args.duplicates {
            Dups::First => Duplicates::First,
            Dups::Average => Duplicates::Average,
            Dups::Keep => Duplicates::Keep,
        },
        allow_bad: args.allow_bad,
        ..args.sample.options(args.seed, params)
    };
    let input = args.epd.as_ref().or(args.pgn.as_ref());
    let size = input
        .and_then(|p| std::fs::metadata(p).ok())
        .map_or(0, |m| m.len());
    let bar = crate::progress_bar(
        size,
        "importing {bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
    );
    let report = |bytes: u64| bar.set_position(bytes);
    let start = std::time::Instant::now();
    let result = match (&args.epd, &args.pgn) {
        (Some(input), None) => import_epd(input, &args.out, &options, &report),
        (None, Some(input)) => import_pgn(input, &args.out, &options, &report),
        _ => bail!("give --epd FILE or --pgn FILE"),
    };
    let stats = match result {
        Err(e @ ImportError::NothingKept(_)) => {
            let input = input.expect("one input").display();
            bail!("{input}: {e}\n(is it the right kind of file for --epd / --pgn?)")
        }
        other => other.map_err(|e| crate::explain::explain_import(e, "--label-format"))?,
    };
    bar.finish_and_clear();
    let secs = start.elapsed().as_secs_f64();
    eprintln!("{stats}");
    if stats.games > 0 {
        eprintln!(
            "{:.0} games/s, {:.0} positions/s",
            stats.games as f64 / secs,
            stats.considered as f64 / secs
        );
    } else {
        eprintln!("{:.0} positions/s", stats.considered as f64 / secs);
    }
    if let Some(path) = &args.stats_json {
        texel_files::write_atomically(path, stats.to_json().as_bytes())?;
    }
    say!("wrote {} positions to {}", stats.kept, args.out.display());
    Ok(())
}
