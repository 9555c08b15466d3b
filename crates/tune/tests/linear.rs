//! An outside engine's linear evaluation as a tuning model: the stored columns give the
//! evaluation the trace format defines, probes give the change a move makes, and a
//! descent's results do not depend on the thread count.

use std::sync::atomic::AtomicBool;
use texel_data::splitmix64;
use texel_solve::error::{fit_k, mean_error, samples, SigmoidTable};
use texel_solve::{Descent, Model, Move, Probes, Variable};
use texel_tune::texel_trace::{Coef, Param, ParamSpace, TracedPosition};
use texel_tune::TraceDataset;

/// A random number in `0..n` from the stream `seed`.
fn draw(seed: &mut u64, n: u64) -> u64 {
    *seed = splitmix64(*seed);
    *seed % n
}

/// A space with a tapered table, a plain table and a single tapered value.
fn space() -> ParamSpace {
    let param = |name: &str, len: usize, tapered: bool| Param {
        name: name.into(),
        len,
        tapered,
        default: (0..len * (1 + usize::from(tapered)))
            .map(|i| (i as i32 * 7) % 23 - 11)
            .collect(),
        group: None,
        candidate: false,
    };
    ParamSpace::new(vec![
        param("TABLE", 12, true),
        param("PLAIN", 5, false),
        param("BONUS", 1, true),
    ])
    .unwrap()
}

/// `n` random positions of `space()`: counts and split counts, phases, scales, offsets.
fn positions(n: usize, seed: u64) -> Vec<TracedPosition> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            let coeffs = (0..1 + draw(&mut s, 8))
                .map(|_| {
                    let entry = draw(&mut s, 18) as u32;
                    let count = draw(&mut s, 7) as f32 - 3.0;
                    match (entry < 12 || entry == 17) && draw(&mut s, 4) == 0 {
                        true => Coef::Split(entry, count, draw(&mut s, 5) as f32 - 2.0),
                        false => Coef::Count(entry, count),
                    }
                })
                .collect();
            TracedPosition {
                inner: Vec::new(),
                game: None,
                result: draw(&mut s, 3) as f32 / 2.0,
                score: None,
                phase: draw(&mut s, 25) as f32 / 24.0,
                scale: [1.0, 0.5, 0.75][draw(&mut s, 3) as usize],
                offset: draw(&mut s, 201) as f32 - 100.0,
                offset_end: 0.0,
                coeffs,
            }
        })
        .collect()
}

fn dataset(positions: &[TracedPosition]) -> TraceDataset {
    let refs: Vec<&TracedPosition> = positions.iter().collect();
    TraceDataset::new(&space(), &refs, |p| p.result)
}

#[test]
fn the_full_pass_gives_the_evaluation_the_format_defines() {
    let (space, positions) = (space(), positions(20_000, 1));
    let mut ds = dataset(&positions);
    let mut seed = 7;
    for _ in 0..3 {
        let values: Vec<i32> = (0..space.value_count())
            .map(|_| draw(&mut seed, 401) as i32 - 200)
            .collect();
        ds.rescore(&values);
        for (i, p) in positions.iter().enumerate() {
            let want = p.eval(&space, &values);
            // Weights are 32-bit floats: within a thousandth of a centipawn.
            assert!((ds.exact_eval(i) - want).abs() < 1e-3, "{i}: {want}");
        }
    }
}

