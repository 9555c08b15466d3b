//! Every parameter at the edge of what a parameter file may hold: no evaluation or trace
//! overflows. Run it unoptimised (`cargo test -p texel-eval --test extreme_values`), where
//! an overflow panics; `.ci/run` does.

use texel_eval::params::{flat_params, VALUE_BOUND};
use texel_eval::{evaluate, parse_fen, trace, Params};

#[test]
fn values_at_the_bound_do_not_overflow_the_score() {
    let positions: Vec<_> = include_str!("../../../data/positions.fen")
        .lines()
        .map(|l| parse_fen(l).unwrap())
        .collect();
    let fill = |f: &dyn Fn(usize) -> i32| {
        let mut p = Params::zeroed();
        (0..flat_params().len()).for_each(|i| p.set_flat(i, f(i)));
        p
    };
    for params in [
        fill(&|_| VALUE_BOUND),
        fill(&|_| -VALUE_BOUND),
        fill(&|i| {
            if i % 2 == 0 {
                VALUE_BOUND
            } else {
                -VALUE_BOUND
            }
        }),
    ] {
        for pos in &positions {
            let score = evaluate(pos, &params);
            assert!(score.unsigned_abs() < i32::MAX as u32);
            trace(pos, &params);
        }
    }
}
