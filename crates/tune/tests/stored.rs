//! texel's own tune gives the same values, bit for bit, as the stored result made before the
//! tuner core became generic over parameter spaces: coordinate descent with a warm start,
//! the L2 pull and the table's constraints, and Adam handing over to coordinate descent,
//! on every variable (curves and formulas included) of the first shipped positions.
//!
//! `STORE_TUNE_RESULT=1 cargo test --release -p texel-tune --test stored` writes the file
//! again; do that only when a change of the tuned values is intended and explained.

use texel_dataset::{load, select, LoadOptions};
use texel_eval::Params;
use texel_solve::error::{fit_k, samples};
use texel_solve::Method;
use texel_tune::{fresh, run, RunOptions, Selection};

const STORED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/stored-tune.json"
);

/// The tuned values and the final training error's bits of one run.
fn tune(method: Method, warm_start: Option<usize>) -> serde_json::Value {
    let lines: Vec<&str> = include_str!("../../../data/train.epd")
        .lines()
        .take(6000)
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data.epd");
    std::fs::write(&path, lines.join("\n")).unwrap();
    let options = LoadOptions {
        held_out: texel_data::HeldOut::share(100),
        ..Default::default()
    };
    let params = Params::default();
    let (mut train, mut validation, report) = load(&[path], &params, &options, &|_| {}).unwrap();
    let k = fit_k(&samples(&train));
    let vars = select(&Selection::default()).unwrap();
    let guards = texel_solve::Guards {
        l2: 0.1,
        constraints: true,
    };
    let start = fresh(&train, report.fingerprint, params, k, vars, guards);
    let run_options = RunOptions {
        passes: 2,
        method,
        adam_epochs: 3,
        warm_start,
        ..RunOptions::default()
    };
    let mut last_error = 0.0;
    let never = std::sync::atomic::AtomicBool::new(false);
    let result = run(
        &mut train,
        &mut validation,
        start,
        &run_options,
        &never,
        &mut |e| {
            if let texel_tune::Event::Pass(record, _) = e {
                last_error = record.train_error;
            }
        },
    )
    .unwrap();
    serde_json::json!({
        "k": format!("{:016x}", k.to_bits()),
        "error": format!("{:016x}", last_error.to_bits()),
        "values": result.params.flat().to_vec(),
    })
}

#[test]
fn texels_own_tune_gives_the_stored_values_bit_for_bit() {
    let got = serde_json::json!({
        "cd_warm": tune(Method::Cd, Some(3)),
        "adam_then_cd": tune(Method::AdamThenCd, Some(0)),
    });
    if std::env::var_os("STORE_TUNE_RESULT").is_some() {
        std::fs::write(STORED, format!("{got}\n")).unwrap();
    }
    let stored: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(STORED).unwrap()).unwrap();
    for run in ["cd_warm", "adam_then_cd"] {
        assert_eq!(got[run]["k"], stored[run]["k"], "{run}: K");
        assert_eq!(got[run]["values"], stored[run]["values"], "{run}: values");
        assert_eq!(got[run]["error"], stored[run]["error"], "{run}: error");
    }
}
