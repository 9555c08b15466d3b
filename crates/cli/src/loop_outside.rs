//! The loop fed from outside: a round's games from PGN files that OpenBench's DATAGEN
//! workload or fastchess produced with the best table, and a gate run as an outside SPRT
//! (fastchess or OpenBench) whose verdict the next run of the loop records.

use crate::loop_cmd::LoopArgs;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// Who decides whether a round's tuned table becomes the best.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Gate {
    /// A fixed-node SPRT match here (`--sprt`, `--gate-games`).
    Own,
    /// An SPRT run elsewhere: the loop prints the fastchess command line and the OpenBench
    /// recipe, and the next run records `--verdict`.
    Outside,
}

/// The verdict of an outside gate.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Verdict {
    /// H1 accepted: the tuned table becomes the best.
    Pass,
    /// H0 accepted (or stopped): the best stays.
    Fail,
}

/// The folder that holds round `round`'s outside games.
pub fn games_dir(from: &Path, round: u32) -> PathBuf {
    from.join(format!("round-{round:02}"))
}

/// The PGN files of a folder (`.pgn`, `.pgn.gz`, `.pgn.zst`), by name; none when the folder
/// is missing.
pub fn pgn_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", dir.display())),
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into());
            [".pgn", ".pgn.gz", ".pgn.zst"]
                .iter()
                .any(|ext| name.to_ascii_lowercase().ends_with(ext))
        })
        .collect();
    files.sort();
    Ok(files)
}

/// Imports every PGN file of `files` into `positions` (atomically, in file order) by the
/// loop's filters; returns the games read and positions written.
pub fn import_games(args: &LoopArgs, files: &[PathBuf], positions: &Path) -> Result<(u64, u64)> {
    let params = std::sync::Arc::new(texel_eval::Params::load(&args.best())?);
    let options = texel_import::ImportOptions {
        per_game: 25,
        gap: 3,
        skip_plies: 8,
        score_from_pgn: true,
        pgn_scores: args.pgn_scores,
        seed: args.seed,
        params,
        ..Default::default()
    };
    let (mut games, mut text) = (0, String::new());
    let part = positions.with_extension("epd.part");
    for file in files {
        let stats = texel_import::import_pgn(file, &part, &options, &|_| {})
            .with_context(|| format!("cannot import {}", file.display()))?;
        say!(
            "{}: {} games, {} positions",
            file.display(),
            stats.games,
            stats.kept
        );
        games += stats.games;
        text += &std::fs::read_to_string(&part)?;
    }
    std::fs::remove_file(&part).ok();
    texel_files::write_atomically(positions, text.as_bytes())
        .with_context(|| format!("cannot write {}", positions.display()))?;
    Ok((games, text.lines().count() as u64))
}

/// Tells the user how to give round `round` its games.
pub fn ask_for_games(args: &LoopArgs, from: &Path, round: u32) {
    let dir = games_dir(from, round);
    let best = args.best();
    say!(
        "round {round} waits for its games: play them with {best} and put the PGN files in \
         {dir}/, then run the same command again. For example, with fastchess on this machine \
         (make EXE=texel-engine builds the engine):\n  \
         fastchess -engine cmd=./texel-engine name=best option.Params={best} \
         -engine cmd=./texel-engine name=best2 option.Params={best} -each tc=8+0.08 \
         -openings file=data/openings.epd format=epd order=random -rounds 10000 \
         -pgnout file={dir}/games.pgn\n\
         or an OpenBench DATAGEN workload of an engine built with these values \
         (texel export --params {best} --rust crates/eval/src/table.rs on a branch): its \
         workers take start positions from the engine's genfens command; download the \
         PGNs into {dir}/.",
        best = best.display(),
        dir = dir.display(),
    );
}

/// Tells the user how to run the outside gate of round `round`.
pub fn ask_for_verdict(args: &LoopArgs, tuned: &Path, round: u32) {
    let best = args.best();
    say!(
        "round {round} waits for its gate: test {tuned} against {best} with an SPRT, then run \
         the same command again with --verdict pass (H1 accepted) or --verdict fail. With \
         fastchess on this machine:\n  \
         fastchess -engine cmd=./texel-engine name=tuned option.Params={tuned} \
         -engine cmd=./texel-engine name=best option.Params={best} -each tc=8+0.08 \
         -openings file=data/openings.epd format=epd order=random -repeat -rounds 20000 \
         -sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 -concurrency 2 -pgnout file=gate.pgn\n\
         On OpenBench: export each table as Rust source into a branch (texel export \
         --params FILE --rust crates/eval/src/table.rs) and submit an SPRT of the tuned \
         branch against the best one.",
        tuned = tuned.display(),
        best = best.display(),
    );
}
