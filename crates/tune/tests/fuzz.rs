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
        let guards = texel_tune::Guards {
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
