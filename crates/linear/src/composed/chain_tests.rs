//! A composed evaluation with every inner shape — king safety's clamped square and a line
//! weighed by a parameter, a complexity reading the whole endgame part — beside split
//! counts, a fixed endgame part and scales above 1: the dataset evaluates as the trace
//! format defines, its probes and moves stay exact, and the chain rule's gradient is the
//! error's slope.

use super::chain;
use super::chain::WholeBlocks;
use super::ComposedDataset;
use crate::LinearDataset;
use std::f64::consts::PI;
use std::sync::atomic::AtomicBool;
use texel_data::splitmix64;
use texel_solve::descent::{Descent, Variable};
use texel_solve::error::{fit_k, mean_error, samples};
use texel_solve::jacobian::{hessian, System};
use texel_solve::model::{Model, Probes};
use texel_trace::{Coef, Curve, InnerSum, InnerTerm, Param, ParamSpace, Shape, TracedPosition};

fn draw(seed: &mut u64, n: u64) -> u64 {
    *seed = splitmix64(*seed);
    *seed % n
}

/// A parameter of no group, not a candidate.
fn param(name: &str, len: usize, tapered: bool, default: Vec<i32>) -> Param {
    Param {
        name: name.into(),
        len,
        tapered,
        default,
        group: None,
        candidate: false,
    }
}

/// A shape with no ceiling.
fn shape(curve: Curve, floor: Option<f64>, times: f64, times_value: Option<usize>) -> Shape {
    Shape {
        curve,
        floor,
        ceiling: None,
        times,
        times_value,
    }
}

/// Entries: `TABLE` 0–5 (tapered), `COMPLEXITY` 6–8 (plain), `DANGER` 9–10 (tapered),
/// `DANGER_WEIGHT` 11. Slots: 0–11, 12–14, 15–18, 19.
fn space() -> ParamSpace {
    danger_space(vec![InnerTerm {
        name: "complexity".into(),
        mid: None,
        end: Some(shape(Curve::Complexity, None, 1.0, None)),
    }])
}

/// [`space`]'s values with king safety (a clamped square in the middlegame, a line weighed
/// by `DANGER_WEIGHT` in the endgame) and the inner terms `more` after it.
fn danger_space(more: Vec<InnerTerm>) -> ParamSpace {
    let king_safety = InnerTerm {
        name: "king_safety".into(),
        mid: Some(shape(Curve::Square, Some(0.0), -0.004, None)),
        end: Some(shape(Curve::Linear, Some(0.0), -0.02, Some(19))),
    };
    ParamSpace::new(vec![
        param("TABLE", 6, true, (0..12).map(|i| 40 + 13 * i).collect()),
        param("COMPLEXITY", 3, false, vec![6, 20, -90]),
        param("DANGER", 2, true, vec![30, 20, 45, 15]),
        param("DANGER_WEIGHT", 1, false, vec![25]),
    ])
    .unwrap()
    .with_inner([vec![king_safety], more].concat())
    .unwrap()
}

