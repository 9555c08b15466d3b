//! The descent on real positions: incremental error equals a full re-evaluation, results do
//! not depend on the thread count, and tuning lowers the error.

use std::sync::atomic::AtomicBool;
use texel_data::{parse_line, Labelled};
use texel_dataset::{load, select, Dataset, LoadOptions};
use texel_eval::{evaluate, Params};
use texel_solve::error::{fit_k, mean_error, samples, squared_error};
use texel_solve::Descent;
use texel_tune::Selection;

/// The first `n` labelled positions of the shipped data set.
fn labelled(n: usize) -> Vec<Labelled> {
    include_str!("../../../data/train.epd")
        .lines()
        .take(n)
        .map(|l| parse_line(l, None, false).unwrap().0)
        .collect()
}

/// The first `n` positions of the shipped data set (through a temporary file) and the
/// fitted K.
fn dataset(n: usize, name: &str) -> (Dataset, f64) {
    let lines: Vec<&str> = include_str!("../../../data/train.epd")
        .lines()
        .take(n)
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{name}.epd"));
    std::fs::write(&path, lines.join("\n")).unwrap();
    let (train, _, report) = load(
        std::slice::from_ref(&path),
        &Params::default(),
        &LoadOptions::default(),
        &|_| {},
    )
    .unwrap();
    assert_eq!(report.train, n);
    let k = fit_k(&samples(&train));
    (train, k)
}

fn selection(groups: &[&str]) -> Selection {
    Selection {
        groups: groups.iter().map(|g| g.to_string()).collect(),
        ..Default::default()
    }
}

/// The mean error from scratch: every board evaluated with `params`.
fn direct_error(positions: &[Labelled], params: &Params, k: f64) -> f64 {
    let sum: f64 = positions
        .iter()
        .map(|l| squared_error(k, evaluate(&l.position, params), l.label.white_score()))
        .sum();
    sum / positions.len() as f64
}

#[test]
fn incremental_error_matches_a_full_evaluation_after_many_moves() {
    let (mut ds, k) = dataset(1500, "incremental");
    let boards = labelled(1500);
    assert!((mean_error(&ds, k) - direct_error(&boards, &Params::default(), k)).abs() < 1e-12);
    // Linear and non-linear groups together: mobility curves, the king attack formula, the
    // scale rules, passed-pawn curves.
    let vars = select(&selection(&[
        "KnightV", "KingV", "PassedV", "ScaleV", "PawnV",
    ]))
    .unwrap();
    let mut descent = Descent::new(&mut ds, Params::default(), k, vars);
    let summary = descent.pass(&AtomicBool::new(false), &mut |_| {}).unwrap();
    assert!(summary.moves > 20, "only {} moves", summary.moves);
    let incremental = descent.error();
    let params = descent.params().clone();
    let refreshed = descent.refresh();
    let rel = ((incremental - refreshed) / refreshed).abs();
    assert!(
        rel < 1e-9,
        "incremental {incremental} vs refreshed {refreshed} ({rel:e})"
    );
    drop(descent);
    let direct = direct_error(&boards, &params, k);
    assert!(
        ((direct - refreshed) / direct).abs() < 1e-12,
        "direct {direct} vs {refreshed}"
    );
}

#[test]
fn a_full_rescore_over_many_segments_matches_a_full_evaluation() {
    // 20,000 positions are traced into several segments by several threads.
    let (mut ds, k) = dataset(20_000, "segments");
    let boards = labelled(20_000);
    // Every value moved by a pseudo-random amount, and one candidate family at zero
    // (its columns are skipped).
    let mut params = Params::default();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for slot in 0..params.flat().len() {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        params.set_flat(slot, params.flat()[slot] + (seed % 21) as i32 - 10);
    }
    let params = params.without_candidates();
    ds.rescore(&params);
    let (rescored, direct) = (mean_error(&ds, k), direct_error(&boards, &params, k));
    assert!(
        ((rescored - direct) / direct).abs() < 1e-12,
        "rescored {rescored} vs direct {direct}"
    );
}

#[test]
fn tuned_values_do_not_depend_on_the_thread_count() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            // Enough positions for probes and the full pass to be split into several parts.
            let (mut ds, k) = dataset(20_000, &format!("threads{threads}"));
            let vars = select(&selection(&["BishopV", "KingV", "PassedV", "ScaleV"])).unwrap();
            let mut d = Descent::new(&mut ds, Params::default(), k, vars);
            d.pass(&AtomicBool::new(false), &mut |_| {}).unwrap();
            d.refresh();
            (k.to_bits(), d.error().to_bits(), d.params().clone())
        })
    };
    let (k1, e1, p1) = run(1);
    let (k2, e2, p2) = run(2);
    assert_eq!((k1, e1), (k2, e2));
    assert_eq!(p1, p2);
    assert_ne!(p1, Params::default());
}

#[test]
fn passes_keep_lowering_the_error_with_fewer_moves() {
    let (mut ds, k) = dataset(2000, "lower");
    let before = mean_error(&ds, k);
    let vars = select(&Selection {
        freeze_material: true,
        ..selection(&["MaterialV", "CoordV"])
    })
    .unwrap();
    let mut d = Descent::new(&mut ds, Params::default(), k, vars);
    let first = d.pass(&AtomicBool::new(false), &mut |_| {}).unwrap();
    assert!(first.error < before);
    let mut last = first.clone();
    for _ in 0..5 {
        let next = d.pass(&AtomicBool::new(false), &mut |_| {}).unwrap();
        assert!(next.error <= last.error);
        last = next;
    }
    assert!(
        last.moves * 4 < first.moves,
        "{} moves after {} in the first pass",
        last.moves,
        first.moves
    );
}

#[test]
fn a_value_far_from_its_optimum_gets_there_in_few_probes_and_ends_at_a_local_optimum() {
    let (mut ds, k) = dataset(3000, "adaptive");
    let knight = texel_eval::table::PIECE_VALUE.at(1).flat_index();
    let mut start = Params::default();
    start.set_flat(knight, start.flat()[knight] - 300);
    ds.rescore(&start);
    let var = texel_solve::Variable {
        slot: knight,
        step: 1,
    };
    let mut descent = Descent::new(&mut ds, start.clone(), k, vec![var]);
    let summary = descent.pass(&AtomicBool::new(false), &mut |_| {}).unwrap();
    let moved = descent.params().flat()[knight] - start.flat()[knight];
    assert!(moved > 150, "the knight came back only {moved}");
    assert!(
        summary.probes < 40 && summary.moves < 20,
        "{moved} units in {} moves and {} probes",
        summary.probes,
        summary.moves
    );
    for delta in [1, -1] {
        assert!(
            descent.probe(var, delta) >= 0.0,
            "one step {delta} still helps"
        );
    }
}
