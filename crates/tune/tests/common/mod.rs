//! What the tuner's tests share: the shipped positions loaded as a tuning set, a thread
//! pool of a given size, random draws.

use texel_dataset::{load, Dataset, LoadOptions};
use texel_eval::Params;

/// The first `n` positions of the shipped data traced with `params`: training and
/// validation sets (about `validation_per_mille` in 1,000 held out) and the data's
/// fingerprint.
pub fn data(n: usize, params: &Params, validation_per_mille: u32) -> (Dataset, Dataset, u64) {
    let lines: Vec<&str> = include_str!("../../../../data/train.epd")
        .lines()
        .take(n)
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data.epd");
    std::fs::write(&path, lines.join("\n")).unwrap();
    let options = LoadOptions {
        validation_per_mille,
        ..Default::default()
    };
    let (train, validation, report) = load(&[path], params, &options, &|_| {}).unwrap();
    (train, validation, report.fingerprint)
}

/// `f` run on a pool of `threads` threads, with a temporary folder that is deleted after.
#[allow(
    dead_code,
    reason = "each test file compiles this module; run.rs tunes on the default pool"
)]
pub fn on_threads<T: Send>(threads: usize, f: impl FnOnce(&std::path::Path) -> T + Send) -> T {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    pool.install(|| f(dir.path()))
}

/// A random number in `0..n` from the stream `seed`.
#[allow(
    dead_code,
    reason = "each test file compiles this module; run.rs and adam.rs draw nothing"
)]
pub fn draw(seed: &mut u64, n: u64) -> u64 {
    *seed = texel_data::splitmix64(*seed);
    *seed % n
}