/// `n` random positions of [`space`]: the complexities (−110 to 110 at the defaults) hold
/// some endgame parts at zero and move others.
fn positions(n: usize, seed: u64) -> Vec<TracedPosition> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            let mut coeffs = Vec::new();
            for _ in 0..1 + draw(&mut s, 5) {
                let (entry, count) = (draw(&mut s, 6) as u32, draw(&mut s, 5) as f32 - 2.0);
                coeffs.push(match draw(&mut s, 5) {
                    0 => Coef::Split(entry, count, draw(&mut s, 3) as f32 - 1.0),
                    1 => Coef::Count(entry, count * 0.75),
                    _ => Coef::Count(entry, count),
                });
            }
            // A danger value counted apart in each part now and then (a split count, kept
            // as one count a part), or by a fraction.
            let danger = |s: &mut u64, side: f32| InnerSum {
                term: 0,
                side,
                offset: [draw(s, 61) as f32 - 40.0; 2],
                coeffs: vec![
                    Coef::Count(9, draw(s, 4) as f32),
                    match draw(s, 4) {
                        0 => Coef::Split(10, draw(s, 3) as f32, draw(s, 3) as f32 - 1.0),
                        1 => Coef::Count(10, 0.5 * draw(s, 3) as f32),
                        _ => Coef::Count(10, draw(s, 3) as f32),
                    },
                ],
            };
            let complexity = InnerSum {
                term: 1,
                side: 1.0,
                offset: [0.0, draw(&mut s, 41) as f32 - 20.0],
                coeffs: vec![
                    Coef::Count(6, draw(&mut s, 16) as f32),
                    // A plain value's split count: only its endgame count reaches the
                    // complexity.
                    Coef::Split(7, 3.0, draw(&mut s, 2) as f32),
                    Coef::Count(8, 1.0),
                ],
            };
            let mut inner = vec![danger(&mut s, 1.0), danger(&mut s, -1.0)];
            if draw(&mut s, 8) != 0 {
                inner.push(complexity);
            }
            TracedPosition {
                result: draw(&mut s, 3) as f32 / 2.0,
                phase: draw(&mut s, 25) as f32 / 24.0,
                scale: [1.0, 0.5, 1.125][draw(&mut s, 3) as usize],
                offset: draw(&mut s, 41) as f32 - 20.0,
                offset_end: draw(&mut s, 81) as f32 - 40.0,
                coeffs,
                inner,
                ..TracedPosition::default()
            }
        })
        .collect()
}

/// The composed dataset of `positions` of `space`, unscored.
fn composed(
    space: &ParamSpace,
    positions: &[&TracedPosition],
    label: impl Fn(&TracedPosition) -> f32 + Sync,
) -> ComposedDataset {
    let all: Vec<usize> = (0..positions.len()).collect();
    let Ok((set, _)) = LinearDataset::build(space, positions, &all, label, |_| ());
    set
}

/// The dataset of `positions`, scored at `values`.
fn scored(positions: &[TracedPosition], values: &[i32]) -> ComposedDataset {
    let refs: Vec<&TracedPosition> = positions.iter().collect();
    let mut ds = composed(&space(), &refs, |p| p.result);
    ds.rescore(&values.to_vec());
    ds
}

#[test]
fn a_composed_dataset_evaluates_as_the_format_defines() {
    let (space, positions) = (space(), positions(5_000, 1));
    let mut ds = scored(&positions, &space.defaults());
    let mut seed = 3;
    for round in 0..4 {
        let mut values = space.defaults();
        if round > 0 {
            values
                .iter_mut()
                .for_each(|v| *v += draw(&mut seed, 41) as i32 - 20);
        }
        ds.rescore(&values);
        for (i, p) in positions.iter().enumerate() {
            let want = p.eval(&space, &values);
            // Weights are 32-bit floats: within a thousandth of a centipawn.
            assert!((ds.exact_eval(i) - want).abs() < 1e-3, "{i}: {want}");
        }
    }
}

#[test]
fn probes_and_moves_of_a_composed_dataset_stay_exact() {
    let (space, positions) = (space(), positions(5_000, 2));
    let defaults = space.defaults();
    let mut ds = scored(&positions, &defaults);
    let k = fit_k(&samples(&ds));
    assert!(
        !ds.linear(1) && ds.linear(0) && !ds.linear(12),
        "endgame values read by the complexity"
    );
    let vars: Vec<Variable> = (0..space.value_count())
        .map(|slot| Variable { slot, step: 1 })
        .collect();
    let mut descent = Descent::new(&mut ds, defaults.clone(), k, vars.clone());
    let before = descent.error();
    // An endgame value, a complexity weight, a danger weight, the parameter factor.
    for (slot, delta) in [(1, 7), (12, 3), (16, -4), (19, 5)] {
        let predicted = descent.probe(vars[slot], delta);
        let mut moved = defaults.clone();
        moved[slot] += delta;
        let made = mean_error(&scored(&positions, &moved), k) - before;
        assert!(
            (made - predicted).abs() < 1e-12,
            "slot {slot}: {made} vs {predicted}"
        );
    }
    descent.pass(&AtomicBool::new(false), &mut |_| {}).unwrap();
    let tracked = descent.error();
    assert!(tracked < before);
    let scratch = descent.refresh();
    // Within half an error unit (2⁻³²) a probed position: see `texel_solve::error::ERROR_UNITS`.
    assert!((tracked - scratch).abs() < 1e-10, "{tracked} vs {scratch}");
}

