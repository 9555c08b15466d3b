//! `--method newton` (and Adam's real-valued epochs): the Jacobian rows are how the
//! evaluation moves and the models' block passes are sums over them, Newton and Adam find
//! the optimum of a linear evaluation in real numbers, and a Newton run does not depend on
//! the thread count and resumes exactly from its checkpoint (the real values included).

mod common;

use common::{data, on_threads, planted_positions as positions, planted_space as space, TRUTH};
use std::sync::atomic::{AtomicBool, Ordering};
use texel_dataset::{select, Dataset};
use texel_eval::Params;
use texel_solve::error::{fit_k, samples};
use texel_solve::{Method, Model, Probes, RowBuilder, Values, Variable};
use texel_tune::texel_trace::TracedPosition;
use texel_tune::{
    fresh, run, Checkpoint, Event, RunEnd, RunOptions, RunResult, Selection, TraceDataset,
};

fn linear(positions: &[TracedPosition]) -> TraceDataset {
    let refs: Vec<&TracedPosition> = positions.iter().collect();
    TraceDataset::new(&space(), &refs, |p| p.result)
}

fn options(method: Method, passes: usize) -> RunOptions {
    RunOptions {
        passes,
        checkpoint_secs: 1e9,
        method,
        ..Default::default()
    }
}

/// Tunes 30,000 positions labelled by [`TRUTH`] from zero with `method` (at most `passes`
/// passes): the result and each pass's error of the real values.
fn tune_planted(method: Method, passes: usize) -> (RunResult<Vec<i32>>, Vec<f64>) {
    let positions = positions(30_000);
    let (mut train, mut validation) = (linear(&positions), linear(&[]));
    let vars: Vec<Variable> = (0..13).map(|slot| Variable { slot, step: 1 }).collect();
    let start = fresh(&train, 0, vec![0; 13], 1.0, vars, Default::default());
    let mut real = Vec::new();
    let mut on = |e: Event<TraceDataset>| {
        if let Event::Pass(r, _) = e {
            real.extend(r.real_error);
        }
    };
    let options = options(method, passes);
    let never = AtomicBool::new(false);
    let result = run(
        &mut train,
        &mut validation,
        start,
        &options,
        &never,
        &mut on,
    )
    .unwrap();
    (result, real)
}

#[test]
fn newton_finds_the_optimum_of_a_linear_evaluation_and_rounds_it() {
    let (result, iterations) = tune_planted(Method::Newton, 50);
    assert_eq!(result.params, TRUTH.to_vec());
    assert_eq!(result.end, RunEnd::Converged);
    // Quadratic convergence: a handful of iterations, the last one at zero error.
    assert!(iterations.len() <= 12, "{iterations:?}");
    assert!(*iterations.last().unwrap() < 1e-12, "{iterations:?}");
}

#[test]
fn adam_finds_the_optimum_of_a_linear_evaluation_in_real_numbers() {
    let (result, real) = tune_planted(Method::Adam, 400);
    assert_eq!(result.end, RunEnd::Converged);
    let off: Vec<i32> = (result.params.iter().zip(TRUTH))
        .map(|(a, b)| a - b)
        .collect();
    assert!(off.iter().all(|d| d.abs() <= 1), "{off:?}");
    assert!(
        *real.last().unwrap() < 1e-7,
        "{:?}",
        &real[real.len() - 3..]
    );
}

/// `J · direction` and `Σ slope · J` of every block through `model`'s own passes against
/// the same sums over its Jacobian rows, for the variables `slots`.
fn block_passes_match_rows<M: Model>(model: &M, slots: &[usize]) {
    let direction: Vec<f64> = (0..slots.len()).map(|j| j as f64 * 0.37 - 1.1).collect();
    let mut rows = RowBuilder::default();
    for b in 0..model.row_blocks() {
        let (start, len) = model.block_span(b);
        let slopes: Vec<f64> = (0..len).map(|p| ((start + p) % 7) as f64 - 3.0).collect();
        let (mut product, mut gradient) = (vec![0.0; len], vec![0.0; slots.len()]);
        model.block_product(b, slots, &direction, &mut product);
        model.block_gradient(b, slots, &slopes, &mut gradient);
        let (mut want_product, mut want_gradient) = (vec![0.0; len], vec![0.0; slots.len()]);
        model.block_rows(b, slots, &mut rows);
        rows.for_each(|i, vars, derivatives| {
            for (&j, d) in vars.iter().zip(derivatives) {
                want_product[i - start] += d * direction[j as usize];
                want_gradient[j as usize] += d * slopes[i - start];
            }
        });
        let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
        assert!(close(&product, &want_product), "block {b}: product");
        assert!(close(&gradient, &want_gradient), "block {b}: gradient");
    }
}

