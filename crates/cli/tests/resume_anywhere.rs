//! A tune in memory stopped by Ctrl-C anywhere (on the path of pulls, the path of λs, the
//! pulls again at the λ chosen, Newton's iterations, the polish) and resumed ends at the
//! unbroken run's values file, byte for byte (the streamed runs: `traces.rs`).

mod common;

use common::{resumes_anywhere, StopAt};
use std::path::Path;

#[test]
fn a_tune_in_memory_stopped_in_any_phase_resumes_to_the_unbroken_values() {
    let dir = tempfile::tempdir().unwrap();
    let positions = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/sample-scored.epd");
    // Every position carries a score: the pulls (coarse, then whole from the twelfth), the
    // λs (coarse, then whole from the third); λ 1 is chosen, so the run follows (the pulls
    // again after another λ: `texel_tune`'s `begin` tests).
    let tune = |out: &Path, extra: &[&str]| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_texel"));
        c.args(["tune", "--validate", "20", "--epd"])
            .arg(&positions)
            .arg("--out")
            .arg(out)
            .args(extra);
        c
    };
    let path = "stopped on the path of pulls or λs";
    let run = "interrupted after";
    let stops = [
        (("fitted K", 1), path),
        (("--l2 auto: pull", 1), path),
        (("--l2 auto: pull", 7), path),
        (("--l2 auto: pull", 12), path),
        (("--lambda auto: λ", 1), path),
        (("--lambda auto: λ", 3), path),
        (("--lambda auto chose", 1), run),
        (("pass 1:", 1), run),
        (("pass 4:", 1), run),
    ];
    resumes_anywhere(dir.path(), &tune, &stops.map(StopAt::from));
}