#[test]
fn trials_made_move_by_move_score_what_trials_scored_anew_do() {
    use texel_solve::error::SigmoidTable;
    use texel_solve::polish::{made_sizes, made_trials, summed_error};
    let (space, positions) = (space(), positions(5_000, 5));
    let values = space.defaults();
    let mut ds = scored(&positions, &values);
    let table = SigmoidTable::new(fit_k(&samples(&ds)));
    let before: Vec<f64> = (0..ds.len()).map(|i| ds.exact_eval(i)).collect();
    // Three table values (each in about a third of the positions), then a danger weight
    // (two sums a position), an endgame value, the parameter factor, a complexity weight.
    let moves = [
        (0, 1),
        (3, 2),
        (5, -1),
        (16, 3),
        (1, -2),
        (19, 4),
        (12, 5),
        (17, -3),
    ];
    let sizes = [8, 4, 2, 1];
    // Making a move costs twice its reach, scoring anew every position for each trial.
    let one_by_one: Vec<usize> = (1..=8).rev().collect();
    assert_eq!(
        made_sizes(&ds, &moves[3..4], &[1]),
        0,
        "a danger weight alone"
    );
    assert_eq!(
        made_sizes(&ds, &moves, &one_by_one),
        3,
        "the table values made"
    );
    // Trials of up to 0, 2 and 8 moves made one by one, the rest scored anew.
    for largest_made in [0, 2, 8] {
        let with = (&sizes[..], largest_made);
        let sums = made_trials((&mut ds, &mut ()), (&values, &moves), with, &table);
        for (&size, &sum) in sizes.iter().zip(&sums) {
            let mut moved = values.clone();
            moves[..size].iter().for_each(|&(s, d)| moved[s] += d);
            let anew = summed_error(&scored(&positions, &moved), &table);
            assert!((sum - anew).abs() < 1e-9, "{size} moves: {sum} vs {anew}");
        }
    }
    for (i, &was) in before.iter().enumerate() {
        assert!(
            (ds.exact_eval(i) - was).abs() < 1e-9,
            "{i} is scored at the start"
        );
    }
}

#[test]
fn the_chain_rule_s_gradient_is_the_slope_of_the_error() {
    // With a complexity (the gradient through the rows) and without (a block at a time).
    let mut plain = positions(3_000, 4);
    plain
        .iter_mut()
        .for_each(|p| p.inner.retain(|s| s.term == 0));
    for (space, positions) in [
        (space(), positions(3_000, 4)),
        (danger_space(vec![]), plain),
    ] {
        let at = space.defaults();
        let refs: Vec<&TracedPosition> = positions.iter().collect();
        let mut ds = composed(&space, &refs, |p| p.result);
        ds.rescore(&at);
        gradient_is_the_slope(&ds, &at);
    }
}

