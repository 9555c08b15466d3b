//! Property tests: the checkpoint reader takes any text, and real checkpoints cut or with
//! bytes changed, without panicking; what it accepts fits the table. `PROPTEST_CASES=10000
//! cargo test --release --test fuzz` runs it longer than CI does.

use proptest::prelude::*;
use std::sync::OnceLock;
use texel_dataset::{load, select, LoadOptions};
use texel_eval::Params;
use texel_run::Settings;
use texel_tune::{fresh, Checkpoint, Selection};

/// A real checkpoint's text (of a fresh run on 200 shipped positions), made once.
fn real() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let lines: Vec<&str> = include_str!("../../../data/train.epd")
            .lines()
            .take(200)
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.epd");
        std::fs::write(&path, lines.join("\n")).unwrap();
        let params = Params::default();
        let (train, _, report) = load(&[path], &params, &LoadOptions::default(), &|_| {}).unwrap();
        let vars = select(&Selection {
            groups: vec!["KnightV".into()],
            ..Default::default()
        })
        .unwrap();
        let guards = texel_solve::Guards {
            l2: 0.1,
            constraints: true,
        };
        let mut c = fresh(&train, report.fingerprint, params, 1.0, vars, guards);
        c.settings = Some(Settings::default().fixed("--method", "cd"));
        c.to_json().to_string()
    })
}

/// Reads `text` as a checkpoint file; whatever it accepts must round-trip.
fn read(text: &[u8]) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.ckpt");
    std::fs::write(&path, text).unwrap();
    if let Ok(c) = Checkpoint::<Params>::read(&path) {
        prop_assert_eq!(
            c.vars
                .iter()
                .all(|v| v.slot < c.descent.params.flat().len()),
            true
        );
        c.save(&path).unwrap();
        prop_assert_eq!(Checkpoint::<Params>::read(&path).unwrap(), c);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: ProptestConfig::default().cases / 4, ..ProptestConfig::default() })]

    #[test]
    fn any_text_is_a_checkpoint_or_refused(text in "\\PC{0,300}") {
        read(text.as_bytes())?;
    }

    #[test]
    fn real_checkpoints_cut_or_changed_are_read_or_refused(
        cut in 0..1usize << 20, at in 0..1usize << 20, byte in any::<u8>(), digit in 0..10u8,
    ) {
        let mut bytes = real().as_bytes().to_vec();
        let at = at % bytes.len();
        let mut changed = bytes.clone();
        changed[at] = byte;
        read(&changed)?;
        let mut digit_changed = bytes.clone();
        if digit_changed[at].is_ascii_digit() {
            digit_changed[at] = b'0' + digit;
        }
        read(&digit_changed)?;
        bytes.truncate(cut % (bytes.len() + 1));
        read(&bytes)?;
    }
}

/// A small binary trace: 64 positions of two tapered values and a plain one.
fn real_binary_trace() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| {
        let mut text = String::from(
            r#"{"format":"texel-trace","version":1,"params":[{"name":"P","len":2,"tapered":true,"default":[[100,120],[300,280]]},{"name":"B","len":1,"tapered":false,"default":20}]}"#,
        );
        for i in 0..64 {
            let (a, b, c) = (i % 3 - 1, (i / 3) % 3 - 1, i % 2);
            let result = [0.0, 0.5, 1.0][i as usize % 3];
            let phase = f64::from(i % 25) / 24.0;
            text += &format!(
                "\n{{\"result\": {result}, \"phase\": {phase}, \"score\": 0.5, \"coeffs\": [[0, {a}], [1, {b}], [2, {c}]]}}"
            );
        }
        let path = std::path::Path::new("t.jsonl");
        let reader = texel_tune::texel_trace::TraceReader::new(text.as_bytes(), path).unwrap();
        let space = reader.space().clone();
        let positions: Vec<_> = reader.collect::<Result<_, _>>().unwrap();
        let mut bytes = Vec::new();
        texel_tune::texel_trace::write_binary(&mut bytes, &space, &positions).unwrap();
        bytes
    })
}

/// Tunes the binary trace `bytes` streamed (chunks of 16 positions, the survey, K fitted,
/// Newton and the polish): whatever the reader accepts tunes to values in bounds with an
/// error between 0 and 1, or is refused with an error, never a panic. Whether it tuned.
fn stream(bytes: &[u8]) -> Result<bool, TestCaseError> {
    use std::sync::atomic::AtomicBool;
    use texel_tune::texel_trace::BinaryTrace;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.bin");
    std::fs::write(&path, bytes).unwrap();
    let Ok(trace) = BinaryTrace::read(&path) else {
        return Ok(false);
    };
    let never = AtomicBool::new(false);
    let held = vec![false; trace.len()];
    let lambda = texel_tune::Lambda::Auto;
    let _ = texel_tune::survey_trace(&trace, &held, lambda, 16, &never);
    let start = trace.space().defaults();
    let slots: Vec<usize> = (0..start.len()).collect();
    let mut settings = texel_tune::TuneSettings {
        min_support: 0,
        l2: texel_tune::L2::Fixed(0.0),
        stream: texel_tune::Streaming {
            chunk: 16,
            form: None,
        },
        ..Default::default()
    };
    settings.run.passes = 6;
    let labels = texel_tune::StreamRun::new(&settings, texel_tune::Labels::default());
    let tuned = texel_tune::tune_streamed(&trace, (&start, &slots), labels, None, &never, |_| {});
    if let Ok(t) = tuned {
        // A mean squared error of targets and expected scores in 0 to 1.
        prop_assert!((0.0..=1.0).contains(&t.error), "error {}", t.error);
        prop_assert_eq!(t.values.len(), start.len());
        prop_assert!(t
            .values
            .iter()
            .all(|&v| texel_tune::texel_trace::in_bounds(v)));
        return Ok(true);
    }
    Ok(false)
}

#[test]
fn the_real_binary_trace_tunes_streamed() {
    assert!(matches!(stream(real_binary_trace()), Ok(true)));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: ProptestConfig::default().cases / 4, ..ProptestConfig::default() })]

    #[test]
    fn streamed_binary_traces_changed_or_cut_tune_or_are_refused(
        at in 0..1usize << 20, byte in any::<u8>(), cut in 0..1usize << 20,
    ) {
        let real = real_binary_trace();
        let mut changed = real.to_vec();
        let at = at % changed.len();
        changed[at] = byte;
        stream(&changed)?;
        stream(&real[..cut % (real.len() + 1)])?;
        // The bytes past the header changed, most reads still tune.
        let mut past = real.to_vec();
        let n = past.len();
        past[n - 1 - at % (n / 2)] = byte;
        stream(&past)?;
    }
}
