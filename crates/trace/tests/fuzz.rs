//! Property tests: trace files of any text, and real traces cut or with bytes changed, are
//! read or refused with a reason, never a panic. `PROPTEST_CASES=100000 cargo test
//! --release --test fuzz` runs them longer than CI does.

use proptest::prelude::*;
use std::path::Path;
use texel_trace::TraceReader;

const REAL: &str = concat!(
    r#"{"format": "texel-trace", "version": 1, "params": [{"name": "P", "len": 3, "tapered": true, "default": [[1, 2], [3, 4], [5, 6]]}, {"name": "T", "len": 1, "default": 7}]}"#,
    "\n",
    r#"{"result": 1, "phase": 0.5, "offset": 3, "scale": 0.5, "coeffs": [[0, 1], [1, 2, -1], [3, 2]]}"#,
    "\n",
    r#"{"result": 0, "phase": 0, "coeffs": [[2, -1.5]], "score": 0.25}"#,
    "\n"
);

/// Reads `text` as a whole trace; every position read evaluates to a finite number.
fn read(text: &[u8]) -> Result<(), TestCaseError> {
    if let Ok(reader) = TraceReader::new(text, Path::new("t")) {
        let space = reader.space().clone();
        let values = space.defaults();
        for p in reader.flatten() {
            prop_assert!(p.eval(&space, &values).is_finite());
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn any_text_is_a_trace_or_refused(text in "\\PC{0,300}") {
        read(text.as_bytes())?;
    }

    #[test]
    fn real_traces_changed_are_read_or_refused(at in 0..REAL.len(), byte in any::<u8>(), cut in 0..REAL.len()) {
        let mut bytes = REAL.as_bytes().to_vec();
        bytes[at] = byte;
        read(&bytes)?;
        read(&REAL.as_bytes()[..cut])?;
    }
}

/// The binary form of [`REAL`].
fn real_binary() -> Vec<u8> {
    let reader = TraceReader::new(REAL.as_bytes(), Path::new("t")).unwrap();
    let space = reader.space().clone();
    let positions: Vec<_> = reader.collect::<Result<_, _>>().unwrap();
    let mut bytes = Vec::new();
    texel_trace::write_binary(&mut bytes, &space, &positions).unwrap();
    bytes
}

proptest! {
    #[test]
    fn binary_traces_changed_or_cut_are_read_or_refused(
        at in 0..1000usize, byte in any::<u8>(), cut in 0..1000usize,
    ) {
        let mut bytes = real_binary();
        let n = bytes.len();
        bytes[at % n] = byte;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.bin");
        for b in [&bytes[..], &real_binary()[..cut % n]] {
            std::fs::write(&path, b).unwrap();
            if let Ok((space, positions)) = texel_trace::read_binary(&path) {
                let values = space.defaults();
                for p in &positions {
                    prop_assert!(p.eval(&space, &values).is_finite());
                }
                // One check for both forms: what the binary reader takes, the text reader
                // takes back as it was (`traces convert` never writes what it refuses).
                let mut text = Vec::new();
                texel_trace::write_trace(&mut text, &space, &positions).unwrap();
                let again = TraceReader::new(text.as_slice(), Path::new("t.jsonl"))
                    .and_then(|r| r.collect::<Result<Vec<_>, _>>());
                prop_assert_eq!(again.map_err(|e| e.to_string()), Ok(positions));
            }
        }
    }
}