/// `ds`'s gradient through the chain rule, scored at `at`, is its summed error's slope
/// near `at`, and the gradient of its system.
fn gradient_is_the_slope(ds: &ComposedDataset, at: &[i32]) {
    let slots: Vec<usize> = (0..at.len()).collect();
    let mut seed = 9;
    // Real values off every kink: no sum sits exactly on its clamp.
    let x: Vec<f64> = (at.iter())
        .map(|&v| f64::from(v) + draw(&mut seed, 1_000_000) as f64 * 1e-5 - 5.0 + 1e-3 * PI)
        .collect();
    let k = 1.0;
    let (sum, gradient) = chain::gradient(ds, at, &slots, &x, k);
    assert!((sum - chain::summed_error(ds, at, &slots, &x, k)).abs() < 1e-9);
    let (_, system) = chain::system(ds, at, &slots, &x, k);
    let h = 1e-4;
    for (j, g) in gradient.iter().enumerate() {
        let mut up = x.clone();
        let mut down = x.clone();
        up[j] += h;
        down[j] -= h;
        let slope = (chain::summed_error(ds, at, &slots, &up, k)
            - chain::summed_error(ds, at, &slots, &down, k))
            / (2.0 * h);
        assert!(
            (slope - g).abs() <= 1e-4 * g.abs().max(1.0),
            "slot {j}: {slope} vs {g}"
        );
        let rows = system.gradient[j];
        assert!(
            (rows - g).abs() <= 1e-12 * g.abs().max(1.0),
            "slot {j}: {rows} vs {g}"
        );
    }
}

#[test]
fn a_system_built_a_part_of_a_block_at_a_time_is_the_whole_blocks_one() {
    let (space, positions) = (space(), positions(9_000, 5));
    let at = space.defaults();
    let ds = scored(&positions, &at);
    assert!(ds.len() > 2 * crate::layout::BLOCK && super::ROW_PART < crate::layout::BLOCK);
    let slots: Vec<usize> = (0..space.value_count()).collect();
    let mut seed = 11;
    let x: Vec<f64> = (at.iter())
        .map(|&v| f64::from(v) + draw(&mut seed, 1_000) as f64 * 1e-2 - 5.0)
        .collect();
    let (sum, parts) = chain::system(&ds, &at, &slots, &x, 1.0);
    let (whole_sum, whole) = chain::system_of_whole_blocks(&ds, (&at, &slots, &x), 1.0);
    assert_eq!(sum, whole_sum);
    // The same entries; a faint position's join the sums in another order.
    assert_close(&parts, &whole);
    assert!(parts.hessian.iter().filter(|h| **h != 0.0).count() > 4 * slots.len());
    // The linear columns alone (the table's values), as the dataset hands them out.
    let table: Vec<usize> = (0..12).collect();
    let q: Vec<f64> = (0..ds.len()).map(|i| ds.exact_eval(i)).collect();
    let d = texel_solve::newton::derivatives(&ds, &q, 1.0);
    let by_parts = hessian::system(&ds, &table, &d.slopes, &d.curvatures);
    assert_close(
        &by_parts,
        &hessian::system(&WholeBlocks(&ds), &table, &d.slopes, &d.curvatures),
    );
}

/// `a` and `b` agree to 1e-12 of their largest entries.
fn assert_close(a: &System, b: &System) {
    let pairs = (a.gradient.iter().zip(&b.gradient)).chain(a.hessian.iter().zip(&b.hessian));
    let scale = pairs.clone().fold(0.0f64, |m, (x, _)| m.max(x.abs()));
    for (x, y) in pairs {
        assert!((x - y).abs() <= 1e-12 * scale, "{x} vs {y}");
    }
    assert_eq!(a.n, b.n);
}

/// King safety started at zero: a square of the middlegame danger sum and a line of the
/// endgame's weighed by a parameter, neither clamped, every danger value and the weight at
/// 0, beside a linear table. Entries: `TABLE` 0–1, `DANGER` 2–3 (tapered), `WEIGHT` 4;
/// slots 0–3, 4–7, 8.
fn saddle_space() -> ParamSpace {
    let shape = |curve, times, times_value| Shape {
        curve,
        floor: None,
        ceiling: None,
        times,
        times_value,
    };
    ParamSpace::new(vec![
        param("TABLE", 2, true, vec![90, 110, 280, 310]),
        param("DANGER", 2, true, vec![0; 4]),
        param("WEIGHT", 1, false, vec![0]),
    ])
    .unwrap()
    .with_inner(vec![InnerTerm {
        name: "king_safety".into(),
        mid: Some(shape(Curve::Square, -0.004, None)),
        end: Some(shape(Curve::Linear, -0.02, Some(8))),
    }])
    .unwrap()
}

