//! `texel bench records`: how fast the tuner loads the binary forms of NNUE data
//! generators, against the same positions as EPD text lines.

use anyhow::Result;
use std::path::Path;
use std::time::Instant;
use texel_data::records::RecordForm;
use texel_data::LabelFormat;
use texel_dataset::LoadOptions;
use texel_eval::Params;

/// Writes the games of `pgn` (its score comments White's, as in the shipped games) as
/// marlinformat, bulletformat and viriformat files and as EPD lines of the same positions,
/// then loads and traces each `repeat` times and prints its positions per second.
pub fn bench(pgn: &Path, repeat: usize) -> Result<()> {
    let dir = tempfile::tempdir()?;
    let view = texel_import::ScoreView::White;
    let forms = [
        (LabelFormat::Marlin, RecordForm::Marlin),
        (LabelFormat::Bullet, RecordForm::Bullet),
        (LabelFormat::Viri, RecordForm::Viri),
    ];
    let mut files = Vec::new();
    for (format, form) in forms {
        let file = dir.path().join(format.name());
        texel_import::pgn_to_records(pgn, &file, form, view)?;
        files.push((Some(format), file));
    }
    let text = dir.path().join("positions.epd");
    write_as_text(&files[0].1, &text)?;
    files.push((None, text));
    say!("threads {}", rayon::current_num_threads());
    for (format, file) in files {
        let options = LoadOptions {
            labels: texel_data::LabelReading { stm: false, format },
            // Results alone: the records' scores are read, not mixed in.
            blend: texel_dataset::Blend {
                lambda: texel_tune::Lambda::RESULTS,
                k: None,
            },
            ..LoadOptions::default()
        };
        let start = Instant::now();
        let repeated = vec![file.clone(); repeat.max(1)];
        let (train, _, _) = texel_dataset::load(&repeated, &Params::default(), &options, &|_| {})?;
        let secs = start.elapsed().as_secs_f64();
        let bytes = std::fs::metadata(&file)?.len() as f64 / (train.len() / repeat.max(1)) as f64;
        say!(
            "{:<12} {:>10.0} positions/s  ({} positions in {secs:.2}s, {bytes:.1} bytes a position on disk)",
            format.map_or("epd text", LabelFormat::name),
            train.len() as f64 / secs,
            train.len()
        );
    }
    Ok(())
}

/// The positions of a marlinformat file as EPD lines (`FEN [result]`).
fn write_as_text(marlin: &Path, text: &Path) -> Result<()> {
    use shakmaty::{fen::Fen, EnPassantMode};
    let bytes = std::fs::read(marlin)?;
    let mut out = String::new();
    for record in bytes.chunks_exact(texel_data::records::RECORD) {
        let l = texel_data::marlin::read_bytes(record)?;
        let fen = Fen::from_position(&l.position, EnPassantMode::Legal);
        out.push_str(&format!("{fen} [{}]\n", l.label));
    }
    std::fs::write(text, out)?;
    Ok(())
}
