//! What the tuner's tests share: the shipped positions loaded as a tuning set, a thread
//! pool of a given size, random draws.

use texel_dataset::{load, Dataset, LoadOptions};
use texel_eval::Params;
#[allow(
    unused_imports,
    reason = "each test file compiles this module; not all tune planted values"
)]
use texel_tune::texel_trace::{Coef, Param, ParamSpace, TracedPosition};

/// The first `n` positions of the shipped data traced with `params`: training and
/// validation sets (about `per_mille` in 1,000 held out) and the data's
/// fingerprint.
#[allow(
    dead_code,
    reason = "each test file compiles this module; stream.rs tunes traces"
)]
pub fn data(n: usize, params: &Params, per_mille: u32) -> (Dataset, Dataset, u64) {
    let lines: Vec<&str> = include_str!("../../../../data/train.epd")
        .lines()
        .take(n)
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data.epd");
    std::fs::write(&path, lines.join("\n")).unwrap();
    let options = LoadOptions {
        held_out: texel_data::HeldOut::share(per_mille),
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

/// A tapered table of 6 entries and a plain value.
#[allow(
    dead_code,
    reason = "each test file compiles this module; not all tune planted values"
)]
pub fn planted_space() -> ParamSpace {
    let param = |name: &str, len: usize, tapered: bool| Param {
        name: name.into(),
        len,
        tapered,
        default: vec![0; len * (1 + usize::from(tapered))],
        group: None,
        candidate: false,
    };
    ParamSpace::new(vec![param("TABLE", 6, true), param("PLAIN", 1, false)]).unwrap()
}

/// The values the labels are made from.
#[allow(
    dead_code,
    reason = "each test file compiles this module; not all tune planted values"
)]
pub const TRUTH: [i32; 13] = [100, 140, 310, 280, 330, 300, -25, 40, 12, -8, 0, 60, 35];

#[allow(
    dead_code,
    reason = "each test file compiles this module; not all tune planted values"
)]
/// `n` positions labelled with the expected score of their evaluation under [`TRUTH`] at
/// K = 1 (split counts among them): the error is zero there and nowhere else.
pub fn planted_positions(n: usize) -> Vec<TracedPosition> {
    let (space, mut s) = (planted_space(), 11);
    (0..n)
        .map(|_| {
            let mut coeffs = Vec::new();
            for entry in 0..7u32 {
                if draw(&mut s, 3) > 0 {
                    coeffs.push(Coef::Count(entry, draw(&mut s, 5) as f32 - 2.0));
                }
            }
            if draw(&mut s, 5) == 0 {
                coeffs.push(Coef::Split(5, 1.0, draw(&mut s, 3) as f32 - 1.0));
            }
            let mut p = TracedPosition {
                inner: Vec::new(),
                phase: draw(&mut s, 25) as f32 / 24.0,
                scale: [1.0, 0.5][draw(&mut s, 2) as usize],
                offset: draw(&mut s, 41) as f32 - 20.0,
                coeffs,
                ..TracedPosition::default()
            };
            let q = p.eval(&space, &TRUTH);
            p.result = (1.0 / (1.0 + 10f64.powf(-q / 400.0))) as f32;
            p
        })
        .collect()
}