/// `n` random positions of [`saddle_space`], their danger sums without a fixed part.
fn saddle_positions(n: usize, seed: u64) -> Vec<TracedPosition> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            let danger = |s: &mut u64, side: f32| InnerSum {
                term: 0,
                side,
                offset: [0.0; 2],
                coeffs: vec![
                    Coef::Count(2, draw(s, 4) as f32),
                    Coef::Count(3, draw(s, 3) as f32),
                ],
            };
            TracedPosition {
                result: draw(&mut s, 3) as f32 / 2.0,
                phase: draw(&mut s, 25) as f32 / 24.0,
                scale: 1.0,
                coeffs: vec![
                    Coef::Count(0, draw(&mut s, 3) as f32 - 1.0),
                    Coef::Count(1, draw(&mut s, 3) as f32 - 1.0),
                ],
                inner: vec![danger(&mut s, 1.0), danger(&mut s, -1.0)],
                ..TracedPosition::default()
            }
        })
        .collect()
}

#[test]
fn at_a_zero_start_the_flat_values_curve_as_the_error_does() {
    let (space, positions) = (saddle_space(), saddle_positions(3_000, 5));
    let at = space.defaults();
    let refs: Vec<&TracedPosition> = positions.iter().collect();
    let mut ds = composed(&space, &refs, |p| p.result);
    ds.rescore(&at);
    let slots: Vec<usize> = (0..space.value_count()).collect();
    let x: Vec<f64> = at.iter().map(|&v| f64::from(v)).collect();
    let holds = chain::holds(&ds, &at, &slots, &x);
    let flat: Vec<usize> = (0..slots.len()).filter(|&j| holds[j].is_flat()).collect();
    assert_eq!(
        flat,
        vec![4, 5, 6, 7, 8],
        "the danger values and their weight"
    );
    let k = 1.0;
    let curvature = chain::flat_curvature(&ds, (&at, &slots, &x), &flat, k);
    let n = flat.len();
    let sum_at = |moves: &[(usize, f64)]| {
        let mut y = x.clone();
        moves.iter().for_each(|&(j, d)| y[j] += d);
        chain::summed_error(&ds, &at, &slots, &y, k)
    };
    let h = 1e-2;
    for (a, &ja) in flat.iter().enumerate() {
        for (b, &jb) in flat.iter().enumerate() {
            let fd = (sum_at(&[(ja, h), (jb, h)])
                - sum_at(&[(ja, h), (jb, -h)])
                - sum_at(&[(ja, -h), (jb, h)])
                + sum_at(&[(ja, -h), (jb, -h)]))
                / (4.0 * h * h);
            let got = curvature[a * n + b];
            assert!(
                (fd - got).abs() <= 1e-4 * got.abs().max(1e-3),
                "{ja}, {jb}: {fd} vs {got}"
            );
        }
    }
    assert!(curvature.iter().any(|&c| c != 0.0));
}

#[test]
fn each_value_s_support_counted_at_once_is_its_support_alone() {
    let (space, positions) = (space(), positions(9_000, 6));
    let ds = scored(&positions, &space.defaults());
    assert!(ds.linear.blocks.len() > 1, "positions over several blocks");
    let mut slots: Vec<usize> = (0..space.defaults().len()).rev().collect();
    slots.push(0);
    let alone: Vec<usize> = slots.iter().map(|&s| ds.support(&[s])).collect();
    assert_eq!(ds.supports(&slots), alone);
    assert!(alone.iter().any(|&n| n > 0) && alone.iter().any(|&n| n < ds.len()));
}

