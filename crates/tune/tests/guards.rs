//! The over-fitting guards on the shipped data, where three sparse endgame values go wrong
//! without them: two unstoppable connected passers against a knight turn into a minus, the
//! race won one ply ahead outgrows the race won clearly, and a weak back rank becomes a
//! bonus. Each guard is also checked on its own.

use std::sync::atomic::AtomicBool;
use texel_dataset::{load, select, Dataset, LoadOptions};
use texel_eval::params::Handle;
use texel_eval::table::{CONNECTED_PAWN_UNSTOPPABLE, KS_WEAK_BACK_RANK, PAWN_RACE_WIN};
use texel_eval::Params;
use texel_solve::error::mean_error;
use texel_solve::error::{fit_k, samples};
use texel_solve::{Descent, Guards, Variable};
use texel_tune::{JobEvent, PullChoice, Selection, TuneData, TuneJob, L2, PATIENCE, PULL_PATH};

/// The shipped training data and its K.
fn shipped() -> (Dataset, f64) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/train.epd");
    let (train, _, _) = load(
        &[path],
        &Params::default(),
        &LoadOptions::default(),
        &|_| {},
    )
    .unwrap();
    let k = fit_k(&samples(&train));
    (train, k)
}

/// The endgame group and the back-rank term.
fn endgame_vars() -> Vec<Variable> {
    select(&Selection {
        groups: vec!["EndGameV".into()],
        terms: vec!["KS_WEAK_BACK_RANK".into()],
        ..Default::default()
    })
    .unwrap()
}

/// Tunes `vars` from the defaults for three passes (values with less than `min_support`
/// positions held); the dataset is scored with the defaults again afterwards.
fn tuned(ds: &mut Dataset, k: f64, guards: Guards, min_support: usize) -> Params {
    let vars: Vec<Variable> = endgame_vars()
        .into_iter()
        .filter(|v| ds.support(&[v.slot]) >= min_support)
        .collect();
    let mut descent = Descent::new(ds, Params::default(), k, vars).guarded(guards);
    for _ in 0..3 {
        descent.pass(&AtomicBool::new(false), &mut |_| {}).unwrap();
    }
    let params = descent.params().clone();
    ds.rescore(&Params::default());
    params
}

/// (unstoppable pair against a knight, race won clearly, race won one ply ahead, weak back
/// rank in a closed position)
fn named(p: &Params) -> (i32, i32, i32, i32) {
    let race = p.get(PAWN_RACE_WIN);
    (
        CONNECTED_PAWN_UNSTOPPABLE.at(1).get(p),
        race[0],
        race[1],
        KS_WEAK_BACK_RANK.at(0).get(p),
    )
}

#[test]
fn the_guards_keep_the_sparse_endgame_values_sane() {
    let (mut ds, k) = shipped();
    let free = named(&tuned(&mut ds, k, Guards::default(), 0));
    // Without guards the data reproduces the over-fitting.
    assert!(free.0 < 0 && free.2 > free.1 && free.3 > 0, "{free:?}");

    let all = Guards {
        l2: 0.1,
        constraints: true,
    };
    let (pair, clear, one_ply, back_rank) = named(&tuned(&mut ds, k, all, 20));
    assert!(
        pair >= 0 && clear >= one_ply && back_rank <= 0,
        "{:?}",
        (pair, clear, one_ply, back_rank)
    );

    // The three values count in fewer than 20 positions: the support guard alone holds
    // them (the clear race win, seen in hundreds of positions, still moves).
    let held = named(&tuned(&mut ds, k, Guards::default(), 20));
    let start = named(&Params::default());
    assert_eq!((held.0, held.2, held.3), (start.0, start.2, start.3));
    // The declared constraints alone: bounds and order hold, the values still move.
    let only = Guards {
        l2: 0.0,
        constraints: true,
    };
    let c = named(&tuned(&mut ds, k, only, 0));
    assert!(c.0 >= 0 && c.1 >= c.2 && c.3 <= 0, "{c:?}");
    assert_ne!(c, named(&Params::default()));
}

#[test]
fn the_l2_pull_shrinks_every_change_toward_the_start() {
    let (mut ds, k) = shipped();
    let distance = |p: &Params| -> i64 {
        let start = Params::default();
        endgame_vars()
            .iter()
            .map(|v| i64::from((p.flat()[v.slot] - start.flat()[v.slot]).abs()))
            .sum()
    };
    let pulled = |l2| Guards {
        l2,
        constraints: false,
    };
    let free = distance(&tuned(&mut ds, k, pulled(0.0), 0));
    let light = distance(&tuned(&mut ds, k, pulled(0.1), 0));
    let heavy = distance(&tuned(&mut ds, k, pulled(1000.0), 0));
    assert!(free > light && light > heavy, "{free} {light} {heavy}");
}

/// The shipped data split by `--validate 10`, scored with the defaults, and its K.
fn shipped_split() -> TuneData<Dataset> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/train.epd");
    let options = LoadOptions {
        held_out: texel_data::HeldOut::share(100),
        ..LoadOptions::default()
    };
    let (train, validation, _) = load(&[path], &Params::default(), &options, &|_| {}).unwrap();
    let k = fit_k(&samples(&train));
    TuneData {
        train,
        validation,
        k,
        fingerprint: 0,
        labels: None,
    }
}

#[test]
fn l2_auto_walks_the_path_of_pulls_and_the_run_tunes_at_the_best_on_held_out_positions() {
    let mut data = shipped_split();
    let before = mean_error(&data.validation, data.k);
    let job = TuneJob::new(Params::default(), endgame_vars());
    assert_eq!(job.settings.l2, L2::Auto, "the default");
    let (mut points, mut chosen, mut guards) = (Vec::new(), None, None);
    let never = AtomicBool::new(false);
    let start = job
        .begin(&mut data, &never, &mut |e| match e {
            JobEvent::Pull(p) => points.push(p),
            JobEvent::PullChosen(c) => chosen = Some(c),
            JobEvent::Fresh(_, g) => guards = Some(g),
            _ => {}
        })
        .unwrap();
    // Strongest first, in the path's order, until two pulls in a row score worse.
    assert!(points.len() > PATIENCE, "{points:?}");
    assert!(points.iter().zip(PULL_PATH).all(|(p, l2)| p.l2 == l2));
    let best = points
        .iter()
        .fold(points[0], |b, p| match p.held_out < b.held_out {
            true => *p,
            false => b,
        });
    let Some(PullChoice::Path {
        l2,
        held_out,
        start: start_error,
        solved,
    }) = chosen
    else {
        panic!("no path: {chosen:?}");
    };
    assert_eq!(
        (l2, held_out, solved),
        (best.l2, best.held_out, points.len())
    );
    assert_eq!((start_error, guards.unwrap().l2), (before, l2));
    // The weakest pulls fit the training positions best.
    assert!(points.last().unwrap().train < points[0].train, "{points:?}");
    // The run tunes at the chosen pull from the start; the data is scored with the start
    // again.
    assert!(start.descent.newton.is_none() && start.descent.params == Params::default());
    assert_eq!(mean_error(&data.validation, data.k), before);
}
