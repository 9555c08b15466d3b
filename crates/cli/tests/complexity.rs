//! A trace whose endgame score a complexity moves (Ethereal's `E + sign(E)·max(c, −|E|)`),
//! through the binary: two tapered pieces, a fixed endgame part, endgame scales from 0.5 to
//! 1.125, and a complexity of pawns, both flanks and a constant. Labels are drawn from the
//! planted evaluation's sigmoid; the tune recovers every weight, in memory and streamed alike.

mod common;

use common::{assert_fits_as_planted, stdout_of, texel, to_binary, Rng};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The planted values: two tapered pieces; the complexity's weights of pawns, of pawns on
/// both flanks, and its constant.
const PIECES: [(f64, f64); 2] = [(100.0, 120.0), (300.0, 280.0)];
const COMPLEXITY: [f64; 3] = [9.0, 40.0, -120.0];

const HEADER: &str = r#"{"format": "texel-trace", "version": 2, "params": [
 {"name": "PIECE", "len": 2, "tapered": true, "default": [[50, 50], [50, 50]]},
 {"name": "COMPLEXITY", "len": 3, "default": [0, 0, 0]}],
 "inner": [{"name": "complexity", "end": {"shape": "complexity"}}]}"#;

/// One planted position: its line and the probability White wins.
fn position(rng: &mut Rng) -> (String, f64) {
    let phase = rng.below(25) as f64 / 24.0;
    let scale = [1.0, 1.0, 0.5, 1.125][rng.below(4) as usize];
    let pieces: Vec<i64> = (0..2).map(|_| rng.below(3) - 1).collect();
    let fixed_end = rng.below(201) as f64 - 100.0;
    let (pawns, flanks) = (rng.below(17), rng.below(2));
    let mut mid = 0.0;
    let mut end = fixed_end;
    for (c, (m, e)) in pieces.iter().zip(PIECES) {
        mid += *c as f64 * m;
        end += *c as f64 * e;
    }
    let c = pawns as f64 * COMPLEXITY[0] + flanks as f64 * COMPLEXITY[1] + COMPLEXITY[2];
    let moved = end + end.signum() * c.max(-end.abs());
    let eval = phase * mid + (1.0 - phase) * scale * moved;
    let line = format!(
        r#"{{"result": RESULT, "phase": {phase}, "scale": {scale}, "offset_end": {fixed_end}, "coeffs": [[0, {}], [1, {}]], "inner": [{{"term": 0, "coeffs": [[2, {pawns}], [3, {flanks}], [4, 1]]}}]}}"#,
        pieces[0], pieces[1]
    );
    (line, 1.0 / (1.0 + 10f64.powf(-eval / 400.0)))
}

/// Writes `n` positions of the planted evaluation as a text trace.
fn planted(dir: &Path, n: usize) -> PathBuf {
    let mut text = HEADER.replace('\n', "");
    text.push('\n');
    let mut rng = Rng(55);
    for _ in 0..n {
        let (line, win) = position(&mut rng);
        let result = u8::from(rng.unit() < win);
        let _ = writeln!(text, "{}", line.replace("RESULT", &result.to_string()));
    }
    let path = dir.join("complexity.trace");
    std::fs::write(&path, text).unwrap();
    path
}

/// The tuned values of `out`.
fn tuned(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

/// A tune of `trace` at K = 1 without a pull into `out` (`more` arguments added): what it
/// printed.
fn tune(trace: &Path, out: &Path, more: &[&str]) -> String {
    stdout_of(
        texel()
            .args(["tune", "--k", "1", "--l2", "0", "--traces"])
            .arg(trace)
            .args(more)
            .arg("--out")
            .arg(out),
    )
}

#[test]
fn a_complexity_s_weights_are_recovered_in_memory_and_streamed() {
    let dir = tempfile::tempdir().unwrap();
    let text = planted(dir.path(), 200_000);
    let bin = dir.path().join("complexity.bin");
    to_binary(&text, &bin);
    let out = dir.path().join("tuned.json");
    let printed = tune(&bin, &out, &[]);
    let values = tuned(&out);
    let near = |got: &serde_json::Value, want: f64, share: f64| {
        (got.as_f64().unwrap() - want).abs() <= share * want.abs()
    };
    for (k, (mid, end)) in PIECES.into_iter().enumerate() {
        let v = &values["PIECE"][k];
        assert!(
            near(&v[0], mid, 0.1) && near(&v[1], end, 0.1),
            "{values}\n{printed}"
        );
    }
    for (k, want) in COMPLEXITY.into_iter().enumerate() {
        assert!(
            near(&values["COMPLEXITY"][k], want, 0.2),
            "{values}\n{printed}"
        );
    }
    // The tuned values fit the sample at least as well as the planted ones.
    let [p, b, c] = COMPLEXITY;
    let pieces = PIECES.map(|(m, e)| format!("[{m}, {e}]")).join(", ");
    let json = format!(r#"{{"PIECE": [{pieces}], "COMPLEXITY": [{p}, {b}, {c}]}}"#);
    assert_fits_as_planted(dir.path(), &bin, &json, &printed);

    // Streamed, in chunks, the tune ends at the same values.
    let streamed = dir.path().join("streamed.json");
    let streamed_printed = tune(&bin, &streamed, &["--stream", "--chunk", "50000"]);
    assert_eq!(tuned(&streamed), values, "{printed}\n{streamed_printed}");
}
