//! Properties of the whole evaluation on 2,000 positions from engine games.

use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};
use texel_eval::params::{flat_params, Component, IParam};
use texel_eval::{evaluate, parse_fen, taper, trace, Params, Trace, Tracer};

/// The shipped sample of 2,000 positions from engine games (`data/positions.fen`).
const SAMPLE_POSITIONS: &str = include_str!("../../../data/positions.fen");

fn positions() -> Vec<Chess> {
    SAMPLE_POSITIONS
        .lines()
        .map(|l| parse_fen(l).unwrap())
        .collect()
}

/// The position with colours swapped and the board flipped.
fn mirrored(pos: &Chess) -> Chess {
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    setup.mirror();
    setup
        .position(CastlingMode::Standard)
        .expect("a mirrored legal position is legal")
}

#[test]
fn mirrored_positions_score_the_negation() {
    let params = Params::default();
    let all = positions();
    assert!(all.len() >= 1000);
    for pos in &all {
        let fen = shakmaty::fen::Fen::from_position(pos, EnPassantMode::Legal);
        assert_eq!(
            evaluate(pos, &params),
            -evaluate(&mirrored(pos), &params),
            "{fen}"
        );
    }
}

#[test]
fn traces_reproduce_the_evaluation_exactly() {
    let params = Params::default();
    for pos in positions() {
        let t = trace(&pos, &params);
        let sum = t.linear_sum(&params) + t.curve_sum(&params) + t.inputs.attack(&params);
        let score = evaluate(&pos, &params);
        assert_eq!(taper(sum, t.phase, t.inputs.scale(&params)), score);
        assert_eq!(t.score(&params), score);
    }
}

/// A deterministic pseudo-random step in -8..=8.
fn jitter(seed: &mut u64) -> i32 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*seed >> 33) % 17) as i32 - 8
}

#[test]
fn traces_predict_evaluations_under_any_values_without_the_board() {
    let base = Params::default();
    let mut seed = 7;
    // Every parameter moves: linear terms, curve inputs and formula weights.
    let mut changed = base.clone();
    for i in 0..flat_params().len() {
        changed.set_flat(i, base.flat()[i] + jitter(&mut seed));
    }
    let mut moved_formula = 0;
    for pos in positions() {
        let t = trace(&pos, &base);
        assert_eq!(
            t,
            trace(&pos, &changed),
            "a trace depends on the position only"
        );
        assert_eq!(t.score(&changed), evaluate(&pos, &changed));
        let f = &t.inputs;
        if f.attack(&base) != f.attack(&changed) || f.scale(&base) != f.scale(&changed) {
            moved_formula += 1;
        }
        // What the formulas read does not depend on the values either.
        let mut listed = Vec::new();
        f.for_each_read(|p, _| listed.push(p.flat_index()));
        for params in [&base, &changed] {
            let mut read = Vec::new();
            let mut reader = |p: IParam| {
                read.push(p.flat_index());
                params.flat()[p.flat_index()]
            };
            f.king_attack.value_with(&mut reader);
            f.scale.value_with(&mut reader);
            assert_eq!(read, listed);
        }
    }
    assert!(moved_formula >= 100, "only {moved_formula} formulas moved");
}

#[test]
fn nonlinear_terms_never_appear_as_linear_coefficients() {
    let params = Params::default();
    for pos in positions() {
        for c in trace(&pos, &params).coefs {
            let term = flat_params()[c.index as usize].term.info();
            assert!(term.linear, "{} traced as linear", term.name);
        }
    }
}

#[test]
fn a_coefficient_knows_whether_its_parameter_is_tapered() {
    let params = Params::default();
    let mut seen = [false; 2];
    for pos in positions() {
        for c in trace(&pos, &params).coefs {
            let slot = &flat_params()[c.index as usize];
            assert_eq!(c.tapered, slot.term.info().shape.is_tapered(), "{c:?}");
            assert!(!c.tapered || slot.component == Component::Mid, "{c:?}");
            assert!(
                !c.tapered || c.mid == c.end,
                "one count for both values: {c:?}"
            );
            seen[usize::from(c.tapered)] = true;
        }
    }
    assert_eq!(seen, [true, true], "both kinds occur in the sample");
}

#[test]
fn tracing_runs_on_many_threads_at_once() {
    let params = Params::default();
    let all = positions();
    let single: Vec<Trace> = {
        let mut tracer = Tracer::new(&params);
        all.iter().map(|p| tracer.trace(p)).collect()
    };
    let chunks: Vec<Vec<Trace>> = std::thread::scope(|s| {
        let handles: Vec<_> = all
            .chunks(all.len().div_ceil(4))
            .map(|chunk| {
                let params = &params;
                s.spawn(move || {
                    let mut tracer = Tracer::new(params);
                    chunk.iter().map(|p| tracer.trace(p)).collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(chunks.concat(), single);
}

#[test]
fn json_round_trip_gives_identical_evaluations() {
    let mut seed = 11;
    let mut changed = Params::default();
    for i in 0..flat_params().len() {
        changed.set_flat(i, changed.flat()[i] + jitter(&mut seed));
    }
    let back = Params::from_json_str(&changed.to_json_string()).unwrap();
    for pos in positions().iter().take(500) {
        assert_eq!(evaluate(pos, &back), evaluate(pos, &changed));
    }
}
