//! The Python writer printed in `docs/trace-format.md` is run as printed (it needs
//! python3 with the `chess` package: `pip install chess`; `.ci/run` installs it) on
//! shipped positions, and its trace reads back whole.

use texel_trace::TraceReader;

/// The document's Python block.
fn script() -> String {
    let doc = include_str!("../../../docs/trace-format.md");
    let start = doc.find("```python\n").expect("a Python block") + "```python\n".len();
    doc[start..start + doc[start..].find("```").unwrap()].to_string()
}

#[test]
fn the_documented_python_writer_makes_a_trace_that_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let lines: String = include_str!("../../../data/train.epd")
        .lines()
        .take(300)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(dir.path().join("quiet.epd"), lines).unwrap();
    std::fs::write(dir.path().join("writer.py"), script()).unwrap();
    let run = std::process::Command::new("python3")
        .arg("writer.py")
        .current_dir(dir.path())
        .output()
        .expect("python3 is needed");
    assert!(
        run.status.success(),
        "the documented writer failed (pip install chess): {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let reader = TraceReader::open(&dir.path().join("trace.jsonl")).unwrap();
    assert_eq!(reader.space().entry_count(), 6 * 64);
    let positions: Vec<_> = reader.collect::<Result<_, _>>().unwrap();
    assert_eq!(positions.len(), 300);
    assert!(positions
        .iter()
        .all(|p| !p.coeffs.is_empty() && (0.0..=1.0).contains(&p.phase)));
}
