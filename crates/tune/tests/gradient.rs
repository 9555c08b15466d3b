//! The gradient of the mean error equals finite differences of the real error, for values
//! their column alone carries, curve inputs and formula weights, and does not depend on the
//! thread count.

mod common;

use std::collections::HashSet;
use texel_dataset::{select, Dataset};
use texel_eval::Params;
use texel_solve::error::{fit_k, samples};
use texel_solve::{Descent, Variable};
use texel_tune::Selection;

fn dataset(n: usize) -> (Dataset, f64) {
    let (ds, _, _) = common::data(n, &Params::default(), 0);
    let k = fit_k(&samples(&ds));
    (ds, k)
}

/// Flat slots that shape a curve.
fn curve_inputs() -> HashSet<usize> {
    (0..texel_eval::curve::slot_count())
        .flat_map(|d| {
            let (curve, index) = texel_eval::curve::slot_curve(d);
            curve
                .inputs(index)
                .into_iter()
                .flat_map(|p| [p.flat_index(), p.flat_index() + 1])
        })
        .collect()
}

/// The values of each kind with the most support: (only their column, curve inputs,
/// formula weights), `n` of each.
fn kinds(ds: &Dataset, vars: &[Variable], n: usize) -> [Vec<Variable>; 3] {
    let curves = curve_inputs();
    let mut kinds: [Vec<(usize, Variable)>; 3] = Default::default();
    for &v in vars {
        let term = texel_eval::params::flat_params()[v.slot].term;
        let kind = if ds.formula_reads(term) > 0 {
            2
        } else if curves.contains(&v.slot) {
            1
        } else {
            0
        };
        kinds[kind].push((ds.support(&[v.slot]), v));
    }
    kinds.map(|mut k| {
        k.sort_by_key(|&(support, v)| (std::cmp::Reverse(support), v.slot));
        k.into_iter().take(n).map(|(_, v)| v).collect()
    })
}

#[test]
fn the_gradient_matches_finite_differences_of_the_error() {
    let (mut ds, k) = dataset(4000);
    let vars = select(&Selection::default()).unwrap();
    let [linear, curve, formula] = kinds(&ds, &vars, 8);
    assert!(linear.len() == 8 && !curve.is_empty() && !formula.is_empty());
    let mut d = Descent::new(&mut ds, Params::default(), k, vars);
    let grads = d.gradient(&linear);
    let largest = grads.iter().fold(0.0f64, |m, g| m.max(g.abs()));
    assert!(
        largest > 1e-6,
        "the values with most support all have slope 0?"
    );
    for (v, g) in linear.iter().zip(&grads) {
        // Two steps each way: the evaluation rounds to whole centipawns, and over a wider
        // step the rounding averages out while the curvature of the error stays small.
        let fd = (d.probe(*v, 2) - d.probe(*v, -2)) / 4.0;
        assert!(
            (g - fd).abs() <= 0.1 * fd.abs() + 0.02 * largest,
            "slot {}: gradient {g:e}, finite difference {fd:e}",
            v.slot
        );
    }
    for v in curve.iter().chain(&formula) {
        let g = d.gradient(&[*v])[0];
        let fd = (d.probe(*v, v.step) - d.probe(*v, -v.step)) / f64::from(2 * v.step);
        assert_eq!(g, fd, "slot {}", v.slot);
    }
    // A step against the gradient lowers the error, whatever the kind.
    for v in linear.iter().chain(&curve).chain(&formula) {
        let g = d.gradient(&[*v])[0];
        if g.abs() > 1e-6 {
            let against = if g > 0.0 { -v.step } else { v.step };
            assert!(
                d.probe(*v, against) < 0.0,
                "slot {}: gradient {g:e}",
                v.slot
            );
        }
    }
}

#[test]
fn the_gradient_does_not_depend_on_the_thread_count() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let (mut ds, k) = dataset(20_000);
            let vars = select(&Selection::default()).unwrap();
            let mut d = Descent::new(&mut ds, Params::default(), k, vars.clone());
            let g: Vec<u64> = d.gradient(&vars).iter().map(|x| x.to_bits()).collect();
            g
        })
    };
    assert_eq!(run(1), run(2));
}
