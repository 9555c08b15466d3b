//! What `texel loop` tells the user when a round waits for the outside: its games (from
//! OpenBench's DATAGEN workload or fastchess, played with the best table) or the verdict of
//! an outside SPRT.

use std::path::{Path, PathBuf};
use texel_arena::sprt::SprtTest;

/// What the suggested commands take from the loop's settings.
#[derive(Debug)]
pub struct Hints {
    /// The loop's `--openings`.
    pub openings: PathBuf,
    /// The loop's `--sprt`.
    pub sprt: SprtTest,
}

impl Hints {
    /// Tells the user how to give round `round` its games: play them with `best` and put
    /// the PGN files in `dir`.
    pub fn ask_for_games(&self, round: u32, dir: &Path, best: &Path) {
        say!(
            "round {round} waits for its games: play them with {best} and put the PGN files \
             in {dir}/, then run the same command with --resume. For example, with fastchess \
             on this machine (make EXE=texel-engine builds the engine):\n  \
             fastchess -engine cmd=./texel-engine name=best option.Params={best} \
             -engine cmd=./texel-engine name=best2 option.Params={best} -each tc=8+0.08 \
             -openings file={openings} format=epd order=random -rounds 10000 \
             -pgnout file={dir}/games.pgn\n\
             or an OpenBench DATAGEN workload of an engine built with these values \
             (texel export --params {best} --rust crates/eval/src/table.rs on a branch): its \
             workers take start positions from the engine's genfens command; download the \
             PGNs into {dir}/.",
            best = best.display(),
            dir = dir.display(),
            openings = self.openings.display(),
        );
    }

    /// Tells the user how to run the outside gate of round `round`: `tuned` against `best`
    /// with the loop's SPRT.
    pub fn ask_for_verdict(&self, round: u32, tuned: &Path, best: &Path) {
        let t = &self.sprt;
        say!(
            "round {round} waits for its gate: test {tuned} against {best} with an SPRT \
             ({t}), then run the same command with --resume and --verdict pass (H1 \
             accepted) or --verdict fail. With fastchess on this machine:\n  \
             fastchess -engine cmd=./texel-engine name=tuned option.Params={tuned} \
             -engine cmd=./texel-engine name=best option.Params={best} -each tc=8+0.08 \
             -openings file={openings} format=epd order=random -repeat -rounds 20000 \
             -sprt elo0={elo0} elo1={elo1} alpha=0.05 beta=0.05 model={model} \
             -concurrency 2 -pgnout file=gate.pgn\n\
             On OpenBench: export each table as Rust source into a branch (texel export \
             --params FILE --rust crates/eval/src/table.rs) and submit an SPRT of the tuned \
             branch against the best one.",
            tuned = tuned.display(),
            best = best.display(),
            openings = self.openings.display(),
            elo0 = t.elo0,
            elo1 = t.elo1,
            model = t.model.name(),
        );
    }
}