#[test]
fn block_passes_are_the_sums_over_the_jacobian_rows() {
    let positions = positions(20_000);
    let ds = linear(&positions);
    // Every value; only some (a middlegame value without its endgame one, the plain value).
    block_passes_match_rows(&ds, &(0..13).collect::<Vec<_>>());
    block_passes_match_rows(&ds, &[12, 3, 10, 0]);
    let (table, _, _) = data(2000, &Params::default(), 100);
    let linear: Vec<usize> = (0..Model::slot_count(&table))
        .filter(|&s| table.linear(s))
        .step_by(31)
        .collect();
    block_passes_match_rows(&table, &linear);
}

/// Every position's row entry for `slot` against the change of its unrounded evaluation
/// when the value moves by one.
fn rows_match_moves<M: Model>(model: &mut M, values: &M::Values, slot: usize) {
    model.rescore(values);
    let before: Vec<f64> = (0..model.len()).map(|i| model.exact_eval(i)).collect();
    let mut rows = RowBuilder::default();
    let mut derivative = vec![0.0; model.len()];
    for b in 0..model.row_blocks() {
        model.block_rows(b, &[slot], &mut rows);
        rows.for_each(|i, _, derivatives| derivative[i] = derivatives.iter().sum());
    }
    model.rescore(&values.moved(slot, 1));
    let mut fired = 0;
    for (i, (b, d)) in before.iter().zip(&derivative).enumerate() {
        let moved = model.exact_eval(i) - b;
        assert!(
            (moved - d).abs() < 1e-3,
            "slot {slot} position {i}: {moved} {d}"
        );
        fired += usize::from(*d != 0.0);
    }
    assert!(fired > 0, "slot {slot} moves no position");
}

#[test]
fn jacobian_rows_are_how_far_a_value_moves_each_evaluation() {
    let positions = positions(3000);
    let mut ds = linear(&positions);
    for slot in [0, 1, 10, 11, 12] {
        rows_match_moves(&mut ds, &vec![7; 13], slot);
    }
    let (mut table, _, _) = data(2000, &Params::default(), 100);
    let params = Params::default();
    let linear: Vec<usize> = (0..Model::slot_count(&table))
        .filter(|&s| table.linear(s) && table.support(&[s]) > 50)
        .step_by(97)
        .collect();
    assert!(linear.len() > 5);
    for slot in linear {
        rows_match_moves(&mut table, &params, slot);
    }
}

/// [`texel_solve::Probes::eval_moves`] of `slot` by `delta` against rescoring every position there.
fn moves_match_rescoring(table: &mut texel_dataset::Dataset, slot: usize, delta: i32) -> usize {
    let params = Params::default();
    table.rescore(&params);
    let before: Vec<f64> = (0..table.len()).map(|i| table.exact_eval(i)).collect();
    let mut cache = table.cache(&params);
    let sigmoid = texel_solve::error::SigmoidTable::new(1.0);
    let mv = texel_solve::Move {
        values: &params,
        slot,
        delta,
        sigmoid: &sigmoid,
    };
    let moves = table.eval_moves(&mut cache, mv);
    assert!(
        moves.windows(2).all(|w| w[0].0 < w[1].0),
        "positions rising"
    );
    let mut said = vec![0.0; table.len()];
    moves.iter().for_each(|&(i, d)| said[i as usize] = d);
    table.rescore(&params.moved(slot, delta));
    for (i, (b, d)) in before.iter().zip(&said).enumerate() {
        let moved = table.exact_eval(i) - b;
        assert!(
            (moved - d).abs() < 1e-6,
            "slot {slot} position {i}: {moved} {d}"
        );
    }
    moves.len()
}