#[test]
fn probes_give_the_change_a_move_makes_and_moves_keep_the_cache_exact() {
    let (space, positions) = (space(), positions(20_000, 2));
    let mut ds = dataset(&positions);
    let defaults = space.defaults();
    ds.rescore(&defaults);
    let k = fit_k(&samples(&ds));
    let vars: Vec<Variable> = (0..space.value_count())
        .map(|slot| Variable { slot, step: 1 })
        .collect();
    let mut descent = Descent::new(&mut ds, defaults, k, vars.clone());
    let before = descent.error();
    let predicted = descent.probe(vars[3], 5);
    descent.pass(&AtomicBool::new(false), &mut |_| {}).unwrap();
    let tracked = descent.error();
    assert!(tracked < before);
    let scratch = descent.refresh();
    // Probes count each position's change in units of 2⁻³² (so that they add up the same
    // in any order): a pass's tracked sum is within half a unit a probed position.
    assert!((tracked - scratch).abs() < 1e-10, "{tracked} vs {scratch}");
    let tuned = descent.params().clone();
    // A probe is the change of the mean error the move makes.
    let mut again = dataset(&positions);
    let mut moved = space.defaults();
    again.rescore(&moved);
    let start = mean_error(&again, k);
    moved[3] += 5;
    again.rescore(&moved);
    assert!((mean_error(&again, k) - start - predicted).abs() < 1e-12);
    // The tuned values score as the descent says.
    again.rescore(&tuned);
    assert!((mean_error(&again, k) - scratch).abs() < 1e-12);
}

#[test]
fn a_descent_finds_the_same_values_on_one_or_two_threads() {
    let (space, positions) = (space(), positions(30_000, 3));
    let tune = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut ds = dataset(&positions);
            ds.rescore(&space.defaults());
            let vars = (0..space.value_count())
                .map(|slot| Variable { slot, step: 1 })
                .collect();
            let mut d = Descent::new(&mut ds, space.defaults(), 1.0, vars);
            for _ in 0..3 {
                d.pass(&AtomicBool::new(false), &mut |_| {});
            }
            let vars = d.variables().to_owned();
            let grad = d.gradient(&vars);
            (d.params().clone(), d.error().to_bits(), grad)
        })
    };
    assert_eq!(tune(1), tune(2));
}

#[test]
fn a_warm_start_tunes_a_sample_of_the_blocks_first() {
    use texel_solve::Guards;
    use texel_tune::{fresh, run, Event, RunOptions};
    let (space, positions) = (space(), positions(40_000, 4));
    let mut train = dataset(&positions);
    train.rescore(&space.defaults());
    let mut validation = dataset(&[]);
    let vars: Vec<Variable> = (0..space.value_count())
        .map(|slot| Variable { slot, step: 1 })
        .collect();
    let start = fresh(&train, 7, space.defaults(), 1.0, vars, Guards::default());
    let before = mean_error(&train, 1.0);
    let options = RunOptions {
        passes: 2,
        warm_start: Some(3),
        method: texel_solve::Method::Cd,
        ..RunOptions::default()
    };
    let mut samples = Vec::new();
    let never = AtomicBool::new(false);
    let result = run(
        &mut train,
        &mut validation,
        start,
        &options,
        &never,
        &mut |e| {
            if let Event::Pass(record, Some(descent)) = e {
                samples.push((record.sample, descent.dataset().len()));
            }
        },
    )
    .unwrap();
    let (warm, all): (Vec<&(Option<usize>, usize)>, Vec<_>) =
        samples.iter().partition(|s| s.0.is_some());
    assert!(
        !warm.is_empty() && warm.iter().all(|s| s.1 < positions.len()),
        "{samples:?}"
    );
    assert_eq!(all.len(), 2, "two passes over every position: {samples:?}");
    train.rescore(&result.params);
    assert!(mean_error(&train, 1.0) < before);
}

/// Writes `positions` of `space()` in the binary and the text form under `dir`.
fn write_both(dir: &std::path::Path, positions: &[TracedPosition]) -> [std::path::PathBuf; 2] {
    let (binary, text) = (dir.join("t.bin"), dir.join("t.jsonl"));
    let mut bytes = Vec::new();
    texel_tune::texel_trace::write_binary(&mut bytes, &space(), positions).unwrap();
    std::fs::write(&binary, bytes).unwrap();
    let mut lines = Vec::new();
    texel_tune::texel_trace::write_trace(&mut lines, &space(), positions).unwrap();
    std::fs::write(&text, lines).unwrap();
    [binary, text]
}

