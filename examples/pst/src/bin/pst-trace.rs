//! Writes a texel trace of the piece-square evaluation for a labelled EPD file, the
//! `trace` command of `examples/pst/engine.json`:
//!
//! ```sh
//! pst-trace positions.epd positions.trace
//! ```
//!
//! Each line's result is its label, and its game (`game N;`) the trace's `game`, so a tune
//! holds out whole games; a line with the engine's own search score (`ce N;`) gets none in
//! the trace (`--lambda` then tunes toward the results alone). A line that is not a
//! labelled position stops it with the file and line.

use std::io::{BufRead, BufWriter, Write};
use std::path::Path;
use texel_example_pst::PstEval;
use texel_tune::texel_trace::{write_trace, TracedPosition};
use texel_tune::Traceable;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [epd, trace] = args.as_slice() else {
        eprintln!("usage: pst-trace POSITIONS.epd OUT.trace");
        std::process::exit(2);
    };
    if let Err(e) = write(Path::new(epd), Path::new(trace)) {
        eprintln!("pst-trace: {e}");
        std::process::exit(1);
    }
}

/// Traces every labelled position of `epd` into `trace`.
fn write(epd: &Path, trace: &Path) -> Result<(), String> {
    let eval = PstEval::material();
    let file = std::fs::File::open(epd).map_err(|e| format!("{}: {e}", epd.display()))?;
    let mut positions = Vec::new();
    let mut format = None;
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| format!("{}: {e}", epd.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        let (labelled, found) = texel_data::parse_line(&line, format, false)
            .map_err(|e| format!("{}:{}: {e}", epd.display(), n + 1))?;
        format = Some(found);
        positions.push(TracedPosition {
            result: labelled.label.white_score() as f32,
            game: labelled.game,
            ..eval.trace(&labelled.position)
        });
    }
    let out = std::fs::File::create(trace).map_err(|e| format!("{}: {e}", trace.display()))?;
    let mut out = BufWriter::new(out);
    write_trace(&mut out, &eval.space(), &positions)
        .and_then(|()| out.flush())
        .map_err(|e| format!("{}: {e}", trace.display()))
}