#[test]
fn a_curve_or_formula_value_moves_evaluations_as_rescoring_says() {
    let (mut table, _, _) = data(2000, &Params::default(), 100);
    let others: Vec<usize> = (0..Model::slot_count(&table))
        .filter(|&s| !table.linear(s) && table.support(&[s]) > 50)
        .step_by(7)
        .collect();
    assert!(others.len() > 5, "{others:?}");
    let moved: usize = others
        .iter()
        .map(|&slot| {
            moves_match_rescoring(&mut table, slot, 1) + moves_match_rescoring(&mut table, slot, -3)
        })
        .sum();
    assert!(moved > 0);
}

/// A Newton run over texel's table (linear values, curve inputs and formula weights) from
/// the defaults, stopped by `stop`; its checkpoint in `dir`.
fn tune_table(
    dir: &std::path::Path,
    stop: &mut dyn FnMut(&Event<Dataset>) -> bool,
) -> RunResult<Params> {
    let (mut train, mut validation, id) = data(4000, &Params::default(), 100);
    let k = fit_k(&samples(&train));
    let start = match Checkpoint::<Params>::read(&dir.join("run.ckpt")) {
        Ok(c) => {
            train.rescore(&c.descent.params);
            c
        }
        Err(_) => {
            let groups = ["KnightV", "KingV", "ScaleV", "PassedV"];
            let vars = select(&Selection {
                groups: groups.iter().map(|g| g.to_string()).collect(),
                ..Default::default()
            })
            .unwrap();
            let guards = texel_solve::Guards {
                l2: 0.1,
                constraints: true,
            };
            fresh(&train, id, Params::default(), k, vars, guards)
        }
    };
    let options = RunOptions {
        checkpoint: Some(dir.join("run.ckpt")),
        patience: Some(2),
        ..options(Method::Newton, 8)
    };
    let halt = AtomicBool::new(false);
    let mut on = |e: Event<Dataset>| {
        if stop(&e) {
            halt.store(true, Ordering::SeqCst);
        }
    };
    run(&mut train, &mut validation, start, &options, &halt, &mut on).unwrap()
}

#[test]
fn newton_on_the_table_is_the_same_on_one_or_two_threads_and_resumes_exactly() {
    let on = |threads| on_threads(threads, |dir| tune_table(dir, &mut |_| false));
    let straight = on(2);
    assert_eq!(straight.params, on(1).params);
    assert_ne!(straight.params, Params::default());

    let dir = tempfile::tempdir().unwrap();
    let mut seen = 0;
    let first = tune_table(dir.path(), &mut |e| {
        // A Newton iteration says it takes every position at once, walking no variable.
        if let Event::Progress(p) = e {
            assert!(p.whole && p.walked == 0, "{p:?}");
        }
        seen += matches!(e, Event::Progress(texel_tune::Progress { pass: 3, .. })) as usize;
        seen == 1
    });
    assert_eq!((first.end, first.passes), (RunEnd::Interrupted, 2));
    let ckpt = Checkpoint::<Params>::read(&dir.path().join("run.ckpt")).unwrap();
    let newton = ckpt.descent.newton.as_ref().unwrap();
    assert_eq!(newton.iterations, 2);
    assert!(
        newton.values.iter().any(|v| v.fract() != 0.0),
        "real values kept"
    );
    let last = tune_table(dir.path(), &mut |_| false);
    assert_eq!(last.passes, straight.passes);
    assert_eq!(last.params, straight.params);
}

#[test]
fn newton_moves_the_values_curves_and_formulas_read_with_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let mut seen = 0;
    tune_table(dir.path(), &mut |e| {
        seen += matches!(e, Event::Progress(texel_tune::Progress { pass: 2, .. })) as usize;
        seen == 1
    });
    let ckpt = Checkpoint::<Params>::read(&dir.path().join("run.ckpt")).unwrap();
    let newton = ckpt.descent.newton.as_ref().unwrap();
    assert_eq!((newton.iterations, newton.handed_over), (1, false));
    let (table, _, _) = data(100, &Params::default(), 0);
    let start = Params::default();
    let others: Vec<(usize, f64)> = ckpt
        .vars
        .iter()
        .zip(&newton.values)
        .filter(|(v, _)| !table.linear(v.slot))
        .map(|(v, &x)| (v.slot, x))
        .collect();
    assert!(others.len() > 3, "{others:?}");
    let moved = others
        .iter()
        .filter(|&&(slot, x)| x != f64::from(start.flat()[slot]))
        .count();
    assert!(moved > 0, "no curve or formula value moved: {others:?}");
}