#[test]
fn a_binary_trace_decoded_straight_into_blocks_loads_as_its_text_form() {
    use texel_tune::{load_traces, Lambda};
    let positions = positions(20_000, 5);
    let dir = tempfile::tempdir().unwrap();
    let [binary, text] = write_both(dir.path(), &positions);
    let defaults = space().defaults();
    // Nothing held out: the training set is every position, in order, scored as defined.
    let all = load_traces(&binary, texel_data::HeldOut::NONE, Lambda::RESULTS).unwrap();
    assert_eq!(all.train.len(), positions.len());
    for (i, p) in positions.iter().enumerate() {
        let want = p.eval(&space(), &defaults);
        assert!(
            (all.train.exact_eval(i) - want).abs() < 1e-3,
            "position {i}"
        );
    }
    // Held out: both forms give the same split, evaluations and fingerprint.
    let [b, t] = [&binary, &text]
        .map(|path| load_traces(path, texel_data::HeldOut::share(100), Lambda::RESULTS).unwrap());
    assert_eq!(b.fingerprint, t.fingerprint);
    assert_ne!(
        b.fingerprint, all.fingerprint,
        "the split is part of the fingerprint"
    );
    for (x, y) in [(&b.train, &t.train), (&b.validation, &t.validation)] {
        assert_eq!(x.len(), y.len());
        assert!((0..x.len()).all(|i| x.exact_eval(i) == y.exact_eval(i)));
    }
    assert!(b.validation.len() > 1_000 && b.validation.len() < 3_000);
}

#[test]
fn a_binary_trace_names_its_first_broken_position() {
    let positions = positions(20_000, 6);
    let dir = tempfile::tempdir().unwrap();
    let [binary, _] = write_both(dir.path(), &positions);
    let mut bytes = std::fs::read(&binary).unwrap();
    // Break a position held out for validation (1 in 10, by a hash of its number) and a
    // later training position: the first in the file is named, whichever set it is in.
    let held = |k: usize| splitmix64(k as u64) % 1000 < 100;
    let first = (2..).find(|&k| held(k)).unwrap();
    let later = (first + 10_000..).find(|&k| !held(k)).unwrap();
    let header = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    let mut at = 12 + header;
    for k in 0..=later {
        if k == first || k == later {
            bytes[at + 4..at + 8].copy_from_slice(&2f32.to_le_bytes());
        }
        at += 4 + u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    }
    std::fs::write(&binary, &bytes).unwrap();
    for per_mille in [0, 100] {
        let err = texel_tune::load_traces(
            &binary,
            texel_data::HeldOut::share(per_mille),
            texel_tune::Lambda::RESULTS,
        )
        .unwrap_err()
        .to_string();
        let want = format!(": position {}: result: 2 is outside 0 to 1", first + 1);
        assert!(err.contains(&want), "{per_mille}: {err}");
    }
}

/// The positions of `positions(n, seed)` with the last plain value (entry 16) and the
/// single tapered one (entry 17) counted in every twentieth position only.
fn rare_positions(n: usize, seed: u64) -> Vec<TracedPosition> {
    let mut positions = positions(n, seed);
    let rare = |c: &Coef| matches!(*c, Coef::Count(16 | 17, _) | Coef::Split(17, _, _));
    for (i, p) in positions.iter_mut().enumerate() {
        if i % 20 != 0 {
            p.coeffs.retain(|c| !rare(c));
        } else {
            p.coeffs
                .extend([Coef::Count(16, 2.0), Coef::Split(17, 1.0, -2.0)]);
        }
    }
    positions
}

