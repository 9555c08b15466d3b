//! What `texel loop` tells the user when a round waits for the outside: its games (from
//! OpenBench's DATAGEN workload or fastchess, played with the best table) or the verdict of
//! an outside SPRT.

use std::path::Path;

/// Tells the user how to give round `round` its games: play them with `best` and put the
/// PGN files in `dir`.
pub fn ask_for_games(round: u32, dir: &Path, best: &Path) {
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

/// Tells the user how to run the outside gate of round `round`: `tuned` against `best`.
pub fn ask_for_verdict(round: u32, tuned: &Path, best: &Path) {
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