#[test]
fn without_inner_sums_a_composed_dataset_answers_as_its_linear_one() {
    use texel_solve::error::SigmoidTable;
    let space = space();
    let mut positions = positions(5_000, 6);
    positions.iter_mut().for_each(|p| p.inner.clear());
    let refs: Vec<&TracedPosition> = positions.iter().collect();
    let values = space.defaults();
    let mut composed = composed(&space, &refs, |p| p.result);
    let mut linear = LinearDataset::new(&space, &refs, |p| p.result);
    composed.rescore(&values);
    linear.rescore(&values);
    for i in 0..positions.len() {
        assert_eq!(composed.exact_eval(i), linear.exact_eval(i), "position {i}");
    }
    let table = SigmoidTable::new(fit_k(&samples(&linear)));
    let errors: Vec<f64> = (0..linear.len())
        .map(|i| table.squared_error(linear.eval(i), linear.target(i)))
        .collect();
    // A middlegame, an endgame and a plain value, up and down: the composed dataset probes
    // the endgame one through the complexity term, the others through the columns.
    let moves = [(0, 5), (1, -3), (12, 2), (13, -4)];
    let (mut none, mut nothing) = ((), ());
    let one = composed.probe_each(&mut none, (&values, &moves), &table, &errors);
    let other = linear.probe_each(&mut nothing, (&values, &moves), &table, &errors);
    assert_eq!(one, other);
    assert!(!composed.linear(1) && linear.linear(1));
}

#[test]
fn a_value_only_counted_in_sums_is_probed_by_one_walk_as_alone() {
    use texel_solve::error::SigmoidTable;
    use texel_solve::model::Move;
    let space = danger_space(Vec::new());
    let mut positions = positions(6_000, 7);
    positions
        .iter_mut()
        .for_each(|p| p.inner.retain(|s| s.term == 0));
    let refs: Vec<&TracedPosition> = positions.iter().collect();
    let values = space.defaults();
    let mut ds = composed(&space, &refs, |p| p.result);
    ds.rescore(&values);
    let table = SigmoidTable::new(fit_k(&samples(&ds)));
    let errors: Vec<f64> = (0..ds.len())
        .map(|i| table.squared_error(ds.eval(i), ds.target(i)))
        .collect();
    // The danger values (walked), a table value (a column) and the weight (it multiplies).
    let moves = [
        (15, 1),
        (15, -1),
        (16, 3),
        (18, -2),
        (17, 1),
        (2, 4),
        (19, -1),
        (16, -3),
    ];
    assert!((15..19).all(|s| ds.walks(s)) && !ds.walks(2) && !ds.walks(19));
    let each = ds.probe_each(&mut (), (&values, &moves), &table, &errors);
    let alone: Vec<f64> = (moves.iter())
        .map(|&m| ds.probe(&mut (), Move::of(&values, m, &table), &errors))
        .collect();
    assert_eq!(each, alone);
    assert!(each.iter().filter(|&&c| c != 0.0).count() >= 6, "{each:?}");
    // A complexity reads every endgame part: no value is walked there.
    let ds = scored(&self::positions(500, 8), &self::space().defaults());
    assert!(!ds.walks(15));
}

#[test]
fn every_inner_sum_is_the_same_to_the_bit_whatever_span_it_is_filled_in() {
    let (space, positions) = (space(), positions(3_000, 9));
    let mut seed = 5;
    for round in 0..3 {
        let mut values = space.defaults();
        if round > 0 {
            (values.iter_mut()).for_each(|v| *v += draw(&mut seed, 61) as i32 - 30);
        }
        // Scored anew: every sum filled in spans of many positions' sums.
        let ds = scored(&positions, &values);
        let real: Vec<f64> = values.iter().map(|&v| f64::from(v)).collect();
        assert!(ds.inner.sums_agree(&real), "round {round}");
    }
}