#[test]
fn a_probe_updated_over_the_changed_positions_is_the_probe_read_anew() {
    let (space, positions) = (space(), rare_positions(30_000, 3));
    let mut ds = dataset(&positions);
    let mut values = space.defaults();
    ds.rescore(&values);
    let sigmoid = SigmoidTable::new(fit_k(&samples(&ds)));
    let errors = |ds: &TraceDataset| -> Vec<f64> {
        (0..ds.len())
            .map(|i| sigmoid.squared_error(ds.eval(i), ds.target(i)))
            .collect()
    };
    let moves: Vec<(usize, i32)> = (0..space.value_count())
        .flat_map(|slot| [(slot, 1), (slot, -4)])
        .collect();
    let probes = |ds: &TraceDataset, values: &Vec<i32>| -> Vec<f64> {
        let errors = errors(ds);
        let each = |&(slot, delta): &(usize, i32)| {
            let mv = Move {
                values,
                slot,
                delta,
                sigmoid: &sigmoid,
            };
            ds.probe(&mut (), mv, &errors)
        };
        moves.iter().map(each).collect()
    };
    let updated = |ds: &TraceDataset, values: &Vec<i32>, before: (u64, &[f64])| {
        let errors = errors(ds);
        let each = |(&(slot, delta), &was): (&(usize, i32), &f64)| {
            let mv = Move {
                values,
                slot,
                delta,
                sigmoid: &sigmoid,
            };
            ds.probe_since(mv, &errors, (before.0, was))
        };
        moves
            .iter()
            .zip(before.1)
            .map(each)
            .collect::<Option<Vec<f64>>>()
    };
    let (scoring, before) = (ds.scorings(), probes(&ds, &values));
    // The plain value (a count column) and the endgame part of the single tapered one (a
    // weight column, a split count) move: one position in twenty changes.
    (values[28], values[30]) = (values[28] + 3, values[30] - 7);
    ds.rescore(&values);
    let again = probes(&ds, &values);
    assert_eq!(
        updated(&ds, &values, (scoring, &before)),
        Some(again.clone())
    );
    assert_ne!(again, before);
    // Scored again at the same values (as a run does after a round), the update holds.
    ds.rescore(&values);
    assert_eq!(
        updated(&ds, &values, (scoring, &before)),
        Some(again.clone())
    );
    // Not from another scoring, nor after a rescore that changes most positions.
    assert_eq!(updated(&ds, &values, (scoring + 1, &before)), None);
    let (scoring, before) = (ds.scorings(), again);
    values[0] += 1;
    ds.rescore(&values);
    assert_eq!(updated(&ds, &values, (scoring, &before)), None);
}

/// Position `i`'s evaluation in an engine's whole numbers, 192ths of a centipawn: its
/// phase in 24ths, scale in 8ths, fixed part in 16ths and whole counts (no split ones).
fn in_192ths(space: &ParamSpace, p: &TracedPosition, values: &[i32]) -> i64 {
    let (k, j) = (
        (p.phase * 24.0).round() as i64,
        (p.scale * 8.0).round() as i64,
    );
    let (mut mid, mut end, mut plain) = (0, 0, 0);
    for c in &p.coeffs {
        let Coef::Count(entry, n) = *c else {
            unreachable!("whole counts only")
        };
        let (param, at) = space.entry(entry as usize).unwrap();
        let n = n as i64;
        match param.tapered {
            true => {
                (mid, end) = (
                    mid + n * i64::from(values[at]),
                    end + n * i64::from(values[at + 1]),
                )
            }
            false => plain += n * i64::from(values[at]),
        }
    }
    12 * (p.offset * 16.0).round() as i64 + 8 * k * mid + (24 - k) * j * end + 192 * plain
}

#[test]
fn whole_centipawns_are_an_engine_s_a_half_away_from_zero() {
    let space = space();
    let mut positions = positions(20_000, 4);
    let mut s = 11;
    for p in &mut positions {
        p.coeffs.retain(|c| matches!(c, Coef::Count(..)));
        p.scale = (4 + draw(&mut s, 5)) as f32 / 8.0;
        p.offset = (draw(&mut s, 801) as f32 - 400.0) / 16.0;
    }
    let mut ds = dataset(&positions);
    let mut halves = 0;
    for _ in 0..3 {
        let values: Vec<i32> = (0..space.value_count())
            .map(|_| draw(&mut s, 401) as i32 - 200)
            .collect();
        ds.rescore(&values);
        for (i, p) in positions.iter().enumerate() {
            let exact = in_192ths(&space, p, &values);
            let engine = exact.signum() * ((2 * exact.abs() + 192) / 384);
            assert_eq!(i64::from(ds.eval(i)), engine, "{i}: {exact}/192");
            halves += usize::from(exact.abs() % 192 == 96);
        }
    }
    assert!(halves >= 50, "{halves} evaluations are halves");
}
